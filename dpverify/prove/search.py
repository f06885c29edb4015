"""Branch and bound over boxes: :func:`prove` decides a :class:`~dpverify.prove.problem.ProofProblem`.

Each box is evaluated in interval arithmetic (:mod:`dpverify.prove.intervals`, Arb endpoints):

1. **outside**: a hypothesis (constraint) certainly fails on the whole box -- set aside, recorded as such;
2. **proved**: the margin's enclosure has a lower end >= 0 -- a leaf, its enclosure recorded;
3. **refuted**: the margin's enclosure is certainly < 0 and every hypothesis certainly holds on the box -- the search
   stops; a witness point in the box is re-evaluated with mpmath at 50+ digits (through sympy's ``evalf``), and the
   two numbers must agree with the enclosure (else :class:`ProverInconsistency`, a bug, is raised);
4. **monotone lemma** (a checked lemma of its own): if the margin's partial derivative in one parameter is certainly
   >= 0 on the box (<= 0), the margin's least value over the box is on its lower (upper) face, so a proof on that
   face -- a sub-search of its own, with one coordinate less and no box set aside -- proves the box. On a face at an
   end of the statement's own range the coordinate is substituted into the expression symbolically before it is
   compiled, so that what cancels exactly there (``delta - delta``, ``log(1)``) cancels exactly: this is how bounds
   that are tight on an edge of their domain (a sampling rate of 0, delta = 0, a corner of a configuration) are
   proved, which no finite subdivision can do;
5. otherwise the box is **split** in two along the parameter where the margin's derivative times the box's width is
   largest (the widest one when no derivative is known), at the midpoint (the geometric mean on log-scale
   parameters; ``[a, m]`` and ``[m + 1, b]`` for integers), or reported **undecided** when no side can be split any
   more (a width limit, or a singular point where the expression cannot be enclosed).

Boxes are taken most-negative-first (by the lower end of their enclosure), so a counterexample is found after few
evaluations; a proof visits every box anyway. Limits (:class:`Limits`) bound the number of boxes and the time; what
is left then is reported as undecided.
"""
from __future__ import annotations

import contextlib
import heapq
import itertools
import math
import random
import signal
import threading
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterator, TypeVar

import sympy as sp

from dpverify.prove.compile import CompiledExpression, UnsupportedExpression, compile_expression
from dpverify.prove.intervals import DomainError, Interval, working_precision
from dpverify.prove.problem import ProofProblem
from dpverify.prove.results import Box, Node, Proof, ProofResult, Refutation, Undecided, UndecidedBox, short_number

__all__ = ["Limits", "prove", "ProverInconsistency", "DEFAULT_PRECISION"]

#: Arb's working precision for proofs, in bits (recorded in every certificate).
DEFAULT_PRECISION = 96


class ProverInconsistency(RuntimeError):
    """The interval enclosure and the high-precision re-evaluation of a witness disagree: a bug, never a result."""


@dataclass(frozen=True)
class Limits:
    """How far a proof attempt may go.

    ``max_boxes``: boxes evaluated in all (faces included); ``max_seconds``: wall time (None: no limit);
    ``face_boxes``: boxes the sub-searches of the monotone lemma (a face, or a derivative's sign; nested ones get a
    quarter each) may use in all, for one box of the main search; ``monotone``: use the lemma at all; ``face_depth``: sub-searches within sub-searches at
    most; ``lemma_depth``: sub-searches start on boxes this many splits below the whole box (above it, only
    faces that one enclosure decides: the first levels are cheaper to split); ``relative_width``: a side narrower than this fraction of its
    magnitude (or of its range in the statement) is not split again; ``probe_depth``: the midpoints of the boxes
    of the first levels are evaluated as points too (finds counterexamples that no whole box shows yet).
    """

    max_boxes: int = 400_000
    max_seconds: float | None = None
    face_boxes: int = 128
    monotone: bool = True
    face_depth: int = 6
    lemma_depth: int = 3
    relative_width: Fraction = Fraction(1, 2**44)
    probe_depth: int = 10
    probes: int = 256
    freeze: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.max_boxes, int) or self.max_boxes < 1:
            raise ValueError(f"max_boxes must be a positive integer; got {self.max_boxes!r}")
        if self.max_seconds is not None and not (isinstance(self.max_seconds, (int, float)) and self.max_seconds > 0):
            raise ValueError(f"max_seconds must be a positive number or None; got {self.max_seconds!r}")


class _Refuted(Exception):
    def __init__(self, box: Box, margin: Interval) -> None:
        super().__init__("refuted")
        self.box = box
        self.margin = margin


class _OutOfBudget(Exception):
    pass


class _Context:
    """An expression to show >= 0 on a box -- the margin, a face of it, or a signed partial derivative of either --
    with its compiled form. ``key`` names the chain of faces and derivatives that made it from the margin."""

    def __init__(self, expr: sp.Expr, names: tuple[str, ...], key: tuple) -> None:
        self.expr = expr
        self.names = names
        self.key = key
        self.value: CompiledExpression = compile_expression(expr, names)
        self.symbols = {s.name: s for s in expr.free_symbols}
        self._zero_faces: dict[tuple[int, Fraction], bool] = {}

    def vanishes_on(self, index: int, value: Fraction) -> bool:
        """Whether the expression is identically 0 once parameter ``index`` is ``value`` (sympy's automatic
        simplification): an edge where a bound is tight."""
        key = (index, value)
        if key not in self._zero_faces:
            sym = self.symbols.get(self.names[index])
            try:
                self._zero_faces[key] = sym is not None and substitutable(value) and \
                    _bounded(lambda: self.expr.xreplace({sym: sp.Rational(value.numerator, value.denominator)})) == 0
            except SymbolicTimeout:
                self._zero_faces[key] = False
        return self._zero_faces[key]


#: Seconds one symbolic step of the monotone lemma (a face's substitution, a derivative, a test that an edge
#: vanishes) may take: sympy's automatic evaluation can ask for the sign of a polynomial and solve it (minutes for a
#: log of a sum of powers); past this the step is given up -- a numeric face, no lemma on that derivative.
SYMBOLIC_SECONDS = 5.0

_T = TypeVar("_T")


class SymbolicTimeout(Exception):
    """A symbolic step ran past :data:`SYMBOLIC_SECONDS`."""


@contextlib.contextmanager
def _symbolic_deadline(seconds: float) -> Iterator[None]:
    """Raise :class:`SymbolicTimeout` in the block after ``seconds`` (a real-time timer; only in the main thread of
    a platform with ``setitimer``, and only when no other timer is armed: elsewhere the block runs unguarded)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread() \
        and signal.getitimer(signal.ITIMER_REAL)[0] == 0
    if not usable:
        yield
        return

    def expire(signum, frame):  # noqa: ARG001 - the signal handler's signature
        raise SymbolicTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _bounded(make: Callable[[], _T]) -> _T:
    with _symbolic_deadline(SYMBOLIC_SECONDS):
        return make()


#: The largest numerator or denominator of a value substituted into an expression symbolically: sympy evaluates
#: exact powers at once, and (1 - 2^-20)^(10^9) would have billions of digits.
SUBSTITUTION_LIMIT = 2**16


def substitutable(value: Fraction) -> bool:
    """Whether ``value`` is small enough to be substituted symbolically (see :data:`SUBSTITUTION_LIMIT`); an end of
    a range with large digits gets a numeric face instead (its range shrunk to the point)."""
    return abs(value.numerator) <= SUBSTITUTION_LIMIT and value.denominator <= SUBSTITUTION_LIMIT or \
        value.denominator == 1 and value.numerator in (0, 1, -1)


def _is_derivative(ctx: _Context) -> bool:
    return any(step[0] == "diff" for step in ctx.key)


def _intervals(box: Box) -> list[Interval]:
    return [Interval.between(lo, hi) for lo, hi in box]


#: A parameter the monotone lemma may use: (0 when the derivative's sign is certain, 1 when a sub-search must prove
#: it; minus its importance; its index; the sign; the derivative's enclosure where certain): the least are tried.
_Candidate = tuple[int, float, int, int, Interval | None]


def _midpoint(lo: Fraction, hi: Fraction, integer: bool) -> Fraction:
    if integer:
        return lo + (hi - lo) // 2
    return (lo + hi) / 2


class _Prover:
    def __init__(self, problem: ProofProblem, precision: int, limits: Limits,
                 progress: Callable[[int, int, float], None] | None) -> None:
        self.problem = problem
        self.params = problem.parameters
        self.names = problem.names
        self.precision = precision
        self.limits = limits
        self.progress = progress
        self.root_box: Box = tuple((p.lo, p.hi) for p in self.params)
        self.root_ctx = _Context(problem.goal, self.names, ())
        self.contexts: dict[tuple, _Context] = {(): self.root_ctx}
        self.failed_derivatives: set[tuple] = set()
        self.failed_faces: set[tuple] = set()
        self.constraints = [(c, compile_expression(c.gap, self.names)) for c in problem.constraints]
        self.evaluated = 0
        self.excluded = 0
        self.account = limits.face_boxes
        self.lemma_tries = 0
        self.lemma_wins = 0
        self.start = time.perf_counter()
        self.can_refute = problem.comparator_kind != "upper" and problem.refutable
        self.can_prove = problem.comparator_kind != "lower"

    # -- budget -------------------------------------------------------------------------------------------------
    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def over_budget(self) -> str:
        if self.evaluated >= self.limits.max_boxes:
            return f"box limit ({self.limits.max_boxes}) reached"
        if self.limits.max_seconds is not None and self.elapsed() > self.limits.max_seconds:
            return f"time limit ({self.limits.max_seconds:g} s) reached"
        return ""

    # -- contexts -------------------------------------------------------------------------------------------------
    def context(self, key: tuple, make: Callable[[], sp.Expr]) -> _Context:
        if key not in self.contexts:
            self.contexts[key] = _Context(make(), self.names, key)
        return self.contexts[key]

    def face_context(self, ctx: _Context, index: int, value: Fraction) -> _Context | None:
        """``ctx``'s expression with parameter ``index`` replaced by the exact ``value`` (sympy's automatic
        simplification only, which the checker repeats); None when that takes longer than
        :data:`SYMBOLIC_SECONDS` (remembered: the face is then proved numerically)."""
        name = self.names[index]
        rational = sp.Rational(value.numerator, value.denominator)
        key = ctx.key + (("face", index, value),)
        if key in self.failed_faces:
            return None
        try:
            return self.context(key, lambda: _bounded(
                lambda: ctx.expr.xreplace({s: rational for s in ctx.expr.free_symbols if s.name == name})))
        except SymbolicTimeout:
            self.failed_faces.add(key)
            return None

    def derivative_context(self, ctx: _Context, index: int, direction: int) -> _Context | None:
        """``direction * d(expr)/d(parameter index)`` (None when the expression does not depend on it; raises
        UnsupportedExpression, remembered, when the derivative cannot be enclosed)."""
        sym = ctx.symbols.get(self.names[index])
        if sym is None:
            return None
        key = ctx.key + (("diff", index, direction),)
        if key in self.failed_derivatives:
            raise UnsupportedExpression("the derivative cannot be enclosed")
        try:
            return self.context(key, lambda: _bounded(lambda: direction * sp.diff(ctx.expr, sym)))
        except SymbolicTimeout:
            self.failed_derivatives.add(key)
            raise UnsupportedExpression(f"the derivative took longer than {SYMBOLIC_SECONDS:g} s") from None
        except UnsupportedExpression:
            self.failed_derivatives.add(key)
            raise

    # -- evaluation of one box ----------------------------------------------------------------------------------
    def splittable(self, box: Box, j: int) -> bool:
        lo, hi = box[j]
        p = self.params[j]
        if lo == hi:
            return False
        if p.integer:
            return True
        rel = self.limits.relative_width
        if p.scale == "log" and lo > 0:
            return hi > lo * (1 + rel)
        if p.scale == "log" and lo == 0:
            return hi > rel * rel * self.root_box[j][1]
        root_lo, root_hi = self.root_box[j]
        width = hi - lo
        return width > rel * max(abs(lo), abs(hi)) and width > rel * rel * (root_hi - root_lo)

    def choose(self, box: Box, importance: dict[int, float], frozen: set[int] | None = None) -> int | None:
        """The parameter to split along (None: none can be). ``frozen``: parameters along which the expression is
        monotone toward an end of the statement's range; they are kept whole while others can be split, so that
        the monotone lemma can still use that end's symbolic face once the rest of the box is small."""
        candidates = [j for j in range(len(box)) if self.splittable(box, j)]
        if not candidates:
            return None
        if frozen:
            # kept whole only while the rest of the box is not much narrower (no dimension starves)
            free = [j for j in candidates if j not in frozen]
            widest_frozen = max((self.normalised_width(box, j) for j in candidates if j in frozen), default=0.0)
            if free and max(self.normalised_width(box, j) for j in free) >= widest_frozen / 64:
                candidates = free
        pointwise = [j for j in candidates if self.params[j].pointwise]
        if pointwise:
            return max(pointwise, key=lambda j: box[j][1] - box[j][0])

        def normalised(j: int) -> float:
            return self.normalised_width(box, j)

        widest = max(candidates, key=normalised)
        scored = [j for j in candidates if importance.get(j, 0.0) > 0.0]
        if not scored:
            return widest
        best = max(scored, key=lambda j: importance[j])
        if normalised(best) < 1e-3 * normalised(widest):
            return widest
        return best

    def normalised_width(self, box: Box, j: int) -> float:
        """The box's side j as a fraction of the statement's range (in log terms on a log scale)."""
        lo, hi = box[j]
        root_lo, root_hi = self.root_box[j]
        if self.params[j].scale == "log":
            lo_f = float(lo) if lo > 0 else float(root_hi) * 2.0**-88
            root_lo_f = float(root_lo) if root_lo > 0 else float(root_hi) * 2.0**-88
            return math.log(float(hi) / lo_f) / max(math.log(float(root_hi) / root_lo_f), 1e-300)
        return float((hi - lo) / (root_hi - root_lo)) if root_hi > root_lo else 0.0

    def split(self, node: Node, j: int) -> None:
        lo, hi = node.box[j]
        p = self.params[j]
        if p.integer:
            if p.scale == "log" and lo > 0:
                m = Fraction(math.isqrt(int(lo) * int(hi)))
                m = min(max(m, lo), hi - 1)
            elif p.scale == "log" and lo == 0:
                m = min(max(Fraction(hi // 64), lo), hi - 1)
            else:
                m = lo + (hi - lo) // 2
            left = node.box[:j] + ((lo, m),) + node.box[j + 1:]
            right = node.box[:j] + ((m + 1, hi),) + node.box[j + 1:]
        else:
            m = (lo + hi) / 2
            if p.scale == "log" and lo == 0:
                m = hi / 64
            elif p.scale == "log" and lo > 0:
                g = Fraction(math.exp((math.log(lo) + math.log(hi)) / 2)) if hi / lo > 1 + Fraction(1, 10**6) else m
                if lo < g < hi:
                    m = g
            left = node.box[:j] + ((lo, m),) + node.box[j + 1:]
            right = node.box[:j] + ((m, hi),) + node.box[j + 1:]
        node.kind, node.info = "split", (j, m)
        node.children = [Node(left), Node(right)]

    def constraint_status(self, ivs: list[Interval]) -> tuple[int | None, tuple[str, str] | None, bool]:
        """(index of a constraint certainly violated or None, its interval, whether all certainly hold)."""
        holds_all = True
        for i, (c, gap) in enumerate(self.constraints):
            try:
                g = gap(*ivs)
            except DomainError:
                holds_all = False
                continue
            if g.hi < 0 or (c.strict and g.hi <= 0):
                return i, g.bounds_text(), False
            if not (g.lo > 0 or (not c.strict and g.lo >= 0)):
                holds_all = False
        return None, None, holds_all

    def decide(self, node: Node, ctx: _Context, allow_exclusion: bool, depth: int, face_depth: int,
               in_face: bool, budget: int, cooldown: int = 0) -> tuple[str, float, int]:
        """Decide one box: ("done", _, _), ("split", priority, cooldown) or ("undecided", _, _); raises _Refuted
        when the box is a counterexample (only for the margin or a face of it: a negative derivative refutes
        nothing). ``budget``: boxes each sub-search of the monotone lemma may use; ``cooldown``: the depth from
        which it may be tried again on this branch (after a failed try, two levels further down: a box four times
        smaller)."""
        self.count_box()
        if self.substitute_pointwise(node, ctx):
            return "split", -math.inf, cooldown
        ivs = _intervals(node.box)
        violated, violated_interval, holds_all = self.constraint_status(ivs)
        if violated is not None and allow_exclusion:
            node.kind, node.info = "excluded", (violated, violated_interval)
            self.excluded += 1
            return "done", 0.0, 0
        why = ""
        margin: Interval | None
        try:
            margin = ctx.value(*ivs)
        except DomainError as exc:
            margin, why = None, f"singular: {exc}"
        verdict = self.judge(node, ctx, margin, holds_all)
        if verdict is not None:
            return verdict
        if self.worth_probing(margin, depth, in_face):
            self.probe(node.box, ctx)
        importance: dict[int, float] = {}
        frozen: set[int] = set()
        proved, child_cooldown = self.monotone_lemma(node, ctx, ivs, depth, face_depth, in_face, budget, cooldown,
                                                     importance, frozen)
        if proved:
            return "done", 0.0, 0
        if not holds_all:
            frozen.clear()  # on a box that reaches outside the hypotheses the face may lie outside: split freely
        side = self.choose(node.box, importance, frozen)
        if side is None:
            return self.give_up(node, ivs, why, violated is not None or not holds_all)
        self.split(node, side)
        for child in node.children:
            child.ctx = ctx
        return "split", float(margin.lo) if margin is not None else -math.inf, child_cooldown

    def count_box(self) -> None:
        """Count one more box evaluated, and report progress every 2000 boxes."""
        self.evaluated += 1
        if self.progress is not None and self.evaluated % 2000 == 0:
            self.progress(self.evaluated, 0, self.elapsed())

    def substitute_pointwise(self, node: Node, ctx: _Context) -> bool:
        """Where a pointwise parameter has reached a single value that ``ctx`` does not have substituted yet, make
        ``node`` a "substitute" step whose one child has that value substituted (sympy simplifies at that
        integer); whether it did."""
        for j, p in enumerate(self.params):
            lo, hi = node.box[j]
            if p.pointwise and lo == hi and substitutable(lo) and not any(step[:2] == ("face", j) for step in ctx.key):
                substituted = self.face_context(ctx, j, lo)
                if substituted is None:
                    continue  # sympy took too long: the point is evaluated as it stands
                node.kind, node.info = "substitute", (j,)
                child = Node(node.box)
                child.ctx = substituted
                node.children = [child]
                return True
        return False

    def judge(self, node: Node, ctx: _Context, margin: Interval | None,
              holds_all: bool) -> tuple[str, float, int] | None:
        """What the enclosure decides on its own: "done" where its lower end is >= 0, "undecided" where a
        derivative certainly has the other sign, None where it decides nothing; raises _Refuted where the
        expression (not a derivative) is certainly negative and every hypothesis certainly holds."""
        if margin is None:
            return None
        if margin.lo >= 0:
            node.kind, node.info = "enclosure", margin.bounds_text()
            return "done", 0.0, 0
        if not margin.hi < 0:
            return None
        if _is_derivative(ctx):
            node.kind, node.info = "undecided", ("the derivative has the other sign here",)
            return "undecided", 0.0, 0
        if holds_all:
            # a counterexample; or, where nothing can be refuted, the claim certainly fails against an upper bound
            # of the truth (or on a larger domain): nothing more can be proved here; the search stops with this
            # box as its witness (not a refutation)
            raise _Refuted(node.box, margin)
        return None

    def worth_probing(self, margin: Interval | None, depth: int, in_face: bool) -> bool:
        """Whether the box's midpoint is evaluated as a point too: in the main search where refutations count, on
        the first levels or where the enclosure is certainly negative."""
        return not in_face and self.can_refute and (depth <= self.limits.probe_depth or
                                                    (margin is not None and margin.hi < 0))

    def monotone_lemma(self, node: Node, ctx: _Context, ivs: list[Interval], depth: int, face_depth: int,
                       in_face: bool, budget: int, cooldown: int, importance: dict[int, float],
                       frozen: set[int]) -> tuple[bool, int]:
        """The monotone lemma on this box where the limits allow it (sub-searches only from ``cooldown`` on, and
        below the first levels of the main search): (whether it proved the box, the cooldown for its children --
        two levels further down after a failed sub-search). Fills ``importance`` and ``frozen`` for the split."""
        if not (self.limits.monotone and face_depth < self.limits.face_depth):
            return False, cooldown
        searching = budget >= 4 and depth >= cooldown and (in_face or depth >= self.limits.lemma_depth)
        if not in_face:
            self.set_allowance(searching)
        if self.try_monotone(node, ctx, ivs, face_depth, importance, budget if searching else 0, frozen):
            if searching and not in_face:
                self.lemma_wins += 1
            return True, cooldown
        return False, depth + 2 if searching else cooldown

    def set_allowance(self, searching: bool) -> None:
        """All the sub-searches one box of the main search may use: the full allowance while the lemma pays (a
        tenth of the tries succeed, or fewer than 20 tries so far), an eighth of it when it does not; a try is
        counted when ``searching``."""
        paying = self.lemma_tries < 20 or self.lemma_wins * 10 >= self.lemma_tries
        self.account = self.limits.face_boxes if paying else max(8, self.limits.face_boxes // 8)
        if searching:
            self.lemma_tries += 1

    def give_up(self, node: Node, ivs: list[Interval], why: str, on_edge: bool) -> tuple[str, float, int]:
        """Mark the box undecided: no side can be split further (or ``why`` the expression cannot be enclosed),
        with the hypotheses it may straddle when ``on_edge``."""
        reason = why or "width limit: no side of the box can be split further"
        if on_edge:
            unsure = self.unsure_constraints(ivs)
            if unsure:
                reason += f" (on the edge of hypothesis {', '.join(unsure)})"
        node.kind, node.info = "undecided", (reason,)
        return "undecided", 0.0, 0

    def unsure_constraints(self, ivs: list[Interval]) -> list[str]:
        out = []
        for c, gap in self.constraints:
            try:
                g = gap(*ivs)
            except DomainError:
                out.append(c.name)
                continue
            if not (g.lo > 0 or (not c.strict and g.lo >= 0)):
                out.append(c.name)
        return out

    def probe_points(self) -> None:
        """Evaluate the margin at the points of :attr:`Limits.probes` (raises _Refuted at a failing one)."""
        if self.limits.probes <= 0 or not self.params:
            return
        rng = random.Random(0)
        ends = []
        for p, (lo, hi) in zip(self.params, self.root_box):
            values = {lo, hi, _midpoint(lo, hi, p.integer)}
            ends.append(sorted(values))
        points: list[tuple[Fraction, ...]] = []
        if len(self.params) <= 6:
            points += list(itertools.product(*ends))[: self.limits.probes]
        while len(points) < self.limits.probes + (3 ** len(self.params) if len(self.params) <= 6 else 0):
            point = []
            for p, (lo, hi) in zip(self.params, self.root_box):
                u = Fraction(rng.random())
                if p.scale == "log" and lo > 0 and rng.random() < 0.5:
                    v = Fraction(math.exp(math.log(lo) + float(u) * (math.log(hi) - math.log(lo))))
                    v = min(max(v, lo), hi)
                else:
                    v = lo + u * (hi - lo)
                if p.integer:
                    v = Fraction(math.floor(v))
                point.append(v)
            points.append(tuple(point))
        for at in points:
            box = tuple((v, v) for v in at)
            ivs = _intervals(box)
            self.evaluated += 1
            _, _, holds_all = self.constraint_status(ivs)
            if not holds_all:
                continue
            try:
                margin = self.root_ctx.value(*ivs)
            except DomainError:
                continue
            if margin.hi < 0:
                raise _Refuted(box, margin)

    def probe(self, box: Box, ctx: _Context) -> None:
        point = tuple((_midpoint(lo, hi, p.integer),) * 2 for p, (lo, hi) in zip(self.params, box))
        if point == box:
            return
        self.evaluated += 1
        ivs = _intervals(point)
        _, _, holds_all = self.constraint_status(ivs)
        if not holds_all:
            return
        try:
            margin = ctx.value(*ivs)
        except DomainError:
            return
        if margin.hi < 0:
            raise _Refuted(point, margin)

    def try_monotone(self, node: Node, ctx: _Context, ivs: list[Interval], face_depth: int,
                     importance: dict[int, float], budget: int, frozen: set[int]) -> bool:
        """The monotone lemma (module docstring): find a parameter along which the expression is monotone on the
        box -- its derivative's sign certain on the whole box, or proved by a sub-search of its own -- and prove
        the face where the least value lies. Fills ``importance`` (|derivative| times width) for the split."""
        candidates = [c for c in (self.monotone_candidate(node, ctx, ivs, j, face_depth, importance, budget, frozen)
                                  for j in range(len(self.params))) if c is not None]
        for _, _, j, direction, sign_known in sorted(candidates, key=lambda t: t[:3])[:3]:
            if self.monotone_step(node, ctx, ivs, face_depth, budget, j, direction, sign_known):
                return True
        return False

    def monotone_candidate(self, node: Node, ctx: _Context, ivs: list[Interval], j: int, face_depth: int,
                           importance: dict[int, float], budget: int, frozen: set[int]) -> _Candidate | None:
        """Parameter ``j`` as a candidate for the monotone lemma: (0, -importance, j, sign, the derivative's
        enclosure) where the derivative's sign is certain on the box, (1, -importance, j, sign, None) where a
        sub-search may prove it, None otherwise. Records ``j``'s importance for the split, and freezes ``j``
        (``Limits.freeze``) where the expression is monotone toward an end of the statement's range."""
        lo, hi = node.box[j]
        if lo == hi or self.params[j].pointwise:
            return None
        try:
            dctx = self.derivative_context(ctx, j, 1)
        except UnsupportedExpression:
            return None
        if dctx is None:
            importance[j] = 0.0
            return None
        try:
            d = dctx.value(*ivs)
        except DomainError:
            importance[j] = math.inf  # singular along this side: splitting it is what can help
            return None
        self.evaluated += 1
        size = max(abs(float(d.lo)), abs(float(d.hi)))
        importance[j] = size * float(hi - lo) if math.isfinite(size) else math.inf
        if d.lo >= 0 or d.hi <= 0:
            if self.limits.freeze and (lo if d.lo >= 0 else hi) in self.root_box[j]:
                frozen.add(j)
            return 0, -importance[j], j, 1 if d.lo >= 0 else -1, d
        if budget and face_depth + 1 < self.limits.face_depth:
            guess = self.sub_search_sign(dctx, node.box, j)
            if guess:
                return 1, -importance[j], j, guess, None
        return None

    def sub_search_sign(self, dctx: _Context, box: Box, j: int) -> int:
        """The sign a sub-search should try to prove for the derivative along ``j`` when it is uncertain on the
        box (0: none is worth trying): only toward an end of the statement's own range (where a bound is tight;
        inside, splitting does as well) and when the corners agree with the midpoint."""
        lo, hi = box[j]
        guess = self.sign_at_midpoint(dctx, box)
        if guess and (lo if guess > 0 else hi) in self.root_box[j] and \
                self.tight_edge(dctx, box) and self.corners_agree(dctx, box, guess):
            return guess
        return 0

    def monotone_step(self, node: Node, ctx: _Context, ivs: list[Interval], face_depth: int, budget: int, j: int,
                      direction: int, sign_known: Interval | None) -> bool:
        """Prove the box by monotonicity along ``j``: the signed derivative >= 0 on the box (its enclosure
        ``sign_known``, or a sub-search), then the face where the least value lies (symbolic at an end of the
        statement's range, where it can be substituted); on success ``node`` becomes the "monotone" step."""
        dctx = self.derivative_context(ctx, j, direction)
        assert dctx is not None
        derivative_proof = Node(node.box)
        if sign_known is not None:
            signed = dctx.value(*ivs)
            if not signed.lo >= 0:
                return False
            derivative_proof.kind, derivative_proof.info = "enclosure", signed.bounds_text()
        elif not self.prove_face(derivative_proof, dctx, face_depth + 1, budget):
            return False
        lo, hi = node.box[j]
        value = lo if direction > 0 else hi
        face_ctx = self.face_context(ctx, j, value) \
            if value in self.root_box[j] and substitutable(value) else None
        symbolic = face_ctx is not None
        face_ctx = face_ctx or ctx
        face = Node(node.box[:j] + ((value, value),) + node.box[j + 1:])
        if not self.prove_face(face, face_ctx, face_depth + 1, budget):
            return False
        node.kind, node.info = "monotone", (j, direction, symbolic)
        node.children = [derivative_proof, face]
        return True

    def tight_edge(self, ctx: _Context, box: Box) -> bool:
        """The box touches an end of the statement's range on which ``ctx``'s expression vanishes identically: its
        sign near there is what a sub-search can settle and splitting cannot."""
        for i, (lo, hi) in enumerate(box):
            for end in self.root_box[i]:
                if end in (lo, hi) and ctx.vanishes_on(i, end):
                    return True
        return False

    def corners_agree(self, ctx: _Context, box: Box, sign: int) -> bool:
        """No corner of the box (at most 8 tried) shows ``ctx``'s expression certainly of the other sign."""
        free = [j for j, (lo, hi) in enumerate(box) if lo != hi][:3]
        for mask in range(2 ** len(free)):
            point = [Interval.rational(lo) for lo, _ in box]
            for bit, j in enumerate(free):
                point[j] = Interval.rational(box[j][1] if mask >> bit & 1 else box[j][0])
            try:
                v = ctx.value(*point)
            except DomainError:
                continue
            self.evaluated += 1
            if (sign > 0 and v.hi < 0) or (sign < 0 and v.lo > 0):
                return False
        return True

    def sign_at_midpoint(self, ctx: _Context, box: Box) -> int:
        point = [Interval.rational(_midpoint(lo, hi, p.integer)) for p, (lo, hi) in zip(self.params, box)]
        try:
            v = ctx.value(*point)
        except DomainError:
            return 0
        return 1 if v.lo > 0 else -1 if v.hi < 0 else 0

    def prove_face(self, face: Node, ctx: _Context, face_depth: int, budget: int) -> bool:
        """A sub-search of the monotone lemma (a face, or a derivative's sign) within ``budget`` boxes (at least
        one: a face decided by its enclosure alone); its own sub-searches get a quarter of that."""
        face.ctx = ctx
        stack = [(face, 0, 0)]
        used = 0
        while stack:
            if used >= max(budget, 1) or self.account <= 0 or self.over_budget():
                return False
            node, depth, cooldown = stack.pop()
            used += 1
            self.account -= 1
            status, _, child_cooldown = self.decide(node, node.ctx, False, depth, face_depth, True, budget // 4,
                                                    cooldown)
            if status == "undecided":
                return False
            if status == "split":
                stack.extend((child, depth + 1, child_cooldown) for child in node.children)
        return True

    # -- the whole search -----------------------------------------------------------------------------------------
    def run(self) -> ProofResult:
        root = Node(self.root_box)
        root.ctx = self.root_ctx
        try:
            self.probe_points()
        except _Refuted as found:
            return self.failed_bound(found) if not self.can_refute else self.refutation(found)
        heap: list[tuple[float, int, Node, int, int]] = [(-math.inf, 0, root, 0, 0)]
        counter = 1
        left: list[UndecidedBox] = []
        stop_reason = ""
        try:
            while heap:
                stop_reason = self.over_budget()
                if stop_reason:
                    break
                _, _, node, depth, cooldown = heapq.heappop(heap)
                status, priority, child_cooldown = self.decide(node, node.ctx, True, depth, 0, False,
                                                               self.limits.face_boxes, cooldown)
                if status == "split":
                    for child in node.children:
                        heapq.heappush(heap, (priority, counter, child, depth + 1, child_cooldown))
                        counter += 1
                elif status == "undecided":
                    left.append(UndecidedBox(node.box, node.info[0]))
        except _Refuted as found:
            if not self.can_refute:
                return self.failed_bound(found)
            return self.refutation(found)
        seconds = self.elapsed()
        if stop_reason:
            left += [UndecidedBox(node.box, stop_reason) for _, _, node, _, _ in heap]
        if left:
            reason = stop_reason or _common_reason(left)
            return Undecided(self.problem, left, self.evaluated, seconds, self.precision, reason)
        if not self.can_prove:
            return Undecided(self.problem, [], self.evaluated, seconds, self.precision,
                             "no counterexample on the box, but the comparator is only a lower bound: nothing is "
                             "proved")
        return Proof(self.problem, root, self.evaluated, seconds, self.precision, self.excluded)

    def failed_bound(self, found: _Refuted) -> Undecided:
        """The claim certainly fails on a box against an upper bound of the truth (or where hypotheses were set
        aside): undecided, with the box and a witness, since the truth there may still be below the claim."""
        witness = {p.name: _midpoint(lo, hi, p.integer) for p, (lo, hi) in zip(self.params, found.box)}
        claimed, comparator = witness_values(self.problem, witness)
        what = ("the comparator, an upper bound of the truth," if self.problem.comparator_kind == "upper"
                else "the comparator, on a domain larger than the statement's,")
        text = ", ".join(f"{k} = {float(v):.6g}" for k, v in witness.items())
        reason = (f"{what} exceeds the claim at [{text}] ({self.problem.quantity or 'claimed'} "
                  f"{short_number(sp.sstr(claimed, full_prec=False))} vs "
                  f"{short_number(sp.sstr(comparator, full_prec=False))}): "
                  "not a refutation")
        return Undecided(self.problem, [UndecidedBox(found.box, reason)], self.evaluated, self.elapsed(),
                         self.precision, reason)

    def refutation(self, found: _Refuted) -> Refutation:
        witness = {p.name: _midpoint(lo, hi, p.integer) for p, (lo, hi) in zip(self.params, found.box)}
        claimed, comparator = witness_values(self.problem, witness)
        # the high-precision values must agree with the enclosure: claimed < comparator (">=") or > ("<=")
        wrong_side = (claimed >= comparator) if self.problem.relation == ">=" else (claimed <= comparator)
        if wrong_side:
            raise ProverInconsistency(
                f"{self.problem.statement_id}: the enclosure says the claim fails on {found.box} but at the witness "
                f"{witness} mpmath gives claimed {claimed} and comparator {comparator}")
        return Refutation(self.problem, found.box, found.margin.bounds_text(), witness,
                          sp.sstr(claimed, full_prec=False), sp.sstr(comparator, full_prec=False), self.evaluated,
                          self.elapsed(), self.precision, WITNESS_DIGITS)


#: Decimal digits of the witness re-evaluation.
WITNESS_DIGITS = 50


def witness_values(problem: ProofProblem, point: dict[str, Fraction]) -> tuple[sp.Float, sp.Float]:
    """The claimed value and the comparator at ``point``, by sympy's ``evalf`` (mpmath) at
    :data:`WITNESS_DIGITS` digits."""
    subs = {}
    for e in (problem.claimed, problem.comparator):
        for s in e.free_symbols:
            v = point.get(s.name, Fraction(1))  # a symbol the margin does not depend on: any value will do
            subs[s] = sp.Rational(v.numerator, v.denominator)
    claimed = sp.N(problem.claimed.xreplace(subs).doit(), WITNESS_DIGITS)
    comparator = sp.N(problem.comparator.xreplace(subs).doit(), WITNESS_DIGITS)
    return claimed, comparator


def _common_reason(left: list[UndecidedBox]) -> str:
    reasons: dict[str, int] = {}
    for b in left:
        key = b.reason.split(":")[0]
        reasons[key] = reasons.get(key, 0) + 1
    return "; ".join(f"{k} ({n} boxes)" for k, n in sorted(reasons.items(), key=lambda kv: -kv[1]))


def prove(problem: ProofProblem, *, precision: int = DEFAULT_PRECISION, limits: Limits | None = None,
          progress: Callable[[int, int, float], None] | None = None) -> ProofResult:
    """Decide ``problem`` on its box: a :class:`~dpverify.prove.results.Proof`, a
    :class:`~dpverify.prove.results.Refutation` or an :class:`~dpverify.prove.results.Undecided`.

    ``precision``: Arb's working precision in bits. ``limits``: :class:`Limits`. ``progress(boxes, 0, seconds)`` is
    called every 2000 boxes.
    """
    if not isinstance(problem, ProofProblem):
        raise TypeError(f"problem must be a ProofProblem; got {type(problem).__name__}")
    with working_precision(precision):
        return _Prover(problem, precision, limits or Limits(), progress).run()
