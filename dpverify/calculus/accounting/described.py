"""What an accountant reads from a mechanism description (the role of dp_accounting's ``DpEvent``).

A description (:class:`~dpverify.calculus.mechanism_description.MechanismDescription`) is pure data: its ``steps``
are run-length encoded releases (``step``, ``count``). The accountants consume it the way dp_accounting's consume a
``DpEvent``: ``accountant.supports(description)`` says whether every step is of a kind it can account, and
``accountant.compose(description)`` adds the run (an :class:`UnsupportedDescriptionError` naming the first step it
cannot account otherwise). This module says, as :class:`typing.Protocol` s, which step kinds exist for an accountant:

- :class:`GaussianRelease` -- a data term of L2 sensitivity plus isotropic Gaussian noise, on the records a sampling
  scheme of rate ``q`` picks: ``mu`` = sensitivity / noise std, ``sampling.rate`` = q (the dominating pairs are in
  :mod:`dpverify.calculus.mechanism_description`);
- :class:`PureDPRelease` -- a release known only to be ``epsilon``-DP.

The accountants read the steps structurally (by these protocols) rather than by class, so this layer does not import
the description module, which imports the accountants for its thin wrappers ``pld()``, ``rdp()`` and ``account()``.
"""
from __future__ import annotations

import math
from typing import Any, Iterable, Protocol, TypeGuard, runtime_checkable

__all__ = [
    "SamplingRate",
    "GaussianRelease",
    "PureDPRelease",
    "RepeatedRelease",
    "Described",
    "UnsupportedDescriptionError",
    "is_description",
    "step_kind",
    "first_unsupported",
]


@runtime_checkable
class SamplingRate(Protocol):
    """How the records entering a step are chosen, as far as an accountant needs it: the rate ``q``."""

    @property
    def rate(self) -> float: ...


@runtime_checkable
class GaussianRelease(Protocol):
    """A Gaussian step: ``mu`` = sensitivity / noise std (``inf`` without noise), on records sampled at
    ``sampling.rate``."""

    @property
    def mu(self) -> float: ...

    @property
    def sampling(self) -> SamplingRate: ...


@runtime_checkable
class PureDPRelease(Protocol):
    """A release with a pure ``epsilon``-DP guarantee and nothing more known."""

    @property
    def epsilon(self) -> float: ...


class RepeatedRelease(Protocol):
    """``count`` consecutive identical steps."""

    @property
    def step(self) -> Any: ...

    @property
    def count(self) -> int: ...


@runtime_checkable
class Described(Protocol):
    """A mechanism description as the accountants read it: its run-length encoded ``steps``."""

    @property
    def steps(self) -> tuple[Any, ...]: ...


def is_description(item: object) -> TypeGuard[Described]:
    """True for a mechanism description (:class:`Described` with a tuple of steps; a privacy-loss distribution, whose
    ``steps`` is a count, is not one)."""
    return isinstance(item, Described) and isinstance(item.steps, tuple)


class UnsupportedDescriptionError(ValueError):
    """An accountant was asked to compose a description with a step it cannot account."""


def step_kind(step: Any) -> str | None:
    """``"gaussian"`` (:class:`GaussianRelease`), ``"pure_dp"`` (:class:`PureDPRelease`) or None (unknown kind)."""
    if isinstance(step, GaussianRelease) and isinstance(step.sampling, SamplingRate):
        return "gaussian"
    if isinstance(step, PureDPRelease):
        return "pure_dp"
    return None


def first_unsupported(steps: Iterable[Any], kinds: tuple[str, ...], *,
                      finite_mu: bool = False) -> str | None:
    """Why the first step that is not of one of ``kinds`` (or, with ``finite_mu``, a Gaussian step without noise)
    cannot be accounted; None when every step can."""
    for repeated in steps:
        step = repeated.step
        kind = step_kind(step)
        if kind not in kinds:
            return (f"step {step!r} is of a kind this accountant does not support (it composes "
                    f"{', '.join(kinds)} steps)")
        if finite_mu and kind == "gaussian" and math.isinf(step.mu):
            return ("a step has no noise (noise_std = 0) and a positive sensitivity: the privacy loss is infinite; "
                    "there is no privacy-loss distribution to compute")
    return None
