"""The one-run bounds (dpverify.audit.one_run_bounds) against independent computations.

- Steinke et al. 2023, Theorem 3.1: a direct implementation in mpmath (exact binomial sums at 40 digits, the p-value
  written term by term from the theorem, bisection on eps), compared over a grid of (m, r, v, delta) to 1e-3.
- Mahloujifar et al. 2025, Algorithm 3: the f-DP constraints written as a linear program over the law of the number
  of right guesses C (q_k = P[C = k]): maximise P[C >= v] subject to, for i = 1..r,
  ``E[C 1{C >= i}] / m <= fbar(E[(r - C) 1{C >= i-1}] / m)``. For the (eps, delta) curve fbar is the minimum of two
  lines, so the program is an exact LP; for a Gaussian curve fbar is concave and its tangent lines give a relaxation
  (a larger feasible set: the LP's maximum is an upper bound, its certificate a lower bound). The recursion must
  reject exactly when the program's maximum is below alpha; the certificates agree to 1e-3.
"""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.special import ndtr, ndtri

from dpverify.audit.one_run_bounds import (
    fdp_rejects,
    gaussian_mu,
    inverse_power,
    one_run_epsilon,
    steinke_p_value,
)
from dpverify.calculus.tradeoff import GaussianDP, approx_dp_curve

ALPHA = 0.05


# -- Steinke et al. 2023, Theorem 3.1, independently -------------------------------------------------------------------


def mp_steinke_p_value(m: int, r: int, v: int, eps: float, delta: float) -> mp.mpf:
    """Theorem 3.1 term by term, at 40 digits."""
    with mp.workdps(40):
        q = mp.e ** eps / (1 + mp.e ** eps)
        pmf = [mp.binomial(r, k) * q ** k * (1 - q) ** (r - k) for k in range(r + 1)]
        tail = [mp.mpf(0)] * (r + 2)  # tail[k] = P[Binomial(r, q) >= k], summed from the top
        for k in range(r, -1, -1):
            tail[k] = tail[k + 1] + pmf[k]
        fv = tail[v]
        worst = max([(tail[v - i] - fv) / i for i in range(1, v + 1)], default=mp.mpf(0))
        return min(mp.mpf(1), fv + 2 * m * delta * worst)


def mp_steinke_epsilon(m, r, v, delta, alpha=ALPHA) -> float:
    if not mp_steinke_p_value(m, r, v, 0.0, delta) < alpha:
        return 0.0
    lo, hi = 0.0, 1.0
    while mp_steinke_p_value(m, r, v, hi, delta) < alpha:
        lo, hi = hi, 2 * hi
    for _ in range(16):  # bracket width <= 8 / 2^16 ~ 1e-4, inside the 1e-3 of the comparison
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if mp_steinke_p_value(m, r, v, mid, delta) < alpha else (lo, mid)
    return lo


STEINKE_GRID = [(100, 20, 20, 0.0), (100, 20, 17, 1e-5), (1000, 100, 90, 1e-5), (1000, 300, 300, 1e-5),
                (1000, 50, 46, 1e-3), (10_000, 200, 180, 1e-6), (10_000, 300, 230, 1e-5), (500, 250, 200, 0.0)]


@pytest.mark.parametrize("m, r, v, delta", STEINKE_GRID)
def test_steinke_epsilon_matches_mpmath(m, r, v, delta):
    ours = one_run_epsilon(m, r, v, alpha=ALPHA, delta=delta, method="steinke")
    assert ours == pytest.approx(mp_steinke_epsilon(m, r, v, delta), abs=1e-3)


@pytest.mark.parametrize("m, r, v, delta", STEINKE_GRID[:4])
@pytest.mark.parametrize("eps", [0.5, 2.0, 5.0])
def test_steinke_p_value_matches_mpmath(m, r, v, delta, eps):
    assert steinke_p_value(m, r, v, eps, delta) == pytest.approx(float(mp_steinke_p_value(m, r, v, eps, delta)),
                                                                 rel=1e-9, abs=1e-15)


def test_steinke_all_right_guesses_without_delta_is_log_closed_form():
    """r right of r guesses, delta = 0: the p-value is q^r, so the certificate solves q^r = alpha, i.e.
    eps = logit(alpha^(1/r))."""
    r = 30
    expected = math.log(ALPHA ** (1 / r) / (1 - ALPHA ** (1 / r)))
    assert one_run_epsilon(1000, r, r, alpha=ALPHA) == pytest.approx(expected, abs=1e-5)


# -- Mahloujifar et al. 2025, Algorithm 3, independently ---------------------------------------------------------------


def lp_max_tail(m: int, r: int, v: int, cuts) -> float:
    """max P[C >= v] over laws of C on {0..r} under ``E[C 1{C>=i}]/m <= slope * E[(r-C) 1{C>=i-1}]/m + intercept``
    for every cut (slope, intercept) and every i = 1..r."""
    k = np.arange(r + 1)
    rows, rhs = [], []
    for i in range(1, r + 1):
        right = np.where(k >= i, k, 0) / m
        wrong = np.where(k >= i - 1, r - k, 0) / m
        for slope, intercept in cuts:
            rows.append(right - slope * wrong)
            rhs.append(intercept)
    res = linprog(-(k >= v).astype(float), A_ub=np.array(rows), b_ub=np.array(rhs), A_eq=np.ones((1, r + 1)),
                  b_eq=[1.0], bounds=(0, None), method="highs")
    assert res.status == 0
    return -res.fun


def approx_dp_cuts(eps, delta):
    """fbar(a) = min(delta + e^eps a, 1 - e^-eps (1 - delta) + e^-eps a) (and <= 1, implied)."""
    return [(math.exp(eps), delta), (math.exp(-eps), 1 - math.exp(-eps) * (1 - delta))]


def gaussian_cuts(mu, n=120):
    """Tangents of fbar(a) = Phi(Phi^-1(a) + mu) (concave): each lies above it, a relaxation."""
    a = np.logspace(-9, -1e-9, n)
    z = ndtri(a)
    slope = np.exp(-0.5 * (z + mu) ** 2 + 0.5 * z ** 2)  # phi(z + mu) / phi(z)
    return list(zip(slope, ndtr(z + mu) - slope * a))


def certificate(rejects, hi=30.0):
    if not rejects(1e-9):
        return 0.0
    lo = 0.0
    while hi - lo > 1e-5:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if rejects(mid) else (lo, mid)
    return lo


FDP_GRID = [(100, 20, 19, 1e-5), (1000, 40, 38, 1e-5), (1000, 30, 30, 0.0), (5000, 60, 55, 1e-6),
            (300, 50, 40, 1e-3), (2000, 80, 70, 1e-5)]


@pytest.mark.parametrize("m, r, v, delta", FDP_GRID)
def test_fdp_approx_dp_matches_exact_linear_program(m, r, v, delta):
    ours = one_run_epsilon(m, r, v, alpha=ALPHA, delta=delta, method="fdp", curve="approx_dp")
    lp = certificate(lambda eps: lp_max_tail(m, r, v, approx_dp_cuts(eps, delta)) < ALPHA)
    assert ours == pytest.approx(lp, abs=1e-3)


@pytest.mark.parametrize("m, r, v", [(1000, 20, 20), (1000, 24, 22)])
def test_fdp_gaussian_matches_tangent_linear_program(m, r, v):
    """Certified mu of the Gaussian curve: the LP's (a relaxation: never above) within 1e-3 below the recursion's."""
    ours = certificate(lambda mu: fdp_rejects(m, r, v, inverse_power(GaussianDP(mu)), ALPHA), hi=8.0)
    lp = certificate(lambda mu: lp_max_tail(m, r, v, gaussian_cuts(mu)) < ALPHA, hi=8.0)
    assert lp <= ours + 1e-5
    assert ours - lp < 1e-3


def test_fdp_curve_callable_agrees_with_named_family():
    """A family given as TradeOffCurve objects (PiecewiseLinearCurve, interpolated inverse) certifies the same as the
    closed-form inverse of the named "approx_dp" family."""
    named = one_run_epsilon(1000, 100, 92, delta=1e-5, method="fdp", curve="approx_dp")
    given = one_run_epsilon(1000, 100, 92, delta=1e-5, method="fdp", curve=lambda e: approx_dp_curve(e, 1e-5))
    assert given == pytest.approx(named, abs=1e-5)
    gauss = one_run_epsilon(1000, 100, 92, delta=1e-5, method="fdp")
    via_object = one_run_epsilon(1000, 100, 92, delta=1e-5, method="fdp",
                                 curve=lambda e: GaussianDP(gaussian_mu(e, 1e-5)))
    assert via_object == pytest.approx(gauss, abs=1e-6)


# -- properties ----------------------------------------------------------------------------------------------------


def test_certificates_grow_with_right_guesses_and_fall_with_delta():
    m, r = 1000, 100
    for method in ("steinke", "fdp"):
        values = [one_run_epsilon(m, r, v, delta=1e-5, method=method) for v in (60, 70, 80, 90, 100)]
        assert values == sorted(values) and values[0] < values[-1]
    loose = one_run_epsilon(m, r, 90, delta=1e-3)
    tight = one_run_epsilon(m, r, 90, delta=1e-8)
    assert loose < tight


def test_gaussian_family_beats_steinke_and_approx_dp_family_matches_it():
    """At the same counts, the Gaussian curve certifies more than Steinke's bound (Mahloujifar et al.'s point); the
    (eps, delta) curve certifies about the same as Steinke (both test the same claim)."""
    m, r, v = 10_000, 1000, 885
    steinke = one_run_epsilon(m, r, v, delta=1e-5)
    gaussian = one_run_epsilon(m, r, v, delta=1e-5, method="fdp")
    approx = one_run_epsilon(m, r, v, delta=1e-5, method="fdp", curve="approx_dp")
    assert gaussian > 1.25 * steinke
    assert approx == pytest.approx(steinke, rel=0.05)


def test_chance_level_guesses_certify_nothing():
    assert one_run_epsilon(1000, 200, 100, delta=1e-5) == 0.0
    assert one_run_epsilon(1000, 200, 100, delta=1e-5, method="fdp") == 0.0
    assert one_run_epsilon(1000, 0, 0) == 0.0


@pytest.mark.parametrize("kwargs, match", [
    (dict(m=0, r=0, v=0), "m"), (dict(m=10, r=11, v=0), "r"), (dict(m=10, r=5, v=6), "v"),
    (dict(m=10, r=5, v=3, alpha=1.0), "alpha"), (dict(m=10, r=5, v=3, delta=-1e-5), "delta"),
    (dict(m=10, r=5, v=3, method="bayes"), "method"), (dict(m=10, r=5, v=3, method="fdp", curve="laplace"), "curve"),
    (dict(m=10, r=5, v=3, method="fdp", delta=0.0), "delta > 0"),
    (dict(m=10, r=5, v=3, method="steinke", curve="gaussian"), "curve"),
])
def test_bad_arguments_name_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        one_run_epsilon(**kwargs)


def test_curve_callable_must_return_a_curve():
    with pytest.raises(TypeError, match="TradeOffCurve"):
        one_run_epsilon(100, 20, 19, delta=1e-5, method="fdp", curve=lambda e: 0.5)
