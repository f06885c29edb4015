"""Audit of the `ops_dirichlet_categorical` reference sampler against its claimed guarantee (case in dpverify.interfaces.suite)."""


def test_ops_dirichlet_categorical(audit_case):
    audit_case("ops_dirichlet_categorical")
