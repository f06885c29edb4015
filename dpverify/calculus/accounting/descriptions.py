"""What the accountants answer for one mechanism description: its RDP, its PLD, the exact privacy of its release, and
the (epsilon, delta) of :func:`account`.

A description (:class:`~dpverify.calculus.mechanism_description.MechanismDescription`) is pure data, like
dp_accounting's ``DpEvent``: it calls no accountant. This module reads it -- its run-length encoded ``steps``, its
``release``, ``neighbouring`` relation and ``dynamics`` -- structurally (:class:`AccountedRun`; the accounting layer
never imports the description module) and asks the accountants:

- the path's RDP: :class:`~dpverify.calculus.accounting.accountant.RdpAccountant` composing the description
  (Mironov 2017, Prop. 1, per-step RDP of the Gaussian / subsampled Gaussian / pure-DP release);
- the path's PLD: :class:`~dpverify.calculus.accounting.pld.PldAccountant` composing it (cached per distinct run);
- a final iterate's or a sample set's exact privacy when the run has linear dynamics
  (:func:`~dpverify.calculus.accounting.release.release_privacy`);
- :func:`account`: the answer a sampler reports. A final iterate or a sample set is a post-processing of the path, so
  the path's number is an upper bound for it (Dwork & Roth 2014, Prop. 2.1); the exact release number is used where
  it is the mechanism's worst case.

The description's methods ``rdp()``, ``pld()``, ``release_privacy()``, ``exact_release()`` and ``account()`` are
delegations to these functions, kept for their callers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

from dpverify.validation import check_delta, describe_value
from dpverify.calculus.accounting.accountant import DEFAULT_ORDERS, RdpAccountant
from dpverify.calculus.accounting.described import Described
from dpverify.calculus.accounting.pld import PldAccountant, PrivacyLossDistribution
from dpverify.calculus.accounting.release import ReleasePrivacy, release_privacy
from dpverify.calculus.guarantees import Conversion
from dpverify.calculus.linear_dynamics import LinearDynamics
from dpverify.calculus.releases import ReleaseSpec, release_name

__all__ = [
    "AccountedRun",
    "ACCOUNTANT_METHODS",
    "account",
    "composed_pld",
    "description_pld",
    "description_rdp",
    "description_release_privacy",
    "exact_release",
]

#: The accountants :func:`account` asks, by name.
ACCOUNTANT_METHODS = ("pld", "rdp")


class AccountedRun(Described, Protocol):
    """A mechanism description as this module reads it
    (:class:`~dpverify.calculus.mechanism_description.MechanismDescription` is one): the steps, what is released, under which neighbouring relation, the run's linear dynamics if any, and
    whether every Gaussian step has noise."""

    @property
    def release(self) -> ReleaseSpec: ...

    @property
    def neighbouring(self) -> str: ...

    @property
    def dynamics(self) -> LinearDynamics | None: ...

    @property
    def is_private(self) -> bool: ...


def description_rdp(description: Described, orders) -> np.ndarray:
    """RDP of the path at each of ``orders``: the :class:`~dpverify.calculus.accounting.accountant.RdpAccountant`
    composing the description (per step ``alpha mu^2 / 2`` full batch, the exact RDP of the subsampled Gaussian,
    ``min(eps, alpha eps^2 / 2)`` for a pure epsilon-DP step; summed, Mironov 2017, Prop. 1)."""
    return RdpAccountant(orders).compose(description).rdp


@lru_cache(maxsize=64)
def composed_pld(steps: tuple, interval: float | None) -> PrivacyLossDistribution:
    """The PLD of a run's steps, composed in order by the :class:`~dpverify.calculus.accounting.pld.PldAccountant`
    on a grid of width ``interval`` (its default when None). The steps are immutable values: the last 64 distinct
    runs are cached."""
    acc = PldAccountant() if interval is None else PldAccountant(interval=interval)
    return acc.compose(_Steps(steps)).pld


@dataclass(frozen=True)
class _Steps:
    """A run's steps alone: what the PLD accountant reads for :func:`composed_pld` (a description of the steps)."""

    steps: tuple


def description_pld(description: Described, *, interval: float | None = None) -> PrivacyLossDistribution:
    """The privacy-loss distribution of the path: the composition, in order, of every step's dominating pair
    (:mod:`dpverify.calculus.mechanism_description`), by the PLD accountant (:func:`composed_pld`); an upper bound for
    a final release."""
    return composed_pld(description.steps, interval)


def _expanded(steps: tuple) -> tuple:
    """Every step in order (the run-length encoding undone)."""
    return tuple(r.step for r in steps for _ in range(r.count))


def description_release_privacy(description: AccountedRun, **kwargs: Any) -> ReleasePrivacy:
    """The exact privacy of the description's release when the run has linear dynamics
    (:func:`~dpverify.calculus.accounting.release.release_privacy`); a ``ValueError`` says why when it cannot be
    computed (no dynamics, a path release, and the cases ``release_privacy`` refuses). ``kwargs``: the PLD's
    ``interval``, ``tail_mass``, ``shift_tolerance``."""
    if description.dynamics is None:
        raise ValueError("the run has no linear dynamics (its potential is not quadratic, or its update is not "
                         "linear in the state): its release has no exact privacy here, only the path's bound")
    if description.release == "path":
        raise ValueError("a path release is the composition of its steps: use pld()")
    return release_privacy(_expanded(description.steps), description.dynamics, description.release,
                           description.neighbouring, **kwargs)


def exact_release(description: AccountedRun) -> ReleasePrivacy | None:
    """:func:`description_release_privacy` when it is the mechanism's worst case, else None (never raises)."""
    if description.release == "path" or description.dynamics is None or not description.is_private:
        return None
    try:
        exact = description_release_privacy(description)
    except ValueError:
        return None
    return exact if exact.worst_case else None


def account(description: AccountedRun, delta: float, *, method: str = "pld") -> Conversion:
    """The accountant's (epsilon, delta) of the run as a :class:`~dpverify.calculus.guarantees.Conversion`:
    ``method="pld"`` (tight, with ``epsilon_lower`` the lower end of its error bracket) or ``"rdp"`` (exact RDP over
    :data:`dpverify.calculus.accounting.DEFAULT_ORDERS`, Balle et al. 2020 conversion).

    For a final iterate or a sample set: with ``method="pld"``, the exact privacy of the release when the run has
    linear dynamics and the computed pair is the mechanism's worst case (:func:`exact_release`; ``method`` then reads
    "exact final release ..."); otherwise the path's number, an upper bound (post-processing of the path), and
    ``method`` says so. A run with a noiseless Gaussian step has ``epsilon = inf``."""
    delta = check_delta(delta, allow_zero=False)
    if method not in ACCOUNTANT_METHODS:  # checked first: a run without noise answered any name before
        raise ValueError(f"method (the accountant) must be 'pld' or 'rdp'; got {describe_value(method)}")
    what = "final iterate" if description.release == "final" else "sample set"
    suffix = "" if description.release == "path" else f" of the path (upper bound for the {what})"
    if not description.is_private:
        return Conversion(math.inf, delta, None, f"{method}{suffix}: a step has no noise")
    if method == "rdp":
        conv = RdpAccountant(DEFAULT_ORDERS).compose(description).get_epsilon(delta, method="balle2020")
        return Conversion(conv.epsilon, delta, conv.order, f"rdp (balle2020){suffix}")
    if description.release != "path":
        exact = exact_release(description)
        if exact is not None:
            lo, hi = exact.epsilon_bounds(delta)
            return Conversion(hi, delta, None, f"exact {release_name(description.release)} release (linear-Gaussian)",
                              epsilon_lower=lo)
    lo, hi = description_pld(description).epsilon_bounds(delta)
    return Conversion(hi, delta, None, f"pld{suffix}", epsilon_lower=lo)
