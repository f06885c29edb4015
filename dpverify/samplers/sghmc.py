"""Differentially private SGHMC (Wang et al. 2015, Section 4.2, eq. 4.2 and its privacy condition).

Stochastic gradient Hamiltonian Monte Carlo (Chen, Fox, Guestrin 2014) as written in Wang et al. 2015, eq. (4.2):

    theta_t = theta_{t-1} + h p_{t-1},
    p_t     = p_{t-1} - h grad U~(theta_t) - h A p_{t-1} + N(0, 2 (A - B_hat) h I),

with ``grad U~ = -(grad log prior + (N/tau) sum_{i in S} grad log p(x_i | .))`` on a uniform mini-batch S of size
tau, friction ``A > B_hat`` and ``B_hat`` the guessed covariance of the stochastic gradient (a scalar here). The
injected noise is the privacy mechanism: the run is (eps, delta)-DP over floor(N T / tau) iterations when

    2 (A - B_hat) / h >= (128 N T L^2 / (tau eps^2)) log(2.5 N T / (tau delta)) log(2/delta)

(the same per-step noise-to-signal ratio as Algorithm 2), checked through ``wang2015.sghmc_privacy_condition``.
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.validation import check_real
from dpverify.calculus.mechanism_description import FixedSizeSampling, GaussianStep, MechanismDescription, Repeated
from dpverify.samplers.sgmcmc import (
    ChainState,
    GradientMechanism,
    StochasticGradientSampler,
    claim_from,
    evaluate_theorem,
    stochastic_grad_log_posterior,
)
from dpverify.samplers.base import Claim
from dpverify.samplers.registry import register
from dpverify.samplers.sgld import model_lipschitz

__all__ = ["DPSGHMC"]


@register
class DPSGHMC(GradientMechanism, StochasticGradientSampler):
    """DP-SGHMC, Wang et al. 2015, eq. (4.2); momentum starts at 0, theta at ``theta0`` (data-independent).

    Mechanism: replace-one, tau of N without replacement; step t releases the momentum update, whose data term
    ``h (N/tau) sum grad`` has sensitivity ``h (N/tau) 2L`` and noise ``sqrt(2 (A - B_hat) h)``. The theta path
    determines the momentum path (``p_{t-1} = (theta_t - theta_{t-1})/h``), so the accountant of the (theta, p)
    path bounds every release of theta, the final iterate included."""

    id = "dp_sghmc"
    theorems = ("wang2015.sghmc_privacy_condition",)
    output = "final"
    description = "DP-SGHMC (Wang et al. 2015, eq. 4.2): private when 2(A - B_hat)/h meets Alg. 2's noise level"

    def __init__(self, model, N: int, tau: int, T: float, epsilon: float, delta: float, h: float, A: float,
                 B_hat: float = 0.0, theta0=None, unguaranteed: bool = False):
        self._setup_common(model, N, theta0, unguaranteed)
        self._setup_wang_budget(tau, T, epsilon, delta)
        self.h = check_real("h", h, low=0.0, low_inclusive=False)
        self.A = check_real("A", A, low=0.0, low_inclusive=False)
        self.B_hat = check_real("B_hat", B_hat, low=0.0)
        if self.A <= self.B_hat:
            raise ValueError(f"A must exceed B_hat (the injected noise variance 2(A - B_hat)h must be > 0); got A = {A}, B_hat = {B_hat}")
        self.L = model_lipschitz(model, "DP-SGHMC (Wang et al. 2015, eq. 4.2)")
        self._sampling, self._clip, self.neighbouring = FixedSizeSampling(self.tau, self.N), None, "replace_one"
        self._evaluation(self.unguaranteed)

    def _evaluation(self, allow: bool):
        values = {"A": self.A, "B_hat": self.B_hat, "h": self.h, "N": self.N, "T": self.T, "tau": self.tau,
                  "L": self.L, "epsilon": self.epsilon, "delta": self.delta}
        return evaluate_theorem("wang2015.sghmc_privacy_condition", values, allow)

    def mechanism(self) -> MechanismDescription:
        """``n_steps`` Gaussian releases of sensitivity ``h (N/tau) S`` (S: the model's replace-one gradient
        sensitivity) with noise ``sqrt(2 (A - B_hat) h)`` (class docstring)."""
        step = GaussianStep(self.h * self.N / self.tau * self.record_sensitivity,
                            math.sqrt(2 * (self.A - self.B_hat) * self.h), self._sampling)
        return MechanismDescription((Repeated(step, self.n_steps),), self.neighbouring, self.output,
                                    "Wang et al. 2015, eq. (4.2)")

    def _init_aux(self, theta, data, rng) -> dict:
        return {"p": np.zeros_like(theta)}

    def _step(self, state: ChainState, data, rng) -> ChainState:
        h, p = self.h, state.aux["p"]
        theta = state.theta + h * p
        grad_log_post = stochastic_grad_log_posterior(self.model, data, theta, self.tau, rng)  # = -grad U~
        noise = math.sqrt(2 * (self.A - self.B_hat) * h) * rng.standard_normal(theta.shape)  # the privacy noise
        p_new = p + h * grad_log_post - h * self.A * p + noise
        return ChainState(theta, state.t + 1, {"p": p_new})

    def guarantee(self) -> Claim:
        return claim_from(self._evaluation(True), iterations=self.n_steps, epsilon_claimed=self.epsilon)
