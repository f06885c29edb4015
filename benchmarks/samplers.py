"""Sampler benchmark: outputs per second for a batch of chains vs a plain per-chain Python loop.

For every sampler, "batch" runs ``sample(dataset, n_batch, rng)`` once (all chains at once, loop over time steps
only); "loop" calls ``sample(dataset, 1, rng)`` once per output -- the same algorithm, one chain at a time, as a
plain per-chain implementation would. The ratio is the point. Privacy parameters do not affect the timings; the
samplers are built with ``unguaranteed=True`` where a configuration is chosen for speed rather than privacy.

Targets (2 cores): conjugate OPS (``ops_beta_bernoulli``) >= 10^6 draws/s; DP-SGLD on logistic regression
(d = 10, N = 1,000, tau = 32, 1,000 steps) for 10,000 chains in under 30 s.

Usage: ``python benchmarks/samplers.py [--quick] [--only ID ...] [--blas-threads K]``. On a shared, loaded machine
OpenBLAS's threads can make small matrix products 10-100x slower; ``--blas-threads 1`` (threadpoolctl) avoids it.
"""
from __future__ import annotations

import argparse
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
    parser.add_argument("--only", nargs="+", default=None, help="sampler IDs to run")
    parser.add_argument("--blas-threads", type=int, default=None, help="limit BLAS threads (needs threadpoolctl)")
    args = parser.parse_args()
    if args.blas_threads is not None:
        from threadpoolctl import threadpool_limits

        threadpool_limits(args.blas_threads)
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
