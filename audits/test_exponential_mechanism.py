"""Audit of the `exponential_mechanism` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_exponential_mechanism(audit_case):
    audit_case("exponential_mechanism")
