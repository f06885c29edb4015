"""Audit of the `rdp_posterior_beta_bernoulli` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_rdp_posterior_beta_bernoulli(audit_case):
    audit_case("rdp_posterior_beta_bernoulli")
