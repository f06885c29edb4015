"""Provable forms of the conjugate-posterior items: Geumlek, Song and Chaudhuri (NeurIPS 2017) -- the closed-form
Renyi divergence of two beta posteriors, the curvature bound of one exponential-family posterior draw, the Diffuse /
Concentrated beta-Bernoulli posterior -- and Ponnoprat (2022), Theorem 1 (Dirichlet posterior sampling).

Comparators:

- ``geumlek2017.lem_expfam_renyi``: ``log(int p_1^lam p_2^(1 - lam)) / (lam - 1)`` with each beta density written
  out, its normaliser and the integral of the unnormalised product found by sympy's integration of
  ``theta^(p - 1) (1 - theta)^(q - 1)`` over [0, 1] (:func:`beta_integral`), not from the beta function's closed form:
  it simplifies to the lemma's formula, an identity proved in one box;
- ``geumlek2017.alg_diffuse_concentrated_beta``: the exact Renyi divergence (log-gamma form) of the two posteriors of
  an adjacent pair, ``Beta(a, b)`` against ``Beta(a + r, b - r)`` (one record of weight r moved from the second
  category to the first), over every pair whose four parameters are >= a_min -- every ordered adjacent pair of
  every prior with min(alpha0, beta0) = a_min and every dataset (the reverse direction is the same family reflected,
  theta -> 1 - theta);
- ``ponnoprat2022.thm1_dirichlet_rdp``: the same exact divergence on the two-category family with the move
  ``d = min(Delta_inf, Delta_2 / sqrt 2)`` (the largest move (d, -d) both sensitivities allow), every concentration
  >= alpha_min -- admissible pairs of the theorem, so a refutation on them refutes it;
- ``geumlek2017.thm_expfam_rdp_curvature``: none (not provable here: see its reason).
"""
from __future__ import annotations

import functools

import sympy as sp

from dpverify.prove.forms.base import ItemForm, Part, StatementLike, problem_for
from dpverify.prove.forms.common import scale_ceiling, symbol_of
from dpverify.prove.problem import ProofProblem

__all__ = ["FORMS", "beta_integral", "beta_pair_renyi", "trigamma_as_zeta"]


# ------------------------------------------------------------------------------------------------- shared pieces
@functools.lru_cache(maxsize=4)
def _integral_symbols() -> tuple[sp.Symbol, sp.Symbol, sp.Expr]:
    """``(p, q, int_0^1 theta^(p - 1) (1 - theta)^(q - 1) dtheta)`` for positive p, q, by sympy (rewritten with
    gamma: sympy's answer is a hypergeometric function at 1)."""
    th = sp.Symbol("theta_int", positive=True)
    p, q = sp.Symbol("p_int", positive=True), sp.Symbol("q_int", positive=True)
    value = sp.integrate(th ** (p - 1) * (1 - th) ** (q - 1), (th, 0, 1))
    return p, q, sp.simplify(sp.sympify(value).rewrite(sp.gamma))


def _log_gamma_form(expr: sp.Expr) -> sp.Expr:
    """``log`` of products of gammas as sums of ``loggamma`` (valid where every gamma's argument is positive: the
    callers' arguments are, on the hypotheses)."""
    expanded = sp.expand_log(expr, force=True)
    return expanded.replace(lambda e: isinstance(e, sp.log) and isinstance(e.args[0], sp.gamma),
                            lambda e: sp.loggamma(e.args[0].args[0]))


def beta_integral(p: sp.Expr, q: sp.Expr) -> sp.Expr:
    """``log int_0^1 theta^(p - 1) (1 - theta)^(q - 1) dtheta`` (p, q > 0) in log-gamma form, from sympy's
    integral."""
    ps, qs, value = _integral_symbols()
    return _log_gamma_form(sp.log(value)).xreplace({ps: p, qs: q})


def beta_pair_renyi(order: sp.Expr, a1: sp.Expr, b1: sp.Expr, a2: sp.Expr, b2: sp.Expr) -> sp.Expr:
    """``D_order(Beta(a1, b1) || Beta(a2, b2))`` for ``a2 + order (a1 - a2) > 0`` and ``b2 + order (b1 - b2) > 0``:
    ``[log B(m) - order log B(a1, b1) + (order - 1) log B(a2, b2)] / (order - 1)``, each log B from
    :func:`beta_integral`."""
    ma, mb = a2 + order * (a1 - a2), b2 + order * (b1 - b2)
    return (beta_integral(ma, mb) - order * beta_integral(a1, b1) + (order - 1) * beta_integral(a2, b2)) / (order - 1)


def trigamma_as_zeta(expr: sp.Expr) -> sp.Expr:
    """``expr`` with every trigamma ``polygamma(1, x)`` written as the Hurwitz ``zeta(2, x)`` (the same function,
    ``psi_1(x) = sum_k 1/(x + k)^2``), which the interval evaluator reads (Arb's Hurwitz zeta)."""
    return sp.sympify(expr).replace(lambda e: isinstance(e, sp.polygamma) and e.args[0] == 1,
                                    lambda e: sp.zeta(2, e.args[1]))


# ---------------------------------------------------------------------------------- Geumlek et al. 2017, the lemma
def _renyi_identity(item: StatementLike) -> ProofProblem:
    """Geumlek et al. 2017, the closed-form Renyi divergence of two beta posteriors: the claimed ``rdp`` against
    ``log(int p_1^lam p_2^(1 - lam)) / (lam - 1)`` with ``p_i = theta^(a_i - 1) (1 - theta)^(b_i - 1) / N_i``: the
    exponents of the product are checked to be ``m_a - 1``, ``m_b - 1`` (sympy expands them), and both the normalisers
    ``N_i`` and the integral of ``theta^(m_a - 1) (1 - theta)^(m_b - 1)`` come from sympy's integration (valid for
    ``m_a, m_b > 0``: the hypotheses). The two simplify to each other: an identity, proved in one box; relation ">="
    is the direction an RDP guarantee needs, the identity gives both. A changed conclusion is enclosed as the
    difference."""
    lam = symbol_of(item, "alpha")
    a1, b1, a2, b2 = (symbol_of(item, n) for n in ("a_1", "b_1", "a_2", "b_2"))
    th = sp.Symbol("theta_var", positive=True)
    log_unnormalised = lambda a, b: (a - 1) * sp.log(th) + (b - 1) * sp.log(1 - th)  # noqa: E731
    product = lam * log_unnormalised(a1, b1) + (1 - lam) * log_unnormalised(a2, b2)
    ma, mb = a2 + lam * (a1 - a2), b2 + lam * (b1 - b2)
    if sp.expand(product - log_unnormalised(ma, mb)) != 0:  # pragma: no cover - algebra
        raise RuntimeError("the product of the two beta kernels is not the mixture's kernel")
    comparator = (beta_integral(ma, mb) - lam * beta_integral(a1, b1) - (1 - lam) * beta_integral(a2, b2)) / (lam - 1)
    claimed = item.conclusion["rdp"]
    difference = sp.simplify(sp.expand(claimed - comparator))
    return problem_for(item, "rdp", claimed=claimed, comparator=comparator,
                       margin=difference if difference == 0 else None,
                       declared={"alpha": (None, 1000, "<= 1000 (unbounded above)"),
                                 **{n: scale_ceiling() for n in ("a_1", "b_1", "a_2", "b_2")}},
                       comparator_source="log of the integral of p_1^lam p_2^(1 - lam), the densities' normalisers "
                                         "and the integral by sympy",
                       scope="an identity: the formula equals log(int p_1^lam p_2^(1 - lam)) / (lam - 1)")


# ------------------------------------------------------------------------------- the adjacent beta pairs (both items)
_S = sp.Symbol("s_extra", nonnegative=True)  # a - a_min: the first posterior's first parameter above a_min
_T = sp.Symbol("t_extra", nonnegative=True)  # (b - move) - a_min: the second posterior's second parameter above it
_EXTRA = {"s_extra": scale_ceiling(), "t_extra": scale_ceiling()}


def _pair_divergence(lam: sp.Expr, a_min: sp.Expr, move: sp.Expr) -> sp.Expr:
    """``D_lam(Beta(a, b) || Beta(a + move, b - move))`` with ``a = a_min + s``, ``b - move = a_min + t`` (s, t >= 0):
    every adjacent pair whose parameters are >= a_min, one direction (the other is this one reflected)."""
    a, b = a_min + _S, a_min + _T + move
    return beta_pair_renyi(lam, a, b, a + move, b - move)


def _diffuse_beta(item: StatementLike) -> ProofProblem:
    """Geumlek et al. 2017, Diffuse / Concentrated beta posterior: the claimed ``rdp`` >= the exact divergence of
    every adjacent pair, ``Beta(a, b)`` vs ``Beta(a + r, b - r)`` with a, b - r >= a_min (s, t >= 0 their excesses):
    a prior with min(alpha0, beta0) = a_min and any counts gives such a pair, and every such pair comes from one
    (alpha0 = a, beta0 = b - r, one record moved). Declared: a_min, s, t <= 100, alpha <= 1000."""
    lam, a_min, r = (symbol_of(item, n) for n in ("alpha", "a_min", "weight"))
    return problem_for(item, "rdp", claimed=trigamma_as_zeta(item.conclusion["rdp"]),
                       comparator=_pair_divergence(lam, a_min, r),
                       declared={"alpha": (None, 1000, "<= 1000 (unbounded above as r -> 0)"),
                                 "a_min": scale_ceiling(), **_EXTRA},
                       comparator_source="the exact Renyi divergence of the two beta posteriors (log-gamma form)",
                       scope="every ordered adjacent pair: Beta(a_min + s, a_min + t + r) vs Beta(a_min + s + r, "
                             "a_min + t), s, t in [0, 100]")


def _dirichlet(item: StatementLike) -> ProofProblem:
    """Ponnoprat 2022, Thm 1, on the two-category family: the claimed ``rdp`` >= the exact divergence of
    ``Beta(a, b)`` vs ``Beta(a + d, b - d)``, ``d = min(Delta_inf, Delta_2 / sqrt 2)`` (the move (d, -d) has L2 norm
    sqrt 2 d <= Delta_2 and L-infinity norm d <= Delta_inf), every concentration >= alpha_min. Declared: a_min,
    Delta_2, Delta_inf, s, t <= 100, alpha <= 1000."""
    lam, a_min, d2, dinf = (symbol_of(item, n) for n in ("alpha", "a_min", "sensitivity", "sensitivity_inf"))
    move = sp.Min(dinf, d2 / sp.sqrt(2))
    return problem_for(item, "rdp", claimed=trigamma_as_zeta(item.conclusion["rdp"]),
                       comparator=_pair_divergence(lam, a_min, move),
                       declared={"alpha": (None, 1000, "<= 1000 (unbounded above as Delta_inf -> 0)"),
                                 "a_min": scale_ceiling(), "sensitivity": scale_ceiling(),
                                 "sensitivity_inf": scale_ceiling(), **_EXTRA},
                       comparator_source="the exact Renyi divergence of two-category Dirichlet (beta) posteriors",
                       scope="K = 2, the move (d, -d) with d = min(Delta_inf, Delta_2 / sqrt 2), concentrations "
                             "alpha_min + s, alpha_min + t, s, t in [0, 100]")


_CURVATURE_REASON = (
    "the statement bounds every exponential family whose log-normaliser C has u^T Hess C u <= l |u|^2 on the "
    "extrapolated segments: curvature l and sensitivity Delta do not determine a divergence, and the least upper "
    "bound over all such C has no closed form to compare with (C is a function, not a parameter of a box). Its proof "
    "is the symbolic check second_difference_peano_kernel; its beta and Dirichlet instances are proved or decided as "
    "geumlek2017.alg_diffuse_concentrated_beta and ponnoprat2022.thm1_dirichlet_rdp")

_TIGHT_WHY = (
    "the bound is tight as the move r -> 0 (exact / bound -> 1 for a_min-sized parameters) and lam -> 1: there the "
    "margin is O(r^3) and O(lam - 1) but each log-gamma term is O(1), so interval enclosures of the log-gamma "
    "differences never get a sign on boxes touching r = 0 or lam = 1, and the monotone lemma has no derivative "
    "(d loggamma = digamma, which the interval evaluator does not read); five parameters to split. Tried (issue 39): "
    "the Taylor kernel -- with g(v) = log Gamma(a + v) + log Gamma(b - v), D_lam = lam m^2/2 times the average of "
    "psi_1(a + m w) + psi_1(b - m w) over w in [-(lam - 1), 1] under the triangular density with mode 0 (the "
    "first-order terms cancel; agrees with the closed form to 2e-13 at 20 random pairs), so claim >= that at every w "
    "suffices, a trigamma-only (Hurwitz zeta) upper comparator. In the coordinates gap = a_min - (lam - 1) m, s, t, "
    "u (w = lam u - (lam - 1)) it was undecided at 60 s (10591 boxes evaluated, 4772 left); split into its two "
    "trigamma terms, 8099 / 14022 boxes, undecided; reduced to psi_1(gap) >= psi_1(gap + excess) (gap in [1e-9, "
    "100], excess in [0, 2100] or [0, 10^6]), trigamma as its series' first 4 or 400 terms plus a zeta tail: 4185-5791 boxes, "
    "undecided. The block is Arb's Hurwitz zeta on a ball: not finite once the interval's hi/lo exceeds about 1.3 "
    "(zeta(2, [100, 150])), and zeta(2, [4, 34]), zeta(3, [4, 24]) have negative lower ends, so every trigamma "
    "argument must be split narrow, and the branch and bound splits the excess while the gap stays whole. An "
    "endpoint (monotone) enclosure of zeta(s, a) in a for s > 1 in the interval evaluator and the checker would "
    "make the reduced inequality a one-face monotone proof (a prover change, not made here)")

FORMS: tuple[ItemForm, ...] = (
    ItemForm("geumlek2017.lem_expfam_renyi", (Part("rdp", _renyi_identity),)),
    ItemForm("geumlek2017.thm_expfam_rdp_curvature", not_provable=_CURVATURE_REASON),
    ItemForm("geumlek2017.alg_diffuse_concentrated_beta", (Part("rdp", _diffuse_beta),),
             expected="undecided", why=_TIGHT_WHY, part_seconds=60.0),
    ItemForm("ponnoprat2022.thm1_dirichlet_rdp", (Part("rdp", _dirichlet),),
             expected="undecided", why=_TIGHT_WHY, part_seconds=60.0),
)
