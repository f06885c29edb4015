"""Agreement with the authors' public code of DP-penalty and DP-HMC (issue 39).

Repository DPBayes/DP-HMC-experiments, commit ff8b828e8fc150ee59a3a271ef33dd75dd17bfe5 ("DP-HMC code"), files
``dp_penalty.py`` (``zcdp_iters``, ``adp_delta``, ``adp_iters``) and ``hmc.py`` (the same for DP-HMC). Their formulas
are re-typed below in our own words (numpy/math instead of jax; the logic of the accounting, not the code):

- DP-penalty: per-iteration zCDP ``1 / (2 tau^2 n)``; after ``k`` iterations ``delta(eps) = 0.5 (erfc((eps - k m) / (2
  sqrt(k m))) - e^eps erfc((eps + k m) / (2 sqrt(k m))))`` with ``m = 1 / (2 tau^2 n)``; the zCDP iteration count
  ``int(2 tau^2 n (sqrt(eps - log delta) - sqrt(-log delta))^2)``; ``adp_iters`` bisects the iteration count on
  ``adp_delta``;
- DP-HMC: ``rho = k / (2 tau^2 n) + k (L + 1) / (2 tau_g^2 n)`` (or ``k L + 1`` gradient evaluations with
  ``compute_less_grad``), the same ``delta(eps)`` with ``k m`` replaced by ``rho``.

Our encoding: the catalogue items raisa2021.thm_dp_penalty_privacy / thm_dp_hmc_privacy (their sympy conclusion,
evaluated through mpmath at 30 digits), yildirim2019.cor_penalty_composition (the zCDP conversion) and
dpverify.calculus.penalty (the samplers' arithmetic). Agreement is pinned to 1e-9 relative on grids of at least 50
points (delta values below 1e-12 are left out: there the code's erfc difference has lost its relative precision).
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
import sympy as sp

from dpverify.calculus.penalty import hmc_mu, max_iterations, penalty_mu
from dpverify.calculus.mechanisms.gaussian import gaussian_delta
from dpverify.theorems.raisa2021.dp_hmc import THM_HMC, THM_PENALTY
from dpverify.theorems.yildirim2019.penalty import COR_COMPOSITION


# -- the authors' formulas, re-typed ------------------------------------------------------------------------------------
def code_penalty_adp_delta(k, epsilon, tau, n):
    m = 1 / (2 * tau**2 * n)
    div = 2 * math.sqrt(m * k)
    return 0.5 * (math.erfc((epsilon - k * m) / div) - math.exp(epsilon) * math.erfc((epsilon + k * m) / div))


def code_zcdp_rho(epsilon, delta):
    return (math.sqrt(epsilon - math.log(delta)) - math.sqrt(-math.log(delta))) ** 2


def code_penalty_zcdp_iters(epsilon, delta, tau, n):
    return int(2 * tau**2 * n * code_zcdp_rho(epsilon, delta))


def code_hmc_adp_delta(k, epsilon, tau, tau_g, L, n, compute_less_grad=False):
    grad_evals = k * L + 1 if compute_less_grad else k * (L + 1)
    m = k / (2 * tau**2 * n) + grad_evals / (2 * tau_g**2 * n)
    return 0.5 * (math.erfc((epsilon - m) / (2 * math.sqrt(m))) - math.exp(epsilon) * math.erfc((epsilon + m) / (2 * math.sqrt(m))))


def code_adp_iters(delta_fn, low_iters, delta):
    """The code's bisection: double an upper bound while delta stays below the target, then bisect (on floats)."""
    up = max(low_iters, 1)
    while delta_fn(up) < delta:
        up *= 2
    low = low_iters
    while int(up) - int(low) > 1:
        new = (low + up) / 2
        if delta_fn(new) > delta:
            up = new
        else:
            low = new
    return int(up) if delta_fn(int(up)) < delta else int(low)


# -- our encoding, fast ----------------------------------------------------------------------------------------------
def _lambdified(theorem, names):
    expr = theorem.conclusion["delta"]
    syms = [theorem.symbols[n] for n in names]
    return sp.lambdify(syms, expr, modules="mpmath")


PENALTY_DELTA = _lambdified(THM_PENALTY, ["tau_l", "N", "k", "epsilon"])
HMC_DELTA = _lambdified(THM_HMC, ["tau_l", "tau_g", "n_leapfrog", "N", "k", "epsilon"])


def _grid(seed, size, draw):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < size:
        point = draw(rng)
        if point is not None:
            out.append(point)
    return out


def _penalty_point(rng):
    tau, n, k, eps = float(rng.uniform(0.03, 2)), int(rng.integers(10, 200_000)), int(rng.integers(1, 5000)), \
        float(rng.uniform(0.1, 15))
    return (tau, n, k, eps) if code_penalty_adp_delta(k, eps, tau, n) > 1e-12 else None


PENALTY_GRID = _grid(1, 60, _penalty_point)


def _hmc_point(rng):
    tau, tau_g = float(rng.uniform(0.03, 2)), float(rng.uniform(0.03, 2))
    L, n, k, eps = int(rng.integers(1, 30)), int(rng.integers(10, 200_000)), int(rng.integers(1, 3000)), \
        float(rng.uniform(0.1, 15))
    return (tau, tau_g, L, n, k, eps) if code_hmc_adp_delta(k, eps, tau, tau_g, L, n) > 1e-12 else None


HMC_GRID = _grid(2, 60, _hmc_point)


def test_penalty_delta_agrees_with_the_code_on_60_points():
    """raisa2021.thm_dp_penalty_privacy's delta (mpmath, 30 digits) and dpverify's gaussian_delta at mu = sqrt(k)/(tau
    sqrt n) against dp_penalty.py's adp_delta, re-typed: rel 1e-9 on 60 random points (delta > 1e-12)."""
    worst_item, worst_calc = 0.0, 0.0
    with mp.workdps(30):
        for tau, n, k, eps in PENALTY_GRID:
            code = code_penalty_adp_delta(k, eps, tau, n)
            item = float(PENALTY_DELTA(mp.mpf(tau), mp.mpf(n), mp.mpf(k), mp.mpf(eps)))
            calc = gaussian_delta(eps, penalty_mu(tau, n, k))
            worst_item = max(worst_item, abs(item - code) / code)
            worst_calc = max(worst_calc, abs(calc - code) / code)
    assert len(PENALTY_GRID) >= 50
    assert worst_item < 1e-9 and worst_calc < 1e-9, (worst_item, worst_calc)


def test_hmc_delta_agrees_with_the_code_on_60_points():
    """raisa2021.thm_dp_hmc_privacy's delta and gaussian_delta at dpverify.calculus.penalty.hmc_mu against hmc.py's
    adp_delta (compute_less_grad=False), re-typed: rel 1e-9 on 60 random points (delta > 1e-12)."""
    worst_item, worst_calc = 0.0, 0.0
    with mp.workdps(30):
        for tau, tau_g, L, n, k, eps in HMC_GRID:
            code = code_hmc_adp_delta(k, eps, tau, tau_g, L, n)
            item = float(HMC_DELTA(*(mp.mpf(v) for v in (tau, tau_g, L, n, k, eps))))
            calc = gaussian_delta(eps, hmc_mu(tau, tau_g, L, n, k))
            worst_item = max(worst_item, abs(item - code) / code)
            worst_calc = max(worst_calc, abs(calc - code) / code)
    assert worst_item < 1e-9 and worst_calc < 1e-9, (worst_item, worst_calc)


def test_zcdp_conversion_agrees_with_zcdp_iters_on_60_points():
    """yildirim2019.cor_penalty_composition's epsilon at rho, fed to the code's zcdp_iters inversion (sqrt(eps -
    log delta) - sqrt(-log delta))^2, gives rho back to 1e-9 relative (60 points); and the code's iteration count
    int(2 tau^2 n rho) is the largest k whose composed rho k/(2 tau^2 n) is <= that rho."""
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(60):
        k, sens, sigma, delta = int(rng.integers(1, 10_000)), float(rng.uniform(0.01, 3)), float(rng.uniform(0.1, 50)), \
            float(10 ** rng.uniform(-10, -2))
        ev = COR_COMPOSITION.evaluate(k=k, sensitivity=sens, sigma=sigma, delta=delta)
        back = code_zcdp_rho(ev.epsilon, delta)
        worst = max(worst, abs(back - ev.rho) / ev.rho)
    assert worst < 1e-9, worst
    for tau, n, eps, delta in ((0.05, 100_000, 2.0, 1e-6), (0.3, 1000, 1.0, 1e-5), (1.0, 50, 4.0, 1e-3)):
        iters = code_penalty_zcdp_iters(eps, delta, tau, n)
        rho = code_zcdp_rho(eps, delta)
        assert iters / (2 * tau**2 * n) <= rho < (iters + 1) / (2 * tau**2 * n)


def test_iteration_budgets_agree_with_adp_iters():
    """dpverify.calculus.penalty.max_iterations (exact bisection on gaussian_delta) against the code's adp_iters
    (float bisection on its adp_delta) at 30 budgets each for DP-penalty and DP-HMC, including the experiments'
    gauss settings (n = 1e5, delta = 0.1/n): equal iteration counts (the code's strict < against our <= can differ
    only on an exact tie, which these points do not hit)."""
    rng = np.random.default_rng(4)
    cases = [(0.05, 100_000, e, 1e-6) for e in (2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 15.0)]
    cases += [(float(rng.uniform(0.05, 1)), int(rng.integers(50, 50_000)), float(rng.uniform(0.5, 10)),
               float(10 ** rng.uniform(-8, -3))) for _ in range(23)]
    for tau, n, eps, delta in cases:
        ours = max_iterations(eps, delta, penalty_mu(tau, n))
        code = code_adp_iters(lambda kk: code_penalty_adp_delta(kk, eps, tau, n),
                              code_penalty_zcdp_iters(eps, delta, tau, n), delta)
        assert ours == code, (tau, n, eps, delta, ours, code)
    for tau, tau_g, L, n, eps, delta in [(0.1, 0.25, 12, 100_000, e, 1e-6) for e in (2.0, 6.0, 15.0)] + [
            (float(rng.uniform(0.05, 1)), float(rng.uniform(0.05, 1)), int(rng.integers(1, 20)),
             int(rng.integers(50, 50_000)), float(rng.uniform(0.5, 10)), float(10 ** rng.uniform(-8, -3)))
            for _ in range(27)]:
        rho_l, rho_g = 1 / (2 * tau**2 * n), 1 / (2 * tau_g**2 * n)
        low = int(code_zcdp_rho(eps, delta) / (rho_l + (L + 1) * rho_g))
        code = code_adp_iters(lambda kk: code_hmc_adp_delta(kk, eps, tau, tau_g, L, n), low, delta)
        ours = max_iterations(eps, delta, hmc_mu(tau, tau_g, L, n))
        assert ours == code, (tau, tau_g, L, n, eps, delta, ours, code)


@pytest.mark.parametrize("k", [1, 7, 40])
def test_compute_less_grad_is_cheaper_and_not_what_we_encode(k):
    """The code's compute_less_grad counts k L + 1 gradient evaluations instead of k (L + 1): a smaller delta for k > 1,
    the same at k = 1; the encoded item is the default (k (L + 1))."""
    default = code_hmc_adp_delta(k, 2.0, 0.5, 0.5, 4, 100)
    less = code_hmc_adp_delta(k, 2.0, 0.5, 0.5, 4, 100, compute_less_grad=True)
    item = THM_HMC.evaluate(tau_l=0.5, tau_g=0.5, n_leapfrog=4, N=100, k=k, epsilon=2.0).delta
    assert item == pytest.approx(default, rel=1e-9)
    assert (less < default) if k > 1 else less == pytest.approx(default, rel=1e-12)
