"""Benchmark: curve-level certification (mu_lower) against today's event bound, on the same samples (issue 22).

    python benchmarks/curve.py [--samples 100000] [--seeds 5] [--selection 0.2] [--confidence 0.95]

The scores are simulated directly (the statistic an auditor computes from each output): the Gaussian mechanism
N(mu, 1) vs N(0, 1), the Laplace mechanism Lap(eps, 1) vs Lap(0, 1), and 10 Poisson-subsampled Gaussian steps
(q = 0.2, mu = 1; the DP-SGD/DP-SGLD shape) scored by their exact log-likelihood ratio. ``--samples`` outputs per
side, of which the fraction ``--selection`` (the auditor's default 0.2) chooses the test and the rest certifies.

Columns (mean over the seeds, the minimum in brackets):

- ``true mu``: ``sup_a Phi^-1(1 - a) - Phi^-1(f(a))`` over the exact curve f, at the points where both error rates
  a and f(a) are >= 1e-6 (what 10^5 outputs can resolve at all): the smallest mu with the mechanism mu-GDP there. mu itself for the
  Gaussian, interior for the Laplace mechanism; for the subsampled steps (PLD curve) the supremum keeps growing in
  the far tails (1.17 over a >= 1e-8, 1.30 over a >= 1e-12). ``true eps``: the exact epsilon at delta = 1e-5;
- ``event eps``: today's certificate, :func:`dpverify.audit.bounds.epsilon_lower_bound` at delta = 1e-5 on the best
  threshold event (chosen on the selection part by :func:`dpverify.audit.statistics.best_thresholds`, counted on the
  estimation part with its orientation fixed);
- ``mu_lo``: :func:`dpverify.audit.curve.curve_audit` (no claim: the threshold maximising mu_lower);
- ``eps if Gaussian``: epsilon at delta = 1e-5 of mu_lo-GDP -- a lower bound ONLY IF the mechanism's curve is
  Gaussian (the Laplace rows show it exceeding the true epsilon: there it is no bound at all);
- ``s``: seconds of one curve certificate (selection and certification, scores in memory).

Target (issue 22): Gaussian mechanism at 10^5 samples per side, mu_lo >= 0.9 of the true mu.

A second table measures detection (the issue's "smallest noise reduction flagged in >= 95% of seeds", here on the
Gaussian mechanism): a mechanism N(mu, 1) vs N(0, 1) with mu = factor x 1 claims 1-GDP, i.e. (eps(1e-5), 1e-5) with
the epsilon of 1-GDP. Per factor, the fraction of ``--detection-seeds`` seeds in which the curve test refutes 1-GDP
and in which today's event bound at delta = 1e-5 exceeds the claimed epsilon.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.special import ndtri

from dpverify.audit.bounds import epsilon_lower_bound
from dpverify.audit.curve import curve_audit
from dpverify.audit.statistics import best_thresholds
from dpverify.calculus.accounting.pld import subsampled_gaussian_pld
from dpverify.calculus.tradeoff import GaussianDP, LaplaceDP
from dpverify.calculus.tradeoff_conversions import pld_curve
from dpverify.interfaces.cli.output import format_table

DELTA = 1e-5
GRID = np.concatenate([np.logspace(-6, -1, 2000), np.linspace(0.1, 0.9, 2000), 1 - np.logspace(-1, -6, 2000)])


def smallest_gdp_mu(curve) -> float:
    """sup over the grid of Phi^-1(1 - a) - Phi^-1(f(a)): the smallest mu with f >= G_mu there (DRS 2022,
    Def. 2.6)."""
    beta = curve(GRID)
    seen = beta >= GRID[0]
    return float(np.max(-ndtri(GRID[seen]) - ndtri(beta[seen])))


def _subsampled(rng: np.random.Generator, n: int, q: float = 0.2, mu: float = 1.0, steps: int = 10):
    x0 = rng.normal(size=(n, steps)) + mu * (rng.random((n, steps)) < q)
    x1 = rng.normal(size=(n, steps))

    def llr(x):
        return np.logaddexp(math.log1p(-q), math.log(q) + mu * x - mu * mu / 2).sum(axis=1)

    return llr(x0), llr(x1)


def cases():
    """(name, draw(rng, n) -> (s0, s1), true mu, true epsilon at DELTA)."""
    out = []
    for mu in (0.5, 1.0, 2.0):
        g = GaussianDP(mu)
        out.append((f"Gaussian mu={mu:g}", lambda rng, n, mu=mu: (rng.normal(mu, 1, n), rng.normal(0, 1, n)),
                    mu, g.epsilon(DELTA)))
    for eps in (1.0, 2.0):
        lap = LaplaceDP(eps)
        out.append((f"Laplace eps={eps:g}", lambda rng, n, eps=eps: (rng.laplace(eps, 1, n), rng.laplace(0, 1, n)),
                    smallest_gdp_mu(lap), lap.epsilon(DELTA)))
    pld = subsampled_gaussian_pld(0.2, 1.0, interval=1e-4).self_compose(10)
    out.append(("subsampled 10 x (q=0.2, mu=1)", _subsampled, smallest_gdp_mu(pld_curve(pld)),
                pld.epsilon_bounds(DELTA)[1]))
    return out


def event_bound(s0_sel, s1_sel, s0_est, s1_est, alpha: float) -> float:
    """Today's certificate on the same split: the best threshold event at DELTA, certified with fixed orientation."""
    event = best_thresholds(s0_sel, s1_sel, delta=DELTA, alpha=alpha)[0]
    k0 = int(np.count_nonzero(s0_est >= event.threshold))
    k1 = int(np.count_nonzero(s1_est >= event.threshold))
    return float(epsilon_lower_bound(k0, s0_est.size, k1, s1_est.size, delta=DELTA, alpha=alpha,
                                     orientation=event.orientation))


def detection_rows(samples: int, selection: float, alpha: float, seeds: int) -> list:
    """Per factor: curve refutations of 1-GDP, event-bound violations of (eps_1GDP(1e-5), 1e-5)."""
    claim = GaussianDP(1.0)
    eps_claimed = claim.epsilon(DELTA)
    m = int(round(selection * samples))
    rows = []
    for factor in (1.02, 1.03, 1.05, 1.1, 1.3, 1.6, 2.0):
        curve_hits = event_hits = 0
        for seed in range(seeds):
            rng = np.random.default_rng(seed)
            s0, s1 = rng.normal(factor, 1, samples), rng.normal(0, 1, samples)
            parts = (s0[:m], s1[:m], s0[m:], s1[m:])
            curve_hits += curve_audit(*parts, alpha=alpha, claim=claim).refuted
            event_hits += event_bound(*parts, alpha) > eps_claimed
        rows.append([f"{factor:g}", f"{curve_hits}/{seeds}", f"{event_hits}/{seeds}"])
    return rows


def _summary(values, digits: int = 3) -> str:
    return f"{np.mean(values):.{digits}f} [{np.min(values):.{digits}f}]"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100_000, help="outputs per side (selection + estimation)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--selection", type=float, default=0.2, help="fraction of the outputs used for selection")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--detection-seeds", type=int, default=20, help="seeds per factor of the detection table")
    args = parser.parse_args(argv)
    alpha = 1.0 - args.confidence
    m = int(round(args.selection * args.samples))
    rows = []
    for name, draw, true_mu, true_eps in cases():
        event, mus, implied, seconds = [], [], [], []
        for seed in range(args.seeds):
            s0, s1 = draw(np.random.default_rng(seed), args.samples)
            parts = (s0[:m], s1[:m], s0[m:], s1[m:])
            event.append(event_bound(*parts, alpha))
            start = time.perf_counter()
            cert = curve_audit(*parts, alpha=alpha)
            seconds.append(time.perf_counter() - start)
            mus.append(cert.mu_lower)
            implied.append(cert.epsilon_assuming_gaussian(DELTA))
        rows.append([name, f"{true_mu:.3f}", f"{true_eps:.3f}", _summary(event), f"{np.mean(event) / true_eps:.2f}",
                     _summary(mus), f"{np.mean(mus) / true_mu:.3f}", _summary(implied), f"{args.samples:,}",
                     f"{np.mean(seconds):.3f}"])
    print(f"Curve-level certificate vs event bound: {args.samples:,} outputs per side ({args.selection:g} selection), "
          f"confidence {args.confidence:g}, delta = {DELTA:g}, {args.seeds} seeds: mean [min]")
    print(format_table(["case", "true mu", "true eps", "event eps", "/ true", "mu_lo", "/ true mu",
                        "eps if Gaussian (assumes a Gaussian curve)", "samples/side", "s"], rows))
    print()
    print(f"Detection: N(factor, 1) vs N(0, 1) claiming 1-GDP = ({GaussianDP(1.0).epsilon(DELTA):.3f}, {DELTA:g}); "
          f"{args.samples:,} outputs per side")
    print(format_table(["mu / claimed mu", "curve test refutes 1-GDP", "event bound > claimed eps"],
                       detection_rows(args.samples, args.selection, alpha, args.detection_seeds)))


if __name__ == "__main__":
    main()
