"""A sampling kernel: a gradient estimator composed with an integrator (BlackJAX's shape).

    kernel = Kernel(UniformMinibatchGradient(model, tau, data_weight=N / tau), SGHMCIntegrator())
    state = kernel.init(theta0s)                                  # an SGHMCState: (chains, d) positions, momenta
    for t in range(n_steps):
        state = kernel.step(rng, state, data, **schedule.at(t))   # step size etc. from outside

The kernel is pure (a new state each step; randomness only from ``rng``) and knows nothing of privacy: a sampler
(:class:`~dpverify.samplers.sgmcmc.StochasticGradientSampler`) pairs it with a
:class:`~dpverify.samplers.schedules.Schedule` and a privacy budget, which sets the schedule's noise scales and
describes the mechanism. The kernel's state is the integrator's own NamedTuple (its ``state_type``:
:class:`~dpverify.samplers.integrators.LangevinState`, :class:`~dpverify.samplers.integrators.SGHMCState`,
:class:`~dpverify.samplers.integrators.SGNHTState`, :class:`~dpverify.samplers.integrators.SGFSState`,
:class:`~dpverify.samplers.integrators.MALAState`), carried from step to step as it is: no dict is built or unpacked.
A sampler's chains are a :class:`ChainState`: that typed state and the step count ``t`` (which indexes the schedule,
so it is the sampler's, not the update rule's).
"""
from __future__ import annotations

from typing import Any, Generic, NamedTuple, Protocol, TypeVar, runtime_checkable

import numpy as np

from dpverify.samplers.integrators import IntegratorState

__all__ = ["ChainState", "GradientEstimator", "Integrator", "Kernel"]

#: The typed state a :class:`ChainState` carries: an integrator's NamedTuple (anything with the positions ``theta``).
S = TypeVar("S", bound=IntegratorState)


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


class ChainState(NamedTuple, Generic[S]):
    """State of a batch of chains: the update rule's own typed ``state`` (its NamedTuple: positions ``theta``
    ``(chains, d)`` and its other variables -- momentum, thermostat, Fisher estimate...) and the iteration count
    ``t`` (0 before the first step). A step builds the next one from the integrator's new state and ``t + 1``;
    nothing is converted."""

    state: S
    t: int

    @property
    def theta(self) -> np.ndarray:
        """The positions ``(chains, d)`` (``state.theta``)."""
        return self.state.theta

    @property
    def aux(self) -> dict[str, Any]:
        """Read-only, for code written against the untyped state (``theta``, ``t`` and a dict ``aux``): the state's
        variables other than ``theta``, by name, in a new dict (a state that has its own ``aux``, OPS by MALA's with
        its step ``h``, gives that). Typed code reads the fields of :attr:`state` instead."""
        state: Any = self.state
        own = getattr(state, "aux", None)
        if own is not None:
            return dict(own)
        return {name: value for name, value in state._asdict().items() if name != "theta"}


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
        """The integrator's initial state at ``position`` ``(chains, d)``, of its ``state_type``. (MALA's state holds
        the target's value at the position: ``kernel.integrator.init(position, kernel.estimator.estimate(None,
        position, data))``.)"""
        return self.integrator.init(position)

    def step(self, rng: np.random.Generator, state: S, data, **params: Any) -> S:
        """One transition of every chain: the integrator's update with the estimator's gradient on ``data``; the
        integrator's typed state in, a new one of the same type out."""
        estimator = self.estimator

        def gradient(r: np.random.Generator, theta: np.ndarray):
            return estimator.estimate(r, theta, data)

        return self.integrator.step(rng, state, gradient, **params)
