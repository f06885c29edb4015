"""Bok, Su, Altschuler 2024 (shifted interpolation): the three catalogue items, their checks, agreement with the
authors' code, and mutations the checks must reject.

Public-code agreement: the formulas of github.com/jinhobok/shifted_interpolation_dp at commit
a771c1631766555cba700bb141d587d04896d572 (plot_table_ngd_fdp.py: strongly convex NoisyGD ``np.sqrt((1-c**t) /
(1+c**t) * (1 + c) / (1 - c)) * mu`` and constrained NoisyGD ``np.sqrt(3*mu/eta + mu**2 * np.ceil(1/(mu * eta))) /
sigma``; plot_table_ncgd_fdp.py / table_privacy_lr.py: NoisyCGD ``np.sqrt(1 + c**(2*l - 2)* (1-c**2)/((1-c**l)**2) *
(1 - c**(l*(E-1))) / (1 + c**(l*(E-1)))) * mu``), typed again below and compared on grids of >= 50 points each, to
1e-9 relative (the float64 evaluation of ``1 - c^t`` near c = 1 loses up to ~1e-11 relative).
"""
import math

import numpy as np
import pytest
import sympy as sp

from dpverify.theorems.base import HypothesisError
from dpverify.theorems.bok2024 import THEOREMS
from dpverify.theorems.bok2024.noisy_gd import (
    THM_CONVEX,
    THM_CYCLIC,
    THM_SC,
    constrained_gdp,
    noisy_cgd_exact_mu,
    noisy_cgd_gdp,
    noisy_gd_exact_mu,
    noisy_gd_gdp,
)

SC_SYMS = [THM_SC.symbols[x] for x in ("S_g", "N", "sigma", "eta", "m", "M", "k")]


def _authors_sc(mu, c, t):
    return np.sqrt((1 - c**t) / (1 + c**t) * (1 + c) / (1 - c)) * mu


def _authors_cyclic(mu, c, l_, E):
    return np.sqrt(1 + c ** (2 * l_ - 2) * (1 - c**2) / ((1 - c**l_) ** 2) * (1 - c ** (l_ * (E - 1)))
                   / (1 + c ** (l_ * (E - 1)))) * mu


def _authors_constrained(mu, eta, sigma):  # D = 1, mu = L/n
    return np.sqrt(3 * mu / eta + mu**2 * np.ceil(1 / (mu * eta))) / sigma


def test_every_check_passes():
    for thm in THEOREMS:
        for result in thm.run_checks():
            assert result.passed, (thm.id, result.name, result.detail)


def test_strongly_convex_agrees_with_authors_code_on_a_grid():
    """Registered conclusion (lambdified) against the authors' formula: 5 c x 4 t x 3 mu = 60 points, rel 1e-9."""
    f = sp.lambdify(SC_SYMS, THM_SC.conclusion["mu"], "numpy")
    worst = 0.0
    for c in (0.5, 0.9, 0.96, 0.99, 0.995):
        for t in (1, 10, 100, 1000):
            for mu in (0.05, 0.1, 0.7):
                eta, m_ = 0.01, (1 - c) / 0.01  # c = 1 - eta m
                ours = f(mu * 3.0, 3, 1.0, eta, m_, m_, t)
                worst = max(worst, abs(ours / _authors_sc(mu, c, t) - 1))
                assert abs(noisy_gd_gdp(mu * 3.0, 3, 1.0, c, t) / _authors_sc(mu, c, t) - 1) < 1e-9
    assert worst < 1e-9


def test_cyclic_agrees_with_authors_code_on_a_grid():
    """3 c x 3 l x 6 E = 54 points, rel 1e-9 (including the paper's MNIST setting c = 0.9999, l = 40)."""
    f = sp.lambdify([THM_CYCLIC.symbols[x] for x in ("S_g", "N", "tau", "T", "sigma", "eta", "m", "M")],
                    THM_CYCLIC.conclusion["mu"], "numpy")
    worst = 0.0
    for c in (0.98, 0.9998, 0.9999):
        for l_ in (10, 20, 40):
            for E in (1, 5, 50, 100, 200, 500):
                eta = 1e-4
                m_ = (1 - c) / eta
                ours = f(2.0, 5 * l_, 5, E, 0.6, eta, m_, m_)
                want = _authors_cyclic(2.0 / (5 * 0.6), c, l_, E)
                worst = max(worst, abs(ours / want - 1), abs(noisy_cgd_gdp(2.0, 5, l_, E, 0.6, c) / want - 1))
    assert worst < 1e-9


def test_constrained_agrees_with_authors_code_on_a_grid():
    """5 L/n x 5 eta x 2 sigma = 50 points beyond t*, rel 1e-12 (D = 1: R = 1/2)."""
    f = sp.lambdify([THM_CONVEX.symbols[x] for x in ("S_g", "N", "sigma", "eta", "M", "k", "R")],
                    THM_CONVEX.conclusion["mu_star"], "numpy")
    worst = 0.0
    for g in (0.1, 0.25, 0.5, 1.0, 3.0):
        for eta in (0.01, 0.05, 0.1, 0.2, 0.7):
            for sigma in (3.0, 8.0):
                want = _authors_constrained(g, eta, sigma)
                ours = f(2 * g, 2, sigma, eta, 1.0, 10**9, 0.5)
                worst = max(worst, abs(ours / want - 1), abs(constrained_gdp(2 * g, 2, sigma, eta, 1.0, 10**9) / want - 1))
    assert worst < 1e-12


def test_hypotheses_are_enforced():
    with pytest.raises(HypothesisError, match="step_size"):
        THM_SC.evaluate(S_g=1, N=1, sigma=1, eta=1.5, m=0.5, M=1, k=3)
    with pytest.raises(HypothesisError, match="m_at_most_M"):
        THM_SC.evaluate(S_g=1, N=1, sigma=1, eta=0.1, m=2, M=1, k=3)
    with pytest.raises(HypothesisError, match="batch_at_most_N"):
        THM_CYCLIC.evaluate(S_g=1, N=4, tau=8, T=2, sigma=1, eta=0.1, m=1, M=1)
    with pytest.raises(HypothesisError, match="step_size"):
        THM_CONVEX.evaluate(S_g=1, N=1, sigma=1, eta=3, M=1, k=3, R=1)
    with pytest.raises(ValueError, match="sigma"):
        THM_SC.evaluate(S_g=1, N=1, sigma=-1, eta=0.1, m=1, M=1, k=3)


def test_bound_is_exact_on_quadratics_and_converges():
    ev = THM_SC.evaluate(S_g=2.0, N=20, sigma=0.3, eta=0.2, m=1.05, M=2.0, k=30)
    exact = noisy_gd_exact_mu(2.0, 20, 0.3, 0.2, 1.05, 30)
    assert ev.mu == pytest.approx(exact, rel=1e-12)
    assert ev.mu < ev.mu_limit < ev.mu * 1.001  # c^30 = 8.5e-4: nearly converged
    # the composition bound sqrt(t) mu_step = 1.826 is 1.88 times larger here
    assert math.sqrt(30) * ev.mu_step > 1.85 * ev.mu


# --------------------------------------------------------------------------------------------- mutation tests
def _mutated_exactness_fails(factor_on_sg: float) -> bool:
    """Encode the strongly convex bound with S_g scaled by ``factor_on_sg`` and ask whether the exact chain exceeds
    it somewhere on the check's grid (the bug a check must catch: the L-Lipschitz constant read as the gradient gap,
    i.e. half the sensitivity)."""
    lams = np.array([0.05, 1.0, 8.0])
    for k_ in (1, 17, 300):
        eta = 0.5 * 2 / (2 * lams)
        mutated = noisy_gd_gdp(factor_on_sg * 1.7, 40, 0.5, 1 - eta * lams, k_)
        if np.any(mutated < noisy_gd_exact_mu(1.7, 40, 0.5, eta, lams, k_) * (1 - 1e-12)):
            return True
    return False


def test_mutation_half_sensitivity_is_rejected():
    assert _mutated_exactness_fails(0.5)
    assert not _mutated_exactness_fails(1.0)


def test_mutation_of_conclusion_fails_a_check():
    """Perturb the registered conclusion (a dropped factor (1 + c)/(1 - c) -> 1/(1 - c), and mu * 1.01); the pin or
    the exactness check must fail."""
    original = dict(THM_SC.conclusion)
    c = 1 - THM_SC.symbols["eta"] * THM_SC.symbols["m"]
    try:
        for bad in (original["mu"] * sp.Rational(101, 100), original["mu"] * sp.sqrt(1 / (1 + c))):
            THM_SC.core.conclusion["mu"] = bad
            failed = [r.name for r in THM_SC.run_checks(["numeric"]) if not r.passed]
            assert "pin_author_code" in failed and "exact_on_quadratics" in failed, failed
    finally:
        THM_SC.core.conclusion.clear()
        THM_SC.core.conclusion.update(original)
    assert all(r.passed for r in THM_SC.run_checks(["numeric"]))


def test_cyclic_exact_recursion_against_closed_form():
    """The step recursion of noisy_cgd_exact_mu against the closed form of the last-batch record: gap (eta S/b)
    (1 - rho^{lE})/(1 - rho^l), variance eta^2 sigma^2 (1 - rho^{2lE})/(1 - rho^2)."""
    for lam, l_, E in ((0.3, 4, 6), (1.1, 1, 9), (0.02, 7, 3)):
        eta, s, b, sg = 0.5, 0.8, 3, 1.4
        rho = 1 - eta * lam
        gap = eta * sg / b * (1 - rho ** (l_ * E)) / (1 - rho**l_)
        var = (eta * s) ** 2 * (1 - rho ** (2 * l_ * E)) / (1 - rho**2)
        assert noisy_cgd_exact_mu(sg, b, l_, E, s, eta, lam) == pytest.approx(gap / math.sqrt(var), rel=1e-12)


def test_numpy_forms_validate_arguments():
    with pytest.raises(ValueError, match="c must be in"):
        noisy_gd_gdp(1, 1, 1, 1.5, 3)
    with pytest.raises(ValueError, match="k"):
        noisy_gd_exact_mu(1, 1, 1, 0.1, 1.0, 0)
    with pytest.raises(ValueError, match="position"):
        noisy_cgd_exact_mu(1, 1, 3, 2, 1, 0.1, 1.0, position=5)
