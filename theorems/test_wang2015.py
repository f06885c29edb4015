"""Wang, Fienberg, Smola (ICML 2015 + supplement): every catalogue item, every check, pinned numbers."""
import json
import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dpverify.theorems import catalogue, registry
from dpverify.theorems.base import HypothesisError

# The wang2015 rows of the in-repo catalogue (dpverify.theorems.catalogue): ID -> check letters (S, N, E).
EXPECTED = {i: catalogue.check_kinds(i) for i in catalogue.ids("wang2015")}

# The reference samplers (dpverify samplers list) an EmpiricalLink of this paper may name.
PLANNED_SAMPLERS = {
    "ops_beta_bernoulli",
    "gaussian_mechanism",
    "dp_sgld_wang",
    "hybrid_ops_sgld",
    "dp_sghmc",
    "dp_sgnht",
    "dp_sgfs",
}

THEOREMS = registry.all_theorems("wang2015")
CHECKS = [(t.id, c.name) for t in THEOREMS for c in t.checks]


def test_all_ids_registered():
    assert sorted(registry.ids("wang2015")) == sorted(EXPECTED)
    assert len(EXPECTED) == 28


@pytest.mark.parametrize("theorem_id", sorted(EXPECTED))
def test_check_types_cover_the_index(theorem_id):
    thm = registry.get(theorem_id)
    kinds = EXPECTED[theorem_id]
    have = {c.kind for c in thm.checks}
    if "S" in kinds:
        assert "symbolic" in have, f"{theorem_id}: the catalogue asks for a symbolic check"
    if "N" in kinds:
        assert "numeric" in have, f"{theorem_id}: the catalogue asks for a numeric check"
    if "E" in kinds:
        assert thm.empirical, f"{theorem_id}: the catalogue asks for an EmpiricalLink"
    assert thm.checks, f"{theorem_id}: every item needs at least one check that can fail"
    for link in thm.empirical:
        assert link.sampler in PLANNED_SAMPLERS
        assert link.audit == f"audits/test_{link.sampler}.py"


@pytest.mark.parametrize("theorem_id", sorted(EXPECTED))
def test_validate_source_and_display(theorem_id):
    thm = registry.get(theorem_id)
    thm.validate()
    assert thm.source.paper == "wang2015" and thm.source.item and thm.source.location
    assert thm.statement
    json.dumps(thm.to_dict())
    assert theorem_id in thm.explain()
    for e in thm.errata:
        assert e.check, f"{theorem_id}: every erratum names the check that shows it"


@pytest.mark.parametrize("theorem_id, check_name", CHECKS, ids=[f"{i}::{c}" for i, c in CHECKS])
def test_check_passes(theorem_id, check_name):
    thm = registry.get(theorem_id)
    check = next(c for c in thm.checks if c.name == check_name)
    result = check.run()
    assert result.passed, f"{theorem_id} / {check_name} failed:\n{result.detail}\nexpected={result.expected} actual={result.actual}"


# --- evaluation: pinned numbers recomputed by hand ------------------------------------------------

def test_thm1_evaluates():
    res = registry.get("wang2015.thm1_ops_pure_dp").evaluate(B=0.5)
    assert res.epsilon == 2.0 and res.delta == 0.0 and res.guaranteed
    assert registry.get("wang2015.thm1_ops_lipschitz").evaluate(L=2.0, R=0.25).epsilon == pytest.approx(2.0)


@pytest.mark.parametrize("B, eps, rho", [(0.5, 1.0, 0.5), (0.5, 4.0, 1.0), (2.0, 0.1, 0.0125)])
def test_alg1_rho_and_epsilon(B, eps, rho):
    res = registry.get("wang2015.alg1_ops_scaled").evaluate(B=B, epsilon=eps)
    assert res.rho == pytest.approx(rho, rel=1e-14)
    assert res.epsilon == pytest.approx(min(eps, 4 * B), rel=1e-14)


@settings(max_examples=25, deadline=None)
@given(st.floats(1e-3, 1e3), st.floats(1e-3, 1e3))
def test_alg1_never_exceeds_target(B, eps):
    res = registry.get("wang2015.alg1_ops_scaled").evaluate(B=B, epsilon=eps)
    assert res.epsilon <= eps * (1 + 1e-12) and 0 < res.rho <= 1


def test_alg2_noise_variance_by_hand():
    # N = 1e4, T = 10 passes, tau = 100, L = 1, eps = 0.5, delta = 1e-5:
    # D = 128 * 1e4 * 10 / (100 * 0.25) * log(2.5e8) * log(2e5) = 512000 * 19.336972 * 12.206073 = 1.2085e8
    D = 512000 * math.log(2.5e8) * math.log(2e5)
    thm = registry.get("wang2015.alg2_dp_sgld")
    big = thm.evaluate(N=10**4, T=10, tau=100, L=1, epsilon=0.5, delta=1e-5, eta=1e-3)
    assert big.noise_variance == pytest.approx(D * 1e-6, rel=1e-12)  # data term dominates
    small = thm.evaluate(N=10**4, T=10, tau=100, L=1, epsilon=0.5, delta=1e-5, eta=1e-9)
    assert small.noise_variance == pytest.approx(1e-9, rel=1e-15)  # plain SGLD noise
    assert big.eta_switch == pytest.approx(1 / D, rel=1e-12)
    assert big.iterations == 1000


def test_thm4_chain_by_hand():
    # T counts passes: N T / tau = 1000 iterations. Per step (Alg. 2's 128, sensitivity 2L):
    # eps0 = eps sqrt(N)/sqrt(16 tau T log(2/delta)); eps1 = 2 (tau/N) eps0; Lemma 3 with delta' = delta/2.
    eps, delta, N, T, tau = 0.5, 1e-5, 10**4, 10, 100
    eps0 = eps * math.sqrt(N) / math.sqrt(16 * tau * T * math.log(2 / delta))
    eps1 = 2 * tau / N * eps0
    k = N * T / tau
    total = math.sqrt(2 * k * math.log(2 / delta)) * eps1 + k * eps1 * math.expm1(eps1)
    res = registry.get("wang2015.thm4_dp_sgld").evaluate(epsilon=eps, delta=delta, N=N, T=T, tau=tau)
    assert res.guaranteed
    assert res.epsilon_per_step == pytest.approx(eps0, rel=1e-12)
    assert res.epsilon == pytest.approx(total, rel=1e-12)
    assert res.epsilon == pytest.approx(0.358680, abs=1e-6)  # below the claimed 0.5: exact Lemma 3 absorbs the sqrt(2)
    assert res.delta == pytest.approx(delta, rel=1e-14)
    assert res.epsilon_claimed == eps and res.iterations == 1000


def test_thm4_hypotheses_named():
    thm = registry.get("wang2015.thm4_dp_sgld")
    eps, delta, N, tau = 5.0, 1e-5, 10**4, 100
    t32 = eps**2 * N / (32 * tau * math.log(2 / delta))  # 6.40 passes: the paper's threshold
    t16 = 2 * t32  # 12.80: per-step eps0 < 1 with Alg. 2's constant 128
    with pytest.raises(HypothesisError, match="passes_condition") as info:
        thm.evaluate(epsilon=eps, delta=delta, N=N, T=0.5 * t32, tau=tau)
    assert set(info.value.failed) == {"passes_condition", "per_step_epsilon_below_one"}
    with pytest.raises(HypothesisError, match="per_step_epsilon_below_one") as info:
        thm.evaluate(epsilon=eps, delta=delta, N=N, T=10, tau=tau)  # paper's condition holds, Lemma 4 does not apply
    assert info.value.failed == ["per_step_epsilon_below_one"] and t32 < 10 < t16
    assert thm.evaluate(epsilon=eps, delta=delta, N=N, T=13, tau=tau).guaranteed


@settings(max_examples=12, deadline=None)
@given(st.floats(0.05, 2.0), st.sampled_from([1e-3, 1e-5, 1e-8]), st.integers(1, 50))
def test_thm4_within_remark1_bound(eps, delta, passes):
    # Whenever the per-step hypothesis holds, the exact chain is <= sqrt(2) eps (Remark 1 with c = eps/sqrt(2)).
    thm = registry.get("wang2015.thm4_dp_sgld")
    vals = dict(epsilon=eps, delta=delta, N=10**4, T=passes, tau=100)
    assume(all(thm.check_hypotheses(**vals).values()))
    assert thm.evaluate(**vals).epsilon <= math.sqrt(2) * eps * (1 + 1e-12)


def test_phase_transition_threshold():
    res = registry.get("wang2015.phase_transition_stepsize").evaluate(
        alpha=0.3, epsilon=0.5, L=1, N=10**4, T=10, tau=100, delta=1e-5, t=600)
    assert res.t_switch == pytest.approx(300)
    assert res.data_term_over_eta == pytest.approx(0.5)  # alpha N T / (tau t) = 300/600


def test_sghmc_and_sgnht_evaluate():
    base = dict(N=10**4, T=10, tau=100, L=1, epsilon=0.5, delta=1e-5)
    D = 512000 * math.log(2.5e8) * math.log(2e5)
    sghmc = registry.get("wang2015.sghmc_privacy_condition").evaluate(A=1.0, B_hat=0.2, h=1e-9, **base)
    assert sghmc.h_max == pytest.approx(1.6 / D, rel=1e-12)
    assert sghmc.epsilon == pytest.approx(0.358680, abs=1e-6) and sghmc.delta == pytest.approx(1e-5)
    sgnht = registry.get("wang2015.sgnht_privacy_condition").evaluate(a=0.1, eta=1e-9, **base)
    assert sgnht.eta_max == pytest.approx(0.2 / D, rel=1e-12)
    with pytest.raises(HypothesisError, match="privacy_condition"):
        registry.get("wang2015.sgnht_privacy_condition").evaluate(a=0.1, eta=1.0, **base)


def test_sgfs_evaluates_and_falls_short_of_claim():
    res = registry.get("wang2015.supp_thm5_dp_sgfs").evaluate(N=10**4, T=100, tau=100, epsilon=0.5, delta=1e-5)
    # sigma^2 = 32 T log(2.5NT/(tau delta)) log(2/delta) / (N tau eps^2), by hand:
    sigma2 = 32 * 100 * math.log(2.5e9) * math.log(2e5) / (1e4 * 100 * 0.25)
    assert res.sigma2 == pytest.approx(sigma2, rel=1e-12)
    assert res.covariance_noise_variance == pytest.approx(49 * sigma2, rel=1e-12)
    assert res.delta == pytest.approx(2e-5) and res.epsilon_claimed == 1.0
    assert res.epsilon > res.epsilon_claimed  # Algorithm 4's printed noise does not deliver (2 eps, 2 delta)
    with pytest.raises(HypothesisError, match="batch_above_four"):
        registry.get("wang2015.supp_thm5_dp_sgfs").evaluate(N=10**4, T=100, tau=3, epsilon=0.5, delta=1e-5)


@pytest.mark.parametrize(
    "theorem_id, values, hypothesis",
    [
        ("wang2015.lem4_subsampling", dict(epsilon=1.5, delta=1e-6, gamma=0.1), "epsilon_below_one"),
        ("wang2015.thm2_gaussian_mechanism", dict(sensitivity=1, epsilon=2.0, delta=1e-5), "epsilon_below_one"),
        ("wang2015.rem1_composition_simplified", dict(c=0.5, k=10, delta_prime=0.9), "c_at_most_log"),
        ("wang2015.supp_prop4_are_general_eps", dict(B=0.1, epsilon=1.0), "tempering_active"),
        ("wang2015.supp_lem6_cov_sensitivity", dict(L=1, n=3), "n_above_four"),
        ("wang2015.phase_transition_stepsize", dict(alpha=1.5, epsilon=0.5, L=1, N=100, T=1, tau=10, delta=1e-5, t=1), "alpha_below_one"),
        ("wang2015.sghmc_privacy_condition", dict(A=0.1, B_hat=0.2, h=1e-12, N=10**4, T=10, tau=100, L=1, epsilon=0.5, delta=1e-5), "friction_dominates"),
    ],
)
def test_outside_hypotheses_raises(theorem_id, values, hypothesis):
    with pytest.raises(HypothesisError, match=hypothesis):
        registry.get(theorem_id).evaluate(**values)


def test_small_published_values():
    assert registry.get("wang2015.supp_prop4_are_general_eps").evaluate(B=1, epsilon=1).are == pytest.approx(5.0)
    assert registry.get("wang2015.prop2_are_two").evaluate().are == 2.0
    assert registry.get("wang2015.prop3_approx_sampling").evaluate(epsilon=1, delta=0.01).delta == pytest.approx((1 + math.e) * 0.01)
    assert registry.get("wang2015.lem4_subsampling").evaluate(epsilon=0.5, delta=1e-6, gamma=0.1).epsilon == pytest.approx(0.1)
    assert registry.get("wang2015.supp_lem6_cov_sensitivity").evaluate(L=2, n=8).sensitivity == pytest.approx(4.0)
    sigma = registry.get("wang2015.thm2_gaussian_mechanism").evaluate(sensitivity=2, epsilon=0.5, delta=1e-5).sigma
    assert sigma == pytest.approx(2 * math.sqrt(2 * math.log(1.25e5)) / 0.5, rel=1e-14)
    # Lemma 5 with replace-one neighbours (default sensitivity 2): 2 (1 + sqrt(2 log 1e5)) / 1
    assert registry.get("wang2015.supp_lem5_nonspherical_gaussian").evaluate(epsilon=1, delta=1e-5).noise_std == pytest.approx(
        2 * (1 + math.sqrt(2 * math.log(1e5))), rel=1e-14)


def test_sampler_facing_parameters_are_stable():
    # The samplers team calls these by keyword; renaming one is an API break.
    expected = {
        "wang2015.thm1_ops_pure_dp": {"B"},
        "wang2015.alg1_ops_scaled": {"B", "epsilon"},
        "wang2015.alg2_dp_sgld": {"N", "T", "tau", "L", "epsilon", "delta", "eta"},
        "wang2015.thm4_dp_sgld": {"epsilon", "delta", "N", "T", "tau"},
        "wang2015.sghmc_privacy_condition": {"A", "B_hat", "h", "N", "T", "tau", "L", "epsilon", "delta"},
        "wang2015.sgnht_privacy_condition": {"a", "eta", "N", "T", "tau", "L", "epsilon", "delta"},
        "wang2015.supp_thm5_dp_sgfs": {"epsilon", "delta", "N", "T", "tau"},
        "wang2015.alg3_hybrid": {"B", "epsilon", "delta"},
    }
    for theorem_id, params in expected.items():
        assert set(registry.get(theorem_id).parameters) == params, theorem_id
