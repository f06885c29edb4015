"""Audit of the `dp_sgnht` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_dp_sgnht(audit_case):
    audit_case("dp_sgnht")
