"""Threshold tests on a scalar statistic, and the scalar statistics that need no model.

Every test of the auditor is a scalar statistic ``s`` of one output plus a threshold event
``S_t = {x : s(x) >= t}`` (or its complement). By the Neyman-Pearson lemma the optimal events for
distinguishing M(D) from M(D') are exactly such sets with ``s`` the log-likelihood ratio (Neyman &
Pearson 1933; the hypothesis-testing view of DP, Wasserman & Zhou 2010, Thm 2.4, Kairouz et al. 2015);
without densities the auditor uses the proxies below or a learned one (:mod:`.classifier`).

- :func:`identity` -- ``s(x) = x`` for scalar outputs;
- :func:`mean_difference_projection` -- ``s(x) = <x - (m0 + m1)/2, m0 - m1>`` for vector (or path)
  outputs, with ``m0``, ``m1`` the means of the fit samples of M(D) and M(D') (a linear
  discriminant direction, exact Neyman-Pearson for Gaussians with a common isotropic covariance);
- :func:`best_thresholds` / :func:`best_threshold` -- the threshold and orientation maximising the Clopper-Pearson epsilon
  lower bound (:func:`dpverify.audit.bounds.epsilon_lower_bound`) on the scoring samples.

The threshold search is split in three steps so that it can run on a stream of scoring samples in bounded memory
(:mod:`dpverify.audit.select`): :func:`threshold_candidates` fixes the candidate thresholds ``t_1 < ... < t_m`` from a
bounded sample of the scoring values; :func:`count_at_least` counts ``#{s >= t_j}`` on one chunk of values (integer
counts, so the counts of a stream are the sum of the counts of its chunks, in any order); :func:`best_events` scores
the four orientations from the summed counts. ``best_thresholds`` is the three steps on values held in memory.

:func:`evaluate` computes a statistic on a batch of outputs, once per distinct output when the outputs are discrete
(integer rows taking few values, e.g. noisy-max indices or sparse-vector answer patterns): a statistic is a function of
one output, so ``s(x_i) = s(u_{k(i)})`` with ``u`` the distinct rows and ``k`` the row's index among them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from dpverify.audit.bounds import ORIENTATIONS, epsilon_lower_bound
from dpverify.backends import backend_generic, backend_of

__all__ = ["Statistic", "ThresholdEvent", "flatten", "first_value", "identity", "mean_difference_projection",
           "best_thresholds", "best_threshold", "threshold_candidates", "thresholds_and_counts", "ATOM_TOLERANCE",
           "count_at_least", "best_events", "evaluate", "row_keys",
           "DistinctRows", "device_rows"]


@dataclass(frozen=True)
class Statistic:
    """A fitted scalar statistic: ``function(outputs) -> (n,) float array`` and a description."""

    name: str
    description: str
    function: Callable[[np.ndarray], np.ndarray]

    def __call__(self, outputs: np.ndarray) -> np.ndarray:
        values = np.asarray(self.function(outputs), dtype=float).reshape(-1)
        if values.shape[0] != np.shape(outputs)[0]:
            raise ValueError(f"statistic {self.name} returned {values.shape[0]} values for {np.shape(outputs)[0]} outputs")
        if np.isnan(values).any():
            raise ValueError(f"statistic {self.name} is NaN on some outputs")
        return values


@dataclass(frozen=True)
class ThresholdEvent:
    """The event ``{s >= threshold}`` (or its complement when ``complement``); ``d_high`` says the
    event is more likely under M(D) than under M(D'). ``score`` is the epsilon lower bound it
    achieved on the scoring samples (a selection criterion, not a certificate)."""

    threshold: float
    complement: bool
    d_high: bool
    score: float

    @property
    def orientation(self) -> tuple[bool, bool]:
        return (self.complement, self.d_high)

    def describe(self, statistic: Statistic) -> str:
        op = "<" if self.complement else ">="
        side = "M(dataset)" if self.d_high else "M(neighbour)"
        return f"{{{statistic.description} {op} {self.threshold:.6g}}}, more likely under {side}"

    def count(self, values: np.ndarray) -> int:
        """Number of statistic values in the un-complemented set ``{s >= threshold}``."""
        return int(np.count_nonzero(values >= self.threshold))


def flatten(outputs: np.ndarray) -> np.ndarray:
    """Outputs as an ``(n, d)`` float matrix (scalars become one column, paths are flattened)."""
    arr = np.asarray(outputs, dtype=float)
    return arr.reshape(arr.shape[0], -1)


def device_rows(x: Any) -> Any:
    """:func:`flatten` for an array of another backend: ``(n, d)`` float64 on its device."""
    return backend_of(x).asarray(x.reshape(x.shape[0], -1))


#: Outputs are reduced to their distinct rows only when there are at most this many (and at most a quarter of the
#: batch); the table of row keys is dense when the key range is at most ``_DENSE_KEYS``.
MAX_DISTINCT_ROWS = 4096
_DENSE_KEYS = 1 << 20


def row_keys(outputs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Mixed-radix integer keys of integer-valued rows: ``(keys, low, radix)`` with
    ``key(x) = sum_c (x_c - low_c) prod_{c' > c} radix_{c'}``, so rows are equal iff their keys are, and a key is decoded
    by the inverse digits. None when the outputs are not integer-valued (bool, int, or float holding integers) or the key
    range does not fit in an int64."""
    arr = np.asarray(outputs)
    rows = arr.reshape(arr.shape[0], -1)
    if rows.shape[0] == 0 or rows.dtype.kind not in "biuf":
        return None
    if rows.dtype.kind == "f" and not np.array_equal(rows[:256], np.floor(rows[:256])):
        return None  # continuous outputs are recognised on a prefix, before any pass over the batch
    n_cols = rows.shape[1]
    low = np.empty(n_cols, dtype=np.int64)
    radix = np.empty(n_cols, dtype=np.int64)
    columns = []
    for c in range(n_cols):  # one column at a time: strided reductions over axis 0 are several times slower
        column = np.ascontiguousarray(rows[:, c])
        lo, hi = column.min(), column.max()
        if rows.dtype.kind == "f":
            if max(-float(lo), float(hi)) > 2.0 ** 52 or not np.array_equal(column, np.floor(column)):
                return None
        low[c], radix[c] = int(lo), int(hi) - int(lo) + 1
        columns.append(column)
    if float(np.prod(radix.astype(float))) >= 2.0 ** 62:
        return None
    keys = np.zeros(rows.shape[0], dtype=np.int64)
    for c, column in enumerate(columns):  # Horner's scheme
        keys *= radix[c]
        keys += column.astype(np.int64, copy=False)
        keys -= low[c]
    return keys, low, radix


class DistinctRows:
    """A batch of outputs prepared for evaluating statistics once per distinct output (module docstring).

    Applies when :func:`row_keys` gives keys and the batch holds at most ``min(MAX_DISTINCT_ROWS, n/4)`` distinct rows
    (and n >= 64): then ``rows`` holds the distinct rows, decoded from their keys (same values and dtype as the
    outputs), and ``inverse`` each output's position among them; otherwise both are None and :meth:`apply` calls the
    statistic on the whole batch. Prepared once per chunk, it serves every statistic evaluated on that chunk.
    """

    def __init__(self, outputs: np.ndarray):
        self.outputs = np.asarray(outputs)
        self.rows: np.ndarray | None = None
        self.inverse: np.ndarray | None = None
        n = self.outputs.shape[0]
        found = row_keys(self.outputs) if n >= 64 else None
        if found is None:
            return
        keys, low, radix = found
        limit = min(MAX_DISTINCT_ROWS, n // 4)
        top = int(keys.max()) + 1
        if top <= _DENSE_KEYS:
            present = np.zeros(top, dtype=bool)
            present[keys] = True
            distinct = np.flatnonzero(present)
            if distinct.size > limit:
                return
            position = np.zeros(top, dtype=np.int64)
            position[distinct] = np.arange(distinct.size)
            inverse = position[keys]
        else:
            distinct, inverse = np.unique(keys, return_inverse=True)
            if distinct.size > limit:
                return
        digits = np.empty((distinct.size, radix.size), dtype=np.int64)
        rest = distinct.copy()
        for c in range(radix.size - 1, -1, -1):  # one pass per column (discrete outputs have few columns)
            rest, digits[:, c] = np.divmod(rest, radix[c])
        self.rows = (digits + low).astype(self.outputs.dtype).reshape((distinct.size,) + self.outputs.shape[1:])
        self.inverse = inverse.reshape(-1)

    def apply(self, statistic: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``statistic(outputs)``, computed on the distinct rows when prepared (exact for any statistic of one
        output)."""
        if self.rows is None:
            return statistic(self.outputs)
        return np.asarray(statistic(self.rows), dtype=float).reshape(-1)[self.inverse]


def evaluate(statistic: Callable[[np.ndarray], np.ndarray], outputs: np.ndarray) -> np.ndarray:
    """``statistic(outputs)``, computed once per distinct output when the outputs are discrete (:class:`DistinctRows`)."""
    return DistinctRows(outputs).apply(statistic)


@backend_generic
def first_value(x: Any) -> Any:
    """The first value of each output as float64, on the backend that holds ``x`` (numpy: ``flatten(x)[:, 0]``)."""
    xp = backend_of(x)
    if xp.name == "numpy":
        return flatten(x)[:, 0]
    return xp.asarray(x.reshape(x.shape[0], -1)[:, 0])


def identity(x0: np.ndarray, x1: np.ndarray) -> Statistic:
    """``s(x) = x`` for scalar outputs (one number per output); backend-generic (:func:`first_value`)."""
    return Statistic("identity", "x", first_value)


def mean_difference_projection(x0: np.ndarray, x1: np.ndarray) -> Statistic:
    """``s(x) = <x - (m0 + m1)/2, m0 - m1>`` with ``m0``, ``m1`` the means of the fit samples.

    If the means coincide to float precision the first coordinate is used (a direction is needed).
    """
    m0, m1 = flatten(x0).mean(axis=0), flatten(x1).mean(axis=0)
    w = m0 - m1
    if not np.any(w):
        w = np.zeros_like(w)
        w[0] = 1.0
    center = 0.5 * (m0 + m1)

    @backend_generic
    def projection(x: Any) -> Any:
        if isinstance(x, np.ndarray) or backend_of(x).name == "numpy":
            return (flatten(x) - center) @ w
        xp = backend_of(x)  # on the device: the same product, rounded by that backend's own kernel
        return xp.matmul(device_rows(x) - xp.asarray(center), w)

    return Statistic("projection", "<x - c, m0 - m1> (difference-of-means projection)", projection)


#: Statistic values closer than this (relative) are one atom: the same output evaluated in another chunk (another
#: BLAS blocking or SIMD lane of a matrix product) may move by a few units in the last place, never by this much.
ATOM_TOLERANCE = 1e-9


def threshold_candidates(s0: np.ndarray, s1: np.ndarray, *, max_candidates: int = 512) -> np.ndarray:
    """Sorted candidate thresholds from statistic values ``s0`` (under M(D)) and ``s1`` (under M(D')).

    The pooled values are grouped into atoms (values within :data:`ATOM_TOLERANCE`, relative, of their neighbour are
    one atom); when there are more than ``max_candidates`` atoms, those of ``max_candidates`` pooled quantiles
    (``method="inverted_cdf"``: atoms are kept whole) are kept. Each threshold sits halfway between its atom and the
    next smaller value, never on a value: ``{s >= t}`` then holds the atom whole. A threshold on an attained value
    would split an atom of a discrete output by rounding alone -- the same output's projection, computed in another
    chunk, differs in its last bits -- so the event counted on the estimation part would not be the event chosen on
    the selection part (measured: iSVT2's difference-of-means event held 31 % of one side's selection outputs and
    39 % of the same outputs recomputed, a selection score of 0.25 for an event that certified 0.064).
    """
    ordered = np.sort(_without_nan(np.concatenate([np.ravel(s0), np.ravel(s1)])))
    return _candidates_from_sorted(ordered, max_candidates)


def thresholds_and_counts(s0: np.ndarray, s1: np.ndarray, *,
                          max_candidates: int = 512) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, k0, k1)``: :func:`threshold_candidates` of ``s0`` and ``s1`` with ``k0 = count_at_least(s0, t)`` and ``k1
    = count_at_least(s1, t)``, the same numbers from one sort of each side: the counts are binary searches in the
    sorted sides, the pooled sort a merge of the two. (The threshold sample of an audit is fitted this way in the
    calling process, before any worker starts: about half the time of the three separate passes.)"""
    a = np.sort(np.ravel(s0).astype(float, copy=False))
    b = np.sort(np.ravel(s1).astype(float, copy=False))
    if np.isnan(a[-1:]).any() or np.isnan(b[-1:]).any():  # NaN sorts last: the separate passes, as they treat it
        return _counts_with_nan(s0, s1, max_candidates)
    ordered = np.sort(np.concatenate([a, b]), kind="stable")  # two sorted runs: a merge
    t = _candidates_from_sorted(ordered, max_candidates)
    k0 = (a.size - np.searchsorted(a, t, side="left")).astype(np.int64)
    k1 = (b.size - np.searchsorted(b, t, side="left")).astype(np.int64)
    return t, k0, k1


def _counts_with_nan(s0: np.ndarray, s1: np.ndarray, max_candidates: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    t = threshold_candidates(s0, s1, max_candidates=max_candidates)
    return t, count_at_least(s0, t), count_at_least(s1, t)


def _without_nan(values: np.ndarray) -> np.ndarray:
    values = values.astype(float, copy=False)
    return values[~np.isnan(values)]


def _inverted_cdf(ordered: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``np.quantile(ordered, q, method="inverted_cdf")`` of an already sorted array (Hyndman & Fan 1996, definition
    1: the smallest value whose empirical distribution function reaches q), with numpy's own index arithmetic:
    index ``n q - 1``, rounded up unless it is an integer, negative indices clipped to 0."""
    index = ordered.size * q - 1
    previous = np.floor(index)
    at = np.where(index - previous == 0, previous, previous + 1).astype(np.intp)
    at[at < 0] = 0
    return ordered[at]


def _candidates_from_sorted(ordered: np.ndarray, max_candidates: int) -> np.ndarray:
    """:func:`threshold_candidates` from the pooled values sorted, NaN removed."""
    if ordered.size == 0:
        return ordered
    distinct = np.empty(ordered.size, dtype=bool)
    distinct[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=distinct[1:])
    values = ordered[distinct]  # np.unique of the pooled values
    finite_scale = np.abs(values[np.isfinite(values)])
    gaps = np.diff(values)
    new_atom = np.ones(values.size, dtype=bool)
    with np.errstate(invalid="ignore"):
        scale = np.maximum(np.abs(values[1:]), np.abs(values[:-1]))
        new_atom[1:] = ~((gaps <= ATOM_TOLERANCE * scale) & np.isfinite(scale))
    starts = np.flatnonzero(new_atom)
    if starts.size > max_candidates:
        picks = np.unique(_inverted_cdf(ordered, np.linspace(0.0, 1.0, max_candidates)))
        # the atom each quantile falls in, by its start
        atom_of = np.searchsorted(values[starts], picks, side="right") - 1
        starts = starts[np.unique(np.clip(atom_of, 0, starts.size - 1))]
    upper = values[starts]
    lower = np.empty(starts.size, dtype=float)
    inner = starts > 0
    lower[inner] = values[starts[inner] - 1]
    if not inner[0]:  # the smallest atom: {s >= t} is every output; any t below it
        spread = (float(finite_scale.max()) if finite_scale.size else 1.0) or 1.0
        lower[0] = upper[0] - 2.0 * spread if np.isfinite(upper[0]) else upper[0]
    with np.errstate(invalid="ignore", over="ignore"):
        mid = lower + 0.5 * (upper - lower)
        # an infinite side: a finite threshold past the finite neighbour (+inf above it, -inf's neighbour below it)
        above = lower + np.maximum(1.0, np.abs(lower))
        below = upper - np.maximum(1.0, np.abs(upper))
    mid = np.where(np.isposinf(upper) & np.isfinite(lower), above, mid)
    mid = np.where(np.isneginf(lower) & np.isfinite(upper), below, mid)
    mid = np.where(~np.isfinite(lower) & ~np.isfinite(upper), upper, mid)  # only infinities: the value itself
    return np.unique(mid)


def count_at_least(values: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """``k[j] = #{i : values[i] >= candidates[j]}`` for sorted ``candidates`` (int64, one entry per candidate).

    One binary search per value (``searchsorted(candidates, v, "right")`` = number of candidates ``<= v``), a
    histogram of those positions, and its reversed cumulative sum: O(n log m) time, O(m) memory beyond the input, and
    integer counts that add up exactly over the chunks of a stream.
    """
    values = np.ravel(values)
    cand = np.asarray(candidates, dtype=float)
    position = np.searchsorted(cand, values, side="right")
    hist = np.bincount(position, minlength=cand.size + 1)
    # value v is >= cand[j] iff position(v) > j
    return np.cumsum(hist[::-1])[::-1][1:].astype(np.int64)


def best_events(k0: np.ndarray, n0: int, k1: np.ndarray, n1: int, candidates: np.ndarray, *, delta: float,
                alpha: float) -> list[ThresholdEvent]:
    """For each of the four orientations, the candidate threshold maximising the epsilon lower bound
    (:func:`epsilon_lower_bound`, vectorised over candidates) given the counts ``k0[j] = #{s >= t_j}`` among ``n0``
    values under M(D) and ``k1`` among ``n1`` under M(D'); best first (ties: the first candidate)."""
    cand = np.asarray(candidates, dtype=float)
    events = []
    for complement, d_high in ORIENTATIONS:
        scores = epsilon_lower_bound(k0, n0, k1, n1, delta=delta, alpha=alpha, orientation=(complement, d_high))
        j = int(np.argmax(scores))
        events.append(ThresholdEvent(float(cand[j]), complement, d_high, float(scores[j])))
    return sorted(events, key=lambda e: -e.score)


def best_thresholds(
    s0: np.ndarray, s1: np.ndarray, *, delta: float, alpha: float, max_candidates: int = 512
) -> list[ThresholdEvent]:
    """For each of the four orientations, the threshold event maximising the epsilon lower bound on
    the scoring samples ``s0`` (statistic values under M(D)) and ``s1`` (under M(D')); best first.

    Candidate thresholds are :func:`threshold_candidates`; for each, the counts of ``{s >= t}`` on both sides come
    from :func:`count_at_least`, and every orientation is scored by :func:`best_events`.
    """
    a, b = np.ravel(s0), np.ravel(s1)
    cand = threshold_candidates(a, b, max_candidates=max_candidates)
    return best_events(count_at_least(a, cand), a.size, count_at_least(b, cand), b.size, cand, delta=delta,
                       alpha=alpha)


def best_threshold(s0: np.ndarray, s1: np.ndarray, *, delta: float, alpha: float,
                   max_candidates: int = 512) -> ThresholdEvent:
    """The best of :func:`best_thresholds`."""
    return best_thresholds(s0, s1, delta=delta, alpha=alpha, max_candidates=max_candidates)[0]
