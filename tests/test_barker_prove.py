"""The provable form of heikkila2019.thm_barker_step_rdp (dpverify/prove/forms/barker.py): the per-iteration Rényi
bound proved term by term in the coordinates t = (alpha - 1)/alpha, s = 5 alpha/b, w = b (v1 - v2)/5, with certificates
the independent checker accepts, the coordinate change checked with sympy (each part's claimed term is the item's term,
the three comparators sum to the closed-form divergence), the comparators checked in floats against the calculus'
gaussian_renyi_divergence (code the prover does not use), the boxes shown to contain the family, and perturbed claims
(a dropped factor 2, a halved term, a dropped term) not proved, the failing term re-checked in floats at the witness.

Which bug would make these fail: a coordinate change that loses a factor (b = 5 alpha/s, 1/(alpha - 1) = (1 - t)/t),
a V* with the wrong sign of w or a missing (alpha - 1), comparators that do not add up to the divergence, a box that
misses part of the family (w in [0, 1] only), a term split that loses a summand of a perturbed claim, a form that proves
a claim with a dropped factor 2 in its mean term."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
import sympy as sp

from dpverify.calculus.barker import gaussian_renyi_divergence
from dpverify.prove import Proof, certificate, check_certificate
from dpverify.prove.catalogue import form, item_problems, prove_item
from dpverify.prove.forms.barker import claim_terms
from dpverify.prove.results import Undecided
from dpverify.prove.search import Limits
from dpverify.theorems import registry
from dpverify.theorems.mutation import TheoremVariant, mutants, without_hypothesis

ITEM = "heikkila2019.thm_barker_step_rdp"
PARTS = ["variance term", "log term", "mean term"]


def _symbols(problem):
    return {s.name: s for s in problem.claimed.free_symbols | problem.comparator.free_symbols}


def _back(alpha, b, u, v1, v2):
    """The coordinates of the family's pair (alpha, b, u, v1, v2)."""
    return {"t": (alpha - 1) / alpha, "s": 5 * alpha / b, "w": b * (v1 - v2) / 5, "u": u, "v1": v1, "v2": v2}


def test_the_item_is_proved_term_by_term_with_valid_certificates_in_seconds():
    proof = prove_item(ITEM, limits=Limits(max_seconds=60))
    assert proof.outcome == "proved", proof.summary()
    assert [name for name, _ in proof.parts] == PARTS
    assert proof.seconds < 60
    for _, result in proof.parts:
        assert isinstance(result, Proof)
        report = check_certificate(certificate(result))
        assert report.valid and report.outcome == "proved", report.errors
    assert form(ITEM).expected == "proved"


def test_the_coordinates_give_the_item_s_terms_and_the_comparators_sum_to_the_divergence():
    """With t = (alpha - 1)/alpha, s = 5 alpha/b, w = b (v1 - v2)/5 (sympy): each part's claimed term is the registered
    term; the comparators (variance and mean terms in v1, the log term in v2 = v1 - w 5/b or v1 = v2 + w 5/b) sum to
    log(V2/V1)/2 + log(V2/V*)/(2(alpha - 1)) + alpha (2u/sqrt b)^2/(2 V*), V* = alpha V2 + (1 - alpha) V1."""
    thm = registry.get(ITEM)
    a, b = thm.symbols["alpha"], thm.symbols["tau"]
    u, var1, var2 = (sp.Symbol(n, positive=True) for n in ("u", "V1", "V2"))
    v1, v2 = 2 - var1, 2 - var2  # the variances as positive symbols: sympy then splits their logs
    problems = dict(item_problems(ITEM))
    total_claim, total_comparator = 0, 0
    for name in PARTS:
        p = problems[name]
        sym = _symbols(p)
        back = {sym[k]: v for k, v in _back(a, b, u, v1, v2).items() if k in sym}
        total_claim += p.claimed.xreplace(back)
        total_comparator += p.comparator.xreplace(back)
    assert sp.simplify(sp.expand_log(total_claim - thm.conclusion["rdp"], force=True)) == 0
    vstar = a * var2 + (1 - a) * var1
    divergence = sp.log(var2 / var1) / 2 + sp.log(var2 / vstar) / (2 * (a - 1)) + a * (4 * u**2 / b) / (2 * vstar)
    assert sp.simplify(sp.expand_log(total_comparator - divergence, force=True)) == 0


def test_the_comparators_match_the_calculus_divergence_in_floats_and_the_family_is_in_every_box():
    """At 300 random family points (alpha in (1, b/5), b up to 1e6, |v1 - v2| <= 5/b): the three comparators sum to
    the calculus' closed form to 1e-9 relative (double precision, terms of size up to ~1), and each point's
    coordinates lie in each part's box."""
    rng = np.random.default_rng(39)
    problems = dict(item_problems(ITEM))
    for _ in range(300):
        b = float(np.exp(rng.uniform(math.log(6), math.log(1e6))))
        alpha = 1 + (b / 5 - 1) * float(rng.uniform(0.001, 0.999))
        u, v1 = float(rng.uniform()), float(rng.uniform())
        v2 = float(np.clip(v1 + rng.uniform(-5 / b, 5 / b), 0, 1))
        point = _back(alpha, b, u, v1, v2)
        total = 0.0
        for name in PARTS:
            p = problems[name]
            sym = _symbols(p)
            for q in p.parameters:
                assert q.lo <= Fraction(point[q.name]) <= q.hi, (name, q.name, point[q.name])
            total += float(p.comparator.xreplace({sym[k]: sp.Float(point[k], 30) for k in sym}).evalf(30))
        want = float(gaussian_renyi_divergence(alpha, 2 * u / math.sqrt(b), 2 - v1, 0.0, 2 - v2))
        assert total == pytest.approx(want, rel=1e-9, abs=1e-12)


def test_the_declared_limit_is_only_alpha_below_b_over_five():
    """s <= 1 - 1e-9 (alpha <= (1 - 1e-9) b/5) is the only declared limit: t spans [0, 1] (alpha from 1 to
    infinity), so b and alpha are otherwise unbounded; the clip hypothesis is set aside (not refutable)."""
    for name, p in item_problems(ITEM):
        assert p.parameter("s").hi == Fraction(10**9 - 1, 10**9) and "1e-9" in p.parameter("s").declared
        assert [q.name for q in p.parameters if q.declared] == ["s"]
        if "t" in p.names:
            assert (p.parameter("t").lo, p.parameter("t").hi) == (0, 1)
        assert not p.refutable and p.comparator_kind == "upper"


def _variant(rdp) -> TheoremVariant:
    thm = registry.get(ITEM)
    return TheoremVariant(thm.id, dict(thm.symbols), list(thm.hypotheses), {**thm.conclusion, "rdp": rdp})


def test_the_term_split_keeps_every_summand_of_a_perturbed_claim():
    thm = registry.get(ITEM)
    a, b = thm.symbols["alpha"], thm.symbols["tau"]
    for m in mutants(thm):
        terms = claim_terms(m.expr, a)
        assert sp.Add(*terms) == m.expr
    variance, log_term, mean = claim_terms(thm.conclusion["rdp"], a)
    assert (variance, mean) == (sp.Rational(5, 2) / b, 2 * a / (b - 5 * a)) and log_term.has(sp.log)


@pytest.mark.parametrize("name, part, delta", [
    ("mean term without its factor 2", "mean term", lambda a, b: -a / (b - 5 * a)),
    ("variance term halved", "variance term", lambda a, b: -sp.Rational(5, 4) / b),
])
def test_a_claim_with_a_dropped_factor_is_not_proved_and_the_term_fails_in_floats(name, part, delta):
    """The claim with 2 alpha/(b - 5 alpha) -> alpha/(b - 5 alpha), or 5/(2b) -> 5/(4b): the matching part fails
    against its comparator (undecided: the comparator is an upper family, nothing is refuted); at the witness,
    mapped back to (alpha, b, u, v1, v2) of the family, the perturbed term is below the divergence's term in floats."""
    thm = registry.get(ITEM)
    a, b = thm.symbols["alpha"], thm.symbols["tau"]
    proof = prove_item(ITEM, item=_variant(thm.conclusion["rdp"] + delta(a, b)), limits=Limits(max_seconds=20))
    assert proof.outcome == "undecided", (name, proof.summary())
    failed = [(n, r) for n, r in proof.parts if not isinstance(r, Proof)]
    assert [n for n, _ in failed] == [part], proof.summary()
    result = failed[0][1]
    assert isinstance(result, Undecided) and "exceeds the claim" in result.reason
    box = result.left[0].box
    w = {p.name: float(lo + hi) / 2 for p, (lo, hi) in zip(result.problem.parameters, box)}
    if part == "mean term":  # it reads alpha/b only (s): take alpha = 2, b = 10/s; V* = 2 - v1 + w s
        alpha, bb = 2.0, 10 / w["s"]
        term = alpha * (4 * w["u"] ** 2 / bb) / (2 * (2 - w["v1"] + w["w"] * w["s"]))
        claimed = alpha / (bb - 5 * alpha)
    else:  # it reads b only (y = 5/b = s (1 - t)): take alpha halfway in (1, b/5); log(V2/V1)/2, V2 = V1 + w 5/b
        bb = 5 / (w["s"] * (1 - w["t"]))
        alpha = (1 + bb / 5) / 2
        term = 0.5 * math.log((2 - w["v1"] + w["w"] * 5 / bb) / (2 - w["v1"]))
        claimed = 5 / (4 * bb)
    assert 1 < alpha < bb / 5 and 0 <= w["v1"] - w["w"] * 5 / bb <= 1  # the witness is a pair of the family
    assert claimed < term


def test_every_structural_mutant_that_drops_a_term_is_not_proved():
    thm = registry.get(ITEM)
    dropped = [m for m in mutants(thm) if m.perturbation.startswith("drop:")]
    assert len(dropped) == 3
    for m in dropped:
        proof = prove_item(ITEM, item=_variant(m.expr), limits=Limits(max_seconds=20))
        assert proof.outcome == "undecided", (m.perturbation, proof.summary())


def test_without_a_coordinate_hypothesis_the_parts_are_stated_in_alpha_and_b():
    thm = registry.get(ITEM)
    problems = dict(item_problems(ITEM, item=without_hypothesis(thm, "batch_above_five_alpha")))
    assert list(problems) == PARTS
    for p in problems.values():
        assert "tau" in p.names and not {"s", "t", "w"} & set(p.names)
