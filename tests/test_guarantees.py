"""Guarantee types: validation, RDP composition, privacy-profile inversion."""
import math

import pytest

from dpverify.calculus.guarantees import ApproxDP, PrivacyProfile, PureDP, RenyiDP
from dpverify.calculus.mechanisms.laplace import laplace_delta


def test_rdp_curve_composes_order_by_order():
    a = RenyiDP((2.0, 4.0), (0.1, 0.3))
    b = a.compose(a)
    assert b.epsilons == (0.2, 0.6)
    assert (3 * a).epsilons == pytest.approx((0.3, 0.9))
    assert a.at(4.0) == 0.3
    with pytest.raises(ValueError, match="order 3.0 is not on this curve"):
        a.at(3.0)
    with pytest.raises(ValueError, match="different orders"):
        a.compose(RenyiDP((2.0, 5.0), (0.1, 0.3)))


def test_pure_dp_is_rdp_at_every_order():
    r = PureDP(0.5).to_rdp([1.5, 10.0])
    assert r.epsilons == (0.5, 0.5)
    assert PureDP(0.5).to_approx_dp() == ApproxDP(0.5, 0.0)


def test_approx_dp_implies():
    assert ApproxDP(0.5, 1e-6).implies(ApproxDP(1.0, 1e-5))
    assert not ApproxDP(1.5, 1e-6).implies(ApproxDP(1.0, 1e-5))


def test_privacy_profile_inverts_laplace():
    prof = PrivacyProfile(lambda e: laplace_delta(e, 2.0), "Laplace mu=2")
    assert prof.delta(0.0) == pytest.approx(1 - math.exp(-1.0))
    assert prof.epsilon(0.1) == pytest.approx(2.0 + 2 * math.log(0.9), rel=1e-9)
    assert prof.epsilon(0.99) == 0.0
