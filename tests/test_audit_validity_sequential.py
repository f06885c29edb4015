"""Validity of sequential audits (issue 38, section 2), with the power to catch a broken spending rule.

**The guarantee** (:mod:`dpverify.audit.sequential`): round ``r`` of ``b_r`` outputs per side is a fixed audit on fresh
outputs certified at ``alpha_r = alpha b_r / samples``; the audit stops at the first violation, so a correct
mechanism audited at its exact epsilon is (falsely) called a violation exactly when some round run certifies above
it, with probability at most ``sum_r alpha_r = alpha`` (union bound), whenever it stops.

**An exact reference.** For randomized response the selected event is always one of the two tight events ({0} or
{1}: complements with the same pair of rates), so round ``r``'s exceedance probability is the exact
``exceed_rate(n_r, p_hi, p_lo, eps, alpha_r / 2)`` of ``test_audit_validity`` (Clopper-Pearson tables from
``scipy.stats.beta``, binomial enumeration; ``n_r`` the round's estimation outputs). The rounds are independent, so an
audit that runs until a violation or the end exceeds with probability ``r_seq = 1 - prod_r (1 - r_r)``; futility can
only stop it earlier (fewer chances), so ``r_seq`` is an upper reference, and an exact one when no audit stopped by
futility (then the test is two-sided, as the fixed audit's). The round sizes and shares are written here from the
documented rule, not read from the package, so a broken schedule is caught, not copied.

**Limits** as in ``test_audit_validity``: the count X of exceedances in K seeded audits is Binomial(K, r_seq) (or
stochastically smaller); the test fails if X > c_hi (P[X > c_hi] <= 1e-3) or, exact, X < c_lo. Power against the
spending bug "every round at the full alpha" (:func:`broken_rate`, printed by ``python mutation/auditor.py``):
at confidence 0.5 and 250 audits r_seq = 0.210 (limits 34 to 73) against 0.529 broken: P[caught] > 1 - 1e-12.

The ``slow`` test repeats it at the default confidence 0.95 with 10^4 audits of four correct mechanisms (randomized
response, Laplace, Gaussian, a two-point mixture) at their exact epsilons: the share of false violations must stay
at or below alpha within its binomial error (the issue's criterion) -- and below the RR reference.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpverify.audit import audit
from dpverify.audit.known_bad import AdditiveNoise, RandomizedResponse, laplace_query
from dpverify.calculus.mechanisms.gaussian import GaussianMechanism
from test_audit_validity import exceed_rate, gaussian_epsilon_at, lower_limit, power, upper_limit

RR_EPS = 3.0
SAMPLES = 16_000
#: The documented schedule of 16000 outputs per side (early rounds doubling from max(1000, 4000 // 127) = 1000 while
#: they fit in a quarter of the budget; the last takes the rest), written out independently of the package.
ROUNDS = (1000, 2000, 13000)
SELECTION_FRACTION = 0.2


def _estimation(size: int) -> int:
    return size - math.ceil(SELECTION_FRACTION * size)


def _rr():
    mech = RandomizedResponse(RR_EPS)
    return mech, math.log(mech.p / (1.0 - mech.p))


def sequential_rate(confidence: float, *, full_alpha: bool = False) -> float:
    """``1 - prod_r (1 - r_r)``: the exceedance probability of a sequential RR audit that runs until a violation or
    the end, each round's two bounds at ``alpha_r / 2`` (``full_alpha``: at ``alpha / 2``, the spending bug)."""
    mech, eps = _rr()
    alpha = 1.0 - confidence
    keep = 1.0
    for size in ROUNDS:
        share = alpha if full_alpha else alpha * size / SAMPLES
        keep *= 1.0 - exceed_rate(_estimation(size), mech.p, 1.0 - mech.p, eps, share / 2.0)
    return 1.0 - keep


def broken_rate(confidence: float) -> float:
    return sequential_rate(confidence, full_alpha=True)


def _run(confidence: float, audits: int, seed0: int) -> tuple[int, list]:
    mech, eps = _rr()
    results = [audit(mech, np.array([0]), np.array([1]), epsilon=eps, exact_epsilon=eps, samples=SAMPLES,
                     confidence=confidence, seed=s, sequential=True) for s in range(seed0, seed0 + audits)]
    return sum(r.epsilon_lower > eps for r in results), results


def test_the_schedule_spends_alpha_in_proportion_to_the_rounds():
    """Deterministic: the rounds of the result are the documented ones, and their shares add up to at most alpha --
    the spending bug (every round at the full alpha) fails here at once."""
    mech, eps = _rr()
    r = audit(mech, np.array([0]), np.array([1]), epsilon=10.0, samples=SAMPLES, confidence=0.9, seed=0,
              sequential=True)
    assert [look.samples for look in r.looks] == list(ROUNDS[:len(r.looks)])
    assert len(r.looks) == len(ROUNDS)  # a claim of 10 is never violated; futility needs a round to show it
    assert sum(look.alpha for look in r.looks) <= 0.1
    for look, size in zip(r.looks, ROUNDS):
        assert look.alpha == pytest.approx(0.1 * size / SAMPLES, rel=1e-9)


def test_every_round_draws_fresh_outputs():
    """Each round is a fixed audit on outputs no other round saw (the union bound over the rounds needs their
    certificates to be valid one by one; a round that redraws another's outputs wastes its share). The first output
    of every call of the mechanism is recorded: none repeats (continuous outputs). Bug caught: a round seed that
    ignores the round (``sequential_same_round_seed`` in ``mutation/auditor.py``)."""
    firsts: list[float] = []

    def mechanism(dataset, n, rng):
        x = rng.standard_normal(n)
        firsts.append(float(x[0]))
        return x + float(np.asarray(dataset).reshape(-1)[0])

    # two identical sides: no round separates them, so futility never stops the audit and every round runs
    r = audit(mechanism, np.array([0.0]), np.array([0.0]), epsilon=1.0, samples=SAMPLES, seed=0, sequential=True,
              check_rng=False)
    assert len(r.looks) == len(ROUNDS)
    assert len(firsts) >= 2 * len(ROUNDS) and len(set(firsts)) == len(firsts)


def test_false_violations_at_the_exact_rate_of_the_documented_rounds():
    """250 sequential audits of randomized response at its exact epsilon, confidence 0.5 (the level of the fixed
    audit's default validity tests; about 10 s): the exact reference makes 250 enough to catch the spending bug."""
    confidence, audits = 0.5, 250
    reference = sequential_rate(confidence)
    limit = upper_limit(audits, reference)
    assert power(audits, broken_rate(confidence), limit) > 0.99  # the test can catch the spending bug
    count, results = _run(confidence, audits, seed0=0)
    futile = sum(r.stopping_rule == "futility" for r in results)
    assert count <= limit, f"{count} false violations in {audits}; the documented rounds allow {limit}"
    if futile == 0:  # every audit ran until a violation or the end: the reference is exact, the test two-sided
        assert count >= lower_limit(audits, reference), (count, reference)
    assert all(r.stopping_rule in ("violation", "budget", "futility") for r in results)
    assert all(r.samples_used == sum(look.samples for look in r.looks) for r in results)


def _two_point(dataset, n, rng):
    """A two-point mixture: 1 with probability 0.3 + 0.4 x, else 0 (x the record in {0, 1}): epsilon log(7/3)."""
    x = float(np.asarray(dataset).reshape(-1)[0])
    return (rng.random(n) < 0.3 + 0.4 * x).astype(np.int8)


@pytest.mark.slow
def test_false_violations_at_most_alpha_over_ten_thousand_audits():
    """10^4 sequential audits at confidence 0.95 of four correct mechanisms at their exact epsilons (2500 each): the
    share of false violations is at most alpha plus 3 binomial standard errors (the issue's criterion), and RR's
    count is within its exact reference's limit."""
    confidence, per = 0.95, 2500
    alpha = 1.0 - confidence
    mech, eps_rr = _rr()
    gauss_delta = 1e-3
    families = [
        (mech, np.array([0]), np.array([1]), eps_rr, 0.0),
        (laplace_query(1.0), np.array([0.0]), np.array([1.0]), 1.0, 0.0),
        (AdditiveNoise(lambda d: np.asarray(d, float).sum(axis=0), GaussianMechanism(1.0, 1.0)), np.array([0.0]),
         np.array([1.0]), gaussian_epsilon_at(1.0, gauss_delta), gauss_delta),
        (_two_point, np.array([0]), np.array([1]), math.log(7.0 / 3.0), 0.0),
    ]
    counts = []
    for k, (m, d0, d1, eps, delta) in enumerate(families):
        counts.append(sum(audit(m, d0, d1, epsilon=eps, delta=delta, samples=SAMPLES, confidence=confidence,
                                seed=100_000 * k + s, sequential=True).epsilon_lower > eps for s in range(per)))
    total = 4 * per
    share = sum(counts) / total
    assert share <= alpha + 3.0 * math.sqrt(alpha * (1 - alpha) / total), counts
    assert counts[0] <= int(stats.binom.ppf(1 - 1e-3, per, sequential_rate(confidence))), counts
