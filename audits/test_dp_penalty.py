"""Audit of the `dp_penalty` reference sampler (Yildirim & Ermis 2019; the authors' code of Räisä et al. 2021) against
its claimed guarantee, and of the documented misuse that voids it (cases in dpverify.cases.catalogue).

- ``dp_penalty``: the transcript on the saturating linear-loss canary pair is exactly mu = 1-GDP, the claim
  (raisa2021.thm_dp_penalty_privacy: epsilon 4.377 at delta 1e-5); the white-box likelihood-ratio audit certifies
  2.11 against a budget ceiling of 2.31 at the quick budget (0.92 of the ceiling; measured at seed 0);
- ``dp_penalty_no_ll_noise`` (known bad): the authors' ``no_ll_noise`` option releases the clipped ratio without its
  noise while the claim (tau = 2: epsilon 1.99) is unchanged; the audit must find the violation (it certifies about
  8, the budget's saturation): audits/test_known_bad_gradient.py runs it with every known-bad case.
"""
import pytest


def test_dp_penalty(audit_case):
    claim, reference, result = audit_case("dp_penalty")
    assert reference.kind == "exact" and reference.epsilon == pytest.approx(claim.epsilon, rel=1e-9)
    # the target: at least 0.8 of the budget ceiling (computed from the pair's exact privacy loss)
    assert result.ceiling_exact and result.budget_ceiling > 0
    assert result.epsilon_lower >= 0.8 * result.budget_ceiling, (result.epsilon_lower, result.budget_ceiling)
