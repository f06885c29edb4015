"""Mini-batches for a batch of chains, drawn for all chains at once.

- :func:`draw_minibatches` -- uniform ``size``-subsets of ``{0..N-1}`` without replacement, one per chain
  (Wang et al. 2015, Alg. 2 step 1; Bertazzi et al. 2025, eq. 31).
- :func:`draw_poisson_minibatches` -- Poisson sampling with rate ``q``: each record enters each chain's batch
  independently (Li et al. 2019, Alg. 1 step 2).
- :func:`flatten_batches` -- the ``(chain, record)`` pairs of a padded batch as a :class:`FlatBatch` (compressed
  rows), on which the models sum per-record terms without padding: the Poisson batches have mean size ``N q`` but
  are padded to the largest one (about ``N q + 5 sqrt(N q)`` for 10^5 chains).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["draw_minibatches", "draw_poisson_minibatches", "FlatBatch", "flatten_batches"]

# Random numbers per block of chains in the draws (block temporaries stay in cache and are not re-mapped each step).
_DRAW_BLOCK_ELEMENTS = 2**17
# Chains per block in FlatBatch.dots' dense margins (block x N doubles stay in a core's cache).
_DOTS_BLOCK_ELEMENTS = 2**15
# FlatBatch.dots uses dense margins (BLAS) from this dimension on, when the batches hold at least this fraction of
# the records (measured: d = 10, q = 0.1: 180 vs 235 ns per chain; d = 2: 140 vs 40; break-even q ~ 0.08 at d = 10).
_DOTS_DENSE_MIN_DIM = 8
_DOTS_DENSE_MIN_FRACTION = 0.08


def draw_minibatches(rng: np.random.Generator, n_chains: int, N: int, size: int) -> np.ndarray:
    """``(n_chains, size)`` indices; each row a uniform random ``size``-subset of ``{0, ..., N-1}`` (no repeats),
    listed in uniformly random order.

    Small and medium batches (``size^2 <= 8N``): sequential sampling without replacement by rejection. Position 0
    is uniform on ``{0..N-1}``; position ``j`` starts as a fresh uniform index and is redrawn while it equals one of
    positions ``0..j-1`` (already final), so it ends uniform on the ``N - j`` indices not yet taken, independently of
    how the earlier ones were drawn. The row is then a uniform ordered tuple of distinct indices: a uniform subset in
    uniformly random order. Positions are processed one at a time for all chains at once (column-major storage, so
    each comparison is one contiguous pass); a position collides with probability ``j / N <= size / N``, so the
    expected redraws per chain are about ``size^2 / (2N) <= 4``. Larger batches, or few chains (``n_chains N <= 150
    size^2``, where the ``size^2 / 2`` numpy calls of the former would dominate): the ``size`` smallest of ``N`` i.i.d.
    uniform keys (a uniform subset), then put in uniformly random order by sorting i.i.d. keys. All exact.
    """
    if size > N:
        raise ValueError(f"mini-batch size must be <= N = {N}; got {size}")
    if size * size > 8 * N or n_chains * N <= 150 * size * size:  # few chains: O(N) keys beat ~size^2/2 numpy calls
        keys = rng.random((n_chains, N))
        chosen = np.argpartition(keys, size - 1, axis=1)[:, :size] if size < N else np.tile(np.arange(N), (n_chains, 1))
        order = np.argsort(rng.random((n_chains, size)), axis=1)
        return np.take_along_axis(chosen, order, axis=1)
    dtype = np.int32 if N < 2**31 else np.int64  # int32 halves the memory traffic of the draws, compares and gathers
    out = np.empty((n_chains, size), dtype=dtype)
    block = max(1, _DRAW_BLOCK_ELEMENTS // max(1, size))  # chains drawn together (their arrays stay in cache)
    for lo in range(0, n_chains, block):
        nb = min(block, n_chains - lo)
        cols = rng.integers(0, N, size=(size, nb), dtype=dtype)  # cols[j] = position j of every chain
        hit = np.empty(nb, dtype=bool)
        tmp = np.empty(nb, dtype=bool)
        for j in range(1, size):
            col = cols[j]
            np.equal(cols[0], col, out=hit)
            for i in range(1, j):
                np.equal(cols[i], col, out=tmp)
                hit |= tmp
            rows = np.flatnonzero(hit)
            while rows.size:  # redraw position j of the chains where it repeats an earlier position
                fresh = rng.integers(0, N, size=rows.size, dtype=dtype)
                col[rows] = fresh
                rows = rows[(cols[:j, rows] == fresh).any(axis=0)]
        out[lo:lo + nb] = cols.T
    return out


def draw_poisson_minibatches(rng: np.random.Generator, n_chains: int, N: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Poisson subsampling: each record enters each chain's batch independently with probability ``q``.

    Returns ``(idx, mask)`` of shape ``(n_chains, k_max)``: the batch of chain ``c`` is ``idx[c, mask[c]]``, its
    records in increasing order, and ``mask[c]`` is a prefix (``k_c`` True then False); ``k_max = max_c k_c`` (at
    least 1); ``idx`` is N - 1 where ``mask`` is False (a valid index, never counted).

    Exactness. The included indices of an i.i.d. Bernoulli(q) sequence ``B_0, B_1, ...`` are the partial sums minus
    one of i.i.d. gaps ``G ~ Geometric(q)`` on {1, 2, ...} (the first gap is the index of the first success plus
    one, each later gap the distance to the next success), and the batch is the set of those partial sums below N.
    Each gap is drawn as ``G = floor(E / lam) + 1`` with ``E ~ Exp(1)`` and ``lam = -log(1 - q)``:
    ``P(G > k) = P(E >= k lam) = exp(-k lam) = (1 - q)^k`` for k = 0, 1, ..., the Geometric(q) tail. (Exact up to
    the float64 resolution of numpy's exponential generator, as for any floating-point sampler.) Gaps are drawn
    ``cap`` per chain at first (about the mean plus one standard deviation of the ``K + 1 ~ Binomial(N, q) + 1``
    gaps needed to pass N); only chains not yet past N get more, in rounds, each round of fresh independent gaps,
    so every chain's gaps are i.i.d. whatever the rounds (a stopping rule on past draws does not change the law of
    the draws after it). A gap larger than N + 1 is stored as N + 1: that changes no position below N (the position
    it leads to, and every later one, is still >= N). Different chains use disjoint draws, hence are independent.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"the Poisson sampling rate q must be in [0, 1]; got {q!r}")
    if q >= 1.0:
        return np.tile(np.arange(N), (n_chains, 1)), np.ones((n_chains, N), dtype=bool)
    if q == 0.0 or n_chains == 0:
        return np.zeros((n_chains, 1), dtype=np.intp), np.zeros((n_chains, 1), dtype=bool)
    inv_lam = -1.0 / np.log1p(-q)
    mean, sd = N * q, np.sqrt(N * q * (1.0 - q))
    cap = int(min(N + 1, np.ceil(mean + sd)))  # K + 1 <= N + 1 gaps always pass N
    cap_more = int(min(N + 1, max(2, np.ceil(sd))))
    # positions stay below (max(cap, cap_more) + 1) (N + 1): int32 whenever that fits (half the memory traffic)
    dtype = np.int32 if (max(cap, cap_more) + 2) * (N + 1) < 2**31 else np.int64

    def positions(shape, start):
        """``start + cumsum(G) - 1`` along axis 1, for i.i.d. Geometric(q) gaps G (gaps above N + 1 stored as N + 1)."""
        pos = np.empty(shape, dtype=dtype)
        block = max(1, _DRAW_BLOCK_ELEMENTS // shape[1])  # rows whose float64 draws are converted at once
        for lo in range(0, shape[0], block):
            e = rng.standard_exponential((min(block, shape[0] - lo), shape[1]))
            e *= inv_lam
            np.minimum(e, N, out=e)
            np.copyto(pos[lo:lo + block], e, casting="unsafe")  # floor(E / lam): truncation of a non-negative float
        np.cumsum(pos, axis=1, out=pos)
        pos += np.arange(shape[1], dtype=dtype)  # sum_{i<=j} (floor_i + 1) - 1 = cumsum(floor)_j + j
        pos += start
        return pos

    pos = positions((n_chains, cap), np.zeros((n_chains, 1), dtype=dtype))
    rows = np.flatnonzero(pos[:, -1] < N)  # chains whose cap positions are all in the batch: not yet past N
    last = pos[rows, -1:]
    more = []  # (rows, column offset, positions) of the later rounds
    offset = cap
    while rows.size:
        p = positions((rows.size, cap_more), last + 1)  # the next gap counts from the last position
        more.append((rows, offset, p))
        still = p[:, -1] < N
        rows, last = rows[still], p[still, -1:]
        offset += cap_more
    if more:
        last_rows, last_offset, last_p = more[-1]
        k_max = last_offset + int(np.count_nonzero(last_p.min(axis=0) < N))
        full = np.full((n_chains, k_max), N, dtype=dtype)
        full[:, :cap] = pos
        for r, off, p in more:
            full[r, off:min(k_max, off + cap_more)] = p[:, :k_max - off]
        pos = full
    else:  # positions increase along a row, so column j holds a batch member iff its minimum is < N
        k_max = max(int(np.count_nonzero(pos.min(axis=0) < N)), 1)
        pos = pos[:, :k_max]
    mask = pos < N
    np.minimum(pos, N - 1, out=pos)  # padding: a valid index (N - 1) where mask is False
    return pos, mask


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
        from scipy.sparse import csr_array

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
