"""Audit of the `gibbs_posterior_ula` reference sampler (Minami et al. 2016, approximate sampling; case in
dpverify/cases/catalogue.py): K = 1000 ULA steps of h = 0.01 on the Gibbs potential of the `gibbs_posterior` case
(beta = beta_max(1, 1e-5) = 0.102, m = 1, N = 10). The claim is Minami's (1, 1e-5) transferred by
minami2016.prop_approximate_sampling to (1, delta'), delta' = 1e-5 + (1 + e) gamma = 0.00452 with gamma = sup_D TV =
0.001213; the audit runs at the claim's delta'. The chain's K-th state is an exact Gaussian shift (mu = 0.2035), so
the reference is the pair's GaussianDP curve and the budget ceiling comes from its exact PLD.

Measured with `dpverify audit gibbs_posterior_ula` (quick budget, 20000 samples per side): claimed 1, exact 0.3437 at
delta' (the claimed epsilon is 2.9 times the exact one: the transfer's (1 + e^eps) gamma is pure looseness here, the
chain being no less private than the Gibbs posterior), ceiling 0.2227; certified 0.2144 / 0.2258 / 0.2847 at seeds
0 / 1 / 2 (certified / ceiling 0.96 / 1.01 / 1.28), verdict consistent at each.
"""
import math

import pytest


def test_gibbs_posterior_ula(audit_case):
    claim, reference, result = audit_case("gibbs_posterior_ula")
    assert reference.kind == "exact" and type(reference.guarantee).__name__ == "GaussianDP"
    assert result.verdict != "violation", result
    assert result.budget_ceiling is not None and result.budget_ceiling > 0
    assert result.epsilon_lower >= 0.8 * result.budget_ceiling, (result.epsilon_lower, result.budget_ceiling)
    assert result.curve is not None  # the curve-level certificate of the GDP reference
    # the audit is at the transferred delta, and the claim is Minami's epsilon = 1 with delta' = delta + (1 + e) gamma
    gamma = claim.details["gamma"]
    assert claim.theorem == "minami2016.prop_approximate_sampling" and claim.guaranteed
    assert claim.delta == pytest.approx(1e-5 + (1 + math.e) * gamma, rel=1e-12) and 0.001 < gamma < 0.0015
    assert result.delta == pytest.approx(claim.delta, rel=1e-12)
    assert claim.epsilon >= reference.epsilon * (1 - 1e-12)
