"""The model interface every sampler relies on.

A model is a likelihood p(x | theta) and a prior p(theta), with

- ``validate_dataset(X)``: return the dataset as an array (records on axis 0) or raise a
  ``ValueError`` naming the offending value and the allowed domain;
- ``log_likelihood(X, theta)``: per-record log-likelihoods, shape ``theta.shape[:-1] + (n,)``
  for ``theta`` of shape ``(..., d)`` (batch of chains first);
- ``grad_log_likelihood(X, theta)``: per-record gradients in theta, shape ``theta.shape[:-1] + (n, d)``;
- ``log_prior(theta)``, ``grad_log_prior(theta)``;
- ``constants``: a :class:`PrivacyConstants` computed from the model's parameters (never typed by hand);
- ``gradient_sensitivity(neighbouring, clip)``: the L2 sensitivity of one record's (clipped) log-likelihood
  gradient under a neighbouring relation, the number a gradient sampler's mechanism description multiplies by its
  step size and batch weight.

Capabilities with a default (a model overrides them when it has a faster or closed form; samplers call them on every
model, never asking ``hasattr``):

- ``prepare(X)``: the dataset in the form the gradient methods read (default: ``X`` itself), computed once per run;
- ``per_record_gradients(prepared, idx, theta)``: the gradients of the records ``idx[c]`` at ``theta[c]``;
- ``minibatch_gradient(prepared, idx, theta, clip, weights)``: their (clipped, weighted) sum per chain;
- ``full_data_gradient(prepared, theta)`` and ``full_data_terms(prepared, theta)``: full-data sums (gradient; and
  log-likelihood with gradient);
- ``theta_radius``: the radius of the ball the parameter space is truncated to (None: not a ball);
- ``ula_constants(N)`` / ``sgd_constants(N)``: Bertazzi et al. 2025's constants (default: not provided, a clear
  ``NotImplementedError``);
- ``quadratic_structure()``: the Gaussian prior's precision and the per-record curvature when the potential is
  quadratic (default None): a gradient sampler on such a model is a linear-Gaussian chain whose released iterates
  have a computable exact privacy (:mod:`dpverify.calculus.linear_dynamics`).

A model that overrides ``prepare`` must override ``per_record_gradients`` too (the default reads ``prepared`` as the
validated dataset).
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpverify.validation import check_real

__all__ = ["PrivacyConstants", "CanaryRecords", "QuadraticStructure", "Model", "PreparedData", "clip_gradients"]

#: What :meth:`Model.prepare` returns and the gradient methods read: the validated dataset (an array) by default, or
#: a form of the model's own (:class:`~dpverify.models.dirac_canaries.CanaryRecordsPrepared`). Model-specific, so
#: no single static type: the samplers only pass it back to the model that made it.
PreparedData = Any


def clip_gradients(g: np.ndarray, L: float) -> np.ndarray:
    """Per-record norm clipping, Li et al. 2019, Alg. 1 step 4: ``g / max(1, ||g||_2 / L)``.

    ``g`` has the gradient on its last axis (any leading shape); every output row has norm <= L and rows
    already inside the ball are unchanged.
    """
    L = check_real("L", L, low=0.0, low_inclusive=False)
    g = np.asarray(g, dtype=float)
    norms = np.linalg.norm(g, axis=-1, keepdims=True)
    return g / np.maximum(1.0, norms / L)


@dataclass(frozen=True)
class PrivacyConstants:
    """Constants that the papers' theorems take.

    ``B``  = sup_{x, theta} |log p(x | theta)|       (Wang et al. 2015, Thm 1)
    ``L``  = Lipschitz constant of log p(x | theta) in theta, i.e. sup ||grad_theta log p(x|theta)||
             (Wang et al. 2015, Alg. 2; Li et al. 2019, Alg. 1 clip level)
    ``L_x``= Lipschitz constant in x, with ``R`` = sup ||x|| (Wang et al. 2015, Thm 1, second part)
    ``C``  = sup_{x, x', theta} |log p(x'|theta) - log p(x|theta)| (Foulds et al. 2016, Thm 2 / eq. 6)
    ``sufficient_statistic_sensitivity`` = L1 sensitivity of the sufficient statistics
             under replace-one adjacency (Foulds et al. 2016, eq. 16-17).
    ``None`` means the constant is infinite or not defined for this model.
    """

    B: float | None = None
    L: float | None = None
    L_x: float | None = None
    R: float | None = None
    C: float | None = None
    sufficient_statistic_sensitivity: float | None = None
    extra: dict = field(default_factory=dict)


@dataclass(frozen=True)
class CanaryRecords:
    """Records for a gradient canary (:mod:`dpverify.models.canary`): ``canary`` and ``counterpart`` have gradients
    that differ by the same vector at every theta; ``null`` (or None) has zero gradient at every theta."""

    canary: object
    counterpart: object
    null: object = None


@dataclass(frozen=True)
class QuadraticStructure:
    """The potential of a model whose gradients are affine in theta with data-independent slopes:
    ``grad log prior(theta) = -prior_precision * (theta - prior_mean)`` (a diagonal Gaussian prior, ``(d,)`` arrays)
    and ``grad log p(x | theta) = c(x) - record_curvature * theta`` for every record x (a multiple of the identity;
    0 for a linear log-likelihood)."""

    prior_precision: np.ndarray
    prior_mean: np.ndarray
    record_curvature: float

    def isotropic_precision(self) -> float | None:
        """The prior precision when it is the same on every coordinate, else None."""
        p = np.asarray(self.prior_precision, dtype=float)
        return float(p[0]) if np.allclose(p, p[0], rtol=1e-12, atol=0.0) else None

    def precision_along(self, direction: np.ndarray) -> float | None:
        """The prior precision along ``direction`` when it is an eigen-direction of the (diagonal) precision (the
        precision is isotropic, or the direction lies on a coordinate axis); None otherwise."""
        iso = self.isotropic_precision()
        if iso is not None:
            return iso
        u = np.asarray(direction, dtype=float)
        nz = np.flatnonzero(np.abs(u) > 1e-12 * np.max(np.abs(u)))
        return float(np.asarray(self.prior_precision)[nz[0]]) if nz.size == 1 else None


class Model(ABC):
    """Base class; see the module docstring for shapes."""

    #: dimension of theta
    dim: int
    #: radius ``Theta`` of the ball ``||theta|| <= Theta`` the parameter space is truncated to (None: no such ball)
    theta_radius: float | None = None

    @abstractmethod
    def validate_dataset(self, X) -> np.ndarray: ...

    @abstractmethod
    def log_likelihood(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def grad_log_likelihood(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def log_prior(self, theta: np.ndarray) -> np.ndarray: ...

    @abstractmethod
    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray: ...

    @property
    @abstractmethod
    def constants(self) -> PrivacyConstants: ...

    @staticmethod
    def scalar_parameter(theta) -> np.ndarray:
        """The values of a one-dimensional parameter given as shape ``(..., 1)``, as shape ``(...)``."""
        theta = np.asarray(theta, dtype=float)
        if theta.ndim == 0 or theta.shape[-1] != 1:
            raise ValueError(f"theta must have shape (..., 1); got {theta.shape}")
        return theta[..., 0]

    def gradient_bound(self) -> float | None:
        """``sup_{x, theta} ||grad_theta log p(x | theta)||`` (the Lipschitz constant ``L``; None if unbounded)."""
        L = self.constants.L
        return None if L is None or not math.isfinite(L) else float(L)

    def gradient_difference_bound(self) -> float | None:
        """``sup_{x, x', theta} ||grad log p(x | theta) - grad log p(x' | theta)||``: ``2 L`` by the triangle
        inequality unless the model knows better (None if unbounded)."""
        L = self.gradient_bound()
        return None if L is None else 2.0 * L

    def gradient_sensitivity(self, neighbouring: str, clip: float | None = None) -> float:
        """L2 sensitivity of one record's gradient term ``clip(grad log p(x | theta))`` under ``neighbouring``.

        ``"add_remove"``: the largest norm of one record's term, ``min(clip, L)``. ``"replace_one"``: the largest
        norm of the difference of two records' terms, ``min(2 clip, gradient_difference_bound)`` (clipping is
        the projection on a ball, which is 1-Lipschitz, so it never increases a difference). Raises
        ``ValueError`` when the sensitivity is unbounded (no clip and no finite bound).
        """
        if neighbouring == "add_remove":
            bounds = [self.gradient_bound(), clip]
        elif neighbouring == "replace_one":
            bounds = [self.gradient_difference_bound(), None if clip is None else 2.0 * clip]
        else:
            raise ValueError(f"neighbouring must be 'add_remove' or 'replace_one'; got {neighbouring!r}")
        finite = [b for b in bounds if b is not None]
        if not finite:
            raise ValueError(f"{self!r} has no finite gradient sensitivity under {neighbouring} adjacency: bound the "
                             "data and the parameter space, or clip the per-record gradients")
        return float(min(finite))

    # -- gradient capabilities (defaults from the per-record gradients; models override with fast paths) ------------
    def prepare(self, X: np.ndarray) -> PreparedData:
        """The validated dataset in the form the gradient methods below read, computed once per run (default: ``X``
        itself; e.g. logistic regression's signed features ``y x``)."""
        return X

    def per_record_gradients(self, prepared: PreparedData, idx: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """``grad_theta log p(x_i | theta_c)`` for the records ``idx[c]`` of each chain c (``idx`` ``(chains, b)``,
        ``theta`` ``(chains, d)``): shape ``(chains, b, d)``. Default: every record's gradient
        (:meth:`grad_log_likelihood` on ``prepared``, which is the dataset unless :meth:`prepare` is overridden),
        then the batch's rows."""
        c = np.arange(theta.shape[0])[:, None]
        return self.grad_log_likelihood(prepared, theta)[c, idx]

    def minibatch_gradient(self, prepared: PreparedData, idx: np.ndarray, theta: np.ndarray,
                           clip: float | None = None, weights: np.ndarray | None = None) -> np.ndarray:
        """``sum_{i in batch} w_i clip_L(grad_theta log p(x_i | theta))`` per chain, shape ``(chains, d)``.

        Clipping is Li et al. 2019, Alg. 1 step 4 (:func:`clip_gradients`); ``weights`` (``(chains, b)``) is e.g. the
        0/1 mask of a Poisson batch. Default: from :meth:`per_record_gradients`; models override it to avoid
        materialising every per-record gradient."""
        g = self.per_record_gradients(prepared, idx, theta)
        if clip is not None:
            g = clip_gradients(g, clip)
        if weights is not None:
            g = g * weights[..., None]
        return g.sum(axis=-2)

    def full_data_gradient(self, prepared: PreparedData, theta: np.ndarray) -> np.ndarray:
        """``sum_{i=1}^N grad_theta log p(x_i | theta)`` per chain, ``(chains, d)``. Default: :meth:`minibatch_gradient`
        over every record; models with sufficient statistics or one matrix product override it."""
        idx = np.broadcast_to(np.arange(prepared.shape[0]), (theta.shape[0], prepared.shape[0]))
        return self.minibatch_gradient(prepared, idx, theta)

    def full_data_terms(self, prepared: PreparedData, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``sum_i log p(x_i | theta)`` (``(chains,)``) and ``sum_i grad log p(x_i | theta)`` (``(chains, d)``), for
        full-data MCMC (e.g. OPS by MALA). Default: :meth:`log_likelihood` summed and :meth:`full_data_gradient`."""
        return self.log_likelihood(prepared, theta).sum(axis=-1), self.full_data_gradient(prepared, theta)

    # -- the device path (backend-generic: numpy arrays or torch tensors; :mod:`dpverify.samplers.device`) ------------
    def dense_capabilities(self) -> frozenset[str]:
        """The backend-generic methods below that this model implements (the samplers' device path needs
        ``dense_gradient_sum`` and ``dense_grad_log_prior``; DP-SGFS's needs ``dense_record_gradients``; OPS by MALA's
        ``dense_log_prior`` and ``dense_full_data_terms``)."""
        names = ("dense_gradient_sum", "dense_record_gradients", "dense_grad_log_prior", "dense_log_prior",
                 "dense_full_data_terms")
        return frozenset(n for n in names if getattr(type(self), n) is not getattr(Model, n))

    def dense_gradient_sum(self, prepared, theta, weights=None, clip: float | None = None):
        """``sum_{i=1}^N W[c, i] clip_L(grad_theta log p(x_i | theta_c))`` per chain, ``(chains, d)``, with dense weights
        ``W`` ``(chains, N)`` (None: every weight 1); ``prepared``, ``theta`` and ``W`` are arrays of one backend
        (:mod:`dpverify.backends`). What the samplers' device path calls (batches as 0/1 weight rows). Models without
        it raise ``NotImplementedError`` naming themselves."""
        raise NotImplementedError(f"{type(self).__name__} has no backend-generic gradient (dense_gradient_sum): "
                                  "backend='torch' supports LogisticRegression, GaussianTarget, LinearLoss and LeastSquares")

    def dense_record_gradients(self, prepared, idx, theta):
        """``grad_theta log p(x_i | theta_c)`` of the records ``idx[c]`` (``(chains, b)``), ``(chains, b, d)``,
        backend-generic (what DP-SGFS's device path needs)."""
        raise NotImplementedError(f"{type(self).__name__} has no backend-generic per-record gradient "
                                  "(dense_record_gradients)")

    def dense_grad_log_prior(self, theta):
        """``grad log prior(theta)``, backend-generic (numpy arrays or torch tensors)."""
        raise NotImplementedError(f"{type(self).__name__} has no backend-generic prior gradient (dense_grad_log_prior)")

    def dense_log_prior(self, theta):
        """``log prior(theta)`` ``(chains,)`` (``-inf`` where the prior is 0), backend-generic."""
        raise NotImplementedError(f"{type(self).__name__} has no backend-generic log prior (dense_log_prior)")

    def dense_full_data_terms(self, prepared, theta):
        """``(sum_i log p(x_i | theta), sum_i grad log p(x_i | theta))`` per chain, ``(chains,)`` and ``(chains, d)``,
        backend-generic (full-data MCMC on a device: OPS by MALA)."""
        raise NotImplementedError(f"{type(self).__name__} has no backend-generic full-data terms "
                                  "(dense_full_data_terms)")

    # -- Bertazzi et al. 2025's constants (Assumptions 5.1, 5.3, 5.5) ------------------------------------------------
    def ula_constants(self, N: int) -> dict:
        """``{"m", "M", "K", "K_path"}`` of Bertazzi et al. 2025, Assumptions 5.1 / 5.3, for N records (ULA)."""
        raise NotImplementedError(self._no_bertazzi_constants("ula"))

    def sgd_constants(self, N: int) -> dict:
        """``{"m", "M", "K", "K_ell", "affine_l2"}`` of Bertazzi et al. 2025, Assumption 5.5, for N records
        (noisy SGD)."""
        raise NotImplementedError(self._no_bertazzi_constants("sgd"))

    def _no_bertazzi_constants(self, kind: str) -> str:
        return (f"{self!r} does not provide Bertazzi et al. 2025 constants ({kind}_constants(N)); "
                "use dpverify.models.targets.GaussianTarget or NonConvexTarget")

    def quadratic_structure(self) -> QuadraticStructure | None:
        """The potential's :class:`QuadraticStructure` when it is quadratic (module docstring); None by default."""
        return None

    def canary_records(self, direction: int = 0) -> CanaryRecords:
        """Gradient-canary records of this model (:mod:`dpverify.models.canary`); models without such records
        raise ``NotImplementedError`` saying so."""
        raise NotImplementedError(f"{type(self).__name__} has no record whose gradient difference is constant in "
                                  "theta; build canary records by hand (see dpverify.models.canary)")

    def log_posterior(self, X: np.ndarray, theta: np.ndarray, temperature: float = 1.0) -> np.ndarray:
        """Unnormalised log posterior, tempered by rho = 1/temperature on likelihood and prior
        (Wang et al. 2015, Alg. 1 tempers both)."""
        rho = 1.0 / temperature
        return rho * (self.log_prior(theta) + self.log_likelihood(X, theta).sum(axis=-1))
