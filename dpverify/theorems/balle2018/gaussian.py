"""Balle & Wang 2018, Theorem 8: the exact privacy profile of the Gaussian mechanism.

B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for Differential Privacy: Analytical Calibration and Optimal
Denoising. ICML 2018, Theorem 8 (Sec. 3): a mechanism M(x) = f(x) + N(0, sigma^2 I) with global L2 sensitivity
Delta is (eps, delta)-DP (eps >= 0) if and only if

    Phi(Delta / (2 sigma) - eps sigma / Delta) - e^eps Phi(-Delta / (2 sigma) - eps sigma / Delta) <= delta,

Phi the standard normal CDF. The left side, ``delta_exact(eps)``, is the hockey-stick divergence of N(0, sigma^2)
from N(Delta, sigma^2) (a pair at distance Delta along the sensitivity direction is the worst pair, and the other
coordinates cancel), so it is the smallest delta at which the mechanism is (eps, delta)-DP; it depends on Delta and
sigma only through mu = Delta / sigma, and decreases in eps. Algorithm 1 of the paper (the analytic calibration,
:func:`dpverify.calculus.mechanisms.gaussian.analytic_gaussian_sigma`, used by the ``analytic_gaussian_mechanism``
sampler) solves ``delta_exact = delta`` for sigma.

Checks: the formula re-derived from the privacy-loss random variable (sympy: the region where the loss exceeds eps
is a half-line), its eps-derivative (``-e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta)``: the density terms cancel,
so the profile decreases and the "iff" is a threshold), the scale invariance in (Delta, sigma), the limit at eps ->
0 (the total variation distance 2 Phi(mu/2) - 1); pinned at points against an mpmath quadrature of the hockey-stick
integral, against the analytic calibration (its sigma gives exactly delta), and against Dwork & Roth's classic
calibration (Wang et al. 2015, Thm 2: its sigma gives at most delta for eps < 1).
"""
from __future__ import annotations

import math

import mpmath as mp
import sympy as sp

from dpverify.calculus.mechanisms.gaussian import analytic_gaussian_sigma, classic_gaussian_sigma
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Source, Theorem

__all__ = ["THEOREMS", "ANALYTIC_GAUSSIAN", "SYMBOLS", "normal_cdf"]

#: This paper's symbols, keyword name -> the entry of the catalogue's symbol table.
SYMBOLS: dict[str, sp.Symbol] = {"sensitivity": sy.sensitivity, "sigma": sy.sigma, "epsilon": sy.epsilon}

_D, _s, _e = SYMBOLS["sensitivity"], SYMBOLS["sigma"], SYMBOLS["epsilon"]


def normal_cdf(x):
    """Phi(x) = erfc(-x / sqrt 2) / 2 (sympy; erfc keeps the far left tail in floating point)."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


#: The two arguments of Phi in Theorem 8.
_A = _D / (2 * _s) - _e * _s / _D
_B = -_D / (2 * _s) - _e * _s / _D

ANALYTIC_GAUSSIAN = Theorem(
    "balle2018.thm8_analytic_gaussian",
    "Gaussian mechanism is (eps, delta)-DP iff Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps "
    "Phi(-Delta/(2 sigma) - eps sigma/Delta) <= delta",
    Source("balle2018", "Theorem 8", "Sec. 3 (the analytic Gaussian mechanism; Algorithm 1 calibrates sigma by it)"),
    "privacy",
    symbols=dict(SYMBOLS),
    conclusion={
        "delta_exact": normal_cdf(_A) - sp.exp(_e) * normal_cdf(_B),
        "mu": _D / _s,
    },
    statement=(
        "A mechanism M(x) = f(x) + N(0, sigma^2 I), f of global L2 sensitivity Delta, is (eps, delta)-DP for "
        "eps >= 0 if and only if Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - "
        "eps sigma/Delta) <= delta. The conclusion 'delta_exact' is that left side: the smallest delta at which the "
        "mechanism is (eps, delta)-DP (the privacy profile); 'mu' = Delta/sigma, the only way Delta and sigma enter."
    ),
    empirical=[EmpiricalLink("analytic_gaussian_mechanism", "audits/test_analytic_gaussian_mechanism.py",
                             "the analytic calibration (sigma with delta_exact = delta) audited at the claimed "
                             "(eps, delta)")],
    notes=(
        "A supporting item: not one of the four papers, but the statement the catalogue and the accountants use "
        "for the Gaussian mechanism's exact (eps, delta). The theorem holds for eps >= 0; the catalogue's epsilon "
        "is positive, and the eps -> 0 limit (the total variation distance) is checked symbolically."
    ),
)


@ANALYTIC_GAUSSIAN.add_check("derived_from_the_privacy_loss", "symbolic",
                "with P = N(0, sigma^2), Q = N(Delta, sigma^2): the loss log(p/q)(x) = (Delta^2 - 2 Delta x)/(2 "
                "sigma^2) exceeds eps exactly for x < x* (solved by sympy), and P[X < x*] - e^eps Q[X < x*] is the "
                "conclusion")
def _():
    x = sp.Dummy("x", real=True)
    loss = (-(x**2) + (x - _D) ** 2) / (2 * _s**2)  # log N(x; 0, sigma^2) - log N(x; Delta, sigma^2)
    (x_star,) = sp.solve(sp.Eq(loss, _e), x)
    decreasing = sp.simplify(sp.diff(loss, x)) == -_D / _s**2  # the loss falls in x: {loss > eps} = {x < x*}
    delta_x = normal_cdf(x_star / _s) - sp.exp(_e) * normal_cdf((x_star - _D) / _s)
    gap = sp.simplify(delta_x - ANALYTIC_GAUSSIAN.conclusion["delta_exact"])
    return decreasing and gap == 0, f"x* = {x_star}; loss decreasing: {decreasing}; difference: {gap}"


@ANALYTIC_GAUSSIAN.add_check("decreasing_in_epsilon", "symbolic",
                "d delta_exact / d eps = -e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta) < 0: the density terms "
                "cancel (phi(a) = e^eps phi(b) since a^2 - b^2 = -2 eps), so (eps, delta)-DP holds exactly for delta "
                "at or above the profile")
def _():
    derivative = sp.diff(ANALYTIC_GAUSSIAN.conclusion["delta_exact"], _e)
    gap = sp.simplify(sp.expand(derivative + sp.exp(_e) * normal_cdf(_B)))
    return gap == 0, f"derivative + e^eps Phi(b) simplifies to {gap}"


@ANALYTIC_GAUSSIAN.add_check("depends_on_mu_only", "symbolic",
                "scaling Delta and sigma by the same c > 0 leaves delta_exact unchanged (it is a function of "
                "mu = Delta/sigma)")
def _():
    c = sp.Dummy("c", positive=True)
    expr = ANALYTIC_GAUSSIAN.conclusion["delta_exact"]
    gap = sp.simplify(expr.subs({_D: c * _D, _s: c * _s}, simultaneous=True) - expr)
    return gap == 0, f"difference after scaling: {gap}"


@ANALYTIC_GAUSSIAN.add_check("total_variation_at_epsilon_zero", "symbolic",
                "as eps -> 0 the profile tends to 2 Phi(mu/2) - 1, the total variation distance of N(0, 1) and "
                "N(mu, 1)")
def _():
    limit = sp.limit(ANALYTIC_GAUSSIAN.conclusion["delta_exact"], _e, 0, "+")
    tv = 2 * normal_cdf(_D / (2 * _s)) - 1
    gap = sp.simplify(limit - tv)
    return gap == 0, f"limit - (2 Phi(mu/2) - 1) = {gap}"


# ---------------------------------------------------------------------------------------------
# Pins: the conclusion at points against independent computations.
def _quadrature_cases():
    out = []
    with mp.workdps(40):
        for delta_, sigma_, eps_ in ((1.0, 1.0, 1.0), (1.0, 0.5, 2.0), (2.0, 3.0, 0.1), (1.0, 4.0, 0.01)):
            def excess(x):
                p = mp.npdf(x, 0, sigma_)
                q = mp.npdf(x, delta_, sigma_)
                return max(p - mp.exp(eps_) * q, 0)

            x_star = delta_ / 2 - eps_ * sigma_**2 / delta_  # p > e^eps q left of it (the kink of the integrand)
            value = mp.quad(excess, [-mp.inf, x_star - 10 * sigma_, x_star, x_star + 1])
            out.append(({"sensitivity": delta_, "sigma": sigma_, "epsilon": eps_},
                        {"delta_exact": float(value), "mu": delta_ / sigma_}))
    return out


ANALYTIC_GAUSSIAN.add_pin(
    "pin_hockey_stick_quadrature",
    "the hockey-stick integral of max(p - e^eps q, 0) over the real line, p = N(0, sigma^2), q = N(Delta, sigma^2), "
    "by mpmath quadrature at 40 digits (split at the kink x*), at four (Delta, sigma, eps); rel 1e-9 (the conclusion "
    "is evaluated in double precision)",
    _quadrature_cases, rel=1e-9)


def _calibration_cases():
    out = []
    for eps_, delta_ in ((1.0, 1e-5), (0.1, 1e-6), (4.0, 1e-3)):
        out.append(({"sensitivity": 1.0, "sigma": analytic_gaussian_sigma(1.0, eps_, delta_), "epsilon": eps_},
                    {"delta_exact": delta_}))
    return out


ANALYTIC_GAUSSIAN.add_pin(
    "pin_analytic_calibration",
    "Algorithm 1 (dpverify.calculus.mechanisms.gaussian.analytic_gaussian_sigma: a root-finder on the profile in log "
    "space) calibrates sigma so that delta_exact = delta, at (eps, delta) = (1, 1e-5), (0.1, 1e-6), (4, 1e-3); rel "
    "1e-6 (the root-finder's tolerance on sigma, amplified by the profile's slope)",
    _calibration_cases, rel=1e-6)


@ANALYTIC_GAUSSIAN.add_check("classic_calibration_is_sufficient", "numeric",
                "Dwork & Roth's sigma = Delta sqrt(2 log(1.25/delta))/eps (Wang et al. 2015, Thm 2, eps < 1) gives "
                "delta_exact <= delta, and at eps = 10 (outside eps < 1) it does not: the 'iff' tells them apart")
def _():
    worst = 0.0
    for eps_ in (0.05, 0.5, 0.95):
        for delta_ in (1e-2, 1e-5, 1e-10):
            s = classic_gaussian_sigma(1.0, eps_, delta_)
            worst = max(worst, ANALYTIC_GAUSSIAN.evaluate(sensitivity=1.0, sigma=s, epsilon=eps_).delta_exact / delta_)
    s10 = 1.0 * math.sqrt(2 * math.log(1.25 / 1e-5)) / 10.0
    outside = ANALYTIC_GAUSSIAN.evaluate(sensitivity=1.0, sigma=s10, epsilon=10.0).delta_exact / 1e-5
    return worst <= 1.0 and outside > 1.0, (f"max delta_exact/delta inside eps < 1: {worst:.4f}; at eps = 10: "
                                            f"{outside:.3f}"), 1.0, worst


THEOREMS: tuple[Theorem, ...] = (ANALYTIC_GAUSSIAN,)
