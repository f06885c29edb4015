"""Provable forms of Bok, Su, Altschuler (ICML 2024), shifted interpolation for noisy gradient descent.

Comparators:

- ``bok2024.thm_noisy_gd_strongly_convex_gdp``: the exact squared GDP parameter of noisy GD's last iterate on the
  quadratic ``l = m theta^2/2 - x theta`` from a fixed start (the direction of smallest curvature, where the bound
  is claimed exact): ``G^2 / V`` with the mean gap ``G = (eta S_g/n)(1 - c^t)/(1 - c)`` and the variance ``V =
  eta^2 sigma^2 (1 - c^{2t})/(1 - c^2)`` (the chain's geometric sums), ``c^t = exp(-t y)``, ``y = -log(1 - eta m)``.
  The claim (squared, its hyperbolic functions written with exponentials) equals it: an identity, proved in one
  box; relation ">=" is the direction a privacy guarantee needs. mu itself is compared through its square (both are
  >= 0), which sympy reduces where the square roots of the two forms defeat it;
- ``bok2024.thm_noisy_cgd_strongly_convex_gdp``, ``bok2024.thm_noisy_gd_constrained_convex_gdp``: none here (see their
  reasons).
"""
from __future__ import annotations

import sympy as sp

from dpverify.prove.forms.base import ItemForm, Part, StatementLike, problem_for
from dpverify.prove.forms.common import count_ceiling, scale_ceiling, symbol_of
from dpverify.prove.problem import ProofProblem

__all__ = ["FORMS"]


def _hyperbolic_as_exp(expr: sp.Expr) -> sp.Expr:
    """``tanh``, ``sinh``, ``cosh`` written with exponentials (the same functions)."""
    return (sp.sympify(expr).replace(sp.tanh, lambda a: (1 - sp.exp(-2 * a)) / (1 + sp.exp(-2 * a)))
            .replace(sp.sinh, lambda a: (sp.exp(a) - sp.exp(-a)) / 2)
            .replace(sp.cosh, lambda a: (sp.exp(a) + sp.exp(-a)) / 2))


def _strongly_convex(item: StatementLike) -> ProofProblem:
    """The claimed ``mu^2`` >= the exact ``G^2/V`` of the quadratic chain (module docstring); an identity."""
    s_g, n, sigma, eta, m, k = (symbol_of(item, x) for x in ("S_g", "N", "sigma", "eta", "m", "k"))
    c = 1 - eta * m
    ck = sp.exp(k * sp.log(c))  # c^t for 0 < c < 1 (the hypothesis eta m < 1)
    gap = eta * s_g / n * (1 - ck) / (1 - c)
    var = eta**2 * sigma**2 * (1 - ck**2) / (1 - c**2)
    claimed = _hyperbolic_as_exp(item.conclusion["mu"] ** 2)
    comparator = gap**2 / var
    difference = sp.simplify(claimed - comparator)
    return problem_for(item, "mu", claimed=claimed, comparator=comparator,
                       margin=difference if difference == 0 else None, quantity="mu^2",
                       declared={"S_g": scale_ceiling(), "N": count_ceiling(), "sigma": scale_ceiling(),
                                 "eta": scale_ceiling(), "m": scale_ceiling(), "M": scale_ceiling(),
                                 "k": count_ceiling(10**6, "<= 10^6 steps (unbounded above; the bound converges)")},
                       comparator_source="the exact mean gap and variance of noisy GD on m theta^2/2 - x theta "
                                         "(geometric sums of the linear-Gaussian chain)",
                       scope="an identity: the bound equals the exact privacy on the quadratic of curvature m")


_CYCLIC_REASON = (
    "the comparator (the worst record's exact mu on a quadratic, last batch of the cycle) is a function of the integers "
    "l = n/b and E through c^l and c^{lE}, and the margin vanishes at E = 1 (one Gaussian mechanism, equality) while "
    "the box must span E in [1, 10^9]: the check exact_cyclic_quadratic_below_bound decides it on a grid instead")
_CONVEX_REASON = (
    "the projected chain is not linear-Gaussian: no exact privacy is known to compare with (its derivation from the "
    "shift budget is the symbolic check constrained_from_shift_budget)")

FORMS: list[ItemForm] = [
    ItemForm("bok2024.thm_noisy_gd_strongly_convex_gdp", (Part("mu", _strongly_convex),)),
    ItemForm("bok2024.thm_noisy_cgd_strongly_convex_gdp", not_provable=_CYCLIC_REASON),
    ItemForm("bok2024.thm_noisy_gd_constrained_convex_gdp", not_provable=_CONVEX_REASON),
]
