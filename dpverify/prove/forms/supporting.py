"""Provable forms of the supporting items: Balle and Wang (ICML 2018), Theorem 8 (the Gaussian mechanism's exact
privacy profile), and Chourasia, Ye and Shokri (NeurIPS 2021), Theorem 2 (the Renyi DP of noisy gradient descent's
last iterate).

Comparators:

- Balle and Wang, Thm 8: the hockey-stick divergence of N(0, sigma^2) from N(Delta, sigma^2) computed another way --
  the integral of p - e^eps q over the region where it is positive, that region found by sympy from the privacy
  loss and each density integrated by sympy -- which simplifies to the theorem's formula: an identity, proved in one
  box (what it proves is said in the part's docstring);
- Chourasia et al., Thm 2: the exact Renyi divergence of the last iterate on quadratic losses, where every iterate
  is Gaussian (a linear-Gaussian chain: ``dpverify.theorems.chourasia2021.noisy_gd.noisy_gd_exact_final_rdp``
  iterates the same recursions numerically), in closed form for every number of steps.
"""
from __future__ import annotations

import functools

import sympy as sp

from dpverify.prove.forms.base import ItemForm, Part, StatementLike, problem_for
from dpverify.prove.forms.common import LOG, count_ceiling, symbol_of
from dpverify.prove.problem import ProofProblem
from dpverify.theorems.mutation import TheoremVariant

__all__ = ["FORMS", "gaussian_hockey_stick_integral", "quadratic_noisy_gd_rdp"]


# ---------------------------------------------------------------------------------------------- Balle and Wang 2018
@functools.lru_cache(maxsize=8)
def gaussian_hockey_stick_integral(sens: sp.Symbol, sigma: sp.Symbol, eps: sp.Symbol) -> sp.Expr:
    """``int (p - e^eps q)_+ dx`` for p = N(0, sigma^2) and q = N(Delta, sigma^2) (``sens`` is Delta), computed by
    sympy from the densities: the privacy loss ``log p(x) - log q(x)`` is solved for the point x* where it equals
    eps, its derivative in x is checked to be negative (so p > e^eps q exactly on x < x*: the positive part is the
    integral up to x*), and each density is integrated over (-oo, x*] after the change of variables x = mean +
    sigma z (sympy's integral of the standard normal density). The result is rewritten with erfc; raises
    RuntimeError if the loss is not decreasing or has no single solution."""
    x = sp.Dummy("x", real=True)
    z, b = sp.Dummy("z", real=True), sp.Dummy("b", real=True)

    def density(mean: sp.Expr) -> sp.Expr:
        return sp.exp(-(x - mean) ** 2 / (2 * sigma**2)) / sp.sqrt(2 * sp.pi * sigma**2)

    loss = sp.expand(sp.expand_log(sp.log(density(0)) - sp.log(density(sens)), force=True))
    slope = sp.simplify(sp.diff(loss, x))
    if slope.is_negative is not True:
        raise RuntimeError(f"the Gaussian privacy loss is not decreasing in x (slope {slope})")
    solutions = sp.solve(sp.Eq(loss, eps), x)
    if len(solutions) != 1:
        raise RuntimeError(f"the privacy loss equals eps at {solutions}, not at one point")
    x_star = solutions[0]
    standard_cdf = sp.integrate(sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi), (z, -sp.oo, b))  # P[N(0, 1) <= b]
    below = lambda mean: standard_cdf.subs(b, (x_star - mean) / sigma)  # noqa: E731 - P[N(mean, sigma^2) <= x*]
    return sp.simplify((below(0) - sp.exp(eps) * below(sens)).rewrite(sp.erfc))


def _balle_profile(item: StatementLike) -> ProofProblem:
    """Balle and Wang 2018, Thm 8: the claimed ``delta_exact`` against the hockey-stick divergence
    sup_A P(A) - e^eps Q(A) = int (p - e^eps q)_+ of the Gaussian mechanism's worst pair (the coordinates other than
    the sensitivity direction cancel), computed by :func:`gaussian_hockey_stick_integral`. The two simplify to the
    same expression, so the margin is identically 0: an identity, proved in one box. What it proves: the theorem's
    formula is the hockey-stick divergence (the least delta at eps), derived independently from the two densities
    -- both directions of the "iff" at once; relation ">=" is the direction a DP guarantee needs, and the identity
    gives the other as well. If the two do not simplify to each other (a changed conclusion) the margin is their
    difference, enclosed on the box."""
    sens, sigma, eps = symbol_of(item, "sensitivity"), symbol_of(item, "sigma"), symbol_of(item, "epsilon")
    claimed = item.conclusion["delta_exact"]
    comparator = gaussian_hockey_stick_integral(sens, sigma, eps)
    difference = sp.simplify(claimed - comparator)
    return problem_for(item, "delta_exact", claimed=claimed, comparator=comparator,
                       margin=difference if difference == 0 else None,
                       declared={"sensitivity": (None, 100, "<= 100 (unbounded above)"),
                                 "sigma": (None, 100, "<= 100 (unbounded above)"),
                                 "epsilon": (None, 20, "<= 20 (unbounded above; e^20 is no privacy)")},
                       comparator_source="the hockey-stick integral of the two Gaussian densities, by sympy",
                       scope="an identity: the formula equals the integral of the positive part of p - e^eps q")


# ---------------------------------------------------------------------------------------------- Chourasia et al. 2021
def quadratic_noisy_gd_rdp(alpha: sp.Expr, S_g: sp.Expr, m: sp.Expr, sigma: sp.Expr, N: sp.Expr, eta: sp.Expr,
                           k: sp.Expr) -> sp.Expr:
    """The exact Renyi divergence of order alpha between the last iterates of noisy GD on two neighbouring datasets
    for the quadratic loss l(theta; x) = m theta^2/2 - x theta (m-strongly convex and m-smooth, so M-smooth for
    every M >= m), |x - x'| <= S_g, from Theorem 2's start theta_0 ~ N(0, 2 sigma^2/m), after k steps
    theta -> rho theta + eta xbar + sqrt(2 eta sigma^2) xi, rho = 1 - eta m: both laws are Gaussian with the common
    variance V_k = rho^{2k} 2 sigma^2/m + 2 eta sigma^2 (1 - rho^{2k})/(1 - rho^2) and means G_k = (eta S_g/N)
    (1 - rho^k)/(1 - rho) apart, so D_alpha = alpha G_k^2/(2 V_k) (Mironov 2017, Prop. 7). Real k is allowed (the
    closed form); the catalogue's ``noisy_gd_exact_final_rdp`` iterates the two recursions instead."""
    rho = 1 - eta * m
    gap = (eta * S_g / N) * (1 - rho**k) / (1 - rho)
    variance = rho ** (2 * k) * 2 * sigma**2 / m + 2 * eta * sigma**2 * (1 - rho ** (2 * k)) / (1 - rho**2)
    return alpha * gap**2 / (2 * variance)


def _rewrite_condition(condition: sp.Basic, substitution: dict) -> sp.Basic:
    """``condition`` after the substitution, as ``(lhs - rhs) <relation> 0`` with the positive factors of
    ``lhs - rhs`` divided out (``u/M < 1/M`` becomes ``u - 1 < 0``)."""
    if not isinstance(condition, sp.core.relational.Relational):
        return condition.xreplace(substitution)
    diff = sp.factor(sp.together((condition.lhs - condition.rhs).xreplace(substitution)))
    kept, flip = [], False
    for f in sp.Mul.make_args(diff):
        if f.is_positive is True:
            continue
        if f.is_negative is True:
            flip = not flip
            continue
        kept.append(f)
    func = condition.func
    if flip:
        func = {sp.StrictLessThan: sp.StrictGreaterThan, sp.StrictGreaterThan: sp.StrictLessThan,
                sp.LessThan: sp.GreaterThan, sp.GreaterThan: sp.LessThan}.get(func, func)
    return func(sp.expand(sp.Mul(*kept)), 0)


_ELL = sp.Symbol("ell", positive=True)  # -log(1 - m eta): the log-contraction per step (rho = e^{-ell})
_V = sp.Symbol("v", positive=True)  # m / M: the strong convexity as a fraction of the smoothness

#: ell <= 14 is m eta <= 1 - e^{-14} (about 1 - 8.3e-7): the box needs a finite end (m eta -> 1 is ell -> oo).
_ELL_CEILING = 14

_DECLARED = {
    "ell": (None, _ELL_CEILING, f"<= {_ELL_CEILING} (m eta <= 1 - e^-{_ELL_CEILING}: m eta -> 1 is ell -> oo)"),
    "k": count_ceiling(),
    "alpha": (None, 10**6, "<= 1e6 (alpha cancels from the margin: both sides are proportional to it)"),
}


def _rescaled(item: StatementLike, substitution: dict, new: dict) -> TheoremVariant:
    """``item`` with some symbols replaced by expressions in new ones (a change of variables of its domain),
    hypotheses rewritten and cleared of positive factors."""
    hyps = [type(h)(h.name, _rewrite_condition(h.condition, substitution), h.description) for h in item.hypotheses]
    return TheoremVariant(item.id, {**item.symbols, **new}, hyps,
                          {k_: sp.sympify(v_).xreplace(substitution) for k_, v_ in item.conclusion.items()},
                          tuple(getattr(item, "dropped", ())), dict(getattr(item, "widen", {})))


def _chourasia(key: str):
    def build(item: StatementLike) -> ProofProblem:
        """Chourasia et al. 2021, Thm 2, on quadratic losses: claimed RDP (``key``: after k steps, or its k -> oo
        limit) >= :func:`quadratic_noisy_gd_rdp` with curvature m, Theorem 2's start and any k >= 1 steps. (Every
        curvature lambda in [m, M] is a quadratic the hypotheses allow too; as a third variable r = m/lambda it left
        the search undecided after 120 s -- the margin vanishes as r -> 0 at a rate set by r k -- so the family
        here is lambda = m, the least curvature.)

        Variables: rho = 1 - m eta = e^{-ell} and v = m/M (eta = (1 - e^{-ell})/m, M = m/v: for each m > 0 a
        bijection of 0 < m <= M, 0 < eta < 1/M onto 0 < v <= 1, 1 - e^{-ell} < v); divided by
        alpha S_g^2/(m sigma^2 N^2) (alpha, S_g, sigma, N and m cancel) the margin is
        ``(claimed part) - (2 - a)(1 - rho^k)^2 / (4 (1 + rho^{2k+1}))`` with a = 1 - rho, a function of ell and k
        only (v is left in the hypotheses). rho^k is e^{-ell k}: no power of an exact rational is ever formed
        (at the box's ends sympy would expand (1 - a)^k exactly), and nothing is singular as m eta -> 1. The
        margin vanishes on ell = 0 (a zero step, or no strong convexity), an edge the monotone lemma proves on
        its symbolic face; ell and k are split on log scales (the margin there is a function of ell k). Declared:
        ell <= 14, k <= 1e9, alpha <= 1e6."""
        M, eta, m = symbol_of(item, "M"), symbol_of(item, "eta"), symbol_of(item, "m")
        rescaled = _rescaled(item, {eta: (1 - sp.exp(-_ELL)) / m, M: m / _V}, {"ell": _ELL, "v": _V})
        alpha, S_g, sigma, N, k = (symbol_of(item, n) for n in ("alpha", "S_g", "sigma", "N", "k"))
        exact = quadratic_noisy_gd_rdp(alpha, S_g, m, sigma, N, (1 - sp.exp(-_ELL)) / m, k)
        scale = alpha * S_g**2 / (m * sigma**2 * N**2)
        a = 1 - sp.exp(-_ELL)
        exact_over_scale = (2 - a) * (1 - sp.exp(-_ELL * k)) ** 2 / (4 * (1 + sp.exp(-_ELL * (2 * k + 1))))
        claimed = rescaled.conclusion[key]
        return problem_for(rescaled, key, claimed=claimed, comparator=exact,
                           margin=claimed / scale - exact_over_scale, scale=scale,
                           declared=_DECLARED, scales={"k": LOG, "ell": LOG},
                           comparator_source="the exact Renyi divergence of the last iterates on a quadratic loss "
                                             "(Gaussian laws; Mironov 2017, Prop. 7)",
                           scope="quadratic losses m theta^2/2 - x theta with |x - x'| <= S_g (every iterate "
                                 "Gaussian: the exact RDP), Theorem 2's Gaussian start, in ell = -log(1 - m eta) "
                                 "and v = m/M")
    return build


FORMS: tuple[ItemForm, ...] = (
    ItemForm("balle2018.thm8_analytic_gaussian", (Part("delta_exact", _balle_profile),)),
    ItemForm("chourasia2021.thm2_noisy_gd_rdp", (Part("rdp", _chourasia("rdp")),
                                                 Part("rdp_limit", _chourasia("rdp_limit"))),
             widen={"m_at_most_M": {"v": (None, 20)}}),
)

