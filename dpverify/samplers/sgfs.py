"""Differentially private stochastic gradient Fisher scoring, Wang et al. 2015, supplement Algorithm 4 (DP-SGFS).

With ``sigma^2 = 32 T log(2.5 N T/(tau delta)) log(2/delta) / (N tau eps^2)`` and a public matrix F whose ellipsoid
``F B^d`` contains every per-record gradient (here ``F = L I_d``, L the model's gradient bound), for
``t = 1..floor(N T / tau)``:

1. uniform mini-batch S of size tau; ``g_bar = (1/tau) sum_{i in S} grad log p(x_i | theta_t)``;
2. ``Z_t ~ N(0, max(sigma^2, 4/(N^2 eta_t)) I_d)``, ``W_ij ~ N(0, 49 ||F||^4 sigma^2)`` i.i.d.;
3. ``g~ = g_bar + F Z_t`` (the non-spherical Gaussian mechanism, supp. Lemma 5) and
   ``V = P_{S^d_+}{ (1/(tau-1)) sum_{i in S} (g_i - g_bar)(g_i - g_bar)^T + W }`` (covariance sensitivity
   ``7 L^2/(tau - 1)``, supp. Lemma 6; ``P`` the Frobenius projection on the PSD cone: symmetrise, clip eigenvalues);
4. ``I_t = (1 - kappa_t) I_{t-1} + kappa_t V`` with ``kappa_t = 1/t`` (Ahn et al. 2012's running average);
5. ``theta_{t+1} = theta_t + 2 ((tau + N) N / tau I_t + 4 F F^T / eta_t)^{-1} (grad log prior(theta_t) + N g~)``.

Guarantee (2 eps, 2 delta) under ``T >= eps^2 N / (32 tau log(2/delta))`` (supp. Theorem 5).

Reading of the garbled text: step 2 prints the second term of the max as "1/(N^2 n_*)". SGFS (Ahn et al. 2012)
injects ``N(0, 4 B / eta)`` with preconditioner ``B = F F^T``; ``N F Z`` has covariance ``N^2 Var(Z) F F^T``, which
equals ``4 F F^T / eta_t`` iff ``Var(Z) = 4/(N^2 eta_t)``. We encode that: the max then means "the privacy noise or
SGFS's own noise, whichever is larger", exactly as in Algorithm 2. The gradient of the log-likelihood is used with a
"+" sign (the paper's l is a loss in Sec. 4 but a log-likelihood in Alg. 4; "+" makes the chain ascend the posterior).
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.calculus.mechanism_description import FixedSizeSampling, GaussianStep, MechanismDescription, describe_steps
from dpverify.calculus.releases import check_release
from dpverify.samplers.base import Claim
from dpverify.samplers.budgets import WangBudget, model_lipschitz
from dpverify.samplers.claims import claim_from, evaluate_theorem
from dpverify.samplers.gradients import UniformMinibatchRecordGradients
from dpverify.samplers.integrators import SGFSIntegrator, project_psd
from dpverify.samplers.kernels import Kernel
from dpverify.samplers.registry import register
from dpverify.samplers.schedules import Schedule, step_size_schedule
from dpverify.samplers.sgmcmc import GradientMechanism

#: ``project_psd`` lives with the update rule (:mod:`dpverify.samplers.integrators`); re-exported here.
__all__ = ["DPSGFS", "project_psd"]


@register
class DPSGFS(GradientMechanism):
    """DP-SGFS, Wang et al. 2015, supplement Algorithm 4 (see the module docstring); ``F = L I_d``.

    Kernel: the mini-batch's per-record gradients (:class:`~dpverify.samplers.gradients.UniformMinibatchRecordGradients`)
    and :class:`~dpverify.samplers.integrators.SGFSIntegrator` (steps 2-5) with the schedule of ``eta_t``, the noise
    scales and ``kappa_t = 1/t``.

    Budget: replace-one, tau of N without replacement. Each iteration releases two Gaussian mechanisms on the
    SAME mini-batch: the mean gradient ``g_bar`` (sensitivity ``S/tau``, S = the model's replace-one gradient
    sensitivity, noise ``L sqrt(Var Z_t)``) and the covariance (Frobenius sensitivity ``7 L^2/(tau - 1)``, supp.
    Lemma 6 as the sampler uses it, noise ``7 L^2 sigma``). Because the batch is shared, the two are one Gaussian
    release of the whitened pair, with ``mu_t = sqrt(mu_grad^2 + mu_cov^2)``; composing them as two independently
    subsampled steps would *under*-state the privacy loss (``e^{a+b} - 1 >= (e^a - 1) + (e^b - 1)``).
    (The bound 7 L^2/(tau - 1) of Lemma 6 follows from ``(2 + 4 + 4/tau) L^2/(tau - 1)`` only for tau >= 4;
    recorded in the description's notes.)"""

    id = "dp_sgfs"
    theorems = ("wang2015.supp_thm5_dp_sgfs",)
    output = "final"
    description = "DP-SGFS (Wang et al. 2015, supp. Alg. 4): non-spherical Gaussian gradient + noisy covariance; (2eps, 2delta)"

    #: Wang et al. 2015's budget (:meth:`_set_wang_budget`): a whole batch size and a target epsilon
    tau: int
    epsilon: float

    def __init__(self, model, N: int, tau: int, T: float, epsilon: float, delta: float, step_size,
                 theta0=None, unguaranteed: bool = False):
        self._setup_common(model, N, theta0, unguaranteed)
        self._set_wang_budget(WangBudget.check(self.N, tau, T, epsilon, delta, tau_minimum=2))
        self.eta = step_size_schedule(step_size, self.n_steps)
        self.L = model_lipschitz(model, "DP-SGFS (Wang et al. 2015, supp. Alg. 4)")
        self.F = self.L * np.eye(model.dim)
        N, T, tau, eps, dl = self.N, self.T, self.tau, self.epsilon, self.delta
        self.sigma2 = 32 * T * math.log(2.5 * N * T / (tau * dl)) * math.log(2 / dl) / (N * tau * eps**2)
        self.gradient_noise_variance = np.maximum(self.sigma2, 4.0 / (N**2 * self.eta))
        self.covariance_noise_variance = 49 * np.linalg.norm(self.F, 2) ** 4 * self.sigma2
        self._sampling, self._clip, self.neighbouring = FixedSizeSampling(self.tau, self.N), None, "replace_one"
        schedule = Schedule(self.n_steps, step_size=self.eta,
                            gradient_noise_std=np.sqrt(self.gradient_noise_variance),
                            covariance_noise_std=math.sqrt(self.covariance_noise_variance),
                            averaging_weight=1.0 / np.arange(1, self.n_steps + 1))  # kappa_t = 1/t (step 4)
        self._set_kernel(Kernel(UniformMinibatchRecordGradients(model, self.tau), SGFSIntegrator(self.F)), schedule)
        self._evaluation(self.unguaranteed)

    def _evaluation(self, allow: bool):
        values = {"epsilon": self.epsilon, "delta": self.delta, "N": self.N, "T": self.T, "tau": self.tau}
        return evaluate_theorem("wang2015.supp_thm5_dp_sgfs", values, allow)

    def _whitened_description(self, gradient_sensitivity: float, covariance_sensitivity: float) -> MechanismDescription:
        grad_std = self.L * np.sqrt(self.gradient_noise_variance)
        cov_std = math.sqrt(self.covariance_noise_variance)
        mu = np.sqrt((gradient_sensitivity / grad_std) ** 2 + (covariance_sensitivity / cov_std) ** 2)
        steps = describe_steps(GaussianStep(float(m), 1.0, self._sampling, "gradient and covariance, whitened")
                               for m in mu)
        notes = () if self.tau >= 4 else ("supp. Lemma 6's 7 L^2/(tau - 1) is not proved for tau < 4",)
        return MechanismDescription(steps, self.neighbouring, check_release(self.output),
                                    "Wang et al. 2015, supp. Alg. 4", notes=notes)

    def mechanism(self) -> MechanismDescription:
        """One whitened Gaussian release per iteration (class docstring)."""
        return self._whitened_description(self.record_sensitivity / self.tau, 7 * self.L**2 / (self.tau - 1))

    def canary_description(self, shift: float, direction=None, *,
                           mechanism: MechanismDescription | None = None) -> MechanismDescription:
        """On a canary pair (gradient difference ``u``, the other records copies of one side) the batch covariance
        is 0 without the canary and ``u u^T / tau`` with it (Frobenius norm ``||u||^2/tau``). DP-SGFS's update is not
        linear in its state (its preconditioner is a noisy, data-dependent Fisher estimate), so ``direction`` adds no
        dynamics and ``mechanism`` is not needed."""
        return self._whitened_description(shift / self.tau, shift**2 / self.tau)

    def guarantee(self) -> Claim:
        return claim_from(self._evaluation(True), iterations=self.n_steps, epsilon_claimed=2 * self.epsilon)
