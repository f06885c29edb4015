"""Exact epsilon of one adjacent pair from known 1-d densities, by quadrature.

For output densities p = p_D and q = p_D' on the real line:

- pure DP: epsilon_0 = sup_x |log p(x) - log q(x)| (Dwork & Roth 2014, Def. 2.4 with delta = 0);
- hockey-stick divergence (Balle et al. 2018, "Privacy amplification by subsampling", Def. 2;
  Balle & Wang 2018, Thm 5): H_eps(p || q) = int max(0, p(x) - e^eps q(x)) dx, the smallest delta
  with P[M(D) in S] <= e^eps P[M(D') in S] + delta for every S;
- exact (epsilon, delta) of the pair: the smallest eps >= 0 with
  max(H_eps(p || q), H_eps(q || p)) <= delta, found by root finding on the log of the (decreasing)
  divergence.

The integrand is evaluated in log space, ``p (1 - exp(eps + log q - log p))`` on
``{log p - log q > eps}``; the real line is split at the caller's ``points`` (where the
densities have kinks or mass) and each piece goes to ``scipy.integrate.quad`` (relative tolerance
1e-11; checked against the closed forms for Laplace and Gaussian down to delta = 1e-10 in
tests/test_audit_exact.py). ``mpmath.quad`` was tried and dropped: its tanh-sinh rule does not see
the kink of ``max(0, .)`` at the unknown boundary of the set and was off by 30% at delta = 1e-10.
Discrete outputs need no quadrature: use the lead's
:func:`dpverify.calculus.mechanisms.exponential.discrete_epsilon` (sums instead of integrals).
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np
from scipy import integrate, optimize

from dpverify.validation import check_delta, check_real
from dpverify.audit.abilities import log_density_of

__all__ = ["hockey_stick", "pure_epsilon", "pair_epsilon", "mechanism_log_densities"]

LogPdf = Callable[[float], float]


def _pieces(support: tuple[float, float], points: Sequence[float]) -> list[tuple[float, float]]:
    lo, hi = support
    cuts = sorted({float(p) for p in points if lo < p < hi})
    edges = [lo, *cuts, hi]
    return list(zip(edges[:-1], edges[1:]))


def hockey_stick(log_p: LogPdf, log_q: LogPdf, epsilon: float, *, support=(-math.inf, math.inf),
                 points: Sequence[float] = ()) -> float:
    """H_eps(p || q) = int max(0, p - e^eps q) for 1-d log densities ``log_p``, ``log_q``."""
    eps = check_real("epsilon", epsilon, low=0.0)

    def f(x: float) -> float:
        lp, lq = log_p(x), log_q(x)
        if lp == -math.inf or lq - lp + eps >= 0.0:
            return 0.0
        return math.exp(lp) * -math.expm1(eps + lq - lp)

    total = 0.0
    for a, b in _pieces(support, points):
        val, _ = integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-11, limit=500)
        total += val
    return max(0.0, total)


def pure_epsilon(log_p: LogPdf, log_q: LogPdf, *, bounds: tuple[float, float], grid: int = 20001) -> float:
    """sup over [bounds] of |log p - log q|: a grid, then a bounded refinement around the best
    grid point. Infinite if one density vanishes where the other does not. The supremum over an
    unbounded support must be reduced to a finite range by the caller (e.g. Laplace's privacy loss
    is constant outside the segment between the two locations)."""
    lo, hi = (check_real("bounds[0]", bounds[0]), check_real("bounds[1]", bounds[1]))
    if not lo < hi:
        raise ValueError(f"bounds must be an interval lo < hi; got {bounds}")
    xs = np.linspace(lo, hi, grid)

    def loss(x: float) -> float:
        lp, lq = log_p(x), log_q(x)
        if lp == -math.inf and lq == -math.inf:
            return 0.0
        return abs(lp - lq)

    values = np.array([loss(x) for x in xs])
    j = int(np.argmax(values))
    if not np.isfinite(values[j]):
        return math.inf
    a, b = xs[max(j - 1, 0)], xs[min(j + 1, grid - 1)]
    res = optimize.minimize_scalar(lambda x: -loss(x), bounds=(a, b), method="bounded",
                                   options={"xatol": 1e-12})
    return float(max(values[j], -res.fun))


def pair_epsilon(log_p: LogPdf, log_q: LogPdf, delta: float, *, support=(-math.inf, math.inf),
                 points: Sequence[float] = (), bounds: tuple[float, float] | None = None,
                 epsilon_max: float = 100.0) -> float:
    """Smallest eps >= 0 with max(H_eps(p||q), H_eps(q||p)) <= delta (module docstring).

    ``delta = 0`` gives :func:`pure_epsilon` over ``bounds`` (required then). Returns ``inf`` if the
    divergence still exceeds delta at ``epsilon_max``.
    """
    delta = check_delta(delta)
    if delta == 0.0:
        if bounds is None:
            raise ValueError("bounds (a finite range for the supremum) is required when delta = 0")
        return pure_epsilon(log_p, log_q, bounds=bounds)

    def excess(eps: float) -> float:
        h = max(hockey_stick(log_p, log_q, eps, support=support, points=points),
                hockey_stick(log_q, log_p, eps, support=support, points=points))
        return (math.log(h) if h > 0 else -math.inf) - math.log(delta)

    if excess(0.0) <= 0.0:
        return 0.0
    if excess(epsilon_max) > 0.0:
        return math.inf
    return float(optimize.brentq(lambda e: max(excess(e), -50.0), 0.0, epsilon_max, xtol=1e-10))


def mechanism_log_densities(mechanism, dataset, neighbour) -> tuple[LogPdf, LogPdf]:
    """Scalar log densities ``x -> mechanism.log_density(D, [x])[0]`` of a mechanism with 1-d
    outputs on both datasets, for :func:`pair_epsilon` (:class:`dpverify.audit.abilities.HasLogDensity`)."""
    ld = log_density_of(mechanism)
    if ld is None:
        raise ValueError("mechanism has no log_density(dataset, outputs)")

    def make(d) -> LogPdf:
        return lambda x: float(np.asarray(ld(d, np.array([x], dtype=float))).reshape(-1)[0])

    return make(dataset), make(neighbour)
