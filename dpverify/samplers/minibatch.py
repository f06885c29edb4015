"""Mini-batches for a batch of chains, drawn for all chains at once.

- :func:`draw_minibatches` -- uniform ``size``-subsets of ``{0..N-1}`` without replacement, one per chain
  (Wang et al. 2015, Alg. 2 step 1; Bertazzi et al. 2025, eq. 31).
- :func:`draw_poisson_minibatches` -- Poisson sampling with rate ``q``: each record enters each chain's batch
  independently (Li et al. 2019, Alg. 1 step 2).
- :func:`flatten_batches` / :class:`FlatBatch` -- the unpadded ``(chain, record)`` layout of a batch, on which the
  models sum per-record terms; it lives with the models (:mod:`dpverify.models.batches`) and is re-exported here.
"""
from __future__ import annotations

import numpy as np

from dpverify.models.batches import FlatBatch, flatten_batches

__all__ = ["draw_minibatches", "draw_poisson_minibatches", "FlatBatch", "flatten_batches"]

# Random numbers per block of chains in the draws (block temporaries stay in cache and are not re-mapped each step).
_DRAW_BLOCK_ELEMENTS = 2**17


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
