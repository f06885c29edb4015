"""Audit of the `dp_barker` reference sampler (Heikkilä et al. 2019, DP MCMC with the subsampled Barker test) against
its claimed guarantee (case in dpverify.cases.catalogue): the white-box path of the noisy log-likelihood-ratio
estimates on a +-1 canary pair of the 1-d linear model, whose exact composed privacy loss is known."""


def test_dp_barker(audit_case):
    claim, reference, result = audit_case("dp_barker")
    # the pair's exact epsilon (composed loss law) is far below the authors' claim, and the audit reaches the ceiling
    assert reference.kind == "exact" and reference.epsilon < claim.epsilon / 5
    assert result.epsilon_lower >= 0.8 * result.budget_ceiling
