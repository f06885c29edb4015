"""Dask-distributed audits: throughput (samples/s) against the number of workers of a LocalCluster, and one large run
with the peak memory of the client and of every worker (issue 15).

Each row is one audit of a standard-suite case (:mod:`dpverify.audit.standard_suite`, default Laplace at epsilon 0.1
on DP-Sniper's witness pair) in a fresh Python process, so the client's peak resident memory
(Linux ``VmHWM``, :func:`_peak_rss_mb`) is its own: first without Dask (``audit(workers=1)``, the baseline), then with
``audit(client=...)`` on a LocalCluster of 1, 2, ... worker processes of one thread each (the cluster is started before
the clock starts and closed after it stops; each worker's peak RSS is read on the worker before the cluster closes).
Throughput is samples per side per second of wall time (both sides are drawn: twice as many mechanism outputs). The
CPU seconds of the client process (which also runs the scheduler and the nannies of a LocalCluster, and fits the
statistics on its held part) and of the workers during the audit show the work done, which other load on the machine
does not inflate as it does the wall time. The
numbers of every row must be equal (same seed): the table prints the certified epsilon to show it.

Usage: ``python benchmarks/distributed.py [--samples 1e8] [--workers 1 2] [--big 1e9] [--big-workers 2]
[--case laplace_0.1] [--seed 0]``; ``--big 0`` skips the large run; ``--one SAMPLES WORKERS`` runs one row and prints
it as JSON (used internally; WORKERS 0 = without Dask).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

# This file's name shadows the ``distributed`` package for ``python benchmarks/distributed.py`` (the script's folder is
# sys.path[0]): drop the folder, so that ``import distributed`` finds Dask's package.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]


def _peak_rss_mb() -> float:
    """Peak resident memory of this process's address space (Linux ``VmHWM``; ``ru_maxrss`` is kept across the fork
    and exec that start a worker, so a worker would report its parent's peak), else ``ru_maxrss``."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _cpu_seconds() -> float:
    """CPU time (user + system) of this process so far."""
    t = os.times()
    return t.user + t.system


def run_one(case_name: str, samples: int, workers: int, seed: int) -> dict:
    """One audit: without Dask (``workers == 0``) or on a LocalCluster of ``workers`` processes."""
    from dpverify.audit import audit
    from dpverify.audit.standard_suite import get

    case = get(case_name)
    kwargs = dict(epsilon=case.epsilon_claimed, delta=case.delta, samples=samples, seed=seed,
                  exact_epsilon=case.epsilon_exact)
    worker_rss: list[float] = []
    worker_cpu = 0.0
    if workers == 0:
        cpu0, start = _cpu_seconds(), time.perf_counter()
        r = audit(case.mechanism, case.dataset, case.neighbour, **kwargs)
        wall, cpu = time.perf_counter() - start, _cpu_seconds() - cpu0
    else:
        from dpverify.audit.distributed import local_cluster

        with local_cluster(workers) as client:
            before = client.run(_cpu_seconds)
            cpu0, start = _cpu_seconds(), time.perf_counter()
            r = audit(case.mechanism, case.dataset, case.neighbour, client=client, **kwargs)
            wall, cpu = time.perf_counter() - start, _cpu_seconds() - cpu0
            worker_cpu = sum(t - before[a] for a, t in client.run(_cpu_seconds).items())
            worker_rss = sorted(client.run(_peak_rss_mb).values())
    return {
        "case": case_name, "samples": samples, "workers": workers, "seed": seed, "epsilon_lower": r.epsilon_lower,
        "epsilon_exact": case.epsilon_exact, "verdict": r.verdict, "wall_time": wall,
        "samples_per_s": samples / wall, "client_cpu": cpu, "worker_cpu": worker_cpu,
        "client_rss_mb": _peak_rss_mb(), "worker_rss_mb": worker_rss,
    }


def run_row(case: str, samples: int, workers: int, seed: int) -> dict | None:
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--case", case, "--seed", str(seed), "--one",
                          str(samples), str(workers)], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f"{samples:9.0e} {workers} failed: {out.stderr.strip().splitlines()[-3:]}", flush=True)
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def print_header() -> None:
    print(f"{'samples/side':>12s} {'Dask workers':>12s} {'certified':>9s} {'wall [s]':>9s} {'samples/s':>11s} "
          f"{'speed-up':>8s} {'CPU client+workers [s]':>22s} {'client RSS [MB]':>15s} {'worker RSS [MB]':>16s}")


def print_row(row: dict, baseline: float | None) -> None:
    workers = "none" if row["workers"] == 0 else str(row["workers"])
    speed = "-" if baseline is None else f"{row['samples_per_s'] / baseline:.2f}"
    cpu = f"{row['client_cpu']:.1f} + {row['worker_cpu']:.1f}"
    wrss = ", ".join(f"{v:.0f}" for v in row["worker_rss_mb"]) or "-"
    print(f"{row['samples']:12.0e} {workers:>12s} {row['epsilon_lower']:9.4f} {row['wall_time']:9.1f} "
          f"{row['samples_per_s']:11.3e} {speed:>8s} {cpu:>22s} {row['client_rss_mb']:15.0f} {wrss:>16s}",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=float, default=1e8, help="samples per side of the throughput rows")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="LocalCluster sizes to compare")
    parser.add_argument("--big", type=float, default=1e9, help="samples per side of the large run (0: skip it)")
    parser.add_argument("--big-workers", type=int, default=2)
    parser.add_argument("--case", default="laplace_0.1")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one", nargs=2, metavar=("SAMPLES", "WORKERS"))
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.case, int(float(args.one[0])), int(args.one[1]), args.seed)))
        return
    print(f"case {args.case}, seed {args.seed}, {os.cpu_count()} cores; 'none' = audit(workers=1) without Dask")
    print_header()
    base = None
    for workers in [0, *args.workers]:
        row = run_row(args.case, int(args.samples), workers, args.seed)
        if row is None:
            continue
        if workers == 0:
            base = row["samples_per_s"]
        print_row(row, base)
    if args.big > 0:
        print(f"\nlarge run: {args.big:.0e} samples per side on {args.big_workers} Dask workers")
        print_header()
        row = run_row(args.case, int(args.big), args.big_workers, args.seed)
        if row is not None:
            print_row(row, base)


if __name__ == "__main__":
    main()
