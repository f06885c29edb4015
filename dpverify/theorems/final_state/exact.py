"""The exact privacy of a linear-Gaussian chain's final iterate, in the currencies the final-state theorems use.

A run described by a :class:`~dpverify.calculus.mechanism_description.MechanismDescription` with linear dynamics
releases, on its canary pair, ``P = law(W + Z)`` against ``Q = law(Z)`` (``Z ~ N(0, 1)``, ``W = sum_t w_t b_t``,
``b_t ~ Bernoulli(q_t)``; :mod:`dpverify.calculus.accounting.release`). Two values are read from it:

- **epsilon(delta)**: the lower end of the rigorous bracket of the pair's PLD
  (:func:`~dpverify.calculus.accounting.shift_mixture.shift_mixture_pld`), so that a claim below it is certainly
  broken; for full batches (every ``q_t = 1``) the pair is Gaussian with ``mu = sum_t w_t`` and epsilon is Balle &
  Wang's closed form (:func:`~dpverify.calculus.mechanisms.gaussian.gaussian_epsilon`).
- **D_alpha** (the order-alpha Rényi divergence, the larger of the two directions): ``alpha mu^2 / 2`` for full
  batches; otherwise a lower bound (:func:`mixture_renyi_lower`): every gain is rounded *down* to a lattice, which
  gives a pair that the true one dominates (the post-processing argument of
  :mod:`~dpverify.calculus.accounting.shift_mixture`, fact 0, holds for every f-divergence, Rényi included), whose
  law of W is exact (:func:`~dpverify.calculus.accounting.shift_mixture.shift_lattice`; with at most 12 random
  steps the law is enumerated and nothing is rounded); both directions are then
  integrals against ``Q`` of a function of the privacy loss ``L(x) = log E_W[exp(W x - W^2/2)]``, done by the
  trapezoid rule in log space on a grid of width ``dx`` over ``[-(alpha + 1) W_max - 14, (alpha + 1) W_max + 14]``
  (truncating a positive integrand only lowers it). The one approximation is the trapezoid rule on an analytic
  integrand (error below 1e-10 relative at the default width 0.05; ``tests/test_final_state_check.py`` compares it with
  width 0.01 and with the closed forms of the Gaussian and the one-step subsampled Gaussian pairs).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import logsumexp

from dpverify.calculus.accounting.release import (
    WindowPair,
    release_privacy,
    release_window_pairs,
)
from dpverify.calculus.accounting.shift_mixture import shift_lattice
from dpverify.calculus.linear_dynamics import LinearDynamics
from dpverify.calculus.mechanism_description import MechanismDescription
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.calculus.vocabulary import Release
from dpverify.validation import check_delta, check_order, check_positive_int, check_real

__all__ = ["COARSE", "ExactFinal", "exact_final", "mixture_renyi_lower"]

#: PLD accuracy of a grid point (``interval``, ``shift_tolerance``): coarse, so that a subsampled point costs ~0.05 s;
#: the lower end of the bracket stays a certified lower bound whatever the accuracy (it is only less tight).
COARSE: dict = {"interval": 2e-3, "shift_tolerance": 3e-2}


def _shift_law(w: np.ndarray, q: np.ndarray, max_atoms: int, enumerate_up_to: int) -> tuple[np.ndarray, np.ndarray]:
    """(atoms, log masses) of a law of ``W' <= W`` step by step: exact (every inclusion pattern) when at most
    ``enumerate_up_to`` steps are random, else every gain rounded down to the lattice of width ``sum(w)/max_atoms``
    (:func:`~dpverify.calculus.accounting.shift_mixture.shift_lattice`)."""
    fixed = float(w[q >= 1].sum())
    random = (q < 1) & (q > 0) & (w > 0)
    wr, qr = w[random], q[random]
    if wr.size <= enumerate_up_to:
        patterns = (np.arange(2**wr.size)[:, None] >> np.arange(wr.size)) & 1
        atoms = patterns @ wr + fixed
        log_mass = np.where(patterns == 1, np.log(qr), np.log1p(-qr)).sum(axis=1)
        return atoms, log_mass
    g = float(w.sum()) / max_atoms
    p, _ = shift_lattice(w, q, g, round_up=False, prune_mass=0.0)
    keep = p > 0
    return np.flatnonzero(keep) * g, np.log(p[keep])


def mixture_renyi_lower(weights, rates, alpha: float, *, max_atoms: int = 3000, dx: float = 0.05,
                        enumerate_up_to: int = 12) -> float:
    """A lower bound on ``max(D_alpha(P || Q), D_alpha(Q || P))`` for ``P = law(sum_t w_t b_t + Z)``, ``Q = law(Z)``
    (module docstring): the law of W exact when at most ``enumerate_up_to`` steps are random (``0 < q_t < 1``), else
    with the gains rounded down to a lattice of width ``sum(w) / max_atoms``; trapezoid quadrature of both directions
    in log space with width ``dx``."""
    a = check_order(alpha, "alpha")
    w = np.atleast_1d(np.asarray(weights, dtype=float))
    if w.ndim != 1 or not np.all(np.isfinite(w) & (w >= 0)):
        raise ValueError(f"weights must be a 1-d array of finite numbers >= 0; got {weights!r}")
    q = np.broadcast_to(np.asarray(rates, dtype=float), w.shape).astype(float)
    if not np.all((q >= 0) & (q <= 1)):
        raise ValueError(f"rates must be in [0, 1]; got {rates!r}")
    check_positive_int(max_atoms, "max_atoms")
    dx = check_real("dx", dx, low=0.0, high=0.5, low_inclusive=False)
    if float((w * q).sum()) == 0.0:
        return 0.0
    shifts, log_p = _shift_law(w, q, max_atoms, check_positive_int(enumerate_up_to, "enumerate_up_to", minimum=0))
    reach = (a + 1.0) * float(shifts.max()) + 14.0
    x = np.arange(-reach, reach + dx, dx)
    loss = np.empty_like(x)
    for lo in range(0, x.size, 512):  # L(x) = log sum_k p_k exp(a_k x - a_k^2 / 2), in blocks of x
        xs = x[lo:lo + 512]
        loss[lo:lo + 512] = logsumexp(log_p[None, :] + np.outer(xs, shifts) - shifts**2 / 2, axis=1)
    log_phi = -x**2 / 2 - 0.5 * math.log(2 * math.pi)
    log_trap = np.full(x.size, math.log(dx))
    log_trap[[0, -1]] += math.log(0.5)
    forward = float(logsumexp(log_phi + a * loss + log_trap)) / (a - 1)  # E_Q[(p/q)^alpha]
    backward = float(logsumexp(log_phi - (a - 1) * loss + log_trap)) / (a - 1)  # E_Q[(q/p)^(alpha-1)]
    return max(0.0, forward, backward)


@dataclass(frozen=True)
class ExactFinal:
    """The exact privacy of one final release (module docstring): its window pair (weights ``w_t`` in units of the
    release's noise standard deviation, rates ``q_t``), whether every step is a full batch, and the description it
    came from (for the PLD of subsampled pairs)."""

    description: MechanismDescription
    pair: WindowPair

    @property
    def full_batch(self) -> bool:
        return self.pair.full_batch

    @property
    def mu(self) -> float:
        """The Gaussian pair's mu (full batches only; ``ValueError`` otherwise)."""
        if not self.full_batch:
            raise ValueError("a subsampled final release is a Gaussian shift mixture, not a Gaussian pair: no mu")
        return self.pair.mu

    def rdp(self, alpha: float) -> tuple[float, str]:
        """(a certified lower bound on the release's RDP at ``alpha``, how it was computed): ``alpha mu^2 / 2``
        exactly for full batches, :func:`mixture_renyi_lower` otherwise."""
        a = check_order(alpha, "alpha")
        if self.full_batch:
            return a * self.pair.mu**2 / 2, "closed form alpha mu^2/2"
        return _mixture_rdp(self.description, a), "lattice quadrature, lower bound"

    def epsilon_lower(self, delta: float) -> tuple[float, str]:
        """(a certified lower bound on the release's epsilon(delta), how it was computed): Balle & Wang's closed form
        for full batches, the lower end of the PLD bracket (accuracy :data:`COARSE`) otherwise."""
        d = check_delta(delta, allow_zero=False)
        if self.full_batch:
            return gaussian_epsilon(d, self.pair.mu), "closed form (Balle & Wang 2018)"
        exact = release_privacy(self.description.steps_expanded(), _dynamics(self.description), Release.FINAL,
                                self.description.neighbouring, **COARSE)
        return exact.epsilon_bounds(d)[0], "PLD bracket, lower end"


def _dynamics(description: MechanismDescription) -> LinearDynamics:
    """The description's linear dynamics (an :class:`ExactFinal`'s description always has them: :func:`exact_final`)."""
    if description.dynamics is None:
        raise ValueError("the exact final release needs a MechanismDescription with linear dynamics")
    return description.dynamics


@lru_cache(maxsize=1024)
def _mixture_rdp(description: MechanismDescription, alpha: float) -> float:
    """:func:`mixture_renyi_lower` of a description's final pair (cached: statements sharing a run share it)."""
    (pair,) = release_window_pairs(description.steps_expanded(), _dynamics(description), Release.FINAL)
    return mixture_renyi_lower(pair.mixture_weights(), pair.rates, alpha)


def exact_final(description: MechanismDescription) -> ExactFinal:
    """The :class:`ExactFinal` of ``description``'s final iterate (the description must carry linear dynamics)."""
    if not isinstance(description, MechanismDescription) or description.dynamics is None:
        raise ValueError("the exact final release needs a MechanismDescription with linear dynamics")
    (pair,) = release_window_pairs(description.steps_expanded(), description.dynamics, Release.FINAL)
    return ExactFinal(description, pair)
