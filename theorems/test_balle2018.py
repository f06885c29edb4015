"""Balle & Wang (ICML 2018), Theorem 8, the supporting item: registration, checks, pinned numbers.

The numbers pinned here are computed independently of the encoded expression: the hockey-stick divergence of
N(0, 1) and N(mu, 1) by scipy quadrature, the total variation distance 2 Phi(mu/2) - 1, and the sampler that claims
the theorem (``analytic_gaussian_mechanism``), whose sigma must give exactly its delta.
"""
import json
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpverify.theorems import catalogue, registry

THEOREM = "balle2018.thm8_analytic_gaussian"
CHECKS = [c.name for c in registry.get(THEOREM).checks]


def test_registered_in_the_catalogue_as_a_supporting_item():
    assert registry.ids("balle2018") == catalogue.ids("balle2018") == [THEOREM]
    assert catalogue.check_kinds(THEOREM) == frozenset("SNE")
    thm = registry.get(THEOREM)
    thm.validate()
    assert {c.kind for c in thm.checks} == {"symbolic", "numeric"}
    assert [(e.sampler, e.audit) for e in thm.empirical] == [
        ("analytic_gaussian_mechanism", "audits/test_analytic_gaussian_mechanism.py")]
    assert "Balle" in thm.source.citation and "ICML 2018" in thm.source.citation
    json.dumps(thm.to_dict())
    assert THEOREM in thm.explain()


@pytest.mark.parametrize("check_name", CHECKS)
def test_check_passes(check_name):
    check = next(c for c in registry.get(THEOREM).checks if c.name == check_name)
    result = check.run()
    assert result.passed, f"{THEOREM}::{check_name} failed: {result.detail}"


def _hockey_stick(mu: float, eps: float) -> float:
    """E_P[(1 - e^eps q/p)_+] for P = N(0, 1), Q = N(mu, 1), by scipy quadrature (split at the kink)."""
    kink = mu / 2 - eps / mu
    f = lambda x: max(stats.norm.pdf(x) - math.exp(eps) * stats.norm.pdf(x, mu), 0.0)  # noqa: E731
    return integrate.quad(f, -np.inf, kink, epsabs=0, epsrel=1e-12, limit=200)[0]


@pytest.mark.parametrize("sensitivity, sigma, eps", [(1.0, 1.0, 1.0), (3.0, 2.0, 0.3), (0.5, 0.25, 5.0)])
def test_profile_equals_the_hockey_stick_integral(sensitivity, sigma, eps):
    ev = registry.get(THEOREM).evaluate(sensitivity=sensitivity, sigma=sigma, epsilon=eps)
    assert ev.mu == sensitivity / sigma
    assert ev.delta_exact == pytest.approx(_hockey_stick(sensitivity / sigma, eps), rel=1e-8)


def test_known_values():
    thm = registry.get(THEOREM)
    # mu = 1, eps = 1: 0.126936737506644 (Phi(-1/2) - e Phi(-3/2), by scipy's ndtr)
    want = stats.norm.cdf(-0.5) - math.e * stats.norm.cdf(-1.5)
    assert thm.evaluate(sensitivity=1, sigma=1, epsilon=1).delta_exact == pytest.approx(want, rel=1e-13)
    # near eps = 0 the profile approaches the total variation distance 2 Phi(mu/2) - 1
    tv = 2 * stats.norm.cdf(0.5) - 1
    assert thm.evaluate(sensitivity=1, sigma=1, epsilon=1e-9).delta_exact == pytest.approx(tv, rel=1e-7)


def test_the_sampler_that_claims_it_meets_its_delta_exactly():
    from dpverify.samplers import registry as samplers

    for eps, delta in ((1.0, 1e-5), (0.5, 1e-8)):
        sampler = samplers.make("analytic_gaussian_mechanism", epsilon=eps, delta=delta)
        sigma = sampler.guarantee().details["sigma_per_unit_sensitivity"]
        ev = registry.get(THEOREM).evaluate(sensitivity=1.0, sigma=sigma, epsilon=eps)
        assert ev.delta_exact == pytest.approx(delta, rel=1e-6)
        # a slightly smaller sigma is not (eps, delta)-DP: the "only if"
        assert registry.get(THEOREM).evaluate(sensitivity=1.0, sigma=0.99 * sigma, epsilon=eps).delta_exact > delta
