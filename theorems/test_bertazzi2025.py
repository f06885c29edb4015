"""Bertazzi et al. 2025 catalogue (reconstructed statements): every check, coverage, evaluation and curves.

The statements are reconstructed from the paper's proofs (see dpverify.theorems.bertazzi2025); the 18 IDs and
their check letters come from the in-repo catalogue (dpverify.theorems.catalogue).
"""
import json

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.theorems import HypothesisError, catalogue, registry
from dpverify.theorems import bertazzi2025 as b
from dpverify.theorems import symbols as symbol_table

# ID -> check letters of the in-repo catalogue (dpverify.theorems.catalogue).
EXPECTED = {i: catalogue.check_kinds(i) for i in catalogue.ids("bertazzi2025")}
PLANNED_SAMPLERS = {"ula_final", "ula_path", "noisy_sgd_final", "noisy_sgd_path", "noisy_mc_estimator"}

THEOREMS = registry.all_theorems("bertazzi2025")
CHECKS = [(t.id, c.name) for t in THEOREMS for c in t.checks]


@pytest.mark.parametrize("theorem_id, check_name", CHECKS)
def test_check_passes(theorem_id, check_name):
    thm = registry.get(theorem_id)
    check = next(c for c in thm.checks if c.name == check_name)
    result = check.run()
    assert result.passed, f"{theorem_id}::{check_name} failed: {result.detail}"


def test_all_ids_registered_exactly():
    assert set(registry.ids("bertazzi2025")) == set(EXPECTED)
    assert len(THEOREMS) == 18
    assert [t.id for t in b.THEOREMS] == list(EXPECTED)


@pytest.mark.parametrize("theorem_id", list(EXPECTED))
def test_entry_metadata(theorem_id):
    thm = registry.get(theorem_id)
    thm.validate()
    assert thm.source.paper == "bertazzi2025" and thm.reconstructed
    assert thm.source.confidence and thm.source.confidence.split()[0] in {"R-high", "R-med", "UNCERTAIN"}
    assert thm.statement and thm.conclusion
    kinds = {c.kind for c in thm.checks}
    types = EXPECTED[theorem_id]
    if "S" in types:
        assert "symbolic" in kinds
    if "N" in types:
        assert "numeric" in kinds
    if "E" in types:
        assert thm.empirical and all(e.sampler in PLANNED_SAMPLERS for e in thm.empirical)
        assert all(e.audit == f"audits/test_{e.sampler}.py" for e in thm.empirical)
    assert "reconstructed" in thm.explain() and theorem_id in thm.explain()
    json.dumps(thm.to_dict())
    assert thm._repr_latex_().startswith("$")


# --- evaluation with the stable keyword names -----------------------------------------------------

def test_thm52_evaluate_keywords_and_value():
    res = registry.get("bertazzi2025.thm52_ula_final").evaluate(K=1, M=2, m=0.5, h=0.05, delta=1e-5, alpha=2)
    Mh = 2 + 3 * 2 / (0.5 - 0.05 * 4 / 2)  # 2K + (M+1) R_h, R_h = 2K/(m - h M^2/2) = 5
    assert res.coupling_radius == pytest.approx(5.0)
    assert res.final_constant == pytest.approx(Mh)
    assert res.rdp == pytest.approx(2 * Mh**2 / 4)
    assert res.epsilon == pytest.approx(Mh**2 / 4 + Mh * np.sqrt(np.log(1e5)))
    assert res.epsilon == pytest.approx(float(b.ula_final_epsilon(1e-5, 1, 2, 0.5, 0.05)))


def test_thm54_and_thm58_evaluate():
    res = registry.get("bertazzi2025.thm54_ula_path").evaluate(K=1, h=0.05, k=50, delta=1e-3, alpha=3)
    assert res.rdp == pytest.approx(3 * 50 * 0.05 / 4)
    assert res.epsilon == pytest.approx(4.7806, abs=1e-4)  # reconstruction 7b: 4.781
    res58 = registry.get("bertazzi2025.thm58_sgld_path").evaluate(K_ell=2, h=0.1, k=100, tau=5, N=10, delta=1e-5, alpha=2)
    assert res58.rdp == pytest.approx(float(b.noisy_sgd_path_rdp(2, 2, 0.1, 100, 1.0, 5)))


@pytest.mark.parametrize(
    "theorem_id, values, failed",
    [
        ("bertazzi2025.thm52_ula_final", dict(K=1, M=2, m=0.5, h=0.3, delta=1e-5, alpha=2), "step_size"),
        ("bertazzi2025.thm52_ula_final", dict(K=1, M=1, m=2, h=0.1, delta=1e-5, alpha=2), "m_at_most_M"),
        ("bertazzi2025.thm56_sgld_final", dict(K=1, M=1, m=1, h=2.5, delta=0.5, alpha=2), "step_size"),
        ("bertazzi2025.thm57_sgld_strongly_convex", dict(K=1, M=1, m=1, h=0.5, tau=20, N=10, delta=0.1, alpha=2),
         "batch_at_most_N"),
        ("bertazzi2025.thm54_ula_path", dict(K=1, h=0.1, k=10, delta=0.1, alpha=0.5), "order_above_one"),
        ("bertazzi2025.prop34_tv_lower_bound", dict(epsilon=1, delta=0.2, delta_prime=0.1), "delta_prime_above_delta"),
        ("bertazzi2025.cor33_posterior_must_be_dp", dict(epsilon=1, delta=0.1, kappa=1, R_inf=0.1, delta_prime=0.2),
         "delta_prime_above_threshold"),
    ],
)
def test_hypothesis_error_outside_hypotheses(theorem_id, values, failed):
    thm = registry.get(theorem_id)
    with pytest.raises(HypothesisError, match=failed):
        thm.evaluate(**values)
    assert failed in thm.evaluate(allow_unguaranteed=True, **values).failed


def test_bad_keywords_rejected():
    thm = registry.get("bertazzi2025.thm52_ula_final")
    with pytest.raises(ValueError, match="unknown parameter"):
        thm.evaluate(K=1, L=2, m=0.5, h=0.05, delta=1e-5, alpha=2)
    with pytest.raises(ValueError, match="h must be > 0"):
        thm.evaluate(K=1, M=2, m=0.5, h=-0.05, delta=1e-5, alpha=2)


# --- section 7 of the reconstruction, re-run directly ---------------------------------------------

def test_section7_check1_every_epsilon_is_the_optimised_conversion():
    """eps_dp(C) == min_alpha eps_rdp(C) + log(1/delta)/(alpha - 1) for every entry with both conclusions."""
    delta = symbol_table.delta  # the catalogue's delta (dpverify.theorems.symbols), the one the conclusions use
    for thm in THEOREMS:
        if not {"epsilon", "rdp"} <= set(thm.conclusion):
            continue
        C = sp.simplify(2 * thm.conclusion["rdp"] / thm.symbols["alpha"])
        a_star = 1 + sp.sqrt(2 * sp.log(1 / delta) / C)
        converted = (thm.conclusion["rdp"].subs(thm.symbols["alpha"], a_star) + sp.log(1 / delta) / (a_star - 1))
        point = {s: sp.Rational(3, 10) if n == "h" else (sp.Rational(1, 1000) if n == "delta" else 2)
                 for n, s in thm.symbols.items()}
        point[thm.symbols.get("m", sp.Symbol("unused"))] = 2
        point[thm.symbols.get("M", sp.Symbol("unused"))] = 2
        lhs = float(thm.conclusion["epsilon"].subs(point))
        rhs = float(converted.subs(point))
        assert lhs == pytest.approx(rhs, rel=1e-12), thm.id


def test_section7_check1_against_the_accountants_conversion():
    """Independent: dpverify.calculus.conversions.rdp_to_dp (Mironov 2017, Prop. 3) on a fine order grid lands just above the
    closed-form epsilon (the closed form is the infimum over all real orders)."""
    from dpverify.calculus.conversions import rdp_to_dp

    orders = np.linspace(1.001, 200, 200_000)
    for C, delta in [(1.25, 1e-3), (0.01, 1e-6), (40.0, 1e-9)]:
        closed = float(b.budget_epsilon(C, delta))
        conv = rdp_to_dp(orders, b.budget_rdp(C, orders), delta, method="mironov2017")
        assert closed <= conv.epsilon <= closed * (1 + 1e-6)
        assert conv.order == pytest.approx(1 + np.sqrt(2 * np.log(1 / delta) / C), rel=1e-3)


def test_section7_check2_contraction_constants():
    m, M, K = 0.7, 1.9, 1.3
    h_star = m / M**2
    assert 1 - 2 * h_star * m + h_star**2 * M**2 == pytest.approx(1 - m**2 / M**2)
    assert float(b.coupling_radius(K, M, m, h_star)) == pytest.approx(4 * K / m)
    with pytest.raises(ValueError, match="h must lie in"):
        b.coupling_radius(K, M, m, 2 * m / M**2)


def test_section7_check3_path_rdp_is_gaussian_composition():
    # k Gaussian mechanisms with shift h K and variance 2h/beta: k alpha (hK)^2 beta/(4h)
    for alpha, K, h, k, beta in [(2, 1, 0.1, 10, 1), (5.5, 0.3, 0.02, 400, 2.5)]:
        composed = k * alpha * (h * K) ** 2 * beta / (4 * h)
        got = registry.get("bertazzi2025.prop45_path").evaluate(beta=beta, K=K, T=k * h, delta=0.1, alpha=alpha).rdp
        assert got == pytest.approx(composed)


# --- theory curves for the notebook -----------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(
    alpha=st.floats(1.01, 64), K=st.floats(0.01, 10), m=st.floats(0.05, 5), ratio=st.floats(1.0, 5.0),
    frac=st.floats(0.01, 0.99), delta=st.floats(1e-12, 0.5),
)
def test_curves_path_grows_final_uniform(alpha, K, m, ratio, frac, delta):
    M = m * ratio
    h = frac * 2 * m / M**2
    ks = np.array([1, 2, 10, 100, 10_000])
    path = b.ula_path_rdp(alpha, 2 * K, h, ks)
    path_eps = b.ula_path_epsilon(delta, 2 * K, h, ks)
    final = b.ula_final_rdp(alpha, K, M, m, h, ks)
    final_eps = b.ula_final_epsilon(delta, K, M, m, h, ks)
    assert np.all(np.diff(path) > 0) and np.all(np.diff(path_eps) > 0)
    assert np.ptp(final) == 0 and np.ptp(final_eps) == 0
    assert np.all(b.ula_final_rdp_short_window(alpha, K, M, m, h, ks) <= final * (1 + 1e-12))
    # the path bound eventually exceeds the uniform final-state bound (it grows without limit)
    k_cross = int(np.ceil(final[0] / (alpha * (2 * K) ** 2 * h / 4))) + 1
    assert b.ula_path_rdp(alpha, 2 * K, h, k_cross) > final[0]


def test_sgd_curves_match_theorems():
    kw = dict(K=0.7, M=2.0, m=1.0, h=0.2, beta=2.0, delta=0.01, alpha=4.0)
    r56 = registry.get("bertazzi2025.thm56_sgld_final").evaluate(**kw).rdp
    r57 = registry.get("bertazzi2025.thm57_sgld_strongly_convex").evaluate(tau=5, N=50, **kw).rdp
    assert float(b.noisy_sgd_final_rdp(4.0, 0.7, 2.0, 1.0, 0.2, beta=2.0)) == pytest.approx(r56)
    assert float(b.noisy_sgd_final_rdp(4.0, 0.7, 2.0, 1.0, 0.2, beta=2.0, tau=5, affine=True)) == pytest.approx(r57)
    assert r57 == pytest.approx(r56 / 25)


def test_curves_limits():
    # final-state bound is finite as h -> 0 with limit alpha (2K(1 + (M+1)/m))^2 / 4
    K, M, m, alpha = 1.0, 2.0, 0.5, 2.0
    hs = np.array([1e-2, 1e-4, 1e-8])
    limit = alpha * (2 * K * (1 + (M + 1) / m)) ** 2 / 4
    vals = b.ula_final_rdp(alpha, K, M, m, hs)
    assert np.all(np.diff(vals) < 0) and vals[-1] == pytest.approx(limit, rel=1e-6)
    # and blows up as h -> 2m/M^2
    assert b.ula_final_rdp(alpha, K, M, m, (1 - 1e-9) * 2 * m / M**2) > 1e15
    # path bound -> 0 as k h -> 0 and linear in k
    assert b.ula_path_rdp(alpha, K, 1e-12, 1) < 1e-11
    assert b.ula_path_rdp(alpha, K, 0.1, 20) == pytest.approx(2 * b.ula_path_rdp(alpha, K, 0.1, 10))


@pytest.mark.parametrize(
    "func, args, match",
    [
        (b.ula_path_rdp, (1.0, 1.0, 0.1, 10), "alpha"),
        (b.ula_path_rdp, (2.0, 1.0, 0.1, 2.5), "k"),
        (b.ula_final_rdp, (2.0, 1.0, 1.0, 2.0, 0.1), "m must be <= M"),
        (b.ula_path_epsilon, (0.0, 1.0, 0.1, 10), "delta"),
        (b.ula_final_rdp, (2.0, -1.0, 1.0, 1.0, 0.1), "K must be"),
    ],
)
def test_curves_validate_inputs(func, args, match):
    with pytest.raises(ValueError, match=match):
        func(*args)


# --- consistency with the models' exact ULA law (dpverify.models.targets.GaussianTarget) ----------------

@pytest.mark.parametrize("h, k", [(0.01, 5), (0.1, 40), (0.2, 500)])
def test_bounds_dominate_exact_ula_law_of_gaussian_target(h, k):
    from dpverify.models.targets import GaussianTarget

    model = GaussianTarget(dim=2, R=1.0, noise_variance=1.0, prior_variance=[4.0, 0.5])
    X = np.array([[1.0, 0.0], [0.3, -0.2], [0.0, 0.9], [-0.5, 0.5], [0.1, 0.1]])
    Xp = X.copy()
    Xp[0] = [-1.0, 0.0]  # replace-one neighbour, largest change of sum x_i / sigma^2 (2R/sigma^2)
    alpha = 3.0
    (mu, var), (mup, varp) = model.ula_law(X, h, k), model.ula_law(Xp, h, k)
    assert np.allclose(var, varp)
    exact = float(alpha * np.sum((mu - mup) ** 2 / var) / 2)
    # our independent recursion on grad U^D = A x - b_D gives the same number
    A = np.diag(model.precision(5))
    ours = b.linear_ula_exact_final_rdp(alpha, A, model.linear_term(Xp) - model.linear_term(X), h, k)
    assert ours == pytest.approx(exact, rel=1e-9)
    c = model.ula_constants(5)
    final = registry.get("bertazzi2025.thm52_ula_final").evaluate(
        K=c["K"], M=c["M"], m=c["m"], h=h, delta=1e-5, alpha=alpha)
    path = registry.get("bertazzi2025.thm54_ula_path").evaluate(K=c["K_path"], h=h, k=k, delta=1e-5, alpha=alpha)
    assert final.rdp >= exact and path.rdp >= exact  # path RDP >= final-state RDP by data processing


# --- inputs that only one part or only a hypothesis needs; delta = 0 -----------------------------------------------

def test_prop34_accepts_delta_zero():
    """A pure-DP chain (delta = 0) against a posterior that is not (eps, delta')-DP: TV >= delta'/(1 + e^eps)."""
    ev = registry.get("bertazzi2025.prop34_tv_lower_bound").evaluate(epsilon=1.0, delta=0, delta_prime=0.2)
    assert ev.guaranteed and ev.tv_lower == pytest.approx(0.2 / (1 + np.e), rel=1e-15)
    with pytest.raises(ValueError, match="delta must be >= 0"):
        registry.get("bertazzi2025.prop34_tv_lower_bound").evaluate(epsilon=1.0, delta=-0.1, delta_prime=0.2)


def test_prop32_part_i_needs_no_R_inf_and_part_ii_no_R_n():
    thm = registry.get("bertazzi2025.prop32_tv_to_dp")
    part_i = thm.evaluate(epsilon=0.5, delta=0, kappa=1.0, R_n=0.01)
    assert part_i.guaranteed and part_i.delta == pytest.approx((1 + np.exp(0.5)) * 0.01, rel=1e-15)
    assert part_i.omitted == {"delta_limit": ["R_inf"]} and "delta_limit" not in part_i.conclusion
    with pytest.raises(AttributeError, match="needs R_inf"):
        part_i.delta_limit  # noqa: B018 - the access itself is what is tested
    part_ii = thm.evaluate(epsilon=0.5, delta=1e-3, kappa=2.0, R_inf=0.05)
    assert part_ii.delta_limit == pytest.approx(1e-3 + (1 + np.exp(0.5)) * 0.1, rel=1e-15)
    assert part_ii.omitted == {"delta": ["R_n"]}
    with pytest.raises(ValueError, match="missing value"):
        thm.evaluate(delta=0, kappa=1.0, R_n=0.01)  # epsilon is not optional


def test_cor33_threshold_without_delta_prime():
    thm = registry.get("bertazzi2025.cor33_posterior_must_be_dp")
    ev = thm.evaluate(epsilon=1.0, delta=0, kappa=1.0, R_inf=0.01)
    assert ev.delta_threshold == pytest.approx((1 + np.e) * 0.01, rel=1e-15)
    assert ev.unchecked == ["delta_prime_above_threshold"] and not ev.guaranteed
    with pytest.raises(HypothesisError, match="delta_prime_above_threshold"):
        thm.evaluate(epsilon=1.0, delta=0, kappa=1.0, R_inf=0.01, delta_prime=0.001)
