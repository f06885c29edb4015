"""Numeric step-size bounds of Li et al. 2019 (Theorems 3 and 4) and of Wang et al. 2015 (as quoted
by Li et al.), evaluated three ways:

- :func:`eta_max_lemma2` -- the closed form of :mod:`dpverify.theorems.li2019_common` (Lemma 2's
  leading term, ``q = 0`` gives Remark 1), with the tail bound minimised over continuous ``lam``;
- :func:`eta_max_exact` -- App. C's recipe with the exact moments accountant: the largest step whose
  Algorithm-1 noise multipliers ``sigma_t = q sqrt(N / eta_t) / L`` give ``delta(eps) <= delta`` by the
  tail bound ``min_lam exp(sum_t alpha_t(lam) - lam eps)`` with ``alpha_t(lam) = lam * rdp_t(lam + 1)``
  (:func:`dpverify.accounting.sampled_gaussian.rdp_sampled_gaussian_composed`);
- :func:`wang_eta_max` -- the quoted Wang et al. bound ``eps^2 N / (128 L^2 T log(2.5 T/delta) log(2/delta))``.

``T`` counts iterations (Li et al., Algorithm 1). The decreasing schedule is
``eta_t = eta t^{-1/3}`` and ``eta`` is its first step (what Figure 1 plots).
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
from scipy.optimize import brentq

from dpverify._validation import check_delta, check_epsilon, check_positive_int, check_real, check_sampling_rate

__all__ = [
    "SCHEDULES",
    "EXACT_LAMBDAS",
    "k_max_float",
    "harmonic_third_float",
    "eta_max_lemma2",
    "eta_max_exact",
    "delta_exact",
    "epsilon_exact",
    "schedule_noise_multipliers",
    "wang_eta_max",
]

SCHEDULES = ("decreasing", "fixed")
#: Moments-accountant orders lam used with the exact accountant (integers, as in Abadi et al.'s code).
EXACT_LAMBDAS = np.unique(np.round(np.geomspace(1, 1024, 40)))
#: Number of geometric blocks of iterations sharing one noise multiplier in :func:`delta_exact`.
BLOCKS = 128


def _check_schedule(schedule: str) -> str:
    if schedule not in SCHEDULES:
        raise ValueError(f"schedule must be one of {SCHEDULES}; got {schedule!r}")
    return schedule


def k_max_float(epsilon: float, delta: float) -> float:
    """Float version of :func:`dpverify.theorems.li2019_common.k_max`."""
    l = math.log(1 / delta)
    return epsilon**2 / (epsilon + 2 * l + 2 * math.sqrt(l * l + epsilon * l))


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


def _log_moments(q: float, sigmas: np.ndarray, counts: np.ndarray, lams: np.ndarray) -> np.ndarray:
    from dpverify.accounting.sampled_gaussian import rdp_sampled_gaussian_composed

    # rdp_sampled_gaussian_composed sums over the given multipliers; weight each block by its size.
    total = np.zeros(lams.size)
    for c in np.unique(counts):
        total += c * rdp_sampled_gaussian_composed(q, sigmas[counts == c], lams + 1.0)
    return lams * total


def delta_exact(N: int, T: int, L: float, epsilon: float, q: float, eta: float,
                schedule: str = "decreasing") -> float:
    """delta of Algorithm 1 at ``epsilon`` by the moments accountant with the exact sampled-Gaussian
    log moments (Li et al. 2019, Thm 1 tail bound; App. C), minimised over :data:`EXACT_LAMBDAS`."""
    from dpverify.accounting.moments import tail_bound_delta

    sigmas, counts = schedule_noise_multipliers(N, T, L, q, eta, _check_schedule(schedule))
    return tail_bound_delta(_log_moments(q, sigmas, counts, EXACT_LAMBDAS), EXACT_LAMBDAS, epsilon)


def epsilon_exact(N: int, T: int, L: float, delta: float, q: float, eta: float,
                  schedule: str = "fixed") -> float:
    """epsilon of Algorithm 1 at ``delta`` by the moments accountant (exact log moments):
    ``min_lam (alpha(lam) + log(1/delta)) / lam`` (Thm 1 tail bound solved for eps)."""
    from dpverify.accounting.moments import tail_bound_epsilon

    sigmas, counts = schedule_noise_multipliers(N, T, L, q, eta, _check_schedule(schedule))
    return tail_bound_epsilon(_log_moments(q, sigmas, counts, EXACT_LAMBDAS), EXACT_LAMBDAS, delta)


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
    return math.exp(brentq(f, lo, hi, xtol=1e-6))


def wang_eta_max(N: int, T: int, L: float, epsilon: float, delta: float, *, log_arg_factor: float = 2.5) -> float:
    """Wang et al. 2015's DP-SGLD step bound as quoted by Li et al. 2019 (Sec. 3.1), in Li's units
    (``T`` iterations, Li's step): ``eps^2 N / (128 L^2 T log(2.5 T/delta) log(2/delta))``.

    ``log_arg_factor`` replaces the 2.5 (``1.0`` gives ``log(T/delta)``, the variant that reproduces Li et
    al.'s printed 1.54e-6)."""
    N, T, L, epsilon, delta = _validate(N, T, L, epsilon, delta)
    return epsilon**2 * N / (128 * L**2 * T * math.log(log_arg_factor * T / delta) * math.log(2 / delta))
