"""How a catalogue item is put in provable form: :class:`ItemForm` (its parts, or why it cannot be proved here).

A part builds a :class:`~dpverify.prove.problem.ProofProblem` from the item -- from what the catalogue registers
(its symbols, hypotheses and conclusion: a mutant of the item flows through, so a widened hypothesis is proved or
refuted as it stands) -- with :func:`problem_for`. An item is proved when every part is; refuted when one is.

A part's comparator is the truth where the catalogue knows it exactly (``comparator_kind="exact"``), else a
rigorous upper bound (``"upper"``: a proof stands, a failure is reported as undecided, never as a refutation).
``scope`` says what was proved when it is less than the statement: "on the two-point parameter family", "through
the proof's chain of Lemmas 3 and 4 (each proved)".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping, Protocol, Sequence

import sympy as sp

from dpverify.prove.problem import ComparatorKind, ProofProblem, Relation, Scale, make_problem

__all__ = ["StatementLike", "Part", "ItemForm", "problem_for", "Widening", "Condition", "ItemVariant",
           "with_hypotheses"]


class StatementLike(Protocol):
    """What a part reads of a catalogue item (a :class:`~dpverify.theorems.base.Theorem`, or a variant of one with
    a hypothesis widened or dropped)."""

    @property
    def id(self) -> str: ...

    @property
    def symbols(self) -> Mapping[str, sp.Symbol]: ...

    @property
    def hypotheses(self) -> Sequence[Any]: ...

    @property
    def conclusion(self) -> Mapping[str, sp.Expr]: ...


@dataclass(frozen=True)
class Part:
    """One inequality of an item (``name``: "delta", "epsilon", "rdp", ...) and how to build its problem."""

    name: str
    build: Callable[[StatementLike], ProofProblem]


@dataclass(frozen=True)
class Condition:
    """A named hypothesis as a part reads it (the shape of :class:`~dpverify.theorems.base.Hypothesis`): what a form
    writes when it states an item's hypothesis in its own coordinates."""

    name: str
    condition: Any
    description: str = ""


@dataclass(frozen=True)
class ItemVariant:
    """An item whose hypotheses a form has replaced (rewritten in the part's coordinates, reduced, or some left
    out); everything else is the item's, so :func:`problem_for` reads it as it reads the item."""

    id: str
    symbols: Mapping[str, sp.Symbol]
    hypotheses: list
    conclusion: Mapping[str, sp.Expr]
    dropped: tuple[str, ...] = ()
    widen: Mapping[str, tuple] = field(default_factory=dict)


def with_hypotheses(item: StatementLike, hypotheses: Sequence[Any]) -> ItemVariant:
    """``item`` with ``hypotheses`` in place of its own (its ``dropped`` and ``widen``, where it is itself a
    variant, kept)."""
    return ItemVariant(item.id, item.symbols, list(hypotheses), item.conclusion, tuple(getattr(item, "dropped", ())),
                       dict(getattr(item, "widen", {})))


#: Per hypothesis name, the declared limits to use when that hypothesis is widened away (``{symbol: (lo, hi)}``).
Widening = Mapping[str, Mapping[str, tuple[Fraction | int | None, Fraction | int | None]]]


@dataclass(frozen=True)
class ItemForm:
    """An item's provable form: its parts, or the reason it has none (``not_provable``).

    ``widen``: for the hypothesis findings, the limits a symbol gets when a hypothesis that bounded it is dropped
    (default: 20 times the bound it had); ``keep``: hypotheses that define the item's objects rather than restrict
    its claim (a probability below 1), which the findings leave alone.
    """

    theorem_id: str
    parts: tuple[Part, ...] = ()
    not_provable: str = ""
    widen: Widening = field(default_factory=dict)
    keep: tuple[str, ...] = ()
    #: The outcome this version of dpverify reaches ("proved", "refuted", "undecided", "not provable"), and why
    #: when it is not "proved" (the erratum a refutation shows, what stops a proof): ``dpverify prove`` fails when
    #: an outcome differs from it.
    expected: str = "proved"
    why: str = ""
    #: The time limit a part gets by default, seconds, when it is less than the caller's (None: the caller's): an
    #: item expected undecided whose parts run to the limit says how long is worth trying; an explicit
    #: ``dpverify prove --max-seconds`` overrides it.
    part_seconds: float | None = None

    def __post_init__(self) -> None:
        if bool(self.parts) == bool(self.not_provable):
            raise ValueError(f"{self.theorem_id}: a form has parts or a not_provable reason, exactly one")
        if self.not_provable and self.expected == "proved":
            object.__setattr__(self, "expected", "not provable")
        if self.expected not in ("proved", "refuted", "undecided", "not provable"):
            raise ValueError(f"{self.theorem_id}: expected must be proved, refuted, undecided or not provable")
        if self.part_seconds is not None and not self.part_seconds > 0:
            raise ValueError(f"{self.theorem_id}: part_seconds must be positive; got {self.part_seconds!r}")
        if self.expected not in ("proved", "not provable") and not self.why:
            raise ValueError(f"{self.theorem_id}: an expected {self.expected} outcome needs its reason (why=)")


def problem_for(
    item: StatementLike,
    part: str,
    *,
    claimed: sp.Expr,
    comparator: sp.Expr,
    relation: Relation = ">=",
    declared: Mapping[str, tuple[object | None, object | None, str]] | None = None,
    scales: Mapping[str, Scale] | None = None,
    pointwise: Sequence[str] = (),
    margin: sp.Expr | None = None,
    scale: sp.Expr = sp.S.One,
    comparator_kind: ComparatorKind = "exact",
    comparator_source: str = "",
    scope: str = "",
    extra: Sequence[tuple[str, sp.Basic]] = (),
    quantity: str = "",
    project: bool = False,
) -> ProofProblem:
    """The problem of one part of ``item``: its hypotheses (and ``extra`` ones the family adds), the box from them
    and ``declared``; ``statement_id`` is ``"<id>[<part>]"``.

    ``project``: set aside the hypotheses on quantities the inequality does not contain (a friction, a step size
    that a condition ties to the others): the box is then larger than the statement's domain, so a proof stands
    and a failure refutes nothing (the problem is marked not refutable)."""
    hypotheses = [(h.name, h.condition) for h in item.hypotheses] + list(extra)
    notes: tuple[str, ...] = ()
    refutable = True
    if project:
        hypotheses, notes, refutable, scope = _projected(hypotheses, claimed, comparator, scope)
    dropped = tuple(getattr(item, "dropped", ()))
    declared = _declared_for(item, declared, dropped, _used_names(claimed, comparator, hypotheses, margin))
    return make_problem(f"{item.id}[{part}]", claimed=claimed, comparator=comparator, relation=relation,
                        hypotheses=hypotheses, declared=declared, scales=scales, pointwise=pointwise,
                        margin=margin, scale=scale, comparator_kind=comparator_kind, quantity=quantity or part,
                        comparator_source=comparator_source, scope=scope, dropped=dropped, notes=notes,
                        refutable=refutable)


def _projected(hypotheses: list[tuple[str, Any]], claimed: sp.Expr, comparator: sp.Expr,
               scope: str) -> tuple[list[tuple[str, Any]], tuple[str, ...], bool, str]:
    """(hypotheses, notes, refutable, scope) once the hypotheses on quantities that neither side of the
    inequality contains are set aside: a note and the scope name them, and the problem is then not refutable."""
    used = set()
    for e in (sp.sympify(claimed), sp.sympify(comparator)):
        used |= {s.name for s in e.free_symbols}
    kept = [(n, c) for n, c in hypotheses if {s.name for s in sp.sympify(c).free_symbols} <= used]
    aside = [n for n, _ in hypotheses if n not in {k for k, _ in kept}]
    if not aside:
        return kept, (), True, scope
    notes = (f"hypotheses set aside (they bound other quantities): {', '.join(aside)}",)
    return kept, notes, False, (scope + "; " if scope else "") + f"without {', '.join(aside)} (a larger domain)"


def _used_names(claimed: sp.Expr, comparator: sp.Expr, hypotheses: Sequence[tuple[str, Any]],
                margin: sp.Expr | None) -> set[str]:
    """The names of the symbols that the two sides, the hypotheses and the margin (if given) contain."""
    used_names = {s.name for e in [sp.sympify(claimed), sp.sympify(comparator)] + [sp.sympify(c) for _, c in hypotheses]
                  for s in e.free_symbols}
    if margin is not None:
        used_names |= {s.name for s in sp.sympify(margin).free_symbols}
    return used_names


def _declared_for(item: StatementLike, declared: Mapping[str, tuple[object | None, object | None, str]] | None,
                  dropped: tuple[str, ...],
                  used_names: set[str]) -> dict[str, tuple[object | None, object | None, str]]:
    """The declared limits of the symbols in use, with the wider range of a symbol whose bounding hypothesis the
    item dropped (its ``widen``) put in, end by end."""
    out = {k: v for k, v in (declared or {}).items() if k in used_names}
    for name, (lo, hi) in getattr(item, "widen", {}).items():  # a hypothesis dropped: its symbol's wider range
        if name in used_names:
            old = out.get(name, (None, None, ""))
            out[name] = (lo if lo is not None else old[0], hi if hi is not None else old[1],
                         f"widened ({', '.join(dropped)} dropped)")
    return out
