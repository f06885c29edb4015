"""Tests of the SG-MCMC models: logistic regression (bounded features), the Gaussian and non-convex targets."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import expit

from dpverify.models.logistic import LogisticRegression, clip_gradients, make_logistic_dataset
from dpverify.models.targets import GaussianTarget, NonConvexTarget


def _numeric_grad(f, theta, eps=1e-6):
    """Central finite differences of a scalar function f at theta (1-d)."""
    g = np.zeros_like(theta)
    for j in range(theta.size):
        e = np.zeros_like(theta)
        e[j] = eps
        g[j] = (f(theta + e) - f(theta - e)) / (2 * eps)
    return g


# -- logistic regression -------------------------------------------------------------------------
def test_logistic_gradient_matches_finite_differences():
    model = LogisticRegression(3, R=2.0)
    X = make_logistic_dataset(7, 3, np.random.default_rng(0), R=2.0)
    theta = np.array([0.3, -1.2, 0.7])
    analytic = model.grad_log_likelihood(X, theta)
    for i in range(7):
        numeric = _numeric_grad(lambda th: model.log_likelihood(X, th)[i], theta)
        np.testing.assert_allclose(analytic[i], numeric, atol=1e-7)
    np.testing.assert_allclose(model.grad_log_prior(theta), _numeric_grad(model.log_prior, theta), atol=1e-7)


def test_logistic_minibatch_gradient_matches_per_record_sum_with_and_without_clipping():
    rng = np.random.default_rng(1)
    model = LogisticRegression(4, R=3.0)
    X = make_logistic_dataset(30, 4, rng, R=3.0)
    Z = model.prepare(X)
    theta = rng.standard_normal((5, 4))
    idx = rng.integers(0, 30, size=(5, 6))
    full = model.grad_log_likelihood(X, theta)  # (5, 30, 4)
    per = full[np.arange(5)[:, None], idx]
    np.testing.assert_allclose(model.minibatch_gradient(Z, idx, theta), per.sum(axis=1), atol=1e-12)
    np.testing.assert_allclose(model.minibatch_gradient(Z, idx, theta, clip=0.5), clip_gradients(per, 0.5).sum(axis=1), atol=1e-12)
    np.testing.assert_allclose(model.per_record_gradients(Z, idx, theta), per, atol=1e-12)


def test_logistic_constants_computed_from_R_and_radius():
    unbounded = LogisticRegression(2, R=1.5).constants
    assert unbounded.L == 1.5 and unbounded.B is None and unbounded.C is None
    model = LogisticRegression(2, R=1.5, theta_radius=2.0)
    c = model.constants
    # Brute force over the margins m = z.theta in [-R Theta, R Theta] (all reachable with ||z|| <= R, ||theta|| <= Theta).
    m = np.linspace(-3.0, 3.0, 200001)
    logp = -np.logaddexp(0, -m)
    assert c.B == pytest.approx(np.max(np.abs(logp)), rel=1e-9)
    assert c.C == pytest.approx(logp.max() - logp.min(), rel=1e-9)
    # sup ||grad_theta|| = sup ||z|| sigmoid(-m) = R sigmoid(R Theta); sup ||grad_z|| = Theta sigmoid(R Theta).
    assert c.L == pytest.approx(1.5 * np.max(expit(-m)), rel=1e-9)
    assert c.L_x == pytest.approx(2.0 * np.max(expit(-m)), rel=1e-9)


def test_logistic_gradient_norms_never_exceed_L():
    rng = np.random.default_rng(2)
    model = LogisticRegression(3, R=2.0)
    X = make_logistic_dataset(200, 3, rng, R=2.0)
    theta = 5 * rng.standard_normal((50, 3))
    assert np.linalg.norm(model.grad_log_likelihood(X, theta), axis=-1).max() <= model.constants.L


@pytest.mark.parametrize(
    "data, match",
    [
        (np.array([[0.1, 0.2, 0.3, 1.0]]), r"shape \(N, 3\)"),
        (np.array([[0.1, 0.2, 0.5]]), "labels must be -1 or \\+1"),
        (np.array([[3.0, 0.0, 1.0]]), r"\|\|x\|\| <= R"),
        (np.array([[np.nan, 0.0, 1.0]]), "finite"),
        (np.zeros((0, 3)), "at least one record"),
    ],
)
def test_logistic_rejects_bad_datasets(data, match):
    with pytest.raises(ValueError, match=match):
        LogisticRegression(2, R=1.0).validate_dataset(data)


def test_logistic_truncated_prior_and_bad_parameters():
    model = LogisticRegression(2, theta_radius=1.0)
    assert model.log_prior(np.array([2.0, 0.0])) == -np.inf
    assert np.isfinite(model.log_prior(np.array([0.5, 0.0])))
    for kwargs in ({"dim": 0}, {"dim": 2, "R": -1.0}, {"dim": 2, "prior_variance": 0.0}, {"dim": 2, "theta_radius": 0.0}):
        with pytest.raises((ValueError, TypeError)):
            LogisticRegression(**kwargs)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=3, max_size=3),
    st.floats(1e-3, 10.0),
)
def test_clip_gradients_never_exceeds_L_and_keeps_small_rows(g, L):
    g = np.array(g)
    out = clip_gradients(g, L)
    assert np.linalg.norm(out) <= L * (1 + 1e-12)
    if np.linalg.norm(g) <= L:
        np.testing.assert_array_equal(out, g)
    else:  # direction kept
        np.testing.assert_allclose(out * np.linalg.norm(g), g * L, rtol=1e-9, atol=1e-9)


# -- Gaussian target -----------------------------------------------------------------------------
def _gaussian_data(n=6, d=2, seed=3):
    rng = np.random.default_rng(seed)
    return rng.uniform(-0.6, 0.6, size=(n, d))


def test_gaussian_target_gradient_is_linear_and_matches_finite_differences():
    model = GaussianTarget(2, R=1.0, noise_variance=0.5, prior_variance=[2.0, 0.5], prior_mean=[0.1, -0.2])
    X = _gaussian_data()
    theta = np.array([0.4, -0.3])
    U = lambda th: -(model.log_prior(th) + model.log_likelihood(X, th).sum())
    a, b = model.precision(6), model.linear_term(X)
    np.testing.assert_allclose(_numeric_grad(U, theta), a * theta - b, atol=1e-6)
    mean, var = model.posterior(X)
    np.testing.assert_allclose(mean, b / a)
    np.testing.assert_allclose(var, 1 / a)


def test_gaussian_target_ula_law_matches_the_recursion():
    """The closed form of ula_law against the moment recursion m <- rho m + h b, v <- rho^2 v + 2h/beta."""
    model = GaussianTarget(2, noise_variance=0.5, prior_variance=[2.0, 0.5])
    X = _gaussian_data()
    h, beta, x0 = 0.03, 2.0, np.array([1.0, -1.0])
    a, b = model.precision(6), model.linear_term(X)
    m, v = x0.copy(), np.zeros(2)
    for k in range(1, 40):
        m = (1 - h * a) * m + h * b
        v = (1 - h * a) ** 2 * v + 2 * h / beta
        mk, vk = model.ula_law(X, h, k, x0, beta=beta)
        np.testing.assert_allclose(mk, m, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(vk, v, rtol=1e-12)
    ms, vs = model.ula_stationary_law(X, h, beta=beta)
    np.testing.assert_allclose(vs, 2 * h / beta / (1 - (1 - h * a) ** 2), rtol=1e-12)
    np.testing.assert_allclose(ms, b / a, rtol=1e-12)
    with pytest.raises(ValueError, match="stable"):
        model.ula_stationary_law(X, 2.0 / a.min())


def test_gaussian_target_constants_and_validation():
    model = GaussianTarget(2, R=1.0, noise_variance=0.5, prior_variance=1.0)
    c = model.ula_constants(10)
    assert c["m"] == c["M"] == pytest.approx(1 + 10 / 0.5)
    assert c["K"] == pytest.approx(10 * 1.0 / 0.5) and c["K_path"] == pytest.approx(2 * 1.0 / 0.5)
    s = model.sgd_constants(10)
    assert s["affine_l2"] and s["K_ell"] == pytest.approx(2 * s["K"])
    # K_path is the sup of |grad U^D - grad U^D'|: replacing one record moves grad U by (x' - x)/sigma^2.
    X = _gaussian_data(10)
    Y = X.copy()
    Y[0] = [1.0, 0.0]
    X[0] = [-1.0, 0.0]
    assert np.linalg.norm(model.linear_term(X) - model.linear_term(Y)) == pytest.approx(c["K_path"])
    with pytest.raises(ValueError, match="R = 1.0"):
        model.validate_dataset([[2.0, 0.0]])
    with pytest.raises(ValueError, match="shape"):
        model.validate_dataset([[0.1, 0.0, 0.0]])
    with pytest.raises(ValueError, match="prior_variance"):
        GaussianTarget(2, prior_variance=[1.0, -1.0])


# -- non-convex target ---------------------------------------------------------------------------
def test_nonconvex_target_gradient_and_bounded_bump():
    model = NonConvexTarget(2, R=2.0, amplitude=1.0, width=0.5, confinement=0.5)
    X = np.array([[1.5, 0.0], [-1.0, 0.5], [0.0, -1.2]])
    theta = np.array([0.2, -0.4])
    for i in range(3):
        num = _numeric_grad(lambda th: model.log_likelihood(X, th)[i], theta)
        np.testing.assert_allclose(model.grad_log_likelihood(X, theta)[i], num, atol=1e-6)
    # K = sup ||grad of the bump||: grid search along a ray (the bump is radial).
    u = np.linspace(0, 10, 100001)
    sup = np.max(model.amplitude / model.width * u * np.exp(-u**2 / 2))
    assert model.bump_gradient_bound == pytest.approx(sup, rel=1e-8)


def _hessian_min_eig(model, X, theta, eps=1e-4):
    U = lambda th: -(model.log_prior(th) + model.log_likelihood(X, th).sum())
    d = theta.size
    H = np.zeros((d, d))
    for j in range(d):
        e = np.zeros(d)
        e[j] = eps
        H[j] = (_numeric_grad(U, theta + e) - _numeric_grad(U, theta - e)) / (2 * eps)
    return np.linalg.eigvalsh(0.5 * (H + H.T)).min()


def test_nonconvex_target_is_nonconvex_inside_and_strongly_convex_outside_the_ball():
    model = NonConvexTarget(2, R=1.0, amplitude=2.0, width=0.3, confinement=0.2, prior_variance=10.0)
    X = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 0.5]])
    assert model.is_nonconvex(3)
    # Negative curvature at sqrt(3) r from a record along the line to it.
    point = X[0] + np.array([math.sqrt(3) * 0.3, 0.0])
    assert _hessian_min_eig(model, X, point) < 0
    rho = model.convexity_radius()
    bound = 1 / model.prior_variance + 3 * model.confinement / 2
    rng = np.random.default_rng(4)
    for _ in range(20):
        direction = rng.standard_normal(2)
        theta = direction / np.linalg.norm(direction) * rho * (1 + rng.random())
        assert _hessian_min_eig(model, X, theta) >= bound - 1e-3


def test_full_data_terms_agree_with_per_record_sums():
    rng = np.random.default_rng(5)
    theta = rng.standard_normal((4, 2))
    g = GaussianTarget(2, noise_variance=0.7, prior_variance=2.0)
    X = _gaussian_data()
    ll, gr = g.full_data_terms(g.prepare(X), theta)
    np.testing.assert_allclose(ll, g.log_likelihood(X, theta).sum(axis=-1), rtol=1e-12)
    np.testing.assert_allclose(gr, g.grad_log_likelihood(X, theta).sum(axis=-2), rtol=1e-12, atol=1e-12)
    lg = LogisticRegression(2, R=1.0)
    Xl = make_logistic_dataset(9, 2, rng)
    ll, gr = lg.full_data_terms(lg.prepare(Xl), theta)
    np.testing.assert_allclose(ll, lg.log_likelihood(Xl, theta).sum(axis=-1), rtol=1e-12)
    np.testing.assert_allclose(gr, lg.grad_log_likelihood(Xl, theta).sum(axis=-2), rtol=1e-12, atol=1e-12)


def test_gaussian_minibatch_gradient_matches_per_record_sum():
    rng = np.random.default_rng(6)
    g = GaussianTarget(2, noise_variance=0.7)
    X = _gaussian_data(12)
    theta = rng.standard_normal((5, 2))
    idx = rng.integers(0, 12, size=(5, 4))
    w = rng.random((5, 4)) < 0.5
    per = g.grad_log_likelihood(X, theta)[np.arange(5)[:, None], idx]
    np.testing.assert_allclose(g.minibatch_gradient(X, idx, theta), per.sum(axis=1), atol=1e-12)
    np.testing.assert_allclose(g.minibatch_gradient(X, idx, theta, weights=w), (per * w[..., None]).sum(axis=1), atol=1e-12)
    np.testing.assert_allclose(g.minibatch_gradient(X, idx, theta, clip=0.3),
                               clip_gradients(per, 0.3).sum(axis=1), atol=1e-12)
