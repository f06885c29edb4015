"""Update rules with implementation bugs, for the known-bad samplers of :mod:`dpverify.samplers.broken`.

Each is :class:`~dpverify.samplers.integrators.EulerMaruyama` with one defect in how it draws its noise -- the kind of
departure from the pseudo-code that leaves every step's mean as declared (so the declared algorithm's white-box
likelihood ratio cannot see it) while the outputs leak. Both are written in arithmetic numpy and torch share, so they
also run on the device path (:mod:`dpverify.samplers.device`):

- :class:`SharedNoiseEulerMaruyama` -- a shape bug: one standard normal per chain, broadcast over the coordinates;
- :class:`ReusedNoiseEulerMaruyama` -- the noise vector drawn at the first step and reused at every step.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dpverify.samplers.integrators import EulerMaruyama, LangevinState

__all__ = ["SharedNoiseEulerMaruyama", "ReusedNoiseState", "ReusedNoiseEulerMaruyama"]


class SharedNoiseEulerMaruyama(EulerMaruyama):
    """Euler-Maruyama with the ``shared_noise`` bug: one standard normal per chain, broadcast over the coordinates."""

    def step(self, rng, state, gradient, step_size, noise_std):
        theta = state.theta
        drift = gradient(rng, theta)
        z = noise_std * rng.standard_normal((theta.shape[0], 1))  # BUG: (chains, 1) instead of (chains, d)
        return LangevinState(theta + step_size * drift + z)


class ReusedNoiseState(NamedTuple):
    """Positions and the noise drawn at the first step (NaN before it)."""

    theta: np.ndarray
    noise: np.ndarray


class ReusedNoiseEulerMaruyama(EulerMaruyama):
    """Euler-Maruyama with the ``reused_noise`` bug: the standard normal vector is drawn at the first step only."""

    state_type = ReusedNoiseState

    def init(self, position) -> ReusedNoiseState:
        theta = super().init(position).theta
        return ReusedNoiseState(theta, theta * np.nan)  # NaN: not drawn yet (numpy or another backend's array)

    def step(self, rng, state, gradient, step_size, noise_std):
        theta = state.theta
        drift = gradient(rng, theta)
        noise = state.noise
        if bool((noise != noise).any()):  # BUG: drawn once, then reused at every step (x != x: x is NaN)
            noise = rng.standard_normal(theta.shape)
        return ReusedNoiseState(theta + step_size * drift + noise_std * noise, noise)
