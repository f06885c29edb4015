"""The provable forms of Bertazzi, Johnston, Roberts and Durmus (2025) (issue 35): each catalogue item decided by the
prover, every proof's certificate re-checked by the independent checker, and the families the comparators are
built from compared with the catalogue's own exact computations.

Which bug would make these fail: a form that no longer proves its item (a comparator written so that its enclosure
cannot settle, a reparametrisation that loses the claim), a certificate the checker rejects, a closed-form
supremum of the final-state family that is below the exact privacy of some chain (then a proof would prove
nothing), a reparametrised claim that is not the item's conclusion, and a form that cannot refute a wrong claim
(the perturbed conclusions below, each refuted, each witness re-checked in floating point by code the prover does
not use).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from dpverify.calculus.mechanisms.gaussian import gaussian_delta
from dpverify.prove import Proof, Refutation, certificate, check_certificate
from dpverify.prove.catalogue import prove_item
from dpverify.prove.comparators import gaussian_delta as symbolic_gaussian_delta
from dpverify.prove.forms.bertazzi2025 import (
    final_state_sup_energy,
    gaussian_profile,
    linear_drift_sup_energy,
)
from dpverify.prove.search import Limits
from dpverify.theorems import registry
from dpverify.theorems.bertazzi2025.formulas import gaussian_renyi, linear_ula_exact_final_rdp
from dpverify.theorems.bertazzi2025.sec4 import ou_exact_final_rdp
from dpverify.theorems.bertazzi2025.sec5 import affine_sgd_exact_path_rdp
from dpverify.theorems.final_state.exact import exact_final
from dpverify.theorems.final_state.runs import noisy_sgd_run
from dpverify.theorems.mutation import TheoremVariant, without_hypothesis

#: The expected outcome of each item, with the parts it must have.
EXPECTED: dict[str, tuple[str, tuple[str, ...]]] = {
    "bertazzi2025.prop32_tv_to_dp": ("proved", ("delta", "delta_limit")),
    "bertazzi2025.cor33_posterior_must_be_dp": ("proved", ("delta_threshold",)),
    "bertazzi2025.prop37_mc_estimator": ("proved", ("delta", "laplace_scale")),
    "bertazzi2025.prop310_mc_estimator": ("proved", ("delta", "sensitivity")),
    "bertazzi2025.lem41_rn_to_dp": ("proved", ("epsilon",)),
    "bertazzi2025.lem42_rn_to_rdp": ("proved", ("rdp",)),
    "bertazzi2025.prop45_path": ("proved", ("epsilon", "rdp")),
    "bertazzi2025.prop46_final_value": ("proved", ("rdp", "epsilon (via Lemma 4.1)")),
    "bertazzi2025.thm52_ula_final": ("proved", ("rdp", "epsilon (via Lemma 4.1)")),
    "bertazzi2025.thm54_ula_path": ("proved", ("epsilon", "rdp")),
    "bertazzi2025.thm56_sgld_final": ("proved", ("rdp", "epsilon (via Lemma 4.1)")),
    "bertazzi2025.thm57_sgld_strongly_convex": ("proved", ("rdp", "epsilon (via Lemma 4.1)")),
    "bertazzi2025.thm58_sgld_path": ("proved", ("epsilon", "rdp")),
}

LIMITS = Limits(max_seconds=60)
WRONG = Limits(max_seconds=20)


# ------------------------------------------------------------------------------------------------ the items
@pytest.fixture(scope="module")
def proofs():
    """Each item's :class:`~dpverify.prove.catalogue.ItemProof`, proved once for the module."""
    cache: dict = {}

    def get(theorem_id: str):
        if theorem_id not in cache:
            cache[theorem_id] = prove_item(theorem_id, limits=LIMITS)
        return cache[theorem_id]
    return get


@pytest.mark.parametrize("theorem_id", sorted(EXPECTED))
def test_item_outcome_and_certificates(proofs, theorem_id):
    outcome, parts = EXPECTED[theorem_id]
    proof = proofs(theorem_id)
    assert proof.outcome == outcome, proof.summary()
    assert tuple(name for name, _ in proof.parts) == parts
    for name, result in proof.parts:
        assert isinstance(result, Proof), f"[{name}] {result.summary()}"
        assert not result.vacuous, f"[{name}] proved only vacuously"
        assert result.problem.scope and result.problem.comparator_source
        # every comparator is exact on its family except the (epsilon, delta) parts of the final-value bounds,
        # which go through Lemma 4.1 (an upper bound on the family's epsilon)
        assert result.problem.comparator_kind == ("upper" if name == "epsilon (via Lemma 4.1)" else "exact")
        report = check_certificate(certificate(result))
        assert report.valid, f"[{name}] {report.errors}"
        assert report.outcome == "proved"


# ------------------------------------------------------------------------------------------------ reparametrisations
def _at(expr: sp.Expr, values: dict[str, float]) -> float:
    return float(expr.xreplace({s: sp.nsimplify(values[s.name]) for s in expr.free_symbols}).evalf(30))


@pytest.mark.parametrize("theorem_id", ["bertazzi2025.thm52_ula_final", "bertazzi2025.thm56_sgld_final",
                                        "bertazzi2025.thm57_sgld_strongly_convex"])
def test_final_state_claims_in_r_and_q_are_the_conclusion(proofs, theorem_id):
    """The final-state problems read m = r M, h = 2 (1 - q) r / M, delta = exp(-ell^2/2): at a point, their claimed
    values are the registered conclusion's."""
    theorem = registry.get(theorem_id)
    M_, r_, q_, ell_ = 3.0, 0.4, 0.3, 4.0
    point = {"M": M_, "r": r_, "q": q_, "ell": ell_, "K": 0.7, "alpha": 2.5, "beta": 1.7, "tau": 4, "N": 9}
    inputs = {"K": 0.7, "M": M_, "m": r_ * M_, "h": 2 * (1 - q_) * r_ / M_, "delta": math.exp(-ell_**2 / 2),
              "alpha": 2.5, "beta": 1.7, "tau": 4, "N": 9}
    for name, result in proofs(theorem_id).parts:
        problem = result.problem
        key = "rdp" if name == "rdp" else "epsilon"
        registered = _at(theorem.conclusion[key], inputs)
        assert _at(problem.claimed, point) == pytest.approx(registered, rel=1e-12)


def test_gaussian_profile_is_the_calculus_profile():
    eps, mu = sp.symbols("eps mu", positive=True)
    expr = gaussian_profile(eps, mu)
    assert sp.simplify(expr - symbolic_gaussian_delta(eps, mu)) == 0
    for e, m in ((0.3, 0.5), (2.0, 1.7), (7.0, 3.0)):
        assert _at(expr, {"eps": e, "mu": m}) == pytest.approx(gaussian_delta(e, m), rel=1e-9, abs=1e-15)
    with pytest.raises(ValueError):
        gaussian_profile(eps, mu, ratio=eps / mu + 1)


# ------------------------------------------------------------------------------------------------ the families
@pytest.mark.parametrize("m, M, fraction", [(0.5, 0.5, 0.3), (0.5, 0.5, 0.9), (1.0, 3.0, 0.5), (0.2, 1.0, 0.99),
                                            (2.0, 2.5, 0.95), (0.3, 0.4, 0.1)])
def test_final_state_supremum_is_the_largest_exact_rdp(m, M, fraction):
    """final_state_sup_energy is sup over k and lam in [m, M] of the exact final-iterate RDP of ULA on the quadratic
    family (catalogue: linear_ula_exact_final_rdp, an iteration of the Gaussian laws), and it is reached: at k = 1
    for oscillating chains (h m > 1), else as k grows at lam = m."""
    h = fraction * 2 * m / M**2
    K, alpha = 0.8, 3.0
    sup = alpha * K**2 * float(final_state_sup_energy(sp.Float(h), sp.Float(m)))  # alpha mu^2 / 2, mu^2 = 2 K^2 X
    ks = [1, 2, 3, 7, 30, 200, 2000]
    best = 0.0
    for lam in np.linspace(m, M, 4):
        exact = linear_ula_exact_final_rdp(alpha, np.array([[lam]]), np.array([2 * K]), h, ks)
        best = max(best, float(np.max(exact)))
    assert best <= sup * (1 + 1e-9)
    assert best >= sup * (1 - 1e-6)


@pytest.mark.parametrize("K, lam, h, beta, tau, k", [(1.0, 0.5, 0.3, 2.0, 4, 50), (0.7, 2.0, 0.9, 0.5, 3, 1),
                                                     (1.3, 1.0, 1.5, 1.0, 2, 7)])
def test_noisy_sgd_full_batch_is_the_quadratic_family_with_gap_2K_over_tau(K, lam, h, beta, tau, k):
    """The full-batch noisy SGD run of dpverify.theorems.final_state (a mechanism description, its exact final pair)
    has mu^2 = 2 beta (K/tau)^2 (2 - h lam)(1 - c^k)/(lam (1 + c^k)), the family the final-state forms use."""
    mu = exact_final(noisy_sgd_run(K, lam, h, beta, tau, tau, k)).mu
    c = 1 - h * lam
    assert mu**2 == pytest.approx(2 * beta * (K / tau) ** 2 * (2 - h * lam) * (1 - c**k) / (lam * (1 + c**k)),
                                  rel=1e-10)


@pytest.mark.parametrize("K, L, R, z", [(1.0, 2.0, 0.5, 0.3), (3.0, 0.5, 1.0, 0.9), (0.2, 10.0, 2.0, 0.01)])
def test_linear_drift_members_have_the_closed_form_privacy(K, L, R, z):
    """Prop. 4.6's family at (K, L, R, z): the Ornstein-Uhlenbeck pair with lambda = (1 - z) K / R <= L, mean gap
    R / (1 - z) and horizon T = -log(z) / lambda has drift constants (K, lambda) and coupled gap R at T; its exact
    final RDP (catalogue: ou_exact_final_rdp) is alpha beta K R / (2 (1 + z))."""
    assert (1 - z) * K <= L * R
    lam = (1 - z) * K / R
    gap = R / (1 - z)
    T = -math.log(z) / lam
    assert gap * (1 - math.exp(-lam * T)) == pytest.approx(R)  # the coupled gap at T (increasing in t)
    alpha, beta = 2.5, 1.5
    assert ou_exact_final_rdp(alpha, lam, gap, T, beta) == pytest.approx(
        alpha * beta * float(linear_drift_sup_energy(sp.Float(K), sp.Float(R), sp.Float(z))) / 2, rel=1e-12)
    # z = 1: the constant shift K over T = R / K (final laws N(K T, 2T/beta) and N(0, 2T/beta))
    T0 = R / K
    assert gaussian_renyi(alpha, K * T0, 2 * T0 / beta) == pytest.approx(
        alpha * beta * float(linear_drift_sup_energy(sp.Float(K), sp.Float(R), sp.Integer(1))) / 2, rel=1e-12)


# ------------------------------------------------------------------------------------------------ wrong claims
def _variant(theorem_id: str, **conclusion: sp.Expr) -> TheoremVariant:
    theorem = registry.get(theorem_id)
    return TheoremVariant(theorem.id, dict(theorem.symbols), list(theorem.hypotheses),
                          {**theorem.conclusion, **conclusion})


def _refuted(result, name):
    assert isinstance(result, Refutation), f"[{name}] {result.summary()}"
    report = check_certificate(certificate(result))
    assert report.valid and report.outcome == "refuted", report.errors
    return {k: float(v) for k, v in result.witness.items()}


def test_thm58_with_the_l2_bound_for_the_sensitivity_is_refuted():
    """The erratum's unsound reading of Thm 5.8 (K_ell = K instead of the sensitivity 2K: the claim with K_ell/2) is
    refuted in both currencies; the epsilon witness is re-checked with the calculus' Gaussian profile, the RDP one
    against the catalogue's exact path RDP of the affine model at full batch (mixture quadrature)."""
    theorem = registry.get("bertazzi2025.thm58_sgld_path")
    K_ell = theorem.symbols["K_ell"]
    halved = {key: value.xreplace({K_ell: K_ell / 2}) for key, value in theorem.conclusion.items()}
    proof = prove_item(theorem.id, item=_variant(theorem.id, **halved), limits=WRONG, stop_at_refutation=False)
    assert proof.outcome == "refuted"
    parts = dict(proof.parts)
    w = _refuted(parts["epsilon"], "epsilon")
    ell, mu = w["ell"], w["mu"]
    delta = math.exp(-ell**2 / 2)
    eps_claimed = (mu / 2) ** 2 / 2 + ell * mu / 2  # the halved claim at energy mu^2 (its shift is mu / 2)
    assert gaussian_delta(eps_claimed, mu) > delta
    _refuted(parts["rdp"], "rdp")
    # the same failure on the affine model: N = tau = 10, K = 1 (sensitivity 2), h = 0.1, k = 100, alpha = 2
    values = {theorem.symbols[n]: v for n, v in dict(K_ell=2, h=sp.Rational(1, 10), k=100, beta=1, tau=10, N=10,
                                                       alpha=2, delta=sp.Rational(1, 2)).items()}
    claimed = float(halved["rdp"].xreplace(values))
    exact = affine_sgd_exact_path_rdp(2.0, 1.0, 0.1, 100, 10, 10)
    assert claimed == pytest.approx(exact / 4, rel=1e-5)


def test_lemma41_without_the_drift_term_is_refuted():
    """epsilon = sqrt(2 C log(1/delta)) (the C/2 dropped) is below the Gaussian mechanism's exact epsilon."""
    theorem = registry.get("bertazzi2025.lem41_rn_to_dp")
    C, d = theorem.symbols["energy"], theorem.symbols["delta"]
    proof = prove_item(theorem.id, item=_variant(theorem.id, epsilon=sp.sqrt(2 * C * sp.log(1 / d))), limits=WRONG)
    assert proof.outcome == "refuted"
    w = _refuted(proof.parts[0][1], "epsilon")
    mu, delta = w["mu"], math.exp(-w["ell"] ** 2 / 2)
    eps_claimed = math.sqrt(2 * mu**2 * math.log(1 / delta))
    assert gaussian_delta(eps_claimed, mu) > delta


def test_ula_final_state_without_the_step_size_hypothesis_is_refuted():
    """Thm 5.2 with h up to 20 times 2m/M^2: refuted; the witness's chain (lam = m, K = 1, alpha = 2) has an exact
    final RDP (catalogue: linear_ula_exact_final_rdp) above the claim."""
    theorem = registry.get("bertazzi2025.thm52_ula_final")
    proof = prove_item(theorem.id, item=without_hypothesis(theorem, "step_size"), limits=WRONG)
    assert proof.outcome == "refuted"
    name, result = next((n, r) for n, r in proof.parts if isinstance(r, Refutation))
    w = _refuted(result, name)
    M_, m_ = w["M"], w["r"] * w["M"]
    h_ = 2 * w["s"] * m_ / M_**2
    assert h_ > 2 * m_ / M_**2  # outside the hypothesis
    S = theorem.symbols
    claimed = float(theorem.conclusion["rdp"].subs({S["K"]: 1, S["M"]: M_, S["m"]: m_, S["h"]: h_, S["alpha"]: 2}))
    # a few steps suffice (past the step-size bound the chain may oscillate and grow; many steps would overflow)
    with np.errstate(over="ignore", invalid="ignore"):
        exact = linear_ula_exact_final_rdp(2.0, np.array([[m_]]), np.array([2.0]), h_, [1, 2, 5])
    assert float(np.max(exact)) > claimed


def test_prop46_without_the_steering_term_is_refuted():
    """Prop. 4.6 with M = K + L R (the control's R dropped): refuted; the witness is re-checked on the constant-shift
    or Ornstein-Uhlenbeck member it names."""
    theorem = registry.get("bertazzi2025.prop46_final_value")
    S = theorem.symbols
    small = S["K"] + S["L"] * S["R"]
    variant = _variant(theorem.id, rdp=S["alpha"] * S["beta"] * small**2 / 4,
                       epsilon=theorem.conclusion["epsilon"].xreplace({theorem.conclusion["final_constant"]: small}))
    proof = prove_item(theorem.id, item=variant, limits=WRONG)
    assert proof.outcome == "refuted"
    w = _refuted(proof.parts[0][1], "rdp")
    K_, L_, R_, z = w["K"], w["L"], w["R"], w["z"]
    assert (1 - z) * K_ <= L_ * R_ + 1e-12
    alpha, beta = 2.0, 1.0
    if z == 1:
        exact = gaussian_renyi(alpha, K_ * (R_ / K_), 2 * (R_ / K_) / beta)
    else:
        lam = (1 - z) * K_ / R_
        exact = ou_exact_final_rdp(alpha, lam, R_ / (1 - z), -math.log(z) / lam, beta) if z > 0 else \
            alpha * beta * lam * (R_ / (1 - z)) ** 2 / 2
    assert exact > alpha * beta * (K_ + L_ * R_) ** 2 / 4


def test_prop310_without_the_posterior_gap_is_refuted():
    """Delta = 2r (C_f dropped): two concentrated estimators can be 2r + C_f apart."""
    theorem = registry.get("bertazzi2025.prop310_mc_estimator")
    proof = prove_item(theorem.id, item=_variant(theorem.id, sensitivity=2 * theorem.symbols["r"]), limits=WRONG,
                       stop_at_refutation=False)
    assert proof.outcome == "refuted"
    w = _refuted(dict(proof.parts)["sensitivity"], "sensitivity")
    r_, cf = w["r"], w["C_f"]
    assert all(-1 <= w[s] <= 1 for s in ("s1", "s2", "s3"))
    pi_d, pi_dp = 0.0, -cf * w["s3"]  # |pi_D - pi_D'| <= C_f
    y_d, y_dp = pi_d + r_ * w["s1"], pi_dp + r_ * w["s2"]  # each within r of its target
    assert abs(y_d - y_dp) > 2 * r_


def test_prop32_without_the_e_eps_factor_is_refuted_by_two_point_laws():
    """delta + kappa R(n) (the factor 1 + e^eps dropped) is refuted; the witness is realised by two-point laws on
    {S, not S}: an (eps, delta)-DP reference pair (checked in both directions by the catalogue's hockey-stick) and
    laws within TV eta of it whose hockey-stick exceeds the claim."""
    from dpverify.theorems.bertazzi2025.sec23 import hockey_stick, is_dp

    theorem = registry.get("bertazzi2025.prop32_tv_to_dp")
    S = theorem.symbols
    proof = prove_item(theorem.id, item=_variant(theorem.id, delta=S["delta"] + S["kappa"] * S["R_n"]), limits=WRONG)
    assert proof.outcome == "refuted"
    w = _refuted(proof.parts[0][1], "delta")
    e, d, eta = w["epsilon"], w["delta"], w["eta"]
    x = w["u"] * (math.exp(e) * w["v"] + d)
    nu_d, nu_dp = np.array([x, 1 - x]), np.array([w["v"], 1 - w["v"]])
    assert is_dp(nu_d, nu_dp, e, d) and is_dp(nu_dp, nu_d, e, d)
    mu_d = nu_d + w["s1"] * eta * np.array([1, -1])
    mu_dp = nu_dp - w["s2"] * eta * np.array([1, -1])
    assert np.all(mu_d >= 0) and np.all(mu_dp >= 0)
    assert 0.5 * np.abs(mu_d - nu_d).sum() <= eta + 1e-15 and 0.5 * np.abs(mu_dp - nu_dp).sum() <= eta + 1e-15
    assert hockey_stick(mu_d, mu_dp, e) > d + eta
