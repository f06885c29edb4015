"""Correct gradient samplers are never flagged: seeded audits against the tightest claims they support.

Each audit is of a released path on a gradient canary (dpverify.interfaces.suite), with the claim set to the pair's *exact*
epsilon (the canary's privacy-loss distribution, dpverify.samplers.sgmcmc), so that nothing but the auditor's
confidence stands between a correct sampler and a "violation". For a sound audit at confidence 0.95 the chance of
certifying above the exact epsilon is at most alpha/2 = 0.025 per audit (two one-sided bounds must both miss; see
tests/test_audit_validity.py), so in K independent seeded audits the number of violations is at most
Binomial(K, 0.025): the limits below are its 0.999 quantiles (a correct sampler and auditor fail with probability
<= 1e-3). A sampler whose noise is smaller than its description says (the known-bad variants) is a violation in
nearly every audit (audits/test_known_bad_gradient.py), far above these limits.
"""
import numpy as np
import pytest
from scipy import stats

from dpverify.audit import audit
from dpverify.interfaces.suite import get_case


def _violations(case_id: str, seeds, samples: int) -> tuple[int, float]:
    case = get_case(case_id)
    sampler = case.build()
    D, D2 = case.dataset(), case.neighbour()
    delta = sampler.guarantee().delta
    exact = sampler.exact_epsilon(D, D2, delta)
    assert exact is not None and exact > 0, f"{case_id}: needs a canary path with a known exact epsilon"
    found = [audit(sampler, D, D2, epsilon=exact, delta=delta, samples=samples, seed=s).is_violation for s in seeds]
    return int(np.sum(found)), exact


def _limit(K: int, p: float = 0.025, level: float = 0.999) -> int:
    return int(stats.binom.ppf(level, K, p))


@pytest.mark.parametrize("case_id", ["ula_path", "dp_sgld_path"])
def test_correct_samplers_are_not_flagged_at_their_exact_epsilon(case_id):
    K = 15
    found, exact = _violations(case_id, range(K), samples=2_000)
    assert found <= _limit(K), (case_id, exact, found)


@pytest.mark.slow
@pytest.mark.parametrize("case_id", ["ula_path", "noisy_sgd_path", "dp_sgld_path"])
def test_correct_samplers_are_not_flagged_over_200_seeded_audits(case_id):
    # K = 200: limit Binomial(200, 0.025) 0.999-quantile = 13 violations.
    K = 200
    found, exact = _violations(case_id, range(1000, 1000 + K), samples=4_000)
    assert found <= _limit(K), (case_id, exact, found)


def _violations_against_the_pair_law(case_id: str, seeds, samples: int) -> tuple[int, float]:
    """Audits against the pair's exact privacy-loss distribution as the claim (what the suite tests): the event test
    at the claim's delta and the curve-level test against the whole curve share the confidence (Bonferroni), so a
    correct sampler is flagged in at most alpha = 0.05 of the audits."""
    case = get_case(case_id)
    sampler = case.build()
    D, D2 = case.dataset(), case.neighbour()
    delta = sampler.guarantee().delta
    law = sampler.pair_guarantee(D, D2)
    assert law is not None, f"{case_id}: needs a pair whose exact privacy is known"
    found = [audit(sampler, D, D2, claim=law, delta=delta, samples=samples, seed=s).is_violation for s in seeds]
    return int(np.sum(found)), law.epsilon_at(delta)


def test_a_correct_final_release_is_not_flagged_at_its_exact_curve():
    K = 15
    found, exact = _violations_against_the_pair_law("dp_sgld_li", range(K), samples=2_000)
    assert found <= _limit(K, p=0.05), ("dp_sgld_li", exact, found)


@pytest.mark.slow
@pytest.mark.parametrize("case_id", ["dp_sgld_li", "dp_sgld_samples", "ula_final", "noisy_sgd_final", "dp_sghmc"])
def test_correct_releases_are_not_flagged_over_200_seeded_audits(case_id):
    # K = 200 audits against the exact release law, final iterates and sample sets (issue 21, section 4: "no correct
    # sampler becomes a violation"); limit Binomial(200, 0.05) 0.999-quantile = 22.
    K = 200
    found, exact = _violations_against_the_pair_law(case_id, range(2000, 2000 + K), samples=4_000)
    assert found <= _limit(K, p=0.05), (case_id, exact, found)
