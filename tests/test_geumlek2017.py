"""Geumlek, Song, Chaudhuri 2017 (and Ponnoprat 2022, Theorem 1): the catalogue items, every check, their hypotheses,
the numbers reproduced, and the exact RDP (enumeration over adjacent datasets) against the bounds."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.special import loggamma, polygamma

from dpverify.calculus.conjugate_renyi import (
    beta_bernoulli_worst_case,
    dirichlet_categorical_worst_case,
    dirichlet_rdp_bound,
)
from dpverify.theorems import catalogue, registry
from dpverify.theorems.base import HypothesisError
from dpverify.theorems.geumlek2017.beta import beta_rdp_bound
from dpverify.theorems.ponnoprat2022.dirichlet import figure1_curves

PAPERS = ("geumlek2017", "ponnoprat2022")
IDS = [i for p in PAPERS for i in catalogue.ids(p)]
CHECKS = [(t.id, c.name) for p in PAPERS for t in registry.all_theorems(p) for c in t.checks]
LEM = registry.get("geumlek2017.lem_expfam_renyi")
CURV = registry.get("geumlek2017.thm_expfam_rdp_curvature")
BETA = registry.get("geumlek2017.alg_diffuse_concentrated_beta")
THM1 = registry.get("ponnoprat2022.thm1_dirichlet_rdp")


def test_all_ids_registered_in_catalogue_order():
    assert registry.ids("geumlek2017") == catalogue.ids("geumlek2017") == [
        "geumlek2017.lem_expfam_renyi", "geumlek2017.thm_expfam_rdp_curvature",
        "geumlek2017.alg_diffuse_concentrated_beta"]
    assert registry.ids("ponnoprat2022") == ["ponnoprat2022.thm1_dirichlet_rdp"]


@pytest.mark.parametrize("theorem_id", IDS)
def test_structure_sources_and_check_kinds(theorem_id):
    thm = registry.get(theorem_id)
    thm.validate()
    json.dumps(thm.to_dict())
    kinds = {c.kind for c in thm.checks}
    row = catalogue.item(theorem_id)
    assert ("S" not in row.kinds or "symbolic" in kinds) and ("N" not in row.kinds or "numeric" in kinds)
    # nothing here was read from the papers' own text: every item says so, with a confidence grade
    assert thm.source.reconstructed and thm.source.confidence in ("R-high", "R-med", "UNCERTAIN")
    assert "reconstructed" in str(thm.source)
    assert ("NeurIPS 2017" if theorem_id.startswith("geumlek") else "arXiv:2110.01984 v2") in thm.explain()


@pytest.mark.parametrize("theorem_id, check_name", CHECKS)
def test_check_passes(theorem_id, check_name):
    check = next(c for c in registry.get(theorem_id).checks if c.name == check_name)
    result = check.run()
    assert result.passed, f"{theorem_id}::{check_name} failed: {result.detail}"


# ----------------------------------------------------------------------------------------------------------- hypotheses
def test_hypotheses_name_the_order_range():
    ok = dict(alpha=2.0, a_min=1.0, weight=0.5)
    assert BETA.evaluate(**ok).guaranteed
    with pytest.raises(HypothesisError, match="order_below_max_order"):
        BETA.evaluate(alpha=3.0, a_min=1.0, weight=0.5)  # max order 1 + 1/0.5 = 3
    with pytest.raises(HypothesisError, match="order_above_one"):
        BETA.evaluate(alpha=1.0, a_min=1.0, weight=0.5)
    with pytest.raises(HypothesisError, match="weight_at_most_one"):
        BETA.evaluate(alpha=1.5, a_min=3.0, weight=1.5)
    with pytest.raises(HypothesisError, match="mixture_a_positive"):
        LEM.evaluate(alpha=2.0, a_1=1.0, b_1=5.0, a_2=2.0, b_2=4.0)
    with pytest.raises(HypothesisError, match="order_below_max_order"):
        THM1.evaluate(alpha=3.0, a_min=2.0, sensitivity=1.0, sensitivity_inf=1.0)
    with pytest.raises(ValueError, match="weight must be > 0"):
        BETA.evaluate(alpha=2.0, a_min=1.0, weight=-0.5)


# ------------------------------------------------------------------------------------------------ the numbers reproduced
def test_ponnoprat_figure1_numbers():
    """Figure 1 (left) of Ponnoprat 2022, drawn by the author's code (counts (11, 8, 65, 25, 38, 0) against one more
    record in the last category, lambda = 2, Delta_2^2 = Delta_inf = 1): the bound is psi_1(alpha - 1) -- pi^2/6 at
    alpha = 2 and 0.0540409 at alpha = 20 -- and the true epsilon (closed form, the code's eq. (3)) is below it."""
    true, bound = figure1_curves([2.0, 5.0, 20.0])
    assert bound[0] == pytest.approx(math.pi**2 / 6, rel=1e-14)
    assert bound[2] == pytest.approx(0.0540409060376962, rel=1e-12)
    assert THM1.evaluate(alpha=2, a_min=20, sensitivity=1, sensitivity_inf=1).rdp == pytest.approx(bound[2], rel=1e-12)
    assert np.all(true < bound)
    assert true == pytest.approx([0.6868380113666805, 0.2174778137785324, 0.04754094476900008], rel=1e-9)
    # the "True epsilon" curve against the author's alpha2epsilon_evidence (eq. (3)) typed again, at the 80 plotted priors
    x1 = np.array([11, 8, 65, 25, 38, 0], dtype=float)
    x2 = x1 + np.eye(6)[-1]
    grid = np.linspace(2, 20, 80)
    lam = 2.0
    theirs = []
    for a in grid:
        u1, u2 = x1 + a, x2 + a
        log_e = ((lam - 1) * np.sum(loggamma(u2) - loggamma(u1)) + np.sum(loggamma(u1 + (lam - 1) * (u1 - u2)) - loggamma(u1))
                 - (lam - 1) * (loggamma(u2.sum()) - loggamma(u1.sum()))
                 - (loggamma(u1.sum() + (lam - 1) * (u1.sum() - u2.sum())) - loggamma(u1.sum())))
        theirs.append(log_e / (lam - 1))
    assert figure1_curves(grid)[0] == pytest.approx(np.array(theirs), rel=1e-10)


def test_numpy_forms_are_the_registered_conclusions():
    for lam, am, r in ((2.0, 1.0, 0.5), (9.5, 4.0, 0.3), (1.05, 0.2, 1.0)):
        ev = BETA.evaluate(alpha=lam, a_min=am, weight=r).rdp
        assert float(beta_rdp_bound(lam, am, r)) == pytest.approx(ev, rel=1e-12)
        assert float(dirichlet_rdp_bound(lam, am, 2 * r * r, r)) == pytest.approx(ev, rel=1e-12)
        assert THM1.evaluate(alpha=lam, a_min=am, sensitivity=math.sqrt(2) * r, sensitivity_inf=r).rdp == \
            pytest.approx(ev, rel=1e-12)
    assert BETA.evaluate(alpha=2, a_min=1, weight=0.5).rdp == pytest.approx(0.5 * float(polygamma(1, 0.5)), rel=1e-14)
    assert BETA.evaluate(alpha=2, a_min=1, weight=0.5).rdp == pytest.approx(math.pi**2 / 4, rel=1e-14)  # psi_1(1/2)


# ---------------------------------------------------------------------------------- the exact RDP against the bounds
@pytest.mark.parametrize("N", [1, 2, 6, 25])
def test_exact_rdp_never_exceeds_the_beta_bound(N):
    """Grid: priors, weights and 12 orders up to 99.9% of the way to max_order = 1 + a_min / r."""
    for a0, b0 in ((1.0, 1.0), (0.3, 2.0), (6.0, 3.0)):
        for r in (1.0, 0.25, 0.02):
            top = 1 + min(a0, b0) / r
            for lam in 1 + (top - 1) * np.array([1e-3, 0.01, 0.05, 0.1, 0.2, 0.35, 0.5, 0.65, 0.8, 0.9, 0.99, 0.999]):
                exact = beta_bernoulli_worst_case(lam, N, a0, b0, r).rdp
                assert exact <= BETA.evaluate(alpha=lam, a_min=min(a0, b0), weight=r).rdp, (N, a0, b0, r, lam)


def test_bound_is_tight_where_the_derivation_is():
    """The curvature bound replaces psi_1(a) + psi_1(b) along the segment by 2 psi_1(a_min - (lambda - 1) r): with one
    record, a symmetric prior and small r both terms sit at a_min and the exact RDP is within 1% of the bound, at
    several orders; the Gaussian posterior attains the general bound exactly (check gaussian_posterior_attains_it)."""
    for lam in (1.5, 3.0, 10.0):
        ratio = beta_bernoulli_worst_case(lam, 1, 2.0, 2.0, 5e-4).rdp / BETA.evaluate(alpha=lam, a_min=2.0,
                                                                                       weight=5e-4).rdp
        assert 0.99 <= ratio <= 1.0, (lam, ratio)


def test_exact_dirichlet_rdp_never_exceeds_ponnoprat_theorem1():
    for prior in ([1.0, 1.0, 1.0], [0.4, 3.0, 1.0, 2.0]):
        for N in (1, 5):
            for r in (1.0, 0.1):
                top = 1 + min(prior) / r
                for lam in 1 + (top - 1) * np.array([0.01, 0.5, 0.99]):
                    exact = dirichlet_categorical_worst_case(lam, N, prior, r).rdp
                    bound = THM1.evaluate(alpha=lam, a_min=min(prior), sensitivity=math.sqrt(2) * r,
                                          sensitivity_inf=r).rdp
                    assert exact <= bound


def test_mechanism_has_no_rdp_from_the_max_order_on():
    """At and beyond max_order the exact worst-case divergence is infinite, as the item states."""
    top = BETA.evaluate(alpha=1.5, a_min=0.8, weight=0.4).max_order
    assert top == pytest.approx(3.0, rel=1e-14)
    assert math.isfinite(beta_bernoulli_worst_case(top - 1e-6, 5, 0.8, 2.0, 0.4).rdp)
    assert beta_bernoulli_worst_case(top + 1e-9, 5, 0.8, 2.0, 0.4).rdp == math.inf
