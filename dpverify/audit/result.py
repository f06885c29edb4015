"""The outcome of one audit, typed until a report writes it: :class:`AuditResult` and how the stages fill it.

The result keeps the claim it tested as the guarantee object it was given (:mod:`dpverify.calculus.claimed`), the
verdict and the mode as :mod:`dpverify.audit.kinds` members; :meth:`AuditResult.to_dict` is the edge where it becomes
plain data (the keys and values of the JSON reports, plus a ``claim`` entry describing the claim).
"""
from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, fields
from typing import Any

from dpverify.calculus.claimed import Guarantee, describe_claim
from dpverify.calculus.guarantees import ApproxDP, Claim
from dpverify.audit.abilities import MechanismFacts
from dpverify.audit.ceiling import CurveCeiling
from dpverify.audit.certify import Certificate
from dpverify.audit.curve import CurveCertificate
from dpverify.audit.estimate import EventCounts
from dpverify.audit.kinds import Mode, Verdict
from dpverify.audit.plan import AuditPlan
from dpverify.audit.select import ChosenEvents
from dpverify.audit.sequential import Look
from dpverify.audit.tradeoff import tradeoff_curve

__all__ = ["AuditResult", "assemble_result", "curve_entry"]


@dataclass(frozen=True, repr=False)
class AuditResult:
    """Outcome of one audit. ``counts`` holds the raw numbers the bound is computed from (for the
    event that gave ``epsilon_lower``); ``candidates`` every event evaluated on the estimation
    samples, with its selection score, counts and (Bonferroni-corrected) bound. ``claim`` is the guarantee tested
    (``ApproxDP(epsilon_claimed, delta)`` for the shorthand ``epsilon=``/``delta=``); ``epsilon_claimed`` is the
    epsilon it promises at ``delta``."""

    epsilon_lower: float
    epsilon_claimed: float
    delta: float
    epsilon_exact: float | None
    verdict: Verdict
    samples: int
    confidence: float
    seed: int
    test: str
    event: str
    counts: dict = field(default_factory=dict)
    candidates: tuple = field(default_factory=tuple)
    wall_time: float = 0.0
    tradeoff: dict = field(default_factory=dict)
    #: why the verdict is what it is (one sentence, :mod:`dpverify.audit.verdicts`)
    verdict_reason: str = ""
    #: the accountant's epsilon of the run at ``delta`` (an upper bound on the pair's epsilon) and its method
    epsilon_accountant: float | None = None
    accountant_method: str = ""
    #: the most any event-based audit could certify on this pair with these samples (:mod:`.ceiling`)
    budget_ceiling: float | None = None
    ceiling_basis: str = ""
    #: True when the ceiling comes from the pair's own privacy loss; False when from an upper bound on it (the
    #: mechanism's worst case, or the path for a final release): then it can only prove an audit inconclusive
    ceiling_exact: bool = False
    #: the most any pair at all could be certified with these samples
    saturation: float | None = None
    #: "mathematical" or "implementation" (:class:`~dpverify.audit.kinds.Mode`)
    mode: Mode = Mode.MATHEMATICAL
    #: the guarantee tested, as given (None: ``ApproxDP(epsilon_claimed, delta)``)
    claim: Guarantee | None = None
    #: the curve-level test (:mod:`.curve`), for a claim that is a curve or a profile (None for point claims)
    curve: CurveCertificate | None = None
    #: the curve test's power on the pair (expected ``mu_lower`` and the pair's own mu; None when unknown)
    curve_ceiling: CurveCeiling | None = None
    #: the array backend that drew and counted the chunks after the fit ("numpy" or "torch", :mod:`dpverify.backends`)
    #: and its device ("cpu" on numpy; "cpu", "cuda" or "cuda:K" on torch, as asked -- on a Dask cluster "cuda" is
    #: each worker's own device): the numbers are reproducible per backend and device only (docs/gpu.md)
    backend: str = "numpy"
    device: str = "cpu"
    #: outputs per side the audit drew: ``samples`` for a fixed audit; for a sequential one the rounds it ran
    #: (:mod:`.sequential`), at most ``samples`` (the budget)
    samples_used: int = 0
    #: why a sequential audit stopped: "violation", "futility" or "budget" (:class:`~.sequential.StopRule`); "" for
    #: a fixed audit
    stopping_rule: str = ""
    #: a sequential audit's rounds (:class:`~.sequential.Look`: outputs per side, alpha share, certified bound,
    #: verdict); () for a fixed audit
    looks: tuple = ()

    @property
    def claimed(self) -> ApproxDP:
        """The guarantee this audit tests at its delta, as the calculus' :class:`~dpverify.calculus.guarantees.ApproxDP`
        (``epsilon_claimed`` at ``delta``); a vacuous claim (``epsilon_claimed = inf``) as a
        :class:`~dpverify.calculus.guarantees.Claim`, the ``ApproxDP`` that may be vacuous."""
        if math.isinf(self.epsilon_claimed):
            return Claim(self.epsilon_claimed, self.delta, theorem="vacuous at this delta")
        return ApproxDP(self.epsilon_claimed, self.delta)

    def __repr__(self) -> str:
        """Every scalar field, and the long ones summarised: the trade-off curve as ``<n points>``, the candidates as
        ``<k events>``, the curve test by its error bounds and mu_lower (:meth:`to_dict` keeps them all)."""
        parts = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "tradeoff":
                text = f"<{len(value.get('alpha', ()))} points>" if value else "{}"
            elif f.name == "candidates":
                text = f"<{len(value)} event{'s' if len(value) != 1 else ''}>"
            elif f.name == "curve":
                text = "None" if value is None else (f"<FPR <= {value.fpr_upper:.4g}, FNR <= {value.fnr_upper:.4g}, "
                                                     f"mu_lower {value.mu_lower:.4g}>")
            elif f.name == "curve_ceiling":
                text = "None" if value is None else (f"<mu_expected {value.mu_expected:.4g}, "
                                                     f"mu_pair {value.mu_pair:.4g}>")
            elif f.name in ("verdict", "mode"):
                text = repr(str(value))
            elif f.name == "claim":
                text = repr(value)
                if len(text) > 80:  # a profile's functions, a theorem's hypotheses: named by type only
                    text = f"<{type(value).__name__}>"
            elif f.name == "looks":
                text = f"<{len(value)} round{'s' if len(value) != 1 else ''}>"
            elif f.name == "wall_time":
                text = f"{value:.3g}"
            else:
                text = repr(value)
            parts.append(f"{f.name}={text}")
        return f"{type(self).__name__}({', '.join(parts)})"

    @property
    def is_violation(self) -> bool:
        return self.verdict == Verdict.VIOLATION

    @property
    def exceeds_exact(self) -> bool:
        """True if the certified bound is above the exact pair epsilon (rare by chance, at most
        1 - confidence of the time; systematically, a bug in the auditor)."""
        return self.epsilon_exact is not None and self.epsilon_lower > self.epsilon_exact

    @property
    def detectable_factor(self) -> float | None:
        """claim / budget ceiling: how many times more than the audited run an implementation must leak for this
        budget to flag it (None when the ceiling is unknown)."""
        if self.budget_ceiling is None:
            return None
        return float("inf") if self.budget_ceiling <= 0 else self.epsilon_claimed / self.budget_ceiling

    def to_dict(self) -> dict:
        """Plain data (the JSON report's audit entry): every field but the claim object, the verdict and mode as
        strings, ``detectable_factor``, and ``claim`` described by :func:`~dpverify.calculus.claimed.describe_claim`
        (``backend`` and ``device`` among the fields: every report row says where its numbers were drawn)."""
        out = {f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self)
               if f.name not in ("claim", "curve", "curve_ceiling")}
        out["verdict"] = str(self.verdict)
        out["mode"] = str(self.mode)
        out["looks"] = [look.to_dict() for look in self.looks]
        out["detectable_factor"] = self.detectable_factor
        out["claim"] = describe_claim(self.claim if self.claim is not None else self.claimed)
        if self.curve is not None:
            out["curve"] = curve_entry(self.curve, self.delta)
            if self.curve_ceiling is not None:
                out["curve"]["mu_expected"] = self.curve_ceiling.mu_expected
                out["curve"]["mu_pair"] = self.curve_ceiling.mu_pair
                out["curve"]["mu_fit"] = self.curve_ceiling.mu_fit
                out["curve"]["fit_distance"] = self.curve_ceiling.fit_distance
        return out

    @classmethod
    def from_dict(cls, d: dict) -> AuditResult:
        """The result of ``d`` (:meth:`to_dict`, read back: a report's audit entry) as far as plain data can rebuild
        it: every recorded field, the verdict and mode as their members, the sequential rounds as
        :class:`~dpverify.audit.sequential.Look` objects; no claim object and no curve-level test (``claim``,
        ``curve`` and ``curve_ceiling`` are None: the claim's (epsilon, delta) is ``epsilon_claimed`` at ``delta``).
        A key an older report lacks gets its default; an unknown key is ignored."""
        names = {f.name for f in fields(cls)} - {"claim", "curve", "curve_ceiling"}
        values: dict[str, Any] = {k: copy.deepcopy(v) for k, v in d.items() if k in names}
        values["verdict"] = Verdict(d["verdict"])
        values["mode"] = Mode(d.get("mode", str(Mode.MATHEMATICAL)))
        values["candidates"] = tuple(d.get("candidates", ()))
        values["looks"] = tuple(Look.from_dict(x) for x in d.get("looks", ()))
        return cls(**values)


def curve_entry(curve: CurveCertificate, delta: float) -> dict:
    """The curve test as plain data: the test, its counts and error-rate bounds, ``mu_lower``, the mechanism-free
    ``epsilon_lower`` from the same point at ``delta``, the Gaussian-implied epsilon (labelled: valid only for a
    Gaussian trade-off curve), and the verdict on the claim (refuted, margin, most violated delta)."""
    entry: dict = {"threshold": curve.threshold, "d_high": curve.d_high, "false_positives": curve.false_positives,
             "n_neighbour": curve.n_neighbour, "false_negatives": curve.false_negatives, "n_dataset": curve.n_dataset,
             "fpr_upper": curve.fpr_upper, "fnr_upper": curve.fnr_upper, "mu_lower": curve.mu_lower,
             "epsilon_lower": curve.epsilon_lower(delta) if delta > 0 else None,
             "epsilon_if_gaussian": curve.epsilon_assuming_gaussian(delta) if delta > 0 else None,
             "claim": curve.claim_description, "refuted": curve.refuted, "margin": curve.margin,
             "description": curve.describe()}
    v = curve.violation
    if v is not None:
        entry["most_violated"] = {"delta": v.delta, "epsilon_claimed": v.epsilon_claimed,
                                  "epsilon_certified": v.epsilon_certified, "margin": v.margin}
    return entry


def _event_entry(n: int, complement: bool, k: Any) -> int:
    """How many of ``n`` outputs fall in the event, from the count ``k`` of the un-complemented set."""
    return int(n - k) if complement else int(k)


def assemble_result(plan: AuditPlan, facts: MechanismFacts, chosen: ChosenEvents, counts: EventCounts,
                    certificate: Certificate, wall_time: float, *, backend: str = "numpy",
                    device: str = "cpu") -> AuditResult:
    """The :class:`AuditResult` of the stages' values; ``backend``/``device``: the array backend the chunks were drawn
    and counted on (:class:`~dpverify.backends.Backend` ``name`` and ``device``)."""
    n, k0, k1 = counts.n, counts.dataset, counts.neighbour
    best = chosen.events[certificate.best]
    stat, event = best.statistic, best.event
    evaluated = tuple(
        {"test": found.statistic.name, "event": found.event.describe(found.statistic),
         "selection_score": found.event.score,
         "dataset_in_event": _event_entry(n, found.event.complement, k0[j]),
         "neighbour_in_event": _event_entry(n, found.event.complement, k1[j]), "epsilon_lower": certificate.bounds[j]}
        for j, found in enumerate(chosen.events)
    )
    accountant = facts.accountant
    ceiling = certificate.ceiling
    return AuditResult(
        epsilon_lower=certificate.epsilon_lower,
        epsilon_claimed=plan.epsilon,
        delta=plan.delta,
        epsilon_exact=facts.exact_epsilon,
        verdict=certificate.verdict,
        verdict_reason=certificate.reason,
        epsilon_accountant=None if accountant is None else float(accountant.epsilon),
        accountant_method="" if accountant is None else str(accountant.method),
        budget_ceiling=ceiling.value,
        ceiling_basis=ceiling.basis,
        ceiling_exact=ceiling.exact,
        saturation=ceiling.saturation,
        mode=plan.mode,
        samples=plan.samples,
        confidence=plan.confidence,
        seed=plan.seed,
        test=stat.name,
        event=event.describe(stat),
        counts={"dataset_in_event": _event_entry(n, event.complement, k0[certificate.best]),
                "neighbour_in_event": _event_entry(n, event.complement, k1[certificate.best]),
                "n_estimation": n, "n_selection": plan.split.n_selection},
        candidates=evaluated,
        wall_time=wall_time,
        # descriptive only: the chosen statistic's trade-off on the threshold sample of the scoring part
        tradeoff=tradeoff_curve(*chosen.fitted.threshold_values[best.index],
                                dataset_high=(not event.complement) == event.d_high),
        claim=plan.claim,
        curve=certificate.curve,
        curve_ceiling=certificate.curve_ceiling,
        backend=str(backend),
        device=str(device),
        samples_used=plan.samples,
    )
