"""What parallel audits cost in CPU seconds, against one process and against the machine's own contention (issue 22,
section 4: "parallel and Dask CPU within 1.1x of one process for the same audit").

A parallel audit does the same work as ``audit(workers=1)``: the same chunks, the same counts, the same certificate
(the rows print it). Its CPU seconds can exceed one process's for two different reasons:

- **dpverify's overhead**: starting workers, shipping the work function, per-task scheduling and result transfer,
  the Dask client's and workers' event loops, memory the workers fault in again for every chunk;
- **the machine's contention**: K processes working at once share the last-level cache and the memory bandwidth (and
  on most servers run at a lower clock), so each does the same arithmetic in more CPU seconds. No scheduler removes
  it.

To tell them apart, each case is also run as **K independent processes**: K ``audit(workers=1)`` of ``samples / K``
outputs each (seeds 0..K-1), started at once, with nothing shared between them. Their summed CPU is what the
machine charges for this amount of work done K at a time. Columns, per case and mode:

- ``CPU / one``: CPU seconds over ``audit(workers=1)`` alone: the issue's ratio, machine effects included;
- ``CPU / indep.``: CPU seconds over the K independent processes: dpverify's own overhead (1.00 = none);
- ``efficiency``: the wall time of one process over K times this row's (the scaling efficiency; 1 = perfect);
- ``eff. / machine``: that efficiency divided by what the machine alone allows, ``CPU one / CPU indep.`` (the same
  arithmetic done K at a time costs ``CPU indep. / CPU one`` times more CPU seconds: clock, cache and memory shared):
  the scaling dpverify achieves on this machine (1 = nothing lost but what K independent processes lose too).

Modes: ``one`` (``audit(workers=1)``), ``pool K`` (``audit(workers=K)``, forked worker processes,
:mod:`dpverify.audit.parallel`), ``dask K`` (``audit(client=...)`` on :func:`dpverify.audit.distributed.local_cluster`
of K single-threaded workers; CPU of client and workers; the cluster started, and dpverify imported on its
workers, before the clock), ``indep. K``. Every
row runs in a fresh Python process. CPU seconds are user + system time (``getrusage``; for Dask the workers'
own, asked of them). Other load on the machine inflates wall time more than CPU time; run it on an idle machine.

Cases: a standard-suite case (``laplace_1``, ``svt1``, ...) or a sampler case of ``dpverify verify`` (``dp_sgld_path``:
its chains are large, so its chunks are small and the selection part is drawn by the workers too).

Usage: ``python benchmarks/parallel_cost.py [--cases laplace_1 svt1] [--samples 1e8 1e7] [--workers 2]
[--modes one pool dask indep] [--seed 0]``; ``--one CASE SAMPLES MODE K SEED`` runs one row and prints it as JSON
(used internally).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

# This folder holds distributed.py, which would shadow Dask's package for ``import distributed``.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

MODES = ("one", "pool", "dask", "indep")


def _cpu_seconds(children: bool = True) -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    total = own.ru_utime + own.ru_stime
    if children:
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        total += kids.ru_utime + kids.ru_stime
    return total


def _own_cpu() -> float:
    """This process's CPU seconds (run on a Dask worker)."""
    return _cpu_seconds(children=False)


def _import_dpverify() -> None:
    import dpverify.audit  # noqa: F401 - run on a worker, so that the audit's first task does not import it

    
def _case(name: str) -> tuple:
    """``(mechanism, dataset, neighbour, audit keyword arguments)`` of a standard-suite case (``laplace_1``, ``svt1``,
    ...) or of a sampler case of ``dpverify verify`` (``dp_sgld_path``, ...: its declared claim and test)."""
    from dpverify.audit.standard_suite import get, names

    if name in names():
        case = get(name)
        return case.mechanism, case.dataset, case.neighbour, dict(epsilon=case.epsilon_claimed, delta=case.delta)
    from dpverify.interfaces.suite import get_case

    sampler_case = get_case(name)
    sampler = sampler_case.build()
    return (sampler, sampler_case.dataset(), sampler_case.neighbour(),
            dict(claim=sampler.guarantee(), test=sampler_case.test))


def run_one(case_name: str, samples: int, mode: str, k: int, seed: int) -> dict:
    """One audit of a standard-suite case in this process: ``one``, ``pool`` (k workers) or ``dask`` (k workers)."""
    from dpverify.audit import audit

    mechanism, dataset, neighbour, kwargs = _case(case_name)
    kwargs.update(samples=samples, seed=seed)
    if mode == "dask":
        from dpverify.audit.distributed import local_cluster

        with local_cluster(k) as client:
            # a long-lived cluster has imported dpverify once per worker (about 1 s of CPU each): do it before the clock
            client.run(_import_dpverify)
            before = client.run(_own_cpu)
            cpu0, start = _cpu_seconds(), time.perf_counter()
            r = audit(mechanism, dataset, neighbour, client=client, **kwargs)
            wall, cpu = time.perf_counter() - start, _cpu_seconds() - cpu0
            cpu += sum(t - before[a] for a, t in client.run(_own_cpu).items())
    else:
        cpu0, start = _cpu_seconds(), time.perf_counter()
        r = audit(mechanism, dataset, neighbour, workers=k if mode == "pool" else 1, **kwargs)
        wall, cpu = time.perf_counter() - start, _cpu_seconds() - cpu0
    return {"case": case_name, "samples": samples, "mode": mode, "k": k, "seed": seed, "wall": wall, "cpu": cpu,
            "epsilon_lower": r.epsilon_lower}


def _command(case: str, samples: int, mode: str, k: int, seed: int) -> list[str]:
    return [sys.executable, os.path.abspath(__file__), "--one", case, str(samples), mode, str(k), str(seed)]


def _parse(out: subprocess.CompletedProcess) -> dict:
    if out.returncode != 0:
        raise RuntimeError(f"row failed: {out.stderr.strip().splitlines()[-3:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_row(case: str, samples: int, mode: str, k: int, seed: int) -> dict:
    """One row in fresh processes; ``indep`` starts ``k`` audits of ``samples // k`` at once and sums their CPU."""
    if mode != "indep":
        return _parse(subprocess.run(_command(case, samples, mode, k, seed), capture_output=True, text=True,
                                     check=False))
    start = time.perf_counter()
    procs = [subprocess.Popen(_command(case, samples // k, "one", 1, seed + i), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(k)]
    rows = []
    for p in procs:
        stdout, stderr = p.communicate()
        rows.append(_parse(subprocess.CompletedProcess(p.args, p.returncode, stdout, stderr)))
    return {"case": case, "samples": samples, "mode": mode, "k": k, "seed": seed,
            "wall": time.perf_counter() - start, "cpu": sum(r["cpu"] for r in rows), "epsilon_lower": None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", default=["laplace_1", "svt1"])
    parser.add_argument("--samples", type=float, nargs="+", default=[1e8, 1e7],
                        help="samples per side, one per case (the last repeats)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one", nargs=5, metavar=("CASE", "SAMPLES", "MODE", "K", "SEED"))
    args = parser.parse_args()
    if args.one:
        case, samples, mode, k, seed = args.one
        print(json.dumps(run_one(case, int(float(samples)), mode, int(k), int(seed))))
        return
    k = args.workers
    print(f"{os.cpu_count()} cores; K = {k}; CPU = user + system seconds of every process of the audit")
    print(f"{'case':<18s} {'samples':>8s} {'mode':<9s} {'certified':>9s} {'wall [s]':>8s} {'CPU [s]':>8s} "
          f"{'CPU / one':>9s} {'CPU / indep.':>12s} {'efficiency':>10s} {'eff. / machine':>14s}")
    for i, case in enumerate(args.cases):
        samples = int(args.samples[min(i, len(args.samples) - 1)])
        rows = {m: run_row(case, samples, m, 1 if m == "one" else k, args.seed) for m in args.modes}
        for m, row in rows.items():
            one = rows["one"]["cpu"] if "one" in rows else None
            indep = rows["indep"]["cpu"] if "indep" in rows else None
            label = m if m == "one" else f"{m} {k}"
            certified = "-" if row["epsilon_lower"] is None else f"{row['epsilon_lower']:.4f}"
            r_one = "-" if one is None else f"{row['cpu'] / one:.2f}"
            r_ind = "-" if indep is None or m == "one" else f"{row['cpu'] / indep:.2f}"
            scaling = None if "one" not in rows or m in ("one", "indep") else rows["one"]["wall"] / (k * row["wall"])
            eff = "-" if scaling is None else f"{scaling:.2f}"
            machine = "-" if scaling is None or one is None or indep is None else f"{scaling * indep / one:.2f}"
            print(f"{case:<18s} {samples:8.0e} {label:<9s} {certified:>9s} {row['wall']:8.1f} {row['cpu']:8.1f} "
                  f"{r_one:>9s} {r_ind:>12s} {eff:>10s} {machine:>14s}", flush=True)


if __name__ == "__main__":
    main()
