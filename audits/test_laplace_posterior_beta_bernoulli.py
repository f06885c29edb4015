"""Audit of the `laplace_posterior_beta_bernoulli` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_laplace_posterior_beta_bernoulli(audit_case):
    audit_case("laplace_posterior_beta_bernoulli")
