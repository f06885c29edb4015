"""Li et al. 2019, Section 3.2 and App. D-F: the MSE bounds (Propositions 5, 6), the generalisation
bound (Proposition 7, Lambert W) and their assumptions (Assumptions 1, 2).

Derivations re-done with sympy:

- Prop. 5 from eq. (8) (Chen et al. 2015, Thm 5 with Euler's integrator) and Theorem 3's schedule
  ``eta_t = N eta~0 t^{-1/3} T^{-2/3}``, ``eta~0 = eps^2/(c2^2 L^2 log(1/delta))``, with the proof's
  ``sum_t t^p ~ T^{p+1}/(p+1)``: the bound is ``(4/3)(N/tau-1) N^2 Gamma/T + 2/(3 N eta~0) + 4 N^2 eta~0^2/T^2``,
  not the printed ``(2/3)(N/tau-1) N^2 Gamma/T + 1/(3 eta~0) + 2 eta~0^2 T^{-2/3}``; the optimal
  ``eta~0`` is then ``O(T^{2/3})``, while the printed bound gives the printed ``O(T^{2/9})``;
- Prop. 6: optimum ``eta = (2T)^{-1/3}`` and the printed substitution of Theorem 4's step;
- Prop. 7: the supplement's inversion ``T = A m e^{4m/5}`` does not follow from
  ``T = A log^5(1/omega)/omega^4``; the correct one is ``log(1/omega) = (5/4) W((4/5)(T/A)^{1/5})``.
"""
from __future__ import annotations

import math

import mpmath as mp
import sympy as sp
from scipy.optimize import brentq, minimize_scalar
from scipy.special import lambertw

from dpverify.theorems import symbols as sy
from dpverify.theorems.base import Erratum, Hypothesis, Theorem
from dpverify.theorems.li2019.common import source, symbols

__all__ = ["THEOREMS", "prop7_omega", "PROP5_PRINTED", "PROP7_PAPER_OMEGA"]

S = symbols("N", "T", "tau", "eta", "epsilon", "delta", "L")
N, T, tau, eta = S["N"], S["T"], S["tau"], S["eta"]
Gamma, C, et0 = sy.Gamma_M, sy.C_mse, sy.eta_tilde_0

# ---------------------------------------------------------------------------------------------
# Proposition 5
# ---------------------------------------------------------------------------------------------
PROP5_PRINTED = C * (sp.Rational(2, 3) * (N / tau - 1) * N**2 * Gamma / T + 1 / (3 * et0) + 2 * et0**2 * T ** sp.Rational(-2, 3))
PROP5_REDERIVED = C * (sp.Rational(4, 3) * (N / tau - 1) * N**2 * Gamma / T + 2 / (3 * N * et0) + 4 * N**2 * et0**2 / T**2)


def _approx_sum(power_of_t, coef):
    """``sum_{t=1}^T coef t^p ~ coef T^{p+1}/(p+1)`` (the proof's approximation, p > -1)."""
    p = sp.Rational(power_of_t)
    return coef * T ** (p + 1) / (p + 1)


prop5 = Theorem(
    "li2019.prop5_mse_decreasing",
    "MSE of DP-SGLD with Theorem 3's decreasing step",
    source("Proposition 5", "Sec. 3.2; proof App. E"),
    "efficiency",
    symbols={"N": N, "T": T, "tau": tau, "Gamma_M": Gamma, "C": C, "eta_tilde_0": et0},
    hypotheses=[Hypothesis("batch_le_N", tau <= N, "mini-batch size at most N (Assumption 1, li2019.asm1_asm2, is assumed)")],
    conclusion={"mse_bound": PROP5_REDERIVED, "eta_tilde_0_opt": (T**2 / 12) ** sp.Rational(1, 3) / N},
    statement=(
        "Under Assumption 1, SGLD with eta_t = N eta~0 t^{-1/3} T^{-2/3} (Theorem 3's bound iii) at equality, "
        "eta~0 = eps^2/(c2^2 L^2 log(1/delta))) has MSE <= C((4/3)(N/tau-1) N^2 Gamma_M/T + 2/(3 N eta~0) + "
        "4 N^2 eta~0^2/T^2) (re-derived from eq. (8); the paper prints (2/3)(N/tau-1)N^2 Gamma_M T^{-1} + 1/(3 eta~0) "
        "+ 2 eta~0^2 T^{-2/3}); the minimising eta~0 is (T^2/12)^{1/3}/N = O(T^{2/3})."
    ),
    notes=(
        "App. E also writes eta~0 = eps/(c2^2 L^2 log(1/delta)) (eps for eps^2) and eta_t = eta0 t^{-1/3} T^{-2/3} "
        "(dropping Theorem 3's factor N). Without the N the re-derived terms are (4/3)/T, 2/(3 eta~0), 4 eta~0^2/T^2: "
        "the coefficients and the exponent of the last term still disagree with the statement."
    ),
)


@prop5.add_check("optimum_of_printed_bound", "symbolic",
                 "d/d eta~0 of the printed bound = 0 at eta~0 = (T^{2/3}/12)^{1/3} = O(T^{2/9}) (a minimum): the paper's claim")
def _():
    d = sp.diff(PROP5_PRINTED, et0)
    sol = sp.solve(sp.Eq(d, 0), et0)
    want = (T ** sp.Rational(2, 3) / 12) ** sp.Rational(1, 3)
    ok = len(sol) == 1 and sp.simplify(sol[0] - want) == 0
    ok &= sp.simplify(sp.diff(PROP5_PRINTED, et0, 2).subs(et0, sol[0])).is_positive
    rate_free = T not in sp.powsimp(sol[0] / T ** sp.Rational(2, 9)).free_symbols  # eta~0* = const * T^{2/9}
    return ok and rate_free, f"eta~0* = {sol}: a constant times T^(2/9)"


@prop5.add_check("rederive_from_eq8", "symbolic",
                 "eq. (8) with eta_t = N eta~0 t^{-1/3} T^{-2/3} and sum t^p ~ T^{p+1}/(p+1) gives (4/3)/T, 2/(3 N eta~0), "
                 "4 N^2 eta~0^2/T^2 -- not the printed (2/3)/T, 1/(3 eta~0), 2 eta~0^2 T^{-2/3}")
def _():
    scale = N * et0 * T ** sp.Rational(-2, 3)
    s1 = _approx_sum(sp.Rational(-1, 3), scale)  # sum eta_t
    s2 = _approx_sum(sp.Rational(-2, 3), scale**2)  # sum eta_t^2
    bound = C * (s2 / s1**2 * (N / tau - 1) * N**2 * Gamma + 1 / s1 + s2**2 / s1**2)
    agrees = sp.simplify(bound - PROP5_REDERIVED) == 0
    differs = sp.simplify(bound - PROP5_PRINTED) != 0
    return agrees and differs, f"re-derived bound: {sp.simplify(bound)}"


@prop5.add_check("integral_approximation", "numeric",
                 "the proof's sum_t t^p ~ T^{p+1}/(p+1) for p = -1/3, -2/3 at T = 1e6: relative error < 1%")
def _():
    errs = {}
    for p in (mp.mpf(-1) / 3, mp.mpf(-2) / 3):
        exact = mp.zeta(-p) - mp.zeta(-p, 10**6 + 1)
        errs[float(p)] = float(abs(exact / (mp.mpf(10) ** (6 * (p + 1)) / (p + 1)) - 1))
    return max(errs.values()) < 0.01, f"relative errors {errs}", 0.0, max(errs.values())


@prop5.add_check("optimum_rederived", "symbolic",
                 "the re-derived bound is minimised at N eta~0 = (T^2/12)^{1/3} = O(T^{2/3}) (the conclusion), not O(T^{2/9})")
def _():
    sol = sp.solve(sp.Eq(sp.diff(PROP5_REDERIVED, et0), 0), et0)
    ok = len(sol) == 1 and sp.simplify(sol[0] - prop5.conclusion["eta_tilde_0_opt"]) == 0
    rate_free = T not in sp.powsimp(sol[0] * N / T ** sp.Rational(2, 3)).free_symbols  # N eta~0* = const * T^{2/3}
    bias = PROP5_REDERIVED.subs(T, sp.oo)
    return ok and rate_free and bias != 0, f"eta~0* = {sol}: N eta~0* = const * T^(2/3); T -> oo bias {bias} (non-zero, as the paper says)"


prop5.errata += [
    Erratum("The MSE bound re-derived from the proof's eq. (8) with Theorem 3's schedule has other coefficients and "
            "a last term of order T^{-2}.",
            "C((2/3)(N/tau-1)N^2 Gamma_M T^{-1} + 1/(3 eta~0) + 2 eta~0^2 T^{-2/3})",
            "C((4/3)(N/tau-1)N^2 Gamma_M T^{-1} + 2/(3 N eta~0) + 4 N^2 eta~0^2 T^{-2})", check="rederive_from_eq8"),
    Erratum("Hence the optimal eta~0 grows like T^{2/3}, not T^{2/9} (T^{2/9} is correct for the bound as printed).",
            "eta~0 = O(T^{2/9}), eps^2 = O(L^2 T^{2/9} log(1/delta))",
            "eta~0 = (T^2/12)^{1/3}/N = O(T^{2/3}), eps^2 = O(L^2 T^{2/3} log(1/delta)/N)", check="optimum_rederived"),
]

# ---------------------------------------------------------------------------------------------
# Proposition 6
# ---------------------------------------------------------------------------------------------
PROP6 = C * ((N / tau - 1) * N**2 * Gamma / T + 1 / (T * eta) + eta**2)
prop6 = Theorem(
    "li2019.prop6_mse_fixed",
    "MSE of SGLD with a fixed step (Chen et al. 2017); optimal eta = O(T^{-1/3})",
    source("Proposition 6 (Chen et al. 2017)", "Sec. 3.2"),
    "efficiency",
    symbols={"N": N, "T": T, "tau": tau, "eta": eta, "Gamma_M": Gamma, "C": C},
    hypotheses=[Hypothesis("batch_le_N", tau <= N, "mini-batch size at most N (Assumption 1, li2019.asm1_asm2, is assumed)")],
    conclusion={"mse_bound": PROP6, "eta_opt": (2 * T) ** sp.Rational(-1, 3)},
    statement=(
        "MSE <= C((N/tau-1) N^2 Gamma_M/T + 1/(T eta) + eta^2); minimised at eta = (2T)^{-1/3} = O(T^{-1/3}) with "
        "value C((N/tau-1) N^2 Gamma_M/T + (3/2^{2/3}) T^{-2/3})."
    ),
)


@prop6.add_check("optimal_stepsize", "symbolic", "d/d eta = 0 at eta = (2T)^{-1/3}; optimal value (N/tau-1)N^2 Gamma/T + 3 2^{-2/3} T^{-2/3}")
def _():
    sol = sp.solve(sp.Eq(sp.diff(PROP6, eta), 0), eta)
    ok = len(sol) == 1 and sp.simplify(sol[0] - (2 * T) ** sp.Rational(-1, 3)) == 0
    val = sp.simplify(PROP6.subs(eta, sol[0]) / C - (N / tau - 1) * N**2 * Gamma / T)
    ok &= sp.simplify(val - 3 * 2 ** sp.Rational(-2, 3) * T ** sp.Rational(-2, 3)) == 0
    return ok, f"eta* = {sol}; remaining terms at eta*: {val}"


@prop6.add_check("dp_step_substitution", "symbolic",
                 "Theorem 4's eta = eps^2 N/(c^2 L^2 T log(1/delta)) gives the printed (c^2 L^2 log(1/delta))/(eps^2 N) + "
                 "eps^4 N^2/(c^4 L^4 T^2 log^2(1/delta)); it is O(1/T), Wang's O(1/(T log T))")
def _():
    eps, delta, L = S["epsilon"], S["delta"], S["L"]
    c = sp.Dummy("c", positive=True)
    step = eps**2 * N / (c**2 * L**2 * T * sp.log(1 / delta))
    got = sp.simplify(PROP6.subs(eta, step) / C - (N / tau - 1) * N**2 * Gamma / T)
    printed = c**2 * L**2 * sp.log(1 / delta) / (eps**2 * N) + eps**4 * N**2 / (c**4 * L**4 * T**2 * sp.log(1 / delta) ** 2)
    wang = eps**2 * N / (128 * L**2 * T * sp.log(sp.Rational(5, 2) * T / delta) * sp.log(2 / delta))
    rate_ours = sp.limit(step * T, T, sp.oo)
    rate_wang = sp.limit(wang * T * sp.log(T), T, sp.oo)
    ok = (sp.simplify(sp.expand_log(got - printed, force=True)) == 0
          and sp.simplify(rate_ours - eps**2 * N / (c**2 * L**2 * sp.log(1 / delta))) == 0
          and sp.simplify(rate_wang - eps**2 * N / (128 * L**2 * sp.log(2 / delta))) == 0)
    return ok, f"MSE terms: {got}; T*eta -> {rate_ours}; T log T * eta_Wang -> {rate_wang}"



# ---------------------------------------------------------------------------------------------
# Proposition 7
# ---------------------------------------------------------------------------------------------
A, omega = sy.A_risk, sy.omega
Wz = sp.LambertW(sp.Rational(4, 5) * (T / A) ** sp.Rational(1, 5))
PROP7_OMEGA = sp.exp(-sp.Rational(5, 4) * Wz)
#: The supplement's omega(T) = exp(-((5/4) W(4T/(5A)))^{1/5}).
PROP7_PAPER_OMEGA = sp.exp(-((sp.Rational(5, 4) * sp.LambertW(4 * T / (5 * A))) ** sp.Rational(1, 5)))


def prop7_omega(T_value: float, A_value: float = 1.0) -> float:
    """omega solving ``T = A log^5(1/omega)/omega^4`` (Li et al. 2019, Prop. 7, small root):
    ``omega = exp(-(5/4) W((4/5)(T/A)^{1/5}))`` (principal branch)."""
    z = 0.8 * (T_value / A_value) ** 0.2
    return math.exp(-1.25 * float(lambertw(z).real))


prop7 = Theorem(
    "li2019.prop7_generalization",
    "generalisation error of DP-SGLD via Raginsky et al. (Lambert W)",
    source("Proposition 7", "Sec. 3.2; sketch App. F"),
    "convergence",
    symbols={"T": T, "A": A, "N": N, "omega": omega, "eta": eta},
    hypotheses=[
        Hypothesis("omega_small", omega < 1, "omega in (0, 1) small enough (eq. 9; li2019.asm1_asm2)"),
        Hypothesis("step_condition", eta <= (omega / sp.log(1 / omega)) ** 4,
                   "omega >= eta^{1/4} log(1/omega), i.e. eta <= (omega/log(1/omega))^4"),
    ],
    conclusion={
        "omega_of_T": PROP7_OMEGA,
        "excess_risk_order": sp.Rational(5, 4) * Wz + PROP7_OMEGA + 1 / N,
    },
    statement=(
        "For omega with T = A log^5(1/omega)/omega^4 and eta <= min{(omega/log(1/omega))^4, eps^2 N/(c^2 L^2 T log(1/delta))}, "
        "E F(theta_T) - F* <= O(T^{1/5} omega^{4/5} + omega + 1/N) = O(log(1/omega) + omega + 1/N). Inverting, "
        "log(1/omega) = (5/4) W((4/5)(T/A)^{1/5}), so the bound is O(W((4/5)(T/A)^{1/5}) + "
        "exp(-(5/4) W((4/5)(T/A)^{1/5})) + 1/N) (the conclusion, constants dropped); the paper prints "
        "O(W^{1/5}(4T/(5A)) + exp(-W^{1/5}(4T/(5A))) + 1/N)."
    ),
)


@prop7.add_check("supplement_relation_wrong", "symbolic",
                 "with m = log(1/omega), T = A log^5(1/omega)/omega^4 = A m^5 e^{4m}, not the supplement's A m e^{4m/5} "
                 "(nor with the supplement's own m = omega^{-4})")
def _():
    m = sp.Dummy("m", positive=True)
    stmt = A * sp.log(1 / omega) ** 5 / omega**4
    as_m = sp.simplify(stmt.subs(omega, sp.exp(-m)))
    supp = A * m * sp.exp(sp.Rational(4, 5) * m)
    reading_log = sp.simplify(as_m - A * m**5 * sp.exp(4 * m)) == 0 and sp.simplify(as_m / supp) != 1
    x4 = sp.simplify(stmt.subs(omega, m ** sp.Rational(-1, 4)))  # m = x^4, x = 1/omega
    reading_x4 = sp.simplify(x4 - A * m * (sp.log(m) / 4) ** 5) == 0 and sp.simplify(x4 / supp) != 1
    return reading_log and reading_x4, f"m = log(1/omega): T = {as_m}; m = omega^-4: T = {x4}; supplement: {supp}"


@prop7.add_check("corrected_inversion", "symbolic",
                 "omega = exp(-(5/4) W(z)), z = (4/5)(T/A)^{1/5} satisfies A log^5(1/omega)/omega^4 = T (using W(z) e^{W(z)} = z)")
def _():
    w = sp.Symbol("w", positive=True)  # w = W(z), so z = w e^w
    T_of_w = A * (sp.Rational(5, 4) * w * sp.exp(w)) ** 5  # from z = (4/5)(T/A)^{1/5}
    om = sp.exp(-sp.Rational(5, 4) * w)
    lhs = A * sp.log(1 / om) ** 5 / om**4
    ok = sp.simplify(sp.expand_log(lhs - T_of_w, force=True)) == 0
    z_ok = sp.simplify(sp.Rational(4, 5) * (T_of_w / A) ** sp.Rational(1, 5) - w * sp.exp(w)) == 0
    # the registered omega(T) is exp(-(5/4) W(z)) with that z
    z = sp.Rational(4, 5) * (T / A) ** sp.Rational(1, 5)
    registered = sp.simplify(prop7.conclusion["omega_of_T"] - sp.exp(-sp.Rational(5, 4) * sp.LambertW(z))) == 0
    return ok and z_ok and registered, f"A log^5(1/omega)/omega^4 = T on omega = exp(-(5/4) W(z)): {ok}; z = w e^w: {z_ok}"


@prop7.add_check("paper_inversion_fails", "numeric",
                 "the supplement's omega = exp(-((5/4) W(4T/(5A)))^{1/5}) does not solve T = A log^5(1/omega)/omega^4")
def _():
    Tn, An = 10**6, 1
    om_p = PROP7_PAPER_OMEGA.subs({T: Tn, A: An}).evalf(30)
    back = float((An * sp.log(1 / om_p) ** 5 / om_p**4).evalf(30))
    ours = prop7_omega(Tn, An)
    ours_back = An * math.log(1 / ours) ** 5 / ours**4
    ok = abs(back / Tn - 1) > 0.5 and abs(ours_back / Tn - 1) < 1e-9
    return ok, (f"T = 1e6, A = 1: paper omega = {float(om_p):.4g} gives A log^5/omega^4 = {back:.4g}; ours omega = {ours:.4g} "
                f"gives {ours_back:.10g}"), Tn, back


@prop7.add_check("bound_forms_agree", "symbolic",
                 "T^{1/5} omega^{4/5} = A^{1/5} log(1/omega) on T = A log^5(1/omega)/omega^4 (eq. 10 -> statement), and the "
                 "step condition omega >= eta^{1/4} log(1/omega) <=> eta <= (omega/log(1/omega))^4")
def _():
    m = sp.Dummy("m", positive=True)  # m = log(1/omega) > 0 for omega in (0, 1)
    Tm = A * m**5 * sp.exp(4 * m)  # T = A log^5(1/omega)/omega^4 at omega = e^{-m}
    form = sp.simplify(sp.powsimp(sp.expand_power_base(Tm ** sp.Rational(1, 5), force=True) * sp.exp(-sp.Rational(4, 5) * m))
                       - A ** sp.Rational(1, 5) * m)
    o = sp.Rational(1, 7)  # a representative omega in (0, 1)
    boundary = (o / sp.log(1 / o)) ** 4  # eta at which omega = eta^{1/4} log(1/omega)
    step_ok = sp.simplify(boundary ** sp.Rational(1, 4) * sp.log(1 / o) - o) == 0
    return form == 0 and step_ok, f"T^(1/5) omega^(4/5) - A^(1/5) log(1/omega) = {form}; boundary identity {step_ok}"


prop7.errata += [
    Erratum("The supplement's inversion starts from T = A m e^{4m/5}, which is not T = A log^5(1/omega)/omega^4 "
            "for m = log(1/omega) (that is A m^5 e^{4m}) nor for its stated m = omega^{-4}.",
            "T = A m e^{4m/5} => (4/5)m = W(4T/(5A)), omega = exp{-((5/4) W(4T/(5A)))^{1/5}}",
            "T^{1/5} = A^{1/5} m e^{4m/5} => log(1/omega) = m = (5/4) W((4/5)(T/A)^{1/5}), omega = exp{-(5/4) W((4/5)(T/A)^{1/5})}",
            check="paper_inversion_fails"),
    Erratum("Consequently the bound in Proposition 7 reads, up to constants:",
            "O(W^{1/5}(4T/(5A)) + exp{-W^{1/5}(4T/(5A))} + 1/N)",
            "O(W((4/5)(T/A)^{1/5}) + exp{-(5/4) W((4/5)(T/A)^{1/5})} + 1/N), growing like (1/4) log T",
            check="corrected_inversion"),
]

# ---------------------------------------------------------------------------------------------
# Assumptions 1 and 2
# ---------------------------------------------------------------------------------------------
m_, M_, Delta = sy.m_dissipativity, sy.M, sy.Delta
asm = Theorem(
    "li2019.asm1_asm2",
    "Assumption 1 (Poisson-equation regularity) and Assumption 2 (Raginsky et al. conditions) of Props 5-7",
    source("Assumptions 1 and 2", "App. D, F"),
    "definition",
    symbols={"m": m_, "M": M_, "omega": omega, "Delta": Delta},
    hypotheses=[
        Hypothesis("A3_dissipativity_beta_1", m_ >= 2, "A.3 with inverse temperature beta = 1 >= max{1, 2/m} needs m >= 2"),
        Hypothesis("A4_Delta", Delta < 1, "A.4: Delta in [0, 1)"),
        Hypothesis("omega_range", omega < m_ / (4 * M_**2), "eq. (9): omega < min{m/(4 M^2), e^{Omega(lambda*/(r+1))}} (first part)"),
    ],
    conclusion={"omega_max": m_ / (4 * M_**2)},
    statement=(
        "Assumption 1: the diffusion (1) is ergodic and the Poisson equation L psi = phi - phi_bar has a solution whose "
        "derivatives up to order 3 are bounded by a Lyapunov function V with bounded moments along the chain. "
        "Assumption 2 (Raginsky et al. 2017): A.1 bounded |log p| and gradient at theta_0; A.2 M-smoothness; "
        "A.3 (m, b)-dissipativity; A.4 gradient-noise bound with Delta in [0, 1); A.5 finite exponential moment "
        "of the initial law; plus omega in the range (9). Encoded: m >= 2, Delta < 1, omega < m/(4M^2)."
    ),
    notes=(
        "A.2 and A.3 are printed with the data d in place of the parameter theta (Raginsky et al.'s smoothness "
        "||grad f(w) - grad f(v)|| <= M ||w - v|| and dissipativity <w, grad f(w)> >= m||w||^2 - b are in the "
        "parameter); A.4 uses B without defining it. The spectral-gap part of (9) is not encodable (Omega-notation)."
    ),
)


@asm.add_check("beta_one_needs_m_ge_2", "symbolic", "beta = 1 >= max{1, 2/m} <=> m >= 2")
def _():
    # max(1, 2/m) <= 1  <=>  1 <= 1 and 2/m <= 1
    sol = sp.solve_univariate_inequality(2 / m_ <= 1, m_, relational=False) & sp.Interval.open(0, sp.oo)
    return sol == sp.Interval(2, sp.oo), f"{{m > 0: max(1, 2/m) <= 1}} = {{m > 0: 2/m <= 1}} = {sol}"


@asm.add_check("generator_drift_factor", "symbolic",
               "with the printed generator (1/2) F.grad psi + (1/2) g g^T : D^2 psi, SGLD's target e^{-U} is not invariant; "
               "with F.grad psi + (1/2) g g^T : D^2 psi it is (1-D adjoint check)")
def _():
    x = sp.Symbol("x", real=True)
    U = sp.Function("U")(x)
    p = sp.exp(-U)
    F, g2 = -sp.diff(U, x), 2  # SGLD: F = -grad U, g = sqrt(2)
    adjoint = lambda drift_factor: sp.simplify(-sp.diff(drift_factor * F * p, x) + sp.diff(g2 * p, x, 2) / 2)  # noqa: E731
    printed, corrected = adjoint(sp.Rational(1, 2)), adjoint(1)
    return corrected == 0 and printed != 0, f"L* e^(-U): printed generator {printed}; corrected {corrected}"


asm.errata += [
    Erratum("The generator of the diffusion (1) in eq. (4) has a spurious 1/2 on the drift; with it the posterior "
            "would not be the invariant law.",
            "L psi = (1/2) grad psi . F + (1/2) g g^* : D^2 psi",
            "L psi = F . grad psi + (1/2) g g^* : D^2 psi", check="generator_drift_factor"),
    Erratum("A.2 and A.3 are stated in the data d; Raginsky et al.'s conditions are in the parameter theta.",
            "<d, grad log p(d|theta)> >= m ||d||^2 - b",
            "<theta, grad_theta U(theta)> >= m ||theta||^2 - b (and smoothness in theta)"),
]


# ---------------------------------------------------------------------------------------------
# Pins: every conclusion evaluated at points and compared with an independent computation.
def _prop5_floats(N_: int, T_: float, tau_: int, Gam: float, C_: float, e0: float) -> float:
    """eq. (8)'s bound in floats, with the proof's integral approximations of sum eta_t and sum eta_t^2 for
    eta_t = N eta~0 t^{-1/3} T^{-2/3} (sum_t t^p ~ T^{p+1}/(p+1))."""
    scale = N_ * e0 * T_ ** (-2 / 3)
    s1 = scale * T_ ** (2 / 3) / (2 / 3)
    s2 = scale**2 * T_ ** (1 / 3) / (1 / 3)
    return C_ * (s2 / s1**2 * (N_ / tau_ - 1) * N_**2 * Gam + 1 / s1 + s2**2 / s1**2)


def _prop5_cases():
    out = []
    for N_, T_, tau_, Gam, C_, e0 in ((1_000, 1e6, 50, 1e-7, 2.5, 3.0), (200, 5e4, 20, 1e-4, 0.7, 0.2)):
        # the minimiser of the floats bound over eta~0 (bounded Brent search in log eta~0)
        opt = minimize_scalar(lambda x: _prop5_floats(N_, T_, tau_, Gam, C_, math.exp(x)), bounds=(-30, 30),
                              method="bounded", options={"xatol": 1e-12})
        out.append(({"N": N_, "T": T_, "tau": tau_, "Gamma_M": Gam, "C": C_, "eta_tilde_0": e0},
                    {"mse_bound": _prop5_floats(N_, T_, tau_, Gam, C_, e0), "eta_tilde_0_opt": math.exp(opt.x)}))
    return out


prop5.add_pin(
    "pin_eq8_in_floats",
    "eq. (8) with Theorem 3's schedule and the proof's integral approximations evaluated in floats, and its minimiser "
    "over eta~0 by a bounded Brent search; rel 1e-9 for the bound, 1e-6 for the minimiser (Brent's xatol 1e-12 in "
    "log eta~0 on a flat minimum: error ~ sqrt(machine eps) relative)",
    _prop5_cases, rel=1e-6)


def _prop6_cases():
    out = []
    for N_, T_, tau_, e, Gam, C_ in ((1_000, 1e5, 50, 0.01, 1e-6, 2.5), (300, 2e3, 30, 0.2, 1e-3, 0.4)):
        mse = lambda x: C_ * ((N_ / tau_ - 1) * N_**2 * Gam / T_ + 1 / (T_ * x) + x * x)  # noqa: E731  Chen et al., typed
        opt = minimize_scalar(lambda lx: mse(math.exp(lx)), bounds=(-30, 5), method="bounded", options={"xatol": 1e-12})
        out.append(({"N": N_, "T": T_, "tau": tau_, "eta": e, "Gamma_M": Gam, "C": C_},
                    {"mse_bound": mse(e), "eta_opt": math.exp(opt.x)}))
    return out


prop6.add_pin(
    "pin_bound_and_numeric_minimiser",
    "the MSE bound typed from the statement in floats, and its minimiser in eta by a bounded Brent search; rel 1e-6 "
    "(Brent on a flat minimum)",
    _prop6_cases, rel=1e-6)


def _prop7_cases():
    out = []
    for T_, A_, N_ in ((1e6, 3.0, 1_000), (5e3, 0.5, 40)):
        # omega in (0, 1) solving T = A log^5(1/omega)/omega^4: root in m = log(1/omega) of A m^5 e^{4m} = T (increasing)
        m = brentq(lambda mm: math.log(A_) + 5 * math.log(mm) + 4 * mm - math.log(T_), 1e-9, 200.0, xtol=1e-15, rtol=1e-15)
        om = math.exp(-m)
        out.append(({"T": T_, "A": A_, "N": N_, "omega": 0.5, "eta": 1e-12}, {"omega_of_T": om, "excess_risk_order": m + om + 1 / N_}))
    return out


prop7.add_pin(
    "pin_root_of_the_statement",
    "omega solving T = A log^5(1/omega)/omega^4 by brentq (no Lambert W), and the bound log(1/omega) + omega + 1/N at "
    "it; rel 1e-10",
    _prop7_cases, rel=1e-10)

asm.add_pin(
    "pin_printed_threshold",
    "the first part of eq. (9)'s range, m/(4 M^2), typed from the paper in floats at m = 2.5, M = 1.7 and m = 3, "
    "M = 0.4; rel 1e-14",
    lambda: [({"m": m_v, "M": M_v, "omega": 0.01, "Delta": 0.5}, {"omega_max": m_v / (4 * M_v * M_v)})
             for m_v, M_v in ((2.5, 1.7), (3.0, 0.4))],
    rel=1e-14, allow_unguaranteed=True)


#: This part's items (the package registers them: :mod:`dpverify.theorems.registry`).
THEOREMS: tuple[Theorem, ...] = (prop5, prop6, prop7, asm)
