"""The Li et al. 2019 catalogue: every item registered, every check passes, evaluations pinned.

Run with ``pytest theorems/test_li2019.py``. Pinned numbers are our recomputations (sources in the
comments); the published values they are compared with live in the checks' ``expected`` fields.
"""
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.theorems import registry
from dpverify.theorems.base import HypothesisError
from dpverify.theorems import li2019
from dpverify.theorems.li2019.bounds import eta_max_lemma2, k_max_float, wang_eta_max

from dpverify.theorems import catalogue

#: The li2019 rows of the in-repo catalogue (dpverify.theorems.catalogue): ID -> check letters.
INDEX_KINDS = {i: catalogue.check_kinds(i) for i in catalogue.ids("li2019")}

THEOREMS = registry.all_theorems("li2019")
CHECKS = [(t, c) for t in THEOREMS for c in t.checks]


def test_all_ids_registered():
    assert sorted(registry.ids("li2019")) == sorted(INDEX_KINDS)
    assert tuple(li2019.IDS) == tuple(INDEX_KINDS)
    assert len(INDEX_KINDS) == 20


@pytest.mark.parametrize("thm, check", CHECKS, ids=[f"{t.id}::{c.name}" for t, c in CHECKS])
def test_check_passes(thm, check):
    result = check.run()
    assert result.passed, (
        f"{thm.id} check {check.name!r} failed\n  expected: {result.expected}\n  actual: {result.actual}\n"
        f"  detail: {result.detail}"
    )


@pytest.mark.parametrize("thm", THEOREMS, ids=[t.id for t in THEOREMS])
def test_structure(thm):
    thm.validate()
    assert thm.source.paper == "li2019" and thm.source.item and thm.source.location
    assert thm.statement
    kinds = INDEX_KINDS[thm.id]
    check_kinds = {c.kind for c in thm.checks}
    if "S" in kinds:
        assert "symbolic" in check_kinds, f"{thm.id} needs a symbolic check"
    if "N" in kinds:
        assert "numeric" in check_kinds, f"{thm.id} needs a numeric check"
    if "E" in kinds:
        assert any(e.sampler == "dp_sgld_li" and e.audit == "audits/test_dp_sgld_li.py" for e in thm.empirical)
    thm.explain()
    thm.to_dict()


# --- evaluation: pinned numbers -------------------------------------------------------------

MNIST_T1 = dict(N=60_000, T=9_375, L=0.3, q=128 / 60_000, epsilon=0.99, delta=1e-5)  # Table 1, MNIST
EXAMPLE = dict(N=50_000, T=10_000, L=1.0, q=128 / 50_000, epsilon=0.1, delta=1e-5)  # Sec. 3.1 example


def test_thm4_table1_mnist_guaranteed():
    ev = registry.get("li2019.thm4_fixed_stepsize").evaluate(**MNIST_T1, eta=0.3)
    assert ev.guaranteed and ev.epsilon == pytest.approx(0.99) and ev.delta == pytest.approx(1e-5)
    # independent recomputation: (1-q) N K / (L^2 T), K = eps^2/(eps + 2l + 2 sqrt(l^2 + eps l)), l = log(1e5)
    l = math.log(1e5)
    K = 0.99**2 / (0.99 + 2 * l + 2 * math.sqrt(l * l + 0.99 * l))
    assert ev.eta_max == pytest.approx((1 - 128 / 60_000) * 60_000 * K / (0.09 * 9_375), rel=1e-12)
    assert ev.eta_max == pytest.approx(1.449, abs=1e-3)
    # c^2 = eps^2/((1-q) K l) -> 4 + 2 eps/l as eps/l -> 0
    assert ev.c2**2 == pytest.approx(0.99**2 / ((1 - 128 / 60_000) * K * l), rel=1e-12)


def test_thm3_example_values_and_lambda_range_failure():
    thm = registry.get("li2019.thm3_decreasing_stepsize")
    with pytest.raises(HypothesisError, match="lambda_range"):
        thm.evaluate(**EXAMPLE, eta=0.015)
    ev = thm.evaluate(**EXAMPLE, eta=0.015, allow_unguaranteed=True)
    assert ev.failed == ["lambda_range"]
    # (1-q) N K / (L^2 H_T), H_T = sum t^{-1/3} summed directly
    H = float(np.sum(np.arange(1, 10_001, dtype=float) ** (-1 / 3)))
    assert ev.eta_max == pytest.approx((1 - 128 / 50_000) * 50_000 * k_max_float(0.1, 1e-5) / H, rel=1e-10)
    assert ev.eta_max == pytest.approx(0.015508, rel=1e-4)
    assert ev.c2 == pytest.approx(2.456, abs=1e-3)


@pytest.mark.parametrize(
    "eta, failing",
    [
        (2.0, "iii)"),  # above eta_max = 1.449
        (1e-3, "ii)"),  # below 256 q^4 N/L^2 = 3.5e-3: q >= 1/(16 sigma)
    ],
)
def test_thm4_hypothesis_errors(eta, failing):
    with pytest.raises(HypothesisError, match=re.escape(failing)):
        registry.get("li2019.thm4_fixed_stepsize").evaluate(**MNIST_T1, eta=eta)


def test_thm4_condition_i_fails_for_large_step():
    # i): eta <= q^2 N / L^2 = (128/60000)^2 * 60000 / 0.09 = 3.03
    thm = registry.get("li2019.thm4_fixed_stepsize")
    ev = thm.evaluate(**MNIST_T1, eta=3.1, allow_unguaranteed=True)
    assert not ev.hypotheses["i)"] and ev.hypotheses["ii)"]


def test_wang_quote_value():
    # eps^2 N / (128 L^2 T log(2.5 T/delta) log(2/delta)) at the example = 1.4789e-6
    ev = registry.get("li2019.wang_bound_quoted").evaluate(**EXAMPLE)
    assert ev.eta_max == pytest.approx(500 / (128 * 1e4 * math.log(2.5e9) * math.log(2e5)), rel=1e-12)
    assert ev.eta_max == pytest.approx(1.4789e-6, rel=1e-4)
    assert wang_eta_max(50_000, 10_000, 1.0, 0.1, 1e-5, log_arg_factor=1.0) == pytest.approx(1.544e-6, rel=1e-3)


def test_example_numbers_pinned():
    nums = li2019.example_numbers()  # cached: the checks computed it already
    assert nums["li_lemma2"] == pytest.approx(0.015508, rel=1e-4)
    # exact moments accountant, q = 128/50,000 (dpverify recomputation, 128 blocks, fractional orders); the root is
    # found to 1e-9 in log eta, and the printed erratum carries 3 digits
    assert nums["li_exact"] == pytest.approx(0.02440, rel=2e-3)
    assert nums["li_fixed_exact"] < nums["li_exact"]


def test_proof_supported_bound():
    # Table 1 MNIST: every hypothesis holds at eta = 0.3, so the fully proven bound lies in [0.3, closed form 1.449]
    q = 128 / 60_000
    proof = li2019.eta_max_lemma2_proof(60_000, 9_375, 0.3, 0.99, 1e-5, q, schedule="fixed")
    assert 0.3 < proof <= eta_max_lemma2(60_000, 9_375, 0.3, 0.99, 1e-5, q=q, schedule="fixed") * (1 + 1e-12)
    # the theorem object fixes lam at the unconstrained optimum (a stronger sufficient condition): where it
    # certifies a step, so does the lam-optimised proof bound
    ev = registry.get("li2019.thm4_fixed_stepsize").evaluate(**MNIST_T1, eta=0.999 * proof, allow_unguaranteed=True)
    assert ev.hypotheses["i)"] and ev.hypotheses["ii)"] and ev.hypotheses["iii)"]
    # the Sec. 3.1 example at q = 128/50,000: Lemma 2's hypotheses cannot all hold for the decreasing schedule
    assert li2019.eta_max_lemma2_proof(50_000, 10_000, 1.0, 0.1, 1e-5, 128 / 50_000) == 0.0
    assert li2019.example_numbers()["li_proof_best"] == pytest.approx(0.00874, rel=2e-3)


def test_lemma2_evaluate_and_hypotheses():
    thm = registry.get("li2019.lem2_sampled_gaussian")
    ev = thm.evaluate(q=0.01, sigma=2.0, lam=4.0)
    assert ev.log_moment == pytest.approx(1e-4 * 20 / (0.99 * 4))
    with pytest.raises(HypothesisError, match="sigma_ge_1"):
        thm.evaluate(q=0.01, sigma=0.5, lam=1.0)
    with pytest.raises(HypothesisError, match="q_small"):
        thm.evaluate(q=0.1, sigma=2.0, lam=1.0)


def test_alg1_noise_multiplier_table1():
    # sigma = tau / (L sqrt(N eta)) = 128 / (0.3 sqrt(18000)) = 3.1802
    ev = registry.get("li2019.alg1_dp_sgld").evaluate(N=60_000, q=128 / 60_000, eta=0.3, L=0.3)
    assert ev.noise_multiplier == pytest.approx(128 / (0.3 * math.sqrt(18_000)), rel=1e-12)
    assert ev.noise_variance == pytest.approx(0.3 / 60_000)


def test_table1_numbers_pinned():
    """Table 1 recomputed (Poisson sampling, add/remove adjacency). Tolerances: the exact-RDP numbers are deterministic
    to ~1e-9, pinned at rel 1e-3 (4 printed digits); the PLD is the upper end of a bracket whose width is ~h."""
    nums = li2019.table1_numbers()
    mnist, svhn = nums["MNIST"]["epsilon"], nums["SVHN"]["epsilon"]
    assert mnist["moments"] == pytest.approx(0.3244, rel=1e-3)
    assert mnist["balle2020"] == pytest.approx(0.2436, rel=1e-3)
    assert mnist["lemma2"] == pytest.approx(0.4457, rel=1e-3)  # Lemma 2's hypotheses hold for MNIST
    # SVHN: the optimum sits near Renyi order 1.3, which integer orders miss (2275 vs 85.9)
    assert svhn["moments_integer"] == pytest.approx(2275, rel=1e-3)
    assert svhn["moments"] == pytest.approx(85.88, rel=1e-3)
    assert svhn["balle2020"] == pytest.approx(83.57, rel=1e-3)
    assert math.isnan(svhn["lemma2"])  # sigma = 0.299 < 1
    assert nums["SVHN"]["paper_method"]["conversion"] == "moments"
    for row in nums.values():
        valid = {c: v for c, v in row["epsilon"].items() if c != "moments_integer" and not math.isnan(v)}
        assert row["headline"]["epsilon"] == min(valid.values())
        assert row["headline"]["epsilon"] <= row["epsilon"]["balle2020"] <= row["epsilon"]["moments"]


def test_table1_headline_is_pld_when_installed():
    from dpverify.theorems.li2019.experiments import available_conversions, pld_available

    assert pld_available(), "dpverify.calculus.accounting.pld is part of dpverify; the Table 1 headline uses it"
    assert available_conversions()[-1] == "pld"
    nums = li2019.table1_numbers()
    assert nums["SVHN"]["headline"]["conversion"] == "pld" and nums["MNIST"]["headline"]["conversion"] == "pld"
    # PLD upper ends: SVHN at grid width 0.05 (76.0 at 0.01), MNIST at 1.6e-4 (dp-accounting's PLD gives 0.2205)
    assert 75.5 < nums["SVHN"]["epsilon"]["pld"] < 77.0
    assert nums["MNIST"]["epsilon"]["pld"] == pytest.approx(0.2205, rel=1e-2)


def test_svhn_batch_for_claim():
    """The smallest SVHN batch meeting 2.97 under each conversion, bracketed: eps(b) <= 2.97 < eps(b - 1)."""
    from dpverify.theorems.li2019.experiments import SVHN_N_WITH_EXTRA, table_epsilon

    svhn = li2019.table1_numbers()["SVHN"]
    assert svhn["batch_for_claim"] == {"moments": 412, "balle2020": 379, "pld": 355}
    assert svhn["batch_for_claim_with_extra"] == {"moments": 946, "balle2020": 881, "pld": 817}
    b = svhn["batch_for_claim"]["balle2020"]
    assert table_epsilon("SVHN", b, "balle2020") <= 2.97 < table_epsilon("SVHN", b - 1, "balle2020")
    b = svhn["batch_for_claim_with_extra"]["moments"]
    assert table_epsilon("SVHN", b, "moments", SVHN_N_WITH_EXTRA) <= 2.97 < table_epsilon("SVHN", b - 1, "moments", SVHN_N_WITH_EXTRA)


def test_fractional_orders_reach_below_order_two():
    """The exact accountant's grid has Renyi orders in (1, 2) (lam < 1) and no integer-only restriction by default."""
    from dpverify.theorems.li2019.bounds import EXACT_LAMBDAS, epsilon_exact

    assert EXACT_LAMBDAS.min() < 0.01 and np.any((EXACT_LAMBDAS > 0.2) & (EXACT_LAMBDAS < 0.4))
    args = (73_257, 11_446, 5.0, 1e-6, 128 / 73_257, 0.1, "fixed")
    assert epsilon_exact(*args) < epsilon_exact(*args, orders="integer") / 20
    with pytest.raises(ValueError, match="orders"):
        epsilon_exact(*args, orders="half")


def test_logreg_numbers():
    nums = li2019.logreg_numbers()
    assert nums["fixed_lemma2"] == pytest.approx(1.7244e-3, rel=1e-3)
    assert nums["fixed_exact"] == pytest.approx(3.413e-3, rel=5e-3)


def test_wang_quote_q_is_optional():
    """q only enters Wang's pass condition (a hypothesis): without it the bound is evaluated, that hypothesis is
    reported unchecked and the result is not marked guaranteed."""
    thm = registry.get("li2019.wang_bound_quoted")
    values = {k: v for k, v in EXAMPLE.items() if k != "q"}
    ev = thm.evaluate(**values)
    assert ev.eta_max == pytest.approx(thm.evaluate(**EXAMPLE).eta_max, rel=1e-15)
    assert ev.unchecked == ["wang_passes"] and not ev.guaranteed and ev.hypotheses == {}
    assert thm.evaluate(**EXAMPLE).guaranteed
    with pytest.raises(ValueError, match="missing value"):
        thm.evaluate(N=50_000, T=10_000, L=1.0, epsilon=0.1)  # delta is not optional


def test_prop6_and_prop7_evaluate():
    ev = registry.get("li2019.prop6_mse_fixed").evaluate(N=100, T=1000, tau=10, eta=0.1, Gamma_M=1.0, C=1.0)
    assert ev.eta_opt == pytest.approx(2000 ** (-1 / 3))
    assert ev.mse_bound == pytest.approx(9 * 1e4 / 1000 + 1 / 100 + 0.01)
    omega = li2019.prop7_omega(1e6, 3.0)
    assert 3.0 * math.log(1 / omega) ** 5 / omega**4 == pytest.approx(1e6, rel=1e-10)
    ev7 = registry.get("li2019.prop7_generalization").evaluate(T=1e6, A=3.0, N=1000, omega=0.1, eta=1e-9)
    assert ev7.omega_of_T == pytest.approx(omega, rel=1e-12)
    with pytest.raises(HypothesisError, match="step_condition"):
        registry.get("li2019.prop7_generalization").evaluate(T=1e6, A=3.0, N=1000, omega=0.1, eta=1e-3)


def test_figure_data_shapes():
    d1 = li2019.figure1_data()
    assert set(d1) == {"epsilon", "decreasing", "fixed", "wang"}
    assert all(v.shape == (85,) for v in d1.values())
    d2 = li2019.figure2_data(np.array([0.1, 0.5]))
    assert set(d2["by_N"]) == {1_000, 10_000, 100_000, 1_000_000} and set(d2["by_L"]) == {0.1, 0.5, 1.0, 10.0}
    assert all(v.shape == (2,) for v in d2["by_L"].values())
    fixed = li2019.figure2_data(np.array([0.1]), schedule="fixed")
    assert fixed["by_N"][1_000][0] < d2["by_N"][1_000][0]


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: eta_max_lemma2(0, 10, 1.0, 0.1, 1e-5), "N"),
        (lambda: eta_max_lemma2(10, 10, 1.0, -0.1, 1e-5), "epsilon"),
        (lambda: eta_max_lemma2(10, 10, 1.0, 0.1, 1e-5, schedule="weird"), "schedule"),
        (lambda: li2019.figure1_data(np.array([-1.0])), "epsilon"),
        (lambda: li2019.figure2_data(schedule="weird"), "schedule"),
        (lambda: li2019.eta_max_exact(10, 10, 1.0, 0.1, 1e-5, q=0.0), "q"),
    ],
)
def test_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@settings(max_examples=50, deadline=None)
@given(
    eps=st.floats(0.01, 5.0),
    factor=st.floats(1.01, 3.0),
    L=st.floats(0.05, 20.0),
    T=st.integers(1, 10**6),
    log_inv_delta=st.floats(1.0, 30.0),
)
def test_closed_form_properties(eps, factor, L, T, log_inv_delta):
    """Theorem 3/4's eta_max increases with eps, scales as 1/L^2, and the decreasing first step exceeds the
    fixed step; the tail bound at the optimal lam hits delta exactly."""
    delta = math.exp(-log_inv_delta)
    base = eta_max_lemma2(1000, T, 1.0, eps, delta, q=0.01)
    assert eta_max_lemma2(1000, T, 1.0, eps * factor, delta, q=0.01) > base
    assert eta_max_lemma2(1000, T, L, eps, delta, q=0.01) == pytest.approx(base / L**2, rel=1e-12)
    assert eta_max_lemma2(1000, T, 1.0, eps, delta, q=0.01, schedule="fixed") <= base * (1 + 1e-12)
    K = k_max_float(eps, delta)
    lam = (eps - K) / (2 * K)
    assert K * lam * (lam + 1) - lam * eps == pytest.approx(-log_inv_delta, rel=1e-9)
