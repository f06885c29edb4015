"""Trade-off curves (f-DP) and the guarantees that are curves: mu-GDP, the Laplace curve, piecewise-linear curves.

**Trade-off functions** (Dong, Roth, Su 2022, "Gaussian differential privacy", JRSS-B, Def. 2.1). For two laws P,
Q of an output and a (randomised) test phi that rejects H0 "the output came from P" with probability phi(x),
alpha_phi = E_P[phi] is the type I error and beta_phi = 1 - E_Q[phi] the type II error;

    T(P, Q)(a) = inf { beta_phi : alpha_phi <= a },   a in [0, 1].

A function f: [0, 1] -> [0, 1] is a trade-off function iff it is convex, continuous, non-increasing and
f(a) <= 1 - a (DRS 2022, Prop. 2.2). A mechanism M is **f-DP** if T(M(D), M(D')) >= f for every pair of
neighbouring datasets, both orders (DRS 2022, Def. 2.3). In the audit's words (:mod:`dpverify.audit.curve`): any
test that decides "M(D) or M(D')" has false-positive rate FPR and false-negative rate FNR with FNR >= f(FPR).

**The curves here** (each a :class:`TradeOffCurve`: ``curve(alpha)`` vectorised, ``delta(epsilon)``,
``epsilon(delta)``, ``to_profile()``):

- :class:`GaussianDP` -- mu-GDP, f = G_mu with ``G_mu(a) = Phi(Phi^-1(1 - a) - mu)`` = T(N(0, 1), N(mu, 1))
  (DRS 2022, Def. 2.6). Its privacy profile is exact (DRS 2022, Cor. 2.13; Balle & Wang 2018, Thm. 8):
  ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``, computed in log space
  (:func:`dpverify.calculus.mechanisms.gaussian.log_gaussian_delta`). G_mu is evaluated as
  ``Phi(-Phi^-1(a) - mu)``, so that a false-positive rate of 1e-300 keeps its precision.
- :class:`LaplaceDP` -- f = T(Lap(0, 1), Lap(mu, 1)), the curve of the Laplace mechanism with sensitivity / scale
  = mu: ``1 - e^mu a`` for ``a < e^-mu / 2``, ``e^-mu / (4 a)`` up to ``a = 1/2``, ``e^-mu (1 - a)`` beyond.
  Derived from the Neyman-Pearson lemma: the likelihood ratio is monotone in x, so the tests {x > c} are optimal;
  for 0 <= c <= mu, a = e^-c / 2 and beta = e^(c - mu) / 2, whence a beta = e^-mu / 4, and the two outer pieces
  are the randomised tests on the flat parts of the ratio (x <= 0 and x >= mu). Strictly above the curve of
  :class:`~dpverify.calculus.guarantees.PureDP` (mu) in the middle: a Laplace claim is stronger than mu-DP.
- :class:`PiecewiseLinearCurve` -- a curve given by its vertices (linear in between). This is the exact trade-off
  function of any pair with finitely many likelihood-ratio values (randomised tests fill the segments: Neyman &
  Pearson 1933), e.g. a discretised privacy-loss law, and of the supremum of finitely many (eps, delta) curves.
  Its conjugate (the profile) is exact: the infimum of a piecewise-linear function plus a line sits at a vertex.
- :func:`approx_dp_curve` -- the curve of (eps, delta)-DP (DRS 2022, Sec. 2, after Wasserman & Zhou 2010,
  Thm. 2.4, and Kairouz, Oh, Viswanath 2015):
  ``f_{eps,delta}(a) = max(0, 1 - delta - e^eps a, e^-eps (1 - delta - a))``, as a :class:`PiecewiseLinearCurve`.

**Curve <-> profile** (DRS 2022, Prop. 2.12). A symmetric f gives (eps, delta(eps))-DP for every eps >= 0 with

    delta(eps) = 1 + f*(-e^eps) = 1 - inf_a ( f(a) + e^eps a ),     f* the convex conjugate;

conversely (eps, delta(eps))-DP for all eps >= 0 is f-DP with ``f = sup_eps f_{eps, delta(eps)}``
(:func:`dpverify.calculus.tradeoff_conversions.profile_curve`). For a curve that is not symmetric the same formula
gives the hockey-stick divergence of one order of the pair (the claim covers both orders, so a check of either is
valid).

**Claims are weakened, never strengthened.** A curve computed for a claim must lie at or below the true curve of
what is claimed (a curve above it would call a correct mechanism a violation), and a profile computed for a claim
at or above the true delta. The closed forms here are exact up to floating point; the numerical conversions
(:mod:`dpverify.calculus.tradeoff_conversions`) say which way each of their approximations goes.
"""
from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field

import numpy as np
from scipy.special import expit, ndtr, ndtri

from dpverify.calculus.guarantees import ApproxDP, PrivacyProfile
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon, log_gaussian_delta
from dpverify.calculus.mechanisms.laplace import laplace_delta, laplace_epsilon
from dpverify.validation import check_delta, check_real

__all__ = ["TradeOffCurve", "GaussianDP", "LaplaceDP", "PiecewiseLinearCurve", "approx_dp_curve",
           "check_error_rates"]

#: Rounding slack when checking that given vertices form a non-increasing curve below 1 - a.
_VERTEX_TOLERANCE = 1e-9


def check_error_rates(values, name: str = "alpha") -> np.ndarray:
    """Error rates as a float array with every entry in [0, 1] (no NaN); the error names ``name``."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number or an array of numbers in [0, 1]; got {type(values).__name__}") \
            from None
    if np.isnan(arr).any() or (arr < 0).any() or (arr > 1).any():
        bad = arr[np.isnan(arr) | (arr < 0) | (arr > 1)].ravel()[0]
        raise ValueError(f"{name} must lie in [0, 1] (error rates); got {bad!r}")
    return arr


class TradeOffCurve(ABC):
    """An f-DP guarantee: every test of "M(D) or M(D')" has type II error >= f(type I error) (DRS 2022, Def. 2.3).

    Subclasses implement :meth:`evaluate` (f on a validated array), :meth:`delta` and :attr:`description`;
    :meth:`epsilon` defaults to bisection on :meth:`delta`.
    """

    @property
    @abstractmethod
    def description(self) -> str:
        """A short human description, e.g. "1.5-GDP"."""

    @abstractmethod
    def evaluate(self, alpha: np.ndarray) -> np.ndarray:
        """f at every entry of ``alpha`` (already checked to lie in [0, 1])."""

    @abstractmethod
    def delta(self, epsilon: float) -> float:
        """delta(eps) = 1 + f*(-e^eps) (DRS 2022, Prop. 2.12), eps >= 0; never below the true value."""

    def __call__(self, alpha):
        """f(alpha), vectorised: a float for a scalar, an array of the same shape otherwise."""
        a = check_error_rates(alpha)
        out = np.asarray(self.evaluate(a), dtype=float)
        return float(out) if out.ndim == 0 else out

    def epsilon(self, delta: float) -> float:
        """Smallest eps >= 0 with delta(eps) <= ``delta`` (``inf`` if none below 1e3), by bisection."""
        d = check_delta(delta)
        if self.delta(0.0) <= d:
            return 0.0
        lo, hi = 0.0, 1.0
        while self.delta(hi) > d:
            lo, hi = hi, 2.0 * hi
            if hi > 1e3:
                return math.inf
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if self.delta(mid) > d else (lo, mid)
            if hi - lo <= 1e-12 * max(1.0, hi):
                break
        return hi

    def epsilon_at(self, delta: float) -> float:
        """:meth:`epsilon`: the epsilon this curve promises at ``delta`` (the claim protocol of
        :mod:`dpverify.calculus.claimed`, so that ``audit(claim=GaussianDP(mu))`` works)."""
        return self.epsilon(delta)

    def to_profile(self) -> PrivacyProfile:
        """The privacy profile of this curve (DRS 2022, Prop. 2.12), as a :class:`PrivacyProfile` claim."""
        return PrivacyProfile(self.delta, f"profile of {self.description}", epsilon_of_delta=self.epsilon)

    def at_delta(self, delta: float) -> ApproxDP:
        """The (epsilon(delta), delta) guarantee this curve implies; ``delta`` in (0, 1)."""
        d = check_delta(delta, allow_zero=False)
        return ApproxDP(self.epsilon(d), d)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.description})"


@dataclass(frozen=True, repr=False)
class GaussianDP(TradeOffCurve):
    """mu-Gaussian differential privacy: f = G_mu, ``G_mu(a) = Phi(Phi^-1(1 - a) - mu)`` (DRS 2022, Def. 2.6).

    ``mu`` >= 0 (mu = 0: perfect privacy, f(a) = 1 - a). The Gaussian mechanism with L2 sensitivity Delta and noise
    standard deviation sigma is exactly (Delta / sigma)-GDP (DRS 2022, Thm. 2.7).
    """

    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_real("mu", self.mu, low=0.0))

    @property
    def description(self) -> str:
        return f"{self.mu:.6g}-GDP"

    def evaluate(self, alpha: np.ndarray) -> np.ndarray:
        # Phi^-1(1 - a) = -Phi^-1(a): exact for tiny a, where 1 - a would round to 1.
        with np.errstate(invalid="ignore"):
            return ndtr(-ndtri(alpha) - self.mu)

    def delta(self, epsilon: float) -> float:
        """Exact: ``Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)`` (DRS 2022, Cor. 2.13), in log space."""
        e = check_real("epsilon", epsilon, low=0.0)
        return math.exp(log_gaussian_delta(e, self.mu))

    def epsilon(self, delta: float) -> float:
        """Exact inverse of :meth:`delta` (root finding in log space); ``inf`` at delta = 0 unless mu = 0."""
        d = check_delta(delta)
        if self.mu == 0.0:
            return 0.0
        return math.inf if d == 0.0 else gaussian_epsilon(d, self.mu)


@dataclass(frozen=True, repr=False)
class LaplaceDP(TradeOffCurve):
    """f = T(Lap(0, 1), Lap(mu, 1)): as private as the Laplace mechanism whose sensitivity / scale is ``mu``.

    ``mu`` >= 0 is the shift in units of the scale, i.e. the pure-DP epsilon of that mechanism (the name follows
    :func:`dpverify.calculus.mechanisms.laplace.laplace_delta`). Curve (module docstring): ``1 - e^mu a`` on
    [0, e^-mu / 2], ``e^-mu / (4 a)`` on [e^-mu / 2, 1/2], ``e^-mu (1 - a)`` on [1/2, 1]. Profile
    ``delta(eps) = max(0, 1 - exp((eps - mu) / 2))``.
    """

    mu: float

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_real("mu", self.mu, low=0.0))

    @property
    def description(self) -> str:
        return f"Laplace curve, mu = {self.mu:.6g}"

    def evaluate(self, alpha: np.ndarray) -> np.ndarray:
        m = self.mu
        small = math.exp(-m)  # 0.0 beyond mu ~ 745 (underflow): the middle and last pieces are then 0
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            middle = small / (4.0 * alpha)
            # e^mu a; beyond mu = 700 as exp(mu + log a), so that e^mu never overflows (mu up to 1e308)
            first = 1.0 - (math.exp(m) * alpha if m < 700.0 else np.exp(m + np.log(alpha)))
        # a = 0 takes the first piece (f(0) = 1) even when e^-mu underflows to 0
        return np.where((alpha < small / 2.0) | (alpha == 0.0), first,
                        np.where(alpha <= 0.5, middle, small * (1.0 - alpha)))

    def delta(self, epsilon: float) -> float:
        return laplace_delta(epsilon, self.mu)

    def epsilon(self, delta: float) -> float:
        return laplace_epsilon(delta, self.mu)


@dataclass(frozen=True, repr=False, eq=False)
class PiecewiseLinearCurve(TradeOffCurve):
    """A curve through the vertices ``(alphas[i], betas[i])``, linear in between.

    ``alphas`` runs from 0 to 1, non-decreasing; ``betas`` is non-increasing in [0, 1] with betas <= 1 - alphas
    (a rounding slack of 1e-9 is accepted and removed by lowering the betas: lowering weakens the claim). Repeated
    alphas keep the smallest beta. A convex curve is a trade-off function; a non-convex one (the pointwise minimum of
    two curves) is still a valid claim "type II error >= f(type I error)".

    Profile (DRS 2022, Prop. 2.12), exact: ``delta(eps) = 1 - min_i (betas[i] + e^eps alphas[i])``; and
    ``epsilon(delta) = log max_i (1 - delta - betas[i]) / alphas[i]`` (over alphas[i] > 0; ``inf`` when the curve
    starts below 1 - delta).
    """

    alphas: np.ndarray
    betas: np.ndarray
    label: str = field(default="piecewise-linear curve")

    def __post_init__(self) -> None:
        a = check_error_rates(self.alphas, "alphas").reshape(-1)
        b = check_error_rates(self.betas, "betas").reshape(-1)
        if a.size != b.size or a.size < 2:
            raise ValueError(f"alphas and betas must have the same length >= 2; got {a.size} and {b.size}")
        if a[0] != 0.0 or a[-1] != 1.0 or np.any(np.diff(a) < 0):
            raise ValueError("alphas must run from 0 to 1, non-decreasing")
        if np.any(np.diff(b) > _VERTEX_TOLERANCE) or np.any(b > 1.0 - a + _VERTEX_TOLERANCE):
            raise ValueError("betas must be non-increasing with betas <= 1 - alphas (a trade-off curve)")
        b = np.minimum.accumulate(np.minimum(b, 1.0 - a))
        keep = np.concatenate([np.diff(a) > 0, [True]])  # last of each run of equal alphas: the smallest beta
        a, b = a[keep], b[keep]
        a.setflags(write=False)
        b.setflags(write=False)
        object.__setattr__(self, "alphas", a)
        object.__setattr__(self, "betas", b)

    @property
    def description(self) -> str:
        return self.label

    def evaluate(self, alpha: np.ndarray) -> np.ndarray:
        return np.interp(alpha, self.alphas, self.betas)

    def _min_over_vertices(self, t: float) -> float:
        """min_i (betas[i] + t alphas[i]); the first vertex has alpha = 0 (so t = inf is safe)."""
        rest = self.betas[1:] + t * self.alphas[1:]
        return float(min(self.betas[0], rest.min()))

    def delta(self, epsilon: float) -> float:
        e = check_real("epsilon", epsilon, low=0.0)
        t = math.exp(e) if e < 700.0 else math.inf
        return min(1.0, max(0.0, 1.0 - self._min_over_vertices(t)))

    def epsilon(self, delta: float) -> float:
        d = check_delta(delta)
        if self.betas[0] < 1.0 - d:
            return math.inf
        t = float(np.max((1.0 - d - self.betas[1:]) / self.alphas[1:]))
        return math.log(t) if t > 1.0 else 0.0


def approx_dp_curve(epsilon: float, delta: float = 0.0) -> PiecewiseLinearCurve:
    """The curve of (epsilon, delta)-DP: ``max(0, 1 - delta - e^eps a, e^-eps (1 - delta - a))`` (DRS 2022, Sec. 2).

    Vertices (0, 1 - delta), (a*, a*) with a* = (1 - delta) / (1 + e^eps), (1 - delta, 0), (1, 0). A vacuous
    guarantee (``epsilon = inf`` or ``delta = 1``) gives f = 0 (no constraint), e.g. a computed
    :class:`~dpverify.calculus.guarantees.Conversion` whose hypotheses failed.
    """
    e = check_real("epsilon", epsilon, low=0.0, allow_inf=True)
    d = check_real("delta", delta, low=0.0, high=1.0)
    label = f"({e:.6g}, {d:.3g})-DP curve"
    if math.isinf(e) or d == 1.0:
        return PiecewiseLinearCurve(np.array([0.0, 1.0]), np.array([0.0, 0.0]), label)
    # (1 - d) / (1 + e^eps) without overflowing e^eps: 0 (a lower curve, the weaker claim) once it underflows
    kink = (1.0 - d) * float(expit(-e))
    return PiecewiseLinearCurve(np.array([0.0, kink, 1.0 - d, 1.0]), np.array([1.0 - d, kink, 0.0, 0.0]), label)
