"""Yildirim & Ermis 2019 (DP-penalty) catalogue items (issue 39): every check passes (every mutant of a conclusion
is caught by a check: tests/test_catalogue_mutation.py, dpverify.theorems.mutation), and the items are
what the sampler dp_penalty claims through.

Which bug would fail here: a wrong factor in the clip's sensitivity (2 b d), in the Gaussian RDP (alpha Delta^2 /
(2 sigma^2)) or in the zCDP conversion; a check that does not read the registered conclusion."""
from __future__ import annotations

import math

import pytest

from dpverify.theorems import catalogue
from dpverify.theorems.yildirim2019 import THEOREMS
from dpverify.theorems.yildirim2019.penalty import COR_COMPOSITION, LEM_SENSITIVITY, THM_STEP, penalty_acceptance

IDS = [t.id for t in THEOREMS]


def test_the_catalogue_lists_the_three_items_in_order():
    assert IDS == ["yildirim2019.lem_clipped_ratio_sensitivity", "yildirim2019.thm_penalty_step_gaussian",
                   "yildirim2019.cor_penalty_composition"]
    assert IDS == catalogue.ids("yildirim2019")
    for t in THEOREMS:
        assert t.source.reconstructed and t.source.confidence == "R-med"
        assert {c.kind for c in t.checks} >= {"symbolic", "numeric"}
        assert any(c.pins for c in t.checks) and t.empirical


@pytest.mark.parametrize("theorem", THEOREMS, ids=IDS)
def test_every_check_passes(theorem):
    failed = [r for r in theorem.run_checks() if not r.passed]
    assert not failed, failed


def test_values():
    assert LEM_SENSITIVITY.evaluate(b=6.0, d=0.5).sensitivity == 6.0
    assert THM_STEP.evaluate(alpha=2.0, sensitivity=1.0, sigma=2.0).rdp == pytest.approx(0.25)
    ev = COR_COMPOSITION.evaluate(k=100, sensitivity=1.0, sigma=10.0, delta=1e-5)
    assert ev.rho == pytest.approx(0.5) and ev.epsilon == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e5)))
    with pytest.raises(ValueError, match="order_above_one"):
        THM_STEP.evaluate(alpha=0.5, sensitivity=1.0, sigma=1.0)


def test_penalty_acceptance_limits():
    """a(l) -> min(1, e^l) as the noise vanishes, and -> 0 as it grows (the penalty's cost)."""
    assert float(penalty_acceptance(-1.0, 1e-6)) == pytest.approx(math.exp(-1.0), rel=1e-5)
    assert float(penalty_acceptance(1.0, 1e-6)) == pytest.approx(1.0, rel=1e-6)
    assert float(penalty_acceptance(0.0, 10.0)) < 1e-2
