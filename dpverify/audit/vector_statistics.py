"""Statistics for vector outputs that approach the likelihood ratio when it is a sum of per-coordinate terms.

For independent noise on each coordinate (parallel Laplace, noisy histograms) the privacy loss is
``log p_D(x) - log p_D'(x) = sum_j l_j(x_j)`` with each ``l_j`` non-linear (for Laplace a clipped difference of
absolute values). A linear projection or a logistic model on ``(x, x^2)`` cannot represent it. The additive
density-ratio statistic estimates each ``l_j`` from the fit samples and sums the estimates:

1. whiten: ``z = (x - m) W`` with ``W`` the inverse Cholesky factor of the pooled covariance (ridge-regularised),
   so correlated releases whose noise is a linear image of independent noise (prefix sums of noisy counts) become
   coordinates that are again (nearly) independent;
2. per whitened coordinate, bin edges at pooled quantiles and the smoothed log ratio of the two sides' bin counts
   (add-half smoothing), ``l_j(bin)``;
3. ``s(x) = sum_j l_j(bin_j(z_j))``.

Fitted on the selection half only (the auditor's split, :mod:`dpverify.audit.core`), so validity is unaffected.
This is a naive-Bayes log-odds estimate; the hockey-stick estimation by histograms of Koskela & Mohammadi 2024
("Auditing differential privacy guarantees using density estimation") is the one-dimensional special case.
"""
from __future__ import annotations

import numpy as np

from dpverify.audit.statistics import Statistic, flatten

__all__ = ["additive_log_ratio", "vector_candidates"]


def _whitening(pooled: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = pooled.mean(axis=0)
    cov = np.atleast_2d(np.cov(pooled, rowvar=False))
    scale = float(np.trace(cov)) / cov.shape[0] if cov.shape[0] else 1.0
    ridge = 1e-9 * (scale if scale > 0 else 1.0)
    chol = np.linalg.cholesky(cov + ridge * np.eye(cov.shape[0]))
    return mean, np.linalg.inv(chol).T


def additive_log_ratio(x0: np.ndarray, x1: np.ndarray, *, bins: int = 32, max_train: int = 200_000,
                       whiten: bool = True, seed: int = 0) -> Statistic:
    """The additive (naive-Bayes) density-ratio statistic of the module docstring, fitted on ``x0`` (outputs of
    M(D)) and ``x1`` (of M(D')); at most ``max_train`` outputs per side, ``bins`` quantile bins per coordinate."""
    f0, f1 = flatten(x0)[:max_train], flatten(x1)[:max_train]
    pooled = np.concatenate([f0, f1])
    if whiten and pooled.shape[1] > 1 and pooled.shape[0] > pooled.shape[1]:
        mean, w = _whitening(pooled)
    else:
        mean, w = np.zeros(pooled.shape[1]), np.eye(pooled.shape[1])

    def transform(x: np.ndarray) -> np.ndarray:
        return (flatten(x) - mean) @ w

    z0, z1 = transform(f0), transform(f1)
    zp = np.concatenate([z0, z1])
    edges, tables = [], []
    for j in range(zp.shape[1]):
        inner = np.unique(np.quantile(zp[:, j], np.linspace(0.0, 1.0, bins + 1)[1:-1]))
        c0 = np.bincount(np.searchsorted(inner, z0[:, j], side="right"), minlength=inner.size + 1)
        c1 = np.bincount(np.searchsorted(inner, z1[:, j], side="right"), minlength=inner.size + 1)
        table = np.log((c0 + 0.5) / (z0.shape[0] + 0.5)) - np.log((c1 + 0.5) / (z1.shape[0] + 0.5))
        edges.append(inner)
        tables.append(table)

    def statistic(x: np.ndarray) -> np.ndarray:
        z = transform(x)
        total = np.zeros(z.shape[0])
        for j, (inner, table) in enumerate(zip(edges, tables)):
            total += table[np.searchsorted(inner, z[:, j], side="right")]
        return total

    return Statistic("additive", "sum of per-coordinate log density ratios (whitened, binned)", statistic)


def vector_candidates(x0: np.ndarray, x1: np.ndarray, *, seed: int = 0) -> list[Statistic]:
    """The statistics the auditor's ``test="auto"`` adds for continuous vector outputs."""
    return [additive_log_ratio(x0, x1, seed=seed)]
