"""Heller & Fetaya (SaTML 2023): SGLD's privacy loss is unbounded in its interim region although the posterior is
private -- encoded on a faithful, exactly solvable instance (reconstructed).

**What was read.** Only the abstract (arXiv:2110.05057 v5, its ar5iv and OpenReview pages): "previous research
provides differential privacy bounds for SGLD at the initial steps of the algorithm or when close to convergence ...
This paper shows that using SGLD might result in unbounded privacy loss for this interim region, even when sampling
from the posterior is as differentially private as desired", with Bayesian learning as the setting. The body (the
paper's construction, its theorem numbers and constants) could not be read, so the items below are **not** the paper's
statements: they are an instance built here that has the property the abstract states, with every number exact.

**The instance.** One-dimensional Bayesian linear regression ``y_i ~ N(x_i theta, 1)`` with features ``x_i`` in [0,
1], responses ``y_i = 0`` and prior ``N(0, 1/m)``: the potential is ``U_D(theta) = a_D theta^2 / 2`` with ``a_D = m
+ sum_i x_i^2`` and the posterior is ``N(0, 1/a_D)``. Replacing one record changes ``a_D`` by at most 1.

- ``heller2023.prop_posterior_private``: the posterior pair with precisions ``m`` (the record's feature is 0) and
  ``m + 1`` (it is 1) is the worst replace-one pair (check ``worst_pair_on_a_grid``), and its Rényi divergence of
  order alpha, ``log(m/(m+1))/2 + log(m/(m+1-alpha))/(2(alpha-1))`` (for alpha < m + 1), goes to 0 as ``m`` grows:
  the posterior is "as private as desired".
- ``heller2023.thm_interim_unbounded``: full-batch SGLD ``theta' = theta - eta a_D theta + sqrt(2 eta) xi`` started
  at ``theta_0 = R`` has after ``t`` steps the law ``N(R rho^t, 2 eta (1 - rho^{2t})/(1 - rho^2))``, ``rho = 1 - eta
  a_D``. The two datasets contract at different rates, so the means differ by ``R (rho_2^t - rho_1^t)``, and the
  Rényi divergence of the two interim laws grows like ``R^2``: for every t >= 1 and every epsilon there is a start
  ``R`` beyond which the interim state is not (epsilon, delta)-DP, while as t -> infinity the start is forgotten and
  the divergence tends to that of the chain's stationary laws (close to the posterior's).

The naive claim of the sampler ``sgld_interim`` is the posterior's exact epsilon, applied to the interim state.
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy import integrate

from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem

__all__ = ["THEOREMS", "POSTERIOR", "INTERIM", "gaussian_renyi", "CASE"]

SYMBOLS_POST = sy.pick("alpha", "m")
SYMBOLS_INTERIM = sy.pick("alpha", "m", "eta", "t", "R")
alpha, m, eta, t, R = (SYMBOLS_INTERIM[n] for n in ("alpha", "m", "eta", "t", "R"))

#: The audit case's parameters (dpverify/cases/catalogue.py, ``sgld_interim``): prior precision, step, steps, start,
#: delta; the pair is N = 10 features 0 against one of them replaced by 1.
CASE: dict[str, float] = {"m": 10.0, "eta": 0.01, "t": 20, "R": 10.0, "delta": 1e-5}


def _renyi(m1, v1, m2, v2):
    """``D_alpha(N(m1, v1) || N(m2, v2)) = log(s2/s1) + log(v2 / v_a) / (2 (alpha - 1)) + alpha (m1 - m2)^2 / (2 v_a)``
    with ``v_a = alpha v2 + (1 - alpha) v1`` (sympy)."""
    va = alpha * v2 + (1 - alpha) * v1
    return sp.log(v2 / v1) / 2 + sp.log(v2 / va) / (2 * (alpha - 1)) + alpha * (m1 - m2) ** 2 / (2 * va)


def gaussian_renyi(order: float, m1: float, v1: float, m2: float, v2: float) -> float:
    """``D_order(N(m1, v1) || N(m2, v2))`` by quadrature of ``p^order q^(1 - order)`` (an independent computation;
    ``inf`` when ``order v2 + (1 - order) v1 <= 0``)."""
    if order * v2 + (1 - order) * v1 <= 0:
        return math.inf
    s1, s2 = math.sqrt(v1), math.sqrt(v2)

    def f(x: float) -> float:
        lp = -(x - m1) ** 2 / (2 * v1) - math.log(s1)
        lq = -(x - m2) ** 2 / (2 * v2) - math.log(s2)
        return math.exp(order * lp + (1 - order) * lq) / math.sqrt(2 * math.pi)

    centre = (m1 + m2) / 2
    width = 40 * max(s1, s2) + abs(m1 - m2) * order
    val, _ = integrate.quad(f, centre - width, centre + width, points=[m1, m2], limit=400, epsabs=0, epsrel=1e-12)
    return math.log(val) / (order - 1)


# ------------------------------------------------------------------------------------------------ the posterior
POST_RDP = sp.log(m / (m + 1)) / 2 + sp.log(m / (m + 1 - alpha)) / (2 * (alpha - 1))

POSTERIOR = Theorem(
    "heller2023.prop_posterior_private",
    "The instance's posterior is (alpha, rdp)-RDP with rdp -> 0 as the prior precision grows",
    Source("heller2023", "abstract ('sampling from the posterior is as differentially private as desired')",
           "instance built here (the paper's body was not read: see the module docstring)", reconstructed=True,
           confidence="UNCERTAIN"),
    "rdp",
    symbols=SYMBOLS_POST,
    hypotheses=[
        Hypothesis("order_above_one", sp.Gt(alpha, 1), "Rényi order alpha > 1"),
        Hypothesis("order_below_max", sp.Lt(alpha, m + 1), "alpha < m + 1: beyond it the divergence of the wider "
                   "posterior from the narrower one is infinite"),
    ],
    conclusion={"rdp": POST_RDP},
    statement=(
        "Bayesian linear regression y_i ~ N(x_i theta, 1), features in [0, 1], responses 0, prior N(0, 1/m): the "
        "posterior N(0, 1/(m + sum x_i^2)) released once is (alpha, rdp)-RDP over replace-one pairs with rdp = "
        "log(m/(m+1))/2 + log(m/(m+1-alpha))/(2(alpha-1)) (the pair of precisions m and m + 1, the wider posterior "
        "first), for 1 < alpha < m + 1; rdp -> 0 as m -> infinity. Keywords: alpha, m (prior precision)."
    ),
    empirical=[EmpiricalLink("sgld_interim", "audits/test_sgld_interim.py",
                             "its naive claim: this posterior's exact epsilon applied to SGLD's interim state")],
    notes="A faithful instance of the abstract's premise, not the paper's statement (its body was not read).",
)


@POSTERIOR.add_check("renyi_integral", "symbolic")
def _post_integral():
    """``D_alpha = log(int p^alpha q^(1-alpha)) / (alpha - 1)`` for ``p = N(0, 1/m)``, ``q = N(0, 1/(m+1))``: sympy
    integrates ``exp(-lam x^2 / 2)`` (``lam = alpha m + (1 - alpha)(m + 1) = m + 1 - alpha > 0``) and the result is
    the conclusion."""
    x = sp.Symbol("x_var", real=True)
    lam = sp.Symbol("lam_var", positive=True)
    gauss = sp.integrate(sp.exp(-lam * x**2 / 2), (x, -sp.oo, sp.oo))
    integral = (m ** (alpha / 2) * (m + 1) ** ((1 - alpha) / 2) / sp.sqrt(2 * sp.pi) * gauss).subs(lam, m + 1 - alpha)
    derived = sp.expand_log(sp.log(integral) / (alpha - 1), force=True)
    diff = sp.simplify(derived - sp.expand_log(POST_RDP, force=True))
    return diff == 0, f"log(integral)/(alpha - 1) - conclusion = {diff}"


@POSTERIOR.add_check("as_private_as_desired", "symbolic")
def _post_limit():
    """The conclusion tends to 0 as ``m -> infinity`` at every order (sympy limit)."""
    lim = sp.limit(POST_RDP, m, sp.oo)
    return lim == 0, f"lim_(m -> oo) rdp = {lim}"


def _zero_mean_renyi(order: float, v1: float, v2: float) -> float:
    """``D_order(N(0, v1) || N(0, v2))`` in closed form (numpy; ``inf`` when ``order v2 + (1 - order) v1 <= 0``)."""
    va = order * v2 + (1 - order) * v1
    return math.inf if va <= 0 else 0.5 * math.log(v2 / v1) + math.log(v2 / va) / (2 * (order - 1))


@POSTERIOR.add_check("worst_pair_on_a_grid", "numeric")
def _post_worst():
    """Every replace-one pair has precisions ``a`` and ``a + d`` with ``a >= m``, ``0 < d <= 1``: on a grid (a from m
    to m + 40, d in (0, 1], both directions, orders 1.5, 2, 4) the divergence (closed form) is at most the
    conclusion, which is attained at ``a = m, d = 1``."""
    worst = 0.0
    for mm in (0.5, 3.0, 10.0):
        for order in (1.5, 2.0, 4.0):
            if order >= mm + 1:
                continue
            bound = POSTERIOR.evaluate(alpha=order, m=mm).rdp
            for a in np.linspace(mm, mm + 40, 81):
                for d in (0.1, 0.5, 1.0):
                    v1, v2 = 1 / a, 1 / (a + d)
                    worst = max(worst, _zero_mean_renyi(order, v1, v2) / bound, _zero_mean_renyi(order, v2, v1) / bound)
    return worst <= 1 + 1e-12, f"max divergence / conclusion = {worst:.12f}", 1.0, worst


def _post_pins():
    out = []
    for order, mm in ((2.0, 10.0), (1.5, 1.0), (5.0, 30.0)):
        out.append(({"alpha": order, "m": mm}, {"rdp": gaussian_renyi(order, 0.0, 1 / mm, 0.0, 1 / (mm + 1))}))
    return out


POSTERIOR.add_pin("pin_quadrature", "rdp against the quadrature of p^alpha q^(1-alpha) (scipy quad, rel 1e-12) at "
                  "three points; rel 1e-8", _post_pins, rel=1e-8)


# -------------------------------------------------------------------------------------------- the interim state
RHO1 = 1 - eta * (m + 1)  # the dataset whose record has feature 1 (P)
RHO2 = 1 - eta * m  # the neighbour, feature 0 (Q)


def _var(rho):
    return 2 * eta * (1 - rho ** (2 * t)) / (1 - rho**2)


MEAN_GAP = R * (RHO2**t - RHO1**t)
INTERIM_RDP = _renyi(R * RHO1**t, _var(RHO1), R * RHO2**t, _var(RHO2))

INTERIM = Theorem(
    "heller2023.thm_interim_unbounded",
    "SGLD's state after t steps: the pair's Rényi divergence grows like R^2 (unbounded privacy loss)",
    Source("heller2023", "abstract ('unbounded privacy loss for this interim region')",
           "instance built here (the paper's body was not read: see the module docstring)", reconstructed=True,
           confidence="UNCERTAIN"),
    "rdp",
    symbols=SYMBOLS_INTERIM,
    hypotheses=[
        Hypothesis("order_above_one", sp.Gt(alpha, 1), "Rényi order alpha > 1"),
        Hypothesis("contracting", sp.Lt(eta * (m + 1), 1), "eta (m + 1) < 1: both chains contract monotonically "
                   "(rho in [0, 1)), so the dataset with the record has the narrower law"),
    ],
    conclusion={"rdp": INTERIM_RDP, "mean_gap": MEAN_GAP},
    statement=(
        "On the instance of heller2023.prop_posterior_private, full-batch SGLD theta' = theta - eta a_D theta + "
        "sqrt(2 eta) xi from theta_0 = R has after t steps the law N(R rho^t, 2 eta (1 - rho^(2t))/(1 - rho^2)), rho = "
        "1 - eta a_D. On the pair a = m + 1 (P) and a = m (Q), the Rényi divergence D_alpha(P_t || Q_t) = rdp (the "
        "Gaussian closed form) contains alpha mean_gap^2/(2 v_alpha) with mean_gap = R ((1 - eta m)^t - (1 - eta "
        "(m+1))^t) > 0, so it grows like R^2 without bound, while the posterior's divergence does not depend on R. "
        "Keywords: alpha, m (prior precision), eta (step), t (steps), R (start)."
    ),
    empirical=[EmpiricalLink("sgld_interim", "audits/test_sgld_interim.py",
                             "the interim state audited against the posterior's epsilon: a violation")],
    notes=("A faithful instance of the abstract's claim, not the paper's statement (its body was not read). The "
           "privacy loss is unbounded in the start R at every fixed t; this is what 'interim' means here."),
)


@INTERIM.add_check("law_recursion", "symbolic")
def _interim_recursion():
    """The closed forms solve the chain's moment recursion: ``mean_{t+1} = rho mean_t``, ``var_{t+1} = rho^2 var_t +
    2 eta``, ``var_0 = 0`` (sympy)."""
    rho = sp.Symbol("rho_var", positive=True)
    v = 2 * eta * (1 - rho ** (2 * t)) / (1 - rho**2)
    step = sp.simplify(rho**2 * v + 2 * eta - v.subs(t, t + 1))
    start = sp.simplify(v.subs(t, 0))
    mean = sp.simplify(rho * (R * rho**t) - R * rho ** (t + 1))
    return step == 0 and start == 0 and mean == 0, f"variance step {step}, var_0 {start}, mean step {mean}"


@INTERIM.add_check("quadratic_in_the_start", "symbolic")
def _interim_quadratic():
    """``rdp`` is quadratic in R with second derivative ``alpha mean_gap^2 / (R^2 v_alpha) > 0``, and tends to
    infinity with R at the audit case's (m, eta, t) and alpha = 2 (sympy)."""
    va = alpha * _var(RHO2) + (1 - alpha) * _var(RHO1)
    second = sp.simplify(sp.diff(INTERIM_RDP, R, 2) - alpha * (RHO2**t - RHO1**t) ** 2 / va)
    at_case = INTERIM_RDP.subs({m: 10, eta: sp.Rational(1, 100), t: 20, alpha: 2})
    lim = sp.limit(at_case, R, sp.oo)
    return second == 0 and lim == sp.oo, f"d2/dR2 - alpha gap^2/v_alpha = {second}; lim_(R -> oo) = {lim}"


@INTERIM.add_check("start_forgotten_at_convergence", "numeric")
def _interim_forgotten():
    """As t grows the divergence forgets R: at t = 5000 (m = 10, eta = 0.01, alpha = 2) the values at R = 1 and R =
    1000 agree to 1e-9 and equal the divergence of the chain's stationary laws ``N(0, 2 eta/(1 - rho^2))`` to 1e-9;
    those differ from the posterior's by the discretisation bias (variance factor ``1/(1 - eta a/2)``, 10% on the
    divergence here), which is reported."""
    vals = [INTERIM.evaluate(alpha=2, m=10, eta=0.01, t=5000, R=r0).rdp for r0 in (1.0, 1000.0)]
    stationary = _zero_mean_renyi(2.0, 0.02 / (1 - 0.89**2), 0.02 / (1 - 0.9**2))
    post = _zero_mean_renyi(2.0, 1 / 11, 1 / 10)
    ok = abs(vals[0] - vals[1]) <= 1e-9 and abs(vals[0] - stationary) <= 1e-9
    return ok, (f"rdp at R = 1, 1000: {vals[0]:.10g}, {vals[1]:.10g}; stationary {stationary:.10g}; posterior "
                f"{post:.6g}"), stationary, vals[0]


def _laws(mm: float, e: float, tt: int, r0: float) -> list[tuple[float, float]]:
    """The interim laws ``(mean, variance)`` of the two chains (precisions m + 1, then m) by running the moment
    recursion ``mean' = rho mean``, ``var' = rho^2 var + 2 eta`` numerically from ``(R, 0)``."""
    laws = []
    for a in (mm + 1, mm):
        mean, var = r0, 0.0
        for _ in range(tt):
            mean, var = (1 - e * a) * mean, (1 - e * a) ** 2 * var + 2 * e
        laws.append((mean, var))
    return laws


def _quad_epsilon(m1: float, v1: float, m2: float, v2: float, delta: float) -> float:
    """The pair's epsilon at ``delta``, both directions, from the quadrature of ``(p - e^eps q)_+`` and bisection (an
    independent computation of :func:`dpverify.samplers.negative_results.gaussian_pair_epsilon`)."""
    s1, s2 = math.sqrt(v1), math.sqrt(v2)

    def hockey(e: float, a: tuple[float, float], b: tuple[float, float]) -> float:
        def f(x: float) -> float:
            lp = -(x - a[0]) ** 2 / (2 * a[1]) - 0.5 * math.log(2 * math.pi * a[1])
            lq = -(x - b[0]) ** 2 / (2 * b[1]) - 0.5 * math.log(2 * math.pi * b[1])
            return max(0.0, math.exp(lp) - math.exp(e + lq))

        lo, hi = min(m1, m2) - 40 * max(s1, s2), max(m1, m2) + 40 * max(s1, s2)
        return integrate.quad(f, lo, hi, points=[m1, m2], limit=800, epsabs=1e-15, epsrel=1e-10)[0]

    best = 0.0
    for a, b in (((m1, v1), (m2, v2)), ((m2, v2), (m1, v1))):
        lo, hi = 0.0, 60.0
        if hockey(0.0, a, b) <= delta:
            continue
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if hockey(mid, a, b) > delta else (lo, mid)
        best = max(best, hi)
    return best


@INTERIM.add_check("naive_claim_violated", "numeric")
def _interim_violated():
    """At the audit case (m = 10, eta = 0.01, t = 20, R = 10, delta = 1e-5) the interim pair's epsilon (quadrature
    and bisection) is > 5 times the naive claim (the posterior pair's epsilon, the same way), and doubling R more than
    doubles the RDP at alpha = 2 (it grows like R^2)."""
    (m1, v1), (m2, v2) = _laws(CASE["m"], CASE["eta"], int(CASE["t"]), CASE["R"])
    exact = _quad_epsilon(m1, v1, m2, v2, CASE["delta"])
    naive = _quad_epsilon(0.0, 1 / CASE["m"], 0.0, 1 / (CASE["m"] + 1), CASE["delta"])
    r1, r2 = (INTERIM.evaluate(alpha=2, m=10, eta=0.01, t=20, R=r0).rdp for r0 in (10.0, 20.0))
    ok = exact > 5 * naive and r2 > 2 * r1
    return ok, f"exact {exact:.4f} vs naive {naive:.4f}; rdp at R = 10, 20: {r1:.4f}, {r2:.4f}", naive, exact


@INTERIM.add_check("simulated_mean_gap", "numeric")
def _interim_simulated():
    """200000 chains per dataset (seed 1), the SGLD recursion simulated with numpy at the audit case: the empirical
    mean gap is the conclusion's mean_gap within 5 standard errors (SE sqrt((v1 + v2)/n))."""
    rng = np.random.default_rng(1)
    n = 200_000
    ends = []
    for a in (CASE["m"] + 1, CASE["m"]):
        theta = np.full(n, CASE["R"])
        for _ in range(int(CASE["t"])):
            theta = theta - CASE["eta"] * a * theta + math.sqrt(2 * CASE["eta"]) * rng.standard_normal(n)
        ends.append(theta)
    gap = float(ends[1].mean() - ends[0].mean())
    want = INTERIM.evaluate(alpha=2, m=CASE["m"], eta=CASE["eta"], t=CASE["t"], R=CASE["R"]).mean_gap
    z = abs(gap - want) / math.sqrt((ends[0].var() + ends[1].var()) / n)
    return z < 5, f"simulated gap {gap:.5f} vs {want:.5f} (z = {z:.2f})", want, gap


def _interim_pins():
    out = []
    for order, mm, e, tt, r0 in ((2.0, 10.0, 0.01, 20, 10.0), (1.5, 2.0, 0.1, 5, 3.0), (4.0, 1.0, 0.2, 1, 1.0)):
        (m1, v1), (m2, v2) = _laws(mm, e, tt, r0)
        out.append(({"alpha": order, "m": mm, "eta": e, "t": tt, "R": r0},
                    {"rdp": gaussian_renyi(order, m1, v1, m2, v2), "mean_gap": m2 - m1}))
    return out


INTERIM.add_pin("pin_recursion_and_quadrature", "rdp and mean_gap against the moment recursion iterated numerically "
                "and the quadrature of p^alpha q^(1-alpha) at three points; rel 1e-8", _interim_pins, rel=1e-8)

THEOREMS: tuple[Theorem, ...] = (POSTERIOR, INTERIM)
