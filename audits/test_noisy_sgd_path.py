"""Audit of the `noisy_sgd_path` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_noisy_sgd_path(audit_case):
    audit_case("noisy_sgd_path")
