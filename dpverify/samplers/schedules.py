"""Step-size (and other per-step) schedules, composed with a kernel outside it.

A kernel's ``step(rng, state, data, **params)`` takes its per-step parameters (step size, noise scale, ...) as
arguments; a :class:`Schedule` holds them for a whole run and gives those of step t (``schedule.at(t)``). The
sampler composes the two: ``state = kernel.step(rng, state, data, **schedule.at(state.t))`` (BlackJAX's shape: the
step size is an argument of every step, never state of the kernel).

- :func:`constant_schedule` -- ``eta_t = eta`` (Wang et al. 2015, Alg. 2 with a fixed step; Li et al. 2019, Thm 4);
- :func:`decreasing_schedule` -- ``eta_t = eta_0 t^{-1/3}`` (Li et al. 2019, Theorem 3);
- :func:`step_size_schedule` -- either of these by name, or an explicit array;
- :data:`MAX_STEPS` / :func:`check_steps` -- the limit on a run's length.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dpverify.validation import check_finite_array, check_positive_int, check_real

__all__ = ["MAX_STEPS", "check_steps", "constant_schedule", "decreasing_schedule", "step_size_schedule", "Schedule"]

#: The most steps a reference-sampler run may have: a schedule of 10^7 steps is 80 MB per array and a run of that
#: length takes hours; larger values are rejected up front instead of exhausting memory later.
MAX_STEPS = 10**7


def check_steps(value, name: str = "n_steps", minimum: int = 1) -> int:
    """A number of steps in ``[minimum, MAX_STEPS]``."""
    return check_positive_int(value, name, minimum=minimum, maximum=MAX_STEPS)


def constant_schedule(step_size: float, n_steps: int) -> np.ndarray:
    """``eta_t = step_size`` for ``t = 1..n_steps``."""
    return np.full(n_steps, step_size)


def decreasing_schedule(step_size: float, n_steps: int) -> np.ndarray:
    """``eta_t = eta_0 t^{-1/3}`` for ``t = 1..n_steps`` (the rate of Li et al. 2019, Theorem 3)."""
    t = np.arange(1, n_steps + 1, dtype=float)
    return step_size * t ** (-1.0 / 3.0)


def step_size_schedule(step_size, n_steps: int, schedule: str = "fixed") -> np.ndarray:
    """The step sizes ``eta_1..eta_n`` as an array: ``"fixed"`` (:func:`constant_schedule`), ``"decreasing"``
    (:func:`decreasing_schedule`), or an explicit array of length ``n_steps`` (every entry > 0)."""
    if np.ndim(step_size) == 0:
        eta0 = check_real("step_size", step_size, low=0.0, low_inclusive=False)
        if schedule == "fixed":
            return constant_schedule(eta0, n_steps)
        if schedule == "decreasing":
            return decreasing_schedule(eta0, n_steps)
        raise ValueError(f"schedule must be 'fixed' or 'decreasing'; got {schedule!r}")
    eta = check_finite_array(step_size, "step_size", shape=(n_steps,))
    if np.any(eta <= 0):
        raise ValueError("step_size must be > 0 at every step")
    return eta


class Schedule:
    """The per-step parameters of a run of ``n_steps`` steps: each keyword is a constant (a number, the same at every
    step) or an array of length ``n_steps`` (its entry t at step t). ``at(t)`` is the keyword arguments of step t
    (``0 <= t < n_steps``) for a kernel's ``step``."""

    def __init__(self, n_steps: int, **params: Any) -> None:
        self.n_steps = check_steps(n_steps)
        self._arrays: dict[str, np.ndarray] = {}
        self._constants: dict[str, Any] = {}
        self._order = tuple(params)
        for name, value in params.items():
            if np.ndim(value) == 0:
                self._constants[name] = value
            else:
                arr = np.asarray(value, dtype=float)
                if arr.shape != (self.n_steps,):
                    raise ValueError(f"schedule entry {name!r} must be a number or have shape ({self.n_steps},); "
                                     f"got {arr.shape}")
                self._arrays[name] = arr

    def __getitem__(self, name: str):
        """The whole schedule of one parameter: its array, or its constant."""
        return self._arrays[name] if name in self._arrays else self._constants[name]

    def at(self, t: int) -> dict:
        """The parameters of step t (0-based)."""
        return {name: self._arrays[name][t] if name in self._arrays else self._constants[name] for name in self._order}

    def __repr__(self) -> str:
        parts = [f"{k}=<{self.n_steps} values>" if k in self._arrays else f"{k}={self._constants[k]!r}"
                 for k in self._order]
        return f"Schedule({', '.join(parts)})"
