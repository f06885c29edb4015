"""Stage 4 of an audit, the certificate: the epsilon lower bound, what it is compared with, and the verdict.

1. **Event bound** (:func:`event_bounds`). For each chosen event, with its orientation fixed by the selection,
   ``log((L_hi - delta) / U_lo)`` from two one-sided Clopper-Pearson bounds at ``alpha / (2 k)`` each, ``k`` the
   number of tests counted -- the events and the curve test (Bonferroni: all ``2 k`` bounds hold together with
   probability >= 1 - alpha;
   :func:`dpverify.audit.bounds.epsilon_lower_bound`; Jagielski et al. 2020, Ding et al. 2018). The certificate is
   the largest of them: with probability >= ``confidence`` it is at most the smallest epsilon for which the mechanism
   is (epsilon, delta)-DP on this pair.
2. **Ceiling** (:func:`budget_ceiling`). When the pair's privacy loss is known, the most any event-based audit with
   the user's ``candidates`` events could certify on it at this budget (:mod:`dpverify.audit.ceiling`; an extra
   privacy-loss event costs the audit a Bonferroni share, not the ceiling); and the saturation, the most any pair
   at all could be certified.
3. **Curve test** (:func:`curve_certificate`; :mod:`dpverify.audit.curve`, Nasr et al. 2023): the selected threshold
   test's error rates bounded from above at the same Bonferroni share; ``mu_lower``; for a claim that is a curve or a
   profile, whether the point lies below the claimed trade-off curve (a refutation of the claim, rigorous for any
   mechanism), and for a profile the most violated delta.
4. **Verdict** (:mod:`dpverify.audit.verdicts`): violation (the event bound above the claimed epsilon, or the claimed
   curve refuted), consistent, or inconclusive at this budget, with one sentence saying why; in implementation
   mode, a violation found by a floating-point statistic says so (:func:`dpverify.audit.floating_point.violation_note`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpverify.audit.abilities import MechanismFacts, PairLoss
from dpverify.audit.bounds import epsilon_lower_bound
from dpverify.audit.curve import CurveCertificate, certify as certify_curve
from dpverify.audit.ceiling import ceiling_from_masses, saturation
from dpverify.audit.estimate import EventCounts
from dpverify.audit.floating_point import violation_note
from dpverify.audit.kinds import Mode, Verdict
from dpverify.audit.plan import AuditPlan
from dpverify.audit.select import ChosenEvents
from dpverify.audit.verdicts import verdict_reason

__all__ = ["Ceiling", "Certificate", "event_bounds", "budget_ceiling", "curve_certificate", "certify"]


@dataclass(frozen=True)
class Ceiling:
    """The budget ceiling of the pair (None when its privacy loss is unknown), what it rests on, whether that is the
    pair's own law (else an upper bound: it can then only prove an audit inconclusive), and the saturation."""

    value: float | None
    basis: str
    exact: bool
    saturation: float


@dataclass(frozen=True)
class Certificate:
    """The certified lower bound (``bounds[best]``, the largest of the events' bounds), the ceiling, the verdict and
    why."""

    epsilon_lower: float
    best: int
    bounds: tuple[float, ...]
    ceiling: Ceiling
    verdict: Verdict
    reason: str
    curve: CurveCertificate | None = None


def event_bounds(chosen: ChosenEvents, counts: EventCounts, plan: AuditPlan) -> tuple[float, ...]:
    """Each chosen event's epsilon lower bound, Bonferroni-corrected over all of them (module docstring, step 1)."""
    n, k0, k1 = counts.n, counts.dataset, counts.neighbour
    return tuple(float(epsilon_lower_bound(k0[j], n, k1[j], n, delta=plan.delta, alpha=plan.alpha,
                                           orientation=found.event.orientation, candidates=chosen.tests))
                 for j, found in enumerate(chosen.events))


def curve_certificate(chosen: ChosenEvents, counts: EventCounts, plan: AuditPlan) -> CurveCertificate | None:
    """The curve test's certificate from its estimation counts (the last counted), at the same Bonferroni share as
    the events (module docstring, step 3); None when no curve test was chosen."""
    if chosen.curve is None:
        return None
    j = len(chosen.events)
    n = counts.n
    return certify_curve(chosen.curve.test, int(counts.dataset[j]), n, int(counts.neighbour[j]), n, alpha=plan.alpha,
                         candidates=chosen.tests, claim=chosen.curve.claim)


def budget_ceiling(privacy_loss: PairLoss | None, n: int, plan: AuditPlan) -> Ceiling:
    """The ceiling and the saturation at ``n`` estimation samples per side (module docstring, step 2)."""
    value = None
    if privacy_loss is not None:
        losses, p, q, p_inf, q_inf = privacy_loss.masses
        value = ceiling_from_masses(losses, p, q, p_inf=p_inf, q_inf=q_inf, n=n, alpha=plan.alpha, delta=plan.delta,
                                    candidates=plan.candidates)
    sat = saturation(n, alpha=plan.alpha, delta=plan.delta, candidates=plan.candidates)
    if privacy_loss is None:
        return Ceiling(None, "", False, sat)
    return Ceiling(value, privacy_loss.basis, privacy_loss.exact, sat)


def certify(chosen: ChosenEvents, counts: EventCounts, plan: AuditPlan, facts: MechanismFacts) -> Certificate:
    """The certificate of an audit (module docstring)."""
    bounds = event_bounds(chosen, counts, plan)
    best = int(np.argmax(bounds))
    epsilon_lower = bounds[best]
    ceiling = budget_ceiling(facts.privacy_loss, counts.n, plan)
    curve = curve_certificate(chosen, counts, plan)
    verdict, reason = verdict_reason(epsilon_lower, plan.epsilon, budget_ceiling=ceiling.value,
                                     saturation=ceiling.saturation, epsilon_exact=facts.exact_epsilon,
                                     power_factor=plan.power_factor)
    if verdict is not Verdict.VIOLATION and curve is not None and curve.refuted:
        verdict, reason = Verdict.VIOLATION, curve_violation_reason(curve)
    if plan.mode is Mode.IMPLEMENTATION and verdict is Verdict.VIOLATION:
        note = violation_note(chosen.events[best].statistic.name)
        if note:  # the certificate came from a floating-point statistic: say what that means
            reason = f"{reason}; {note}"
    return Certificate(epsilon_lower, best, bounds, ceiling, verdict, reason, curve)


def curve_violation_reason(curve: CurveCertificate) -> str:
    """One sentence for a claim refuted by the curve test."""
    text = (f"the test's error rates (FPR <= {curve.fpr_upper:.4g}, FNR <= {curve.fnr_upper:.4g}) lie below the "
            f"claimed trade-off curve ({curve.claim_description}): the mechanism is not private as claimed on this "
            "pair")
    v = curve.violation
    if v is not None and v.margin > 0:
        text += f"; most violated at delta = {v.delta:.3g}: epsilon >= {v.epsilon_certified:.4g} vs claimed " \
                f"{v.epsilon_claimed:.4g}"
    return text
