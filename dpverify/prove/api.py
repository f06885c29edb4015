"""``prove``: one entry point for a catalogue item, a :class:`ProofProblem`, or a researcher's own bound.

    from dpverify.prove import prove
    prove("wang2015.thm2_gaussian_mechanism")                 # every part of a catalogue item -> ItemProof
    prove(problem)                                            # a ProofProblem -> Proof / Refutation / Undecided
    prove(claimed=..., comparator=..., box={...})             # your own bound -> Proof / Refutation / Undecided

Your own bound: ``claimed`` and ``comparator`` are sympy expressions, or Python functions of the parameters that
build one (called once with sympy symbols named after their arguments, so ``lambda epsilon, delta: ...`` written
with ``sympy.exp``, ``sympy.erfc``, ``sympy.log``); ``box`` maps each parameter to ``(lo, hi)`` (numbers or strings
such as ``"1e-10"``, taken exactly). ``relation=">="`` proves ``claimed >= comparator`` on the whole box (``"<="``
the reverse); ``hypotheses`` (sympy relations, or ``(name, relation)`` pairs) restrict it. Use exact numbers in
the formulas (``sympy.Rational(5, 4)``, not ``1.25``). A parameter whose range spans three decades or more is split
on a log scale.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Iterable, Mapping, TypeAlias, overload

import sympy as sp

from dpverify.prove.catalogue import ItemProof, prove_item
from dpverify.prove.problem import (
    BoxError,
    ComparatorKind,
    ProofProblem,
    Relation,
    Scale,
    make_problem,
    parse_number,
)
from dpverify.prove.results import ProofResult
from dpverify.prove.search import DEFAULT_PRECISION, Limits
from dpverify.prove.search import prove as _search

__all__ = ["prove", "custom_problem"]

Formula: TypeAlias = "sp.Basic | Callable[..., sp.Basic]"


def _symbols_for(box: Mapping[str, tuple[object, object]]) -> dict[str, sp.Symbol]:
    out = {}
    for name, (lo, _) in box.items():
        low = parse_number(lo, f"{name}'s lower end")
        out[name] = sp.Symbol(name, positive=True) if low > 0 else \
            sp.Symbol(name, nonnegative=True) if low == 0 else sp.Symbol(name, real=True)
    return out


def _formula(value: Formula, symbols: Mapping[str, sp.Symbol], what: str) -> sp.Expr:
    if callable(value) and not isinstance(value, sp.Basic):
        params = list(inspect.signature(value).parameters)
        missing = [p for p in params if p not in symbols]
        if missing:
            raise BoxError(f"{what} takes {', '.join(missing)}, which the box does not give a range for")
        value = value(**{p: symbols[p] for p in params})
    expr = sp.sympify(value)
    by_name = {s.name: s for s in symbols.values()}
    unknown = sorted({s.name for s in expr.free_symbols} - set(by_name))
    if unknown:
        raise BoxError(f"{what} uses {', '.join(unknown)}, which the box does not give a range for")
    # the user's symbols may carry other assumptions: use the box's ones, matched by name
    return expr.xreplace({s: by_name[s.name] for s in expr.free_symbols})


def custom_problem(*, claimed: Formula, comparator: Formula, box: Mapping[str, tuple[object, object]],
                   relation: Relation = ">=", hypotheses: Iterable[Any] = (),
                   comparator_kind: ComparatorKind = "exact", name: str = "custom") -> ProofProblem:
    """The :class:`ProofProblem` of a researcher's own bound (module docstring)."""
    if not box:
        raise BoxError("box must give a range (lo, hi) for every parameter")
    symbols = _symbols_for(box)
    claimed_e = _formula(claimed, symbols, "claimed")
    comparator_e = _formula(comparator, symbols, "comparator")
    hyps = []
    for i, h in enumerate(hypotheses):
        hname, rel = h if isinstance(h, tuple) else (f"hypothesis_{i + 1}", h)
        hyps.append((hname, _formula(rel, symbols, f"hypothesis {hname}")))
    declared: dict[str, tuple[object | None, object | None, str]] = {}
    scales: dict[str, Scale] = {}
    for pname, (lo, hi) in box.items():
        lo_f, hi_f = parse_number(lo, f"{pname}'s lower end"), parse_number(hi, f"{pname}'s upper end")
        if lo_f > hi_f:
            raise BoxError(f"{pname}: the range [{lo}, {hi}] is reversed (lower end above the upper)")
        declared[pname] = (lo_f, hi_f, "the box asked for")
        if lo_f > 0 and hi_f / lo_f >= 1000:
            scales[pname] = "log"
    used = {s.name for e in [claimed_e, comparator_e] + [r for _, r in hyps] for s in e.free_symbols}
    declared = {k: v for k, v in declared.items() if k in used}
    problem = make_problem(name, claimed=claimed_e, comparator=comparator_e, relation=relation, hypotheses=hyps,
                           declared=declared, scales=scales, comparator_kind=comparator_kind)
    # the box asked for is the box: no "declared limit" notes on it
    return problem.with_box({p.name: (box[p.name][0], box[p.name][1]) for p in problem.parameters if p.name in box})


@overload
def prove(target: str, *, box: Mapping[str, tuple[object, object]] | None = ..., limits: Limits | None = ...,
          precision: int = ..., progress: Callable[[int, int, float], None] | None = ...,
          drop: Iterable[str] = ...) -> ItemProof: ...


@overload
def prove(target: ProofProblem | None = ..., *, claimed: Formula | None = ..., comparator: Formula | None = ...,
          box: Mapping[str, tuple[object, object]] | None = ..., relation: Relation = ...,
          hypotheses: Iterable[Any] = ..., comparator_kind: ComparatorKind = ..., name: str = ...,
          limits: Limits | None = ..., precision: int = ...,
          progress: Callable[[int, int, float], None] | None = ...) -> ProofResult: ...


def prove(target: str | ProofProblem | None = None, *, claimed: Formula | None = None,
          comparator: Formula | None = None, box: Mapping[str, tuple[object, object]] | None = None,
          relation: Relation = ">=", hypotheses: Iterable[Any] = (), comparator_kind: ComparatorKind = "exact",
          name: str = "custom", limits: Limits | None = None, precision: int = DEFAULT_PRECISION,
          progress: Callable[[int, int, float], None] | None = None, drop: Iterable[str] = ()) -> ProofResult | ItemProof:
    """Prove a catalogue item (by ID: an :class:`~dpverify.prove.catalogue.ItemProof`; ``drop``: hypotheses to
    leave out, as ``dpverify prove --drop``), a :class:`~dpverify.prove.problem.ProofProblem`, or your own bound
    (module docstring)."""
    if isinstance(target, str):
        if claimed is not None or comparator is not None:
            raise ValueError("give a catalogue ID or claimed= and comparator=, not both")
        return prove_item(target, box=box, drop=drop, limits=limits, precision=precision, progress=progress)
    if tuple(drop):
        raise ValueError("drop= names hypotheses of a catalogue item: give its ID")
    if isinstance(target, ProofProblem):
        problem = target.with_box(box) if box else target
        return _search(problem, precision=precision, limits=limits, progress=progress)
    if target is not None:
        raise TypeError(f"prove takes a catalogue ID, a ProofProblem or claimed=/comparator=/box=; got "
                        f"{type(target).__name__}")
    if claimed is None or comparator is None or box is None:
        raise ValueError("a bound of your own needs claimed=, comparator= and box=")
    problem = custom_problem(claimed=claimed, comparator=comparator, box=box, relation=relation,
                             hypotheses=hypotheses, comparator_kind=comparator_kind, name=name)
    return _search(problem, precision=precision, limits=limits, progress=progress)

