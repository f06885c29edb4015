"""Mini-batches for a batch of chains, drawn for all chains at once.

- :func:`draw_minibatches` -- uniform ``size``-subsets of ``{0..N-1}`` without replacement, one per chain
  (Wang et al. 2015, Alg. 2 step 1; Bertazzi et al. 2025, eq. 31).
- :func:`draw_poisson_minibatches` -- Poisson sampling with rate ``q``: each record enters each chain's batch
  independently (Li et al. 2019, Alg. 1 step 2).
"""
from __future__ import annotations

import numpy as np

__all__ = ["draw_minibatches", "draw_poisson_minibatches"]


def draw_minibatches(rng: np.random.Generator, n_chains: int, N: int, size: int) -> np.ndarray:
    """``(n_chains, size)`` indices; each row a uniform random ``size``-subset of ``{0, ..., N-1}`` (no repeats),
    listed in uniformly random order.

    Small batches (``size (size - 1) <= 2N``, acceptance probability about ``exp(-size^2/(2N)) >= e^{-1}``): draw
    ``size`` i.i.d. uniform indices per chain and redraw the rows that contain a repeat; an accepted row is uniform
    over ordered tuples of distinct indices. Medium batches (``size^2 <= 8N``): Floyd's algorithm (Bentley & Floyd
    1987: for ``j = N - size .. N - 1`` add a uniform ``u`` on ``{0..j}``, or ``j`` if ``u`` is taken), vectorised
    over chains. Larger batches: the ``size`` smallest of ``N`` i.i.d. uniform keys. The last two are then put in
    uniformly random order. All exact.
    """
    if size > N:
        raise ValueError(f"mini-batch size must be <= N = {N}; got {size}")
    if size * (size - 1) > 2 * N:
        if size * size <= 8 * N:  # Floyd: O(size^2) per chain beats O(N) random keys here
            chosen = np.empty((n_chains, size), dtype=np.intp)
            for k, j in enumerate(range(N - size, N)):
                u = rng.integers(0, j + 1, size=n_chains)
                if k:
                    u = np.where((chosen[:, :k] == u[:, None]).any(axis=1), j, u)
                chosen[:, k] = u
        else:
            keys = rng.random((n_chains, N))
            chosen = np.argpartition(keys, size - 1, axis=1)[:, :size] if size < N else np.tile(np.arange(N), (n_chains, 1))
        order = np.argsort(rng.random((n_chains, size)), axis=1)
        return np.take_along_axis(chosen, order, axis=1)
    dtype = np.int32 if N < 2**31 else np.int64  # int32 halves the memory traffic of the draws, sorts and gathers
    out = rng.integers(0, N, size=(n_chains, size), dtype=dtype)
    if size == 1:
        return out
    s = np.sort(out, axis=1)
    rows = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
    while rows.size:
        fresh = rng.integers(0, N, size=(rows.size, size), dtype=dtype)
        out[rows] = fresh
        s = np.sort(fresh, axis=1)
        rows = rows[(s[:, 1:] == s[:, :-1]).any(axis=1)]
    return out


def draw_poisson_minibatches(rng: np.random.Generator, n_chains: int, N: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Poisson subsampling: each record enters each chain's batch independently with probability ``q``.

    Returns ``(idx, mask)`` of shape ``(n_chains, k_max)``: the batch of chain ``c`` is ``idx[c, mask[c]]``.
    Drawn exactly by geometric skips: the gaps between successive included indices of a Bernoulli(q) sequence are
    i.i.d. Geometric(q) on {1, 2, ...}, so the included indices are the partial sums of geometric draws minus one,
    kept while below N (more gaps are drawn until every chain has passed N).
    """
    if q >= 1.0:
        return np.tile(np.arange(N), (n_chains, 1)), np.ones((n_chains, N), dtype=bool)
    cap = int(N * q + 6 * np.sqrt(N * q * (1 - q)) + 8)
    log1mq = np.log1p(-q)

    def geometric(shape):  # inverse CDF: P(floor(log U / log(1-q)) + 1 > k) = P(U <= (1-q)^k) = (1-q)^k, U in (0, 1]
        return np.floor(np.log(1.0 - rng.random(shape)) / log1mq).astype(np.int64) + 1

    pos = np.cumsum(geometric((n_chains, cap)), axis=1) - 1
    while True:
        short = np.flatnonzero(pos[:, -1] < N)
        if not short.size:
            break
        more = np.full((n_chains, cap), N, dtype=pos.dtype)
        more[short] = pos[short, -1:] + np.cumsum(geometric((short.size, cap)), axis=1)
        pos = np.concatenate([pos, more], axis=1)
    mask = pos < N
    k_max = max(int(mask.sum(axis=1).max()), 1)
    return np.where(mask, pos, 0)[:, :k_max], mask[:, :k_max]
