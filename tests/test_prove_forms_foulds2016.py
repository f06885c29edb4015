"""The provable forms of Foulds, Geumlek, Welling and Chaudhuri (UAI 2016) and of the supporting items Balle and
Wang (2018, Thm 8) and Chourasia, Ye and Shokri (2021, Thm 2) (issue 35): each item decided by the prover, every
proof's certificate re-checked by the independent checker, the closed forms the comparators rest on compared with
the catalogue's own computations, and wrong claims refuted with their witnesses re-checked in floating point by code
the prover does not use.

Which bug would make these fail: a form that no longer proves its item (a comparator whose enclosure cannot
settle, a cancellation that no longer happens symbolically, a reparametrisation that loses the claim), a
certificate the checker rejects, a comparator that is not the mechanism's privacy (the float re-checks below would
disagree with the witness), and a form that cannot refute a wrong claim.

The default run proves the cheaper items on their whole boxes (Sec. 4 and Chourasia's Theorem 2 on smaller ones);
Theorems 2-3, eq. 3 and the whole boxes of the other two are behind ``slow`` (each is 5-20 s).
"""
from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
from scipy import stats

from dpverify.calculus.mechanisms.exponential import discrete_delta, discrete_epsilon
from dpverify.prove import Proof, Refutation, certificate, check_certificate
from dpverify.prove.catalogue import item_problems, prove_item
from dpverify.prove.forms.foulds2016 import laplace_log_ratio, two_outcome_log_ratio
from dpverify.prove.forms.supporting import gaussian_hockey_stick_integral, quadratic_noisy_gd_rdp
from dpverify.prove.search import Limits
from dpverify.theorems import registry
from dpverify.theorems.chourasia2021.noisy_gd import noisy_gd_exact_final_rdp, noisy_gd_rdp_bound
from dpverify.theorems.mutation import TheoremVariant

#: The expected outcome of each item, with the parts it must have.
EXPECTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "foulds2016.eq3_laplace_mechanism": ("proved", ("epsilon",)),
    "foulds2016.eq4_exponential_mechanism": ("proved", ("epsilon",)),
    "foulds2016.eq6_9_posterior_sensitivity": ("proved", ("sensitivity", "epsilon")),
    "foulds2016.thm1_composition": ("proved", ("delta",)),
    "foulds2016.thm2_posterior_2c": ("proved", ("epsilon",)),
    "foulds2016.thm3_posterior_4b": ("proved", ("epsilon",)),
    "foulds2016.eq10_temperature": ("proved", ("epsilon",)),
    "foulds2016.eq13_expfam_sensitivity": ("proved", ("sensitivity",)),
    "foulds2016.eq15_beta_bernoulli_truncated": ("proved", ("sensitivity", "temperature")),
    "foulds2016.eq16_laplace_sufficient_stats": ("proved", ("sensitivity", "epsilon")),
    "foulds2016.prop3_approx_sampling": ("proved", ("delta",)),
    "foulds2016.sec4_gibbs_costs": ("proved", ("epsilon_pass", "epsilon_samples", "epsilon_gibbs")),
    "balle2018.thm8_analytic_gaussian": ("proved", ("delta_exact",)),
    "chourasia2021.thm2_noisy_gd_rdp": ("proved", ("rdp", "rdp_limit")),
}

#: Items whose whole-box proofs take 5-20 s: in the slow run. The default run proves Sec. 4 on T <= 20 and
#: Chourasia's Theorem 2 on k <= 1e6 (the slow run on their whole boxes).
SLOW = ("foulds2016.eq3_laplace_mechanism", "foulds2016.thm2_posterior_2c", "foulds2016.thm3_posterior_4b")
FAST_BOX = {"foulds2016.sec4_gibbs_costs": {"T": (1, 20)}, "chourasia2021.thm2_noisy_gd_rdp": {"k": (1, 10**6)}}

#: prove_item first tries a plain search on a tenth of the time and boxes (at most 6 s, 8000 boxes), then the
#: monotone lemma: a box limit keeps the plain try short for the parts that need the lemma (a fast part here needs
#: fewer than 4000 evaluations, Theorems 2-3 fewer than 25000); a generous time limit keeps a loaded machine from
#: turning a proof undecided
LIMITS = Limits(max_seconds=60, max_boxes=20_000)
SLOW_LIMITS = Limits(max_seconds=120, max_boxes=200_000)
WRONG = Limits(max_seconds=60, max_boxes=20_000)


def _check(theorem_id: str, box=None, limits: Limits = LIMITS) -> None:
    outcome, parts = EXPECTED[theorem_id]
    proof = prove_item(theorem_id, box=box, limits=limits)
    assert proof.outcome == outcome, proof.summary()
    assert tuple(name for name, _ in proof.parts) == parts
    for name, result in proof.parts:
        assert isinstance(result, Proof), f"[{name}] {result.summary()}"
        assert not result.vacuous, f"[{name}] proved only vacuously"
        assert result.problem.comparator_source
        assert result.problem.comparator_kind == "exact"
        report = check_certificate(certificate(result))
        assert report.valid, f"[{name}] {report.errors}"
        assert report.outcome == "proved"


@pytest.mark.parametrize("theorem_id", sorted(set(EXPECTED) - set(SLOW)))
def test_item_outcome_and_certificates(theorem_id):
    _check(theorem_id, FAST_BOX.get(theorem_id))


@pytest.mark.slow
@pytest.mark.parametrize("theorem_id", sorted(set(SLOW) | set(FAST_BOX)))
def test_item_outcome_and_certificates_on_the_whole_box(theorem_id):
    _check(theorem_id, limits=SLOW_LIMITS)


def test_every_item_has_its_form_and_expected_outcome():
    from dpverify.prove.catalogue import form

    for theorem_id, (outcome, parts) in EXPECTED.items():
        assert form(theorem_id).expected == outcome
        assert tuple(part.name for part in form(theorem_id).parts) == parts


# ------------------------------------------------------------------------------------------------ the comparators
def _at(expr: sp.Expr, values: dict[str, float]) -> float:
    return float(expr.xreplace({s: sp.nsimplify(values[s.name]) for s in expr.free_symbols}).evalf(30))


@pytest.mark.parametrize("eps, h1, h2, w", [(0.7, -0.3, 0.35, 0.2), (3.0, 1.0, -1.0, 0.9), (0.1, 0.05, 0.05, 0.5)])
def test_two_outcome_log_ratio_is_the_exponential_mechanisms(eps, h1, h2, w):
    """The reduction of eqs. 4, 6, 10 and 14: with three outcomes, the first of probability w under X and the other
    two moved by exponent changes whose P-weighted mean of e^h is e^{h2}, the log-ratio of the first outcome (by
    the calculus' exponential mechanism, from utilities) is two_outcome_log_ratio(h1, h2, w)."""
    T = 2 / eps  # sensitivity 1: exp(eps u / 2) = exp(u / T)
    # the other two outcomes: equal mass under X, exponent changes g and g' with (e^g + e^g')/2 = e^{h2}
    g, g2 = h2 + 0.4, math.log(2 * math.exp(h2) - math.exp(h2 + 0.4))
    u_x = np.array([0.0, T * math.log((1 - w) / (2 * w)), T * math.log((1 - w) / (2 * w))])
    u_xp = u_x + T * np.array([h1, g, g2])
    from dpverify.calculus.mechanisms.exponential import exponential_log_probabilities

    lp, lq = exponential_log_probabilities(u_x, eps, 1.0), exponential_log_probabilities(u_xp, eps, 1.0)
    assert math.exp(lp[0]) == pytest.approx(w, rel=1e-12)
    ours = _at(two_outcome_log_ratio(sp.Symbol("h1"), sp.Symbol("h2"), sp.Symbol("w")), {"h1": h1, "h2": h2, "w": w})
    assert lp[0] - lq[0] == pytest.approx(ours, rel=1e-10, abs=1e-12)


def test_laplace_log_ratio_is_the_laplace_densities():
    y, v = [0.3, -1.2], [0.7, 0.4]
    ours = _at(laplace_log_ratio([sp.Symbol("y1"), sp.Symbol("y2")], [sp.Symbol("v1"), sp.Symbol("v2")]),
               {"y1": y[0], "y2": y[1], "v1": v[0], "v2": v[1]})
    scipy = sum(stats.laplace.logpdf(yj) - stats.laplace.logpdf(yj, loc=vj) for yj, vj in zip(y, v))
    assert ours == pytest.approx(scipy, rel=1e-12)


def test_gaussian_integral_is_the_quadrature():
    """gaussian_hockey_stick_integral (sympy's integral up to the Neyman-Pearson threshold) against an mpmath
    quadrature of the positive part of p - e^eps q over the whole line."""
    D, s, e = sp.symbols("sensitivity sigma epsilon", positive=True)
    expr = gaussian_hockey_stick_integral(D, s, e)
    for d_, s_, e_ in ((1.0, 1.0, 1.0), (2.0, 3.0, 0.1), (1.0, 0.5, 2.0)):
        with mp.workdps(30):
            value = mp.quad(lambda x: max(mp.npdf(x, 0, s_) - mp.exp(e_) * mp.npdf(x, d_, s_), 0),
                            [-mp.inf, d_ / 2 - e_ * s_**2 / d_, mp.inf])
        assert _at(expr, {"sensitivity": d_, "sigma": s_, "epsilon": e_}) == pytest.approx(float(value), rel=1e-9)


@pytest.mark.parametrize("m, M, fraction, k", [(0.4, 1.3, 0.6, 25), (1.0, 1.0, 0.999, 1), (0.05, 2.0, 0.3, 400)])
def test_quadratic_closed_form_is_the_iterated_chain(m, M, fraction, k):
    """quadratic_noisy_gd_rdp (the closed form, real k) against the catalogue's noisy_gd_exact_final_rdp (the
    mean/variance recursions iterated), and the reparametrised problem's claimed value against the conclusion."""
    alpha, S_g, sigma, N = 2.5, 0.8, 1.3, 7
    eta = fraction / M
    names = sp.symbols("alpha S_g m sigma N eta k", positive=True)
    expr = quadratic_noisy_gd_rdp(*names)
    values = dict(zip(["alpha", "S_g", "m", "sigma", "N", "eta", "k"], [alpha, S_g, m, sigma, N, eta, k]))
    assert _at(expr, values) == pytest.approx(noisy_gd_exact_final_rdp(alpha, S_g, m, sigma, N, eta, k), rel=1e-10)
    problem = dict(item_problems("chourasia2021.thm2_noisy_gd_rdp"))["rdp"]
    point = {"ell": -math.log(1 - m * eta), "v": m / M, "k": k, "alpha": alpha, "S_g": S_g, "sigma": sigma, "N": N,
             "m": m}
    assert _at(problem.claimed, point) == pytest.approx(noisy_gd_rdp_bound(alpha, S_g, m, sigma, N, eta, k),
                                                        rel=1e-12)
    assert _at(problem.comparator, point) == pytest.approx(
        noisy_gd_exact_final_rdp(alpha, S_g, m, sigma, N, eta, k), rel=1e-10)


# ------------------------------------------------------------------------------------------------ wrong claims
def _variant(theorem_id: str, **conclusion: sp.Expr) -> TheoremVariant:
    theorem = registry.get(theorem_id)
    return TheoremVariant(theorem.id, dict(theorem.symbols), list(theorem.hypotheses),
                          {**theorem.conclusion, **conclusion})


def _refuted(theorem_id: str, part: str, **conclusion: sp.Expr) -> dict[str, float]:
    """Prove the variant: it must be refuted in ``part``, with a certificate the checker accepts; the witness."""
    proof = prove_item(theorem_id, item=_variant(theorem_id, **conclusion), limits=WRONG)
    assert proof.outcome == "refuted", proof.summary()
    result = dict(proof.parts)[part]
    assert isinstance(result, Refutation), result.summary()
    report = check_certificate(certificate(result))
    assert report.valid and report.outcome == "refuted", report.errors
    return {k: float(v) for k, v in result.witness.items()}


def test_exponential_mechanism_without_the_factor_two_is_refuted():
    """eq. 4 with the temperature Delta u / eps (the factor 2 dropped): refuted; at the witness, a two-outcome
    exponential mechanism (calculus: its log-probabilities at 2 eps, which is temperature Delta/eps) has exact
    epsilon above the claimed eps."""
    theorem = registry.get("foulds2016.eq4_exponential_mechanism")
    sens, eps = theorem.symbols["sensitivity"], theorem.symbols["epsilon"]
    w = _refuted(theorem.id, "epsilon", temperature=sens / eps)
    from dpverify.calculus.mechanisms.exponential import exponential_log_probabilities

    e, weight = w["epsilon"], min(max(w["w"], 1e-9), 1 - 1e-9)
    T = 1.0 / e  # sensitivity 1, temperature 1/eps: exp(2 eps u / 2)
    u_x = np.array([0.0, T * math.log((1 - weight) / weight)])
    u_xp = u_x + np.array([w["t1"], w["t2"]])  # each utility moved by at most the sensitivity 1
    exact = discrete_epsilon(exponential_log_probabilities(u_x, 2 * e, 1.0),
                             exponential_log_probabilities(u_xp, 2 * e, 1.0))
    assert exact > e * 1.5


def test_laplace_mechanism_at_half_the_scale_is_refuted():
    """eq. 3 with the scale Delta/(2 eps): refuted; at the witness (output y, shift v, with Delta = eps = 1) the
    log-ratio of scipy's Laplace densities exceeds the claimed 1."""
    theorem = registry.get("foulds2016.eq3_laplace_mechanism")
    sens, eps = theorem.symbols["sensitivity"], theorem.symbols["epsilon"]
    w = _refuted(theorem.id, "epsilon", scale=sens / (2 * eps))
    b = 0.5  # Delta / (2 eps) at Delta = eps = 1
    y = np.array([w["u1"], w["u2"]])
    v = np.array([w["r"] * w["c"], w["r"] * (1 - w["c"])])
    assert np.abs(v).sum() <= 1 + 1e-12
    loss = float(np.sum(stats.laplace.logpdf(y, scale=b) - stats.laplace.logpdf(y, loc=v, scale=b)))
    assert loss > 1.5


def test_halved_beta_bernoulli_sensitivity_is_refuted():
    """eq. 15 with half the sensitivity: refuted; at the witness the Bernoulli log-likelihood difference (numpy)
    exceeds the claimed value."""
    theorem = registry.get("foulds2016.eq15_beta_bernoulli_truncated")
    w = _refuted(theorem.id, "sensitivity", sensitivity=theorem.conclusion["sensitivity"] / 2)
    a0 = w["a0"]
    p = a0 + (1 - 2 * a0) * w["s"]

    def loglik(x: float) -> float:
        return x * math.log(p) + (1 - x) * math.log1p(-p)
    change = abs(loglik(w["x"]) - loglik(w["x_prime"]))
    assert change > (math.log1p(-a0) - math.log(a0)) / 2 * (1 + 1e-6)


def test_samples_at_half_the_cost_are_refuted():
    """Sec. 2.2 with k samples at kC (half of 2kC): refuted; at the witness the k-fold product of randomized
    responses at 2C (enumerated in numpy) has a positive hockey-stick divergence at kC: delta 0 fails."""
    theorem = registry.get("foulds2016.sec4_gibbs_costs")
    k, C = theorem.symbols["k"], theorem.symbols["C"]
    w = _refuted(theorem.id, "epsilon_samples", epsilon_samples=k * C)
    kk, c = int(w["k"]), w["C"]
    e0 = 2 * c
    log_p1 = np.array([e0, 0.0]) - np.logaddexp(e0, 0.0)  # randomized response at e0, and its mirror image
    outcomes = list(itertools.product((0, 1), repeat=kk))
    lp = np.array([sum(log_p1[o] for o in out) for out in outcomes])
    lq = np.array([sum(log_p1[1 - o] for o in out) for out in outcomes])
    assert discrete_delta(lp, lq, kk * c) > 1e-3


def test_analytic_gaussian_profile_at_twice_epsilon_is_refuted():
    """Thm 8's profile read at 2 eps (below the truth): refuted -- the identity no longer holds and the margin is
    enclosed; at the witness an mpmath quadrature of the hockey-stick integral exceeds the claimed value."""
    theorem = registry.get("balle2018.thm8_analytic_gaussian")
    eps = theorem.symbols["epsilon"]
    w = _refuted(theorem.id, "delta_exact", delta_exact=theorem.conclusion["delta_exact"].xreplace({eps: 2 * eps}))
    d_, s_, e_ = w["sensitivity"], w["sigma"], w["epsilon"]
    claimed = stats.norm.cdf(d_ / (2 * s_) - 2 * e_ * s_ / d_) - math.exp(2 * e_) * stats.norm.cdf(
        -d_ / (2 * s_) - 2 * e_ * s_ / d_)
    with mp.workdps(30):
        truth = mp.quad(lambda x: max(mp.npdf(x, 0, s_) - mp.exp(e_) * mp.npdf(x, d_, s_), 0),
                        [-mp.inf, d_ / 2 - e_ * s_**2 / d_, mp.inf])
    assert float(truth) > 0 and float(truth) > claimed * (1 + 1e-3)


def test_halved_noisy_gd_bound_is_refuted():
    """Chourasia Thm 2 with half the bound: refuted (the bound is at most 1.57 times the exact RDP near m eta = 1
    and k = 1); at the witness the catalogue's iterated chain (noisy_gd_exact_final_rdp) exceeds the halved
    bound."""
    theorem = registry.get("chourasia2021.thm2_noisy_gd_rdp")
    w = _refuted(theorem.id, "rdp", rdp=theorem.conclusion["rdp"] / 2)
    m = 1.0
    eta = -math.expm1(-w["ell"]) / m
    M = m / w["v"]
    assert eta < 1 / M or math.isclose(eta * M, 1.0)
    alpha, k = w["alpha"], int(round(w["k"]))
    exact = noisy_gd_exact_final_rdp(alpha, 1.0, m, 1.0, 1, eta, k)
    assert exact > noisy_gd_rdp_bound(alpha, 1.0, m, 1.0, 1, eta, k) / 2 * (1 + 1e-6)
