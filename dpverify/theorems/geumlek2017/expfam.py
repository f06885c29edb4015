"""Geumlek, Song, Chaudhuri 2017, Section 3: the Rényi divergence of two exponential-family posteriors, and the RDP of
one posterior draw from a curvature bound on the log-normaliser (both reconstructed: see
:mod:`dpverify.theorems.geumlek2017.common`).

**Setting.** A likelihood in an exponential family with a conjugate prior has posteriors
``p(theta | eta) = exp(<eta, T(theta)> - C(eta))`` in one family, indexed by the posterior parameter ``eta`` (prior
parameter plus the data's summed sufficient statistics). Neighbouring datasets give parameters ``eta_1, eta_2`` at a
distance ``|eta_1 - eta_2| <= Delta``.

- ``geumlek2017.lem_expfam_renyi`` -- ``int p_1^lam p_2^(1 - lam) = exp(C(lam eta_1 + (1 - lam) eta_2) - lam C(eta_1)
  - (1 - lam) C(eta_2))`` (the integrand is an unnormalised member of the family), hence
  ``D_lam(p_1 || p_2) = [C(eta_2 + lam (eta_1 - eta_2)) - lam C(eta_1) + (lam - 1) C(eta_2)] / (lam - 1)``, infinite
  when ``eta_2 + lam (eta_1 - eta_2)`` leaves the natural parameter space. Encoded for the beta family
  (``C = log B``, the beta-Bernoulli posterior), the instance the samplers use.
- ``geumlek2017.thm_expfam_rdp_curvature`` -- with ``f(t) = C(eta_2 + t u)``, ``u = eta_1 - eta_2``, the numerator is
  ``f(lam) - lam f(1) + (lam - 1) f(0) = int_0^lam K(t) f''(t) dt`` with the Peano kernel ``K(t) = (lam - 1) t`` on
  [0, 1], ``lam - t`` on [1, lam], ``K >= 0`` and ``int K = lam (lam - 1)/2``. So if ``u^T Hess C u <= l |u|^2`` on
  the extrapolated segments ``{eta_2 + t u : 0 <= t <= lam}``, one posterior draw is ``(lam, lam l Delta^2 / 2)``-RDP;
  equality for a Gaussian posterior (quadratic ``C``).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy import integrate
from scipy.special import polygamma

from dpverify.calculus.conjugate_renyi import beta_bernoulli_worst_case, beta_renyi_divergence_quadrature
from dpverify.theorems.base import Hypothesis, Theorem
from dpverify.theorems.geumlek2017.common import SYMBOLS, log_beta, source

__all__ = ["THEOREMS", "LEM_RENYI", "THM_CURVATURE", "RENYI_BETA", "gaussian_renyi_quadrature"]

alpha, a_1, b_1, a_2, b_2 = (SYMBOLS[n] for n in ("alpha", "a_1", "b_1", "a_2", "b_2"))
curvature, sensitivity = SYMBOLS["curvature"], SYMBOLS["sensitivity"]

#: The mixture parameters ``a_2 + alpha (a_1 - a_2)``, ``b_2 + alpha (b_1 - b_2)`` and the beta Rényi divergence.
MIX_A = a_2 + alpha * (a_1 - a_2)
MIX_B = b_2 + alpha * (b_1 - b_2)
RENYI_BETA = (log_beta(MIX_A, MIX_B) - alpha * log_beta(a_1, b_1) + (alpha - 1) * log_beta(a_2, b_2)) / (alpha - 1)

LEM_RENYI = Theorem(
    "geumlek2017.lem_expfam_renyi",
    "Rényi divergence of two conjugate (beta) posteriors in closed form from the log-normaliser",
    source("Sec. 3, Rényi divergence of exponential-family posteriors (number not read)",
           "the identity the RDP analysis of exponential-family posterior sampling starts from", "R-high"),
    "rdp",
    symbols={k: SYMBOLS[k] for k in ("alpha", "a_1", "b_1", "a_2", "b_2")},
    hypotheses=[
        Hypothesis("order_above_one", sp.Gt(alpha, 1), "Rényi order lambda > 1"),
        Hypothesis("mixture_a_positive", sp.Gt(MIX_A, 0),
                   "a_2 + lambda (a_1 - a_2) > 0: otherwise the integral diverges at theta = 0 (D = inf)"),
        Hypothesis("mixture_b_positive", sp.Gt(MIX_B, 0),
                   "b_2 + lambda (b_1 - b_2) > 0: otherwise the integral diverges at theta = 1 (D = inf)"),
    ],
    conclusion={"rdp": RENYI_BETA},
    statement=(
        "For posteriors p(theta|eta) = exp(<eta, T(theta)> - C(eta)) of one exponential family, D_lambda(p(.|eta_1) || "
        "p(.|eta_2)) = [C(eta_2 + lambda (eta_1 - eta_2)) - lambda C(eta_1) + (lambda - 1) C(eta_2)] / (lambda - 1), "
        "infinite when eta_2 + lambda (eta_1 - eta_2) leaves the natural parameter space. For the beta posterior of "
        "the beta-Bernoulli model, C = log B: D_lambda(Beta(a_1, b_1) || Beta(a_2, b_2)) = [log B(m_a, m_b) - "
        "lambda log B(a_1, b_1) + (lambda - 1) log B(a_2, b_2)] / (lambda - 1), m = (a_2, b_2) + lambda ((a_1, b_1) - "
        "(a_2, b_2)). Keyword alpha is the paper's lambda."
    ),
    notes=(
        "Reconstructed (R-high): the exponential-family identity is standard and re-derived by the checks; its number "
        "in the paper was not read. The Dirichlet version (dpverify.calculus.conjugate_renyi) reduces to this one for "
        "neighbouring datasets (check dirichlet_pair_reduces_to_beta)."
    ),
)


@LEM_RENYI.add_check("integrand_is_an_unnormalised_beta", "symbolic")
def _lem_integrand():
    """Geumlek Sec. 3 (reconstructed): p_1^lam p_2^(1 - lam) with p_i = theta^(a_i - 1) (1 - theta)^(b_i - 1) / B_i is
    theta^(m_a - 1) (1 - theta)^(m_b - 1) / (B_1^lam B_2^(1 - lam)), so its integral is B(m_a, m_b) / (B_1^lam
    B_2^(1 - lam)) (the beta function's definition, B = Gamma Gamma / Gamma), and log of it over (lam - 1) is the
    conclusion."""
    th = sp.Symbol("theta_var", positive=True)
    B1, B2 = sp.symbols("B_one B_two", positive=True)
    log_p = lambda a, b, B: (a - 1) * sp.log(th) + (b - 1) * sp.log(1 - th) - sp.log(B)  # noqa: E731
    log_integrand = alpha * log_p(a_1, b_1, B1) + (1 - alpha) * log_p(a_2, b_2, B2)
    target = (MIX_A - 1) * sp.log(th) + (MIX_B - 1) * sp.log(1 - th) - alpha * sp.log(B1) - (1 - alpha) * sp.log(B2)
    exponent_ok = sp.expand(log_integrand - target) == 0
    p, q = sp.symbols("p_var q_var", positive=True)
    beta_ok = sp.simplify(sp.beta(p, q).rewrite(sp.gamma) - sp.gamma(p) * sp.gamma(q) / sp.gamma(p + q)) == 0
    log_integral = log_beta(MIX_A, MIX_B) - alpha * log_beta(a_1, b_1) - (1 - alpha) * log_beta(a_2, b_2)
    conclusion_ok = sp.simplify(log_integral / (alpha - 1) - LEM_RENYI.conclusion["rdp"]) == 0
    ok = exponent_ok and beta_ok and conclusion_ok
    return ok, f"exponent identity {exponent_ok}, B = Gamma Gamma / Gamma {beta_ok}, D = log(integral)/(lam - 1) {conclusion_ok}"


@LEM_RENYI.add_check("order_one_limit_is_kl", "symbolic")
def _lem_kl():
    """The numerator F(lam) = (lam - 1) D_lam vanishes at lam = 1, so D_1 = F'(1) (l'Hôpital); sympy's F'(1) equals the
    beta KL divergence log B(a_2, b_2) - log B(a_1, b_1) + (a_1 - a_2) psi(a_1) + (b_1 - b_2) psi(b_1) - (a_1 - a_2 +
    b_1 - b_2) psi(a_1 + b_1)."""
    numerator = sp.expand(LEM_RENYI.conclusion["rdp"] * (alpha - 1))
    at_one = sp.simplify(numerator.subs(alpha, 1))
    slope = sp.simplify(sp.diff(numerator, alpha).subs(alpha, 1))
    kl = (log_beta(a_2, b_2) - log_beta(a_1, b_1) + (a_1 - a_2) * sp.digamma(a_1) + (b_1 - b_2) * sp.digamma(b_1)
          - (a_1 - a_2 + b_1 - b_2) * sp.digamma(a_1 + b_1))
    ok = at_one == 0 and sp.simplify(slope - kl) == 0
    return ok, f"F(1) = {at_one}; F'(1) - KL = {sp.simplify(slope - kl)}"


@LEM_RENYI.add_check("dirichlet_pair_reduces_to_beta", "symbolic")
def _lem_dirichlet():
    """The Dirichlet form (C = sum log Gamma(a_k) - log Gamma(sum a_k)) for a_1 = (x, y, z), a_2 = (x - s, y + s, z) --
    one record of weight s moved from category 1 to 2 -- equals the beta form at (x, y) vs (x - s, y + s): the third
    coordinate and the total cancel."""
    x, y, z, s = sp.symbols("x_var y_var z_var s_var", positive=True)

    def c_dir(v):
        return sum(sp.loggamma(sp.expand(t)) for t in v) - sp.loggamma(sp.expand(sum(v)))

    v1, v2 = (x, y, z), (x - s, y + s, z)
    mix = tuple(t2 + alpha * (t1 - t2) for t1, t2 in zip(v1, v2))
    dirichlet = (c_dir(mix) - alpha * c_dir(v1) + (alpha - 1) * c_dir(v2)) / (alpha - 1)
    beta = LEM_RENYI.conclusion["rdp"].subs({a_1: x, b_1: y, a_2: x - s, b_2: y + s}, simultaneous=True)
    diff = sp.simplify(sp.expand(dirichlet - beta))
    return diff == 0, f"Dirichlet - beta = {diff}"


#: Grid of (alpha, a_1, b_1, a_2, b_2) for the quadrature check: neighbouring beta posteriors (one record moved, weight
#: r) and arbitrary pairs, orders from just above 1 to 12.
def _quadrature_grid() -> list[tuple[float, float, float, float, float]]:
    rng = np.random.default_rng(2017)
    out = []
    for _ in range(12):
        lam, a, b, r = rng.uniform(1.05, 12.0), rng.uniform(0.5, 40.0), rng.uniform(0.5, 40.0), rng.uniform(0.05, 1.0)
        if a > (lam - 1) * r + 0.05:
            out.append((lam, a, b, a - r, b + r))
        out.append((lam, a, b, rng.uniform(0.5, 40.0), rng.uniform(0.5, 40.0)))
    return [p for p in out if p[3] > 0 and p[1] * p[0] - (p[0] - 1) * p[3] > 0.05 and p[2] * p[0] - (p[0] - 1) * p[4] > 0.05]


@LEM_RENYI.add_check("closed_form_against_quadrature", "numeric")
def _lem_quad():
    """The conclusion at ~20 random finite points (neighbouring posteriors and arbitrary pairs, orders 1.05-12) against
    numerical integration of p_1^lam p_2^(1 - lam) (dpverify.calculus.conjugate_renyi.beta_renyi_divergence_quadrature,
    scipy quad in the logit variable); relative tolerance 1e-8 (quad's relative accuracy is ~1e-13 on the integral,
    ~1e-11 on D at these points)."""
    worst = 0.0
    for lam, a1, b1, a2, b2 in _quadrature_grid():
        got = LEM_RENYI.evaluate(alpha=lam, a_1=a1, b_1=b1, a_2=a2, b_2=b2).rdp
        want = beta_renyi_divergence_quadrature(lam, a1, b1, a2, b2)
        worst = max(worst, abs(got - want) / want)
    return worst < 1e-8, f"max relative error {worst:.2e} over {len(_quadrature_grid())} points", 0.0, worst


@LEM_RENYI.add_check("infinite_outside_the_parameter_space", "numeric")
def _lem_inf():
    """Where a_2 + lam (a_1 - a_2) <= 0 the integrand ~ theta^(m_a - 1) is not integrable at 0: the truncated integrals
    over [t, 1] of p_1^lam p_2^(1 - lam) grow without bound as t -> 0 (each decade of t adds at least the previous
    decade's mass), for Beta(1, 5) vs Beta(2, 4) at lam = 2 (m_a = 0)."""
    a1, b1, a2, b2, lam = 1.0, 5.0, 2.0, 4.0, 2.0
    dens = lambda t: math.exp(lam * ((a1 - 1) * math.log(t) + (b1 - 1) * math.log1p(-t) + math.log(30.0))  # noqa: E731
                              + (1 - lam) * ((a2 - 1) * math.log(t) + (b2 - 1) * math.log1p(-t) + math.log(20.0)))
    pieces = [integrate.quad(dens, 10.0 ** -(k + 1), 10.0 ** -k)[0] for k in range(1, 8)]
    growing = all(p2 >= 0.9 * p1 for p1, p2 in zip(pieces, pieces[1:]))
    hyp = LEM_RENYI.check_hypotheses(alpha=lam, a_1=a1, b_1=b1, a_2=a2, b_2=b2)
    ok = growing and hyp["mixture_a_positive"] is False and beta_renyi_divergence_quadrature(lam, a1, b1, a2, b2) == math.inf
    return ok, f"mass per decade {['%.3g' % p for p in pieces]}; hypotheses {hyp}"


def _quadrature_pins():
    return [({"alpha": lam, "a_1": a1, "b_1": b1, "a_2": a2, "b_2": b2},
             {"rdp": beta_renyi_divergence_quadrature(lam, a1, b1, a2, b2)})
            for lam, a1, b1, a2, b2 in ((2.0, 3.0, 7.0, 4.0, 6.0), (5.5, 12.0, 1.8, 11.5, 2.0), (1.2, 0.6, 2.5, 2.0, 1.0))]


LEM_RENYI.add_pin(
    "pin_quadrature",
    "rdp against numerical integration of p_1^lambda p_2^(1 - lambda) in the logit variable (scipy quad, beta densities "
    "written out) at three points; rel 1e-9 (quad's error on D is ~1e-11 here)",
    _quadrature_pins, rel=1e-9)


# --------------------------------------------------------------------------------------------- the curvature bound
THM_CURVATURE = Theorem(
    "geumlek2017.thm_expfam_rdp_curvature",
    "One exponential-family posterior draw is (lambda, lambda l Delta^2 / 2)-RDP under a curvature bound l",
    source("Sec. 3, RDP of exponential-family posterior sampling (number and exact form not read)",
           "the general RDP bound of one posterior draw", "UNCERTAIN"),
    "rdp",
    symbols={k: SYMBOLS[k] for k in ("alpha", "curvature", "sensitivity")},
    hypotheses=[Hypothesis("order_above_one", sp.Gt(alpha, 1), "Rényi order lambda > 1")],
    conclusion={"rdp": alpha * curvature * sensitivity**2 / 2},
    statement=(
        "Let neighbouring datasets give posterior parameters with |eta_1 - eta_2| <= Delta, and let u^T Hess C(eta) u <= "
        "l |u|^2 at every eta = eta_2 + t (eta_1 - eta_2), 0 <= t <= lambda (the segment extrapolated to lambda, which must "
        "stay in the natural parameter space). Then releasing one draw of the posterior is (lambda, lambda l Delta^2 / 2)-"
        "RDP. Keywords: alpha = lambda, curvature = l, sensitivity = Delta."
    ),
    notes=(
        "Reconstructed, confidence UNCERTAIN: proved here (Peano kernel of the second difference), but whether the paper "
        "states its general theorem in this form is not confirmed. Equality for a Gaussian posterior (quadratic C). For "
        "the beta-Bernoulli posterior l = psi_1(a_min - (lambda - 1) r), Delta^2 = 2 r^2 "
        "(geumlek2017.alg_diffuse_concentrated_beta)."
    ),
)


@THM_CURVATURE.add_check("second_difference_peano_kernel", "symbolic")
def _thm_peano():
    """f(lam) - lam f(1) + (lam - 1) f(0) = int_0^lam K f'' for K = (lam - 1) t on [0, 1] and lam - t on [1, lam]
    (checked on a generic quartic f with symbolic coefficients; integration by parts gives it for every C^2 f),
    K >= 0 on [0, lam] and int K = lam (lam - 1)/2; hence (lam - 1) D_lam <= lam (lam - 1)/2 sup f'', and
    f'' = u^T Hess C u <= l Delta^2 gives the conclusion."""
    t = sp.Symbol("t_var", real=True)
    lam = sp.Symbol("lam_var", positive=True)
    c = sp.symbols("c0:5", real=True)
    f = sum(ck * t**k for k, ck in enumerate(c))
    left = sp.integrate((lam - 1) * t * sp.diff(f, t, 2), (t, 0, 1))
    right = sp.integrate((lam - t) * sp.diff(f, t, 2), (t, 1, lam))
    identity = sp.expand(left + right - (f.subs(t, lam) - lam * f.subs(t, 1) + (lam - 1) * f.subs(t, 0))) == 0
    mass = sp.simplify(sp.integrate((lam - 1) * t, (t, 0, 1)) + sp.integrate(lam - t, (t, 1, lam)) - lam * (lam - 1) / 2)
    bound = sp.simplify(lam * (lam - 1) / 2 * curvature * sensitivity**2 / (lam - 1)
                        - THM_CURVATURE.conclusion["rdp"].subs(alpha, lam))
    ok = identity and mass == 0 and bound == 0
    return ok, f"Peano identity {identity}; int K - lam(lam-1)/2 = {mass}; bound - conclusion = {bound}"


@THM_CURVATURE.add_check("gaussian_posterior_attains_it", "symbolic")
def _thm_gauss():
    """A Gaussian posterior N(mu, s^2) has natural parameter eta = mu / s^2 and C(eta) = s^2 eta^2 / 2 + log(2 pi s^2)/2:
    C'' = s^2 everywhere, and the exponential-family formula gives D_lam = lam s^2 (eta_1 - eta_2)^2 / 2 = lam (mu_1 -
    mu_2)^2 / (2 s^2) -- the conclusion at l = s^2, Delta = |eta_1 - eta_2|, with equality."""
    e1, e2 = sp.symbols("eta_one eta_two", real=True)
    s2 = sp.Symbol("s2_var", positive=True)
    lam = alpha

    def c(eta):
        return s2 * eta**2 / 2 + sp.log(2 * sp.pi * s2) / 2

    renyi = sp.simplify((c(e2 + lam * (e1 - e2)) - lam * c(e1) + (lam - 1) * c(e2)) / (lam - 1))
    bound = THM_CURVATURE.conclusion["rdp"].subs({curvature: sp.diff(c(e1), e1, 2), sensitivity: e1 - e2})
    m1, m2 = sp.symbols("mu_one mu_two", real=True)
    known = lam * (m1 - m2) ** 2 / (2 * s2)
    ok = sp.simplify(renyi - bound) == 0 and sp.simplify(renyi.subs({e1: m1 / s2, e2: m2 / s2}) - known) == 0
    return ok, f"D_lam = {renyi}; bound = {bound}"


@THM_CURVATURE.add_check("beta_bernoulli_exact_below_bound", "numeric")
def _thm_beta():
    """On the beta-Bernoulli posterior Beta(a + r n1, b + r n0): the exact worst case over all datasets of N records and
    replacements (dpverify.calculus.conjugate_renyi.beta_bernoulli_worst_case) is <= the conclusion with Delta^2 = 2 r^2
    and l = psi_1(a_min - (lam - 1) r) (the largest beta curvature on the extrapolated segments), on a grid of N, prior,
    r and orders below 1 + a_min/r."""
    worst = 0.0
    for n in (1, 3, 10, 40):
        for a0, b0 in ((1.0, 1.0), (2.0, 0.7), (5.0, 5.0)):
            for r in (1.0, 0.4, 0.1):
                top = 1 + min(a0, b0) / r
                for lam in (1.1, 1 + 0.5 * (top - 1), 1 + 0.95 * (top - 1)):
                    exact = beta_bernoulli_worst_case(lam, n, a0, b0, r).rdp
                    l_value = float(polygamma(1, min(a0, b0) - (lam - 1) * r))
                    bound = THM_CURVATURE.evaluate(alpha=lam, curvature=l_value, sensitivity=math.sqrt(2) * r).rdp
                    worst = max(worst, exact / bound)
    return worst <= 1.0, f"max exact / bound = {worst:.4f}", 1.0, worst


def gaussian_renyi_quadrature(order: float, mu1: float, mu2: float, s: float) -> float:
    """``D_order(N(mu1, s^2) || N(mu2, s^2))`` by scipy quad of ``p_1^order p_2^(1 - order)`` (for the pins)."""
    def integrand(x: float) -> float:
        return math.exp(-(order * (x - mu1) ** 2 + (1 - order) * (x - mu2) ** 2) / (2 * s * s)) / math.sqrt(2 * math.pi * s * s)

    centre = order * mu1 + (1 - order) * mu2
    total = sum(integrate.quad(integrand, lo, hi, epsabs=0.0, epsrel=1e-13, limit=200)[0]
                for lo, hi in ((-math.inf, centre - 5 * s), (centre - 5 * s, centre + 5 * s), (centre + 5 * s, math.inf)))
    return math.log(total) / (order - 1)


def _gauss_pins():
    out = []
    for lam, m1, m2, s in ((2.0, 0.3, -0.5, 1.3), (7.5, 1.0, 0.8, 0.4)):
        out.append(({"alpha": lam, "curvature": s * s, "sensitivity": abs(m1 - m2) / (s * s)},
                    {"rdp": gaussian_renyi_quadrature(lam, m1, m2, s)}))
    return out


THM_CURVATURE.add_pin(
    "pin_gaussian_equality",
    "rdp at l = s^2, Delta = |mu_1 - mu_2| / s^2 against the Rényi divergence of N(mu_1, s^2) and N(mu_2, s^2) by "
    "numerical integration (the Gaussian posterior attains the bound); rel 1e-9",
    _gauss_pins, rel=1e-9)


THEOREMS: tuple[Theorem, ...] = (LEM_RENYI, THM_CURVATURE)
