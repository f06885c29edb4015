"""The independent checker of proof certificates (:mod:`dpverify.prove.certificate`).

It shares no code with the prover: only python-flint (Arb) and sympy, in which the statement's formula is written.
Its intervals are pairs of exact Arb points, its evaluator is a tree of closures built from the expression (the
prover writes Python source instead), and it re-derives everything the certificate claims:

1. the margin identity ``margin * scale == claimed - comparator`` (``comparator - claimed`` for "<=") by
   ``sympy.simplify``, and ``scale > 0`` by its symbols' assumptions;
2. for a proof, that the partition covers the box (each split point strictly inside its box; integer splits
   ``[lo, p]``, ``[p + 1, hi]``), that each leaf's margin has a lower end >= 0, or that a hypothesis certainly fails
   on it ("X" leaves, never under a monotone step), and, for each monotone step, the two sub-proofs that follow it:
   the signed derivative (``sympy.diff``) >= 0 on the box, then the expression >= 0 on the face;
3. for a refutation, that the margin is certainly negative on the box, every hypothesis certainly holds there, and
   the comparator is not only an upper bound.

The recorded enclosures are not trusted. Run it as ``dpverify prove --check FILE`` or
``python -m dpverify.prove.checker FILE``.
"""
from __future__ import annotations

import gzip
import json
import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction

import flint
import sympy as sp
from flint import arb, fmpq

__all__ = ["CheckReport", "check_certificate"]

FORMAT = "dpverify-proof-certificate/1"
EXTRA_BITS = 32  # the checker works above the prover's precision: its enclosures are no wider


class Invalid(Exception):
    """The certificate does not hold (the message says where)."""


@dataclass
class CheckReport:
    valid: bool
    outcome: str = ""
    statement: str = ""
    version: str = ""
    leaves: int = 0
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if self.valid:
            return f"certificate valid: {self.statement} {self.outcome} (version {self.version}, {self.leaves} leaves)"
        return f"certificate INVALID for {self.statement or '?'}: {'; '.join(self.errors)}"


def _pt(q: Fraction) -> tuple[arb, arb]:
    b = arb(fmpq(q.numerator, q.denominator))
    return b.lower(), b.upper()


def _ok(b: arb) -> arb:
    if not b.is_finite():
        raise ArithmeticError("an enclosure is not finite")
    return b


def _add(x, y): return _ok(x[0] + y[0]).lower(), _ok(x[1] + y[1]).upper()
def _neg(x): return -x[1], -x[0]


def _mul(x, y):  # the endpoints are exact (radius 0), so min and max compare them exactly
    ps = [_ok(a * b) for a in x for b in y]
    return min(p.lower() for p in ps), max(p.upper() for p in ps)


def _inv(x):
    if not (x[0] > 0 or x[1] < 0):
        raise ArithmeticError("division by an interval containing 0")
    return _ok(1 / x[1]).lower(), _ok(1 / x[0]).upper()


def _mono(f, up=True, need=None):
    def g(x):
        if need is not None and not need(x[0]):
            raise ArithmeticError(f"{f.__name__} is undefined on part of the interval")
        a, b = _ok(f(x[0])), _ok(f(x[1]))
        return (a.lower(), b.upper()) if up else (b.lower(), a.upper())
    return g


def _powi(x, n):
    if n < 0:
        return _inv(_powi(x, -n))
    a, b = _ok(x[0] ** n), _ok(x[1] ** n)
    if n % 2 or x[0] >= 0:
        return a.lower(), b.upper()
    if x[1] <= 0:
        return b.lower(), a.upper()
    return arb(0), (a if a > b else b).upper()


def _powq(x, p, q):
    if x[0] < 0 or (p < 0 and not x[0] > 0):
        raise ArithmeticError("fractional power outside its domain")
    r = arb(fmpq(p, q))
    e = [arb(0) if v == 0 else _ok(v ** r) for v in x]
    return (e[0].lower(), e[1].upper()) if p > 0 else (e[1].lower(), e[0].upper())


def _ball(f):
    def g(*xs):
        b = _ok(f(*[x[0] if x[0] == x[1] else arb.union(x[0], x[1]) for x in xs]))
        return b.lower(), b.upper()
    return g


def _integer(x):
    if not (x[0] == x[1] and x[0].is_integer()):
        raise ArithmeticError("an integer point was expected")
    return int(x[0].unique_fmpz())


def _step(x):
    return (arb(1), arb(1)) if x[0] > 0 else (arb(0), arb(0)) if x[1] < 0 else (arb(0), arb(1))


def _clamp(x):
    return (x[0] if x[0] > -1 else arb(-1)), (x[1] if x[1] < 1 else arb(1))


_FUNCS = {sp.exp: _mono(arb.exp), sp.erf: _mono(arb.erf), sp.erfc: _mono(arb.erfc, up=False),
          sp.cos: lambda x: _clamp(_ball(arb.cos)(x)), sp.sin: lambda x: _clamp(_ball(arb.sin)(x)),
          sp.Heaviside: _step, sp.sign: lambda x: (arb(1), arb(1)) if x[0] > 0 else (arb(-1), arb(-1)) if x[1] < 0
          else ((arb(-1) if x[0] < 0 else arb(0)), (arb(1) if x[1] > 0 else arb(0))), sp.Abs: lambda x: x if x[0] >= 0 else _neg(x) if x[1] <= 0 else
          (arb(0), (-x[0] if -x[0] > x[1] else x[1])),
          sp.loggamma: lambda x: _ball(arb.lgamma)(x) if x[0] > 0 else (_ for _ in ()).throw(ArithmeticError("lgamma"))}
_LOG = _mono(arb.log, need=lambda v: v > 0)
_LOG1P = _mono(arb.log1p, need=lambda v: v > -1)
_EXPM1 = _mono(arb.expm1)


def _const(c): return lambda env: c
def _compose(f, g): return lambda env: f(g(env))


def _fold(op, fs):
    """A closure env -> ``op`` folded over the intervals of ``fs`` (a sum or a product of terms)."""
    def fold(env):
        acc = fs[0](env)
        for f in fs[1:]:
            acc = op(acc, f(env))
        return acc
    return fold


def _b_float(e):
    """An integer-valued Float (any other is not exact)."""
    if e != int(e):
        raise Invalid(f"inexact Float {e} in the formula")
    return _const(_pt(Fraction(int(e))))


def _b_constant(e):
    """pi or E, enclosed by Arb."""
    b = arb.pi() if e is sp.pi else arb.const_e()
    return _const((b.lower(), b.upper()))


def _b_add(e):
    """A sum; ``exp(x) - 1`` among its terms is evaluated as ``expm1(x)``."""
    terms = list(e.args)
    if sp.S.NegativeOne in terms and any(isinstance(t, sp.exp) for t in terms):
        x = next(t for t in terms if isinstance(t, sp.exp))
        terms = [t for t in terms if t is not x]
        terms.remove(sp.S.NegativeOne)
        return _fold(_add, [_compose(_EXPM1, build(x.args[0]))] + [build(t) for t in terms])
    return _fold(_add, [build(t) for t in terms])


def _b_pow(e):
    """``x ** n`` (integer n), ``x ** (p/q)``, or ``x ** y`` as ``exp(y log x)`` (0 ** y for y > 0)."""
    base, ex = e.args
    fb = build(base)
    if isinstance(ex, sp.Integer):
        return lambda env, n=int(ex): _powi(fb(env), n)
    if isinstance(ex, sp.Rational):
        return lambda env, p=int(ex.p), q=int(ex.q): _powq(fb(env), p, q)
    fx = build(ex)

    def rpow(env):
        x, y = fb(env), fx(env)
        if x[0] > 0:
            return _FUNCS[sp.exp](_mul(_LOG(x), y))
        if x[0] < 0 or not y[0] > 0:
            raise ArithmeticError("x ** y needs x > 0, or x >= 0 with y > 0")
        tops = [_ok(x[1] ** e).upper() for e in y] if x[1] > 0 else [arb(0)]
        return arb(0), max(tops, key=lambda v: Fraction(*_ratio(v)))
    return rpow


def _b_log(e):
    """``log(x)``, or ``log1p(rest)`` for ``log(1 + rest)``."""
    a = e.args[0]
    if isinstance(a, sp.Add) and sp.S.One in a.args:
        return _compose(_LOG1P, build(sp.Add(*[t for t in a.args if t is not sp.S.One])))
    return _compose(_LOG, build(a))


def _b_extreme(e):
    """Max or Min of its arguments, end by end."""
    fs = [build(t) for t in e.args]
    pick = max if isinstance(e, sp.Max) else min

    def extreme(env):
        xs = [f(env) for f in fs]
        key = lambda v: Fraction(*_ratio(v))  # noqa: E731
        return pick((x[0] for x in xs), key=key), pick((x[1] for x in xs), key=key)
    return extreme


def _b_zeta(e):
    """Hurwitz ``zeta(s, a)`` (a = 1 when not given), for a > 0."""
    fs_, fa = build(e.args[0]), build(e.args[1]) if len(e.args) > 1 else _const(_pt(Fraction(1)))

    def hz(env):
        a = fa(env)
        if not a[0] > 0:
            raise ArithmeticError("Hurwitz zeta needs a > 0")
        return _ball(lambda s, x: s.zeta(x))(fs_(env), a)
    return hz


def _b_combinatorial(e):
    """``factorial(n)`` or ``binomial(n, k)`` of integer points (exact; a binomial outside 0 <= k <= n is 0)."""
    fs = [build(t) for t in e.args]
    if isinstance(e, sp.factorial):
        return lambda env: _pt(Fraction(math.factorial(_integer(fs[0](env)))))
    return lambda env: _pt(Fraction(math.comb(_integer(fs[0](env)), _integer(fs[1](env)))
                                    if 0 <= _integer(fs[1](env)) <= _integer(fs[0](env)) else 0))


def _b_sum(e):
    """A ``Sum`` over its last index, between integer points (the other indices nest inside)."""
    (i, a, b), = e.limits[-1:]
    body = build(sp.Sum(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function)
    fa, fb = build(a), build(b)

    def total(env):
        acc = _pt(Fraction(0))
        for k in range(_integer(fa(env)), _integer(fb(env)) + 1):
            acc = _add(acc, body({**env, i.name: _pt(Fraction(k))}))
        return acc
    return total


#: (node type, builder) in the order they are tried: the first type that matches builds the closure
_BUILDERS = [(sp.Symbol, lambda e: lambda env: env[e.name]),
             (sp.Rational, lambda e: _const(_pt(Fraction(int(e.p), int(e.q))))),
             (sp.Float, _b_float), ((type(sp.pi), type(sp.E)), _b_constant), (sp.Add, _b_add),
             (sp.Mul, lambda e: _fold(_mul, [build(t) for t in e.args])), (sp.Pow, _b_pow), (sp.log, _b_log),
             *[(cls, lambda e, f=f: _compose(f, build(e.args[0]))) for cls, f in _FUNCS.items()],
             ((sp.Max, sp.Min), _b_extreme), (sp.zeta, _b_zeta), ((sp.binomial, sp.factorial), _b_combinatorial),
             (sp.Sum, _b_sum)]


def build(e: sp.Basic):
    """A closure env -> interval for ``e`` (env maps a symbol's name to its interval)."""
    for cls, make in _BUILDERS:
        if isinstance(e, cls):
            return make(e)
    raise Invalid(f"the checker cannot evaluate {type(e).__name__}")


def _ratio(v: arb) -> tuple[int, int]:
    m, x = (int(t) for t in v.man_exp())
    return (m * 2**x, 1) if x >= 0 else (m, 2 ** -x)


def _env(names, box):
    return {n: _pt(lo) if lo == hi else (_pt(lo)[0], _pt(hi)[1]) for n, (lo, hi) in zip(names, box)}


def _margin(pr: dict) -> sp.Expr:
    """The statement's margin, once ``margin * scale == claimed - comparator`` (``comparator - claimed`` for "<=")
    is re-derived by ``sympy.simplify`` and ``scale > 0`` by its symbols' assumptions."""
    claimed, comparator, margin, scale = (sp.sympify(pr[k]) for k in ("claimed", "comparator", "margin", "scale"))
    diff = claimed - comparator if pr["relation"] == ">=" else comparator - claimed
    if pr["relation"] not in (">=", "<="):
        raise Invalid("unknown relation")
    if scale.is_positive is not True or sp.simplify(margin * scale - diff) != 0:
        raise Invalid("margin * scale is not the claimed-minus-comparator difference (or scale is not positive)")
    return margin


def _gap(rel):
    """A hypothesis as (a closure for a quantity that is >= 0 (> 0 if strict) exactly where it holds, strict)."""
    less = isinstance(rel, (sp.StrictLessThan, sp.LessThan))
    return (build(rel.rhs - rel.lhs if less else rel.lhs - rel.rhs),
            isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan)))


def _refutation(cert: dict, names, box, margin, gaps) -> None:
    """A refutation: its box inside the statement's, the margin certainly < 0 and every hypothesis certainly holding
    on it, against a comparator that is not only an upper bound."""
    if cert["problem"]["comparator_kind"] == "upper":
        raise Invalid("a refutation against an upper bound of the truth proves nothing")
    rbox = [(Fraction(lo), Fraction(hi)) for lo, hi in cert["refutation"]["box"]]
    if any(not (B[0] <= b[0] <= b[1] <= B[1]) for b, B in zip(rbox, box)) or len(rbox) != len(box):
        raise Invalid("the refuting box is not inside the statement's box")
    env = _env(names, rbox)
    if not build(margin)(env)[1] < 0:
        raise Invalid("the margin is not certainly negative on the refuting box")
    for g, strict in gaps:
        lo = g(env)[0]
        if not (lo > 0 or (not strict and lo >= 0)):
            raise Invalid("a hypothesis does not certainly hold on the refuting box")


@dataclass
class _Walk:
    """What a proof's nodes are checked against: the parameters' names and integrality, the hypotheses' gaps, and a
    cache of what recurs on many boxes."""
    names: list
    integer: list
    gaps: list
    cache: dict = field(default_factory=dict)

    def memo(self, key, make):  # the same compiled form, derivative or face recurs on many boxes: make it once
        if key not in self.cache:
            self.cache[key] = make()
        return self.cache[key]


def _split(w: _Walk, node, cur, expr, may_exclude, env) -> list:
    """"S": the split point strictly inside its side (integers: ``[lo, p]``, ``[p + 1, hi]``); the two halves."""
    j, p = node[1], Fraction(node[2])
    lo, hi = cur[j]
    if w.integer[j] and not (p.denominator == 1 and lo <= p < hi):
        raise Invalid(f"integer split {p} outside [{lo}, {hi})")
    if not w.integer[j] and not lo < p < hi:
        raise Invalid(f"split point {p} not strictly inside [{lo}, {hi}]")
    return [(cur[:j] + [k] + cur[j + 1:], expr, may_exclude) for k in [(lo, p), (p + 1 if w.integer[j] else p, hi)]]


def _enclosure(w: _Walk, node, cur, expr, may_exclude, env) -> list:
    """"E": a leaf on which the expression's lower end is >= 0."""
    if not w.memo(expr, lambda: build(expr))(env)[0] >= 0:
        raise Invalid(f"the margin is not >= 0 on the leaf {cur}")
    return []


def _excluded(w: _Walk, node, cur, expr, may_exclude, env) -> list:
    """"X": a leaf on which a hypothesis certainly fails (never under a monotone step)."""
    g, strict = w.gaps[node[1]]
    hi = g(env)[1]
    if not may_exclude or not (hi < 0 or (strict and hi <= 0)):
        raise Invalid(f"leaf {cur} is not certainly outside hypothesis {node[1]} (or lies under a face)")
    return []


def _monotone(w: _Walk, node, cur, expr, may_exclude, env) -> list:
    """"M": the signed derivative (to be >= 0 on the box), then the face (the expression substituted exactly when
    symbolic) where the least value lies."""
    j, direction, symbolic = node[1], node[2], node[3]
    if direction not in (1, -1):
        raise Invalid("a monotone step's direction must be +1 or -1")
    sym = w.memo(("sym", expr, j), lambda: next((s for s in expr.free_symbols if s.name == w.names[j]), None))
    if sym is None:
        raise Invalid(f"monotone step along {w.names[j]}, on which the expression does not depend")
    v = cur[j][0] if direction > 0 else cur[j][1]
    face = w.memo(("face", expr, j, v), lambda: expr.xreplace({sym: sp.Rational(v.numerator, v.denominator)})) \
        if symbolic else expr
    return [(cur, w.memo(("diff", expr, j, direction), lambda: direction * sp.diff(expr, sym)), False),
            (cur[:j] + [(v, v)] + cur[j + 1:], face, False)]


def _substitute(w: _Walk, node, cur, expr, may_exclude, env) -> list:
    """"P": the expression with a parameter that is a single value on the box substituted."""
    j = node[1]
    if cur[j][0] != cur[j][1]:
        raise Invalid(f"substitution of {w.names[j]}, which is not a single value on {cur}")
    v = cur[j][0]
    return [(cur, w.memo(("face", expr, j, v), lambda: expr.xreplace(
        {s: sp.Rational(v.numerator, v.denominator) for s in expr.free_symbols if s.name == w.names[j]})),
        may_exclude)]


_NODES = {"S": _split, "E": _enclosure, "X": _excluded, "M": _monotone, "P": _substitute}


def _proof(tree, names, integer, box, margin, gaps) -> int:
    """Walk a proof's partition (depth first, as the prover wrote it); the number of leaves (nodes with no children)."""
    nodes, w = iter(tree), _Walk(names, integer, gaps)
    stack, leaves = [(box, margin, True)], 0
    while stack:
        cur, expr, may_exclude = stack.pop()
        node = next(nodes)
        env = _env(names, cur)
        kind = node[0]
        handler = _NODES.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise Invalid(f"unknown node {kind!r}")
        kids = handler(w, node, cur, expr, may_exclude, env)
        leaves += not kids
        stack.extend(reversed(kids))
    if next(nodes, None) is not None:
        raise Invalid("the partition has entries left over")
    return leaves


def _check(cert: dict) -> tuple[str, str, str, int]:
    if cert.get("format") != FORMAT:
        raise Invalid(f"not a certificate of format {FORMAT}")
    pr = cert["problem"]
    margin = _margin(pr)
    names = [p["name"] for p in pr["parameters"]]
    integer = [p["integer"] for p in pr["parameters"]]
    box = [(Fraction(p["lo"]), Fraction(p["hi"])) for p in pr["parameters"]]
    gaps = [_gap(sp.sympify(c["relation"])) for c in pr["constraints"]]
    if cert["outcome"] == "refuted":
        _refutation(cert, names, box, margin, gaps)
        return pr["statement"], pr["version"], "refuted", 0
    if pr["comparator_kind"] == "lower":
        raise Invalid("a proof against a lower bound of the truth proves nothing")
    return pr["statement"], pr["version"], "proved", _proof(cert["tree"], names, integer, box, margin, gaps)


def check_certificate(source: str | dict) -> CheckReport:
    """Re-verify a certificate (a path to its JSON file, gzip-compressed if it ends in .gz, or the decoded dict)."""
    try:
        opener = gzip.open if str(source).endswith(".gz") else open
        cert = source if isinstance(source, dict) else json.loads(opener(source, "rt", encoding="utf-8").read())
    except (OSError, EOFError, ValueError) as exc:
        return CheckReport(False, errors=[f"cannot read the certificate: {exc}"])
    old = flint.ctx.prec
    try:
        flint.ctx.prec = int(cert.get("precision", 96)) + EXTRA_BITS
        statement, version, outcome, leaves = _check(cert)
        return CheckReport(True, outcome, statement, version, leaves)
    except (Invalid, ArithmeticError, KeyError, TypeError, ValueError, StopIteration, IndexError) as exc:
        problem = cert.get("problem", {}) if isinstance(cert, dict) else {}
        return CheckReport(False, str(cert.get("outcome", "")), problem.get("statement", ""),
                           problem.get("version", ""), errors=[f"{type(exc).__name__}: {exc}"])
    finally:
        flint.ctx.prec = old


if __name__ == "__main__":  # pragma: no cover
    report = check_certificate(sys.argv[1])
    print(report.summary())
    sys.exit(0 if report.valid else 1)
