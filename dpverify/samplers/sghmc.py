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

from dpverify.validation import check_real
from dpverify.calculus.linear_dynamics import LinearDynamics
from dpverify.samplers.integrators import SGHMCIntegrator
from dpverify.samplers.momentum import WangMomentumSampler
from dpverify.samplers.registry import register

__all__ = ["DPSGHMC"]


@register
class DPSGHMC(WangMomentumSampler):
    """DP-SGHMC, Wang et al. 2015, eq. (4.2); momentum starts at 0, theta at ``theta0`` (data-independent).

    Kernel: the unbiased mini-batch gradient (eq. 4.1) and :class:`~dpverify.samplers.integrators.SGHMCIntegrator`
    with step ``h``, friction ``A`` and noise ``sqrt(2 (A - B_hat) h)``. Budget
    (:class:`~dpverify.samplers.momentum.WangMomentumSampler`): replace-one, tau of N without replacement; step t
    releases the momentum update, whose data term ``h (N/tau) sum grad`` has sensitivity ``h (N/tau) 2L`` and noise
    ``sqrt(2 (A - B_hat) h)``. The theta path determines the momentum path (``p_{t-1} = (theta_t - theta_{t-1})/h``),
    so the accountant of the (theta, p) path bounds every release of theta, the final iterate included."""

    id = "dp_sghmc"
    theorems = ("wang2015.sghmc_privacy_condition",)
    output = "final"
    description = "DP-SGHMC (Wang et al. 2015, eq. 4.2): private when 2(A - B_hat)/h meets Alg. 2's noise level"
    source = "Wang et al. 2015, eq. (4.2)"

    def __init__(self, model, N: int, tau: int, T: float, epsilon: float, delta: float, h: float, A: float,
                 B_hat: float = 0.0, theta0=None, unguaranteed: bool = False):
        self._setup_wang(model, N, tau, T, epsilon, delta, theta0, unguaranteed)
        self.h = check_real("h", h, low=0.0, low_inclusive=False)
        self.A = check_real("A", A, low=0.0, low_inclusive=False)
        self.B_hat = check_real("B_hat", B_hat, low=0.0)
        if self.A <= self.B_hat:
            raise ValueError(f"A must exceed B_hat (the injected noise variance 2(A - B_hat)h must be > 0); got A = {A}, B_hat = {B_hat}")
        self._finish_wang("DP-SGHMC (Wang et al. 2015, eq. 4.2)")

    def _theorem_values(self) -> dict:
        return {"A": self.A, "B_hat": self.B_hat, "h": self.h, "N": self.N, "T": self.T, "tau": self.tau,
                "L": self.L, "epsilon": self.epsilon, "delta": self.delta}

    def _dynamics_for(self, prior_precision: float, record_curvature: float) -> LinearDynamics:
        """On a quadratic potential the update is linear in (theta, p) (:meth:`LinearDynamics.momentum`), with the
        curvature ``lam = lam_0 + (N/tau) tau kappa`` of ``-grad U~`` (prior weight 1, tau records of weight N/tau)."""
        return LinearDynamics.momentum(self.h, self.A, prior_precision + self.N * record_curvature, self.n_steps,
                                       source="Wang et al. 2015, eq. (4.2)")

    def _kernel_parts(self):
        noise_std = math.sqrt(2 * (self.A - self.B_hat) * self.h)  # the privacy noise
        return SGHMCIntegrator(), self.h, noise_std, {"step_size": self.h, "friction": self.A, "noise_std": noise_std}
