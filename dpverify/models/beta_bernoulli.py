"""Beta-Bernoulli model with the success probability truncated to [a0, 1 - a0].

Likelihood p(x | p) = p^x (1 - p)^(1 - x), x in {0, 1}; prior Beta(alpha0, beta0) restricted to
[a0, 1 - a0] (Foulds et al. 2016, section 3.1 and eq. 15). With n1 = sum x_i and n0 = N - n1 the
posterior is Beta(alpha0 + n1, beta0 + n0) truncated to [a0, 1 - a0]; tempering likelihood and prior
by rho (Wang et al. 2015, Alg. 1) gives Beta(rho (alpha0 + n1 - 1) + 1, rho (beta0 + n0 - 1) + 1),
truncated likewise.

Privacy constants (computed from a0, never typed in):

- B = sup_{x, p} |log p(x | p)| = -log a0 (the infimum of p and 1 - p is a0; Wang et al. 2015, Thm 1);
- C = sup_{x, x', p} |log p(x' | p) - log p(x | p)| = sup_p |log p - log(1 - p)| = log((1 - a0) / a0)
  (Foulds et al. 2016, eq. 15);
- L = sup |d/dp log p(x | p)| = max(1/p, 1/(1 - p)) over the support = 1/a0;
- sufficient statistics S(x) = (x, 1 - x); replacing one record moves (n1, n0) by (+-1, -+1):
  L1 sensitivity 2 (Foulds et al. 2016, eq. 17 and the sentence after it).

:class:`TruncatedBeta` samples the truncated posterior exactly: rejection from the untruncated beta
when the interval holds most of the mass, inverse CDF (``betaincinv``) on the tail that keeps the
interval mass accurate otherwise, and -- when even that underflows -- rejection from the tangent
exponential envelope of the log-concave density at the heavy end. Never by clipping.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from scipy import special

from dpverify.validation import check_real
from dpverify.models.base import Model, PrivacyConstants

__all__ = ["TruncatedBeta", "sample_truncated_beta", "log_beta_interval_mass", "truncated_beta_mean", "BetaBernoulli"]

#: below this interval mass, rejection from the untruncated beta is replaced by the inverse CDF
_REJECTION_MIN_MASS = 0.3
#: below this (oriented) CDF value double precision inverse-CDF sampling is abandoned for the tangent envelope
_UNDERFLOW = 1e-280


class TruncatedBeta:
    """Beta(a, b) restricted to [lo, hi], 0 < lo < hi < 1, with a, b > 0.

    ``log_mass`` is log P_{Beta(a,b)}(lo <= X <= hi) (:func:`log_beta_interval_mass`: no cancellation,
    mpmath where double precision underflows).
    """

    def __init__(self, a: float, b: float, lo: float, hi: float) -> None:
        self.a = check_real("a", a, low=0.0, low_inclusive=False)
        self.b = check_real("b", b, low=0.0, low_inclusive=False)
        self.lo = check_real("lo", lo, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
        self.hi = check_real("hi", hi, low=self.lo, high=1.0, low_inclusive=False, high_inclusive=False)
        self.log_mass = float(log_beta_interval_mass(self.a, self.b, self.lo, self.hi))
        self.log_normaliser = float(special.betaln(self.a, self.b)) + self.log_mass

    # -- densities ----------------------------------------------------------
    def logpdf(self, x) -> np.ndarray:
        """(a - 1) log x + (b - 1) log(1 - x) - log B(a, b) - log_mass on [lo, hi]; -inf outside."""
        x = np.asarray(x, dtype=float)
        inside = (x >= self.lo) & (x <= self.hi)
        xs = np.where(inside, x, 0.5)
        val = (self.a - 1.0) * np.log(xs) + (self.b - 1.0) * np.log1p(-xs) - self.log_normaliser
        return np.where(inside, val, -np.inf)

    def interval_probability(self, s, t) -> np.ndarray:
        """P(s <= X <= t) under the truncated law, for lo <= s <= t <= hi (see :func:`log_beta_interval_mass`)."""
        s = np.clip(np.asarray(s, dtype=float), self.lo, self.hi)
        t = np.clip(np.asarray(t, dtype=float), self.lo, self.hi)
        return np.exp(log_beta_interval_mass(self.a, self.b, s, t) - self.log_mass)

    def mean(self) -> float:
        """E[X] (see :func:`truncated_beta_mean`)."""
        return float(truncated_beta_mean(self.a, self.b, self.lo, self.hi))

    # -- sampling -----------------------------------------------------------
    def rvs(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` exact draws (see :func:`sample_truncated_beta`)."""
        return sample_truncated_beta(np.full(size, self.a), np.full(size, self.b), self.lo, self.hi, rng)


def _orient(a, b, s, t):
    """Work with X ~ Beta(a, b) or with 1 - X ~ Beta(b, a), whichever puts the interval [s, t] in the
    lower tail when it lies in a tail at all (flip when the mean is left of the interval's midpoint), so
    that F(t) - F(s) of the oriented law has no cancellation. Returns (flip, a', b', s', t')."""
    flip = a / (a + b) < 0.5 * (s + t)
    return flip, np.where(flip, b, a), np.where(flip, a, b), np.where(flip, 1.0 - t, s), np.where(flip, 1.0 - s, t)


def sample_truncated_beta(a, b, lo: float, hi: float, rng: np.random.Generator) -> np.ndarray:
    """One exact draw of Beta(a_i, b_i) restricted to [lo, hi] for each entry of the arrays a, b.

    Per entry, the interval mass m_i decides the method: m_i > 0.3: rejection from the untruncated
    beta (expected < 3.4 rounds); otherwise the inverse CDF on the oriented law (X or 1 - X, whichever
    puts the interval in its lower tail, so F(hi) - F(lo) has no cancellation); if F(hi) underflows
    double precision, rejection from the tangent exponential envelope at the heavy end
    (:func:`_tangent_rejection`). All three are exact; nothing is clipped into the interval.
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    a, b = a.reshape(-1), b.reshape(-1)
    flip, oa, ob, olo, ohi = _orient(a, b, lo, hi)
    single = bool(np.all(a == a[0]) and np.all(b == b[0]))  # one law for every entry
    if single:  # its CDF values once
        cdf_lo = np.full(a.size, special.betainc(oa[0], ob[0], olo[0]))
        cdf_hi = np.full(a.size, special.betainc(oa[0], ob[0], ohi[0]))
    else:
        cdf_lo, cdf_hi = special.betainc(oa, ob, olo), special.betainc(oa, ob, ohi)
    mass = cdf_hi - cdf_lo
    out = np.empty(a.size)
    rej = mass > _REJECTION_MIN_MASS
    pending = np.flatnonzero(rej)
    while pending.size:  # rounds of vectorised rejection; each entry accepts w.p. > 0.3
        draw = rng.beta(a[0], b[0], pending.size) if single else rng.beta(a[pending], b[pending])
        ok = (draw >= lo) & (draw <= hi)
        out[pending[ok]] = draw[ok]
        pending = pending[~ok]
    inv = ~rej & (cdf_hi > _UNDERFLOW)
    if inv.any():
        u = rng.uniform(cdf_lo[inv], cdf_hi[inv])
        # the clip only absorbs the last-ulp error of betaincinv at the interval ends
        y = np.clip(special.betaincinv(oa[inv], ob[inv], u), olo[inv], ohi[inv])
        out[inv] = np.where(flip[inv], 1.0 - y, y)
    tan = ~rej & ~inv
    if tan.any():
        y = _tangent_rejection(oa[tan], ob[tan], olo[tan], ohi[tan], rng)
        out[tan] = np.where(flip[tan], 1.0 - y, y)
    return out


def _tangent_rejection(oa, ob, olo, ohi, rng: np.random.Generator) -> np.ndarray:
    """Oriented law with (almost) all its interval mass at ``ohi``. Write its log density as
    l(y) = (a-1) log y + (b-1) log(1-y). For a >= 1 the first term is concave, so it lies below its tangent
    at ohi; the second is concave for b >= 1 (below its tangent) and increasing for b < 1 (below its
    value at ohi). Hence l(y) <= l(ohi) + s (y - ohi) with s = (a-1)/ohi - max(b-1, 0)/(1-ohi) > 0:
    draw from that truncated exponential and accept with probability exp(l(y) - envelope(y))
    (von Neumann rejection; exact)."""
    slope = (oa - 1.0) / ohi - np.maximum(ob - 1.0, 0.0) / (1.0 - ohi)
    if np.any(oa < 1.0) or np.any(slope <= 0.0):
        raise ValueError("truncated beta: the interval mass underflows but the density does not increase "
                         "towards the interval end; cannot sample exactly")
    width = ohi - olo
    out = np.empty(oa.size)
    pending = np.arange(oa.size)
    while pending.size:
        s, w, h = slope[pending], width[pending], ohi[pending]
        u = rng.uniform(size=pending.size)
        y = h + np.log1p(u * np.expm1(-s * w)) / s  # inverse CDF of exp(s (y - h)) on [h - w, h]
        log_accept = (oa[pending] - 1.0) * (np.log(y) - np.log(h)) \
            + (ob[pending] - 1.0) * (np.log1p(-y) - np.log1p(-h)) - s * (y - h)
        ok = np.log(rng.uniform(size=pending.size)) <= log_accept
        out[pending[ok]] = y[ok]
        pending = pending[~ok]
    return out


def log_beta_interval_mass(a, b, s, t) -> np.ndarray:
    """log P(s <= X <= t) for X ~ Beta(a, b), elementwise over broadcast arrays, without cancellation
    (:func:`_orient`); mpmath (60 digits) where double precision still underflows or cancels."""
    a, b, s, t = (np.asarray(v, dtype=float) for v in np.broadcast_arrays(a, b, s, t))
    _, oa, ob, olo, ohi = _orient(a, b, s, t)
    upper = special.betainc(oa, ob, ohi)
    mass = upper - special.betainc(oa, ob, olo)
    bad = np.atleast_1d(((upper < _UNDERFLOW) | (mass < 1e-12 * upper)) & (ohi > olo))
    with np.errstate(divide="ignore"):
        logm = np.array(np.log(mass), dtype=float, ndmin=1)
    if bad.any():  # rare: the interval mass underflows or cancels in float64
        flat = [np.broadcast_to(v, bad.shape) for v in (oa, ob, olo, ohi)]
        with mpmath.workdps(60):
            for i in np.flatnonzero(bad):  # a loop over the few underflowing entries only
                m = mpmath.betainc(flat[0].flat[i], flat[1].flat[i], flat[2].flat[i], flat[3].flat[i], regularized=True)
                logm.flat[i] = float(mpmath.log(m))
    return logm.reshape(np.shape(upper))


def truncated_beta_mean(a, b, lo: float, hi: float) -> np.ndarray:
    """E[X] for X ~ Beta(a, b) restricted to [lo, hi]: (a/(a+b)) P_{a+1,b}([lo,hi]) / P_{a,b}([lo,hi]),
    elementwise (the identity x Beta(x; a, b) = (a/(a+b)) Beta(x; a+1, b))."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a / (a + b) * np.exp(log_beta_interval_mass(a + 1.0, b, lo, hi) - log_beta_interval_mass(a, b, lo, hi))


class BetaBernoulli(Model):
    """Bernoulli likelihood, Beta(alpha0, beta0) prior truncated to [a0, 1 - a0] (Foulds et al. 2016, eq. 15).

    theta has shape (..., 1) and holds p. Datasets are 1-d arrays of 0/1 (bool or integer).
    """

    dim = 1

    def __init__(self, a0: float = 0.05, alpha0: float = 1.0, beta0: float = 1.0) -> None:
        self.a0 = check_real("a0", a0, low=0.0, high=0.5, low_inclusive=False, high_inclusive=False)
        self.alpha0 = check_real("alpha0", alpha0, low=0.0, low_inclusive=False)
        self.beta0 = check_real("beta0", beta0, low=0.0, low_inclusive=False)

    @property
    def support(self) -> tuple[float, float]:
        return self.a0, 1.0 - self.a0

    @property
    def constants(self) -> PrivacyConstants:
        a0 = self.a0
        return PrivacyConstants(
            B=-math.log(a0),
            L=1.0 / a0,
            C=math.log1p(-a0) - math.log(a0),
            sufficient_statistic_sensitivity=2.0,
            extra={"a0": a0},
        )

    # -- data -----------------------------------------------------------------
    def validate_dataset(self, X) -> np.ndarray:
        """A 1-d array of 0/1 values (at least one record); anything else is a ValueError."""
        arr = np.asarray(X)
        if arr.ndim != 1 or arr.size == 0:
            raise ValueError(f"dataset must be a non-empty 1-d array of 0/1 values; got shape {arr.shape}")
        if arr.dtype == bool:
            return arr.astype(np.int64)
        try:
            num = arr.astype(float)
        except (TypeError, ValueError):
            raise ValueError("dataset must contain only 0/1 values") from None
        bad = ~((num == 0.0) | (num == 1.0))
        if bad.any():
            raise ValueError(f"dataset values must be 0 or 1 (Bernoulli records); got {arr[bad][0]!r}")
        return num.astype(np.int64)

    def sufficient_statistics(self, X) -> np.ndarray:
        """(n1, n0) = (sum x_i, sum (1 - x_i)) (Foulds et al. 2016, section 3.1)."""
        x = self.validate_dataset(X)
        n1 = int(x.sum())
        return np.array([n1, x.size - n1], dtype=float)

    # -- likelihood and prior ---------------------------------------------------
    def log_likelihood(self, X, theta) -> np.ndarray:
        """x log p + (1 - x) log(1 - p), shape theta.shape[:-1] + (N,)."""
        x = self.validate_dataset(X)
        p = self.scalar_parameter(theta)[..., None]
        return x * np.log(p) + (1 - x) * np.log1p(-p)

    def grad_log_likelihood(self, X, theta) -> np.ndarray:
        """x / p - (1 - x) / (1 - p), shape theta.shape[:-1] + (N, 1)."""
        x = self.validate_dataset(X)
        p = self.scalar_parameter(theta)[..., None]
        return (x / p - (1 - x) / (1.0 - p))[..., None]

    def log_prior(self, theta) -> np.ndarray:
        """Normalised log density of the truncated Beta(alpha0, beta0) prior (-inf outside [a0, 1 - a0])."""
        return self.posterior_from_statistics(np.zeros(2)).logpdf(self.scalar_parameter(theta))

    def grad_log_prior(self, theta) -> np.ndarray:
        p = self.scalar_parameter(theta)
        return ((self.alpha0 - 1.0) / p - (self.beta0 - 1.0) / (1.0 - p))[..., None]

    # -- exact posterior ----------------------------------------------------------
    def posterior_parameters(self, statistics, rho: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
        """Beta parameters of the (rho-tempered) posterior for sufficient statistics (..., 2):
        a = rho (alpha0 + n1 - 1) + 1, b = rho (beta0 + n0 - 1) + 1 (Wang et al. 2015, Alg. 1 step 2)."""
        s = np.asarray(statistics, dtype=float)
        return rho * (self.alpha0 + s[..., 0] - 1.0) + 1.0, rho * (self.beta0 + s[..., 1] - 1.0) + 1.0

    def posterior_from_statistics(self, statistics, rho: float = 1.0) -> TruncatedBeta:
        a, b = self.posterior_parameters(statistics, rho)
        return TruncatedBeta(float(a), float(b), self.a0, 1.0 - self.a0)

    def posterior(self, X, rho: float = 1.0) -> TruncatedBeta:
        """The exact (tempered) posterior of dataset X as a :class:`TruncatedBeta`."""
        return self.posterior_from_statistics(self.sufficient_statistics(X), rho)

    def sample_posterior_batch(self, statistics, rng: np.random.Generator, rho: float = 1.0) -> np.ndarray:
        """One exact (tempered) posterior draw per row of ``statistics`` (m, 2) -> (m, 1): vectorised
        over datasets, for studies over many datasets (ARE, Foulds et al. 2016, Figure 2)."""
        a, b = self.posterior_parameters(np.asarray(statistics, dtype=float).reshape(-1, 2), rho)
        return sample_truncated_beta(a, b, self.a0, 1.0 - self.a0, rng)[:, None]
