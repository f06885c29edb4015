"""Which hypotheses a statement needs: each one dropped in turn, and the statement proved or refuted without it.

For every hypothesis of an item (:func:`hypothesis_findings`) the prover decides the item with that hypothesis
dropped (:func:`dpverify.theorems.mutation.without_hypothesis`). Where the hypothesis bounded a symbol the range
widens to the form's ``widen`` limits, else to 20 times the bound it had (an upper bound ``b > 0`` becomes
``20 b``; a positive lower bound ``a`` becomes ``a / 20``): the "eps < 1 becoming eps < 20" of issue 35. Outcomes:

- **needed**: the widened statement is refuted. Narrower widenings are then tried (:data:`NARROWER`): the
  narrowest one still refuted supplies the witness, which is moved as close to the original domain as the claim
  still fails (bisection along the widened coordinate, each point re-checked in interval arithmetic), so it reads
  as "just outside"; the widest one proved, if any, says how far the statement holds beyond its hypothesis;
- **not needed on this box**: the widened statement is proved (the statement is narrower than true);
- **undecided**: neither, within the limits;
- **definitional**: the hypothesis only puts a probability in (0, 1) (delta < 1): it defines the symbol and is
  kept.

Each finding keeps the :class:`~dpverify.prove.catalogue.ItemProof` of its variant. These are the catalogue's
hypothesis mutants (``mutation/catalogue.py --hypotheses``): a mutant is caught when its finding is "needed".
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Literal

import sympy as sp

from dpverify.prove.catalogue import ItemProof, form, item_problems, prove_item
from dpverify.prove.compile import compile_expression
from dpverify.prove.intervals import DomainError, Interval, working_precision
from dpverify.prove.problem import ProofProblem
from dpverify.prove.results import Refutation, short_number
from dpverify.prove.search import DEFAULT_PRECISION, Limits, witness_values
from dpverify.prove.widening import widened_ranges
from dpverify.theorems import registry
from dpverify.theorems.mutation import TheoremVariant, without_hypothesis

__all__ = ["HypothesisFinding", "hypothesis_findings", "widening"]

Verdict = Literal["needed", "not needed on this box", "undecided", "definitional"]

#: Symbols that are probabilities (a failure probability, a slack): a hypothesis putting one in (0, 1) defines the
#: symbol rather than restricting the claim, and is reported as "definitional" instead of dropped.
PROBABILITIES = ("delta", "delta_prime", "delta_1", "delta_2", "delta_xi", "delta_tilde", "delta_bar", "q", "gamma")


def _definitional(condition: sp.Basic) -> bool:
    """``p < 1``, ``p <= 1``, ``p > 0`` for a probability ``p``."""
    free = condition.free_symbols
    if len(free) != 1 or next(iter(free)).name not in PROBABILITIES:
        return False
    if not isinstance(condition, sp.core.relational.Relational):
        return False
    lhs, rhs = condition.lhs, condition.rhs
    return (isinstance(condition, (sp.StrictLessThan, sp.LessThan)) and rhs == 1 and lhs.is_Symbol) or \
        (isinstance(condition, (sp.StrictGreaterThan, sp.GreaterThan)) and rhs == 0 and lhs.is_Symbol)



@dataclass
class HypothesisFinding:
    """One hypothesis of one item, dropped: the verdict, the widened ranges and, when needed, the witness."""

    theorem_id: str
    hypothesis: str
    condition: str
    verdict: Verdict
    widened: dict[str, tuple[Fraction | None, Fraction | None]]
    proof: ItemProof
    witness: dict[str, Fraction] | None = None
    part: str = ""
    claimed_value: str = ""
    comparator_value: str = ""
    seconds: float = 0.0
    #: the largest of the narrower widenings on which the statement was still proved (empty: none tried or none)
    holds_to: dict[str, tuple[Fraction | None, Fraction | None]] = field(default_factory=dict)

    def summary(self) -> str:
        ranges = ", ".join(f"{k} to {_end(lo, hi)}" for k, (lo, hi) in self.widened.items())
        what = f"{self.hypothesis} ({self.condition}) dropped" + (f", {ranges}" if ranges else "")
        if self.verdict == "needed" and self.witness is not None:
            point = ", ".join(f"{k} = {float(v):.6g}" for k, v in self.witness.items())
            beyond = ""
            if self.holds_to:
                beyond = "; still proved with " + ", ".join(f"{k} {_end(lo, hi)}"
                                                            for k, (lo, hi) in self.holds_to.items())
            return (f"{what}: needed -- [{self.part}] fails at {point} (claimed {short_number(self.claimed_value)} vs "
                    f"comparator {short_number(self.comparator_value)}){beyond}")
        if self.verdict == "definitional":
            return f"{self.hypothesis} ({self.condition}): kept (it defines the range of a probability)"
        if self.verdict == "not needed on this box":
            boxes = "; ".join(r.problem.box_text() for _, r in self.proof.parts)
            return f"{what}: not needed on {boxes}"
        return f"{what}: undecided ({self.proof.reason or self.proof.outcome})"

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.theorem_id, "hypothesis": self.hypothesis, "condition": self.condition,
                "verdict": self.verdict, "part": self.part,
                "widened": {k: [None if lo is None else str(lo), None if hi is None else str(hi)]
                            for k, (lo, hi) in self.widened.items()},
                "witness": None if self.witness is None else {k: str(v) for k, v in self.witness.items()},
                "witness_float": None if self.witness is None else {k: float(v) for k, v in self.witness.items()},
                "claimed_at_witness": self.claimed_value, "comparator_at_witness": self.comparator_value,
                "outcome": self.proof.outcome, "seconds": round(self.seconds, 3), "summary": self.summary()}


def _end(lo: Fraction | None, hi: Fraction | None) -> str:
    parts = []
    if lo is not None:
        parts.append(f">= {float(lo):.6g}")
    if hi is not None:
        parts.append(f"<= {float(hi):.6g}")
    return " and ".join(parts)


def widening(theorem_id: str, hypothesis: str) -> dict[str, tuple[Fraction | None, Fraction | None]]:
    """The ranges the symbols bounded by ``hypothesis`` get when it is dropped (module docstring;
    :func:`dpverify.prove.widening.widened_ranges` on the item's form and problems)."""
    return widened_ranges(registry.get(theorem_id), form(theorem_id), [p for _, p in item_problems(theorem_id)],
                          hypothesis)


#: The narrower widenings tried after a refutation, as fractions of the way (geometrically) from the original
#: bound to the widened one: a bound b widened to 20 b is tried at b 20^(1/4), b 20^(1/16), b 20^(1/64).
NARROWER = (Fraction(1, 4), Fraction(1, 16), Fraction(1, 64))


def _scaled(theorem_id: str, widened: dict, fraction: Fraction) -> dict:
    """The widening ``fraction`` of the way (geometrically) from each original bound to its widened end."""
    originals = {p.name: p for _, problem in item_problems(theorem_id) for p in problem.parameters}
    out = {}
    for name, (lo, hi) in widened.items():
        p = originals.get(name)
        if p is None:
            out[name] = (lo, hi)
            continue
        new_lo, new_hi = lo, hi
        if hi is not None and p.hi > 0 and hi > p.hi:
            new_hi = max(Fraction(float(p.hi) * (float(hi) / float(p.hi)) ** float(fraction)).limit_denominator(10**9),
                         p.hi)
        if lo is not None and p.lo > 0 and lo < p.lo:
            new_lo = min(Fraction(float(p.lo) * (float(lo) / float(p.lo)) ** float(fraction)).limit_denominator(10**9),
                         p.lo)
        out[name] = (new_lo, new_hi)
    return out


def _closest_failure(problem: ProofProblem, witness: dict[str, Fraction], original: ProofProblem | None,
                     precision: int) -> dict[str, Fraction]:
    """Move the witness toward the original box along each widened coordinate while the claim still certainly
    fails there (bisection, 40 steps, each point evaluated in interval arithmetic with the hypotheses kept)."""
    if original is None:
        return witness
    names = problem.names
    margin = compile_expression(problem.goal, names)
    gaps = [(c, compile_expression(c.gap, names)) for c in problem.constraints]

    def fails(point: dict[str, Fraction]) -> bool:
        ivs = [Interval.rational(point[n]) for n in names]
        try:
            for c, g in gaps:
                v = g(*ivs)
                if not (v.lo > 0 or (not c.strict and v.lo >= 0)):
                    return False
            return bool(margin(*ivs).hi < 0)
        except DomainError:
            return False

    best = dict(witness)
    with working_precision(precision):
        for p in problem.parameters:
            if p.name not in original.names:
                continue
            o = original.parameter(p.name)
            v = best[p.name]
            if o.lo <= v <= o.hi:
                continue
            inside = o.hi if v > o.hi else o.lo
            bad, good = v, inside
            for _ in range(40):
                mid = (bad + good) / 2
                if p.integer:
                    mid = Fraction(math.floor(mid)) if v > o.hi else Fraction(math.ceil(mid))
                    if mid in (bad, good):
                        break
                trial = {**best, p.name: mid}
                if fails(trial):
                    bad = mid
                else:
                    good = mid
            best[p.name] = Fraction(bad).limit_denominator(10**12) if not p.integer else bad
            if not fails(best):  # the rounded point must still fail; else keep the exact bisection end
                best[p.name] = bad
    return best


def hypothesis_findings(theorem_id: str, *, limits: Limits | None = None, precision: int = DEFAULT_PRECISION,
                        on_finding: Callable[[HypothesisFinding], None] | None = None) -> list[HypothesisFinding]:
    """Drop each hypothesis of a catalogue item in turn and prove the item without it (module docstring)."""
    theorem = registry.get(theorem_id)
    f = form(theorem_id)
    if f.not_provable:
        return []
    originals = dict(item_problems(theorem_id))
    out = []
    for h in theorem.hypotheses:
        if h.condition in (sp.true, True) or h.name in f.keep:
            continue
        start = time.perf_counter()
        if _definitional(h.condition):
            out.append(HypothesisFinding(theorem_id, h.name, str(h.condition), "definitional", {},
                                         ItemProof(theorem_id, theorem.kind, "proved")))
            if on_finding is not None:
                on_finding(out[-1])
            continue
        widened = widening(theorem_id, h.name)
        variant: TheoremVariant = without_hypothesis(theorem, h.name, widened)
        proof = prove_item(theorem_id, item=variant, limits=limits, precision=precision)
        holds_to: dict[str, tuple[Fraction | None, Fraction | None]] = {}
        if proof.outcome == "refuted" and widened:
            # narrower widenings: the smallest one still refuted gives a witness just outside the hypothesis, the
            # largest one proved says how far the statement holds beyond it
            for fraction in NARROWER:
                narrow = _scaled(theorem_id, widened, fraction)
                attempt = prove_item(theorem_id, item=without_hypothesis(theorem, h.name, narrow), limits=limits,
                                     precision=precision)
                if attempt.outcome == "refuted":
                    proof, widened = attempt, narrow
                else:
                    if attempt.outcome == "proved":
                        holds_to = narrow
                    break
        finding = HypothesisFinding(theorem_id, h.name, str(h.condition),
                                    "needed" if proof.outcome == "refuted" else
                                    "not needed on this box" if proof.outcome == "proved" else "undecided",
                                    widened, proof, holds_to=holds_to)
        refuted = next(((n, r) for n, r in proof.parts if isinstance(r, Refutation)), None)
        if refuted is not None:
            name, result = refuted
            point = _closest_failure(result.problem, result.witness, originals.get(name), precision)
            finding.part, finding.witness = name, point
            claimed, comparator = witness_values(result.problem, point)
            finding.claimed_value = sp.sstr(claimed, full_prec=False)
            finding.comparator_value = sp.sstr(comparator, full_prec=False)
        finding.seconds = time.perf_counter() - start
        out.append(finding)
        if on_finding is not None:
            on_finding(finding)
    return out
