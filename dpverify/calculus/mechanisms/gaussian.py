"""The Gaussian mechanism: classic and analytic calibration, exact privacy profile.

M(D) = f(D) + N(0, sigma^2 I). With L2 sensitivity Delta and mu = Delta / sigma, the privacy
profile of the worst pair is exactly (Balle & Wang 2018, "Improving the Gaussian mechanism",
Thm 8):

    delta(eps) = Phi(mu/2 - eps/mu) - exp(eps) * Phi(-mu/2 - eps/mu).

- Classic calibration sigma = Delta sqrt(2 ln(1.25/delta)) / eps gives (eps, delta)-DP for
  eps in (0, 1) (Dwork & Roth 2014, Thm A.1; Wang et al. 2015, Thm 2). Outside (0, 1) the
  proof does not apply, so :func:`classic_gaussian_sigma` refuses it.
- The analytic Gaussian mechanism (Balle & Wang 2018, Alg. 1) uses the smallest sigma with
  delta(eps) <= delta, found here by root finding on mu in log space.

Everything is computed with ``scipy.special.log_ndtr`` so that delta down to 1e-300 and eps up
to a few hundred neither underflow nor lose precision.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import mpmath as mp
import numpy as np
from scipy.optimize import brentq
from scipy.special import log_ndtr

from dpverify.validation import check_delta, check_epsilon, check_finite_array, check_positive_int, check_real
from dpverify.calculus.guarantees import ApproxDP, PrivacyProfile

__all__ = [
    "classic_gaussian_sigma",
    "gaussian_delta",
    "log_gaussian_delta",
    "gaussian_epsilon",
    "analytic_gaussian_sigma",
    "GaussianMechanism",
]


def classic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """sigma = Delta sqrt(2 ln(1.25/delta)) / eps, valid for eps in (0, 1) and delta in (0, 1).

    Dwork & Roth 2014, Thm A.1; Wang et al. 2015, Thm 2.
    """
    s = check_real("sensitivity", sensitivity, low=0.0, low_inclusive=False)
    eps = check_real("epsilon", epsilon, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    d = check_delta(delta, allow_zero=False)
    per_unit = math.sqrt(2.0 * math.log(1.25 / d)) / eps
    return _finite_sigma(s * math.sqrt(2.0 * math.log(1.25 / d)) / eps, s, per_unit)


def log_gaussian_delta(epsilon: float, mu: float) -> float:
    """log of :func:`gaussian_delta` (``-inf`` when delta is 0), computed in log space."""
    if mu == 0.0:
        return -math.inf
    log_a = float(log_ndtr(mu / 2.0 - epsilon / mu))
    if log_a == -math.inf:
        return -math.inf  # delta = A - B <= A underflows to 0 (a huge epsilon: e.g. 1e308 at mu = 1)
    log_b = epsilon + float(log_ndtr(-mu / 2.0 - epsilon / mu))
    if log_a - log_b < 1e-4:
        # A and B nearly cancel (tiny eps with large sigma): float64 loses the difference, so redo it
        # with mpmath at 60 digits.
        with mp.workdps(60):
            e, m = mp.mpf(epsilon), mp.mpf(mu)
            diff = mp.ncdf(m / 2 - e / m) - mp.exp(e) * mp.ncdf(-m / 2 - e / m)
            return float(mp.log(diff)) if diff > 0 else -math.inf
    return log_a + math.log(-math.expm1(log_b - log_a))


def gaussian_delta(epsilon: float, mu: float) -> float:
    """Exact hockey-stick divergence of N(0, 1) vs N(mu, 1) at epsilon (Balle & Wang 2018, Thm 8).

    ``epsilon`` >= 0, ``mu`` = Delta / sigma >= 0.
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    m = check_real("mu", mu, low=0.0)
    return math.exp(log_gaussian_delta(eps, m))


def gaussian_epsilon(delta: float, mu: float) -> float:
    """Smallest epsilon >= 0 with gaussian_delta(epsilon, mu) <= delta (delta in (0, 1)).

    ``inf`` when that epsilon exceeds the largest double (it is about ``mu^2 / 2``: mu above about 1.9e154), as an
    overflowing float does: e.g. 1e308-GDP promises no epsilon a double can hold."""
    d = check_delta(delta, allow_zero=False)
    m = check_real("mu", mu, low=0.0)
    log_d = math.log(d)
    f = lambda e: log_gaussian_delta(e, m) - log_d  # noqa: E731 -- decreasing in e
    if m == 0.0 or f(0.0) <= 0.0:
        return 0.0
    top = sys.float_info.max
    with np.errstate(over="ignore"):
        hi = float(min(top, max(1.0, m * m / 2.0 + m * math.sqrt(2.0 * -log_d) + 1.0)))
    while f(hi) > 0.0:
        if hi >= top:
            return math.inf  # delta(largest double) is still above d: the epsilon overflows a double
        hi = min(top, 2.0 * hi)
    return float(brentq(f, 0.0, hi, xtol=1e-14, rtol=1e-13))


def analytic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest sigma with gaussian_delta(eps, Delta/sigma) <= delta (Balle & Wang 2018, Thm 8 / Alg. 1).

    Any eps > 0 is allowed (the analytic mechanism has no eps < 1 restriction).
    """
    s = check_real("sensitivity", sensitivity, low=0.0, low_inclusive=False)
    eps = check_epsilon(epsilon)
    d = check_delta(delta, allow_zero=False)
    log_d = math.log(d)
    g = lambda m: log_gaussian_delta(eps, m) - log_d  # noqa: E731 -- increasing in mu
    hi = 1.0
    while g(hi) < 0.0:
        hi *= 2.0
    lo = hi / 2.0
    while g(lo) > 0.0:
        lo /= 2.0
        if lo < 1e-300:
            raise ValueError("analytic_gaussian_sigma: no noise level found (delta too small for float64)")
    mu = brentq(g, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    # brentq returns a point within tolerance; step down until the guarantee holds exactly.
    while g(mu) > 0.0:
        mu = np.nextafter(mu, 0.0)
    return _finite_sigma(s / mu, s, 1.0 / mu)


def _finite_sigma(sigma: float, sensitivity: float, per_unit: float) -> float:
    """A calibrated ``sigma`` (``sensitivity`` times ``per_unit``, the sigma of sensitivity 1), which must be a double:
    a huge sensitivity can push it beyond, a ``ValueError`` naming the sensitivity and its range."""
    if not math.isfinite(sigma):
        raise ValueError(f"sensitivity must be at most {sys.float_info.max / per_unit:.6g} at this epsilon and delta "
                         f"(the calibrated sigma = sensitivity x {per_unit:.6g} must be a double); got {sensitivity!r}")
    return float(sigma)


@dataclass(frozen=True)
class GaussianMechanism:
    """f(D) + N(0, sigma^2 I) with L2 sensitivity ``sensitivity``.

    Build it from a noise level directly, or with :meth:`classic` / :meth:`analytic`.
    """

    sensitivity: float
    sigma: float

    def __post_init__(self) -> None:
        s = check_real("sensitivity", self.sensitivity, low=0.0, low_inclusive=False)
        sigma = check_real("sigma", self.sigma, low=0.0, low_inclusive=False)
        if not math.isfinite(s / sigma):  # mu = sensitivity / sigma must be a double
            raise ValueError(f"sigma must be at least sensitivity / {sys.float_info.max:.6g} = "
                             f"{s / sys.float_info.max:.6g} (mu = sensitivity / sigma must be finite); got sigma = "
                             f"{sigma!r} with sensitivity = {s!r}")

    @classmethod
    def classic(cls, sensitivity: float, epsilon: float, delta: float) -> "GaussianMechanism":
        return cls(sensitivity, classic_gaussian_sigma(sensitivity, epsilon, delta))

    @classmethod
    def analytic(cls, sensitivity: float, epsilon: float, delta: float) -> "GaussianMechanism":
        return cls(sensitivity, analytic_gaussian_sigma(sensitivity, epsilon, delta))

    @property
    def mu(self) -> float:
        return self.sensitivity / self.sigma

    def delta(self, epsilon: float) -> float:
        """Exact delta(eps) of the worst pair."""
        return gaussian_delta(epsilon, self.mu)

    def epsilon(self, delta: float) -> float:
        """Exact epsilon at ``delta`` for the worst pair."""
        return gaussian_epsilon(delta, self.mu)

    def guarantee(self, delta: float) -> ApproxDP:
        return ApproxDP(self.epsilon(delta), delta)

    def profile(self) -> PrivacyProfile:
        mu = self.mu
        return PrivacyProfile(lambda e: gaussian_delta(e, mu), f"Gaussian, mu = {mu:g}")

    def sample(self, value, n: int, rng: np.random.Generator) -> np.ndarray:
        v = check_finite_array(value, "value")
        n = check_positive_int(n, "n")
        return v + rng.normal(0.0, self.sigma, size=(n,) + v.shape)

    def log_density(self, value, outputs) -> np.ndarray:
        v = check_finite_array(value, "value")
        out = np.asarray(outputs, dtype=float)
        z = (out - v) / self.sigma
        ld = -0.5 * z * z - math.log(self.sigma) - 0.5 * math.log(2.0 * math.pi)
        return ld.reshape(out.shape[0], -1).sum(axis=1)
