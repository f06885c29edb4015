"""Exact privacy of two one-dimensional laws given by unnormalised log densities on a grid (the numeric checks of the
minami2016 and gopi2022 items on non-Gaussian Gibbs posteriors).

On a uniform grid fine and wide enough that both laws are negligible outside it, the hockey-stick divergence

    H_eps(P || Q) = int max(p - e^eps q, 0) = E_P[(1 - e^(eps - Lambda))_+],   Lambda = log p - log q,

is a weighted sum; both laws are normalised on the grid in log space (``logsumexp``), so a density of order e^-700
is handled. :func:`grid_epsilon` inverts it (bisection: ``H_eps`` decreases in eps) in both directions; the grid's
error is the quadrature error of a smooth integrand (second order in the spacing for the midpoint sums used here,
about 1e-9 relative at the grids of the checks, far below their tolerances).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

__all__ = ["normalise", "hockey_stick", "grid_epsilon", "tradeoff_from_grid", "uniform_grid"]


def normalise(log_density: np.ndarray) -> np.ndarray:
    """Log weights of a law on a uniform grid: ``log_density - logsumexp(log_density)`` (a grid of probabilities)."""
    lp = np.asarray(log_density, dtype=float)
    return lp - logsumexp(lp)


def hockey_stick(log_p: np.ndarray, log_q: np.ndarray, epsilon: float) -> float:
    """``H_eps(P || Q)`` of two laws given by log weights on the same grid (:func:`normalise` them first)."""
    lam = log_p - log_q
    gap = -np.expm1(np.minimum(epsilon - lam, 0.0))  # (1 - e^(eps - Lambda))_+ , exact where Lambda is near eps
    return float(np.sum(np.exp(log_p) * gap))


def grid_epsilon(log_p: np.ndarray, log_q: np.ndarray, delta: float, *, both: bool = True) -> float:
    """The smallest epsilon >= 0 with ``H_eps(P || Q) <= delta`` (and ``H_eps(Q || P) <= delta`` when ``both``):
    bisection to 1e-12 relative on [0, max |Lambda|]. Unnormalised log densities are accepted."""
    lp, lq = normalise(log_p), normalise(log_q)
    pairs = [(lp, lq), (lq, lp)] if both else [(lp, lq)]
    out = 0.0
    for a, b in pairs:
        if hockey_stick(a, b, 0.0) <= delta:
            continue
        lo, hi = 0.0, float(np.max(np.abs(a - b))) + 1.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if hockey_stick(a, b, mid) > delta else (lo, mid)
            if hi - lo <= 1e-12 * max(1.0, hi):
                break
        out = max(out, hi)
    return out


def tradeoff_from_grid(log_p: np.ndarray, log_q: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """The trade-off function T(P, Q)(alpha) of two grid laws (Neyman-Pearson: reject P where Q / P is largest, the
    randomised test at the boundary cell): the type II error ``beta(alpha)`` at each type I error ``alpha``."""
    lp, lq = normalise(log_p), normalise(log_q)
    order = np.argsort(lp - lq)  # the cells most in favour of Q first
    p_cum = np.concatenate([[0.0], np.cumsum(np.exp(lp[order]))])  # type I error: P-mass rejected
    q_cum = np.concatenate([[0.0], np.cumsum(np.exp(lq[order]))])  # power: Q-mass rejected
    power = np.interp(np.asarray(alphas, dtype=float), p_cum, q_cum)  # piecewise linear = randomised NP tests
    return np.clip(1.0 - power, 0.0, 1.0)


def uniform_grid(center: float, half_width: float, points: int) -> np.ndarray:
    """``points`` equally spaced points on ``[center - half_width, center + half_width]``."""
    if not (half_width > 0 and points >= 3 and math.isfinite(center)):
        raise ValueError("uniform_grid: half_width must be > 0, points >= 3 and center finite")
    return np.linspace(center - half_width, center + half_width, points)
