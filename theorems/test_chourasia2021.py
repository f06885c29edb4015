"""Chourasia, Ye, Shokri (NeurIPS 2021): Theorem 2, every check, and its numbers against independent computations."""
import json
import math

import numpy as np
import pytest

from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.theorems import catalogue, registry
from dpverify.theorems.base import HypothesisError
from dpverify.theorems.chourasia2021 import noisy_gd_exact_final_rdp, noisy_gd_rdp_bound

EXPECTED = {i: catalogue.check_kinds(i) for i in catalogue.ids("chourasia2021")}
THEOREMS = registry.all_theorems("chourasia2021")
CHECKS = [(t.id, c.name) for t in THEOREMS for c in t.checks]
THM2 = registry.get("chourasia2021.thm2_noisy_gd_rdp")


def test_all_ids_registered_in_catalogue_order():
    assert registry.ids("chourasia2021") == list(EXPECTED) == ["chourasia2021.thm2_noisy_gd_rdp"]


@pytest.mark.parametrize("theorem_id", list(EXPECTED))
def test_check_kinds_cover_the_index(theorem_id):
    kinds = {c.kind for c in registry.get(theorem_id).checks}
    assert ("S" not in EXPECTED[theorem_id] or "symbolic" in kinds) and ("N" not in EXPECTED[theorem_id] or "numeric" in kinds)


@pytest.mark.parametrize("theorem_id", list(EXPECTED))
def test_structure_validates_and_serialises(theorem_id):
    thm = registry.get(theorem_id)
    thm.validate()
    assert thm.source.paper == "chourasia2021" and thm.source.item == "Theorem 2" and thm.statement
    json.dumps(thm.to_dict())
    assert theorem_id in thm.explain() and "NeurIPS 2021" in thm.explain()


@pytest.mark.parametrize("theorem_id, check_name", CHECKS)
def test_check_passes(theorem_id, check_name):
    check = next(c for c in registry.get(theorem_id).checks if c.name == check_name)
    result = check.run()
    assert result.passed, f"{theorem_id}::{check_name} failed: {result.detail}"
    json.dumps(result.to_dict())


def test_hypotheses_are_the_step_size_and_the_order():
    values = dict(alpha=2.0, S_g=1.0, m=0.5, M=2.0, eta=0.4, sigma=1.0, N=10, k=5)
    assert THM2.evaluate(**values).guaranteed
    with pytest.raises(HypothesisError, match="step_size"):
        THM2.evaluate(**{**values, "eta": 0.5})  # eta = 1/beta: the strict inequality fails
    with pytest.raises(HypothesisError, match="m_at_most_M"):
        THM2.evaluate(**{**values, "m": 3.0})
    with pytest.raises(HypothesisError, match="order_above_one"):
        THM2.evaluate(**{**values, "alpha": 1.0})


def test_numpy_form_is_the_registered_conclusion():
    for a, s, lam, sg, n, eta, k in [(2.0, 1.0, 0.5, 1.0, 10, 0.4, 5), (7.5, 0.3, 3.0, 0.2, 200, 0.01, 1000)]:
        ev = THM2.evaluate(alpha=a, S_g=s, m=lam, M=lam, eta=eta, sigma=sg, N=n, k=k)
        assert float(noisy_gd_rdp_bound(a, s, lam, sg, n, eta, k)) == pytest.approx(ev.rdp, rel=1e-12)


def test_exact_quadratic_value_is_the_closed_form():
    """The recursion of noisy_gd_exact_final_rdp against the closed forms of the module docstring (Bok, Su,
    Altschuler 2024 give the same mu for a fixed start)."""
    a, s, lam, sg, n, eta = 3.0, 2.0, 0.7, 1.3, 20, 0.4
    rho = 1 - eta * lam
    for k in (1, 7, 60):
        for v0 in (2 * sg**2 / lam, 0.0):
            gap = eta * s / n * (1 - rho**k) / (1 - rho)
            var = rho ** (2 * k) * v0 + 2 * eta * sg**2 * (1 - rho ** (2 * k)) / (1 - rho**2)
            want = a * gap**2 / (2 * var)
            assert noisy_gd_exact_final_rdp(a, s, lam, sg, n, eta, k, v0) == pytest.approx(want, rel=1e-12)
    # the default start is the theorem's Gaussian one, which makes the final iterate more private
    assert noisy_gd_exact_final_rdp(a, s, lam, sg, n, eta, 3) < noisy_gd_exact_final_rdp(a, s, lam, sg, n, eta, 3, 0.0)


def test_bound_beats_composition_only_after_the_crossover():
    """K-fold composition (RDP k alpha eta S_g^2/(4 sigma^2 N^2)) against the bound: twice better at K = 1 (in the
    limit eta -> 0), worse once m eta K/2 exceeds 1.594, the root of 1 - e^{-y} = y/2 (found here by bisection)."""
    lo, hi = 1.0, 2.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if 1 - math.exp(-mid) > mid / 2 else (lo, mid)
    y_star = (lo + hi) / 2
    assert y_star == pytest.approx(1.5936, abs=1e-4)
    lam, eta, s, sg, n = 0.2, 0.05, 1.0, 1.0, 1
    k_star = 2 * y_star / (lam * eta)
    for k, bound_wins in ((int(k_star) - 5, False), (int(k_star) + 5, True)):
        bound = THM2.evaluate(alpha=2, S_g=s, m=lam, M=lam, eta=eta, sigma=sg, N=n, k=k).rdp
        composition = k * 2 * eta * s**2 / (4 * sg**2 * n**2)
        assert (bound < composition) is bound_wins


def test_rdp_conversion_of_the_bound_is_above_the_exact_gaussian_epsilon():
    """The bound's RDP curve is alpha c; its optimal conversion c + 2 sqrt(c log(1/delta)) (Mironov 2017, Prop. 3) must
    sit above the exact epsilon of the Gaussian final law (mu^2 = 2 rdp/alpha) from the theorem's start."""
    for lam, eta, k in ((0.5, 1.0, 10), (2.0, 0.3, 200), (0.01, 50.0, 3)):
        c = THM2.evaluate(alpha=2, S_g=1.0, m=lam, M=lam, eta=eta, sigma=0.5, N=4, k=k).rdp / 2
        mu = math.sqrt(2 * noisy_gd_exact_final_rdp(2.0, 1.0, lam, 0.5, 4, eta, k) / 2)
        for delta in (1e-3, 1e-8):
            assert c + 2 * math.sqrt(c * math.log(1 / delta)) >= gaussian_epsilon(delta, mu)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="alpha must be a Rényi order"):
        noisy_gd_exact_final_rdp(1.0, 1.0, 1.0, 1.0, 10, 0.1, 5)
    with pytest.raises(ValueError, match="eta must be finite and > 0"):
        noisy_gd_exact_final_rdp(2.0, 1.0, 1.0, 1.0, 10, -0.1, 5)
    with pytest.raises(ValueError, match="k"):
        noisy_gd_exact_final_rdp(2.0, 1.0, 1.0, 1.0, 10, 0.1, 0)
    assert np.all(np.isfinite(noisy_gd_exact_final_rdp(2.0, np.array([0.5, 1.0]), 1.0, 1.0, 10, 0.1, 5)))
