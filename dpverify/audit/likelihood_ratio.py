"""The Neyman-Pearson test: threshold the exact log-likelihood ratio.

When the mechanism exposes ``log_density(dataset, outputs)`` (normalised log density or log pmf
of each output under M(dataset); :class:`dpverify.audit.abilities.HasLogDensity`), the statistic

    s(x) = log p_D(x) - log p_D'(x)

is the privacy loss random variable (Dwork & Rothblum 2016, "Concentrated differential privacy",
Def. 3.1). Its upper level sets are the most powerful tests of M(D) against M(D') at every size
(Neyman & Pearson 1933), and the hockey-stick divergence is attained on ``{s > eps}``
(Balle & Wang 2018, Thm 5 proof), so thresholding ``s`` loses nothing but sampling error.
``s`` may be +-inf where one density vanishes; NaN (both vanish) is an error.

``s`` is rounded to ``DECIMALS`` decimals. Without it the test finds a real but different thing:
for ``x = f(D) + noise`` in float64 the last bits of ``log p_D(x) - log p_D'(x)`` on the atom of
the privacy loss (e.g. the value epsilon on a whole half-line for Laplace) depend on the rounding
grid of ``f(D) + noise``, and an event "s >= epsilon exactly" separates the two sides almost
perfectly (measured: lower bound 7.7 for Laplace with exact epsilon 1 at 10^5 samples). That is
the floating-point attack of Mironov 2012 ("On significance of the least significant bits for
differential privacy", CCS 2012); the auditor measures the mathematical privacy loss, so it
rounds the artefact away. To look for such attacks, audit in implementation mode (``audit(..., mode=
"implementation")``, :mod:`.floating_point`), which also tries the unrounded ratio (``decimals=None``).

On a device (:mod:`dpverify.backends`): when the mechanism's ``log_density`` is backend-generic (marked by
:func:`dpverify.backends.backend_generic`, as the standard suite's are), the ratio of a torch tensor of outputs is
computed, checked for NaN and rounded on its device (torch's ``round(decimals=9)`` is numpy's ``x * 1e9``, round half
to even, ``/ 1e9``), so the auditor counts it there (:mod:`dpverify.audit.chunk_work`); numpy outputs take the
numpy code unchanged.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from dpverify.audit.abilities import HasWhiteBoxStatistic, Labelled
from dpverify.audit.statistics import Statistic
from dpverify.backends import backend_of

__all__ = ["log_likelihood_ratio", "whitebox_statistic", "DECIMALS"]

#: The log-likelihood ratio is rounded to this many decimals (module docstring).
DECIMALS = 9


def _rounded(values: np.ndarray, decimals: int | None) -> np.ndarray:
    return values if decimals is None else np.round(values, decimals)


def _device_values(llr: Callable, x, decimals: int | None, source: str = "the mechanism's log_likelihood_ratio"):
    """``llr(x)`` for a torch tensor ``x``, checked and rounded on its device (:mod:`dpverify.backends`)."""
    values = llr(x)
    if backend_of(values).any_nan(values):
        raise ValueError(f"{source} gave NaN for some outputs")
    return values if decimals is None else values.round(decimals=decimals)


def _check_decimals(decimals: int | None) -> int | None:
    if decimals is not None and (isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer))
                                 or decimals < 0):
        raise ValueError(f"decimals must be None (unrounded) or an integer >= 0; got {decimals!r}")
    return decimals


def log_likelihood_ratio(log_density: Callable, dataset, neighbour, *, decimals: int | None = DECIMALS) -> Statistic:
    """The statistic ``s(x) = log_density(dataset, x) - log_density(neighbour, x)``, rounded to ``decimals``
    decimals (default :data:`DECIMALS`; ``None``: unrounded, named ``likelihood_ratio:unrounded``, the
    floating-point statistic of implementation mode)."""
    decimals = _check_decimals(decimals)
    on_device = getattr(log_density, "backend_generic", False)

    def s(x: np.ndarray) -> np.ndarray:
        if on_device and not isinstance(x, np.ndarray):  # another backend's outputs: values stay on its device
            return _device_values(lambda y: log_density(dataset, y) - log_density(neighbour, y), x, decimals,
                                  "log_density (-inf on both datasets: outside both supports?)")
        with np.errstate(invalid="ignore"):
            values = np.asarray(log_density(dataset, x), dtype=float) - np.asarray(log_density(neighbour, x), dtype=float)
        if np.isnan(values).any():
            raise ValueError("log_density gave NaN or -inf on both datasets for some outputs (outside both supports?)")
        return _rounded(values, decimals)

    s.backend_generic = on_device  # type: ignore[attr-defined]

    if decimals is None:
        return Statistic("likelihood_ratio:unrounded", "log p_D(x) - log p_D'(x), unrounded", s)
    return Statistic("likelihood_ratio", "log p_D(x) - log p_D'(x)", s)


def whitebox_statistic(mechanism: HasWhiteBoxStatistic, dataset, neighbour, *,
                       decimals: int | None = DECIMALS) -> Statistic:
    """The mechanism's own white-box log-likelihood ratio ``mechanism.log_likelihood_ratio(dataset, neighbour)``
    (a callable ``outputs -> (n,)``), e.g. the per-step mixture likelihood ratio of a released Markov chain path
    computed from the sampler's mechanism description and its own gradients. Rounded like the exact ratio
    (``decimals=None``: unrounded, named ``likelihood_ratio:unrounded``)."""
    decimals = _check_decimals(decimals)
    llr = mechanism.log_likelihood_ratio(dataset, neighbour)
    description = llr.description if isinstance(llr, Labelled) else "white-box log p_D(x) - log p_D'(x)"

    def s(x: np.ndarray) -> np.ndarray:
        if not isinstance(x, np.ndarray) and getattr(llr, "backend_generic", False):
            return _device_values(llr, x, decimals)  # another backend's outputs: values stay on its device
        values = np.asarray(llr(x), dtype=float)
        if np.isnan(values).any():
            raise ValueError("the mechanism's log_likelihood_ratio gave NaN for some outputs")
        return _rounded(values, decimals)

    s.backend_generic = getattr(llr, "backend_generic", False)  # type: ignore[attr-defined]

    if decimals is None:
        return Statistic("likelihood_ratio:unrounded", f"{description}, unrounded", s)
    return Statistic("whitebox_llr", description, s)
