"""``dpverify verify``: the main job -- check every theorem, run every audit, print the verdicts.

With no arguments it runs on its embedded default: every theorem of the catalogue
(:mod:`dpverify.theorems.registry`) and every case of the audit suite (:mod:`dpverify.suite`) at the
quick budget. Exit status 0 only if every theorem check passes and no audit reports a violation or
an error.
"""
from __future__ import annotations

import argparse
import sys
import time


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="check every theorem and run every audit (the main job)")
    p.add_argument("--budget", choices=("quick", "standard", "thorough"), default="quick",
                   help="samples per audit: quick (20k per side), standard (200k), thorough (2M)")
    p.add_argument("--only", metavar="PATTERN", default=None,
                   help="only theorems / audit cases whose ID matches this glob or contains it")
    p.add_argument("--workers", type=int, default=1, metavar="N", help="local worker processes for the audits")
    p.add_argument("--seed", type=int, default=0, help="root seed of every audit")
    p.add_argument("--report", metavar="DIR", default=None, help="write report.json and report.html to DIR")
    p.add_argument("--no-theorems", action="store_true", help="skip the theorem checks")
    p.add_argument("--no-audits", action="store_true", help="skip the audits")
    p.set_defaults(func=_run)


def _theorem_rows(pattern, progress_cls):
    import fnmatch

    from dpverify.theorems import registry

    thms = [t for t in registry.all_theorems() if not pattern or fnmatch.fnmatch(t.id, pattern) or pattern in t.id]
    progress = progress_cls(len(thms), "theorems")
    rows = []
    for thm in thms:
        results = thm.run_checks()
        ok = all(r.passed for r in results)
        rows.append({"id": thm.id, "paper": thm.paper, "item": thm.source.item, "title": thm.title,
                     "reconstructed": thm.reconstructed, "status": "passed" if ok else "failed",
                     "checks": [r.to_dict() for r in results]})
        progress.advance(thm.id, "ok" if ok else "FAILED")
    return rows


def _run_case_job(job):
    from dpverify.suite import run_case

    case_id, budget, seed = job
    return run_case(case_id, budget=budget, seed=seed)


def _audit_results(pattern, budget, seed, workers, progress_cls):
    from dpverify.suite import select

    selected = select(pattern)
    progress = progress_cls(len(selected), "audits")
    jobs = [(c.id, budget, seed) for c in selected]
    results = []
    if workers > 1 and len(jobs) > 1:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_run_case_job, j): j for j in jobs}
            for fut in as_completed(futures):
                res = fut.result()
                results.append(res)
                progress.advance(res.case, res.verdict)
        order = {c.id: i for i, c in enumerate(selected)}
        results.sort(key=lambda r: order[r.case])
    else:
        for job in jobs:
            res = _run_case_job(job)
            results.append(res)
            progress.advance(res.case, res.verdict)
    return results


def _fmt(x) -> str:
    if x is None:
        return "-"
    return f"{x:.4g}"


def _run(args) -> int:
    from dpverify.cli._output import format_table
    from dpverify.cli._progress import Progress

    if args.workers < 1:
        raise ValueError(f"--workers must be an integer >= 1; got {args.workers}")
    start = time.perf_counter()
    theorem_rows = [] if args.no_theorems else _theorem_rows(args.only, Progress)
    audits = [] if args.no_audits else _audit_results(args.only, args.budget, args.seed, args.workers, Progress)

    if theorem_rows:
        n_checks = sum(len(r["checks"]) for r in theorem_rows)
        failed = [r for r in theorem_rows if r["status"] == "failed"]
        print(f"\nTheorem checks: {len(theorem_rows)} theorems, {n_checks} checks, "
              f"{len(theorem_rows) - len(failed)} theorems passed, {len(failed)} failed")
        for r in failed:
            names = [c["name"] for c in r["checks"] if not c["passed"]]
            print(f"  FAILED {r['id']}: {', '.join(names)}")
    if audits:
        print("\nAudits (claimed >= exact >= certified is what a correct sampler and a sound auditor give):")
        rows = []
        for res in audits:
            a = res.audit
            if a is None:
                rows.append([res.case, "-", "-", "-", "error", "-", f"{res.seconds:.1f}"])
            else:
                rows.append([res.case, _fmt(a.epsilon_claimed), _fmt(a.epsilon_exact), _fmt(a.epsilon_lower),
                             a.verdict, a.samples, f"{res.seconds:.1f}"])
        print(format_table(["audit", "claimed", "exact", "certified", "verdict", "samples", "time [s]"], rows))
        for res in audits:
            if res.error:
                print(f"  ERROR {res.case}: {res.error}")
    bad_theorems = sum(r["status"] == "failed" for r in theorem_rows)
    bad_audits = sum(r.verdict in ("violation", "error") for r in audits)
    inconclusive = sum(r.verdict == "inconclusive" for r in audits)
    elapsed = time.perf_counter() - start
    print(f"\n{'PASS' if not (bad_theorems or bad_audits) else 'FAIL'}: "
          f"{len(theorem_rows) - bad_theorems}/{len(theorem_rows)} theorems passed, "
          f"{len(audits) - bad_audits - inconclusive}/{len(audits)} audits consistent, "
          f"{inconclusive} inconclusive at this budget, {bad_audits} violations or errors ({elapsed:.0f} s)")
    if args.report:
        from dpverify.report import write_report

        paths = write_report(args.report, theorem_rows, audits, settings={
            "budget": args.budget, "seed": args.seed, "only": args.only, "workers": args.workers})
        print("report: " + ", ".join(str(p) for p in paths), file=sys.stderr)
    return 0 if not (bad_theorems or bad_audits) else 1
