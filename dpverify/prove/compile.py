"""sympy expressions compiled to functions over :class:`~dpverify.prove.intervals.Interval`: the prover's evaluator.

:func:`compile_expression` walks an expression once and writes a Python function, one line per distinct
sub-expression (equal sub-trees share a line: the tree is read as a DAG, which is sympy's own hash-consing), that
calls the interval operations. The function takes one :class:`Interval` per parameter name, in the order given, and
returns an enclosure of the expression's range over their box.

What it reads: integers and rationals (exact), ``pi`` and ``E``, ``+``, ``*``, integer and rational powers (a
variable exponent as ``exp(y log x)``), ``exp``, ``log``, ``sqrt``, ``erf``, ``erfc``, ``Abs``, ``Max``, ``Min``,
``Heaviside`` and ``sign`` (what ``diff`` makes of ``Max`` and ``Abs``), ``cos``, ``sin``, ``loggamma``, Hurwitz ``zeta(s, a)``,
``binomial`` and ``factorial`` of integer points, and ``Sum`` over integer bounds that evaluate to points. Two
rewrites keep small quantities accurate: ``log(1 + x)`` is ``log1p(x)`` and ``exp(x) - 1`` is ``expm1(x)``.
A ``Float`` is refused (:class:`UnsupportedExpression`): a literal like 0.1 is not exact.

The independent checker (:mod:`dpverify.prove.checker`) evaluates the same expressions with its own interpreter;
the two share nothing but python-flint.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, ClassVar, Sequence

import sympy as sp
from flint import arb

from dpverify.prove.intervals import DomainError, Interval

__all__ = ["UnsupportedExpression", "compile_expression", "CompiledExpression"]


class UnsupportedExpression(ValueError):
    """The expression uses something the interval evaluator does not read."""


def _point_integer(x: Interval, what: str) -> int:
    if not x.is_point():
        raise DomainError(f"{what} must be a single integer here; the box gives an interval")
    value = x.lo
    if not value.is_integer():
        raise DomainError(f"{what} must be an integer; got a non-integer point")
    n = value.unique_fmpz()
    if n is None:  # not reached: an exact integer point has a unique integer
        raise DomainError(f"{what} must be an integer; got a non-integer point")
    return int(n)


def _binomial(n: Interval, k: Interval) -> Interval:
    ni, ki = _point_integer(n, "binomial n"), _point_integer(k, "binomial k")
    if ki < 0 or ki > ni:
        return Interval.rational(0)
    return Interval.rational(math.comb(ni, ki))


def _factorial(n: Interval) -> Interval:
    ni = _point_integer(n, "factorial n")
    if ni < 0:
        raise DomainError("factorial of a negative integer")
    return Interval.rational(math.factorial(ni))


def _finite_sum(summand: Callable[..., Interval], lower: Interval, upper: Interval, args: Sequence[Interval]) -> Interval:
    a, b = _point_integer(lower, "a Sum's lower bound"), _point_integer(upper, "a Sum's upper bound")
    total = Interval.rational(0)
    for i in range(a, b + 1):
        total = total + summand(*args, Interval.rational(i))
    return total


def _max(*xs: Interval) -> Interval:
    out = xs[0]
    for x in xs[1:]:
        out = out.maximum(x)
    return out


def _min(*xs: Interval) -> Interval:
    out = xs[0]
    for x in xs[1:]:
        out = out.minimum(x)
    return out


#: The functions the generated code calls (``N.<name>``).
class _Namespace:
    exp = staticmethod(lambda x: x.exp())
    expm1 = staticmethod(lambda x: x.expm1())
    log = staticmethod(lambda x: x.log())
    log1p = staticmethod(lambda x: x.log1p())
    sqrt = staticmethod(lambda x: x.sqrt())
    erf = staticmethod(lambda x: x.erf())
    erfc = staticmethod(lambda x: x.erfc())
    abs = staticmethod(lambda x: x.abs())
    cos = staticmethod(lambda x: x.cos())
    sin = staticmethod(lambda x: x.sin())
    lgamma = staticmethod(lambda x: x.lgamma())
    heaviside = staticmethod(lambda x: x.heaviside())
    sign = staticmethod(lambda x: x.sign())
    rpow = staticmethod(lambda x, y: x.rpow(y))
    zeta = staticmethod(lambda s, a: s.zeta(a))
    power = staticmethod(lambda x, n: x.power(n))
    root_power = staticmethod(lambda x, p, q: x.root_power(p, q))
    max = staticmethod(_max)
    min = staticmethod(_min)
    binomial = staticmethod(_binomial)
    factorial = staticmethod(_factorial)
    finite_sum = staticmethod(_finite_sum)


_UNARY: dict[type[sp.Basic], str] = {
    sp.exp: "exp",
    sp.erf: "erf",
    sp.erfc: "erfc",
    sp.Abs: "abs",
    sp.cos: "cos",
    sp.sin: "sin",
    sp.loggamma: "lgamma",
}


class CompiledExpression:
    """A compiled expression: call it with one Interval per name (``names``, in order)."""

    def __init__(self, expr: sp.Expr, names: Sequence[str]) -> None:
        self.expr = expr
        self.names = tuple(names)
        self.function, self.source = _build(expr, self.names)

    def __call__(self, *args: Interval) -> Interval:
        return self.function(*args)


def compile_expression(expr: sp.Basic, names: Sequence[str]) -> CompiledExpression:
    """Compile ``expr`` (its free symbols must be among ``names``) to a function over intervals."""
    expr = sp.sympify(expr)
    free = {s.name for s in expr.free_symbols}
    missing = sorted(free - set(names))
    if missing:
        raise UnsupportedExpression(f"the expression uses {missing}, which are not parameters {list(names)}")
    return CompiledExpression(expr, names)


def _unary(fname: str) -> Callable[[Any, sp.Basic], str]:
    """A handler of :class:`_Writer` for a function of one argument: a line calling ``N.<fname>``."""
    return lambda writer, e: writer.new(f"N.{fname}({writer.visit(e.args[0])})")


class _Writer:
    def __init__(self, names: Sequence[str], constants: list, helpers: list) -> None:
        self.lines: list[str] = []
        self.memo: dict[sp.Basic, str] = {}
        self.symbols = {name: f"a{i}" for i, name in enumerate(names)}
        self.constants = constants
        self.helpers = helpers
        self.count = 0

    def new(self, code: str) -> str:
        name = f"t{self.count}"
        self.count += 1
        self.lines.append(f"    {name} = {code}")
        return name

    def constant(self, value: Interval) -> str:
        self.constants.append(value)
        return f"C[{len(self.constants) - 1}]"

    def visit(self, e: sp.Basic) -> str:
        if e in self.memo:
            return self.memo[e]
        out = self._visit(e)
        self.memo[e] = out
        return out

    def _visit(self, e: sp.Basic) -> str:
        """The code for ``e``: a parameter, a constant, or a new line by the handler of the first node type in
        :attr:`_HANDLERS` that ``e`` is."""
        atom = self._atom(e)
        if atom is not None:
            return atom
        for cls, handler in self._HANDLERS:
            if isinstance(e, cls):
                return handler(self, e)
        raise UnsupportedExpression(f"cannot evaluate {type(e).__name__} on intervals")

    def _atom(self, e: sp.Basic) -> str | None:
        """A parameter's argument name or an exact constant for a symbol or a number (None for anything else);
        an inexact Float or an infinity is refused."""
        if isinstance(e, sp.Symbol):
            if e.name not in self.symbols:
                raise UnsupportedExpression(f"unknown symbol {e.name}")
            return self.symbols[e.name]
        if isinstance(e, sp.Integer):
            return self.constant(Interval.rational(int(e)))
        if isinstance(e, sp.Rational):
            return self.constant(Interval.rational(Fraction(int(e.p), int(e.q))))
        if isinstance(e, sp.Float):
            if e == int(e):
                return self.constant(Interval.rational(int(e)))
            raise UnsupportedExpression(f"the Float {e} is not exact: write it as a Rational")
        if e is sp.pi:
            return self.constant(Interval.of_ball(arb.pi()))
        if e is sp.E:
            return self.constant(Interval.of_ball(arb.const_e()))
        if e is sp.S.Infinity or e is sp.S.NegativeInfinity or e is sp.S.ComplexInfinity or e is sp.nan:
            raise UnsupportedExpression(f"the expression contains {e}")
        return None

    def _mul(self, e: sp.Mul) -> str:
        """A product (``-x`` for a coefficient of -1)."""
        coeff, rest = e.as_coeff_Mul()
        if coeff == -1:
            return self.new(f"-{self.visit(rest)}")
        parts = [self.visit(a) for a in e.args]
        return self.new(" * ".join(parts))

    def _log(self, e: sp.log) -> str:
        """``log(x)``, or ``log1p(rest)`` for ``log(1 + rest)`` (accurate where rest is small)."""
        arg = e.args[0]
        if isinstance(arg, sp.Add) and sp.S.One in arg.args:
            rest = sp.Add(*[a for a in arg.args if a is not sp.S.One], evaluate=False) if len(arg.args) > 2 \
                else next(a for a in arg.args if a is not sp.S.One)
            return self.new(f"N.log1p({self.visit(rest)})")
        return self.new(f"N.log({self.visit(arg)})")

    def _extreme(self, e: sp.Basic) -> str:
        """``Max`` or ``Min`` of the arguments."""
        fname = "max" if isinstance(e, sp.Max) else "min"
        return self.new(f"N.{fname}({', '.join(self.visit(a) for a in e.args)})")

    def _zeta(self, e: sp.zeta) -> str:
        """Hurwitz ``zeta(s, a)`` (a = 1 when not given)."""
        s = self.visit(e.args[0])
        a = self.visit(e.args[1]) if len(e.args) > 1 else self.constant(Interval.rational(1))
        return self.new(f"N.zeta({s}, {a})")

    def _binomial(self, e: sp.binomial) -> str:
        """``binomial(n, k)`` of integer points."""
        return self.new(f"N.binomial({self.visit(e.args[0])}, {self.visit(e.args[1])})")

    def _add(self, e: sp.Add) -> str:
        args = list(e.args)
        # exp(x) - 1 -> expm1(x): accurate where x is small
        if sp.S.NegativeOne in args:
            for a in args:
                if isinstance(a, sp.exp):
                    args.remove(a)
                    args.remove(sp.S.NegativeOne)
                    parts = [self.new(f"N.expm1({self.visit(a.args[0])})")] + [self.visit(b) for b in args]
                    return self.new(" + ".join(parts)) if len(parts) > 1 else parts[0]
        positive, negative = [], []
        for a in args:
            coeff, rest = a.as_coeff_Mul()
            if coeff.is_negative:
                negative.append(self.visit(-a))
            else:
                positive.append(self.visit(a))
        code = " + ".join(positive) if positive else "0"
        if negative:
            code += " - " + " - ".join(negative)
        return self.new(code)

    def _pow(self, e: sp.Pow) -> str:
        base, exponent = e.args
        if isinstance(exponent, sp.Integer):
            n = int(exponent)
            if n == -1:
                return self.new(f"{self.visit(base)}.reciprocal()")
            return self.new(f"N.power({self.visit(base)}, {n})")
        if isinstance(exponent, sp.Rational):
            p, q = int(exponent.p), int(exponent.q)
            if (p, q) == (1, 2):
                return self.new(f"N.sqrt({self.visit(base)})")
            if (p, q) == (-1, 2):
                return self.new(f"N.sqrt({self.visit(base)}).reciprocal()")
            return self.new(f"N.root_power({self.visit(base)}, {p}, {q})")
        if base is sp.E:
            return self.new(f"N.exp({self.visit(exponent)})")
        return self.new(f"N.rpow({self.visit(base)}, {self.visit(exponent)})")

    def _sum(self, e: sp.Sum) -> str:
        if len(e.limits) != 1:
            return self.visit(sp.Sum(sp.Sum(e.function, *e.limits[:-1]), e.limits[-1]))
        index, lower, upper = e.limits[0]
        outer = sorted(self.symbols, key=lambda n: int(self.symbols[n][1:]))
        inner_names = list(outer) + [index.name]
        if index.name in self.symbols:
            raise UnsupportedExpression(f"the Sum's index {index.name} is also a parameter's name")
        summand = CompiledExpression(e.function, inner_names)
        self.helpers.append(summand)
        args = ", ".join(self.symbols[n] for n in outer)
        return self.new(f"N.finite_sum(H[{len(self.helpers) - 1}], {self.visit(lower)}, {self.visit(upper)}, "
                        f"({args}{',' if outer else ''}))")

    #: (node type, handler) in the order they are tried, after the atoms (:meth:`_atom`)
    _HANDLERS: ClassVar[tuple[tuple[Any, Callable[[Any, Any], str]], ...]] = (
        (sp.Add, _add), (sp.Mul, _mul), (sp.Pow, _pow), (sp.exp, _unary("exp")), (sp.log, _log),
        *((cls, _unary(fname)) for cls, fname in _UNARY.items()),
        (sp.Heaviside, _unary("heaviside")), (sp.sign, _unary("sign")), ((sp.Max, sp.Min), _extreme),
        (sp.zeta, _zeta), (sp.binomial, _binomial), (sp.factorial, _unary("factorial")), (sp.Sum, _sum),
    )


def _build(expr: sp.Basic, names: Sequence[str]) -> tuple[Callable[..., Interval], str]:
    constants: list[Interval] = []
    helpers: list[CompiledExpression] = []
    writer = _Writer(names, constants, helpers)
    result = writer.visit(expr)
    params = ", ".join(f"a{i}" for i in range(len(names)))
    source = f"def f({params}):\n" + "\n".join(writer.lines) + f"\n    return {result}\n"
    scope: dict = {"N": _Namespace, "C": constants, "H": helpers}
    exec(compile(source, "<dpverify.prove expression>", "exec"), scope)
    return scope["f"], source
