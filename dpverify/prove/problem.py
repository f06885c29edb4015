"""What the prover proves: a :class:`ProofProblem` -- a claimed quantity, a comparator, a box and the hypotheses.

A privacy statement says that a quantity it gives (the *claimed* value: a delta, an epsilon, an RDP curve, a noise
scale, a step-size bound) is on the safe side of the truth (the *comparator*: the exact privacy of the mechanism, or
a rigorous bound on it) wherever its hypotheses hold:

    claimed >= comparator      (relation ">=": a claimed delta, epsilon or RDP value must not be below the truth)
    claimed <= comparator      (relation "<=": a claimed step size must not exceed the largest safe one)

The prover shows ``margin >= 0`` on a box, where ``margin * scale`` is ``claimed - comparator`` (or its negative for
"<="), ``scale`` is symbolically positive and ``margin`` is the form the statement's author found easiest to bound
(often the plain difference; a ratio where both sides vanish together). The identity is checked with sympy when the
problem is made, and again by the independent checker.

**The box.** Each parameter ranges over a closed interval with exact rational ends: the closure of what its
symbol's assumptions (positive, integer) and the statement's one-symbol hypotheses (``epsilon < 1``) allow,
narrowed only where a side is unbounded or singular (``delta`` near 0: ``log(1/delta)`` has no bound) by a
*declared* limit that every output states (:attr:`Parameter.declared`). Hypotheses that tie several symbols
together (``T >= N eps^2 / (32 tau log(2/delta))``) are :class:`Constraint` s: a box on which one is certainly false
is outside the statement and is set aside (recorded as such), never counted as proved or refuted.

Comparator kinds: ``"exact"`` (the truth itself; a proof and a refutation are both possible), ``"upper"`` (a
rigorous upper bound on the truth: a proof against it is a proof, a failure is no refutation) and ``"lower"`` (a
rigorous lower bound: only refutations count).
"""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Iterable, Literal, Mapping, Sequence

import sympy as sp
from sympy.printing.repr import ReprPrinter

__all__ = [
    "BoxError",
    "Parameter",
    "Constraint",
    "ProofProblem",
    "make_problem",
    "parse_number",
]

Relation = Literal[">=", "<="]
ComparatorKind = Literal["exact", "upper", "lower"]
Scale = Literal["linear", "log"]


class BoxError(ValueError):
    """A box (or a range of one parameter) that cannot be proved on: empty, reversed, NaN, infinite, or outside
    what its symbol allows."""


def parse_number(text: object, what: str) -> Fraction:
    """An exact rational from user input: ``"1e-10"``, ``"0.05"``, ``"1/3"``, an int, a Fraction, or a float
    (taken as the decimal it prints as, so ``0.1`` is one tenth). NaN and infinities are a :class:`BoxError`."""
    if isinstance(text, bool):
        raise BoxError(f"{what} must be a number; got {text!r}")
    if isinstance(text, Fraction):
        return text
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise BoxError(f"{what} must be a finite number; got {text!r}")
        return Fraction(repr(text))
    raw = str(text).strip()
    if raw.lower() in ("nan", "+nan", "-nan", "inf", "+inf", "-inf", "infinity", "-infinity", "+infinity"):
        raise BoxError(f"{what} must be a finite number; got {raw!r}")
    try:
        return Fraction(raw)
    except (ValueError, ZeroDivisionError):
        raise BoxError(f"{what} must be a number such as 0.05, 1e-10 or 1/3; got {raw!r}") from None


@dataclass(frozen=True)
class Parameter:
    """One coordinate of the box: ``name`` in ``[lo, hi]`` (exact rationals).

    ``integer``: only integers count (the prover splits ``[a, b]`` into ``[a, m]`` and ``[m + 1, b]``; on an interval
    the expression is read at real values, so it must be defined between integers unless ``pointwise``).
    ``pointwise``: the expression is only defined at single values of this integer (a ``Sum`` up to it): it is split
    down to points before anything is evaluated. ``scale``: ``"log"`` splits at geometric means (for ranges over
    many orders of magnitude; a range from 0 is split at 1/64 of its upper end). ``origin``: where the range comes from (for the reader).
    ``declared``: non-empty when the range is narrower than the statement's domain, saying why (an unbounded or a
    singular side); every output repeats it.
    """

    name: str
    lo: Fraction
    hi: Fraction
    integer: bool = False
    pointwise: bool = False
    scale: Scale = "linear"
    origin: str = ""
    declared: str = ""

    def __post_init__(self) -> None:
        for end in ("lo", "hi"):
            value = getattr(self, end)
            if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
                raise BoxError(f"{self.name}: the {'lower' if end == 'lo' else 'upper'} end must be an exact "
                               f"rational (int or Fraction); got {value!r}")
            object.__setattr__(self, end, Fraction(value))
        if self.lo > self.hi:
            raise BoxError(f"{self.name}: the range [{self.lo}, {self.hi}] is empty (lower end above the upper)")
        if self.integer and (self.lo.denominator != 1 or self.hi.denominator != 1):
            raise BoxError(f"{self.name} is an integer: its range must have integer ends; got [{self.lo}, {self.hi}]")
        if self.scale not in ("linear", "log"):
            raise BoxError(f"{self.name}: scale must be 'linear' or 'log'; got {self.scale!r}")
        if self.scale == "log" and self.lo < 0:
            raise BoxError(f"{self.name}: a log-scale range needs a non-negative lower end; got {self.lo}")
        if self.pointwise and not self.integer:
            raise BoxError(f"{self.name}: only an integer parameter can be pointwise")

    def text(self) -> str:
        """``name in [lo, hi]`` with short decimal ends."""
        return f"{self.name} in [{_short(self.lo)}, {_short(self.hi)}]"

    def to_dict(self) -> dict:
        return {"name": self.name, "lo": _fraction_text(self.lo), "hi": _fraction_text(self.hi),
                "integer": self.integer, "pointwise": self.pointwise, "scale": self.scale,
                "origin": self.origin, "declared": self.declared}


def _fraction_text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def _short(value: Fraction) -> str:
    if value.denominator == 1 and abs(value.numerator) < 10**7:
        return str(value.numerator)
    return f"{float(value):.6g}"


@dataclass(frozen=True)
class Constraint:
    """A hypothesis as a sympy relational; :attr:`gap` is ``>= 0`` (``> 0`` when :attr:`strict`) where it holds."""

    name: str
    relation: sp.Basic
    description: str = ""

    @property
    def gap(self) -> sp.Expr:
        rel = self.relation
        if isinstance(rel, (sp.StrictLessThan, sp.LessThan)):
            return sp.sympify(rel.rhs - rel.lhs)
        if isinstance(rel, (sp.StrictGreaterThan, sp.GreaterThan)):
            return sp.sympify(rel.lhs - rel.rhs)
        raise TypeError(f"hypothesis {self.name}: only <, <=, >, >= can be proved on; got {rel}")

    @property
    def strict(self) -> bool:
        return isinstance(self.relation, (sp.StrictLessThan, sp.StrictGreaterThan))


class _CanonicalRepr(ReprPrinter):
    """sympy's ``srepr`` with the arguments of ``Max`` and ``Min`` sorted (they are a set, whose order follows the
    process's string hashing, PYTHONHASHSEED) and no ``dummy_index`` (a process-wide counter): plain ``srepr`` gave
    one problem several versions."""

    def _print_Dummy(self, expr: sp.Dummy) -> str:  # a summation index: its dummy_index is a process counter
        return "Dummy" + self._print_Symbol(expr)[len("Dummy"):].split(", dummy_index=")[0].rstrip(")") + ")"

    def _print_MinMaxBase(self, expr: sp.Basic) -> str:
        args = sorted(expr.args, key=sp.default_sort_key)
        return f"{type(expr).__name__}({', '.join(self._print(a) for a in args)})"


def canonical_repr(expr: sp.Basic) -> str:
    """A text of ``expr`` that is the same in every process (for :attr:`ProofProblem.version`)."""
    return _CanonicalRepr().doprint(expr)


@dataclass(frozen=True)
class ProofProblem:
    """A statement in provable form (module docstring). Build one with :func:`make_problem`."""

    statement_id: str
    claimed: sp.Expr
    comparator: sp.Expr
    relation: Relation
    parameters: tuple[Parameter, ...]
    constraints: tuple[Constraint, ...] = ()
    margin: sp.Expr | None = None
    scale: sp.Expr = sp.S.One
    comparator_kind: ComparatorKind = "exact"
    quantity: str = ""
    comparator_source: str = ""
    scope: str = ""
    dropped: tuple[str, ...] = ()
    notes: tuple[str, ...] = field(default=())
    #: False when the box is larger than the statement's domain (hypotheses set aside): a failure refutes nothing.
    refutable: bool = True

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def parameter(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(f"{self.statement_id} has no parameter {name!r}; it has {list(self.names)}")

    @property
    def goal(self) -> sp.Expr:
        """The expression shown to be >= 0 (the margin)."""
        assert self.margin is not None
        return self.margin

    def difference(self) -> sp.Expr:
        """``claimed - comparator`` for ">=", ``comparator - claimed`` for "<="."""
        return self.claimed - self.comparator if self.relation == ">=" else self.comparator - self.claimed

    def box_text(self) -> str:
        return ", ".join(p.text() for p in self.parameters)

    def declared_text(self) -> str:
        """The declared limits, one clause each ("" when the box is the statement's whole domain)."""
        return "; ".join(f"{p.name}: {p.declared}" for p in self.parameters if p.declared)

    def to_dict(self) -> dict:
        """The problem as data (every expression as sympy's ``srepr``, which keeps the symbols' assumptions)."""
        return {
            "statement": self.statement_id,
            "version": self.version,
            "quantity": self.quantity,
            "relation": self.relation,
            "claimed": sp.srepr(self.claimed),
            "comparator": sp.srepr(self.comparator),
            "comparator_kind": self.comparator_kind,
            "comparator_source": self.comparator_source,
            "margin": sp.srepr(self.goal),
            "scale": sp.srepr(self.scale),
            "parameters": [p.to_dict() for p in self.parameters],
            "constraints": [{"name": c.name, "relation": sp.srepr(c.relation), "text": str(c.relation)}
                            for c in self.constraints],
            "scope": self.scope,
            "dropped": list(self.dropped),
        }

    @property
    def version(self) -> str:
        """A hash of the mathematics (expressions, box, constraints): a certificate names the version it proves."""
        data = {
            "statement": self.statement_id,
            "relation": self.relation,
            "claimed": canonical_repr(self.claimed),
            "comparator": canonical_repr(self.comparator),
            "margin": canonical_repr(self.goal),
            "scale": canonical_repr(self.scale),
            "parameters": [[p.name, _fraction_text(p.lo), _fraction_text(p.hi), p.integer, p.pointwise]
                           for p in self.parameters],
            "constraints": [[c.name, canonical_repr(c.relation)] for c in self.constraints],
        }
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]

    def with_box(self, ranges: Mapping[str, tuple[object, object]]) -> "ProofProblem":
        """The same problem on another box: ``{name: (lo, hi)}`` replaces those parameters' ranges (each end a
        number or a string such as ``"1e-10"``). A range outside what the symbol allows (below 0 for a positive
        symbol, non-integer ends for an integer) is a :class:`BoxError`; outside the hypotheses is allowed (the
        hypotheses still apply: a box that lies wholly outside one proves nothing, which the result says)."""
        unknown = sorted(set(ranges) - set(self.names))
        if unknown:
            raise BoxError(f"{self.statement_id}: no parameter {', '.join(unknown)}; its parameters are "
                           f"{', '.join(self.names)}")
        params = []
        symbols = _symbols_of(self)
        for p in self.parameters:
            if p.name not in ranges:
                params.append(p)
                continue
            lo_raw, hi_raw = ranges[p.name]
            lo, hi = parse_number(lo_raw, f"{p.name}'s lower end"), parse_number(hi_raw, f"{p.name}'s upper end")
            if lo > hi:
                raise BoxError(f"{p.name}: the range [{lo_raw}, {hi_raw}] is reversed (lower end above the upper)")
            _check_symbol_range(symbols.get(p.name), p.name, lo, hi)
            scale = p.scale if (p.scale == "linear" or lo > 0) else "linear"
            params.append(replace(p, lo=lo, hi=hi, scale=scale, origin="the box asked for", declared=""))
        return replace(self, parameters=tuple(params))


def _symbols_of(problem: ProofProblem) -> dict[str, sp.Symbol]:
    out: dict[str, sp.Symbol] = {}
    exprs = [problem.claimed, problem.comparator, problem.goal] + [c.relation for c in problem.constraints]
    for e in exprs:
        for s in e.free_symbols:
            out[s.name] = s
    return out


def _check_symbol_range(sym: sp.Symbol | None, name: str, lo: Fraction, hi: Fraction) -> None:
    if sym is None:
        return
    if sym.is_positive and not lo > 0:
        if lo == 0:
            return  # the closure of a positive symbol's range: allowed (the prover evaluates limits there)
        raise BoxError(f"{name} is positive: its range must start at 0 or above; got {lo}")
    if sym.is_nonnegative and lo < 0:
        raise BoxError(f"{name} is non-negative: its range must start at 0 or above; got {lo}")
    if sym.is_integer and (lo.denominator != 1 or hi.denominator != 1):
        raise BoxError(f"{name} is an integer: its range must have integer ends; got [{lo}, {hi}]")


def _bounds_from(sym: sp.Symbol, relations: Iterable[sp.Basic]) -> tuple[sp.Expr, sp.Expr, list[sp.Basic]]:
    """The closure of the interval that ``sym``'s assumptions and the one-symbol ``relations`` allow, and the
    relations that were absorbed into it (the others -- a union of pieces, or one sympy cannot solve -- stay
    constraints)."""
    lo: sp.Expr = sp.S.NegativeInfinity
    hi: sp.Expr = sp.S.Infinity
    if sym.is_nonnegative or sym.is_positive:
        lo = sp.S.Zero
    absorbed = []
    for rel in relations:
        simple = _simple_bound(rel, sym)
        if simple is not None:
            region = simple.intersect(sp.Interval(lo, hi))
            if isinstance(region, sp.Interval):
                lo, hi = max(lo, region.start), min(hi, region.end)
                absorbed.append(rel)
            continue
        try:
            region = sp.solve_univariate_inequality(rel, sym, relational=False)
        except (NotImplementedError, ValueError, TypeError):
            continue
        region = region.intersect(sp.Interval(lo, hi))
        if not isinstance(region, sp.Interval):
            continue
        lo, hi = max(lo, region.start), min(hi, region.end)
        absorbed.append(rel)
    return lo, hi, absorbed


def make_problem(
    statement_id: str,
    *,
    claimed: sp.Expr,
    comparator: sp.Expr,
    relation: Relation = ">=",
    hypotheses: Sequence[tuple[str, sp.Basic]] = (),
    declared: Mapping[str, tuple[object | None, object | None, str]] | None = None,
    scales: Mapping[str, Scale] | None = None,
    pointwise: Sequence[str] = (),
    margin: sp.Expr | None = None,
    scale: sp.Expr = sp.S.One,
    comparator_kind: ComparatorKind = "exact",
    quantity: str = "",
    comparator_source: str = "",
    scope: str = "",
    dropped: Sequence[str] = (),
    notes: Sequence[str] = (),
    refutable: bool = True,
) -> ProofProblem:
    """Build a :class:`ProofProblem`: the box from the symbols' assumptions, the one-symbol hypotheses and the
    ``declared`` limits (``{name: (lo or None, hi or None, why)}``, each replacing an end only where it narrows the
    range), the rest of the hypotheses as constraints.

    Every parameter must end up with a finite range: an unbounded side without a declared limit is a
    :class:`BoxError` naming it. ``margin`` defaults to the signed difference; a given one is checked:
    ``margin * scale - difference`` must simplify to 0 and ``scale`` must be positive by its symbols' assumptions.
    """
    _check_kinds(relation, comparator_kind)
    claimed, comparator, margin, scale, plain_hypotheses = _plain_inputs(claimed, comparator, margin, scale,
                                                                         hypotheses)
    declared = dict(declared or {})
    scales = dict(scales or {})
    difference = claimed - comparator if relation == ">=" else comparator - claimed
    margin, scale = _checked_margin(statement_id, difference, margin, scale)
    hyps = [(name, sp.sympify(rel)) for name, rel in plain_hypotheses if sp.sympify(rel) not in (sp.true, True)]
    symbols = _box_symbols(margin, hyps)
    _check_declared(statement_id, declared, symbols, claimed, comparator)
    one_symbol = {name: [rel for _, rel in hyps if rel.free_symbols == {sym}] for name, sym in symbols.items()}
    absorbed: list[sp.Basic] = []
    params = []
    for name in sorted(symbols, key=lambda n: _order_key(n, margin)):
        param, taken = _parameter(statement_id, symbols[name], one_symbol[name], declared,
                                  scales.get(name, "linear"), name in pointwise)
        absorbed += taken
        params.append(param)
    constraints = tuple(Constraint(name, rel) for name, rel in hyps
                        if not any(rel is a for a in absorbed) or _strict_bound_matters(rel))
    return ProofProblem(statement_id, claimed, comparator, relation, tuple(params), constraints, margin, scale,
                        comparator_kind, quantity, comparator_source, scope, tuple(dropped), tuple(notes), refutable)


def _check_kinds(relation: str, comparator_kind: str) -> None:
    """Refuse a relation other than ">=" and "<=", and a comparator kind other than exact, upper and lower."""
    if relation not in (">=", "<="):
        raise ValueError(f"relation must be '>=' or '<='; got {relation!r}")
    if comparator_kind not in ("exact", "upper", "lower"):
        raise ValueError(f"comparator_kind must be 'exact', 'upper' or 'lower'; got {comparator_kind!r}")


def _plain_inputs(
    claimed: sp.Expr, comparator: sp.Expr, margin: sp.Expr | None, scale: sp.Expr,
    hypotheses: Sequence[tuple[str, sp.Basic]],
) -> tuple[sp.Expr, sp.Expr, sp.Expr | None, sp.Expr, list[tuple[str, sp.Basic]]]:
    """The inputs sympified, with :func:`_plain_symbols` in place of the catalogue's symbols (``margin`` and
    ``scale`` only where a margin is given)."""
    claimed, comparator = sp.sympify(claimed), sp.sympify(comparator)
    hyps_in = [(name, sp.sympify(rel)) for name, rel in hypotheses]
    plain = _plain_symbols([claimed, comparator] + ([sp.sympify(margin), sp.sympify(scale)] if margin is not None
                                                    else []) + [rel for _, rel in hyps_in])
    claimed, comparator = claimed.xreplace(plain), comparator.xreplace(plain)
    if margin is not None:
        margin, scale = sp.sympify(margin).xreplace(plain), sp.sympify(scale).xreplace(plain)
    return claimed, comparator, margin, scale, [(name, rel.xreplace(plain)) for name, rel in hyps_in]


def _checked_margin(statement_id: str, difference: sp.Expr, margin: sp.Expr | None,
                    scale: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(margin, scale): the signed ``difference`` and 1 when no margin is given; a given one once ``scale`` is
    positive by its symbols' assumptions and ``margin * scale - difference`` simplifies to 0."""
    if margin is None:
        return difference, sp.S.One
    margin, scale = sp.sympify(margin), sp.sympify(scale)
    if scale.is_positive is not True:
        raise ValueError(f"{statement_id}: the margin's scale {scale} is not positive by its symbols' assumptions")
    if sp.simplify(margin * scale - difference) != 0:
        raise ValueError(f"{statement_id}: margin * scale is not claimed - comparator")
    return margin, scale


def _box_symbols(margin: sp.Expr, hyps: Sequence[tuple[str, sp.Basic]]) -> dict[str, sp.Symbol]:
    """The symbols the box is over: what the margin and the hypotheses depend on. A symbol that cancels from the
    margin (a sensitivity, a scale) is no parameter: the inequality holds for each of its values alike."""
    symbols: dict[str, sp.Symbol] = {}
    for e in [margin] + [rel for _, rel in hyps]:
        for s in e.free_symbols:
            symbols[s.name] = s
    return symbols


def _check_declared(statement_id: str, declared: Mapping[str, object], symbols: Mapping[str, sp.Symbol],
                    claimed: sp.Expr, comparator: sp.Expr) -> None:
    """Refuse declared limits for names that the problem does not use."""
    mentioned = set(symbols) | {s.name for e in (claimed, comparator) for s in e.free_symbols}
    unknown = sorted(set(declared) - mentioned)
    if unknown:
        raise ValueError(f"{statement_id}: declared limits for {unknown}, which the problem does not use")


def _parameter(statement_id: str, sym: sp.Symbol, relations: list[sp.Basic],
               declared: Mapping[str, tuple[object | None, object | None, str]], scale_kind: Scale,
               pointwise: bool) -> tuple[Parameter, list[sp.Basic]]:
    """One parameter of the box -- the range its assumptions and one-symbol ``relations`` allow, narrowed by the
    limits ``declared`` for it, which must leave it finite; integer ends for an integer symbol -- and the relations
    that range absorbed."""
    name = sym.name
    lo, hi, taken = _bounds_from(sym, relations)
    origins = [str(rel) for rel in taken]
    why_parts: list[str] = []
    if name in declared:
        lo, hi, why_parts = _narrowed(name, lo, hi, declared[name])
    if not (lo.is_finite and hi.is_finite):
        raise BoxError(f"{statement_id}: {name} is unbounded ({'below' if not lo.is_finite else 'above'}) by "
                       f"its assumptions and hypotheses: declare a limit for it")
    lo_f, hi_f = Fraction(int(sp.Rational(lo).p), int(sp.Rational(lo).q)), \
        Fraction(int(sp.Rational(hi).p), int(sp.Rational(hi).q))
    integer = bool(sym.is_integer)
    if integer:
        lo_f, hi_f = Fraction(math.ceil(lo_f)), Fraction(math.floor(hi_f))
        if sym.is_positive and lo_f < 1:
            lo_f = Fraction(1)
    return Parameter(name, lo_f, hi_f, integer=integer, pointwise=pointwise, scale=scale_kind,
                     origin="; ".join(origins) or "assumptions",
                     declared="; ".join(w for w in why_parts if w)), taken


def _narrowed(name: str, lo: sp.Expr, hi: sp.Expr,
              declared: tuple[object | None, object | None, str]) -> tuple[sp.Expr, sp.Expr, list[str]]:
    """(lo, hi) with each declared end put in where it narrows the range, and the reason, once, where one did."""
    d_lo, d_hi, why = declared
    why_parts = []
    if d_lo is not None:
        v = sp.Rational(parse_number(d_lo, f"{name}'s declared lower end"))
        if lo == sp.S.NegativeInfinity or v > lo:
            lo = v
            why_parts.append(why)
    if d_hi is not None:
        v = sp.Rational(parse_number(d_hi, f"{name}'s declared upper end"))
        if hi == sp.S.Infinity or v < hi:
            hi = v
            if why not in why_parts:
                why_parts.append(why)
    return lo, hi, why_parts


def _plain_symbols(exprs: Sequence[sp.Basic]) -> dict[sp.Symbol, sp.Symbol]:
    """Plain sympy symbols for the catalogue's :class:`~dpverify.theorems.symbols.Quantity` symbols (a letter two
    quantities share, told apart by a key): a certificate must read back with sympy alone. Each keeps its
    assumptions and its printed name, or takes its key where two symbols of the problem print alike."""
    found = set()
    for e in exprs:
        found |= {s for s in e.free_symbols if isinstance(s, sp.Symbol)}
    printed: dict[str, int] = {}
    for s in found:
        printed[s.name] = printed.get(s.name, 0) + 1
    out = {}
    for s in found:
        if type(s) in (sp.Symbol, sp.Dummy):
            continue
        name = s.name if printed[s.name] == 1 else getattr(s, "key", s.name)
        out[s] = sp.Symbol(name, **s.assumptions0)
    return out


def _simple_bound(rel: sp.Basic, sym: sp.Symbol) -> sp.Interval | None:
    """The set of ``sym < c``, ``sym <= c``, ``c < sym``, ... for a number ``c`` (None for anything else: the fast
    path before sympy's inequality solver)."""
    if not isinstance(rel, (sp.StrictLessThan, sp.LessThan, sp.StrictGreaterThan, sp.GreaterThan)):
        return None
    lhs, rhs = rel.lhs, rel.rhs
    if lhs == sym and rhs.is_number and rhs.is_real:
        c, upper = rhs, isinstance(rel, (sp.StrictLessThan, sp.LessThan))
    elif rhs == sym and lhs.is_number and lhs.is_real:
        c, upper = lhs, isinstance(rel, (sp.StrictGreaterThan, sp.GreaterThan))
    else:
        return None
    strict = isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))
    return sp.Interval(-sp.oo, c, right_open=strict) if upper else sp.Interval(c, sp.oo, left_open=strict)


def _strict_bound_matters(rel: sp.Basic) -> bool:
    """A one-symbol strict bound stays a constraint: the box is its closure, and a refutation's witness must lie
    strictly inside (the end point itself is not in the statement's domain)."""
    return isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))


def _order_key(name: str, margin: sp.Expr) -> tuple[int, str]:
    return (0 if any(s.name == name for s in margin.free_symbols) else 1, name)
