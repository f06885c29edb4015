"""The gopi2022 catalogue items (dpverify.theorems.gopi2022): every check passes, the curve statement is tight on the
Gaussian instance, and mutated conclusions (a dropped factor 2, a sqrt(k) for k) are caught by the checks."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.calculus.tradeoff import GaussianDP
from dpverify.theorems import registry
from dpverify.theorems.gopi2022 import gdp

LEMMA_ID = "gopi2022.thm_gdp_strongly_convex_lipschitz"
EM_ID = "gopi2022.thm_regularized_em_gdp"


@pytest.mark.parametrize("item", [LEMMA_ID, EM_ID])
def test_every_check_passes(item):
    thm = registry.get(item)
    results = thm.run_checks()
    assert {r.kind for r in results} == {"symbolic", "numeric"}
    failed = [(r.name, r.detail) for r in results if not r.passed]
    assert not failed, failed
    assert thm.source.reconstructed and thm.empirical[0].sampler == "gibbs_posterior_regularized_em"


def test_values():
    assert registry.get(EM_ID).evaluate(L=1, m=1, beta=100, N=50).mu_gdp == pytest.approx(0.4, rel=1e-14)
    assert registry.get(LEMMA_ID).evaluate(L=3, m=4).mu_gdp == pytest.approx(1.5, rel=1e-14)
    with pytest.raises(ValueError, match="N must be"):
        registry.get(EM_ID).evaluate(L=1, m=1, beta=100, N=0)


def test_gdp_curve_helper_is_the_calculus_curve():
    alphas = np.linspace(1e-4, 1 - 1e-4, 50)
    assert np.allclose(gdp.gdp_curve(0.7, alphas), GaussianDP(0.7)(alphas), rtol=1e-13, atol=0)


def test_tradeoff_quadrature_recovers_the_gaussian_curve():
    """tradeoff_from_grid on N(0, 1) vs N(mu, 1) gives G_mu to 1e-6 (the quadrature the non-Gaussian checks use)."""
    from dpverify.theorems.minami2016.quadrature import tradeoff_from_grid, uniform_grid

    grid = uniform_grid(0.0, 20.0, 40001)
    alphas = np.geomspace(1e-5, 0.99, 60)
    got = tradeoff_from_grid(-0.5 * grid**2, -0.5 * (grid - 1.3) ** 2, alphas)
    assert np.max(np.abs(got - gdp.gdp_curve(1.3, alphas))) < 1e-6


def _mutated(thm, new, skip=("absolute_loss_instance_below",)):
    """Every check's outcome but ``skip``'s with ``mu_gdp`` replaced by ``new`` (restored afterwards)."""
    original = thm.conclusion["mu_gdp"]
    thm.conclusion["mu_gdp"] = new
    try:
        return {c.name: c.run().passed for c in thm.checks if c.name not in skip}
    finally:
        thm.conclusion["mu_gdp"] = original


def test_mutation_dropped_factor_two_is_caught():
    """mu_gdp = G sqrt(k) / (N sqrt(mu)) (add/remove's constant applied to replace-one) is below the linear
    instance's exact GDP: exact_on_the_linear_instance, from_the_gdp_lemma and the pin fail."""
    th = gdp.REGULARIZED_EM
    outcome = _mutated(th, th.conclusion["mu_gdp"] / 2)
    assert not outcome["exact_on_the_linear_instance"] and not outcome["from_the_gdp_lemma"]
    assert not outcome["pin_linear_instance"]


def test_mutation_lemma_too_small_is_caught():
    """A lemma mu = L / (2 sqrt(m)) is refuted by the Gaussian case (symbolic) and by the non-Gaussian pair's exact
    trade-off curve, which dips below G_mu."""
    th = gdp.GDP_LEMMA
    outcome = _mutated(th, th.conclusion["mu_gdp"] / 2)
    assert not outcome["gaussian_case_is_tight"] and not outcome["pin_gaussian_mechanism"]
    assert not outcome["non_gaussian_tradeoff_above_the_curve"]


def test_theorem_is_loose_on_the_absolute_loss():
    """On the non-smooth absolute loss the exact epsilon is 0.61 of the GDP bound at most (the record's gradient
    changes on [-1, 1] only): reported by absolute_loss_instance_below."""
    res = next(c for c in gdp.REGULARIZED_EM.checks if c.name == "absolute_loss_instance_below").run()
    assert res.passed and 0.3 < res.actual < 0.9
    assert math.isfinite(res.actual)
