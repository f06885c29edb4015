"""Audit of the `ops_beta_bernoulli` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_ops_beta_bernoulli(audit_case):
    audit_case("ops_beta_bernoulli")
