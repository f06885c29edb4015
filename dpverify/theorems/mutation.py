"""Mutation testing of the catalogue: perturb a registered conclusion and see which checks notice.

A theorem's checks are only worth something if they read what is registered. This module builds
*mutants* -- the catalogue with one conclusion of one theorem changed -- and runs that theorem's checks
against each; a mutant is *caught* when at least one check fails. Three perturbations:

- ``scale`` -- the conclusion times 3/2;
- ``shift`` -- the conclusion plus 1/100 (catches a check that only compares ratios or signs, and a
  conclusion that is 0 where ``scale`` changes nothing);
- ``drop:<i>`` -- one top-level argument of a sum, product, ``Min`` or ``Max`` removed (a factor 2
  dropped, a term of a bound forgotten, one branch of a ``max`` lost).

A perturbation that leaves the expression unchanged (``0 * 3/2``) is not a mutant and is skipped. Used by
``tests/test_catalogue_mutation.py`` (every mutant must be caught) and ``mutation/catalogue.py`` (the
table of which checks caught which mutant).

**Hypothesis mutants** (issue 35): the statement with one hypothesis dropped (:func:`hypothesis_mutants`,
:func:`without_hypothesis`: a :class:`TheoremVariant`, the item as the prover's forms read it). A dropped
hypothesis that bounded a symbol leaves it to a wider declared range (20 times the bound, or the form's own
widening): that is the "eps < 1 becoming eps < 20" mutant. Such a mutant is caught when the prover
(:mod:`dpverify.prove.hypotheses`) refutes the widened statement; a mutant the prover proves is no mutant (the
hypothesis is not needed on that box), which the findings report.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import sympy as sp

from dpverify.theorems.base import CheckResult, Theorem

__all__ = ["Mutant", "Outcome", "PERTURBATIONS", "mutants", "perturbed", "run_mutant", "run_catalogue",
           "HypothesisMutant", "TheoremVariant", "hypothesis_mutants", "without_hypothesis"]

#: The whole-expression perturbations (``drop`` is structural, see :func:`mutants`).
PERTURBATIONS: dict[str, Callable[[sp.Expr], sp.Expr]] = {
    "scale": lambda e: e * sp.Rational(3, 2),
    "shift": lambda e: e + sp.Rational(1, 100),
}
_DROPPABLE = (sp.Add, sp.Mul, sp.Min, sp.Max)


@dataclass(frozen=True)
class Mutant:
    """Conclusion ``key`` of theorem ``theorem_id`` replaced by ``expr`` (perturbation ``perturbation``)."""

    theorem_id: str
    key: str
    perturbation: str
    expr: sp.Expr


@dataclass
class Outcome:
    """The checks of the mutated theorem that failed (``caught_by``) and that ran, with their kinds."""

    mutant: Mutant
    caught_by: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    ran: int = 0
    seconds: float = 0.0

    @property
    def caught(self) -> bool:
        return bool(self.caught_by)


def _different(a: sp.Expr, b: sp.Expr) -> bool:
    """False when ``b`` is structurally ``a`` (e.g. ``0 * 3/2``), which is no mutant."""
    return sp.sympify(a) != sp.sympify(b)


def mutants(theorem: Theorem, perturbations: Iterable[str] = ("scale", "shift", "drop")) -> list[Mutant]:
    """Every mutant of ``theorem``'s conclusions under ``perturbations`` (``"drop"`` means all ``drop:<i>``)."""
    wanted = list(perturbations)
    unknown = [p for p in wanted if p not in PERTURBATIONS and p != "drop"]
    if unknown:
        raise ValueError(f"perturbations must be among {sorted(PERTURBATIONS) + ['drop']}; got {unknown}")
    out: list[Mutant] = []
    for key, expr in theorem.conclusion.items():
        for name in wanted:
            if name == "drop":
                if isinstance(expr, _DROPPABLE) and len(expr.args) > 1:
                    for i, _ in enumerate(expr.args):
                        new = expr.func(*(a for j, a in enumerate(expr.args) if j != i))
                        if _different(expr, new):
                            out.append(Mutant(theorem.id, key, f"drop:{i}", new))
                continue
            new = PERTURBATIONS[name](expr)
            if _different(expr, new):
                out.append(Mutant(theorem.id, key, name, new))
    return out


@contextmanager
def perturbed(theorem: Theorem, mutant: Mutant) -> Iterator[Theorem]:
    """``theorem`` with ``mutant`` applied to its registered conclusion, restored on exit."""
    if mutant.theorem_id != theorem.id:
        raise ValueError(f"mutant of {mutant.theorem_id} applied to {theorem.id}")
    original = theorem.conclusion[mutant.key]
    theorem.conclusion[mutant.key] = mutant.expr
    try:
        yield theorem
    finally:
        theorem.conclusion[mutant.key] = original


def _ordered_checks(theorem: Theorem, key: str):
    """Pins of ``key`` first (cheap and aimed at the conclusion), then the other checks in their order."""
    pins = [c for c in theorem.checks if key in c.pins]
    return pins + [c for c in theorem.checks if key not in c.pins]


def run_mutant(theorem: Theorem, mutant: Mutant, *, stop_at_first: bool = False) -> Outcome:
    """Run ``theorem``'s checks with ``mutant`` applied; ``stop_at_first`` stops at the first failing check."""
    out = Outcome(mutant)
    start = time.perf_counter()
    with perturbed(theorem, mutant):
        for check in _ordered_checks(theorem, mutant.key):
            result: CheckResult = check.run()
            out.ran += 1
            if not result.passed:
                out.caught_by.append(check.name)
                out.kinds.append(check.kind)
                if stop_at_first:
                    break
    out.seconds = time.perf_counter() - start
    return out


def run_catalogue(theorems: Iterable[Theorem], *, perturbations: Iterable[str] = ("scale", "shift", "drop"),
                  stop_at_first: bool = False, progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """:func:`run_mutant` for every mutant of every theorem in ``theorems`` (in order)."""
    outcomes = []
    perturbations = tuple(perturbations)
    for thm in theorems:
        for m in mutants(thm, perturbations):
            o = run_mutant(thm, m, stop_at_first=stop_at_first)
            outcomes.append(o)
            if progress is not None:
                progress(o)
    return outcomes


@dataclass(frozen=True)
class HypothesisMutant:
    """Theorem ``theorem_id`` with its hypothesis ``hypothesis`` dropped."""

    theorem_id: str
    hypothesis: str
    condition: str


@dataclass
class TheoremVariant:
    """A catalogue item with some hypotheses dropped: what the prover's forms read of an item (``id``,
    ``symbols``, ``hypotheses``, ``conclusion``), plus ``dropped`` (the names) and ``widen`` (``{symbol: (lo,
    hi)}``: the declared range a symbol gets where a dropped hypothesis bounded it)."""

    id: str
    symbols: dict
    hypotheses: list
    conclusion: dict
    dropped: tuple[str, ...] = ()
    widen: dict = field(default_factory=dict)


def without_hypothesis(theorem: Theorem, name: str, widen: dict | None = None) -> TheoremVariant:
    """``theorem`` without its hypothesis ``name`` (ValueError naming the hypotheses for an unknown name)."""
    names = [h.name for h in theorem.hypotheses]
    if name not in names:
        raise ValueError(f"{theorem.id} has no hypothesis {name!r}; its hypotheses are {names}")
    return TheoremVariant(theorem.id, dict(theorem.symbols), [h for h in theorem.hypotheses if h.name != name],
                          dict(theorem.conclusion), (name,), dict(widen or {}))


def hypothesis_mutants(theorem: Theorem) -> list[HypothesisMutant]:
    """One mutant per hypothesis that is not trivially true."""
    return [HypothesisMutant(theorem.id, h.name, str(h.condition)) for h in theorem.hypotheses
            if h.condition not in (sp.true, True)]
