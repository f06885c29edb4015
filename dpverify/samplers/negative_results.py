"""The published negative results as must-fail samplers (issue 39): each one's ``guarantee()`` is a *naive* claim
that the paper shows false, and each knows the true privacy of its release, so the audit can show the violation.

Three samplers, one per paper (catalogue items in :mod:`dpverify.theorems.heller2023`,
:mod:`~dpverify.theorems.annamalai2024`, :mod:`~dpverify.theorems.cebere2025`):

- ``sgld_interim`` (Heller & Fetaya, SaTML 2023): full-batch SGLD (the Langevin step ``theta' = theta - eta
  grad U(theta) + sqrt(2 eta) xi``) on a one-dimensional Bayesian linear regression with responses 0 and features
  ``x_i`` in [0, 1] (potential ``U(theta) = a_D theta^2 / 2``, ``a_D = m + sum_i x_i^2``, ``m`` the prior precision),
  started at ``theta_0 = R`` and stopped after ``t`` steps (the *interim* region). The state after ``t`` steps is
  exactly ``N(R rho^t, 2 eta (1 - rho^{2t}) / (1 - rho^2))`` with ``rho = 1 - eta a_D``. Naive claim: the
  posterior's ``N(0, 1/a_D)`` exact epsilon, maximised over replace-one pairs (the pair ``a = m`` vs ``m + 1``),
  which does not depend on R and goes to 0 as ``m`` grows. True privacy: the two interim Gaussians (different means
  *and* variances), whose mean gap ``R |rho_1^t - rho_2^t|`` grows without bound in R.
- ``dp_sgd_nonconvex_last_iterate`` (Annamalai, AISec 2024): Poisson-subsampled DP-SGD (rate q, noise multiplier
  sigma, ``eta = C = 1``) whose records have constant gradients ``-x_i`` (``x_i`` in [0, 1]; a canary pushes the
  parameter up by x when sampled) plus a data-independent *double-well* regulariser whose gradient step maps
  ``theta`` to ``F(theta) = 0`` below the threshold ``a`` and to ``K = a + 40 sigma + 2`` above it (a non-convex
  loss). So ``theta_{t+1} = F(theta_t) + o_t`` with ``o_t = sum_{i in B_t} x_i + sigma xi_t``: the parameter
  *latches* at K once some update exceeds a, and the last iterate reveals whether any of the first ``T - 1``
  updates did, plus the last update. Naive claim: the last-iterate privacy of the same DP-SGD on a *linear* loss
  (the heuristic of Steinke et al., ICLR 2025, exact for linear losses: one Gaussian mixture ``sum_t B_t + N(0, T
  sigma^2)`` against ``N(0, T sigma^2)``). True privacy: exact in closed form (below); close to the path's PLD
  accountant.
- ``dp_sgd_crafted_gradient_last_iterate`` (Cebere, Bellet & Papernot, ICLR 2025): full-batch DP-SGD (``eta = C =
  1``, noise multiplier sigma, T steps) where every record's gradient is a crafted constant ``x_i`` in [-1, 1] at
  every step; the last iterate ``theta_T = T sum_i x_i + sigma sqrt(T) xi`` is exactly as private as the whole path
  (``mu = sqrt(T) |sum x - sum x'| / sigma``-GDP). Naive claim: hiding the iterates leaves only the privacy of the
  last ``claimed_steps`` updates (``mu = sqrt(claimed_steps) / sigma``; default 1). With ``sampling_rate`` q < 1
  each record enters each step's batch with probability q (Poisson): one canary's last iterate is the Binomial(T,
  q) mixture of :func:`linear_last_iterate_delta` (``cebere2025.thm_crafted_gradient_subsampled``), the naive claim
  the PLD of ``claimed_steps`` subsampled steps, the accountant the path's PLD (T subsampled steps).

Exact privacy (every function below is closed form up to one-dimensional root finding):
:func:`gaussian_pair_delta` / :func:`gaussian_pair_epsilon` -- two one-dimensional Gaussians with different means
and variances (the privacy-loss set ``{L > epsilon}`` is the set where a quadratic is positive); :func:`latch_delta`
/ :func:`latch_epsilon` -- the latching last iterate; :func:`linear_last_iterate_delta` /
:func:`linear_last_iterate_epsilon` -- the linear-loss heuristic's Gaussian mixture.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy.optimize import brentq
from scipy.special import logsumexp, ndtr
from scipy.stats import binom, norm

from dpverify.calculus.accounting.pld import gaussian_pld, subsampled_gaussian_pld
from dpverify.calculus.guarantees import Claim
from dpverify.calculus.loss_masses import LossMasses
from dpverify.calculus.mechanism_description import PairPrivacyLoss
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.samplers.base import Sampler
from dpverify.samplers.claims import evaluate_item
from dpverify.samplers.registry import register
from dpverify.validation import (check_delta, check_positive_int, check_probability, check_real,
                                 check_sampling_rate)

__all__ = ["SGLDInterim", "DPSGDNonConvexLastIterate", "DPSGDCraftedGradientLastIterate", "gaussian_pair_delta",
           "gaussian_pair_epsilon", "latch_delta", "latch_epsilon", "linear_last_iterate_delta",
           "linear_last_iterate_epsilon", "PathAccountant", "NAIVE"]

#: The words every naive claim carries in its details (the claim is no theorem's guarantee).
NAIVE = "naive claim (a published negative result shows it false): not a guarantee"

_EPS_MAX = 200.0


def _sf(z):
    return ndtr(-np.asarray(z, dtype=float))


def _epsilon_from_delta(delta_of: Callable[[float], float], delta: float) -> float:
    """The smallest epsilon >= 0 with ``delta_of(epsilon) <= delta`` (``delta_of`` nonincreasing; ``brentq``);
    ``inf`` when even epsilon = 200 leaves more than ``delta``."""
    if delta_of(0.0) <= delta:
        return 0.0
    hi = 1.0
    while delta_of(hi) > delta:
        if hi >= _EPS_MAX:
            return math.inf
        hi = min(2.0 * hi, _EPS_MAX)  # the doubling stops at the cap, which is itself tried
    return float(brentq(lambda e: delta_of(e) - delta, 0.0, hi, xtol=1e-13, rtol=1e-12))


# --------------------------------------------------------------------------------------- two Gaussians, any variances
def gaussian_pair_delta(epsilon: float, m1: float, v1: float, m2: float, v2: float) -> float:
    """``delta(epsilon) = P(L > epsilon) - e^epsilon Q(L > epsilon)`` for ``P = N(m1, v1)``, ``Q = N(m2, v2)`` and
    ``L = log dP/dQ`` (one direction). ``L(x) = A x^2 + B x + C0`` with ``A = 1/(2 v2) - 1/(2 v1)``, ``B = m1/v1 -
    m2/v2``, ``C0 = m2^2/(2 v2) - m1^2/(2 v1) + log(v2/v1)/2``: the set ``{L > epsilon}`` is a half-line (A = 0), the
    outside (A > 0) or the inside (A < 0) of the quadratic's roots, and both masses are normal CDFs."""
    v1, v2 = check_real("v1", v1, low=0.0, low_inclusive=False), check_real("v2", v2, low=0.0, low_inclusive=False)
    s1, s2 = math.sqrt(v1), math.sqrt(v2)
    e = math.exp(min(epsilon, 700.0))
    A = 0.5 / v2 - 0.5 / v1
    B = m1 / v1 - m2 / v2
    C = m2 * m2 / (2 * v2) - m1 * m1 / (2 * v1) + 0.5 * math.log(v2 / v1) - epsilon

    def mass(lo: float, hi: float, m: float, s: float) -> float:  # P(lo < X < hi), X ~ N(m, s^2)
        if hi <= lo:
            return 0.0
        a, b = (lo - m) / s, (hi - m) / s
        return float(_sf(a) - _sf(b)) if a > 0 else float(ndtr(b) - ndtr(a))

    if abs(A) <= 1e-14 * (0.5 / v1 + 0.5 / v2):  # equal variances: a half-line
        if B == 0:
            return max(0.0, 1.0 - e) if C > 0 else 0.0
        x = -C / B
        sets = [(x, math.inf)] if B > 0 else [(-math.inf, x)]
    else:
        disc = B * B - 4 * A * C
        if disc <= 0:
            sets = [(-math.inf, math.inf)] if A > 0 else []
        else:
            root = math.sqrt(disc)
            qq = -0.5 * (B + math.copysign(root, B))
            r1, r2 = sorted((qq / A, C / qq) if qq != 0 else ((-B - root) / (2 * A), (-B + root) / (2 * A)))
            sets = [(-math.inf, r1), (r2, math.inf)] if A > 0 else [(r1, r2)]
    p = sum(mass(lo, hi, m1, s1) for lo, hi in sets)
    q = sum(mass(lo, hi, m2, s2) for lo, hi in sets)
    return max(0.0, p - e * q)


def gaussian_pair_epsilon(delta: float, m1: float, v1: float, m2: float, v2: float) -> float:
    """The exact epsilon at ``delta`` of the pair ``N(m1, v1)``, ``N(m2, v2)``, both directions (``inf`` at delta = 0
    unless the two laws are equal)."""
    d = check_delta(delta)
    if m1 == m2 and v1 == v2:
        return 0.0
    if d == 0.0:
        return math.inf
    return max(_epsilon_from_delta(lambda e: gaussian_pair_delta(e, m1, v1, m2, v2), d),
               _epsilon_from_delta(lambda e: gaussian_pair_delta(e, m2, v2, m1, v1), d))


@dataclass(frozen=True)
class PathAccountant:
    """The accountant's answer for the path (an upper bound on a last iterate's epsilon): ``epsilon`` at ``delta``
    and the ``method`` used (what :func:`dpverify.audit.abilities.check_accountant` reads)."""

    epsilon: float
    delta: float
    method: str


def _cell_masses(p: np.ndarray, q: np.ndarray, basis: str) -> LossMasses:
    ok = (p > 0) & (q > 0)
    return LossMasses(np.log(p[ok] / q[ok]), p[ok], q[ok], basis)


def _gaussian_cells(m1: float, v1: float, m2: float, v2: float, cells: int = 6001) -> LossMasses:
    s1, s2 = math.sqrt(v1), math.sqrt(v2)
    lo, hi = min(m1 - 12 * s1, m2 - 12 * s2), max(m1 + 12 * s1, m2 + 12 * s2)
    edges = np.linspace(lo, hi, cells)
    p, q = np.diff(ndtr((edges - m1) / s1)), np.diff(ndtr((edges - m2) / s2))
    return _cell_masses(p, q, f"exact: N({m1:.4g}, {v1:.4g}) vs N({m2:.4g}, {v2:.4g}) on {cells - 1} cells")


# ------------------------------------------------------------------------------------------------------------ SGLD
def _features(dataset: Any, name: str = "dataset") -> np.ndarray:
    x = np.asarray(dataset, dtype=float)
    if x.ndim != 1 or x.size == 0 or not np.all(np.isfinite(x)) or np.any(x < 0) or np.any(x > 1):
        raise ValueError(f"{name} must be a non-empty 1-d array of features in [0, 1]; got shape {x.shape}")
    return x


def _naive_kw(unguaranteed: bool, sampler_id: str) -> bool:
    if not unguaranteed:
        raise ValueError(f"{sampler_id}: its claim is naive (a published negative result shows it false); "
                         "build it with unguaranteed=True (the default)")
    return True


@register
class SGLDInterim(Sampler):
    """Full-batch SGLD on a 1-d Bayesian linear regression (responses 0, features in [0, 1], prior ``N(0, 1/m)``),
    started at ``R`` and released after ``n_steps`` steps (Heller & Fetaya 2023's interim region). The claim is the
    posterior's exact epsilon over all replace-one pairs (naive: the chain has not converged). Output shape (n, 1).
    """

    id = "sgld_interim"
    theorems = ("heller2023.prop_posterior_private", "heller2023.thm_interim_unbounded")
    output = "final"
    description = ("full-batch SGLD on 1-d Bayesian linear regression released before convergence; naive claim: the "
                   "posterior's epsilon (Heller & Fetaya 2023)")

    def __init__(self, prior_precision: float = 10.0, step_size: float = 0.01, n_steps: int = 20,
                 theta0: float = 10.0, delta: float = 1e-5, unguaranteed: bool = True) -> None:
        self.prior_precision = check_real("prior_precision", prior_precision, low=0.0, low_inclusive=False)
        self.step_size = check_real("step_size", step_size, low=0.0, low_inclusive=False)
        if self.step_size * (self.prior_precision + 1.0) >= 1.0:
            raise ValueError(f"step_size must be < 1 / (prior_precision + 1) = {1 / (self.prior_precision + 1):.4g} "
                             f"(a contracting chain on the worst pair); got {step_size!r}")
        self.n_steps = check_positive_int(n_steps, "n_steps")
        self.theta0 = check_real("theta0", theta0)
        self.delta = check_delta(delta, allow_zero=False)
        self.unguaranteed = _naive_kw(unguaranteed, self.id)

    def precision(self, dataset: Any) -> float:
        """``a_D = m + sum_i x_i^2``: the potential's curvature (the posterior's precision)."""
        a = self.prior_precision + float(np.sum(_features(dataset) ** 2))
        if self.step_size * a >= 1.0:
            raise ValueError(f"step_size * (prior_precision + sum x^2) must be < 1; got {self.step_size * a:.4g}")
        return a

    def interim_law(self, dataset: Any) -> tuple[float, float]:
        """``(mean, variance)`` of the state after ``n_steps`` steps: ``(R rho^t, 2 eta (1 - rho^{2t}) / (1 -
        rho^2))``, ``rho = 1 - eta a_D`` (the recursion ``m' = rho m``, ``v' = rho^2 v + 2 eta`` from ``(R, 0)``)."""
        rho = 1.0 - self.step_size * self.precision(dataset)
        t = self.n_steps
        var = 2.0 * self.step_size * -math.expm1(2 * t * math.log(abs(rho))) / (1.0 - rho * rho) if rho != 0 \
            else 2.0 * self.step_size
        return self.theta0 * rho**t, var

    def posterior_law(self, dataset: Any) -> tuple[float, float]:
        """``(0, 1 / a_D)``: the posterior of the regression with responses 0."""
        return 0.0, 1.0 / self.precision(dataset)

    def sample(self, dataset: Any, n: int, rng) -> np.ndarray:
        n = check_positive_int(n, "n")
        g = self._rng(rng)
        a = self.precision(dataset)
        theta = np.full(n, self.theta0)
        noise = math.sqrt(2.0 * self.step_size)
        for _ in range(self.n_steps):  # the chains advance together: one vectorised step per iteration
            theta = theta - self.step_size * a * theta + noise * g.standard_normal(n)
        return theta[:, None]

    def naive_epsilon(self, delta: float) -> float:
        """The posterior's exact epsilon at ``delta`` over every replace-one pair of datasets (any size, features in
        [0, 1]): the pair of precisions ``m`` and ``m + 1`` (tests/test_negative_results_samplers.py checks it is the
        worst on a grid), both directions."""
        m = self.prior_precision
        return gaussian_pair_epsilon(delta, 0.0, 1.0 / m, 0.0, 1.0 / (m + 1.0))

    def guarantee(self) -> Claim:
        """The naive claim: the posterior's epsilon (the OPS argument) applied to the interim state; ``guaranteed``
        is False and ``details["naive"]`` says why. ``details`` also has the catalogue item's posterior RDP
        (``heller2023.prop_posterior_private``) at order ``min(2, 1 + m/2)``."""
        order = min(2.0, 1.0 + self.prior_precision / 2.0)  # inside the item's range 1 < alpha < m + 1
        rdp = float(evaluate_item("heller2023.prop_posterior_private", unguaranteed=False, alpha=order,
                                  m=self.prior_precision).conclusion["rdp"])
        return Claim(self.naive_epsilon(self.delta), self.delta, "heller2023.prop_posterior_private", False,
                     {"chain_converged": False},
                     {"naive": NAIVE, "what": "the posterior's exact epsilon over replace-one pairs (precisions m "
                      "and m + 1), applied to the state after n_steps steps",
                      "posterior_rdp": {"order": order, "rdp": rdp}})

    def exact_epsilon(self, dataset: Any, neighbour: Any, delta: float) -> float:
        """The pair's exact epsilon at ``delta``: the two interim Gaussians, both directions."""
        return gaussian_pair_epsilon(delta, *self.interim_law(dataset), *self.interim_law(neighbour))

    def posterior_epsilon(self, dataset: Any, neighbour: Any, delta: float) -> float:
        """The pair's posterior epsilon at ``delta`` (what the chain would have at convergence, up to its bias)."""
        return gaussian_pair_epsilon(delta, *self.posterior_law(dataset), *self.posterior_law(neighbour))

    def pair_privacy_loss(self, dataset: Any, neighbour: Any) -> LossMasses:
        """The pair's privacy-loss masses (the two interim Gaussians on a fine grid of the output)."""
        return _gaussian_cells(*self.interim_law(dataset), *self.interim_law(neighbour))

    def log_density(self, dataset: Any, outputs) -> np.ndarray:
        """The interim Gaussian's log density of each output (shape (n, 1))."""
        out = np.asarray(outputs, dtype=float)
        if out.ndim != 2 or out.shape[1] != 1:
            raise ValueError(f"outputs must have shape (n, 1); got {out.shape}")
        m, v = self.interim_law(dataset)
        return -0.5 * (out[:, 0] - m) ** 2 / v - 0.5 * math.log(2 * math.pi * v)


# ------------------------------------------------------------------------------------------------- latching DP-SGD
def _mixture_tail_delta(A: float, B: float, q: float, v: float, s: float, forward: bool) -> float:
    """``int (A f1 - B f0)_+`` (``forward``) or ``int (A f0 - B f1)_+`` for ``f1 = (1-q) N(0, s^2) + q N(v, s^2)``,
    ``f0 = N(0, s^2)``: the ratio ``f1/f0 = (1-q) + q exp((v x - v^2/2)/s^2)`` is increasing in x, so the set is a
    half-line ``x > x*`` (forward) or ``x < x*``."""
    if A <= 0:
        return 0.0
    if B <= 0:
        return A
    r = B / A if forward else A / B
    if r <= 1 - q:  # the whole line (forward) or nothing (backward)
        return A - B if forward else 0.0
    x = s * s / v * math.log((r - (1 - q)) / q) + v / 2
    if forward:
        return max(0.0, A * float((1 - q) * _sf(x / s) + q * _sf((x - v) / s)) - B * float(_sf(x / s)))
    return max(0.0, A * float(ndtr(x / s)) - B * float((1 - q) * ndtr(x / s) + q * ndtr((x - v) / s)))


def _latch_probabilities(q: float, sigma: float, T: int, a: float, v: float) -> tuple[float, float]:
    """``(pi_D, pi_D')``: the probability that one of the first ``T - 1`` updates exceeds ``a`` with the canary
    (``p = (1-q) Phi_bar(a/sigma) + q Phi_bar((a - v)/sigma)`` per step) and without (``Phi_bar(a/sigma)``)."""
    p1 = (1 - q) * float(_sf(a / sigma)) + q * float(_sf((a - v) / sigma))
    p0 = float(_sf(a / sigma))
    k = T - 1
    return float(-np.expm1(k * np.log1p(-p1))), float(-np.expm1(k * np.log1p(-p0)))


def latch_delta(epsilon: float, q: float, sigma: float, T: int, a: float, v: float = 1.0) -> float:
    """``delta(epsilon)`` of the latching last iterate (both directions, the larger): the output is latched (near K)
    with probability ``pi`` and is then ``K + o``, else it is ``o`` (the last update), and the two regions do not
    overlap, so ``delta = int (pi f1 - e^eps pi' f0)_+ + int ((1-pi) f1 - e^eps (1-pi') f0)_+`` (and the reverse)."""
    pi1, pi0 = _latch_probabilities(q, sigma, T, a, v)
    e = math.exp(min(epsilon, 700.0))
    fwd = _mixture_tail_delta(pi1, e * pi0, q, v, sigma, True) + \
        _mixture_tail_delta(1 - pi1, e * (1 - pi0), q, v, sigma, True)
    bwd = _mixture_tail_delta(pi0, e * pi1, q, v, sigma, False) + \
        _mixture_tail_delta(1 - pi0, e * (1 - pi1), q, v, sigma, False)
    return max(fwd, bwd)


def latch_epsilon(delta: float, q: float, sigma: float, T: int, a: float, v: float = 1.0) -> float:
    """The exact epsilon at ``delta`` of the latching last iterate (:func:`latch_delta`)."""
    return _epsilon_from_delta(lambda e: latch_delta(e, q, sigma, T, a, v), check_delta(delta, allow_zero=False))


def linear_last_iterate_delta(epsilon: float, q: float, sigma: float, T: int, v: float = 1.0) -> float:
    """``delta(epsilon)`` of DP-SGD's last iterate on a *linear* loss (the heuristic of Steinke et al. 2025, exact for
    linear losses): ``P = sum_k Binom(k; T, q) N(k v, T sigma^2)`` against ``Q = N(0, T sigma^2)``, both directions.
    ``log dP/dQ(x) = logsumexp_k(log w_k + (k v x - k^2 v^2 / 2) / (T sigma^2))`` is increasing in x, so each
    direction's set is a half-line; its end is found by ``brentq``."""
    k = np.arange(T + 1)
    logw = binom.logpmf(k, T, q)
    var = T * sigma * sigma
    sd = math.sqrt(var)
    e = math.exp(min(epsilon, 700.0))

    def loss(x: float) -> float:
        return float(logsumexp(logw + (k * v * x - (k * v) ** 2 / 2) / var))

    def root(target: float) -> float:
        lo, hi = -10.0 * sd - 10.0, 10.0 * sd + T * v + 10.0
        while loss(lo) > target:
            lo = 2 * lo - 1
        while loss(hi) < target:
            hi = 2 * hi + 1
        return float(brentq(lambda x: loss(x) - target, lo, hi, xtol=1e-13))

    x = root(epsilon)
    fwd = float(np.sum(np.exp(logw) * _sf((x - k * v) / sd)) - e * _sf(x / sd))
    bwd = 0.0
    floor = T * math.log1p(-q) if q < 1 else -math.inf  # the loss's limit on the left: log w_0
    if floor < -epsilon:  # the loss goes below -epsilon on the left
        x2 = root(-epsilon)
        bwd = float(ndtr(x2 / sd) - e * np.sum(np.exp(logw) * ndtr((x2 - k * v) / sd)))
    return max(0.0, fwd, bwd)


def linear_last_iterate_epsilon(delta: float, q: float, sigma: float, T: int, v: float = 1.0) -> float:
    """The exact epsilon at ``delta`` of the linear-loss last iterate (:func:`linear_last_iterate_delta`)."""
    return _epsilon_from_delta(lambda e: linear_last_iterate_delta(e, q, sigma, T, v),
                               check_delta(delta, allow_zero=False))


def _one_canary(dataset: Any, neighbour: Any) -> float | None:
    """The value v of the one record that is nonzero in exactly one of the two datasets when every other record is
    null (0) in both; None otherwise."""
    return _lone_nonzero(_features(dataset), _features(neighbour, "neighbour"))


def _lone_nonzero(x: np.ndarray, y: np.ndarray) -> float | None:
    """The one nonzero entry of ``x`` and ``y`` together, if there is exactly one; None otherwise."""
    nx, ny = x[x != 0], y[y != 0]
    if nx.size + ny.size != 1:
        return None
    return float(nx[0] if nx.size else ny[0])


@register
class DPSGDNonConvexLastIterate(Sampler):
    """Poisson-subsampled DP-SGD on a non-convex (double-well) loss whose last iterate latches once an update exceeds
    ``threshold`` (a faithful instance of Annamalai 2024's negative result); the naive claim is the linear-loss
    last-iterate privacy. Records: values in [0, 1] (constant gradients). Output shape (n, 1)."""

    id = "dp_sgd_nonconvex_last_iterate"
    theorems = ("annamalai2024.thm_nonconvex_last_iterate",)
    output = "final"
    description = ("Poisson DP-SGD, last iterate, on a latching double-well loss; naive claim: the linear-loss last "
                   "iterate (Annamalai 2024)")

    def __init__(self, q: float = 0.02, noise_multiplier: float = 0.7, n_steps: int = 10, threshold: float = 2.5,
                 delta: float = 1e-3, unguaranteed: bool = True) -> None:
        self.q = check_probability(q, "q", open_low=True, open_high=True)
        self.noise_multiplier = check_real("noise_multiplier", noise_multiplier, low=0.0, low_inclusive=False)
        self.n_steps = check_positive_int(n_steps, "n_steps", minimum=2)
        self.threshold = check_real("threshold", threshold, low=0.0, low_inclusive=False)
        self.delta = check_delta(delta, allow_zero=False)
        self.unguaranteed = _naive_kw(unguaranteed, self.id)
        #: the latched state: 40 noise standard deviations above the threshold (leaving it has probability < 1e-300)
        self.latch = self.threshold + 40.0 * self.noise_multiplier + 2.0

    def regularised_step(self, theta: np.ndarray) -> np.ndarray:
        """``F(theta) = theta - grad R(theta)``: 0 below the threshold, the latch K at or above it (the double-well
        regulariser ``R(theta) = theta^2 / 2`` below, ``(theta - K)^2 / 2`` above; data-independent)."""
        return np.where(theta >= self.threshold, self.latch, 0.0)

    def sample(self, dataset: Any, n: int, rng) -> np.ndarray:
        n = check_positive_int(n, "n")
        g = self._rng(rng)
        x = _features(dataset)
        live = x[x != 0]  # null records have a zero gradient
        theta = np.zeros(n)
        for _ in range(self.n_steps):  # chains advance together; each record sampled with probability q per chain
            pushed = (g.random((n, live.size)) < self.q) @ live if live.size else np.zeros(n)
            theta = self.regularised_step(theta) + pushed + self.noise_multiplier * g.standard_normal(n)
        return theta[:, None]

    def naive_epsilon(self, delta: float) -> float:
        """The linear-loss last iterate's exact epsilon at ``delta`` (one canary of value 1)."""
        return linear_last_iterate_epsilon(delta, self.q, self.noise_multiplier, self.n_steps)

    def guarantee(self) -> Claim:
        """The naive claim: the last-iterate privacy DP-SGD has on a linear loss (Steinke et al. 2025's heuristic),
        taken for this non-convex loss; ``guaranteed`` is False."""
        return Claim(self.naive_epsilon(self.delta), self.delta, "annamalai2024.thm_nonconvex_last_iterate", False,
                     {"loss_is_linear": False},
                     {"naive": NAIVE, "what": "the last iterate of Poisson DP-SGD on a linear loss (sum of T "
                      "subsampled updates): a hidden-state amplification that holds for linear losses only"})

    def account(self, delta: float) -> PathAccountant:
        """The path's PLD accountant at ``delta``: T-fold composition of the subsampled Gaussian (rate q, mu = 1 /
        sigma); an upper bound on the last iterate's epsilon (post-processing)."""
        d = check_delta(delta, allow_zero=False)
        pld = subsampled_gaussian_pld(self.q, 1.0 / self.noise_multiplier).self_compose(self.n_steps)
        return PathAccountant(float(pld.epsilon(d)), d, "pld")

    def exact_epsilon(self, dataset: Any, neighbour: Any, delta: float) -> float | None:
        """The pair's exact epsilon at ``delta`` (:func:`latch_epsilon`) when the datasets differ in one record of
        value v and every other record is null; None otherwise."""
        v = _one_canary(dataset, neighbour)
        return None if v is None else latch_epsilon(delta, self.q, self.noise_multiplier, self.n_steps,
                                                     self.threshold, v)

    def pair_privacy_loss(self, dataset: Any, neighbour: Any) -> LossMasses | None:
        """The pair's privacy-loss masses (the latched and the free region, each on a grid of the last update);
        oriented with the dataset holding the canary as P; None for other pairs."""
        v = _one_canary(dataset, neighbour)
        if v is None:
            return None
        s = self.noise_multiplier
        pi1, pi0 = _latch_probabilities(self.q, s, self.n_steps, self.threshold, v)
        edges = np.linspace(-12 * s, v + 12 * s, 6001)
        f1 = np.diff((1 - self.q) * ndtr(edges / s) + self.q * ndtr((edges - v) / s))
        f0 = np.diff(ndtr(edges / s))
        p, q = np.concatenate([pi1 * f1, (1 - pi1) * f1]), np.concatenate([pi0 * f0, (1 - pi0) * f0])
        if np.count_nonzero(_features(dataset)) == 0:
            p, q = q, p
        return _cell_masses(p, q, "exact: the latching last iterate (latched or free, each on 6000 cells)")

    def log_density(self, dataset: Any, outputs) -> np.ndarray:
        """The last iterate's log density ``log(pi f(x - K) + (1 - pi) f(x))``, ``f = (1-q) N(0, sigma^2) + q N(v,
        sigma^2)`` the law of one update, for a dataset with at most one nonzero record (value v; v = 0 without one:
        then ``f = N(0, sigma^2)``); a ``ValueError`` for more."""
        x = _features(dataset)
        live = x[x != 0]
        if live.size > 1:
            raise ValueError(f"log_density needs a dataset with at most one nonzero record; got {live.size}")
        out = np.asarray(outputs, dtype=float)
        if out.ndim != 2 or out.shape[1] != 1:
            raise ValueError(f"outputs must have shape (n, 1); got {out.shape}")
        v = float(live[0]) if live.size else 0.0
        s, q = self.noise_multiplier, self.q
        pi1, _ = _latch_probabilities(q, s, self.n_steps, self.threshold, v)

        def log_update(y: np.ndarray) -> np.ndarray:
            return np.logaddexp(math.log1p(-q) + norm.logpdf(y, 0.0, s), math.log(q) + norm.logpdf(y, v, s))

        y = out[:, 0]
        return np.logaddexp(math.log(pi1) + log_update(y - self.latch), math.log1p(-pi1) + log_update(y))


# ------------------------------------------------------------------------------------------- crafted gradient DP-GD
def _gradients(dataset: Any, name: str = "dataset") -> np.ndarray:
    x = np.asarray(dataset, dtype=float)
    if x.ndim != 1 or not np.all(np.isfinite(x)) or np.any(np.abs(x) > 1):
        raise ValueError(f"{name} must be a 1-d array of crafted gradients in [-1, 1]; got shape {x.shape}")
    return x


@register
class DPSGDCraftedGradientLastIterate(Sampler):
    """DP-SGD whose records have crafted constant gradients in [-1, 1] (clip 1, ``eta = 1``), releasing the last
    iterate (Cebere et al. 2025, the crafted gradient at every step). ``sampling_rate`` q: each record enters each
    step's batch with probability q, independently (Poisson subsampling); q = 1 (the default) is full batch. Naive
    claim: the privacy of the last ``claimed_steps`` updates only. Output shape (n, 1).

    Full batch (q = 1, ``cebere2025.thm_crafted_gradient_every_step``): ``theta_T = T sum_i x_i + sigma sqrt(T) xi``,
    the pair is ``mu = sqrt(T) |sum x - sum x'| / sigma``-GDP, the path's privacy. Subsampled (q < 1,
    ``cebere2025.thm_crafted_gradient_subsampled``): with one record of crafted gradient v and null records (gradient
    0) only, ``theta_T = v K + sigma sqrt(T) xi`` with ``K ~ Binomial(T, q)`` the canary's inclusions, i.e. the mixture
    ``sum_k Binom(k; T, q) N(k v, T sigma^2)`` against ``N(0, T sigma^2)`` without it: exactly
    :func:`linear_last_iterate_delta` (with |v|; the pair's epsilon is symmetric in the sign of v). Its epsilon is
    below the path's (the T-fold Poisson-subsampled Gaussian, :meth:`account`; the last iterate is the path's sum)
    and far above the naive claim, the PLD of ``claimed_steps`` subsampled steps."""

    id = "dp_sgd_crafted_gradient_last_iterate"
    theorems = ("cebere2025.thm_crafted_gradient_every_step", "cebere2025.thm_crafted_gradient_subsampled")
    output = "final"
    description = ("DP-SGD (full batch or Poisson-subsampled), last iterate, crafted gradient at every step; naive "
                   "claim: hiding the iterates leaves the privacy of one step (Cebere et al. 2025)")

    def __init__(self, noise_multiplier: float = 2.0, n_steps: int = 16, claimed_steps: int = 1,
                 delta: float = 1e-5, unguaranteed: bool = True, sampling_rate: float = 1.0) -> None:
        self.noise_multiplier = check_real("noise_multiplier", noise_multiplier, low=0.0, low_inclusive=False)
        self.n_steps = check_positive_int(n_steps, "n_steps")
        self.claimed_steps = check_positive_int(claimed_steps, "claimed_steps")
        if self.claimed_steps > self.n_steps:
            raise ValueError(f"claimed_steps must be in [1, n_steps = {self.n_steps}]; got {claimed_steps!r}")
        self.delta = check_delta(delta, allow_zero=False)
        self.unguaranteed = _naive_kw(unguaranteed, self.id)
        self.sampling_rate = check_sampling_rate(sampling_rate, "sampling_rate")

    @property
    def full_batch(self) -> bool:
        """Whether every record is in every step's batch (``sampling_rate == 1``)."""
        return self.sampling_rate == 1.0

    def sample(self, dataset: Any, n: int, rng) -> np.ndarray:
        n = check_positive_int(n, "n")
        g = self._rng(rng)
        x = _gradients(dataset)
        theta = np.zeros(n)
        if self.full_batch:  # the full-batch draws, unchanged: one normal vector per step
            grad = float(np.sum(x))
            for _ in range(self.n_steps):  # theta <- theta + (sum of the records' gradients + sigma xi), all chains
                theta = theta + grad + self.noise_multiplier * g.standard_normal(n)
            return theta[:, None]
        live = x[x != 0]  # null records have a zero gradient, sampled or not
        for _ in range(self.n_steps):  # each record in each chain's batch with probability q (Bernoulli(q))
            batch = (g.random((n, live.size)) < self.sampling_rate) @ live if live.size else np.zeros(n)
            theta = theta + batch + self.noise_multiplier * g.standard_normal(n)
        return theta[:, None]

    def canary(self, dataset: Any, neighbour: Any) -> float | None:
        """The crafted gradient v of the one record that is nonzero in exactly one of the two datasets when every
        other record is null (gradient 0) in both (add/remove of the canary); None otherwise."""
        return _lone_nonzero(_gradients(dataset), _gradients(neighbour, "neighbour"))

    def mu(self, dataset: Any, neighbour: Any) -> float:
        """The full-batch pair's GDP parameter: ``sqrt(T) |sum x - sum x'| / sigma`` (mean gap ``T |sum x - sum
        x'|`` over the standard deviation ``sigma sqrt(T)``); for q < 1 an upper bound (the path's, full batch)."""
        gap = abs(float(np.sum(_gradients(dataset)) - np.sum(_gradients(neighbour, "neighbour"))))
        return math.sqrt(self.n_steps) * gap / self.noise_multiplier

    def naive_epsilon(self, delta: float) -> float:
        """The privacy of ``claimed_steps`` steps at ``delta``: ``mu = sqrt(claimed_steps) / sigma``-GDP (full batch);
        the PLD of ``claimed_steps`` composed Poisson-subsampled Gaussians (rate q, ``mu = 1 / sigma``) for q < 1."""
        if self.full_batch:
            return float(gaussian_epsilon(delta, math.sqrt(self.claimed_steps) / self.noise_multiplier))
        d = check_delta(delta, allow_zero=False)
        pld = subsampled_gaussian_pld(self.sampling_rate, 1.0 / self.noise_multiplier).self_compose(self.claimed_steps)
        return float(pld.epsilon(d))

    def guarantee(self) -> Claim:
        """The naive hidden-state claim: the last iterate is as private as its last ``claimed_steps`` updates (the
        subsampled updates' PLD when q < 1); ``guaranteed`` is False."""
        if self.full_batch:
            return Claim(self.naive_epsilon(self.delta), self.delta, "cebere2025.thm_crafted_gradient_every_step",
                         False, {"iterates_hidden_amplify": False},
                         {"naive": NAIVE, "what": f"the privacy of the last {self.claimed_steps} update(s) (mu = "
                          f"sqrt({self.claimed_steps}) / sigma), claimed for the last iterate of {self.n_steps} "
                          "steps"})
        return Claim(self.naive_epsilon(self.delta), self.delta, "cebere2025.thm_crafted_gradient_subsampled", False,
                     {"iterates_hidden_amplify": False},
                     {"naive": NAIVE, "what": f"the privacy of the last {self.claimed_steps} Poisson-subsampled "
                      f"update(s) (rate {self.sampling_rate:g}, mu = 1 / sigma each; PLD), claimed for the last "
                      f"iterate of {self.n_steps} steps"})

    def account(self, delta: float) -> PathAccountant:
        """The path's accountant at ``delta`` (add/remove of one record, gradient gap at most 1): ``sqrt(T) /
        sigma``-GDP (full batch); the PLD of T composed Poisson-subsampled Gaussians (rate q, ``mu = 1 / sigma``)
        for q < 1. The last iterate is the sum of the path's updates: a post-processing, so this bounds it."""
        d = check_delta(delta, allow_zero=False)
        if self.full_batch:
            return PathAccountant(float(gaussian_epsilon(d, math.sqrt(self.n_steps) / self.noise_multiplier)), d,
                                  "gdp")
        pld = subsampled_gaussian_pld(self.sampling_rate, 1.0 / self.noise_multiplier).self_compose(self.n_steps)
        return PathAccountant(float(pld.epsilon(d)), d, "pld")

    def exact_epsilon(self, dataset: Any, neighbour: Any, delta: float) -> float | None:
        """The pair's exact epsilon at ``delta``: ``mu``-GDP (:meth:`mu`) in full batch; for q < 1 the Binomial
        mixture's (:func:`linear_last_iterate_epsilon` with ``v = |canary|``) when the datasets differ in one record
        and every other record is null, None for other pairs."""
        d = check_delta(delta, allow_zero=False)
        if self.full_batch:
            return float(gaussian_epsilon(d, self.mu(dataset, neighbour)))
        v = self.canary(dataset, neighbour)
        return None if v is None else linear_last_iterate_epsilon(d, self.sampling_rate, self.noise_multiplier,
                                                                  self.n_steps, abs(v))

    def pair_privacy_loss(self, dataset: Any, neighbour: Any) -> PairPrivacyLoss | LossMasses | None:
        """The exact privacy loss of the Gaussian pair (``mu``, :meth:`mu`) in full batch; for q < 1 the masses of
        the Binomial mixture and the Gaussian on 6000 cells of the output (P the dataset's law), None for pairs
        other than add/remove of one canary among null records."""
        if self.full_batch:
            mu = self.mu(dataset, neighbour)
            return PairPrivacyLoss(gaussian_pld(mu), f"exact: Gaussian pair, mu = sqrt(T) gap / sigma = {mu:.4g}",
                                   True)
        v = self.canary(dataset, neighbour)
        if v is None:
            return None
        T, q, sd = self.n_steps, self.sampling_rate, self.noise_multiplier * math.sqrt(self.n_steps)
        k = np.arange(T + 1)
        w = binom.pmf(k, T, q)
        edges = np.linspace(min(0.0, T * v) - 12 * sd, max(0.0, T * v) + 12 * sd, 6001)
        lo, hi = edges[:-1], edges[1:]

        def cells(m: float) -> np.ndarray:  # N(m, sd^2) masses, from the nearer tail (no cancellation to 0)
            upper = lo > m
            return np.where(upper, ndtr((m - lo) / sd) - ndtr((m - hi) / sd), ndtr((hi - m) / sd) - ndtr((lo - m) / sd))

        mixture = np.sum([wk * cells(kk * v) for kk, wk in enumerate(w) if wk > 0], axis=0)
        null = cells(0.0)
        p, q_ = (mixture, null) if np.count_nonzero(_gradients(dataset)) else (null, mixture)
        return _cell_masses(p, q_, f"exact: Binomial({T}, {q:g}) mixture of N(k v, T sigma^2), v = {v:g}, vs "
                                   "N(0, T sigma^2) on 6000 cells")

    def log_density(self, dataset: Any, outputs) -> np.ndarray:
        """The last iterate's log density of each output (shape (n, 1)): ``N(T sum x, T sigma^2)`` in full batch;
        for q < 1 ``log sum_k Binom(k; T, q) N(x; k v, T sigma^2)`` for a dataset with at most one nonzero record
        (value v; ``N(0, T sigma^2)`` without one), a ``ValueError`` for more."""
        out = np.asarray(outputs, dtype=float)
        if out.ndim != 2 or out.shape[1] != 1:
            raise ValueError(f"outputs must have shape (n, 1); got {out.shape}")
        x = _gradients(dataset)
        var = self.n_steps * self.noise_multiplier ** 2
        if self.full_batch:
            m = self.n_steps * float(np.sum(x))
            return -0.5 * (out[:, 0] - m) ** 2 / var - 0.5 * math.log(2 * math.pi * var)
        live = x[x != 0]
        if live.size > 1:
            raise ValueError(f"log_density with sampling_rate < 1 needs a dataset with at most one nonzero record; "
                             f"got {live.size}")
        v = float(live[0]) if live.size else 0.0
        sd = math.sqrt(var)
        logw = binom.logpmf(np.arange(self.n_steps + 1), self.n_steps, self.sampling_rate)
        y = out[:, 0]
        acc = np.full(y.shape, -np.inf)
        for kk, lw in enumerate(logw):  # one mixture component per inclusion count (T + 1 vectors, not (n, T + 1))
            acc = np.logaddexp(acc, lw + norm.logpdf(y, kk * v, sd))
        return acc
