"""RDP -> (epsilon, delta) conversions (dpverify.calculus.conversions): formulas, dp-accounting agreement, properties."""
import logging
import math

import numpy as np
import pytest
from dp_accounting.rdp import rdp_privacy_accountant as dpa
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.calculus.conversions import rdp_to_delta, rdp_to_dp, renyi_to_approx_dp
from dpverify.calculus.guarantees import RenyiDP

logging.getLogger("absl").setLevel(logging.ERROR)

ORDERS = np.array([1.5, 2.0, 3.0, 5.0, 8.0, 16.0, 32.0, 64.0])

rdp_values = st.floats(min_value=0.0, max_value=1e4, allow_nan=False)
curves = st.lists(rdp_values, min_size=ORDERS.size, max_size=ORDERS.size).map(np.array)
deltas = st.floats(min_value=1e-300, max_value=0.99)
# dp-accounting 0.6 works in float64 without log-space guards: delta**2 underflows below 1e-154 and
# log1p(-exp(-r)) fails for 0 < r < 1e-16 ("math domain error"), and loses relative precision ~1e-16 / r through
# the cancellation in 1 - exp(-r) (at r = 1e-12 its delta is off by 1e-5 relative: found by hypothesis, rdp =
# [1, 1, 1, 1, 1e-12, 1, 1, 1], epsilon = 1); compare with it where that error is below the 1e-9 tolerance.
dpa_curves = st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1e4)), min_size=ORDERS.size,
                      max_size=ORDERS.size).map(np.array)
dpa_deltas = st.floats(min_value=1e-150, max_value=0.99)
epsilons = st.floats(min_value=1e-6, max_value=100.0)


def test_mironov_formula_by_hand():
    # Mironov 2017, Prop. 3 at alpha = 2, rdp = 0.5, delta = 1e-5: 0.5 + log(1e5) / 1.
    c = rdp_to_dp([2.0], [0.5], 1e-5, method="mironov2017")
    assert c.epsilon == pytest.approx(0.5 + math.log(1e5), rel=1e-15)
    assert (c.order, c.method, c.delta) == (2.0, "mironov2017", 1e-5)
    d = rdp_to_delta([2.0], [0.5], c.epsilon, method="mironov2017")
    assert d.delta == pytest.approx(1e-5, rel=1e-12)


def test_balle_formula_by_hand():
    # Canonne-Kamath-Steinke 2020, Prop. 12 at alpha = 4, rdp = 1, delta = 1e-6:
    # 1 + log(3/4) - (log 1e-6 + log 4) / 3.
    want = 1.0 + math.log(0.75) - (math.log(1e-6) + math.log(4.0)) / 3.0
    assert rdp_to_dp([4.0], [1.0], 1e-6).epsilon == pytest.approx(want, rel=1e-14)
    # The balle2020 conversion is never worse than Mironov's: their difference is
    # log(1 - 1/alpha) - log(alpha)/(alpha - 1) < 0.
    for a in (1.5, 2.0, 10.0, 1000.0):
        assert rdp_to_dp([a], [2.0], 1e-5).epsilon < rdp_to_dp([a], [2.0], 1e-5, "mironov2017").epsilon


def test_minimum_is_taken_over_orders():
    rdp = 0.01 * ORDERS  # Gaussian mechanism with sigma^2 = 50
    c = rdp_to_dp(ORDERS, rdp, 1e-5)
    per_order = [rdp_to_dp([a], [r], 1e-5).epsilon for a, r in zip(ORDERS, rdp)]
    assert c.epsilon == min(per_order)
    assert c.order == ORDERS[int(np.argmin(per_order))]


def test_kl_branch_gives_zero_epsilon():
    # delta^2 > 1 - exp(-rdp): Bretagnolle-Huber, TV <= sqrt(1 - exp(-KL)) <= delta (dp-accounting's branch).
    c = rdp_to_dp([2.0], [1e-4], 0.2)
    assert c.epsilon == 0.0
    assert dpa.compute_epsilon([2.0], [1e-4], 0.2)[0] == 0.0


def test_inf_entries_and_delta_zero():
    c = rdp_to_dp([2.0, 4.0], [math.inf, 1.0], 1e-5)
    assert c.order == 4.0 and math.isfinite(c.epsilon)
    assert rdp_to_dp([2.0], [math.inf], 1e-5).epsilon == math.inf
    assert rdp_to_dp([2.0], [1.0], 0.0).epsilon == math.inf
    assert rdp_to_dp([2.0], [0.0], 0.0).epsilon == 0.0
    # A zero curve is (0, delta)-DP at any delta, including where delta**2 underflows
    # (dp-accounting 0.6 returns 10.88 for this at delta = 1e-300).
    assert rdp_to_dp(ORDERS, np.zeros(ORDERS.size), 1e-300).epsilon == 0.0
    # Tiny positive RDP keeps full precision in delta (dp-accounting raises a math domain error).
    assert rdp_to_delta([2.0], [1e-100], 1.0).delta == pytest.approx(1e-50, rel=1e-6)  # sqrt(1 - exp(-1e-100))
    assert rdp_to_delta([2.0], [math.inf], 1.0).delta == 1.0


def test_extreme_delta_and_epsilon_are_finite():
    c = rdp_to_dp(ORDERS, 0.001 * ORDERS, 1e-300)
    assert math.isfinite(c.epsilon) and c.epsilon > 0
    # log(1e-300) / 63 + 0.064 at order 64 is the Mironov value there; balle is smaller.
    assert c.epsilon < 0.064 + 300 * math.log(10) / 63
    d = rdp_to_delta(ORDERS, 0.001 * ORDERS, 100.0)
    assert d.delta == 0.0 or d.delta < 1e-300  # underflows, but never NaN
    assert not math.isnan(d.delta)


def test_renyi_dp_to_approx_dp_uses_the_conversion():
    g = RenyiDP(tuple(ORDERS), tuple(0.02 * ORDERS))
    assert renyi_to_approx_dp(g, 1e-5) == rdp_to_dp(ORDERS, 0.02 * ORDERS, 1e-5)
    assert renyi_to_approx_dp(g, 1e-5, method="mironov2017").method == "mironov2017"


@settings(max_examples=60, deadline=None)
@given(dpa_curves, dpa_deltas)
def test_agrees_with_dp_accounting_compute_epsilon(rdp, delta):
    ours = rdp_to_dp(ORDERS, rdp, delta)
    eps, order = dpa.compute_epsilon(ORDERS, rdp, delta)
    assert ours.epsilon == pytest.approx(eps, rel=1e-9, abs=1e-12)
    if ours.epsilon > 0:
        assert ours.order == order


@settings(max_examples=60, deadline=None)
@given(dpa_curves, epsilons)
def test_agrees_with_dp_accounting_compute_delta(rdp, epsilon):
    ours = rdp_to_delta(ORDERS, rdp, epsilon)
    delta, _ = dpa.compute_delta(ORDERS, rdp, epsilon)
    assert ours.delta == pytest.approx(delta, rel=1e-9, abs=1e-300)


@settings(max_examples=80, deadline=None)
@given(curves, deltas, deltas, st.sampled_from(["balle2020", "mironov2017"]))
def test_epsilon_decreases_in_delta(rdp, d1, d2, method):
    lo, hi = sorted((d1, d2))
    e_lo = rdp_to_dp(ORDERS, rdp, lo, method).epsilon
    e_hi = rdp_to_dp(ORDERS, rdp, hi, method).epsilon
    assert not math.isnan(e_lo) and not math.isnan(e_hi)
    assert e_hi <= e_lo + 1e-12 * max(1.0, e_lo)


@settings(max_examples=80, deadline=None)
@given(curves, st.lists(st.floats(0.0, 10.0), min_size=ORDERS.size, max_size=ORDERS.size), deltas,
       st.sampled_from(["balle2020", "mironov2017"]))
def test_epsilon_increases_in_rdp(rdp, extra, delta, method):
    more = rdp + np.array(extra)
    assert rdp_to_dp(ORDERS, more, delta, method).epsilon >= rdp_to_dp(ORDERS, rdp, delta, method).epsilon


@settings(max_examples=80, deadline=None)
@given(curves, epsilons, epsilons, st.sampled_from(["balle2020", "mironov2017"]))
def test_delta_decreases_in_epsilon_and_round_trips(rdp, e1, e2, method):
    lo, hi = sorted((e1, e2))
    d_lo = rdp_to_delta(ORDERS, rdp, lo, method).delta
    d_hi = rdp_to_delta(ORDERS, rdp, hi, method).delta
    assert 0.0 <= d_hi <= d_lo <= 1.0
    if 1e-300 < d_lo < 0.9:
        # epsilon at (a hair above) the delta we just got is no larger than the epsilon we started from.
        assert rdp_to_dp(ORDERS, rdp, d_lo * (1 + 1e-9), method).epsilon <= lo * (1 + 1e-9) + 1e-12


@pytest.mark.parametrize(
    "kwargs, name",
    [
        (dict(delta=1.0), "delta"),
        (dict(delta=-1e-9), "delta"),
        (dict(delta=float("nan")), "delta"),
        (dict(orders=[1.0, 2.0]), "orders"),
        (dict(orders=[0.5, 2.0]), "orders"),
        (dict(orders=[float("nan"), 2.0]), "orders"),
        (dict(orders=[float("inf"), 2.0]), "orders"),
        (dict(rdp=[-0.1, 1.0]), "rdp"),
        (dict(rdp=[float("nan"), 1.0]), "rdp"),
        (dict(rdp=[1.0]), "rdp"),
        (dict(method="abadi"), "method"),
    ],
)
def test_rdp_to_dp_bad_input_names_the_argument(kwargs, name):
    args = dict(orders=[1.5, 2.0], rdp=[0.1, 0.2], delta=1e-5) | kwargs
    with pytest.raises(ValueError, match=name):
        rdp_to_dp(**args)


@pytest.mark.parametrize("epsilon", [0.0, -1.0, float("nan"), float("inf")])
def test_rdp_to_delta_bad_epsilon(epsilon):
    with pytest.raises(ValueError, match="epsilon"):
        rdp_to_delta([2.0], [0.1], epsilon)
