"""The moments accountant as Li et al. 2019 use it (Def. 3, Thm. 1, Lemma 2, Remark 1).

Notation of Li, Chen, Liu, Carin (AISTATS 2019), after Abadi et al. 2016:

- **log-moment** (Def. 3): alpha_M(lambda) = max log E[exp(lambda c(o))], c the privacy loss.
  For the Poisson-subsampled Gaussian this is exactly ``log A_{lambda+1}`` of Mironov, Talwar,
  Zhang 2019, i.e. ``alpha(lambda) = lambda * rdp(lambda + 1)``: the log-moment is the RDP curve reparametrised.
- **composability** (Thm. 1): alpha_M(lambda) <= sum_t alpha_{M_t}(lambda).
- **tail bound** (Thm. 1): M is (epsilon, delta)-DP for delta = min_{lambda > 0} exp(alpha(lambda) - lambda epsilon);
  inverted, epsilon = min_lambda (alpha(lambda) + log(1/delta)) / lambda -- the same number as the
  Mironov 2017 Prop. 3 conversion at order lambda + 1.
- **Lemma 2** (Abadi et al. 2016, Lemma 3): if sigma >= 1, q < 1/(16 sigma) and
  0 < lambda <= sigma^2 ln(1/(q sigma)), then alpha(lambda) <= q^2 lambda (lambda + 1) / ((1 - q) sigma^2) + O(q^3).
- **Remark 1**: the approximation alpha(lambda) <= q^2 lambda (lambda + 1) / sigma^2 used in the rest of the paper.

Erratum (checked in ``tests/test_accounting.py``): the O(q^3) term of Lemma 2 is not negligible
everywhere in its range. Without it the leading term is *below* the exact log-moment near sigma = 1
and q >= 0.02 at the largest admissible lambda: sigma = 1, q = 0.05, lambda = ln 20 gives exact
alpha = 1.0836 x the leading term. For sigma >= 1.1 the leading term is an upper bound throughout
the lemma's range (checked on a grid and by property tests). Remark 1 drops the 1/(1 - q) as well.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dpverify.validation import (
    check_delta,
    check_epsilon,
    check_finite_array,
    check_probability,
    check_real,
    check_sampling_rate,
)
from dpverify.calculus.accounting.sampled_gaussian import MIN_SUBSAMPLED_ORDER, check_sigma, log_a_matrix

__all__ = [
    "LogMomentBound",
    "TailBound",
    "log_moment_sampled_gaussian",
    "li2019_log_moment_bound",
    "li2019_log_moment_approx",
    "composed_log_moments",
    "delta_from_log_moments",
    "epsilon_from_log_moments",
]

#: Methods of :func:`composed_log_moments`.
LOG_MOMENT_METHODS: tuple[str, ...] = ("exact", "li2019_lemma2", "li2019_remark1")


def _check_lams(lam, name: str = "lam") -> np.ndarray:
    arr = check_finite_array(lam, name).reshape(-1)
    if arr.size == 0 or np.any(arr <= 0):
        raise ValueError(f"{name} must be finite numbers > 0 (moment orders lambda)")
    return arr


def _check_exact_lams(lams: np.ndarray, q: float, name: str) -> None:
    """The exact log-moment of the subsampled Gaussian (q < 1) is its RDP at order lam + 1, computed for orders
    >= :data:`~dpverify.calculus.accounting.sampled_gaussian.MIN_SUBSAMPLED_ORDER` only: lam >= 0.001."""
    low = MIN_SUBSAMPLED_ORDER - 1.0
    if q < 1.0 and np.any(lams + 1.0 < MIN_SUBSAMPLED_ORDER):
        bad = float(lams[lams + 1.0 < MIN_SUBSAMPLED_ORDER][0])
        raise ValueError(f"{name} must be in [{low:.3g}, inf) for the exact log-moment of the subsampled Gaussian "
                         f"(sampling rate q = {q:g} < 1): it is the RDP at order lam + 1 >= {MIN_SUBSAMPLED_ORDER!r}, "
                         f"computed to 1e-9 there; got {bad!r}")


@dataclass(frozen=True)
class LogMomentBound:
    """Li et al. 2019, Lemma 2: the bound's leading term and its hypotheses, each by name.

    ``value`` = q^2 lam (lam + 1) / ((1 - q) sigma^2) (the lemma's O(q^3) term is not included);
    ``conditions`` maps ``"sigma_ge_1"`` (sigma >= 1), ``"q_lt_1_over_16_sigma"`` (q < 1/(16 sigma)) and
    ``"lam_le_sigma2_log_1_over_q_sigma"`` (lam <= sigma^2 ln(1/(q sigma))) to whether it holds.
    """

    q: float
    sigma: float
    lam: float
    value: float
    conditions: dict = field(default_factory=dict)

    @property
    def holds(self) -> bool:
        """True when every hypothesis of Lemma 2 holds."""
        return all(self.conditions.values())

    @property
    def failed(self) -> list[str]:
        """Names of the hypotheses that fail."""
        return [k for k, ok in self.conditions.items() if not ok]


@dataclass(frozen=True)
class TailBound:
    """An (epsilon, delta) pair from the moments-accountant tail bound and the optimal lambda."""

    epsilon: float
    delta: float
    lam: float

    @property
    def order(self) -> float:
        """The Rényi order lambda + 1 at which the minimum is attained."""
        return self.lam + 1.0


def log_moment_sampled_gaussian(q: float, sigma: float, lam) -> np.ndarray:
    """Exact log-moment alpha(lambda) = log A_{lambda+1} of one subsampled-Gaussian step.

    Li et al. 2019, Def. 3 for the mechanism of Lemma 2 (sum over a Poisson subsample of
    norm-<=1 terms plus N(0, sigma^2 I)); computed as in
    :func:`~dpverify.calculus.accounting.sampled_gaussian.rdp_sampled_gaussian`. ``lam`` > 0, scalar or array.
    """
    q = check_sampling_rate(q, "q")
    s = check_real("sigma", sigma, low=0.0, low_inclusive=False)
    lams = _check_lams(lam)
    _check_exact_lams(lams, q, "lam")
    return log_a_matrix(q, np.array([s]), lams + 1.0)[0]


def li2019_log_moment_bound(q: float, sigma: float, lam: float) -> LogMomentBound:
    """Li et al. 2019, Lemma 2 (Abadi et al. 2016, Lemma 3): q^2 lam(lam+1) / ((1-q) sigma^2).

    Returns the leading term with the three hypotheses checked by name (see :class:`LogMomentBound`);
    the value is returned even when a hypothesis fails (then it is not a guarantee). ``q`` in (0, 1).
    """
    q = check_probability(q, "q", open_low=True, open_high=True)
    sigma = check_real("sigma", sigma, low=0.0, low_inclusive=False)
    lam = check_real("lam", lam, low=0.0, low_inclusive=False)
    value = q * q * lam * (lam + 1.0) / ((1.0 - q) * sigma * sigma)
    log_arg = -math.log(q * sigma)
    conditions = {
        "sigma_ge_1": sigma >= 1.0,
        "q_lt_1_over_16_sigma": q < 1.0 / (16.0 * sigma),
        "lam_le_sigma2_log_1_over_q_sigma": lam <= sigma * sigma * log_arg,
    }
    return LogMomentBound(q, sigma, lam, value, conditions)


def li2019_log_moment_approx(q: float, sigma: float, lam) -> np.ndarray:
    """Li et al. 2019, Remark 1: alpha(lambda) ~ q^2 lambda (lambda + 1) / sigma^2 (an approximation)."""
    q = check_sampling_rate(q, "q")
    sigma = check_real("sigma", sigma, low=0.0, low_inclusive=False)
    lams = _check_lams(lam)
    return q * q * lams * (lams + 1.0) / (sigma * sigma)


def composed_log_moments(q: float, sigmas, lams, method: str = "exact") -> np.ndarray:
    """alpha_total(lambda) = sum_t alpha_t(lambda) over steps with noise sigma_t (Li et al. 2019, Thm. 1).

    ``sigmas``: one noise multiplier per step (DP-SGLD with decreasing step sizes has sigma_t growing
    like t^(1/6), Li et al. 2019, proof of Thm. 3); ``lams``: moment orders > 0. ``method``:
    ``"exact"`` (log A_{lambda+1} per step), ``"li2019_lemma2"`` (q^2 lam(lam+1)/((1-q) sigma_t^2), the
    hypotheses are not checked here) or ``"li2019_remark1"`` (q^2 lam(lam+1)/sigma_t^2). Vectorised
    over steps and orders; returns one value per lambda.
    """
    if method not in LOG_MOMENT_METHODS:
        raise ValueError(f"method must be one of {', '.join(LOG_MOMENT_METHODS)}; got {method!r}")
    q = check_sampling_rate(q, "q")
    sig = check_sigma(sigmas, "sigmas")
    lam = _check_lams(lams, "lams")
    if method == "exact":
        _check_exact_lams(lam, q, "lams")
        uniq, counts = np.unique(sig, return_counts=True)
        return counts.astype(float) @ log_a_matrix(q, uniq, lam + 1.0)
    if method == "li2019_lemma2" and q == 1.0:
        raise ValueError("q must be < 1 for Lemma 2 (it divides by 1 - q); got 1.0")
    scale = q * q * np.sum(1.0 / sig**2) / (1.0 - q if method == "li2019_lemma2" else 1.0)
    return scale * lam * (lam + 1.0)


def _check_moments(lams, log_moments) -> tuple[np.ndarray, np.ndarray]:
    lam = _check_lams(lams, "lams")
    a = np.asarray(log_moments, dtype=float).reshape(-1)
    if a.shape != lam.shape:
        raise ValueError(f"log_moments must have one value per lambda; got {a.size} for {lam.size}")
    if np.any(np.isnan(a)) or np.any(a < 0):
        raise ValueError("log_moments must be numbers >= 0 (inf allowed, NaN not)")
    return lam, a


def delta_from_log_moments(lams, log_moments, epsilon: float) -> TailBound:
    """Tail bound (Li et al. 2019, Thm. 1): delta = min_lambda exp(alpha(lambda) - lambda epsilon), capped at 1."""
    lam, a = _check_moments(lams, log_moments)
    epsilon = check_epsilon(epsilon)
    with np.errstate(over="ignore"):  # lam epsilon beyond the double range: log delta = -inf, delta 0
        log_d = a - lam * epsilon
    i = int(np.argmin(log_d))
    return TailBound(epsilon, math.exp(min(0.0, float(log_d[i]))), float(lam[i]))


def epsilon_from_log_moments(lams, log_moments, delta: float) -> TailBound:
    """Inverse tail bound: epsilon = min_lambda (alpha(lambda) + log(1/delta)) / lambda (Li et al. 2019, Thm. 1)."""
    lam, a = _check_moments(lams, log_moments)
    delta = check_delta(delta, allow_zero=False)
    with np.errstate(over="ignore"):  # a tiny lambda: epsilon inf at that lambda (it is not the minimum)
        eps = (a - math.log(delta)) / lam
    i = int(np.argmin(eps))
    return TailBound(float(eps[i]), delta, float(lam[i]))
