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

from typing import Any, NamedTuple, Protocol, runtime_checkable

import numpy as np

from dpverify.samplers.integrators import IntegratorState

__all__ = ["ChainState", "GradientEstimator", "Integrator", "Kernel"]


@runtime_checkable
class GradientEstimator(Protocol):
    """A gradient estimator (:mod:`dpverify.samplers.gradients`): from the positions ``theta`` ``(chains, d)`` and
    the prepared data, an estimate of the log-posterior's gradient (or the per-record gradients, or the log density
    with its gradient), drawing any subsample from ``rng``."""

    def estimate(self, rng: Any, theta: Any, data: Any) -> Any: ...


@runtime_checkable
class Integrator(Protocol):
    """An update rule (:mod:`dpverify.samplers.integrators`): its state type (a NamedTuple with ``theta`` and its
    other variables), the state at a position, and one step from a gradient function with the schedule's
    parameters (step size, noise scales, friction...)."""

    @property
    def state_type(self) -> type: ...

    def init(self, *args: Any, **kwargs: Any) -> Any: ...

    def step(self, *args: Any, **kwargs: Any) -> Any: ...


class ChainState(NamedTuple):
    """State of a batch of chains: ``theta`` ``(chains, d)``, the iteration count ``t`` (0 before the first step)
    and the auxiliary variables of the algorithm (momentum, thermostat, Fisher estimate) in ``aux``."""

    theta: np.ndarray
    t: int
    aux: dict


class Kernel:
    """A :class:`GradientEstimator` (``estimate(rng, theta, data)``, :mod:`dpverify.samplers.gradients`) composed
    with an :class:`Integrator` (``init(position)``, ``step(rng, state, gradient, **params)``, ``state_type``,
    :mod:`dpverify.samplers.integrators`). Either not being one is a ``TypeError`` naming it."""

    def __init__(self, estimator: GradientEstimator, integrator: Integrator) -> None:
        if not isinstance(estimator, GradientEstimator):
            raise TypeError(f"estimator must have estimate(rng, theta, data); got {type(estimator).__name__}")
        if not isinstance(integrator, Integrator):
            raise TypeError(f"integrator must have state_type, init(position) and step(rng, state, gradient, "
                            f"**params); got {type(integrator).__name__}")
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
