"""Audit of the `rdp_posterior_dirichlet_categorical` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_rdp_posterior_dirichlet_categorical(audit_case):
    audit_case("rdp_posterior_dirichlet_categorical")
