"""Declared limits shared by the forms: where a statement's domain is unbounded (or singular at an end), the box
stops at one of these, and every output says so.

The values are chosen to be far outside anything a privacy analysis uses, while keeping every enclosure finite:

- ``delta >= 1e-300``: ``log(1/delta)`` has no bound as delta -> 0; 1e-300 is the end of float64's range, past any
  delta in use;
- ``epsilon <= 20`` (and other privacy levels): e^20 ~ 5e8 is no privacy;
- positive integers (data sizes, passes, steps) up to 10^9 where a closed form reads them, and up to a few dozen
  where a comparator sums over them (each value is then proved on its own);
- scale-like constants (a Lipschitz or likelihood bound, a sensitivity) up to 100 where they do not cancel.
"""
from __future__ import annotations

from typing import Final

import sympy as sp

__all__ = ["DELTA_FLOOR", "EPSILON_CEILING", "COUNT_CEILING", "SCALE_CEILING", "delta_floor", "epsilon_ceiling",
           "count_ceiling", "scale_ceiling", "probability", "LOG", "symbol_of", "unit_symbol", "signed_symbol",
           "unit_box", "signed_box"]

DELTA_FLOOR = sp.Rational(1, 10**300)
EPSILON_CEILING = 20
COUNT_CEILING = 10**9
SCALE_CEILING = 100

#: The scale to split a probability or a count on (many orders of magnitude).
LOG: Final = "log"


def delta_floor(why: str = "log(1/delta) is unbounded as delta -> 0") -> tuple[object, None, str]:
    return (DELTA_FLOOR, None, f">= 1e-300 ({why})")


def epsilon_ceiling(value: int = EPSILON_CEILING) -> tuple[None, object, str]:
    return (None, value, f"<= {value} (unbounded above; e^{value} is no privacy)")


def count_ceiling(value: int = COUNT_CEILING, why: str = "unbounded above") -> tuple[None, object, str]:
    return (None, value, f"<= {value:g} ({why})" if value >= 10**4 else f"<= {value} ({why})")


def scale_ceiling(value: int = SCALE_CEILING) -> tuple[None, object, str]:
    return (None, value, f"<= {value} (unbounded above)")


def probability(why: str = "a probability") -> tuple[None, object, str]:
    return (None, 1, f"<= 1 ({why})")


def symbol_of(item, name: str) -> sp.Symbol:
    """The catalogue item's symbol ``name`` (what a form's parts read of an item)."""
    return item.symbols[name]


def unit_symbol(name: str) -> sp.Symbol:
    """A fresh non-negative symbol: a coordinate of a box ``[0, 1]`` (with :func:`unit_box`)."""
    return sp.Symbol(name, nonnegative=True)


def signed_symbol(name: str) -> sp.Symbol:
    """A fresh real symbol: a coordinate of a box ``[-1, 1]`` (with :func:`signed_box`)."""
    return sp.Symbol(name, real=True)


def unit_box(*names: str) -> list[tuple[str, sp.Basic]]:
    """``0 <= x <= 1`` for each (the symbols are non-negative: the upper end is the hypothesis)."""
    return [(f"{n}_at_most_one", unit_symbol(n) <= 1) for n in names]


def signed_box(*names: str) -> list[tuple[str, sp.Basic]]:
    """``-1 <= x <= 1`` for each."""
    out: list[tuple[str, sp.Basic]] = []
    for n in names:
        s = signed_symbol(n)
        out += [(f"{n}_at_least_minus_one", s >= -1), (f"{n}_at_most_one", s <= 1)]
    return out

