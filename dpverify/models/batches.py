"""A batch of chains' mini-batches as compressed rows, on which the models sum per-record terms without padding.

- :class:`FlatBatch` -- the ``(chain, record)`` pairs of the mini-batches of ``n`` chains (CSR layout), with the sums
  the models' fast gradient paths need (:meth:`FlatBatch.record_sum`, :meth:`FlatBatch.pair_sum`,
  :meth:`FlatBatch.dots`);
- :func:`flatten_batches` -- a padded ``(n, b)`` batch of indices (and optional weights or mask) as a
  :class:`FlatBatch`, zero-weight pairs dropped: the Poisson batches of Li et al. 2019, Alg. 1 step 2 have mean size
  ``N q`` but are padded to the largest one (about ``N q + 5 sqrt(N q)`` for 10^5 chains).

The batches themselves are drawn by the samplers (:mod:`dpverify.samplers.minibatch`); this module only lays them
out, so the models (which sit below the samplers) can use it.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.sparse import csr_array

__all__ = ["FlatBatch", "flatten_batches"]

# Chains per block in FlatBatch.dots' dense margins (block x N doubles stay in a core's cache).
_DOTS_BLOCK_ELEMENTS = 2**15
# FlatBatch.dots uses dense margins (BLAS) from this dimension on, when the batches hold at least this fraction of
# the records (measured: d = 10, q = 0.1: 180 vs 235 ns per chain; d = 2: 140 vs 40; break-even q ~ 0.08 at d = 10).
_DOTS_DENSE_MIN_DIM = 8
_DOTS_DENSE_MIN_FRACTION = 0.08


class FlatBatch(NamedTuple):
    """The mini-batches of ``n`` chains as compressed rows (CSR): the pairs of chain ``c`` are
    ``records[indptr[c]:indptr[c + 1]]``, chain after chain, with weights ``weights[indptr[c]:indptr[c + 1]]``
    (``None``: every weight 1). A record listed twice in a chain's batch appears twice."""

    records: np.ndarray  # (M,) record index of each pair
    indptr: np.ndarray  # (n + 1,) row pointers
    weights: np.ndarray | None  # (M,) float weights, or None

    @property
    def n_chains(self) -> int:
        return self.indptr.size - 1

    def counts(self) -> np.ndarray:
        """Pairs per chain, ``(n,)``."""
        return np.diff(self.indptr)

    def chains(self) -> np.ndarray:
        """The chain of each pair, ``(M,)``."""
        return np.repeat(np.arange(self.n_chains, dtype=self.indptr.dtype), self.counts())

    def _matrix(self, data: np.ndarray, indices: np.ndarray, n_cols: int):
        return csr_array((data, indices, self.indptr), shape=(self.n_chains, n_cols))

    def record_sum(self, w: np.ndarray, table: np.ndarray) -> np.ndarray:
        """``sum_{pairs (c, r)} w_pair table[r]`` per chain c: ``(n, d)`` for ``table`` ``(N, d)`` and ``w`` ``(M,)``.

        One sparse-times-dense product (scipy's ``csr_matvecs``): for each pair, ``out[c] += w * table[r]`` in pair
        order, float64, no gathered ``(M, d)`` array."""
        table = np.ascontiguousarray(table, dtype=float)
        return self._matrix(np.asarray(w, dtype=float), self.records, table.shape[0]) @ table

    def pair_sum(self, values: np.ndarray) -> np.ndarray:
        """``sum`` over each chain's pairs of ``values`` (``(M,)`` or ``(M, d)``), in pair order: ``(n,)`` or ``(n, d)``."""
        values = np.asarray(values, dtype=float)
        flat = values.reshape(values.shape[0], -1)
        ones = np.ones(values.shape[0])
        out = self._matrix(ones, np.arange(values.shape[0], dtype=self.indptr.dtype), values.shape[0]) @ flat
        return out.reshape((self.n_chains,) + values.shape[1:])

    def dots(self, theta: np.ndarray, table: np.ndarray) -> np.ndarray:
        """``theta[c] . table[r]`` for every pair ``(c, r)``: ``(M,)``, for ``theta`` ``(n, d)``, ``table`` ``(N, d)``.

        Two layouts, by cost: the gathered rows ``table[r]`` times ``theta[c]`` repeated over each chain's pairs,
        summed over d (``M d`` multiply-adds in numpy); or, for ``d >= 8`` and batches of at least 8% of the records,
        the dense margins ``theta @ table.T`` of a block of chains read at the block's pairs (``N d`` multiply-adds
        per chain, in BLAS, which beats the gathers there)."""
        n, d = theta.shape
        N = table.shape[0]
        counts = self.counts()
        M = self.records.size
        if d < _DOTS_DENSE_MIN_DIM or M < _DOTS_DENSE_MIN_FRACTION * N * n:
            rows = np.take(table, self.records, axis=0)
            rows *= np.repeat(theta, counts, axis=0)
            return rows @ np.ones(d)
        tableT = np.ascontiguousarray(table.T, dtype=float)
        out = np.empty(M)
        local = np.repeat(np.arange(n, dtype=np.intp) * N, counts)
        local += self.records  # c N + r: the pair's entry in the (n, N) margins
        block = max(1, _DOTS_BLOCK_ELEMENTS // max(1, N))
        for lo in range(0, n, block):
            hi = min(n, lo + block)
            a, b = self.indptr[lo], self.indptr[hi]
            if a == b:
                continue
            dense = theta[lo:hi] @ tableT  # (block, N)
            out[a:b] = np.take(dense.ravel(), local[a:b] - lo * N)
        return out


def flatten_batches(idx: np.ndarray, weights: np.ndarray | None = None) -> FlatBatch:
    """The batches ``idx`` (``(n, b)``, chain c's batch is row c) as a :class:`FlatBatch`, dropping the pairs whose
    weight is zero (a boolean mask keeps its True entries with weight 1; other weights are kept as floats). Sums
    over the pairs then equal the sums over the padded rows with ``weights`` as factors: a dropped pair contributes
    exactly 0."""
    idx = np.asarray(idx)
    n, b = idx.shape
    itype = np.int32 if max(idx.size, b) < 2**31 - 1 else np.int64
    if weights is None:
        return FlatBatch(idx.astype(itype, copy=False).ravel(), np.arange(n + 1, dtype=itype) * itype(b), None)
    weights = np.asarray(weights)
    if weights.shape != idx.shape:
        raise ValueError(f"weights must have the shape of idx {idx.shape}; got {weights.shape}")
    keep = weights if weights.dtype == bool else weights != 0
    counts = np.count_nonzero(keep, axis=1)
    indptr = np.zeros(n + 1, dtype=itype)
    np.cumsum(counts, out=indptr[1:])
    records = idx.astype(itype, copy=False)[keep]
    w = None if weights.dtype == bool else weights[keep].astype(float)
    return FlatBatch(records, indptr, w)
