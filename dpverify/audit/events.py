"""Histogram / event search for discrete outputs (noisy-max indices, sparse-vector answer vectors).

For outputs taking finitely many values the optimal event is a union of outcomes ordered by the
likelihood ratio p_D(o) / p_D'(o) (Neyman & Pearson 1933; for DP, the event search of Ding et al.
2018, "Detecting violations of differential privacy", CCS 2018, Sec. 4.2). The fit samples give a
histogram of outcomes o (rows of the output array) on each side; the statistic is the smoothed
empirical log ratio

    s(o) = log((c0(o) + 1/2) / (n0 + 1/2)) - log((c1(o) + 1/2) / (n1 + 1/2)),

0 for outcomes not seen in the fit samples, and the threshold search of
:func:`dpverify.audit.statistics.best_threshold` then picks the union of the top outcomes on
independent samples.

On a device (:mod:`dpverify.backends`) the fitted statistic of one-value outputs is a table lookup there: the sorted
outcomes and their log ratios go to the device once per chunk, each output is found by a binary search
(``searchsorted``) and an exact comparison, and an output not among the outcomes gets 0 -- the numpy values, bit for
bit. Outputs of several values are copied to the host (the statistic is then not backend-generic).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dpverify.audit.statistics import Statistic, row_keys
from dpverify.backends import backend_of

__all__ = ["is_discrete", "outcome_log_ratio"]

#: At most this many distinct outcomes for the histogram test to apply.
MAX_OUTCOMES = 4096


def _rows(outputs: np.ndarray) -> np.ndarray:
    arr = np.asarray(outputs)
    if arr.dtype == np.bool_:
        arr = arr.astype(np.uint8)
    return arr.reshape(arr.shape[0], -1)


def _unique_rows(rows: np.ndarray, return_inverse: bool = False):
    if rows.shape[1] == 1:
        if return_inverse:
            values, inverse = np.unique(rows[:, 0], return_inverse=True)
            return values[:, None], inverse.reshape(-1)
        return np.unique(rows[:, 0])[:, None]
    found = row_keys(rows)
    if found is not None:
        # integer-valued rows: one int64 key per row (mixed radix, lexicographic like np.unique(axis=0)), so a 1-d
        # unique replaces the row-wise one (measured 38 s of a 10^7-output SVT fit with axis=0)
        _, first, inverse = np.unique(found[0], return_index=True, return_inverse=True)
        return (rows[first], inverse.reshape(-1)) if return_inverse else rows[first]
    if return_inverse:
        values, inverse = np.unique(rows, axis=0, return_inverse=True)
        return values, inverse.reshape(-1)
    return np.unique(rows, axis=0)


#: Outcome dtypes the device lookup compares in (torch has each of them).
_DEVICE_DTYPES = ("uint8", "int8", "int16", "int32", "int64", "float32", "float64")


def _device_lookup(outcomes: np.ndarray, log_ratio: np.ndarray, x: Any) -> Any:
    """``log_ratio[k]`` where ``x`` equals the sorted ``outcomes[k]`` (compared in the outcomes' dtype, as the numpy
    statistic does), 0 where it equals none of them; on the device of ``x``."""
    xp = backend_of(x)
    keys = xp.flat(outcomes)  # sorted (np.unique)
    values = xp.astype(xp.flat(x), outcomes.dtype.name)
    at = xp.minimum(xp.searchsorted(keys, values, side="left"), keys.shape[0] - 1)
    return xp.where(keys[at] == values, xp.lookup(log_ratio, at), 0.0)


def is_discrete(x0: np.ndarray, x1: np.ndarray) -> bool:
    """True if the pooled outputs show at most ``min(MAX_OUTCOMES, n/4)`` distinct rows (and >= 2)."""
    pooled = np.concatenate([_rows(x0), _rows(x1)])
    limit = max(2, min(MAX_OUTCOMES, pooled.shape[0] // 4))
    # Continuous outputs are recognised on a prefix (every row distinct), before sorting them all.
    if _unique_rows(pooled[: 4 * limit + 1]).shape[0] > limit:
        return False
    return 2 <= _unique_rows(pooled).shape[0] <= limit


def outcome_log_ratio(x0: np.ndarray, x1: np.ndarray) -> Statistic:
    """The smoothed empirical log-likelihood ratio of outcomes (module docstring)."""
    r0, r1 = _rows(x0), _rows(x1)
    outcomes, inverse = _unique_rows(np.concatenate([r0, r1]), return_inverse=True)
    c0 = np.bincount(inverse[: r0.shape[0]], minlength=outcomes.shape[0])
    c1 = np.bincount(inverse[r0.shape[0]:], minlength=outcomes.shape[0])
    log_ratio = np.log((c0 + 0.5) / (r0.shape[0] + 0.5)) - np.log((c1 + 0.5) / (r1.shape[0] + 0.5))

    def s(x: np.ndarray) -> np.ndarray:
        if not isinstance(x, np.ndarray) and s.backend_generic:  # type: ignore[attr-defined]
            return _device_lookup(outcomes[:, 0], log_ratio, x)
        rows = _rows(x).astype(outcomes.dtype, copy=False)
        if rows.shape[1] != outcomes.shape[1]:
            raise ValueError("outputs changed shape between fit and evaluation")
        both, inv = _unique_rows(np.concatenate([outcomes, rows]), return_inverse=True)
        table = np.zeros(both.shape[0])
        table[inv[: outcomes.shape[0]]] = log_ratio
        return table[inv[outcomes.shape[0]:]]

    s.backend_generic = outcomes.shape[1] == 1 and outcomes.dtype.name in _DEVICE_DTYPES  # type: ignore[attr-defined]
    return Statistic("events", f"log-ratio of outcome frequencies ({outcomes.shape[0]} outcomes)", s)
