"""Audit of the `ops_gaussian_mean` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_ops_gaussian_mean(audit_case):
    audit_case("ops_gaussian_mean")
