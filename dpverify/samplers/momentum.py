"""What DP-SGHMC (Wang et al. 2015, eq. 4.2) and DP-SGNHT (eq. 4.5) share: Wang et al.'s budget and its claim.

Both run ``floor(N T / tau)`` iterations on uniform mini-batches of size tau (the unbiased gradient of eq. 4.1) and
are private when their injected noise meets Algorithm 2's level (``2 (A - B_hat)/h`` resp. ``2 a/eta`` at least
:meth:`~dpverify.samplers.budgets.WangBudget.privacy_noise_level`), checked through the catalogue. Each step releases
one Gaussian update whose data term ``c (N/tau) sum grad`` (``c = h`` resp. ``eta``) has the sensitivity
``c (N/tau) S`` (``S``: the model's replace-one per-record gradient sensitivity) and the noise of the momentum or
velocity update; positions and thermostats are post-processing of those releases.

:class:`WangMomentumSampler` is that budget; a subclass supplies its integrator, its step coefficient ``c``, its
noise scale and its theorem values.
"""
from __future__ import annotations

from dpverify.calculus.guarantees import Claim
from dpverify.calculus.mechanism_description import FixedSizeSampling, GaussianStep, MechanismDescription, Repeated
from dpverify.calculus.releases import check_release
from dpverify.samplers.budgets import WangBudget, model_lipschitz
from dpverify.samplers.claims import claim_from, evaluate_theorem
from dpverify.samplers.gradients import UniformMinibatchGradient
from dpverify.samplers.kernels import Kernel
from dpverify.samplers.schedules import Schedule
from dpverify.samplers.sgmcmc import GradientMechanism

__all__ = ["WangMomentumSampler"]


class WangMomentumSampler(GradientMechanism):
    """Wang et al. 2015's budget for a momentum method (module docstring). Subclasses set ``theorems`` (the privacy
    condition's catalogue ID first), ``source``, and implement :meth:`_theorem_values` and :meth:`_kernel_parts`."""

    source: str
    #: Wang et al. 2015's budget (:meth:`_set_wang_budget`): a whole batch size and a target epsilon
    tau: int
    epsilon: float

    def _setup_wang(self, model, N: int, tau: int, T: float, epsilon: float, delta: float, theta0,
                    unguaranteed: bool) -> None:
        """The checks every momentum sampler makes first: N, theta0, then the budget (tau, T, epsilon, delta)."""
        self._setup_common(model, N, theta0, unguaranteed)
        self._set_wang_budget(WangBudget.check(self.N, tau, T, epsilon, delta))

    def _finish_wang(self, who: str) -> None:
        """After the subclass' own parameters: L, the batch scheme, the kernel, and the privacy condition checked."""
        self.L = model_lipschitz(self.model, who)
        self._sampling, self._clip, self.neighbouring = FixedSizeSampling(self.tau, self.N), None, "replace_one"
        integrator, coefficient, noise_std, step_params = self._kernel_parts()
        self._coefficient, self._injected_noise_std = coefficient, noise_std
        estimator = UniformMinibatchGradient(self.model, self.tau, prior_weight=1.0, data_weight=self.N / self.tau)
        self._set_kernel(Kernel(estimator, integrator), Schedule(self.n_steps, **step_params))
        self._evaluation(self.unguaranteed)

    def _theorem_values(self) -> dict:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _kernel_parts(self):  # pragma: no cover - every subclass defines it
        """``(integrator, step coefficient c, injected noise std, per-step parameters of the integrator)``."""
        raise NotImplementedError

    def _evaluation(self, allow: bool):
        return evaluate_theorem(self.theorems[0], self._theorem_values(), allow)

    def mechanism(self) -> MechanismDescription:
        """``n_steps`` Gaussian releases of sensitivity ``c (N/tau) S`` with the injected noise (module docstring)."""
        step = GaussianStep(self._coefficient * self.N / self.tau * self.record_sensitivity, self._injected_noise_std,
                            self._sampling)
        return MechanismDescription((Repeated(step, self.n_steps),), self.neighbouring, check_release(self.output),
                                    self.source, dynamics=self.linear_dynamics())

    def guarantee(self) -> Claim:
        return claim_from(self._evaluation(True), iterations=self.n_steps, epsilon_claimed=self.epsilon)
