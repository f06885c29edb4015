"""The exponential mechanism.

Selecting outcome r with probability proportional to exp(eps * u(D, r) / (2 Delta_u)), where
Delta_u = max over adjacent D, D' and r of |u(D, r) - u(D', r)|, is eps-DP (McSherry & Talwar 2007,
Thm 6; Foulds et al. 2016, eqs. 4-5). Posterior sampling is the exponential mechanism with utility
log p(D | theta) (Foulds et al. 2016, eqs. 6-9), which the theorem catalogue encodes.

For a given pair of utility vectors the exact privacy of the selection is that of two discrete laws
p, p': delta(eps) = sum_r max(0, p_r - e^eps p'_r) (:func:`discrete_delta`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import log_softmax, logsumexp

from dpverify.validation import check_epsilon, check_finite_array, check_positive_int, check_real
from dpverify.calculus.guarantees import PureDP

__all__ = [
    "exponential_log_probabilities",
    "exponential_probabilities",
    "discrete_delta",
    "discrete_epsilon",
    "ExponentialMechanism",
]


def exponential_log_probabilities(utilities, epsilon: float, utility_sensitivity: float) -> np.ndarray:
    """log P[r] = eps u_r / (2 Delta_u) - logsumexp_r(...), along the last axis."""
    u = check_finite_array(utilities, "utilities")
    if u.ndim == 0 or u.shape[-1] == 0:
        raise ValueError("utilities must have at least one outcome on the last axis")
    eps = check_epsilon(epsilon)
    du = check_real("utility_sensitivity", utility_sensitivity, low=0.0, low_inclusive=False)
    return log_softmax(eps * u / (2.0 * du), axis=-1)


def exponential_probabilities(utilities, epsilon: float, utility_sensitivity: float) -> np.ndarray:
    """P[r] proportional to exp(eps u_r / (2 Delta_u)) (McSherry & Talwar 2007; Foulds et al. 2016, eq. 4)."""
    return np.exp(exponential_log_probabilities(utilities, epsilon, utility_sensitivity))


def discrete_delta(log_p, log_q, epsilon: float) -> float:
    """Hockey-stick divergence sum_r max(0, p_r - e^eps q_r) of two discrete laws given as log-pmfs."""
    lp = np.asarray(log_p, dtype=float)
    lq = np.asarray(log_q, dtype=float)
    if lp.shape != lq.shape:
        raise ValueError(f"log_p and log_q must have the same shape; got {lp.shape} and {lq.shape}")
    eps = check_real("epsilon", epsilon, low=0.0)
    # outcomes impossible under p contribute nothing (and -inf - -inf would be NaN)
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isneginf(lp), -np.inf, lp - (eps + lq))
    mask = gap > 0
    if not mask.any():
        return 0.0
    # p - e^eps q = p (1 - exp(-gap)), summed in log space
    terms = lp[mask] + np.log(-np.expm1(-gap[mask]))
    return float(np.exp(logsumexp(terms)))


def discrete_epsilon(log_p, log_q, delta: float = 0.0) -> float:
    """Exact epsilon of a pair of discrete laws in both directions at ``delta``.

    delta = 0: max_r |log p_r - log q_r| over the common support (inf if the supports differ).
    delta > 0: the smallest eps with discrete_delta <= delta in both directions (bisection).
    """
    lp = np.asarray(log_p, dtype=float)
    lq = np.asarray(log_q, dtype=float)
    d = check_real("delta", delta, low=0.0, high=1.0, high_inclusive=False)
    if d == 0.0:
        if np.any(np.isneginf(lp) != np.isneginf(lq)):
            return math.inf
        both = ~np.isneginf(lp)
        return float(np.max(np.abs(lp[both] - lq[both])))
    worst = lambda e: max(discrete_delta(lp, lq, e), discrete_delta(lq, lp, e))  # noqa: E731
    if worst(0.0) <= d:
        return 0.0
    hi = 1.0
    while worst(hi) > d:
        hi *= 2.0
        if hi > 1e4:
            return math.inf
    lo = 0.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if worst(mid) > d else (lo, mid)
    return hi


@dataclass(frozen=True)
class ExponentialMechanism:
    """Selection among ``k`` outcomes with utilities ``u`` (last axis); eps-DP."""

    epsilon: float
    utility_sensitivity: float

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        check_real("utility_sensitivity", self.utility_sensitivity, low=0.0, low_inclusive=False)

    @property
    def guarantee(self) -> PureDP:
        return PureDP(self.epsilon)

    def log_probabilities(self, utilities) -> np.ndarray:
        return exponential_log_probabilities(utilities, self.epsilon, self.utility_sensitivity)

    def sample(self, utilities, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` selected indices (Gumbel-max trick, vectorised)."""
        n = check_positive_int(n, "n")
        logp = self.log_probabilities(utilities)
        if logp.ndim != 1:
            raise ValueError(f"utilities must be 1-d (one utility per outcome); got shape {logp.shape}")
        return np.argmax(logp + rng.gumbel(size=(n, logp.size)), axis=1)

    def log_density(self, utilities, outputs) -> np.ndarray:
        logp = self.log_probabilities(utilities)
        return logp[np.asarray(outputs, dtype=int)]
