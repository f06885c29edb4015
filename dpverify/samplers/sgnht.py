"""Differentially private SGNHT (Wang et al. 2015, Section 4.2, eq. 4.5 and its privacy condition).

The stochastic gradient Nose-Hoover thermostat (Ding et al. 2014) in its SGD-with-momentum form, Wang et al. 2015,
eq. (4.5), with ``v = p h``, ``eta = h^2``, ``alpha = xi h``, ``a = A h``:

    v_t     = v_{t-1} - alpha_{t-1} v_{t-1} - eta grad U~(theta_{t-1}) + N(0, 2 a eta I),
    theta_t = theta_{t-1} + v_t,
    alpha_t = alpha_{t-1} + (v_t^T v_t / d - eta),

``grad U~ = -(grad log prior + (N/tau) sum_{i in S} grad log p(x_i | .))`` on a uniform mini-batch of size tau;
``alpha_0 = a``, ``v_0 = 0``. (Eq. 4.5 prints ``theta_t = theta_{t-1} + u_{t-1}``: ``u`` is undefined; we follow
Ding et al. 2014, Alg. 2, ``theta_t = theta_{t-1} + v_t``. The data enter only through grad U~, so the privacy
argument does not depend on this choice.) Privacy over floor(N T / tau) iterations when

    2 a / eta >= (128 N T L^2 / (tau eps^2)) log(2.5 N T / (tau delta)) log(2/delta),

the SGLD form (the paper prints log(2NT/tau) log(1/delta) here, a typo recorded by ``wang2015.sgnht_privacy_condition``).
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

__all__ = ["DPSGNHT"]


@register
class DPSGNHT(GradientMechanism, StochasticGradientSampler):
    """DP-SGNHT, Wang et al. 2015, eq. (4.5).

    Mechanism: replace-one, tau of N without replacement; step t releases the velocity update, whose data term
    ``eta (N/tau) sum grad`` has sensitivity ``eta (N/tau) 2L`` and noise ``sqrt(2 a eta)``; theta and the
    thermostat are functions of the velocity path (post-processing)."""

    id = "dp_sgnht"
    theorems = ("wang2015.sgnht_privacy_condition",)
    output = "final"
    description = "DP-SGNHT (Wang et al. 2015, eq. 4.5): private when 2a/eta meets Alg. 2's noise level"

    def __init__(self, model, N: int, tau: int, T: float, epsilon: float, delta: float, eta: float, a: float,
                 theta0=None, unguaranteed: bool = False):
        self._setup_common(model, N, theta0, unguaranteed)
        self._setup_wang_budget(tau, T, epsilon, delta)
        self.eta = check_real("eta", eta, low=0.0, low_inclusive=False)
        self.a = check_real("a", a, low=0.0, low_inclusive=False)
        self.L = model_lipschitz(model, "DP-SGNHT (Wang et al. 2015, eq. 4.5)")
        self._sampling, self._clip, self.neighbouring = FixedSizeSampling(self.tau, self.N), None, "replace_one"
        self._evaluation(self.unguaranteed)

    def _evaluation(self, allow: bool):
        values = {"a": self.a, "eta": self.eta, "N": self.N, "T": self.T, "tau": self.tau, "L": self.L,
                  "epsilon": self.epsilon, "delta": self.delta}
        return evaluate_theorem("wang2015.sgnht_privacy_condition", values, allow)

    def mechanism(self) -> MechanismDescription:
        """``n_steps`` Gaussian releases of sensitivity ``eta (N/tau) S`` with noise ``sqrt(2 a eta)``."""
        step = GaussianStep(self.eta * self.N / self.tau * self.record_sensitivity, math.sqrt(2 * self.a * self.eta),
                            self._sampling)
        return MechanismDescription((Repeated(step, self.n_steps),), self.neighbouring, self.output,
                                    "Wang et al. 2015, eq. (4.5)")

    def _init_aux(self, theta, data, rng) -> dict:
        return {"v": np.zeros_like(theta), "alpha": np.full(theta.shape[0], self.a)}

    def _step(self, state: ChainState, data, rng) -> ChainState:
        v, alpha, eta = state.aux["v"], state.aux["alpha"], self.eta
        grad_log_post = stochastic_grad_log_posterior(self.model, data, state.theta, self.tau, rng)  # = -grad U~
        noise = math.sqrt(2 * self.a * eta) * rng.standard_normal(v.shape)  # the privacy noise
        v_new = v - alpha[:, None] * v + eta * grad_log_post + noise
        theta = state.theta + v_new
        alpha_new = alpha + (np.sum(v_new**2, axis=1) / v.shape[1] - eta)
        return ChainState(theta, state.t + 1, {"v": v_new, "alpha": alpha_new})

    def guarantee(self) -> Claim:
        return claim_from(self._evaluation(True), iterations=self.n_steps, epsilon_claimed=self.epsilon)
