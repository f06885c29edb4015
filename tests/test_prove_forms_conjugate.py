"""The provable forms of the conjugate-posterior items (Geumlek, Song and Chaudhuri 2017; Ponnoprat 2022): the
closed-form lemma proved as an identity, the general curvature bound declared not provable, the two trigamma bounds'
comparators (exact divergences of adjacent beta posteriors) compared with the calculus' closed form, and each form
able to refute a wrong claim (the bound halved), each witness re-checked in floating point by code the prover does
not use (:mod:`dpverify.calculus.conjugate_renyi`, scipy).

Which bug would make these fail: a comparator that is not the divergence of the pair it names (a sign or an order
swapped in the log-gamma form), a reparametrisation (s, t, the move d) that leaves the statement's pairs, a
trigamma rewritten as another function, a form that cannot refute a halved bound, a certificate the checker rejects.
"""
from __future__ import annotations

import math

import pytest
import sympy as sp
from scipy.special import polygamma

from dpverify.calculus.conjugate_renyi import beta_renyi_divergence, beta_renyi_divergence_quadrature
from dpverify.prove import Proof, Refutation, certificate, check_certificate
from dpverify.prove.catalogue import form, item_problems, prove_item
from dpverify.prove.forms.conjugate import beta_pair_renyi, trigamma_as_zeta
from dpverify.prove.search import Limits
from dpverify.theorems import registry
from dpverify.theorems.mutation import TheoremVariant

WRONG = Limits(max_seconds=20)


def _halved(theorem_id: str) -> TheoremVariant:
    theorem = registry.get(theorem_id)
    return TheoremVariant(theorem.id, dict(theorem.symbols), list(theorem.hypotheses),
                          {**theorem.conclusion, "rdp": theorem.conclusion["rdp"] / 2})


def _refuted(result) -> dict[str, float]:
    assert isinstance(result, Refutation), result.summary()
    report = check_certificate(certificate(result))
    assert report.valid and report.outcome == "refuted", report.errors
    return {k: float(v) for k, v in result.witness.items()}


def _at(expr: sp.Expr, values: dict[str, float]) -> float:
    return float(expr.xreplace({s: sp.nsimplify(values[s.name]) for s in expr.free_symbols}).evalf(30))


# ------------------------------------------------------------------------------------------------ the lemma
def test_lemma_is_proved_as_an_identity():
    proof = prove_item("geumlek2017.lem_expfam_renyi", limits=Limits(max_seconds=60))
    assert proof.outcome == "proved", proof.summary()
    (name, result), = proof.parts
    assert isinstance(result, Proof) and not result.vacuous
    assert result.problem.margin == 0 and result.problem.comparator_source
    report = check_certificate(certificate(result))
    assert report.valid and report.outcome == "proved", report.errors


def test_lemma_halved_is_refuted_and_the_witness_re_checks():
    proof = prove_item("geumlek2017.lem_expfam_renyi", item=_halved("geumlek2017.lem_expfam_renyi"), limits=WRONG)
    assert proof.outcome == "refuted", proof.summary()
    w = _refuted(proof.parts[0][1])
    exact = float(beta_renyi_divergence(w["alpha"], w["a_1"], w["b_1"], w["a_2"], w["b_2"]))
    assert exact > 0 and exact / 2 < exact * (1 - 1e-6)


@pytest.mark.parametrize("lam, a1, b1, a2, b2", [(2.0, 3.0, 7.0, 4.0, 6.0), (5.5, 12.0, 1.8, 11.5, 2.0),
                                                 (1.2, 0.6, 2.5, 2.0, 1.0)])
def test_beta_pair_renyi_is_the_divergence(lam, a1, b1, a2, b2):
    """The comparator built from sympy's integral, at points, against numerical integration."""
    names = sp.symbols("lam a1 b1 a2 b2", positive=True)
    expr = beta_pair_renyi(*names)
    value = _at(expr, dict(zip(("lam", "a1", "b1", "a2", "b2"), (lam, a1, b1, a2, b2))))
    assert value == pytest.approx(beta_renyi_divergence_quadrature(lam, a1, b1, a2, b2), rel=1e-9)


# ------------------------------------------------------------------------------------------------ the curvature bound
def test_curvature_bound_is_not_provable_with_a_reason():
    f = form("geumlek2017.thm_expfam_rdp_curvature")
    assert f.expected == "not provable" and "log-normaliser" in f.not_provable
    proof = prove_item("geumlek2017.thm_expfam_rdp_curvature")
    assert proof.outcome == "not provable" and proof.reason == f.not_provable
    assert item_problems("geumlek2017.thm_expfam_rdp_curvature") == []


# ------------------------------------------------------------------------------------------------ the trigamma bounds
def test_trigamma_is_rewritten_as_hurwitz_zeta():
    x = sp.Symbol("x", positive=True)
    expr = trigamma_as_zeta(3 * sp.polygamma(1, x + 1) + sp.polygamma(0, x))
    assert expr == 3 * sp.zeta(2, x + 1) + sp.polygamma(0, x)
    assert float(sp.zeta(2, sp.Rational(7, 3)).evalf(30)) == pytest.approx(float(polygamma(1, 7 / 3)), rel=1e-13)


def test_diffuse_beta_problem_is_the_adjacent_pair():
    """The claimed side is the conclusion and the comparator the divergence of Beta(a_min + s, a_min + t + r) from
    Beta(a_min + s + r, a_min + t), at a point (calculus closed form)."""
    theorem = registry.get("geumlek2017.alg_diffuse_concentrated_beta")
    (_, problem), = item_problems(theorem.id)
    point = {"alpha": 2.5, "a_min": 1.5, "weight": 0.4, "s_extra": 0.7, "t_extra": 3.0}
    assert _at(problem.claimed, point) == pytest.approx(
        theorem.evaluate(alpha=2.5, a_min=1.5, weight=0.4).rdp, rel=1e-12)
    a, b, r = 1.5 + 0.7, 1.5 + 3.0 + 0.4, 0.4
    assert _at(problem.comparator, point) == pytest.approx(float(beta_renyi_divergence(2.5, a, b, a + r, b - r)),
                                                           rel=1e-9)
    assert form(theorem.id).expected == "undecided" and form(theorem.id).why


def test_diffuse_beta_halved_is_refuted_and_the_witness_re_checks():
    theorem_id = "geumlek2017.alg_diffuse_concentrated_beta"
    proof = prove_item(theorem_id, item=_halved(theorem_id), limits=WRONG)
    assert proof.outcome == "refuted", proof.summary()
    w = _refuted(proof.parts[0][1])
    lam, r = w["alpha"], w["weight"]
    a, b = w["a_min"] + w["s_extra"], w["a_min"] + w["t_extra"] + r
    exact = float(beta_renyi_divergence(lam, a, b, a + r, b - r))
    halved = 0.5 * lam * r**2 * float(polygamma(1, w["a_min"] - (lam - 1) * r))
    assert exact > halved


def test_dirichlet_problem_uses_the_largest_admissible_move():
    theorem = registry.get("ponnoprat2022.thm1_dirichlet_rdp")
    (_, problem), = item_problems(theorem.id)
    for d2, dinf in ((1.0, 1.0), (2.0, 0.5)):
        point = {"alpha": 1.8, "a_min": 3.0, "sensitivity": d2, "sensitivity_inf": dinf, "s_extra": 0.2,
                 "t_extra": 1.1}
        d = min(dinf, d2 / math.sqrt(2))
        a, b = 3.2, 3.0 + 1.1 + d
        assert _at(problem.comparator, point) == pytest.approx(float(beta_renyi_divergence(1.8, a, b, a + d, b - d)),
                                                               rel=1e-9)
        assert _at(problem.claimed, point) == pytest.approx(
            theorem.evaluate(alpha=1.8, a_min=3.0, sensitivity=d2, sensitivity_inf=dinf).rdp, rel=1e-12)


def test_dirichlet_halved_is_refuted_and_the_witness_re_checks():
    """On sensitivities in [1, 2] (the halved bound fails only near Delta_2 = sqrt 2 Delta_inf, a thin region of the
    full box)."""
    theorem_id = "ponnoprat2022.thm1_dirichlet_rdp"
    proof = prove_item(theorem_id, item=_halved(theorem_id), box={"sensitivity": (1, 2), "sensitivity_inf": (1, 2)},
                       limits=WRONG)
    assert proof.outcome == "refuted", proof.summary()
    w = _refuted(proof.parts[0][1])
    lam, d2, dinf = w["alpha"], w["sensitivity"], w["sensitivity_inf"]
    d = min(dinf, d2 / math.sqrt(2))
    a, b = w["a_min"] + w["s_extra"], w["a_min"] + w["t_extra"] + d
    exact = float(beta_renyi_divergence(lam, a, b, a + d, b - d))
    halved = 0.25 * lam * d2**2 * float(polygamma(1, w["a_min"] - (lam - 1) * dinf))
    assert exact > halved
