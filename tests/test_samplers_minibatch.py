"""Tests of dpverify.samplers.minibatch (the mini-batch laws and the unpadded (chain, record) layout) and of the
models' batch-gradient methods built on it (LogisticRegression, GaussianTarget, NonConvexTarget).

Sampling laws are checked with fixed seeds; every tolerance is a multiple z of the Monte Carlo standard error written
next to it. z is set so that a correct sampler fails with probability < 1e-6 per assertion (Bonferroni over the
cells tested together), and the seeds are fixed, so the tests are deterministic.

Mutation check (each mutation applied to a copy of the package, this file run against it):

- geometric gap off by one, ``floor(E / lam) + 2``: inclusion rate q/(1+q); fails
  ``test_poisson_inclusion_frequencies`` (all 4 cases), ``test_poisson_batch_size_is_binomial``,
  ``test_poisson_pairwise_inclusions_are_independent``, ``test_poisson_edge_rates`` and three structure cases (13 tests);
- gap ``floor(E / lam)`` (0 allowed): repeated and negative records; fails every Poisson test and the Poisson gradient
  cases (30 tests);
- later rounds starting at the last position instead of one past it: repeated records in the chains that needed
  more gaps; fails ``test_poisson_batches_are_sorted_distinct_prefixes`` (all 4), three batch-size cases and
  ``test_poisson_edge_rates`` (8 tests);
- clip skipped in ``LogisticRegression.minibatch_gradient``: fails the 12 ``clip=0.5`` cases of
  ``test_logistic_minibatch_gradient_matches_per_record_reference``; in ``GaussianTarget.minibatch_gradient``: the 4
  Gaussian ``clip=0.5`` cases of ``test_target_minibatch_gradient_matches_per_record_reference`` and
  ``test_gaussian_minibatch_gradient_matches_per_record_reference_with_clip``;
- fixed-size batches comparing a new position with position 0 only: repeats; fails
  ``test_fixed_size_batches_are_uniform_ordered_tuples`` (3 of 4) and ``test_fixed_size_pairwise_inclusion_at_the_audit_size``.
"""
from __future__ import annotations

import math
from itertools import combinations, permutations

import numpy as np
import pytest
from scipy import stats

import dpverify.models.logistic as logistic_module
import dpverify.models.targets as targets_module
import dpverify.models.batches as minibatch_module
from dpverify.models.logistic import LogisticRegression, clip_gradients, make_logistic_dataset
from dpverify.models.targets import GaussianTarget, NonConvexTarget
from dpverify.samplers.minibatch import FlatBatch, draw_minibatches, draw_poisson_minibatches, flatten_batches

# Two-sided normal quantile for a per-cell false alarm of 1e-6 / (number of cells), so that a correct sampler fails an
# assertion over `cells` cells with probability < 1e-6.


def _z(cells: int) -> float:
    return float(stats.norm.isf(0.5e-6 / cells))


def _inclusion(idx: np.ndarray, mask: np.ndarray, N: int) -> np.ndarray:
    """``(n, N)`` booleans: record r is in chain c's batch (a repeated record would be counted once)."""
    n = idx.shape[0]
    out = np.zeros((n, N), dtype=bool)
    rows = np.repeat(np.arange(n), mask.sum(axis=1))
    out[rows, idx[mask]] = True
    return out


# (N, q): q = 0.1 at N = 100 (the audit case: 20% of the chains need more than the first round of cap = 13 gaps); a
# small N; a large q; a small q (mostly empty batches). In each, 12-20% of the chains need later rounds.
POISSON_CASES = [(100, 0.1), (12, 0.3), (30, 0.85), (200, 0.004)]


# -- Poisson batches -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("N, q", POISSON_CASES)
def test_poisson_batches_are_sorted_distinct_prefixes(N, q):
    """Structure, exact: ``mask`` rows are prefixes, the batch's records strictly increase (so no record twice) and
    lie in [0, N); padding is a valid index; k_max is the largest batch. Enough chains that the later rounds of gaps
    (for chains not yet past N after the first) occur over 10,000 times."""
    rng = np.random.default_rng(20)
    n = 100_000
    idx, mask = draw_poisson_minibatches(rng, n, N, q)
    k = mask.sum(axis=1)
    assert idx.shape == mask.shape and idx.shape[0] == n
    assert idx.shape[1] == max(1, k.max())
    assert np.array_equal(mask, np.arange(idx.shape[1]) < k[:, None])  # prefixes
    assert idx.min() >= 0 and idx.max() < N
    inner = mask[:, 1:]
    assert np.all(np.diff(idx, axis=1)[inner] > 0)  # strictly increasing inside the batch
    cap = int(min(N + 1, np.ceil(N * q + math.sqrt(N * q * (1 - q)))))
    if cap <= N:
        # the later rounds were exercised: n P(K >= cap) is 11,800 to 19,800 in these cases
        assert np.count_nonzero(k >= cap) > 10_000


@pytest.mark.parametrize("N, q", POISSON_CASES)
def test_poisson_inclusion_frequencies(N, q):
    """Each record is in each chain's batch with probability q: per-record frequency over n = 200,000 chains within
    z standard errors sqrt(q (1 - q) / n), z for N cells. An off-by-one gap (rate q/(1+q)) is off by
    q^2/(1+q) = 0.009 at q = 0.1, i.e. 13 standard errors."""
    rng = np.random.default_rng(21)
    n = 200_000
    idx, mask = draw_poisson_minibatches(rng, n, N, q)
    freq = _inclusion(idx, mask, N).mean(axis=0)
    se = math.sqrt(q * (1 - q) / n)
    assert np.all(np.abs(freq - q) < _z(N) * se), np.abs(freq - q).max() / se


@pytest.mark.parametrize("N, q", POISSON_CASES)
def test_poisson_batch_size_is_binomial(N, q):
    """Batch size K ~ Binomial(N, q): chi-square goodness of fit on 200,000 chains (cells with expected count < 5
    pooled into the tails), rejected at p < 1e-6; and the mean within z = 5.3 standard errors sqrt(Nq(1-q)/n)."""
    rng = np.random.default_rng(22)
    n = 200_000
    _, mask = draw_poisson_minibatches(rng, n, N, q)
    k = mask.sum(axis=1)
    assert abs(k.mean() - N * q) < _z(1) * math.sqrt(N * q * (1 - q) / n)
    expected = n * stats.binom.pmf(np.arange(N + 1), N, q)
    observed = np.bincount(k, minlength=N + 1).astype(float)
    keep = expected >= 5
    lo, hi = np.flatnonzero(keep)[[0, -1]]
    exp_cells = np.concatenate([[expected[:lo + 1].sum()], expected[lo + 1:hi], [expected[hi:].sum()]])
    obs_cells = np.concatenate([[observed[:lo + 1].sum()], observed[lo + 1:hi], [observed[hi:].sum()]])
    assert stats.chisquare(obs_cells, exp_cells * n / exp_cells.sum()).pvalue > 1e-6


@pytest.mark.parametrize("N, q", [(100, 0.1), (12, 0.3)])
def test_poisson_pairwise_inclusions_are_independent(N, q):
    """Records enter independently: for every pair (i, j) of records, P(i and j in the batch) = q^2. Joint frequency
    over n = 200,000 chains within z standard errors sqrt(q^2 (1 - q^2) / n), z for N (N - 1) / 2 cells. Adjacent
    records (one geometric gap apart) and pairs straddling the first round of gaps are among them. Chains are
    independent too: record 0 in chain c and in chain c + 1 together with probability q^2."""
    rng = np.random.default_rng(23)
    n = 200_000
    idx, mask = draw_poisson_minibatches(rng, n, N, q)
    inc = _inclusion(idx, mask, N).astype(float)
    joint = inc.T @ inc / n
    iu = np.triu_indices(N, 1)
    se = math.sqrt(q * q * (1 - q * q) / n)
    dev = np.abs(joint[iu] - q * q)
    assert np.all(dev < _z(len(iu[0])) * se), dev.max() / se
    across = np.mean(inc[:-1, 0] * inc[1:, 0])
    assert abs(across - q * q) < _z(1) * math.sqrt(q * q * (1 - q * q) / (n - 1))


def test_poisson_edge_rates():
    rng = np.random.default_rng(24)
    idx, mask = draw_poisson_minibatches(rng, 5, 7, 1.0)
    assert mask.all() and np.array_equal(idx, np.tile(np.arange(7), (5, 1)))
    idx, mask = draw_poisson_minibatches(rng, 5, 7, 0.0)
    assert idx.shape == (5, 1) and not mask.any()
    idx, mask = draw_poisson_minibatches(rng, 10_000, 1, 0.3)  # N = 1
    assert idx.shape[1] == 1 and np.all(idx == 0) and abs(mask.mean() - 0.3) < _z(1) * math.sqrt(0.21 / 10_000)
    with pytest.raises(ValueError, match="rate q"):
        draw_poisson_minibatches(rng, 5, 7, 1.5)


# -- fixed-size batches ----------------------------------------------------------------------------------------------
# (N, size): the sequential-rejection branch (size^2 <= 8N), at small and at its largest size, and the random-key
# branch (size^2 > 8N).
FIXED_CASES = [(6, 3), (10, 8), (10, 9), (5, 5)]


@pytest.mark.parametrize("N, size", FIXED_CASES)
def test_fixed_size_batches_are_uniform_ordered_tuples(N, size):
    """Each row is a uniform size-subset in uniformly random order, i.e. a uniform ordered tuple of distinct indices:
    chi-square over the subsets and over the ordered tuples (n = 120,000 rows; at most 720 / 5040 cells, each with
    expected count >= 24), each rejected only at p < 1e-6."""
    rng = np.random.default_rng(25)
    n = 120_000
    idx = draw_minibatches(rng, n, N, size)
    assert idx.shape == (n, size) and idx.min() >= 0 and idx.max() < N
    s = np.sort(idx, axis=1)
    assert np.all(s[:, 1:] > s[:, :-1])
    weights = N ** np.arange(size)
    subset_code = {int(np.dot(c, weights)): i for i, c in enumerate(combinations(range(N), size))}
    counts = np.bincount([subset_code[c] for c in (s @ weights).tolist()], minlength=len(subset_code))
    if len(subset_code) > 1:
        assert stats.chisquare(counts).pvalue > 1e-6
    n_tuples = math.perm(N, size)
    if n_tuples <= 5040:
        tuple_code = {int(np.dot(t, weights)): i for i, t in enumerate(permutations(range(N), size))}
        counts = np.bincount([tuple_code[c] for c in (idx @ weights).tolist()], minlength=n_tuples)
        assert n / n_tuples >= 5 and stats.chisquare(counts).pvalue > 1e-6


def test_fixed_size_batches_for_few_chains_are_uniform_ordered_tuples():
    """Few chains per call (n_chains N <= 150 size^2) take the random-key branch: 3,000 calls of 40 chains, each row a
    uniform ordered 3-tuple of distinct indices of 6 (chi-square over the 120 tuples, rejected only at p < 1e-6)."""
    rng = np.random.default_rng(28)
    idx = np.concatenate([draw_minibatches(rng, 40, 6, 3) for _ in range(3000)])
    code = {t: i for i, t in enumerate(permutations(range(6), 3))}
    counts = np.bincount([code[t] for t in map(tuple, idx.tolist())], minlength=len(code))
    assert stats.chisquare(counts).pvalue > 1e-6


def test_fixed_size_pairwise_inclusion_at_the_audit_size():
    """b = 10 of N = 100: P(i and j in the batch) = b (b - 1) / (N (N - 1)) for every pair; joint frequencies over
    n = 200,000 rows within z standard errors, z for the 4950 pairs; each record with frequency b/N."""
    rng = np.random.default_rng(26)
    n, N, b = 200_000, 100, 10
    idx = draw_minibatches(rng, n, N, b)
    inc = np.zeros((n, N))
    inc[np.arange(n)[:, None], idx] = 1.0
    assert np.all(inc.sum(axis=1) == b)
    p1 = b / N
    assert np.all(np.abs(inc.mean(axis=0) - p1) < _z(N) * math.sqrt(p1 * (1 - p1) / n))
    p2 = b * (b - 1) / (N * (N - 1))
    joint = (inc.T @ inc / n)[np.triu_indices(N, 1)]
    assert np.all(np.abs(joint - p2) < _z(joint.size) * math.sqrt(p2 * (1 - p2) / n))


# -- the unpadded layout ---------------------------------------------------------------------------------------------
def test_flatten_batches_drops_zero_weights_and_keeps_repeats():
    idx = np.array([[3, 1, 3], [0, 2, 2], [4, 4, 4]])
    flat = flatten_batches(idx)
    assert flat.weights is None and flat.records.tolist() == idx.ravel().tolist() and flat.indptr.tolist() == [0, 3, 6, 9]
    mask = np.array([[True, False, True], [False, False, False], [True, True, False]])
    flat = flatten_batches(idx, mask)
    assert flat.weights is None and flat.records.tolist() == [3, 3, 4, 4] and flat.indptr.tolist() == [0, 2, 2, 4]
    assert flat.chains().tolist() == [0, 0, 2, 2] and flat.counts().tolist() == [2, 0, 2]
    w = np.array([[0.5, 0.0, 2.0], [0.0, 0.0, 0.0], [1.0, -1.0, 0.0]])
    flat = flatten_batches(idx, w)
    assert flat.records.tolist() == [3, 3, 4, 4] and flat.weights.tolist() == [0.5, 2.0, 1.0, -1.0]
    table = np.arange(10.0).reshape(5, 2)
    expected = np.array([0.5 * table[3] + 2.0 * table[3], [0.0, 0.0], table[4] - table[4]])
    np.testing.assert_array_equal(flat.record_sum(flat.weights, table), expected)
    np.testing.assert_array_equal(flat.pair_sum(flat.weights), [2.5, 0.0, 0.0])
    with pytest.raises(ValueError, match="shape"):
        flatten_batches(idx, w[:, :2])
    empty = flatten_batches(np.zeros((4, 0), dtype=int))
    assert empty.records.size == 0 and empty.indptr.tolist() == [0] * 5


@pytest.mark.parametrize("d, q", [(2, 0.1), (10, 0.1), (10, 0.02)])
def test_flat_dots_both_layouts(d, q, monkeypatch):
    """theta_c . table_r per pair, by gathered rows (d < 8 or small batches) or by blocks of dense margins (d >= 8,
    batches >= 8% of N; small blocks here so that several blocks, and empty ones, are crossed)."""
    monkeypatch.setattr(minibatch_module, "_DOTS_BLOCK_ELEMENTS", 700)
    rng = np.random.default_rng(27)
    n, N = 300, 100
    table, theta = rng.standard_normal((N, d)), rng.standard_normal((n, d))
    idx, mask = draw_poisson_minibatches(rng, n, N, q)
    mask[5:40] = False  # a run of empty batches spanning a block
    flat = flatten_batches(idx, mask)
    reference = np.einsum("md,md->m", table[flat.records], theta[flat.chains()])
    np.testing.assert_allclose(flat.dots(theta, table), reference, rtol=1e-13, atol=1e-13)


# -- batch gradients vs a plain per-record computation ---------------------------------------------------------------
def _reference_sum(model, X, idx, theta, clip, weights):
    """Plain per-record reference: for each chain and each batch entry, the gradient from ``grad_log_likelihood``
    (one record at a time), clipped by ``clip_gradients``, times its weight, summed in order."""
    out = np.zeros(theta.shape)
    for c in range(theta.shape[0]):
        g = model.grad_log_likelihood(X[idx[c]], theta[c])  # (b, d)
        if clip is not None:
            g = clip_gradients(g, clip)
        w = np.ones(idx.shape[1]) if weights is None else np.asarray(weights[c], dtype=float)
        out[c] = (w[:, None] * g).sum(axis=0)
    return out


def _batches(kind: str, rng, n: int, N: int):
    if kind == "poisson":
        idx, mask = draw_poisson_minibatches(rng, n, N, 0.1)
        return idx, mask
    if kind == "poisson_float":  # float weights, some zero
        idx, mask = draw_poisson_minibatches(rng, n, N, 0.1)
        return idx, mask * rng.uniform(-1.0, 2.0, idx.shape) * (rng.random(idx.shape) < 0.8)
    if kind == "fixed":
        return draw_minibatches(rng, n, N, 10), None
    return rng.integers(0, N, size=(n, 7)), None  # "repeats": a record may appear twice


GRADIENT_CASES = [(kind, clip) for kind in ("poisson", "poisson_float", "fixed", "repeats") for clip in (None, 0.5)]


def _check_against_reference(model, X, rng, kind, clip, n=120):
    prepared = model.prepare(X)
    N = X.shape[0]
    theta = rng.standard_normal((n, model.dim))
    idx, weights = _batches(kind, rng, n, N)
    got = model.minibatch_gradient(prepared, idx, theta, clip=clip, weights=weights)
    ref = _reference_sum(model, X, idx, theta, clip, weights)
    # float rounding: each sum of b terms is off by at most ~b eps sum |terms|; sum |terms| <= b max|g| here
    scale = 1.0 + np.abs(ref).max() + (clip if clip is not None else np.abs(model.grad_log_likelihood(X, theta)).max())
    np.testing.assert_allclose(got, ref, rtol=0, atol=1e-13 * idx.shape[1] * scale)
    if clip is not None:  # the clip is active on a good share of the terms, so skipping it cannot pass
        norms = np.linalg.norm(model.grad_log_likelihood(X, theta), axis=-1)
        assert np.mean(norms > clip) > 0.3
        unclipped = model.minibatch_gradient(prepared, idx, theta, clip=None, weights=weights)
        assert np.abs(unclipped - ref).max() > 1e-3


@pytest.mark.parametrize("kind, clip", GRADIENT_CASES)
@pytest.mark.parametrize("d", [1, 2, 10])
def test_logistic_minibatch_gradient_matches_per_record_reference(d, kind, clip, monkeypatch):
    """LogisticRegression: d = 10 takes the dense-margin layout (Poisson q = 0.1 is above the 8% switch), d <= 2 the
    gathered rows; small blocks (monkeypatched) so that several blocks of chains and of dense margins are crossed."""
    monkeypatch.setattr(logistic_module, "_BLOCK_ELEMENTS", 1000)
    monkeypatch.setattr(minibatch_module, "_DOTS_BLOCK_ELEMENTS", 1500)
    rng = np.random.default_rng(30 + d)
    model = LogisticRegression(d, R=4.0)
    X = make_logistic_dataset(100, d, rng, R=4.0)
    _check_against_reference(model, X, rng, kind, clip)


@pytest.mark.parametrize("kind, clip", GRADIENT_CASES)
@pytest.mark.parametrize("model", [GaussianTarget(3, R=2.0, noise_variance=0.7), NonConvexTarget(3, R=2.0)],
                         ids=["gaussian", "nonconvex"])
def test_target_minibatch_gradient_matches_per_record_reference(model, kind, clip, monkeypatch):
    monkeypatch.setattr(targets_module, "_BLOCK_ELEMENTS", 1000)
    rng = np.random.default_rng(40)
    X = rng.standard_normal((100, 3))
    X *= 2.0 / np.maximum(2.0, np.linalg.norm(X, axis=1, keepdims=True))
    _check_against_reference(model, X, rng, kind, clip)


def test_gaussian_minibatch_gradient_matches_per_record_reference_with_clip():
    """Named for the mutation check: GaussianTarget's clipped branch (also among the parametrised cases)."""
    model = GaussianTarget(2, R=1.0, noise_variance=0.5)
    rng = np.random.default_rng(41)
    X = rng.standard_normal((100, 2))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    _check_against_reference(model, X, rng, "poisson", 0.5)


@pytest.mark.parametrize("model", [LogisticRegression(3, R=2.0), GaussianTarget(3, R=2.0), NonConvexTarget(3, R=2.0)],
                         ids=["logistic", "gaussian", "nonconvex"])
def test_per_record_gradients_and_full_data_terms(model):
    """per_record_gradients gathers grad_log_likelihood's rows; full_data_terms (where defined) sums the log
    likelihood and the gradient over all records."""
    rng = np.random.default_rng(42)
    if isinstance(model, LogisticRegression):
        X = make_logistic_dataset(40, 3, rng, R=2.0)
    else:
        X = rng.standard_normal((40, 3))
        X *= 2.0 / np.maximum(2.0, np.linalg.norm(X, axis=1, keepdims=True))
    prepared = model.prepare(X)
    theta = rng.standard_normal((25, 3))
    idx = rng.integers(0, 40, size=(25, 6))
    full = model.grad_log_likelihood(X, theta)  # (25, 40, 3)
    np.testing.assert_allclose(model.per_record_gradients(prepared, idx, theta),
                               full[np.arange(25)[:, None], idx], rtol=1e-13, atol=1e-14)
    if hasattr(model, "full_data_terms"):
        ll, g = model.full_data_terms(prepared, theta)
        np.testing.assert_allclose(ll, model.log_likelihood(X, theta).sum(axis=-1), rtol=1e-12)
        np.testing.assert_allclose(g, full.sum(axis=1), rtol=1e-12, atol=1e-12)


def test_flat_batch_is_a_named_tuple_of_arrays():
    flat = FlatBatch(np.array([1, 0], dtype=np.int32), np.array([0, 2], dtype=np.int32), None)
    assert flat.n_chains == 1 and flat.record_sum(np.ones(2), np.eye(2)).tolist() == [[1.0, 1.0]]
