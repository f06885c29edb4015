"""Audit of the `noisy_mc_estimator` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_noisy_mc_estimator(audit_case):
    audit_case("noisy_mc_estimator")
