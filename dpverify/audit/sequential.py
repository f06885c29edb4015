"""Sequential audits: rounds of growing size that stop as soon as the verdict is decided (issue 38).

A fixed audit draws its whole budget of ``samples`` outputs per side before it decides. A large violation is clear
after a small fraction of that, and a correct mechanism's audit often shows early that the rest of the budget cannot
reach the claim. ``audit(..., sequential=True)`` spends the same budget in **rounds**:

- **Schedule** (:class:`RoundSchedule`). Early rounds of ``b_0, 2 b_0, 4 b_0, ...`` outputs per side, as many as fit
  in :data:`EARLY_SHARE` (a quarter) of the budget, then one last round with the rest (at least three quarters):
  ``b_0 = max(MIN_ROUND, (samples / 4) // (2^(MAX_ROUNDS - 1) - 1))``, the smallest first round of at least
  :data:`MIN_ROUND` outputs per side whose ``MAX_ROUNDS - 1`` doublings fit in the early share (a budget whose first
  round would not fit there is one round: the fixed audit). The schedule depends on ``samples`` only, never on the
  data. Small early rounds stop large violations after a few thousand outputs; the large last round keeps most of the
  fixed audit's power for the small ones.
- **Each round is a complete fixed audit** on fresh outputs (its own seed, :func:`round_seed`): its own selection
  (so an event chosen on a small round is replaced by the one a larger round chooses -- the selection is never final)
  and its own estimation, certified by the one-sided Clopper-Pearson bounds of :mod:`dpverify.audit.bounds` at the
  round's share ``alpha_r`` of ``alpha = 1 - confidence``.
- **Validity at every look** (the spending rule, :meth:`RoundSchedule.make`): ``alpha_r = alpha b_r / samples``, so
  ``sum_r alpha_r = alpha``. Each round's certificate exceeds the pair's true epsilon (or refutes a true curve) with
  probability at most ``alpha_r`` whatever happened before (its outputs are fresh and its events were chosen on its
  own selection part), so by the union bound, with probability at least ``1 - alpha`` *every* round's certificate is
  valid simultaneously -- whichever round the audit stops at, and whoever looks at which rounds. The certified
  ``epsilon_lower`` of a sequential audit is the largest over the rounds run, valid at ``confidence``. This is a
  confidence sequence on the finite, pre-set schedule of looks; spending in proportion to the round sizes gives the
  last round (three quarters of the budget or more) as large a share of alpha, so an audit that runs to the end loses
  little power against the fixed audit, while the small first rounds, at small alpha, still certify large violations
  (docs/sequential.md compares this with betting and mixture confidence sequences, measured).
- **Stopping rules** (:class:`StopRule`), checked after every round:

  * ``violation``: the round's verdict is a violation (its event bound above the claim, its curve test refuting
    the claim, or its bound above the pair's stated exact epsilon): stop, the verdict is a violation;
  * ``futility``: after a round of at least :data:`FUTILITY_FROM` of the budget whose events separated the two sides
    (it certified more than 0: a round whose selection found nothing is no evidence), no event of this round, nor its
    curve test, could reach the claim in the last round even if the round's rates were at the optimistic ends of
    their :data:`FUTILITY_LEVEL` intervals (:func:`projected_bound`): stop without a violation. Futility only ever
    stops an audit without claiming anything, so it cannot make a violation false; it can cost power (a later,
    larger selection might have found a better event), which ``benchmarks/sequential.py`` measures;
  * ``budget``: the last round ran.

  The verdict of an audit that stops without a violation is the fixed audit's rule (:mod:`dpverify.audit.verdicts`)
  applied to the procedure's capacity: the budget ceiling and the saturation of its last round (the most it could
  have certified), and the largest certified bound.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.audit.bounds import clopper_pearson_lower, clopper_pearson_upper
from dpverify.audit.curve import CurveClaim, error_counts, refutes
from dpverify.validation import check_positive_int, check_probability

__all__ = ["MIN_ROUND", "MAX_ROUNDS", "EARLY_SHARE", "FUTILITY_FROM", "FUTILITY_LEVEL", "RoundSchedule", "round_seed",
           "projected_bound", "projected_refutation", "StopRule", "Look"]

#: The fewest outputs per side of the first round: about 200 choose its event (the selection fraction 0.2), 800
#: certify it.
MIN_ROUND = 1000
#: The most rounds (early rounds and the last).
MAX_ROUNDS = 8
#: The early rounds together take at most this fraction of the budget; the last round takes the rest.
EARLY_SHARE = 1 / 4
#: Futility is only checked after a round of at least this fraction of the budget: a smaller round's selection (a
#: fifth of a few thousand outputs) picks events too weak to say what a larger selection would find. Measured
#: (benchmarks/sequential.py): checked after every round, futility stopped 8 of the standard suite's 18 violations at
#: the first round (the sparse vector variants at claim 0.1, and noisy max) and turned 23 of 30 "consistent" into
#: "inconclusive" (a first round certifies 0); from a round of an eighth of the budget, none is missed.
FUTILITY_FROM = 1 / 16
#: How optimistic the futility projection is (:func:`projected_bound`): each of the round's two rates is taken at the
#: favourable end of its one-sided interval at this level (a higher level: a less optimistic projection, an earlier
#: stop).
FUTILITY_LEVEL = 0.01


class StopRule:
    """Why a sequential audit stopped (the result's ``stopping_rule``; "" for a fixed audit)."""

    VIOLATION = "violation"
    FUTILITY = "futility"
    BUDGET = "budget"


@dataclass(frozen=True)
class RoundSchedule:
    """The rounds of a sequential audit: ``sizes[r]`` outputs per side in round ``r``, certified at ``alphas[r]``
    (module docstring). ``sum(sizes) == samples`` and ``sum(alphas) == alpha`` (up to rounding, never above)."""

    sizes: tuple[int, ...]
    alphas: tuple[float, ...]

    @classmethod
    def make(cls, samples: int, alpha: float, *, min_round: int = MIN_ROUND,
             max_rounds: int = MAX_ROUNDS) -> "RoundSchedule":
        """The schedule of a budget of ``samples`` outputs per side at total miss probability ``alpha``."""
        samples = check_positive_int(samples, "samples", minimum=4)
        alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
        min_round = check_positive_int(min_round, "min_round", minimum=4)
        max_rounds = check_positive_int(max_rounds, "max_rounds")
        first = max(min_round, int(EARLY_SHARE * samples) // (2 ** (max_rounds - 1) - 1))
        sizes: list[int] = []
        while len(sizes) < max_rounds - 1 and sum(sizes) + first * 2 ** len(sizes) <= EARLY_SHARE * samples:
            sizes.append(first * 2 ** len(sizes))
        if not sizes:
            return cls((samples,), (alpha,))
        sizes.append(samples - sum(sizes))
        # spending in proportion to the sizes, shrunk by a relative 1e-12 so that rounding never adds up above alpha
        alphas = tuple(alpha * (1.0 - 1e-12) * b / samples for b in sizes)
        return cls(tuple(sizes), alphas)

    @property
    def rounds(self) -> int:
        return len(self.sizes)

    @property
    def samples(self) -> int:
        return sum(self.sizes)


def round_seed(seed: int, r: int) -> int:
    """The seed of round ``r`` of a sequential audit rooted at ``seed``: a 63-bit integer drawn from the
    ``SeedSequence`` child ``(seed, r)``, so the rounds' streams are independent of each other and reproducible from
    ``seed``."""
    state = np.random.SeedSequence(seed, spawn_key=(0x5E9, r)).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) | (int(state[1]) >> 1))


def _oriented(k0: float, k1: float, n: int, complement: bool, d_high: bool) -> tuple[float, float]:
    """(count of the high side, count of the low side) of an event from its un-complemented counts."""
    if complement:
        k0, k1 = n - k0, n - k1
    return (k0, k1) if d_high else (k1, k0)


def projected_bound(k0: int, k1: int, n: int, *, complement: bool, d_high: bool, n_final: int, alpha_final: float,
                    delta: float, level: float = FUTILITY_LEVEL) -> float:
    """The most an event could certify in a round of ``n_final`` estimation outputs per side at share
    ``alpha_final`` (per one-sided bound), if its rates were at the favourable ends of their one-sided level-``level``
    intervals from this round's counts ``k0``/``k1`` of ``n`` (the un-complemented counts, with the event's
    orientation ``complement``/``d_high``): the high side's rate at its Clopper-Pearson upper bound, the low side's
    at its lower bound, and the final counts at their expected values ``n_final p``::

        log((CP_lower(n_final p_hi; n_final; alpha_final) - delta) / CP_upper(n_final p_lo; n_final; alpha_final)).

    Returns 0 where the numerator is not positive and ``inf`` where the denominator is 0."""
    k_hi, k_lo = _oriented(float(k0), float(k1), n, complement, d_high)
    p_hi = float(clopper_pearson_upper(k_hi, n, level))
    p_lo = float(clopper_pearson_lower(k_lo, n, level))
    lower = float(clopper_pearson_lower(p_hi * n_final, n_final, alpha_final)) - delta
    upper = float(clopper_pearson_upper(p_lo * n_final, n_final, alpha_final))
    if lower <= 0:
        return 0.0
    return math.inf if upper <= 0 else max(0.0, math.log(lower / upper))


def projected_refutation(k0: int, k1: int, n: int, *, d_high: bool, claim: CurveClaim, n_final: int,
                         alpha_final: float, level: float = FUTILITY_LEVEL) -> bool:
    """Whether the curve test of this round could refute ``claim`` in a round of ``n_final`` estimation outputs per
    side at share ``alpha_final`` (per one-sided bound) if its error rates were at the lower ends of their level-
    ``level`` intervals (:func:`projected_bound`'s optimism, for the curve test of :mod:`dpverify.audit.curve`)."""
    fp, fn = error_counts(k0, n, k1, n, d_high)
    fpr = float(clopper_pearson_lower(float(fp), n, level))
    fnr = float(clopper_pearson_lower(float(fn), n, level))
    fpr_hi = float(clopper_pearson_upper(fpr * n_final, n_final, alpha_final))
    fnr_hi = float(clopper_pearson_upper(fnr * n_final, n_final, alpha_final))
    return bool(refutes(claim, fpr_hi, fnr_hi))


@dataclass(frozen=True)
class Look:
    """One round of a sequential audit as the result records it: its index, outputs per side, the alpha share its
    bounds were computed at, its certified bound and its own verdict."""

    round: int
    samples: int
    alpha: float
    epsilon_lower: float
    verdict: str

    def to_dict(self) -> dict:
        return {"round": self.round, "samples": self.samples, "alpha": self.alpha,
                "epsilon_lower": self.epsilon_lower, "verdict": self.verdict}

    @classmethod
    def from_dict(cls, d: dict) -> Look:
        """The round of ``d`` (:meth:`to_dict`, read back)."""
        return cls(int(d["round"]), int(d["samples"]), float(d["alpha"]), float(d["epsilon_lower"]), str(d["verdict"]))
