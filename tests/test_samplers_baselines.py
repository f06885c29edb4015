"""Baseline mechanisms as samplers, and the noisy MC estimator (Bertazzi et al. 2025, eq. 7).

Statistical tolerances are stated next to each test (seeded; derived from the Monte Carlo error).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpverify.samplers.baselines import (
    AnalyticGaussianMechanismSampler,
    ExponentialMechanismSampler,
    GaussianMechanismSampler,
    LaplaceMechanismSampler,
)
from dpverify.samplers.mc_estimator import NoisyMCEstimator, hoeffding_radius
from dpverify.theorems.base import HypothesisError

KS_LEVEL = 1e-3


# -- Laplace ------------------------------------------------------------------------------------
def test_laplace_count_distribution_and_exact_epsilon():
    s = LaplaceMechanismSampler(epsilon=0.5)
    d, d2 = np.array([1, 1, 0, 1]), np.array([1, 1, 0, 0])
    x = s.sample(d, 20000, np.random.default_rng(0))[:, 0]
    assert stats.kstest(x, stats.laplace(loc=3.0, scale=2.0).cdf).pvalue > KS_LEVEL
    assert s.exact_epsilon(d, d2, 0.0) == pytest.approx(0.5)
    # delta > 0: eps(delta) = mu + 2 log(1 - delta) with mu = 1/b = 0.5 (Laplace hockey-stick closed form)
    assert s.exact_epsilon(d, d2, 0.1) == pytest.approx(0.5 + 2 * math.log(0.9))
    assert s.guarantee().epsilon == 0.5 and s.guarantee().theorem == "foulds2016.eq3_laplace_mechanism"


def test_laplace_mean_query_log_density_is_normalised():
    s = LaplaceMechanismSampler(epsilon=1.0, query="mean", lower=-1.0, upper=3.0)
    d = np.array([0.5, 2.0, -1.0, 3.0])
    total = integrate.quad(lambda y: math.exp(s.log_density(d, [[y]])[0]), -30, 30, points=[1.125])[0]
    assert total == pytest.approx(1.0, abs=1e-8)
    # sensitivity (upper - lower)/N = 1; a pair at distance 1 has exact epsilon = eps
    assert s.exact_epsilon(d, np.array([0.5, 2.0, -1.0, -1.0]), 0.0) == pytest.approx(1.0)


# -- Gaussian -------------------------------------------------------------------------------------
def test_classic_gaussian_hypothesis_and_exact_epsilon():
    with pytest.raises(HypothesisError, match="epsilon_below_one"):
        GaussianMechanismSampler(epsilon=1.5, delta=1e-5)
    s = GaussianMechanismSampler(epsilon=0.5, delta=1e-5)
    d, d2 = np.array([1, 1, 0]), np.array([1, 1, 1])
    exact = s.exact_epsilon(d, d2, 1e-5)
    assert exact <= 0.5  # the classic calibration is conservative (Balle & Wang 2018, Sec. 2)
    assert s.exact_epsilon(d, d2, 0.0) == math.inf
    c = s.guarantee()
    assert (c.epsilon, c.delta, c.guaranteed) == (0.5, 1e-5, True)
    u = GaussianMechanismSampler(epsilon=1.5, delta=1e-5, unguaranteed=True)
    assert u.guarantee().guaranteed is False
    sigma = u._mechanism(3).sigma
    assert sigma == pytest.approx(math.sqrt(2 * math.log(1.25 / 1e-5)) / 1.5)  # the theorem's formula


def test_analytic_gaussian_is_tight():
    s = AnalyticGaussianMechanismSampler(epsilon=2.0, delta=1e-6)
    d, d2 = np.array([0, 1]), np.array([1, 1])
    assert s.exact_epsilon(d, d2, 1e-6) == pytest.approx(2.0, rel=1e-6)
    x = s.sample(d, 20000, np.random.default_rng(1))[:, 0]
    sigma = s._mechanism(2).sigma
    assert stats.kstest(x, stats.norm(1.0, sigma).cdf).pvalue > KS_LEVEL


# -- exponential ----------------------------------------------------------------------------------
def test_exponential_mechanism_frequencies_and_epsilon():
    s = ExponentialMechanismSampler(epsilon=1.0, K=3)
    d = np.array([0, 0, 0, 1, 2, 2])
    x = s.sample(d, 60000, np.random.default_rng(2))[:, 0]
    p = np.exp(0.5 * np.array([3, 1, 2]))
    p /= p.sum()
    freq = np.bincount(x, minlength=3) / x.size
    # binomial SE sqrt(p(1-p)/n) <= 0.5/sqrt(6e4) = 2e-3; 5 SE
    np.testing.assert_allclose(freq, p, atol=0.01)
    d2 = np.array([0, 0, 1, 1, 2, 2])
    e = s.exact_epsilon(d, d2, 0.0)
    assert 0 < e <= 1.0
    np.testing.assert_allclose(np.exp(s.log_density(d, [[0], [1], [2]])), p)


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: LaplaceMechanismSampler(epsilon=-1), "epsilon"),
        (lambda: LaplaceMechanismSampler(query="median"), "query"),
        (lambda: LaplaceMechanismSampler(query="mean", lower=1.0, upper=0.0), "upper"),
        (lambda: GaussianMechanismSampler(epsilon=0.5, delta=0.0), "delta"),
        (lambda: ExponentialMechanismSampler(K=1), "K"),
    ],
)
def test_bad_parameters(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_bad_datasets():
    with pytest.raises(ValueError, match="0 or 1"):
        LaplaceMechanismSampler().sample([0, 2], 3, 0)
    with pytest.raises(ValueError, match=r"in \[0.0, 1.0\]"):
        LaplaceMechanismSampler(query="mean").sample([0.5, 1.5], 3, 0)
    with pytest.raises(ValueError, match="1-d"):
        LaplaceMechanismSampler().sample([[0, 1]], 3, 0)
    with pytest.raises(ValueError, match="same size"):
        LaplaceMechanismSampler().exact_epsilon([0, 1], [0, 1, 1], 0.0)
    with pytest.raises(ValueError, match="integers"):
        ExponentialMechanismSampler(K=3).sample([0, 3], 2, 0)


# -- noisy MC estimator ----------------------------------------------------------------------------
def test_hoeffding_radius_meets_its_failure_probability():
    """i.i.d. draws in [0, 1]: the frequency of |mean - E| > r over 20000 runs must be <= delta_bar = 0.05
    up to MC error: the binomial SE at 0.05 is sqrt(0.05*0.95/2e4) = 1.5e-3; allow 5 SE."""
    n, db = 50, 0.05
    r = hoeffding_radius(n, 1.0, db)
    draws = np.random.default_rng(3).beta(2.0, 5.0, size=(20000, n))
    freq = np.mean(np.abs(draws.mean(axis=1) - 2.0 / 7.0) > r)
    assert freq <= db + 5 * math.sqrt(db * (1 - db) / 20000)


def test_mc_estimator_prop37_calibration():
    s = NoisyMCEstimator(epsilon=0.5, n_steps=200, N=20, calibration="prop37")
    assert s.sensitivity == pytest.approx(0.9) and s.scale == pytest.approx(1.8)  # range of f(p) = p on [.05,.95]
    data = np.r_[np.ones(5, int), np.zeros(15, int)]
    avg = s.ergodic_averages(data, 4000, np.random.default_rng(4))
    # mean of 4000 averages of 200 draws: sd of one draw < 0.1, SE < 0.1/sqrt(8e5) ~ 1.1e-4; 5 SE
    assert avg.mean() == pytest.approx(float(s.target_values(5)), abs=6e-4)


def test_mc_estimator_target_sensitivity_matches_scalar_means():
    from dpverify.models.beta_bernoulli import TruncatedBeta

    s = NoisyMCEstimator(N=12, n_steps=100, calibration="prop37")
    means = [TruncatedBeta(1 + k, 1 + 12 - k, 0.05, 0.95).mean() for k in range(13)]
    assert s.target_sensitivity() == pytest.approx(max(abs(b - a) for a, b in zip(means, means[1:])), rel=1e-10)
    c = NoisyMCEstimator(N=12, n_steps=100, calibration="prop37", test_function="cdf", threshold=0.4)
    cdfs = [TruncatedBeta(1 + k, 13 - k, 0.05, 0.95).interval_probability(0.05, 0.4) for k in range(13)]
    assert c.target_sensitivity() == pytest.approx(max(abs(b - a) for a, b in zip(cdfs, cdfs[1:])), rel=1e-8)


def test_mc_estimator_prop310_claim():
    s = NoisyMCEstimator(epsilon=1.0, n_steps=10000, N=100, delta_bar=1e-6)
    assert s.sensitivity == pytest.approx(2 * hoeffding_radius(10000, 0.9, 1e-6) + s.C_f)
    c = s.guarantee()
    assert c.theorem == "bertazzi2025.prop310_mc_estimator" and c.epsilon == 1.0
    assert c.delta == pytest.approx(1 - (1 - 1e-6) ** 2)
    assert s.sensitivity < NoisyMCEstimator(n_steps=10000, N=100, calibration="prop37").sensitivity


@pytest.mark.parametrize(
    "kwargs, match",
    [({"calibration": "x"}, "calibration"), ({"test_function": "median"}, "test_function"),
     ({"delta_bar": 1.0}, "delta_bar"), ({"threshold": 0.99}, "threshold")],
)
def test_mc_estimator_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        NoisyMCEstimator(**kwargs)


def test_mc_estimator_dataset_size_is_checked():
    with pytest.raises(ValueError, match="N = 20"):
        NoisyMCEstimator(N=20, calibration="prop37").sample(np.ones(5, int), 2, 0)
