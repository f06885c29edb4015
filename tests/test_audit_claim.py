"""``audit(..., claim=...)`` (issue 22, section 1) and the result that keeps the claim typed until it is written
(dpverify.audit.result, dpverify.calculus.claimed)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpverify.audit import AuditResult, audit
from dpverify.audit.kinds import Mode, Verdict
from dpverify.calculus.claimed import EpsilonAtDelta, claimed_epsilon, describe_claim, own_delta
from dpverify.calculus.guarantees import ApproxDP, Claim, Conversion, PrivacyProfile, PureDP
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon

D0, D1 = np.array([0.0]), np.array([1.0])
#: the keys of AuditResult.to_dict() before the claim object was kept (the JSON report's audit entry)
OLD_KEYS = {"epsilon_lower", "epsilon_claimed", "delta", "epsilon_exact", "verdict", "samples", "confidence", "seed",
            "test", "event", "counts", "candidates", "wall_time", "tradeoff", "verdict_reason", "epsilon_accountant",
            "accountant_method", "budget_ceiling", "ceiling_basis", "ceiling_exact", "saturation", "mode",
            "detectable_factor"}


def gaussian(dataset, n, rng):
    return float(dataset[0]) + rng.normal(size=n)


class GaussianDP:
    """mu-GDP (Dong, Roth, Su 2019): epsilon(delta) of the Gaussian pair with shift mu (their Cor. 2.13) -- a guarantee
    type dpverify's calculus does not have, accepted by ``epsilon_at`` alone."""

    def __init__(self, mu):
        self.mu = mu

    def epsilon_at(self, delta):
        return gaussian_epsilon(delta, self.mu)


def numbers(result):
    out = result.to_dict()
    out.pop("wall_time")
    return out


def test_a_claim_object_gives_the_numbers_of_the_shorthand():
    shorthand = audit(gaussian, D0, D1, epsilon=2.0, delta=1e-5, samples=4_000, seed=3)
    claim = ApproxDP(2.0, 1e-5)
    typed = audit(gaussian, D0, D1, claim=claim, samples=4_000, seed=3)
    assert numbers(typed) == numbers(shorthand)
    assert typed.claim is claim and shorthand.claim == claim


@pytest.mark.parametrize("claim,delta,tested", [
    (PureDP(1.5), None, (1.5, 0.0)),
    (Claim(2.5, 1e-5, theorem="li2019.thm3", guaranteed=True), None, (2.5, 1e-5)),
    (Conversion(1.8, 1e-6, None, "pld"), 1e-3, (1.8, 1e-3)),
    (GaussianDP(1.0), 1e-5, (gaussian_epsilon(1e-5, 1.0), 1e-5)),
    (PrivacyProfile(lambda eps: math.exp(-eps), "exp(-eps)"), math.exp(-3.0), (3.0, math.exp(-3.0))),
])
def test_every_kind_of_guarantee_is_tested_at_its_epsilon_for_the_delta(claim, delta, tested):
    r = audit(gaussian, D0, D1, claim=claim, delta=delta, samples=2_000, seed=1)
    assert r.claim is claim
    assert (r.epsilon_claimed, r.delta) == pytest.approx(tested, rel=1e-9)
    assert r.claimed == ApproxDP(r.epsilon_claimed, r.delta)  # the tested guarantee, at the audit's delta


def test_claim_and_epsilon_together_or_neither_are_errors():
    with pytest.raises(ValueError, match="not both"):
        audit(gaussian, D0, D1, claim=PureDP(1.0), epsilon=1.0, samples=1_000)
    with pytest.raises(TypeError, match="epsilon"):
        audit(gaussian, D0, D1, samples=1_000)
    with pytest.raises(ValueError, match="says nothing at delta"):
        audit(gaussian, D0, D1, claim=ApproxDP(1.0, 1e-3), delta=1e-6, samples=1_000)
    with pytest.raises(ValueError, match="give delta="):
        audit(gaussian, D0, D1, claim=GaussianDP(1.0), samples=1_000)


def test_to_dict_is_the_edge_where_the_result_becomes_plain_data():
    claim = Claim(0.5, 1e-5, theorem="wang2015.thm4", hypotheses={"h": True})
    r = audit(gaussian, D0, D1, claim=claim, samples=2_000, seed=2)
    assert r.verdict is Verdict.VIOLATION and r.verdict == "violation" and r.is_violation
    assert r.mode is Mode.MATHEMATICAL
    out = r.to_dict()
    assert set(out) == OLD_KEYS | {"claim", "backend", "device", "samples_used", "stopping_rule", "looks"}
    assert (out["backend"], out["device"]) == ("numpy", "cpu")  # the default backend, recorded (issue 26)
    assert (out["stopping_rule"], out["looks"]) == ("", [])  # a fixed audit (issue 38: sequential audits)
    assert type(out["verdict"]) is str and type(out["mode"]) is str
    assert out["claim"] == {"type": "Claim", "epsilon": 0.5, "delta": 1e-5, "theorem": "wang2015.thm4"}
    assert json.loads(json.dumps(out))["verdict"] == "violation"
    again = AuditResult(**{k: v for k, v in out.items() if k not in ("detectable_factor", "claim")})
    assert again.claim is None and again.to_dict()["claim"] == {"type": "ApproxDP", "epsilon": 0.5, "delta": 1e-5}


def test_the_claim_protocol_and_readers():
    assert isinstance(GaussianDP(1.0), EpsilonAtDelta) and not isinstance(ApproxDP(1.0), EpsilonAtDelta)
    assert own_delta(PureDP(1.0)) == 0.0 and own_delta(ApproxDP(1.0, 1e-4)) == 1e-4 and own_delta(GaussianDP(1)) is None
    assert claimed_epsilon(ApproxDP(1.0, 1e-4), 1e-2) == 1.0
    with pytest.raises(ValueError, match="says nothing"):
        claimed_epsilon(ApproxDP(1.0, 1e-4), 1e-5)
    with pytest.raises(ValueError, match="delta > 0"):
        claimed_epsilon(PrivacyProfile(lambda e: 0.0), 0.0)
    with pytest.raises(TypeError, match="claim must be a guarantee"):
        claimed_epsilon(1.0, 0.1)
    assert describe_claim(Conversion(1.0, 1e-5, 2.0, "rdp")) == {"type": "Conversion", "epsilon": 1.0, "delta": 1e-5,
                                                                "method": "rdp"}
    assert describe_claim(GaussianDP(1.0)) == {"type": "GaussianDP"}
