"""A linear log-likelihood (a linear loss) with a Gaussian prior: the model whose gradient canaries are exact.

Records are points ``x in R^d`` with ``||x|| <= R``; the per-record log-likelihood and the prior are

    log p(x | theta) = x . theta,      grad_theta log p(x | theta) = x,       prior N(mu_0, s_0^2 I_d),

i.e. the linear loss ``l(theta, x) = -x . theta`` of the auditing literature (Steinke et al. 2025, "The last iterate
advantage", ICLR; Nasr et al. 2023 use such gradients as canaries). It is not a normalised likelihood in x -- a
sampler only reads gradients -- and its posterior ``N(s_0^2 (mu_0 / s_0^2 + sum_i x_i), s_0^2 I)`` is the prior
shifted by the data. Every record's gradient is constant in theta, so:

- every gradient sampler on it is a linear-Gaussian chain (:meth:`LinearLoss.quadratic_structure`): the exact privacy
  of its final iterate or sample set is computable (:mod:`dpverify.calculus.accounting.release`);
- any two records are a gradient canary (their difference is constant), the null record ``0`` contributes nothing,
  and a clipped gradient is still constant: the canary stays a canary along the whole run, wherever the chains go.

Privacy constants: ``L = sup ||grad log p|| = R`` (Wang et al. 2015, Alg. 2; Li et al. 2019's clip level), the
replace-one gradient difference ``2R``; ``B`` and ``L_x`` are infinite (``|x . theta|`` is unbounded in theta).
Bertazzi et al. 2025's constants (Assumptions 5.1/5.3/5.5): ``U_1 = |theta - mu_0|^2 / (2 s_0^2)`` (m = M = 1/s_0^2),
``U_2^D = -theta . sum_i x_i`` (K = N R), K_path = 2R; per record ``l_1 = |theta - mu_0|^2/(2 N s_0^2)``,
``l_2 = -x . theta`` (affine: Theorem 5.7's extra hypothesis), K = R, K_ell = 2R.
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.backends import backend_of
from dpverify.validation import check_finite_array, check_positive_int, check_real
from dpverify.models.base import CanaryRecords, Model, PrivacyConstants, QuadraticStructure, clip_gradients

__all__ = ["LinearLoss"]

_NORM_SLACK = 1e-12


class LinearLoss(Model):
    """``log p(x | theta) = x . theta`` with ``||x|| <= R`` and prior ``N(prior_mean, prior_variance I_d)``."""

    def __init__(self, dim: int, R: float = 1.0, prior_variance: float = 1.0, prior_mean=0.0):
        self.dim = check_positive_int(dim, "dim")
        self.R = check_real("R", R, low=0.0, low_inclusive=False)
        self.prior_variance = check_real("prior_variance", prior_variance, low=0.0, low_inclusive=False)
        self.prior_mean = check_finite_array(np.broadcast_to(np.asarray(prior_mean, dtype=float), (self.dim,)),
                                             "prior_mean").copy()

    def __repr__(self) -> str:
        return f"LinearLoss(dim={self.dim}, R={self.R}, prior_variance={self.prior_variance})"

    # -- data -------------------------------------------------------------------------------------------------------
    def validate_dataset(self, X) -> np.ndarray:
        """Shape ``(N, dim)``, finite, every ``||x_i|| <= R``."""
        arr = check_finite_array(X, "dataset", ndim=2)
        if arr.shape[1] != self.dim:
            raise ValueError(f"dataset must have shape (N, {self.dim}) (one point of R^{self.dim} per record); "
                             f"got {arr.shape}")
        if arr.shape[0] < 1:
            raise ValueError("dataset must contain at least one record")
        norms = np.linalg.norm(arr, axis=1)
        too_big = norms > self.R * (1 + _NORM_SLACK)
        if too_big.any():
            i = int(np.flatnonzero(too_big)[0])
            raise ValueError(f"dataset records must satisfy ||x|| <= R = {self.R}; record {i} has norm {norms[i]!r}")
        return arr

    # -- likelihood and prior ---------------------------------------------------------------------------------------
    def log_likelihood(self, X, theta):
        """``x_i . theta``, shape ``theta.shape[:-1] + (N,)``."""
        return np.asarray(theta, dtype=float) @ np.asarray(X, dtype=float).T

    def grad_log_likelihood(self, X, theta):
        """``x_i`` at every theta, shape ``theta.shape[:-1] + (N, d)``."""
        theta = np.asarray(theta, dtype=float)
        X = np.asarray(X, dtype=float)
        return np.broadcast_to(X, theta.shape[:-1] + X.shape).copy()

    def per_record_gradients(self, prepared, idx, theta):
        """The records ``idx`` (``(chains, b)``) themselves: ``(chains, b, d)``."""
        return np.asarray(prepared, dtype=float)[idx]

    def minibatch_gradient(self, prepared, idx, theta, clip=None, weights=None):
        """``sum_{i in batch} w_i clip(x_i)`` per chain (the gradient does not depend on theta)."""
        X = np.asarray(prepared, dtype=float)
        if clip is not None:
            X = clip_gradients(X, clip)
        g = X[idx]
        if weights is not None:
            g = g * weights[..., None]
        return g.sum(axis=-2)

    def full_data_gradient(self, prepared, theta):
        return np.broadcast_to(np.asarray(prepared, dtype=float).sum(axis=0), np.shape(theta)).copy()

    def log_prior(self, theta):
        theta = np.asarray(theta, dtype=float)
        v = self.prior_variance
        return -0.5 * np.sum((theta - self.prior_mean) ** 2, axis=-1) / v - 0.5 * self.dim * math.log(2 * math.pi * v)

    def grad_log_prior(self, theta):
        return -(np.asarray(theta, dtype=float) - self.prior_mean) / self.prior_variance

    def dense_gradient_sum(self, prepared, theta, weights=None, clip: float | None = None):
        """``sum_i W[c, i] clip(x_i)`` (the gradient does not depend on theta), backend-generic."""
        xp = backend_of(theta)
        X = prepared
        if clip is not None:
            X = X / xp.maximum(xp.norm(X) / clip, 1.0)[:, None]
        if weights is None:
            return X.sum(0) + 0.0 * theta
        return weights @ X

    def dense_record_gradients(self, prepared, idx, theta):
        """The records ``idx[c]`` themselves (the gradient does not depend on theta): ``(chains, b, d)``."""
        return prepared[idx] + 0.0 * theta[:, None, :]

    def dense_grad_log_prior(self, theta):
        """``-(theta - m_0) / s_0^2``."""
        xp = backend_of(theta)
        return -(theta - xp.asarray(self.prior_mean)) / self.prior_variance

    def posterior(self, X) -> tuple[np.ndarray, float]:
        """The posterior ``N(mu_0 + s_0^2 sum_i x_i, s_0^2 I)``: (mean, variance per coordinate)."""
        X = self.validate_dataset(X)
        return self.prior_mean + self.prior_variance * X.sum(axis=0), self.prior_variance

    # -- structure and constants ------------------------------------------------------------------------------------
    def quadratic_structure(self) -> QuadraticStructure:
        """Quadratic potential: prior precision ``1/s_0^2`` on every coordinate, record curvature 0."""
        return QuadraticStructure(np.full(self.dim, 1.0 / self.prior_variance), self.prior_mean.copy(), 0.0)

    @property
    def constants(self) -> PrivacyConstants:
        """``L = R`` and ``R``; ``B``, ``L_x`` and ``C`` are infinite (None): ``x . theta`` is unbounded in theta."""
        return PrivacyConstants(L=self.R, R=self.R, extra={"ula": "ula_constants(N)", "sgd": "sgd_constants(N)"})

    def gradient_bound(self) -> float:
        return self.R

    def gradient_difference_bound(self) -> float:
        """``||x - x'|| <= 2R``, attained by antipodal records."""
        return 2.0 * self.R

    def ula_constants(self, N: int) -> dict:
        """Bertazzi Assumptions 5.1 / 5.3 (module docstring): m = M = 1/s_0^2, K = N R, K_path = 2R."""
        N = check_positive_int(N, "N")
        a = 1.0 / self.prior_variance
        return {"m": a, "M": a, "K": N * self.R, "K_path": 2.0 * self.R}

    def sgd_constants(self, N: int) -> dict:
        """Bertazzi Assumption 5.5 (module docstring): m = M = 1/(N s_0^2), K = R, K_ell = 2R, affine l_2."""
        N = check_positive_int(N, "N")
        a = 1.0 / (N * self.prior_variance)
        return {"m": a, "M": a, "K": self.R, "K_ell": 2.0 * self.R, "affine_l2": True}

    def canary_records(self, direction: int = 0) -> CanaryRecords:
        """Canary ``+R e_j``, counterpart ``-R e_j`` (gradient difference ``2R e_j``, the bound) and the null record
        ``0`` (zero gradient)."""
        j = int(direction)
        if not 0 <= j < self.dim:
            raise ValueError(f"direction must be in [0, {self.dim - 1}]; got {direction!r}")
        canary = np.zeros(self.dim)
        canary[j] = self.R
        return CanaryRecords(canary, -canary, np.zeros(self.dim))
