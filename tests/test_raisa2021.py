"""Räisä, Koskela & Honkela 2021 (DP-HMC) catalogue items (issue 39): every check passes (every mutant of a conclusion
is caught by a check: tests/test_catalogue_mutation.py), and the values the samplers dp_penalty / dp_hmc claim through.

Which bug would fail here: a wrong rho (a forgotten gradient evaluation per iteration, tau instead of tau^2), a
delta(epsilon) that is not the Gaussian curve (the authors' adp_delta), the gradient noise's factor 2."""
from __future__ import annotations

import math

import pytest

from dpverify.calculus.mechanisms.gaussian import gaussian_delta
from dpverify.theorems import catalogue
from dpverify.theorems.raisa2021 import THEOREMS
from dpverify.theorems.raisa2021.dp_hmc import LEM_GRADIENT, THM_HMC, THM_PENALTY, code_iterations

IDS = [t.id for t in THEOREMS]


def test_the_catalogue_lists_the_three_items_in_order():
    assert IDS == ["raisa2021.thm_dp_penalty_privacy", "raisa2021.lem_gradient_sensitivity",
                   "raisa2021.thm_dp_hmc_privacy"]
    assert IDS == catalogue.ids("raisa2021")
    for t in THEOREMS:
        assert t.source.reconstructed and {c.kind for c in t.checks} >= {"symbolic", "numeric"}
        assert any(c.pins for c in t.checks) and t.empirical


@pytest.mark.parametrize("theorem", THEOREMS, ids=IDS)
def test_every_check_passes(theorem):
    failed = [r for r in theorem.run_checks() if not r.passed]
    assert not failed, failed


def test_values():
    ev = THM_PENALTY.evaluate(tau_l=1.0, N=10, k=10, epsilon=2.0)
    assert ev.mu == pytest.approx(1.0) and ev.rho == pytest.approx(0.5)
    assert ev.delta == pytest.approx(gaussian_delta(2.0, 1.0), rel=1e-12)
    assert LEM_GRADIENT.evaluate(L=10.0, tau_g=0.25, N=100_000).mu == pytest.approx(1 / (0.25 * math.sqrt(1e5)))
    hm = THM_HMC.evaluate(tau_l=2.0, tau_g=2.0, n_leapfrog=3, N=10, k=5, epsilon=3.0)
    assert hm.mu == pytest.approx(math.sqrt(5 / 40 + 20 / 40))


def test_code_experiment_budgets():
    """The iteration counts the authors' gauss experiments buy at epsilon = 2, 4, 6, 8, 10, 12, 15 (n = 1e5, delta =
    1e-6; before the code divides them among 4 chains): measured once and pinned."""
    assert code_iterations("penalty") == [50, 175, 357, 586, 853, 1154, 1659]
    assert code_iterations("hmc") == [65, 227, 464, 761, 1108, 1499, 2154]
    with pytest.raises(ValueError, match="which"):
        code_iterations("sgld")
