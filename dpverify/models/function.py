"""A model given by your own gradient functions: the data side of a DP-SGLD written outside dpverify.

To audit a sampler dpverify did not write (:mod:`dpverify.samplers.declared`), the auditor needs the per-record
gradients the sampler claims to use -- to verify that a pair is a gradient canary and to compute the white-box
statistics of the declared algorithm -- and nothing else. :class:`FunctionModel` wraps them:

- ``grad_log_likelihood(X, theta) -> (..., N, d)``: the per-record gradients of ``log p(x_i | theta)`` at each theta
  (``theta`` of shape ``(..., d)``, records ``X`` of shape ``(N, ...)``);
- ``grad_log_prior(theta) -> (..., d)``;
- ``lipschitz``: a bound on ``||grad log p(x | theta)||`` (the sensitivity of an unclipped gradient), or None when the
  sampler clips (then the clip level bounds it);
- ``quadratic``: the prior precision and record curvature when the potential is quadratic
  (:class:`~dpverify.models.base.QuadraticStructure`; then a final iterate or a sample set has its exact privacy).

Likelihood values are never needed by a gradient sampler's audit; asking for them is an error saying so.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from dpverify.validation import check_positive_int, check_real
from dpverify.models.base import Model, PrivacyConstants, QuadraticStructure

__all__ = ["FunctionModel"]


class FunctionModel(Model):
    """A :class:`~dpverify.models.base.Model` from gradient functions (module docstring)."""

    def __init__(self, dim: int, grad_log_likelihood: Callable, grad_log_prior: Callable, *,
                 lipschitz: float | None = None, quadratic: QuadraticStructure | None = None,
                 validate: Callable | None = None, name: str = "your model"):
        self.dim = check_positive_int(dim, "dim")
        for label, fn in (("grad_log_likelihood", grad_log_likelihood), ("grad_log_prior", grad_log_prior)):
            if not callable(fn):
                raise TypeError(f"{label} must be callable; got {type(fn).__name__}")
        self._grad_ll, self._grad_prior = grad_log_likelihood, grad_log_prior
        self._lipschitz = None if lipschitz is None else check_real("lipschitz", lipschitz, low=0.0,
                                                                    low_inclusive=False)
        if quadratic is not None and not isinstance(quadratic, QuadraticStructure):
            raise TypeError(f"quadratic must be a QuadraticStructure or None; got {quadratic!r}")
        self._quadratic = quadratic
        self._validate = validate
        self.name = str(name)

    def __repr__(self) -> str:
        return f"FunctionModel({self.name}, dim={self.dim})"

    def validate_dataset(self, X) -> np.ndarray:
        """Your ``validate`` (if given), else: an array with records on axis 0 and finite values."""
        if self._validate is not None:
            return np.asarray(self._validate(X))
        arr = np.asarray(X, dtype=float)
        if arr.ndim < 1 or arr.shape[0] < 1:
            raise ValueError(f"dataset must be an array with at least one record on axis 0; got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ValueError("dataset must contain finite numbers only")
        return arr

    def grad_log_likelihood(self, X, theta):
        theta = np.asarray(theta, dtype=float)
        g = np.asarray(self._grad_ll(X, theta), dtype=float)
        expect = theta.shape[:-1] + (np.shape(X)[0], self.dim)
        if g.shape != expect:
            raise ValueError(f"grad_log_likelihood(X, theta) must return shape {expect} (theta.shape[:-1] + (N, d)); "
                             f"got {g.shape}")
        return g

    def grad_log_prior(self, theta):
        theta = np.asarray(theta, dtype=float)
        g = np.asarray(self._grad_prior(theta), dtype=float)
        if g.shape != theta.shape:
            raise ValueError(f"grad_log_prior(theta) must return the shape of theta {theta.shape}; got {g.shape}")
        return g

    def log_likelihood(self, X, theta):
        raise NotImplementedError("a FunctionModel has gradients only: the audit of a gradient sampler never needs "
                                  "likelihood values")

    def log_prior(self, theta):
        raise NotImplementedError("a FunctionModel has gradients only: the audit of a gradient sampler never needs "
                                  "prior values")

    @property
    def constants(self) -> PrivacyConstants:
        return PrivacyConstants(L=self._lipschitz)

    def quadratic_structure(self) -> QuadraticStructure | None:
        return self._quadratic
