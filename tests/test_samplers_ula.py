"""Tests of ULA and noisy SGD (Bertazzi et al. 2025, eqs. 25 and 31): exact Gaussian law, bias, outputs, claims."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpverify.models.logistic import LogisticRegression
from dpverify.models.targets import GaussianTarget, NonConvexTarget
from dpverify.samplers.ula import NoisySGDFinal, NoisySGDPath, ULAFinal, ULAPath

N = 20


def _data(seed=30, n=N):
    return np.random.default_rng(seed).uniform(-0.6, 0.6, size=(n, 2))


def _neighbour(X):
    Y = X.copy()
    Y[0] = [0.7, -0.7]
    return Y


MODEL = GaussianTarget(2, R=1.0, noise_variance=1.0, prior_variance=[1.0, 4.0])


def test_ula_law_after_k_steps_matches_simulation():
    """k = 5 steps (far from stationary): each standardised coordinate is N(0, 1) under the closed form.
    KS test at level 1e-4 on 20,000 chains; mean within 5 SE and variance within 5 SE (sqrt(2/n) relative)."""
    X = _data()
    s = ULAFinal(MODEL, N, step_size=0.02, n_steps=5, theta0=[1.0, -2.0])
    out = s.sample(X, 20_000, np.random.default_rng(31))
    mean, var = s.law(X)
    z = (out - mean) / np.sqrt(var)
    n = out.shape[0]
    for j in range(2):
        assert stats.kstest(z[:, j], "norm").pvalue > 1e-4
        assert abs(z[:, j].mean()) < 5 / math.sqrt(n)
        assert abs(z[:, j].var() - 1) < 5 * math.sqrt(2 / n)


def test_ula_stationary_variance_is_the_biased_one():
    """Stationary ULA on a Gaussian: N(b/a, 1/(a (1 - h a/2))), exactly; the posterior variance 1/a is off by the
    O(h) factor 1/(1 - h a/2) (= 1.27 here). 100 steps: rho^100 < 1e-20, stationary to machine precision.
    Tolerances: 5 SE for the biased variance; the unbiased one must be rejected by more than 10 SE."""
    X = _data()
    h = 0.02
    s = ULAFinal(MODEL, N, step_size=h, n_steps=100)
    out = s.sample(X, 20_000, np.random.default_rng(32))
    m_stat, v_stat = MODEL.ula_stationary_law(X, h)
    _, v_post = MODEL.posterior(X)
    n = out.shape[0]
    se = v_stat * math.sqrt(2 / n)
    assert np.all(np.abs(out.mean(axis=0) - m_stat) < 5 * np.sqrt(v_stat / n))
    assert np.all(np.abs(out.var(axis=0) - v_stat) < 5 * se)
    assert np.all(np.abs(out.var(axis=0) - v_post) > 10 * se)
    np.testing.assert_allclose(s.law(X)[1], v_stat, rtol=1e-12)


def test_ula_path_shape_start_and_log_density():
    X = _data()
    s = ULAPath(MODEL, N, step_size=0.02, n_steps=7, theta0=[0.5, 0.5])
    out = s.sample(X, 300, np.random.default_rng(33))
    assert out.shape == (300, 8, 2)
    np.testing.assert_array_equal(out[:, 0], np.tile([0.5, 0.5], (300, 1)))
    # log density of a path = sum of Gaussian transition log densities (independent recomputation with scipy)
    a, b = MODEL.precision(N), MODEL.linear_term(X)
    mean = (1 - 0.02 * a) * out[:, :-1] + 0.02 * b
    ref = stats.norm.logpdf(out[:, 1:], mean, math.sqrt(0.04)).sum(axis=(1, 2))
    np.testing.assert_allclose(s.log_density(X, out), ref, rtol=1e-12)
    with pytest.raises(ValueError, match="theta0"):
        s.log_density(X, out + 1.0)


def test_ula_final_log_density_is_the_gaussian_law():
    X = _data()
    s = ULAFinal(MODEL, N, step_size=0.02, n_steps=4)
    pts = np.random.default_rng(34).standard_normal((10, 2))
    mean, var = s.law(X)
    ref = stats.multivariate_normal(mean, np.diag(var)).logpdf(pts)
    np.testing.assert_allclose(s.log_density(X, pts), ref, rtol=1e-12)


def test_exact_epsilon_is_the_gaussian_shift_and_below_the_theorems():
    """exact_epsilon = gaussian_epsilon(delta, Mahalanobis distance); symmetric in the pair; the path leaks at least
    as much as its final state; Bertazzi Theorems 5.2 / 5.4 (upper bounds) are never below the exact value."""
    from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon

    X = _data()
    Y = _neighbour(X)
    delta = 1e-5
    fin = ULAFinal(MODEL, N, step_size=0.02, n_steps=30)
    m1, v = fin.law(X)
    m2, _ = fin.law(Y)
    mu = math.sqrt(np.sum((m1 - m2) ** 2 / v))
    assert fin.exact_epsilon(X, Y, delta) == pytest.approx(gaussian_epsilon(delta, mu), rel=1e-9)
    assert fin.exact_epsilon(Y, X, delta) == pytest.approx(fin.exact_epsilon(X, Y, delta), rel=1e-9)
    path = ULAPath(MODEL, N, step_size=0.02, n_steps=30)
    db = MODEL.linear_term(X) - MODEL.linear_term(Y)
    assert path.exact_epsilon(X, Y, delta) == pytest.approx(gaussian_epsilon(delta, math.sqrt(30 * 0.02 / 2) * np.linalg.norm(db)))
    assert path.exact_epsilon(X, Y, delta) >= fin.exact_epsilon(X, Y, delta)
    assert fin.guarantee(delta).epsilon >= fin.exact_epsilon(X, Y, delta)
    assert path.guarantee(delta).epsilon >= path.exact_epsilon(X, Y, delta)
    with pytest.raises(ValueError, match="N = 20"):
        fin.exact_epsilon(X, X[:-1], delta)


def test_exact_protocol_only_on_the_gaussian_target():
    model = NonConvexTarget(2, R=1.0)
    s = ULAFinal(model, 5, step_size=1e-3, n_steps=3)
    X = _data(n=5)
    # no closed form off the Gaussian target: the audit protocol's "unknown" (None), never an exception mid-audit;
    # the final state's privacy loss is then only bounded by the path's (an upper bound, not exact)
    assert s.exact_epsilon(X, _neighbour(X), 1e-5) is None
    with pytest.raises(NotImplementedError, match="GaussianTarget"):
        s.law(X)
    loss = s.pair_privacy_loss(X, _neighbour(X))
    assert loss is not None and not loss.exact


def test_ula_step_size_hypothesis_enforced():
    # Theorem 5.2 needs h < 2m/M^2 = 2/a here (a = m = M for the isotropic part): a = 1 + 20 = 21 on coordinate 0.
    model = GaussianTarget(2, R=1.0, noise_variance=1.0, prior_variance=1.0)
    with pytest.raises(ValueError, match="step_size"):
        ULAFinal(model, N, step_size=2.0 / 21 * 1.01, n_steps=10)
    s = ULAFinal(model, N, step_size=2.0 / 21 * 1.01, n_steps=10, unguaranteed=True)
    assert s.guarantee().guaranteed is False
    assert ULAPath(model, N, step_size=1.0, n_steps=10).guarantee().guaranteed  # Theorem 5.4: no step restriction
    with pytest.raises(NotImplementedError, match="constants"):
        ULAFinal(LogisticRegression(2), N, step_size=0.01, n_steps=3).guarantee()


def test_noisy_sgd_matches_exact_moments_on_the_gaussian_target():
    """eq. (31) with l = -log p - log prior/N: theta <- (1 - h a/N) theta + h g_S + sqrt(2h/beta) xi, g_S =
    mu0/(N s0^2) + (1/(s sigma^2)) sum_S x_i, Var(g_S) = (1 - s/N) S^2/(s sigma^4). Exact mean/variance after
    k steps as for SGLD; tolerances 5 SE (variance SE from the sample fourth moment)."""
    X = _data()
    h, s_, beta, k = 0.05, 5, float(N), 100
    sampler = NoisySGDFinal(MODEL, N, batch_size=s_, step_size=h, n_steps=k, beta=beta)
    out = sampler.sample(X, 12_000, np.random.default_rng(35))
    a, b = MODEL.precision(N) / N, MODEL.linear_term(X) / N
    rho = 1 - h * a
    var_g = (1 - s_ / N) * X.var(axis=0, ddof=1) / (s_ * MODEL.noise_variance**2)
    mean = b / a * (1 - rho**k)
    var = (h**2 * var_g + 2 * h / beta) * (1 - rho ** (2 * k)) / (1 - rho**2)
    n = out.shape[0]
    m4 = np.mean((out - out.mean(axis=0)) ** 4, axis=0)
    assert np.all(np.abs(out.mean(axis=0) - mean) < 5 * np.sqrt(var / n))
    assert np.all(np.abs(out.var(axis=0) - var) < 5 * np.sqrt((m4 - var**2) / n))


def test_noisy_sgd_claims_and_path():
    X = _data()
    fin = NoisySGDFinal(MODEL, N, batch_size=4, step_size=0.05, n_steps=10)
    assert fin.theorem_id == "bertazzi2025.thm57_sgld_strongly_convex"  # the data term of the Gaussian is affine
    assert fin.guarantee(1e-5).guaranteed
    nc = NonConvexTarget(2, R=1.0)
    assert NoisySGDFinal(nc, 5, batch_size=2, step_size=0.05, n_steps=3).theorem_id == "bertazzi2025.thm56_sgld_final"
    path = NoisySGDPath(MODEL, N, batch_size=4, step_size=0.05, n_steps=6)
    out = path.sample(X, 50, np.random.default_rng(36))
    assert out.shape == (50, 7, 2)
    c1 = path.guarantee(1e-5)
    c2 = NoisySGDPath(MODEL, N, batch_size=4, step_size=0.05, n_steps=12).guarantee(1e-5)
    assert c1.theorem == "bertazzi2025.thm58_sgld_path" and c2.epsilon > c1.epsilon  # grows with the path length
    for kwargs, match in [({"batch_size": 0}, "batch_size"), ({"batch_size": N + 1}, "batch_size"),
                          ({"step_size": 0.0}, "step_size"), ({"beta": -1.0}, "beta"), ({"n_steps": 0}, "n_steps")]:
        base = dict(model=MODEL, N=N, batch_size=4, step_size=0.05, n_steps=6)
        with pytest.raises(ValueError, match=match):
            NoisySGDFinal(**{**base, **kwargs})
