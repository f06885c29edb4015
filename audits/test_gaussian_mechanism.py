"""Audit of the `gaussian_mechanism` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_gaussian_mechanism(audit_case):
    audit_case("gaussian_mechanism")
