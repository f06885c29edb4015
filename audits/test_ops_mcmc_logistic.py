"""Audit of the `ops_mcmc_logistic` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_ops_mcmc_logistic(audit_case):
    audit_case("ops_mcmc_logistic")
