"""The least-squares model (dpverify.models.least_squares): gradients against finite differences, the fast mini-batch
path and the backend-generic dense path against the per-record default, clipping, and the data checks."""
from __future__ import annotations

import numpy as np
import pytest

from dpverify.models.base import Model, clip_gradients
from dpverify.models.least_squares import LeastSquares


def _data(rng, N=7, d=3, R=2.0):
    x = rng.normal(size=(N, d))
    x *= (R * rng.random((N, 1))) / np.linalg.norm(x, axis=1, keepdims=True)
    data = np.concatenate([x, rng.uniform(-1.0, 1.0, (N, 1))], axis=1)
    data[2] = 0.0  # a null record
    return data


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    model = LeastSquares(3, R=2.0, prior_variance=4.0, prior_mean=0.5)
    X, theta, h = _data(rng), rng.normal(size=(5, 3)), 1e-6
    g = model.grad_log_likelihood(X, theta)
    gp = model.grad_log_prior(theta)
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        fd = (model.log_likelihood(X, theta + e) - model.log_likelihood(X, theta - e)) / (2 * h)
        np.testing.assert_allclose(g[..., j], fd, rtol=1e-6, atol=1e-8)
        fdp = (model.log_prior(theta + e) - model.log_prior(theta - e)) / (2 * h)
        np.testing.assert_allclose(gp[..., j], fdp, rtol=1e-6, atol=1e-8)
    assert np.all(g[:, 2] == 0.0)  # the null record's gradient is 0 everywhere


@pytest.mark.parametrize("clip", [None, 0.3])
def test_fast_and_dense_paths_equal_the_per_record_default(clip):
    rng = np.random.default_rng(1)
    model = LeastSquares(3, R=2.0)
    X, theta = _data(rng), 4.0 * rng.normal(size=(6, 3))
    idx = rng.integers(0, 7, (6, 5))
    mask = rng.random((6, 5)) < 0.6
    default = Model.minibatch_gradient(model, X, idx, theta, clip=clip, weights=mask)
    np.testing.assert_allclose(model.minibatch_gradient(X, idx, theta, clip=clip, weights=mask), default, atol=1e-12)
    g = model.per_record_gradients(X, idx, theta)
    by_hand = ((clip_gradients(g, clip) if clip else g) * mask[..., None]).sum(axis=1)
    np.testing.assert_allclose(default, by_hand, atol=1e-12)
    dense_w = np.zeros((6, 7))
    np.add.at(dense_w, (np.arange(6)[:, None], idx), mask.astype(float))
    np.testing.assert_allclose(model.dense_gradient_sum(X, theta, dense_w, clip), default, atol=1e-12)
    np.testing.assert_allclose(model.dense_grad_log_prior(theta), model.grad_log_prior(theta))
    assert {"dense_gradient_sum", "dense_grad_log_prior"} <= model.dense_capabilities()


def test_clipped_gradients_keep_their_sign_and_direction():
    model = LeastSquares(2, R=1.0)
    X = np.array([[1.0, 0.0, 0.0]])
    theta = np.array([[5.0, 0.0], [-5.0, 0.0]])
    g = model.minibatch_gradient(X, np.zeros((2, 1), dtype=int), theta, clip=0.5)
    np.testing.assert_allclose(g, [[-0.5, 0.0], [0.5, 0.0]])  # pulled towards x . theta = y from either side


def test_dataset_checks_and_constants():
    model = LeastSquares(2, R=1.0, Y=0.5)
    with pytest.raises(ValueError, match=r"shape \(N, 3\)"):
        model.validate_dataset(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="record 1"):
        model.validate_dataset(np.array([[0.0, 0.0, 0.0], [2.0, 0.0, 0.0]]))
    with pytest.raises(ValueError, match="record 0"):
        model.validate_dataset(np.array([[0.0, 0.0, 0.7]]))
    assert model.constants.L is None and model.gradient_bound() is None  # unbounded in theta: clip
    assert "LeastSquares(dim=2" in repr(model)


@pytest.mark.torch
def test_dense_path_on_torch(torch_device):
    rng = np.random.default_rng(2)
    model = LeastSquares(3, R=2.0)
    X, theta, w = _data(rng), 3.0 * rng.normal(size=(4, 3)), rng.random((4, 7))
    on_numpy = model.dense_gradient_sum(X, theta, w, 0.4)
    xp = torch_device
    on_torch = model.dense_gradient_sum(xp.asarray(X), xp.asarray(theta), xp.asarray(w), 0.4)
    np.testing.assert_allclose(xp.to_numpy(on_torch), on_numpy, atol=1e-12)
