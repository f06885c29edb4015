"""The empirical trade-off curve of a threshold test (for reports; never used to certify).

Testing H0 "the output came from M(D')" against H1 "from M(D)" with the event S_t = {s >= t}, oriented so
that larger statistic values look more like M(D), has type I error alpha(t) = P[s(M(D')) >= t] and
type II error beta(t) = P[s(M(D)) < t]. (epsilon, delta)-DP forces every point above
max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)) (Kairouz, Oh, Viswanath 2015; Dong, Roth,
Su 2019, f-DP), which the report draws beside this curve.
"""
from __future__ import annotations

import numpy as np

__all__ = ["tradeoff_curve"]


def tradeoff_curve(s_dataset: np.ndarray, s_neighbour: np.ndarray, *, dataset_high: bool = True,
                   points: int = 101) -> dict:
    """(alpha, beta) at ``points`` thresholds spread over the pooled quantiles of the two samples.

    ``dataset_high``: larger values are more likely under M(D) (else the statistic is negated first).
    """
    s0 = np.asarray(s_dataset, dtype=float).ravel()
    s1 = np.asarray(s_neighbour, dtype=float).ravel()
    if not dataset_high:
        s0, s1 = -s0, -s1
    if s0.size == 0 or s1.size == 0:
        raise ValueError("both samples must be non-empty")
    # actual sample values (no interpolation), so infinite statistic values (a likelihood ratio on an outcome only one
    # side can produce) give infinite thresholds, not NaN from inf - inf
    thresholds = np.unique(np.quantile(np.concatenate([s0, s1]), np.linspace(0.0, 1.0, points), method="inverted_cdf"))
    thresholds = np.concatenate([thresholds, [np.inf]])
    s0.sort()
    s1.sort()
    alpha = 1.0 - np.searchsorted(s1, thresholds, side="left") / s1.size
    beta = np.searchsorted(s0, thresholds, side="left") / s0.size
    return {"alpha": alpha.tolist(), "beta": beta.tolist(), "n_dataset": int(s0.size), "n_neighbour": int(s1.size)}
