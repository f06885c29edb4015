"""Audit of the `dp_hmc` reference sampler (Räisä, Koskela & Honkela 2021) against its claimed guarantee (case in
dpverify.cases.catalogue): the transcript (momenta, noisy clipped gradients, noisy clipped ratios, accept flags) on the
saturating linear-loss canary pair is exactly mu-GDP with mu^2 = k/(tau^2 N) + k (L+1)/(tau_g^2 N) = 0.625, the claim
(raisa2021.thm_dp_hmc_privacy: epsilon 3.341 at delta 1e-5); the white-box audit certifies 1.71 against a budget
ceiling of 1.76 at the quick budget (0.97 of the ceiling; measured at seed 0)."""
import pytest


def test_dp_hmc(audit_case):
    claim, reference, result = audit_case("dp_hmc")
    assert reference.kind == "exact" and reference.epsilon == pytest.approx(claim.epsilon, rel=1e-9)
    # the target: at least 0.8 of the budget ceiling (computed from the pair's exact privacy loss)
    assert result.ceiling_exact and result.budget_ceiling > 0
    assert result.epsilon_lower >= 0.8 * result.budget_ceiling, (result.epsilon_lower, result.budget_ceiling)
