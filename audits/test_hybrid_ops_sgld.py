"""Audit of the `hybrid_ops_sgld` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_hybrid_ops_sgld(audit_case):
    audit_case("hybrid_ops_sgld")
