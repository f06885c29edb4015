"""The privacy arithmetic of DP-penalty (Yildirim & Ermis 2019) and DP-HMC (Räisä, Koskela & Honkela 2021).

Both algorithms are adaptive compositions of Gaussian mechanisms whose noise is calibrated to the sensitivity, so that
every release has the same ratio ``mu_1 = sensitivity / noise std``:

- a penalty acceptance test releases the clipped log-likelihood ratio sum (sensitivity ``2 b d``) plus noise of
  standard deviation ``tau_l sqrt(N) 2 b d``: ``mu_l = 1 / (tau_l sqrt(N))`` whatever the proposal distance ``d``;
- a DP-HMC gradient evaluation releases the clipped gradient sum (sensitivity ``2 L``) plus isotropic noise of
  standard deviation ``tau_g sqrt(N) 2 L`` per coordinate: ``mu_g = 1 / (tau_g sqrt(N))``.

``k`` iterations of DP-penalty compose ``k`` releases; ``k`` iterations of DP-HMC with ``L`` leapfrog steps compose
``k`` ratio releases and ``k (L + 1)`` gradient releases. Gaussian DP composes exactly (Dong, Roth & Su 2019): the
transcript is ``mu``-GDP with ``mu^2 = k mu_l^2 + k (L + 1) mu_g^2``, i.e. ``rho = mu^2 / 2``-zCDP, and its tight
(epsilon, delta) is the Gaussian curve ``delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu -
mu/2)`` (:func:`dpverify.calculus.mechanisms.gaussian.gaussian_delta`), the ``adp_delta`` of the authors' code.
"""
from __future__ import annotations

import math

from dpverify.calculus.mechanisms.gaussian import gaussian_delta, gaussian_epsilon
from dpverify.validation import check_delta, check_positive_int, check_real

__all__ = ["penalty_mu", "hmc_mu", "composed_mu", "max_iterations", "gdp_epsilon", "gdp_delta"]


def penalty_mu(tau: float, N: int, k: int = 1) -> float:
    """``mu = sqrt(k) / (tau sqrt(N))``: the Gaussian-DP parameter of ``k`` DP-penalty steps with noise scale ``tau``
    on ``N`` records (raisa2021.thm_dp_penalty_privacy)."""
    t = check_real("tau", tau, low=0.0, low_inclusive=False)
    n = check_positive_int(N, "N")
    kk = check_positive_int(k, "k")
    return math.sqrt(kk / (t * t * n))


def hmc_mu(tau_l: float, tau_g: float, L: int, N: int, k: int = 1) -> float:
    """``mu = sqrt(k / (tau_l^2 N) + k (L + 1) / (tau_g^2 N))``: the Gaussian-DP parameter of ``k`` DP-HMC iterations
    with ``L`` leapfrog steps (``k`` ratio releases and ``k (L + 1)`` gradient releases; raisa2021.thm_dp_hmc_privacy)."""
    tl = check_real("tau_l", tau_l, low=0.0, low_inclusive=False)
    tg = check_real("tau_g", tau_g, low=0.0, low_inclusive=False)
    steps = check_positive_int(L, "L")
    n = check_positive_int(N, "N")
    kk = check_positive_int(k, "k")
    return math.sqrt(kk / (tl * tl * n) + kk * (steps + 1) / (tg * tg * n))


def composed_mu(mus) -> float:
    """``sqrt(sum mu_i^2)``: the exact Gaussian-DP composition of Gaussian mechanisms (Dong, Roth & Su 2019)."""
    total = 0.0
    for m in mus:
        total += check_real("mu", m, low=0.0) ** 2
    return math.sqrt(total)


def gdp_epsilon(mu: float, delta: float) -> float:
    """The tight epsilon of ``mu``-GDP at ``delta`` (Balle & Wang 2018, Thm 8)."""
    return gaussian_epsilon(check_delta(delta, allow_zero=False), check_real("mu", mu, low=0.0))


def gdp_delta(mu: float, epsilon: float) -> float:
    """The tight delta of ``mu``-GDP at ``epsilon``."""
    return gaussian_delta(check_real("epsilon", epsilon, low=0.0), check_real("mu", mu, low=0.0))


def max_iterations(epsilon: float, delta: float, mu_per_iteration: float) -> int:
    """The largest ``k >= 0`` whose composition ``sqrt(k) mu_1``-GDP meets ``(epsilon, delta)`` (``delta(epsilon) <=
    delta``): how many iterations a budget buys, as the authors' ``adp_iters`` computes it (by bisection on the
    exact Gaussian delta, which increases in ``k``)."""
    eps = check_real("epsilon", epsilon, low=0.0, low_inclusive=False)
    dlt = check_delta(delta, allow_zero=False)
    m1 = check_real("mu_per_iteration", mu_per_iteration, low=0.0, low_inclusive=False)
    ok = lambda kk: gaussian_delta(eps, math.sqrt(kk) * m1) <= dlt  # noqa: E731 -- decreasing truth in kk
    if not ok(1):
        return 0
    hi = 2
    while ok(hi):
        hi *= 2
        if hi > 2**62:  # pragma: no cover - mu_per_iteration ~ 0
            raise ValueError("mu_per_iteration is too small: the budget buys more than 2^62 iterations")
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo
