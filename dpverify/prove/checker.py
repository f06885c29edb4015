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


def build(e: sp.Basic):  # noqa: C901 - one branch per node type
    """A closure env -> interval for ``e`` (env maps a symbol's name to its interval)."""
    if isinstance(e, sp.Symbol):
        return lambda env: env[e.name]
    if isinstance(e, sp.Rational):
        return (lambda c: lambda env: c)(_pt(Fraction(int(e.p), int(e.q))))
    if isinstance(e, sp.Float):
        if e != int(e):
            raise Invalid(f"inexact Float {e} in the formula")
        return (lambda c: lambda env: c)(_pt(Fraction(int(e))))
    if e is sp.pi or e is sp.E:
        b = arb.pi() if e is sp.pi else arb.const_e()
        return (lambda c: lambda env: c)((b.lower(), b.upper()))
    if isinstance(e, sp.Add):
        terms = list(e.args)
        if sp.S.NegativeOne in terms and any(isinstance(t, sp.exp) for t in terms):
            x = next(t for t in terms if isinstance(t, sp.exp))
            terms = [t for t in terms if t is not x]
            terms.remove(sp.S.NegativeOne)
            inner = build(x.args[0])
            fs = [lambda env, f=inner: _EXPM1(f(env))] + [build(t) for t in terms]
        else:
            fs = [build(t) for t in terms]

        def add(env, fs=fs):
            acc = fs[0](env)
            for f in fs[1:]:
                acc = _add(acc, f(env))
            return acc
        return add
    if isinstance(e, sp.Mul):
        fs = [build(t) for t in e.args]

        def mul(env, fs=fs):
            acc = fs[0](env)
            for f in fs[1:]:
                acc = _mul(acc, f(env))
            return acc
        return mul
    if isinstance(e, sp.Pow):
        base, ex = e.args
        fb = build(base)
        if isinstance(ex, sp.Integer):
            n = int(ex)
            return lambda env: _powi(fb(env), n)
        if isinstance(ex, sp.Rational):
            p, q = int(ex.p), int(ex.q)
            return lambda env: _powq(fb(env), p, q)
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
    if isinstance(e, sp.log):
        a = e.args[0]
        if isinstance(a, sp.Add) and sp.S.One in a.args:
            rest = build(sp.Add(*[t for t in a.args if t is not sp.S.One]))
            return lambda env: _LOG1P(rest(env))
        fa = build(a)
        return lambda env: _LOG(fa(env))
    for cls, f in _FUNCS.items():
        if isinstance(e, cls):
            fa = build(e.args[0])
            return lambda env, f=f: f(fa(env))
    if isinstance(e, (sp.Max, sp.Min)):
        fs = [build(t) for t in e.args]
        pick = max if isinstance(e, sp.Max) else min

        def extreme(env):
            xs = [f(env) for f in fs]
            key = lambda v: Fraction(*_ratio(v))  # noqa: E731
            return pick((x[0] for x in xs), key=key), pick((x[1] for x in xs), key=key)
        return extreme
    if isinstance(e, sp.zeta):
        fs_, fa = build(e.args[0]), build(e.args[1]) if len(e.args) > 1 else (lambda c: lambda env: c)(_pt(Fraction(1)))

        def hz(env):
            a = fa(env)
            if not a[0] > 0:
                raise ArithmeticError("Hurwitz zeta needs a > 0")
            return _ball(lambda s, x: s.zeta(x))(fs_(env), a)
        return hz
    if isinstance(e, (sp.binomial, sp.factorial)):
        fs = [build(t) for t in e.args]
        if isinstance(e, sp.factorial):
            return lambda env: _pt(Fraction(math.factorial(_integer(fs[0](env)))))
        return lambda env: _pt(Fraction(math.comb(_integer(fs[0](env)), _integer(fs[1](env)))
                                        if 0 <= _integer(fs[1](env)) <= _integer(fs[0](env)) else 0))
    if isinstance(e, sp.Sum):
        (i, a, b), = e.limits[-1:]
        body = build(sp.Sum(e.function, *e.limits[:-1]) if len(e.limits) > 1 else e.function)
        fa, fb = build(a), build(b)

        def total(env):
            acc = _pt(Fraction(0))
            for k in range(_integer(fa(env)), _integer(fb(env)) + 1):
                acc = _add(acc, body({**env, i.name: _pt(Fraction(k))}))
            return acc
        return total
    raise Invalid(f"the checker cannot evaluate {type(e).__name__}")


def _ratio(v: arb) -> tuple[int, int]:
    m, x = (int(t) for t in v.man_exp())
    return (m * 2**x, 1) if x >= 0 else (m, 2 ** -x)


def _frac(text: str) -> Fraction:
    return Fraction(text)


def _env(names, box):
    return {n: _pt(lo) if lo == hi else (_pt(lo)[0], _pt(hi)[1]) for n, (lo, hi) in zip(names, box)}


def _check(cert: dict) -> tuple[str, str, str, int]:
    if cert.get("format") != FORMAT:
        raise Invalid(f"not a certificate of format {FORMAT}")
    pr = cert["problem"]
    claimed, comparator, margin, scale = (sp.sympify(pr[k]) for k in ("claimed", "comparator", "margin", "scale"))
    diff = claimed - comparator if pr["relation"] == ">=" else comparator - claimed
    if pr["relation"] not in (">=", "<="):
        raise Invalid("unknown relation")
    if scale.is_positive is not True or sp.simplify(margin * scale - diff) != 0:
        raise Invalid("margin * scale is not the claimed-minus-comparator difference (or scale is not positive)")
    names = [p["name"] for p in pr["parameters"]]
    integer = [p["integer"] for p in pr["parameters"]]
    box = [(_frac(p["lo"]), _frac(p["hi"])) for p in pr["parameters"]]
    gaps = []
    for c in pr["constraints"]:
        rel = sp.sympify(c["relation"])
        less = isinstance(rel, (sp.StrictLessThan, sp.LessThan))
        gaps.append((build(rel.rhs - rel.lhs if less else rel.lhs - rel.rhs),
                     isinstance(rel, (sp.StrictLessThan, sp.StrictGreaterThan))))
    if cert["outcome"] == "refuted":
        if pr["comparator_kind"] == "upper":
            raise Invalid("a refutation against an upper bound of the truth proves nothing")
        ref = cert["refutation"]
        rbox = [(_frac(lo), _frac(hi)) for lo, hi in ref["box"]]
        if any(not (B[0] <= b[0] <= b[1] <= B[1]) for b, B in zip(rbox, box)) or len(rbox) != len(box):
            raise Invalid("the refuting box is not inside the statement's box")
        env = _env(names, rbox)
        if not build(margin)(env)[1] < 0:
            raise Invalid("the margin is not certainly negative on the refuting box")
        for g, strict in gaps:
            lo = g(env)[0]
            if not (lo > 0 or (not strict and lo >= 0)):
                raise Invalid("a hypothesis does not certainly hold on the refuting box")
        return pr["statement"], pr["version"], "refuted", 0
    if pr["comparator_kind"] == "lower":
        raise Invalid("a proof against a lower bound of the truth proves nothing")
    cache: dict = {}

    def memo(key, make):  # the same compiled form, derivative or face recurs on many boxes: make it once
        if key not in cache:
            cache[key] = make()
        return cache[key]

    nodes = iter(cert["tree"])
    leaves = 0
    stack = [(box, margin, True)]
    while stack:
        cur, expr, may_exclude = stack.pop()
        node = next(nodes)
        env = _env(names, cur)
        kind = node[0]
        if kind == "S":
            j, p = node[1], _frac(node[2])
            lo, hi = cur[j]
            if integer[j]:
                if not (p.denominator == 1 and lo <= p < hi):
                    raise Invalid(f"integer split {p} outside [{lo}, {hi})")
                kids = [(lo, p), (p + 1, hi)]
            elif not lo < p < hi:
                raise Invalid(f"split point {p} not strictly inside [{lo}, {hi}]")
            else:
                kids = [(lo, p), (p, hi)]
            for k in reversed(kids):
                stack.append((cur[:j] + [k] + cur[j + 1:], expr, may_exclude))
        elif kind == "E":
            leaves += 1
            if not memo(expr, lambda: build(expr))(env)[0] >= 0:
                raise Invalid(f"the margin is not >= 0 on the leaf {cur}")
        elif kind == "X":
            leaves += 1
            g, strict = gaps[node[1]]
            hi = g(env)[1]
            if not may_exclude or not (hi < 0 or (strict and hi <= 0)):
                raise Invalid(f"leaf {cur} is not certainly outside hypothesis {node[1]} (or lies under a face)")
        elif kind == "M":
            j, direction, symbolic = node[1], node[2], node[3]
            if direction not in (1, -1):
                raise Invalid("a monotone step's direction must be +1 or -1")
            sym = memo(("sym", expr, j), lambda: next((s for s in expr.free_symbols if s.name == names[j]), None))
            if sym is None:
                raise Invalid(f"monotone step along {names[j]}, on which the expression does not depend")
            v = cur[j][0] if direction > 0 else cur[j][1]
            face = memo(("face", expr, j, v), lambda: expr.xreplace({sym: sp.Rational(v.numerator, v.denominator)})) \
                if symbolic else expr
            stack.append((cur[:j] + [(v, v)] + cur[j + 1:], face, False))  # second: the face
            stack.append((cur, memo(("diff", expr, j, direction), lambda: direction * sp.diff(expr, sym)), False))
        elif kind == "P":
            j = node[1]
            if cur[j][0] != cur[j][1]:
                raise Invalid(f"substitution of {names[j]}, which is not a single value on {cur}")
            v = cur[j][0]
            stack.append((cur, memo(("face", expr, j, v), lambda: expr.xreplace(
                {s: sp.Rational(v.numerator, v.denominator) for s in expr.free_symbols if s.name == names[j]})),
                may_exclude))
        else:
            raise Invalid(f"unknown node {kind!r}")
    if next(nodes, None) is not None:
        raise Invalid("the partition has entries left over")
    return pr["statement"], pr["version"], "proved", leaves


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
