"""The catalogue, proved: each item's provable form (:mod:`dpverify.prove.forms`) decided by the prover.

:func:`prove_item` proves every part of one item and combines them into an :class:`ItemProof`: **proved** when
every part is, **refuted** when one is (a new erratum, or an encoding bug: the closing note of issue 35 says which
for each), **undecided** otherwise, or **not provable** here, with the reason, when the item has no rigorous
comparator. :func:`prove_all` runs the catalogue's items (the kinds privacy, rdp, composition, sensitivity and
step_size: :data:`PROVABLE_KINDS`).
"""
from __future__ import annotations

import difflib
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Literal, Mapping

from dpverify.prove.forms import FORMS
from dpverify.prove.forms.base import ItemForm, StatementLike
from dpverify.prove.problem import BoxError, ProofProblem
from dpverify.prove.results import Proof, ProofResult, Refutation, Undecided
from dpverify.prove.search import DEFAULT_PRECISION, Limits, prove
from dpverify.prove.widening import widened_ranges
from dpverify.theorems import registry
from dpverify.theorems.mutation import TheoremVariant

__all__ = ["PROVABLE_KINDS", "ItemProof", "form", "provable_ids", "item_problems", "prove_item", "prove_all"]

#: The kinds of catalogue items that state a privacy bound (each has a form: parts, or a reason it has none).
PROVABLE_KINDS = ("privacy", "rdp", "composition", "sensitivity", "step_size")

Outcome = Literal["proved", "refuted", "undecided", "not provable"]


def form(theorem_id: str) -> ItemForm:
    """The provable form of a catalogue item (KeyError naming close matches for an unknown ID)."""
    if theorem_id in FORMS:
        return FORMS[theorem_id]
    registry.get(theorem_id)  # an unknown ID raises here, naming close matches
    close = difflib.get_close_matches(theorem_id, list(FORMS), n=3)
    raise KeyError(f"{theorem_id} states no privacy bound to prove (its kind is "
                   f"{registry.get(theorem_id).kind!r}); items with a provable form: "
                   f"{', '.join(close) if close else 'see dpverify prove --all'}")


def provable_ids() -> list[str]:
    """Every catalogue item of a provable kind, in catalogue order."""
    return [t.id for t in registry.all_theorems() if t.kind in PROVABLE_KINDS]


def item_problems(theorem_id: str, *, item: StatementLike | None = None,
                  box: Mapping[str, tuple[object, object]] | None = None) -> list[tuple[str, ProofProblem]]:
    """``(part name, problem)`` for each part of an item (``item``: a variant of the catalogue's theorem, for the
    hypothesis findings); ``box`` overrides parameter ranges in every part that has the parameter."""
    f = form(theorem_id)
    if f.not_provable:
        return []
    statement = item if item is not None else registry.get(theorem_id)
    out = [(part.name, part.build(statement)) for part in f.parts]
    if box:
        known = {name for _, p in out for name in p.names}
        unknown = sorted(set(box) - known)
        if unknown:
            raise BoxError(f"{theorem_id}: no parameter {', '.join(unknown)} in any part; its parameters are "
                           f"{', '.join(sorted(known))}")
        out = [(name, p.with_box({k: v for k, v in box.items() if k in p.names})) for name, p in out]
    return out


@dataclass
class ItemProof:
    """One item's outcome and its parts' results."""

    theorem_id: str
    kind: str
    outcome: Outcome
    parts: list[tuple[str, ProofResult]] = field(default_factory=list)
    reason: str = ""
    seconds: float = 0.0

    @property
    def boxes(self) -> int:
        return sum(r.tree.leaves() if isinstance(r, Proof) else r.boxes for _, r in self.parts)

    def summary(self) -> str:
        if self.outcome == "not provable":
            return f"{self.theorem_id}: not provable here: {self.reason}"
        lines = [f"{self.theorem_id}: {self.outcome} ({self.seconds:.2f} s)"]
        lines += [f"  [{name}] {result.summary()}" for name, result in self.parts]
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.theorem_id, "kind": self.kind, "outcome": self.outcome, "reason": self.reason,
                "seconds": round(self.seconds, 3),
                "parts": [{"part": name, **result.to_dict()} for name, result in self.parts]}


def _combine(results: list[tuple[str, ProofResult]]) -> tuple[Outcome, str]:
    if any(isinstance(r, Refutation) for _, r in results):
        return "refuted", ""
    undecided = [(n, r) for n, r in results if isinstance(r, Undecided)]
    if undecided:
        return "undecided", "; ".join(f"[{n}] {r.reason}" for n, r in undecided)
    vacuous = [n for n, r in results if isinstance(r, Proof) and r.vacuous]
    if vacuous:
        return "undecided", f"parts {', '.join(vacuous)} lie wholly outside the hypotheses on this box"
    return "proved", ""


def prove_item(theorem_id: str, *, item: StatementLike | None = None,
               box: Mapping[str, tuple[object, object]] | None = None, drop: Iterable[str] = (),
               limits: Limits | None = None, precision: int = DEFAULT_PRECISION, stop_at_refutation: bool = True,
               progress: Callable[[int, int, float], None] | None = None,
               form_budget: bool = True) -> ItemProof:
    """Prove every part of a catalogue item (stops at the first refuted part unless ``stop_at_refutation`` is
    False). ``form_budget``: cap each part's time at the form's ``part_seconds`` where it declares one.
    ``drop``: hypotheses to leave out (a symbol they bounded gets the widened range of
    :func:`dpverify.prove.widening.widened_ranges`, or the ``box`` given)."""
    theorem = registry.get(theorem_id)
    f = form(theorem_id)
    drop = tuple(drop)
    if drop:
        names = [h.name for h in theorem.hypotheses]
        unknown = [d for d in drop if d not in names]
        if unknown:
            raise BoxError(f"{theorem_id} has no hypothesis {', '.join(unknown)}; its hypotheses are "
                           f"{', '.join(names)}")
        widen: dict = {}
        for d in drop:
            widen.update(widened_ranges(theorem, f, [p for _, p in item_problems(theorem_id)], d))
        item = TheoremVariant(theorem.id, dict(theorem.symbols), [h for h in theorem.hypotheses if h.name not in drop],
                              dict(theorem.conclusion), drop, widen)
    start = time.perf_counter()
    if f.not_provable:
        return ItemProof(theorem_id, theorem.kind, "not provable", reason=f.not_provable)
    limits = limits or Limits()
    if form_budget and f.part_seconds is not None and (limits.max_seconds is None
                                                        or limits.max_seconds > f.part_seconds):
        limits = replace(limits, max_seconds=f.part_seconds)
    results: list[tuple[str, ProofResult]] = []
    for name, problem in item_problems(theorem_id, item=item, box=box):
        result = _portfolio(problem, limits, precision, progress)
        results.append((name, result))
        if stop_at_refutation and isinstance(result, Refutation):
            break
    outcome, reason = _combine(results)
    return ItemProof(theorem_id, theorem.kind, outcome, results, reason, time.perf_counter() - start)


#: ``dpverify prove``'s time limit per part, seconds, unless given (``--max-seconds``) or the form declares less.
DEFAULT_PART_SECONDS = 120.0

#: The schedule of :func:`_portfolio`: the lemma's search for a short while, plain branch and bound for a while,
#: then the lemma's search for the rest (seconds, boxes of each of the first two phases).
QUICK_LEMMA = (2.0, 3000)
PLAIN = (6.0, 8000)


def _portfolio(problem: ProofProblem, limits: Limits, precision: int,
               progress: Callable[[int, int, float], None] | None) -> ProofResult:
    """Three phases: the search with the monotone lemma for a short while (most statements are decided there),
    plain branch and bound for a while (some prove faster without the lemma's sub-searches: a sum of many
    max(0, .) terms), then the lemma's search on the rest of the time and boxes. A proof or a refutation ends it;
    the result of an undecided run counts the boxes and seconds of every phase."""
    if not limits.monotone:
        return prove(problem, precision=precision, limits=limits, progress=progress)
    spent_seconds, spent_boxes, last = 0.0, 0, None
    phases = [(True, *QUICK_LEMMA), (False, *PLAIN), (True, None, None)]
    for monotone, seconds, boxes in phases:
        left_seconds = None if limits.max_seconds is None else limits.max_seconds - spent_seconds
        left_boxes = limits.max_boxes - spent_boxes
        if last is not None and ((left_seconds is not None and left_seconds <= 0.5) or left_boxes <= 0):
            break  # the first phase always runs, however short the limit
        phase_seconds = left_seconds if seconds is None else \
            (seconds if left_seconds is None else min(seconds, left_seconds))
        phase_boxes = left_boxes if boxes is None else min(boxes, left_boxes)
        result = prove(problem, precision=precision, progress=progress,
                       limits=replace(limits, monotone=monotone, max_seconds=phase_seconds, max_boxes=phase_boxes))
        spent_seconds += result.seconds
        spent_boxes += result.boxes
        if not isinstance(result, Undecided) or "comparator, " in result.reason:
            return result
        last = result
    assert last is not None
    last.boxes, last.seconds = spent_boxes, spent_seconds
    return last


def prove_all(ids: Iterable[str] | None = None, *, limits: Limits | None = None,
              precision: int = DEFAULT_PRECISION,
              on_item: Callable[[ItemProof], None] | None = None) -> list[ItemProof]:
    """:func:`prove_item` for ``ids`` (default: every item of a provable kind, :func:`provable_ids`)."""
    out = []
    for theorem_id in (list(ids) if ids is not None else provable_ids()):
        proof = prove_item(theorem_id, limits=limits, precision=precision)
        out.append(proof)
        if on_item is not None:
            on_item(proof)
    return out
