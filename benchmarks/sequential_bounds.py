"""Why dpverify's sequential audits spend alpha over doubling rounds: the certified epsilon of one event under three
anytime-valid constructions, measured (issue 38, docs/sequential.md).

An event has rate ``p_hi`` on one side and ``p_lo`` on the other (true epsilon ``log(p_hi / p_lo)``). With a budget of
``N`` outputs per side and alpha = 0.05, the certificate ``log(L_hi / U_lo)`` needs a lower bound on ``p_hi`` and an
upper bound on ``p_lo``, each at alpha / 2, from:

- **fixed**: the fixed audit -- Clopper-Pearson on the ``0.8 N`` estimation outputs (not anytime-valid; the
  reference);
- **rounds** (dpverify): doubling rounds, each a fixed audit on fresh outputs at its share ``alpha b_r / N``
  (:mod:`dpverify.audit.sequential`); the bound at the end is the last round's (``0.8 b_last`` outputs, Clopper-Pearson
  at ``alpha b_last / (2 N)``);
- **betting**: one selection, then the ``0.8 N`` estimation outputs looked at one by one with the hedged betting
  confidence sequence of Waudby-Smith and Ramdas (2023, JRSS-B, "Estimating means of bounded random variables by
  betting"; one-sided, predictable plug-in bets ``lambda_t = min(sqrt(2 log(2/alpha') / (sigma_{t-1}^2 t log(t+1))),
  1/2 / m)``; valid at every single output);
- **mixture**: the same outputs with the beta-binomial (Jeffreys prior) conjugate-mixture confidence sequence
  (Robbins 1970; Howard et al. 2021, Ann. Statist.), two-sided at alpha / 2 per rate.

Columns: the final certified epsilon of each (median of ``--reps`` simulated runs for betting), and, for a claim
below the truth, the outputs per side each needs before it certifies above the claim (for rounds: the cumulative
outputs of the rounds run, each with its own selection; for betting and mixture the one selection part, 0.2 N, plus
the estimation outputs looked at before the crossing). ``confseq`` (the maintained package of these
confidence sequences) was tried first: version 0.0.11 is source-only and needs the Boost headers, which do not install
from the package registries, so the two constructions are written out here (a benchmark, not a dependency).

Usage: ``PYTHONPATH=. python3 benchmarks/sequential_bounds.py [--reps 5]`` (about a minute on 2 cores).
"""
from __future__ import annotations

import argparse
import math
import statistics

import numpy as np
from scipy.special import betaln

from dpverify.audit.bounds import clopper_pearson_lower, clopper_pearson_upper
from dpverify.audit.sequential import RoundSchedule

ALPHA = 0.05
SELECTION = 0.2


def fixed_bound(n: int, p_hi: float, p_lo: float, alpha: float) -> float:
    """The fixed audit's certificate at the expected counts of ``n`` estimation outputs."""
    lower = float(clopper_pearson_lower(p_hi * n, n, alpha / 2))
    upper = float(clopper_pearson_upper(p_lo * n, n, alpha / 2))
    return max(0.0, math.log(lower / upper)) if lower > 0 else 0.0


def rounds_run(budget: int, p_hi: float, p_lo: float, claim: float) -> tuple[float, int | None]:
    """(the last round's certificate, outputs per side drawn until a round certifies above ``claim``)."""
    schedule = RoundSchedule.make(budget, ALPHA)
    used, first = 0, None
    last = 0.0
    for size, share in zip(schedule.sizes, schedule.alphas):
        used += size
        last = fixed_bound(size - math.ceil(SELECTION * size), p_hi, p_lo, share)
        if first is None and last > claim:
            first = used
    return last, first


def betting_lower(x: np.ndarray, alpha: float, grid: np.ndarray) -> np.ndarray:
    """The running one-sided lower confidence sequence for the mean of the 0/1 sequence ``x`` (hedged capital with
    predictable plug-in bets, Waudby-Smith and Ramdas 2023, Sec. 5): for each t, the largest grid point m with
    capital K_t(m) >= 1/alpha (K decreasing in m), running maximum."""
    t = np.arange(1, x.size + 1)
    mean = (np.cumsum(x) + 0.5) / (t + 1)
    var = (np.cumsum((x - mean) ** 2) + 0.25) / (t + 1)
    prev_var = np.concatenate([[0.25], var[:-1]])
    lam = np.sqrt(2 * math.log(1 / alpha) / (prev_var * t * np.log(t + 1.0)))
    log_capital = np.zeros((grid.size, x.size))
    for i, m in enumerate(grid):
        bet = np.minimum(lam, 0.5 / m)
        log_capital[i] = np.cumsum(np.log1p(bet * (x - m)))
    ok = log_capital >= math.log(1 / alpha)
    # the largest m whose capital crossed 1/alpha, per t (capital is decreasing in m on the grid)
    idx = np.where(ok.any(axis=0), grid.size - 1 - np.argmax(ok[::-1], axis=0), -1)
    lower = np.where(idx >= 0, grid[np.maximum(idx, 0)], 0.0)
    return np.maximum.accumulate(lower)


def mixture_bounds(k: float, n: int, alpha: float) -> tuple[float, float]:
    """The beta-binomial (Jeffreys) conjugate-mixture confidence sequence at ``k`` of ``n``: the interval of p with
    ``log M_n(p) = log B(k + 1/2, n - k + 1/2) - log B(1/2, 1/2) - k log p - (n - k) log(1 - p) < log(1/alpha)``."""
    grid = np.linspace(1e-6, 1 - 1e-6, 200_001)
    log_m = betaln(k + 0.5, n - k + 0.5) - betaln(0.5, 0.5) - k * np.log(grid) - (n - k) * np.log1p(-grid)
    inside = grid[log_m < math.log(1 / alpha)]
    return float(inside.min()), float(inside.max())


def betting_run(budget: int, p_hi: float, p_lo: float, claim: float, seed: int) -> tuple[float, int | None]:
    n = budget - math.ceil(SELECTION * budget)
    rng = np.random.default_rng(seed)
    hi = (rng.random(n) < p_hi).astype(float)
    lo = (rng.random(n) < p_lo).astype(float)
    grid = np.linspace(1e-4, 1 - 1e-4, 400)
    lower = betting_lower(hi, ALPHA / 2, grid)
    upper = 1 - betting_lower(1 - lo, ALPHA / 2, grid)
    eps = np.log(np.maximum(lower, 1e-300) / upper)
    eps = np.where(lower > 0, np.maximum(eps, 0), 0)
    crossed = np.nonzero(eps > claim)[0]
    first = None if crossed.size == 0 else int(crossed[0]) + 1 + math.ceil(SELECTION * budget)
    return float(eps[-1]), first


def mixture_run(budget: int, p_hi: float, p_lo: float, claim: float) -> tuple[float, int | None]:
    n = budget - math.ceil(SELECTION * budget)

    def bound(m: int) -> float:
        lower = mixture_bounds(p_hi * m, m, ALPHA / 2)[0]
        upper = mixture_bounds(p_lo * m, m, ALPHA / 2)[1]
        return max(0.0, math.log(lower / upper))

    first = None
    for m in np.unique(np.geomspace(50, n, 40).astype(int)):
        if bound(int(m)) > claim:
            first = int(m) + math.ceil(SELECTION * budget)
            break
    return bound(n), first


CASES = [  # (p_hi, p_lo, claim): the true epsilon is log(p_hi / p_lo)
    (0.5, 0.05, 1.0), (0.3, 0.1, 0.5), (0.9, 0.3, 0.5), (0.05, 0.005, 1.0), (0.5, 0.25, 0.6)]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--budget", type=int, default=200_000)
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args()
    print(f"budget {args.budget} per side, alpha {ALPHA}; certified epsilon at the end, and outputs per side until "
          "the certificate exceeds the claim")
    head = ("p_hi", "p_lo", "true eps", "claim", "fixed", "rounds", "betting", "mixture", "n rounds", "n betting",
            "n mixture")
    print("  ".join(f"{h:>9}" for h in head))
    for p_hi, p_lo, claim in CASES:
        n_est = args.budget - math.ceil(SELECTION * args.budget)
        fixed = fixed_bound(n_est, p_hi, p_lo, ALPHA)
        rounds, n_rounds = rounds_run(args.budget, p_hi, p_lo, claim)
        bets = [betting_run(args.budget, p_hi, p_lo, claim, seed) for seed in range(args.reps)]
        betting = statistics.median(b[0] for b in bets)
        firsts = [b[1] for b in bets if b[1] is not None]
        n_bet = statistics.median(firsts) if firsts else None
        mixture, n_mix = mixture_run(args.budget, p_hi, p_lo, claim)
        sel = math.ceil(SELECTION * args.budget)
        after = lambda v: None if v is None else f"{sel}+{int(v) - sel}"  # noqa: E731 (selection + looks)
        row = (p_hi, p_lo, math.log(p_hi / p_lo), claim, fixed, rounds, betting, mixture, n_rounds, after(n_bet),
               after(n_mix))
        print("  ".join(f"{v:>9.4g}" if isinstance(v, float) else f"{str(v):>12}" for v in row))


if __name__ == "__main__":
    main()
