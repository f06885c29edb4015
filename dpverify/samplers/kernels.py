"""A sampling kernel: a gradient estimator composed with an integrator (BlackJAX's shape).

    kernel = Kernel(UniformMinibatchGradient(model, tau, data_weight=N / tau), SGHMCIntegrator())
    state = kernel.init(theta0s)                                  # (chains, d) positions
    for t in range(n_steps):
        state = kernel.step(rng, state, data, **schedule.at(t))   # step size etc. from outside

The kernel is pure (a new state each step; randomness only from ``rng``) and knows nothing of privacy: a sampler
(:class:`~dpverify.samplers.sgmcmc.StochasticGradientSampler`) pairs it with a
:class:`~dpverify.samplers.schedules.Schedule` and a privacy budget, which sets the schedule's noise scales and
describes the mechanism. :class:`ChainState` is the samplers' public state (``theta``, step count ``t``, the
integrator's other variables in ``aux``); :meth:`Kernel.to_chain_state` / :meth:`Kernel.from_chain_state` convert.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from dpverify.samplers.integrators import IntegratorState

__all__ = ["ChainState", "Kernel"]


class ChainState(NamedTuple):
    """State of a batch of chains: ``theta`` ``(chains, d)``, the iteration count ``t`` (0 before the first step)
    and the auxiliary variables of the algorithm (momentum, thermostat, Fisher estimate) in ``aux``."""

    theta: np.ndarray
    t: int
    aux: dict


class Kernel:
    """``estimator`` (``estimate(rng, theta, data)``, :mod:`dpverify.samplers.gradients`) composed with
    ``integrator`` (``init(position)``, ``step(rng, state, gradient, **params)``, ``state_type``, :mod:`dpverify.samplers.integrators`)."""

    def __init__(self, estimator, integrator) -> None:
        self.estimator = estimator
        self.integrator = integrator

    def __repr__(self) -> str:
        return f"Kernel({self.estimator!r}, {type(self.integrator).__name__})"

    def init(self, position) -> IntegratorState:
        """The integrator's initial state at ``position`` ``(chains, d)``. (MALA's state holds the target's value at
        the position: ``kernel.integrator.init(position, kernel.estimator.estimate(None, position, data))``.)"""
        return self.integrator.init(position)

    def step(self, rng: np.random.Generator, state, data, **params: Any):
        """One transition of every chain: the integrator's update with the estimator's gradient on ``data``."""
        estimator = self.estimator

        def gradient(r: np.random.Generator, theta: np.ndarray):
            return estimator.estimate(r, theta, data)

        return self.integrator.step(rng, state, gradient, **params)

    @staticmethod
    def to_chain_state(state, t: int) -> ChainState:
        """A :class:`ChainState` at step ``t`` from an integrator state (its fields other than ``theta`` in ``aux``)."""
        fields = state._asdict()
        return ChainState(fields.pop("theta"), t, fields)

    def from_chain_state(self, state: ChainState):
        """The integrator state of a :class:`ChainState` (its ``aux`` entries are the integrator's fields)."""
        return self.integrator.state_type(state.theta, **state.aux)
