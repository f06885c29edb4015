"""Known-bad DP-SGLD implementations: each declares the mechanism of a correct DP-SGLD and implements another.

The auditing literature's standard regression targets for DP-SGD-style code (Jagielski, Ullman, Oprea 2020; Nasr et
al. 2021, 2023; Cebere et al. 2026, "Privacy in theory, bugs in practice"; Casacuberta et al. 2022): the claim a
user is given is the numeric accountant's epsilon of the *declared* run (noise, sampling rate, clip level, batch
normalisation), while the code does something else. Every variant is :class:`~dpverify.samplers.sgld.DPSGLDLi`
(Li et al. 2019, Alg. 1) with ``claim="accountant"``, whose mechanism description, claim, white-box statistic and
canary check are inherited unchanged -- only the kernel that runs the chains differs (``_langevin_kernel``: its
gradient estimator or its noise schedule), the budget is the declared one:

- ``no_noise``: the Gaussian noise is not added at all;
- ``half_noise``: the noise standard deviation is halved;
- ``no_clip``: per-record gradients are not clipped to the declared level;
- ``double_rate``: the Poisson rate used is 2q while q is declared;
- ``sum_not_mean``: the noise is calibrated for the mean of the batch gradients, the update uses their sum
  (the data term's weight is 1 instead of 1/tau).

Three more are bugs that the *declared* algorithm's white-box likelihood ratio cannot see (its per-step terms compare
the data term's two means along the canary direction, each step on its own): the departures from the declaration are
in the noise's structure, not in the means.

- ``shared_noise``: a shape bug, the noise drawn with shape ``(chains, 1)`` and broadcast over the d coordinates: every
  coordinate gets the same noise, so a difference of coordinates reveals the data term exactly. Released as a final
  iterate, the chain without the differing record lies on an affine line and the chain with it does not: the case
  ``dp_sgld_broken_shared_noise_final`` (issue 38), where only the distance to one side's affine hull
  (:mod:`dpverify.audit.degenerate_statistics`) sees the departure;
- ``reused_noise``: the noise vector is drawn once per run and added at every step (the draw sits outside the loop):
  consecutive increments then share their noise, and their differences reveal every inclusion of the canary;
- ``warm_start``: the chains start one full-batch gradient step from ``theta0`` (the declared drift at ``theta0`` on
  every record), a "warm start" where Wang et al. 2015's Theorem 4 and every accountant assume a data-independent
  start: the released ``theta_0`` differs between the two datasets, deterministically.

A sound and powerful audit (``dpverify audit dp_sgld_broken_<defect>``) flags each as a violation of its claim at
the quick budget; the correct sampler (``dp_sgld_path``, same parameters) is never flagged.
"""
from __future__ import annotations

import numpy as np

from dpverify.samplers.broken_integrators import ReusedNoiseEulerMaruyama, SharedNoiseEulerMaruyama
from dpverify.samplers.device import DenseBatchGradient
from dpverify.samplers.gradients import Data, FullBatchGradient, PoissonMinibatchGradient
from dpverify.samplers.integrators import EulerMaruyama
from dpverify.samplers.kernels import Kernel
from dpverify.samplers.registry import register
from dpverify.samplers.schedules import Schedule
from dpverify.samplers.sgld import DPSGLDLi
from dpverify.vocabulary import WHITE_BOX_BLIND_DEFECTS, KnownBadDefect

__all__ = ["DEFECTS", "WHITE_BOX_BLIND", "BrokenDPSGLD"]

#: The implementation bugs (module docstring; the words: :class:`dpverify.vocabulary.KnownBadDefect`).
DEFECTS = KnownBadDefect.values()
#: The defects the declared algorithm's white-box statistic cannot see (module docstring).
WHITE_BOX_BLIND = tuple(str(d) for d in WHITE_BOX_BLIND_DEFECTS)


@register
class BrokenDPSGLD(DPSGLDLi):
    """A deliberately wrong DP-SGLD (module docstring); ``defect`` is one of :data:`DEFECTS`. Same parameters as
    :class:`~dpverify.samplers.sgld.DPSGLDLi`; ``claim`` is always ``"accountant"`` (the declared run's)."""

    id = "dp_sgld_broken"
    theorems = DPSGLDLi.theorems
    output = "path"
    description = "KNOWN-BAD DP-SGLD for auditor power tests: declares Li et al.'s Alg. 1, implements a defect"

    def __init__(self, model, N: int, tau: float, T: int, delta: float, step_size, defect: str, L: float | None = None,
                 theta0=None, release: str = "path", epsilon: float | None = None, **kwargs):
        if defect not in DEFECTS:
            raise ValueError(f"defect must be one of {DEFECTS}; got {defect!r}")
        self.defect = defect
        super().__init__(model, N, tau, T, epsilon, delta, step_size, L=L, theta0=theta0, release=release,
                         claim="accountant", **kwargs)

    def _langevin_kernel(self) -> tuple[Kernel, Schedule]:
        """The declared kernel (Poisson rate q, clip L, weights 1/N and 1/tau, noise ``sqrt(eta_t/N)``) with the defect."""
        rate, clip, data_weight = self._sampling.rate, self._clip, self._data_weight
        noise_std: float | np.ndarray = self._noise_std
        if self.defect == "no_noise":
            noise_std = 0.0
        elif self.defect == "half_noise":
            noise_std = 0.5 * noise_std
        elif self.defect == "no_clip":
            clip = None
        elif self.defect == "double_rate":
            rate = rate * 2.0
        elif self.defect == "sum_not_mean":
            data_weight = 1.0
        integrator = {"shared_noise": SharedNoiseEulerMaruyama, "reused_noise": ReusedNoiseEulerMaruyama}.get(
            self.defect, EulerMaruyama)()
        estimator = PoissonMinibatchGradient(self.model, rate, prior_weight=self._prior_weight, data_weight=data_weight,
                                             clip=clip)
        return Kernel(estimator, integrator), Schedule(self.n_steps, step_size=self._coef, noise_std=noise_std)

    def start(self, theta, data, rng):
        """The declared start, or with ``warm_start`` one noiseless full-batch gradient step on the data from it (on
        another backend the same step with the dense full batch, :class:`~dpverify.samplers.device.DenseBatchGradient`)."""
        if self.defect != "warm_start":
            return theta
        warm = FullBatchGradient(self.model, prior_weight=self._prior_weight, data_weight=self._data_weight,
                                 clip=self._clip)
        if not isinstance(data, Data):  # the device path's DeviceData
            warm = DenseBatchGradient.of(warm)
        return theta + self._coef[0] * warm.estimate(None, theta, data)  # BUG: a data-dependent start

    def guarantee(self):
        claim = super().guarantee()
        details = {**claim.details, "defect": self.defect, "known_bad": True}
        return type(claim)(claim.epsilon, claim.delta, claim.theorem, claim.guaranteed, claim.hypotheses, details)
