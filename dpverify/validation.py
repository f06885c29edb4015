"""Argument validation shared by every public function of dpverify.

Validation happens once, at the public boundary. Every failure is a
:class:`ValueError` (or :class:`TypeError` for a wrong type) whose message
names the argument, the allowed range and the value received, e.g.::

    ValueError: epsilon must be a finite number > 0; got -1.0

Inner loops call nothing from here.
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "check_real",
    "check_epsilon",
    "check_delta",
    "check_sampling_rate",
    "check_order",
    "check_orders",
    "check_positive_int",
    "check_probability",
    "check_finite_array",
]


def _describe(value: Any) -> str:
    return repr(value) if not isinstance(value, float) else f"{value!r}"


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
    is rejected unless ``allow_inf``.
    """
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        # Accept sympy numbers and mpmath mpf by trying float(), but never str.
        if isinstance(value, (str, bytes)) or value is None:
            raise TypeError(f"{name} must be a real number; got {_describe(value)}")
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be a real number; got {_describe(value)}") from None
    x = float(value)
    lo_sym = "[" if low_inclusive else "("
    hi_sym = "]" if high_inclusive else ")"
    range_text = f"{lo_sym}{'-inf' if low is None else low}, {'inf' if high is None else high}{hi_sym}"
    if math.isnan(x):
        raise ValueError(f"{name} must be a number in {range_text}; got NaN")
    if math.isinf(x) and not allow_inf:
        raise ValueError(f"{name} must be a finite number in {range_text}; got {x}")
    if low is not None and (x < low or (x == low and not low_inclusive)):
        raise ValueError(f"{name} must be in {range_text}; got {_describe(value)}")
    if high is not None and (x > high or (x == high and not high_inclusive)):
        raise ValueError(f"{name} must be in {range_text}; got {_describe(value)}")
    return x


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


def check_orders(values: Any, name: str = "orders") -> np.ndarray:
    """A non-empty 1-d sequence of Rényi orders, each > 1 and finite."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-d sequence of orders > 1; got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite numbers > 1; got {values!r}")
    if np.any(arr <= 1.0):
        bad = arr[arr <= 1.0][0]
        raise ValueError(f"{name} must all be > 1 (Rényi orders); got {bad!r}")
    return arr


def check_positive_int(value: Any, name: str, *, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer count in ``[minimum, maximum]``; floats are accepted only if integral (e.g. 1e4)."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if isinstance(value, (numbers.Integral, np.integer)):
        n = int(value)
    elif isinstance(value, (numbers.Real, np.floating)):
        x = float(value)
        if not math.isfinite(x) or x != int(x):
            raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
        n = int(x)
    else:
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if n < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {n}")
    if maximum is not None and n > maximum:
        raise ValueError(f"{name} must be an integer in [{minimum}, {maximum}]; got {n}")
    return n


def check_finite_array(value: Any, name: str, *, ndim: int | None = None, shape: tuple | None = None) -> np.ndarray:
    """A numeric array with no NaN or inf, optionally of a given number of dimensions or shape.

    In ``shape``, ``None`` entries match any length.
    """
    try:
        arr = np.asarray(value, dtype=float)
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
