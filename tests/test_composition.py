"""Composition (basic, advanced, Kairouz-Oh-Viswanath optimal) and subsampling amplification."""
import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.calculus.composition import (
    advanced_composition,
    basic_composition,
    optimal_homogeneous_composition,
    optimal_homogeneous_delta,
)
from dpverify.calculus.guarantees import ApproxDP
from dpverify.calculus.subsampling import amplify_poisson, amplify_substitution, beimel_subsampling


def brute_force_rr_delta(eps0: float, k: int, eps: float) -> float:
    """Hockey-stick divergence of k-fold randomized response by enumerating all 2^k outputs.

    One RR step outputs 1 w.p. e^eps0/(1+e^eps0) under D and 1/(1+e^eps0) under D'. Independent of
    the closed form in dpverify.calculus.composition (no binomial coefficients, no log space).
    """
    p1 = math.exp(eps0) / (1 + math.exp(eps0))
    total = 0.0
    for bits in itertools.product([0, 1], repeat=k):
        ones = sum(bits)
        p = p1**ones * (1 - p1) ** (k - ones)
        q = (1 - p1) ** ones * p1 ** (k - ones)
        total += max(0.0, p - math.exp(eps) * q)
    return total


@pytest.mark.parametrize("eps0, k", [(0.3, 1), (0.5, 5), (1.0, 8), (0.1, 12)])
def test_kov_matches_brute_force_randomized_response(eps0, k):
    for eps in np.linspace(0, k * eps0, 7):
        assert optimal_homogeneous_delta(eps0, 0.0, k, eps) == pytest.approx(
            brute_force_rr_delta(eps0, k, eps), rel=1e-10, abs=1e-15
        )


def test_kov_with_delta0():
    # 1 - (1 - delta0)^k (1 - delta_RR): with delta_RR = 0 at eps = k eps0 the cost is 1 - (1-delta0)^k.
    assert optimal_homogeneous_delta(0.5, 1e-3, 4, 2.0) == pytest.approx(1 - (1 - 1e-3) ** 4)


def test_kov_never_worse_than_advanced_and_basic():
    for eps0, k in [(0.1, 100), (0.01, 10_000), (0.5, 30)]:
        adv = advanced_composition(eps0, 0.0, k, 1e-5)
        opt = optimal_homogeneous_composition(eps0, 0.0, k, 1e-5)
        assert opt.epsilon <= adv.epsilon
        assert opt.epsilon <= k * eps0


def test_kov_large_k_is_finite_and_monotone():
    e1 = optimal_homogeneous_composition(1e-3, 0.0, 10**6, 1e-5).epsilon
    e2 = optimal_homogeneous_composition(1e-3, 0.0, 4 * 10**6, 1e-5).epsilon
    assert math.isfinite(e1) and e1 < e2 < 4 * e1  # grows like sqrt(k) in this regime


def test_advanced_composition_formula():
    # Dwork & Roth Thm 3.20: eps' = sqrt(2k ln(1/delta')) eps + k eps (e^eps - 1).
    got = advanced_composition(0.1, 1e-6, 50, 1e-5)
    assert got.epsilon == pytest.approx(math.sqrt(100 * math.log(1e5)) * 0.1 + 50 * 0.1 * (math.exp(0.1) - 1))
    assert got.delta == pytest.approx(50e-6 + 1e-5)


def test_basic_composition():
    g = basic_composition([ApproxDP(0.5, 1e-6), ApproxDP(0.25, 0.0)])
    assert (g.epsilon, g.delta) == (0.75, 1e-6)
    with pytest.raises(ValueError, match="at least one"):
        basic_composition([])


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-3, 5.0), st.integers(1, 2000), st.floats(1e-12, 0.1))
def test_composition_never_below_single_mechanism(eps0, k, delta_total):
    opt = optimal_homogeneous_composition(eps0, 0.0, k, delta_total)
    single = optimal_homogeneous_composition(eps0, 0.0, 1, delta_total)
    assert opt.epsilon >= single.epsilon - 1e-12
    assert advanced_composition(eps0, 0.0, k, delta_total).epsilon >= single.epsilon - 1e-12


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-6, 100.0), st.floats(1e-300, 1.0, exclude_max=True), st.floats(0.0, 0.5))
def test_amplification_never_increases_epsilon(eps, q, delta):
    for f in (amplify_poisson, amplify_substitution):
        g = f(eps, delta, q)
        assert g.epsilon <= eps + 1e-12 and g.delta <= delta
        assert math.isfinite(g.epsilon) and not math.isnan(g.epsilon)


@settings(max_examples=60, deadline=None)
@given(st.floats(1e-3, 50.0), st.floats(1e-4, 0.9), st.floats(1e-4, 0.1))
def test_amplification_monotone_in_rate_and_epsilon(eps, q, dq):
    assert amplify_poisson(eps, 0, q).epsilon <= amplify_poisson(eps, 0, min(1.0, q + dq)).epsilon
    assert amplify_poisson(eps, 0, q).epsilon <= amplify_poisson(eps + dq, 0, q).epsilon


def test_amplification_values():
    assert amplify_poisson(1.0, 1e-5, 0.01).epsilon == pytest.approx(math.log(1 + 0.01 * (math.e - 1)))
    assert amplify_poisson(1.0, 1e-5, 1.0).epsilon == 1.0
    # e^700 overflows nowhere: log(1 + q e^eps) with log q = -690.78
    assert amplify_poisson(700.0, 0.0, 1e-300).epsilon == pytest.approx(math.log1p(math.exp(700 - 300 * math.log(10))), rel=1e-9)
    assert amplify_poisson(100.0, 0.0, 1e-300).epsilon == pytest.approx(1e-300 * math.expm1(100.0), rel=1e-9)
    g = beimel_subsampling(0.5, 1e-5, 0.1)
    assert (g.epsilon, g.delta) == pytest.approx((0.1, 1e-5))
    with pytest.raises(ValueError, match="epsilon must be in"):
        beimel_subsampling(1.5, 1e-5, 0.1)
