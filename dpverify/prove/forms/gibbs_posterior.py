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
  N(0, 1/m) is a Gaussian shift of Mahalanobis distance s = a u (u in (0, 1], a = 2 beta L / sqrt(m)): its delta at
  the claimed epsilon, ``D(s) = Phi(-x) - e^eps Phi(-x - s)`` with ``x = eps/s - s/2`` (Balle and Wang 2018, Thm 8,
  in erfc form), must be <= the claim's delta. Three parts (:func:`_minami_parts`; the box in ``mu = a`` and
  ``ell = sqrt(2 log(1/delta))``, so beta, L, m enter only through a and delta = exp(-ell^2/2); the coordinate is
  named mu, as Lemma 4.1's shift in :mod:`~dpverify.prove.forms.bertazzi2025`, whose form proves the same statement
  at u = 1: named a, the same problem takes another path through the branch and bound and was undecided at 30 s):

  1. ``delta (worst pair, u = 1)``: delta >= D(a), the exact delta of the pair at the largest shift (a refutation
     here refutes the item);
  2. ``delta (every pair, first term)``: delta >= Phi(-x(u)) on u in [1e-9, 1], against the first term of D (an upper
     bound on it: comparator kind "upper");
  3. ``first term >= exact delta``: Phi(-x(u)) >= D(a u) on the same box, the exact D as comparator: the margin is
     the dropped term ``e^eps Phi(-x - s)``, which one enclosure shows >= 0.

  2 and 3 chain: part 2's comparator is part 3's claimed quantity (the same sympy expression, checked by
  :func:`_minami_parts`), so delta >= Phi(-x) >= D on the box; 1 is the case u = 1 of that chain, kept for its exact
  comparator. Why the chain and not D itself on the 3-dimensional box: the positive term e^eps Phi(-x - s) has an
  enclosure as wide as e^(width of eps) and a u-derivative with no certain sign, so the branch and bound split a and
  u forever (60 s left 18695 boxes); Phi(-x) alone is increasing in u and decreasing in a with certain signs, so the
  monotone lemma decides it in about 400 boxes. **The pairs with u < 1e-9** (a declared limit: x = eps/(a u) - a u/2
  is unbounded as u -> 0, where no enclosure is finite) follow from the same chain by two facts that the parts
  do not certify and that are proved here: ``e^eps Phi(-x - s) >= 0`` (D <= Phi(-x) for every u > 0), and for the
  registered claim ``x(u) = ell/u + a (1 - u)(1 + u)/(2u)`` whose u-derivative ``-ell/u^2 - a (1 + u^2)/(2u^2)`` is
  <= 0, so for u < 1e-9, ``D(a u) <= Phi(-x(u)) <= Phi(-x(1e-9)) <= delta`` by part 2 at u = 1e-9 (both facts are
  checked with sympy in tests/test_gibbs_posterior_prove.py). The human proof is the chain at u = 1: Phi(-ell) <=
  exp(-ell^2/2)/2 <= delta, which part 2 contains;
- ``minami2016.thm_gibbs_posterior_dp``: not provable here (its conclusion is a threshold on beta; see the reason).
- ``minami2016.prop_approximate_sampling``: the TV transfer is Bertazzi et al. 2025's Prop. 3.2 (i) with the same
  inputs (epsilon, delta, kappa, R_n), so its comparator is that item's: the hockey-stick gap of every event over the
  probabilities an (eps, delta)-DP reference pair and TV moves of gamma = kappa R_n allow (attained by two-point laws;
  :data:`dpverify.prove.forms.bertazzi2025.FORMS`' ``delta`` part of ``bertazzi2025.prop32_tv_to_dp``, reused). It
  covers every admissible pair, ULA's on the Gibbs potential among them (which sits far inside: its exact delta is at
  most 0.0037 of the claim on the catalogue's grid), so an erfc comparator of the ULA family would prove nothing more.
"""
from __future__ import annotations

from typing import Any, Callable

import sympy as sp

from dpverify.prove.comparators import normal_cdf
from dpverify.prove.forms.base import ItemForm, Part, StatementLike, problem_for, with_hypotheses
from dpverify.prove.forms.bertazzi2025 import ELL, delta_of_ell
from dpverify.prove.forms.bertazzi2025 import FORMS as BERTAZZI_FORMS
from dpverify.prove.forms.common import LOG, scale_ceiling, symbol_of, unit_box, unit_symbol
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


#: Minami et al.'s coordinates: ``mu = a = 2 beta L / sqrt(m)`` (the shift of the worst pair, named mu as the lemma's
#: a-GDP parameter and Lemma 4.1's shift; beta, L, m enter the lemma only through it) and
#: ``ell = sqrt(2 log(1/delta))`` (:data:`~dpverify.prove.forms.bertazzi2025.ELL`).
_MU = sp.Symbol("mu", nonnegative=True)
#: The smallest pair in the box, as a fraction u of the largest shift: x = eps/(mu u) - mu u/2 is unbounded as u -> 0.
_U_MIN = sp.Rational(1, 10**9)
_MINAMI_DECLARED: dict[str, tuple[object | None, object | None, str]] = {
    "mu": (None, 100, "<= 100 (mu = a = 2 beta L / sqrt(m) is unbounded above as m -> 0; the claimed epsilon is then "
                     ">= 5000: no privacy)"),
    "ell": (None, 38, "<= 38, i.e. delta >= exp(-722) ~ 2.6e-314 (log(1/delta) is unbounded as delta -> 0; covers "
                      "delta >= 1e-300)"),
    "u": (_U_MIN, None, ">= 1e-9 (eps/(mu u) is unbounded as u -> 0; the pairs below follow from the parts by two "
                        "facts proved in the form's docstring: the dropped term is >= 0 and x decreases in u)"),
}
_MINAMI_FAMILY = "the linear loss with the prior N(0, 1/m), a Gaussian shift mu u of the worst pair's mu"
_MINAMI_BOX = "box in mu = a = 2 beta L / sqrt(m) and ell = sqrt(2 log(1/delta))"


def _minami_parts(item: StatementLike) -> dict[str, ProofProblem]:
    """The three parts of the concentration lemma (module docstring), by name, built from the item's own
    conclusion (a perturbed claim flows through).

    With ``beta = mu sqrt(m) / (2 L)`` and ``delta = exp(-ell^2/2)`` the claim is ``eps = mu^2/2 + mu ell``; the pair
    at shift ``s = mu u`` has ``x = eps/s - s/2``, written ``ell/u + mu (1 - u)(1 + u)/(2u)`` (no mu/u - mu u
    cancellation, so its enclosure is tight) plus what a perturbed claim adds (0 for the registered one). Raises
    ValueError if part 2's comparator is not part 3's claimed quantity (the chain)."""
    beta, lip, m, delta = (symbol_of(item, name) for name in ("beta", "L", "m", "delta"))
    u = unit_symbol("u")
    subs = {beta: _MU * sp.sqrt(m) / (2 * lip), delta: delta_of_ell()}
    eps = sp.expand(item.conclusion["epsilon"].xreplace(subs))
    shift = _MU * u
    tight = ELL / u + _MU * (1 - u) * (1 + u) / (2 * u)
    rest = sp.simplify(sp.expand(eps / shift) - shift / 2 - tight)
    x = tight + rest
    first = normal_cdf(-x)
    exact = first - sp.exp(eps) * normal_cdf(-x - shift)
    worst = exact.xreplace({u: 1})
    hyps = []
    for h in item.hypotheses:
        cond = sp.sympify(h.condition).xreplace(subs)
        if cond not in (sp.true, True):
            hyps.append(type(h)(h.name, cond, getattr(h, "description", "")))
    variant = with_hypotheses(item, hyps)

    def problem(name: str, claimed: sp.Expr, comparator: sp.Expr, **kwargs: Any) -> ProofProblem:
        return problem_for(variant, name, claimed=claimed, comparator=comparator, declared=_MINAMI_DECLARED,
                           scales={"u": LOG}, **kwargs)

    parts = {
        "delta (worst pair, u = 1)": problem(
            "delta (worst pair, u = 1)", delta_of_ell(), worst, quantity="delta",
            comparator_source="the exact delta of the pair at the largest shift mu at the claimed epsilon, Phi(-x) - "
                              "e^eps Phi(-x - mu) (Balle and Wang 2018, Thm 8)",
            scope=f"{_MINAMI_FAMILY}: its worst pair (u = 1), exact; {_MINAMI_BOX}"),
        "delta (every pair, first term)": problem(
            "delta (every pair, first term)", delta_of_ell(), first, extra=unit_box("u"), comparator_kind="upper",
            quantity="delta",
            comparator_source="Phi(-x), x = eps/(mu u) - mu u/2: the first term of the pair's exact delta, an upper "
                              "bound on it (part 'first term >= exact delta')",
            scope=f"{_MINAMI_FAMILY}: every pair with u in [1e-9, 1] through the first term of its exact delta (the "
                  f"pairs with u < 1e-9: see the declared limit); {_MINAMI_BOX}"),
        "first term >= exact delta": problem(
            "first term >= exact delta", first, exact, extra=unit_box("u"), quantity="Phi(-x), the first term",
            comparator_source="the exact delta of the Gaussian shift mu u at the claimed epsilon, Phi(-x) - e^eps "
                              "Phi(-x - mu u) (Balle and Wang 2018, Thm 8); the margin is the dropped term",
            scope=f"{_MINAMI_FAMILY}: every pair with u in [1e-9, 1], a link of the chain (part 'delta (every pair, "
                  f"first term)' compares the claim with this part's left side); {_MINAMI_BOX}"),
    }
    if parts["delta (every pair, first term)"].comparator != parts["first term >= exact delta"].claimed:
        raise ValueError(f"{item.id}: the chain is broken (part 2's comparator is not part 3's claimed quantity)")
    return parts


#: The parts, in the order they are proved (the exact one first: a wrong claim is refuted there).
_MINAMI_PART_NAMES = ("delta (worst pair, u = 1)", "delta (every pair, first term)", "first term >= exact delta")


def _minami_part(name: str) -> Callable[[StatementLike], ProofProblem]:
    """The builder of one part of :func:`_minami_parts`."""
    return lambda item: _minami_parts(item)[name]


_THRESHOLD_REASON = (
    "the conclusion is a threshold beta_max on the inverse temperature, valid for epsilon <= 1; the comparator would "
    "be the largest beta at which the Gaussian instance is (epsilon, delta)-DP, the root of an erfc equation with no "
    "closed form. The statement follows from minami2016.lem_gibbs_privacy_loss_concentration (symbolic check "
    "follows_from_the_concentration_lemma), whose form is proved or decided here")

FORMS: list[ItemForm] = [
    ItemForm("gopi2022.thm_gdp_strongly_convex_lipschitz", (Part("mu_gdp", _gdp_lemma),)),
    ItemForm("gopi2022.thm_regularized_em_gdp", (Part("mu_gdp", _regularized_em),)),
    ItemForm("minami2016.lem_gibbs_privacy_loss_concentration",
             tuple(Part(name, _minami_part(name)) for name in _MINAMI_PART_NAMES), keep=("delta_positive",)),
    ItemForm("minami2016.thm_gibbs_posterior_dp", not_provable=_THRESHOLD_REASON),
]


def _bertazzi_transfer_part() -> Part:
    """The ``delta`` part of ``bertazzi2025.prop32_tv_to_dp``'s form (the event-level comparator of the TV transfer),
    which reads an item's epsilon, delta, kappa, R_n and its ``delta`` conclusion: the Minami item has exactly those."""
    form = next(f for f in BERTAZZI_FORMS if f.theorem_id == "bertazzi2025.prop32_tv_to_dp")
    return next(p for p in form.parts if p.name == "delta")


FORMS.append(ItemForm("minami2016.prop_approximate_sampling", (_bertazzi_transfer_part(),)))
