"""Dirac gradient canaries on a block of parameters that only canaries move (one-run audits).

Steinke, Nasr, Jagielski 2023 (Sec. 5, "white-box: Dirac canaries") audit DP-SGD in one run by inserting m canary
*gradients*, canary j's gradient a fixed vector along its own coordinate. Here that is a model: a base model on
parameters ``w`` (dimension ``d0``) extended by m canary coordinates ``c``, ``theta = (w, c)``, dimension
``d0 + m``. A record is either

- a real record of the base model: its log-likelihood is the base model's, a function of ``w`` only;
- canary j: log-likelihood ``G c_j``, so its gradient is ``G e_{d0+j}`` at every theta (a gradient canary,
  :mod:`dpverify.models.canary`; after clipping at L it is ``min(G, L) e_{d0+j}``);
- a null record: log-likelihood 0 (an excluded canary's slot, so that the number of records N is the same whatever
  the coins -- the add/remove pair "canary present / absent" with N public, as for Poisson DP-SGD/DP-SGLD).

The prior is the base prior on ``w`` and ``N(0, prior_variance)`` on each canary coordinate. No record but canary j
moves ``c_j`` (the prior and the noise act on each coordinate alone): canaries do not interfere with one another or
with the data, and the run's privacy along ``e_{d0+j}`` is the one-dimensional linear-Gaussian chain of
:mod:`dpverify.calculus.linear_dynamics`.

Rows: the base model's row (its columns) followed by one column ``slot``: -1 for a real record, ``j`` in 0..m-1 for
canary j (base columns 0), -2 for a null record. :func:`canary_dataset` builds them from the base data and the coins.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpverify.models.base import Model, PrivacyConstants
from dpverify.validation import check_finite_array, check_positive_int, check_real

__all__ = ["DiracCanaryModel", "CanaryRecordsPrepared", "canary_dataset", "REAL", "NULL"]

#: ``slot`` of a real record and of a null record.
REAL, NULL = -1, -2


@dataclass(frozen=True)
class CanaryRecordsPrepared:
    """What the gradient methods read: ``slot`` per record, ``row`` (the record's row in ``base``, -1 for others)
    and ``base`` (the base model's ``prepare`` of the real records)."""

    slot: np.ndarray
    row: np.ndarray
    base: np.ndarray

    @property
    def shape(self) -> tuple[int, ...]:
        return (self.slot.size,)


class DiracCanaryModel(Model):
    """``base`` extended by ``m`` Dirac canary coordinates (module docstring); canary gradient norm ``G``
    (default: the base model's gradient bound, i.e. the clip level a sampler would use)."""

    def __init__(self, base: Model, m: int, G: float | None = None) -> None:
        self.base = base
        self.m = check_positive_int(m, "m")
        self.base_dim = int(base.dim)
        self.dim = self.base_dim + self.m
        bound = base.gradient_bound()
        if G is None and bound is None:
            raise ValueError("G (the canary gradient norm) is needed when the base model's gradient is unbounded")
        self.G = check_real("G", bound if G is None else G, low=0.0, low_inclusive=False)
        self.prior_variance = float(getattr(base, "prior_variance", 1.0))
        self.theta_radius = None

    def __repr__(self) -> str:
        return f"DiracCanaryModel({self.base!r}, m={self.m}, G={self.G:g})"

    # -- data -----------------------------------------------------------------------------------------------------
    def validate_dataset(self, X) -> np.ndarray:
        arr = check_finite_array(X, "dataset", ndim=2)
        slot = arr[:, -1]
        if np.any(slot != np.round(slot)) or np.any((slot < NULL) | (slot >= self.m)):
            raise ValueError(f"the last column (slot) must be -1 (real), -2 (null) or a canary index in 0..{self.m - 1}")
        canaries = slot[slot >= 0]
        if np.unique(canaries).size != canaries.size:
            raise ValueError("each canary may appear at most once in a dataset")
        real = slot == REAL
        if real.any():
            self.base.validate_dataset(arr[real, :-1])
        return arr

    def prepare(self, X: np.ndarray) -> CanaryRecordsPrepared:
        slot = X[:, -1].astype(np.int64)
        real = np.flatnonzero(slot == REAL)
        row = np.full(slot.size, -1, dtype=np.int64)
        row[real] = np.arange(real.size)
        base = self.base.prepare(X[real, :-1]) if real.size else np.zeros((0, self.base_dim))
        return CanaryRecordsPrepared(slot, row, base)

    # -- likelihood -----------------------------------------------------------------------------------------------
    def log_likelihood(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray:
        theta = np.asarray(theta, dtype=float)
        slot = X[:, -1].astype(np.int64)
        out = np.zeros(theta.shape[:-1] + (slot.size,))
        real = slot == REAL
        if real.any():
            out[..., real] = self.base.log_likelihood(X[real, :-1], theta[..., :self.base_dim])
        canary = slot >= 0
        out[..., canary] = self.G * theta[..., self.base_dim + slot[canary]]
        return out

    def grad_log_likelihood(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """Dense per-record gradients ``theta.shape[:-1] + (N, d0 + m)`` (for small checks; samplers use
        :meth:`minibatch_gradient`)."""
        theta = np.asarray(theta, dtype=float)
        slot = X[:, -1].astype(np.int64)
        out = np.zeros(theta.shape[:-1] + (slot.size, self.dim))
        real = np.flatnonzero(slot == REAL)
        if real.size:
            out[..., real, :self.base_dim] = self.base.grad_log_likelihood(X[real, :-1], theta[..., :self.base_dim])
        canary = np.flatnonzero(slot >= 0)
        out[..., canary, self.base_dim + slot[canary]] = self.G
        return out

    def per_record_gradients(self, prepared: CanaryRecordsPrepared, idx: np.ndarray, theta: np.ndarray) -> np.ndarray:
        chains, b = idx.shape
        out = np.zeros((chains, b, self.dim))
        slot = prepared.slot[idx]
        real = slot == REAL
        if real.any():
            rows = np.where(real, prepared.row[idx], 0)
            g = self.base.per_record_gradients(prepared.base, rows, theta[:, :self.base_dim])
            out[..., :self.base_dim] = g * real[..., None]
        c, k = np.nonzero(slot >= 0)
        out[c, k, self.base_dim + slot[c, k]] = self.G
        return out

    def minibatch_gradient(self, prepared: CanaryRecordsPrepared, idx: np.ndarray, theta: np.ndarray,
                           clip: float | None = None, weights: np.ndarray | None = None) -> np.ndarray:
        """The batch sum per chain: the base model's sum over the batch's real records (its own fast path, clipped at
        ``clip``) on ``w``, and ``min(G, clip) * weight`` on each included canary's coordinate."""
        theta = np.asarray(theta, dtype=float)
        w = np.ones(idx.shape) if weights is None else np.asarray(weights, dtype=float)
        slot = prepared.slot[idx]
        out = np.zeros(theta.shape)
        real = slot == REAL
        if real.any():
            rows = np.where(real, prepared.row[idx], 0)
            out[:, :self.base_dim] = self.base.minibatch_gradient(prepared.base, rows, theta[:, :self.base_dim],
                                                                  clip=clip, weights=w * real)
        c, k = np.nonzero((slot >= 0) & (w != 0))
        if c.size:
            height = self.G if clip is None else min(self.G, clip)
            flat = c * self.dim + self.base_dim + slot[c, k]
            out.reshape(-1)[:] += np.bincount(flat, weights=height * w[c, k], minlength=out.size)
        return out

    # -- prior ----------------------------------------------------------------------------------------------------
    def log_prior(self, theta: np.ndarray) -> np.ndarray:
        theta = np.asarray(theta, dtype=float)
        c = theta[..., self.base_dim:]
        canary = -0.5 * np.sum(c * c, axis=-1) / self.prior_variance - 0.5 * self.m * np.log(2 * np.pi * self.prior_variance)
        return self.base.log_prior(theta[..., :self.base_dim]) + canary

    def grad_log_prior(self, theta: np.ndarray) -> np.ndarray:
        theta = np.asarray(theta, dtype=float)
        out = np.empty(theta.shape)
        out[..., :self.base_dim] = self.base.grad_log_prior(theta[..., :self.base_dim])
        out[..., self.base_dim:] = -theta[..., self.base_dim:] / self.prior_variance
        return out

    # -- constants ------------------------------------------------------------------------------------------------
    @property
    def constants(self) -> PrivacyConstants:
        L = self.base.gradient_bound()
        return PrivacyConstants(L=max(self.G, L) if L is not None else None,
                                extra={"base": repr(self.base), "canaries": self.m, "canary_gradient": self.G})

    def canary_coordinates(self, theta: np.ndarray) -> np.ndarray:
        """The canary block ``c`` of ``theta`` (``theta.shape[:-1] + (m,)``)."""
        return np.asarray(theta, dtype=float)[..., self.base_dim:]


def canary_dataset(base_rows: np.ndarray, included: np.ndarray) -> np.ndarray:
    """Rows for :class:`DiracCanaryModel`: the base rows (slot -1), then one row per canary slot j -- canary j when
    ``included[j]``, else a null record -- so that N = n + m whatever the coins."""
    base_rows = np.asarray(base_rows, dtype=float)
    included = np.asarray(included, dtype=bool)
    m = included.size
    real = np.column_stack([base_rows, np.full(base_rows.shape[0], REAL, dtype=float)])
    slots = np.zeros((m, base_rows.shape[1] + 1))
    slots[:, -1] = np.where(included, np.arange(m), NULL)
    return np.vstack([real, slots])
