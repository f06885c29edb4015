"""Ponnoprat 2022, Theorem 1: the Rényi DP of Dirichlet posterior sampling.

D. Ponnoprat, "Differential Privacy of Dirichlet Posterior Sampling", arXiv:2110.01984 v2 (January 2022; later
versions of the same arXiv number are the reworked "Dirichlet Mechanism for Differentially Private KL Divergence
Minimization", whose numbering differs).

**Statement (as encoded).** Release one draw of ``Dir(alpha + x)`` where ``x`` is a statistic of the data (the category
counts) whose neighbouring values differ by at most ``Delta_2`` in L2 and ``Delta_inf`` in L-infinity, and every
posterior concentration is at least ``alpha_min``. For ``1 < lambda < 1 + alpha_min / Delta_inf`` the release is
(lambda, epsilon)-RDP with

    epsilon = lambda / 2 * Delta_2^2 * psi_1(alpha_min - (lambda - 1) Delta_inf),

``psi_1`` the trigamma function. Replace-one adjacency on counts: ``Delta_2^2 = 2``, ``Delta_inf = 1``; add/remove:
``Delta_2^2 = Delta_inf = 1``; counts weighted by ``r``: both sensitivities times ``r``.

**What the encoding rests on.** The paper's PDF could not be read here. The text read: the arXiv v2 abstract ("a
simple privacy guarantee of the Dirichlet posterior sampling with the framework of Rényi Differential Privacy") and the
author's public code for the paper ("Anonymous. Differential Privacy of Dirichlet Posterior Sampling. 2022."), whose
``utils.alpha2epsilon(min_alphas, lambda_, Delta_2sq, Delta_inf)`` -- commented "compute the privacy guarantee epsilon
as in Theorem 1" -- returns ``0.5 * lambda_ * Delta_2sq * polygamma(1, min_alphas - (lambda_ - 1) * Delta_inf)``,
and whose ``alpha2epsilon_evidence`` computes the exact divergence "according to equation (3)" (the exponential-family
identity, :mod:`dpverify.theorems.geumlek2017.expfam`). The formula is the author's; the numbering is the code's
comment. Figure 1 (left) of the paper is drawn by that code: counts ``x1 = (11, 8, 65, 25, 38, 0)`` against ``x2``
with one more record in the last category, symmetric prior ``alpha in [2, 20]``, ``lambda = 2``, ``Delta_2^2 =
Delta_inf = 1``: the "True epsilon" and the "(2, epsilon)-RDP upper bound" curves (check ``figure1_curves``).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy.special import polygamma

from dpverify.calculus.conjugate_renyi import dirichlet_categorical_worst_case, dirichlet_renyi_divergence
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem
from dpverify.theorems.geumlek2017.beta import DIFFUSE_BETA
from dpverify.theorems.geumlek2017.expfam import THM_CURVATURE

__all__ = ["THEOREMS", "THM1", "FIGURE1_X1", "figure1_curves"]

SYMBOLS = sy.pick("alpha", "a_min", "sensitivity", "sensitivity_inf")
alpha, a_min, sensitivity, sensitivity_inf = (SYMBOLS[n] for n in ("alpha", "a_min", "sensitivity", "sensitivity_inf"))

#: Figure 1 (left): the counts of the first dataset (the second has one more record in the last category).
FIGURE1_X1 = (11, 8, 65, 25, 38, 0)

THM1 = Theorem(
    "ponnoprat2022.thm1_dirichlet_rdp",
    "Dirichlet posterior sampling is (lambda, lambda/2 Delta_2^2 psi_1(alpha_min - (lambda - 1) Delta_inf))-RDP",
    Source("ponnoprat2022", "Theorem 1", "the main result (the PDF was not read: the formula is the author's code, "
           "see the module docstring)", reconstructed=True, confidence="R-high"),
    "rdp",
    symbols=SYMBOLS,
    hypotheses=[
        Hypothesis("order_above_one", sp.Gt(alpha, 1), "Rényi order lambda > 1"),
        Hypothesis("order_below_max_order", sp.Gt(a_min, (alpha - 1) * sensitivity_inf),
                   "lambda < 1 + alpha_min / Delta_inf: beyond it the worst pair's divergence can be infinite"),
    ],
    conclusion={"rdp": alpha / 2 * sensitivity**2 * sp.polygamma(1, a_min - (alpha - 1) * sensitivity_inf)},
    statement=(
        "One draw of Dir(alpha + x), x a statistic with L2 sensitivity Delta_2 and L-infinity sensitivity Delta_inf and "
        "every posterior concentration >= alpha_min, is (lambda, lambda/2 Delta_2^2 psi_1(alpha_min - (lambda - 1) "
        "Delta_inf))-RDP for 1 < lambda < 1 + alpha_min / Delta_inf. Keywords: alpha = lambda, a_min = alpha_min, "
        "sensitivity = Delta_2, sensitivity_inf = Delta_inf."
    ),
    empirical=[EmpiricalLink("rdp_posterior_dirichlet_categorical", "audits/test_rdp_posterior_dirichlet_categorical.py",
                             "one draw of Dir(alpha + r n) with Delta_2 = sqrt(2) r, Delta_inf = r (replace-one)")],
    notes=(
        "Encoded from the author's code (utils.alpha2epsilon, 'as in Theorem 1'); the PDF was not read. It is the "
        "curvature bound of geumlek2017.thm_expfam_rdp_curvature with the Dirichlet log-normaliser (check "
        "from_the_dirichlet_hessian) and, at K = 2, geumlek2017.alg_diffuse_concentrated_beta."
    ),
)


@THM1.add_check("from_the_dirichlet_hessian", "symbolic")
def _from_hessian():
    """The Dirichlet log-normaliser C(a) = sum log Gamma(a_k) - log Gamma(sum a_k) has Hessian diag(psi_1(a_k)) -
    psi_1(A) J (sympy, K = 3), so u^T Hess C u = sum u_k^2 psi_1(a_k) - psi_1(A) (sum u_k)^2 <= |u|^2 psi_1(min a)
    (psi_1 > 0 and decreasing). On the segments extrapolated to lambda every coordinate is >= alpha_min - (lambda - 1)
    Delta_inf; the curvature bound (geumlek2017.thm_expfam_rdp_curvature) at l = psi_1(that) is the conclusion."""
    a = sp.symbols("a0_var a1_var a2_var", positive=True)
    u = sp.symbols("u0_var u1_var u2_var", real=True)
    c = sum(sp.loggamma(x) for x in a) - sp.loggamma(sum(a))
    hess = sp.hessian(c, a)
    quad = sp.expand((sp.Matrix([u]) * hess * sp.Matrix(u))[0])
    target = sp.expand(sum(uk**2 * sp.polygamma(1, ak) for uk, ak in zip(u, a)) - sp.polygamma(1, sum(a)) * sum(u) ** 2)
    hessian_ok = sp.simplify(quad - target) == 0
    signs = sp.polygamma(1, a[0]).is_positive and sp.diff(sp.polygamma(1, a[0]), a[0]).is_negative
    general = THM_CURVATURE.conclusion["rdp"].subs(
        {THM_CURVATURE.symbols["curvature"]: sp.polygamma(1, a_min - (alpha - 1) * sensitivity_inf)})
    same = sp.simplify(general - THM1.conclusion["rdp"])
    ok = hessian_ok and signs is True and same == 0
    return ok, f"u^T H u identity {hessian_ok}; psi_1 > 0, decreasing {signs}; curvature bound - conclusion = {same}"


@THM1.add_check("beta_instance_is_geumlek_diffuse_posterior", "symbolic")
def _beta_instance():
    """At K = 2 with counts weighted by r (replace-one: Delta_2 = sqrt(2) r, Delta_inf = r) the conclusion is
    geumlek2017.alg_diffuse_concentrated_beta's rdp."""
    w = DIFFUSE_BETA.symbols["weight"]
    here = THM1.conclusion["rdp"].subs({sensitivity: sp.sqrt(2) * w, sensitivity_inf: w})
    diff = sp.simplify(here - DIFFUSE_BETA.conclusion["rdp"])
    return diff == 0, f"Theorem 1 at K = 2 - Geumlek beta bound = {diff}"


@THM1.add_check("exact_dirichlet_worst_case_below_bound", "numeric")
def _exact_below():
    """The exact RDP of Dir(alpha + r n) over every dataset of N records and every replacement (enumeration,
    dpverify.calculus.conjugate_renyi.dirichlet_categorical_worst_case) is <= the conclusion at Delta_2 = sqrt(2) r,
    Delta_inf = r, alpha_min = min prior, for K in {3, 4}, N in {1, 4, 12}, two priors, r in {1, 0.3} and orders at 10%,
    50%, 95% of the way to the maximum order."""
    worst = 0.0
    for prior in ((1.0, 1.0, 1.0), (0.5, 2.0, 3.0, 1.5)):
        for n in (1, 4, 12):
            for r in (1.0, 0.3):
                top = 1 + min(prior) / r
                for frac in (0.1, 0.5, 0.95):
                    lam = 1 + frac * (top - 1)
                    exact = dirichlet_categorical_worst_case(lam, n, prior, r).rdp
                    bound = THM1.evaluate(alpha=lam, a_min=min(prior), sensitivity=math.sqrt(2) * r,
                                          sensitivity_inf=r).rdp
                    worst = max(worst, exact / bound)
    return worst <= 1.0, f"max exact / bound = {worst:.4f}", 1.0, worst


def figure1_curves(concentrations) -> tuple[np.ndarray, np.ndarray]:
    """Figure 1 (left): ``(true, bound)`` at each symmetric prior concentration: the exact ``D_2(Dir(x1 + a) ||
    Dir(x2 + a))`` (the code's ``alpha2epsilon_evidence``) and the code's ``alpha2epsilon(a, 2, 1, 1)``
    ``= psi_1(a - 1)``."""
    a = np.atleast_1d(np.asarray(concentrations, dtype=float))
    x1 = np.asarray(FIGURE1_X1, dtype=float)
    x2 = x1 + np.eye(x1.size)[-1]
    true = np.array([float(dirichlet_renyi_divergence(2.0, x1 + v, x2 + v)) for v in a])
    return true, 0.5 * 2.0 * 1.0 * polygamma(1, a - 1.0)


@THM1.add_check("figure1_curves", "numeric")
def _figure1():
    """Figure 1 (left), the author's setting: at 80 priors alpha in [2, 20] the true epsilon (closed form) is below the
    bound, both decrease in alpha, the bound at alpha = 2 is psi_1(1) = pi^2/6 = 1.6449 and at alpha = 20 psi_1(19) =
    0.0540409, and the true epsilon lies in the plotted window [0.03, 1] from alpha = 3 on."""
    grid = np.linspace(2, 20, 80)
    true, bound = figure1_curves(grid)
    ev = [THM1.evaluate(alpha=2, a_min=v, sensitivity=1, sensitivity_inf=1).rdp for v in (2.0, 20.0)]
    ok = (np.all(true <= bound) and np.all(np.diff(true) < 0) and np.all(np.diff(bound) < 0)
          and abs(ev[0] - math.pi**2 / 6) < 1e-12 and abs(ev[1] - 0.0540409) < 1e-7
          and np.all((true[grid >= 3] >= 0.03) & (true[grid >= 3] <= 1)))
    return ok, f"bound at 2, 20: {ev[0]:.5f}, {ev[1]:.5f}; true at 2, 20: {true[0]:.5f}, {true[-1]:.5f}; " \
               f"max true / bound {np.max(true / bound):.4f}", math.pi**2 / 6, ev[0]


def _pins():
    out = []
    for lam, am, d2sq, dinf in ((2.0, 2.0, 1.0, 1.0), (3.5, 4.0, 2.0, 1.0), (1.4, 0.9, 0.18, 0.3)):
        typed = 0.5 * lam * d2sq * float(polygamma(1, am - (lam - 1) * dinf))  # the author's alpha2epsilon, typed again
        out.append(({"alpha": lam, "a_min": am, "sensitivity": math.sqrt(d2sq), "sensitivity_inf": dinf},
                    {"rdp": typed}))
    return out


THM1.add_pin(
    "pin_author_code",
    "rdp against the author's utils.alpha2epsilon typed again (0.5 lambda Delta_2sq polygamma(1, min_alphas - (lambda "
    "- 1) Delta_inf), scipy's polygamma) at three points, add/remove and replace-one sensitivities; rel 1e-12",
    _pins, rel=1e-12)

THEOREMS: tuple[Theorem, ...] = (THM1,)
