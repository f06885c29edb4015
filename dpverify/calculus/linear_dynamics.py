"""How a step's data term reaches the released coordinate of a chain that is linear in its state.

On a quadratic potential (Gaussian prior, linear or Gaussian likelihood terms, a gradient canary whose clipped
gradient is constant) every gradient sampler here updates its state linearly with data-independent coefficients.
Along the direction u of the canary's gradient difference, with state ``z`` (the position for Langevin-type chains;
position and momentum for SGHMC):

    z_s = A_s z_{s-1} + e (d_s b_s + sigma_s xi_s) + (data-independent terms),      y_s = c . z_s,

``d_s`` the step's data term (its sensitivity, along u), ``b_s`` whether the canary is in step s's batch,
``sigma_s`` the injected noise, ``xi_s ~ N(0, 1)``, ``y`` the released coordinate. Then

    y_t = (data-independent) + sum_{s <= t} gain_{t,s} (d_s b_s + sigma_s xi_s),     gain_{t,s} = c . A_t ... A_{s+1} e,

a Gaussian with a data-independent variance ``sum_s gain_{t,s}^2 sigma_s^2`` and a mean that moves by
``sum_s gain_{t,s} d_s b_s``: the shift-mixture pair of :mod:`dpverify.calculus.accounting.shift_mixture`.

Per integrator (derived from the update rules of :mod:`dpverify.samplers.integrators`; ``lam`` = the potential's
curvature along u, i.e. the weighted prior precision plus the batch's likelihood curvature):

- Euler-Maruyama (ULA, DP-SGLD, noisy SGD): ``theta_s = theta_{s-1} + c_s g(theta_{s-1}) + sigma_s xi_s`` with
  ``g(theta) = -lam theta + ...``: one state, ``A_s = 1 - c_s lam``, ``e = c = 1`` (:meth:`LinearDynamics.contraction`).
  With a constant contraction ``rho`` and full batches this gives the mean gap ``d (1 - rho^t)/(1 - rho)`` and
  variance ``sigma^2 (1 - rho^{2t})/(1 - rho^2)``, so ``mu_t = (d/sigma) sqrt((1+rho)/(1-rho))
  sqrt((1-rho^t)/(1+rho^t))`` (the exact f-DP of noisy GD on a quadratic; Bok, Su, Altschuler 2024);
- SGHMC, Wang et al. 2015 eq. (4.2) (``theta_s = theta_{s-1} + h p_{s-1}``, ``p_s = p_{s-1} + h g(theta_s) - h A p_{s-1}
  + sigma xi``): state ``(theta, p)``, ``A_s = [[1, h], [-h lam, 1 - h^2 lam - h A]]``, ``e = (0, 1)``, ``c = (1, 0)``
  (:meth:`LinearDynamics.momentum`).

The transition matrices are stored run-length encoded (a constant schedule is one block), so a description stays a
small, hashable value.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dpverify.validation import check_positive_int, check_real

__all__ = ["LinearDynamics"]


@dataclass(frozen=True)
class LinearDynamics:
    """The released coordinate's linear recursion (module docstring): ``blocks`` of ``(A, count)`` (``A`` the
    ``m x m`` transition matrix as nested tuples, repeated ``count`` steps), the input vector ``e`` and the
    observation vector ``c``; ``source`` names the update rule."""

    blocks: tuple
    input: tuple
    observe: tuple
    source: str = ""

    def __post_init__(self) -> None:
        m = len(self.input)
        if m == 0 or len(self.observe) != m:
            raise ValueError(f"input and observe must be vectors of one length >= 1; got {self.input!r}, {self.observe!r}")
        if not self.blocks:
            raise ValueError("a linear dynamics needs at least one step")
        for A, count in self.blocks:
            arr = np.asarray(A, dtype=float)
            if arr.shape != (m, m) or not np.all(np.isfinite(arr)):
                raise ValueError(f"every transition must be a finite {m} x {m} matrix; got {A!r}")
            check_positive_int(count, "count")

    # -- constructors ----------------------------------------------------------------------------------------------
    @classmethod
    def contraction(cls, factors, source: str = "") -> "LinearDynamics":
        """One state, ``z_s = rho_s z_{s-1} + (data + noise)``: Euler-Maruyama with ``rho_s = 1 - c_s lam``."""
        rho = np.atleast_1d(np.asarray(factors, dtype=float))
        if not np.all(np.isfinite(rho)):  # the first bad factor named, by the shared validator
            for i, r in enumerate(rho):
                check_real(f"factors[{i}]", r)
        rho = rho.reshape(-1) + 0.0  # -0.0 reads as 0.0, as check_real returns it
        # run-length encoded with numpy (a run of 10^6 steps is one block per run of equal factors, in milliseconds)
        starts = np.flatnonzero(np.concatenate(([True], rho[1:] != rho[:-1])))
        counts = np.diff(np.append(starts, rho.size))
        blocks = tuple((((float(rho[i]),),), int(n)) for i, n in zip(starts.tolist(), counts.tolist()))
        return cls(blocks, (1.0,), (1.0,), source)

    @classmethod
    def momentum(cls, step_size: float, friction: float, curvature: float, n_steps: int,
                 source: str = "") -> "LinearDynamics":
        """SGHMC, Wang et al. 2015 eq. (4.2), with constant step ``h``, friction ``A`` and curvature ``lam``
        (module docstring)."""
        h = check_real("step_size", step_size, low=0.0, low_inclusive=False)
        a = check_real("friction", friction, low=0.0)
        lam = check_real("curvature", curvature, low=0.0)
        n = check_positive_int(n_steps, "n_steps")
        A = ((1.0, h), (-h * lam, 1.0 - h * h * lam - h * a))
        return cls(((A, n),), (0.0, 1.0), (1.0, 0.0), source)

    # -- reading ---------------------------------------------------------------------------------------------------
    @property
    def n_steps(self) -> int:
        return sum(int(count) for _, count in self.blocks)

    @property
    def state_dim(self) -> int:
        return len(self.input)

    def transitions(self) -> np.ndarray:
        """Every step's transition matrix, ``(n_steps, m, m)``."""
        mats = [np.broadcast_to(np.asarray(A, dtype=float), (int(count),) + (self.state_dim,) * 2)
                for A, count in self.blocks]
        return np.concatenate(mats, axis=0)

    def gains(self, start: int, end: int) -> np.ndarray:
        """``gain_{end, s} = c . A_end ... A_{s+1} e`` for ``s = start .. end`` (steps 1-based, inclusive): how
        much of step s's data term and noise reach the released coordinate at step ``end``."""
        n = self.n_steps
        if not 1 <= start <= end <= n:
            raise ValueError(f"the window must satisfy 1 <= start <= end <= n_steps = {n}; got ({start}, {end})")
        mats = self.transitions()[start:end]  # A_{start+1} .. A_end (0-based index s - 1 holds A_s)
        e = np.asarray(self.input, dtype=float)
        c = np.asarray(self.observe, dtype=float)
        if self.state_dim == 1:
            rho = mats[:, 0, 0]
            tail = np.cumprod(rho[::-1])[::-1]  # tail[i] = A_{start+1+i} ... A_end
            return float(c[0] * e[0]) * np.append(tail, 1.0)
        out = np.empty(end - start + 1)
        v = c.copy()
        out[-1] = float(v @ e)
        for i in range(mats.shape[0] - 1, -1, -1):  # a loop over steps (not samples): v = c A_end ... A_{s+1}
            v = v @ mats[i]
            out[i] = float(v @ e)
        return out

    def describe(self) -> str:
        if self.state_dim == 1:
            values = [A[0][0] for A, _ in self.blocks]
            lo, hi = min(values), max(values)
            rho = f"{lo:.6g}" if lo == hi else f"{lo:.6g}..{hi:.6g}"
            return f"linear, contraction {rho} per step"
        return f"linear, {self.state_dim}-dimensional state ({self.source or 'momentum'})"


def _run_length(matrices) -> tuple:
    out: list = []
    for A in matrices:
        if out and out[-1][0] == A:
            out[-1] = (A, out[-1][1] + 1)
        else:
            out.append((A, 1))
    return tuple(out)
