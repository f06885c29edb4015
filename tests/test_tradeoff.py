"""Trade-off curves and their conversions (issue 22, section 1): closed forms, dp-accounting, round trips, and the
direction of every approximation (a claim's curve never above the truth, its profile never below)."""
from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from dpverify.calculus.accounting.pld import gaussian_pld, pure_dp_pld, subsampled_gaussian_pld
from dpverify.calculus.guarantees import ApproxDP, Claim, Conversion, PrivacyProfile, PureDP, RenyiDP
from dpverify.calculus.mechanisms.gaussian import gaussian_delta
from dpverify.calculus.mechanisms.laplace import laplace_delta
from dpverify.calculus.tradeoff import GaussianDP, LaplaceDP, PiecewiseLinearCurve, approx_dp_curve
from dpverify.calculus.tradeoff_conversions import (
    as_privacy_profile,
    as_tradeoff_curve,
    neyman_pearson_curve,
    pld_curve,
    pld_profile,
    pointwise_minimum,
    profile_curve,
)

#: Type I errors from 1e-12 to 1 (log-spaced) plus 0: where audits look (tails included).
ALPHAS = np.concatenate([[0.0], np.logspace(-12, 0, 1201)])
#: Floating-point slack for "never above the true curve" (the PLD discretisation is exact at its grid points up to
#: FFT and split round-off, measured <= 5e-15 here).
ROUNDING = 1e-12


#: A fine grid for numerical conjugates: ALPHAS and 200,001 even points.
CONJUGATE_GRID = np.union1d(ALPHAS, np.linspace(0.0, 1.0, 200_001))


def numerical_conjugate_delta(curve, epsilon: float) -> float:
    """1 - min_a (f(a) + e^eps a) on a fine grid: an independent (slightly low) evaluation of DRS 2022, Prop. 2.12."""
    return 1.0 - float(np.min(curve(CONJUGATE_GRID) + math.exp(epsilon) * CONJUGATE_GRID))


# ---------------------------------------------------------------------------------------------------- GaussianDP


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 3.0])
def test_gaussian_curve_is_g_mu(mu):
    a = np.linspace(0.001, 0.999, 999)
    expected = stats.norm.cdf(stats.norm.ppf(1 - a) - mu)  # DRS 2022, Def. 2.6, as written there
    assert np.allclose(GaussianDP(mu)(a), expected, rtol=1e-12, atol=1e-15)


def test_gaussian_curve_keeps_precision_in_the_tails():
    """G_mu(a) = Phi(-Phi^-1(a) - mu): at a = 1e-300, 1 - a rounds to 1 and Phi^-1(1 - a) would be inf."""
    with mp.workdps(50):
        for a, mu in [(1e-300, 1.0), (1e-20, 5.0), (1e-10, 10.0)]:
            exact = mp.ncdf(-mp.sqrt(2) * mp.erfinv(2 * mp.mpf(a) - 1) - mu)
            assert GaussianDP(mu)(a) == pytest.approx(float(exact), rel=1e-9)
        # the far right: G_mu(1 - 1e-12) is tiny but positive
        assert 0.0 < GaussianDP(3.0)(1 - 1e-12) < 1e-12


@pytest.mark.parametrize("mu", [0.0, 0.5, 2.0])
def test_gaussian_curve_is_a_symmetric_trade_off_function(mu):
    g = GaussianDP(mu)
    f = g(ALPHAS)
    assert f[0] == 1.0 and g(1.0) == 0.0
    assert np.all(np.diff(f) <= 1e-15) and np.all(f <= 1 - ALPHAS + 1e-15)
    a = np.linspace(0.01, 0.99, 99)
    assert np.allclose(g(g(a)), a, atol=1e-12)  # symmetric: f = f^-1 (DRS 2022, Sec. 2)
    second = np.diff(g(a), 2)
    assert np.all(second >= -1e-12)  # convex


def test_gaussian_profile_is_exact_and_matches_dp_accounting():
    """delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (DRS 2022, Cor. 2.13), and dp-accounting's PLD of
    the Gaussian mechanism (sigma = 1/mu, pessimistic connect-the-dots) agrees to its discretisation error."""
    from dp_accounting.pld import privacy_loss_distribution as dpa

    for mu in (0.5, 2.0):
        g = GaussianDP(mu)
        reference = dpa.from_gaussian_mechanism(1.0 / mu, value_discretization_interval=1e-4)
        for eps in (0.0, 0.5, 1.0, 3.0):
            closed = stats.norm.cdf(-eps / mu + mu / 2) - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2)
            assert g.delta(eps) == pytest.approx(closed, rel=1e-10)
            assert g.delta(eps) == pytest.approx(reference.get_delta_for_epsilon(eps), rel=1e-6)
            # the curve's conjugate, on a grid (independent of the closed form), lands on the same number
            assert numerical_conjugate_delta(g, eps) == pytest.approx(g.delta(eps), abs=1e-6)
        for delta in (1e-3, 1e-5, 1e-10):
            assert g.epsilon(delta) == pytest.approx(reference.get_epsilon_for_delta(delta), rel=1e-5)
            assert g.delta(g.epsilon(delta)) == pytest.approx(delta, rel=1e-8)
    assert GaussianDP(0.0).delta(0.0) == 0.0 and GaussianDP(0.0).epsilon(0.0) == 0.0
    assert GaussianDP(1.0).epsilon(0.0) == math.inf


def test_gaussian_profile_claim_and_at_delta():
    g = GaussianDP(1.0)
    profile = g.to_profile()
    assert isinstance(profile, PrivacyProfile)
    assert profile.delta(1.0) == gaussian_delta(1.0, 1.0)
    assert profile.epsilon(1e-5) == g.epsilon(1e-5)  # the closed-form inverse, not bisection
    assert g.at_delta(1e-5) == ApproxDP(g.epsilon(1e-5), 1e-5)


# ----------------------------------------------------------------------------------------------------- LaplaceDP


@pytest.mark.parametrize("mu", [0.2, 1.0, 3.0])
def test_laplace_curve_is_the_neyman_pearson_curve_of_two_laplace_laws(mu):
    """Threshold tests {x > c} of Lap(0, 1) against Lap(mu, 1), computed with scipy: (alpha, beta) on the curve."""
    c = np.linspace(-8.0, 8.0 + mu, 4001)
    alpha = stats.laplace.sf(c, loc=0.0)
    beta = stats.laplace.cdf(c, loc=mu)
    assert np.allclose(LaplaceDP(mu)(alpha), beta, rtol=1e-9, atol=1e-15)


def test_laplace_profile_and_stronger_than_pure_dp():
    lap = LaplaceDP(1.0)
    for eps in (0.0, 0.3, 0.9, 1.0, 2.0):
        assert lap.delta(eps) == laplace_delta(eps, 1.0)
        assert numerical_conjugate_delta(lap, eps) == pytest.approx(lap.delta(eps), abs=1e-6)
    assert lap.epsilon(0.1) == pytest.approx(1.0 + 2 * math.log(0.9))
    pure = approx_dp_curve(1.0, 0.0)
    assert np.all(lap(ALPHAS) >= pure(ALPHAS) - 1e-15)
    assert lap(0.25) > pure(0.25) + 0.01  # strictly stronger in the middle


# ------------------------------------------------------------------------------------------ (eps, delta) curves


def test_approx_dp_curve_is_the_wasserman_zhou_curve():
    eps, delta = 1.2, 1e-3
    curve = approx_dp_curve(eps, delta)
    expected = np.maximum.reduce([np.zeros_like(ALPHAS), 1 - delta - math.exp(eps) * ALPHAS,
                                  math.exp(-eps) * (1 - delta - ALPHAS)])
    assert np.allclose(curve(ALPHAS), expected, atol=1e-15)
    # its profile: delta at eps itself, the randomized-response profile below eps (plus delta), 0 beyond
    assert curve.delta(eps) == pytest.approx(delta, abs=1e-15)
    for e in (0.0, 0.5):
        rr = (math.exp(eps) - math.exp(e)) / (1 + math.exp(eps))
        assert curve.delta(e) == pytest.approx(delta + (1 - delta) * rr, rel=1e-12)
    assert curve.epsilon(delta) == pytest.approx(eps, rel=1e-12)
    assert curve.epsilon(delta / 2) == math.inf  # no epsilon reaches a smaller delta
    assert approx_dp_curve(0.7).epsilon(0.0) == pytest.approx(0.7, rel=1e-12)  # pure DP
    # vacuous guarantees constrain nothing
    assert np.all(approx_dp_curve(math.inf, 1e-5)(ALPHAS) == 0.0)
    assert np.all(approx_dp_curve(1.0, 1.0)(ALPHAS) == 0.0)


def test_piecewise_linear_curve_validates_its_vertices():
    ok = PiecewiseLinearCurve(np.array([0.0, 0.5, 0.5, 1.0]), np.array([1.0, 0.4, 0.3, 0.0]))
    assert ok(0.5) == 0.3  # repeated alpha: the smaller beta
    with pytest.raises(ValueError, match="non-increasing"):
        PiecewiseLinearCurve(np.array([0.0, 0.5, 1.0]), np.array([0.4, 0.5, 0.0]))
    with pytest.raises(ValueError, match="1 - alphas"):
        PiecewiseLinearCurve(np.array([0.0, 0.5, 1.0]), np.array([1.0, 0.9, 0.0]))
    with pytest.raises(ValueError, match="from 0 to 1"):
        PiecewiseLinearCurve(np.array([0.1, 1.0]), np.array([0.9, 0.0]))
    with pytest.raises(ValueError, match="alphas must lie in"):
        PiecewiseLinearCurve(np.array([0.0, np.nan, 1.0]), np.array([1.0, 0.5, 0.0]))
    with pytest.raises(ValueError, match="same length"):
        PiecewiseLinearCurve(np.array([0.0, 1.0]), np.array([1.0, 0.5, 0.0]))


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="mu"):
        GaussianDP(-1.0)
    with pytest.raises(ValueError, match="mu"):
        GaussianDP(math.inf)
    with pytest.raises(ValueError, match="alpha must lie in"):
        GaussianDP(1.0)(1.5)
    with pytest.raises(ValueError, match="alpha must lie in"):
        GaussianDP(1.0)([0.1, np.nan])
    with pytest.raises(TypeError, match="alpha"):
        GaussianDP(1.0)("x")
    with pytest.raises(ValueError, match="epsilon"):
        GaussianDP(1.0).delta(-0.5)
    with pytest.raises(ValueError, match="delta"):
        GaussianDP(1.0).epsilon(1.5)
    with pytest.raises(TypeError, match="guarantee must be"):
        as_tradeoff_curve("1-GDP")
    with pytest.raises(TypeError, match="profile must be a PrivacyProfile"):
        profile_curve(GaussianDP(1.0))
    with pytest.raises(ValueError, match="epsilons"):
        profile_curve(GaussianDP(1.0).to_profile(), epsilons=[-1.0, 2.0])


# ------------------------------------------------------------------------------------------ profile -> curve


@pytest.mark.parametrize("mu", [0.5, 1.0, 3.0])
def test_profile_curve_of_gdp_profile_is_g_mu_from_below(mu):
    """DRS 2022, Prop. 2.12 and Cor. 2.13: the supremum of f_{eps, delta(eps)} over a grid of eps approaches G_mu from
    below (a supremum over fewer lines is lower: a weaker claim)."""
    g = GaussianDP(mu)
    curve = profile_curve(g.to_profile())
    gap = g(ALPHAS) - curve(ALPHAS)
    assert gap.min() >= -ROUNDING
    assert gap.max() < 2e-4 * max(1.0, mu)
    # a grid and a subset of it: fewer lines, a lower curve
    fine_grid = np.linspace(0, g.epsilon(1e-14), 981)
    fine = profile_curve(g.to_profile(), epsilons=fine_grid)
    coarse = profile_curve(g.to_profile(), epsilons=fine_grid[::20])
    assert np.all(coarse(ALPHAS) <= fine(ALPHAS) + ROUNDING) and np.all(fine(ALPHAS) <= g(ALPHAS) + ROUNDING)
    assert np.max(fine(ALPHAS) - coarse(ALPHAS)) > 1e-4  # (the subset is visibly weaker)


def test_profile_curve_is_convex_and_symmetric():
    curve = profile_curve(LaplaceDP(2.0).to_profile())
    assert np.all(curve(ALPHAS) <= LaplaceDP(2.0)(ALPHAS) + ROUNDING)
    slopes = np.diff(curve.betas) / np.diff(curve.alphas)
    assert np.all(np.diff(slopes) >= -1e-9)  # the upper envelope of lines is convex
    a = np.linspace(0.0, 1.0, 1001)
    assert np.allclose(curve(curve(a)), a, atol=1e-9)  # both line families: symmetric


# ------------------------------------------------------------------------------------------------ PLD -> curve


def test_neyman_pearson_curve_of_randomized_response():
    """Randomized response with eps: loss +-eps with P-masses e^eps/(1+e^eps), 1/(1+e^eps); its curve is
    f_{eps,0} (Kairouz, Oh, Viswanath 2015)."""
    eps = 1.3
    p = math.exp(eps) / (1 + math.exp(eps))
    curve = neyman_pearson_curve([eps, -eps], [p, 1 - p])
    assert np.allclose(curve(ALPHAS), approx_dp_curve(eps, 0.0)(ALPHAS), atol=1e-15)
    pld = pld_curve(pure_dp_pld(eps, interval=1e-4))
    assert np.all(pld(ALPHAS) <= curve(ALPHAS) + ROUNDING)  # eps = 1.3 is on the grid: exact up to rounding
    assert np.allclose(pld(ALPHAS), curve(ALPHAS), atol=1e-9)
    # off the grid the connect-the-dots split lowers the curve (a weaker claim), by about the grid width
    off = 1.23456
    split = pld_curve(pure_dp_pld(off, interval=1e-2))
    exact = approx_dp_curve(off, 0.0)
    assert np.all(split(ALPHAS) <= exact(ALPHAS) + ROUNDING)
    assert 1e-5 < np.max(exact(ALPHAS) - split(ALPHAS)) < 1e-2


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_pld_curve_of_gaussian_is_g_mu_from_below(mu):
    g = GaussianDP(mu)
    curve = pld_curve(gaussian_pld(mu))
    gap = g(ALPHAS) - curve(ALPHAS)
    assert gap.min() >= -ROUNDING  # pessimistic laws: never above the true curve
    assert gap.max() < 1e-6


def test_pld_curve_of_subsampled_gaussian_bounds_both_orders():
    """The mixture pair P = (1-q) N(0,1) + q N(mu,1), Q = N(0,1): tests of H0 = Q reject for large x, so
    T(Q, P)(a) = (1 - q)(1 - a) + q G_mu(a); T(P, Q) is its inverse. pld_curve is below min(T, T^-1), close to it."""
    q, mu = 0.3, 1.5
    forward = lambda a: (1 - q) * (1 - a) + q * GaussianDP(mu)(a)  # noqa: E731
    x = np.linspace(-12, 12, 200001)
    # tests of H0 = P reject for small x: alpha = P(x <= c), beta = Q(x > c)
    alpha_b, beta_b = stats.norm.cdf(x) * (1 - q) + q * stats.norm.cdf(x - mu), stats.norm.sf(x)
    backward = PiecewiseLinearCurve(np.concatenate([[0.0], alpha_b, [1.0]]),
                                    np.concatenate([[1.0], beta_b, [0.0]]))  # chords: at most 1e-9 above T(P, Q)
    exact = np.minimum(forward(ALPHAS), backward(ALPHAS))
    curve = pld_curve(subsampled_gaussian_pld(q, mu))
    assert np.all(curve(ALPHAS) <= exact + 1e-8)
    assert np.max(exact - curve(ALPHAS)) < 1e-5
    assert curve(0.05) < forward(0.05) - 1e-3 or curve(0.05) < backward(0.05)  # asymmetric pair: the min matters
    assert not np.allclose(forward(ALPHAS), backward(ALPHAS), atol=1e-3)


def test_pld_curve_and_profile_agree_with_the_pld_bracket_and_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution as dpa

    # the same connect-the-dots construction on the same grid (1e-3): dp-accounting's numbers agree to ~1e-12
    pld = subsampled_gaussian_pld(0.2, 1.0, interval=1e-3).self_compose(10)
    curve = pld_curve(pld)
    profile = pld_profile(pld)
    reference = dpa.from_gaussian_mechanism(1.0, sampling_prob=0.2, value_discretization_interval=1e-3).self_compose(10)
    for eps in (0.0, 0.5, 1.0, 2.0, 4.0):
        lower, upper = pld.delta_bounds(eps)
        assert profile.delta(eps) == upper  # the conservative end of the bracket
        assert curve.delta(eps) == pytest.approx(upper, rel=1e-9, abs=1e-15)  # conjugate of the NP curves
        assert curve.delta(eps) >= lower
        assert curve.delta(eps) == pytest.approx(reference.get_delta_for_epsilon(eps), rel=1e-9, abs=1e-15)
    for delta in (1e-3, 1e-6):
        assert profile.epsilon(delta) == pld.epsilon_bounds(delta)[1]
        assert curve.epsilon(delta) == pytest.approx(pld.epsilon_bounds(delta)[1], rel=1e-9)


def test_pointwise_minimum_is_exact_at_crossings():
    a = PiecewiseLinearCurve(np.array([0.0, 0.5, 1.0]), np.array([1.0, 0.1, 0.0]))
    b = PiecewiseLinearCurve(np.array([0.0, 0.2, 1.0]), np.array([0.6, 0.4, 0.0]))
    m = pointwise_minimum(a, b)
    x = np.linspace(0, 1, 100001)
    assert np.allclose(m(x), np.minimum(a(x), b(x)), atol=1e-15)
    for eps in (0.0, 0.7):
        assert m.delta(eps) == pytest.approx(max(a.delta(eps), b.delta(eps)), abs=1e-15)


# ----------------------------------------------------------------------------------------------- round trips


def test_round_trip_gdp_profile_curve_profile():
    """mu-GDP -> profile (closed form) -> curve (Prop. 2.12 on a grid) -> profile (exact conjugate): the delta comes
    back, from above (weaker), within the grid's error; and the epsilon too."""
    g = GaussianDP(1.0)
    curve = profile_curve(g.to_profile())
    for eps in (0.0, 0.25, 1.0, 2.5, 5.0):
        assert g.delta(eps) - 1e-15 <= curve.delta(eps) <= g.delta(eps) + 1e-4 * max(g.delta(eps), 1e-3)
    for delta in (1e-2, 1e-5, 1e-9):
        assert g.epsilon(delta) - 1e-12 <= curve.epsilon(delta) <= g.epsilon(delta) + 5e-3


def test_round_trip_pld_curve_profile_curve():
    """PLD -> curve (Neyman-Pearson) -> profile (conjugate) -> curve (Prop. 2.12): below the first curve, close."""
    curve = pld_curve(gaussian_pld(1.0))
    again = profile_curve(curve.to_profile())
    assert np.all(again(ALPHAS) <= curve(ALPHAS) + ROUNDING)
    assert np.max(curve(ALPHAS) - again(ALPHAS)) < 2e-4


def test_privacy_profile_uses_its_inverse_when_given():
    calls = []
    profile = PrivacyProfile(lambda e: gaussian_delta(e, 1.0), "gdp", epsilon_of_delta=lambda d: calls.append(d) or 7.0)
    assert profile.epsilon(1e-5) == 7.0 and calls == [1e-5]
    bisected = PrivacyProfile(lambda e: gaussian_delta(e, 1.0)).epsilon(1e-5)
    assert bisected == pytest.approx(GaussianDP(1.0).epsilon(1e-5))


# ------------------------------------------------------------------------------------------- one vocabulary


def test_every_guarantee_converts_to_a_curve_and_a_profile():
    g = GaussianDP(1.0)
    eps = g.epsilon(1e-5)
    assert as_tradeoff_curve(g) is g and as_privacy_profile(g.to_profile()).delta(1.0) == g.delta(1.0)
    for guarantee, curve in [
        (PureDP(1.0), approx_dp_curve(1.0, 0.0)),
        (ApproxDP(eps, 1e-5), approx_dp_curve(eps, 1e-5)),
        (Conversion(eps, 1e-5, None, "pld"), approx_dp_curve(eps, 1e-5)),
        (Claim(eps, 1e-5, "x"), approx_dp_curve(eps, 1e-5)),
    ]:
        converted = as_tradeoff_curve(guarantee)
        assert np.allclose(converted(ALPHAS), curve(ALPHAS), atol=1e-15)
        assert converted(ALPHAS).max() <= 1.0
        assert np.all(converted(ALPHAS) <= g(ALPHAS) + 1e-12) or guarantee.epsilon < eps  # implied by 1-GDP
        assert as_privacy_profile(guarantee).epsilon(guarantee.delta or 1e-9) <= guarantee.epsilon + 1e-12
    # an RDP curve (the Gaussian's: alpha mu^2 / 2, Mironov 2017, Prop. 7) converts through its profile: weaker
    orders = np.linspace(1.1, 200, 500)
    rdp = RenyiDP(tuple(orders), tuple(orders * 0.5))
    curve = as_tradeoff_curve(rdp)
    assert np.all(curve(ALPHAS) <= g(ALPHAS) + ROUNDING)
    assert as_privacy_profile(rdp).delta(1.0) >= g.delta(1.0)
    assert as_privacy_profile(rdp).epsilon(1e-5) >= g.epsilon(1e-5)
    # a PLD
    pld = gaussian_pld(1.0)
    assert np.allclose(as_tradeoff_curve(pld)(ALPHAS), g(ALPHAS), atol=1e-6)
    assert as_privacy_profile(pld).delta(1.0) == pld.delta_bounds(1.0)[1]
