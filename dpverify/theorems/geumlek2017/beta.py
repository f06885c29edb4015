"""Geumlek, Song, Chaudhuri 2017, Section 3: the Diffuse and Concentrated Posterior mechanisms on the beta-Bernoulli
model, and their RDP (reconstructed, confidence R-med: see :mod:`dpverify.theorems.geumlek2017.common`).

**Mechanism.** Bernoulli records, prior ``Beta(alpha0, beta0)``, counts ``n1`` (ones) and ``n0`` (zeros) of N records.
Release one draw of

    Beta(alpha0 + r n1, beta0 + r n0),

with ``0 < r <= 1``. ``r < 1`` is the Diffuse Posterior (the data's counts weighted down; ``r = 1`` the posterior);
a larger prior (``alpha0, beta0`` scaled up) is the Concentrated Posterior. Both act on the privacy through the
smallest posterior concentration over all datasets, ``a_min = min(alpha0, beta0)`` (attained when every record is a
one or every record a zero), and through ``r``.

**Bound.** Replacing one record moves the posterior parameter by ``u = (r, -r)`` (``|u|^2 = 2 r^2``); the beta
log-normaliser ``C = log B`` has Hessian ``diag(psi_1(a), psi_1(b)) - psi_1(a + b) J``, so ``u^T Hess C u = r^2
(psi_1(a) + psi_1(b)) <= 2 r^2 psi_1(min(a, b))``, and on the segments extrapolated to the order lambda the smallest
parameter is ``a_min - (lambda - 1) r``. The curvature bound (``geumlek2017.thm_expfam_rdp_curvature``) gives

    rdp = lambda r^2 psi_1(a_min - (lambda - 1) r)          for 1 < lambda < max_order = 1 + a_min / r,

and at ``lambda >= max_order`` the exact divergence of the worst pair is infinite (the mixture parameter
``a_min - (lambda - 1) r`` is <= 0): the mechanism is RDP of those orders only. Shrinking ``r`` or growing the prior is
how the mechanisms reach any target (lambda, epsilon). The bound is Ponnoprat's Theorem 1 at K = 2 with
``Delta_2^2 = 2 r^2``, ``Delta_inf = r`` (checked in :mod:`dpverify.theorems.ponnoprat2022.dirichlet`).

**Exact.** The mechanism's exact RDP is the maximum of the closed-form divergence over the 2N ordered adjacent pairs
(:func:`dpverify.calculus.conjugate_renyi.beta_bernoulli_worst_case`); it never exceeds the bound (check
``exact_worst_case_below_bound``), is a fraction of it when the counts dominate the prior (0.22 at N = 50, r = 1,
prior (2, 2), lambda = 2: only one of ``psi_1(a)``, ``psi_1(b)`` is large) and tends to it for N = 1, a symmetric prior
and small ``r`` (check ``tight_for_one_record_and_small_weight``).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy.special import polygamma

from dpverify.calculus.conjugate_renyi import beta_bernoulli_worst_case
from dpverify.theorems.base import Hypothesis, Theorem
from dpverify.theorems.geumlek2017.common import SYMBOLS, link, log_beta, source
from dpverify.theorems.geumlek2017.expfam import THM_CURVATURE

__all__ = ["THEOREMS", "DIFFUSE_BETA", "beta_rdp_bound"]

alpha, a_min, weight = SYMBOLS["alpha"], SYMBOLS["a_min"], SYMBOLS["weight"]
curvature, sensitivity = SYMBOLS["curvature"], SYMBOLS["sensitivity"]

DIFFUSE_BETA = Theorem(
    "geumlek2017.alg_diffuse_concentrated_beta",
    "Diffuse / Concentrated beta-Bernoulli posterior draw: (lambda, lambda r^2 psi_1(a_min - (lambda - 1) r))-RDP",
    source("Sec. 3, Diffuse and Concentrated Posterior mechanisms, beta-Bernoulli instance (numbers not read)",
           "the exponential-family mechanisms on the beta-Bernoulli model", "R-med"),
    "rdp",
    symbols={k: SYMBOLS[k] for k in ("alpha", "a_min", "weight")},
    hypotheses=[
        Hypothesis("order_above_one", sp.Gt(alpha, 1), "Rényi order lambda > 1"),
        Hypothesis("weight_at_most_one", sp.Le(weight, 1), "the Diffuse Posterior weights the counts by 0 < r <= 1"),
        Hypothesis("order_below_max_order", sp.Gt(a_min, (alpha - 1) * weight),
                   "lambda < 1 + a_min / r: beyond it the worst pair's divergence is infinite"),
    ],
    conclusion={
        "rdp": alpha * weight**2 * sp.polygamma(1, a_min - (alpha - 1) * weight),
        "max_order": 1 + a_min / weight,
    },
    statement=(
        "Bernoulli records, prior Beta(alpha0, beta0), counts n1, n0. Releasing one draw of Beta(alpha0 + r n1, beta0 + "
        "r n0), 0 < r <= 1 (the Diffuse Posterior for r < 1; a larger prior is the Concentrated Posterior), is "
        "(lambda, lambda r^2 psi_1(a_min - (lambda - 1) r))-RDP under replace-one adjacency for 1 < lambda < max_order "
        "= 1 + a_min / r, a_min = min(alpha0, beta0), and has infinite Rényi divergence of every order >= max_order. "
        "Keywords: alpha = lambda, weight = r."
    ),
    empirical=[link("rdp_posterior_beta_bernoulli", "one draw of Beta(alpha0 + r n1, beta0 + r n0), its claim the "
                    "bound's RDP curve converted at delta, its exact pair epsilon from the hockey-stick divergence")],
    notes=(
        "Reconstructed (R-med): the mechanisms are the paper's (and named so by a public implementation that uses "
        "them); the closed-form bound is the curvature bound with the beta log-normaliser, equal to Ponnoprat 2022, "
        "Theorem 1 at K = 2. The exact RDP (enumeration over adjacent datasets) is close to the bound for one record and a "
        "small r, a fraction of it when the counts dominate the prior."
    ),
)


def beta_rdp_bound(order, a_min_value, r):
    """The conclusion ``rdp`` in numpy (broadcasting; ``inf`` at and beyond ``1 + a_min / r``)."""
    lam = np.asarray(order, dtype=float)
    arg = np.asarray(a_min_value, dtype=float) - (lam - 1.0) * np.asarray(r, dtype=float)
    value = lam * np.asarray(r, dtype=float) ** 2 * polygamma(1, np.where(arg > 0, arg, 1.0))
    return np.where(arg > 0, value, np.inf)


@DIFFUSE_BETA.add_check("from_the_curvature_bound", "symbolic")
def _from_curvature():
    """The beta log-normaliser's Hessian (sympy) in the direction u = (r, -r) of one replaced record is r^2 (psi_1(a) +
    psi_1(b)) <= 2 r^2 psi_1(min(a, b)) since psi_1 decreases (psi_2 < 0); on the extrapolated segments min(a, b) >=
    a_min - (lambda - 1) r. The curvature theorem at l = psi_1(a_min - (lambda - 1) r), Delta = sqrt(2) r is the
    conclusion, and max_order solves a_min - (lambda - 1) r = 0."""
    a, b = sp.symbols("a_var b_var", positive=True)
    r = weight
    hess = sp.hessian(log_beta(a, b), (a, b))
    u = sp.Matrix([r, -r])
    along = sp.simplify((u.T * hess * u)[0] - r**2 * (sp.polygamma(1, a) + sp.polygamma(1, b)))
    decreasing = sp.diff(sp.polygamma(1, a), a).is_negative
    general = THM_CURVATURE.conclusion["rdp"].subs(
        {curvature: sp.polygamma(1, a_min - (alpha - 1) * weight), sensitivity: sp.sqrt(2) * weight})
    same = sp.simplify(general - DIFFUSE_BETA.conclusion["rdp"])
    top = sp.solve(sp.Eq(a_min - (alpha - 1) * weight, 0), alpha)
    ok = (along == 0 and decreasing is True and same == 0 and len(top) == 1
          and sp.simplify(top[0] - DIFFUSE_BETA.conclusion["max_order"]) == 0)
    return ok, f"u^T H u - r^2 (psi_1(a) + psi_1(b)) = {along}; psi_1 decreasing {decreasing}; bound - conclusion = {same}; " \
               f"max order {top}"


@DIFFUSE_BETA.add_check("infinite_at_the_max_order", "symbolic")
def _infinite():
    """At lambda = max_order the worst pair (P with the parameter a_min, Q with a_min + r) has the mixture parameter
    a_min + lambda (a_min - (a_min + r)) = a_min - (lambda - 1) r = 0, and int_0 theta^(0 - 1) dtheta = oo; below it,
    with mixture c > 0, int_0^1 theta^(c - 1) = 1/c is finite."""
    th = sp.Symbol("theta_var", positive=True)
    c = sp.Symbol("c_var", positive=True)
    worst_pair_mixture = (a_min + weight) + alpha * (a_min - (a_min + weight))  # a_2 + lambda (a_1 - a_2)
    mix = sp.simplify(worst_pair_mixture.subs(alpha, DIFFUSE_BETA.conclusion["max_order"]))
    diverges = sp.integrate(th ** (mix - 1), (th, 0, 1))
    finite = sp.integrate(th ** (c - 1), (th, 0, 1), conds="none")
    ok = mix == 0 and diverges == sp.oo and sp.simplify(finite - 1 / c) == 0
    return ok, f"mixture parameter at max_order = {mix}; integral {diverges}; below: {finite}"


#: The grid of the numeric checks: (N, alpha0, beta0, r).
_GRID = [(n, a0, b0, r) for n in (1, 2, 5, 20) for a0, b0 in ((1.0, 1.0), (0.5, 3.0), (4.0, 4.0)) for r in (1.0, 0.5, 0.1)]


@DIFFUSE_BETA.add_check("exact_worst_case_below_bound", "numeric")
def _exact_below():
    """The exact RDP of the mechanism (largest closed-form divergence over all 2N ordered adjacent pairs, enumerated) is
    <= the conclusion at orders 1.01 and 10%, 50%, 90%, 99% of the way to max_order, for N in {1, 2, 5, 20}, priors
    (1, 1), (0.5, 3), (4, 4) and r in {1, 0.5, 0.1}; the largest ratio is reported (the bound is tightest for N = 1)."""
    worst, where = 0.0, None
    for n, a0, b0, r in _GRID:
        top = DIFFUSE_BETA.evaluate(alpha=1.01, a_min=min(a0, b0), weight=r).max_order
        for frac in (0.0, 0.1, 0.5, 0.9, 0.99):
            lam = 1.01 + frac * (top - 1.01)
            bound = DIFFUSE_BETA.evaluate(alpha=lam, a_min=min(a0, b0), weight=r).rdp
            ratio = beta_bernoulli_worst_case(lam, n, a0, b0, r).rdp / bound
            if ratio > worst:
                worst, where = ratio, (n, a0, b0, r, round(lam, 4))
    return worst <= 1.0, f"max exact / bound = {worst:.4f} at (N, alpha0, beta0, r, lambda) = {where}", 1.0, worst


@DIFFUSE_BETA.add_check("tight_for_one_record_and_small_weight", "numeric")
def _tight():
    """With one record, prior (2, 2) and lambda = 2, exact / bound -> 1 as r -> 0 (both psi_1 terms then sit at a_min
    along the whole segment): >= 0.98 at r = 0.01, increasing as r decreases (r = 0.5, 0.1, 0.01). With N = 50 records
    at r = 1 only one of psi_1(a), psi_1(b) is large and the exact value is a fraction of the bound (0.15-0.3)."""
    ratios = []
    for r in (0.5, 0.1, 0.01):
        ratios.append(beta_bernoulli_worst_case(2.0, 1, 2.0, 2.0, r).rdp
                      / DIFFUSE_BETA.evaluate(alpha=2.0, a_min=2.0, weight=r).rdp)
    large_n = beta_bernoulli_worst_case(2.0, 50, 2.0, 2.0, 1.0).rdp / DIFFUSE_BETA.evaluate(alpha=2.0, a_min=2.0,
                                                                                            weight=1.0).rdp
    ok = ratios[-1] >= 0.98 and ratios == sorted(ratios) and 0.15 <= large_n <= 0.3
    return ok, f"N = 1: exact / bound at r = 0.5, 0.1, 0.01: {[round(x, 4) for x in ratios]}; N = 50: {large_n:.4f}", \
        1.0, ratios[-1]


@DIFFUSE_BETA.add_check("finite_exactly_below_max_order", "numeric")
def _finite_below():
    """The exact worst-case divergence is finite at 0.999 of the way to max_order and infinite just past it (1e-9
    relative: exactly at max_order the mixture parameter is 0 up to rounding) and beyond, for the grid's priors and
    weights with N = 3 (the mechanism is RDP of the orders below max_order only)."""
    bad = []
    for _, a0, b0, r in [g for g in _GRID if g[0] == 1]:
        top = 1 + min(a0, b0) / r
        below = beta_bernoulli_worst_case(1 + 0.999 * (top - 1), 3, a0, b0, r).rdp
        at, beyond = (beta_bernoulli_worst_case(x, 3, a0, b0, r).rdp for x in (top * (1 + 1e-9), top + 0.5))
        if not (math.isfinite(below) and at == math.inf and beyond == math.inf):
            bad.append((a0, b0, r))
    return not bad, f"pairs breaking the pattern: {bad}"


def _max_order_by_bisection(a0: float, b0: float, r: float) -> float:
    """The smallest order at which the exact worst-case divergence is infinite, by bisection on its finiteness."""
    lo, hi = 1.0 + 1e-9, 2.0
    while math.isfinite(beta_bernoulli_worst_case(hi, 2, a0, b0, r).rdp):
        lo, hi = hi, 2 * hi
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if math.isfinite(beta_bernoulli_worst_case(mid, 2, a0, b0, r).rdp) else (lo, mid)
    return hi


def _pins():
    out = []
    for lam, a0, b0, r in ((2.5, 1.5, 3.0, 0.6), (1.3, 0.8, 0.9, 1.0), (9.0, 5.0, 2.0, 0.2)):
        am = min(a0, b0)
        typed = 0.5 * lam * (2 * r**2) * float(polygamma(1, am - (lam - 1) * r))  # Ponnoprat's alpha2epsilon, typed again
        out.append(({"alpha": lam, "a_min": am, "weight": r},
                    {"rdp": typed, "max_order": _max_order_by_bisection(a0, b0, r)}))
    return out


DIFFUSE_BETA.add_pin(
    "pin_bound_and_max_order",
    "rdp against Ponnoprat's alpha2epsilon typed again (0.5 lambda Delta_2^2 polygamma(1, a_min - (lambda - 1) "
    "Delta_inf) with Delta_2^2 = 2 r^2, Delta_inf = r, scipy's polygamma); max_order against the smallest order at which "
    "the exact worst-case divergence is infinite, found by bisection; rel 1e-9",
    _pins, rel=1e-9)

THEOREMS: tuple[Theorem, ...] = (DIFFUSE_BETA,)
