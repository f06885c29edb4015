"""The three outcomes of a proof attempt: :class:`Proof`, :class:`Refutation`, :class:`Undecided`.

Each keeps its :class:`~dpverify.prove.problem.ProofProblem`, the number of boxes evaluated and the time taken, says
itself in one line (:meth:`summary`: "proved on [box] (N boxes, s)", "refuted at [witness]", "undecided: why") and
turns into JSON at the edge (:meth:`to_dict`). A :class:`Proof` carries its box partition
(:attr:`Proof.tree`), from which :func:`dpverify.prove.certificate.certificate` writes the certificate that
:mod:`dpverify.prove.checker` re-verifies.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Context, Decimal
from fractions import Fraction
from typing import Any, Literal

from dpverify.prove.problem import ProofProblem

__all__ = ["Node", "Proof", "Refutation", "Undecided", "ProofResult", "UndecidedBox", "short_number"]


def short_number(text: str, digits: int = 12) -> str:
    """A high-precision decimal string shortened to ``digits`` significant digits, its exponent kept
    ("4.0723586257612345e-79" -> "4.07235862576e-79"); text that is not a number is returned as it is."""
    try:
        value = Decimal(text.strip())
    except Exception:
        return text
    if not value.is_finite():
        return text
    return format(Context(prec=digits).plus(value), "g")

Box = tuple[tuple[Fraction, Fraction], ...]


@dataclass
class Node:
    """One box of the partition. ``kind``: ``"split"`` (``info``: the parameter index and the split point; two
    children), ``"enclosure"`` (``info``: the margin's interval, lower end >= 0), ``"excluded"`` (``info``: the
    constraint index and its interval, certainly violated), ``"monotone"`` (``info``: the parameter index, the
    direction, whether the face was substituted symbolically; two children: the proof that the signed derivative
    is >= 0 on the box, then the proof on the face),
    ``"substitute"`` (``info``: the index of a pointwise parameter that is a single value on this box, substituted
    into the expression; one child: the same box), ``"undecided"`` (``info``: the reason), ``"open"``."""

    box: Box
    kind: str = "open"
    info: tuple = ()
    children: list["Node"] = field(default_factory=list)
    #: the prover's expression context for this box (not part of the certificate)
    ctx: Any = field(default=None, repr=False, compare=False)

    def leaves(self) -> int:
        if not self.children:
            return 1
        return sum(child.leaves() for child in self.children)


def _box_dict(problem: ProofProblem, box: Box) -> dict[str, list[str]]:
    return {p.name: [_frac(lo), _frac(hi)] for p, (lo, hi) in zip(problem.parameters, box)}


def _frac(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _box_text(problem: ProofProblem, box: Box) -> str:
    parts = []
    for p, (lo, hi) in zip(problem.parameters, box):
        if lo == hi:
            parts.append(f"{p.name} = {_num(lo)}")
        else:
            parts.append(f"{p.name} in [{_num(lo)}, {_num(hi)}]")
    return ", ".join(parts)


def _num(value: Fraction) -> str:
    if value.denominator == 1 and abs(value.numerator) < 10**9:
        return str(value.numerator)
    return f"{float(value):.6g}"


def _scope(problem: ProofProblem) -> str:
    parts = []
    if problem.declared_text():
        parts.append(f"declared limits: {problem.declared_text()}")
    if problem.scope:
        parts.append(problem.scope)
    if problem.dropped:
        parts.append(f"hypotheses dropped: {', '.join(problem.dropped)}")
    if problem.comparator_kind == "upper":
        parts.append("against a rigorous upper bound on the truth")
    return "; ".join(parts)


@dataclass
class Proof:
    """``margin >= 0`` on every point of the box where the hypotheses hold."""

    problem: ProofProblem
    tree: Node
    boxes: int
    seconds: float
    precision: int
    excluded: int = 0
    outcome: Literal["proved"] = "proved"

    @property
    def vacuous(self) -> bool:
        """True when every leaf lies outside a hypothesis (the box proves nothing)."""
        return self.excluded == self.tree.leaves()

    def summary(self) -> str:
        scope = _scope(self.problem)
        head = "proved (vacuously: the whole box lies outside the hypotheses)" if self.vacuous else "proved"
        where = f"on {self.problem.box_text()}" if self.problem.parameters else \
            "identically (no parameter is left once the expressions are simplified)"
        return (f"{head} {where} ({self.tree.leaves()} boxes, {self.seconds:.2f} s)"
                + (f" [{scope}]" if scope else ""))

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "statement": self.problem.statement_id, "version": self.problem.version,
                "box": self.problem.box_text(), "declared": self.problem.declared_text(), "scope": self.problem.scope,
                "dropped": list(self.problem.dropped), "comparator_kind": self.problem.comparator_kind,
                "leaves": self.tree.leaves(), "boxes_evaluated": self.boxes, "excluded_leaves": self.excluded,
                "vacuous": self.vacuous, "seconds": round(self.seconds, 3), "precision": self.precision,
                "summary": self.summary()}


@dataclass
class Refutation:
    """A box on which ``margin < 0`` for sure and every hypothesis holds, and a witness point in it re-evaluated
    with mpmath at high precision."""

    problem: ProofProblem
    box: Box
    margin: tuple[str, str]
    witness: dict[str, Fraction]
    claimed_value: str
    comparator_value: str
    boxes: int
    seconds: float
    precision: int
    digits: int = 50
    outcome: Literal["refuted"] = "refuted"

    def witness_text(self) -> str:
        return ", ".join(f"{name} = {_num(v)}" for name, v in self.witness.items())

    def summary(self) -> str:
        rel = self.problem.relation
        quantity = f"{self.problem.quantity} " if self.problem.quantity else ""
        scope = _scope(self.problem)
        return (f"refuted at [{self.witness_text()}]: {quantity}claimed {short_number(self.claimed_value)} "
                f"{'<' if rel == '>=' else '>'} comparator {short_number(self.comparator_value)} "
                f"(box {_box_text(self.problem, self.box)}; {self.boxes} boxes, {self.seconds:.2f} s)"
                + (f" [{scope}]" if scope else ""))

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "statement": self.problem.statement_id, "version": self.problem.version,
                "box": _box_dict(self.problem, self.box), "margin": list(self.margin),
                "witness": {k: _frac(v) for k, v in self.witness.items()},
                "witness_float": {k: float(v) for k, v in self.witness.items()},
                "claimed_at_witness": self.claimed_value, "comparator_at_witness": self.comparator_value,
                "digits": self.digits, "boxes_evaluated": self.boxes, "seconds": round(self.seconds, 3),
                "declared": self.problem.declared_text(), "scope": self.problem.scope,
                "dropped": list(self.problem.dropped), "summary": self.summary()}


@dataclass(frozen=True)
class UndecidedBox:
    box: Box
    reason: str


@dataclass
class Undecided:
    """Neither proved nor refuted within the limits: the boxes left and why."""

    problem: ProofProblem
    left: list[UndecidedBox]
    boxes: int
    seconds: float
    precision: int
    reason: str
    outcome: Literal["undecided"] = "undecided"

    def summary(self) -> str:
        first = self.left[0] if self.left else None
        where = f"; first: {_box_text(self.problem, first.box)} ({first.reason})" if first else ""
        return (f"undecided: {self.reason} ({len(self.left)} boxes left after {self.boxes} evaluated, "
                f"{self.seconds:.2f} s{where})")

    def to_dict(self) -> dict[str, Any]:
        return {"outcome": self.outcome, "statement": self.problem.statement_id, "version": self.problem.version,
                "reason": self.reason, "boxes_left": len(self.left),
                "left": [{"box": _box_dict(self.problem, b.box), "reason": b.reason} for b in self.left[:20]],
                "boxes_evaluated": self.boxes, "seconds": round(self.seconds, 3),
                "declared": self.problem.declared_text(), "scope": self.problem.scope,
                "dropped": list(self.problem.dropped), "summary": self.summary()}


ProofResult = Proof | Refutation | Undecided
