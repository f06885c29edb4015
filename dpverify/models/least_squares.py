"""Least-squares regression with a Gaussian prior: a model whose per-record gradient changes sign with theta.

Records are rows ``(x, y)`` of ``d + 1`` values, features ``x in R^d`` with ``||x|| <= R`` and a response ``|y| <=
Y``; the per-record log-likelihood (unit noise variance) and the prior are

    log p(x, y | theta) = -(y - x . theta)^2 / 2,    grad = (y - x . theta) x,    prior N(mu_0, s_0^2 I_d).

The gradient is unbounded in theta (``L`` is None): a sampler on this model must clip its per-record gradients (Li
et al. 2019's DP-SGLD does). Unlike the linear loss and logistic regression, whose per-record gradients keep one
direction *and sign* wherever theta is, a least-squares record pulls theta towards its own hyperplane ``x . theta =
y`` from either side. The known-bad final-release case of :mod:`dpverify.cases.catalogue` uses exactly that (issue
38): the record ``(R e_1, 0)`` among null records ``(0, 0)`` moves a DP-SGLD whose noise is one draw shared by the
coordinates off the diagonal line it lives on without the record, by an amount of either sign and mean zero, so
that neither a difference of means nor a classifier of ``(x, x^2)`` sees the departure, while the law without the
record lies on the line (:mod:`dpverify.audit.degenerate_statistics`).

The pair of such a record and the null record is not a gradient canary (the gradient difference depends on theta):
the model declares no canary records, and the accountant's bound of the declared run is what its audits test.

Fast paths: :meth:`LeastSquares.minibatch_gradient` sums a Poisson batch without padding (the layout of logistic
regression's); :meth:`LeastSquares.dense_gradient_sum` and :meth:`LeastSquares.dense_grad_log_prior` are
backend-generic, so the DP-SGLDs on this model also run on the device path (:mod:`dpverify.samplers.device`).
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.backends import backend_of
from dpverify.validation import check_finite_array, check_positive_int, check_real
from dpverify.models.base import Model, PrivacyConstants
from dpverify.models.batches import flatten_batches

__all__ = ["LeastSquares"]

_NORM_SLACK = 1e-12
# Chains x batch entries per block of :meth:`LeastSquares.minibatch_gradient` (the per-pair arrays stay in cache).
_BLOCK_ELEMENTS = 2**18


class LeastSquares(Model):
    """``log p(x, y | theta) = -(y - x . theta)^2 / 2`` with ``||x|| <= R``, ``|y| <= Y`` and prior
    ``N(prior_mean, prior_variance I_d)``; records are rows ``(x_1, ..., x_d, y)``."""

    def __init__(self, dim: int, R: float = 1.0, Y: float = 1.0, prior_variance: float = 1.0, prior_mean=0.0):
        self.dim = check_positive_int(dim, "dim")
        self.R = check_real("R", R, low=0.0, low_inclusive=False)
        self.Y = check_real("Y", Y, low=0.0)
        self.prior_variance = check_real("prior_variance", prior_variance, low=0.0, low_inclusive=False)
        self.prior_mean = check_finite_array(np.broadcast_to(np.asarray(prior_mean, dtype=float), (self.dim,)),
                                             "prior_mean").copy()

    def __repr__(self) -> str:
        return f"LeastSquares(dim={self.dim}, R={self.R}, Y={self.Y}, prior_variance={self.prior_variance})"

    # -- data -------------------------------------------------------------------------------------------------------
    def validate_dataset(self, X) -> np.ndarray:
        """Shape ``(N, dim + 1)``, finite, every ``||x_i|| <= R`` and ``|y_i| <= Y``."""
        arr = check_finite_array(X, "dataset", ndim=2)
        if arr.shape[1] != self.dim + 1:
            raise ValueError(f"dataset must have shape (N, {self.dim + 1}) (features then response per record); "
                             f"got {arr.shape}")
        if arr.shape[0] < 1:
            raise ValueError("dataset must contain at least one record")
        norms = np.linalg.norm(arr[:, :-1], axis=1)
        bad = (norms > self.R * (1 + _NORM_SLACK)) | (np.abs(arr[:, -1]) > self.Y * (1 + _NORM_SLACK))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"dataset records must satisfy ||x|| <= R = {self.R} and |y| <= Y = {self.Y}; record {i} "
                             f"is {arr[i].tolist()!r}")
        return arr

    # -- likelihood and prior ---------------------------------------------------------------------------------------
    def log_likelihood(self, X, theta):
        """``-(y_i - x_i . theta)^2 / 2``, shape ``theta.shape[:-1] + (N,)``."""
        X = np.asarray(X, dtype=float)
        r = X[:, -1] - np.asarray(theta, dtype=float) @ X[:, :-1].T
        return -0.5 * r * r

    def grad_log_likelihood(self, X, theta):
        """``(y_i - x_i . theta) x_i``, shape ``theta.shape[:-1] + (N, d)``."""
        X = np.asarray(X, dtype=float)
        r = X[:, -1] - np.asarray(theta, dtype=float) @ X[:, :-1].T
        return r[..., None] * X[:, :-1]

    def per_record_gradients(self, prepared, idx, theta):
        """The gradients of the records ``idx`` (``(chains, b)``) at ``theta`` (``(chains, d)``): ``(chains, b, d)``,
        computed for the batch's records only."""
        rows = np.asarray(prepared, dtype=float)[idx]
        x = rows[..., :-1]
        r = rows[..., -1] - np.einsum("cbd,cd->cb", x, np.asarray(theta, dtype=float))
        return r[..., None] * x

    def minibatch_gradient(self, prepared, idx, theta, clip: float | None = None,
                           weights: np.ndarray | None = None) -> np.ndarray:
        """``sum_{i in batch} w_i clip((y_i - x_i . theta) x_i)`` per chain, ``(chains, d)``, without padding: each
        per-record gradient is a scalar multiple ``r_i x_i`` of its features, so clipping to norm ``clip`` only limits
        ``|r_i|`` to ``clip / ||x_i||`` (the layout of logistic regression's fast path: the batch as (chain, record)
        pairs, :func:`~dpverify.models.batches.flatten_batches`; margins per pair; one sparse-times-dense sum)."""
        theta = np.asarray(theta, dtype=float)
        rows = np.asarray(prepared, dtype=float)
        x, y = np.ascontiguousarray(rows[:, :-1]), rows[:, -1]
        if clip is not None:  # clip / ||x_r|| (inf for x_r = 0, whose gradient is 0)
            with np.errstate(divide="ignore"):
                ceiling = clip / np.sqrt(np.einsum("nd,nd->n", x, x))
        out = np.empty(theta.shape)
        block = max(1, _BLOCK_ELEMENTS // max(1, idx.shape[1]))
        for lo in range(0, theta.shape[0], block):
            sl = slice(lo, lo + block)
            flat = flatten_batches(idx[sl], None if weights is None else weights[sl])
            r = np.take(y, flat.records) - flat.dots(theta[sl], x)
            if clip is not None:
                limit = np.take(ceiling, flat.records)
                np.clip(r, -limit, limit, out=r)
            if flat.weights is not None:
                r *= flat.weights
            out[sl] = flat.record_sum(r, x)
        return out

    def dense_gradient_sum(self, prepared, theta, weights=None, clip: float | None = None):
        """``sum_i W[c, i] clip((y_i - x_i . theta_c) x_i)``, the residuals limited to ``clip / ||x_i||`` as in
        :meth:`minibatch_gradient`, from one dense ``(chains, N)`` product of margins; backend-generic (the samplers'
        device path, :mod:`dpverify.samplers.device`)."""
        xp = backend_of(theta)
        x, y = prepared[:, :-1], prepared[:, -1]
        r = y - theta @ x.T
        if clip is not None:
            with np.errstate(divide="ignore"):
                ceiling = clip / xp.norm(x)  # inf for x_i = 0 (a null record: its residual multiplies 0)
            r = xp.maximum(xp.minimum(r, ceiling), -ceiling)
        if weights is not None:
            r = r * weights
        return r @ x

    def dense_grad_log_prior(self, theta):
        """``-(theta - m_0) / s_0^2``, backend-generic."""
        xp = backend_of(theta)
        return -(theta - xp.asarray(self.prior_mean)) / self.prior_variance

    def log_prior(self, theta):
        theta = np.asarray(theta, dtype=float)
        v = self.prior_variance
        return -0.5 * np.sum((theta - self.prior_mean) ** 2, axis=-1) / v - 0.5 * self.dim * math.log(2 * math.pi * v)

    def grad_log_prior(self, theta):
        return -(np.asarray(theta, dtype=float) - self.prior_mean) / self.prior_variance

    # -- constants ---------------------------------------------------------------------------------------------------
    @property
    def constants(self) -> PrivacyConstants:
        """``R``; ``L``, ``B``, ``L_x`` and ``C`` are infinite (None): the squared residual is unbounded in theta."""
        return PrivacyConstants(R=self.R)
