"""Bok, Su, Altschuler 2024: the Gaussian-DP of noisy gradient descent's last iterate (shifted interpolation).

J. Bok, W. Su, J. M. Altschuler, "Shifted Interpolation for Differential Privacy", ICML 2024 (arXiv:2403.00278).

**Setting (as encoded).** ``n`` records, mean loss ``F_D(theta) = (1/n) sum_i l(theta; x_i)``; replace-one adjacency;
``S_g = sup_{theta, x, x'} ||grad l(theta; x) - grad l(theta; x')||`` the gradient gap of one record, so the mean
gradients of adjacent datasets differ by at most ``S_g / n`` (``S_g / b`` for a batch of ``b`` records). Noisy GD
(NoisyGD) releases only the last iterate of

    theta_{k+1} = Pi_K(theta_k - eta (grad F_D(theta_k) + Z_{k+1})),      Z_{k+1} ~ N(0, sigma^2 I_d),

from a data-independent start (``Pi_K`` the projection on a closed convex set, the identity when unconstrained). One
step is the Gaussian mechanism with GDP parameter ``S_g / (n sigma)``; composition over ``t`` steps gives
``sqrt(t) S_g / (n sigma)``, which diverges. Shifted interpolation gives bounds that converge in ``t``:

- :data:`THM_SC` (``bok2024.thm_noisy_gd_strongly_convex_gdp``): ``m``-strongly convex, ``M``-smooth losses, step
  ``eta <= 2/(M + m)`` (so the gradient step contracts by ``c = max(|1 - eta m|, |1 - eta M|) = 1 - eta m``):
  ``mu = S_g/(n sigma) sqrt((1 + c)/(1 - c) (1 - c^t)/(1 + c^t))``, increasing to ``S_g/(n sigma) sqrt((1 + c)/(1
  - c))``. Exact on the quadratic ``l = m |theta|^2 / 2 - <x, theta>`` (the paper's "first exact privacy analysis in
  the foundational setting of strongly convex optimization");
- :data:`THM_CYCLIC` (``bok2024.thm_noisy_cgd_strongly_convex_gdp``): the same losses with cyclic batches (NoisyCGD:
  ``l = n / b`` batches of ``b`` records visited in a fixed order, ``E`` epochs, ``t = l E`` steps):
  ``mu = S_g/(b sigma) sqrt(1 + c^{2l - 2} (1 - c^2)/(1 - c^l)^2 (1 - c^{l(E - 1)})/(1 + c^{l(E - 1)}))``;
- :data:`THM_CONVEX` (``bok2024.thm_noisy_gd_constrained_convex_gdp``): convex ``M``-smooth losses on a convex set of
  diameter ``D``, ``eta <= 2/M``: ``mu = min(sqrt(t) S_g/(n sigma), mu_star)`` with ``mu_star = (1/sigma) sqrt(3 D
  S_g/(n eta) + (S_g/n)^2 ceil(D n/(S_g eta)))`` -- constant from ``t* = ceil(mu_star^2 n^2 sigma^2 / S_g^2)`` on.

**What the encoding rests on (read it before trusting the constants).** The paper's own pages could not be read
here: the stored copies of the arXiv HTML (v2) and of the ICML text give the abstract, the table of contents and the
introduction only. The text read: those, and the authors' public code for the paper (github.com/jinhobok/
shifted_interpolation_dp, commit a771c1631766555cba700bb141d587d04896d572, "a repository for reproducing the
numerical results in the paper"), whose scripts compute the three bounds:

- ``plot_table_ngd_fdp.py`` (Figures 6-7, Tables 7-8): strongly convex NoisyGD
  ``np.sqrt((1-c**t) / (1+c**t) * (1 + c) / (1 - c)) * mu`` with ``mu = L/(n sigma)`` (the table caption), set
  against "GDP composition" ``np.sqrt(t) * mu``; constrained convex NoisyGD (``D = 1``, ``mu = L/n``) ``np.sqrt(3*mu/eta
  + mu**2 * np.ceil(1/(mu * eta))) / sigma`` against ``mu / sigma * np.sqrt(t)``;
- ``plot_table_ncgd_fdp.py`` and ``table_privacy_lr.py``: strongly convex NoisyCGD ``np.sqrt(1 + c**(2*l - 2)*
  (1-c**2)/((1-c**l)**2) * (1 - c**(l*(E-1))) / (1 + c**(l*(E-1)))) * mu`` with ``mu = L/(b sigma)``.

Points a reader of the published text should confirm:

- *the sensitivity convention*: in every script the per-step GDP parameter is ``L/(n sigma)`` ("GDP composition"
  is ``sqrt(t) L/(n sigma)``), so the paper's ``L`` plays the role of the gradient gap of one record, encoded here as
  ``S_g`` (a loss that is L-Lipschitz in the usual sense has ``S_g = 2L`` under replace-one). With ``S_g`` the gap,
  the strongly convex bound is *exactly* the privacy of noisy GD on a quadratic (check ``exact_on_quadratics``), and
  with half of it the bound would fall below the exact value (the mutation test in tests/test_bok2024.py) -- so
  the convention encoded is the one the proof supports;
- *the step size*: the scripts take ``c`` as given; ``c = max(|1 - eta m|, |1 - eta M|)`` is the contraction factor
  of a gradient step on an m-strongly convex M-smooth function, equal to ``1 - eta m`` exactly when ``eta <= 2/(M +
  m)``, the hypothesis encoded (check ``contraction_factor``);
- *the constrained convex bound*: the scripts print ``mu_star`` as "our bound, t >= t*" with ``D = 1``; the
  dimensionally consistent form for a diameter ``D`` is the one above (it is ``min_nu (D/eta + nu S_g/n)^2 / (nu
  sigma^2)`` -- ``nu`` steps each moving the interpolated process by ``D/nu`` plus the gradient gap -- bounded at
  ``nu = ceil(D n / (S_g eta))``, check ``constrained_from_shift_budget``); the catalogue symbol ``R`` is the radius of
  a ball, so ``D = 2R``;
- *the neighbouring relation*: replace-one (a gradient gap between two records).

Keyword names (``Theorem.evaluate``): ``S_g`` (gradient gap of one record), ``N`` (the paper's n), ``tau`` (the
batch size b), ``T`` (the epochs E; the catalogue's T_passes), ``sigma`` (the gradient noise), ``eta`` (step size), ``m``, ``M``
(strong convexity, smoothness), ``k`` (the number of steps t), ``R`` (half the diameter D).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem
from dpverify.theorems.chourasia2021 import noisy_gd_rdp_bound
from dpverify.validation import check_positive_int

__all__ = ["THEOREMS", "THM_SC", "THM_CYCLIC", "THM_CONVEX", "noisy_gd_gdp", "noisy_gd_exact_mu",
           "noisy_cgd_gdp", "noisy_cgd_exact_mu", "constrained_gdp", "AUTHOR_REPO", "AUTHOR_COMMIT"]

#: The authors' public code the encoding was checked against.
AUTHOR_REPO = "github.com/jinhobok/shifted_interpolation_dp"
AUTHOR_COMMIT = "a771c1631766555cba700bb141d587d04896d572"

SYMBOLS = sy.pick("S_g", "N", "sigma", "eta", "m", "M", "k")
S_g, N, sigma, eta, m, M, k = (SYMBOLS[x] for x in ("S_g", "N", "sigma", "eta", "m", "M", "k"))
_c = 1 - eta * m  # the contraction factor under the step-size hypothesis


#: ``y = -log c > 0``: the powers of c are written through hyperbolic functions of ``y`` (the same functions for
#: 0 < c < 1), which sympy keeps as they are; ``(1 - eta m)^t`` (or ``exp(t log c)``, which sympy turns into it for an
#: integer t) takes seconds to evaluate when the inputs are substituted one at a time.
_y = -sp.log(_c)


def _as_powers(expr):
    """``expr`` with every hyperbolic function of ``a`` written with exponentials (``tanh(a) = (1 - e^{-2a})/(1 +
    e^{-2a})``, ``sinh``, ``cosh``), for the symbolic checks."""
    return (expr.replace(sp.tanh, lambda a: (1 - sp.exp(-2 * a)) / (1 + sp.exp(-2 * a)))
            .replace(sp.sinh, lambda a: (sp.exp(a) - sp.exp(-a)) / 2)
            .replace(sp.cosh, lambda a: (sp.exp(a) + sp.exp(-a)) / 2))


MU_STEP = S_g / (N * sigma)
#: (1 - c^t)/(1 + c^t) = tanh(-t log(c)/2): written so, sympy keeps it (exp(t log c) with an integer t collapses to
#: (1 - eta m)^t, whose substitution expands slowly)
MU_SC = MU_STEP * sp.sqrt((1 + _c) / (1 - _c) * sp.tanh(k * _y / 2))
MU_SC_LIMIT = MU_STEP * sp.sqrt((1 + _c) / (1 - _c))

_SOURCE_NOTE = ("the theorem's page was not read: the formula is the authors' code, see the module docstring")

THM_SC = Theorem(
    "bok2024.thm_noisy_gd_strongly_convex_gdp",
    "Noisy GD's last iterate on strongly convex smooth losses is mu-GDP with mu converging in t (exact on quadratics)",
    Source("bok2024", "Section 4, NoisyGD, strongly convex case", _SOURCE_NOTE, reconstructed=True,
           confidence="R-high"),
    "privacy",
    symbols=SYMBOLS,
    hypotheses=[
        Hypothesis("m_at_most_M", sp.Le(m, M), "strong convexity m <= smoothness M"),
        Hypothesis("step_size", sp.Le(eta, 2 / (M + m)), "eta <= 2/(M + m): then c = max|1 - eta lambda| = 1 - eta m"),
        Hypothesis("contraction_positive", sp.Lt(eta * m, 1),
                   "eta m < 1, i.e. c > 0 (the encoding's c^t = exp(t log c); c = 0 needs m = M and eta = 1/m: one "
                   "step reaches the minimiser and mu = mu_step)"),
    ],
    conclusion={"mu": MU_SC, "mu_limit": MU_SC_LIMIT, "mu_step": MU_STEP},
    statement=(
        "Losses l(.; x) m-strongly convex and M-smooth, gradient gap S_g = sup ||grad l(theta; x) - grad l(theta; x')||; "
        "NoisyGD theta_{k+1} = Pi_K(theta_k - eta (grad F_D(theta_k) + N(0, sigma^2 I))) from a data-independent start, "
        "eta <= 2/(M + m), c = 1 - eta m, releases theta_t, which is mu-GDP under replace-one adjacency with mu = "
        "S_g/(n sigma) sqrt((1 + c)/(1 - c) (1 - c^t)/(1 + c^t)), increasing to mu_limit = S_g/(n sigma) sqrt((1 + c)/"
        "(1 - c)); mu_step = S_g/(n sigma) is one step's Gaussian mechanism. Keywords: N = n, k = t."
    ),
    empirical=[EmpiricalLink("noisy_gd_last_iterate", "audits/test_noisy_gd_last_iterate.py",
                             "noisy GD on GaussianTarget's per-record loss (quadratic): exact Gaussian final law")],
    notes=(
        "Encoded from the authors' code (plot_table_ngd_fdp.py; the theorem's page was not read). Exact on quadratics "
        "whose curvature is m in the leaking direction (check exact_on_quadratics); the RDP it implies, alpha mu^2/2, "
        "is 1.57 to 4 times below chourasia2021.thm2_noisy_gd_rdp on the same chain (check "
        "tighter_than_chourasia2021)."
    ),
)


# --------------------------------------------------------------------------------------------- numpy forms
def _arr(name: str, value, *, low: float = 0.0, inclusive: bool = False) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    ok = np.isfinite(a) & ((a >= low) if inclusive else (a > low))
    if not np.all(ok):
        raise ValueError(f"{name} must be finite and {'>=' if inclusive else '>'} {low:g}; got {value!r}")
    return a


def noisy_gd_gdp(S_g_, N_, sigma_, c_, k_):
    """The strongly convex bound ``S_g/(N sigma) sqrt((1 + c)/(1 - c) (1 - c^k)/(1 + c^k))`` (numpy, broadcasting;
    ``c`` in [0, 1) the contraction factor; at ``c = 1`` its limit ``sqrt(k) S_g/(N sigma)``, composition)."""
    c = _arr("c", c_, inclusive=True)
    if np.any(c > 1):
        raise ValueError(f"c must be in [0, 1]; got {c_!r}")
    kk = _arr("k", k_)
    base = _arr("S_g", S_g_) / (_arr("N", N_) * _arr("sigma", sigma_))
    with np.errstate(divide="ignore", invalid="ignore"):
        # (1 - c^k)/(1 - c) = sum_{j<k} c^j, computed as -expm1(k log c)/-expm1(log c) away from c = 1
        ratio = np.where(c < 1, np.expm1(kk * np.log(np.where(c < 1, c, 0.5))) / np.expm1(np.log(np.where(c < 1, c, 0.5)))
                         * (1 + c) / (1 + c**kk), kk)
    return base * np.sqrt(ratio)


def noisy_gd_exact_mu(S_g_, N_, sigma_, eta_, lam, k_: int, init_variance=0.0):
    """Exact GDP parameter of noisy GD's last iterate on the one-dimensional quadratic ``l(theta; x) = lam theta^2/2 -
    x theta`` with ``|x - x'| <= S_g`` (the leaking direction of any quadratic): step ``theta -> rho theta + eta xbar +
    eta sigma xi`` with ``rho = 1 - eta lam`` (any sign), so the two final laws are Gaussians with a common variance
    ``V_k = rho^{2k} v_0 + eta^2 sigma^2 sum_{j<k} rho^{2j}`` and mean gap ``G_k = (eta S_g/N) sum_{j<k} rho^j``:
    ``mu = G_k / sqrt(V_k)``. Computed by iterating the two recursions (not from a closed form), vectorised over the
    broadcast parameters; ``init_variance`` ``v_0`` of a Gaussian start (0: a fixed start)."""
    e, s2 = _arr("eta", eta_), _arr("sigma", sigma_) ** 2
    lam_ = np.asarray(lam, dtype=float)
    if not np.all(np.isfinite(lam_)):
        raise ValueError(f"lam must be finite; got {lam!r}")
    gap_step = _arr("S_g", S_g_, inclusive=True) * e / _arr("N", N_)
    steps = check_positive_int(k_, "k")
    rho = 1.0 - e * lam_
    var = _arr("init_variance", init_variance, inclusive=True) + np.zeros(np.broadcast(gap_step, rho, s2).shape)
    gap = np.zeros_like(var)
    for _ in range(steps):  # a loop over the chain's steps, vectorised over the parameters
        gap = rho * gap + gap_step
        var = rho * rho * var + e * e * s2
    out = gap / np.sqrt(var)
    return float(out) if out.ndim == 0 else out


# --------------------------------------------------------------------------------------------- checks
@THM_SC.add_check("one_step_is_gaussian_mechanism", "symbolic",
                  "at t = 1 the bound is S_g/(n sigma), the GDP of one Gaussian step (gap eta S_g/n, noise eta sigma)")
def _():
    d = sp.simplify(_as_powers(MU_SC.subs(k, 1)) ** 2 - MU_STEP**2)
    return d == 0, f"mu(t = 1)^2 - (S_g/(n sigma))^2 = {d}"


@THM_SC.add_check("converges_to_mu_limit", "symbolic",
                  "mu increases strictly with t (c^t decreases: (1 - x)/(1 + x) decreases in x) to mu_limit")
def _():
    x = sp.Symbol("x", positive=True)
    g = (1 - x) / (1 + x)
    decreasing = sp.simplify(sp.diff(g, x) + 2 / (1 + x) ** 2) == 0
    cs = sp.Symbol("c_var", positive=True)
    expr = MU_STEP * sp.sqrt((1 + cs) / (1 - cs) * (1 - cs**k) / (1 + cs**k))
    lim = sp.limit(expr.subs(cs, sp.Rational(9, 10)), k, sp.oo)
    ok_lim = sp.simplify(lim - MU_SC_LIMIT.subs(eta * m, sp.Rational(1, 10)).subs(eta, sp.Rational(1, 10) / m)) == 0
    return decreasing and ok_lim, f"d/dx (1-x)/(1+x) = -2/(1+x)^2: {decreasing}; limit at c = 9/10: {lim}"


@THM_SC.add_check("convex_limit_is_composition", "symbolic",
                  "as m -> 0 (c -> 1, no contraction) mu^2 -> t S_g^2/(n sigma)^2: the bound becomes GDP composition")
def _():
    lim = sp.limit(MU_SC.subs(k, 7) ** 2, m, 0, "+")
    d = sp.simplify(lim - 7 * MU_STEP**2)
    return d == 0, f"lim_(m->0) mu(t = 7)^2 - 7 mu_step^2 = {d}"


@THM_SC.add_check("exact_on_quadratics_symbolic", "symbolic",
                  "on l = m theta^2/2 - x theta from a fixed start the last iterate is N(theta_D, V) with mean gap "
                  "G = (eta S_g/n)(1 - c^t)/(1 - c) and V = eta^2 sigma^2 (1 - c^2t)/(1 - c^2) (the geometric sums); "
                  "G/sqrt(V) is the conclusion: the bound is attained")
def _():
    ck = sp.exp(-k * _y)  # c^t
    gap = eta * S_g / N * (1 - ck) / (1 - _c)
    var = eta**2 * sigma**2 * (1 - ck**2) / (1 - _c**2)
    d = sp.simplify(sp.factor(gap**2 / var - _as_powers(MU_SC) ** 2))
    # the geometric sums themselves, at t = 3 (a finite check of the closed forms)
    rho = sp.Symbol("rho_var")
    sums = (sp.simplify(sum(rho**j for j in range(3)) - (1 - rho**3) / (1 - rho)) == 0
            and sp.simplify(sum(rho ** (2 * j) for j in range(3)) - (1 - rho**6) / (1 - rho**2)) == 0)
    return d == 0 and sums, f"G^2/V - mu^2 = {d}; geometric sums at t = 3: {sums}"


@THM_SC.add_check("contraction_factor", "symbolic",
                  "for eta <= 2/(M + m), max(|1 - eta m|, |1 - eta M|) = 1 - eta m: 1 - eta m >= 0 and "
                  "(1 - eta m) - (eta M - 1) = 2 - eta (M + m) >= 0")
def _():
    x = sp.Symbol("x_var", nonnegative=True)  # 2 - eta (M + m) >= 0
    eta_max = (2 - x) / (M + m)
    first = sp.simplify((1 - eta_max * m) - (eta_max * M - 1) - x) == 0
    second = sp.simplify(1 - eta_max * m - (M - m + x * m) / (M + m)) == 0  # >= 0 as m <= M
    return first and second, f"margin identities: {first}, {second}"


def _sc_grid():
    out = []
    for s in (0.5, 2.0):
        for n in (1, 40):
            for sg in (0.3, 1.7):
                for lm in (0.05, 1.0, 8.0):
                    for kappa in (1.0, 4.0):
                        for f in (0.02, 0.5, 0.97):  # eta as a fraction of 2/(M + m)
                            out.append((s, n, sg, lm, lm * kappa, f * 2 / (lm * (1 + kappa))))
    return out


@THM_SC.add_check("exact_on_quadratics", "numeric",
                  "noisy GD on the quadratic l = lam theta^2/2 - x theta (exact mu by the mean/variance recursion) "
                  "at 144 parameter points x 5 step counts (t = 1 .. 3000) and curvatures lam in {m, (m+M)/2, M}: "
                  "the bound is >= the exact mu everywhere, and equal to it at lam = m (rel 1e-9): the analysis is tight")
def _():
    s, n, sg, lm, LM, e = (np.array(col) for col in zip(*_sc_grid()))
    mu_of = sp.lambdify([S_g, N, sigma, eta, m, M, k], THM_SC.conclusion["mu"], "numpy")
    worst_ratio, worst_tight = np.inf, 0.0
    for k_ in (1, 2, 17, 300, 3000):
        bound = mu_of(s, n, sg, e, lm, LM, k_)  # the registered conclusion, lambdified
        for lam in (lm, (lm + LM) / 2, LM):
            exact = noisy_gd_exact_mu(s, n, sg, e, lam, k_)
            worst_ratio = min(worst_ratio, float(np.min(bound / exact)))
        tight = noisy_gd_exact_mu(s, n, sg, e, lm, k_)
        worst_tight = max(worst_tight, float(np.max(np.abs(bound / tight - 1))))
    ok = worst_ratio >= 1 - 1e-12 and worst_tight < 1e-9
    return ok, f"min bound/exact {worst_ratio:.12f}; max |bound/exact - 1| at lam = m: {worst_tight:.2e}", 0.0, \
        worst_tight


@THM_SC.add_check("tighter_than_chourasia2021", "numeric",
                  "the same chain in Chourasia et al.'s parametrisation (noise sqrt(2 eta sigma_C^2) = eta sigma, so "
                  "sigma_C^2 = eta sigma^2/2; their eta < 1/M): the RDP alpha mu^2/2 implied by mu-GDP is below "
                  "chourasia2021.thm2_noisy_gd_rdp at every point of a grid (t = 1 .. 10^5), by a factor in [1.5, 4); "
                  "as t -> infinity the factor is 4/(2 - eta m)")
def _():
    ratios = []
    for s, n, sg, lm, kappa, f in ((1.0, 10, 1.0, 0.5, 1.0, 0.9), (2.0, 3, 0.4, 2.0, 3.0, 0.5),
                                   (0.7, 50, 2.0, 0.01, 10.0, 0.99), (1.3, 1, 1.0, 1.0, 1.0, 0.1)):
        M_ = lm * kappa
        e = f / M_
        sig_c = math.sqrt(e * sg**2 / 2)
        for k_ in (1, 10, 1000, 100_000):
            mu = noisy_gd_gdp(s, n, sg, 1 - e * lm, k_)
            ratios.append(float(noisy_gd_rdp_bound(2.0, s, lm, sig_c, n, e, k_)) / (2.0 * mu * mu / 2))
    lo, hi = min(ratios), max(ratios)
    e, lm = 0.3, 1.0
    limit = float(noisy_gd_rdp_bound(3.0, 1.0, lm, math.sqrt(e / 2), 1, e, 10**7)) / (3.0 * float(
        noisy_gd_gdp(1.0, 1, 1.0, 1 - e * lm, 10**7)) ** 2 / 2)
    ok = lo >= 1.5 and hi < 4 and abs(limit - 4 / (2 - e * lm)) < 1e-9
    return ok, f"Chourasia RDP / (alpha mu^2/2) in [{lo:.4f}, {hi:.4f}]; at t = 1e7: {limit:.6f} vs 4/(2 - eta m) = " \
               f"{4 / (2 - e * lm):.6f}", 4 / (2 - e * lm), limit


def _sc_pins():
    """The authors' plot_table_ngd_fdp.py formula typed again: ``np.sqrt((1-c**t) / (1+c**t) * (1 + c) / (1 - c)) *
    mu`` with ``mu = S_g/(N sigma)`` and ``c = 1 - eta m``, at the script's c = 0.99 and t = 10, 100, 1000 (mu =
    0.1) and at two points with no parameter equal to 1."""
    out = []
    for sg, n, s, e, mm, MM, t in ((1.0, 10, 1.0, 0.01, 1.0, 1.0, 10), (1.0, 10, 1.0, 0.01, 1.0, 1.0, 100),
                                   (1.0, 10, 1.0, 0.01, 1.0, 1.0, 1000), (2.3, 7, 0.6, 0.13, 0.4, 1.9, 23),
                                   (0.45, 30, 1.7, 0.07, 2.5, 9.0, 4)):
        c = 1 - e * mm
        mu0 = sg / (n * s)
        out.append(({"S_g": sg, "N": n, "sigma": s, "eta": e, "m": mm, "M": MM, "k": t},
                    {"mu": np.sqrt((1 - c**t) / (1 + c**t) * (1 + c) / (1 - c)) * mu0,
                     "mu_limit": np.sqrt((1 + c) / (1 - c)) * mu0, "mu_step": mu0}))
    return out


THM_SC.add_pin("pin_author_code",
               f"mu, mu_limit and mu_step against the authors' formula ({AUTHOR_REPO}@{AUTHOR_COMMIT[:10]}, "
               "plot_table_ngd_fdp.py) typed again, at five points; rel 1e-11 (float64 evaluation of 1 - c^t with c "
               "near 1)", _sc_pins, rel=1e-11)


# ============================================================================================= cyclic batches
CY_SYMBOLS = sy.pick("S_g", "N", "tau", "T_passes", "sigma", "eta", "m", "M")
tau, E = CY_SYMBOLS["tau"], CY_SYMBOLS["T"]
_l = N / tau
# c^{2l-2}(1 - c^2)/(1 - c^l)^2 = e^{-(l-1)y} sinh(y)/(2 sinh(l y/2)^2) and (1 - c^x)/(1 + c^x) = tanh(x y/2), with
# e^{-(l-1)y} = 1/(cosh((l-1)y) + sinh((l-1)y)) (check cyclic_hyperbolic_form)
MU_CYCLIC = S_g / (tau * sigma) * sp.sqrt(
    1 + sp.sinh(_y) / (2 * sp.sinh(_l * _y / 2) ** 2 * (sp.cosh((_l - 1) * _y) + sp.sinh((_l - 1) * _y)))
    * sp.tanh(_l * (E - 1) * _y / 2))

THM_CYCLIC = Theorem(
    "bok2024.thm_noisy_cgd_strongly_convex_gdp",
    "Noisy cyclic-batch GD's last iterate on strongly convex smooth losses is mu-GDP with mu converging in the epochs",
    Source("bok2024", "Section 4, NoisyCGD, strongly convex case", _SOURCE_NOTE, reconstructed=True,
           confidence="R-high"),
    "privacy",
    symbols=CY_SYMBOLS,
    hypotheses=[
        Hypothesis("m_at_most_M", sp.Le(m, M), "strong convexity m <= smoothness M"),
        Hypothesis("step_size", sp.Le(eta, 2 / (M + m)), "eta <= 2/(M + m): c = 1 - eta m"),
        Hypothesis("contraction_positive", sp.Lt(eta * m, 1), "eta m < 1, i.e. c > 0"),
        Hypothesis("batch_at_most_N", sp.Le(tau, N), "batch size b <= n (b divides n: l = n/b batches)"),
        Hypothesis("at_least_one_epoch", sp.Ge(E, 1), "E >= 1 epochs"),
    ],
    conclusion={"mu": MU_CYCLIC},
    statement=(
        "As bok2024.thm_noisy_gd_strongly_convex_gdp, with the gradient of the mean loss replaced by that of batch "
        "(k mod l) of l = n/b disjoint batches of b records, visited cyclically for E epochs (t = l E steps): the last "
        "iterate is mu-GDP with mu = S_g/(b sigma) sqrt(1 + c^{2l-2} (1 - c^2)/(1 - c^l)^2 (1 - c^{l(E-1)})/"
        "(1 + c^{l(E-1)})), c = 1 - eta m. Keywords: tau = b, T = E, N = n."
    ),
    notes=("Encoded from the authors' code (plot_table_ncgd_fdp.py, table_privacy_lr.py). Not exact: on quadratics "
           "the worst record (in the last batch of the cycle) is below it (check exact_cyclic_quadratic_below_bound)."),
)


def noisy_cgd_gdp(S_g_, b_, l_, E_, sigma_, c_):
    """The cyclic bound (numpy, broadcasting): ``S_g/(b sigma) sqrt(1 + c^{2l-2}(1 - c^2)/(1 - c^l)^2 (1 -
    c^{l(E-1)})/(1 + c^{l(E-1)}))`` for ``c`` in (0, 1)."""
    c = _arr("c", c_)
    if np.any(c >= 1):
        raise ValueError(f"c must be in (0, 1); got {c_!r}")
    ll, ee = _arr("l", l_), _arr("E", E_, low=1.0, inclusive=True)
    x = c ** (ll * (ee - 1))
    inner = 1 + c ** (2 * ll - 2) * (1 - c * c) / (1 - c**ll) ** 2 * (1 - x) / (1 + x)
    return _arr("S_g", S_g_) / (_arr("b", b_) * _arr("sigma", sigma_)) * np.sqrt(inner)


def noisy_cgd_exact_mu(S_g_, b_, l_: int, E_: int, sigma_, eta_, lam, position: int | None = None):
    """Exact GDP parameter of cyclic noisy GD's last iterate on the quadratic ``l = lam theta^2/2 - x theta`` from a
    fixed start, when the differing record is in batch ``position`` (0 .. l-1; None: the worst, the maximum over
    positions): the mean gap grows by ``eta S_g / b`` at the steps that visit that batch, ``gap -> rho gap + [visit]
    eta S_g/b``, the variance by ``eta^2 sigma^2``; ``mu = gap / sqrt(var)``. Iterated step by step (vectorised over
    the broadcast parameters)."""
    ll, ee = check_positive_int(l_, "l"), check_positive_int(E_, "E")
    e, s2 = _arr("eta", eta_), _arr("sigma", sigma_) ** 2
    rho = 1.0 - e * np.asarray(lam, dtype=float)
    step_gap = _arr("S_g", S_g_) * e / _arr("b", b_)
    if position is not None and not 0 <= int(position) < ll:
        raise ValueError(f"position must be in [0, {ll - 1}]; got {position!r}")
    positions = np.arange(ll) if position is None else np.array([int(position)])
    shape = np.broadcast(rho, step_gap, s2).shape
    gap = np.zeros((positions.size,) + shape)  # one row per batch position of the differing record
    var = np.zeros(shape)
    for step in range(ll * ee):  # a loop over the chain's steps, vectorised over positions and parameters
        visit = (positions == step % ll).reshape((-1,) + (1,) * len(shape))
        gap = rho * gap + np.where(visit, step_gap, 0.0)
        var = rho * rho * var + e * e * s2
    best = np.max(gap / np.sqrt(var), axis=0)
    return float(best) if best.ndim == 0 else best


@THM_CYCLIC.add_check("one_epoch_is_gaussian_mechanism", "symbolic",
                      "E = 1: the record's batch is used once, mu = S_g/(b sigma) (one Gaussian mechanism)")
def _():
    d = sp.simplify(MU_CYCLIC.subs(E, 1) - S_g / (tau * sigma))
    return d == 0, f"mu(E = 1) - S_g/(b sigma) = {d}"


@THM_CYCLIC.add_check("cyclic_hyperbolic_form", "numeric",
                      "the encoded hyperbolic form equals the authors' c^{2l-2}(1 - c^2)/(1 - c^l)^2 (1 - c^{l(E-1)})/"
                      "(1 + c^{l(E-1)}) (c = 1 - eta m), at 12 exact rational points evaluated to 40 digits (< 1e-30)")
def _():
    ours = (MU_CYCLIC / (S_g / (tau * sigma))) ** 2 - 1
    authors = _c ** (2 * _l - 2) * (1 - _c**2) / (1 - _c**_l) ** 2 * (1 - _c ** (_l * (E - 1))) / (1 + _c ** (_l * (E - 1)))
    worst = 0.0
    for em in (sp.Rational(1, 100), sp.Rational(3, 10), sp.Rational(9, 10)):
        for n_, b_, e_ in ((12, 3, 5), (10, 2, 2), (7, 7, 4), (40, 4, 13)):
            at = {eta: em, m: 1, N: n_, tau: b_, E: e_}
            worst = max(worst, float(abs(sp.N(ours.subs(at) - authors.subs(at), 40))))
    return worst < 1e-30, f"max |difference| {worst:.2e}", 0.0, worst


@THM_CYCLIC.add_check("full_batch_dominates_noisy_gd", "numeric",
                      "with b = n (one batch, l = 1, t = E) the cyclic bound is >= the full-batch bound of "
                      "bok2024.thm_noisy_gd_strongly_convex_gdp (which is exact), on a grid")
def _():
    worst = np.inf
    for c in (0.3, 0.9, 0.999):
        for ep in (1, 2, 5, 50, 2000):
            cyc = noisy_cgd_gdp(1.0, 1, 1, ep, 1.0, c)
            full = noisy_gd_gdp(1.0, 1, 1.0, c, ep)
            worst = min(worst, float(cyc / full))
    return worst >= 1 - 1e-12, f"min cyclic(l = 1)/full-batch {worst:.6f}", 1.0, worst


@THM_CYCLIC.add_check("exact_cyclic_quadratic_below_bound", "numeric",
                      "cyclic noisy GD on l = lam theta^2/2 - x theta (exact mu by the step recursion, the worst batch "
                      "position): below the bound at 2 x 3 x 3 x 4 points (lam in {m, M}, l in {1, 3, 10}, E in "
                      "{1, 2, 7, 40}, three step sizes); the worst position is the last batch of the cycle")
def _():
    worst, last_is_worst = 0.0, True
    mu_of = sp.lambdify([S_g, N, tau, E, sigma, eta, m, M], THM_CYCLIC.conclusion["mu"], "numpy")
    for lm, kappa in ((0.5, 1.0), (0.05, 4.0)):
        for f in (0.1, 0.6, 0.97):
            e = f * 2 / (lm * (1 + kappa))
            for ll in (1, 3, 10):
                for ep in (1, 2, 7, 40):
                    bound = float(mu_of(1.3, 4 * ll, 4, ep, 0.8, e, lm, lm * kappa))  # the registered conclusion
                    for lam in (lm, lm * kappa):
                        exact = noisy_cgd_exact_mu(1.3, 4, ll, ep, 0.8, e, lam)
                        worst = max(worst, exact / bound)
                    last = noisy_cgd_exact_mu(1.3, 4, ll, ep, 0.8, e, lm, position=ll - 1)
                    last_is_worst &= bool(abs(last - noisy_cgd_exact_mu(1.3, 4, ll, ep, 0.8, e, lm)) < 1e-12)
    return worst <= 1 + 1e-12 and last_is_worst, f"max exact/bound {worst:.6f}; last batch worst: {last_is_worst}", \
        1.0, worst


def _cyc_pins():
    """The authors' plot_table_ncgd_fdp.py / table_privacy_lr.py formula typed again, ``np.sqrt(1 + c**(2*l - 2)*
    (1-c**2)/((1-c**l)**2) * (1 - c**(l*(E-1))) / (1 + c**(l*(E-1)))) * mu`` with ``mu = S_g/(b sigma)``."""
    out = []
    for sg, b, ll, ep, s, e, mm in ((1.0, 5, 20, 50, 1.0, 0.01, 1.0), (2.0, 3, 10, 5, 1.5, 0.02, 1.0),
                                    (0.7, 1500, 40, 100, 1.05, 0.0001, 2.0), (1.2, 6, 3, 2, 0.9, 0.3, 0.7)):
        c = 1 - e * mm
        mu0 = sg / (b * s)
        typed = np.sqrt(1 + c ** (2 * ll - 2) * (1 - c**2) / ((1 - c**ll) ** 2) * (1 - c ** (ll * (ep - 1)))
                        / (1 + c ** (ll * (ep - 1)))) * mu0
        out.append(({"S_g": sg, "N": b * ll, "tau": b, "T": ep, "sigma": s, "eta": e, "m": mm, "M": mm},
                    {"mu": typed}))
    return out


THM_CYCLIC.add_pin("pin_author_code",
                   f"mu against the authors' NoisyCGD formula ({AUTHOR_REPO}@{AUTHOR_COMMIT[:10]}) typed again at four "
                   "points, one with the MNIST experiment's b = 1500, l = 40 (c = 0.9998); rel 1e-10 (float64 "
                   "evaluation of 1 - c^l with c near 1)", _cyc_pins, rel=1e-10)


# ============================================================================================= constrained convex
CV_SYMBOLS = sy.pick("S_g", "N", "sigma", "eta", "M", "k", "R")
R = CV_SYMBOLS["R"]
_D = 2 * R
_g = S_g / N  # the mean-gradient gap
NU_STAR = sp.ceiling(_D / (eta * _g))
MU_STAR = sp.sqrt(3 * _D * _g / eta + _g**2 * NU_STAR) / sigma
MU_CONVEX = sp.Min(sp.sqrt(k) * _g / sigma, MU_STAR)

THM_CONVEX = Theorem(
    "bok2024.thm_noisy_gd_constrained_convex_gdp",
    "Projected noisy GD's last iterate on convex smooth losses over a bounded set is mu-GDP with mu constant in t "
    "from t* on",
    Source("bok2024", "Section 4, NoisyGD, constrained convex case", _SOURCE_NOTE, reconstructed=True,
           confidence="R-med"),
    "privacy",
    symbols=CV_SYMBOLS,
    hypotheses=[Hypothesis("step_size", sp.Le(eta, 2 / M), "eta <= 2/M: the gradient step is non-expansive")],
    conclusion={"mu": MU_CONVEX, "mu_star": MU_STAR},
    statement=(
        "Losses l(.; x) convex and M-smooth on a closed convex set K of diameter D = 2R, gradient gap S_g; projected "
        "NoisyGD with eta <= 2/M releases theta_t, which is mu-GDP (replace-one) with mu = min(sqrt(t) S_g/(n sigma), "
        "mu_star), mu_star = (1/sigma) sqrt(3 D S_g/(n eta) + (S_g/n)^2 ceil(D n/(S_g eta))). Keywords: N = n, "
        "k = t, R = D/2."
    ),
    notes=("Encoded from the authors' code (plot_table_ngd_fdp.py, D = 1, 'our bound, t >= t*'), generalised to a "
           "diameter D by dimensional analysis and the shift-budget argument (check constrained_from_shift_budget); "
           "no exact comparator is computed here (the projected chain is not linear-Gaussian)."),
)


def constrained_gdp(S_g_, N_, sigma_, eta_, D_, k_):
    """``min(sqrt(k) g/sigma, sqrt(3 D g/eta + g^2 ceil(D/(eta g)))/sigma)`` with ``g = S_g/N`` (numpy,
    broadcasting)."""
    g = _arr("S_g", S_g_) / _arr("N", N_)
    s, e, d = _arr("sigma", sigma_), _arr("eta", eta_), _arr("D", D_)
    star = np.sqrt(3 * d * g / e + g * g * np.ceil(d / (e * g))) / s
    return np.minimum(np.sqrt(_arr("k", k_)) * g / s, star)


@THM_CONVEX.add_check("constrained_from_shift_budget", "symbolic",
                      "the interpolated process absorbs the distance D over the last nu steps, D/nu per step, on top "
                      "of the gradient gap eta S_g/n: GDP composition gives mu^2 = nu (D/nu + eta g)^2/(eta sigma)^2 "
                      "= (D/eta + nu g)^2/(nu sigma^2); for nu >= D/(eta g) this is <= (3 D g/eta + nu g^2)/sigma^2 "
                      "(the encoded mu_star at nu = ceil(D/(eta g))): the difference is (D g/eta - (D/eta)^2/nu)/"
                      "sigma^2 >= 0")
def _():
    nu, g = sp.Symbol("nu_var", positive=True), sp.Symbol("g_var", positive=True)
    d, e, s = sp.symbols("D_var eta_var sigma_var", positive=True)
    shift = nu * (d / nu + e * g) ** 2 / (e * s) ** 2
    bound = (3 * d * g / e + g**2 * nu) / s**2
    diff = sp.simplify(bound - shift - (d * g / e - (d / e) ** 2 / nu) / s**2)
    # D g/eta - (D/eta)^2/nu >= 0  <=>  nu >= D/(eta g)
    at_threshold = sp.simplify((d * g / e - (d / e) ** 2 / nu).subs(nu, d / (e * g)))
    return diff == 0 and at_threshold == 0, f"bound - shift - slack = {diff}; slack at nu = D/(eta g): {at_threshold}"


@THM_CONVEX.add_check("early_steps_are_composition", "numeric",
                      "mu = sqrt(t) S_g/(n sigma) (composition) for t < t* = ceil(mu_star^2 / mu_step^2) and mu = "
                      "mu_star from t* on; at t = 1 the Gaussian mechanism S_g/(n sigma) (mu_star >= it since "
                      "nu* >= 1)")
def _():
    ok = True
    worst = 0.0
    for sg, n, s, e, r in ((1.0, 2, 8.0, 0.1, 0.5), (0.5, 1, 3.0, 0.02, 0.5), (2.0, 50, 1.0, 0.3, 4.0)):
        ev = THM_CONVEX.evaluate(S_g=sg, N=n, sigma=s, eta=e, M=1.0, k=1, R=r)
        ok &= abs(ev.mu - sg / (n * s)) < 1e-12
        star = ev.mu_star
        t_star = math.ceil((star * n * s / sg) ** 2 * (1 - 1e-15))
        before = THM_CONVEX.evaluate(S_g=sg, N=n, sigma=s, eta=e, M=1.0, k=max(t_star - 1, 1), R=r).mu
        after = THM_CONVEX.evaluate(S_g=sg, N=n, sigma=s, eta=e, M=1.0, k=t_star + 5, R=r).mu
        ok &= abs(before - math.sqrt(max(t_star - 1, 1)) * sg / (n * s)) < 1e-12 and abs(after - star) < 1e-12
        worst = max(worst, abs(after - star))
    return bool(ok), f"composition before t*, mu_star after: {ok}", 0.0, worst


def _cv_pins():
    """The authors' plot_table_ngd_fdp.py formula at D = 1 typed again: ``np.sqrt(3*mu/eta + mu**2 * np.ceil(1/(mu *
    eta))) / sigma`` with ``mu = L/n`` (= S_g/N here), and the script's table points (sigma = 8, L/n in {0.25, 0.5,
    1}, eta in {0.2, 0.1, 0.05}), t beyond t*."""
    out = []
    for mu_ in (0.25, 0.5, 1.0):
        for e in (0.2, 0.1, 0.05):
            typed = np.sqrt(3 * mu_ / e + mu_**2 * np.ceil(1 / (mu_ * e))) / 8.0
            out.append(({"S_g": mu_ * 4, "N": 4, "sigma": 8.0, "eta": e, "M": 1.0, "k": 10**6, "R": 0.5},
                        {"mu": typed, "mu_star": typed}))
    return out


THM_CONVEX.add_pin("pin_author_code",
                   f"mu and mu_star against the authors' constrained bound ({AUTHOR_REPO}@{AUTHOR_COMMIT[:10]}, "
                   "plot_table_ngd_fdp.py, D = 1) typed again at the script's nine table points; rel 1e-12",
                   _cv_pins, rel=1e-12)


THEOREMS: tuple[Theorem, ...] = (THM_SC, THM_CYCLIC, THM_CONVEX)
