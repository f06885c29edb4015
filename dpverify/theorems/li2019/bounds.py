"""Numeric step-size bounds of Li et al. 2019 (Theorems 3 and 4) and of Wang et al. 2015 (as quoted
by Li et al.), evaluated three ways:

- :func:`eta_max_lemma2` -- the closed form of :mod:`dpverify.theorems.li2019.common` (Lemma 2's
  leading term, ``q = 0`` gives Remark 1), with the tail bound minimised over continuous ``lam``;
- :func:`eta_max_exact` -- App. C's recipe with the exact moments accountant: the largest step whose
  Algorithm-1 noise multipliers ``sigma_t = q sqrt(N / eta_t) / L`` give ``delta(eps) <= delta`` by the
  tail bound ``min_lam exp(sum_t alpha_t(lam) - lam eps)`` with the exact log moments
  ``alpha_t(lam) = lam * rdp_t(lam + 1)`` (:mod:`dpverify.calculus.accounting.moments`), minimised over fractional
  ``lam`` (:data:`EXACT_LAMBDAS`);
- :func:`wang_eta_max` -- the quoted Wang et al. bound ``eps^2 N / (128 L^2 T log(2.5 T/delta) log(2/delta))``.

``T`` counts iterations (Li et al., Algorithm 1). The decreasing schedule is
``eta_t = eta t^{-1/3}`` and ``eta`` is its first step (what Figure 1 plots).
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
from scipy.optimize import brentq

from dpverify.calculus.accounting.accountant import DEFAULT_ORDERS
from dpverify.calculus.accounting.moments import composed_log_moments, delta_from_log_moments, epsilon_from_log_moments
from dpverify.calculus.conversions import rdp_to_delta, rdp_to_dp
from dpverify.validation import check_delta, check_epsilon, check_positive_int, check_real, check_sampling_rate

__all__ = [
    "SCHEDULES",
    "EXACT_LAMBDAS",
    "k_max_float",
    "harmonic_third_float",
    "eta_max_lemma2",
    "eta_max_lemma2_proof",
    "eta_max_exact",
    "CONVERSIONS",
    "delta_exact",
    "epsilon_exact",
    "schedule_noise_multipliers",
    "INTEGER_LAMBDAS",
    "ORDER_GRIDS",
    "wang_eta_max",
]

SCHEDULES = ("decreasing", "fixed")
#: Moments-accountant orders lam (Renyi order lam + 1) of the exact accountant's first pass. Fractional:
#: the tail bound and the RDP conversions hold for every lam > 0, and the exact log moment of the sampled
#: Gaussian is computed at fractional orders (:mod:`dpverify.calculus.accounting.sampled_gaussian`). Integer orders
#: only (Abadi et al.'s code) miss optima below Renyi order 2 -- Table 1's SVHN row has its optimum near
#: order 1.3, where integer orders give eps = 2275 and fractional ones 83.6. The grid: 8 orders in
#: 1 + [1e-3, 0.1), :data:`dpverify.calculus.accounting.DEFAULT_ORDERS` (1.1 .. 10.9 by 0.1, 11 .. 63, 128 .. 1024),
#: 2048 and 4096; a second pass refines within a factor 1.5 of the best (see ``_convert``).
EXACT_LAMBDAS = np.unique(np.concatenate([
    np.geomspace(1e-3, 0.1, 9)[:-1],
    np.asarray(DEFAULT_ORDERS) - 1.0,
    [2047.0, 4095.0],
]))
#: Points of the second pass: geometric in [best/1.5, 1.5 best] (ratio 1.0085 between neighbours).
REFINE_POINTS = 97
#: Integer-only orders (Abadi et al.'s code, and dpverify before fractional orders), kept only to show what they
#: miss (``orders="integer"``): a first pass on these, then every integer within a factor 1.5 of the best.
INTEGER_LAMBDAS = np.unique(np.round(np.geomspace(1, 4096, 24)))
ORDER_GRIDS = ("fractional", "integer")
#: Number of geometric blocks of iterations sharing one noise multiplier in :func:`delta_exact`.
BLOCKS = 128


def _check_schedule(schedule: str) -> str:
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}; got {schedule!r}")
    return schedule


def k_max_float(epsilon, delta: float):
    """Numeric version of :func:`dpverify.theorems.li2019.common.k_max` (``epsilon`` a float or an array)."""
    l = math.log(1 / delta)
    return epsilon**2 / (epsilon + 2 * l + 2 * np.sqrt(l * l + epsilon * l))


def harmonic_third_float(T: int) -> float:
    """``sum_{t=1}^T t^{-1/3}`` via the Hurwitz zeta function (mpmath)."""
    return float(mp.zeta(mp.mpf(1) / 3) - mp.zeta(mp.mpf(1) / 3, T + 1))


def _validate(N, T, L, epsilon, delta):
    return (
        check_positive_int(N, "N"),
        check_positive_int(T, "T"),
        check_real("L", L, low=0.0, low_inclusive=False),
        check_epsilon(epsilon),
        check_delta(delta, allow_zero=False),
    )


def eta_max_lemma2(N: int, T: int, L: float, epsilon: float, delta: float, q: float = 0.0,
                   schedule: str = "decreasing") -> float:
    """Largest (first) step of Li et al. 2019, Thm 3 (``schedule="decreasing"``) or Thm 4 (``"fixed"``)
    with Lemma 2's leading term: ``(1-q) N K(eps, log 1/delta) / (L^2 H)``, ``H = sum_t t^{-1/3}`` or ``T``.

    ``q = 0`` uses Remark 1's approximation (no ``1-q``). Lemma 2's own hypotheses (sigma >= 1,
    q < 1/(16 sigma), the lam range) are not checked here: see the theorem objects.
    """
    N, T, L, epsilon, delta = _validate(N, T, L, epsilon, delta)
    q = check_real("q", q, low=0.0, high=1.0, high_inclusive=False)
    H = harmonic_third_float(T) if _check_schedule(schedule) == "decreasing" else float(T)
    return (1 - q) * N * k_max_float(epsilon, delta) / (L**2 * H)


def eta_max_lemma2_proof(N: int, T: int, L: float, epsilon: float, delta: float, q: float,
                         schedule: str = "decreasing") -> float:
    """Largest (first) step that the proof of Li et al. 2019, Thm 3 / Thm 4 certifies with *all* of Lemma 2's
    hypotheses enforced at every step (``0.0`` if none):

    - i) ``sigma_1 >= 1``: ``eta <= q^2 N / L^2``; ii) ``q < 1/(16 sigma_T)``: ``eta > 256 q^4 N H'/L^2`` with
      ``H' = T^{1/3}`` (decreasing) or 1 (fixed);
    - the tail bound with ``lam`` restricted to Lemma 2's range ``lam <= sigma_1^2 ln(1/(q sigma_1))``:
      ``min_{0 < lam <= lam_max} K lam (lam+1) - lam eps <= -log(1/delta)``, ``K = L^2 sum_t eta_t / ((1-q) N)``.

    The tail condition is monotone in eta (smaller eta: smaller K, larger lam_max), so its boundary is
    found by root finding; the result is ``min(i) boundary, tail boundary)`` if above ii)'s boundary.
    The theorem objects' ``lambda_range`` hypothesis instead fixes lam at the unconstrained optimum
    (a stronger sufficient condition), so every step they certify is also certified here.
    """
    N, T, L, epsilon, delta = _validate(N, T, L, epsilon, delta)
    q = check_real("q", q, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    H = harmonic_third_float(T) if _check_schedule(schedule) == "decreasing" else float(T)
    ell = math.log(1 / delta)
    eta_i = q * q * N / L**2
    eta_ii = 256 * q**4 * N * (T ** (1 / 3) if schedule == "decreasing" else 1.0) / L**2

    def slack(log_eta: float) -> float:
        eta = math.exp(log_eta)
        s1sq = q * q * N / (eta * L * L)
        qs = q * math.sqrt(s1sq)
        lam_max = s1sq * math.log(1 / qs) if qs < 1 else 0.0
        K = L * L * eta * H / ((1 - q) * N)
        lam = min(max((epsilon - K) / (2 * K), 0.0), lam_max)
        return K * lam * (lam + 1) - lam * epsilon + ell  # <= 0: the tail bound certifies delta

    hi = math.log(eta_i)
    if slack(hi) <= 0:
        eta_tail = eta_i
    else:
        lo = hi - 1.0
        while slack(lo) > 0 and lo > hi - 200:
            lo -= 2.0
        if slack(lo) > 0:
            return 0.0
        eta_tail = math.exp(brentq(slack, lo, hi, xtol=1e-10))
    best = min(eta_i, eta_tail)
    return best if best > eta_ii else 0.0


def schedule_noise_multipliers(N: int, T: int, L: float, q: float, eta: float, schedule: str,
                               blocks: int = BLOCKS) -> tuple[np.ndarray, np.ndarray]:
    """Noise multipliers ``sigma_t = q sqrt(N / eta_t) / L`` of Algorithm 1 (Li et al. 2019) and how many
    steps use each, with ``eta_t = eta t^{-1/3}`` (decreasing) or ``eta`` (fixed).

    For the decreasing schedule the iterations are grouped into at most ``blocks`` geometric blocks
    and each block gets the multiplier of its *first* step, the smallest in the block: the RDP is
    decreasing in sigma, so the composed RDP is an upper bound (a conservative, valid accounting).
    """
    sigma1 = q * math.sqrt(N / eta) / L
    if schedule == "fixed":
        return np.array([sigma1]), np.array([float(T)])
    edges = np.unique(np.round(np.geomspace(1, T + 1, blocks + 1)).astype(np.int64))
    edges[0], edges[-1] = 1, T + 1
    starts, counts = edges[:-1], np.diff(edges)
    return sigma1 * starts.astype(float) ** (1 / 6), counts.astype(float)


#: Conversions of the composed log moments: "moments" is Abadi et al.'s tail bound
#: delta = min_lam exp(alpha(lam) - lam eps) (:mod:`dpverify.calculus.accounting.moments`); "balle2020" is the
#: tighter modern RDP conversion (Balle et al. 2020, Thm 21) of rdp(lam+1) = alpha(lam)/lam.
CONVERSIONS = ("moments", "balle2020")


def _check_conversion(conversion: str) -> str:
    if conversion not in CONVERSIONS:
        raise ValueError(f"conversion must be one of {CONVERSIONS}; got {conversion!r}")
    return conversion


def _check_orders_grid(orders: str) -> str:
    if orders not in ORDER_GRIDS:
        raise ValueError(f"orders must be one of {ORDER_GRIDS}; got {orders!r}")
    return orders


def _best_lambda(order: float | None) -> float:
    """The moment order lam = alpha - 1 of an RDP conversion's best Renyi order alpha."""
    if order is None:  # not reached: an RDP conversion always names the order it used
        raise ValueError("the conversion did not report the order it used")
    return order - 1.0


def _convert(q: float, sigmas: np.ndarray, counts: np.ndarray, target: float, to: str, conversion: str,
             orders: str = "fractional") -> float:
    """delta at eps = ``target`` (``to="delta"``) or eps at delta = ``target`` from the exact log moments of the
    steps (``sigmas`` repeated ``counts`` times), minimised over orders in two passes (coarse grid, then
    around its best)."""
    steps = np.repeat(sigmas, counts.astype(np.int64))  # composed_log_moments computes each distinct sigma once

    def run(lams: np.ndarray) -> tuple[float, float]:
        alpha = composed_log_moments(q, steps, lams, "exact")
        if conversion == "moments":
            if to == "delta":
                tb = delta_from_log_moments(lams, alpha, target)
                return tb.delta, tb.lam
            tb = epsilon_from_log_moments(lams, alpha, target)
            return tb.epsilon, tb.lam
        orders, rdp = lams + 1.0, alpha / lams
        if to == "delta":
            c = rdp_to_delta(orders, rdp, target, "balle2020")
            return c.delta, _best_lambda(c.order)
        c = rdp_to_dp(orders, rdp, target, "balle2020")
        return c.epsilon, _best_lambda(c.order)

    if orders == "integer":
        value, best = run(INTEGER_LAMBDAS)
        lo, hi = max(1.0, math.floor(best / 1.5)), math.ceil(best * 1.5)
        return min(value, run(np.arange(lo, hi + 1.0))[0])
    value, best = run(EXACT_LAMBDAS)
    # log delta(lam) and eps(lam) are unimodal in lam (the log moment is convex) but can be sharp near the
    # optimum (where subsampling stops amplifying): a fine geometric pass within a factor 1.5 of it
    fine = np.geomspace(best / 1.5, best * 1.5, REFINE_POINTS)
    return min(value, run(fine)[0])


def delta_exact(N: int, T: int, L: float, epsilon: float, q: float, eta: float,
                schedule: str = "decreasing", conversion: str = "moments") -> float:
    """delta of Algorithm 1 at ``epsilon`` from the exact log moments of its noise multipliers
    (:func:`schedule_noise_multipliers`), by the moments-accountant tail bound
    ``min_lam exp(alpha(lam) - lam eps)`` (Li et al. 2019, Thm 1; App. C; :data:`EXACT_LAMBDAS`), or by
    ``conversion="balle2020"``."""
    conversion = _check_conversion(conversion)
    sigmas, counts = schedule_noise_multipliers(N, T, L, q, eta, _check_schedule(schedule))
    return _convert(q, sigmas, counts, epsilon, "delta", conversion)


def epsilon_exact(N: int, T: int, L: float, delta: float, q: float, eta: float,
                  schedule: str = "fixed", conversion: str = "moments", orders: str = "fractional") -> float:
    """epsilon of Algorithm 1 at ``delta`` from the exact log moments of its noise multipliers: the tail bound
    solved for eps, ``min_lam (alpha(lam) + log(1/delta))/lam`` (``conversion="moments"``), or Balle et
    al. 2020's conversion. ``orders="integer"`` restricts lam to integers (to show what that misses)."""
    conversion = _check_conversion(conversion)
    sigmas, counts = schedule_noise_multipliers(N, T, L, q, eta, _check_schedule(schedule))
    return _convert(q, sigmas, counts, delta, "epsilon", conversion, _check_orders_grid(orders))


def eta_max_exact(N: int, T: int, L: float, epsilon: float, delta: float, q: float,
                  schedule: str = "decreasing") -> float:
    """Largest (first) step size whose Algorithm-1 noise gives ``(epsilon, delta)`` by the exact moments
    accountant (:func:`delta_exact`), found by root finding in ``log eta``: Li et al. 2019, App. C's
    computation of ``c2`` (``c2^2 = eps^2 N / (eta_max L^2 T^{2/3} log(1/delta))``) done exactly."""
    N, T, L, epsilon, delta = _validate(N, T, L, epsilon, delta)
    q = check_sampling_rate(q, "q")
    log_target = math.log(delta)

    def f(log_eta: float) -> float:
        d = delta_exact(N, T, L, epsilon, q, math.exp(log_eta), schedule)
        return (math.log(d) if d > 0 else -1e300) - log_target

    guess = math.log(eta_max_lemma2(N, T, L, epsilon, delta, q, schedule))
    lo, hi = guess - 1.0, guess + 1.0
    while f(lo) > 0:
        lo -= 2.0
    while f(hi) < 0:
        hi += 2.0
    root = brentq(f, lo, hi, xtol=1e-9)
    while f(root) > 0:  # brentq's answer can sit just above the root: step down until delta <= target holds
        root -= 1e-9
    return math.exp(root)


def wang_eta_max(N: int, T: int, L: float, epsilon: float, delta: float, *, log_arg_factor: float = 2.5) -> float:
    """Wang et al. 2015's DP-SGLD step bound as quoted by Li et al. 2019 (Sec. 3.1), in Li's units
    (``T`` iterations, Li's step): ``eps^2 N / (128 L^2 T log(2.5 T/delta) log(2/delta))``.

    ``log_arg_factor`` replaces the 2.5 (``1.0`` gives ``log(T/delta)``, the variant that reproduces Li et
    al.'s printed 1.54e-6)."""
    N, T, L, epsilon, delta = _validate(N, T, L, epsilon, delta)
    return epsilon**2 * N / (128 * L**2 * T * math.log(log_arg_factor * T / delta) * math.log(2 / delta))
