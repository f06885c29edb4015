"""Scalar statistics, threshold search, event search and split plan (dpverify.audit.statistics,
events, classifier, split)."""
import numpy as np
import pytest

from dpverify.audit import classifier
from dpverify.audit.classifier import learned_log_odds
from dpverify.audit.events import is_discrete, outcome_log_ratio
from dpverify.audit.split import SplitPlan, draw
from dpverify.audit.statistics import best_threshold, best_thresholds, mean_difference_projection


def test_best_threshold_on_exact_counts():
    # s0: 100 each on {0..9}; s1: 110 each on {0..8} and 10 on 9. {s >= 9} has rates 0.1 vs 0.01
    # (log ratio 2.3); every other upper set has ratio <= 0.1 * k / (0.11 * (k - 1) + 0.01) < 2,
    # so it is the best event, more likely under M(D). Its threshold sits between the atoms 8 and 9 (never on a value).
    s0 = np.repeat(np.arange(10.0), 100)
    s1 = np.concatenate([np.repeat(np.arange(9.0), 110), np.full(10, 9.0)])
    ev = best_threshold(s0, s1, delta=0.0, alpha=0.05)
    assert (ev.threshold, ev.complement, ev.d_high) == (8.5, False, True)
    assert ev.count(s0) == 100 and ev.count(s1) == 10
    assert len(best_thresholds(s0, s1, delta=0.0, alpha=0.05)) == 4


def test_projection_points_from_neighbour_to_dataset_mean():
    rng = np.random.default_rng(0)
    x0 = rng.normal(0, 1, (2000, 3)) + np.array([1.0, 0, 0])
    x1 = rng.normal(0, 1, (2000, 3))
    stat = mean_difference_projection(x0, x1)
    assert stat(np.array([[5.0, 0, 0]]))[0] > 0 > stat(np.array([[-5.0, 0, 0]]))[0]
    same = mean_difference_projection(np.zeros((4, 2)), np.zeros((4, 2)))  # no difference: first axis
    assert same(np.array([[1.0, 7.0]]))[0] == pytest.approx(1.0)


def test_outcome_log_ratio_and_discreteness():
    x0 = np.array([0] * 60 + [1] * 30 + [2] * 10)
    x1 = np.array([0] * 10 + [1] * 30 + [2] * 60)
    stat = outcome_log_ratio(x0, x1)
    s = stat(np.array([0, 1, 2, 7]))
    assert s[0] > 0 and s[1] == pytest.approx(0.0) and s[2] < 0 and s[3] == 0.0  # 7 unseen -> 0
    rows = outcome_log_ratio(np.array([[True, False]] * 5), np.array([[False, True]] * 5))
    assert rows(np.array([[True, False], [False, True], [True, True]])).tolist()[2] == 0.0
    assert is_discrete(x0, x1)
    assert not is_discrete(np.random.default_rng(0).normal(size=100), np.random.default_rng(1).normal(size=100))


def test_learned_log_odds_orders_outputs():
    rng = np.random.default_rng(0)
    x0, x1 = rng.normal(1.0, 1.0, (2000, 2)), rng.normal(0.0, 1.0, (2000, 2))
    for model in ("logistic", "boosting"):
        stat = learned_log_odds(x0, x1, model=model)
        s = stat(np.array([[3.0, 3.0], [-3.0, -3.0]]))
        assert s[0] > s[1]
    with pytest.raises(ValueError, match="model"):
        learned_log_odds(x0, x1, model="svm")


def _random_walk_pair(rng, n, d, step, shift):
    """Paths of a Gaussian random walk of ``d`` steps; under D the increment ``step`` is shifted by ``shift``: the
    coordinates are strongly correlated (an ill-conditioned fit, like a sampler's path) and the exact log-likelihood
    ratio depends on that one increment only."""
    z0, z1 = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    z0[:, step] += shift
    return np.cumsum(z0, axis=1), np.cumsum(z1, axis=1)


@pytest.mark.parametrize("newton_max_features", [classifier.NEWTON_MAX_FEATURES, 10])
def test_the_logistic_classifier_is_fitted_to_the_optimum_on_correlated_paths(monkeypatch, newton_max_features):
    """Both fits (Newton up to NEWTON_MAX_FEATURES features, L-BFGS beyond; here 100 features, the second case
    forcing L-BFGS) reach the penalised optimum, whose log-odds track the exact log-likelihood ratio
    0.5 (u^2 - (u - 0.5)^2) of the shifted increment u: correlation 0.964 (Newton) and 0.965 (L-BFGS) on 2 x 10,000
    fresh paths (seed 0; the standard error of a correlation near 0.96 at this size is about 5e-4, the rest of the gap
    to 1 is the fit's own noise on 100 features). A fit stopped short of the optimum (L-BFGS after 20 iterations)
    gives 0.80, after 50 iterations 0.958: the bound 0.96 fails both."""
    monkeypatch.setattr(classifier, "NEWTON_MAX_FEATURES", newton_max_features)
    rng = np.random.default_rng(0)
    d, step = 50, 25
    stat = learned_log_odds(*_random_walk_pair(rng, 10_000, d, step, 0.5))
    y = np.concatenate(_random_walk_pair(rng, 10_000, d, step, 0.5))
    u = y[:, step] - y[:, step - 1]
    assert np.corrcoef(stat(y), 0.5 * (u ** 2 - (u - 0.5) ** 2))[0, 1] > 0.96


def test_split_plan_and_seeded_draw():
    plan = SplitPlan.make(1000, 0.2, 300)
    assert (plan.n_selection, plan.n_estimation) == (200, 800)
    assert plan.chunk_sizes(800) == [300, 300, 200]

    def mech(d, n, rng):
        return d + rng.random(n)

    (a0, a1), est = draw(mech, (0.0, 10.0), plan, seed=3)
    chunks = list(est)
    (b0, _), est_b = draw(mech, (0.0, 10.0), plan, seed=3)
    assert a0.shape == (200,) and a1.min() >= 10.0 and [c[0].size for c in chunks] == [300, 300, 200]
    np.testing.assert_array_equal(a0, b0)
    np.testing.assert_array_equal(chunks[0][0], next(est_b)[0])
    # the two sides and all chunks use different streams
    assert not np.allclose(a1[:100] - 10.0, a0[:100])
    assert not np.allclose(chunks[0][0][:200], a0)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, float, np.uint8])
def test_unique_rows_by_keys_equals_numpy_rowwise_unique(dtype):
    """The key-based distinct rows of the discrete-outcome test are numpy's ``unique(axis=0)``: same rows, same
    (lexicographic) order, same inverse, same dtype -- for integer rows with negative values, and for non-integer floats
    (which take numpy's path). A key collision or an order change would break the equality."""
    from dpverify.audit.events import _unique_rows

    rng = np.random.default_rng(5)
    low = 0 if dtype is np.uint8 else -3
    rows = rng.integers(low, low + 7, size=(5000, 4)).astype(dtype)
    got, inverse = _unique_rows(rows, return_inverse=True)
    want, want_inverse = np.unique(rows, axis=0, return_inverse=True)
    assert got.dtype == rows.dtype and np.array_equal(got, want) and np.array_equal(inverse, want_inverse.reshape(-1))
    halves = rows + 0.5 * rng.integers(0, 2, size=rows.shape)  # non-integer floats: the numpy path
    got, inverse = _unique_rows(halves, return_inverse=True)
    want, want_inverse = np.unique(halves, axis=0, return_inverse=True)
    assert np.array_equal(got, want) and np.array_equal(inverse, want_inverse.reshape(-1))


def test_tradeoff_curve_with_infinite_statistic_values_has_no_nan():
    """A likelihood ratio of +-inf on outcomes only one side can produce (SVT5, iSVT1): the trade-off thresholds are
    sample values, so alpha and beta stay in [0, 1] (linear interpolation gave inf - inf = NaN thresholds)."""
    import warnings

    from dpverify.audit.tradeoff import tradeoff_curve

    s0 = np.concatenate([np.full(50, np.inf), np.linspace(-1.0, 1.0, 50)])
    s1 = np.concatenate([np.full(50, -np.inf), np.linspace(-1.0, 1.0, 50)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        curve = tradeoff_curve(s0, s1)
    alpha, beta = np.array(curve["alpha"]), np.array(curve["beta"])
    assert np.all(np.isfinite(alpha)) and np.all(np.isfinite(beta))
    assert alpha.min() >= 0 and alpha.max() <= 1 and beta.min() >= 0 and beta.max() <= 1
    assert np.all(np.diff(alpha) <= 0) and np.all(np.diff(beta) >= 0)


def _value_pairs():
    """Statistic values of the kinds an audit meets: continuous, discrete (atoms), rounded, with infinities, with NaN."""
    rng = np.random.default_rng(7)
    out = []
    for kind in range(5):
        for _ in range(12):
            n0, n1 = (int(v) for v in rng.integers(1, 2500, 2))
            if kind == 0:
                s0, s1 = rng.normal(size=n0), rng.normal(0.5, 1.0, n1)
            elif kind == 1:
                s0, s1 = rng.integers(0, 7, n0).astype(float), rng.integers(0, 9, n1).astype(float)
            elif kind == 2:
                s0, s1 = rng.laplace(size=n0).round(2), rng.laplace(size=n1).round(3)
            else:
                s0, s1 = rng.normal(size=n0), rng.normal(size=n1)
                s0[rng.random(n0) < 0.05] = np.inf
                s1[rng.random(n1) < 0.05] = -np.inf
                if kind == 4:
                    s0[:3] = np.nan
            out.append((s0, s1))
    return out


@pytest.mark.parametrize("max_candidates", [4, 64, 512])
def test_thresholds_and_counts_equal_the_separate_passes(max_candidates):
    # The audit's threshold sample is fitted by one sort per side (thresholds_and_counts); it must give exactly the
    # thresholds of threshold_candidates and the counts of count_at_least (the golden numbers rest on both), on
    # atoms, infinities and NaN alike; and the quantile read from the sorted values must be numpy's inverted_cdf.
    from dpverify.audit.statistics import (
        _inverted_cdf,
        count_at_least,
        threshold_candidates,
        thresholds_and_counts,
    )

    for s0, s1 in _value_pairs():
        t, k0, k1 = thresholds_and_counts(s0, s1, max_candidates=max_candidates)
        expected = threshold_candidates(s0, s1, max_candidates=max_candidates)
        assert np.array_equal(t, expected)
        assert np.array_equal(k0, count_at_least(s0, expected)) and np.array_equal(k1, count_at_least(s1, expected))
        pooled = np.concatenate([s0, s1])
        pooled = np.sort(pooled[~np.isnan(pooled)])
        q = np.linspace(0.0, 1.0, max_candidates)
        assert np.array_equal(_inverted_cdf(pooled, q), np.quantile(pooled, q, method="inverted_cdf"))
