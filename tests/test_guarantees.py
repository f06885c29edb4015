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


# -- one vocabulary (issue 16): every producer of a number hands out an ApproxDP ---------------------------------

def test_claim_and_conversion_are_guarantees_with_provenance():
    from dpverify.calculus.guarantees import Claim, Conversion

    claim = Claim(0.5, 1e-6, "wang2015.thm3_dp_sgld", True, {"noise": True})
    assert isinstance(claim, ApproxDP) and claim.implies(ApproxDP(1.0, 1e-5))
    assert claim.as_approx_dp() == ApproxDP(0.5, 1e-6) and type(claim.as_approx_dp()) is ApproxDP
    assert claim.to_dict()["theorem"] == "wang2015.thm3_dp_sgld"
    conv = Conversion(0.7, 1e-5, 8.0, "balle2020")
    assert isinstance(conv, ApproxDP) and conv.order == 8.0 and conv.as_approx_dp() == ApproxDP(0.7, 1e-5)
    # computed answers may be vacuous; a plain ApproxDP may not
    assert Conversion(math.inf, 1e-5, None, "pld").epsilon == math.inf
    assert Conversion(1.0, 1.0, 2.0, "mironov2017").delta == 1.0
    assert Claim(math.inf, 0.0, "x", False).guaranteed is False
    with pytest.raises(ValueError, match="epsilon"):
        ApproxDP(math.inf, 0.0)
    with pytest.raises(ValueError, match="delta"):
        Claim(1.0, 1.5, "x", True)
    with pytest.raises(ValueError, match="epsilon"):
        Conversion(-0.1, 0.0, None, "pld")


def test_a_theorem_concludes_a_guarantee():
    from dpverify.theorems import registry

    assert registry.get("wang2015.thm1_ops_pure_dp").evaluate(B=0.5).guarantee == PureDP(2.0)
    # a condition-type theorem (epsilon, delta are inputs) yields its (epsilon, delta) when the condition holds
    thm = registry.get("li2019.thm4_fixed_stepsize")
    ev = thm.evaluate(N=60000, T=9375, L=0.3, q=128 / 60000, epsilon=0.99, delta=1e-5, eta=0.3)
    assert ev.guaranteed and ev.guarantee == ApproxDP(0.99, 1e-5)
    bad = thm.evaluate(N=60000, T=9375, L=0.3, q=128 / 60000, epsilon=0.99, delta=1e-5, eta=1e6,
                       allow_unguaranteed=True)
    with pytest.raises(ValueError, match="guarantees nothing"):
        bad.guarantee


def test_an_item_that_concludes_no_epsilon_is_not_a_guarantee():
    from dpverify.theorems import registry

    ev = registry.get("wang2015.prop2_are_two").evaluate()  # an asymptotic relative efficiency, ARE = 2
    assert ev.conclusion == {"are": 2.0}
    with pytest.raises(ValueError, match="concludes no epsilon"):
        ev.guarantee


def test_samplers_accountants_and_audits_speak_the_same_vocabulary():
    import numpy as np

    from dpverify.audit import audit
    from dpverify.calculus.accounting import RdpAccountant
    from dpverify.interfaces.suite import cases

    built = [case.build() for case in cases() if hasattr(case, "sampler")]
    assert len(built) >= 10
    for sampler in built:  # every sampler the verify suite audits claims an ApproxDP (a Claim)
        assert isinstance(sampler.guarantee(), ApproxDP), sampler.id
    rdp = RdpAccountant()
    rdp.compose_sampled_gaussian(1.0, 0.01, 100)
    assert isinstance(rdp.get_epsilon(1e-5), ApproxDP)
    description = next(s for s in built if hasattr(s, "mechanism")).mechanism()
    assert isinstance(description.account(1e-5), ApproxDP)
    result = audit(lambda d, n, rng: rng.laplace(float(np.sum(d)), 1.0, size=n), [0.0], [1.0], epsilon=1.0,
                   delta=0.0, samples=2000)
    assert result.claimed == ApproxDP(1.0, 0.0)
