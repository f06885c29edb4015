"""Numerical building blocks of the standard suite's exact epsilons: Laplace and exponential log-densities and
log-CDFs in closed form, and a composite Gauss-Legendre rule in log space.

The suite's outcome probabilities are one-dimensional integrals ``P(o) = int w(r) dr`` over a single shared noise
variable (the sparse vector's threshold noise, the noisy max's location of the maximum). The integrands are
products of Laplace densities and CDFs, smooth between known kinks, so a composite Gauss-Legendre rule on pieces
split at the kinks and no longer than a fraction of the smallest noise scale integrates them to near machine
precision (Davis & Rabinowitz 1984, "Methods of Numerical Integration", Sec. 2.7). Everything is summed in log
space (``logsumexp``) so outcomes of probability 1e-200 keep their relative accuracy.

The densities and CDFs take any backend's arrays (:mod:`dpverify.backends`: numpy's own functions on numpy arrays, so
their numpy values are those of plain numpy code; torch's on a torch tensor, on its device): the noisy maximum's
log-density (:func:`dpverify.audit.standard.noisy_max.max_log_density`) is evaluated where the audited outputs are.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from dpverify.backends import backend_of

__all__ = [
    "NEG",
    "laplace_logpdf",
    "laplace_logcdf",
    "laplace_logsf",
    "exponential_logpdf",
    "exponential_logcdf",
    "gauss_legendre_nodes",
    "log_integral",
]

#: A finite stand-in for log 0 inside matrix products (0 * NEG = 0, whereas 0 * -inf = NaN); any sum of up to
#: 10^100 of them stays finite and exp() of it is 0.
NEG = -1e200


def laplace_logpdf(x, scale: float) -> np.ndarray:
    """log of the Laplace(0, b) density, -|x|/b - log(2b) (any backend's array)."""
    xp = backend_of(x)
    return -xp.abs(xp.asarray(x)) / scale - math.log(2.0 * scale)


def laplace_logcdf(x, scale: float) -> np.ndarray:
    """log P[Lap(0, b) <= x]: x/b - log 2 for x < 0, log(1 - e^{-x/b}/2) for x >= 0 (no cancellation; any backend's
    array)."""
    xp = backend_of(x)
    z = xp.asarray(x) / scale
    return xp.where(z < 0, xp.minimum(z, 0.0) - math.log(2.0), xp.log1p(-0.5 * xp.exp(-xp.abs(z))))


def laplace_logsf(x, scale: float) -> np.ndarray:
    """log P[Lap(0, b) >= x] = laplace_logcdf(-x) by symmetry."""
    return laplace_logcdf(-backend_of(x).asarray(x), scale)


def exponential_logpdf(x, scale: float) -> np.ndarray:
    """log of the Exp(mean b) density: -x/b - log b on x >= 0, -inf below (any backend's array)."""
    xp = backend_of(x)
    x = xp.asarray(x)
    with xp.errstate(invalid="ignore"):
        return xp.where(x >= 0, -x / scale - math.log(scale), -math.inf)


def exponential_logcdf(x, scale: float) -> np.ndarray:
    """log P[Exp(mean b) <= x] = log(1 - e^{-x/b}) on x > 0, -inf at and below 0 (any backend's array)."""
    xp = backend_of(x)
    x = xp.asarray(x)
    with xp.errstate(divide="ignore", invalid="ignore"):
        return xp.where(x > 0, xp.log(-xp.expm1(-xp.maximum(x, 0.0) / scale)), -math.inf)


def gauss_legendre_nodes(lo: float, hi: float, breakpoints, max_width: float, order: int = 16):
    """Nodes and log-weights of a composite Gauss-Legendre rule on [lo, hi].

    The interval is cut at every breakpoint inside it (kinks or jumps of the integrand) and each piece into equal
    cells no wider than ``max_width``; each cell gets the ``order``-point rule. Returns ``(nodes, log_weights)``.
    """
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise ValueError(f"the integration range must be finite with lo < hi; got [{lo}, {hi}]")
    if not max_width > 0:
        raise ValueError(f"max_width must be > 0; got {max_width}")
    cuts = sorted({float(b) for b in breakpoints if lo < b < hi})
    edges = [lo, *cuts, hi]
    x, w = np.polynomial.legendre.leggauss(order)
    cells = []
    for a, b in zip(edges[:-1], edges[1:]):
        k = max(1, int(math.ceil((b - a) / max_width)))
        cells.append(np.linspace(a, b, k + 1))
    left = np.concatenate([c[:-1] for c in cells])
    right = np.concatenate([c[1:] for c in cells])
    half = 0.5 * (right - left)
    nodes = (0.5 * (left + right))[:, None] + half[:, None] * x[None, :]
    weights = half[:, None] * w[None, :]
    return nodes.reshape(-1), np.log(weights.reshape(-1))


def log_integral(log_integrand: np.ndarray, log_weights: np.ndarray) -> np.ndarray:
    """log of sum_g w_g exp(log_integrand[..., g]) along the last axis (a quadrature sum in log space)."""
    return logsumexp(np.asarray(log_integrand) + log_weights, axis=-1)
