"""Running a suite case: :func:`prepare_case` builds the sampler once, reads its claim and the reference the audit
tests (once: the pair's exact privacy, the accountant's bound or the claim), and :func:`run_audit_case` audits it,
returning a typed :class:`CaseResult` (JSON only at the writer: :meth:`CaseResult.to_dict`).

The command line (``dpverify audit``, ``dpverify verify``), the audit suite's pytest fixture (``audits/conftest.py``)
and the benchmarks go through these two functions (by way of :func:`dpverify.cases.run_case`), so a case is built,
accounted and audited the same way everywhere.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from dpverify.calculus.claimed import claimed_epsilon
from dpverify.calculus.guarantees import ApproxDP
from dpverify.calculus.releases import SampleSet
from dpverify.cases.catalogue import AuditCase, get_case
from dpverify.cases.options import CaseOptions
from dpverify.cases.reference import ClaimCheck, Reference, claim_check, declared_reference
from dpverify.vocabulary import RowKind

if TYPE_CHECKING:  # the auditor is imported when a case runs: importing the suite stays cheap
    from dpverify.audit.options import Execution

__all__ = ["PreparedCase", "CaseResult", "prepare_case", "run_audit_case"]


@dataclass(frozen=True)
class PreparedCase:
    """A case ready to audit: the sampler built with the case's parameters (and overrides), its claim, the adjacent
    pair, the delta the audit tests at, the reference it tests against, and the claim against the pair's exact
    privacy (None when no exact value is known)."""

    case: AuditCase
    sampler: Any
    claim: Any
    dataset: Any
    neighbour: Any
    delta: float
    reference: Reference
    claim_check: ClaimCheck | None
    #: the accountant's answer for the run at ``delta`` and the pair's privacy loss, read once here and handed to the
    #: audit (None where the sampler has no accountant / does not know the pair's privacy loss)
    accountant: Any = None
    privacy_loss: Any = None

    def audit_facts(self) -> dict:
        """The keyword arguments that hand what was read here to :func:`dpverify.audit.audit` (so the audit does not
        account the run again)."""
        return {k: v for k, v in (("accountant", self.accountant), ("privacy_loss", self.privacy_loss))
                if v is not None}


def prepare_case(case: AuditCase | str, params: dict | None = None, *, delta: float | None = None,
                 epsilon: float | None = None) -> PreparedCase:
    """Build ``case``'s sampler (``params`` override the case's), read its claim, and the reference at ``delta``
    (default: the claim's): :func:`~dpverify.cases.reference.declared_reference`, or ``ApproxDP(epsilon, delta)``
    when ``epsilon`` is given (a user's explicit claim)."""
    from dpverify.audit.abilities import HasAccountant, HasPairPrivacyLoss

    case = get_case(case) if isinstance(case, str) else case
    sampler = case.build(**(params or {}))
    claim = sampler.guarantee()
    at = claim.delta if delta is None else delta
    dataset, neighbour = case.dataset(), case.neighbour()
    accountant = sampler.account(at) if isinstance(sampler, HasAccountant) else None
    loss = sampler.pair_privacy_loss(dataset, neighbour) if isinstance(sampler, HasPairPrivacyLoss) else None
    if epsilon is None:
        reference = declared_reference(sampler, dataset, neighbour, claim, at, privacy_loss=loss)
    else:
        reference = Reference(ApproxDP(epsilon, at), "given", float(epsilon), at, "given on the command line")
    return PreparedCase(case, sampler, claim, dataset, neighbour, at, reference, claim_check(claim, reference),
                        accountant, loss)


@dataclass(eq=False)
class CaseResult:
    """An audit of a case, a row of the suite's reports (its kind: ``"suite"``): the case, its sampler, parameters
    and pair, the sampler's claim (a typed guarantee), the reference the audit tested, the audit result (an
    :class:`~dpverify.audit.AuditResult`) and the seed that reproduces it, the time it took, whether the case is a
    known-bad implementation, and the backend and device it ran on; an error row has ``audit`` None and ``error``
    set. :meth:`to_dict` is its JSON form (the reports' rows); :meth:`from_dict` reads it back (a resumed run's
    checkpoint, a Dask worker's answer). Two rows are equal when their JSON forms are."""

    #: the row's kind (a report row of the suite)
    kind: ClassVar[RowKind] = RowKind.SUITE

    case: str
    sampler: str
    params: dict
    pair: str
    claim: Any
    audit: Any
    seconds: float
    error: str | None = None

    known_bad: bool = False
    #: what the audit tested, and the claim against the pair's exact privacy
    reference: Reference | None = None
    claim_check: ClaimCheck | None = None
    #: what the sampler releases ("path", "final", "samples(...)"; None for mechanisms that release a statistic)
    release: str | None = None
    #: the array backend and device the case was audited on (after a sampler without a device path fell back to
    #: numpy): also on an error row, whose ``audit`` is None
    backend: str = "numpy"
    device: str = "cpu"
    #: the JSON this row was read from (:meth:`from_dict`; None for a row computed here), which :meth:`to_dict` gives
    #: back as it was read: the descriptions of the claim, of the reference's guarantee and of a curve-level test have
    #: no typed form to rebuild here
    recorded: dict | None = None

    @property
    def verdict(self) -> str:
        if self.error:
            return "error"
        return str(self.audit.verdict)

    @property
    def passed(self) -> bool:
        """A known-bad case passes when its violation is found; every other case when none is found."""
        if self.error:
            return False
        return (self.verdict == "violation") == self.known_bad

    @property
    def claim_epsilon(self) -> float | None:
        """The claim at the audit's delta: the user's explicit one (``--epsilon``, the claim audited), else the
        sampler's (None when it says nothing there, or for an error row). A row read back gives the one it recorded
        (its claim object is not rebuilt whole)."""
        if self.recorded is not None:
            value = (self.recorded.get("audit") or {}).get("claim_epsilon")
            return None if value is None else float(value)  # (a report's "inf" too)
        if self.reference is not None and self.reference.kind == "given":
            return self.reference.epsilon
        if self.claim_check is not None:
            return self.claim_check.claimed
        return None if self.audit is None else _claim_at(self.claim, self.audit.delta)

    @property
    def tested_kind(self) -> str | None:
        """What the audit tested: the reference's kind ("exact", "upper bound", "claim", "given"; None without one). A
        row read back gives the one it recorded beside its audit."""
        if self.recorded is not None:
            return (self.recorded.get("audit") or {}).get("tested_kind")
        return None if self.reference is None else self.reference.kind

    def _audit_view(self) -> dict:
        """The audit as data, with what the tables show beside it: the claim at the audit's delta (``claim_epsilon``:
        the sampler's, or the user's explicit one), what was tested (``tested_kind``) and the release."""
        out = self.audit.to_dict()
        if self.claim_epsilon is not None:
            out["claim_epsilon"] = self.claim_epsilon
        if self.tested_kind is not None:
            out["tested_kind"] = self.tested_kind
        if self.release is not None:
            out["release"] = self.release
        return out

    def _claim_view(self) -> dict:
        """The claim as data; where the audit tested at another delta than the claim's own, also what the claim says
        there (``epsilon_at_tested_delta``; None when an (epsilon, delta0) claim says nothing below its delta0)."""
        if self.claim is None:
            return {}
        out = self.claim.to_dict() if hasattr(self.claim, "to_dict") else dict(self.claim)
        tested = None if self.audit is None else self.audit.delta
        if tested is not None and out.get("delta") != tested:
            out["tested_delta"] = tested
            out["epsilon_at_tested_delta"] = _claim_at(self.claim, tested)
        return out

    def to_dict(self) -> dict:
        """The row as JSON (a row read back: as it was read, :attr:`recorded`)."""
        if self.recorded is not None:
            return dict(self.recorded)
        return {
            "case": self.case,
            "sampler": self.sampler,
            "params": self.params,
            "pair": self.pair,
            "claim": self._claim_view(),
            "audit": None if self.audit is None else self._audit_view(),
            "verdict": self.verdict,
            "known_bad": self.known_bad,
            "passed": self.passed,
            "seconds": self.seconds,
            "error": self.error,
            "reference": None if self.reference is None else self.reference.to_dict(),
            "claim_check": None if self.claim_check is None else self.claim_check.to_dict(),
            "release": self.release,
            "backend": self.backend,
            "device": self.device,
        }

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CaseResult) and self.to_dict() == other.to_dict()

    @classmethod
    def from_dict(cls, d: dict) -> CaseResult:
        """The row of ``d`` (:meth:`to_dict`, read back), typed as far as this layer can rebuild it: the audit as an
        :class:`~dpverify.audit.AuditResult` (:meth:`~dpverify.audit.AuditResult.from_dict`: its recorded numbers, its
        verdict and mode as members, its sequential rounds as :class:`~dpverify.audit.sequential.Look` objects, no
        claim object or curve-level test), the reference and the claim check, and the claim as the (epsilon, delta) it
        states (:class:`~dpverify.calculus.guarantees.ApproxDP`; None for a vacuous one); what has no typed form stays
        in :attr:`recorded`, which :meth:`to_dict` gives back. A row missing a key (an older report's) gets its
        default."""
        from dpverify.audit import AuditResult

        a, ref, check, claim = d.get("audit"), d.get("reference"), d.get("claim_check"), d.get("claim") or {}
        try:
            stated = ApproxDP(claim["epsilon"], claim["delta"])
        except (KeyError, TypeError, ValueError):  # no claim (an error row), or a vacuous one (epsilon = inf)
            stated = None
        audit = None if a is None else AuditResult.from_dict(a)
        inner = a if isinstance(a, dict) else {}
        return cls(
            d["case"], d.get("sampler", d["case"]), dict(d.get("params") or {}), d.get("pair", ""),
            stated, audit, d.get("seconds", 0.0), error=d.get("error"), known_bad=bool(d.get("known_bad", False)),
            reference=None if ref is None else Reference(ref.get("guarantee"), ref["kind"], ref["epsilon"],
                                                         ref["delta"], ref.get("basis", "")),
            claim_check=None if check is None else ClaimCheck(check["claimed"], check["exact"], check["delta"]),
            release=d.get("release"), backend=str(d.get("backend", inner.get("backend", "numpy"))),
            device=str(d.get("device", inner.get("device", "cpu"))), recorded=d)


def _claim_at(claim: Any, delta: float | None) -> float | None:
    """What ``claim`` promises at ``delta`` (None when it says nothing there, or no delta is given)."""
    if claim is None or delta is None:
        return None

    try:
        return float(claimed_epsilon(claim, delta))
    except (TypeError, ValueError):
        return None


def run_audit_case(case: AuditCase | str, options: CaseOptions | None = None,
                   execution: Execution | None = None) -> CaseResult:
    """Audit ``case``'s implementation against the privacy its declared algorithm has on the case's pair
    (:func:`~dpverify.cases.reference.declared_reference`), or against an explicit ``options.epsilon`` at
    ``options.delta`` (:class:`~dpverify.cases.options.CaseOptions`); run as ``execution`` says (an
    :class:`~dpverify.audit.options.Execution`). Users call it as :func:`dpverify.cases.run_case`.

    ``delta`` (default: the claim's) is where the reference is read: a reference that is a curve or a
    privacy-loss distribution gives its epsilon at any delta (``dpverify audit dp_sgld_path --delta 1e-6`` tests the
    run's exact epsilon there, 2.93, not the 1.615 of delta = 1e-3); the sampler's (epsilon, delta) claim only at
    deltas at least its own (below, with no curve known for the pair, the case's result says why in its error).
    The numbers depend on no execution option but the backend and the chunk size (:mod:`dpverify.audit.options`):
    with ``backend``/``device`` (:mod:`dpverify.backends`) the numbers differ (another generator), the guarantee of
    the bound does not; a case whose sampler has no device path (OPS, the hybrid sampler, the mechanisms that are not
    gradient samplers) runs on numpy, and the result records the backend and device the case ran on
    (``CaseResult.backend``/``device``, error rows included). ``sequential``: the budget is spent in rounds that stop
    when the verdict is decided (:mod:`dpverify.audit.sequential`; the result says how many samples were used).
    Errors while building or sampling are captured in the result (``verdict == "error"``), never lost.
    """
    from dpverify.audit import AuditQuestion, Execution, run_audit
    from dpverify.samplers.device import has_device_path

    case = get_case(case) if isinstance(case, str) else case
    options, execution = options or CaseOptions(), execution or Execution()
    start = time.perf_counter()
    merged = {**case.params, **(options.params or {})}
    where = {"backend": execution.backend, "device": execution.device or "cpu"}
    try:
        prepared = prepare_case(case, options.params, delta=options.delta, epsilon=options.epsilon)
        if execution.backend != "numpy" and not has_device_path(prepared.sampler):
            # e.g. OPS, the hybrid sampler, a plain mechanism
            execution = execution.but(backend="numpy", device=None)
            where = {"backend": "numpy", "device": "cpu"}
        question = AuditQuestion(claim=prepared.reference.guarantee, delta=prepared.delta,
                                 samples=case.samples(options.budget), confidence=options.confidence,
                                 seed=options.seed, test=case.test, mode=options.mode,
                                 sequential=options.sequential, **prepared.audit_facts())
        result = run_audit(prepared.sampler, prepared.dataset, prepared.neighbour, question, execution)
        return CaseResult(case.id, case.sampler, _printable(merged), case.pair, prepared.claim, result,
                          time.perf_counter() - start, known_bad=case.known_bad, reference=prepared.reference,
                          claim_check=prepared.claim_check, release=_release_of(prepared.sampler),
                          backend=result.backend, device=result.device)
    except Exception as exc:  # reported as an error row, never a lost result
        return CaseResult(case.id, case.sampler, _printable(merged), case.pair, None, None, time.perf_counter() - start,
                          error=f"{type(exc).__name__}: {exc}", known_bad=case.known_bad, backend=where["backend"],
                          device=where["device"])


def _release_of(sampler: Any) -> str | None:
    """What a chain releases ("path", "final", "samples(...)"), None for a sampler releasing a statistic or a draw."""
    output = getattr(sampler, "output", None)
    if isinstance(output, SampleSet):
        return f"samples({output.burn_in},{output.thin},{output.count})"
    return str(output) if output in ("path", "final") else None


def _printable(params: dict) -> dict:
    """Parameters for reports: numbers and strings as they are, models as their constructor call."""
    return {k: v if isinstance(v, (bool, int, float, str, type(None))) else
            list(v) if isinstance(v, tuple) else repr(v) for k, v in params.items()}
