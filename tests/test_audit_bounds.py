"""Clopper-Pearson bounds and the epsilon-from-counts formula (dpverify.audit.bounds)."""
import math

import numpy as np
import pytest
from scipy import stats

from dpverify.audit.bounds import clopper_pearson_lower, clopper_pearson_upper, epsilon_lower_bound


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (500, 1000), (1, 10**6)])
def test_clopper_pearson_matches_beta_quantiles(k, n):
    # Independent recomputation: the one-sided CP bounds are Beta quantiles (Clopper & Pearson 1934).
    a = 0.025
    lo = 0.0 if k == 0 else stats.beta.ppf(a, k, n - k + 1)
    hi = 1.0 if k == n else stats.beta.ppf(1 - a, k + 1, n - k)
    assert clopper_pearson_lower(k, n, a) == pytest.approx(lo, rel=1e-9, abs=1e-15)
    assert clopper_pearson_upper(k, n, a) == pytest.approx(hi, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("alpha", [0.025, 0.05, 0.3])
def test_clopper_pearson_matches_statsmodels(alpha):
    # One-sided bound at alpha = one end of statsmodels' two-sided "beta" interval at 2 alpha.
    from statsmodels.stats.proportion import proportion_confint

    k = np.array([0, 1, 7, 50, 99, 100])
    lo, hi = proportion_confint(k, 100, alpha=2 * alpha, method="beta")
    np.testing.assert_allclose(clopper_pearson_lower(k, 100, alpha), np.nan_to_num(lo, nan=0.0), rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(clopper_pearson_upper(k, 100, alpha), np.nan_to_num(hi, nan=1.0), rtol=1e-9, atol=1e-15)


def test_zero_count_upper_bound_is_rule_of_three():
    # k = 0: the upper bound is 1 - alpha^(1/n) ~ -log(alpha)/n ("rule of three" at alpha = 0.05).
    n = 10**5
    assert clopper_pearson_upper(0, n, 0.05) == pytest.approx(1 - 0.05 ** (1 / n), rel=1e-9)


def test_bound_formula_by_hand():
    # k0 = 600/1000 and k1 = 200/1000, orientation "event, D high": log((L0 - delta)/U1) with
    # one-sided bounds at alpha/2 each, recomputed from Beta quantiles.
    a = 0.05 / 2
    l0 = stats.beta.ppf(a, 600, 401)
    u1 = stats.beta.ppf(1 - a, 201, 800)
    for delta in (0.0, 0.1):
        got = epsilon_lower_bound(600, 1000, 200, 1000, delta=delta, alpha=0.05, orientation=(False, True))
        assert got == pytest.approx(math.log((l0 - delta) / u1), rel=1e-9)


def test_all_orientations_take_the_max_with_alpha_over_four():
    # Orientation None = max over 4 orientations with alpha/4 per one-sided bound; a fixed orientation
    # with alpha/2 per bound is therefore larger for the best orientation, and symmetric in swaps.
    free = epsilon_lower_bound(600, 1000, 200, 1000, alpha=0.05)
    fixed = epsilon_lower_bound(600, 1000, 200, 1000, alpha=0.05, orientation=(False, True))
    assert 0 < free < fixed
    assert epsilon_lower_bound(200, 1000, 600, 1000, alpha=0.05) == pytest.approx(free)
    assert epsilon_lower_bound(400, 1000, 800, 1000, alpha=0.05) == pytest.approx(free)  # complement


def test_bound_is_zero_without_evidence_and_monotone_in_delta_and_candidates():
    assert epsilon_lower_bound(500, 1000, 500, 1000) == 0.0
    assert epsilon_lower_bound(5, 1000, 0, 1000, delta=0.01) == 0.0  # p_hi lower bound below delta
    e = [epsilon_lower_bound(600, 1000, 200, 1000, delta=d) for d in (0.0, 0.05, 0.2)]
    assert e[0] > e[1] > e[2] > 0
    assert epsilon_lower_bound(600, 1000, 200, 1000, candidates=10) < e[0]


def test_vectorised_over_candidates():
    k0 = np.array([600, 700, 0])
    got = epsilon_lower_bound(k0, 1000, 200, 1000)
    assert got.shape == (3,)
    assert got[1] > got[0] > 0 and got[2] > 0


@pytest.mark.parametrize("kwargs,match", [
    (dict(k0=11, n0=10, k1=0, n1=10), "counts"),
    (dict(k0=1, n0=0, k1=0, n1=10), "n0"),
    (dict(k0=1, n0=10, k1=0, n1=10, delta=1.0), "delta"),
    (dict(k0=1, n0=10, k1=0, n1=10, alpha=0.0), "alpha"),
])
def test_bad_arguments(kwargs, match):
    args = [kwargs.pop(k) for k in ("k0", "n0", "k1", "n1")]
    with pytest.raises(ValueError, match=match):
        epsilon_lower_bound(*args, **kwargs)
