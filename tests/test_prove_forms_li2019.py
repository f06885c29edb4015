"""The provable forms of Li, Chen, Liu and Carin (AISTATS 2019) (issue 35): each item decided by the prover as
expected, every proof's certificate re-checked by the independent checker, the comparators compared with the
catalogue's own float accountant (code the prover does not use), and the two refutations (Lemma 2's leading term and
Remark 1 near sigma = 1, the catalogue's errata) re-checked at their witnesses.

Which bug would make these fail: a comparator that is not the sampled Gaussian's log moment (the comparison with
``rdp_sampled_gaussian`` would disagree), a change of variables in Theorems 3-4 that loses the run's delta bound
(the point-wise comparison below), a form that proves Lemma 2 (a comparator too small, a sign flipped), a failed
upper bound reported as a refutation (Theorems 3-4 must stay undecided: their comparator is only an upper bound),
and a certificate the checker rejects.

The default run proves the identities, the tail bound on a sub-box, Lemma 2's first orders, one slab of
Theorem 4; the tail bound's whole box, Remark 1, Lemma 2 away from sigma = 1 and Theorem 3's slabs are behind
``slow`` (Remark 1's refutation ships as a certificate, re-checked by ``verify``).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from dpverify.calculus.accounting.sampled_gaussian import rdp_sampled_gaussian
from dpverify.prove import Proof, Refutation, Undecided, certificate, check_certificate
from dpverify.prove.catalogue import form, item_problems, prove_item
from dpverify.prove.forms.li2019 import (
    LOG_MOMENT_ORDERS,
    STEP_SIZE_SLABS,
    sampled_gaussian_log_moment_at,
    step_size_exponent,
)
from dpverify.prove.search import Limits, prove
from dpverify.theorems import registry
from dpverify.theorems.mutation import TheoremVariant

#: A generous time limit keeps a loaded machine from turning a proof undecided (each proof here takes under 10 s).
LIMITS = Limits(max_seconds=60, max_boxes=40_000)


def _proved(result, name: str) -> None:
    assert isinstance(result, Proof), f"[{name}] {result.summary()}"
    assert not result.vacuous, f"[{name}] proved only vacuously"
    report = check_certificate(certificate(result))
    assert report.valid and report.outcome == "proved", report.errors


def _refuted(result, name: str) -> dict[str, float]:
    assert isinstance(result, Refutation), f"[{name}] {result.summary()}"
    report = check_certificate(certificate(result))
    assert report.valid and report.outcome == "refuted", report.errors
    return {k: float(v) for k, v in result.witness.items()}


def _at(expr: sp.Expr, values: dict[str, float]) -> float:
    return float(expr.xreplace({s: sp.Float(values[s.name], 30) for s in expr.free_symbols}).evalf(30))


def _exact_log_moment(q: float, sigma: float, lam: int) -> float:
    """``lam D_{lam+1}``: the catalogue's float accountant (Mironov, Talwar and Zhang 2019), not the prover's form."""
    return lam * float(rdp_sampled_gaussian(q, sigma, [lam + 1.0])[0])


def test_every_item_of_li2019_has_a_form_with_the_expected_outcome_declared():
    ids = [i for i in registry.ids() if i.startswith("li2019.")]
    from dpverify.prove.catalogue import provable_ids

    provable = [i for i in provable_ids() if i.startswith("li2019.")]
    assert set(provable) <= set(ids)
    assert {form(i).expected for i in provable} >= {"proved", "refuted", "undecided"}
    assert form("li2019.lem2_sampled_gaussian").expected == "refuted"
    assert form("li2019.thm4_fixed_stepsize").expected == "undecided"


@pytest.mark.parametrize("theorem_id", ["li2019.def3_moments_accountant", "li2019.thm1_composability",
                                        "li2019.wang_bound_quoted"])
def test_identities_are_proved_with_valid_certificates(theorem_id):
    proof = prove_item(theorem_id, limits=LIMITS)
    assert proof.outcome == "proved", proof.summary()
    for name, result in proof.parts:
        _proved(result, name)


def test_composability_with_a_smaller_claim_is_refuted():
    """k lam (lam+1)/(2 sigma^2) times 0.9 is below the exact log moment of k Gaussian mechanisms everywhere."""
    theorem = registry.get("li2019.thm1_composability")
    smaller = {k: v * sp.Rational(9, 10) for k, v in theorem.conclusion.items()}
    variant = TheoremVariant(theorem.id, dict(theorem.symbols), list(theorem.hypotheses), smaller)
    proof = prove_item(theorem.id, item=variant, limits=LIMITS)
    assert proof.outcome == "refuted", proof.summary()
    w = _refuted(proof.parts[0][1], "log_moment")
    sigma, lam, k = w["sigma"], w["lam"], w["k"]
    assert 0.9 * k * lam * (lam + 1) / (2 * sigma**2) < lam * (lam + 1) * k / (2 * sigma**2)


def test_tail_bound_is_proved_on_a_sub_box():
    """Theorem 1's tail bound over every order lam, through (mu, y, v); here on mu <= 2, y <= 6 (the whole box, mu
    <= 7 and y <= 40, in the slow run)."""
    proof = prove_item("li2019.thm1_tail_bound", box={"mu": (0, 2), "y": (0, 6)}, limits=LIMITS)
    assert proof.outcome == "proved", proof.summary()
    _proved(proof.parts[0][1], "delta")


@pytest.mark.slow
def test_tail_bound_is_proved_on_its_whole_box():
    proof = prove_item("li2019.thm1_tail_bound", limits=Limits(max_seconds=120))
    assert proof.outcome == "proved", proof.summary()
    _proved(proof.parts[0][1], "delta")


def test_tail_bound_reparametrisation_is_the_conclusion():
    """At a point (k, sigma, eps, lam), the problem's claimed delta (in mu, y, v) is the registered conclusion and
    its comparator the exact delta of the composition (the Gaussian mechanism with mean gap sqrt(k)/sigma)."""
    from dpverify.calculus.mechanisms.gaussian import gaussian_delta

    theorem = registry.get("li2019.thm1_tail_bound")
    (_, problem), = item_problems(theorem.id)
    k, sigma, eps, lam = 4, 1.7, 3.0, 2.1
    mu = math.sqrt(k) / sigma
    y = (eps - mu**2 / 2) / mu
    v = (lam * mu / y - 1) / 2
    point = {"mu": mu, "y": y, "v": v, "k": k}
    registered = _at(theorem.conclusion["delta"], {"k": k, "sigma": sigma, "epsilon": eps, "lam": lam})
    assert _at(problem.claimed, point) == pytest.approx(registered, rel=1e-12)
    assert _at(problem.comparator, point) == pytest.approx(gaussian_delta(eps, mu), rel=1e-9)


@pytest.mark.parametrize("q,sigma,lam", [(0.01, 1.3, 1), (0.05, 1.0, 3), (0.002, 3.5, 7), (0.0625, 2.0, 12)])
def test_log_moment_comparator_is_the_accountants(q, sigma, lam):
    exact = _exact_log_moment(q, sigma, lam)
    q_, s_ = sp.Symbol("q"), sp.Symbol("sigma")
    assert _at(sampled_gaussian_log_moment_at(q_, s_, lam), {"q": q, "sigma": sigma}) == pytest.approx(exact,
                                                                                                      rel=1e-9)


def test_lemma2_is_proved_at_orders_1_and_2_and_refuted_at_3():
    """The first two orders hold on the whole (q, sigma) box; order 3 fails near sigma = 1 inside every hypothesis,
    and the witness is re-checked with the float accountant."""
    assert LOG_MOMENT_ORDERS[:3] == (1, 2, 3)
    proof = prove_item("li2019.lem2_sampled_gaussian", limits=LIMITS)
    assert proof.outcome == "refuted", proof.summary()
    parts = dict(proof.parts)
    _proved(parts["log_moment (lam = 1)"], "lam = 1")
    _proved(parts["log_moment (lam = 2)"], "lam = 2")
    w = _refuted(parts["log_moment (lam = 3)"], "lam = 3")
    q, sigma, lam = w["q"], w["sigma"], 3
    assert sigma >= 1 and q < 1 / (16 * sigma) and lam <= sigma**2 * math.log(1 / (q * sigma))
    claimed = q**2 * lam * (lam + 1) / ((1 - q) * sigma**2)
    assert claimed < _exact_log_moment(q, sigma, lam) * (1 - 1e-6)


@pytest.mark.slow
def test_remark1_is_refuted_under_lemma2s_hypotheses():
    proof = prove_item("li2019.rem1_approx_moments", limits=LIMITS)
    assert proof.outcome == "refuted", proof.summary()
    name, result = proof.parts[-1]
    w = _refuted(result, name)
    q, sigma = w["q"], w["sigma"]
    lam = int(name.split("= ")[1].rstrip(")"))
    assert sigma >= 1 and q < 1 / (16 * sigma) and lam <= sigma**2 * math.log(1 / (q * sigma))
    assert q**2 * lam * (lam + 1) / sigma**2 < _exact_log_moment(q, sigma, lam) * (1 - 1e-6)


@pytest.mark.slow
def test_lemma2_holds_where_sigma_is_not_near_one():
    """The erratum is local: with sigma >= 1.1 the order-3 part is proved."""
    (name, problem), = [(n, p) for n, p in item_problems("li2019.lem2_sampled_gaussian", box={"sigma": (1.1, 4)})
                        if n == "log_moment (lam = 3)"]
    _proved(prove(problem, limits=LIMITS), name)


# ------------------------------------------------------------------------------------------ Theorems 3 and 4
def _step_point(theorem_id: str, q: float, sigma: float, lam_star: float, rho: float) -> dict[str, float]:
    """The original variables at a point of the change of variables (K = 1, N = L = 1): eta = q^2/sigma^2,
    eps = 2 lam* + 1, delta = exp(-lam*^2), and T with H = rho (1-q) sigma^2/q^2 (Theorem 4: H = T)."""
    return {"q": q, "eta": q**2 / sigma**2, "epsilon": 2 * lam_star + 1, "delta": math.exp(-lam_star**2),
            "T": rho * (1 - q) * sigma**2 / q**2, "N": 1.0, "L": 1.0}


@pytest.mark.parametrize("q,sigma,lam_star,rho,m", [(0.01, 1.5, 2.5, 0.7, 2), (0.03, 1.1, 4.2, 0.9, 4),
                                                    (0.001, 3.0, 9.5, 0.3, 9)])
def test_step_size_comparator_is_the_accounted_delta_of_the_run(q, sigma, lam_star, rho, m):
    """Theorem 4's comparator at order m is exp(T S_1 - m eps), S_1 = expm1(m D_{m+1}) of the first step (float
    accountant): the change of variables keeps the run's delta bound, and its claimed value is the item's delta."""
    theorem = registry.get("li2019.thm4_fixed_stepsize")
    problems = dict(item_problems(theorem.id))
    problem = problems[f"delta (lam* in [{m}, {m + 1}])"]
    point = {"q": q, "sigma": sigma, "lam_star": lam_star, "rho": rho}
    original = _step_point(theorem.id, q, sigma, lam_star, rho)
    assert _at(problem.claimed, point) == pytest.approx(original["delta"], rel=1e-12)
    s1 = math.expm1(_exact_log_moment(q, sigma, m))
    accounted = math.exp(original["T"] * s1 - m * original["epsilon"])
    assert _at(problem.comparator, point) == pytest.approx(accounted, rel=1e-9)
    # the exponent is the same bound written as K g: claimed * exp(g) with K = 1
    g = step_size_exponent(sp.Symbol("q"), sp.Symbol("sigma"), sp.Symbol("rho"), sp.Symbol("lam_star"), m)
    assert original["delta"] * math.exp(_at(g, point)) == pytest.approx(accounted, rel=1e-9)
    # and iii) reads rho < 1: rho = the fraction of iii)'s step bound that eta uses
    bound = _at(theorem.conclusion["eta_max"], {k: v for k, v in original.items() if k != "eta"})
    assert original["eta"] / bound == pytest.approx(rho, rel=1e-9)


def test_theorem4_first_slab_is_proved_and_the_failing_slab_is_undecided_not_refuted():
    """lam* in [1, 2] is proved; on [2, 3] the accountant's upper bound exceeds the claim near sigma = 1 (where
    Lemma 2 fails): undecided, never a refutation, since the comparator is only an upper bound."""
    assert STEP_SIZE_SLABS[:2] == (1, 2)
    problems = dict(item_problems("li2019.thm4_fixed_stepsize"))
    first = problems["delta (lam* in [1, 2])"]
    assert first.comparator_kind == "upper"
    _proved(prove(first, limits=LIMITS), "lam* in [1, 2]")
    second = prove(problems["delta (lam* in [2, 3])"], limits=Limits(max_seconds=30, max_boxes=40_000))
    assert isinstance(second, Undecided), second.summary()
    assert "comparator, an upper bound" in second.reason


def test_step_size_items_spend_their_declared_part_budget():
    assert form("li2019.thm3_decreasing_stepsize").part_seconds == form("li2019.thm4_fixed_stepsize").part_seconds
    assert 0 < form("li2019.thm4_fixed_stepsize").part_seconds <= 30


@pytest.mark.slow
def test_theorem3_slabs_above_five_are_proved():
    problems = dict(item_problems("li2019.thm3_decreasing_stepsize"))
    for m in (1, 5, 8, 16):
        name = f"delta (lam* in [{m}, {m + 1}])"
        _proved(prove(problems[name], limits=LIMITS), name)


@pytest.mark.parametrize("q,sigma,lam", [(0.01, 1.3, 3), (0.05, 1.2, 5)])
def test_lemma2_comparator_is_above_remark1_only_near_sigma_one(q, sigma, lam):
    """A sanity check of the erratum's shape with floats: away from sigma = 1 the leading term bounds the exact log
    moment (so a prover that refutes Lemma 2 everywhere would be wrong)."""
    exact = _exact_log_moment(q, sigma, lam)
    assert q**2 * lam * (lam + 1) / ((1 - q) * sigma**2) >= exact
    assert np.isfinite(exact) and exact > 0
