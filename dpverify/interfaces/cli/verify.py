"""``dpverify verify``: the main job -- check every theorem, run every audit, print the verdicts.

With no arguments it runs on its embedded default: every theorem of the catalogue
(:mod:`dpverify.theorems.registry`) and every case of the audit suite (:mod:`dpverify.interfaces.suite`) at the
quick budget. ``--only PATTERN`` and ``--paper KEY`` restrict both; a selection that matches nothing is an error.

Verdicts (:mod:`dpverify.audit.verdicts`): *violation* (certified > claimed), *consistent* (no violation, and the
audit had power against the claim), *inconclusive* (no violation, but this budget could not have detected one:
certified 0, or a budget ceiling far below the claim), counted separately. Exit status 0 unless a theorem check
fails, an audit reports a violation, or an audit errs (then 1); bad input is 2 (:func:`dpverify.interfaces.cli.main`).

``--report DIR`` is checked before any work (a file or an unwritable path is an error at once). Each completed
theorem and audit is appended to a checkpoint in DIR as it finishes, and the report is published when all is done,
``report.json`` and ``report.html`` together (:class:`dpverify.interfaces.files.RunDirectory`). ``--resume`` continues an
interrupted run with the same settings from its checkpoint: finished work is not repeated and its numbers are the
stored ones, so the report equals an uninterrupted run's (every audit is a function of its case, budget and seed).

The rows stay typed until the report is written (:mod:`dpverify.interfaces.rows`): a theorem's
:class:`~dpverify.interfaces.rows.TheoremRow`, an audit case's :class:`~dpverify.cases.CaseResult`. An audit's row is
handed back as JSON by whoever ran it (this process, a worker process or a Dask worker: :func:`_run_case_job`),
checkpointed as it is, and read back typed (``CaseResult.from_dict``) where it arrives, like the rows of a
checkpoint on ``--resume`` and the theorem rows of a Dask worker (``TheoremRow.from_dict``).

``--scheduler ADDRESS|local`` runs the work on a Dask cluster (the ``distributed`` extra): each audit case and each
paper's theorem checks become one task, results are shown and checkpointed as they complete, and a task whose worker
dies is run again on another (Dask's resilience; a task that raises is retried, :data:`RETRIES`). ``local`` starts a
LocalCluster of ``--workers`` processes (default 2) for the run; an address (``tcp://host:8786``) uses a running
cluster (``dask scheduler`` and ``dask worker ADDRESS``, docs/distributed.md). The numbers equal a run without it.
With ``--backend torch --device cuda`` each audit case runs whole on its worker's own GPU (a GPU worker: one Dask worker
per GPU), and ``--dask-resources GPU=1`` keeps the cases on the workers started with ``--resources GPU=1``.
"""
from __future__ import annotations

import argparse
import fnmatch
import os
import signal
import sys
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple

from dpverify import __version__
from dpverify.interfaces.cli import arguments, on_interrupt
from dpverify.interfaces.cli.theorems import proof_dict

if TYPE_CHECKING:  # the rows are imported where they are built: --help stays light
    from dpverify.audit.options import Execution
    from dpverify.cases import CaseOptions
    from dpverify.interfaces.rows import CaseResult, TheoremRow


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="check every theorem and run every audit (the main job)")
    p.add_argument("--budget", choices=("quick", "standard", "thorough"), default="quick",
                   help="samples per audit: quick (20k per side), standard (200k), thorough (2M)")
    p.add_argument("--only", metavar="PATTERN", type=arguments.pattern(), default=None,
                   help="only theorems / audit cases whose ID matches this glob or contains it (a non-empty pattern)")
    p.add_argument("--paper", metavar="KEY", default=None,
                   help="only the theorems of this paper and the audits of samplers resting on them "
                        "(wang2015, li2019, bertazzi2025, foulds2016, and the supporting balle2018)")
    p.add_argument("--workers", type=arguments.workers(), default=None, metavar="N",
                   help="local worker processes for the audits (default 1; with --scheduler local: the Dask workers "
                        f"of the local cluster, default 2); {arguments.WORKERS_CAP_HELP}")
    p.add_argument("--scheduler", metavar="ADDRESS|local", default=None,
                   help="run each audit and each paper's theorems as tasks on a Dask cluster: a scheduler address "
                        "(tcp://host:8786) or 'local' (a LocalCluster for this run); needs dpverify[distributed]. "
                        f"{arguments.SCHEDULER_PROBE_HELP}")
    p.add_argument("--seed", type=arguments.seed(), default=0, help="root seed of every audit (integer >= 0)")
    p.add_argument("--report", metavar="DIR", type=arguments.path("a directory path"), default=None,
                   help="write report.json and report.html to DIR (checked before the run)")
    p.add_argument("--resume", action="store_true",
                   help="continue an interrupted run into --report DIR with the same settings")
    p.add_argument("--overwrite", action="store_true",
                   help="publish into --report DIR even if it holds a report.json/report.html that dpverify did not "
                        "publish (they are kept in DIR/.dpverify-runs/run-legacy-*/)")
    p.add_argument("--explain", action="store_true", help="also print what each column of the audit table means")
    p.add_argument("--wide", action="store_true", help="do not wrap the text to the terminal width")
    p.add_argument("--no-theorems", action="store_true", help="skip the theorem checks")
    p.add_argument("--prove", action="store_true",
                   help="prove every privacy statement afresh (dpverify prove; minutes) instead of re-checking the "
                        "shipped certificates")
    p.add_argument("--prove-seconds", type=arguments.real(0.0, low_inclusive=False), default=60.0, metavar="S",
                   help="with --prove: time limit per part of a proof, seconds (default 60)")
    p.add_argument("--no-audits", action="store_true", help="skip the audits")
    arguments.add_backend_arguments(p)
    arguments.add_dask_resources_argument(p, "run each audit case")
    arguments.add_sequential_argument(p, "each audit")
    p.set_defaults(func=_run)


# -- selection ------------------------------------------------------------------------------------------------------

def _matches(ident: str, pattern: str | None) -> bool:
    return not pattern or fnmatch.fnmatch(ident, pattern) or pattern in ident


def _case_papers(case) -> set[str]:
    """The papers whose theorems the case's sampler rests on (the prefix of each theorem ID)."""
    from dpverify.samplers import registry

    return {t.split(".", 1)[0] for t in registry.get(case.sampler).theorems}


def select(only: str | None, paper: str | None, theorems: bool = True, audits: bool = True) -> tuple[list, list]:
    """(theorems, audit cases) selected by ``--only`` and ``--paper``; a :class:`~dpverify.validation.UsageError` if
    nothing is selected."""
    from dpverify.interfaces.suite import select as select_cases
    from dpverify.theorems import registry
    from dpverify.theorems.base import PAPERS

    from dpverify.validation import UsageError

    if not theorems and not audits:
        raise UsageError("--no-theorems and --no-audits together leave nothing to verify; drop one of them")
    if paper is not None and paper not in PAPERS:
        raise UsageError(f"--paper must be one of {', '.join(PAPERS)}; got {paper!r}")
    thms = [t for t in registry.all_theorems(paper) if _matches(t.id, only)] if theorems else []
    cases = [c for c in select_cases(only) if paper is None or paper in _case_papers(c)] if audits else []
    if not thms and not cases:
        raise UsageError(_nothing_selected(only, paper, theorems, audits))
    return thms, cases


def _nothing_selected(only: str | None, paper: str | None, theorems: bool, audits: bool) -> str:
    """What an empty selection says: the options given and what they were looked for in."""
    given = " and ".join(s for s in (f"--only {only!r}" if only else "", f"--paper {paper!r}" if paper else "") if s)
    scope = " or ".join(s for s in ("theorem" if theorems else "", "audit case" if audits else "") if s)
    return (f"{given or 'the selection'} matches no {scope}; see `dpverify theorems list` and `dpverify samplers "
            "list` for the IDs")


# -- running ------------------------------------------------------------------------------------------------------

def _theorem_row(thm, prove_seconds: float | None = None) -> TheoremRow:
    """A theorem's checks, and its proof (``dpverify prove``): the shipped certificates re-checked by the
    independent checker, or with ``prove_seconds`` a fresh proof (that many seconds per part). The row fails when a
    check fails, a certificate does not re-check, or the proof's outcome is not the one this version expects."""
    from dpverify.interfaces.presentation import TheoremRow

    results = thm.run_checks()
    ok = all(r.passed for r in results)
    proof = _proof_row(thm.id, prove_seconds)
    proof_ok = proof is None or (proof.get("certificates_valid", True) and proof["outcome"] == proof["expected"])
    return TheoremRow(thm.id, thm.paper, thm.source.item, thm.title, thm.reconstructed,
                      "passed" if ok and proof_ok else "failed", tuple(results), proof)


def _proof_row(theorem_id: str, prove_seconds: float | None) -> dict | None:
    from dpverify.prove.catalogue import PROVABLE_KINDS, form, prove_item
    from dpverify.theorems import registry

    if registry.get(theorem_id).kind not in PROVABLE_KINDS:
        return None
    if prove_seconds is None:
        return proof_dict(theorem_id)
    from dpverify.prove.search import Limits

    f = form(theorem_id)
    fresh = prove_item(theorem_id, limits=Limits(max_seconds=prove_seconds))
    return {"outcome": fresh.outcome, "expected": f.expected, "why": f.why, "reason": fresh.reason or f.not_provable,
            "seconds": round(fresh.seconds, 2), "fresh": True,
            "parts": [{"part": n, "outcome": r.outcome, "summary": r.summary(), "version": r.problem.version}
                      for n, r in fresh.parts]}


class CaseJob(NamedTuple):
    """One audit case of a ``verify`` run, as it travels to a worker process or a Dask worker (it pickles): the case,
    what is asked of it (:meth:`options`) and the backend and device it runs on (:meth:`execution`)."""

    case: str
    budget: str | int
    seed: int
    backend: str = "numpy"
    device: str | None = None
    sequential: bool = False

    def options(self) -> CaseOptions:
        """What the audit asks (:class:`dpverify.cases.CaseOptions`)."""
        from dpverify.cases import CaseOptions

        return CaseOptions(budget=self.budget, seed=self.seed, sequential=self.sequential)

    def execution(self, progress: Callable[[int, int], None] | None = None) -> Execution:
        """How it runs (:class:`dpverify.audit.Execution`): this job's backend and device, and chunk ``progress``."""
        from dpverify.audit.options import Execution

        return Execution(backend=self.backend, device=self.device if self.backend != "numpy" else None,
                         progress=progress)


def _run_case_job(job: tuple, progress: Callable[[int, int], None] | None = None) -> dict:
    """The audit of one case (a :class:`CaseJob`, or the plain tuple of its fields), as JSON (its row's
    ``to_dict``): what this process, a worker process or a Dask worker hands back, checkpointed as it is and read
    back with :func:`_case_row` where it arrives. The case runs through :func:`dpverify.cases.run_case` with the
    job's option objects."""
    from dpverify.interfaces.suite import run_case

    job = CaseJob(*job)
    return run_case(job.case, job.options(), job.execution(progress)).to_dict()


def _case_row(res: dict) -> CaseResult:
    """An audit case's row from its JSON (a worker's answer, a checkpoint's record)."""
    from dpverify.interfaces.presentation import CaseResult

    return CaseResult.from_dict(res)


def _worker_init(inherited_fds: tuple[int, ...] = ()) -> None:
    """Worker initializer: ignore Ctrl-C (it reaches the whole process group; only the parent handles it: one line,
    no tracebacks from the workers) and close the descriptors inherited from the parent's run (its lock and
    checkpoint), which a worker never uses."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for fd in inherited_fds:
        try:
            os.close(fd)
        except OSError:
            pass


def _run_audits(cases: list, budget: str, seed: int, workers: int, progress, done: dict[str, CaseResult],
                on_result: Callable[[CaseResult], None], inherited_fds: tuple[int, ...] = (), backend: str = "numpy",
                device: str | None = None, sequential: bool = False) -> list[CaseResult]:
    """Every case's row, in suite order; ``done`` holds rows already computed (resume); ``inherited_fds``:
    descriptors worker processes must close (see :func:`_worker_init`)."""
    results: dict[str, CaseResult] = dict(done)
    for case_id, row in done.items():
        progress.advance(case_id, f"{row.verdict} (from the checkpoint)")
    jobs = [CaseJob(c.id, budget, seed, backend, device, sequential) for c in cases if c.id not in done]

    def finish(res: dict) -> None:
        row = _case_row(res)
        results[row.case] = row
        on_result(row)
        progress.advance(row.case, row.verdict)

    if workers > 1 and len(jobs) > 1:
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        # Forked workers inherit the run's lock and checkpoint descriptors: they close them first, so that the lock
        # dies with this process (a resume must see a killed run as interrupted even while a worker finishes).
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init, initargs=(tuple(inherited_fds),))

        def stop_workers() -> None:
            for proc in list((getattr(pool, "_processes", None) or {}).values()):
                proc.terminate()

        on_interrupt(cleanup=stop_workers)
        try:
            futures = {pool.submit(_run_case_job, j): j[0] for j in jobs}
            pending = set(futures)
            while pending:
                progress.set_running([futures[f] for f in pending if f.running()])
                finished, pending = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
                for fut in finished:
                    finish(fut.result())
        except BaseException:
            workers_alive = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in workers_alive:  # do not wait for the running audits to finish
                proc.terminate()
            raise
        pool.shutdown()
    else:
        for job in jobs:
            progress.start_item(job[0])
            finish(_run_case_job(job, progress.chunk_callback(job[0])))
    return [results[c.id] for c in cases]


# -- running on a Dask cluster ---------------------------------------------------------------------------------------

#: How often a task that raised is run again on the cluster (worker deaths are handled by the scheduler itself).
RETRIES = 2


def _paper_rows(paper: str, ids: list[str]) -> list[dict]:
    """On a worker: the rows of the theorems ``ids`` of ``paper``, in that order, as JSON (read back with
    ``TheoremRow.from_dict`` where they arrive)."""
    from dpverify.theorems import registry

    by_id = {t.id: t for t in registry.all_theorems(paper)}
    return [_theorem_row(by_id[i]).to_dict() for i in ids]


def _run_on_cluster(client: Any, thms: list, cases: list, budget: str, seed: int, done: dict[str, dict],
                    save: Callable[[dict], None], backend: str = "numpy", device: str | None = None,
                    resources: dict | None = None,
                    sequential: bool = False) -> tuple[list[TheoremRow], list[CaseResult]]:
    """(theorem rows, audit results) computed as tasks on the cluster of ``client``: one task per paper's theorems and
    one per audit case, each result saved and shown as it completes; ``done`` holds what the checkpoint has. An audit
    case runs whole on its worker, on ``backend``/``device`` there (a GPU worker's own GPU with ``device="cuda"``),
    and only on workers with the Dask ``resources`` when given (the theorem checks run anywhere)."""
    import uuid

    from distributed import as_completed

    from dpverify.interfaces.cli.progress import Progress

    if resources is not None and cases:
        from dpverify.audit.distributed import require_resources
        from dpverify.validation import UsageError

        try:
            require_resources(client, resources)
        except ValueError as exc:
            raise UsageError(f"--dask-resources: {exc}") from None
    from dpverify.interfaces.presentation import TheoremRow

    token = uuid.uuid4().hex[:12]
    rows: dict[str, TheoremRow] = dict(done["theorem"])
    results: dict[str, CaseResult] = dict(done["audit"])
    papers: dict[str, list[str]] = {}
    for thm in thms:
        if thm.id not in rows:
            papers.setdefault(thm.paper, []).append(thm.id)
    futures = {}
    for paper, ids in papers.items():
        fut = client.submit(_paper_rows, paper, ids, key=f"dpverify-theorems-{paper}-{token}", pure=False,
                            retries=RETRIES)
        futures[fut] = ("theorems", paper)
    for case in cases:
        if case.id not in results:
            fut = client.submit(_run_case_job, CaseJob(case.id, budget, seed, backend, device, sequential),
                                key=f"dpverify-audit-{case.id}-{token}", pure=False, retries=RETRIES,
                                resources=resources)
            futures[fut] = ("audit", case.id)
    with Progress(len(thms) + len(cases), "tasks") as progress:
        for ident in rows:
            progress.advance(ident, "ok (from the checkpoint)")
        for ident, res in results.items():
            progress.advance(ident, f"{res.verdict} (from the checkpoint)")
        progress.set_running([ident for _, ident in futures.values()])
        for fut in as_completed(list(futures)):
            kind, ident = futures.pop(fut)
            value = fut.result()
            fut.release()
            if kind == "theorems":
                for theorem in map(TheoremRow.from_dict, value):
                    rows[theorem.id] = theorem
                    save({"type": "theorem", "id": theorem.id, "row": theorem.to_dict()})
                    progress.advance(theorem.id, "ok" if theorem.passed else "FAILED")
            else:
                results[ident] = _case_row(value)
                save({"type": "audit", "case": ident, "result": value})
                progress.advance(ident, results[ident].verdict)
            progress.set_running([i for _, i in futures.values()])
    return [rows[t.id] for t in thms], [results[c.id] for c in cases]


def check_scheduler(scheduler: str | None, workers: int | None) -> None:
    """``--scheduler``/``--workers`` checked before any work, each problem a :class:`~dpverify.validation.UsageError`
    (exit status 2) naming the option: Dask not installed, an empty or malformed address, ``--workers`` with an
    address, an address where no Dask scheduler answers (nothing listens, or a server that is not a scheduler:
    :func:`~dpverify.audit.distributed.probe_scheduler` gives up after Dask's connect timeout and a 10 s handshake
    limit, where a bare ``distributed.Client`` would wait for ever). Nothing to check without ``--scheduler``."""
    from dpverify.validation import UsageError, describe_value

    if scheduler is None:
        return
    try:
        from dpverify.audit.distributed import check_scheduler_address, probe_scheduler, require_distributed

        require_distributed()
    except ImportError as err:
        raise UsageError(f"--scheduler: {err}") from None
    if not scheduler.strip():
        raise UsageError("--scheduler must be 'local' or a scheduler address such as tcp://host:8786; got ''")
    if scheduler == "local":
        return
    if workers is not None:
        raise UsageError(f"--workers is the cluster's own with --scheduler {scheduler}; give --workers only with "
                         "--scheduler local")
    try:
        address = check_scheduler_address(scheduler)
    except ValueError as exc:
        raise UsageError(f"--{exc}") from None
    try:
        probe_scheduler(address)
    except OSError as exc:
        raise UsageError(f"--scheduler {describe_value(scheduler)}: {exc}") from None


@contextmanager
def cluster_for(scheduler: str, workers: int | None, *, checked: bool = False) -> Iterator[Any]:
    """A Dask client for ``--scheduler``/``--workers`` (``connect`` of :mod:`dpverify.audit.distributed`), after
    :func:`check_scheduler` (unless ``checked``: the command did it before its work). ``--workers`` above the
    machine's CPUs is reduced to them (:func:`~dpverify.interfaces.cli.arguments.cap_workers`, a warning). With
    ``local``, Ctrl-C (which exits at once, :func:`dpverify.interfaces.cli.on_interrupt`) also kills the local
    cluster's worker processes."""
    if not checked:
        check_scheduler(scheduler, workers)
    from dpverify.audit.distributed import connect

    if scheduler == "local":
        workers = arguments.cap_workers(workers)
    with connect(scheduler, workers if scheduler == "local" else None, probe=False) as client:
        if scheduler == "local":
            on_interrupt(cleanup=_kill_children)
        n = len(client.scheduler_info(n_workers=-1)["workers"])
        print(f"on the Dask cluster at {client.scheduler.address} ({n} workers)", file=sys.stderr, flush=True)
        yield client


def _kill_children() -> None:
    """Kill this process's child processes: with ``--scheduler local``, the local cluster's workers (also those that
    were restarted during the run)."""
    import psutil  # a dependency of distributed

    for child in psutil.Process().children(recursive=True):
        try:
            child.kill()
        except psutil.Error:
            pass


# -- printing -----------------------------------------------------------------------------------------------------

def _print_theorems(theorem_rows: list[TheoremRow], width: int | None = None) -> None:
    from dpverify.interfaces.cli.output import wrap

    n_checks = sum(len(r.checks) for r in theorem_rows)
    failed = [r for r in theorem_rows if r.status == "failed"]
    print(f"\nTheorem checks: {len(theorem_rows)} theorems, {n_checks} checks, "
          f"{len(theorem_rows) - len(failed)} theorems passed, {len(failed)} failed")
    proofs = [r.proof for r in theorem_rows if r.proof]
    if proofs:
        print(wrap(_proof_summary(proofs), width))
    for r in failed:
        print(wrap(f"FAILED {r.id}: {', '.join(_failed_parts(r))}", width, indent="  ", subsequent="    "))


def _proof_summary(proofs: list[dict]) -> str:
    """One line on the proofs of a run: how they were obtained, the count of each outcome, how many are not as
    expected and how many certificates did not re-check."""
    counts: dict[str, int] = {}
    for p in proofs:
        counts[p["outcome"]] = counts.get(p["outcome"], 0) + 1
    tally = ", ".join(f"{counts[k]} {k}" for k in ("proved", "refuted", "undecided", "not provable") if k in counts)
    how = ("proved afresh" if any(p.get("fresh") for p in proofs)
           else "shipped certificates re-checked by the independent checker")
    unexpected = sum(p["outcome"] != p["expected"] for p in proofs)
    invalid = sum(p.get("certificates_valid") is False for p in proofs)
    return (f"Proofs over whole domains (dpverify prove; {how}): {len(proofs)} privacy statements: {tally}"
            f"; {unexpected} not as expected" + (f"; {invalid} with an INVALID certificate" if invalid else ""))


def _failed_parts(row: TheoremRow) -> list[str]:
    """The names of a failed theorem's failed checks, and its proof when that is what failed."""
    names = row.failed_checks
    proof = row.proof or {}
    if proof and proof.get("outcome") != proof.get("expected"):
        names.append(f"proof {proof.get('outcome')} (expected {proof.get('expected')})")
    elif proof and proof.get("certificates_valid") is False:
        names.append("proof certificate invalid")
    return names


def print_audits(audits: list[CaseResult], *, explain: bool = True, width: int | None = None) -> None:
    """The audit table, the accountant methods, loose claims, reasons and errors; with ``explain`` also the legend
    of the columns. Prose lines wrap to ``width`` (None: no limit)."""
    from dpverify.interfaces.presentation import accountant_marks, audit_view, split_known_bad

    marks = accountant_marks(audit_view(r) for r in audits)
    regular, known_bad = split_known_bad(audits)
    if regular:
        print()
        _say("Audits (a correct sampler and a sound auditor give claimed >= accountant >= exact >= certified; each "
             "audit tests the tightest of them known for its pair):", width, "")
        print(_audit_table(regular, marks, width))
    if known_bad:
        _print_known_bad(known_bad, marks, width)
    print()
    _print_legend(marks, explain, width)
    _print_audit_notes(regular, width)


def _say(text: str, width: int | None, indent: str = "  ") -> None:
    from dpverify.interfaces.cli.output import wrap

    print(wrap(text, width, indent=indent, subsequent=indent + "  "))


def _audit_table(results: list[CaseResult], marks: dict, width: int | None) -> str:
    """One row per audit: its name (and release), the :data:`AUDIT_HEADERS` cells, samples and seconds."""
    from dpverify.interfaces.cli.output import format_table
    from dpverify.interfaces.presentation import AUDIT_HEADERS, audit_cells, audit_view, samples_text

    rows = []
    for res in results:
        a = audit_view(res)
        name = res.case + (f" ({res.release})" if res.release else "")
        if a is None:
            rows.append([name] + ["-"] * (len(AUDIT_HEADERS) - 1) + ["error", "-", f"{res.seconds:.1f}"])
        else:
            rows.append([name] + audit_cells(a, marks) + [samples_text(a), f"{res.seconds:.1f}"])
    return format_table(["audit", *AUDIT_HEADERS, "samples", "time [s]"], rows, width=width,
                        above=("audit", "samples", "time [s]"))


def _print_known_bad(known_bad: list[CaseResult], marks: dict, width: int | None) -> None:
    """The known-bad implementations' table, how many were flagged, and each one that was not."""
    flagged = sum(r.passed for r in known_bad)
    print()
    _say(f"Known-bad implementations (each declares a correct mechanism and must be flagged as a violation): "
         f"{flagged}/{len(known_bad)} flagged", width, "")
    print(_audit_table(known_bad, marks, width))
    for res in known_bad:
        if not res.passed:
            reason = res.audit.verdict_reason if res.audit is not None else ""
            _say(f"NOT FLAGGED {res.case}: {reason or res.error}", width)


def _print_legend(marks: dict, explain: bool, width: int | None) -> None:
    """What each column means (with ``explain``; else a pointer to ``--explain``) and the accountant methods."""
    from dpverify.interfaces.presentation import legend_lines

    lines = legend_lines(marks)
    for line in (lines if explain else lines[len(legend_lines({})):]):
        _say(line, width)
    if not explain:
        _say("(--explain: what each column means)", width)


def _print_audit_notes(audits: list[CaseResult], width: int | None) -> None:
    """Loose claims, why each audit that is not consistent is not, and the errors."""
    from dpverify.interfaces.presentation import audit_view, loose_claim_notes

    views = [(r.case, v) for r in audits if (v := audit_view(r)) is not None]
    notes = [n for case, a in views for n in loose_claim_notes(case, a)]
    if notes:
        print("\nLoose claims (no audit of this pair can contradict them):")
        for n in notes:
            _say(n, width)
    why = [(case, a) for case, a in views if a.verdict != "consistent"]
    if why:
        print("\nWhy not consistent:")
        for case, a in why:
            _say(f"{case} ({a.verdict}): {a.verdict_reason or '-'}", width)
    for res in audits:
        if res.error:
            _say(f"ERROR {res.case}: {res.error}", width)


# -- the command --------------------------------------------------------------------------------------------------

#: The header keys a resumed run must share with the interrupted one.
RESUME_KEYS = ("settings", "version")


def _start_run(args, settings: dict) -> tuple[Any, Any, dict[str, dict[str, Any]]]:
    """With ``--report DIR``: the run directory prepared (before any work, so a bad path costs nothing), the run
    started or resumed, and the theorem rows and audit rows it already holds (``done``, read back typed from the
    checkpoint); else ``(None, None, empty done)``."""
    done: dict[str, dict[str, Any]] = {"theorem": {}, "audit": {}}
    if not args.report:
        return None, None, done
    from dpverify.interfaces.files import RunDirectory
    from dpverify.interfaces.presentation import TheoremRow

    report_dir = RunDirectory(args.report).prepare(args.overwrite)
    run = report_dir.start({"settings": settings, "version": __version__}, resume=args.resume, match=RESUME_KEYS)
    for rec in run.records:  # the checkpoint's records: plain data, tagged by their "type"
        if rec.get("type") == "theorem":
            done["theorem"][rec["id"]] = TheoremRow.from_dict(rec["row"])
        elif rec.get("type") == "audit":
            done["audit"][rec["case"]] = _case_row(rec["result"])
    if args.resume:
        print(f"resuming run {run.run_id}: {len(done['theorem'])} theorems and {len(done['audit'])} audits "
              "already done" if run.resumed else "nothing to resume: starting a new run", file=sys.stderr)
    return run, report_dir, done


def _print_summary(theorem_rows: list[TheoremRow], audits: list[CaseResult], width: int | None,
                   seconds: float) -> bool:
    """The closing PASS/FAIL line (the same status the report's headline shows); True if the run failed."""
    from dpverify.interfaces.cli.output import wrap
    from dpverify.interfaces.presentation import known_bad_summary, run_status, split_known_bad

    status = run_status(theorem_rows, audits)
    counts = status.counts
    regular, known_bad = split_known_bad(audits)
    parts = []
    if theorem_rows:
        parts.append(f"{len(theorem_rows) - status.theorems_failed}/{len(theorem_rows)} theorems passed")
    if regular:
        parts.append(f"audits: {counts['consistent']} consistent, {counts['inconclusive']} inconclusive at this "
                     f"budget, {counts['violation']} violations, {counts['error']} errors")
    if known_bad:
        parts.append(known_bad_summary(known_bad))
    print()
    print(wrap(f"{'FAIL' if status.failed else 'PASS'}: {'; '.join(parts)} ({seconds:.0f} s)", width))
    return status.failed


def _run(args) -> int:
    from dpverify.interfaces.cli.output import output_width
    from dpverify.interfaces.cli.progress import Progress

    _check_run_options(args)
    thms, cases = select(args.only, args.paper, theorems=not args.no_theorems, audits=not args.no_audits)
    # the backend and device asked for (--backend/--device; a case without a device path still runs on numpy, and its
    # row says so): part of the settings a --resume must match, since the numbers are reproducible per backend only
    settings = {"budget": args.budget, "seed": args.seed, "only": args.only, "paper": args.paper,
                "theorems": not args.no_theorems, "audits": not args.no_audits, "backend": args.backend,
                "device": args.device or "cpu", "sequential": args.sequential}

    run, report_dir, done = _start_run(args, settings)
    if run is not None:
        on_interrupt(hint=lambda: (f"{sum(r.get('type') in ('theorem', 'audit') for r in run.records)} completed "
                                   f"results are saved in {args.report}; run the same command with --resume to "
                                   "continue"))
    print(f"verify: {len(thms)} theorems, {len(cases)} audits (budget {args.budget}"
          f"{', sequential' if args.sequential else ''}, seed {args.seed})",
          file=sys.stderr, flush=True)

    def save(record: dict) -> None:
        if run is not None:
            run.append(record)

    start = time.perf_counter()
    # Ctrl-C exits at once (dpverify.interfaces.cli._on_sigint): what is saved so far is what a resume starts from.
    theorem_rows: list[TheoremRow] = []
    audits: list[CaseResult] = []
    workers = 1 if args.workers is None else args.workers
    if args.scheduler is not None:
        with cluster_for(args.scheduler, args.workers, checked=True) as client:
            theorem_rows, audits = _run_on_cluster(client, thms, cases, args.budget, args.seed, done, save,
                                                   args.backend, args.device, args.dask_resources,
                                                   sequential=args.sequential)
    else:
        capped = arguments.cap_workers(workers)  # local processes (a local cluster's are capped by cluster_for)
        workers = workers if capped is None else capped
        theorem_rows = _check_theorems(thms, args, done, save)
        if cases:
            with Progress(len(cases), "audits") as progress:
                audits = _run_audits(cases, args.budget, args.seed, workers, progress, done["audit"],
                                     lambda row: save({"type": "audit", "case": row.case, "result": row.to_dict()}),
                                     inherited_fds=run.descriptors() if run is not None else (),
                                     backend=args.backend, device=args.device, sequential=args.sequential)

    width = output_width(args.wide)
    if theorem_rows:
        _print_theorems(theorem_rows, width)
    if audits:
        print_audits(audits, explain=args.explain, width=width)
    failed = _print_summary(theorem_rows, audits, width, time.perf_counter() - start)
    if run is not None:
        _publish(args, run, report_dir, theorem_rows, audits,
                 {**settings, "workers": workers, "scheduler": args.scheduler, "dask_resources": args.dask_resources})
    return 1 if failed else 0


def _check_run_options(args) -> None:
    """The options that need another (--resume and --overwrite need --report), the backend and the scheduler:
    checked before any work."""
    from dpverify.validation import UsageError

    if args.resume and not args.report:
        raise UsageError("--resume needs --report DIR: the checkpoint of the interrupted run lives there")
    if args.overwrite and not args.report:
        raise UsageError("--overwrite needs --report DIR: it lets a report replace files in DIR")
    arguments.check_backend_arguments(args)
    check_scheduler(args.scheduler, args.workers)


def _check_theorems(thms: list, args, done: dict, save: Callable[[dict], None]) -> list[TheoremRow]:
    """Each theorem's row (checks and proof), from the checkpoint of an interrupted run where it is there."""
    from dpverify.interfaces.cli.progress import Progress

    rows: list[TheoremRow] = []
    if not thms:
        return rows
    with Progress(len(thms), "theorems") as progress:
        for thm in thms:
            row = done["theorem"].get(thm.id)
            if row is None:
                progress.start_item(thm.id)
                row = _theorem_row(thm, args.prove_seconds if args.prove else None)
                save({"type": "theorem", "id": thm.id, "row": row.to_dict()})
            rows.append(row)
            progress.advance(thm.id, "ok" if row.passed else "FAILED")
    return rows


def _publish(args, run, report_dir, theorem_rows: list[TheoremRow], audits: list[CaseResult],
             settings: dict) -> None:
    """report.json and report.html of the run, with the bound curves of the papers whose theorems were checked."""
    from dpverify.interfaces.report import write_report

    papers = sorted({r.paper for r in theorem_rows})
    paths = write_report(args.report, theorem_rows, audits, settings=settings, run=run, report_dir=report_dir,
                         paper_figures=papers)
    print(f"report (run {run.run_id}): " + ", ".join(str(p) for p in paths), file=sys.stderr)
