"""Gaussian mean with known variance, bounded data |x| <= R and parameter range |theta| <= Theta.

Likelihood p(x | theta) = N(x; theta, sigma^2); prior N(mu0, tau0^2) restricted to [-Theta, Theta].
The posterior is a normal restricted to [-Theta, Theta] with precision P = 1/tau0^2 + N/sigma^2 and
mean m = (mu0/tau0^2 + sum x_i / sigma^2) / P; tempering likelihood and prior by rho (Wang et al.
2015, Alg. 1) multiplies the precision by rho and keeps the mean.

Privacy constants (computed from sigma, R, Theta), with log p(x | theta) = -(x - theta)^2/(2 sigma^2) - c,
c = log(2 pi sigma^2)/2, and |x - theta| ranging over [0, R + Theta]:

- B = sup |log p(x | theta)| = max(|c|, (R + Theta)^2/(2 sigma^2) + c) (Wang et al. 2015, Thm 1, literally
  for log p as written; adding a constant to log p does not change the posterior, so B is not
  invariant -- we follow the theorem's statement);
- C = sup_{x, x', theta} |(x' - theta)^2 - (x - theta)^2| / (2 sigma^2)
    = ((R + Theta)^2 - max(0, Theta - R)^2) / (2 sigma^2) (Foulds et al. 2016, eq. 9);
- L = sup |d/dtheta log p| = (R + Theta)/sigma^2, and L_x = sup |d/dx log p| = (R + Theta)/sigma^2
  with R = sup |x| (Wang et al. 2015, Thm 1 second part: 4 L_x R-DP);
- the sufficient statistic sum x_i moves by at most 2R under replace-one: L1 sensitivity 2R.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from dpverify.validation import check_real
from dpverify.models.base import CanaryRecords, Model, PrivacyConstants

__all__ = ["TruncatedNormal", "GaussianMean"]

_REJECTION_MIN_MASS = 0.3


def _log_gauss_mass(a: float, b: float) -> float:
    """log(Phi(b) - Phi(a)) for a < b, from the tail that avoids cancellation (log_ndtr)."""
    if b <= 0:
        hi, lo = special.log_ndtr(b), special.log_ndtr(a)
    elif a >= 0:
        hi, lo = special.log_ndtr(-a), special.log_ndtr(-b)
    else:
        return float(math.log1p(-special.ndtr(a) - special.ndtr(-b)))
    return float(hi + math.log1p(-math.exp(lo - hi)))


class TruncatedNormal:
    """N(mean, sd^2) restricted to [lo, hi]."""

    def __init__(self, mean: float, sd: float, lo: float, hi: float) -> None:
        self.mean = check_real("mean", mean)
        self.sd = check_real("sd", sd, low=0.0, low_inclusive=False)
        self.lo = check_real("lo", lo)
        self.hi = check_real("hi", hi, low=self.lo, low_inclusive=False)
        self._a, self._b = (self.lo - self.mean) / self.sd, (self.hi - self.mean) / self.sd
        self.log_mass = _log_gauss_mass(self._a, self._b)
        self.log_normaliser = math.log(self.sd) + 0.5 * math.log(2 * math.pi) + self.log_mass

    def logpdf(self, x) -> np.ndarray:
        """-(x - mean)^2/(2 sd^2) - log(sd sqrt(2 pi)) - log mass on [lo, hi]; -inf outside."""
        x = np.asarray(x, dtype=float)
        val = -0.5 * ((x - self.mean) / self.sd) ** 2 - self.log_normaliser
        return np.where((x >= self.lo) & (x <= self.hi), val, -np.inf)

    def interval_probability(self, s, t) -> np.ndarray:
        """P(s <= X <= t) under the truncated law (log-space Gaussian masses)."""
        s = (np.clip(np.asarray(s, dtype=float), self.lo, self.hi) - self.mean) / self.sd
        t = (np.clip(np.asarray(t, dtype=float), self.lo, self.hi) - self.mean) / self.sd
        f = np.vectorize(lambda u, v: math.exp(_log_gauss_mass(u, v) - self.log_mass) if v > u else 0.0)
        return f(s, t)

    def rvs(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Exact draws: rejection from the untruncated normal when the interval mass exceeds 0.3,
        otherwise the inverse CDF of scipy's truncnorm (log-space tails). Never by clipping."""
        if self.log_mass > math.log(_REJECTION_MIN_MASS):
            out = np.empty(size)
            filled = 0
            while filled < size:
                draw = rng.normal(self.mean, self.sd, int((size - filled) / _REJECTION_MIN_MASS) + 16)
                draw = draw[(draw >= self.lo) & (draw <= self.hi)][: size - filled]
                out[filled : filled + draw.size] = draw
                filled += draw.size
            return out
        u = rng.uniform(size=size)
        return stats.truncnorm.ppf(u, self._a, self._b, loc=self.mean, scale=self.sd)


class GaussianMean(Model):
    """Known-variance Gaussian mean; see the module docstring. theta has shape (..., 1)."""

    dim = 1

    def __init__(self, sigma: float = 1.0, R: float = 1.0, Theta: float = 2.0, mu0: float = 0.0,
                 tau0: float = 1.0) -> None:
        self.sigma = check_real("sigma", sigma, low=0.0, low_inclusive=False)
        self.R = check_real("R", R, low=0.0, low_inclusive=False)
        self.Theta = check_real("Theta", Theta, low=0.0, low_inclusive=False)
        self.mu0 = check_real("mu0", mu0)
        self.tau0 = check_real("tau0", tau0, low=0.0, low_inclusive=False)

    @property
    def constants(self) -> PrivacyConstants:
        s2, R, Th = self.sigma**2, self.R, self.Theta
        c = 0.5 * math.log(2 * math.pi * s2)
        lipschitz = (R + Th) / s2
        return PrivacyConstants(
            B=max(abs(c), (R + Th) ** 2 / (2 * s2) + c),
            L=lipschitz,
            L_x=lipschitz,
            R=R,
            C=((R + Th) ** 2 - max(0.0, Th - R) ** 2) / (2 * s2),
            sufficient_statistic_sensitivity=2 * R,
            extra={"Theta": Th, "sigma": self.sigma},
        )

    def gradient_difference_bound(self) -> float:
        """``|(x - x')/sigma^2| <= 2R/sigma^2`` (tighter than 2L = 2(R + Theta)/sigma^2)."""
        return 2 * self.R / self.sigma**2

    def canary_records(self, direction: int = 0) -> CanaryRecords:
        """Canary ``+R``, counterpart ``-R``: gradient difference ``2R/sigma^2`` at every theta; no null record."""
        if direction != 0:
            raise ValueError(f"direction must be 0 (one-dimensional parameter); got {direction!r}")
        return CanaryRecords(self.R, -self.R)

    def validate_dataset(self, X) -> np.ndarray:
        """A non-empty 1-d array of finite reals with |x| <= R."""
        arr = np.asarray(X)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"dataset must be a non-empty 1-d array of reals; got shape {arr.shape}")
        try:
            num = arr.astype(float)
        except (TypeError, ValueError):
            raise ValueError("dataset must contain real numbers") from None
        bad = ~(np.isfinite(num) & (np.abs(num) <= self.R))
        if bad.any():
            raise ValueError(f"dataset values must be finite with |x| <= R = {self.R}; got {arr[bad][0]!r}")
        return num

    def sufficient_statistics(self, X) -> np.ndarray:
        """(sum x_i, N)."""
        x = self.validate_dataset(X)
        return np.array([x.sum(), x.size], dtype=float)

    def log_likelihood(self, X, theta) -> np.ndarray:
        x = self.validate_dataset(X)
        th = self.scalar_parameter(theta)[..., None]
        return -0.5 * ((x - th) / self.sigma) ** 2 - 0.5 * math.log(2 * math.pi * self.sigma**2)

    def grad_log_likelihood(self, X, theta) -> np.ndarray:
        x = self.validate_dataset(X)
        th = self.scalar_parameter(theta)[..., None]
        return ((x - th) / self.sigma**2)[..., None]

    def log_prior(self, theta) -> np.ndarray:
        """Normalised log density of N(mu0, tau0^2) truncated to [-Theta, Theta]."""
        return TruncatedNormal(self.mu0, self.tau0, -self.Theta, self.Theta).logpdf(self.scalar_parameter(theta))

    def grad_log_prior(self, theta) -> np.ndarray:
        return (-(self.scalar_parameter(theta) - self.mu0) / self.tau0**2)[..., None]

    def posterior_from_statistics(self, statistics, rho: float = 1.0) -> TruncatedNormal:
        """Truncated normal with precision rho (1/tau0^2 + N/sigma^2) and mean
        (mu0/tau0^2 + sum x / sigma^2) / (1/tau0^2 + N/sigma^2)."""
        total, n = float(statistics[0]), float(statistics[1])
        precision = 1.0 / self.tau0**2 + n / self.sigma**2
        mean = (self.mu0 / self.tau0**2 + total / self.sigma**2) / precision
        return TruncatedNormal(mean, 1.0 / math.sqrt(rho * precision), -self.Theta, self.Theta)

    def posterior(self, X, rho: float = 1.0) -> TruncatedNormal:
        return self.posterior_from_statistics(self.sufficient_statistics(X), rho)
