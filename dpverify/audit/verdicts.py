"""The verdict of an audit: violation, consistent, or inconclusive at this budget.

- **violation** -- the certified lower bound exceeds the claimed epsilon: with probability >= confidence the
  mechanism is not (claimed epsilon, delta)-DP on this pair (:mod:`dpverify.audit.bounds`).
- **inconclusive** -- no violation was found, but the audit could not have found one:

  * the claim is vacuous at this delta (epsilon = inf: nothing refutes it), or
  * it certified 0 (no event separated the two sides at all), or
  * the claim is above the :func:`~dpverify.audit.ceiling.saturation` of the budget (not even a mechanism that
    publishes its input could be certified above the claim with these samples), or
  * the pair's budget ceiling (:mod:`dpverify.audit.ceiling`, known when the mechanism describes its privacy
    loss) is below ``claim / power_factor``; or, the ceiling unknown, the pair's exact epsilon is (no event-based
    audit certifies more than the exact epsilon but by chance: it bounds the ceiling).

- **consistent** -- no violation, and the audit had power against the claim.

Why a factor and not "ceiling below the claim": at a finite budget and delta > 0 the ceiling of a correct
mechanism is *always* below its epsilon (e.g. 0.63 of it for a Gaussian at delta = 1e-5 and 1.6e5 samples, see
the ceiling module), so "ceiling < claim" would call every audit of a tight claim inconclusive. The ceiling grows
with the privacy loss, so an implementation leaking ``claim / ceiling`` times more than the run it was compared
with would be certified above the claim; ``power_factor`` (default 2) is the largest such factor we still call
power. ``detectable_factor = claim / ceiling`` is reported beside the verdict so a user can apply their own.
"""
from __future__ import annotations

import math
from typing import Any

from dpverify.audit.kinds import Verdict

__all__ = ["Verdict", "VERDICTS", "POWER_FACTOR", "verdict", "verdict_reason", "fmt_epsilon"]

#: The verdicts as plain strings (:class:`~dpverify.audit.kinds.Verdict`).
VERDICTS = Verdict.values()
#: An audit is conclusive when its budget ceiling is at least claim / POWER_FACTOR.
POWER_FACTOR = 2.0


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def verdict_reason(epsilon_lower: float, epsilon_claimed: float, *, budget_ceiling: float | None = None,
                   saturation: float | None = None, epsilon_exact: float | None = None,
                   power_factor: float = POWER_FACTOR, ceiling_exact: bool = True) -> tuple[Verdict, str]:
    """``(verdict, reason)``: the verdict (module docstring) and one sentence saying why. ``ceiling_exact=False``: the
    ceiling comes from an upper bound on the pair's privacy loss (the path's for a final iterate, the mechanism's worst
    case for another pair), so it can show an audit inconclusive but never show that it had power: then only a
    certificate of at least ``claim / power_factor`` does."""
    inconclusive = Verdict.INCONCLUSIVE
    if math.isinf(epsilon_claimed):
        return inconclusive, ("the claim is vacuous at this delta: it promises epsilon = inf, and no audit can refute "
                              "epsilon = inf")
    if epsilon_lower > epsilon_claimed:
        return Verdict.VIOLATION, (f"certified {_fmt(epsilon_lower)} > claimed {_fmt(epsilon_claimed)}: "
                                   "the mechanism is not private as claimed on this pair")
    if saturation is not None and saturation <= 0:
        return inconclusive, ("with these samples and this confidence no audit can certify anything above 0 (the "
                              "most any audit can certify is 0): use more samples or a lower confidence")
    if saturation is not None and epsilon_claimed > saturation:
        return inconclusive, (f"the claim {_fmt(epsilon_claimed)} is above the most any audit can certify with "
                              f"these samples ({_fmt(saturation)}): nothing at this budget can contradict it")
    if budget_ceiling is not None and budget_ceiling * power_factor < epsilon_claimed:
        if budget_ceiling <= 0:
            return inconclusive, ("budget ceiling 0: at this budget no event-based audit can certify anything "
                                  "above 0 on the audited run, so no violation of the claim could be shown")
        return inconclusive, (f"budget ceiling {_fmt(budget_ceiling)} < claim / {power_factor:g}: only an "
                              f"implementation leaking about {_fmt(epsilon_claimed / budget_ceiling)}x more than "
                              "the audited run would be flagged at this budget")
    if budget_ceiling is None and epsilon_exact is not None and epsilon_exact * power_factor < epsilon_claimed:
        return inconclusive, (f"the pair's exact epsilon {_fmt(epsilon_exact)} < claim / {power_factor:g}: no audit "
                              "of this pair can come near the claim (the claim is loose here, or the pair is not "
                              "the worst one)")
    if epsilon_lower <= 0:
        return inconclusive, "certified 0: no event separated the two sides at this budget"
    if budget_ceiling is not None and not ceiling_exact and epsilon_lower * power_factor < epsilon_claimed:
        return inconclusive, (f"certified {_fmt(epsilon_lower)} < claim / {power_factor:g}, and the ceiling "
                              f"{_fmt(budget_ceiling)} rests on an upper bound of the pair's privacy loss (not its own "
                              "law): this budget's power against the claim is not shown")
    return Verdict.CONSISTENT, f"certified {_fmt(epsilon_lower)} <= claimed {_fmt(epsilon_claimed)}"


def verdict(epsilon_lower: float, epsilon_claimed: float, **kwargs: Any) -> Verdict:
    """The verdict alone (see :func:`verdict_reason`)."""
    return verdict_reason(epsilon_lower, epsilon_claimed, **kwargs)[0]


def fmt_epsilon(x: Any) -> str:
    """An epsilon for a table: '-' for unknown, 'inf', else 4 significant digits."""
    if x is None:
        return "-"
    if isinstance(x, str):  # "inf" as stored by jsonable
        return x
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.4g}"
