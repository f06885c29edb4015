"""Stage 1 of the auditor, the plan (dpverify.audit.plan): validation once at the boundary, the claim to test, the
split and the selection budgets."""
from __future__ import annotations

import math

import pytest

from dpverify.audit.kinds import Mode, TestKind
from dpverify.audit.plan import AuditPlan, make_plan, resolve_claim
from dpverify.calculus.guarantees import ApproxDP, Claim, Conversion, PrivacyProfile, PureDP

DEFAULTS = dict(claim=None, epsilon=1.0, delta=None, samples=10_000, confidence=0.95, seed=0, test="auto",
                selection_fraction=0.2, chunk_size=1 << 20, candidates=1, power_factor=2.0, mode="mathematical",
                workers=1, fit_cap=1 << 20, threshold_sample=1 << 20)


def plan(**overrides) -> AuditPlan:
    return make_plan(**{**DEFAULTS, **overrides})


class GaussianDPClaim:
    """A guarantee type the calculus does not have: mu-GDP, epsilon(delta) from the Gaussian profile (Dong, Roth, Su
    2019, Cor. 2.13): it is accepted through ``epsilon_at`` alone."""

    def __init__(self, mu: float):
        self.mu = mu

    def epsilon_at(self, delta: float) -> float:
        from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon

        return float(gaussian_epsilon(delta, self.mu))


def test_the_shorthand_builds_an_approx_dp_claim():
    p = plan(epsilon=1.5, delta=1e-5)
    assert p.claim == ApproxDP(1.5, 1e-5) and (p.epsilon, p.delta) == (1.5, 1e-5)
    assert plan(epsilon=2.0).claim == ApproxDP(2.0, 0.0)  # delta defaults to 0


@pytest.mark.parametrize("claim,delta,expected", [
    (ApproxDP(1.0, 1e-5), None, (1.0, 1e-5)),  # the claim's own delta
    (ApproxDP(1.0, 1e-5), 1e-3, (1.0, 1e-3)),  # (1, 1e-5)-DP implies (1, 1e-3)-DP
    (PureDP(0.5), None, (0.5, 0.0)),
    (PureDP(0.5), 1e-6, (0.5, 1e-6)),
    (Conversion(2.0, 1e-6, None, "pld"), None, (2.0, 1e-6)),
    (Claim(3.0, 1e-5, theorem="wang2015.thm4"), None, (3.0, 1e-5)),
])
def test_a_guarantee_object_gives_the_epsilon_it_promises_at_the_delta(claim, delta, expected):
    p = plan(claim=claim, epsilon=None, delta=delta)
    assert p.claim is claim
    assert (p.epsilon, p.delta) == expected


def test_curve_like_claims_need_a_delta_and_are_read_at_it():
    profile = PrivacyProfile(lambda eps: math.exp(-eps), "exp(-eps)")
    with pytest.raises(ValueError, match="names no delta.*give delta="):
        plan(claim=profile, epsilon=None)
    p = plan(claim=profile, epsilon=None, delta=math.exp(-2.0))
    assert p.epsilon == pytest.approx(2.0, rel=1e-9)
    gdp = GaussianDPClaim(1.0)
    p = plan(claim=gdp, epsilon=None, delta=1e-5)
    assert p.claim is gdp and p.epsilon == pytest.approx(gdp.epsilon_at(1e-5))


@pytest.mark.parametrize("kwargs,exc,text", [
    (dict(claim=ApproxDP(1.0, 0.0), epsilon=1.0), ValueError, "not both"),
    (dict(claim=None, epsilon=None), TypeError, "claim=.*epsilon="),
    (dict(claim=ApproxDP(1.0, 1e-3), epsilon=None, delta=1e-5), ValueError, "says nothing at delta=1e-05"),
    (dict(claim=object(), epsilon=None), TypeError, "claim must be a guarantee"),
    (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(delta=1.0), ValueError, "delta"),
    (dict(samples=3), ValueError, "samples"),
    (dict(confidence=1.0), ValueError, "confidence"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(selection_fraction=1.0), ValueError, "selection_fraction"),
    (dict(chunk_size=0), ValueError, "chunk_size"),
    (dict(candidates=0), ValueError, "candidates"),
    (dict(workers=0), ValueError, "workers"),
    (dict(fit_cap=0), ValueError, "fit_cap"),
    (dict(threshold_sample=0), ValueError, "threshold_sample"),
    (dict(mode="exact"), ValueError, r"mode must be one of \('mathematical', 'implementation'\); got 'exact'"),
    (dict(test="magic"), ValueError, "test must be 'auto', one of"),
    (dict(test=3), ValueError, "test must be"),
    (dict(power_factor=0.5), ValueError, "power_factor"),
])
def test_bad_parameters_are_named(kwargs, exc, text):
    with pytest.raises(exc, match=text):
        plan(**kwargs)


def test_words_become_members_and_a_callable_test_stays_callable():
    p = plan(test="classifier", mode="implementation")
    assert p.test is TestKind.CLASSIFIER and p.mode is Mode.IMPLEMENTATION

    def statistic(x):
        return x

    assert plan(test=statistic).test is statistic


@pytest.mark.parametrize("samples,fit_cap,threshold_sample,expected", [
    # 20% of 10,000 = 2,000 selection outputs: half fit, half score; all held
    (10_000, 1 << 20, 1 << 20, (2_000, 1_000, 1_000, 2_000)),
    # the fit capped at 300: the other 1,700 score; 500 of them fix the thresholds
    (10_000, 300, 500, (2_000, 300, 1_700, 800)),
    # at least 2 selection outputs, at most samples - 1
    (4, 1 << 20, 1 << 20, (2, 1, 1, 2)),
])
def test_budgets_of_the_selection_part(samples, fit_cap, threshold_sample, expected):
    p = plan(samples=samples, fit_cap=fit_cap, threshold_sample=threshold_sample)
    assert (p.split.n_selection, p.n_fit, p.n_score, p.held) == expected
    assert p.split.n_selection + p.split.n_estimation == samples
    assert p.alpha == pytest.approx(0.05)


def test_resolve_claim_is_the_plans_reading_of_the_claim():
    assert resolve_claim(None, 1.0, 1e-5) == (ApproxDP(1.0, 1e-5), 1.0, 1e-5)
    claim = PureDP(2.0)
    assert resolve_claim(claim, None, None) == (claim, 2.0, 0.0)
