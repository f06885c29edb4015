"""Audit of the `dp_sgfs` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_dp_sgfs(audit_case):
    audit_case("dp_sgfs")
