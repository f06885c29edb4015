"""Argument validation shared by every public function of dpverify.

Validation happens once, at the public boundary. Every failure is a
:class:`ValueError` (or :class:`TypeError` for a wrong type) whose message
names the argument, the allowed range and the value received, e.g.::

    ValueError: epsilon must be in (0.0, inf); got -1.0

:class:`UsageError` (a ``ValueError``) marks bad input from a user at a boundary (a command-line option, a pytest
marker argument); the command line answers it with exit status 2.

Inner loops call nothing from here.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "UsageError",
    "MAX_COUNT",
    "check_real",
    "check_epsilon",
    "check_delta",
    "check_sampling_rate",
    "check_order",
    "check_orders",
    "check_positive_int",
    "check_probability",
    "check_finite_array",
    "describe_value",
]

#: The largest count any checker accepts: numpy's int64 (sample counts, steps and seeds are int64 inside).
MAX_COUNT = 2**63 - 1


class UsageError(ValueError):
    """Bad input from a user at a boundary of dpverify (a command-line option, a pytest marker argument, a
    ``--param``): the command line answers it with one line and exit status 2, unlike a ``ValueError`` raised inside
    dpverify, which is an internal error there (exit status 3). A ``ValueError``, so library callers that catch
    ``ValueError`` keep working."""


def describe_value(value: Any, limit: int = 60) -> str:
    """``repr(value)`` for an error message, shortened in the middle beyond ``limit`` characters (a 5,000-character
    path or a 400-digit integer is named by its start, its end and its length, not echoed)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value).bit_length() > 200:
        return f"an integer of {len(str(abs(value)))} digits"
    text = repr(value)
    if len(text) <= limit:
        return text
    keep = max(limit // 2 - 4, 8)
    return f"{text[:keep]}...{text[-keep:]} ({len(text)} characters)"


def _bound(x: float) -> str:
    return f"{x!r}" if isinstance(x, float) else str(x)


def _range_text(low: float | None, high: float | None, low_inclusive: bool, high_inclusive: bool,
                allow_inf: bool) -> str:
    """The interval as it reads in a message: an unbounded end is open unless infinity is allowed there."""
    lo_sym = ("[" if low_inclusive else "(") if low is not None else ("[" if allow_inf else "(")
    hi_sym = ("]" if high_inclusive else ")") if high is not None else ("]" if allow_inf else ")")
    lo = "-inf" if low is None else _bound(low)
    hi = "inf" if high is None else _bound(high)
    return f"{lo_sym}{lo}, {hi}{hi_sym}"


def _is_boolean(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def check_real(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    allow_inf: bool = False,
) -> float:
    """Return ``value`` as a float after checking it is a real number in a range.

    The range is ``[low, high]`` with each end open or closed as asked;
    ``None`` means unbounded on that side. NaN is always rejected; infinity
    is rejected unless ``allow_inf``. The whole class of values at the edge of a number type is answered here:
    booleans (Python's and numpy's) and strings are a ``TypeError`` (``True`` is not the number 1 to a user), an
    integer beyond the float range a ``ValueError`` (not an ``OverflowError``), complex numbers a ``TypeError``, and
    negative zero comes back as ``0.0``.
    """
    range_text = _range_text(low, high, low_inclusive, high_inclusive, allow_inf)
    if _is_boolean(value):
        raise TypeError(f"{name} must be a real number in {range_text}, not a boolean; got {value!r}")
    if isinstance(value, (str, bytes, complex, np.complexfloating)) or value is None:
        raise TypeError(f"{name} must be a real number in {range_text}; got {describe_value(value)}")
    try:
        x = float(value)
    except OverflowError:
        raise ValueError(f"{name} must be a finite number in {range_text}; got {describe_value(value)}, beyond the "
                         "range of a float") from None
    except (TypeError, ValueError):
        # Accepts sympy numbers and mpmath mpf (float() works on them), never str.
        raise TypeError(f"{name} must be a real number in {range_text}; got {describe_value(value)}") from None
    if math.isnan(x):
        raise ValueError(f"{name} must be a number in {range_text}; got NaN")
    if math.isinf(x) and not allow_inf:
        raise ValueError(f"{name} must be a finite number in {range_text}; got {x}")
    if low is not None and (x < low or (x == low and not low_inclusive)):
        raise ValueError(f"{name} must be in {range_text}; got {describe_value(value)}")
    if high is not None and (x > high or (x == high and not high_inclusive)):
        raise ValueError(f"{name} must be in {range_text}; got {describe_value(value)}")
    return x + 0.0  # -0.0 + 0.0 is 0.0


def check_epsilon(value: Any, name: str = "epsilon", *, allow_inf: bool = False) -> float:
    """Privacy parameter epsilon: a finite real number > 0."""
    return check_real(name, value, low=0.0, low_inclusive=False, allow_inf=allow_inf)


def check_delta(value: Any, name: str = "delta", *, allow_zero: bool = True) -> float:
    """Privacy parameter delta: a real number in [0, 1) (or (0, 1) if ``allow_zero`` is False)."""
    return check_real(name, value, low=0.0, high=1.0, low_inclusive=allow_zero, high_inclusive=False)


def check_sampling_rate(value: Any, name: str = "sampling_rate") -> float:
    """Sampling rate q (probability of including each record): a real number in (0, 1]."""
    return check_real(name, value, low=0.0, high=1.0, low_inclusive=False, high_inclusive=True)


def check_probability(value: Any, name: str, *, open_low: bool = False, open_high: bool = False) -> float:
    """A probability in [0, 1], with either end optionally excluded."""
    return check_real(
        name, value, low=0.0, high=1.0, low_inclusive=not open_low, high_inclusive=not open_high
    )


def check_order(value: Any, name: str = "order") -> float:
    """A Rényi order alpha (lambda + 1 in the moments-accountant notation): a real number > 1."""
    return check_real(name, value, low=1.0, low_inclusive=False, allow_inf=False)


def check_orders(values: Any, name: str = "orders", *, maximum: float | None = None) -> np.ndarray:
    """A non-empty 1-d sequence of Rényi orders, each > 1 and finite (and <= ``maximum`` if given).

    Booleans and strings are a ``TypeError``; integers beyond the float range a ``ValueError``."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "bc":
        raise TypeError(f"{name} must be real numbers > 1 (Rényi orders), not {values.dtype.name} values")
    if not (isinstance(values, np.ndarray) and values.dtype.kind in "fiu"):
        items = values if isinstance(values, (list, tuple, np.ndarray)) else [values]
        for v in np.asarray(items, dtype=object).reshape(-1) if len(items) else ():
            if _is_boolean(v) or isinstance(v, (str, bytes, complex, np.complexfloating)) or v is None:
                raise TypeError(f"{name} must be real numbers > 1 (Rényi orders); got {describe_value(v)}")
    try:
        arr = np.asarray(values, dtype=float)
    except OverflowError:
        raise ValueError(f"{name} must be finite numbers > 1 (Rényi orders); got a value beyond the range of a "
                         "float") from None
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be real numbers > 1 (Rényi orders); got {describe_value(values)}") from None
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d sequence of orders > 1; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers > 1; got {describe_value(values)}")
    if np.any(arr <= 1.0):
        bad = arr[arr <= 1.0][0]
        raise ValueError(f"{name} must all be > 1 (Rényi orders); got {bad!r}")
    if maximum is not None and np.any(arr > maximum):
        raise ValueError(f"{name} must all be in (1, {maximum:g}]; got {arr[arr > maximum][0]:g}")
    return arr


def check_positive_int(value: Any, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer count in ``[minimum, maximum]``; floats are accepted only if integral (e.g. 1e4).

    ``maximum`` defaults to :data:`MAX_COUNT` (int64): every count ends up in a numpy integer. Booleans and strings
    are a ``TypeError``; NaN, infinity and integers beyond the maximum a ``ValueError`` naming the range."""
    top = MAX_COUNT if maximum is None else min(maximum, MAX_COUNT)
    wanted = f"an integer >= {minimum}" if maximum is None else f"an integer in [{minimum}, {maximum}]"
    if _is_boolean(value):
        raise TypeError(f"{name} must be {wanted}, not a boolean; got {value!r}")
    if isinstance(value, (numbers.Integral, np.integer)):
        n = int(value)
    elif isinstance(value, (numbers.Real, np.floating)):
        x = float(value)
        if not math.isfinite(x) or x != int(x):
            raise ValueError(f"{name} must be {wanted}; got {describe_value(value)}")
        n = int(x)
    else:
        raise TypeError(f"{name} must be {wanted}; got {describe_value(value)}")
    if n < minimum:
        raise ValueError(f"{name} must be {wanted}; got {n}")
    if n > top:
        limit = f"{maximum}" if maximum is not None and maximum <= MAX_COUNT else "2**63 - 1 (int64)"
        raise ValueError(f"{name} must be an integer in [{minimum}, {limit}]; got {describe_value(n)}")
    return n


def check_finite_array(value: Any, name: str, *, ndim: int | None = None, shape: tuple | None = None) -> np.ndarray:
    """A numeric array with no NaN or inf, optionally of a given number of dimensions or shape.

    In ``shape``, ``None`` entries match any length.
    """
    try:
        arr = np.asarray(value, dtype=float)
    except OverflowError:
        raise ValueError(f"{name} must contain only finite numbers; got a value beyond the range of a float") from None
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a numeric array; got {type(value).__name__}") from None
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must have {ndim} dimension(s); got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(s is not None and s != a for s, a in zip(shape, arr.shape)):
            want = "(" + ", ".join("*" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}; got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers (no NaN or inf)")
    return arr
