"""Provable forms of the items of DP MCMC with the Barker acceptance test (Heikkilä et al. 2019) (issue 39).

- ``heikkila2019.thm_barker_step_rdp`` [rdp]: the claimed per-iteration bound against the exact Rényi divergence
  ``D_alpha(N(2u/sqrt(b), 2 - v1) || N(0, 2 - v2))`` (closed form of two normals) over the proof's family: one record
  moves the scaled batch mean by ``2u/sqrt(b)``, ``u in [0, 1]``, and the scaled batch variances are ``v1, v2 in [0,
  1]`` with ``|v1 - v2| <= 5/b`` (module :mod:`dpverify.calculus.barker`). Every released pair of the mechanism is in
  this family, so a proof is the theorem on it. The comparator is an upper family (it contains pairs no batch
  realises), so the kind is "upper" and a failure refutes nothing.

  **Three parts, one per term** (:func:`_parts`). The claim is a sum of three terms and so is the divergence
  (``V1 = 2 - v1``, ``V2 = 2 - v2``, ``V* = alpha V2 + (1 - alpha) V1``)::

      claim = 5/(2b)          + log(2b/(b - 5 alpha))/(2(alpha - 1)) + 2 alpha/(b - 5 alpha)
      D     = log(V2/V1)/2    + log(V2/V*)/(2(alpha - 1))           + alpha (2u/sqrt b)^2/(2 V*)

  and each part proves one term of the claim >= the matching term of D (the variance term, the log term, the mean
  term); the three proofs add up to claim >= D. The claim's summands are sorted into the parts by
  :func:`claim_terms` (a perturbed claim flows through; the parts' claimed terms sum to the item's claim, checked
  there), and the three comparators sum to D (checked with sympy in tests/test_barker_prove.py).
  **Coordinates** ``t = (alpha - 1)/alpha``, ``s = 5 alpha/b`` (the domain ``1 < alpha < b/5`` is the open square
  ``(0, 1)^2``: no coupled constraint left), ``w = b (v1 - v2)/5 in [-1, 1]``, and ``y = 5/b = s (1 - t)``; then
  ``2b/(b - 5 alpha) = 2/(1 - s)``, ``1/(2(alpha - 1)) = (1 - t)/(2t)``, ``2 alpha/(b - 5 alpha) = (2/5) s/(1 - s)``,
  and ``V* = 2 - v1 + w s = 2 - v2 + w s t``. The parts (each on a box that contains the family's image):

  1. variance term, in (t, s, v1, w), ``V2 = V1 + w y``: ``y/2 >= log(1 + w y/(2 - v1))/2``, i.e. ``log(1 + x) <= x``
     with ``x <= y``; tight as b -> infinity (slack ``y^2/4 = 6.25/b^2`` at ``v1 = 1, w = 1``): the monotone lemma
     walks to the faces ``w = 1``, ``v1 = 1`` and the end ``y = 0``, where the margin is 0 symbolically (34 boxes);
  2. log term, in (t, s, v2, w): scale ``1/(2t)`` (positive; it carries the singular ``1/(alpha - 1)``, so alpha = 1
     needs no declared limit), margin ``(1 - t)(log 2 - log(1 - s) - log(2 - v2) + log(2 - v2 + w s t))``, at least
     ``(1 - t) log 2`` (``V2 <= 2``, ``V* >= 1 - s t``): 182 boxes;
  3. mean term, in (s, u, v1, w): scale 2/5, margin ``s/(1 - s) - s u^2/(2 - v1 + w s)``: the faces ``u = 1``, ``v1 =
     1``, ``w = -1`` give 0 symbolically (``V* >= 1 - s``, the proof's var* >= 1 - 5 alpha/b): 4 boxes.

  The whole item is proved in about 1.5 s (the whole bound in (alpha, b, u, v1, v2) left ~26,000 boxes at 120 s).
  **Declared limit** (every output states it): ``s <= 1 - 1e-9``, i.e. ``alpha <= (1 - 1e-9) b/5``: ``log(1 - s)``
  and ``1/(1 - s)`` are singular at alpha = b/5, where the claim is at least ``2 alpha/(b - 5 alpha) >= 4e8`` (no
  privacy). Nothing else is declared: b is unbounded (``y -> 0`` is the box's end t = 1 or s = 0) and alpha -> 1 is
  ``t -> 0``. The clip hypothesis bounds N, tau_T, C, which the inequality does not contain: it is set aside (a
  larger domain). A variant without ``order_above_one`` or ``batch_above_five_alpha`` (``dpverify prove --drop``)
  has no such coordinates: its three parts are then stated in (alpha, b, u, v1, v2), declared b <= 10^4.
- the amplification, the composition and the condition: not provable in this form (reasons below).
"""
from __future__ import annotations

from typing import Callable

import sympy as sp

from dpverify.prove.forms.base import Condition, ItemForm, Part, StatementLike, problem_for, with_hypotheses
from dpverify.prove.forms.common import count_ceiling, signed_box, signed_symbol, symbol_of, unit_box, unit_symbol
from dpverify.prove.problem import ProofProblem

__all__ = ["FORMS"]


#: The coordinates of the three parts (module docstring): ``t = (alpha - 1)/alpha``, ``s = 5 alpha / b`` (both in
#: (0, 1) on the statement's domain; positive symbols, so the scales below are positive by their assumptions) and
#: ``w = b (v1 - v2) / 5`` in [-1, 1].
_T = sp.Symbol("t", positive=True)
_S = sp.Symbol("s", positive=True)
_W = signed_symbol("w")
#: The declared upper end of s = 5 alpha / b: log(1 - s) and 1/(1 - s) are singular at alpha = b/5.
_S_MAX = 1 - sp.Rational(1, 10**9)
_DECLARED: dict[str, tuple[object | None, object | None, str]] = {
    "s": (None, _S_MAX, "<= 1 - 1e-9, i.e. alpha <= (1 - 1e-9) b/5 (the bound is singular at alpha = b/5; there "
                        "the claim is >= 2 alpha/(b - 5 alpha) >= 4e8: no privacy)"),
}
_FAMILY = ("the proof's family: mean shift 2u/sqrt(b), variances 2 - v1, 2 - v2, |v1 - v2| <= 5/b (a box in t = "
           "(alpha - 1)/alpha, s = 5 alpha/b, w = b (v1 - v2)/5 that contains it)")
#: The parts, in the order they are proved: one term of the claim against the matching term of the divergence each.
_PART_NAMES = ("variance term", "log term", "mean term")
#: The coordinate hypotheses: without either, the coordinates do not describe the domain and each term is proved in
#: the item's own coordinates (alpha, b) instead.
_COORDINATE_HYPOTHESES = ("order_above_one", "batch_above_five_alpha")


def _normal_renyi(a: sp.Expr, mu: sp.Expr, var1: sp.Expr, var2: sp.Expr) -> sp.Expr:
    """``D_a(N(mu, var1) || N(0, var2))``: ``log(var2/var1)/2 + log(var2/v*)/(2(a - 1)) + a mu^2/(2 v*)``, ``v* = a
    var2 + (1 - a) var1``."""
    vstar = a * var2 + (1 - a) * var1
    return sp.log(var2 / var1) / 2 + sp.log(var2 / vstar) / (2 * (a - 1)) + a * mu**2 / (2 * vstar)


def _divergence_terms(a: sp.Expr, b: sp.Expr, u: sp.Expr, v1: sp.Expr, v2: sp.Expr) -> tuple[sp.Expr, ...]:
    """The three terms of ``D_alpha(N(2u/sqrt(b), 2 - v1) || N(0, 2 - v2))`` (:func:`_normal_renyi`), in the item's
    coordinates: the variance term, the log term and the mean term."""
    var1, var2 = 2 - v1, 2 - v2
    vstar = a * var2 + (1 - a) * var1
    return (sp.log(var2 / var1) / 2, sp.log(var2 / vstar) / (2 * (a - 1)), a * (2 * u / sp.sqrt(b))**2 / (2 * vstar))


def _registered_terms(a: sp.Expr, b: sp.Expr) -> tuple[sp.Expr, ...]:
    """The three terms of the registered claim: ``5/(2b)``, ``log(2b/(b - 5 alpha))/(2(alpha - 1))``, ``2 alpha/(b -
    5 alpha)``."""
    return (sp.Rational(5, 2) / b, sp.log(2 * b / (b - 5 * a)) / (2 * (a - 1)), 2 * a / (b - 5 * a))


def claim_terms(claim: sp.Expr, a: sp.Symbol) -> tuple[sp.Expr, sp.Expr, sp.Expr]:
    """The claim's top-level summands sorted into the three parts: a summand with a log goes to the log term, one
    free of alpha to the variance term, any other to the mean term (a perturbed claim flows through: a dropped
    summand leaves its part with 0). The three sum to ``claim`` (a partition of its summands)."""
    groups: dict[str, list[sp.Expr]] = {name: [] for name in _PART_NAMES}
    for term in sp.Add.make_args(claim):
        key = "log term" if term.has(sp.log) else ("variance term" if a not in term.free_symbols else "mean term")
        groups[key].append(term)
    out = tuple(sp.Add(*groups[name]) for name in _PART_NAMES)
    if sp.Add(*out) != claim:
        raise ValueError("the claim's summands are not partitioned into the three parts")
    return out  # type: ignore[return-value]


def _in_coordinates(expr: sp.Expr, a: sp.Symbol, b: sp.Symbol) -> sp.Expr:
    """``expr`` (in alpha, b) at ``alpha = 1/(1 - t)``, ``b = 5/(s (1 - t))``, each log's argument and the rest
    cancelled."""
    e = expr.xreplace({a: 1 / (1 - _T), b: 5 / (_S * (1 - _T))})
    e = e.replace(lambda x: isinstance(x, sp.log), lambda x: sp.log(sp.factor(sp.cancel(x.args[0]))))
    return sp.factor_terms(sp.cancel(e)) if not e.has(sp.log) else e


def _parts(item: StatementLike) -> dict[str, ProofProblem]:
    """The three parts (module docstring), by name, built from the item's own conclusion and hypotheses: each the
    item's term (the registered one written in the coordinates, plus what a perturbed claim adds to it) against its
    term of the divergence."""
    a, b = symbol_of(item, "alpha"), symbol_of(item, "tau")
    claimed = claim_terms(item.conclusion["rdp"], a)
    registered = _registered_terms(a, b)
    names = {h.name for h in item.hypotheses}
    if not all(h in names for h in _COORDINATE_HYPOTHESES):
        return _parts_in_item_coordinates(item, claimed)
    u, v1, v2 = unit_symbol("u"), unit_symbol("v1"), unit_symbol("v2")
    t, s, w = _T, _S, _W
    y = s * (1 - t)  # 5/b
    others = [h for h in item.hypotheses if h.name not in _COORDINATE_HYPOTHESES]  # the clip bound: set aside
    coordinate_hyps = [Condition("order_finite", t < 1, "t = (alpha - 1)/alpha < 1 (alpha finite; alpha > 1 is t > 0)"),
                       Condition("batch_above_five_alpha", s < 1, "s = 5 alpha/b < 1")]
    # per part: the registered term of the claim, the comparator, the scale and the margin, in the coordinates
    hand = (y / 2, (1 - t) / (2 * t) * (sp.log(2) - sp.log(1 - s)), sp.Rational(2, 5) * s / (1 - s))
    comparators = (sp.log(1 + w * y / (2 - v1)) / 2,
                   (1 - t) / (2 * t) * (sp.log(2 - v2) - sp.log(2 - v2 + w * s * t)),
                   sp.Rational(2, 5) * s * u**2 / (2 - v1 + w * s))
    scales = (sp.S.One, 1 / (2 * t), sp.Rational(2, 5))
    margins = (y / 2 - comparators[0],
               (1 - t) * (sp.log(2) - sp.log(1 - s) - sp.log(2 - v2) + sp.log(2 - v2 + w * s * t)),
               s / (1 - s) - s * u**2 / (2 - v1 + w * s))
    boxes = (unit_box("v1"), unit_box("v2"), unit_box("u", "v1"))
    sources = ("log(V2/V1)/2, V1 = 2 - v1, V2 = V1 + w 5/b: the variance term of the closed-form Renyi divergence "
               "of two normal laws",
               "log(V2/V*)/(2(alpha - 1)), V2 = 2 - v2, V* = V2 + (alpha - 1) w 5/b: its log term",
               "alpha (2u/sqrt(b))^2/(2 V*), V* = 2 - v1 + 5 alpha w/b: its mean term")
    out = {}
    for i, name in enumerate(_PART_NAMES):
        claim_i, margin = hand[i], margins[i]
        if claimed[i] != registered[i]:  # a perturbed claim: what it adds to (or takes from) the registered term
            residual = sp.simplify(_in_coordinates(claimed[i], a, b) - _in_coordinates(registered[i], a, b))
            claim_i, margin = claim_i + residual, margin + residual / scales[i]
        used = claim_i.free_symbols | comparators[i].free_symbols  # the mean term has no t: no hypothesis on it
        variant = with_hypotheses(item, [h for h in coordinate_hyps if h.condition.free_symbols <= used] + others)
        out[name] = problem_for(
            variant, name, claimed=claim_i, comparator=comparators[i], margin=margin, scale=scales[i],
            declared=_DECLARED, extra=signed_box("w") + boxes[i], comparator_kind="upper", quantity=f"rdp ({name})",
            comparator_source=sources[i] + " (the three parts' comparators sum to the divergence of the family's "
                                           "pair; each is compared with its term of the claim, so the three proofs "
                                           "prove the sum)",
            scope=f"{_FAMILY}; the {name} of the claim against the {name} of the divergence", project=True)
    return out


def _parts_in_item_coordinates(item: StatementLike, claimed: tuple[sp.Expr, ...]) -> dict[str, ProofProblem]:
    """The three parts in the item's coordinates (alpha, b, u, v1, v2), for a variant without a hypothesis that the
    coordinates (t, s) need (``dpverify prove --drop``): each term against its term of the divergence on the family
    (declared b <= 10^4, alpha < 2000, as the whole-bound form had)."""
    a, b = symbol_of(item, "alpha"), symbol_of(item, "tau")
    u, v1, v2 = unit_symbol("u"), unit_symbol("v1"), unit_symbol("v2")
    terms = _divergence_terms(a, b, u, v1, v2)
    extra = unit_box("u", "v1", "v2") + [("variance_gap_up", b * (v1 - v2) <= 5),
                                         ("variance_gap_down", b * (v2 - v1) <= 5)]
    return {name: problem_for(item, name, claimed=claimed[i], comparator=terms[i],
                              declared={"tau": count_ceiling(10**4), "alpha": (None, 2000, "< b/5 <= 2000")},
                              extra=extra, comparator_kind="upper", quantity=f"rdp ({name})",
                              comparator_source=f"the {name} of the closed-form Renyi divergence of two normal laws",
                              scope=f"the proof's family, in (alpha, b); the {name} against its term of the "
                                    "divergence", project=True)
            for i, name in enumerate(_PART_NAMES)}


def _part(name: str) -> Callable[[StatementLike], ProofProblem]:
    """The builder of one part of :func:`_parts`."""
    return lambda item: _parts(item)[name]


FORMS: list[ItemForm] = [
    ItemForm("heikkila2019.thm_barker_step_rdp", tuple(Part(name, _part(name)) for name in _PART_NAMES)),
    ItemForm("heikkila2019.thm_subsampled_amplification",
             not_provable="the bound is a sum over the integer orders 3..alpha whose length is a parameter; the "
                          "comparator (the subsampled mixture's Rényi divergence) has no closed form. Checked "
                          "numerically against the exact canary divergence (check dominates_exact_canary_rdp)"),
    ItemForm("heikkila2019.cor_composed_dp",
             not_provable="composition and Mironov's conversion of the amplified bound: the comparator would be the "
                          "exact epsilon of T subsampled iterations, with no closed form (checked numerically: "
                          "claim_above_exact_canary)"),
    ItemForm("heikkila2019.cond_clip_and_noise",
             not_provable="a condition (a clip bound and a noise floor), not a privacy inequality; its content is "
                          "Popoviciu's inequality (check popoviciu_batch_variance)"),
]
