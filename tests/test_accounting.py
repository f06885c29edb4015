"""Exact RDP of the subsampled Gaussian, the RDP accountant and the moments accountant.

Independent references: dp-accounting 0.6 (integer orders: binomial expansion, same math, other code),
mpmath quadrature of the defining integral at 30 digits, and closed forms at alpha = 2, 3 and q = 1.
"""
import functools
import logging
import math

import dp_accounting
import mpmath as mp
import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant as dpa
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpverify.calculus.accounting import (
    DEFAULT_ORDERS,
    RdpAccountant,
    epsilon_sampled_gaussian,
    rdp_sampled_gaussian,
    rdp_sampled_gaussian_composed,
)
from dpverify.calculus.accounting import sampled_gaussian as sg
from dpverify.calculus.accounting.moments import (
    composed_log_moments,
    delta_from_log_moments,
    epsilon_from_log_moments,
    li2019_log_moment_approx,
    li2019_log_moment_bound,
    log_moment_sampled_gaussian,
)
from dpverify.calculus.conversions import rdp_to_dp
from dpverify.calculus.guarantees import RenyiDP

logging.getLogger("absl").setLevel(logging.ERROR)  # dp-accounting warns on its non-converging series

ORDERS = np.array(DEFAULT_ORDERS)
INTEGER = ORDERS == np.round(ORDERS)
SIGMAS = (0.5, 0.8, 1.1, 2.0, 4.0)
RATES = (1e-3, 0.01, 0.1, 1.0)
STEPS = (1, 100, 10**4)


@functools.lru_cache(maxsize=None)
def _pair(q, sigma):
    """(ours, dp-accounting) one-step RDP on the default orders."""
    return rdp_sampled_gaussian(q, sigma, ORDERS), dpa._compute_rdp_poisson_subsampled_gaussian(q, sigma, ORDERS)


def _mp_rdp(q, sigma, alpha, direction="A"):
    """RDP by mpmath quadrature of the defining integral (MTZ 2019): A = E_mu0[(mu/mu0)^alpha],
    B = E_mu[(mu0/mu)^alpha] with mu0 = N(0, s^2), mu = (1-q) N(0, s^2) + q N(1, s^2)."""
    with mp.workdps(30):
        q, s, a = mp.mpf(q), mp.mpf(sigma), mp.mpf(alpha)
        ratio = lambda z: 1 - q + q * mp.exp((2 * z - 1) / (2 * s**2))  # mu/mu0
        if direction == "A":
            f = lambda z: mp.npdf(z, 0, s) * ratio(z) ** a
        else:
            f = lambda z: mp.npdf(z, 0, s) * ratio(z) ** (1 - a)
        z0 = s**2 * mp.log(1 / q - 1) + mp.mpf(1) / 2 if q < 1 else 0
        val = mp.quad(f, [-mp.inf, -10 * s, 0, z0, a, a + 20 * s, mp.inf])
        return float(mp.log(val) / (a - 1))


# ---------------------------------------------------------------------------------------------
# agreement with dp-accounting on the grid sigma x q x steps


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("q", RATES)
def test_rdp_matches_dp_accounting_at_integer_orders(q, sigma):
    ours, theirs = _pair(q, sigma)
    np.testing.assert_allclose(ours[INTEGER], theirs[INTEGER], rtol=1e-6)


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("q", RATES)
def test_fractional_orders_never_above_dp_accounting(q, sigma):
    # dp-accounting sums the MTZ series with |C(alpha, i)| (an upper bound) or gives inf when the
    # series does not converge in 1000 terms; ours is the exact integral (checked against mpmath below).
    ours, theirs = _pair(q, sigma)
    assert np.all(np.isfinite(ours))
    assert np.all(ours[~INTEGER] <= theirs[~INTEGER] * (1 + 1e-9))


@pytest.mark.parametrize("sigma", SIGMAS)
@pytest.mark.parametrize("q", RATES)
@pytest.mark.parametrize("steps", STEPS)
def test_epsilon_matches_dp_accounting(q, sigma, steps):
    ours, theirs = _pair(q, sigma)
    delta = 1e-5
    # Same orders, integer ones only: same RDP, so the same epsilon and order.
    e_int = rdp_to_dp(ORDERS[INTEGER], steps * ours[INTEGER], delta)
    t_int = dpa.compute_epsilon(ORDERS[INTEGER], steps * theirs[INTEGER], delta)
    assert e_int.epsilon == pytest.approx(t_int[0], rel=1e-6)
    assert e_int.order == t_int[1]
    # All default orders: the conversions agree on either curve, and ours is never larger.
    acc = RdpAccountant().compose_sampled_gaussian(q, sigma, steps)
    e = acc.get_epsilon(delta)
    assert e.epsilon == pytest.approx(dpa.compute_epsilon(ORDERS, steps * ours, delta)[0], rel=1e-9)
    t = dpa.compute_epsilon(ORDERS, steps * theirs, delta)[0]
    assert rdp_to_dp(ORDERS, steps * theirs, delta).epsilon == pytest.approx(t, rel=1e-9)
    assert e.epsilon <= t * (1 + 1e-6)


def test_accountant_matches_dp_accounting_rdp_accountant():
    # dp-accounting's own accountant, self-composed event and a heterogeneous ComposedDpEvent.
    q, sigmas = 0.01, (0.9, 1.3, 2.0)
    ev = dp_accounting.ComposedDpEvent(
        [dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)) for s in sigmas]
    )
    ref = dpa.RdpAccountant(list(ORDERS[INTEGER]))
    ref.compose(dp_accounting.SelfComposedDpEvent(ev, 7))
    acc = RdpAccountant(ORDERS[INTEGER]).compose_sampled_gaussian_schedule(q, list(sigmas) * 7)
    np.testing.assert_allclose(acc.rdp, ref._rdp, rtol=1e-9)
    assert acc.get_epsilon(1e-6).epsilon == pytest.approx(ref.get_epsilon(1e-6), rel=1e-9)
    assert acc.get_delta(2.0).delta == pytest.approx(ref.get_delta(2.0), rel=1e-9)


def test_reference_point_dp_sgd_mnist():
    # sigma = 1.1, q = 256/60000, 14062 steps (60 epochs), delta = 1e-5. dp-accounting 0.6
    # RdpAccountant gives 2.596556 (dp-accounting 0.6.0 RdpAccountant with its default orders); we get 2.5965558690 at order 8.1.
    c = epsilon_sampled_gaussian(1.1, 256 / 60000, 14062, 1e-5)
    print(f"reference point: epsilon = {c.epsilon:.10f} at order {c.order} ({c.method})")
    assert c.epsilon == pytest.approx(2.596556, abs=5e-7)
    assert c.order == 8.1 and c.method == "balle2020"
    ref = dpa.RdpAccountant()
    ref.compose(dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(256 / 60000, dp_accounting.GaussianDpEvent(1.1)), 14062))
    assert c.epsilon == pytest.approx(ref.get_epsilon(1e-5), rel=1e-6)


# ---------------------------------------------------------------------------------------------
# exactness: mpmath, closed forms, the dp-accounting series erratum


@pytest.mark.parametrize(
    "q, sigma, alpha",
    [(0.1, 2.0, 1.5), (0.1, 4.0, 1.1), (0.1, 1.1, 1.1), (0.1, 0.5, 1.5), (1e-3, 2.0, 3.5),
     (0.01, 1.1, 10.5), (0.05, 0.3, 7.3), (1e-6, 10.0, 2.5), (0.5, 1.0, 20.25), (0.01, 0.8, 1.001)],
)
def test_fractional_orders_match_mpmath_quadrature(q, sigma, alpha):
    assert rdp_sampled_gaussian(q, sigma, [alpha])[0] == pytest.approx(_mp_rdp(q, sigma, alpha), rel=1e-9)


def test_dp_accounting_fractional_series_is_loose():
    # Erratum (dp-accounting 0.6, TF-Privacy, Opacus): the fractional-order series is summed with
    # |C(alpha, i)|. At sigma = 4, q = 0.1 it reports rdp(1.1) = 8.416e-4, above the exact 3.527e-4
    # and even above rdp(2) = log(1 + q^2 (e^(1/16) - 1)) = 6.45e-4, which monotonicity of D_alpha forbids.
    ours, theirs = _pair(0.1, 4.0)
    i11 = int(np.flatnonzero(ORDERS == 1.1)[0])
    assert ours[i11] == pytest.approx(_mp_rdp(0.1, 4.0, 1.1), rel=1e-9)
    assert ours[i11] == pytest.approx(3.5274e-4, rel=1e-4)
    assert theirs[i11] == pytest.approx(8.4158e-4, rel=1e-4)
    rdp2 = math.log1p(0.01 * math.expm1(1 / 16))
    assert ours[i11] < rdp2 < theirs[i11]
    # Where dp-accounting's series does not converge it returns inf; ours is finite and exact.
    assert np.isinf(_pair(0.1, 1.1)[1][0])
    assert _pair(0.1, 1.1)[0][0] == pytest.approx(_mp_rdp(0.1, 1.1, 1.1), rel=1e-9)


@pytest.mark.parametrize("q, sigma, alpha", [(0.1, 2.0, 1.5), (0.01, 1.1, 10.5), (0.3, 0.7, 4.0)])
def test_reverse_direction_is_not_larger(q, sigma, alpha):
    # The RDP of the SGM is max(A, B) directions; the module computes A. Check B <= A here.
    assert _mp_rdp(q, sigma, alpha, "B") <= rdp_sampled_gaussian(q, sigma, [alpha])[0] * (1 + 1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(-12, 0), st.floats(0.3, 20.0))
def test_closed_forms_at_orders_2_and_3(log10_q, sigma):
    # With x = q (r - 1), E[x] = 0, E[r^k] = exp(k(k-1)/(2 sigma^2)):
    # A_2 = 1 + q^2 (e^(1/s^2) - 1); A_3 = 1 + 3 q^2 (e^(1/s^2) - 1) + q^3 (e^(3/s^2) - 3 e^(1/s^2) + 2).
    q = 10.0**log10_q
    e1, e3 = math.expm1(1 / sigma**2), math.expm1(3 / sigma**2)
    a2 = math.log1p(q * q * e1)
    a3 = math.log1p(3 * q * q * e1 + q**3 * (e3 - 3 * e1)) / 2
    got = rdp_sampled_gaussian(q, sigma, [2.0, 3.0])
    assert got[0] == pytest.approx(a2, rel=1e-12)
    assert got[1] == pytest.approx(a3, rel=1e-10)


def test_q_one_is_the_gaussian_mechanism():
    np.testing.assert_allclose(rdp_sampled_gaussian(1.0, 2.0, [1.5, 2, 100]), np.array([1.5, 2, 100]) / 8.0)


def test_quadrature_agrees_with_binomial_sum_at_integer_orders():
    # The fractional-order code path evaluated at integer orders (nudged by 1e-12) vs the binomial sum.
    for q, sigma in [(1e-3, 1.1), (0.1, 0.5), (0.01, 4.0)]:
        ints = np.array([2.0, 5.0, 17.0, 63.0])
        a = rdp_sampled_gaussian(q, sigma, ints)
        b = rdp_sampled_gaussian(q, sigma, ints + 1e-12)
        np.testing.assert_allclose(a, b, rtol=1e-9)


@pytest.mark.parametrize("q", [1e-6, 1e-3, 256 / 60000, 0.05])
def test_certified_series_agrees_with_quadrature(q):
    # Many sigmas switch on the truncated-series path for fractional orders; where it certifies a
    # result it must agree with the trapezoidal quadrature (itself checked against mpmath above).
    sig = np.geomspace(0.5, 30.0, 80)
    for alpha in (1.1, 1.5, 3.7, 10.9, 40.5):
        vals, ok = sg._log_a_frac_series(q, sig, alpha)
        assert ok[-1]  # sigma = 30 is well inside the series' regime
        ref = sg._log_a_quadrature(q, sig[ok], np.array([alpha]))[:, 0]
        np.testing.assert_allclose(vals[ok], ref, rtol=1e-10)
    composed = rdp_sampled_gaussian_composed(q, sig, [1.5, 3.7])
    single = sum(rdp_sampled_gaussian(q, s, [1.5, 3.7]) for s in sig)
    np.testing.assert_allclose(composed, single, rtol=1e-10)


def test_large_orders_and_tiny_rates_stay_finite():
    r = rdp_sampled_gaussian(1e-3, 1.0, [1e4, 1e4 + 0.5, 1e5, 2.0**22 + 1])
    assert np.all(np.isfinite(r)) and np.all(np.diff(r) >= 0)
    # at huge orders the SGM is essentially the unsampled Gaussian: rdp -> alpha / (2 sigma^2)
    assert r[2] == pytest.approx(1e5 / 2, rel=1e-3)
    tiny = rdp_sampled_gaussian(1e-15, 1.0, [1.5, 2.0, 64.0])
    assert np.all(tiny > 0) and tiny[1] == pytest.approx(1e-30 * math.expm1(1.0), rel=1e-10)


@settings(max_examples=40, deadline=None)
@given(st.floats(-6, 0), st.floats(0.3, 10.0), st.floats(1.01, 60.0), st.floats(1.01, 60.0))
def test_rdp_monotone_in_order_rate_and_noise(log10_q, sigma, a1, a2):
    q = 10.0**log10_q
    lo, hi = sorted((a1, a2))
    r = rdp_sampled_gaussian(q, sigma, [lo, hi])
    assert not np.any(np.isnan(r))
    assert r[0] <= r[1] * (1 + 1e-9)  # D_alpha is non-decreasing in alpha
    assert rdp_sampled_gaussian(min(1.0, 2 * q), sigma, [hi])[0] >= r[1] * (1 - 1e-9)
    assert rdp_sampled_gaussian(q, 1.5 * sigma, [hi])[0] <= r[1] * (1 + 1e-9)


# ---------------------------------------------------------------------------------------------
# the accountant


@settings(max_examples=40, deadline=None)
@given(st.floats(1e-4, 1.0), st.floats(0.4, 8.0), st.integers(1, 10**5), st.floats(1e-300, 0.5))
def test_composition_never_below_one_step_and_never_nan(q, sigma, steps, delta):
    one = RdpAccountant().compose_sampled_gaussian(q, sigma)
    many = RdpAccountant().compose_sampled_gaussian(q, sigma, steps)
    assert np.all(many.rdp >= one.rdp)
    e1, et = one.get_epsilon(delta), many.get_epsilon(delta)
    assert not math.isnan(e1.epsilon) and not math.isnan(et.epsilon)
    assert et.epsilon >= e1.epsilon
    for eps in (1e-3, 1.0, 100.0):
        d1, dt = one.get_delta(eps).delta, many.get_delta(eps).delta
        assert not math.isnan(dt) and 0.0 <= d1 <= dt <= 1.0


def test_schedule_equals_repeated_steps_and_compose_adds_curves():
    a = RdpAccountant().compose_sampled_gaussian(0.02, 1.3, steps=50)
    b = RdpAccountant().compose_sampled_gaussian_schedule(0.02, [1.3] * 50)
    np.testing.assert_allclose(a.rdp, b.rdp, rtol=1e-12)
    sig = 1.1 * np.arange(1, 201) ** (1 / 6)  # Li et al. 2019: sigma_t^2 proportional to t^(1/3)
    c = RdpAccountant().compose_sampled_gaussian_schedule(0.02, sig)
    loop = sum(rdp_sampled_gaussian(0.02, s, ORDERS) for s in sig)
    np.testing.assert_allclose(c.rdp, loop, rtol=1e-10)
    np.testing.assert_allclose(rdp_sampled_gaussian_composed(0.02, sig, ORDERS), loop, rtol=1e-10)
    d = RdpAccountant().compose(c.guarantee).compose(a.guarantee)
    np.testing.assert_allclose(d.rdp, c.rdp + a.rdp)
    with pytest.raises(ValueError, match="no RDP value"):
        RdpAccountant().compose(RenyiDP((2.0,), (0.1,)))


# ---------------------------------------------------------------------------------------------
# the moments accountant (Li et al. 2019)


def test_log_moment_is_lambda_times_rdp():
    lams = np.array([0.5, 1.0, 7.0, 31.5])
    np.testing.assert_allclose(
        log_moment_sampled_gaussian(0.01, 1.5, lams), lams * rdp_sampled_gaussian(0.01, 1.5, lams + 1), rtol=1e-12
    )


@settings(max_examples=80, deadline=None)
@given(st.floats(1.1, 20.0), st.floats(0.0, 1.0), st.floats(0.0, 1.0))
@example(sigma=9.0, uq=0.83203125, ul=1.0)  # lam on the boundary, where the two ways of computing it differed
def test_lemma2_bounds_the_exact_log_moment_where_it_applies(sigma, uq, ul):
    # Li et al. 2019, Lemma 2, leading term (without the O(q^3)), for sigma >= 1.1; see the erratum below.
    q = 1e-5 + uq * (1 / (16 * sigma) - 2e-5)
    # the admissible lam up to the boundary sigma^2 ln(1/(q sigma)), computed as the bound checks it (-ln(q sigma));
    # ln(1/(q sigma)) can be an ulp larger, and at ul = 1 hypothesis found that lam one ulp outside (sigma 9, uq 0.832)
    lam = max(1e-3, ul * (sigma * sigma * -math.log(q * sigma)))
    b = li2019_log_moment_bound(q, sigma, lam)
    assert b.holds and b.failed == []
    assert log_moment_sampled_gaussian(q, sigma, lam)[0] <= b.value * (1 + 1e-9)


def test_lemma2_leading_term_fails_near_sigma_one():
    # Erratum: the O(q^3) term of Lemma 2 matters at sigma = 1, q = 0.05, lam = ln 20 (the largest
    # admissible): exact alpha(lam) is 8.4 % above q^2 lam (lam+1) / ((1-q) sigma^2).
    lam = math.log(20.0)
    b = li2019_log_moment_bound(0.05, 1.0, lam * (1 - 1e-12))
    assert b.holds
    exact = log_moment_sampled_gaussian(0.05, 1.0, b.lam)[0]
    assert exact / b.value == pytest.approx(1.0836, abs=1e-3)


@pytest.mark.parametrize(
    "q, sigma, lam, failed",
    [
        (0.01, 2.0, 5.0, []),
        (0.01, 0.9, 1.0, ["sigma_ge_1"]),
        (0.05, 2.0, 1.0, ["q_lt_1_over_16_sigma"]),
        (0.001, 1.0, 7.0, ["lam_le_sigma2_log_1_over_q_sigma"]),  # ln(1000) = 6.91
        (0.5, 0.5, 9.0, ["sigma_ge_1", "q_lt_1_over_16_sigma", "lam_le_sigma2_log_1_over_q_sigma"]),
    ],
)
def test_lemma2_reports_each_condition(q, sigma, lam, failed):
    b = li2019_log_moment_bound(q, sigma, lam)
    assert b.failed == failed and b.holds == (not failed)
    assert b.value == pytest.approx(q * q * lam * (lam + 1) / ((1 - q) * sigma**2), rel=1e-15)


def test_remark1_and_composed_log_moments():
    lams = np.array([1.0, 4.0, 16.0])
    sig = np.array([1.2, 1.5, 3.0, 3.0])
    assert li2019_log_moment_approx(0.01, 2.0, 3.0)[0] == pytest.approx(1e-4 * 12 / 4)
    want = sum(li2019_log_moment_approx(0.01, s, lams) for s in sig)
    np.testing.assert_allclose(composed_log_moments(0.01, sig, lams, "li2019_remark1"), want, rtol=1e-12)
    np.testing.assert_allclose(composed_log_moments(0.01, sig, lams, "li2019_lemma2"), want / 0.99, rtol=1e-12)
    exact = sum(log_moment_sampled_gaussian(0.01, s, lams) for s in sig)
    np.testing.assert_allclose(composed_log_moments(0.01, sig, lams), exact, rtol=1e-12)


def test_tail_bound_is_mironov_conversion_at_lambda_plus_one():
    lams = np.arange(1.0, 64.0)
    alpha_total = composed_log_moments(256 / 60000, np.full(1000, 1.1), lams)
    tb = epsilon_from_log_moments(lams, alpha_total, 1e-5)
    conv = rdp_to_dp(lams + 1, alpha_total / lams, 1e-5, method="mironov2017")
    assert tb.epsilon == pytest.approx(conv.epsilon, rel=1e-12) and tb.order == conv.order
    back = delta_from_log_moments(lams, alpha_total, tb.epsilon)
    assert back.delta <= 1e-5 * (1 + 1e-9) and back.lam == tb.lam


# ---------------------------------------------------------------------------------------------
# bad input: every public function names the offending argument


NAN, INF = float("nan"), float("inf")
BAD_INPUT = [
    (rdp_sampled_gaussian, dict(q=0.0, sigma=1.0, orders=[2.0]), "q"),
    (rdp_sampled_gaussian, dict(q=1.5, sigma=1.0, orders=[2.0]), "q"),
    (rdp_sampled_gaussian, dict(q=NAN, sigma=1.0, orders=[2.0]), "q"),
    (rdp_sampled_gaussian, dict(q=0.1, sigma=0.0, orders=[2.0]), "sigma"),
    (rdp_sampled_gaussian, dict(q=0.1, sigma=INF, orders=[2.0]), "sigma"),
    (rdp_sampled_gaussian, dict(q=0.1, sigma=1.0, orders=[1.0]), "orders"),
    (rdp_sampled_gaussian, dict(q=0.1, sigma=1.0, orders=[NAN]), "orders"),
    (rdp_sampled_gaussian_composed, dict(q=0.1, sigmas=[1.0, NAN], orders=[2.0]), "sigmas"),
    (rdp_sampled_gaussian_composed, dict(q=0.1, sigmas=[1.0, -1.0], orders=[2.0]), "sigmas"),
    (epsilon_sampled_gaussian, dict(noise_multiplier=1.0, sampling_rate=0.1, steps=1.5, delta=1e-5), "steps"),
    (epsilon_sampled_gaussian, dict(noise_multiplier=1.0, sampling_rate=0.1, steps=0, delta=1e-5), "steps"),
    (epsilon_sampled_gaussian, dict(noise_multiplier=1.0, sampling_rate=0.1, steps=NAN, delta=1e-5), "steps"),
    (epsilon_sampled_gaussian, dict(noise_multiplier=1.0, sampling_rate=0.0, steps=10, delta=1e-5), "sampling_rate"),
    (epsilon_sampled_gaussian, dict(noise_multiplier=-1.0, sampling_rate=0.1, steps=10, delta=1e-5), "noise_multiplier"),
    (epsilon_sampled_gaussian, dict(noise_multiplier=1.0, sampling_rate=0.1, steps=10, delta=1.0), "delta"),
    (epsilon_sampled_gaussian, dict(noise_multiplier=1.0, sampling_rate=0.1, steps=10, delta=-0.5), "delta"),
    (epsilon_sampled_gaussian, dict(noise_multiplier=1.0, sampling_rate=0.1, steps=10, delta=1e-5,
                                    orders=[0.5, 2.0]), "orders"),
    (epsilon_sampled_gaussian, dict(noise_multiplier=1.0, sampling_rate=0.1, steps=10, delta=1e-5,
                                    method="rdp"), "method"),
    (lambda **k: RdpAccountant().get_delta(**k), dict(epsilon=0.0), "epsilon"),
    (lambda **k: RdpAccountant().get_delta(**k), dict(epsilon=-1.0), "epsilon"),
    (lambda **k: RdpAccountant().get_delta(**k), dict(epsilon=INF), "epsilon"),
    (lambda **k: RdpAccountant().compose_sampled_gaussian_schedule(**k),
     dict(sampling_rate=0.1, noise_multipliers=[1.0, INF]), "noise_multipliers"),
    (li2019_log_moment_bound, dict(q=1.0, sigma=1.0, lam=1.0), "q"),
    (li2019_log_moment_bound, dict(q=0.01, sigma=1.0, lam=0.0), "lam"),
    (log_moment_sampled_gaussian, dict(q=0.01, sigma=1.0, lam=[1.0, NAN]), "lam"),
    (composed_log_moments, dict(q=0.01, sigmas=[1.0], lams=[1.0], method="abadi"), "method"),
    (epsilon_from_log_moments, dict(lams=[1.0], log_moments=[0.1], delta=0.0), "delta"),
    (delta_from_log_moments, dict(lams=[1.0], log_moments=[0.1], epsilon=-2.0), "epsilon"),
]


@pytest.mark.parametrize("func, kwargs, name", BAD_INPUT, ids=[f"{n}-{i}" for i, (_, _, n) in enumerate(BAD_INPUT)])
def test_bad_input_names_the_argument(func, kwargs, name):
    with pytest.raises(ValueError, match=name):
        func(**kwargs)
