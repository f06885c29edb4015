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

Usage: ``python benchmarks/samplers.py [--quick] [--only ID ...] [--blas-threads K] [--table loop|audit|both|closing]
[--workers W] [--backend numpy|torch] [--device cpu|cuda] [--chains N ...]``. ``--workers 2`` splits each audit-scale row's chains between two processes run at once (the chunks
are independent, so an auditor can do the same on 2 cores).
``--quick``: batches 10x smaller, and 10^5 chains per audit-scale row (the 10^6 time is then extrapolated, marked
"~"). On a shared, loaded machine OpenBLAS's threads can make small matrix products 10-100x slower;
``--blas-threads 1`` (threadpoolctl) avoids it.

Backends (issue 26, docs/gpu.md): ``--table audit --backend torch --device cuda [--chains N]`` runs the audit-scale
rows on a GPU (chunks follow the device's free memory; peak MB is ``torch.cuda.max_memory_allocated``).
``--table closing [--chains 1e6 1e7 1e8] [--rows numpy:cpu torch:cpu torch:cuda]`` prints the closing table: the whole
DP-SGLD path audit (sampling, white-box statistic, counting, bound; d = 10, N = 100, T = 100) per backend and device:
chains per side, wall seconds, peak memory, certified epsilon. CPU rows above ``--max-cpu-chains`` (1e6) are skipped.
On a GPU machine the whole table is one command, ``python benchmarks/samplers.py --preset gpu`` (:data:`GPU_PRESET`:
numpy and torch-CPU at 10^5 chains per side, torch-CUDA at 10^5 to 10^8); each row's backend and device are the ones
the audit recorded (``AuditResult.backend``/``device``).
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


def _audit_row(label: str, n_chains: int, chunk: int, seed: int = 0, backend: str = "numpy",
               device: str | None = None) -> dict:
    """Run one audit-scale row in this process: ``n_chains`` chains in chunks; seconds and peak memory. On the torch
    backend the chains run on ``device`` with the backend's generator (chunks follow the device's free memory) and
    the peak memory is the device's (``torch.cuda.max_memory_allocated``) on CUDA."""
    from dpverify.backends import get_backend
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
    seq = np.random.SeedSequence(1).spawn(seed + 1)[seed]  # independent stream per worker
    array_backend = get_backend(backend, device)
    if array_backend.name == "numpy":
        rng = np.random.default_rng(seq)
    else:
        rng = array_backend.generator(seq)
        if array_backend.device != "cpu":
            chunk = array_backend.chunk_size(sampler.output_bytes(), maximum=1 << 21)
        array_backend.reset_peak_memory()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    t0, start, cpu_start = time.time(), time.perf_counter(), time.process_time()
    done = 0
    while done < n_chains:
        m = min(chunk, n_chains - done)
        out = sampler.sample(data, m, rng)
        del out
        done += m
    array_backend.synchronize()
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu_start
    end = resource.getrusage(resource.RUSAGE_SELF)
    device_peak = array_backend.peak_memory()
    return {"label": label, "chains": n_chains, "steps": sampler.n_steps, "seconds": elapsed, "cpu_seconds": cpu,
            "t_start": t0, "t_end": t0 + elapsed,
            "sys_seconds": end.ru_stime - usage.ru_stime, "page_faults": end.ru_minflt - usage.ru_minflt,
            "base_mb": usage.ru_maxrss / 1024,
            "peak_mb": end.ru_maxrss / 1024 if device_peak is None else device_peak / 2**20, "chunk": chunk,
            "path_mb": min(chunk, n_chains) * (sampler.n_steps + 1) * d * 8 / 2**20}


def audit_table(quick: bool, only, blas_threads, workers: int = 1, chains: int | None = None,
                backend: str = "numpy", device: str | None = None) -> None:
    """One line per audit-scale row. With ``workers`` > 1 the chains are split evenly between that many
    subprocesses started together (each with its own random stream, chunks of 2^17): "wall s" runs from the first
    worker's first chunk to the last worker's end (imports excluded, as for one worker), "cpu s", "sys s" and "faults" are summed, "peak MB" is the largest worker's (all are resident
    at once, so the machine needs about ``workers`` times that)."""
    n = chains if chains is not None else (10**5 if quick else 10**6)
    print(f"# backend {backend}, device {device or 'cpu'}; peak MB: ru_maxrss on the CPU, "
          "torch.cuda.max_memory_allocated on CUDA", flush=True)
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
            cmd = [sys.executable, __file__, "--audit-row", label, "--chains", str(share), "--seed", str(w),
                   "--backend", backend] + ([] if device is None else ["--device", device])
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
              f"{faults:>8} {'yes' if per_million < 60 else 'NO':>5} {r0['chunk']:>7} {r0['path_mb']:>8.0f} "
              f"{r0['base_mb']:>8.0f} {max(r['peak_mb'] for r in results):>8.0f}", flush=True)


# -- closing table (issue 26): the whole DP-SGLD path audit on each backend ------------------------------------------

#: The audited run: DP-SGLD (Li et al. 2019, Alg. 1) released as a path, d = 10, N = 100, T = 100, on the logistic
#: gradient canary pair (the suite's dp_sgld_path case at d = 10, T = 100), claiming the PLD accountant's epsilon.
CLOSING_PARAMS = dict(N=100, tau=10, T=100, epsilon=None, delta=1e-3, step_size=0.444, L=1.0, release="path",
                      claim="accountant")
#: The fit and threshold budgets of the closing audits: the white-box statistic needs no fit, and 2^16 outputs per
#: side fix its candidate thresholds; everything else is drawn and counted chunk by chunk on the backend.
CLOSING_FIT_CAP, CLOSING_THRESHOLD_SAMPLE = 2**12, 2**16


def _closing_row(backend: str, device: str | None, chains: int, seed: int = 0) -> dict:
    """One closing-table row in this process: the whole audit (sampling, statistic, counting, bound) of
    ``chains`` outputs per side; wall seconds of ``audit()``, peak memory, certified epsilon."""
    from dpverify.audit import audit
    from dpverify.backends import get_backend
    from dpverify.models.canary import model_canary_pair
    from dpverify.samplers import registry

    model = LogisticRegression(10, R=4.0, prior_variance=100.0)
    X, Y = model_canary_pair(model, 100, kind="null")
    sampler = registry.make("dp_sgld_li", model=model, theta0=(-2.0,) + (0.0,) * 9, **CLOSING_PARAMS)
    claim = sampler.guarantee()  # the accountant's epsilon (PLD), computed before the clock starts
    sampler.pair_privacy_loss(X, Y)  # the pair's exact PLD, likewise (cached)
    array_backend = get_backend(backend, device)
    chunk = AUDIT_CHUNK if array_backend.device == "cpu" else None  # CUDA: the device's free memory decides
    array_backend.reset_peak_memory()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    result = audit(sampler, X, Y, claim=claim, samples=chains, seed=seed, test="likelihood_ratio",
                   chunk_size=chunk, fit_cap=CLOSING_FIT_CAP, threshold_sample=CLOSING_THRESHOLD_SAMPLE,
                   backend=backend, device=device,
                   progress=lambda done, total: print(f"#   {backend}:{device or 'cpu'} chunk {done}/{total}",
                                                      file=sys.stderr, flush=True))
    array_backend.synchronize()
    wall = time.perf_counter() - start
    end = resource.getrusage(resource.RUSAGE_SELF)
    device_peak = array_backend.peak_memory()
    # where the audit says it drew its chunks (AuditResult.backend/device), not what was asked: a row can't be mislabelled
    return {"backend": result.backend, "device": result.device, "chains": chains, "wall": wall,
            "peak_mb": end.ru_maxrss / 1024 if device_peak is None else device_peak / 2**20,
            "peak_kind": "ru_maxrss" if device_peak is None else "cuda max allocated",
            "base_mb": usage.ru_maxrss / 1024, "epsilon_lower": result.epsilon_lower,
            "epsilon_claimed": claim.epsilon, "exact": sampler.exact_epsilon(X, Y, claim.delta),
            "verdict": str(getattr(result.verdict, "value", result.verdict)),
            "chunk": chunk if chunk is not None else "device", "free_mb": array_backend.free_memory() / 2**20}


#: ``--preset gpu``: the closing table of docs/gpu.md in one command on a GPU machine -- numpy and torch-CPU at 10^5
#: chains per side (the CPU baselines), the GPU at 10^5 to 10^8.
GPU_PRESET = {"chains": [10**5, 10**6, 10**7, 10**8], "rows": ["numpy:cpu", "torch:cpu", "torch:cuda"],
              "max_cpu_chains": 10**5}


def closing_table(chains_list: list[int], rows: list[str], max_cpu_chains: int) -> None:
    """The closing table of issue 26: one line per (backend:device, chains per side), each row in a fresh
    subprocess (its own peak memory). CPU rows above ``max_cpu_chains`` are skipped (printed as such)."""
    print("# closing table: the whole DP-SGLD path audit (d = 10, N = 100, T = 100, Poisson q = 0.1, clip 1, "
          "canary pair, white-box statistic); wall = audit() incl. sampling, statistic, counting, bound", flush=True)
    header = (f"{'backend':<7} {'device':<7} {'chains/side':>12} {'wall s':>8} {'peak MB':>9} {'peak of':<18} "
              f"{'eps certified':>13} {'eps claimed':>11} {'verdict':<12} {'chunk':>7}")
    print(header)
    print("-" * len(header), flush=True)
    for chains in chains_list:
        for row in rows:
            backend, _, device = row.partition(":")
            device = device or "cpu"
            if device == "cpu" and chains > max_cpu_chains:
                print(f"{backend:<7} {device:<7} {chains:>12} {'skipped (> --max-cpu-chains)':>30}", flush=True)
                continue
            cmd = [sys.executable, __file__, "--closing-row", f"{backend}:{device}", "--chains", str(chains)]
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
            if proc.returncode:
                print(f"{backend:<7} {device:<7} {chains:>12} failed (exit {proc.returncode}; see stderr)", flush=True)
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            print(f"{r['backend']:<7} {r['device']:<7} {r['chains']:>12} {r['wall']:>8.1f} {r['peak_mb']:>9.0f} "
                  f"{r['peak_kind']:<18} {r['epsilon_lower']:>13.4f} {r['epsilon_claimed']:>11.4f} "
                  f"{r['verdict']:<12} {r['chunk']!s:>7}", flush=True)


def _default_rows() -> list[str]:
    rows = ["numpy:cpu", "torch:cpu"]
    try:
        import torch

        if torch.cuda.is_available():
            rows.append("torch:cuda")
    except ImportError:
        rows.remove("torch:cpu")
    return rows


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


def _set_torch_threads(backend: str, device: str | None) -> None:
    """torch on the CPU: one intra-op thread unless TORCH_THREADS says otherwise (on a loaded 2-core machine two
    threads spin and run 10x slower)."""
    if backend == "torch" and (device or "cpu") == "cpu":
        import os

        import torch

        torch.set_num_threads(int(os.environ.get("TORCH_THREADS", "1")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="batches 10x smaller (a smoke run)")
    parser.add_argument("--only", nargs="+", default=None,
                        help="sampler IDs to run (audit-scale rows: substrings of the row label)")
    parser.add_argument("--blas-threads", type=int, default=None, help="limit BLAS threads (needs threadpoolctl)")
    parser.add_argument("--table", choices=("loop", "audit", "both", "closing"), default="both",
                        help="batch-vs-loop table, audit-scale table (10^6 chains in chunks), both, or the closing "
                             "table of backends (the whole DP-SGLD path audit per backend and device)")
    parser.add_argument("--backend", choices=("numpy", "torch"), default="numpy",
                        help="audit-scale table: the array backend the chains run on")
    parser.add_argument("--device", default=None, help="audit-scale table with --backend torch: cpu, cuda, cuda:K")
    parser.add_argument("--rows", nargs="+", default=None,
                        help="closing table: backend:device rows (default: numpy:cpu torch:cpu, and torch:cuda "
                             "when CUDA is available)")
    parser.add_argument("--preset", choices=("gpu",), default=None,
                        help="closing table on a GPU machine in one command: --chains 1e5 1e6 1e7 1e8 --rows numpy:cpu "
                             "torch:cpu torch:cuda --max-cpu-chains 1e5 (CPU rows at 1e5 only; about 5 minutes on "
                             "one H200); explicit --chains/--rows/--max-cpu-chains override it")
    parser.add_argument("--max-cpu-chains", type=float, default=None,
                        help="closing table: skip CPU rows above this many chains per side (default 1e6)")
    parser.add_argument("--workers", type=int, default=1,
                        help="audit-scale rows: split the chains between this many processes run together")
    parser.add_argument("--audit-row", default=None, help=argparse.SUPPRESS)  # internal: one row in a subprocess
    parser.add_argument("--chains", type=float, nargs="+", default=None,
                        help="chains per side: audit-scale rows (default 1e6, 1e5 with --quick) or the closing "
                             "table (default 1e5; several values give several row groups, e.g. 1e6 1e7 1e8)")
    parser.add_argument("--closing-row", default=None, help=argparse.SUPPRESS)  # internal: one row in a subprocess
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.blas_threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads)
    chains = None if args.chains is None else [int(c) for c in args.chains]
    if args.audit_row is not None:
        print(json.dumps(_audit_row(args.audit_row, chains[0] if chains else 10**6, AUDIT_CHUNK, args.seed,
                                    args.backend, args.device)))
        return
    if args.closing_row is not None:
        backend, _, device = args.closing_row.partition(":")
        _set_torch_threads(backend, device)
        print(json.dumps(_closing_row(backend, device or None, chains[0] if chains else 10**5, args.seed)))
        return
    if args.preset is not None and args.table not in ("closing", "both"):
        parser.error(f"--preset {args.preset} is the closing table's; got --table {args.table}")
    if args.table == "closing" or args.preset is not None:
        preset = GPU_PRESET if args.preset == "gpu" else {}
        closing_table(chains or preset.get("chains") or [10**5], args.rows or preset.get("rows") or _default_rows(),
                      int(args.max_cpu_chains or preset.get("max_cpu_chains") or 1e6))
        return
    if args.table in ("audit", "both"):
        _set_torch_threads(args.backend, args.device)
        audit_table(args.quick, args.only, args.blas_threads, args.workers, chains[0] if chains else None,
                    args.backend, args.device)
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
