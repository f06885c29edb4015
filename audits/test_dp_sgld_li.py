"""Audit of the `dp_sgld_li` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_dp_sgld_li(audit_case):
    audit_case("dp_sgld_li")
