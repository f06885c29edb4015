"""Provable forms of the items of the Gibbs posterior (Minami et al. 2016) and the regularised exponential mechanism
(Gopi et al. 2022).

Comparators (the exact privacy of an admissible family where every law is Gaussian; a claim below it is refuted):

- ``gopi2022.thm_gdp_strongly_convex_lipschitz``: F = m x^2 / 2 and F~ - F = -s x with 0 <= s <= L (a linear,
  L-Lipschitz perturbation of an m-strongly convex quadratic): P = N(0, 1/m), Q = N(s/m, 1/m), exactly
  ``s / sqrt(m)``-GDP (the Mahalanobis distance of the means). Claimed ``mu_gdp`` >= that on the box s = L u,
  u in [0, 1]; equality at u = 1 (the statement is tight);
- ``gopi2022.thm_regularized_em_gdp``: linear losses f_i(x) = -<z_i, x>, |z_i| <= G (convex, G-Lipschitz): the law is
  N(sum z / (N mu), I / (k mu)) and a replaced record moves sum z by d <= 2 G: exactly ``d sqrt(k mu) / (N mu)``-GDP,
  d = 2 G u, u in [0, 1];
- ``minami2016.lem_gibbs_privacy_loss_concentration``: the Gibbs posterior of the linear loss with the prior
  N(0, 1/m) is a Gaussian shift of Mahalanobis distance a u (u in [0, 1], a = 2 beta L / sqrt(m)): its delta at the
  claimed epsilon, ``Phi(-eps / (a u) + a u / 2) - e^eps Phi(-eps / (a u) - a u / 2)`` (Balle and Wang 2018, Thm 8,
  in erfc form), must be <= the claim's delta;
- ``minami2016.thm_gibbs_posterior_dp``: not provable here (its conclusion is a threshold on beta; see the reason).
"""
from __future__ import annotations

import sympy as sp

from dpverify.prove.forms.base import ItemForm, Part, StatementLike, problem_for
from dpverify.prove.forms.common import scale_ceiling, symbol_of, unit_box, unit_symbol
from dpverify.prove.problem import ProofProblem

__all__ = ["FORMS"]


def _gdp_lemma(item: StatementLike) -> ProofProblem:
    """Gopi et al., the GDP lemma, on the Gaussian family (module docstring): claimed ``mu_gdp`` >= ``L u / sqrt(m)``,
    u in [0, 1]. Declared: L, m <= 1000."""
    lip, m = symbol_of(item, "L"), symbol_of(item, "m")
    u = unit_symbol("u")
    comparator = lip * u / sp.sqrt(m)
    scale = lip / sp.sqrt(m)  # positive: the margin (claimed - comparator) / scale is 1 - u for the encoded claim
    return problem_for(item, "mu_gdp", claimed=item.conclusion["mu_gdp"], comparator=comparator,
                       margin=sp.simplify((item.conclusion["mu_gdp"] - comparator) / scale), scale=scale,
                       declared={"L": scale_ceiling(), "m": scale_ceiling()}, extra=unit_box("u"),
                       comparator_source="the exact GDP (Mahalanobis distance) of N(0, 1/m) and N(L u / m, 1/m)",
                       scope="the Gaussian family: F = m x^2/2, F~ - F = -L u x, u in [0, 1]")


def _regularized_em(item: StatementLike) -> ProofProblem:
    """Gopi et al., the regularised exponential mechanism, on the linear-loss family (module docstring): claimed
    ``mu_gdp`` >= ``2 G u sqrt(k mu) / (N mu)``, u in [0, 1]. Declared: G, mu, k, N <= 1000."""
    lip, m, k, n = (symbol_of(item, name) for name in ("L", "m", "beta", "N"))
    u = unit_symbol("u")
    comparator = 2 * lip * u * sp.sqrt(k * m) / (n * m)
    scale = 2 * lip * sp.sqrt(k) / (n * sp.sqrt(m))  # positive: the margin is 1 - u for the encoded claim
    return problem_for(item, "mu_gdp", claimed=item.conclusion["mu_gdp"], comparator=comparator,
                       margin=sp.simplify((item.conclusion["mu_gdp"] - comparator) / scale), scale=scale,
                       declared={"L": scale_ceiling(), "m": scale_ceiling(), "beta": scale_ceiling(),
                                 "N": scale_ceiling()}, extra=unit_box("u"),
                       comparator_source="the exact GDP of the two Gaussian laws N(sum z / (N mu), I / (k mu)) of a "
                                         "pair whose sums differ by 2 G u",
                       scope="linear losses -<z, x>, |z| <= G: every replace-one pair (sum moved by 2 G u, u in "
                             "[0, 1])")


def _gaussian_delta(eps: sp.Expr, mu: sp.Expr) -> sp.Expr:
    """``Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)`` in erfc form (``Phi(x) = erfc(-x / sqrt 2) / 2``)."""
    phi = lambda x: sp.erfc(-x / sp.sqrt(2)) / 2  # noqa: E731
    return phi(-eps / mu + mu / 2) - sp.exp(eps) * phi(-eps / mu - mu / 2)


def _minami_lemma(item: StatementLike) -> ProofProblem:
    """Minami et al., the concentration lemma, on the Gaussian family: delta >= the Gaussian shift's delta at the
    claimed epsilon, the shift a u (a = 2 beta L / sqrt(m), u in (0, 1]). Declared: beta, L, m <= 1000."""
    beta, lip, m, delta = (symbol_of(item, name) for name in ("beta", "L", "m", "delta"))
    u = unit_symbol("u")
    shift = 2 * beta * lip * u / sp.sqrt(m)
    return problem_for(item, "delta", claimed=delta, comparator=_gaussian_delta(item.conclusion["epsilon"], shift),
                       declared={"beta": scale_ceiling(), "L": scale_ceiling(), "m": scale_ceiling(),
                                 "delta": (None, 1, "< 1 (a probability)")},
                       extra=unit_box("u"),
                       comparator_source="the exact hockey-stick divergence of the Gaussian shift a u at the claimed "
                                         "epsilon (Balle and Wang 2018, Thm 8)",
                       scope="the linear loss with the prior N(0, 1/m): every pair (shift a u, u in [0, 1])")


_THRESHOLD_REASON = (
    "the conclusion is a threshold beta_max on the inverse temperature, valid for epsilon <= 1; the comparator would "
    "be the largest beta at which the Gaussian instance is (epsilon, delta)-DP, the root of an erfc equation with no "
    "closed form. The statement follows from minami2016.lem_gibbs_privacy_loss_concentration (symbolic check "
    "follows_from_the_concentration_lemma), whose form is proved or decided here")

_LEMMA_WHY = (
    "the comparator Phi(-eps/(a u) + a u/2) - e^eps Phi(-eps/(a u) - a u/2) has eps/(a u) unbounded on boxes touching "
    "u = 0 or beta = 0 and log(1/delta) unbounded as delta -> 0, so interval enclosures get no sign there (the margin "
    "tends to delta there, not to 0); 90 s left 43219 of 98823 boxes (4 parameters and u). The statement is checked "
    "numerically (exact_gaussian_instance_below, logistic_instance_below) and its derivation symbolically")

FORMS: list[ItemForm] = [
    ItemForm("gopi2022.thm_gdp_strongly_convex_lipschitz", (Part("mu_gdp", _gdp_lemma),)),
    ItemForm("gopi2022.thm_regularized_em_gdp", (Part("mu_gdp", _regularized_em),)),
    ItemForm("minami2016.lem_gibbs_privacy_loss_concentration", (Part("delta", _minami_lemma),),
             expected="undecided", why=_LEMMA_WHY, part_seconds=20.0),
    ItemForm("minami2016.thm_gibbs_posterior_dp", not_provable=_THRESHOLD_REASON),
]
