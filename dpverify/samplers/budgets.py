"""Privacy budgets of the gradient samplers: the parameters a theorem's claim is made for, checked once.

- :class:`WangBudget` -- Wang et al. 2015's budget, shared by DP-SGLD (Alg. 2), DP-SGHMC (eq. 4.2), DP-SGNHT
  (eq. 4.5) and DP-SGFS (supp. Alg. 4): N records, mini-batches of ``tau``, ``T`` data passes (so
  ``floor(N T / tau)`` iterations), target ``(epsilon, delta)``; :meth:`WangBudget.privacy_noise_level` is the
  per-step noise-to-step ratio all four calibrate against.
- :func:`wang_iterations` -- ``floor(N T / tau)``;
- :func:`model_lipschitz` -- the model's finite Lipschitz constant ``L``, or a clear error naming the sampler.

Nothing here updates a chain: the kernels (:mod:`dpverify.samplers.kernels`) do, with the noise scales a budget sets.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_positive_int, check_real
from dpverify.samplers.schedules import MAX_STEPS

__all__ = ["WangBudget", "wang_iterations", "wang_noise_level", "model_lipschitz"]


def wang_iterations(N: int, T: float, tau: int) -> int:
    """``floor(N T / tau)``: the iterations of T data passes with mini-batches of size tau (Wang et al. 2015, Alg. 2)."""
    n = int(np.floor(N * T / tau))
    if n < 1:
        raise ValueError(f"T must give at least one iteration floor(N T / tau) >= 1; got N T / tau = {N * T / tau}")
    if n > MAX_STEPS:
        raise ValueError(f"T = {T} gives floor(N T / tau) = {n} iterations; at most {MAX_STEPS} are allowed")
    return n


def wang_noise_level(N: float, T: float, tau: float, epsilon: float, delta: float, L: float) -> float:
    """``(128 N T L^2 / (tau eps^2)) log(2.5 N T / (tau delta)) log(2/delta)``: Wang et al. 2015, Alg. 2 step 2's lower
    bound on the noise variance per squared step size (and eqs. 4.2-4.5's on ``2 (A - B_hat)/h``, ``2 a / eta``)."""
    return (128.0 * N * T * L**2 / (tau * epsilon**2)) * math.log(2.5 * N * T / (tau * delta)) * math.log(2.0 / delta)


def model_lipschitz(model, who: str) -> float:
    """The model's finite Lipschitz constant ``L = sup ||grad log p||`` (a clear error naming ``who`` needs it)."""
    L = model.constants.L
    if L is None or not math.isfinite(L):
        raise ValueError(
            f"{who} needs a finite Lipschitz constant L = sup ||grad log p|| of the model; {model!r} has none "
            "(bound the data and/or the parameter space, or clip the gradients as in Li et al. 2019)"
        )
    return float(L)


@dataclass(frozen=True)
class WangBudget:
    """Wang et al. 2015's privacy budget: batch size ``tau`` (``tau_minimum <= tau <= N``), ``T > 0`` data passes,
    target ``epsilon > 0`` and ``delta in (0, 1)``; ``n_steps = floor(N T / tau)`` iterations. Build it with
    :meth:`check`, which raises a ``ValueError`` naming the bad argument."""

    N: int
    tau: int
    T: float
    epsilon: float
    delta: float
    n_steps: int

    @classmethod
    def check(cls, N: int, tau: int, T: float, epsilon: float, delta: float, *, tau_minimum: int = 1) -> WangBudget:
        tau = check_positive_int(tau, "tau", minimum=tau_minimum)
        if tau > N:
            raise ValueError(f"tau must be <= N = {N}; got {tau}")
        T = check_real("T", T, low=0.0, low_inclusive=False)
        epsilon = check_epsilon(epsilon)
        delta = check_delta(delta, allow_zero=False)
        return cls(N, tau, T, epsilon, delta, wang_iterations(N, T, tau))

    def privacy_noise_level(self, L: float) -> float:
        """:func:`wang_noise_level` of this budget for the Lipschitz constant ``L``."""
        return wang_noise_level(self.N, self.T, self.tau, self.epsilon, self.delta, L)
