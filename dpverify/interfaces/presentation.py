"""How an audit's numbers are presented everywhere: the CLI tables, the pytest plugin's summary and the HTML report.

One vocabulary for all three: the columns (:data:`AUDIT_HEADERS`, :func:`audit_cells`), what each means
(:data:`LEGEND`), the accountant footnotes, loose claims, the verdict counts, and the status of a whole run
(:func:`run_status`: PASS or FAIL and what needs attention), which the command line prints last and the HTML report
shows first.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable

from dpverify.audit.verdicts import fmt_epsilon

__all__ = ["AUDIT_HEADERS", "TESTED_MARKS", "LEGEND", "LOOSE_FACTOR", "times", "number", "accountant_marks", "audit_cells",
           "Cell", "audit_row", "claimed_epsilon", "tested_epsilon",
           "loose_claim_notes", "legend_lines", "split_known_bad", "known_bad_summary", "summary_counts",
           "fmt_epsilon", "RunStatus", "Attention", "run_status", "anchor"]

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


def accountant_marks(audits: Iterable[dict]) -> dict[str, int]:
    """Footnote number of each distinct accountant method, in order of first appearance."""
    marks: dict[str, int] = {}
    for a in audits:
        if a and a.get("epsilon_accountant") is not None:
            marks.setdefault(a.get("accountant_method") or "unspecified", len(marks) + 1)
    return marks


@dataclass(frozen=True)
class Cell:
    """One cell of an audit row: its column's header, the text shown, and the value the column sorts by (a number
    for a numeric column, None where the text is ``-``; the text itself for a text column)."""

    header: str
    text: str
    sort: float | str | None
    numeric: bool = True


def claimed_epsilon(a: dict) -> float | None:
    """The theorem's claim of an audit (an ``AuditResult.to_dict()``, or a suite row's audit view): its
    ``claim_epsilon`` where the row records one, else what was tested (a marker's or a caller's claim is both)."""
    return number(a.get("claim_epsilon", a.get("epsilon_claimed")))


def tested_epsilon(a: dict) -> float | None:
    """What the audit tested the implementation against (the audit's ``epsilon_claimed``: the pair's exact privacy,
    an accountant's upper bound or the claim, see :data:`TESTED_MARKS`)."""
    return number(a.get("epsilon_claimed"))


def audit_row(a: dict, marks: dict[str, int]) -> tuple[Cell, ...]:
    """The :data:`AUDIT_HEADERS` cells of one audit (an ``AuditResult.to_dict()``), one per header, each with the
    value its column sorts by: claimed the theorem's claim, tested what was tested, ratio = certified / tested."""
    claimed, tested, lower = claimed_epsilon(a), tested_epsilon(a), number(a.get("epsilon_lower"))
    acc, exact, ceiling = number(a.get("epsilon_accountant")), number(a.get("epsilon_exact")), number(
        a.get("budget_ceiling"))
    acc_text = "-" if acc is None else \
        f"{fmt_epsilon(acc)} [{marks.get(a.get('accountant_method') or 'unspecified', '?')}]"
    ratio = None if not tested or lower is None else lower / tested
    tested_text = fmt_epsilon(tested) + TESTED_MARKS.get(str(a.get("tested_kind", "exact")), "")
    verdict = str(a.get("verdict", "-"))
    cells = (Cell("claimed", fmt_epsilon(claimed), claimed), Cell("tested", tested_text, tested),
             Cell("accountant", acc_text, acc), Cell("exact", fmt_epsilon(exact), exact),
             Cell("ceiling", fmt_epsilon(ceiling), ceiling), Cell("certified", fmt_epsilon(lower), lower),
             Cell("ratio", "-" if ratio is None else f"{ratio:.3g}", ratio), Cell("verdict", verdict, verdict, False))
    assert tuple(c.header for c in cells) == AUDIT_HEADERS
    return cells


def samples_text(a: dict) -> str:
    """The samples per side of an audit (an ``AuditResult.to_dict()``): its budget, or ``used/budget`` for a
    sequential audit (:mod:`dpverify.audit.sequential`), e.g. ``1250/20000``."""
    if a.get("stopping_rule"):
        return f"{a.get('samples_used')}/{a.get('samples')}"
    return str(a.get("samples"))


def samples_used(a: dict) -> float | None:
    """The outputs per side an audit drew (its budget for a fixed audit): what the samples column sorts by."""
    return number(a.get("samples_used") or a.get("samples"))


def sequential_text(a: dict) -> str | None:
    """One line on a sequential audit's stop, e.g. ``violation after round 1 of 4 (1250 of 20000 samples per
    side)``; None for a fixed audit."""
    rule = a.get("stopping_rule")
    if not rule:
        return None
    looks = a.get("looks") or []
    rounds = ", ".join(f"{look.get('samples')}: {fmt_epsilon(look.get('epsilon_lower'))}" for look in looks)
    return (f"stopped by {rule} after {len(looks)} round{'s' if len(looks) != 1 else ''} "
            f"({a.get('samples_used')} of {a.get('samples')} samples per side; certified per round {rounds})")


def audit_cells(a: dict, marks: dict[str, int]) -> list[str]:
    """The texts of :func:`audit_row` (for the CLI tables)."""
    return [c.text for c in audit_row(a, marks)]


def loose_claim_notes(name: str, a: dict, factor: float = LOOSE_FACTOR) -> list[str]:
    """Sentences for a claim at least ``factor`` times the exact or the accountant's epsilon, e.g. ``ula_final: claim
    4000x the exact value (4545 vs 1.135)``: such a claim cannot be contradicted by any audit of this pair."""
    notes: list[str] = []
    claimed = claimed_epsilon(a)
    if claimed is None or not math.isfinite(claimed):
        return notes
    for key, what in (("epsilon_exact", "the exact value"), ("epsilon_accountant", "the accountant's epsilon")):
        ref = number(a.get(key))
        if ref is None or not math.isfinite(ref):
            continue
        if ref <= 0:
            if claimed > 0:
                notes.append(f"{name}: claim {fmt_epsilon(claimed)} while {what} is 0")
            continue
        if claimed / ref >= factor:
            method = f", {a.get('accountant_method')}" if key == "epsilon_accountant" and a.get("accountant_method") else ""
            notes.append(f"{name}: claim {times(claimed / ref)}x {what} ({fmt_epsilon(claimed)} vs "
                         f"{fmt_epsilon(ref)}{method})")
    return notes


def legend_lines(marks: dict) -> list[str]:
    """The table's legend, then the accountant methods behind the ``[n]`` marks (for the CLI tables)."""
    lines = list(LEGEND)
    if marks:
        lines.append("accountant methods: " + "; ".join(f"[{n}] {m}" for m, n in marks.items()))
    return lines


def split_known_bad(audits: list[dict]) -> tuple[list[dict], list[dict]]:
    """``(regular, known_bad)``: known-bad cases (deliberately broken implementations, :mod:`dpverify.interfaces.suite`) pass
    when their violation is found, so they are counted apart from the verdicts of the other audits."""
    return [r for r in audits if not r.get("known_bad")], [r for r in audits if r.get("known_bad")]


def known_bad_summary(known_bad: list[dict]) -> str:
    flagged = sum(bool(r.get("passed")) for r in known_bad)
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


#: Library-audit labels that fail a run (:func:`dpverify.libraries.runner.failed`).
FAILING_LABELS = ("finding", "error", "expected, not found")


def run_status(theorem_rows: Iterable[dict], audits: Iterable[dict]) -> RunStatus:
    """The status of a run from its theorem rows and its audit rows (suite cases ``CaseResult.to_dict()`` or library
    rows of :mod:`dpverify.libraries.runner`), with every item that needs attention, in page order."""
    theorem_rows, audits = list(theorem_rows), list(audits)
    library = [r for r in audits if r.get("library")]
    suite = [r for r in audits if not r.get("library")]
    regular, known_bad = split_known_bad(suite)
    counts = summary_counts(r.get("verdict") or "error" for r in regular)
    labels: dict[str, int] = {}
    for r in library:
        label = r.get("label") or r.get("verdict") or "-"
        labels[label] = labels.get(label, 0) + 1
    attention = (_theorem_attention(theorem_rows) + _audit_attention(regular, known_bad)
                 + _library_attention(library))
    return RunStatus(failed=bool(attention), theorems=len(theorem_rows),
                     theorems_failed=sum(r.get("status") != "passed" for r in theorem_rows), counts=counts,
                     known_bad=len(known_bad), known_bad_flagged=sum(bool(r.get("passed")) for r in known_bad),
                     library_labels=labels, attention=tuple(attention))


def _theorem_attention(theorem_rows: list[dict]) -> list[Attention]:
    """A failed theorem check, with the names of its failed checks."""
    out = []
    for r in theorem_rows:
        if r.get("status") != "passed":
            names = ", ".join(c["name"] for c in r.get("checks", []) if not c.get("passed"))
            out.append(Attention("theorem", r["id"], f"theorem {r['id']}: failed checks {names or '-'}",
                                 anchor("theorem", r["id"])))
    return out


def _reason(r: dict) -> str:
    return r.get("error") or (r.get("audit") or {}).get("verdict_reason") or "-"


def _audit_attention(regular: list[dict], known_bad: list[dict]) -> list[Attention]:
    """A violation or an error of a regular audit; a known-bad implementation that was not flagged."""
    out = []
    for r in regular:
        verdict = r.get("verdict") or "error"
        if verdict in ("violation", "error"):
            out.append(Attention(verdict, r["case"], f"{r['case']} ({verdict}): {_reason(r)}",
                                 anchor("audit", r["case"])))
    for r in known_bad:
        if not r.get("passed"):
            out.append(Attention("known-bad not flagged", r["case"],
                                 f"{r['case']} (known-bad, NOT flagged): {_reason(r)}", anchor("audit", r["case"])))
    return out


def _library_attention(library: list[dict]) -> list[Attention]:
    """A library audit whose label fails a run (:data:`FAILING_LABELS`)."""
    out = []
    for r in library:
        label = r.get("label") or r.get("verdict") or "-"
        if label in FAILING_LABELS:
            case = r.get("case", "")
            out.append(Attention(label, case, f"{case} ({label}): {r.get('error') or r.get('verdict', '')}",
                                 anchor("library", case)))
    return out
