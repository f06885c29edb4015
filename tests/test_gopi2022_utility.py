"""The gopi2022 utility items (dpverify.theorems.gopi2022.utility): every check passes, the values, the quadrature
helpers against closed forms, a Monte Carlo run of the sampler ``gibbs_posterior_regularized_em`` at the calibrated
optimum, and mutated conclusions caught by the checks.

Which bug would make these fail: a lemma constant d / (2k) (the Gaussian's, claimed for every convex F: the Laplace
family refutes it), a corollary without its regularisation bias (refuted by the linear instance) or without the lemma's
d / k (refuted by the median instance), a wrong optimum (sqrt(2) for 2 sqrt(2), or k linear in mu_gdp), a sampler whose
mean forgets the 1/N of the mean loss (its Monte Carlo excess is many standard errors off), a quadrature helper that
mis-normalises its weights (the closed forms d / (p k) are missed).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from dpverify.samplers.gibbs_posterior import RegularizedExponentialMechanism
from dpverify.theorems import registry
from dpverify.theorems import symbols as sy
from dpverify.theorems.gopi2022 import utility

LEMMA_ID = "gopi2022.lem_excess_risk_of_sampling"
COR_ID = "gopi2022.cor_regularized_em_excess_risk"


@pytest.mark.parametrize("item", [LEMMA_ID, COR_ID])
def test_every_check_passes(item):
    thm = registry.get(item)
    results = thm.run_checks()
    assert {r.kind for r in results} == {"symbolic", "numeric"}
    failed = [(r.name, r.detail) for r in results if not r.passed]
    assert not failed, failed
    assert thm.source.reconstructed and thm.kind == "efficiency" and not thm.empirical


def test_values():
    lemma, cor = registry.get(LEMMA_ID), registry.get(COR_ID)
    assert lemma.evaluate(dim=3, beta=2).excess_risk == pytest.approx(1.5, rel=1e-15)
    assert cor.evaluate(dim=5, beta=80, m=0.13, R=1).excess_risk == pytest.approx(5 / 80 + 0.065, rel=1e-14)
    ev = cor.evaluate(dim=30, R=1, L=1, N=455, mu=1)
    assert ev.excess_risk_opt == pytest.approx(2 * math.sqrt(2) * math.sqrt(30) / 455, rel=1e-14)
    # at the optimum the two terms are equal: d / k* = mu* R^2 / 2, each half of the optimised bound
    assert 30 / ev.beta_opt == pytest.approx(ev.m_opt / 2, rel=1e-13)
    assert 30 / ev.beta_opt + ev.m_opt / 2 == pytest.approx(ev.excess_risk_opt, rel=1e-13)
    assert "excess_risk" in ev.omitted and "excess_risk_opt" in cor.evaluate(dim=2, beta=1, m=1, R=1).omitted
    with pytest.raises(ValueError, match="dim must be"):
        lemma.evaluate(dim=0, beta=1)
    with pytest.raises(ValueError, match="dim must be an integer"):
        lemma.evaluate(dim=1.5, beta=1)


def test_the_dimension_symbol_is_a_table_entry():
    assert sy.entry("dim").symbol.is_integer and sy.entry("dim").symbol.is_positive
    assert "gopi2022" in sy.entry("dim").papers and "gopi2022" in sy.entry("mu").papers


# -- the quadrature helpers -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [1.0, 1.5, 2.0, 4.0])
@pytest.mark.parametrize("k", [0.1, 3.0, 400.0])
def test_gibbs_excess_1d_recovers_the_homogeneous_closed_form(p, k):
    """|x - 0.7|^p (homogeneous of degree p about its minimiser): E F - min F = 1 / (p k) exactly. Tolerance 1e-8
    relative: Brent finds the kink of |x - 0.7| to ~1e-12, an absolute error of that order in min F (1.7e-9 relative
    at k = 400); the quadrature itself is at 1e-12."""
    got = utility.gibbs_excess_1d(lambda x: np.abs(x - 0.7) ** p, k, start=0.0)
    assert got == pytest.approx(1.0 / (p * k), rel=1e-8)


def test_gibbs_mean_1d_of_a_gaussian():
    """Potential (x - 1)^2 / 2 at k = 4: N(1, 1/4), so E x^2 = 1 + 1/4."""
    got = utility.gibbs_mean_1d(lambda x: 0.5 * (x - 1.0) ** 2, 4.0, lambda x: np.asarray(x) ** 2)
    assert got == pytest.approx(1.25, rel=1e-10)


@pytest.mark.parametrize("k", [0.5, 5.0])
def test_gibbs_excess_grid_2d_on_a_quadratic(k):
    """F = (x^2 + 3 y^2) / 2 + x y / 2 (positive definite) on R^2: E F - min F = d / (2k) = 1 / k; midpoint sums on
    801^2 points: error ~1e-5 relative (tolerance 1e-4)."""
    def F(x, y):
        return 0.5 * (x**2 + 3 * y**2) + 0.5 * x * y

    assert utility.gibbs_excess_grid_2d(F, k, np.zeros(2)) == pytest.approx(1.0 / k, rel=1e-4)


# -- the Monte Carlo check with the sampler ---------------------------------------------------------------------------

#: The calibrated optimum of the corollary: target mu_gdp = 1, N = 50 records in the unit ball (G = 1), d = 5,
#: comparator radius 1: mu* = 2 sqrt(2) sqrt(5) / 50 = 0.1265, k* = 50 sqrt(5) / sqrt(2) = 79.06, bound 0.1265.
DIM, N_REC, G, RADIUS, MU_GDP = 5, 50, 1.0, 1.0, 1.0
DRAWS = 100_000


def _optimum():
    return registry.get(COR_ID).evaluate(dim=DIM, R=RADIUS, L=G, N=N_REC, mu=MU_GDP)


def _datasets(mu_reg: float) -> dict[str, np.ndarray]:
    """The worst dataset of the linear family (all records equal to s, |s| = mu R / 2: excess mu R^2 / 4) and 50
    seeded records in the unit ball."""
    rng = np.random.default_rng(7)
    u = rng.standard_normal((N_REC, DIM))
    random = G * u / np.linalg.norm(u, axis=1, keepdims=True) * rng.uniform(0, 1, (N_REC, 1)) ** (1 / DIM)
    worst = np.tile(mu_reg * RADIUS / 2 * np.eye(DIM)[0], (N_REC, 1))
    return {"worst": worst, "random": random}


def _mc_excess(theta: np.ndarray, z: np.ndarray) -> tuple[float, float, float]:
    """(Monte Carlo mean of F(theta) - F(x*), its standard error, the exact excess), F the mean linear loss
    -<s, theta>, x* = R s / |s| the best point of the R-ball."""
    s = z.mean(axis=0)
    draws = -(theta @ s) + RADIUS * float(np.linalg.norm(s))
    return float(draws.mean()), float(draws.std(ddof=1)) / math.sqrt(len(draws)), \
        utility.linear_instance_excess(z, mu_reg=_optimum().m_opt, radius=RADIUS)


def _agrees(mc: float, se: float, exact: float) -> bool:
    """5 standard errors: a false alarm at a fixed seed is a 6e-7 event (normal tail of the sample mean)."""
    return abs(mc - exact) <= 5.0 * se


def test_sampler_at_the_calibrated_optimum_meets_the_bound():
    """The sampler built at (k*, mu*) claims exactly the target mu_gdp = 1 (the GDP item); over 100000 draws (seeded)
    its excess empirical risk agrees with the exact -|s|^2 / mu + R |s| within 5 standard errors on both datasets and
    is below the optimised bound (0.1265; the worst dataset reaches 1/4 of it, mu* R^2 / 4)."""
    opt = _optimum()
    sampler = RegularizedExponentialMechanism(k=opt.beta_opt, mu=opt.m_opt, R=G, N=N_REC, dim=DIM)
    assert sampler.mu_gdp == pytest.approx(MU_GDP, rel=1e-12)
    fixed = registry.get(COR_ID).evaluate(dim=DIM, beta=opt.beta_opt, m=opt.m_opt, R=RADIUS).excess_risk
    assert fixed == pytest.approx(opt.excess_risk_opt, rel=1e-12)
    for name, z in _datasets(opt.m_opt).items():
        theta = sampler.sample(z, DRAWS, np.random.default_rng(11))
        mc, se, exact = _mc_excess(theta, z)
        assert _agrees(mc, se, exact), (name, mc, se, exact)
        assert mc <= opt.excess_risk_opt, (name, mc)
    mc_worst = _mc_excess(sampler.sample(_datasets(opt.m_opt)["worst"], DRAWS, np.random.default_rng(11)),
                          _datasets(opt.m_opt)["worst"])[0]
    assert mc_worst / opt.excess_risk_opt == pytest.approx(0.25, abs=5e-3)


def test_mutation_sampler_without_the_mean_is_caught():
    """A sampler whose law forgets the 1/N of the mean loss (N(sum z / mu, I / (k mu))) has an excess that the same
    Monte Carlo comparison rejects (the random dataset: many standard errors off)."""
    opt = _optimum()
    z = _datasets(opt.m_opt)["random"]
    rng = np.random.default_rng(11)
    theta = z.sum(axis=0) / opt.m_opt + rng.standard_normal((DRAWS, DIM)) / math.sqrt(opt.beta_opt * opt.m_opt)
    assert not _agrees(*_mc_excess(theta, z))


# -- mutations of the conclusions -------------------------------------------------------------------------------------


def _mutated(thm, key, new, *names):
    """The outcome of the checks ``names`` with conclusion ``key`` replaced by ``new`` (restored afterwards)."""
    assert set(names) <= {c.name for c in thm.checks}, names
    original = thm.conclusion[key]
    thm.conclusion[key] = sp.sympify(new)
    try:
        return {c.name: c.run().passed for c in thm.checks if c.name in names}
    finally:
        thm.conclusion[key] = original


def test_mutation_half_constant_is_refuted():
    """The Gaussian's constant d / (2k) claimed for every convex F: the Laplace family (E = d / k) refutes it
    symbolically, its pin numerically, and the linear-growth losses by quadrature (ratio 0.976 of d / k > 1/2)."""
    th = utility.EXCESS_RISK_LEMMA
    out = _mutated(th, "excess_risk", th.conclusion["excess_risk"] / 2, "laplace_family_attains_the_bound",
                   "pin_laplace_family", "quadrature_convex_non_quadratic", "quadrature_2d_logistic",
                   "quadratic_family_gives_half")
    assert not out["laplace_family_attains_the_bound"] and not out["pin_laplace_family"]
    assert not out["quadrature_convex_non_quadratic"] and not out["quadrature_2d_logistic"]
    assert out["quadratic_family_gives_half"]  # the quadratic family alone cannot tell: it sits exactly at d / (2k)


def test_mutation_loose_constant_is_not_the_sharp_one():
    """2 d / k is a true but not sharp bound: the tightness check (equality on the Laplace family) and the pin fail."""
    th = utility.EXCESS_RISK_LEMMA
    out = _mutated(th, "excess_risk", 2 * th.conclusion["excess_risk"], "laplace_family_attains_the_bound",
                   "pin_laplace_family", "quadrature_convex_non_quadratic", "quadratic_family_gives_half")
    assert not out["laplace_family_attains_the_bound"] and not out["pin_laplace_family"]
    assert out["quadrature_convex_non_quadratic"] and out["quadratic_family_gives_half"]


def test_mutation_corollary_without_the_bias_is_refuted():
    """excess_risk = d / k (the regularisation bias forgotten): the linear instance's worst dataset (excess mu R^2 / 4
    at large k) is above it."""
    th = utility.REGULARIZED_EM_RISK
    out = _mutated(th, "excess_risk", utility.dim / utility.beta, "exact_on_the_linear_instance",
                   "monte_carlo_linear_instance", "from_the_sampling_lemma", "pin_lemma_plus_bias")
    assert not out["exact_on_the_linear_instance"] and not out["monte_carlo_linear_instance"]
    assert not out["from_the_sampling_lemma"] and not out["pin_lemma_plus_bias"]


def test_mutation_corollary_without_the_lemma_is_refuted():
    """excess_risk = mu R^2 / 2 (the sampling error forgotten): the median instance (nearly the Laplace family) is far
    above it."""
    th = utility.REGULARIZED_EM_RISK
    out = _mutated(th, "excess_risk", utility.m * utility.R**2 / 2, "median_instance_below",
                   "from_the_sampling_lemma", "pin_lemma_plus_bias")
    assert not out["median_instance_below"] and not out["from_the_sampling_lemma"]
    assert not out["pin_lemma_plus_bias"]


def test_mutation_wrong_optimum_is_caught():
    """sqrt(2) G R sqrt(d) / (N mu_gdp) (half the optimised bound) and a k* linear in the target (mu_gdp N sqrt(d) /
    (sqrt(2) G R) with mu_gdp dropped, as if k were calibrated to mu_gdp, not its square) are each caught."""
    th = utility.REGULARIZED_EM_RISK
    out = _mutated(th, "excess_risk_opt", th.conclusion["excess_risk_opt"] / 2, "optimised_over_the_regulariser",
                   "pin_numeric_minimiser")
    assert not out["optimised_over_the_regulariser"] and not out["pin_numeric_minimiser"]
    out = _mutated(th, "beta_opt", th.conclusion["beta_opt"] / utility.mu, "calibration_is_the_gdp_item",
                   "optimised_over_the_regulariser", "pin_numeric_minimiser")
    assert not out["calibration_is_the_gdp_item"] and not out["optimised_over_the_regulariser"]
    assert not out["pin_numeric_minimiser"]
