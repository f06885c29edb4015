"""Privacy guarantees as plain, immutable data.

A guarantee says *what* is promised, not how it was computed; calculators
(accountants, a paper's theorem, an audit) produce and consume these objects.

- :class:`PureDP` -- epsilon-DP (Dwork et al. 2006; Wang et al. 2015, Def. 1 with delta = 0).
- :class:`ApproxDP` -- (epsilon, delta)-DP: for all adjacent D, D' and events S,
  ``P[M(D) in S] <= exp(epsilon) P[M(D') in S] + delta`` (Wang et al. 2015, Def. 1).
- :class:`RenyiDP` -- an RDP curve alpha -> epsilon(alpha): D_alpha(M(D) || M(D')) <= epsilon(alpha)
  (Mironov 2017, Def. 4; Bertazzi et al. 2025, Def. 2.2). The moments accountant's
  log-MGF alpha(lambda) of Li et al. 2019 (Def. 3) is ``lambda * epsilon(lambda + 1)``.
- :class:`PrivacyProfile` -- delta(epsilon), the hockey-stick divergence
  ``sup_S P[M(D) in S] - e^eps P[M(D') in S]`` as a function of epsilon (Balle et al. 2018).

Guarantees that are whole trade-off curves (f-DP, Dong, Roth, Su 2022) -- mu-GDP and the others -- live in
:mod:`dpverify.calculus.tradeoff`; :mod:`dpverify.calculus.tradeoff_conversions` turns any of the guarantees here into
a curve or a profile.

This is the one vocabulary for "a guarantee" across dpverify. Where a number comes from is carried by a subclass
of :class:`ApproxDP`, so every producer hands out something that *is* an (epsilon, delta) guarantee:

- :class:`Conversion` -- computed by an accountant or an RDP conversion (method, optimal order, bracket);
- :class:`Claim` -- promised by a paper's theorem for a sampler's parameters (theorem ID, hypotheses, whether
  they all hold); :attr:`dpverify.theorems.base.Evaluation.guarantee` is the theorem's side of the same number;
- an audit refers to the guarantee it tests as :attr:`dpverify.audit.core.AuditResult.claimed`.

Converting an RDP curve is a calculation, not a property of the curve:
:func:`dpverify.calculus.conversions.renyi_to_approx_dp` (this module imports no calculator).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_orders, check_real, describe_value

__all__ = ["PureDP", "ApproxDP", "RenyiDP", "PrivacyProfile", "Conversion", "Claim", "PROFILE_SLACK"]

#: A privacy profile's delta may stray this far outside [0, 1] by rounding (``1 - x`` computed as ``-1e-17``); it is
#: clipped. Beyond it the profile is wrong and :meth:`PrivacyProfile.delta` says so.
PROFILE_SLACK = 1e-12


@dataclass(frozen=True)
class PureDP:
    """epsilon-differential privacy."""

    epsilon: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    @property
    def delta(self) -> float:
        return 0.0

    def to_approx_dp(self) -> "ApproxDP":
        return ApproxDP(self.epsilon, 0.0)

    def to_rdp(self, orders) -> "RenyiDP":
        """Pure eps-DP is (alpha, eps)-RDP at every order, since D_alpha <= D_inf = eps
        (Mironov 2017, Prop. 3 and the monotonicity of D_alpha in alpha)."""
        arr = check_orders(orders)
        return RenyiDP(tuple(arr.tolist()), tuple([self.epsilon] * arr.size))


@dataclass(frozen=True)
class ApproxDP:
    """(epsilon, delta)-differential privacy, epsilon >= 0, delta in [0, 1).

    epsilon = 0 is allowed here (a result such as "delta = TV at epsilon = 0" is a valid
    guarantee); calibration functions that divide by epsilon require epsilon > 0.
    """

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_real("epsilon", self.epsilon, low=0.0))
        object.__setattr__(self, "delta", check_delta(self.delta))

    def implies(self, other: "ApproxDP") -> bool:
        """True if this guarantee is at least as strong as ``other``."""
        return self.epsilon <= other.epsilon and self.delta <= other.delta


@dataclass(frozen=True)
class Conversion(ApproxDP):
    """An (epsilon, delta) computed by an accountant or a conversion: an :class:`ApproxDP` with its provenance.

    ``method`` names how: "mironov2017" or "balle2020" (an RDP curve converted at its best order;
    ``order`` is the Rényi order at which the minimum was attained), or "pld" (a privacy-loss-distribution
    accountant, :mod:`dpverify.calculus.accounting.pld`; ``order`` is None).

    An accountant that brackets its answer also reports the other end of the bracket:
    ``epsilon_lower`` (<= the true epsilon at ``delta``; ``epsilon`` is the upper end) from
    ``get_epsilon``, ``delta_lower`` (<= the true delta at ``epsilon``; ``delta`` is the upper end) from
    ``get_delta``. Both are None for RDP conversions, which give an upper bound only.

    Unlike a plain :class:`ApproxDP`, a computed answer may be vacuous: ``epsilon = inf`` (no finite epsilon at
    this delta) or ``delta = 1`` (no delta below 1 at this epsilon).
    """

    order: float | None = None
    method: str = ""
    epsilon_lower: float | None = None
    delta_lower: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_real("epsilon", self.epsilon, low=0.0, allow_inf=True))
        object.__setattr__(self, "delta", check_real("delta", self.delta, low=0.0, high=1.0))

    def as_approx_dp(self) -> ApproxDP:
        """The bare guarantee, provenance dropped."""
        return ApproxDP(self.epsilon, self.delta)


@dataclass(frozen=True)
class Claim(ApproxDP):
    """The privacy a sampler claims: an :class:`ApproxDP` with its provenance -- the theorem it rests on
    (``theorem``, a catalogue ID or the accountant used), whether every hypothesis of that theorem holds for the
    parameters used (``guaranteed``), the hypotheses one by one and the numbers behind it (``details``).

    A claim whose hypotheses fail may be vacuous (``epsilon = inf``)."""

    theorem: str = ""
    guaranteed: bool = True
    hypotheses: dict = field(default_factory=dict)
    details: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_real("epsilon", self.epsilon, low=0.0, allow_inf=True))
        object.__setattr__(self, "delta", check_real("delta", self.delta, low=0.0, high=1.0))

    def as_approx_dp(self) -> ApproxDP:
        """The promised guarantee, provenance dropped."""
        return ApproxDP(self.epsilon, self.delta)

    def to_dict(self) -> dict:
        return {
            "epsilon": self.epsilon,
            "delta": self.delta,
            "theorem": self.theorem,
            "guaranteed": self.guaranteed,
            "hypotheses": dict(self.hypotheses),
            "details": dict(self.details),
        }


@dataclass(frozen=True)
class RenyiDP:
    """A Rényi-DP curve: at each order alpha > 1, D_alpha <= epsilon(alpha).

    ``epsilons`` may contain ``inf`` (no guarantee at that order) but never NaN.
    """

    orders: tuple
    epsilons: tuple

    def __post_init__(self) -> None:
        orders = check_orders(self.orders)
        eps = np.asarray(self.epsilons, dtype=float).reshape(-1)
        if eps.shape != orders.shape:
            raise ValueError(
                f"epsilons must have one value per order; got {eps.size} values for {orders.size} orders"
            )
        if np.any(np.isnan(eps)) or np.any(eps < 0):
            raise ValueError("epsilons must be >= 0 (inf allowed, NaN not)")
        object.__setattr__(self, "orders", tuple(orders.tolist()))
        object.__setattr__(self, "epsilons", tuple(eps.tolist()))

    def at(self, order: float) -> float:
        """RDP epsilon at one of the stored orders."""
        order = float(order)
        try:
            return self.epsilons[self.orders.index(order)]
        except ValueError:
            raise ValueError(f"order {order} is not on this curve; orders are {self.orders}") from None

    def compose(self, other: "RenyiDP") -> "RenyiDP":
        """Adaptive composition: RDP epsilons add order by order (Mironov 2017, Prop. 1)."""
        if self.orders != other.orders:
            raise ValueError("cannot compose RDP curves given on different orders")
        return RenyiDP(self.orders, tuple(a + b for a, b in zip(self.epsilons, other.epsilons)))

    def __mul__(self, k: int) -> "RenyiDP":
        """k-fold self-composition."""
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise ValueError(f"k must be an integer >= 1; got {k!r}")
        return RenyiDP(self.orders, tuple(k * e for e in self.epsilons))

    __rmul__ = __mul__

@dataclass(frozen=True)
class PrivacyProfile:
    """A privacy profile delta(epsilon) (hockey-stick divergence of the worst pair).

    ``delta_of_epsilon`` must be non-increasing in epsilon. ``epsilon(delta)``
    inverts it by bisection in log space, or calls ``epsilon_of_delta`` when the producer knows the inverse
    (a closed form, or an accountant's own answer; it must return the smallest epsilon >= 0 with
    delta(epsilon) <= delta, or an upper bound on it).

    As a claim, a profile promises (epsilon, delta(epsilon))-DP for every epsilon >= 0 (Balle et al. 2018); its
    trade-off curve (Dong, Roth, Su 2022, Prop. 2.12) is :func:`dpverify.calculus.tradeoff_conversions.profile_curve`.

    Every value is checked where it is evaluated (:meth:`delta`, :meth:`epsilon`): a delta that is NaN, negative or
    above 1 (beyond a rounding slack of :data:`PROFILE_SLACK`), or an ``epsilon_of_delta`` answer that is NaN or
    negative, is a ``ValueError`` naming the profile (its description) and the epsilon or delta it was evaluated at.
    """

    delta_of_epsilon: Callable[[float], float]
    description: str = ""
    epsilon_max: float = field(default=math.inf)
    epsilon_of_delta: Callable[[float], float] | None = None

    def _name(self) -> str:
        return repr(self.description) if self.description else "(no description)"

    def _delta_at(self, eps: float) -> float:
        """``delta_of_epsilon(eps)``, checked: a number in [0, 1] (a rounding slack of
        :data:`PROFILE_SLACK` either side is clipped). NaN, a negative delta or one above 1 is a ``ValueError``
        naming the profile and where it was evaluated: the bisection of :meth:`epsilon` would otherwise read it as
        "below every delta" and report an epsilon of about 0."""
        raw = self.delta_of_epsilon(eps)
        try:
            value = float(raw)
        except (TypeError, ValueError):
            raise ValueError(f"the privacy profile {self._name()} returned {describe_value(raw)} at epsilon = "
                             f"{eps!r}: delta_of_epsilon must return a number in [0, 1]") from None
        if not -PROFILE_SLACK <= value <= 1.0 + PROFILE_SLACK:  # NaN fails both comparisons
            raise ValueError(f"the privacy profile {self._name()} returned delta = {value!r} at epsilon = {eps!r}: "
                             "a privacy profile's delta must be a number in [0, 1]")
        return min(1.0, max(0.0, value))

    def delta(self, epsilon: float) -> float:
        eps = check_real("epsilon", epsilon, low=0.0)
        return self._delta_at(eps)

    def epsilon(self, delta: float, *, upper: float = 1e3, tol: float = 1e-12) -> float:
        """Smallest epsilon >= 0 with delta(epsilon) <= delta (``inf`` when none up to ``upper``). Every value the
        profile returns is checked (:meth:`delta`): NaN, a negative delta or one above 1 is a ``ValueError``; so is an
        ``epsilon_of_delta`` answer that is NaN or negative."""
        d = check_delta(delta, allow_zero=False)
        if self.epsilon_of_delta is not None:
            raw = self.epsilon_of_delta(d)
            try:
                value = float(raw)
            except (TypeError, ValueError):
                value = math.nan
            if not value >= 0.0:  # NaN or negative
                raise ValueError(f"the privacy profile {self._name()} returned epsilon = {describe_value(raw)} at "
                                 f"delta = {d!r}: epsilon_of_delta must return a number >= 0 (inf allowed)")
            return value
        if self._delta_at(0.0) <= d:
            return 0.0
        lo, hi = 0.0, 1.0
        while self._delta_at(hi) > d:
            lo, hi = hi, 2 * hi
            if hi > upper:
                return math.inf
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if self._delta_at(mid) > d:
                lo = mid
            else:
                hi = mid
            if hi - lo <= tol * max(1.0, hi):
                break
        return hi
