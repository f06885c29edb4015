"""How an audit's numbers are presented everywhere: the CLI tables, the pytest plugin's summary and the HTML report.

One vocabulary for all three: the columns (:data:`AUDIT_HEADERS`, :func:`audit_cells`), what each means
(:data:`LEGEND`), the accountant footnotes, loose claims, the verdict counts, and the status of a whole run
(:func:`run_status`: PASS or FAIL and what needs attention), which the command line prints last and the HTML report
shows first.

Everything here takes typed rows (:mod:`dpverify.interfaces.rows`, re-exported here: the suite's
:class:`~dpverify.cases.CaseResult`, a library's :class:`~dpverify.libraries.runner.LibraryResult`, a
:class:`~dpverify.interfaces.rows.TheoremRow`) and an audit's numbers as an :class:`AuditView`; a row's kind is its
type.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence, TypeVar

from dpverify.audit.result import AuditResult
from dpverify.audit.sequential import Look
from dpverify.audit.verdicts import fmt_epsilon
from dpverify.cases import CaseResult
from dpverify.interfaces.rows import AuditRow, TheoremRow
from dpverify.libraries.runner import FAILING_LABELS, LibraryResult

__all__ = ["AUDIT_HEADERS", "TESTED_MARKS", "LEGEND", "LOOSE_FACTOR", "times", "number", "accountant_marks", "audit_cells",
           "Cell", "audit_row", "claimed_epsilon", "tested_epsilon", "AuditView", "audit_view",
           "loose_claim_notes", "legend_lines", "split_known_bad", "known_bad_summary", "summary_counts",
           "fmt_epsilon", "RunStatus", "Attention", "run_status", "anchor", "FAILING_LABELS", "library_label",
           "AuditRow", "CaseResult", "LibraryResult", "TheoremRow"]

#: Column headers of an audit row, in order (see :func:`audit_cells` and :data:`LEGEND`).
AUDIT_HEADERS = ("claimed", "tested", "accountant", "exact", "ceiling", "certified", "ratio", "verdict")

#: How the ``tested`` column marks what the audit tested (a suite case's reference,
#: :func:`dpverify.interfaces.suite.declared_reference`); no mark: the pair's exact privacy, or a marker's claim.
TESTED_MARKS = {"exact": "", "upper bound": " ub", "claim": " cl", "given": " gv"}

#: What each column means, and what ``-`` means in it.
LEGEND: tuple[str, ...] = (
    "claimed: the epsilon the sampler's theorem (or its accountant, or the test's marker) promises for these "
    "parameters.",
    "tested: what the audit tested the implementation against, the tightest privacy its declared algorithm is known "
    "to have on the audited pair: the pair's exact privacy (unmarked), the accountant's upper bound for the pair "
    "(ub), or the claim when nothing tighter is known (cl); for a marker's claim, the claim. A claim below the exact "
    "value is tested as it is (and fails).",
    "accountant: the accountant's epsilon of the concrete run at the same delta, an upper bound (exact for a path "
    "release, up to the accountant's error); [n] names its method; '-' = the mechanism describes no run to account.",
    "exact: the closed-form epsilon of the audited pair; '-' = no closed form is known for this pair "
    "(compare with the accountant instead).",
    "ceiling: the most any event-based audit could certify on this pair with this budget; '-' = unknown (the "
    "mechanism does not describe its privacy loss; the verdict then uses the budget's saturation).",
    "certified: the audit's lower bound on epsilon (holds with the stated confidence); ratio = certified / "
    "tested.",
    "verdict: violation = certified > tested, or the tested curve refuted by the curve-level test; inconclusive = no "
    "violation, but this budget could not have detected one (reason given); consistent = no violation, and the audit "
    "had power against what it tested.",
    "samples: outputs per side; used/budget for a sequential audit, which stops when its verdict is decided "
    "(docs/sequential.md).",
)

#: A claim this many times the exact or accountant epsilon is called out ("claim 4000x the exact value").
LOOSE_FACTOR = 10.0


def times(ratio: float) -> str:
    """A ratio rounded to 2 significant digits, as an integer from 10 up: 4004.4 -> '4000', 12.3 -> '12'."""
    if not math.isfinite(ratio):
        return "inf"
    if ratio >= 10:
        digits = int(math.floor(math.log10(ratio))) - 1
        return f"{round(ratio, -digits):.0f}"
    return f"{ratio:.2g}"


def number(x: Any) -> float | None:
    if x is None:
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class AuditView:
    """One audit's numbers as every table, chart and details entry shows them (:data:`AUDIT_HEADERS`).

    What was tested (``tested``: the audit's ``epsilon_claimed``, at ``delta``) and how (``tested_kind``, see
    :data:`TESTED_MARKS`: "exact", "upper bound", "claim", "given"; None outside the suite), the theorem's claim
    (``claimed``: a suite case's claim at the audit's delta, else what was tested), the accountant's epsilon and its
    method, the pair's exact epsilon, the budget ceiling, the certified lower bound, the verdict and its reason; the
    budget (``samples`` per side) and, for a sequential audit, the samples used, the stopping rule and each round's
    ``(samples, certified)``; the ``seed``, ``confidence``, ``test``, ``event``, ``counts``, ``mode``, the
    ``tradeoff`` curve and the ``backend``/``device`` the samples were drawn on. Unknown numbers are None.

    Built from a typed audit (:meth:`of`, :func:`audit_view` for a suite row) or, at a JSON boundary, from an audit's
    report entry (:meth:`from_dict`: the pytest plugin's rows)."""

    tested: float | None
    delta: Any
    certified: float | None
    claimed: float | None = None
    tested_kind: str | None = None
    exact: float | None = None
    accountant: float | None = None
    accountant_method: str = ""
    ceiling: float | None = None
    verdict: str = "-"
    verdict_reason: str = ""
    samples: Any = None
    samples_used: Any = None
    stopping_rule: str = ""
    rounds: tuple[tuple[Any, Any], ...] = ()
    seed: Any = None
    confidence: Any = None
    test: Any = None
    event: Any = None
    counts: dict = field(default_factory=dict)
    mode: Any = None
    tradeoff: dict = field(default_factory=dict)
    backend: str | None = None
    device: str | None = None

    @classmethod
    def of(cls, result: AuditResult, *, claimed: float | None = None, tested_kind: str | None = None) -> AuditView:
        """The view of ``result``; ``claimed``: the theorem's claim where the audit tested something else (a suite
        case's ``claim_epsilon``; default: what was tested), ``tested_kind``: what that was."""
        tested = number(result.epsilon_claimed)
        return cls(tested=tested, delta=result.delta, certified=number(result.epsilon_lower),
                   claimed=tested if claimed is None else number(claimed), tested_kind=tested_kind,
                   exact=number(result.epsilon_exact), accountant=number(result.epsilon_accountant),
                   accountant_method=result.accountant_method or "", ceiling=number(result.budget_ceiling),
                   verdict=str(result.verdict), verdict_reason=result.verdict_reason or "", samples=result.samples,
                   samples_used=result.samples_used, stopping_rule=result.stopping_rule or "",
                   rounds=tuple(_round(look) for look in result.looks), seed=result.seed,
                   confidence=result.confidence, test=result.test, event=result.event, counts=result.counts,
                   mode=str(result.mode), tradeoff=result.tradeoff, backend=result.backend, device=result.device)

    @classmethod
    def from_dict(cls, d: dict) -> AuditView:
        """The view of an audit's report entry (``AuditResult.to_dict()``, a suite row's audit with its
        ``claim_epsilon`` and ``tested_kind``, a one-run result's)."""
        return cls(tested=number(d.get("epsilon_claimed")), delta=d.get("delta"),
                   certified=number(d.get("epsilon_lower")),
                   claimed=number(d.get("claim_epsilon", d.get("epsilon_claimed"))), tested_kind=d.get("tested_kind"),
                   exact=number(d.get("epsilon_exact")), accountant=number(d.get("epsilon_accountant")),
                   accountant_method=d.get("accountant_method") or "", ceiling=number(d.get("budget_ceiling")),
                   verdict=str(d.get("verdict", "-")), verdict_reason=d.get("verdict_reason") or "",
                   samples=d.get("samples"), samples_used=d.get("samples_used"),
                   stopping_rule=d.get("stopping_rule") or "",
                   rounds=tuple(_round(look) for look in d.get("looks") or ()), seed=d.get("seed"),
                   confidence=d.get("confidence"), test=d.get("test"), event=d.get("event"),
                   counts=d.get("counts") or {}, mode=d.get("mode"), tradeoff=d.get("tradeoff") or {},
                   backend=d.get("backend"), device=d.get("device"))


def _round(look: Look | dict) -> tuple[Any, Any]:
    """``(samples, certified)`` of one round of a sequential audit: a :class:`~dpverify.audit.sequential.Look`, or
    its report entry (:meth:`AuditView.from_dict` reads a report's audit entry as it is written)."""
    if isinstance(look, Look):
        return look.samples, look.epsilon_lower
    return look.get("samples"), look.get("epsilon_lower")


def audit_view(row: CaseResult) -> AuditView | None:
    """The audit of a suite row as the tables show it, with the theorem's claim and what was tested beside it (None
    for an error row, which has no audit)."""
    if row.audit is None:
        return None
    return AuditView.of(row.audit, claimed=row.claim_epsilon, tested_kind=row.tested_kind)


def accountant_marks(audits: Iterable[AuditView | None]) -> dict[str, int]:
    """Footnote number of each distinct accountant method, in order of first appearance."""
    marks: dict[str, int] = {}
    for a in audits:
        if a is not None and a.accountant is not None:
            marks.setdefault(a.accountant_method or "unspecified", len(marks) + 1)
    return marks


@dataclass(frozen=True)
class Cell:
    """One cell of an audit row: its column's header, the text shown, and the value the column sorts by (a number
    for a numeric column, None where the text is ``-``; the text itself for a text column)."""

    header: str
    text: str
    sort: float | str | None
    numeric: bool = True


def claimed_epsilon(a: AuditView) -> float | None:
    """The theorem's claim of an audit: a suite case's claim at the audit's delta, else what was tested (a marker's
    or a caller's claim is both)."""
    return a.claimed


def tested_epsilon(a: AuditView) -> float | None:
    """What the audit tested the implementation against (the audit's ``epsilon_claimed``: the pair's exact privacy,
    an accountant's upper bound or the claim, see :data:`TESTED_MARKS`)."""
    return a.tested


def audit_row(a: AuditView, marks: dict[str, int]) -> tuple[Cell, ...]:
    """The :data:`AUDIT_HEADERS` cells of one audit, one per header, each with the value its column sorts by:
    claimed the theorem's claim, tested what was tested, ratio = certified / tested."""
    claimed, tested, lower = a.claimed, a.tested, a.certified
    acc, exact, ceiling = a.accountant, a.exact, a.ceiling
    acc_text = "-" if acc is None else f"{fmt_epsilon(acc)} [{marks.get(a.accountant_method or 'unspecified', '?')}]"
    ratio = None if not tested or lower is None else lower / tested
    tested_text = fmt_epsilon(tested) + TESTED_MARKS.get(a.tested_kind or "exact", "")
    cells = (Cell("claimed", fmt_epsilon(claimed), claimed), Cell("tested", tested_text, tested),
             Cell("accountant", acc_text, acc), Cell("exact", fmt_epsilon(exact), exact),
             Cell("ceiling", fmt_epsilon(ceiling), ceiling), Cell("certified", fmt_epsilon(lower), lower),
             Cell("ratio", "-" if ratio is None else f"{ratio:.3g}", ratio), Cell("verdict", a.verdict, a.verdict, False))
    assert tuple(c.header for c in cells) == AUDIT_HEADERS
    return cells


def samples_text(a: AuditView) -> str:
    """The samples per side of an audit: its budget, or ``used/budget`` for a sequential audit
    (:mod:`dpverify.audit.sequential`), e.g. ``1250/20000``."""
    if a.stopping_rule:
        return f"{a.samples_used}/{a.samples}"
    return str(a.samples)


def samples_used(a: AuditView) -> float | None:
    """The outputs per side an audit drew (its budget for a fixed audit): what the samples column sorts by."""
    return number(a.samples_used or a.samples)


def sequential_text(a: AuditView) -> str | None:
    """One line on a sequential audit's stop, e.g. ``violation after round 1 of 4 (1250 of 20000 samples per
    side)``; None for a fixed audit."""
    if not a.stopping_rule:
        return None
    rounds = ", ".join(f"{samples}: {fmt_epsilon(lower)}" for samples, lower in a.rounds)
    n = len(a.rounds)
    return (f"stopped by {a.stopping_rule} after {n} round{'s' if n != 1 else ''} "
            f"({a.samples_used} of {a.samples} samples per side; certified per round {rounds})")


def audit_cells(a: AuditView, marks: dict[str, int]) -> list[str]:
    """The texts of :func:`audit_row` (for the CLI tables)."""
    return [c.text for c in audit_row(a, marks)]


def loose_claim_notes(name: str, a: AuditView, factor: float = LOOSE_FACTOR) -> list[str]:
    """Sentences for a claim at least ``factor`` times the exact or the accountant's epsilon, e.g. ``ula_final: claim
    4000x the exact value (4545 vs 1.135)``: such a claim cannot be contradicted by any audit of this pair."""
    notes: list[str] = []
    claimed = a.claimed
    if claimed is None or not math.isfinite(claimed):
        return notes
    for ref, what, method in ((a.exact, "the exact value", ""),
                              (a.accountant, "the accountant's epsilon", a.accountant_method)):
        if ref is None or not math.isfinite(ref):
            continue
        if ref <= 0:
            if claimed > 0:
                notes.append(f"{name}: claim {fmt_epsilon(claimed)} while {what} is 0")
            continue
        if claimed / ref >= factor:
            notes.append(f"{name}: claim {times(claimed / ref)}x {what} ({fmt_epsilon(claimed)} vs "
                         f"{fmt_epsilon(ref)}{f', {method}' if method else ''})")
    return notes


def legend_lines(marks: dict) -> list[str]:
    """The table's legend, then the accountant methods behind the ``[n]`` marks (for the CLI tables)."""
    lines = list(LEGEND)
    if marks:
        lines.append("accountant methods: " + "; ".join(f"[{n}] {m}" for m, n in marks.items()))
    return lines


_Row = TypeVar("_Row", bound=AuditRow)


def split_known_bad(audits: Sequence[_Row]) -> tuple[list[_Row], list[_Row]]:
    """``(regular, known_bad)``: known-bad cases (deliberately broken implementations, :mod:`dpverify.interfaces.suite`,
    and a library's documented leaks) pass when their violation is found, so they are counted apart from the
    verdicts of the other audits."""
    return [r for r in audits if not r.known_bad], [r for r in audits if r.known_bad]


def known_bad_summary(known_bad: Sequence[AuditRow]) -> str:
    flagged = sum(bool(r.passed) for r in known_bad)
    return f"known-bad implementations: {flagged}/{len(known_bad)} flagged"


def summary_counts(verdicts: Iterable[str]) -> dict[str, int]:
    """Counts of each verdict (violation, consistent, inconclusive, error)."""
    out = {"consistent": 0, "inconclusive": 0, "violation": 0, "error": 0}
    for v in verdicts:
        out[v if v in out else "error"] += 1
    return out


@dataclass(frozen=True)
class Attention:
    """One thing a reader of a run must look at: its kind ("theorem", "violation", "error", "known-bad not
    flagged", "finding", ...), the item's ID, a sentence, and the page anchor of its details."""

    kind: str
    ident: str
    text: str
    anchor: str


@dataclass(frozen=True)
class RunStatus:
    """What a run amounts to. ``failed``: a theorem check failed, an audit found a violation or erred, a known-bad
    implementation was not flagged, or a library audit has a finding, an error or a documented leak not found (the
    command line's exit status 1)."""

    failed: bool
    theorems: int = 0
    theorems_failed: int = 0
    counts: dict = field(default_factory=lambda: summary_counts(()))
    known_bad: int = 0
    known_bad_flagged: int = 0
    library_labels: dict = field(default_factory=dict)
    attention: tuple[Attention, ...] = ()

    @property
    def word(self) -> str:
        return "FAIL" if self.failed else "PASS"


def anchor(kind: str, ident: str) -> str:
    """A page anchor for an item (letters, digits, ``-`` and ``_`` only): ``audit-dp_sgld_path``."""
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in str(ident))
    return f"{kind}-{safe}"


def library_label(r: LibraryResult) -> str:
    """A library row's label, else its verdict ("-" for neither)."""
    return r.label or r.verdict or "-"


def run_status(theorem_rows: Iterable[TheoremRow], audits: Iterable[AuditRow]) -> RunStatus:
    """The status of a run from its theorem rows and its audit rows (suite cases, :class:`~dpverify.cases.CaseResult`,
    or library functions, :class:`~dpverify.libraries.runner.LibraryResult`: told apart by their type), with every
    item that needs attention, in page order."""
    theorem_rows, audits = list(theorem_rows), list(audits)
    library = [r for r in audits if isinstance(r, LibraryResult)]
    suite = [r for r in audits if isinstance(r, CaseResult)]
    regular, known_bad = split_known_bad(suite)
    counts = summary_counts(r.verdict or "error" for r in regular)
    labels: dict[str, int] = {}
    for lib in library:
        labels[library_label(lib)] = labels.get(library_label(lib), 0) + 1
    attention = (_theorem_attention(theorem_rows) + _audit_attention(suite) + _library_attention(library))
    return RunStatus(failed=bool(attention), theorems=len(theorem_rows),
                     theorems_failed=sum(not r.passed for r in theorem_rows), counts=counts,
                     known_bad=len(known_bad), known_bad_flagged=sum(bool(r.passed) for r in known_bad),
                     library_labels=labels, attention=tuple(attention))


def _theorem_attention(theorem_rows: list[TheoremRow]) -> list[Attention]:
    """A failed theorem check, with the names of its failed checks."""
    out = []
    for r in theorem_rows:
        if not r.passed:
            names = ", ".join(r.failed_checks)
            out.append(Attention("theorem", r.id, f"theorem {r.id}: failed checks {names or '-'}",
                                 anchor("theorem", r.id)))
    return out


def _reason(r: CaseResult) -> str:
    return r.error or (r.audit.verdict_reason if r.audit is not None else "") or "-"


def _audit_attention(suite: list[CaseResult]) -> list[Attention]:
    """A violation or an error of a regular audit; a known-bad implementation that was not flagged."""
    out = []
    for r in suite:
        if not r.known_bad and r.verdict in ("violation", "error"):
            out.append(Attention(r.verdict, r.case, f"{r.case} ({r.verdict}): {_reason(r)}", anchor("audit", r.case)))
    for r in suite:
        if r.known_bad and not r.passed:
            out.append(Attention("known-bad not flagged", r.case,
                                 f"{r.case} (known-bad, NOT flagged): {_reason(r)}", anchor("audit", r.case)))
    return out


def _library_attention(library: list[LibraryResult]) -> list[Attention]:
    """A library audit whose label fails a run (:data:`FAILING_LABELS`)."""
    out = []
    for r in library:
        label = library_label(r)
        if label in FAILING_LABELS:
            out.append(Attention(label, r.case, f"{r.case} ({label}): {r.error or r.verdict}",
                                 anchor("library", r.case)))
    return out
