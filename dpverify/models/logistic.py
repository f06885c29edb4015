"""Bayesian logistic regression with bounded features and a Gaussian prior.

Records are rows ``(x_1, ..., x_d, y)`` with features ``||x||_2 <= R`` and a label ``y in {-1, +1}``.
The likelihood of one record is

    p(y | x, theta) = sigmoid(y x^T theta),   log p = -log(1 + exp(-y x^T theta)),
    grad_theta log p = y x sigmoid(-y x^T theta),

and the prior is ``N(0, prior_variance I_d)``, optionally truncated to the ball ``||theta|| <= theta_radius``
(a bounded parameter space, which Wang et al. 2015, Theorem 1 needs for a finite B).

The likelihood depends on a record only through ``z = y x`` (``||z|| <= R``): that is the "x" of the
Lipschitz-in-data constant ``L_x`` below.

Privacy constants (computed from R, theta_radius; never typed by hand):

- ``L = sup ||grad_theta log p|| = R sigmoid(R Theta)`` with ``Theta = theta_radius`` (the sup of
  ``||z|| sigmoid(-z^T theta)``, attained at ``z^T theta = -R Theta``); ``L = R`` for an unbounded parameter
  space (approached, not attained). This is the clip level of Li et al. 2019, Alg. 1 and the ``L`` of
  Wang et al. 2015, Alg. 2 / Theorem 4.
- ``B = sup |log p| = log(1 + exp(R Theta))`` (Wang et al. 2015, Theorem 1); infinite (``None``) if unbounded.
- ``L_x = sup ||grad_z log p|| = Theta sigmoid(R Theta)``, so ``4 L_x R`` is Wang's Theorem 1 second bound.
- ``C = sup |log p(x'|theta) - log p(x|theta)| = log sigmoid(R Theta) - log sigmoid(-R Theta) = R Theta``
  (Foulds et al. 2016, Theorem 2).
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import expit, log_expit

from dpverify.backends import backend_of
from dpverify.validation import check_finite_array, check_positive_int, check_real
from dpverify.models.base import CanaryRecords, Model, PrivacyConstants, clip_gradients
from dpverify.models.batches import flatten_batches

#: ``clip_gradients`` (Li et al. 2019, Alg. 1 step 4) lives in :mod:`dpverify.models.base`; re-exported here.
__all__ = ["LogisticRegression", "make_logistic_dataset", "clip_gradients"]

# Rounding slack when checking ||x|| <= R on data that were scaled to the ball in floating point.
_NORM_SLACK = 1e-12
# Padded (chain, record) entries per block of chains in minibatch_gradient (per-pair arrays of a block stay in cache).
_BLOCK_ELEMENTS = 2**18


class LogisticRegression(Model):
    """Bayesian logistic regression, ``p(y | x, theta) = sigmoid(y x^T theta)``, prior ``N(0, s^2 I_d)``.

    Parameters
    ----------
    dim:
        Number of features ``d`` (= dimension of theta).
    R:
        Bound on the feature norm ``||x||_2 <= R`` (Wang et al. 2015, Theorem 1; Li et al. 2019, Sec. 6).
    prior_variance:
        ``s^2`` of the Gaussian prior.
    theta_radius:
        Optional radius ``Theta`` of a bounded parameter space ``||theta|| <= Theta`` (prior truncated to it);
        ``None`` for R^d. Only a bounded space gives finite ``B``, ``L_x`` and ``C``.
    """

    def __init__(self, dim: int, R: float = 1.0, prior_variance: float = 1.0, theta_radius: float | None = None):
        self.dim = check_positive_int(dim, "dim")
        self.R = check_real("R", R, low=0.0, low_inclusive=False)
        self.prior_variance = check_real("prior_variance", prior_variance, low=0.0, low_inclusive=False)
        self.theta_radius = (
            None if theta_radius is None else check_real("theta_radius", theta_radius, low=0.0, low_inclusive=False)
        )

    def __repr__(self) -> str:
        return (
            f"LogisticRegression(dim={self.dim}, R={self.R}, prior_variance={self.prior_variance}, "
            f"theta_radius={self.theta_radius})"
        )

    # -- data -----------------------------------------------------------------
    def validate_dataset(self, X) -> np.ndarray:
        """Rows ``(x, y)``: shape ``(N, dim + 1)``, finite, ``||x|| <= R``, ``y in {-1, +1}``."""
        arr = check_finite_array(X, "dataset", ndim=2)
        if arr.shape[1] != self.dim + 1:
            raise ValueError(
                f"dataset must have shape (N, {self.dim + 1}) (features then a label in {{-1, +1}}); got {arr.shape}"
            )
        if arr.shape[0] < 1:
            raise ValueError("dataset must contain at least one record")
        labels = arr[:, -1]
        bad = ~np.isin(labels, (-1.0, 1.0))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"dataset labels must be -1 or +1; record {i} has label {labels[i]!r}")
        norms = np.linalg.norm(arr[:, :-1], axis=1)
        too_big = norms > self.R * (1 + _NORM_SLACK)
        if too_big.any():
            i = int(np.flatnonzero(too_big)[0])
            raise ValueError(f"dataset features must satisfy ||x|| <= R = {self.R}; record {i} has norm {norms[i]!r}")
        return arr

    def prepare(self, X: np.ndarray) -> np.ndarray:
        """The signed features ``z_i = y_i x_i`` (shape ``(N, d)``): the likelihood depends on a record only
        through ``z``. Samplers call this once per run."""
        return X[:, :-1] * X[:, -1:]

    # -- likelihood -----------------------------------------------------------
    def _margins(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray:
        z = self.prepare(X)
        return np.asarray(theta, dtype=float) @ z.T  # (..., N)

    def log_likelihood(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``log sigmoid(y_i x_i^T theta)``, shape ``theta.shape[:-1] + (N,)``."""
        return log_expit(self._margins(X, theta))

    def grad_log_likelihood(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``y_i x_i sigmoid(-y_i x_i^T theta)``, shape ``theta.shape[:-1] + (N, d)``."""
        z = self.prepare(X)
        w = expit(-self._margins(X, theta))
        return w[..., None] * z

    def minibatch_gradient(self, prepared: np.ndarray, idx: np.ndarray, theta: np.ndarray,
                           clip: float | None = None, weights: np.ndarray | None = None) -> np.ndarray:
        """Sum over a mini-batch of the (optionally clipped) per-record gradients, for a batch of chains.

        ``prepared`` is :meth:`prepare` of the dataset, ``idx`` has shape ``(chains, b)``, ``theta``
        ``(chains, d)``; ``weights`` (``(chains, b)``, e.g. a 0/1 mask) multiply each record's term.
        Each per-record gradient is a scalar multiple ``w_i z_i`` of ``z_i``, so clipping to norm ``clip``
        (Li et al. 2019, Alg. 1 step 4: ``g / max(1, ||g|| / clip)``) only rescales ``w_i``: with
        ``||grad_i|| = w_i ||z_i||`` and ``w_i > 0``, ``w_i / max(1, w_i ||z_i|| / clip) = min(w_i, clip / ||z_i||)``.

        Layout: the batch as (chain, record) pairs without padding (:func:`~dpverify.models.batches.flatten_batches`,
        zero-weight pairs dropped), margins ``theta_c . z_r`` per pair (:meth:`FlatBatch.dots`), and the sum
        ``sum_pairs w z_r`` per chain as one sparse-times-dense product (:meth:`FlatBatch.record_sum`). All float64.
        """
        theta = np.asarray(theta, dtype=float)
        if clip is not None:  # clip / ||z_r|| (inf for z_r = 0, which is never clipped)
            with np.errstate(divide="ignore"):
                ceiling = clip / np.sqrt(np.einsum("nd,nd->n", prepared, prepared))
        out = np.empty(theta.shape)
        # Blocks of chains keep every per-pair array of the block in cache.
        block = max(1, _BLOCK_ELEMENTS // max(1, idx.shape[1]))
        for lo in range(0, theta.shape[0], block):
            sl = slice(lo, lo + block)
            flat = flatten_batches(idx[sl], None if weights is None else weights[sl])
            w = flat.dots(theta[sl], prepared)
            np.negative(w, out=w)
            expit(w, out=w)  # w_i = sigmoid(-z_i . theta) > 0
            if clip is not None:  # w / max(1, w ||z|| / clip) = min(w, clip / ||z||) for w > 0
                np.minimum(w, np.take(ceiling, flat.records), out=w)
            if flat.weights is not None:
                w *= flat.weights
            out[sl] = flat.record_sum(w, prepared)
        return out

    def per_record_gradients(self, prepared: np.ndarray, idx: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """Per-record gradients ``z_i sigmoid(-z_i^T theta)`` of the records ``idx`` (``(chains, b)``): ``(chains, b, d)``."""
        zb = np.take(prepared, idx, axis=0)
        return expit(-np.matmul(zb, theta[:, :, None]))* zb

    def full_data_terms(self, prepared: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``sum_i log p(x_i | theta)`` (shape ``(chains,)``) and ``sum_i grad log p(x_i | theta)`` (``(chains, d)``)
        from one matrix product of margins ``theta Z^T`` (full-data MCMC, e.g. OPS by MALA)."""
        m = theta @ prepared.T  # (c, N)
        return log_expit(m).sum(axis=-1), expit(-m) @ prepared

    def full_data_gradient(self, prepared: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``sum_i grad log p(x_i | theta) = sigmoid(-theta Z^T) Z`` (``(chains, d)``): one matrix product of margins."""
        return expit(-(theta @ prepared.T)) @ prepared

    def dense_gradient_sum(self, prepared, theta, weights=None, clip: float | None = None):
        """``sum_i W[c, i] min(sigmoid(-z_i . theta_c), clip / ||z_i||) z_i`` (the clipped gradient of record i is
        ``min(w_i, clip/||z_i||) z_i`` with ``w_i = sigmoid(-z_i . theta)``, as in :meth:`minibatch_gradient`): the
        margins ``theta Z^T`` as one dense ``(chains, N)`` product, backend-generic."""
        xp = backend_of(theta)
        w = xp.sigmoid(-(theta @ prepared.T))
        if clip is not None:
            with np.errstate(divide="ignore"):
                w = xp.minimum(w, clip / xp.norm(prepared))  # inf for z_i = 0 (never clipped)
        if weights is not None:
            w = w * weights
        return w @ prepared

    def dense_record_gradients(self, prepared, idx, theta):
        """``z_i sigmoid(-z_i . theta_c)`` of the records ``idx[c]``: ``(chains, b, d)``, backend-generic."""
        zb = prepared[idx]
        return backend_of(theta).sigmoid(-(zb @ theta[:, :, None])) * zb

    def dense_grad_log_prior(self, theta):
        """``-theta / s^2``."""
        return -theta / self.prior_variance

    def dense_log_prior(self, theta):
        """:meth:`log_prior` for any backend's ``theta`` (``-inf`` outside the ball of ``theta_radius``)."""
        xp = backend_of(theta)
        s2 = self.prior_variance
        lp = -0.5 * xp.sum(theta * theta, axis=-1) / s2 - 0.5 * self.dim * math.log(2 * math.pi * s2)
        if self.theta_radius is None:
            return lp
        return xp.where(xp.norm(theta) > self.theta_radius, -math.inf, lp)

    def dense_full_data_terms(self, prepared, theta):
        """:meth:`full_data_terms` for any backend: margins ``m = theta Z^T`` as one product,
        ``sum_i log sigmoid(m_i) = -sum_i log(1 + e^{-m_i})`` and ``sigmoid(-m) Z``."""
        xp = backend_of(theta)
        m = theta @ prepared.T
        return -xp.sum(xp.logaddexp(0.0 * m, -m), axis=-1), xp.sigmoid(-m) @ prepared

    def canary_records(self, direction: int = 0) -> CanaryRecords:
        """Canary ``(R e_j, +1)``, counterpart ``(R e_j, -1)``, null record ``(0, +1)``: the signed features are
        ``z = +-R e_j`` and ``z sigmoid(-z.theta) - (-z) sigmoid(z.theta) = z`` at every theta, so the gradient
        difference is exactly ``R e_j`` (half the ``2L`` a replace-one analysis allows; no record pair of this model
        does better at theta = 0); the null record has zero gradient. With clipping at ``C < R/2`` the clipped canary
        gradient is ``C e_j`` wherever ``R sigmoid(-R theta_j) >= C``."""
        j = int(direction)
        if not 0 <= j < self.dim:
            raise ValueError(f"direction must be in [0, {self.dim - 1}]; got {direction!r}")
        canary = np.zeros(self.dim + 1)
        canary[j], canary[-1] = self.R, 1.0
        counterpart = canary.copy()
        counterpart[-1] = -1.0
        null = np.zeros(self.dim + 1)
        null[-1] = 1.0
        return CanaryRecords(canary, counterpart, null)

    # -- prior ----------------------------------------------------------------
    def _outside(self, theta: np.ndarray) -> np.ndarray:
        if self.theta_radius is None:
            return np.zeros(np.shape(theta)[:-1], dtype=bool)
        return np.linalg.norm(theta, axis=-1) > self.theta_radius

    def log_prior(self, theta: np.ndarray) -> np.ndarray:
        """``log N(theta; 0, s^2 I)`` (``-inf`` outside the ball when ``theta_radius`` is set; the truncation's
        normalising constant is omitted, it does not depend on the data)."""
        theta = np.asarray(theta, dtype=float)
        s2 = self.prior_variance
        lp = -0.5 * np.sum(theta**2, axis=-1) / s2 - 0.5 * self.dim * math.log(2 * math.pi * s2)
        return np.where(self._outside(theta), -np.inf, lp)

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        """``-theta / s^2`` (the Gaussian's gradient; inside the ball when the prior is truncated)."""
        return -np.asarray(theta, dtype=float) / self.prior_variance

    # -- constants ------------------------------------------------------------
    @property
    def constants(self) -> PrivacyConstants:
        R, Th = self.R, self.theta_radius
        if Th is None:
            return PrivacyConstants(L=R, R=R, extra={"record": "z = y x", "theta_radius": None})
        return PrivacyConstants(
            B=float(np.logaddexp(0.0, R * Th)),
            L=R * float(expit(R * Th)),
            L_x=Th * float(expit(R * Th)),
            R=R,
            C=R * Th,
            extra={"record": "z = y x", "theta_radius": Th},
        )


def make_logistic_dataset(n: int, dim: int, rng, R: float = 1.0, theta_true=None) -> np.ndarray:
    """A synthetic dataset for :class:`LogisticRegression`: features uniform in the ball of radius ``R``
    and labels drawn from the model at ``theta_true`` (default: ``(2, 0, ..., 0)/R``)."""
    n = check_positive_int(n, "n")
    dim = check_positive_int(dim, "dim")
    R = check_real("R", R, low=0.0, low_inclusive=False)
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    direction = rng.standard_normal((n, dim))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    radius = R * rng.random(n) ** (1.0 / dim)
    x = direction * radius[:, None]
    if theta_true is None:
        theta_true = np.zeros(dim)
        theta_true[0] = 2.0 / R
    theta_true = check_finite_array(theta_true, "theta_true", shape=(dim,))
    y = np.where(rng.random(n) < expit(x @ theta_true), 1.0, -1.0)
    return np.column_stack([x, y])
