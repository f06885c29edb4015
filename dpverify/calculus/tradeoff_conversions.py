"""Conversions between privacy profiles, privacy-loss distributions and trade-off curves, always toward a weaker claim.

Every function here turns a guarantee into a :class:`~dpverify.calculus.tradeoff.TradeOffCurve` or a
:class:`~dpverify.calculus.guarantees.PrivacyProfile` for use *as a claim*: the curve returned never lies above the
true curve of the guarantee, and the profile never below its true delta (up to floating point), so a correct
mechanism is never made to look like a violation by the conversion.

- :func:`profile_curve` -- a profile delta(eps) to its curve, DRS 2022 (Dong, Roth, Su, "Gaussian differential
  privacy", JRSS-B), Prop. 2.12: ``f = sup_{eps >= 0} f_{eps, delta(eps)}`` with
  ``f_{eps,delta}(a) = max(0, 1 - delta - e^eps a, e^-eps (1 - delta - a))``. The supremum is taken over a finite
  grid of eps: a supremum over fewer lines is lower, hence a weaker claim. The result is the exact upper envelope of
  those lines (a convex :class:`~dpverify.calculus.tradeoff.PiecewiseLinearCurve`).
- :func:`neyman_pearson_curve` -- the exact curve of a discrete privacy-loss law. For a pair (P, Q) whose loss
  ``L = log dP/dQ`` takes values l_j with P-masses w_j (and w_inf at +inf), the Q-masses are w_j e^-l_j (and
  Q puts the rest at L = -inf). The most powerful tests of H0 "Q" reject for large L (Neyman & Pearson 1933), so
  T(Q, P) is the polygon through ``(sum_{k <= j} w_k e^-l_k, 1 - w_inf - sum_{k <= j} w_k)`` with the losses in
  decreasing order, starting at (0, 1 - w_inf) (randomised tests fill the segments).
- :func:`pld_curve` / :func:`pld_profile` -- a :class:`~dpverify.calculus.accounting.pld.PrivacyLossDistribution`
  as a claim. Both use its *pessimistic* (upper) laws, the end of its bracket that makes the claim weaker: the
  connect-the-dots discretisation raises the hockey-stick divergence ``H(t) = sup_S P(S) - t Q(S)`` at every
  t >= 0 (facts 2 and 3 of :mod:`dpverify.calculus.accounting.pld`), and since
  ``T(Q, P)(a) = sup_{t >= 0} (1 - H(t) - t a)``, a larger H at every t is a lower curve. ``pld_curve`` is the
  pointwise minimum of the Neyman-Pearson curves of the forward law (a bound on T(Q, P)) and of the backward law (a
  bound on T(P, Q)), so it bounds both orders of the pair; ``pld_profile`` is the upper end of
  :meth:`~dpverify.calculus.accounting.pld.PrivacyLossDistribution.delta_bounds` and of ``epsilon_bounds``.
- :func:`as_tradeoff_curve` / :func:`as_privacy_profile` -- any guarantee of the vocabulary (PureDP, ApproxDP and its
  Conversion/Claim, RenyiDP, PrivacyProfile, a PLD, a TradeOffCurve) as a curve or a profile. Rényi DP goes through
  the profile ``delta(eps)`` of :func:`dpverify.calculus.conversions.rdp_to_delta` (an upper bound), at every
  eps >= 0.

In the other direction, curve -> profile is ``delta(eps) = 1 + f*(-e^eps)`` (DRS 2022, Prop. 2.12), each curve's
:meth:`~dpverify.calculus.tradeoff.TradeOffCurve.delta` (exact for piecewise-linear curves and the closed forms).
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.calculus.accounting.pld import PrivacyLossDistribution
from dpverify.calculus.conversions import rdp_log_deltas, rdp_to_dp
from dpverify.calculus.guarantees import ApproxDP, PrivacyProfile, PureDP, RenyiDP
from dpverify.calculus.tradeoff import PiecewiseLinearCurve, TradeOffCurve, approx_dp_curve
from dpverify.validation import check_finite_array, check_positive_int, check_probability

__all__ = ["profile_curve", "neyman_pearson_curve", "pointwise_minimum", "pld_curve", "pld_profile",
           "as_tradeoff_curve", "as_privacy_profile", "DEFAULT_EPSILON_POINTS"]

#: Grid points of eps in :func:`profile_curve` (uniform on [0, eps(1e-14)], at most [0, 100]).
DEFAULT_EPSILON_POINTS = 1000
#: The grid of :func:`profile_curve` stops where the profile falls below this delta (or at eps = 100).
_SMALLEST_DELTA = 1e-14
_LARGEST_EPSILON = 100.0


def _upper_envelope(slopes: np.ndarray, intercepts: np.ndarray) -> PiecewiseLinearCurve:
    """The exact upper envelope on [0, 1] of the lines ``slope * a + intercept`` and of 0, as vertices.

    Convex hull of lines: sorted by slope (ties: the larger intercept), a line is dropped when the next one
    overtakes its predecessor before it does; the kinks of the kept lines inside (0, 1) are the vertices.
    """
    m = np.concatenate([np.asarray(slopes, dtype=float), [0.0]])
    c = np.concatenate([np.asarray(intercepts, dtype=float), [0.0]])
    order = np.lexsort((-c, m))
    m, c = m[order], c[order]
    first = np.concatenate([[True], np.diff(m) > 0])
    m, c = m[first], c[first]
    hull: list[int] = []
    for j in range(m.size):
        while len(hull) >= 2:
            i, k = hull[-2], hull[-1]
            # k is useless if line j meets line i no later than line k does
            if (c[i] - c[j]) * (m[k] - m[i]) <= (c[i] - c[k]) * (m[j] - m[i]):
                hull.pop()
            else:
                break
        hull.append(j)
    hm, hc = m[hull], c[hull]
    kinks = (hc[:-1] - hc[1:]) / (hm[1:] - hm[:-1])
    xs = np.unique(np.clip(np.concatenate([[0.0], kinks, [1.0]]), 0.0, 1.0))
    values = np.max(hm[None, :] * xs[:, None] + hc[None, :], axis=1)
    return PiecewiseLinearCurve(xs, np.clip(values, 0.0, 1.0))


def profile_curve(profile: PrivacyProfile, epsilons=None, *, points: int = DEFAULT_EPSILON_POINTS,
                  ) -> PiecewiseLinearCurve:
    """The trade-off curve of a privacy profile: ``sup over eps in epsilons of f_{eps, delta(eps)}`` (DRS 2022,
    Prop. 2.12), at or below the true curve of the profile (module docstring).

    ``epsilons``: the grid (finite values >= 0); default ``points`` values spread evenly over [0, eps_top] with
    eps_top = eps(1e-14) of the profile (at most 100). Both families of lines of each f_{eps,delta} are used,
    so the curve is symmetric.
    """
    if not isinstance(profile, PrivacyProfile):
        raise TypeError(f"profile must be a PrivacyProfile; got {type(profile).__name__}")
    if epsilons is None:
        points = check_positive_int(points, "points", minimum=2)
        top = min(profile.epsilon(_SMALLEST_DELTA), _LARGEST_EPSILON)
        eps = np.linspace(0.0, max(top, 1e-3), points)
    else:
        eps = check_finite_array(epsilons, "epsilons", ndim=1)
        if eps.size == 0 or np.any(eps < 0):
            raise ValueError("epsilons must be a non-empty 1-d array of values >= 0")
    deltas = np.array([profile.delta(float(e)) for e in eps])
    if np.isnan(deltas).any() or (deltas < 0).any() or (deltas > 1).any():
        raise ValueError("the profile returned a delta outside [0, 1] (or NaN)")
    keep = deltas < 1.0
    eps, deltas = eps[keep], deltas[keep]
    scale = np.exp(-eps)
    slopes = np.concatenate([-np.exp(eps), -scale])
    intercepts = np.concatenate([1.0 - deltas, scale * (1.0 - deltas)])
    curve = _upper_envelope(slopes, intercepts)
    return PiecewiseLinearCurve(curve.alphas, curve.betas, f"curve of {profile.description or 'a privacy profile'}")


def neyman_pearson_curve(losses, masses, mass_at_infinity: float = 0.0, *, label: str = "") -> PiecewiseLinearCurve:
    """The exact trade-off curve T(Q, P) of a discrete privacy-loss law (module docstring).

    ``losses[j]`` = log dP/dQ of atom j (finite), ``masses[j]`` its P-probability (>= 0), ``mass_at_infinity`` the
    P-probability of L = +inf (outputs Q never produces). The masses should add up to 1 with it; the curve is closed
    at beta = 0 once every atom is rejected, so a shortfall (mass lost to rounding) can only lower it.
    """
    loss = check_finite_array(losses, "losses", ndim=1)
    w = check_finite_array(masses, "masses", ndim=1)
    if loss.shape != w.shape:
        raise ValueError(f"losses and masses must have the same length; got {loss.size} and {w.size}")
    if np.any(w < 0):
        raise ValueError("masses must be >= 0")
    w_inf = check_probability(mass_at_infinity, "mass_at_infinity")
    nonzero = w > 0
    loss, w = loss[nonzero], w[nonzero]
    order = np.argsort(-loss, kind="stable")
    loss, w = loss[order], w[order]
    with np.errstate(over="ignore"):
        q = w * np.exp(-loss)
    alphas = np.minimum(np.concatenate([[0.0], np.cumsum(q)]), 1.0)
    betas = np.maximum(np.concatenate([[1.0 - w_inf], 1.0 - w_inf - np.cumsum(w)]), 0.0)
    betas[-1] = 0.0  # all of P's mass has been rejected: close the curve (rounding can only lower it)
    alphas = np.concatenate([alphas, [1.0]])
    betas = np.concatenate([betas, [0.0]])
    betas = np.minimum.accumulate(np.minimum(betas, 1.0 - alphas))
    return PiecewiseLinearCurve(alphas, betas, label or "Neyman-Pearson curve of a discrete loss law")


def pointwise_minimum(first: PiecewiseLinearCurve, second: PiecewiseLinearCurve, *,
                      label: str = "") -> PiecewiseLinearCurve:
    """min(first, second), exactly: the vertices of both plus the points where the two cross.

    The profile of the minimum is the larger of the two profiles (the conjugate of a minimum is the maximum)."""
    for name, c in (("first", first), ("second", second)):
        if not isinstance(c, PiecewiseLinearCurve):
            raise TypeError(f"{name} must be a PiecewiseLinearCurve; got {type(c).__name__}")
    x = np.union1d(first.alphas, second.alphas)
    gap = first.evaluate(x) - second.evaluate(x)
    cross = np.flatnonzero(gap[:-1] * gap[1:] < 0)
    t = gap[cross] / (gap[cross] - gap[cross + 1])
    x = np.union1d(x, x[cross] + t * (x[cross + 1] - x[cross]))
    y = np.minimum(first.evaluate(x), second.evaluate(x))
    return PiecewiseLinearCurve(x, y, label or f"min({first.description}, {second.description})")


def pld_curve(pld: PrivacyLossDistribution) -> PiecewiseLinearCurve:
    """The trade-off curve of a PLD as a claim: the minimum of the Neyman-Pearson curves of its pessimistic forward
    and backward laws (module docstring); never above the true curve of either order of the pair."""
    if not isinstance(pld, PrivacyLossDistribution):
        raise TypeError(f"pld must be a PrivacyLossDistribution; got {type(pld).__name__}")
    losses, p, q, p_inf, q_inf = pld.masses()
    forward = neyman_pearson_curve(losses, p, p_inf)
    backward = neyman_pearson_curve(-losses, q, q_inf)
    return pointwise_minimum(forward, backward, label=f"curve of the {pld.basis} (pessimistic laws)")


def pld_profile(pld: PrivacyLossDistribution) -> PrivacyProfile:
    """The privacy profile of a PLD as a claim: the upper end of its bracket (delta_bounds()[1], epsilon_bounds()[1]),
    i.e. the pessimistic laws, so the claimed delta is never below the true one."""
    if not isinstance(pld, PrivacyLossDistribution):
        raise TypeError(f"pld must be a PrivacyLossDistribution; got {type(pld).__name__}")
    return PrivacyProfile(lambda e: pld.delta_bounds(e)[1], f"{pld.basis} (upper end of the PLD bracket)",
                          epsilon_of_delta=lambda d: pld.epsilon_bounds(d)[1])


def _renyi_profile(guarantee: RenyiDP) -> PrivacyProfile:
    """delta(eps) = min over orders of the balle2020 conversion (:mod:`dpverify.calculus.conversions`), eps >= 0."""
    orders = np.asarray(guarantee.orders, dtype=float)
    rdp = np.asarray(guarantee.epsilons, dtype=float)

    def delta_of_epsilon(e: float) -> float:
        return float(math.exp(np.min(rdp_log_deltas(orders, rdp, e, "balle2020"))))

    return PrivacyProfile(delta_of_epsilon, "RDP curve converted (balle2020)",
                          epsilon_of_delta=lambda d: rdp_to_dp(orders, rdp, d).epsilon)


def as_privacy_profile(guarantee) -> PrivacyProfile:
    """Any guarantee as a privacy profile claim (delta(eps) for every eps; never below the true delta)."""
    if isinstance(guarantee, PrivacyProfile):
        return guarantee
    if isinstance(guarantee, PrivacyLossDistribution):
        return pld_profile(guarantee)
    if isinstance(guarantee, TradeOffCurve):
        return guarantee.to_profile()
    if isinstance(guarantee, RenyiDP):
        return _renyi_profile(guarantee)
    if isinstance(guarantee, (PureDP, ApproxDP)):
        return approx_dp_curve(guarantee.epsilon, guarantee.delta).to_profile()
    raise TypeError(f"guarantee must be a PureDP, ApproxDP, RenyiDP, PrivacyProfile, PrivacyLossDistribution or "
                    f"TradeOffCurve; got {type(guarantee).__name__}")


def as_tradeoff_curve(guarantee) -> TradeOffCurve:
    """Any guarantee as a trade-off curve claim (never above the true curve)."""
    if isinstance(guarantee, TradeOffCurve):
        return guarantee
    if isinstance(guarantee, PrivacyLossDistribution):
        return pld_curve(guarantee)
    if isinstance(guarantee, PrivacyProfile):
        return profile_curve(guarantee)
    if isinstance(guarantee, RenyiDP):
        return profile_curve(_renyi_profile(guarantee))
    if isinstance(guarantee, (PureDP, ApproxDP)):
        return approx_dp_curve(guarantee.epsilon, guarantee.delta)
    raise TypeError(f"guarantee must be a PureDP, ApproxDP, RenyiDP, PrivacyProfile, PrivacyLossDistribution or "
                    f"TradeOffCurve; got {type(guarantee).__name__}")
