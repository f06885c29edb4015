"""Auditor benchmark: certified epsilon lower bound vs exact pair epsilon, and wall time.

Mechanisms (pair: the worst case of each at sensitivity 1, or the stated conjugate pair):
- Laplace, epsilon = 1 (exact pair epsilon 1);
- Gaussian, analytic calibration (Balle & Wang 2018, Alg. 1) for epsilon = 1, delta = 1e-5
  (exact pair epsilon 1 at delta = 1e-5);
- conjugate OPS (team A's ``ops_beta_bernoulli``, Wang et al. 2015 Alg. 1, a0 = 0.05, target
  epsilon 1): ten 0s vs one record flipped; exact pair epsilon from the sampler (0.291).

Usage: ``python benchmarks/auditor.py [--sizes 1e5 1e6 1e7] [--test auto]``. Targets: ratio >= 0.9
for Laplace at 10^6; 10^7 Laplace samples per side audited in < 10 s on 2 cores.
"""
from __future__ import annotations

import argparse

import numpy as np

from dpverify.audit import audit
from dpverify.audit.known_bad import AdditiveNoise
from dpverify.calculus.mechanisms.gaussian import GaussianMechanism
from dpverify.calculus.mechanisms.laplace import LaplaceMechanism


def _scalar(d):
    return np.asarray(d, dtype=float).sum(axis=0)


def cases():
    out = [
        ("laplace eps=1", AdditiveNoise(_scalar, LaplaceMechanism(1.0, 1.0)), np.array([0.0]), np.array([1.0]), 1.0, 0.0),
        ("gaussian eps=1 delta=1e-5", AdditiveNoise(_scalar, GaussianMechanism.analytic(1.0, 1.0, 1e-5)),
         np.array([0.0]), np.array([1.0]), 1.0, 1e-5),
    ]
    try:
        from dpverify.samplers.ops import OPSBetaBernoulli
    except ImportError:
        print("# ops_beta_bernoulli not available: OPS row skipped")
    else:
        d0 = np.zeros(10, dtype=int)
        d1 = d0.copy()
        d1[0] = 1
        out.append(("ops beta-bernoulli a0=0.05", OPSBetaBernoulli(a0=0.05, epsilon=1.0), d0, d1, 1.0, 0.0))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e5, 1e6, 1e7])
    parser.add_argument("--test", default="auto")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'mechanism':28s} {'samples/side':>12s} {'test':>17s} {'eps_lower':>10s} {'eps_exact':>10s} {'ratio':>7s} {'time [s]':>9s}")
    for name, mech, d0, d1, eps, delta in cases():
        for n in args.sizes:
            r = audit(mech, d0, d1, epsilon=eps, delta=delta, samples=int(n), seed=args.seed, test=args.test)
            ratio = r.epsilon_lower / r.epsilon_exact if r.epsilon_exact else float("nan")
            print(f"{name:28s} {int(n):12d} {r.test:>17s} {r.epsilon_lower:10.4f} {r.epsilon_exact:10.4f} "
                  f"{ratio:7.3f} {r.wall_time:9.2f}", flush=True)


if __name__ == "__main__":
    main()
