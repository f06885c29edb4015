"""Bounded-memory selection of the auditor: the fit cap, candidate thresholds from a bounded sample, counts streamed
chunk by chunk (dpverify.audit.select, .statistics, .split). Every check compares the streamed computation with a direct
one on the same values (same seeds), so no statistical tolerance is involved unless stated."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

import dpverify.audit.select as select
from dpverify.audit import audit
from dpverify.audit.split import ChunkSampler, SplitPlan
from dpverify.audit.statistics import (
    best_events,
    best_thresholds,
    count_at_least,
    evaluate,
    identity,
    row_keys,
    threshold_candidates,
)

D0, D1 = np.array([0.0]), np.array([1.0])


def laplace(dataset, n, rng):
    return float(np.sum(dataset)) + rng.laplace(0.0, 1.0, n)


def test_count_at_least_matches_sorting_and_adds_over_chunks():
    rng = np.random.default_rng(0)
    values = np.round(rng.normal(size=10_000), 1)  # many atoms, some equal to candidates
    cand = np.unique(np.round(rng.normal(size=50), 1))
    direct = np.array([np.count_nonzero(values >= t) for t in cand])
    np.testing.assert_array_equal(count_at_least(values, cand), direct)
    chunked = sum(count_at_least(part, cand) for part in np.array_split(values, 7))
    np.testing.assert_array_equal(chunked, direct)
    assert count_at_least(values, cand).dtype == np.int64


def test_best_thresholds_is_candidates_counts_and_events():
    rng = np.random.default_rng(1)
    s0, s1 = rng.laplace(0.0, 1.0, 3000), rng.laplace(1.0, 1.0, 3000)
    cand = threshold_candidates(s0, s1)
    assert cand.size <= 512 and np.all(np.diff(cand) > 0)
    split = best_events(count_at_least(s0, cand), s0.size, count_at_least(s1, cand), s1.size, cand,
                        delta=0.0, alpha=0.05)
    assert split == best_thresholds(s0, s1, delta=0.0, alpha=0.05)


def _direct(mechanism, samples, seed, chunk_size, fit_cap, threshold_sample, alpha=0.05):
    """The streamed selection recomputed with everything in memory: test='threshold' on scalar outputs is the identity
    statistic, which needs no fit, so the event depends only on the scoring values."""
    plan = SplitPlan.make(samples, 0.2, chunk_size)
    sampler = ChunkSampler(mechanism, (D0, D1), plan, seed)
    chunks = [sampler.chunk(j) for j in range(sampler.n_chunks)]
    n_sel = len(sampler.selection_sizes)
    sel0 = np.concatenate([c[0] for c in chunks[:n_sel]])
    sel1 = np.concatenate([c[1] for c in chunks[:n_sel]])
    n_fit = min(plan.n_selection // 2, fit_cap)
    score0, score1 = sel0[n_fit:], sel1[n_fit:]
    cand = threshold_candidates(score0[:threshold_sample], score1[:threshold_sample])
    events = best_events(count_at_least(score0, cand), score0.size, count_at_least(score1, cand), score1.size, cand,
                         delta=0.0, alpha=alpha)
    est0 = np.concatenate([c[0] for c in chunks[n_sel:]])
    est1 = np.concatenate([c[1] for c in chunks[n_sel:]])
    return events[0], est0, est1


@pytest.mark.parametrize("fit_cap,threshold_sample", [(10**9, 10**9), (700, 900), (3000, 50)])
def test_streamed_selection_equals_direct_computation(fit_cap, threshold_sample):
    # 20,000 per side in chunks of 1,500: 4,000 selection outputs (fit half 2,000 unless capped), so (700, 900) and
    # (3000, 50) stream most of the scoring part through chunks; (10^9, 10^9) is the unbounded audit.
    r = audit(laplace, D0, D1, epsilon=1.0, samples=20_000, seed=4, chunk_size=1_500, test="threshold",
              fit_cap=fit_cap, threshold_sample=threshold_sample)
    event, est0, est1 = _direct(laplace, 20_000, 4, 1_500, fit_cap, threshold_sample)
    cand = r.candidates[0]
    # the same counts; the score is the same Clopper-Pearson bound up to its last bits (vectorised special functions
    # over candidate arrays of other lengths and alignments)
    assert cand["selection_score"] == pytest.approx(event.score, rel=1e-12)
    assert cand["event"] == event.describe(identity(None, None))
    k0, k1 = np.count_nonzero(est0 >= event.threshold), np.count_nonzero(est1 >= event.threshold)
    if event.complement:
        k0, k1 = est0.size - k0, est1.size - k1
    assert (cand["dataset_in_event"], cand["neighbour_in_event"]) == (k0, k1)


def test_fit_cap_limits_what_the_statistics_see(monkeypatch):
    seen = []
    original = select.candidate_statistics

    def spy(plan, mechanism, dataset, neighbour, f0, f1):
        seen.append((f0.shape[0], f1.shape[0]))
        return original(plan, mechanism, dataset, neighbour, f0, f1)

    monkeypatch.setattr(select, "candidate_statistics", spy)
    audit(laplace, D0, D1, epsilon=1.0, samples=20_000, seed=0, chunk_size=1_000, fit_cap=600)
    audit(laplace, D0, D1, epsilon=1.0, samples=20_000, seed=0, chunk_size=1_000)
    assert seen == [(600, 600), (2000, 2000)]  # capped; else half of the 4,000 selection outputs


def _peak_bytes(samples: int) -> int:
    tracemalloc.start()
    audit(laplace, D0, D1, epsilon=1.0, samples=samples, seed=0, chunk_size=1 << 13, fit_cap=1 << 12,
          threshold_sample=1 << 12, test="threshold")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_peak_memory_does_not_grow_with_the_budget():
    # With 8,192-output chunks and caps of 4,096, the held data is a few chunks of float64 (~64 kB each per side),
    # whatever the budget. Unbounded, the selection part alone would be 2 x 0.2 x 2e6 x 8 B = 6.4 MB at 2e6 per side.
    small, large = _peak_bytes(200_000), _peak_bytes(2_000_000)
    assert large < 1.5 * small + 200_000, (small, large)
    assert large < 3_000_000, large


def test_evaluate_on_discrete_rows_equals_the_statistic():
    rng = np.random.default_rng(2)
    flags = rng.integers(-1, 2, size=(5_000, 6)).astype(np.int8)
    flags[:, 3:] = -1  # 27 distinct rows

    def stat(x):
        x = np.asarray(x, dtype=float)
        return np.sin(x @ np.arange(1.0, 7.0)) + x[:, 0]

    np.testing.assert_array_equal(evaluate(stat, flags), stat(flags))
    np.testing.assert_array_equal(evaluate(stat, flags.astype(float)), stat(flags))
    calls = []
    evaluate(lambda x: calls.append(len(x)) or stat(x), flags)
    assert calls == [27]  # one call on the distinct rows only
    index = rng.integers(0, 5, size=5_000)
    np.testing.assert_array_equal(evaluate(lambda x: 0.3 * x, index), 0.3 * index)
    assert row_keys(np.array([0.5, 1.0])) is None  # not integer-valued
    continuous = rng.normal(size=5_000)
    np.testing.assert_array_equal(evaluate(np.exp, continuous), np.exp(continuous))


@pytest.mark.parametrize("name,value,exc", [
    ("workers", 0, ValueError), ("workers", -2, ValueError), ("workers", 1.5, ValueError), ("workers", "2", TypeError),
    ("workers", True, TypeError), ("fit_cap", 0, ValueError), ("threshold_sample", 0, ValueError),
])
def test_bad_streaming_and_worker_arguments(name, value, exc):
    with pytest.raises(exc, match=name):
        audit(laplace, D0, D1, epsilon=1.0, samples=1_000, **{name: value})
