"""The provable forms of the Gibbs-posterior items (dpverify/prove/forms/gibbs_posterior.py): Gopi et al.'s two GDP
statements proved on their Gaussian families with certificates the independent checker accepts, each form able to
refute a halved claim (the witness re-checked in floats against the Gaussian pair's Mahalanobis distance, code the
prover does not use), and Minami et al.'s comparator equal to the calculus' Gaussian delta.

Which bug would make these fail: a comparator that is not the exact GDP of the family it names (a sqrt dropped, the
mean's 1/N forgotten), a margin/scale split that does not multiply back to the difference, a form unable to refute a
wrong constant, an erfc form of Phi with the wrong sign."""
from __future__ import annotations

import math

import pytest
import sympy as sp

from dpverify.calculus.mechanisms.gaussian import gaussian_delta
from dpverify.prove import Refutation, certificate, check_certificate
from dpverify.prove.catalogue import item_problems, prove_item
from dpverify.prove.search import Limits
from dpverify.theorems import registry
from dpverify.theorems.mutation import TheoremVariant

GOPI = ("gopi2022.thm_gdp_strongly_convex_lipschitz", "gopi2022.thm_regularized_em_gdp")


@pytest.mark.parametrize("item", GOPI)
def test_gopi_items_are_proved_with_valid_certificates(item):
    proof = prove_item(item, limits=Limits(max_seconds=30))
    assert proof.outcome == "proved", proof.summary()
    for _, result in proof.parts:
        report = check_certificate(certificate(result))
        assert report.valid and report.outcome == "proved", report.errors


def _halved(theorem_id: str) -> TheoremVariant:
    theorem = registry.get(theorem_id)
    return TheoremVariant(theorem.id, dict(theorem.symbols), list(theorem.hypotheses),
                          {**theorem.conclusion, "mu_gdp": theorem.conclusion["mu_gdp"] / 2})


@pytest.mark.parametrize("item", GOPI)
def test_halved_gopi_claims_are_refuted_and_the_witness_re_checks(item):
    proof = prove_item(item, item=_halved(item), limits=Limits(max_seconds=20))
    assert proof.outcome == "refuted", proof.summary()
    (_, result), = proof.parts
    assert isinstance(result, Refutation)
    report = check_certificate(certificate(result))
    assert report.valid and report.outcome == "refuted", report.errors
    # the witness names the symbols of the margin (1/2 - u: only u); the others cancel, so any positive values do
    w = {"L": 1.3, "m": 0.7, "beta": 9.0, "N": 4.0, **{k: float(v) for k, v in result.witness.items()}}
    assert 0.5 < w["u"] <= 1.0
    if item == GOPI[0]:  # N(0, 1/m) vs N(L u / m, 1/m): Mahalanobis distance L u / sqrt(m)
        exact, halved = w["L"] * w["u"] / math.sqrt(w["m"]), w["L"] / (2 * math.sqrt(w["m"]))
    else:  # means differ by 2 G u / (N mu), precision k mu
        exact = 2 * w["L"] * w["u"] / (w["N"] * w["m"]) * math.sqrt(w["beta"] * w["m"])
        halved = w["L"] * math.sqrt(w["beta"]) / (w["N"] * math.sqrt(w["m"]))
    assert exact > halved


def test_minami_comparator_is_the_gaussian_delta():
    """The lemma's comparator at points equals the calculus' exact Gaussian delta (Balle and Wang 2018, Thm 8) at the
    lemma's epsilon, to 1e-10 relative."""
    (problem,) = [p for _, p in item_problems("minami2016.lem_gibbs_privacy_loss_concentration")]
    thm = registry.get("minami2016.lem_gibbs_privacy_loss_concentration")
    names = {s.name: s for s in problem.comparator.free_symbols}
    for beta, lip, m, delta, u in ((0.3, 1.0, 1.0, 1e-5, 1.0), (1.0, 0.5, 2.0, 1e-3, 0.4)):
        values = {"beta": beta, "L": lip, "m": m, "delta": delta, "u": u}
        got = float(problem.comparator.xreplace({names[k]: sp.Float(v, 40) for k, v in values.items()
                                                 if k in names}).evalf(30))
        eps = thm.evaluate(beta=beta, L=lip, m=m, delta=delta).epsilon
        want = gaussian_delta(eps, 2 * beta * lip * u / math.sqrt(m))
        assert got == pytest.approx(want, rel=1e-10)
        assert got <= delta
