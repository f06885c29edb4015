"""A guarantee as an audit tests it: the epsilon it claims at a delta.

An audit certifies, on one adjacent pair and at one ``delta``, a lower bound on the smallest epsilon for which the
mechanism is (epsilon, delta)-DP (:mod:`dpverify.audit.bounds`). To test a claimed guarantee it needs one number from
it: the epsilon the guarantee promises at that delta. This module reads that number from every kind of guarantee the
calculus has, and from any future one through one small protocol:

- :class:`~dpverify.calculus.guarantees.ApproxDP` ``(eps, d0)`` (and its subclasses ``Conversion``, ``Claim``): ``eps``
  at every ``delta >= d0`` -- an (eps, d0)-DP mechanism is (eps, delta)-DP for every larger delta (Dwork & Roth 2014,
  Def. 2.4: the right side ``e^eps P[M(D') in S] + delta`` only grows) -- and nothing below ``d0`` (an error);
- :class:`~dpverify.calculus.guarantees.PureDP` ``eps``: ``eps`` at every delta;
- :class:`~dpverify.calculus.guarantees.PrivacyProfile` ``delta(eps)``: its inverse ``epsilon(delta)``, delta > 0;
- any object with ``epsilon_at(delta) -> float`` (:class:`EpsilonAtDelta`): a Gaussian-DP guarantee, a privacy
  profile or a trade-off curve of another module implements this one method and is accepted by ``audit(claim=...)``.

:func:`own_delta` is the delta a claim names itself (``ApproxDP.delta``; 0 for ``PureDP``); a curve names none, so the
audit must then be given ``delta=``. The claim object travels typed through the audit and is serialised only when a
result is written (:func:`describe_claim`).
"""
from __future__ import annotations

from typing import Protocol, Union, runtime_checkable

from dpverify.validation import check_delta
from dpverify.calculus.guarantees import ApproxDP, Claim, Conversion, PrivacyProfile, PureDP

__all__ = ["EpsilonAtDelta", "Guarantee", "claimed_epsilon", "own_delta", "describe_claim"]


@runtime_checkable
class EpsilonAtDelta(Protocol):
    """A guarantee that states an epsilon at every delta it covers (a curve, a profile, Gaussian DP...)."""

    def epsilon_at(self, delta: float) -> float:
        """The smallest epsilon the guarantee promises at ``delta`` (``inf`` when it promises none)."""
        ...


#: What ``audit(claim=...)`` accepts.
Guarantee = Union[ApproxDP, PureDP, PrivacyProfile, EpsilonAtDelta]


def _name(claim: object) -> str:
    return type(claim).__name__


def own_delta(claim: Guarantee) -> float | None:
    """The delta ``claim`` names itself (the one an audit tests by default); None for a curve, which names none."""
    if isinstance(claim, PureDP):
        return 0.0
    if isinstance(claim, ApproxDP):
        return float(claim.delta)
    if isinstance(claim, (PrivacyProfile, EpsilonAtDelta)):
        return None
    raise TypeError(f"claim must be a guarantee (ApproxDP, PureDP, PrivacyProfile, or an object with "
                    f"epsilon_at(delta)); got {_name(claim)}")


def claimed_epsilon(claim: Guarantee, delta: float) -> float:
    """The epsilon ``claim`` promises at ``delta`` (module docstring); a ``ValueError`` when it promises none there."""
    delta = check_delta(delta)
    if isinstance(claim, PureDP):
        return float(claim.epsilon)
    if isinstance(claim, ApproxDP):
        if delta < claim.delta:
            raise ValueError(f"the claim {_name(claim)}(epsilon={claim.epsilon:g}, delta={claim.delta:g}) says "
                             f"nothing at delta={delta:g} < {claim.delta:g}: audit it at delta >= {claim.delta:g}")
        return float(claim.epsilon)
    if isinstance(claim, PrivacyProfile):
        if delta == 0.0:
            raise ValueError("a privacy profile gives an epsilon at delta > 0 only; give delta > 0")
        return float(claim.epsilon(delta))
    if isinstance(claim, EpsilonAtDelta):
        return float(claim.epsilon_at(delta))
    own_delta(claim)  # the TypeError naming what a claim may be
    raise AssertionError("unreachable")


def describe_claim(claim: Guarantee) -> dict:
    """The claim as plain data for a report: its type, and its epsilon and delta when it states them."""
    out: dict = {"type": _name(claim)}
    if isinstance(claim, (ApproxDP, PureDP)):
        out["epsilon"] = float(claim.epsilon)
        out["delta"] = float(claim.delta)
    if isinstance(claim, Claim) and claim.theorem:
        out["theorem"] = claim.theorem
    if isinstance(claim, Conversion) and claim.method:
        out["method"] = claim.method
    if isinstance(claim, PrivacyProfile) and claim.description:
        out["description"] = claim.description
    source = getattr(claim, "source", None)
    if isinstance(source, str) and source:
        out["source"] = source  # where a library's claim was read (dpverify.libraries.base.Claimed)
    description = getattr(claim, "description", None) or getattr(claim, "basis", None)
    if "description" not in out and isinstance(description, str) and description:
        out["description"] = description  # a trade-off curve, a PLD
    return out
