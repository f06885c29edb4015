"""Bertazzi et al. 2025, Sections 2-3 and Appendix A: definitions, and from TV convergence to DP.

Reconstructed statements (re-derived from the paper's proofs, Secs. 2-3 and App. A; see
:mod:`dpverify.theorems.bertazzi2025`); every entry carries ``Source(..., reconstructed=True,
confidence=<tag>)``. Registered by :mod:`dpverify.theorems.bertazzi2025`.
"""
from __future__ import annotations

import itertools as it

import numpy as np
import sympy as sp
from scipy import integrate, stats
from scipy.optimize import brentq, linprog

from dpverify.calculus.accounting.sampled_gaussian import rdp_sampled_gaussian
from dpverify.calculus.mechanisms.exponential import discrete_delta
from dpverify.calculus.mechanisms.laplace import laplace_scale
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem
from dpverify.theorems.bertazzi2025.formulas import SYMBOLS, gaussian_renyi

__all__ = ["THEOREMS", "hockey_stick", "is_dp"]

S = SYMBOLS
eps, delta, alpha = S["epsilon"], S["delta"], S["alpha"]
#: The delta of a DP statement that may be 0 (pure DP of the posterior or of the chain): Props 3.2, 3.4, Cor. 3.3
#: (the table's delta is nonnegative: :mod:`dpverify.theorems.symbols`).
delta0 = delta
kappa, R_n, R_inf, delta_prime = S["kappa"], S["R_n"], S["R_inf"], S["delta_prime"]
epsilon_xi, delta_xi, delta_tilde, delta_bar = S["epsilon_xi"], S["delta_xi"], S["delta_tilde"], S["delta_bar"]
r_conc, C_f = S["r"], S["C_f"]
sens = S["sensitivity"]
sigma = S["sigma"]


def _src(item: str, location: str, confidence: str) -> Source:
    return Source("bertazzi2025", item, location, reconstructed=True, confidence=confidence)


def hockey_stick(p: np.ndarray, q: np.ndarray, epsilon: float) -> float:
    """``sup_A p(A) - e^eps q(A) = sum_x (p(x) - e^eps q(x))_+`` for discrete laws given as pmfs (Def. 2.1 as a
    divergence); :func:`dpverify.calculus.mechanisms.exponential.discrete_delta` on their logarithms."""
    with np.errstate(divide="ignore"):
        return discrete_delta(np.log(np.asarray(p, dtype=float)), np.log(np.asarray(q, dtype=float)), epsilon)


def is_dp(p: np.ndarray, q: np.ndarray, epsilon: float, delta: float) -> bool:
    """Bertazzi et al. 2025, Def. 2.1 / eq. (3) for one adjacent pair of discrete laws, both directions."""
    return max(hockey_stick(p, q, epsilon), hockey_stick(q, p, epsilon)) <= delta + 1e-15


def _convolve_same(f: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Discrete linear convolution of two equal-length grids, centred ("same" mode), by FFT."""
    n = f.size
    full = np.fft.irfft(np.fft.rfft(f, 2 * n) * np.fft.rfft(g, 2 * n), 2 * n)[: 2 * n - 1]
    start = (n - 1) // 2
    return full[start:start + n]


def _nonnegative_on_reals(expr: sp.Expr, var: sp.Symbol) -> bool:
    """``expr >= 0`` for every real ``var``, decided symbolically: fold the absolute values into a piecewise
    expression and show, piece by piece, that the set where it is negative misses the piece's domain."""
    folded = sp.piecewise_fold(sp.sympify(expr).rewrite(sp.Piecewise))
    pieces = folded.args if isinstance(folded, sp.Piecewise) else ((folded, sp.true),)
    covered = sp.EmptySet
    for piece, cond in pieces:
        domain = sp.Intersection(sp.S.Reals, sp.sympify(cond).as_set()) - covered
        covered = covered | domain
        negative = sp.solve_univariate_inequality(sp.Lt(piece, 0), var, relational=False)
        if sp.Intersection(negative, domain) != sp.EmptySet:
            return False
    return sp.Complement(sp.S.Reals, covered) == sp.EmptySet


def _triangle_inequality_symbolic() -> bool:
    """|u + v| <= |u| + |v| for all real u, v, by sympy: (|u| + |v|)^2 - (u + v)^2 = 2 (|w| - w) with w = u v, and
    |w| - w >= 0 for every real w (:func:`_nonnegative_on_reals`); both sides are >= 0, so the squares order them."""
    u, v, w = sp.symbols("u v w", real=True)
    gap = sp.expand((sp.Abs(u) + sp.Abs(v)) ** 2 - (u + v) ** 2)
    identity = sp.simplify(gap.subs(sp.Abs(u) * sp.Abs(v), sp.Abs(u * v)) - 2 * (sp.Abs(u * v) - u * v)) == 0
    return identity and _nonnegative_on_reals(sp.Abs(w) - w, w)


def _bern(p1: float) -> np.ndarray:
    return np.array([1 - p1, p1])


def _bern_delta(p1: float, p2: float, epsilon: float) -> float:
    """Smallest delta making the pair {Bern(p1), Bern(p2)} (eps, delta)-DP (both directions)."""
    return max(hockey_stick(_bern(p1), _bern(p2), epsilon), hockey_stick(_bern(p2), _bern(p1), epsilon))


# ---------------------------------------------------------------------------------------------
def_21 = Theorem(
    "bertazzi2025.def21_dp",
    "(epsilon, delta)-DP of an algorithm and of a posterior family",
    _src("Definition 2.1 and eq. (3)", "Sec. 2", "R-high"),
    "definition",
    symbols={"epsilon": eps, "delta": delta, "sensitivity": sens},
    hypotheses=[Hypothesis("delta_at_most_one", sp.Le(delta, 1), "delta in [0, 1]")],
    conclusion={"delta_laplace_pair": sp.Max(0, 1 - sp.exp((eps - sens) / 2))},
    optional={"delta": "only the hypothesis delta <= 1 uses it; the worked Laplace instance does not"},
    statement=(
        "A is (epsilon, delta)-DP if P(A(D) in S) <= e^epsilon P(A(D') in S) + delta for all measurable S and "
        "adjacent D, D' (eq. 2); a posterior family {pi_D} is (epsilon, delta)-DP if pi_D(S) <= e^epsilon pi_D'(S) "
        "+ delta (eq. 3), i.e. one exact posterior draw is private. Equivalently the hockey-stick divergence "
        "sup_S [P_D(S) - e^eps P_D'(S)] is <= delta. Worked instance (conclusion): the smallest delta for the pair "
        "Lap(0,1), Lap(sensitivity,1), which is max(0, 1 - exp((epsilon - sensitivity)/2))."
    ),
    notes="Adjacency is replace-one (reconstruction Sec. 1).",
)


@def_21.add_check("hockey_stick_laplace_pair", "symbolic",
                  "sympy integral of (p - e^eps q)_+ for Lap(0,1) vs Lap(mu,1) equals 1 - e^{(eps-mu)/2}")
def _():
    x = sp.Symbol("x", real=True)
    mu, e = sp.Rational(3, 2), sp.Rational(1, 2)
    p = sp.exp(-sp.Abs(x)) / 2
    q = sp.exp(-sp.Abs(x - mu)) / 2
    # p > e^eps q exactly when x < (mu - eps)/2 (the likelihood ratio is monotone)
    x0 = (mu - e) / 2
    val = sp.integrate((p - sp.exp(e) * q).rewrite(sp.Piecewise), (x, -sp.oo, 0)) + sp.integrate(
        sp.exp(-x) / 2 - sp.exp(e) * sp.exp(x - mu) / 2, (x, 0, x0))
    expected = def_21.conclusion["delta_laplace_pair"].subs({eps: e, sens: mu})
    return sp.simplify(val - expected) == 0, f"integral {sp.nsimplify(val)} vs closed form {expected}", expected, val


@def_21.add_check("sup_over_events_is_hockey_stick", "numeric",
                  "brute force over all 2^6 events of two random 6-point laws equals sum (p - e^eps q)_+")
def _():
    rng = np.random.default_rng(21)
    p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    e = 0.3
    masks = ((np.arange(64)[:, None] >> np.arange(6)) & 1).astype(bool)
    brute = max(p[mk].sum() - np.exp(e) * q[mk].sum() for mk in masks)
    hs = hockey_stick(p, q, e)
    ok = abs(brute - hs) < 1e-12 and is_dp(p, q, e, max(hs, hockey_stick(q, p, e)))
    return ok, f"brute force {brute:.12f} vs hockey-stick {hs:.12f}", brute, hs


# ---------------------------------------------------------------------------------------------
def_22 = Theorem(
    "bertazzi2025.def22_renyi_dp",
    "Rényi divergence and (alpha, epsilon)-RDP; two Gaussians in closed form",
    _src("Definition 2.2 and eq. (4)", "Sec. 2", "R-high"),
    "definition",
    symbols={"alpha": alpha, "sensitivity": sens, "sigma": sigma},
    hypotheses=[Hypothesis("order_above_one", sp.Gt(alpha, 1), "Rényi order alpha > 1")],
    conclusion={"rdp": alpha * sens**2 / (2 * sigma**2)},
    statement=(
        "D_alpha(mu||nu) = (alpha-1)^{-1} log int (dmu/dnu)^alpha dnu for alpha > 1 (eq. 4); A is (alpha, epsilon)-RDP "
        "if D_alpha(Law A(D) || Law A(D')) <= epsilon for all adjacent D, D'. For N(mu_1, sigma^2 I), N(mu_2, "
        "sigma^2 I) with |mu_1 - mu_2| = sensitivity: D_alpha = alpha sensitivity^2 / (2 sigma^2) (conclusion 'rdp')."
    ),
)


@def_22.add_check("gaussian_renyi_sympy", "symbolic", "sympy integral of p^alpha q^(1-alpha) for 1-d Gaussians")
def _():
    x = sp.Symbol("x", real=True)
    a, mu, s = sp.Integer(3), sy.mu, sp.Symbol("s", positive=True)  # mu: the mean gap (symbol table)
    p = sp.exp(-x**2 / (2 * s**2)) / sp.sqrt(2 * sp.pi * s**2)
    q = sp.exp(-(x - mu)**2 / (2 * s**2)) / sp.sqrt(2 * sp.pi * s**2)
    integral = sp.integrate(sp.simplify(p**a * q**(1 - a)), (x, -sp.oo, sp.oo))
    val = sp.simplify(sp.log(integral) / (a - 1))
    expected = def_22.conclusion["rdp"].subs({alpha: a, sens: mu, sigma: s})
    return sp.simplify(sp.expand_log(val, force=True) - expected) == 0, f"D_3 = {val}", expected, val


@def_22.add_check("gaussian_renyi_quadrature", "numeric",
                  "scipy quadrature of the Rényi integral at non-integer orders, and the accountant's "
                  "rdp_sampled_gaussian at q = 1, match alpha mu^2/(2 sigma^2)")
def _():
    worst = 0.0
    for a, mu, s in [(1.5, 0.7, 1.0), (2.7, 1.3, 0.8), (10.0, 0.2, 0.5)]:
        f = lambda x: np.exp(a * stats.norm.logpdf(x, 0, s) + (1 - a) * stats.norm.logpdf(x, mu, s))
        val = np.log(integrate.quad(f, -20, 20, points=[0, mu], limit=200)[0]) / (a - 1)
        worst = max(worst, abs(val - gaussian_renyi(a, mu, s**2)))
        # the accountant's exact sampled-Gaussian RDP at q = 1 is the same closed form (noise multiplier s/mu)
        worst = max(worst, abs(float(rdp_sampled_gaussian(1.0, s / mu, [a])[0]) - gaussian_renyi(a, mu, s**2)))
    return worst < 1e-8, f"max abs error {worst:.2e}", 0.0, worst


# ---------------------------------------------------------------------------------------------
asm_31 = Theorem(
    "bertazzi2025.asm31_uniform_convergence",
    "Data-uniform TV convergence TV(mu_D P_D^n, pi_D) <= kappa R(n)",
    _src("Assumption 3.1, eq. (5)", "Sec. 3", "R-high"),
    "convergence",
    symbols={"kappa": kappa, "R_n": R_n},
    conclusion={"tv_bound": kappa * R_n},
    statement=(
        "There are a positive non-increasing R(n) -> R_inf >= 0 and kappa > 0, both independent of the data, with "
        "TV(mu_D P_D^n, pi_D) <= kappa R(n) for all n and D (eq. 5). R_inf = 0: asymptotically exact MCMC; "
        "R_inf > 0: biased (e.g. unadjusted) chains. Conclusion 'tv_bound' = kappa R_n at a given n "
        "(pass R_n = R(n))."
    ),
    notes="n is the number of chain steps here; the names R_n, R_inf, kappa are the reconstruction's.",
)


@asm_31.add_check("lazy_refresh_kernel_geometric_tv", "symbolic",
                  "for P = (1-rho) Id + rho pi (lazy independence refresh), mu P^n = (1-rho)^n mu + (1-(1-rho)^n) pi, "
                  "so TV(mu P^n, pi) = (1-rho)^n TV(mu, pi): Asm. 3.1 with kappa = 1, R(n) = (1-rho)^n, uniformly in D")
def _():
    stay, p, n = sp.symbols("stay p n", positive=True)  # stay = 1 - rho in (0, 1)
    mu0 = sp.Matrix([[1, 0]])
    pi = sp.Matrix([[1 - p, p]])
    P = stay * sp.eye(2) + (1 - stay) * sp.Matrix([[1 - p, p], [1 - p, p]])
    law = lambda j: stay ** j * mu0 + (1 - stay ** j) * pi
    step_ok = sp.simplify(law(n) * P - law(n + 1)) == sp.zeros(1, 2)
    tv = sp.simplify(sum(sp.Abs(e) for e in (law(n) - pi)) / 2)
    tv_ok = sp.simplify(tv - stay ** n * p) == 0
    return step_ok and tv_ok, f"one-step recursion holds: {step_ok}; TV = {tv}"


# ---------------------------------------------------------------------------------------------
prop_32 = Theorem(
    "bertazzi2025.prop32_tv_to_dp",
    "TV convergence transfers DP between the chain and the posterior",
    _src("Proposition 3.2 (i), (ii), via Proposition A.2", "Sec. 3, App. A", "R-high"),
    "privacy",
    symbols={"epsilon": eps, "delta": delta0, "kappa": kappa, "R_n": R_n, "R_inf": R_inf},
    hypotheses=[Hypothesis("delta_below_one", sp.Lt(delta0, 1), "delta in [0, 1)")],
    conclusion={
        "epsilon": eps,
        "delta": delta0 + (1 + sp.exp(eps)) * kappa * R_n,
        "delta_limit": delta0 + (1 + sp.exp(eps)) * kappa * R_inf,
    },
    optional={"R_n": "only part (i) ('delta') uses R(n)", "R_inf": "only part (ii) ('delta_limit') uses R_inf"},
    statement=(
        "Under Assumption 3.1: (i) if {pi_D} is (epsilon, delta)-DP, the chain's n-th state is (epsilon, delta + "
        "(1 + e^epsilon) kappa R(n))-DP (conclusion 'delta', with R_n = R(n)); (ii) if the chain is (epsilon, delta)-"
        "DP for every n, the posterior is (epsilon, delta + (1 + e^epsilon) kappa R_inf)-DP ('delta_limit'). Each part "
        "needs only its own input: R_n for (i), R_inf for (ii); delta may be 0 (a pure-DP posterior or chain). "
        "Both follow from Prop. A.2: TV(mu_D, nu_D) <= eta and {nu_D} (eps, delta)-DP => {mu_D} is "
        "(eps, delta + (1+e^eps) eta)-DP."
    ),
    empirical=[EmpiricalLink("ula_final", "audits/test_ula_final.py",
                             "ULA is biased (R_inf > 0): its audited final-state epsilon vs the posterior's")],
)


@prop_32.add_check("prop_A2_inequality_chain", "symbolic",
                   "mu_D(A) <= nu_D(A) + eta <= e^eps nu_D'(A) + delta + eta <= e^eps mu_D'(A) + delta + (1+e^eps) eta")
def _():
    muD, muDp, eta = sp.symbols("mu_D mu_Dp eta", nonnegative=True)
    # worst case of each step: nu_D(A) = mu_D(A) - eta ... the chain's right-hand side after the three steps
    rhs = sp.exp(eps) * (muDp + eta) + delta + eta
    target = sp.exp(eps) * muDp + delta + (1 + sp.exp(eps)) * eta
    ok = sp.simplify(rhs.subs(delta, delta0) - target.subs(delta, delta0)) == 0
    ok &= sp.simplify(prop_32.conclusion["delta"].subs(R_n, eta / kappa) - (delta0 + (1 + sp.exp(eps)) * eta)) == 0
    return ok, "three-step chain collapses to delta + (1 + e^eps) eta"


def _lazy_chain_p1(p_refresh: float, rho: float, n: int) -> float:
    """P(X_n = 1) for the lazy-refresh chain started at 0 (see the Asm. 3.1 check)."""
    return (1 - (1 - rho) ** n) * p_refresh


@prop_32.add_check("two_state_chains_exact", "numeric",
                   "exact DP of two-state chains vs the transferred bounds (i) and (ii), several eps, n")
def _():
    pD, pDp, rho, w = 0.3, 0.6, 0.2, 0.1  # posteriors Bern(0.3), Bern(0.6); biased refresh (1-w) pi + w Bern(1/2)
    worst = np.inf
    for e in (0.1, 0.5, 1.0):
        d_pi = _bern_delta(pD, pDp, e)
        for n in (1, 3, 10, 40):
            # (i), exact chain (R_inf = 0): kappa = 1, R(n) = (1-rho)^n
            d_chain = _bern_delta(_lazy_chain_p1(pD, rho, n), _lazy_chain_p1(pDp, rho, n), e)
            bound = float(prop_32.conclusion["delta"].subs({eps: e, delta0: d_pi, kappa: 1, R_n: (1 - rho) ** n}))
            worst = min(worst, bound - d_chain)
        # (ii), biased chain: TV <= (1-rho)^n + w/2 =: kappa R(n), R_inf = w/2; the chain is sup_n-delta DP
        biased = lambda p, n: _lazy_chain_p1((1 - w) * p + w / 2, rho, n)
        d_all_n = max(_bern_delta(biased(pD, n), biased(pDp, n), e) for n in range(1, 200))
        limit = float(prop_32.conclusion["delta_limit"].subs({eps: e, delta0: d_all_n, kappa: 1, R_inf: w / 2}))
        worst = min(worst, limit - d_pi)
    return worst >= 0, f"smallest slack (bound - exact) {worst:.4g}", ">= 0", worst


# ---------------------------------------------------------------------------------------------
cor_33 = Theorem(
    "bertazzi2025.cor33_posterior_must_be_dp",
    "A chain private at every step needs a (nearly) private posterior",
    _src("Corollary 3.3", "Sec. 3", "R-high"),
    "privacy",
    symbols={"epsilon": eps, "delta": delta0, "kappa": kappa, "R_inf": R_inf, "delta_prime": delta_prime},
    hypotheses=[Hypothesis("delta_prime_above_threshold", sp.Gt(delta_prime, delta0 + (1 + sp.exp(eps)) * kappa * R_inf),
                           "delta' > delta + (1 + e^eps) kappa R_inf")],
    conclusion={"delta_threshold": delta0 + (1 + sp.exp(eps)) * kappa * R_inf},
    optional={"delta_prime": "only the hypothesis delta' > threshold uses it; the threshold itself does not"},
    statement=(
        "Let delta' > delta + (1 + e^epsilon) kappa R_inf (conclusion 'delta_threshold'). If {pi_D} is not "
        "(epsilon, delta')-DP, then some n makes the chain's n-th state not (epsilon, delta)-DP. For exact MCMC "
        "(R_inf = 0) any delta' > delta works. Contrapositive of Prop. 3.2 (ii)."
    ),
)


@cor_33.add_check("contrapositive_of_prop32_ii", "symbolic",
                  "sympy SAT: (all-n DP => pi DP at threshold), (threshold < delta' => pi DP at delta'), "
                  "not pi DP at delta', all-n DP -- unsatisfiable")
def _():
    all_n, pi_thr, pi_dp = sp.symbols("chain_dp_all_n pi_dp_at_threshold pi_dp_at_delta_prime")
    premises = sp.And(sp.Implies(all_n, pi_thr), sp.Implies(pi_thr, pi_dp), sp.Not(pi_dp))
    sat = sp.satisfiable(sp.And(premises, all_n))
    return sat is False, f"satisfiable(premises & chain DP for all n) = {sat}"


@cor_33.add_check("two_state_chain_eventually_not_dp", "numeric",
                  "posterior pair Bern(0.3)/Bern(0.6) is not (0.3, delta')-DP; the exact lazy chain breaks (0.3, delta) "
                  "at some n for delta < delta' (R_inf = 0)")
def _():
    e, rho = 0.3, 0.2
    d_pi = _bern_delta(0.3, 0.6, e)
    dp_ = d_pi * 0.99  # pi is not (e, dp_)-DP; take delta just below dp_
    dd = dp_ * 0.99
    ns = [n for n in range(1, 500) if _bern_delta(_lazy_chain_p1(0.3, rho, n), _lazy_chain_p1(0.6, rho, n), e) > dd]
    return bool(ns), f"delta_pi = {d_pi:.5f}; first n with chain delta > {dd:.5f}: {ns[:1]}"


# ---------------------------------------------------------------------------------------------
prop_34 = Theorem(
    "bertazzi2025.prop34_tv_lower_bound",
    "If the posterior is not DP, a DP chain is far from it in TV",
    _src("Proposition 3.4 and Proposition A.3, eq. (6), (46)", "Sec. 3, App. A", "R-high"),
    "convergence",
    symbols={"epsilon": eps, "delta": delta0, "delta_prime": delta_prime},
    hypotheses=[Hypothesis("delta_prime_above_delta", sp.Gt(delta_prime, delta0), "delta' > delta (delta = 0 allowed)")],
    conclusion={"tv_lower": (delta_prime - delta0) / (1 + sp.exp(eps))},
    statement=(
        "If the chain's n-th state is (epsilon, delta)-DP and {pi_D} is not (epsilon, delta')-DP with delta' > delta, "
        "some dataset D has TV(mu_D P_D^n, pi_D) >= (delta' - delta)/(1 + e^epsilon) (eq. 6; conclusion 'tv_lower'). "
        "Prop. A.3 states it for any two families: for each violating pair one of D, D' satisfies the bound."
    ),
    empirical=[EmpiricalLink("ula_final", "audits/test_ula_final.py",
                             "ULA's final state vs a non-private posterior: TV lower bound")],
)


@prop_34.add_check("worst_ratio_at_c_minus_one", "symbolic",
                   "min over c of max(1,|c|)/|1 - c e^eps| is 1/(1+e^eps), attained at c = -1: on each of the four "
                   "pieces the function is monotone (sign of the derivative from its factored form) and its one-sided "
                   "limits at the ends are >= 1/(1+e^eps); the registered tv_lower is (delta' - delta) times that minimum")
def _():
    c = sp.Symbol("c", real=True)
    E = sp.Symbol("E", positive=True)  # E = e^eps >= 1
    Ep = sp.Symbol("Ep", positive=True)  # E = 1 + Ep > 1 on pieces 3-4 (they are empty at eps = 0)
    target = 1 / (1 + E)
    pieces = [((-sp.oo, -1), -c / (1 - c * E)), ((-1, 1 / E), 1 / (1 - c * E)),
              ((1 / E, 1), 1 / (c * E - 1)), ((1, sp.oo), c / (c * E - 1))]
    ok, lines = True, []
    for (lo, hi), f in pieces:
        num, den = sp.fraction(sp.factor(sp.diff(f, c)))
        monotone = (num.is_positive or num.is_negative) and den.is_Pow and den.exp % 2 == 0  # fixed sign on the piece
        ends = [sp.limit(f, c, lo, "+"), sp.limit(f, c, hi, "-")]
        above = all(e == sp.oo or sp.simplify((e - target).subs(E, 1 + Ep)).is_nonnegative for e in ends)
        ok &= bool(monotone) and above
        lines.append(f"({lo}, {hi}): d/dc = {num}/{den}; end limits {ends}")
    ok &= sp.simplify(pieces[0][1].subs(c, -1) - target) == 0
    dp_, d_ = sp.symbols("dp d", nonnegative=True)
    ok &= sp.simplify(prop_34.conclusion["tv_lower"].subs({delta_prime: dp_, delta0: d_}) - (dp_ - d_) * target.subs(E, sp.exp(eps))) == 0
    return bool(ok), "; ".join(lines)


@prop_34.add_check("worst_ratio_numeric_minimiser", "numeric",
                   "the minimiser of max(1,|c|)/|1 - c e^eps| on a grid of 400001 points in [-20, 20] is c = -1 (to 1e-3) with "
                   "value 1/(1 + e^eps) (to 1e-9) at eps = 0.1, 1, 2")
def _():
    grid = np.linspace(-20, 20, 400001)
    where, value = 0.0, 0.0
    for e_val in (0.1, 1.0, 2.0):
        with np.errstate(divide="ignore"):
            vals = np.maximum(1, abs(grid)) / np.abs(1 - grid * np.exp(e_val))
        where = max(where, abs(grid[np.argmin(vals)] + 1))
        value = max(value, abs(vals.min() - 1 / (1 + np.exp(e_val))))
    return where < 1e-3 and value < 1e-9, f"argmin within {where:.1e} of -1; minimum within {value:.1e} of 1/(1+e^eps)", 0.0, value


@prop_34.add_check("mixture_chain_vs_nonprivate_posterior", "numeric",
                   "mu_D = (1-w) pi_D + w Bern(1/2) with pi_D Bern(0.05)/Bern(0.9): max_D TV(mu_D, pi_D) >= "
                   "(delta_pi(eps) - delta_mu(eps))/(1+e^eps) (delta' -> delta_pi from below)")
def _():
    p = {"D": 0.05, "Dp": 0.9}
    worst = np.inf
    for e in (0.2, 1.0, 2.0):
        for w in (0.3, 0.6, 0.9):
            mu = {k: (1 - w) * v + w / 2 for k, v in p.items()}
            d_pi, d_mu = _bern_delta(p["D"], p["Dp"], e), _bern_delta(mu["D"], mu["Dp"], e)
            tv = max(abs(mu[k] - p[k]) for k in p)
            lower = float(prop_34.conclusion["tv_lower"].subs({eps: e, delta0: d_mu, delta_prime: d_pi}))
            worst = min(worst, tv - lower)
    return worst >= -1e-12, f"smallest slack (TV - bound) {worst:.4g}", ">= 0", worst


# ---------------------------------------------------------------------------------------------
_mc_symbols = {"epsilon_xi": epsilon_xi, "delta_xi": delta_xi, "delta_tilde": delta_tilde, "sensitivity": sens}
prop_37 = Theorem(
    "bertazzi2025.prop37_mc_estimator",
    "Noisy MCMC estimator: coupled estimators within Delta + noise privatising Delta-close scalars",
    _src("Assumptions 3.5, 3.6 (A.4) and Proposition 3.7 (A.5), eqs. (7)-(9)", "Sec. 3, App. A", "R-high"),
    "privacy",
    symbols=_mc_symbols,
    hypotheses=[Hypothesis("delta_tilde_below_one", sp.Lt(delta_tilde, 1), "P(|Y_D - Y_D'| > Delta) bound < 1"),
                Hypothesis("delta_xi_below_one", sp.Lt(delta_xi, 1), "noise delta < 1")],
    conclusion={"epsilon": epsilon_xi, "delta": delta_xi + delta_tilde, "laplace_scale": sens / epsilon_xi},
    statement=(
        "If some coupling of the two chains has P(|pihat_n^D f - pihat_n^D' f| > Delta) <= delta_tilde (Asm. 3.6, "
        "eq. 9) and the independent noise xi satisfies P(y + xi in A) <= e^{eps_xi} P(y' + xi in A) + delta_xi "
        "whenever |y - y'| <= Delta (Asm. 3.5, eq. 8), then A(D) = pihat_n^D f + xi (eq. 7) is (eps_xi, delta_xi + "
        "delta_tilde)-DP. For Laplace noise of scale b: (eps_xi, delta_xi) = (Delta/b, 0), i.e. b = Delta/eps_xi "
        "(conclusion 'laplace_scale', with sensitivity = Delta)."
    ),
    empirical=[EmpiricalLink("noisy_mc_estimator", "audits/test_noisy_mc_estimator.py",
                             "ergodic average of coupled chains plus Laplace noise, audited epsilon")],
)


@prop_37.add_check("split_on_close_event", "symbolic",
                   "P(A(D) in A) <= P(far) + E[1_close P(Y_D + xi in A | Y)] <= delta_tilde + e^eps (P(A(D') in A) "
                   "+ ...) + delta_xi, and the Laplace ratio bound exp(|y-y'|/b) <= exp(Delta/b)")
def _():
    x, y, yp = sp.symbols("x y yp", real=True)
    b = sp.Symbol("b", positive=True)
    log_ratio = (-sp.Abs(x - y) + sp.Abs(x - yp)) / b  # log of the Laplace density ratio at output x
    # |x - yp| - |x - y| <= |y - yp| is the triangle inequality with u = x - y, v = y - yp (proved symbolically)
    u, v = x - y, y - yp
    same_terms = sp.simplify((u + v) - (x - yp)) == 0
    ok = same_terms and _triangle_inequality_symbolic()
    # so the log-ratio is at most |y - y'|/b <= Delta/b: eps_xi = Delta/b, i.e. b = Delta/eps_xi
    ok &= sp.simplify(sp.Abs(y - yp) / b - log_ratio - (sp.Abs(u) + sp.Abs(v) - sp.Abs(u + v)) / b) == 0
    ok &= sp.simplify(prop_37.conclusion["delta"] - (delta_tilde + delta_xi)) == 0
    ok &= sp.simplify(prop_37.conclusion["laplace_scale"] * epsilon_xi - sens) == 0
    return bool(ok), ("|y - y'|/b - log-ratio = (|u| + |v| - |u + v|)/b >= 0 (triangle inequality, symbolic); delta_tilde and "
                      "delta_xi add; b = Delta/eps_xi")


@prop_37.add_check("gaussian_estimators_laplace_noise_exact", "numeric",
                   "independent Y_D ~ N(0, s^2), Y_D' ~ N(c, s^2) plus Lap(b): exact hockey-stick at eps = Delta/b "
                   "by quadrature is <= delta_tilde = P(|Y_D - Y_D'| > Delta)")
def _():
    worst = np.inf
    xs = np.linspace(-12, 12, 24001)
    dx = xs[1] - xs[0]
    for s_, c_, Delta, b in [(0.2, 0.1, 0.5, 0.5), (0.5, 0.3, 1.0, 0.4), (0.1, 0.0, 0.2, 0.1)]:
        lap = stats.laplace.pdf(xs, 0, b)
        # density of N(mean, s^2) + Lap(b) on the grid, by discrete convolution (grid step 1e-3)
        dens = lambda mean: _convolve_same(stats.norm.pdf(xs, mean, s_), lap) * dx
        pD, pDp = dens(0.0), dens(c_)
        e = Delta / b
        hs = max(np.clip(pD - np.exp(e) * pDp, 0, None).sum() * dx, np.clip(pDp - np.exp(e) * pD, 0, None).sum() * dx)
        gap = stats.norm(c_, np.sqrt(2) * s_)  # Y_D' - Y_D for independent estimators
        d_tilde = gap.sf(Delta) + gap.cdf(-Delta)
        worst = min(worst, d_tilde - hs)
    return worst >= -1e-6, f"smallest slack (delta_tilde - exact delta) {worst:.3g}", ">= 0", worst


# ---------------------------------------------------------------------------------------------
prop_310 = Theorem(
    "bertazzi2025.prop310_mc_estimator",
    "Noisy MCMC estimator from concentration of the ergodic average",
    _src("Assumptions 3.8, 3.9 and Proposition 3.10, eqs. (10)-(11)", "Sec. 3, App. A", "R-med"),
    "privacy",
    symbols={"epsilon_xi": epsilon_xi, "delta_xi": delta_xi, "delta_bar": delta_bar, "r": r_conc, "C_f": C_f},
    hypotheses=[Hypothesis("delta_bar_below_one", sp.Lt(delta_bar, 1), "concentration failure probability < 1"),
                Hypothesis("delta_xi_below_one", sp.Lt(delta_xi, 1), "noise delta < 1")],
    conclusion={"epsilon": epsilon_xi, "delta": delta_xi + 1 - (1 - delta_bar) ** 2, "sensitivity": 2 * r_conc + C_f},
    statement=(
        "If P(|pihat_n^D f - pi_D f| > r) <= delta_bar for every D (Asm. 3.8) and |pi_D f - pi_D' f| <= C_f for "
        "adjacent D, D' (Asm. 3.9), and xi satisfies Asm. 3.5 with Delta = 2r + C_f ('sensitivity'), then "
        "A(D) = pihat_n^D f + xi is (eps_xi, delta_xi + 1 - (1 - delta_bar)^2)-DP. Proof: run the chains "
        "independently; on the event both averages are r-close to their targets, |difference| <= 2r + C_f, "
        "which has probability >= (1 - delta_bar)^2; then Prop. 3.7."
    ),
    notes="R-med: the paper may display delta_xi + 2 delta_bar (union bound); both are valid, ours is tighter.",
    empirical=[EmpiricalLink("noisy_mc_estimator", "audits/test_noisy_mc_estimator.py",
                             "ergodic average with concentration-calibrated Laplace noise, audited epsilon")],
)


@prop_310.add_check("independence_and_union_bound", "symbolic",
                    "1-(1-db)^2 = 2 db - db^2 <= 2 db; triangle inequality gives Delta = 2r + C_f")
def _():
    db = delta_bar
    # P(both independent chains concentrate) = (1 - db)^2, so P(some chain fails) = 1 - (1 - db)^2 = 2 db - db^2
    ok = sp.expand(prop_310.conclusion["delta"] - delta_xi - (2 * db - db**2)) == 0
    ok &= sp.expand(2 * db - (prop_310.conclusion["delta"] - delta_xi) - db**2) == 0  # union bound 2 db is db^2 looser
    # |hat_D - hat_D'| <= |hat_D - pi_D| + |pi_D - pi_D'| + |pi_D' - hat_D'| <= r + C_f + r: the two-term triangle
    # inequality (symbolic) applied twice
    ok &= _triangle_inequality_symbolic()
    ok &= sp.expand(prop_310.conclusion["sensitivity"] - (r_conc + C_f + r_conc)) == 0
    return bool(ok), "delta_xi + 1 - (1-db)^2 = delta_xi + 2 db - db^2; Delta = r + C_f + r by the triangle inequality"


@prop_310.add_check("independent_coupling_probability", "numeric",
                    "Monte Carlo: independent Gaussian averages, P(|Y_D - Y_D'| > 2r + C_f) <= 1 - (1 - db)^2")
def _():
    rng = np.random.default_rng(310)
    n, s_, r, Cf = 400_000, 0.3, 0.4, 0.2
    db = 2 * stats.norm.sf(r / s_)  # exact concentration failure of N(pi_D f, s^2)
    y = rng.normal(0.0, s_, n) - rng.normal(Cf, s_, n)
    p_far = np.mean(np.abs(y) > 2 * r + Cf)
    # Monte Carlo standard error sqrt(p(1-p)/n) <= 8e-4; allow 4 standard errors
    bound = 1 - (1 - db) ** 2
    return p_far <= bound + 4 * np.sqrt(bound * (1 - bound) / n), f"P(far) = {p_far:.4f} <= {bound:.4f}", bound, p_far


# ---------------------------------------------------------------------------------------------
# Pins: every conclusion evaluated at points and compared with an independent computation.
def _laplace_pair_delta(e: float, mu: float) -> float:
    """sup_S Lap(0,1)(S) - e^eps Lap(mu,1)(S) by scipy quadrature of (p - e^eps q)_+ (both directions agree)."""
    f = lambda x: max(0.0, stats.laplace.pdf(x) - np.exp(e) * stats.laplace.pdf(x, loc=mu))  # noqa: E731
    return float(integrate.quad(f, -40, 40 + mu, points=[0.0, (mu - e) / 2, mu], limit=200, epsabs=1e-14)[0])


def_21.add_pin(
    "pin_laplace_pair_by_quadrature",
    "smallest delta of Lap(0,1) vs Lap(sensitivity,1) by quadrature, on both sides of eps = sensitivity (the max with 0); "
    "rel 1e-9, abs 1e-12",
    lambda: [({"epsilon": e, "sensitivity": m}, {"delta_laplace_pair": _laplace_pair_delta(e, m)})
             for e, m in ((0.5, 1.5), (2.0, 0.7), (0.1, 3.0))],
    rel=1e-9, abs_tol=1e-12)


def _gaussian_renyi_quad(a: float, mu: float, s_: float) -> float:
    """D_a(N(0, s^2) || N(mu, s^2)) by scipy quadrature of the Renyi integral in log space (eq. 4)."""
    f = lambda x: np.exp(a * stats.norm.logpdf(x, 0, s_) + (1 - a) * stats.norm.logpdf(x, mu, s_))  # noqa: E731
    lo, hi = min(0.0, (1 - a) * mu) - 30 * s_, max(mu, (1 - a) * mu) + 30 * s_
    return float(np.log(integrate.quad(f, lo, hi, points=[0.0, (1 - a) * mu], limit=400, epsabs=0.0, epsrel=1e-12)[0]) / (a - 1))


def_22.add_pin(
    "pin_renyi_integral_by_quadrature",
    "D_alpha of two Gaussians with mean gap = sensitivity by scipy quadrature at fractional and integer orders, "
    "sensitivity and sigma != 1; rel 1e-9",
    lambda: [({"alpha": a, "sensitivity": m_, "sigma": s_}, {"rdp": _gaussian_renyi_quad(a, m_, s_)})
             for a, m_, s_ in ((1.5, 0.7, 1.3), (4.0, 2.2, 0.8))],
    rel=1e-9)


def _lazy_tv(p: float, stay: float, n: int) -> tuple[float, float]:
    """(TV(mu_0, pi), TV(mu_0 P^n, pi)) for the lazy-refresh kernel P = stay Id + (1 - stay) pi on {0, 1}, started
    at 0, target Bern(p): by matrix powers."""
    pi = np.array([1 - p, p])
    P = stay * np.eye(2) + (1 - stay) * np.tile(pi, (2, 1))
    mu0 = np.array([1.0, 0.0])
    law = mu0 @ np.linalg.matrix_power(P, n)
    return 0.5 * float(np.abs(mu0 - pi).sum()), 0.5 * float(np.abs(law - pi).sum())


def _asm31_cases():
    out = []
    for p, stay, n in ((0.3, 0.8, 7), (0.75, 0.5, 3)):
        kappa_v, tv_n = _lazy_tv(p, stay, n)
        out.append(({"kappa": kappa_v, "R_n": stay**n}, {"tv_bound": tv_n}))  # R(n) = (1-rho)^n, kappa = TV(mu_0, pi)
    return out


asm_31.add_pin(
    "pin_lazy_chain_attains_the_bound",
    "the lazy-refresh chain meets Asm. 3.1 with equality: kappa R(n), kappa = TV(mu_0, pi), R(n) = (1-rho)^n, equals "
    "TV(mu_0 P^n, pi) computed by matrix powers; rel 1e-12",
    _asm31_cases, rel=1e-12)


def _tight_transfer(e: float, d: float, eta: float) -> float:
    """Prop. A.2 attained: the canonical (eps, d) pair (nu_D, nu_D'), each moved by TV eta (mass eta shifted into /
    out of the event that attains d); the hockey-stick at e^eps of the moved pair, by enumeration."""
    a, b = (1 - d) * np.exp(e) / (1 + np.exp(e)), (1 - d) / (1 + np.exp(e))
    mu_D = np.array([d, a + eta, b - eta, 0.0])
    mu_Dp = np.array([0.0, b - eta, a + eta, d])
    return float(hockey_stick(mu_D, mu_Dp, e))


_TRANSFER_POINTS = ((0.5, 0.01, 0.3, 0.05), (1.2, 0.0, 2.0, 0.01), (0.2, 0.1, 0.7, 0.1))


prop_32.add_pin(
    "pin_prop_A2_attained",
    "Prop. A.2 is attained: a canonical (eps, delta) pair whose laws each move by TV eta = kappa R towards the worst "
    "event has hockey-stick exactly delta + (1 + e^eps) eta (computed by enumeration), for R = R(n) (part i) and R_inf "
    "(part ii), delta = 0 included; epsilon is the target; rel 1e-12, abs 1e-15",
    lambda: [({"epsilon": e, "delta": d, "kappa": k_, "R_n": r_, "R_inf": 0.5 * r_},
              {"epsilon": e, "delta": _tight_transfer(e, d, k_ * r_), "delta_limit": _tight_transfer(e, d, 0.5 * k_ * r_)})
             for e, d, k_, r_ in _TRANSFER_POINTS],
    rel=1e-12, abs_tol=1e-15)

cor_33.add_pin(
    "pin_prop_A2_attained",
    "the threshold is Prop. 3.2 (ii)'s bound, attained by the moved canonical pair (see prop32_tv_to_dp); rel 1e-12",
    lambda: [({"epsilon": e, "delta": d, "kappa": k_, "R_inf": r_, "delta_prime": 0.99},
              {"delta_threshold": _tight_transfer(e, d, k_ * r_)}) for e, d, k_, r_ in _TRANSFER_POINTS],
    rel=1e-12, abs_tol=1e-15, allow_unguaranteed=True)


def _prop34_cases():
    out = []
    for e, d, dp in ((0.5, 0.0, 0.2), (1.5, 0.01, 0.3)):
        # the worst case of the proof: delta' - delta = (1 + e^eps) t is the excess a TV move t can create (A.2 read
        # backwards); the t solving it by brentq
        t = brentq(lambda tv: _tight_transfer(e, d, tv) - dp, 0.0, min(0.45, (1 - d) / (1 + np.exp(e))), xtol=1e-15)
        out.append(({"epsilon": e, "delta": d, "delta_prime": dp}, {"tv_lower": t}))
    return out


prop_34.add_pin(
    "pin_smallest_move_by_root_finding",
    "the smallest TV move that turns a (eps, delta) pair into one with hockey-stick delta' (moved canonical pair, "
    "brentq), delta = 0 included; rel 1e-10",
    _prop34_cases, rel=1e-10)


def _laplace_pure_epsilon(Delta: float, b: float) -> float:
    """Largest |log Lap(y, b)(x) - log Lap(y', b)(x)| over a grid of x, |y - y'| = Delta (the exact pure epsilon)."""
    x = np.linspace(-50 * b, 50 * b + Delta, 200_001)
    return float(np.max(np.abs(stats.laplace.logpdf(x, 0, b) - stats.laplace.logpdf(x, Delta, b))))


def _prop37_cases():
    out = []
    for e, Delta, dx, dt in ((0.8, 0.3, 0.0, 0.01), (2.5, 1.7, 1e-4, 0.2)):
        b = laplace_scale(Delta, e)  # dpverify.calculus.mechanisms.laplace
        out.append(({"epsilon_xi": e, "delta_xi": dx, "delta_tilde": dt, "sensitivity": Delta},
                    {"epsilon": _laplace_pure_epsilon(Delta, b), "delta": dx + dt, "laplace_scale": b}))
    return out


prop_37.add_pin(
    "pin_laplace_noise_profile",
    "Laplace noise at dpverify.calculus.mechanisms.laplace.laplace_scale(Delta, eps_xi): its exact pure epsilon for Delta-close "
    "inputs (largest log-density ratio on a grid through both centres) is eps_xi; delta_xi + delta_tilde by addition; "
    "rel 1e-9",
    _prop37_cases, rel=1e-9)


def _prop310_cases():
    out = []
    for e, dx, db, r, Cf in ((0.8, 1e-3, 0.05, 0.4, 0.2), (1.7, 0.0, 0.2, 1.3, 0.0)):
        # Delta: max of y_D - y_D' over |y_D - m_D| <= r, |y_D' - m_D'| <= r, |m_D - m_D'| <= C_f (a linear program)
        A = [[1, 0, -1, 0], [-1, 0, 1, 0], [0, 1, 0, -1], [0, -1, 0, 1], [0, 0, 1, -1], [0, 0, -1, 1]]
        res = linprog(c=[-1, 1, 0, 0], A_ub=A, b_ub=[r, r, r, r, Cf, Cf], bounds=[(None, None)] * 4, method="highs")
        # P(some of two independent chains fails to concentrate), enumerating the four outcomes
        fail = sum(float(np.prod([db if f else 1 - db for f in pat])) for pat in it.product((0, 1), repeat=2) if any(pat))
        out.append(({"epsilon_xi": e, "delta_xi": dx, "delta_bar": db, "r": r, "C_f": Cf},
                    {"sensitivity": -res.fun, "delta": dx + fail,
                     "epsilon": _laplace_pure_epsilon(2 * r + Cf, (2 * r + Cf) / e) if 2 * r + Cf > 0 else e}))
    return out


prop_310.add_pin(
    "pin_linear_program_and_enumeration",
    "Delta as the optimum of a linear program (scipy highs), the failure probability of two independent chains by "
    "enumerating their outcomes, and eps_xi as the exact pure epsilon of Laplace noise of scale Delta/eps_xi; rel 1e-9",
    _prop310_cases, rel=1e-9)


THEOREMS: tuple[Theorem, ...] = (def_21, def_22, asm_31, prop_32, cor_33, prop_34, prop_37, prop_310)
