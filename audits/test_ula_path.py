"""Audit of the `ula_path` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_ula_path(audit_case):
    audit_case("ula_path")
