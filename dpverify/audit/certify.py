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
   mechanism), and for a profile the most violated delta. Its power (:func:`curve_power`): the ``mu_lower`` it
   reaches at the expected counts of the pair's own law, against the pair's Gaussian-equivalent mu
   (:func:`~dpverify.audit.ceiling.curve_ceiling`). An audit the event test alone would call inconclusive (its
   tail events too rare for the budget at the claim's delta) is consistent when the curve test had power: at the
   expected counts it reaches at least ``mu_pair / power_factor``, so an implementation ``power_factor`` times less
   private (in the Gaussian sense) would have been refuted.
4. **Verdict** (:mod:`dpverify.audit.verdicts`): violation (the event bound above the claimed epsilon, the claimed
   curve refuted, or the event bound above the pair's stated exact epsilon: :func:`exact_contradiction`), consistent,
   or inconclusive at this budget, with one sentence saying why; in implementation mode, a violation found by a
   floating-point statistic says so (:func:`dpverify.audit.floating_point.violation_note`). A curve test whose error
   bounds add up to 1 or more could reject nothing (:func:`is_trivial`): it is never cited as having had power, and
   the reason says the verdict rests on the event test alone. For a trade-off-curve claim given without a delta the
   reason ends with the delta the event test ran at (:func:`~dpverify.audit.plan.default_delta`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpverify.audit.abilities import MechanismFacts, PairLoss
from dpverify.audit.bounds import epsilon_lower_bound
from dpverify.audit.curve import CurveCertificate, certify as certify_curve
from dpverify.audit.ceiling import CurveCeiling, ceiling_from_masses, curve_ceiling, gaussian_loss_masses, saturation
from dpverify.calculus.tradeoff import GaussianDP
from dpverify.audit.estimate import EventCounts
from dpverify.audit.floating_point import violation_note
from dpverify.audit.kinds import Mode, Verdict
from dpverify.audit.plan import AuditPlan
from dpverify.audit.select import ChosenEvents
from dpverify.audit.verdicts import verdict_reason

__all__ = ["Ceiling", "Certificate", "event_bounds", "budget_ceiling", "curve_certificate", "certify", "is_trivial",
           "exact_contradiction", "decide", "curve_power"]


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
    curve_ceiling: CurveCeiling | None = None


def event_bounds(chosen: ChosenEvents, counts: EventCounts, plan: AuditPlan) -> tuple[float, ...]:
    """Each chosen event's epsilon lower bound, Bonferroni-corrected over all of them (module docstring, step 1)."""
    n, k0, k1 = counts.n, counts.dataset, counts.neighbour
    return tuple(float(epsilon_lower_bound(k0[j], n, k1[j], n, delta=plan.delta, alpha=plan.alpha,
                                           orientation=found.event.orientation, candidates=chosen.tests))
                 for j, found in enumerate(chosen.events))


def curve_power(chosen: ChosenEvents, n: int, plan: AuditPlan, privacy_loss: PairLoss | None) -> CurveCeiling | None:
    """The curve test's power on this pair (:func:`~dpverify.audit.ceiling.curve_ceiling`): from the pair's own
    privacy-loss law when it is known exactly, else from the claim when it is a Gaussian curve; None otherwise."""
    if chosen.curve is None:
        return None
    if privacy_loss is not None and privacy_loss.exact:
        losses, p, q, p_inf, q_inf = privacy_loss.masses
        return curve_ceiling(losses, p, q, p_inf=p_inf, q_inf=q_inf, n=n, alpha=plan.alpha, tests=chosen.tests)
    if isinstance(plan.claim, GaussianDP) and plan.claim.mu > 0:
        losses, p, q = gaussian_loss_masses(plan.claim.mu)
        return curve_ceiling(losses, p, q, n=n, alpha=plan.alpha, tests=chosen.tests)
    return None


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
    power = curve_power(chosen, counts.n, plan, facts.privacy_loss)
    verdict, reason = decide(epsilon_lower, plan, facts, ceiling, curve, power, chosen.events[best].statistic.name)
    return Certificate(epsilon_lower, best, bounds, ceiling, verdict, reason, curve, power)


def decide(epsilon_lower: float, plan: AuditPlan, facts: MechanismFacts, ceiling: Ceiling,
           curve: CurveCertificate | None, power: CurveCeiling | None, statistic: str) -> tuple[Verdict, str]:
    """The verdict and its reason from the certified ``epsilon_lower`` (found by ``statistic``), the ``ceiling``, the
    curve test's certificate and power (module docstring, step 4). A sequential audit
    (:mod:`dpverify.audit.sequential`) decides with the same rule, from its largest bound and its last round's
    ceiling and curve power."""
    verdict, reason = verdict_reason(epsilon_lower, plan.epsilon, budget_ceiling=ceiling.value,
                                     saturation=ceiling.saturation, epsilon_exact=facts.exact_epsilon,
                                     power_factor=plan.power_factor, ceiling_exact=ceiling.exact)
    if verdict is not Verdict.VIOLATION and curve is not None and curve.refuted:
        verdict, reason = Verdict.VIOLATION, curve_violation_reason(curve)
    elif verdict is Verdict.INCONCLUSIVE and curve is not None and is_trivial(curve):
        # the realised curve test could reject nothing: it had no power, whatever was expected of it
        reason = f"{reason}; {trivial_curve_reason(curve)}"
    elif (verdict is Verdict.INCONCLUSIVE and curve is not None and power is not None and power.mu_pair > 0
          and power.mu_expected * plan.power_factor >= power.mu_pair):
        verdict = Verdict.CONSISTENT
        reason = (f"the curve test had power: mu_lower {curve.mu_lower:.4g} at this budget, the pair's own mu "
                  f"{power.mu_pair:.4g} (expected mu_lower {power.mu_expected:.4g}), and the claimed curve was not "
                  f"refuted; the event test alone: {reason}")
    if plan.mode is Mode.IMPLEMENTATION and verdict is Verdict.VIOLATION:
        note = violation_note(statistic)
        if note:  # the certificate came from a floating-point statistic: say what that means
            reason = f"{reason}; {note}"
    if facts.exact_epsilon is not None and epsilon_lower > facts.exact_epsilon:
        contradiction = exact_contradiction(epsilon_lower, facts.exact_epsilon, plan.confidence)
        if verdict is Verdict.VIOLATION:
            reason = f"{reason}; {contradiction}"
        else:  # the claim is not exceeded, the stated exact value is: that refutes the implementation
            verdict, reason = Verdict.VIOLATION, (f"{contradiction}; the claim itself is not exceeded (certified "
                                                  f"{epsilon_lower:.4g} <= claimed {plan.epsilon:.4g})")
    if plan.delta_note:
        reason = f"{reason}; {plan.delta_note}"
    return verdict, reason


def is_trivial(curve: CurveCertificate) -> bool:
    """True when the realised curve test can reject nothing: ``FPR_hi + FNR_hi >= 1`` (e.g. an FPR bound of 1). Then
    ``f(FPR_hi) <= 1 - FPR_hi <= FNR_hi`` for every trade-off function f, in both readings, so no claim -- true or
    false -- could have been refuted by it: it cannot be cited as having had power."""
    return curve.fpr_upper + curve.fnr_upper >= 1.0


def trivial_curve_reason(curve: CurveCertificate) -> str:
    """One sentence for a curve test that could reject nothing (:func:`is_trivial`)."""
    return (f"the curve test was trivial (FPR <= {curve.fpr_upper:.4g}, FNR <= {curve.fnr_upper:.4g}: their sum is at "
            "least 1, so it could reject no curve) and had no power; the verdict rests on the event test alone")


def exact_contradiction(epsilon_lower: float, epsilon_exact: float, confidence: float) -> str:
    """One sentence for a certificate above the pair's stated exact epsilon. No correct mechanism is certified above
    its exact epsilon but with probability <= 1 - confidence (the bound's own guarantee), so this says that, with
    probability >= confidence, the implementation is not the mechanism whose exact epsilon was given -- or that value is
    wrong. That refutes the stated exact value, so the verdict is a violation even when the (looser) claim is not
    exceeded -- as ``dpverify verify`` does, which audits against the exact value (:func:`certify`)."""
    return (f"the certified {epsilon_lower:.4g} exceeds the pair's stated exact epsilon {epsilon_exact:.4g}: with "
            f"probability >= {confidence:g} the implementation is not the mechanism that exact value describes (or the "
            "value is wrong)")


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
