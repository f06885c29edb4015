"""Audit of the `private_gibbs` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_private_gibbs(audit_case):
    audit_case("private_gibbs")
