"""The `noisy_gd_last_iterate` sampler (Bok et al. 2024's NoisyGD on GaussianTarget's per-record loss): its draws
against its exact law, its claim against the exact privacy, its abilities and its argument checks."""
import math

import numpy as np
import pytest
from scipy import stats

from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.calculus.tradeoff import GaussianDP
from dpverify.models.targets import GaussianTarget
from dpverify.samplers import registry
from dpverify.samplers.shifted_interpolation import NoisyGDLastIterate
from dpverify.theorems.base import HypothesisError
from dpverify.theorems.bok2024.noisy_gd import noisy_gd_exact_mu

MODEL = GaussianTarget(dim=2, R=1.0, prior_variance=(1.0, 0.05))
PARAMS = {"model": MODEL, "N": 20, "step_size": 0.2, "n_steps": 30, "sigma": 0.3}


def _pair(direction: int):
    X = np.zeros((20, 2))
    X[0, direction] = 1.0
    Y = X.copy()
    Y[0, direction] = -1.0
    return X, Y


def test_registered_with_ranges():
    s = registry.make("noisy_gd_last_iterate", **PARAMS)
    assert isinstance(s, NoisyGDLastIterate) and s.output == "final"
    assert s.m == pytest.approx(1.05) and s.M == pytest.approx(2.0) and s.S_g == pytest.approx(2.0)


def test_draws_match_the_exact_law():
    """200,000 runs: the sample mean and variance per coordinate within 5 standard errors of the exact law (standard
    error of the mean sqrt(v/n), of the variance v sqrt(2/(n-1)))."""
    s = NoisyGDLastIterate(**PARAMS)
    X, _ = _pair(0)
    n = 200_000
    out = s.sample(X, n, np.random.default_rng(3))
    mean, var = s.law(X)
    assert out.shape == (n, 2)
    assert np.all(np.abs(out.mean(axis=0) - mean) <= 5 * np.sqrt(var / n))
    assert np.all(np.abs(out.var(axis=0, ddof=1) - var) <= 5 * var * math.sqrt(2 / (n - 1)))
    # the mutation the test must catch: a chain with half the noise has a quarter of the variance
    half = NoisyGDLastIterate(**{**PARAMS, "sigma": 0.15}).sample(X, n, np.random.default_rng(3))
    assert np.all(np.abs(half.var(axis=0, ddof=1) - var) > 5 * var * math.sqrt(2 / (n - 1)))


def test_claim_is_exact_on_the_least_curved_coordinate_and_above_elsewhere():
    s = NoisyGDLastIterate(**PARAMS)
    X, Y = _pair(0)  # curvature m
    assert s.pair_mu(X, Y) == pytest.approx(s.claimed_mu, rel=1e-12)
    assert s.worst_mu() == pytest.approx(s.claimed_mu, rel=1e-12)
    assert s.pair_mu(X, Y) == pytest.approx(noisy_gd_exact_mu(2.0, 20, 0.3, 0.2, 1.05, 30), rel=1e-12)
    X2, Y2 = _pair(1)  # curvature M: more contraction, less leakage
    assert s.pair_mu(X2, Y2) < 0.8 * s.claimed_mu
    claim = s.guarantee()
    assert claim.guaranteed and claim.theorem == "bok2024.thm_noisy_gd_strongly_convex_gdp"
    assert claim.epsilon == pytest.approx(gaussian_epsilon(1e-5, s.claimed_mu), rel=1e-12)
    assert s.exact_epsilon(X, Y, 1e-5) == pytest.approx(claim.epsilon, rel=1e-9)
    assert s.account(1e-5).epsilon == pytest.approx(claim.epsilon, rel=1e-9)
    assert s.guarantee(1e-3).epsilon < claim.epsilon
    assert isinstance(s.gdp_claim(), GaussianDP) and s.gdp_claim().mu == pytest.approx(s.claimed_mu)
    assert s.pair_guarantee(X, Y).mu == pytest.approx(s.claimed_mu)
    loss = s.pair_privacy_loss(X, Y)
    assert loss.exact and loss.epsilon(1e-5) == pytest.approx(claim.epsilon, rel=1e-3)


def test_log_density_is_the_gaussian_law():
    s = NoisyGDLastIterate(**PARAMS)
    X, _ = _pair(0)
    mean, var = s.law(X)
    pts = np.array([[0.0, 0.0], [0.1, -0.05], [0.3, 0.2]])
    want = stats.multivariate_normal(mean, np.diag(var)).logpdf(pts)
    assert np.allclose(s.log_density(X, pts), want, rtol=1e-12, atol=0)


def test_hypotheses_and_arguments():
    with pytest.raises(HypothesisError, match="step_size"):
        NoisyGDLastIterate(**{**PARAMS, "step_size": 0.7})  # > 2/(M + m) = 0.656
    s = NoisyGDLastIterate(**{**PARAMS, "step_size": 0.7, "unguaranteed": True})
    assert not s.guarantee().guaranteed
    for name, value in (("sigma", 0.0), ("step_size", -1.0), ("n_steps", 0), ("N", 0)):
        with pytest.raises(ValueError, match=name):
            NoisyGDLastIterate(**{**PARAMS, name: value})
    with pytest.raises(ValueError, match="GaussianTarget"):
        NoisyGDLastIterate(**{**PARAMS, "model": object()})
    s = NoisyGDLastIterate(**PARAMS)
    with pytest.raises(ValueError, match="N = 20"):
        s.sample(np.zeros((19, 2)), 5, 0)
    with pytest.raises(ValueError):
        s.sample(np.full((20, 2), 2.0), 5, 0)  # records outside the ball of radius R


def test_seeded_and_reproducible():
    s = NoisyGDLastIterate(**PARAMS)
    X, _ = _pair(0)
    assert np.array_equal(s.sample(X, 7, 11), s.sample(X, 7, 11))
    assert not np.array_equal(s.sample(X, 7, 11), s.sample(X, 7, 12))
