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

from dpverify.validation import check_real
from dpverify.samplers.integrators import SGNHTIntegrator
from dpverify.samplers.momentum import WangMomentumSampler
from dpverify.samplers.registry import register

__all__ = ["DPSGNHT"]


@register
class DPSGNHT(WangMomentumSampler):
    """DP-SGNHT, Wang et al. 2015, eq. (4.5).

    Kernel: the unbiased mini-batch gradient (eq. 4.1) and :class:`~dpverify.samplers.integrators.SGNHTIntegrator`
    with step ``eta``, thermostat start ``a`` and noise ``sqrt(2 a eta)``. Budget
    (:class:`~dpverify.samplers.momentum.WangMomentumSampler`): replace-one, tau of N without replacement; step t
    releases the velocity update, whose data term ``eta (N/tau) sum grad`` has sensitivity ``eta (N/tau) 2L`` and
    noise ``sqrt(2 a eta)``; theta and the thermostat are functions of the velocity path (post-processing)."""

    id = "dp_sgnht"
    theorems = ("wang2015.sgnht_privacy_condition",)
    output = "final"
    description = "DP-SGNHT (Wang et al. 2015, eq. 4.5): private when 2a/eta meets Alg. 2's noise level"
    source = "Wang et al. 2015, eq. (4.5)"

    def __init__(self, model, N: int, tau: int, T: float, epsilon: float, delta: float, eta: float, a: float,
                 theta0=None, unguaranteed: bool = False):
        self._setup_wang(model, N, tau, T, epsilon, delta, theta0, unguaranteed)
        self.eta = check_real("eta", eta, low=0.0, low_inclusive=False)
        self.a = check_real("a", a, low=0.0, low_inclusive=False)
        self._finish_wang("DP-SGNHT (Wang et al. 2015, eq. 4.5)")

    def _theorem_values(self) -> dict:
        return {"a": self.a, "eta": self.eta, "N": self.N, "T": self.T, "tau": self.tau, "L": self.L,
                "epsilon": self.epsilon, "delta": self.delta}

    def _kernel_parts(self):
        noise_std = math.sqrt(2 * self.a * self.eta)  # the privacy noise
        return SGNHTIntegrator(self.a), self.eta, noise_std, {"step_size": self.eta, "noise_std": noise_std}
