"""What an accountant reads from a mechanism description (the role of dp_accounting's ``DpEvent``).

A description (:class:`~dpverify.calculus.mechanism_description.MechanismDescription`) is pure data: its ``steps``
are run-length encoded releases (``step``, ``count``). The accountants consume it the way dp_accounting's consume a
``DpEvent``: ``accountant.supports(description)`` says whether every step is of a type it can account, and
``accountant.compose(description)`` adds the run (an :class:`UnsupportedDescriptionError` naming the first step it
cannot account otherwise; :class:`~dpverify.calculus.accounting.base.PrivacyAccountant`). This module says, as
:class:`typing.Protocol` s, which step types exist for an accountant:

- :class:`GaussianRelease` -- a data term of L2 sensitivity plus isotropic Gaussian noise, on the records a sampling
  scheme of rate ``q`` picks: ``mu`` = sensitivity / noise std, ``sampling.rate`` = q (the dominating pairs are in
  :mod:`dpverify.calculus.mechanism_description`);
- :class:`PureDPRelease` -- a release known only to be ``epsilon``-DP.

The accountants read the steps structurally (by these protocols, :func:`is_gaussian_release` and
:func:`is_pure_dp_release`) rather than by class, so the accounting layer never imports the description module: the
description is data the accountants read, and it calls none of them (its ``pld()``, ``rdp()`` and ``account()`` are
delegations to :mod:`dpverify.calculus.accounting.descriptions`, imported when called).
"""
from __future__ import annotations

from typing import Any, Protocol, TypeGuard, runtime_checkable

__all__ = [
    "SamplingRate",
    "GaussianRelease",
    "PureDPRelease",
    "RepeatedRelease",
    "Described",
    "UnsupportedDescriptionError",
    "is_description",
    "is_gaussian_release",
    "is_pure_dp_release",
    "step_kind",
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


def is_gaussian_release(step: object) -> TypeGuard[GaussianRelease]:
    """True for a :class:`GaussianRelease` whose ``sampling`` has a ``rate`` (:class:`SamplingRate`). A step that
    reads as both a Gaussian and a pure-DP release is a Gaussian one (the accountants account its noise)."""
    return isinstance(step, GaussianRelease) and isinstance(step.sampling, SamplingRate)


def is_pure_dp_release(step: object) -> TypeGuard[PureDPRelease]:
    """True for a :class:`PureDPRelease` that is not a Gaussian one (:func:`is_gaussian_release` comes first)."""
    return isinstance(step, PureDPRelease) and not is_gaussian_release(step)


class UnsupportedDescriptionError(ValueError):
    """An accountant was asked to compose an item it cannot account: a description with a step of a type it does not
    support, or a curve or distribution it cannot combine with its own (other orders, another grid). The message
    names the item or the step, and why (:meth:`~dpverify.calculus.accounting.base.PrivacyAccountant.compose`)."""


def step_kind(step: Any) -> str | None:
    """``"gaussian"`` (:func:`is_gaussian_release`), ``"pure_dp"`` (:func:`is_pure_dp_release`) or None (another
    type): a name for the step's type, for messages and callers that name kinds. The accountants dispatch on the
    types themselves."""
    if is_gaussian_release(step):
        return "gaussian"
    if is_pure_dp_release(step):
        return "pure_dp"
    return None
