"""``dpverify audit-library LIBRARY``: audit a DP library's public API against what it claims.

Runs the library's catalogue (:mod:`dpverify.libraries`: ``diffprivlib``, ``opendp``, ``opacus``, ``python-dp``,
``pipeline-dp``, ``smartnoise-sql`` (SQL queries through ``snsql.from_df(...).execute``; it pins an older opendp, so
it is installed in an environment of its own), the accountants ``dp-accounting`` and ``prv-accountant`` (queries
checked against dpverify's rigorous bracket, :mod:`dpverify.libraries.accountants`), or ``all``):
for each function a worst-pair search under a fixed screening budget, a final audit of the best pair on fresh
samples, and a confirmation with a new seed for a violation (:mod:`dpverify.libraries.runner`). Prints one row per
function (library, version, function, claimed, certified, worst pair, verdict, label) and a reproduction snippet
for every violation; ``--report DIR`` writes ``report.json`` and ``report.html`` as ``dpverify verify`` does.

Exit status: 0 when there is no unexpected violation (expected ones, documented leaks, were found); 1 when a
violation reproduced that nobody documented (a finding), an audit erred, or an expected violation was not found;
2 bad input, or a library (or its catalogue) that is not installed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING

from dpverify.interfaces.cli import arguments

if TYPE_CHECKING:  # the rows are imported where the catalogue runs: --help stays light
    from dpverify.libraries.corpus import CorpusResult
    from dpverify.libraries.runner import LibraryResult

#: As :data:`dpverify.libraries.runner.LIBRARIES` plus "all" (kept here so building the parser imports no numpy).
CHOICES = ("diffprivlib", "opendp", "opacus", "python-dp", "pipeline-dp", "dp-accounting", "prv-accountant",
           "smartnoise-sql", "all", "corpus")
BUDGET_NAMES = ("quick", "standard", "full")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit-library", help="audit a DP library's public API (diffprivlib, opendp, opacus, python-dp, "
                                             "pipeline-dp, smartnoise-sql) or its accountant (dp-accounting, "
                                             "prv-accountant)")
    p.add_argument("library", metavar="LIBRARY", help=f"one of {', '.join(CHOICES)} (corpus: the seeded checks of "
                                                      "real reported DP bugs, dpverify.libraries.corpus)")
    p.add_argument("--budget", choices=BUDGET_NAMES, default="quick",
                   help="samples per side per function: quick (1.6k screening + 1k final; a whole catalogue takes "
                        "one to two minutes of CPU), standard (12k + 10k), full (40k + 40k); divided by a function's "
                        "cost (model fits)")
    p.add_argument("--scale", type=arguments.real(0.0, 1e6, low_inclusive=False), default=1.0, metavar="K",
                   help="multiply every sample count of the budget by K, in (0, 1e6], e.g. to follow up one function")
    p.add_argument("--only", metavar="PATTERN", default=None,
                   help="only functions whose name matches this glob or contains it")
    p.add_argument("--seed", type=arguments.seed(), default=0, help="root seed of every audit (integer >= 0)")
    p.add_argument("--confidence", type=arguments.confidence(), default=0.95,
                   help="confidence of each certified bound, in (0, 1)")
    p.add_argument("--report", metavar="DIR", type=arguments.path("a directory path"), default=None,
                   help="write report.json and report.html to DIR")
    p.add_argument("--overwrite", action="store_true",
                   help="publish into --report DIR even if it holds a report.json/report.html that dpverify did not "
                        "publish (they are kept in DIR/.dpverify-runs/run-legacy-*/)")
    p.add_argument("--jobs", type=arguments.workers(), default=1,
                   metavar="N", help="run the catalogue's functions in N forked worker processes (default 1; the "
                                     "rows are the same); e.g. --jobs 2 on 2 cores")
    arguments.add_sequential_argument(p, "each function's final audit and its confirmation")
    p.add_argument("--by-version", action="store_true",
                   help="corpus only: run each case on its own releases (an affected one and the first fixed one), "
                        "each installed in a throwaway environment (pip's index, or --find-links), and compare each "
                        "verdict with the one the case's affected range predicts")
    p.add_argument("--cache", metavar="DIR", type=arguments.path("a directory path"), default=None,
                   help="with --by-version: where releases are installed and reused (default $DPVERIFY_BISECT_CACHE "
                        "or ~/.cache/dpverify/bisect)")
    p.add_argument("--find-links", metavar="DIR", type=arguments.path("a directory of wheels"), default=None,
                   help="with --by-version: install releases from the wheels in DIR only (nothing downloaded)")
    p.add_argument("--json", action="store_true", help="print the result rows as JSON instead of the table")
    p.add_argument("--wide", action="store_true", help="do not wrap the text to the terminal width")
    p.set_defaults(func=_run)


def _catalogues(library: str) -> tuple[list, list[str]]:
    """(functions, unavailable messages) of the selected libraries; a library that is missing is a message."""
    from dpverify.libraries.runner import LIBRARIES, load

    names = LIBRARIES if library == "all" else (library,)
    functions, missing = [], []
    for name in names:
        try:
            functions.extend(load(name).catalogue())
        except ImportError as exc:
            missing.append(f"{name}: unavailable: {exc}")
    return functions, missing


def print_rows(rows: list[LibraryResult], width: int | None = None) -> None:
    """The library audits' table (one row per function), its legend, the errors, the ledgers and causes, and a
    reproduction for every violation."""
    from dpverify.interfaces.cli.output import format_table, wrap
    from dpverify.libraries.runner import (
        claim_and_certificate,
        ledger_cell,
        ledger_text,
    )

    table = []
    for r in rows:
        claimed, cert = claim_and_certificate(r, delta_symbol="d")
        table.append([r.library, r.version, r.function, claimed, cert, r.pair or "-", r.verdict, r.label or "",
                      ledger_cell(r), f"{r.seconds:.1f}"])
    print(format_table(["library", "version", "function", "claimed", "certified", "worst pair", "verdict", "label",
                        "ledger", "time [s]"], table, width=width, flexible=("function", "worst pair", "label")))
    legend = (("certified: the final audit's lower bound on the worst pair found (/ the confirmation's, new seed, "
              "fresh samples);"),
              ("label: finding = a violation that reproduced and is not documented; expected = a documented leak, "
              "found; not reproduced = not a finding;"),
              ("ledger: the budget the library's calls spend (dpverify's composition) against what its accountant "
              "records; a spend above the record is a finding without sampling."))
    for line in legend:
        print(wrap(line, width, indent="  ", subsequent="    "))
    for r in rows:
        if r.error:
            print(wrap(f"{r.verdict.upper()} {r.case}: {r.error}", width, indent="  ", subsequent="    "))
    for r in rows:
        lines = ledger_text(r)
        if lines:
            print(f"\n# --- ledger and causes: {r.case} ({r.label or r.verdict}) ---")
            for line in lines:
                print(wrap(line, width, subsequent="      "))
    for r in rows:
        if r.snippet:
            print(wrap(f"\n# --- reproduction: {r.case} ({r.label or r.verdict}) ---", width, subsequent="# "))
            if r.expected:
                print(wrap(f"# expected: {r.expected}", width, subsequent="# "))
            print(r.snippet)


def _run_corpus(args) -> int:
    """``dpverify audit-library corpus``: every case of :mod:`dpverify.libraries.corpus` (``--only`` matches the
    case id); ``--json`` prints the rows; ``--report DIR`` writes ``DIR/corpus.json`` atomically."""
    from dpverify.interfaces.cli.output import output_width
    from dpverify.interfaces.files import jsonable, write_json_atomic
    from dpverify.libraries import corpus
    from dpverify.validation import UsageError

    if args.only and not any(args.only in c.id for c in corpus.CASES):
        raise UsageError(f"--only {args.only!r} matches no corpus case; the cases are: "
                         + ", ".join(c.id for c in corpus.CASES))
    if args.report:
        from dpverify.interfaces.files import check_writable_dir

        check_writable_dir(args.report)
    if args.by_version:
        return _run_corpus_by_version(args)
    print(f"audit-library corpus: {len(corpus.CASES)} reported bugs", file=sys.stderr, flush=True)
    rows = corpus.run_corpus(args.only, progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    if args.json:
        from dpverify.interfaces.cli.output import print_json

        print_json(jsonable({"corpus": [r.to_dict() for r in rows]}))
    else:
        _print_corpus(rows, output_width(args.wide))
    if args.report:
        path = os.path.join(args.report, "corpus.json")
        write_json_atomic(path, jsonable({"corpus": [r.to_dict() for r in rows]}))
        print(f"report: {path}", file=sys.stderr)
    bad = corpus.failed(rows)
    statuses = [r.status for r in rows]
    print(f"\n{'FAIL' if bad else 'PASS'}: {len(rows)} corpus cases; "
          + ", ".join(f"{statuses.count(k)} {k}" for k in ("reproduced", "fixed", "ok", "unavailable", "failed")
                      if k in statuses),
          file=sys.stderr if args.json else sys.stdout)
    return 1 if bad else 0


def _run_corpus_by_version(args) -> int:
    """``dpverify audit-library corpus --by-version``: each library case on each of its releases
    (:mod:`dpverify.libraries.corpus.versions`); exit 1 when a verdict is not the expected one or a release could
    not be checked."""
    from dpverify.interfaces.cli.output import format_table, output_width, print_json, wrap
    from dpverify.interfaces.files import jsonable, write_json_atomic
    from dpverify.libraries import corpus
    from dpverify.libraries.corpus.versions import disagreements, run_by_version

    cases = [c for c in corpus.CASES if (not args.only or args.only in c.id) and c.kind == "library" and c.releases]
    start = time.perf_counter()
    print(f"audit-library corpus --by-version: {len(cases)} cases, {sum(len(c.releases) for c in cases)} releases",
          file=sys.stderr, flush=True)
    rows = run_by_version(cases, cache_root=args.cache, find_links=args.find_links,
                          progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    seconds = time.perf_counter() - start
    payload = jsonable({"corpus_by_version": [r.to_dict() for r in rows], "seconds": seconds})
    if args.json:
        print_json(payload)
    else:
        width = output_width(args.wide)
        print(format_table(["case", "library", "version", "expected", "observed", "agrees", "install [s]",
                            "check [s]"],
                           [[r.case, r.library, r.version, r.expected, r.observed, "yes" if r.agrees else "NO",
                             f"{r.install_seconds:.1f}", f"{r.seconds:.1f}"] for r in rows], width=width))
        for r in disagreements(rows):
            print(wrap(f"\n{r.case} on {r.library} {r.version}: expected {r.expected}, observed {r.observed}: "
                       f"{r.detail}", width, subsequent="  "))
    if args.report:
        path = os.path.join(args.report, "corpus-by-version.json")
        write_json_atomic(path, payload)
        print(f"report: {path}", file=sys.stderr)
    bad = disagreements(rows)
    print(f"\n{'FAIL' if bad else 'PASS'}: {len(rows)} case-release runs, {len(rows) - len(bad)} as expected, "
          f"{len(bad)} not ({seconds:.0f} s)", file=sys.stderr if args.json else sys.stdout)
    return 1 if bad else 0


def _print_corpus(rows: list[CorpusResult], width: int | None) -> None:
    """The corpus cases' table, then each case's detail and upstream references, and what the statuses mean."""
    from dpverify.interfaces.cli.output import format_table, wrap

    def expected(r: CorpusResult) -> str:
        if r.expected is None:
            return "-"
        return ("reproduced" if r.expected == "bad" else "fixed") + ("" if r.agrees is not False else " (NOT)")

    print(format_table(["case", "library", "kind", "method", "affected", "fixed in", "installed", "status",
                        "expected", "time [s]"],
                       [[r.id, r.library, r.check_kind, r.method or "-", r.affected or "-", r.fixed_in or "-",
                         "-" if r.version is None else r.version, r.status, expected(r), f"{r.seconds:.1f}"]
                        for r in rows], width=width))
    for r in rows:
        print(wrap(f"\n{r.id}: {r.title} [{r.status}]", width, subsequent="  "))
        print(wrap(f"  {r.detail or ''}", width, subsequent="    "))
        print(wrap(f"  upstream: {', '.join(r.refs)} ({r.upstream_status})", width, subsequent="    "))
    print(wrap("\nstatus: reproduced = the installed library still has the reported defect; fixed = it no longer "
               "shows it; ok = a re-implemented defect is flagged and its fix passes; failed = the check misbehaved; "
               "unavailable = the library is not installed; expected = what the case's affected range predicts for the "
               "installed version ((NOT): the status contradicts it, which fails the run).", width))

def _run(args) -> int:
    from dpverify.interfaces.cli.output import output_width
    from dpverify.libraries.runner import BUDGETS, failed, run_catalogue
    from dpverify.validation import UsageError

    if args.library not in CHOICES:
        raise UsageError(f"LIBRARY must be one of {', '.join(CHOICES)}; got {args.library!r}")
    if args.library == "corpus":
        return _run_corpus(args)
    if args.by_version or args.cache or args.find_links:
        raise UsageError("--by-version, --cache and --find-links apply to LIBRARY corpus only")
    if args.overwrite and not args.report:
        raise UsageError("--overwrite needs --report DIR: it lets a report replace files in DIR")
    report_dir = None
    if args.report:
        from dpverify.interfaces.files import RunDirectory

        report_dir = RunDirectory(args.report).prepare(args.overwrite)  # before any work: a bad path costs nothing
    chosen, missing = _chosen_functions(args)
    if chosen is None:
        return 2
    print(f"audit-library: {len(chosen)} functions (budget {args.budget} x{args.scale:g}, seed {args.seed})",
          file=sys.stderr, flush=True)

    def progress(msg: str) -> None:
        print(f"  {msg}", file=sys.stderr, flush=True)

    budget = BUDGETS[args.budget] if args.scale == 1.0 else BUDGETS[args.budget].scaled(args.scale)
    rows = run_catalogue(chosen, budget, seed=args.seed, confidence=args.confidence, progress=progress,
                         jobs=args.jobs, sequential=args.sequential)
    if args.json:
        from dpverify.interfaces.cli.output import print_json
        from dpverify.interfaces.files import jsonable

        print_json(jsonable({"rows": [r.to_dict() for r in rows], "unavailable": missing}))
    else:
        print_rows(rows, output_width(args.wide))
    bad = failed(rows)
    print(f"\n{'FAIL' if bad else 'PASS'}: {len(rows)} functions audited; {_label_summary(rows)}",
          file=sys.stderr if args.json else sys.stdout)
    if report_dir is not None:
        _write_library_report(args, report_dir, rows, missing)
    return 1 if bad else 0


def _chosen_functions(args) -> tuple[list | None, list[str]]:
    """The catalogue's functions ``--only`` selects, and the lines on catalogues that are not available (printed
    here); None when no catalogue is available (said here too). A selection that matches nothing is a usage error
    listing the functions."""
    from dpverify.libraries.runner import select
    from dpverify.validation import UsageError

    functions, missing = _catalogues(args.library)
    for line in missing:
        print(f"dpverify: {line}", file=sys.stderr)
    if not functions:
        print("dpverify: error: no library catalogue is available (see above)", file=sys.stderr)
        return None, missing
    chosen = select(functions, args.only)
    if not chosen:
        raise UsageError(f"--only {args.only!r} matches no function of {args.library}; the functions are: "
                         + ", ".join(f.qualified_name for f in functions))
    return chosen, missing


def _label_summary(rows: list[LibraryResult]) -> str:
    """How many functions got each label ("2 finding, 1 expected"), or "no violation"."""
    counts = {k: sum(r.label == k for r in rows)
              for k in ("finding", "expected", "expected, not found", "not reproduced", "unavailable", "error")}
    return ", ".join(f"{v} {k}" for k, v in counts.items() if v) or "no violation"


def _write_library_report(args, report_dir, rows: list[LibraryResult], missing: list[str]) -> None:
    from dpverify.interfaces.report import write_report

    settings = {"command": "audit-library", "library": args.library, "budget": args.budget, "scale": args.scale,
                "seed": args.seed, "jobs": args.jobs, "only": args.only, "confidence": args.confidence,
                "sequential": args.sequential, "unavailable": missing}
    paths = write_report(args.report, [], rows, settings=settings, paper_figures=False, report_dir=report_dir)
    print("report: " + ", ".join(str(p) for p in paths), file=sys.stderr)
