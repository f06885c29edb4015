"""Reports of ``dpverify verify`` and ``dpverify audit-library``: ``report.json`` (machine-readable) and a
self-contained ``report.html``, rendered in memory and published together.

``report.json`` holds every theorem check and every audit with its numbers, counts, seeds, the array backend and
device it was drawn on (``backend``/``device`` of every row: "numpy"/"cpu", or "torch" on "cpu", "cuda", "cuda:K"),
the run id and the run's status (``summary.status``: PASS or FAIL, :func:`dpverify.interfaces.presentation.run_status`). ``report.html``
(:mod:`dpverify.interfaces.report_html`) opens with that headline -- PASS/FAIL, the counts, what needs attention --
then the sortable, filterable audit table, a details entry per audit with its trade-off plane
(:mod:`dpverify.interfaces.report_figures`), the library audits, the theorem checks and the catalogue's bound curves;
it embeds its plots as base64 PNG, loads nothing from the network (a Content-Security-Policy forbids it) and carries
the same run id, so the file can be mailed or archived alone.

How an audit's numbers are presented (columns, legend, footnotes, loose claims) is shared with the CLI and the pytest
plugin: :mod:`dpverify.interfaces.presentation`, re-exported here.

The rows stay typed until here (:mod:`dpverify.interfaces.rows`: a suite case's
:class:`~dpverify.cases.CaseResult`, a library function's :class:`~dpverify.libraries.runner.LibraryResult`, a
theorem's :class:`~dpverify.interfaces.rows.TheoremRow`): :func:`render_report` is where they become JSON (each
row's ``to_dict``), and the HTML page is drawn from the typed rows.

Writing (:func:`write_report`): the files are rendered completely, then published together through
:class:`dpverify.interfaces.files.RunDirectory` -- one atomic symlink switch -- so a report directory never shows a
``report.json`` of one run beside a ``report.html`` of another, whenever the process is killed, and concurrent
runs into one directory never mix.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Iterable, Sequence

from dpverify import __version__
from dpverify.interfaces.files import Run, RunDirectory, jsonable, write_atomic, write_json_atomic
from dpverify.interfaces.presentation import (
    AUDIT_HEADERS,
    LEGEND,
    LOOSE_FACTOR,
    accountant_marks,
    audit_cells,
    fmt_epsilon,
    known_bad_summary,
    legend_lines,
    loose_claim_notes,
    run_status,
    split_known_bad,
    summary_counts,
    times,
)
from dpverify.interfaces.report_figures import accountant_figure, chart_points, figure_paper, tradeoff_figure
from dpverify.interfaces.report_figures import paper_figures as paper_figures_of
from dpverify.interfaces.report_html import RunInfo, page
from dpverify.interfaces.rows import AuditRow, CaseResult, LibraryResult, TheoremRow

__all__ = ["write_report", "render_report", "write_atomic", "write_json_atomic", "tradeoff_figure",
           "accountant_figure", "chart_points", "figure_paper", "fmt_epsilon", "AUDIT_HEADERS", "audit_cells", "accountant_marks",
           "LEGEND", "LOOSE_FACTOR", "legend_lines", "loose_claim_notes", "times", "summary_counts", "split_known_bad",
           "known_bad_summary"]


def _audit_dict(row: AuditRow) -> dict:
    """An audit row as JSON (its ``to_dict``), with the ``backend`` and ``device`` its numbers were drawn on at the
    top level: the row's own (a suite case records them, error rows too); a library audit's are its final audit's
    (``dpverify audit-library`` runs on numpy only: "numpy" on "cpu")."""
    if not isinstance(row, (CaseResult, LibraryResult)):
        raise TypeError(f"a report's audit rows are CaseResult or LibraryResult (JSON read back: their from_dict); "
                        f"got {type(row).__name__}")
    out = row.to_dict()
    out.setdefault("backend", row.backend)
    out.setdefault("device", row.device)
    return out


def _theorem_dict(row: TheoremRow) -> dict:
    if not isinstance(row, TheoremRow):
        raise TypeError(f"a report's theorem rows are TheoremRow (JSON read back: TheoremRow.from_dict); got "
                        f"{type(row).__name__}")
    return row.to_dict()


def render_report(theorem_rows: Sequence[TheoremRow], audits: Iterable[AuditRow], settings: dict | None = None, *,
                  run_id: str, resumed: bool = False, paper_figures: bool | Iterable[str] = True) -> dict[str, bytes]:
    """The report's files, rendered in memory: ``{"report.json": ..., "report.html": ...}``, both naming ``run_id``.

    ``theorem_rows``: :class:`~dpverify.interfaces.rows.TheoremRow`; ``audits``: suite cases
    (:class:`~dpverify.cases.CaseResult`) and library functions (:class:`~dpverify.libraries.runner.LibraryResult`).
    ``paper_figures``: True for every bound-curve figure of the catalogue, False for none, or the paper keys whose
    figures to draw (``dpverify verify`` passes the papers of the theorems it checked)."""
    theorem_rows, audits = list(theorem_rows), list(audits)
    theorem_dicts, audit_dicts = [_theorem_dict(r) for r in theorem_rows], [_audit_dict(a) for a in audits]
    regular, known_bad = split_known_bad(audits)
    run = RunInfo(run_id, time.strftime("%Y-%m-%dT%H:%M:%S%z"), __version__, bool(resumed), jsonable(settings or {}))
    payload = jsonable({
        "run_id": run.run_id,
        "created": run.created,
        "dpverify_version": run.version,
        "resumed": run.resumed,
        "settings": run.settings,
        "summary": {"status": run_status(theorem_rows, audits).word,
                    "theorems": len(theorem_rows),
                    "theorems_failed": sum(not r.passed for r in theorem_rows),
                    "audits": summary_counts(a.verdict or "error" for a in regular),
                    "known_bad": {"flagged": sum(bool(a.passed) for a in known_bad), "total": len(known_bad)}},
        "theorems": theorem_dicts,
        "audits": audit_dicts,
    })
    if paper_figures is True:
        figs = paper_figures_of()
    elif paper_figures is False:
        figs = []
    else:
        papers = list(paper_figures)
        figs = paper_figures_of(papers) if papers else []
    return {
        "report.json": json.dumps(payload, indent=2, allow_nan=False).encode(),
        "report.html": page(run, theorem_rows, audits, figs).encode(),
    }


def write_report(directory: str | os.PathLike, theorem_rows: Sequence[TheoremRow], audits: Iterable[AuditRow],
                 settings: dict | None = None, paper_figures: bool | Iterable[str] = True, run: Run | None = None,
                 report_dir: RunDirectory | None = None, overwrite: bool = False) -> list[Path]:
    """Render ``report.json`` and ``report.html`` and publish them into ``directory`` together; returns their paths.

    ``paper_figures``: see :func:`render_report`. ``run``: the :class:`~dpverify.interfaces.files.Run` the results were
    checkpointed in (``dpverify verify --report``); by
    default a new one. ``directory`` is checked (and created) first: a ``ValueError`` if it is not a writable
    directory. Nothing in ``directory`` changes until both files are rendered; then one atomic switch publishes them.
    A ``report.json``/``report.html`` in ``directory`` that dpverify did not publish is an error unless ``overwrite``
    (then it is kept in a legacy run directory; :meth:`~dpverify.interfaces.files.RunDirectory.prepare`).
    """
    rd = report_dir or RunDirectory(directory).prepare(overwrite)
    if run is None:
        run = rd.start({"settings": settings or {}})
    try:
        files = render_report(theorem_rows, audits, settings, run_id=run.run_id, resumed=run.resumed,
                              paper_figures=paper_figures)
        return rd.publish(run, files)
    finally:
        run.close()
