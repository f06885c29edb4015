"""Composition of differentially private mechanisms.

- :func:`basic_composition`: k mechanisms (eps_i, delta_i)-DP compose to (sum eps_i, sum delta_i)
  (Dwork et al. 2006; Wang et al. 2015, Lemma 2; Foulds et al. 2016, Thm 1).
- :func:`advanced_composition`: k-fold adaptive composition of (eps, delta)-DP mechanisms is
  (eps', k delta + delta')-DP with eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1)
  (Dwork, Rothblum, Vadhan 2010; Dwork & Roth 2014, Thm 3.20; Wang et al. 2015, Lemma 3).
- :func:`optimal_homogeneous_delta` / :func:`optimal_homogeneous_composition`: the exact privacy
  region of k-fold composition of (eps0, delta0)-DP mechanisms (Kairouz, Oh, Viswanath 2015, Thm 3.3):

      delta(eps) = 1 - (1 - delta0)^k (1 - delta_RR(eps)),
      delta_RR(eps) = sum_{l=0}^{k} C(k, l) max(0, e^{(k-l) eps0} - e^{eps} e^{l eps0}) / (1 + e^{eps0})^k,

  the hockey-stick divergence of k-fold randomized response, which KOV show is the worst case.
  At eps = (k - 2i) eps0 this is their delta_i; between those points it is the exact profile of the
  dominating pair. Every term is computed in log space (``gammaln`` + ``logsumexp``), so k up to
  10^7 and eps0 up to 100 neither overflow nor lose precision.
"""
from __future__ import annotations

import math
import sys
from typing import Sequence

import numpy as np
from scipy.optimize import brentq
from scipy.special import gammaln, logsumexp

from dpverify.validation import check_delta, check_epsilon, check_positive_int, check_real
from dpverify.calculus.guarantees import ApproxDP

__all__ = [
    "basic_composition",
    "advanced_composition",
    "optimal_homogeneous_delta",
    "optimal_homogeneous_composition",
]


def basic_composition(guarantees: Sequence[ApproxDP]) -> ApproxDP:
    """(sum eps_i, sum delta_i) (Wang et al. 2015, Lemma 2; Foulds et al. 2016, Thm 1).

    ``delta`` is capped below 1 only by validation: a sum >= 1 is no guarantee and raises.
    """
    gs = list(guarantees)
    if not gs:
        raise ValueError("guarantees must contain at least one guarantee")
    for i, g in enumerate(gs):
        if not isinstance(g, ApproxDP):
            raise TypeError(f"guarantees[{i}] must be an ApproxDP; got {type(g).__name__}")
    try:
        eps = math.fsum(g.epsilon for g in gs)
    except OverflowError:
        eps = math.inf
    if not math.isfinite(eps):
        raise ValueError(f"the composed epsilon (the sum of the {len(gs)} epsilons) exceeds the largest float "
                         f"({sys.float_info.max:.6g}): each epsilon must be at most that divided by {len(gs)}")
    delta = math.fsum(g.delta for g in gs)
    if delta >= 1.0:
        raise ValueError(f"the composed delta is {delta} >= 1: basic composition gives no guarantee")
    return ApproxDP(eps, delta)


def advanced_composition(epsilon: float, delta: float, k: int, delta_prime: float) -> ApproxDP:
    """eps' = sqrt(2 k ln(1/delta')) eps + k eps (e^eps - 1), delta_total = k delta + delta'.

    Dwork & Roth 2014, Thm 3.20; Wang et al. 2015, Lemma 3. ``delta_prime`` in (0, 1).
    """
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    k = check_positive_int(k, "k")
    dp = check_delta(delta_prime, "delta_prime", allow_zero=False)
    try:
        eps_total = math.sqrt(2.0 * k * math.log(1.0 / dp)) * eps + k * eps * math.expm1(eps)
    except OverflowError:  # e^eps beyond the double range (eps > 709.78)
        eps_total = math.inf
    if not math.isfinite(eps_total):
        raise ValueError(f"epsilon = {eps!r} with k = {k}: the composed epsilon sqrt(2 k ln(1/delta')) eps + "
                         f"k eps (e^eps - 1) exceeds the largest float ({sys.float_info.max:.6g}); give a smaller "
                         "epsilon (e^epsilon alone overflows above 709.78) or fewer steps k")
    delta_total = k * d + dp
    if delta_total >= 1.0:
        raise ValueError(f"k*delta + delta_prime = {delta_total} >= 1: no guarantee")
    return ApproxDP(eps_total, delta_total)


class _RandomizedResponseComposition:
    """Precomputed terms of delta_RR for one (eps0, k): evaluating many eps (root finding) reuses them."""

    def __init__(self, eps0: float, k: int) -> None:
        l = np.arange(k + 1, dtype=float)
        self.expo = (k - 2.0 * l) * eps0  # log of e^{(k-l) eps0} / e^{l eps0}
        log_binom = gammaln(k + 1.0) - gammaln(l + 1.0) - gammaln(k - l + 1.0)
        log_weight = log_binom + (k - l) * eps0 - k * np.logaddexp(0.0, eps0)
        # Terms below e^-800 cannot matter: delta >= 1e-300 ~ e^-691 and there are at most e^17 terms.
        keep = log_weight > -800.0
        self.expo, self.log_weight = self.expo[keep], log_weight[keep]

    def log_delta(self, eps: float) -> float:
        # e^{(k-l)eps0} - e^{eps + l eps0} = e^{(k-l)eps0} (1 - e^{eps - (k-2l)eps0}), for live terms only
        live = self.expo > eps
        if not live.any():
            return -math.inf
        terms = self.log_weight[live] + np.log(-np.expm1(eps - self.expo[live]))
        return float(logsumexp(terms))


def _check_total(eps0: float, k: int, name: str = "epsilon") -> None:
    """k eps0, the largest privacy loss of the composition, must be a double: a ``ValueError`` naming the range."""
    if not math.isfinite(k * eps0):
        raise ValueError(f"{name} * k = {eps0!r} * {k} exceeds the largest float ({sys.float_info.max:.6g}), the most "
                         f"the composed epsilon can be: give {name} <= {sys.float_info.max / k:.6g}")


def _composed_delta(rr: _RandomizedResponseComposition, d0: float, k: int, eps: float) -> float:
    """1 - (1 - d0)^k (1 - delta_RR(eps)), in log space."""
    delta_rr = math.exp(rr.log_delta(eps))
    log_keep = k * math.log1p(-d0) + (math.log1p(-delta_rr) if delta_rr < 1.0 else -math.inf)
    return float(-math.expm1(log_keep))


def optimal_homogeneous_delta(epsilon0: float, delta0: float, k: int, epsilon: float) -> float:
    """Exact delta(eps) of the k-fold composition of (eps0, delta0)-DP (Kairouz, Oh, Viswanath 2015, Thm 3.3)."""
    eps0 = check_epsilon(epsilon0, "epsilon0")
    d0 = check_delta(delta0, "delta0")
    k = check_positive_int(k, "k")
    eps = check_real("epsilon", epsilon, low=0.0)
    _check_total(eps0, k, "epsilon0")
    return _composed_delta(_RandomizedResponseComposition(eps0, k), d0, k, eps)


def optimal_homogeneous_composition(epsilon: float, delta: float, k: int, delta_total: float) -> ApproxDP:
    """Smallest eps with optimal_homogeneous_delta(eps0, delta0, k, eps) <= delta_total (root finding).

    Kairouz, Oh, Viswanath 2015, Thm 3.3. Requires delta_total >= 1 - (1 - delta)^k (the delta that
    composition spends regardless of eps); otherwise no eps works and a ValueError says so.
    """
    eps0 = check_epsilon(epsilon)
    d0 = check_delta(delta)
    k = check_positive_int(k, "k")
    dt = check_delta(delta_total, "delta_total", allow_zero=False)
    _check_total(eps0, k)
    floor = -math.expm1(k * math.log1p(-d0))
    if dt <= floor:
        raise ValueError(
            f"delta_total must exceed 1 - (1 - delta)^k = {floor:.6g} for k={k}, delta={d0}; got {dt}"
        )
    rr = _RandomizedResponseComposition(eps0, k)
    excess = lambda e: _composed_delta(rr, d0, k, e) - dt  # noqa: E731 -- non-increasing in e
    if excess(0.0) <= 0.0:
        return ApproxDP(0.0, dt)
    return ApproxDP(float(brentq(excess, 0.0, k * eps0, xtol=1e-14, rtol=1e-12)), dt)
