"""Foulds, Geumlek, Welling, Chaudhuri (UAI 2016): every catalogue item, every check, pinned numbers."""
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.theorems import catalogue, registry
from dpverify.theorems.base import HypothesisError
from dpverify.theorems.foulds2016.gibbs import random_scan_log_probabilities

# The foulds2016 rows of the in-repo catalogue (dpverify.theorems.catalogue): ID -> check letters (S, N, E).
EXPECTED = {i: catalogue.check_kinds(i) for i in catalogue.ids("foulds2016")}

# The reference samplers (dpverify samplers list) an EmpiricalLink of this paper may name.
PLANNED_SAMPLERS = {
    "ops_beta_bernoulli",
    "laplace_posterior_beta_bernoulli",
    "private_gibbs",
    "exponential_mechanism",
    "laplace_mechanism",
}

THEOREMS = registry.all_theorems("foulds2016")
CHECKS = [(t.id, c.name) for t in THEOREMS for c in t.checks]


def test_all_ids_registered_in_catalogue_order():
    assert registry.ids("foulds2016") == list(EXPECTED)


@pytest.mark.parametrize("theorem_id", list(EXPECTED))
def test_check_kinds_cover_the_index(theorem_id):
    thm = registry.get(theorem_id)
    kinds = {c.kind for c in thm.checks}
    wanted = EXPECTED[theorem_id]
    if "S" in wanted:
        assert "symbolic" in kinds, f"{theorem_id} needs a symbolic check"
    if "N" in wanted:
        assert "numeric" in kinds, f"{theorem_id} needs a numeric check"
    if "E" in wanted:
        assert thm.empirical, f"{theorem_id} needs an EmpiricalLink"
    for link in thm.empirical:
        assert link.sampler in PLANNED_SAMPLERS
        assert link.audit == f"audits/test_{link.sampler}.py"


@pytest.mark.parametrize("theorem_id", list(EXPECTED))
def test_structure_validates_and_serialises(theorem_id):
    thm = registry.get(theorem_id)
    thm.validate()
    assert thm.source.paper == "foulds2016" and thm.source.item and thm.source.location
    assert thm.statement and thm.checks
    json.dumps(thm.to_dict())
    assert theorem_id in thm.explain()
    for erratum in thm.errata:
        assert erratum.check, f"{theorem_id}: erratum without a check"


@pytest.mark.parametrize("theorem_id, check_name", CHECKS)
def test_check_passes(theorem_id, check_name):
    check = next(c for c in registry.get(theorem_id).checks if c.name == check_name)
    result = check.run()
    assert result.passed, f"{theorem_id}::{check_name} failed: {result.detail}"
    json.dumps(result.to_dict())


def test_errata_reported():
    errata = {t.id: [e.check for e in t.errata] for t in THEOREMS if t.errata}
    assert errata == {
        "foulds2016.eq15_beta_bernoulli_truncated": ["fig1_temperature", "base_measure_is_one"],
        "foulds2016.prop3_approx_sampling": ["printed_vs_wang"],
        "foulds2016.eq19_private_gibbs": ["random_scan_counterexample"],
    }


# ----------------------------------------------------------------------------- pinned evaluations
def test_eq15_figure1_numbers():
    ev = registry.get("foulds2016.eq15_beta_bernoulli_truncated").evaluate(a0=0.2, epsilon=1)
    assert ev.sensitivity == pytest.approx(math.log(4), rel=1e-15)  # -log 0.2 + log 0.8
    # Foulds Fig. 1 text prints "T = 2.7"; 2 log 4 = 2.7725887... (the paper truncates)
    assert ev.temperature == pytest.approx(2.772588722239781, rel=1e-15)
    assert ev.guaranteed


def test_eq15_outside_hypothesis():
    thm = registry.get("foulds2016.eq15_beta_bernoulli_truncated")
    with pytest.raises(HypothesisError, match="a0_below_half"):
        thm.evaluate(a0=0.6, epsilon=1)
    assert not thm.evaluate(a0=0.6, epsilon=1, allow_unguaranteed=True).guaranteed


def test_laplace_items():
    ev = registry.get("foulds2016.eq16_laplace_sufficient_stats").evaluate(epsilon=0.5)
    assert (ev.sensitivity, ev.scale, ev.epsilon) == (2.0, 4.0, 0.5)
    assert registry.get("foulds2016.eq3_laplace_mechanism").evaluate(sensitivity=1, epsilon=0.25).scale == 4.0


def test_posterior_privacy_items():
    assert registry.get("foulds2016.thm2_posterior_2c").evaluate(C=0.7).epsilon == pytest.approx(1.4)
    assert registry.get("foulds2016.thm3_posterior_4b").evaluate(B=0.5).epsilon == pytest.approx(2.0)
    ev = registry.get("foulds2016.eq10_temperature").evaluate(C=math.log(4), epsilon=1)
    assert ev.temperature == pytest.approx(2 * math.log(4))
    ev = registry.get("foulds2016.eq4_exponential_mechanism").evaluate(sensitivity=1.5, epsilon=0.5)
    assert ev.temperature == pytest.approx(6.0) and ev.epsilon == 0.5
    ev = registry.get("foulds2016.eq6_9_posterior_sensitivity").evaluate(C=2.0, epsilon=1.0)
    assert ev.sensitivity == 2.0 and ev.exponent == 0.25
    ev = registry.get("foulds2016.thm1_composition").evaluate(epsilon_1=0.5, epsilon_2=1.0, delta_1=1e-6, delta_2=1e-5)
    assert ev.epsilon == 1.5 and ev.delta == pytest.approx(1.1e-5)
    # the minimal-family bound of eq. 13 reproduces eq. 15 at a0 = 0.2
    ev = registry.get("foulds2016.eq13_expfam_sensitivity").evaluate(theta_max=math.log(4), stat_range=1)
    assert ev.sensitivity == pytest.approx(math.log(4))


def test_are_items():
    assert registry.get("foulds2016.thm4_are_laplace").evaluate().are == 2.0
    assert registry.get("foulds2016.rem1_are_mean").evaluate().are == 1.0
    thm5 = registry.get("foulds2016.thm5_are_exponential")
    ev = thm5.evaluate(temperature=2 * math.log(4))
    assert ev.are == pytest.approx(1 + 2 * math.log(4)) and ev.variance_ratio_to_posterior_draw == pytest.approx(ev.are / 2)
    with pytest.raises(HypothesisError, match="temperature_at_least_one"):
        thm5.evaluate(temperature=0.5)
    with pytest.raises(HypothesisError, match="temperature_at_least_one"):
        registry.get("foulds2016.table1_comparison").evaluate(temperature=0.5, epsilon=1)
    ev = registry.get("foulds2016.table1_comparison").evaluate(temperature=3, epsilon=0.5, k=400)
    assert (ev.are_laplace, ev.are_exponential, ev.epsilon_gibbs_laplace, ev.epsilon_gibbs_exponential) == (1, 4, 0.5, 200)


def test_prop3_numbers():
    ev = registry.get("foulds2016.prop3_approx_sampling").evaluate(epsilon=1, delta=0.01)
    assert ev.delta == pytest.approx((1 + math.e) * 0.01, rel=1e-14)  # Wang 2015 Prop. 3: 0.0371828
    assert ev.delta != pytest.approx(1 + math.e * 0.01)  # the printed reading, 1.0271828


def test_gibbs_numbers():
    thm = registry.get("foulds2016.eq19_private_gibbs")
    ev = thm.evaluate(C=0.25, Q=1, N=6)
    assert ev.epsilon == 0.5 and ev.epsilon_random_scan == 0.5
    assert ev.epsilon_random_scan_printed == pytest.approx(1 / 6)
    with pytest.raises(HypothesisError, match="Q_at_most_N"):
        thm.evaluate(C=0.25, Q=7, N=6)
    costs = registry.get("foulds2016.sec4_gibbs_costs")
    assert costs.evaluate(C=1.0, epsilon=1.0).epsilon_gibbs == 400.0  # Foulds Sec. 5: eps(Gibbs) <= 400 eps
    ev = costs.evaluate(C=math.log(4), k=3, epsilon=0.1, T=50)
    assert ev.epsilon_samples == pytest.approx(6 * math.log(4)) and ev.epsilon_pass == pytest.approx(2 * math.log(4))
    assert ev.epsilon_gibbs == pytest.approx(10.0)
    with pytest.raises(ValueError, match="k must be an integer"):
        costs.evaluate(C=1.0, epsilon=1.0, k=1.5)


def test_fig2_defaults():
    ev = registry.get("foulds2016.fig2_l1_error").evaluate()
    assert ev.temperature == pytest.approx(20 * math.log(19))  # 58.889 at a0 = 0.05, eps = 0.1
    assert ev.laplace_scale == 20.0


# ----------------------------------------------------------------------------- properties
@settings(max_examples=50, deadline=None)
@given(st.floats(0.001, 0.499))
def test_eq15_matches_grid_maximum(a0):
    p = np.linspace(a0, 1 - a0, 2001)
    grid_max = float(np.max(np.abs(np.log(p) - np.log1p(-p))))
    ev = registry.get("foulds2016.eq15_beta_bernoulli_truncated").evaluate(a0=a0, epsilon=1)
    assert ev.sensitivity == pytest.approx(grid_max, rel=1e-12)


@settings(max_examples=50, deadline=None)
@given(st.floats(0.01, 5.0), st.floats(0.0, 1.0))
def test_thm2_never_above_thm3_when_C_at_most_2B(b, fraction):
    c = max(2 * b * fraction, 1e-9)
    assert registry.get("foulds2016.thm2_posterior_2c").evaluate(C=c).epsilon <= (
        registry.get("foulds2016.thm3_posterior_4b").evaluate(B=b).epsilon * (1 + 1e-12)
    )


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.floats(0.05, 3.0), st.integers(0, 31))
def test_random_scan_law_is_a_distribution(q, c, bits):
    data = np.array([(bits >> i) & 1 for i in range(5)])
    logp = random_scan_log_probabilities(data, q, c)
    assert logp.shape == (32,) and np.exp(logp).sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "args, match",
    [
        ((np.array([0, 2, 1]), 1, 0.5), "only 0 and 1"),
        ((np.array([0, 1, 1]), 4, 0.5), "n_updates must be in"),
        ((np.array([0, 1, 1]), 1, -0.5), "c_value"),
    ],
)
def test_random_scan_rejects_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        random_scan_log_probabilities(*args)


def test_fig2_helper_rejects_bad_input():
    from dpverify.theorems.foulds2016 import fig2_l1_errors

    with pytest.raises(ValueError, match="a0_value"):
        fig2_l1_errors(10, 5, seed=0, a0_value=0.6)
    with pytest.raises(ValueError, match="epsilon"):
        fig2_l1_errors(10, 5, seed=0, epsilon=0.0)
    errors = fig2_l1_errors(10, 5, seed=0)
    assert set(errors) == {"ops", "laplace", "posterior"} and all(e.shape == (5,) and (e <= 0.9).all() for e in errors.values())
