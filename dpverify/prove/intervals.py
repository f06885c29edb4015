"""Closed intervals with Arb endpoints: the prover's arithmetic.

An :class:`Interval` ``[lo, hi]`` holds two *exact* Arb numbers (``flint.arb`` balls of radius 0). Every operation
evaluates its endpoint formulas in Arb ball arithmetic (python-flint; Johansson, "Arb: efficient arbitrary-precision
midpoint-radius interval arithmetic", IEEE TC 2017), whose results are rigorous enclosures, and keeps the lower end of
the lower ball and the upper end of the upper ball. So the result contains the image of every point of the operands
(outward rounding), whatever the working precision.

Why intervals on top of Arb's balls rather than the balls themselves: a ball is a midpoint and a radius, the radius
rounded up to 30 bits, so the ball of ``[0, w]`` reaches below 0 (``sqrt`` and ``log`` of it are NaN) and a product
of two non-negative balls can have a negative lower end. Privacy bounds are tight exactly at such edges (delta = 0,
a sampling rate of 0), so the prover needs interval semantics there: ``[0, a] * [0, b] = [0, ab]``.

Monotone functions are evaluated at the endpoints (``exp``, ``log``, ``sqrt``, ``erf`` increase, ``erfc`` decreases),
which gives the tightest enclosure; anything else (``cos``, ``lgamma``, Hurwitz ``zeta``) is evaluated by Arb on the
ball that covers the interval. An operation that is undefined somewhere on its operand (``log`` of an interval
reaching 0, a division by an interval containing 0, ``sqrt`` below 0) raises :class:`DomainError`: the prover then
splits the box or reports a singular point; it never guesses.

Constants enter exactly: integers, :class:`fractions.Fraction` (enclosed by :meth:`Interval.rational`), ``pi`` and
``e`` from Arb. A Python ``float`` operand that is not an integer is refused (:class:`TypeError`): ``0.1`` is not
one tenth, and a proof must not depend on the binary rounding of a literal.
"""
from __future__ import annotations

import contextlib
from fractions import Fraction
from typing import Callable, Iterator

import flint
from flint import arb, fmpq, fmpz

__all__ = ["DomainError", "Interval", "working_precision", "to_interval", "exact_arb", "exact_fraction", "hull"]


class DomainError(ArithmeticError):
    """An operation is undefined (or infinite) somewhere on its interval operand."""


@contextlib.contextmanager
def working_precision(bits: int) -> Iterator[None]:
    """Arb's working precision (``flint.ctx.prec``) set to ``bits`` inside the block, restored after it."""
    if not isinstance(bits, int) or bits < 24:
        raise ValueError(f"precision must be an integer number of bits >= 24; got {bits!r}")
    old = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = old


def exact_arb(value: int | Fraction) -> arb:
    """An Arb ball for an exact rational (radius 0 when it is representable, else a tight enclosure)."""
    if isinstance(value, bool):
        raise TypeError("a bool is not a number here")
    if isinstance(value, int):
        return arb(fmpz(value))
    if isinstance(value, Fraction):
        return arb(fmpq(value.numerator, value.denominator))
    raise TypeError(f"expected an int or a Fraction; got {type(value).__name__}")


def _finite(ball: arb, what: str) -> arb:
    if not ball.is_finite():
        raise DomainError(f"{what} is not finite on this interval")
    return ball


def _low(ball: arb, what: str = "a value") -> arb:
    return _finite(ball, what).lower()


def _high(ball: arb, what: str = "a value") -> arb:
    return _finite(ball, what).upper()


def hull(ball: arb) -> "Interval":
    """The interval ``[ball.lower(), ball.upper()]`` of an Arb ball (DomainError when it is not finite)."""
    return Interval(_low(ball, "an Arb result"), _high(ball, "an Arb result"))


def _min(values: list[arb]) -> arb:
    best = values[0]
    for v in values[1:]:
        if v < best:
            best = v
    return best


def _max(values: list[arb]) -> arb:
    best = values[0]
    for v in values[1:]:
        if v > best:
            best = v
    return best


class Interval:
    """A closed interval ``[lo, hi]`` of reals with exact Arb endpoints (module docstring)."""

    __slots__ = ("lo", "hi")

    def __init__(self, lo: arb, hi: arb) -> None:
        self.lo = lo
        self.hi = hi

    # -- construction -------------------------------------------------------------------------------------------
    @classmethod
    def rational(cls, value: int | Fraction) -> "Interval":
        """The tightest interval with exact endpoints around an exact rational (a point when representable)."""
        ball = exact_arb(value)
        return cls(ball.lower(), ball.upper())

    @classmethod
    def between(cls, lo: int | Fraction, hi: int | Fraction) -> "Interval":
        """``[lo, hi]`` for exact rationals ``lo <= hi`` (each end rounded outward if it is not representable)."""
        if lo > hi:
            raise ValueError(f"empty interval [{lo}, {hi}]")
        return cls(exact_arb(lo).lower(), exact_arb(hi).upper())

    @classmethod
    def of_ball(cls, ball: arb) -> "Interval":
        return hull(ball)

    # -- inspection ---------------------------------------------------------------------------------------------
    def ball(self) -> arb:
        """The Arb ball covering the interval."""
        return self.lo if self.is_point() else arb.union(self.lo, self.hi)

    def is_point(self) -> bool:
        return bool(self.lo == self.hi)

    def certainly_nonnegative(self) -> bool:
        return bool(self.lo >= 0)

    def certainly_positive(self) -> bool:
        return bool(self.lo > 0)

    def certainly_negative(self) -> bool:
        return bool(self.hi < 0)

    def certainly_nonpositive(self) -> bool:
        return bool(self.hi <= 0)

    def contains_zero(self) -> bool:
        return bool(self.lo <= 0) and bool(self.hi >= 0)

    def bounds_text(self, digits: int = 17) -> tuple[str, str]:
        """The endpoints as decimal strings, rounded outward (the lower down, the upper up)."""
        return _decimal(self.lo, digits, down=True), _decimal(self.hi, digits, down=False)

    def __repr__(self) -> str:
        lo, hi = self.bounds_text(8)
        return f"Interval([{lo}, {hi}])"

    # -- arithmetic ---------------------------------------------------------------------------------------------
    @staticmethod
    def _coerce(other: object) -> "Interval":
        if isinstance(other, Interval):
            return other
        if isinstance(other, bool):
            raise TypeError("a bool is not a number here")
        if isinstance(other, (int, Fraction)):
            return Interval.rational(other)
        if isinstance(other, float):
            if other.is_integer():
                return Interval.rational(int(other))
            raise TypeError(f"the float {other!r} is not exact: write it as a Fraction or an integer ratio")
        return NotImplemented  # type: ignore[return-value]

    def __add__(self, other: object) -> "Interval":
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        return Interval(_low(self.lo + o.lo), _high(self.hi + o.hi))

    __radd__ = __add__

    def __neg__(self) -> "Interval":
        return Interval(-self.hi, -self.lo)

    def __sub__(self, other: object) -> "Interval":
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        return Interval(_low(self.lo - o.hi), _high(self.hi - o.lo))

    def __rsub__(self, other: object) -> "Interval":
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        return o - self

    def __mul__(self, other: object) -> "Interval":
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        if self.lo >= 0 and o.lo >= 0:
            return Interval(_low(self.lo * o.lo), _high(self.hi * o.hi))
        products = [self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi]
        return Interval(_min([_low(p) for p in products]), _max([_high(p) for p in products]))

    __rmul__ = __mul__

    def reciprocal(self) -> "Interval":
        if self.contains_zero():
            raise DomainError("division by an interval that contains 0")
        one = arb(1)
        return Interval(_low(one / self.hi), _high(one / self.lo))

    def __truediv__(self, other: object) -> "Interval":
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        return self * o.reciprocal()

    def __rtruediv__(self, other: object) -> "Interval":
        o = self._coerce(other)
        if o is NotImplemented:
            return NotImplemented
        return o * self.reciprocal()

    def power(self, exponent: int) -> "Interval":
        """``x ** n`` for an integer ``n`` (even powers of an interval around 0 start at 0)."""
        if exponent == 0:
            return Interval(arb(1), arb(1))
        if exponent < 0:
            return self.power(-exponent).reciprocal()
        lo_p, hi_p = self.lo ** exponent, self.hi ** exponent
        if exponent % 2 == 1 or self.lo >= 0:
            return Interval(_low(lo_p), _high(hi_p))
        if self.hi <= 0:
            return Interval(_low(hi_p), _high(lo_p))
        return Interval(arb(0), _max([_high(lo_p), _high(hi_p)]))

    def root_power(self, numerator: int, denominator: int) -> "Interval":
        """``x ** (p/q)`` for ``q > 1`` on ``x >= 0`` (``x > 0`` when ``p < 0``)."""
        if self.lo < 0 or (numerator < 0 and not self.lo > 0):
            raise DomainError(f"x**({numerator}/{denominator}) needs x {'>' if numerator < 0 else '>='} 0")
        r = arb(fmpq(numerator, denominator))
        ends = []
        for end in (self.lo, self.hi):
            ends.append(arb(0) if end == 0 else end ** r)
        if numerator > 0:
            return Interval(_low(ends[0]), _high(ends[1]))
        return Interval(_low(ends[1]), _high(ends[0]))

    def __pow__(self, exponent: object) -> "Interval":
        if isinstance(exponent, int) and not isinstance(exponent, bool):
            return self.power(exponent)
        if isinstance(exponent, Fraction):
            if exponent.denominator == 1:
                return self.power(exponent.numerator)
            return self.root_power(exponent.numerator, exponent.denominator)
        raise TypeError("Interval ** takes an int or a Fraction exponent; use exp(log(x) * y) for a variable one")

    # -- functions ----------------------------------------------------------------------------------------------
    def monotone(self, f: Callable[[arb], arb], increasing: bool, name: str) -> "Interval":
        a, b = f(self.lo), f(self.hi)
        if increasing:
            return Interval(_low(a, name), _high(b, name))
        return Interval(_low(b, name), _high(a, name))

    def exp(self) -> "Interval":
        return self.monotone(arb.exp, True, "exp")

    def expm1(self) -> "Interval":
        return self.monotone(arb.expm1, True, "expm1")

    def log(self) -> "Interval":
        if not self.lo > 0:
            raise DomainError("log of an interval that reaches 0 or below")
        return self.monotone(arb.log, True, "log")

    def log1p(self) -> "Interval":
        if not self.lo > -1:
            raise DomainError("log1p of an interval that reaches -1 or below")
        return self.monotone(arb.log1p, True, "log1p")

    def sqrt(self) -> "Interval":
        if self.lo < 0:
            raise DomainError("sqrt of an interval that reaches below 0")
        a = arb(0) if self.lo == 0 else self.lo.sqrt()
        return Interval(_low(a, "sqrt"), _high(self.hi.sqrt(), "sqrt"))

    def erf(self) -> "Interval":
        return self.monotone(arb.erf, True, "erf")

    def erfc(self) -> "Interval":
        return self.monotone(arb.erfc, False, "erfc")

    def abs(self) -> "Interval":
        if self.lo >= 0:
            return self
        if self.hi <= 0:
            return -self
        return Interval(arb(0), _max([-self.lo, self.hi]))

    def clamp(self, low: int, high: int) -> "Interval":
        """The interval intersected with ``[low, high]`` (for functions known to take values there: cos, sin)."""
        lo = self.lo if self.lo > low else arb(low)
        hi = self.hi if self.hi < high else arb(high)
        return Interval(lo, hi)

    def cos(self) -> "Interval":
        return hull(self.ball().cos()).clamp(-1, 1)

    def sin(self) -> "Interval":
        return hull(self.ball().sin()).clamp(-1, 1)

    def lgamma(self) -> "Interval":
        if not self.lo > 0:
            raise DomainError("lgamma of an interval that reaches 0 or below")
        return hull(self.ball().lgamma())

    def zeta(self, a: "Interval") -> "Interval":
        """Hurwitz ``zeta(s, a)`` for this ``s`` (a point in practice) and ``a > 0``."""
        if not a.lo > 0:
            raise DomainError("Hurwitz zeta(s, a) needs a > 0")
        return hull(self.ball().zeta(a.ball()))

    def heaviside(self) -> "Interval":
        """The step function (0 below 0, 1 above; ``[0, 1]`` on an interval around 0: the Clarke hull)."""
        if self.lo > 0:
            return Interval(arb(1), arb(1))
        if self.hi < 0:
            return Interval(arb(0), arb(0))
        return Interval(arb(0), arb(1))

    def sign(self) -> "Interval":
        """-1, 0 or 1 (``[-1, 1]`` on an interval around 0: a hull of the values, what ``diff`` of ``Abs`` needs)."""
        if self.lo > 0:
            return Interval(arb(1), arb(1))
        if self.hi < 0:
            return Interval(arb(-1), arb(-1))
        return Interval(arb(-1) if self.lo < 0 else arb(0), arb(1) if self.hi > 0 else arb(0))

    def rpow(self, exponent: "Interval") -> "Interval":
        """``x ** y`` for ``x >= 0`` and a variable ``y``: ``exp(y log x)`` where ``x > 0``; where ``x`` reaches 0
        (and ``y > 0``) the values lie between 0 and the largest corner, ``x^y`` being monotone in each."""
        if self.lo > 0:
            return (self.log() * exponent).exp()
        if self.lo < 0 or not exponent.lo > 0:
            raise DomainError("x ** y needs x > 0, or x >= 0 with y > 0")
        if self.hi == 0:
            return Interval(arb(0), arb(0))
        top = Interval(self.hi, self.hi).log()
        corners = [(top * Interval(e, e)).exp() for e in (exponent.lo, exponent.hi)]
        return Interval(arb(0), _max([c.hi for c in corners]))

    def maximum(self, other: "Interval") -> "Interval":
        return Interval(_max([self.lo, other.lo]), _max([self.hi, other.hi]))

    def minimum(self, other: "Interval") -> "Interval":
        return Interval(_min([self.lo, other.lo]), _min([self.hi, other.hi]))


def to_interval(value: object) -> Interval:
    """An :class:`Interval` for an Interval, an int or a Fraction."""
    out = Interval._coerce(value)
    if out is NotImplemented:
        raise TypeError(f"cannot make an interval of {type(value).__name__}")
    return out


def exact_fraction(point: arb) -> Fraction:
    """The exact rational value of an exact Arb point."""
    if not point.is_exact():
        raise ValueError("not an exact Arb point")
    man, exp = point.man_exp()
    man_i, exp_i = int(man), int(exp)
    return Fraction(man_i * 2**exp_i) if exp_i >= 0 else Fraction(man_i, 2 ** (-exp_i))


def _decimal(point: arb, digits: int, down: bool) -> str:
    """An exact Arb point as a short decimal string, rounded outward (Arb's decimal enclosure ``(m +/- r) 10^e``:
    the lower end ``(m - r) 10^e`` for a lower bound, ``(m + r) 10^e`` for an upper one)."""
    if point == 0:
        return "0"
    mid, rad, exp = (int(v) for v in point.mid_rad_10exp(digits))
    value = mid - rad if down else mid + rad
    return f"{value}e{exp}" if exp else str(value)
