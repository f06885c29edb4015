"""Auditor throughput: certified epsilon, ratio to exact, wall time and peak memory at 10^7 and 10^8 samples per side,
with one and two worker processes (issue 12, section 3).

Rows: the 1-d and discrete cases of the standard suite (:mod:`dpverify.audit.standard_suite`: Laplace at epsilon 0.1
and 1, NoisyHist1, ReportNoisyMax1 and 3, SVT1, each on DP-Sniper's witness pair). Every audit runs in a fresh Python
process, so its peak resident memory (``getrusage(RUSAGE_SELF).ru_maxrss``, and ``RUSAGE_CHILDREN`` for the largest
worker) is its own. Goal: each row at 10^8 per side in under 2 minutes on 2 cores, certifying >= 0.97 of the exact
pair epsilon (>= 0.9 on SVT1), with peak memory that does not grow from 10^7 to 10^8.

DP-Sniper (Bichsel, Steffen, Bogunovic & Vechev 2021, "DP-Sniper: black-box discovery of differential privacy
violations using classifiers", IEEE S&P 2021) for comparison: the reference results published with its code
(github.com/eth-sri/dp-sniper, ``eval_sp2021/reference-results/dd_search_reg_data.log``, logistic-regression
classifier, epsilon claims 0.1, confidence 0.9, n_final = 2 x 10^8 samples for the final estimate): ``eps_lcb`` and
wall time ``time_dd_search + time_final_estimate_eps`` per mechanism. Their time covers the search over the pattern
generator's input pairs and the classifier training besides the final estimate, on the machine and process count of
their evaluation (not stated in the log), so the comparison at equal wall time is indicative only. Their ratio is
``eps_lcb`` over this suite's exact pair epsilon (their witness pairs are the suite's).

Usage: ``python benchmarks/throughput.py [--sizes 1e7 1e8] [--workers 1 2] [--cases ...] [--seed 0]
[--jsonl out.jsonl]``; ``--one CASE SAMPLES WORKERS`` runs one audit and prints its row as JSON (used internally).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

CASES = ("laplace_0.1", "laplace_1", "noisy_hist1", "report_noisy_max1", "report_noisy_max3", "svt1")

#: DP-Sniper reference results (module docstring): case -> (eps_lcb, wall time [s] = DD-Search + final estimate).
DPSNIPER = {
    "laplace_0.1": (0.09680373477842874, 19.55496844649315 + 1.8509732857346535),
    "noisy_hist1": (0.09779357853762427, 34.75485044717789 + 2.9087690636515617),
    "report_noisy_max1": (0.09225381318933756, 58.822325728833675 + 2.994782604277134),
    "report_noisy_max3": (0.24781576679261352, 59.35574780404568 + 3.038853108882904),
    "svt1": (0.08579843744077742, 117.96760918945074 + 8.012471832334995),
}


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def run_one(name: str, samples: int, workers: int, seed: int) -> dict:
    """One audit of a standard case; its numbers, wall time and peak memory (this process and its workers)."""
    from dpverify.audit import audit
    from dpverify.audit.standard_suite import get

    case = get(name)
    cpu0 = _cpu_seconds()
    start = time.perf_counter()
    r = audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
              samples=samples, seed=seed, workers=workers, exact_epsilon=case.epsilon_exact)
    wall = time.perf_counter() - start
    return {
        "case": name, "samples": samples, "workers": workers, "seed": seed, "test": r.test,
        "epsilon_lower": r.epsilon_lower, "epsilon_exact": case.epsilon_exact,
        "ratio": r.epsilon_lower / case.epsilon_exact if case.epsilon_exact else None, "verdict": r.verdict,
        "wall_time": wall,
        # CPU seconds of this process and its (joined) workers during the audit: the work done, which contention
        # from other processes does not inflate as much as the wall time
        "cpu_time": _cpu_seconds() - cpu0,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
        "peak_worker_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0,
    }


def dpsniper_columns(row: dict) -> str:
    ref = DPSNIPER.get(row["case"])
    if ref is None:
        return f"{'-':>8s} {'-':>8s}"
    return f"{ref[0] / row['epsilon_exact']:8.3f} {ref[1]:8.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e7, 1e8])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--cases", nargs="+", default=list(CASES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jsonl", default="", help="append every row as JSON to this file")
    parser.add_argument("--one", nargs=3, metavar=("CASE", "SAMPLES", "WORKERS"))
    parser.add_argument("--table", nargs="+", metavar="JSONL", help="only print the table of rows saved by --jsonl")
    args = parser.parse_args()
    if args.one:
        name, samples, workers = args.one
        print(json.dumps(run_one(name, int(float(samples)), int(workers), args.seed)))
        return
    if args.table:
        saved = [json.loads(line) for path in args.table for line in open(path) if line.strip()]
        order = {name: i for i, name in enumerate(CASES)}
        saved.sort(key=lambda r: (order.get(r["case"], len(order)), r["samples"], r["workers"]))
        print_header()
        for row in saved:
            print_row(row)
        print_equal_time(sorted({r["case"] for r in saved}, key=lambda c: order.get(c, len(order))), saved)
        return
    print_header()
    rows = []
    for name in args.cases:
        for n in args.sizes:
            for w in args.workers:
                out = subprocess.run([sys.executable, os.path.abspath(__file__), "--seed", str(args.seed), "--one",
                                      name, str(int(n)), str(w)], capture_output=True, text=True, check=False)
                if out.returncode != 0:
                    print(f"{name:18s} {int(n):9.0e} {w:2d} failed: {out.stderr.strip().splitlines()[-1:]}", flush=True)
                    continue
                row = json.loads(out.stdout.strip().splitlines()[-1])
                rows.append(row)
                if args.jsonl:
                    with open(args.jsonl, "a") as fh:
                        fh.write(json.dumps(row) + "\n")
                print_row(row)
    print_equal_time(args.cases, rows)


def print_header() -> None:
    print(f"{'case':18s} {'samples':>9s} {'w':>2s} {'test':>16s} {'certified':>9s} {'exact':>7s} {'ratio':>6s} "
          f"{'wall[s]':>8s} {'cpu[s]':>7s} {'RSS[MB]':>8s} {'wRSS[MB]':>8s} | {'DPS ratio':>8s} {'DPS[s]':>8s}")


def print_row(row: dict) -> None:
    cpu = row.get("cpu_time")
    print(f"{row['case']:18s} {int(row['samples']):9.0e} {row['workers']:2d} {row['test']:>16s} "
          f"{row['epsilon_lower']:9.4f} {row['epsilon_exact']:7.4f} {row['ratio']:6.3f} {row['wall_time']:8.1f} "
          f"{'-' if cpu is None else format(cpu, '.1f'):>7s} {row['peak_rss_mb']:8.0f} {row['peak_worker_rss_mb']:8.0f} | "
          f"{dpsniper_columns(row)}", flush=True)


def print_equal_time(cases: list, rows: list) -> None:
    # Equal wall time: our best ratio among the runs that took no longer than DP-Sniper's published time.
    print("\nAt DP-Sniper's wall time (our best ratio among runs no slower than its time; indicative, see docstring):")
    for name in cases:
        ref = DPSNIPER.get(name)
        mine = [r for r in rows if r["case"] == name]
        if ref is None or not mine:
            continue
        within = [r for r in mine if r["wall_time"] <= ref[1]]
        best = max(within, key=lambda r: r["ratio"]) if within else None
        ours = (f"{best['ratio']:.3f} ({best['samples']:.0e}/side, {best['workers']} worker(s), "
                f"{best['wall_time']:.1f} s)") if best else "none of our runs finished within that time"
        print(f"  {name:18s} DP-Sniper {ref[0] / mine[0]['epsilon_exact']:.3f} in {ref[1]:.1f} s; ours {ours}")


if __name__ == "__main__":
    main()
