"""One base class for the privacy accountants, after dp_accounting's ``PrivacyAccountant``.

Design (Google's dp_accounting, ``dp_accounting/privacy_accountant.py``: an abstract ``PrivacyAccountant`` with
``supports(event)``, ``compose(event, count=1)`` that refuses an unsupported event with ``UnsupportedEventError``,
keeps a ledger of what was composed and returns ``self``, and abstract ``get_epsilon(target_delta)`` /
``get_delta(target_epsilon)``). Here the items are not DpEvents but dpverify's own pure data: a mechanism
description (:mod:`~dpverify.calculus.accounting.described`: Gaussian and pure-DP releases, read by type) or what a
given accountant natively adds up (an RDP curve, a privacy-loss distribution, subsampled Gaussian steps).

The math every accountant implements is adaptive composition: the privacy of running items ``M_1, ..., M_k`` in
order, each seeing the previous outputs, is bounded by composing their dominating pairs -- RDP curves add order by
order (Mironov 2017, Prop. 1), privacy-loss distributions convolve (Koskela, Jälkö, Honkela 2020; Zhu, Dong, Wang
2022). ``compose(item, count)`` is the ``count``-fold self-composition of ``item`` followed by composition with the
accumulated state; the ``ledger`` lists the ``(item, count)`` pairs in order, so the state is always the
composition of the ledger.

Subclasses implement :meth:`PrivacyAccountant.supports`, :meth:`PrivacyAccountant._compose`,
:meth:`PrivacyAccountant.get_epsilon`, :meth:`PrivacyAccountant.get_delta` and
:meth:`PrivacyAccountant._state_text` (for ``repr``), and may refine :meth:`PrivacyAccountant.step_refusal` (which
description steps they account) and :meth:`PrivacyAccountant._why_unsupported` (what a refusal says).
"""
from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from dpverify.validation import check_positive_int, describe_value
from dpverify.calculus.accounting.described import (
    Described,
    UnsupportedDescriptionError,
    is_description,
    is_gaussian_release,
    is_pure_dp_release,
)
from dpverify.calculus.guarantees import Conversion

__all__ = ["LedgerEntry", "PrivacyAccountant", "UnsupportedDescriptionError"]

_A = TypeVar("_A", bound="PrivacyAccountant")


@dataclass(frozen=True)
class LedgerEntry:
    """One :meth:`PrivacyAccountant.compose` call: ``item`` composed ``count`` times."""

    item: Any
    count: int


class PrivacyAccountant(abc.ABC):
    """Accumulates the privacy of a run item by item (dp_accounting's ``PrivacyAccountant`` design; module docstring).

    ``compose(item, count=1)`` is the template: it checks ``count`` (an integer >= 1) and the item's type (a
    ``TypeError`` naming what is accepted), refuses an item :meth:`supports` rejects with an
    :class:`~dpverify.calculus.accounting.described.UnsupportedDescriptionError` naming it (the accountant is left
    unchanged), composes it (:meth:`_compose`), appends ``(item, count)`` to :attr:`ledger` and returns ``self``.
    """

    #: The accountant's name in messages ("the RDP accountant cannot compose ...").
    name: ClassVar[str] = "privacy"
    #: What a wrongly typed item is called in the ``TypeError`` ("guarantee must be ...").
    item_noun: ClassVar[str] = "item"
    #: The item types :meth:`compose` takes besides a mechanism description.
    item_types: ClassVar[tuple[type, ...]] = ()
    #: How the ``TypeError`` lists them.
    expected_items: ClassVar[str] = "a mechanism description"

    def __init__(self) -> None:
        self._ledger: list[LedgerEntry] = []

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._state_text()})"

    @abc.abstractmethod
    def _state_text(self) -> str:
        """What ``repr`` shows of the accumulated state."""

    @property
    def ledger(self) -> tuple[LedgerEntry, ...]:
        """Every composed ``(item, count)``, in order (a tuple: the ledger is read, not edited)."""
        return tuple(self._ledger)

    # -- what the accountant takes ---------------------------------------------------------------------------------
    @abc.abstractmethod
    def supports(self, item: object) -> bool:
        """Whether :meth:`compose` accepts ``item`` (False, never an exception, for anything else)."""

    def step_refusal(self, step: object) -> str | None:
        """Why this accountant cannot account one step of a mechanism description; None when it can. By type: a
        Gaussian release (:func:`~dpverify.calculus.accounting.described.is_gaussian_release`) or a pure-DP release
        (:func:`~dpverify.calculus.accounting.described.is_pure_dp_release`)."""
        if is_gaussian_release(step) or is_pure_dp_release(step):
            return None
        return (f"step {describe_value(step, 120)} is of a type the {self.name} accountant does not support (it "
                "composes Gaussian and pure-DP releases)")

    def description_refusal(self, description: Described) -> str | None:
        """Why the first step of ``description`` this accountant cannot account is refused (:meth:`step_refusal`);
        None when it can account every step."""
        for repeated in description.steps:
            reason = self.step_refusal(repeated.step)
            if reason is not None:
                return reason
        return None

    def _why_unsupported(self, item: object) -> str:
        """What :meth:`compose` says when :meth:`supports` rejects ``item`` (of an accepted type): the item, and why."""
        reason = self.description_refusal(item) if is_description(item) else None
        return describe_value(item, 120) if reason is None else f"this description: {reason}"

    # -- composing -------------------------------------------------------------------------------------------------
    def compose(self: _A, item: Any, count: int = 1) -> _A:
        """Compose ``item`` ``count`` times (``count`` an integer >= 1) into the accumulated state; returns ``self``.

        A ``TypeError`` for an item of a type the accountant does not take (see ``expected_items``); an
        :class:`~dpverify.calculus.accounting.described.UnsupportedDescriptionError` naming the item, or the first
        step of a description it cannot account, when :meth:`supports` rejects it. Either way the accountant is
        unchanged. Otherwise ``(item, count)`` is appended to :attr:`ledger`."""
        count = check_positive_int(count, "count")
        if not (isinstance(item, self.item_types) or is_description(item)):
            raise TypeError(f"{self.item_noun} must be {self.expected_items}; got {type(item).__name__}")
        if not self.supports(item):
            what = self._why_unsupported(item)
            raise UnsupportedDescriptionError(f"the {self.name} accountant cannot compose {what}")
        self._compose(item, count)
        self._ledger.append(LedgerEntry(item, count))
        return self

    @abc.abstractmethod
    def _compose(self, item: Any, count: int) -> None:
        """Compose a supported ``item`` ``count`` times into the state (all or nothing: on an exception the state is
        unchanged)."""

    # -- answers ---------------------------------------------------------------------------------------------------
    @abc.abstractmethod
    def get_epsilon(self, delta: float) -> Conversion:
        """The smallest epsilon the accumulated state certifies at ``delta``, with how it was obtained."""

    @abc.abstractmethod
    def get_delta(self, epsilon: float) -> Conversion:
        """The smallest delta the accumulated state certifies at ``epsilon``, with how it was obtained."""
