"""Provable forms of the items of DP MCMC with the Barker acceptance test (Heikkilä et al. 2019) (issue 39).

- ``heikkila2019.thm_barker_step_rdp`` [rdp]: the claimed per-iteration bound against the exact Rényi divergence
  ``D_alpha(N(2u/sqrt(b), 2 - v1) || N(0, 2 - v2))`` (closed form of two normals) over the proof's family: one record
  moves the scaled batch mean by ``2u/sqrt(b)``, ``u in [0, 1]``, and the scaled batch variances are ``v1, v2 in [0,
  1]`` with ``|v1 - v2| <= 5/b`` (module :mod:`dpverify.calculus.barker`). Every released pair of the mechanism is in
  this family, so a proof is the theorem on it; a member above the claim would refute it. The comparator is an upper
  family (it contains pairs no batch realises), so the kind is "upper".
- the amplification, the composition and the condition: not provable in this form (reasons below).
"""
from __future__ import annotations

import sympy as sp

from dpverify.prove.forms.base import ItemForm, Part, StatementLike, problem_for
from dpverify.prove.forms.common import count_ceiling, symbol_of, unit_box, unit_symbol
from dpverify.prove.problem import ProofProblem

__all__ = ["FORMS"]


def _normal_renyi(a: sp.Expr, mu: sp.Expr, var1: sp.Expr, var2: sp.Expr) -> sp.Expr:
    """``D_a(N(mu, var1) || N(0, var2))``: ``log(var2/var1)/2 + log(var2/v*)/(2(a - 1)) + a mu^2/(2 v*)``, ``v* = a
    var2 + (1 - a) var1``."""
    vstar = a * var2 + (1 - a) * var1
    return sp.log(var2 / var1) / 2 + sp.log(var2 / vstar) / (2 * (a - 1)) + a * mu**2 / (2 * vstar)


def _step(item: StatementLike) -> ProofProblem:
    """Heikkilä et al., the per-iteration bound on the proof's family (module docstring). Declared: b <= 10^4 (so
    alpha < 2000)."""
    a, b = symbol_of(item, "alpha"), symbol_of(item, "tau")
    u, v1, v2 = unit_symbol("u"), unit_symbol("v1"), unit_symbol("v2")
    comparator = _normal_renyi(a, 2 * u / sp.sqrt(b), 2 - v1, 2 - v2)
    extra = unit_box("u", "v1", "v2") + [("variance_gap_up", b * (v1 - v2) <= 5),
                                         ("variance_gap_down", b * (v2 - v1) <= 5)]
    claimed = item.conclusion["rdp"]
    # both sides are O(alpha / b): the margin times b keeps the boxes' intervals at the size of the terms
    return problem_for(item, "rdp", claimed=claimed, comparator=comparator, margin=b * (claimed - comparator),
                       scale=1 / b,
                       declared={"tau": count_ceiling(10**4), "alpha": (None, 2000, "< b/5 <= 2000")},
                       extra=extra, comparator_kind="upper",
                       comparator_source="the closed-form Rényi divergence of two normal laws",
                       scope="the proof's family: mean shift 2u/sqrt(b), variances 2 - v1, 2 - v2, |v1 - v2| <= 5/b",
                       project=True)


FORMS: list[ItemForm] = [
    ItemForm("heikkila2019.thm_barker_step_rdp", parts=(Part("rdp", _step),), expected="undecided",
             why="five parameters (alpha, b, u, v1, v2) with the coupling b > 5 alpha: the branch and bound leaves "
                 "~26,000 boxes at 120 s (tried with and without the margin scaled by b); the bound's slack is "
                 "only 7% at the family's worst point (check dominates_normal_divergence_box: 0.929)",
             part_seconds=30.0),
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
