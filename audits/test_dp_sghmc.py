"""Audit of the `dp_sghmc` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_dp_sghmc(audit_case):
    audit_case("dp_sghmc")
