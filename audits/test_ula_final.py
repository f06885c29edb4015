"""Audit of the `ula_final` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_ula_final(audit_case):
    audit_case("ula_final")
