"""Audit of the `laplace_mechanism` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_laplace_mechanism(audit_case):
    audit_case("laplace_mechanism")
