"""Sampler benchmark: outputs per second for a batch of chains vs a plain per-chain Python loop.

For every sampler, "batch" runs ``sample(dataset, n_batch, rng)`` once (all chains at once, loop over time steps
only); "loop" calls ``sample(dataset, 1, rng)`` once per output -- the same algorithm, one chain at a time, as a
plain per-chain implementation would. The ratio is the point. Privacy parameters do not affect the timings; the
samplers are built with ``unguaranteed=True`` where a configuration is chosen for speed rather than privacy.

Targets (2 cores): conjugate OPS (``ops_beta_bernoulli``) >= 10^6 draws/s; DP-SGLD on logistic regression
(d = 10, N = 1,000, tau = 32, 1,000 steps) for 10,000 chains in under 30 s.

A second table, "audit scale" (issue 11, section 5), times what an audit of a path release costs: 10^6 chains (one
side of a pair) of a small model (d <= 10, N = 100, T <= 100 steps), run as the auditor runs them, in chunks of
2^17 chains (its memory budget for paths). Target: under 60 s per row on 2 cores. Each row runs in a fresh
subprocess so that its peak resident memory (``resource.getrusage``, ``ru_maxrss``) is its own; "base MB" is the
subprocess's resident memory after imports, before the first chunk. "cpu s" is the subprocess's CPU time: with
``--blas-threads 1`` it is single-threaded, so on a machine loaded by other work the CPU time is the better estimate
of the wall time on an idle core (the "<60s" verdict is on wall time). "sys s" and "faults" (minor page faults) show
the kernel's share: every first touch of freshly mapped memory (large temporaries, the path array) is a page fault.

Usage: ``python benchmarks/samplers.py [--quick] [--only ID ...] [--blas-threads K] [--table loop|audit|both]
[--workers W]``. ``--workers 2`` splits each audit-scale row's chains between two processes run at once (the chunks
are independent, so an auditor can do the same on 2 cores).
``--quick``: batches 10x smaller, and 10^5 chains per audit-scale row (the 10^6 time is then extrapolated, marked
"~"). On a shared, loaded machine OpenBLAS's threads can make small matrix products 10-100x slower;
``--blas-threads 1`` (threadpoolctl) avoids it.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

from dpverify.models.logistic import LogisticRegression, make_logistic_dataset
from dpverify.models.targets import GaussianTarget


def _gaussian_data(N: int, d: int, rng) -> np.ndarray:
    x = rng.standard_normal((N, d))
    return x / np.maximum(1.0, np.linalg.norm(x, axis=1, keepdims=True))


def cases(quick: bool):
    """(sampler id, sampler, dataset, n_batch, n_loop, what one output is)."""
    rng = np.random.default_rng(0)
    d, N, tau = 10, 1000, 32
    logistic = LogisticRegression(d, R=1.0)
    bounded = LogisticRegression(d, R=1.0, theta_radius=5.0)
    X = make_logistic_dataset(N, d, rng)
    gauss = GaussianTarget(d, R=1.0)
    G = _gaussian_data(N, d, rng)
    s = 10 if quick else 1
    out = []
    try:
        from dpverify.samplers.ops import OPSBetaBernoulli
    except ImportError:
        print("# ops_beta_bernoulli not available: conjugate OPS row skipped")
    else:
        bern = (rng.random(1000) < 0.3).astype(int)
        out.append(("ops_beta_bernoulli", OPSBetaBernoulli(a0=0.05, epsilon=1.0), bern, 1_000_000 // s, 2000 // s, "draw"))
    from dpverify.samplers.hybrid import HybridOPSSGLD
    from dpverify.samplers.ops_mcmc import OPSMCMCLogistic
    from dpverify.samplers.sgfs import DPSGFS
    from dpverify.samplers.sghmc import DPSGHMC
    from dpverify.samplers.sgld import DPSGLDLi, DPSGLDWang
    from dpverify.samplers.sgnht import DPSGNHT
    from dpverify.samplers.ula import NoisySGDFinal, NoisySGDPath, ULAFinal, ULAPath

    common = dict(N=N, tau=tau, epsilon=1.0, delta=1e-5, unguaranteed=True)
    out += [
        ("dp_sgld_wang", DPSGLDWang(logistic, T=32, step_size=1e-4, **common), X, 10_000 // s, 3, "1000-step run"),
        ("dp_sgld_li", DPSGLDLi(logistic, T=1000, step_size=1e-2, **common), X, 2000 // s, 3, "1000-step run"),
        ("dp_sghmc", DPSGHMC(logistic, T=32, h=5e-8, A=1.0, **common), X, 2000 // s, 3, "1000-step run"),
        ("dp_sgnht", DPSGNHT(logistic, T=32, eta=5e-8, a=1.0, **common), X, 2000 // s, 3, "1000-step run"),
        ("dp_sgfs", DPSGFS(logistic, T=3.2, step_size=1e-3, **common), X, 1000 // s, 3, "100-step run"),
        ("ops_mcmc_logistic", OPSMCMCLogistic(bounded, N, epsilon=1.0, n_steps=500), X, 1000 // s, 3, "500-step MALA run"),
        ("hybrid_ops_sgld", HybridOPSSGLD(bounded, T=32, step_size=1e-6, ops_steps=300, **common), X, 1000 // s, 2,
         "300 MALA + 1000 SGLD steps"),
        ("ula_final", ULAFinal(gauss, N, step_size=1e-3, n_steps=1000), G, 10_000 // s, 5, "1000-step run"),
        ("ula_path", ULAPath(gauss, N, step_size=1e-3, n_steps=1000), G, 2000 // s, 5, "1000-step path"),
        ("noisy_sgd_final", NoisySGDFinal(gauss, N, batch_size=tau, step_size=1e-2, n_steps=1000, beta=N), G,
         10_000 // s, 5, "1000-step run"),
        ("noisy_sgd_path", NoisySGDPath(gauss, N, batch_size=tau, step_size=1e-2, n_steps=1000, beta=N), G,
         2000 // s, 5, "1000-step path"),
    ]
    return out


# -- audit scale: 10^6 chains of a small model, in the auditor's chunks ----------------------------------------------

AUDIT_CHUNK = 2**17  # chains per sample() call: the auditor's memory budget for path releases


def audit_cases() -> dict:
    """Row label -> (sampler id, make() parameters without the model, model kind, d, N). DP-SGLD (Li et al. 2019,
    Alg. 1) as in the suite's ``dp_sgld_path`` case (Poisson q = 0.1 of N = 100, clip L = 1, R = 4), with the
    theorem's claim and ``unguaranteed=True`` so that no accountant runs; noisy SGD with fixed-size batches of 10."""
    rows = {}
    for d in (2, 10):
        for T in (50, 100):
            rows[f"dp_sgld_li path d={d} T={T}"] = (
                "dp_sgld_li", dict(N=100, tau=10, T=T, epsilon=1.0, delta=1e-3, step_size=0.01, L=1.0,
                                   release="path", claim="theorem", unguaranteed=True), "logistic", d, 100)
    rows["noisy_sgd_path d=10 T=100 b=10"] = (
        "noisy_sgd_path", dict(N=100, batch_size=10, step_size=1e-3, n_steps=100, beta=1.0, unguaranteed=True),
        "gaussian", 10, 100)
    return rows


def _audit_row(label: str, n_chains: int, chunk: int, seed: int = 0) -> dict:
    """Run one audit-scale row in this process: ``n_chains`` chains in chunks; seconds and peak memory."""
    from dpverify.samplers import registry

    sid, params, kind, d, N = audit_cases()[label]
    data_rng = np.random.default_rng(0)  # the same dataset in every worker
    if kind == "logistic":
        model = LogisticRegression(dim=d, R=4.0, prior_variance=100.0)
        data = make_logistic_dataset(N, d, data_rng, R=4.0)
    else:
        model = GaussianTarget(d, R=1.0)
        data = _gaussian_data(N, d, data_rng)
    sampler = registry.make(sid, model=model, **params)
    rng = np.random.default_rng(np.random.SeedSequence(1).spawn(seed + 1)[seed])  # independent stream per worker
    usage = resource.getrusage(resource.RUSAGE_SELF)
    t0, start, cpu_start = time.time(), time.perf_counter(), time.process_time()
    done = 0
    while done < n_chains:
        m = min(chunk, n_chains - done)
        out = sampler.sample(data, m, rng)
        del out
        done += m
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    end = resource.getrusage(resource.RUSAGE_SELF)
    return {"label": label, "chains": n_chains, "steps": sampler.n_steps, "seconds": elapsed, "cpu_seconds": cpu,
            "t_start": t0, "t_end": t0 + elapsed,
            "sys_seconds": end.ru_stime - usage.ru_stime, "page_faults": end.ru_minflt - usage.ru_minflt,
            "base_mb": usage.ru_maxrss / 1024, "peak_mb": end.ru_maxrss / 1024,
            "path_mb": min(chunk, n_chains) * (sampler.n_steps + 1) * d * 8 / 2**20}


def audit_table(quick: bool, only, blas_threads, workers: int = 1) -> None:
    """One line per audit-scale row. With ``workers`` > 1 the chains are split evenly between that many
    subprocesses started together (each with its own random stream, chunks of 2^17): "wall s" runs from the first
    worker's first chunk to the last worker's end (imports excluded, as for one worker), "cpu s", "sys s" and "faults" are summed, "peak MB" is the largest worker's (all are resident
    at once, so the machine needs about ``workers`` times that)."""
    n = 10**5 if quick else 10**6
    header = (f"{'audit-scale row':<32} {'chains':>8} {'workers':>7} {'wall s':>7} {'cpu s':>7} {'chains/s':>9} "
              f"{'s per 1e6':>9} {'cpu/1e6':>8} {'sys s':>6} {'faults':>8} {'<60s':>5} {'chunk':>7} {'path MB':>8} "
              f"{'base MB':>8} {'peak MB':>8}")
    print(header)
    print("-" * len(header))
    for label in audit_cases():
        if only and not any(o in label for o in only):
            continue
        procs = []
        for w in range(workers):
            share = n // workers + (1 if w < n % workers else 0)
            cmd = [sys.executable, __file__, "--audit-row", label, "--chains", str(share), "--seed", str(w)]
            if blas_threads is not None:
                cmd += ["--blas-threads", str(blas_threads)]
            procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True))
        results = []
        for proc in procs:
            stdout, _ = proc.communicate()
            if proc.returncode:
                raise RuntimeError(f"audit row {label!r} failed in a worker (exit {proc.returncode})")
            results.append(json.loads(stdout.strip().splitlines()[-1]))
        wall = max(r["t_end"] for r in results) - min(r["t_start"] for r in results)
        cpu = sum(r["cpu_seconds"] for r in results)
        sys_s = sum(r["sys_seconds"] for r in results)
        faults = sum(r["page_faults"] for r in results)
        r0 = results[0]
        per_million, cpu_million = wall * 1e6 / n, cpu * 1e6 / n
        mark = "" if n >= 10**6 else "~"
        print(f"{label:<32} {n:>8} {workers:>7} {wall:>7.1f} {cpu:>7.1f} {n / wall:>9.0f} "
              f"{mark + format(per_million, '.1f'):>9} {mark + format(cpu_million, '.1f'):>8} {sys_s:>6.1f} "
              f"{faults:>8} {'yes' if per_million < 60 else 'NO':>5} {AUDIT_CHUNK:>7} {r0['path_mb']:>8.0f} "
              f"{r0['base_mb']:>8.0f} {max(r['peak_mb'] for r in results):>8.0f}", flush=True)


def _rate(sampler, data, n: int, per_chain: bool, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    if per_chain:
        for _ in range(n):
            sampler.sample(data, 1, rng)
    else:
        sampler.sample(data, n, rng)
    elapsed = time.perf_counter() - start
    return n / elapsed, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="batches 10x smaller (a smoke run)")
    parser.add_argument("--only", nargs="+", default=None,
                        help="sampler IDs to run (audit-scale rows: substrings of the row label)")
    parser.add_argument("--blas-threads", type=int, default=None, help="limit BLAS threads (needs threadpoolctl)")
    parser.add_argument("--table", choices=("loop", "audit", "both"), default="both",
                        help="batch-vs-loop table, audit-scale table (10^6 chains in chunks), or both")
    parser.add_argument("--workers", type=int, default=1,
                        help="audit-scale rows: split the chains between this many processes run together")
    parser.add_argument("--audit-row", default=None, help=argparse.SUPPRESS)  # internal: one row in a subprocess
    parser.add_argument("--chains", type=int, default=10**6, help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.blas_threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads)
    if args.audit_row is not None:
        print(json.dumps(_audit_row(args.audit_row, args.chains, AUDIT_CHUNK, args.seed)))
        return
    if args.table in ("audit", "both"):
        audit_table(args.quick, args.only, args.blas_threads, args.workers)
        if args.table == "audit":
            return
        print()
    header = f"{'sampler':<20} {'output':<28} {'batch n':>8} {'batch s':>8} {'batch out/s':>12} {'loop out/s':>11} {'ratio':>8}"
    print(header)
    print("-" * len(header))
    for sid, sampler, data, n_batch, n_loop, what in cases(args.quick):
        if args.only and sid not in args.only:
            continue
        batch_rate, batch_s = _rate(sampler, data, n_batch, False, 1)
        loop_rate, _ = _rate(sampler, data, n_loop, True, 2)
        print(f"{sid:<20} {what:<28} {n_batch:>8} {batch_s:>8.2f} {batch_rate:>12.4g} {loop_rate:>11.4g} "
              f"{batch_rate / loop_rate:>8.1f}", flush=True)


if __name__ == "__main__":
    main()
