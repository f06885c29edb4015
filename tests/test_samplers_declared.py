"""Auditing a sampler dpverify did not write: FunctionModel + DeclaredLangevin (dpverify.samplers.declared)."""
from __future__ import annotations

import numpy as np
import pytest

from dpverify.calculus.releases import SampleSet
from dpverify.models.canary import canary_pair
from dpverify.models.function import FunctionModel
from dpverify.models.linear import LinearLoss
from dpverify.models.logistic import LogisticRegression
from dpverify.samplers import registry
from dpverify.samplers.declared import DeclaredLangevin

N, D_DIM, Q, T, ETA, L, R, PRIOR_VAR = 100, 2, 0.1, 50, 0.444, 1.0, 4.0, 100.0


def grad_ll(X, theta):
    """Logistic regression's per-record gradients, written as a user would (rows (x, y))."""
    z = X[:, :-1] * X[:, -1:]
    return (1.0 / (1.0 + np.exp(theta @ z.T)))[..., None] * z


def grad_prior(theta):
    return -theta / PRIOR_VAR


def users_dp_sgld(X, n, rng, release="path"):
    """A DP-SGLD in plain numpy (Li et al. 2019, Alg. 1), as a user would write it."""
    theta = np.tile([-2.0, 0.0], (n, 1))
    path = [theta]
    for _ in range(T):
        batch = rng.random((n, X.shape[0])) < Q
        g = grad_ll(X, theta)
        g = g / np.maximum(1.0, np.linalg.norm(g, axis=-1, keepdims=True) / L)
        drift = grad_prior(theta) / N + (g * batch[..., None]).sum(axis=1) / (Q * N)
        theta = theta + ETA * drift + np.sqrt(ETA / N) * rng.standard_normal(theta.shape)
        path.append(theta)
    return np.stack(path, axis=1) if release == "path" else theta


def declared(release="path", implementation=users_dp_sgld, **kw):
    model = FunctionModel(D_DIM, grad_ll, grad_prior, name="logistic regression (user)")
    params = dict(step_size=ETA, noise_std=np.sqrt(ETA / N), n_steps=T, batch="poisson", sampling_rate=Q, clip=L,
                  prior_weight=1 / N, data_weight=1 / (Q * N), release=release, theta0=[-2.0, 0.0], delta=1e-3)
    params.update(kw)
    return DeclaredLangevin(implementation, model, N, **params)


def canaries():
    return canary_pair(N, np.array([R, 0.0, 1.0]), None, np.array([0.0, 0.0, 1.0]), kind="null")


def test_declaration_is_the_built_in_dp_sgld():
    ours = declared()
    ref = registry.make("dp_sgld_li", model=LogisticRegression(dim=2, R=R, prior_variance=PRIOR_VAR), N=N, tau=Q * N,
                        T=T, epsilon=None, delta=1e-3, step_size=ETA, L=L, theta0=[-2.0, 0.0], release="path",
                        claim="accountant")
    assert ours.mechanism().summary() == ref.mechanism().summary().replace("Li et al. 2019, Alg. 1", "")
    assert ours.guarantee().epsilon == pytest.approx(ref.guarantee().epsilon, rel=1e-12)
    D, D2 = canaries()
    assert ours.exact_epsilon(D, D2, 1e-3) == pytest.approx(ref.exact_epsilon(D, D2, 1e-3), rel=1e-12)
    paths = ref.sample(D, 30, np.random.default_rng(0))
    np.testing.assert_allclose(ours.path_log_likelihood_ratio(D, D2)(paths),
                               ref.path_log_likelihood_ratio(D, D2)(paths), rtol=1e-10, atol=1e-12)


def test_verify_canary_says_why_not():
    s = declared()
    D, D2 = canaries()
    check = s.verify_canary(D, D2)
    assert check.ok and check.shift == pytest.approx(L)
    assert "exactly one record" in s.verify_canary(D, D).reason
    other, other2 = D.copy(), D2.copy()
    other[1] = other2[1] = [1.0, 0.0, 1.0]  # another record with a gradient: Poisson batches then mix it in
    assert "null records" in s.verify_canary(other, other2).reason
    small = D.copy()
    small[0] = [0.5, 0.0, 1.0]  # inside the clip ball: its gradient depends on theta
    assert "changes with theta" in s.verify_canary(small, D2).reason


def test_calls_are_split_and_reproducible_and_shapes_checked():
    calls = []

    def impl(X, n, rng):
        calls.append(n)
        return users_dp_sgld(X, n, rng, release="final")

    s = declared("final", impl, max_chains=7)
    D, _ = canaries()
    a = s.sample(D, 20, np.random.default_rng(4))
    assert calls == [7, 7, 6] and a.shape == (20, 2)
    np.testing.assert_array_equal(a, s.sample(D, 20, np.random.default_rng(4)))
    with pytest.raises(ValueError, match=r"must return 3 outputs of shape \(51, 2\)"):
        declared("path", lambda X, n, rng: np.zeros((n, 2))).sample(D, 3, np.random.default_rng(0))
    with pytest.raises(ValueError, match="sampling_rate"):
        declared(sampling_rate=None)
    with pytest.raises(ValueError, match="batch must be one of"):
        declared(batch="minibatch")
    with pytest.raises(TypeError, match="implementation must be callable"):
        declared(implementation=3)


def test_sample_sets_and_the_exact_release_on_a_quadratic_model():
    lin = LinearLoss(dim=2, R=1.0, prior_variance=4.0)
    model = FunctionModel(2, lin.grad_log_likelihood, lin.grad_log_prior, quadratic=lin.quadratic_structure())

    def impl(X, n, rng):
        theta, kept = np.zeros((n, 2)), []
        for t in range(1, 21):
            batch = rng.random((n, X.shape[0])) < 0.15
            theta = theta + 0.8 * (-theta / 4.0 / 20 + (batch @ X) / 3.0) + np.sqrt(0.8 / 20) * rng.standard_normal((n, 2))
            if t in (10, 15, 20):
                kept.append(theta)
        return np.stack(kept, axis=1)

    s = DeclaredLangevin(impl, model, 20, step_size=0.8, noise_std=np.sqrt(0.8 / 20), n_steps=20, batch="poisson",
                         sampling_rate=0.15, clip=1.0, prior_weight=1 / 20, data_weight=1 / 3,
                         release=SampleSet(5, 5, 3), delta=1e-3)
    ref = registry.make("dp_sgld_li", model=lin, N=20, tau=3, T=20, epsilon=None, delta=1e-3, step_size=0.8, L=1.0,
                        release=SampleSet(5, 5, 3), claim="accountant")
    from dpverify.models.canary import model_canary_pair

    D, D2 = model_canary_pair(lin, 20, kind="null")
    assert s.exact_epsilon(D, D2, 1e-3) == pytest.approx(ref.exact_epsilon(D, D2, 1e-3), rel=1e-9)
    assert s.account(1e-3).method == "exact samples(burn_in=5, thin=5, count=3) release (linear-Gaussian)"
    out = s.sample(D, 4000, np.random.default_rng(1))
    stat = s.release_log_likelihood_ratio(D, D2)
    # the user's outputs have the declared law: E_P[e^{-L}] = 1 for the exact likelihood ratio L (change of measure),
    # to the Monte Carlo error of 4000 runs (5 standard errors)
    w = np.exp(-stat(out))
    assert abs(w.mean() - 1.0) < 5 * w.std() / np.sqrt(w.size)
