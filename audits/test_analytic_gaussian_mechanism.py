"""Audit of the `analytic_gaussian_mechanism` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_analytic_gaussian_mechanism(audit_case):
    audit_case("analytic_gaussian_mechanism")
