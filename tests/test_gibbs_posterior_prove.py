"""The provable forms of the Gibbs-posterior items (dpverify/prove/forms/gibbs_posterior.py): Gopi et al.'s two GDP
statements proved on their Gaussian families with certificates the independent checker accepts, each form able to
refute a halved claim (the witness re-checked in floats against the Gaussian pair's Mahalanobis distance, code the
prover does not use), and Minami et al.'s concentration lemma proved through its three parts (the worst pair exact,
every pair through the first term of its delta, the dropped term >= 0), its comparators equal to the calculus'
Gaussian delta, the chain's links and the two facts behind its declared limit u >= 1e-9 checked with sympy, and a
claim with a dropped factor 2 (or a dropped mu^2/2) refuted at a witness re-checked in floats.

Which bug would make these fail: a comparator that is not the exact GDP of the family it names (a sqrt dropped, the
mean's 1/N forgotten), a margin/scale split that does not multiply back to the difference, a form unable to refute a
wrong constant, an erfc form of Phi with the wrong sign; for Minami's lemma: a part whose comparator is not the next
part's claimed quantity (a broken chain), a coordinate change that loses a factor (mu != 2 beta L / sqrt(m), delta !=
exp(-ell^2/2)), a form that proves a claim without its factor 2 (the exact part at u = 1 is what refutes it)."""
from __future__ import annotations

import math
from fractions import Fraction

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


MINAMI = "minami2016.lem_gibbs_privacy_loss_concentration"
WORST, EVERY, LINK = "delta (worst pair, u = 1)", "delta (every pair, first term)", "first term >= exact delta"


def _minami_values(problem, beta, lip, m, delta, u):
    """The problem's coordinates at an item's point: mu = 2 beta L / sqrt(m), ell = sqrt(2 log(1/delta)), u."""
    values = {"mu": 2 * beta * lip / math.sqrt(m), "ell": math.sqrt(2 * math.log(1 / delta)), "u": u}
    names = {s.name: s for s in problem.claimed.free_symbols | problem.comparator.free_symbols}
    return {names[k]: sp.Float(v, 40) for k, v in values.items() if k in names}


def _at(expr, subs):
    return float(expr.xreplace(subs).evalf(30))


def test_minami_comparators_are_the_gaussian_delta():
    """The exact comparators (the worst pair's, and the chain's last link) at points equal the calculus' exact
    Gaussian delta (Balle and Wang 2018, Thm 8) at the lemma's epsilon, to 1e-10 relative; the first term is above
    it; the claimed delta is the item's delta (the coordinates lose no factor)."""
    problems = dict(item_problems(MINAMI))
    assert list(problems) == [WORST, EVERY, LINK]
    thm = registry.get(MINAMI)
    for beta, lip, m, delta, u in ((0.3, 1.0, 1.0, 1e-5, 1.0), (1.0, 0.5, 2.0, 1e-3, 0.4), (2.0, 1.5, 0.5, 0.2, 0.05)):
        eps = thm.evaluate(beta=beta, L=lip, m=m, delta=delta).epsilon
        exact = gaussian_delta(eps, 2 * beta * lip * u / math.sqrt(m))
        link = problems[LINK]
        at = _minami_values(link, beta, lip, m, delta, u)
        assert _at(link.comparator, at) == pytest.approx(exact, rel=1e-10)
        assert _at(link.claimed, at) >= exact and exact <= delta
        every = problems[EVERY]
        assert _at(every.claimed, _minami_values(every, beta, lip, m, delta, u)) == pytest.approx(delta, rel=1e-12)
        worst = problems[WORST]
        want = gaussian_delta(eps, 2 * beta * lip / math.sqrt(m))
        assert _at(worst.comparator, _minami_values(worst, beta, lip, m, delta, 1.0)) == pytest.approx(want, rel=1e-10)


def test_minami_parts_chain_and_the_declared_limit_is_covered():
    """Part 2's comparator is part 3's claimed quantity (delta >= Phi(-x) >= D); parts 1 and 3 compare with the
    exact delta, part 2 with an upper bound of it; the u-range stops at 1e-9 (declared). The two facts that carry the
    chain below u = 1e-9 (form docstring), with sympy: the dropped term is >= 0, and x = eps/(mu u) - mu u/2 is
    ell/u + mu (1 - u)(1 + u)/(2u), whose u-derivative is -ell/u^2 - mu (1 + u^2)/(2u^2) <= 0."""
    problems = dict(item_problems(MINAMI))
    every, link, worst = problems[EVERY], problems[LINK], problems[WORST]
    assert every.comparator == link.claimed and every.claimed == worst.claimed
    assert (worst.comparator_kind, every.comparator_kind, link.comparator_kind) == ("exact", "upper", "exact")
    assert every.parameter("u").lo == Fraction(1, 10**9) and "1e-9" in every.parameter("u").declared
    names = {s.name: s for s in link.comparator.free_symbols}
    mu, ell, u = names["mu"], names["ell"], names["u"]
    dropped = link.claimed - link.comparator  # e^eps Phi(-x - mu u): 1/2, an exp and an erfc of real arguments
    assert sp.simplify(link.goal - dropped) == 0
    factors = sp.Mul.make_args(dropped)
    assert sorted(type(f).__name__ for f in factors) == ["Half", "erfc", "exp"]
    positive_u = {u: sp.Symbol("u", positive=True)}  # the box's u >= 1e-9
    assert all(f.args[0].xreplace(positive_u).is_real for f in factors if isinstance(f, (sp.exp, sp.erfc)))
    (x,) = [sp.sqrt(2) * arg for f in link.claimed.atoms(sp.erfc) for arg in f.args]  # Phi(-x) = erfc(x/sqrt 2)/2
    eps = mu**2 / 2 + mu * ell
    assert sp.simplify(x - (eps / (mu * u) - mu * u / 2)) == 0
    derivative = sp.diff(x, u)
    assert sp.simplify(derivative - (-ell / u**2 - mu * (1 + u**2) / (2 * u**2))) == 0
    assert sp.simplify(-derivative * u**2).is_nonnegative


def test_minami_lemma_is_proved_with_valid_certificates():
    proof = prove_item(MINAMI, limits=Limits(max_seconds=30))
    assert proof.outcome == "proved", proof.summary()
    assert [name for name, _ in proof.parts] == [WORST, EVERY, LINK]
    for _, result in proof.parts:
        report = check_certificate(certificate(result))
        assert report.valid and report.outcome == "proved", report.errors


def _minami_mutant(epsilon) -> TheoremVariant:
    theorem = registry.get(MINAMI)
    beta, lip, m, delta = (theorem.symbols[k] for k in ("beta", "L", "m", "delta"))
    a = 2 * beta * lip / sp.sqrt(m)
    return TheoremVariant(theorem.id, dict(theorem.symbols), list(theorem.hypotheses),
                          {**theorem.conclusion, "epsilon": epsilon(a, sp.log(1 / delta))})


@pytest.mark.parametrize("name, epsilon, wrong", [
    ("dropped factor 2", lambda a, log: a**2 / 2 + a * sp.sqrt(log), lambda a, ell: a * a / 2 + a * ell / math.sqrt(2)),
    ("dropped a^2/2", lambda a, log: a * sp.sqrt(2 * log), lambda a, ell: a * ell),
])
def test_a_wrong_minami_claim_is_refuted_and_the_witness_re_checks(name, epsilon, wrong):
    """The claim eps = a^2/2 + a sqrt(log(1/delta)) (a dropped factor 2) or a sqrt(2 log(1/delta)) (a dropped a^2/2)
    is refuted by the exact part at u = 1; at the witness the Gaussian pair's exact delta (the calculus' closed form,
    code the prover does not use) exceeds delta = exp(-ell^2/2)."""
    proof = prove_item(MINAMI, item=_minami_mutant(epsilon), limits=Limits(max_seconds=20))
    assert proof.outcome == "refuted", (name, proof.summary())
    (part, result), = proof.parts
    assert part == WORST and isinstance(result, Refutation)
    report = check_certificate(certificate(result))
    assert report.valid and report.outcome == "refuted", report.errors
    mu, ell = float(result.witness["mu"]), float(result.witness["ell"])
    assert gaussian_delta(wrong(mu, ell), mu) > math.exp(-ell * ell / 2)
