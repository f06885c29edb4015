"""Test targets for the Langevin samplers (Bertazzi et al. 2025, Section 5; Wang et al. 2015, Section 4).

- :class:`GaussianTarget` -- a strongly log-concave Gaussian posterior: records ``x_i in R^d`` with ``||x_i|| <= R``,
  likelihood ``N(x_i; theta, sigma^2 I)`` and prior ``N(mu_0, diag(s_0^2))``. The potential
  ``U^D(theta) = -log prior - sum_i log p(x_i | theta)`` has the linear gradient ``grad U^D = A theta - b_D`` with

      A = diag(1/s_0^2) + (N/sigma^2) I   (the same for every dataset of size N),
      b_D = mu_0/s_0^2 + sum_i x_i / sigma^2,

  so ULA (Bertazzi eq. 25) is a Gaussian AR(1) chain whose law after k steps and whose stationary law are
  closed form (:meth:`GaussianTarget.ula_law`, :meth:`GaussianTarget.ula_stationary_law`).
- :class:`NonConvexTarget` -- a multimodal target that is strongly convex outside a ball: per record
  ``log p(x | theta) = -(lam/2)||theta||^2 + a exp(-||theta - x||^2 / (2 r^2))`` (a bump at each record) and prior
  ``N(0, s_0^2 I)``. Per-record loss ``l = -log p - log prior / N`` splits as in Bertazzi Assumption 5.5 into a
  datum-free strongly convex quadratic ``l_1`` and a bump ``l_2`` with bounded gradient ``K = (a/r) e^{-1/2}``.

Both give the constants of Bertazzi et al. 2025 in ``constants.extra``:

- ``extra["ula"]`` for the potential ``U^D`` (Assumption 5.1: ``U^D = U_1 + U_2^D``, ``U_1`` m-strongly convex with
  M-Lipschitz gradient, ``sup |grad U_2^D| <= K``; Assumption 5.3: ``sup |grad U^D - grad U^D'| <= K_path``);
- ``extra["sgd"]`` for the per-record loss ``l(theta, x) = -log p(x|theta) - log prior(theta)/N`` of eq. (30)
  (Assumption 5.5: ``m``, ``M``, ``K``; ``K_ell = sup |grad l(., x) - grad l(., x')|``, the per-datum gradient
  sensitivity of Theorem 5.8; ``affine_l2``: True when ``grad l_2(., x)`` is constant in theta, the extra hypothesis
  of Theorem 5.7).

Data are replace-one adjacent (the dataset size N is public), so ``A`` is the same on both datasets.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from dpverify.backends import backend_of
from dpverify.validation import check_finite_array, check_positive_int, check_real
from dpverify.models.base import CanaryRecords, Model, PrivacyConstants, QuadraticStructure, clip_gradients
from dpverify.models.batches import flatten_batches

__all__ = ["GaussianTarget", "NonConvexTarget"]

_NORM_SLACK = 1e-12
# Padded (chain, record) entries per block of chains in the minibatch_gradient methods: per-pair arrays stay in cache,
# and (measured on noisy SGD, d = 10, 2^17 chains) blocks of 2^18 entries page-fault 2.3x more and cost 14% more CPU.
_BLOCK_ELEMENTS = 2**16


def _validate_points(model, X) -> np.ndarray:
    arr = check_finite_array(X, "dataset", ndim=2)
    if arr.shape[1] != model.dim:
        raise ValueError(f"dataset must have shape (N, {model.dim}) (one point of R^{model.dim} per record); got {arr.shape}")
    if arr.shape[0] < 1:
        raise ValueError("dataset must contain at least one record")
    norms = np.linalg.norm(arr, axis=1)
    too_big = norms > model.R * (1 + _NORM_SLACK)
    if too_big.any():
        i = int(np.flatnonzero(too_big)[0])
        raise ValueError(f"dataset records must satisfy ||x|| <= R = {model.R}; record {i} has norm {norms[i]!r}")
    return arr


class GaussianTarget(Model):
    """Gaussian location model with a Gaussian prior: strongly log-concave, linear full-data gradient.

    Parameters: ``dim``; ``R`` (data radius, ``||x|| <= R``); ``noise_variance`` ``sigma^2`` of the likelihood;
    ``prior_variance`` ``s_0^2`` (scalar or one per coordinate); ``prior_mean`` ``mu_0``.
    """

    def __init__(self, dim: int, R: float = 1.0, noise_variance: float = 1.0, prior_variance=1.0, prior_mean=0.0):
        self.dim = check_positive_int(dim, "dim")
        self.R = check_real("R", R, low=0.0, low_inclusive=False)
        self.noise_variance = check_real("noise_variance", noise_variance, low=0.0, low_inclusive=False)
        pv = check_finite_array(np.broadcast_to(np.asarray(prior_variance, dtype=float), (self.dim,)), "prior_variance")
        if np.any(pv <= 0):
            raise ValueError(f"prior_variance must be > 0; got {prior_variance!r}")
        self.prior_variance = pv.copy()
        self.prior_mean = check_finite_array(np.broadcast_to(np.asarray(prior_mean, dtype=float), (self.dim,)), "prior_mean").copy()

    def __repr__(self) -> str:
        return f"GaussianTarget(dim={self.dim}, R={self.R}, noise_variance={self.noise_variance})"

    def validate_dataset(self, X) -> np.ndarray:
        """Shape ``(N, dim)``, finite, every ``||x_i|| <= R``."""
        return _validate_points(self, X)

    def log_likelihood(self, X, theta):
        """``log N(x_i; theta, sigma^2 I)``, shape ``theta.shape[:-1] + (N,)``."""
        theta = np.asarray(theta, dtype=float)
        sq = np.sum((X - theta[..., None, :]) ** 2, axis=-1)
        return -0.5 * sq / self.noise_variance - 0.5 * self.dim * math.log(2 * math.pi * self.noise_variance)

    def grad_log_likelihood(self, X, theta):
        """``(x_i - theta) / sigma^2``, shape ``theta.shape[:-1] + (N, d)``."""
        theta = np.asarray(theta, dtype=float)
        return (X - theta[..., None, :]) / self.noise_variance

    def per_record_gradients(self, prepared, idx, theta):
        """Per-record gradients of the records ``idx`` (``(chains, b)``) at ``theta`` (``(chains, d)``): ``(chains, b, d)``."""
        return (prepared[idx] - theta[:, None, :]) / self.noise_variance

    def minibatch_gradient(self, prepared, idx, theta, clip=None, weights=None):
        """Sum over the mini-batch ``idx`` (``(chains, b)``) of the (clipped, weighted) per-record gradients
        ``(x_i - theta) / sigma^2``.

        Without clipping it is ``(sum_i w_i x_i - (sum_i w_i) theta) / sigma^2``: one sparse-times-dense product over
        the batch's (chain, record) pairs (:func:`~dpverify.models.batches.flatten_batches`, zero-weight pairs
        dropped) and the weight total per chain. With clipping (``g / max(1, ||g|| / clip)``, Li et al. 2019, Alg. 1
        step 4) the per-pair gradients are formed from the gathered records (``x_i - theta`` as the reference
        computes it, so no cancellation in ``||g||``) and summed per chain in pair order."""
        theta = np.asarray(theta, dtype=float)
        out = np.empty(theta.shape)
        block = max(1, _BLOCK_ELEMENTS // max(1, idx.shape[1]))
        for lo in range(0, theta.shape[0], block):
            sl = slice(lo, lo + block)
            flat = flatten_batches(idx[sl], None if weights is None else weights[sl])
            th = theta[sl]
            if clip is None:
                if flat.weights is None:
                    res = flat.record_sum(np.ones(flat.records.size), prepared)
                    res -= flat.counts()[:, None] * th
                else:
                    res = flat.record_sum(flat.weights, prepared)
                    res -= flat.pair_sum(flat.weights)[:, None] * th
                res /= self.noise_variance
            else:
                g = np.take(prepared, flat.records, axis=0)
                g -= np.repeat(th, flat.counts(), axis=0)
                g /= self.noise_variance
                g = clip_gradients(g, clip)
                if flat.weights is not None:
                    g *= flat.weights[:, None]
                res = flat.pair_sum(g)
            out[sl] = res
        return out

    def full_data_terms(self, prepared, theta):
        """``sum_i log p(x_i | theta)`` (``(chains,)``) and ``sum_i grad log p = (sum_i x_i - N theta)/sigma^2``
        (``(chains, d)``) in O(N d + chains d), from the sufficient statistics ``sum x_i``, ``sum ||x_i||^2``."""
        s2, n = self.noise_variance, prepared.shape[0]
        sx, sxx = prepared.sum(axis=0), np.sum(prepared**2)
        quad = sxx - 2 * theta @ sx + n * np.sum(theta**2, axis=-1)
        ll = -0.5 * quad / s2 - 0.5 * n * self.dim * math.log(2 * math.pi * s2)
        return ll, (sx - n * theta) / s2

    def full_data_gradient(self, prepared, theta):
        """``sum_i grad log p(x_i | theta) = (sum_i x_i - N theta) / sigma^2`` (``(chains, d)``) in O(N d + chains d)."""
        return (prepared.sum(axis=0) - prepared.shape[0] * theta) / self.noise_variance

    def log_prior(self, theta):
        theta = np.asarray(theta, dtype=float)
        v = self.prior_variance
        return -0.5 * np.sum((theta - self.prior_mean) ** 2 / v, axis=-1) - 0.5 * np.sum(np.log(2 * math.pi * v))

    def grad_log_prior(self, theta):
        return -(np.asarray(theta, dtype=float) - self.prior_mean) / self.prior_variance

    def dense_gradient_sum(self, prepared, theta, weights=None, clip: float | None = None):
        """``sum_i W[c, i] clip((x_i - theta_c) / sigma^2)``: without clipping ``(W X - (sum_i W[c, i]) theta_c) /
        sigma^2``; with it the per-record gradients ``(chains, N, d)`` clipped to norm ``clip`` and summed. Backend-generic."""
        xp = backend_of(theta)
        if clip is None:
            if weights is None:
                return (prepared.sum(0) - prepared.shape[0] * theta) / self.noise_variance
            return (weights @ prepared - weights.sum(-1)[:, None] * theta) / self.noise_variance
        g = (prepared[None, :, :] - theta[:, None, :]) / self.noise_variance
        g = g / xp.maximum(xp.norm(g) / clip, 1.0)[..., None]
        if weights is not None:
            g = g * weights[..., None]
        return g.sum(1)

    def dense_record_gradients(self, prepared, idx, theta):
        """``(x_i - theta_c) / sigma^2`` of the records ``idx[c]``: ``(chains, b, d)``, backend-generic."""
        return (prepared[idx] - theta[:, None, :]) / self.noise_variance

    def dense_grad_log_prior(self, theta):
        """``-(theta - m_0) / s_0^2``."""
        xp = backend_of(theta)
        return -(theta - xp.asarray(self.prior_mean)) / xp.asarray(self.prior_variance)

    # -- the linear structure ---------------------------------------------------
    def precision(self, N: int) -> np.ndarray:
        """Diagonal of ``A = diag(1/s_0^2) + (N/sigma^2) I``, the Hessian of ``U^D`` (data-independent)."""
        return 1.0 / self.prior_variance + check_positive_int(N, "N") / self.noise_variance

    def linear_term(self, X) -> np.ndarray:
        """``b_D = mu_0/s_0^2 + sum_i x_i / sigma^2`` (so ``grad U^D(theta) = A theta - b_D``)."""
        X = self.validate_dataset(X)
        return self.prior_mean / self.prior_variance + X.sum(axis=0) / self.noise_variance

    def posterior(self, X) -> tuple[np.ndarray, np.ndarray]:
        """Exact posterior ``N(A^{-1} b_D, A^{-1})``: (mean, diagonal of the covariance)."""
        X = self.validate_dataset(X)
        a = self.precision(X.shape[0])
        return self.linear_term(X) / a, 1.0 / a

    def ula_law(self, X, step: float, k: int, x0=None, beta: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """Exact law of ULA after ``k`` steps (Bertazzi et al. 2025, eq. 25, with noise ``sqrt(2 h / beta)``).

        ``X_{j+1} = X_j - h (A X_j - b) + sqrt(2h/beta) xi``, i.e. per coordinate the AR(1) chain
        ``X_{j+1} = rho X_j + h b + sqrt(2h/beta) xi`` with ``rho = 1 - h a``. From ``X_0 = x0``:

            mean_k = theta* + rho^k (x0 - theta*),   theta* = b / a,
            var_k  = (2h/beta) (1 - rho^{2k}) / (1 - rho^2)   (= (2h/beta) k when rho^2 = 1).

        Returns (mean, diagonal of the covariance), both shape ``(d,)``.
        """
        X = self.validate_dataset(X)
        h = check_real("step", step, low=0.0, low_inclusive=False)
        k = check_positive_int(k, "k", minimum=0)
        beta = check_real("beta", beta, low=0.0, low_inclusive=False)
        x0 = np.zeros(self.dim) if x0 is None else check_finite_array(x0, "x0", shape=(self.dim,))
        a = self.precision(X.shape[0])
        b = self.linear_term(X)
        rho = 1.0 - h * a
        centre = b / a
        mean = centre + rho**k * (x0 - centre)
        rho2 = rho * rho
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.where(np.isclose(rho2, 1.0, rtol=0, atol=1e-15), (2 * h / beta) * k,
                           (2 * h / beta) * (1.0 - rho2**k) / (1.0 - rho2))
        return mean, var

    def ula_stationary_law(self, X, step: float, beta: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """Stationary law of ULA: ``N(b/a, (2h/beta) / (1 - (1 - h a)^2))``; it is ``N(b/a, 1/(beta a (1 - h a/2)))``,
        the posterior (``beta = 1``) with its variance inflated by ``1/(1 - h a / 2)`` -- the exact O(h) bias.
        Needs ``0 < h a < 2`` for every coordinate (otherwise the chain diverges: ValueError)."""
        X = self.validate_dataset(X)
        h = check_real("step", step, low=0.0, low_inclusive=False)
        beta = check_real("beta", beta, low=0.0, low_inclusive=False)
        a = self.precision(X.shape[0])
        if np.any(h * a >= 2):
            raise ValueError(f"step must be < 2/max(a) = {2 / a.max()!r} for ULA on this target to be stable; got {h!r}")
        return self.linear_term(X) / a, 1.0 / (beta * a * (1.0 - h * a / 2.0))

    @property
    def constants(self) -> PrivacyConstants:
        """Only ``R`` is finite here (the per-record gradient is unbounded in theta, so ``L`` and ``B`` are infinite);
        Bertazzi's constants depend on the dataset size: :meth:`ula_constants`, :meth:`sgd_constants`."""
        return PrivacyConstants(R=self.R, extra={"ula": "ula_constants(N)", "sgd": "sgd_constants(N)"})

    def ula_constants(self, N: int) -> dict:
        """Bertazzi Assumptions 5.1 / 5.3 for ``U^D`` with N records: ``U_1 = theta^T A theta/2 - mu_0/s_0^2 . theta``
        (m = min a, M = max a), ``U_2^D = -theta . sum x_i/sigma^2`` (K = N R/sigma^2), K_path = 2R/sigma^2."""
        a = self.precision(N)
        s2 = self.noise_variance
        return {"m": float(a.min()), "M": float(a.max()), "K": N * self.R / s2, "K_path": 2 * self.R / s2}

    def sgd_constants(self, N: int) -> dict:
        """Bertazzi Assumption 5.5 for ``l(theta, x) = -log p(x|theta) - log prior/N``: ``l_1 = theta^T (A/N) theta/2 - ...``
        (datum-free; m, M from A/N), ``l_2 = -theta . x/sigma^2`` (affine, K = R/sigma^2), K_ell = 2R/sigma^2."""
        a = self.precision(N) / N
        s2 = self.noise_variance
        return {"m": float(a.min()), "M": float(a.max()), "K": self.R / s2, "K_ell": 2 * self.R / s2, "affine_l2": True}

    def gradient_bound(self) -> None:
        """None: ``(x - theta)/sigma^2`` is unbounded over theta in R^d."""
        return None

    def quadratic_structure(self) -> QuadraticStructure:
        """Quadratic: prior precision ``1/s_0^2`` per coordinate, record curvature ``1/sigma^2``."""
        return QuadraticStructure(1.0 / self.prior_variance, self.prior_mean.copy(), 1.0 / self.noise_variance)

    def gradient_difference_bound(self) -> float:
        """``||(x - x')/sigma^2|| <= 2R/sigma^2``, attained by antipodal records (constant in theta)."""
        return 2 * self.R / self.noise_variance

    def canary_records(self, direction: int = 0) -> CanaryRecords:
        """Canary ``+R e_j`` and counterpart ``-R e_j``: gradient difference ``2R e_j / sigma^2`` at every theta (the
        bound); no null record (every record's gradient depends on theta)."""
        j = int(direction)
        if not 0 <= j < self.dim:
            raise ValueError(f"direction must be in [0, {self.dim - 1}]; got {direction!r}")
        canary = np.zeros(self.dim)
        canary[j] = self.R
        return CanaryRecords(canary, -canary)


class NonConvexTarget(Model):
    """Bumps on a strongly convex bowl: ``log p(x | theta) = -(lam/2)||theta||^2 + a exp(-||theta - x||^2/(2 r^2))``,
    prior ``N(0, s_0^2 I)``. Non-convex when ``2 a e^{-3/2} / r^2 > lam + 1/(N s_0^2)`` (the most negative curvature of a
    bump is ``-(a/r^2) max_u (u^2 - 1) e^{-u^2/2} = -2 a e^{-3/2}/r^2`` at ``||theta - x|| = sqrt(3) r``), and strongly
    convex outside the ball of :meth:`convexity_radius` (Bertazzi et al. 2025, Assumption 5.5).

    Parameters: ``dim``, ``R`` (data radius), ``amplitude`` a, ``width`` r, ``confinement`` lam, ``prior_variance`` s_0^2.
    """

    def __init__(self, dim: int, R: float = 2.0, amplitude: float = 1.0, width: float = 0.5,
                 confinement: float = 0.5, prior_variance: float = 10.0):
        self.dim = check_positive_int(dim, "dim")
        self.R = check_real("R", R, low=0.0, low_inclusive=False)
        self.amplitude = check_real("amplitude", amplitude, low=0.0, low_inclusive=False)
        self.width = check_real("width", width, low=0.0, low_inclusive=False)
        self.confinement = check_real("confinement", confinement, low=0.0, low_inclusive=False)
        self.prior_variance = check_real("prior_variance", prior_variance, low=0.0, low_inclusive=False)

    def __repr__(self) -> str:
        return (f"NonConvexTarget(dim={self.dim}, R={self.R}, amplitude={self.amplitude}, width={self.width}, "
                f"confinement={self.confinement})")

    def validate_dataset(self, X) -> np.ndarray:
        """Shape ``(N, dim)``, finite, every ``||x_i|| <= R``."""
        return _validate_points(self, X)

    def _bump(self, diff):
        sq = np.sum(diff**2, axis=-1)
        return self.amplitude * np.exp(-0.5 * sq / self.width**2)

    def log_likelihood(self, X, theta):
        theta = np.asarray(theta, dtype=float)
        diff = theta[..., None, :] - X
        quad = 0.5 * self.confinement * np.sum(theta**2, axis=-1)[..., None]
        return -quad + self._bump(diff)

    def _per_record_grad(self, xb, theta):
        diff = theta[..., None, :] - xb
        f = self._bump(diff)
        return -self.confinement * theta[..., None, :] - (f / self.width**2)[..., None] * diff

    def grad_log_likelihood(self, X, theta):
        """``-lam theta - (f_i / r^2)(theta - x_i)`` with ``f_i = a exp(-||theta - x_i||^2/(2r^2))``."""
        return self._per_record_grad(X, np.asarray(theta, dtype=float))

    def per_record_gradients(self, prepared, idx, theta):
        """Per-record gradients of the records ``idx`` (``(chains, b)``) at ``theta`` (``(chains, d)``): ``(chains, b, d)``."""
        return self._per_record_grad(prepared[idx], theta)

    def minibatch_gradient(self, prepared, idx, theta, clip=None, weights=None):
        """Sum over the mini-batch ``idx`` of the (clipped, weighted) per-record gradients, formed for the batch's
        (chain, record) pairs without padding (:func:`~dpverify.models.batches.flatten_batches`, zero-weight
        pairs dropped) and summed per chain in pair order."""
        theta = np.asarray(theta, dtype=float)
        out = np.empty(theta.shape)
        block = max(1, _BLOCK_ELEMENTS // max(1, idx.shape[1]))
        for lo in range(0, theta.shape[0], block):
            sl = slice(lo, lo + block)
            flat = flatten_batches(idx[sl], None if weights is None else weights[sl])
            th = np.repeat(theta[sl], flat.counts(), axis=0)
            g = self._per_record_grad(np.take(prepared, flat.records, axis=0)[:, None, :], th)[:, 0, :]
            if clip is not None:
                g = clip_gradients(g, clip)
            if flat.weights is not None:
                g *= flat.weights[:, None]
            out[sl] = flat.pair_sum(g)
        return out

    def log_prior(self, theta):
        theta = np.asarray(theta, dtype=float)
        s2 = self.prior_variance
        return -0.5 * np.sum(theta**2, axis=-1) / s2 - 0.5 * self.dim * math.log(2 * math.pi * s2)

    def grad_log_prior(self, theta):
        return -np.asarray(theta, dtype=float) / self.prior_variance

    @property
    def bump_gradient_bound(self) -> float:
        """``K = sup ||grad l_2|| = (a/r) sup_u u e^{-u^2/2} = (a/r) e^{-1/2}`` (at ``||theta - x|| = r``)."""
        return self.amplitude / self.width * math.exp(-0.5)

    def is_nonconvex(self, N: int) -> bool:
        """True if ``U^D`` has negative curvature somewhere for some dataset of size N (see the class docstring)."""
        N = check_positive_int(N, "N")
        return 2 * self.amplitude * math.exp(-1.5) / self.width**2 > self.confinement + 1 / (N * self.prior_variance)

    def convexity_radius(self) -> float:
        """A radius rho with ``Hess U^D >= (1/s_0^2 + N lam/2) I`` whenever ``||theta|| >= rho``, for every dataset:
        there ``u = ||theta - x_i|| / r >= (rho - R)/r``, and a bump's most negative curvature
        ``-(a/r^2)(u^2 - 1) e^{-u^2/2}`` is increasing for ``u >= sqrt(3)``; rho solves ``(a/r^2)(u^2-1)e^{-u^2/2} = lam/2``."""
        a, r, lam = self.amplitude, self.width, self.confinement

        def excess(u: float) -> float:
            return (a / r**2) * (u * u - 1) * math.exp(-0.5 * u * u) - lam / 2

        u0 = math.sqrt(3.0)
        if excess(u0) <= 0:  # even the worst curvature is within lam/2: strongly convex everywhere
            return 0.0
        hi = 2 * u0
        while excess(hi) > 0:
            hi *= 2
        return self.R + r * brentq(excess, u0, hi)

    @property
    def constants(self) -> PrivacyConstants:
        """Only ``R`` is finite; Bertazzi's constants depend on N: :meth:`ula_constants`, :meth:`sgd_constants`."""
        return PrivacyConstants(R=self.R, extra={"ula": "ula_constants(N)", "sgd": "sgd_constants(N)"})

    def ula_constants(self, N: int) -> dict:
        """Assumption 5.1 for ``U^D``: ``U_1 = (1/s_0^2 + N lam)||theta||^2/2`` (m = M), ``U_2^D`` = minus the bumps
        (K = N (a/r) e^{-1/2}); Assumption 5.3: K_path = 2 (a/r) e^{-1/2}."""
        N = check_positive_int(N, "N")
        c = 1.0 / self.prior_variance + N * self.confinement
        Kb = self.bump_gradient_bound
        return {"m": c, "M": c, "K": N * Kb, "K_path": 2 * Kb}

    def sgd_constants(self, N: int) -> dict:
        """Assumption 5.5 for ``l = -log p - log prior/N``: ``l_1 = (lam + 1/(N s_0^2))||theta||^2/2`` (datum-free,
        m = M), ``l_2`` = minus the bump (K = (a/r) e^{-1/2}, not affine), K_ell = 2K."""
        N = check_positive_int(N, "N")
        c = self.confinement + 1.0 / (N * self.prior_variance)
        Kb = self.bump_gradient_bound
        return {"m": c, "M": c, "K": Kb, "K_ell": 2 * Kb, "affine_l2": False}

    def gradient_bound(self) -> None:
        """None: the datum-free quadratic part ``-lam theta`` is unbounded over theta."""
        return None

    def gradient_difference_bound(self) -> float:
        """Records differ only through their bumps: ``2 (a/r) e^{-1/2}`` (twice the bump gradient bound)."""
        return 2 * self.bump_gradient_bound
