"""The ranges a hypothesis's symbols get when it is dropped (:mod:`dpverify.prove.hypotheses`, ``dpverify prove
--drop``): the form's ``widen`` limits where it declares them, else 20 times the bound the hypothesis set (an upper
bound ``b > 0`` becomes ``20 b``; a positive lower bound ``a`` becomes ``a / 20``)."""
from __future__ import annotations

from fractions import Fraction
from typing import Any, Sequence

import sympy as sp

from dpverify.prove.forms.base import ItemForm
from dpverify.prove.problem import ProofProblem

__all__ = ["WIDEN_FACTOR", "widened_ranges"]

#: How far a dropped bound is widened by default.
WIDEN_FACTOR = 20


def widened_ranges(theorem: Any, item_form: ItemForm, problems: Sequence[ProofProblem],
                   hypothesis: str) -> dict[str, tuple[Fraction | None, Fraction | None]]:
    """The ranges the symbols bounded by ``hypothesis`` (of the catalogue item ``theorem``, whose provable form
    is ``item_form`` and whose problems are ``problems``) get when it is dropped."""
    f = item_form
    if hypothesis in f.widen:
        return {k: (None if lo is None else Fraction(lo), None if hi is None else Fraction(hi))
                for k, (lo, hi) in f.widen[hypothesis].items()}
    condition = next(h.condition for h in theorem.hypotheses if h.name == hypothesis)
    out: dict[str, tuple[Fraction | None, Fraction | None]] = {}
    for problem in problems:
        for p in problem.parameters:
            if str(condition).replace(" ", "") not in p.origin.replace(" ", ""):
                continue
            lo, hi = out.get(p.name, (None, None))
            region = _solution_interval(condition, p.name)  # solved once for both ends
            bound_hi = region is not None and region.end.is_finite is True
            bound_lo = region is not None and region.start.is_finite is True and region.start > 0
            if bound_hi:
                hi = p.hi * WIDEN_FACTOR if p.hi > 0 else p.hi + WIDEN_FACTOR
            if bound_lo:
                lo = p.lo / WIDEN_FACTOR if p.lo > 0 else p.lo - WIDEN_FACTOR
            out[p.name] = (lo, hi)
    return out


def _solution_interval(condition: sp.Basic, name: str) -> sp.Interval | None:
    """The set of ``name`` on which the one-symbol ``condition`` holds, when sympy finds it to be an interval."""
    sym = next(s for s in condition.free_symbols if s.name == name)
    try:
        region = sp.solve_univariate_inequality(condition, sym, relational=False)
    except (NotImplementedError, ValueError, TypeError):
        return None
    return region if isinstance(region, sp.Interval) else None
