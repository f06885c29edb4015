"""Dirichlet-categorical model with every probability truncated to theta_k >= a0.

Likelihood p(x | theta) = theta_x, x in {0, ..., K-1}; prior Dirichlet(alpha) restricted to
Theta_a0 = {theta in the simplex : theta_k >= a0 for all k} (K a0 < 1), the truncation Foulds et al.
2016 use for the OPS baselines of their section 5 ("Dirichlets were truncated at a0"). With counts
n_k the posterior is Dirichlet(alpha + n) restricted to Theta_a0; tempering likelihood and prior by rho
(Wang et al. 2015, Alg. 1) gives Dirichlet(rho (alpha + n - 1) + 1) restricted likewise.

Privacy constants (computed from a0 and K):

- B = sup |log theta_x| = -log a0 (the smallest probability is a0; Wang et al. 2015, Thm 1);
- C = sup_{x, x', theta} |log theta_x' - log theta_x| = log((1 - (K - 1) a0) / a0), the largest
  coordinate being 1 - (K - 1) a0 when the others sit at a0 (Foulds et al. 2016, eq. 13);
- L = sup ||grad_theta log theta_x|| = 1/a0;
- the count vector moves by e_j - e_i under replace-one: L1 sensitivity 2 (Foulds et al. 2016, eq. 17).

Exact posterior draws by rejection from the untruncated Dirichlet (vectorised), with a clear error when
the acceptance rate is hopeless.
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.validation import check_positive_int, check_real
from dpverify.models.base import Model, PrivacyConstants

__all__ = ["DirichletCategorical", "categories", "sample_truncated_dirichlet"]

#: acceptance rates below this make rejection sampling hopeless (a clear error instead of a hang)
MIN_ACCEPTANCE = 1e-4


def sample_truncated_dirichlet(alpha, a0: float, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` exact draws of Dirichlet(alpha) restricted to {theta_k >= a0 for all k}, shape (n, K).

    Rejection: draw from Dirichlet(alpha), keep the draws inside. A pilot batch estimates the
    acceptance rate; below :data:`MIN_ACCEPTANCE` a ValueError says so rather than looping for hours.
    """
    alpha = np.asarray(alpha, dtype=float)
    out = np.empty((n, alpha.size))
    filled, tried, accepted = 0, 0, 0
    while filled < n:
        rate = max(accepted / tried, MIN_ACCEPTANCE) if tried else 1.0
        batch = int(min(max((n - filled) / rate * 1.2 + 64, 1024), 4_000_000))
        draw = rng.dirichlet(alpha, batch)
        keep = draw[np.all(draw >= a0, axis=1)]
        tried += batch
        accepted += keep.shape[0]
        if tried >= 100_000 and accepted / tried < MIN_ACCEPTANCE:
            raise ValueError(
                f"truncated Dirichlet({alpha.tolist()}) on theta_k >= {a0}: acceptance rate "
                f"{accepted / tried:.2e} < {MIN_ACCEPTANCE:g}; rejection sampling is hopeless for these counts"
            )
        take = keep[: n - filled]
        out[filled : filled + take.shape[0]] = take
        filled += take.shape[0]
    return out


def categories(X, K: int) -> np.ndarray:
    """``X`` as a non-empty 1-d int64 array of categories in {0, ..., K-1} (a ``ValueError`` naming the first bad
    value otherwise)."""
    arr = np.asarray(X)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"dataset must be a non-empty 1-d array of categories; got shape {arr.shape}")
    try:
        num = arr.astype(float)
    except (TypeError, ValueError):
        raise ValueError(f"dataset values must be integers in 0..{K - 1}") from None
    bad = ~((num == np.round(num)) & (num >= 0) & (num <= K - 1))
    if bad.any():
        raise ValueError(f"dataset values must be integers in 0..{K - 1}; got {np.asarray(arr[bad][0]).item()!r}")
    return num.astype(np.int64)


class DirichletCategorical(Model):
    """Categorical likelihood on K categories, Dirichlet(alpha) prior truncated to theta_k >= a0.

    theta has shape (..., K) (a point of the simplex). Datasets are 1-d integer arrays in {0..K-1}.
    """

    def __init__(self, K: int = 3, a0: float = 0.05, alpha=1.0) -> None:
        self.K = check_positive_int(K, "K", minimum=2)
        self.a0 = check_real("a0", a0, low=0.0, high=1.0 / self.K, low_inclusive=False, high_inclusive=False)
        alpha_arr = np.broadcast_to(np.asarray(alpha, dtype=float), (self.K,)).copy()
        if not np.all(np.isfinite(alpha_arr)) or np.any(alpha_arr <= 0):
            raise ValueError(f"alpha must be > 0 (one value or K = {self.K} values); got {alpha!r}")
        self.alpha = alpha_arr
        self.dim = self.K

    @property
    def constants(self) -> PrivacyConstants:
        a0, K = self.a0, self.K
        return PrivacyConstants(
            B=-math.log(a0),
            L=1.0 / a0,
            C=math.log1p(-(K - 1) * a0) - math.log(a0),
            sufficient_statistic_sensitivity=2.0,
            extra={"a0": a0, "K": K},
        )

    def validate_dataset(self, X) -> np.ndarray:
        """A non-empty 1-d array of integer categories in {0, ..., K-1}."""
        return categories(X, self.K)

    def sufficient_statistics(self, X) -> np.ndarray:
        """Category counts n_k (Foulds et al. 2016, section 3)."""
        return np.bincount(self.validate_dataset(X), minlength=self.K).astype(float)

    def _theta(self, theta) -> np.ndarray:
        theta = np.asarray(theta, dtype=float)
        if theta.ndim == 0 or theta.shape[-1] != self.K:
            raise ValueError(f"theta must have shape (..., {self.K}); got {theta.shape}")
        return theta

    def log_likelihood(self, X, theta) -> np.ndarray:
        """log theta_{x_i}, shape theta.shape[:-1] + (N,)."""
        x = self.validate_dataset(X)
        return np.log(self._theta(theta))[..., x]

    def grad_log_likelihood(self, X, theta) -> np.ndarray:
        """d/d theta_k log theta_x = 1{k = x} / theta_x, shape theta.shape[:-1] + (N, K)."""
        x = self.validate_dataset(X)
        th = self._theta(theta)
        onehot = np.eye(self.K)[x]
        return onehot / th[..., None, :]

    def log_prior(self, theta) -> np.ndarray:
        """Unnormalised log density sum_k (alpha_k - 1) log theta_k on Theta_a0 (-inf outside).
        The normaliser of the truncated Dirichlet has no closed form and is not needed by samplers."""
        th = self._theta(theta)
        inside = np.all(th >= self.a0, axis=-1) & np.isclose(th.sum(axis=-1), 1.0)
        val = np.sum((self.alpha - 1.0) * np.log(np.where(inside[..., None], th, 1.0)), axis=-1)
        return np.where(inside, val, -np.inf)

    def grad_log_prior(self, theta) -> np.ndarray:
        return (self.alpha - 1.0) / self._theta(theta)

    def posterior_parameters(self, statistics, rho: float = 1.0) -> np.ndarray:
        """Dirichlet parameters rho (alpha + n - 1) + 1 of the tempered posterior (Wang et al. 2015, Alg. 1)."""
        return rho * (self.alpha + np.asarray(statistics, dtype=float) - 1.0) + 1.0

    def sample_posterior(self, X, n: int, rng: np.random.Generator, rho: float = 1.0) -> np.ndarray:
        """``n`` exact draws of the (tempered) truncated posterior, shape (n, K)."""
        return sample_truncated_dirichlet(self.posterior_parameters(self.sufficient_statistics(X), rho), self.a0, n, rng)
