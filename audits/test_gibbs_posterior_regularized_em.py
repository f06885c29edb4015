"""Audit of the `gibbs_posterior_regularized_em` reference sampler (Gopi et al. 2022's regularised exponential
mechanism; case in dpverify/cases/catalogue.py): exactly mu_gdp-GDP on the worst pair, audited with the curve test;
certified / ceiling 2.04 / 2.31 at the quick budget, seed 0 (issue 39 asks for 0.8)."""


def test_gibbs_posterior_regularized_em(audit_case):
    claim, reference, result = audit_case("gibbs_posterior_regularized_em")
    assert reference.kind == "exact" and type(reference.guarantee).__name__ == "GaussianDP"
    assert result.verdict != "violation", result
    assert result.budget_ceiling is not None and result.budget_ceiling > 0
    assert result.epsilon_lower >= 0.8 * result.budget_ceiling, (result.epsilon_lower, result.budget_ceiling)
    assert result.curve is not None  # the curve-level certificate of the GDP reference
    # Gopi's GDP is tight here: the claim read at delta is the pair's exact epsilon
    assert abs(claim.epsilon - reference.epsilon) <= 1e-9 * reference.epsilon
