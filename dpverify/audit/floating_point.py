"""Implementation mode: statistics aimed at the floating-point artefacts of the code that runs.

**Two modes of the auditor** (``audit(..., mode=...)``, :data:`dpverify.audit.core.MODES`):

- ``"mathematical"`` (default) audits the *idealised* mechanism: the statistics see an output as a real number
  (thresholds, classifiers, histograms), and the exact log-likelihood ratio is rounded to
  :data:`~dpverify.audit.likelihood_ratio.DECIMALS` decimals so that its last bits cannot be used. A violation
  means the mathematics (noise scale, calibration, composition) is wrong.
- ``"implementation"`` audits the *floating-point program*: besides the statistics above it tries the ones below,
  which read the bits of the outputs. A float sampler ``x = fl(mu + n)`` (query value ``mu``, noise ``n`` a double)
  cannot produce every double, and which doubles it produces depends on ``mu``: rounding to the nearest double
  throws away the low bits of ``n`` that fall below the spacing (ulp) of the result, and where ``|x|`` is small
  compared with ``|mu|`` the result lies on the grid of ``ulp(mu)`` and ``ulp(n)``, which differ between two
  query values. Mironov 2012 ("On significance of the least significant bits for differential privacy", CCS 2012)
  shows that the sets of outputs reachable from ``mu`` and from ``mu'`` then differ on a large fraction of the
  outputs, so that an output seen reveals ``mu`` outright: the float Laplace mechanism is not epsilon-DP for
  any epsilon. His fix, the snapping mechanism (clamp, add noise, round to a power-of-two grid coarser than the
  noise's resolution, clamp), and exact samplers on a grid (Canonne, Kamath & Steinke 2020, "The
  discrete Gaussian for differential privacy"; OpenDP's samplers) make the released values a post-processing of
  a mechanism that is private in exact arithmetic.

**The statistics** (each fitted on the fit half of the selection samples only -- outputs ``f0`` of M(D) and
``f1`` of M(D') -- so the certificate of :mod:`dpverify.audit.core` stays valid whatever they are; they only need
power):

- ``fp:ulp_pattern`` (black box): every coordinate of an output is mapped to a discrete *bit class* -- its sign,
  its binary exponent and the number of trailing zero bits of its significand's fraction field (capped at
  :data:`TRAILING_ZERO_CAP`), i.e. the position of its lowest set bit. The statistic is the naive-Bayes sum over
  coordinates of the smoothed log ratio of the class frequencies on the two fit samples (add-half smoothing, as
  :mod:`.events`). For ``fl(1 + n)`` against ``fl(2 + n)`` the doubles in [0.5, 1) with their last bit set (lowest
  set bit 2^-53) come only from the query value 1; this statistic finds such classes without knowing ``mu``.
- ``fp:reachable`` (needs the query value: ``mechanism.query_value(dataset)`` or ``mechanism.query(dataset)``, an
  array that broadcasts against one output): for each side's value ``mu_i`` and each coordinate, whether
  ``fl(fl(x - mu_i) + mu_i) == x``, i.e. whether ``x`` is the float sum of ``mu_i`` and the float
  ``fl(x - mu_i)`` -- a witness that ``x`` is reachable as ``fl(mu_i + n)``. The two bits per coordinate form a
  class scored like the bit classes. This is Mironov's attack as a test: an output reachable from ``mu``
  but not from ``mu'`` has probability 0 under M(D').
- ``likelihood_ratio:unrounded`` (needs ``log_density`` or ``log_likelihood_ratio``): the mechanism's own
  log-likelihood ratio without the rounding of :mod:`.likelihood_ratio`; its last bits depend on the rounding
  pattern of the outputs (the module docstring there).

Outputs that are not floating point (integers, booleans) carry no floating-point artefact of this kind (an
integer output is a post-processing whose law the mathematical statistics already see), so no statistic is added
for them. Every statistic is vectorised numpy on the bit patterns (``float64.view(uint64)``; float32 and float16
outputs are read in their own format); on 10^6 scalar outputs each takes well under a second.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dpverify.audit.abilities import log_density_of, query_of, white_box_statistic_of
from dpverify.audit.likelihood_ratio import log_likelihood_ratio, whitebox_statistic
from dpverify.audit.statistics import Statistic

__all__ = [
    "TRAILING_ZERO_CAP", "MAX_FIT_VALUES", "FLOAT_STATISTICS", "is_float_output", "bit_classes",
    "ulp_pattern_log_ratio", "reachability_classes", "reachable_log_ratio", "query_values", "implementation_statistics",
    "violation_note",
]

#: Trailing zero bits of the significand beyond this count are one class (a double drawn at full precision has
#: k trailing zeros with probability 2^-(k+1), so 15 keeps every class seen in 10^5 draws but the round numbers).
TRAILING_ZERO_CAP = 15
#: At most this many values (outputs x coordinates) per side fit a class table.
MAX_FIT_VALUES = 2_000_000
#: Names of the statistics of this module (the ``test`` of an :class:`~dpverify.audit.core.AuditResult`).
FLOAT_STATISTICS = ("fp:ulp_pattern", "fp:reachable", "likelihood_ratio:unrounded")

_SIGN_EXP_CLASSES = 1 << 12  # sign bit and 11 exponent bits
_CLASSES_PER_VALUE = _SIGN_EXP_CLASSES * (TRAILING_ZERO_CAP + 1)


def is_float_output(x: np.ndarray) -> bool:
    """True when the outputs are floating point (the only ones with rounding artefacts)."""
    return np.issubdtype(np.asarray(x).dtype, np.floating)


#: IEEE 754 binary formats: dtype -> (unsigned view, fraction bits). Other floats (long double) are read as binary64.
_FORMATS = {np.dtype(np.float16): (np.uint16, 10), np.dtype(np.float32): (np.uint32, 23),
            np.dtype(np.float64): (np.uint64, 52)}


def _native(x: np.ndarray) -> np.ndarray:
    """Outputs as an (n, d) matrix in their own binary format (binary16/32/64; anything else as binary64), so that
    the bits read are the bits released."""
    arr = np.asarray(x)
    dtype = arr.dtype if arr.dtype in _FORMATS else np.dtype(np.float64)
    return np.ascontiguousarray(arr.reshape(arr.shape[0], -1), dtype=dtype)


def bit_classes(x: np.ndarray) -> np.ndarray:
    """The bit class of every value: ``(sign, biased exponent) * (TRAILING_ZERO_CAP + 1) + min(tz, cap)`` with
    ``tz`` the trailing zero bits of the significand's fraction field (the field's width for a power of two or
    zero) -- equivalently the sign, the binade and the position of the lowest set bit. Read in the outputs' own
    format (IEEE 754-2008 binary64: sign 1, exponent 11, fraction 52 bits; binary32: 1, 8, 23; binary16: 1, 5,
    10), so that float32 outputs are not widened into trailing zeros. Shape (n, d), int64 in
    ``[0, 2^12 (TRAILING_ZERO_CAP + 1))``."""
    values = _native(x)
    view, width = _FORMATS[values.dtype]
    bits = values.view(view).astype(np.uint64)
    sign_exp = (bits >> np.uint64(width)).astype(np.int64)
    fraction = bits & np.uint64((1 << width) - 1)
    lowest = fraction & (~fraction + np.uint64(1))  # the lowest set bit (two's complement), 0 for a zero fraction
    # lowest is 0 or a power of two < 2^52, exact in float64; frexp(2^k) = (0.5, k + 1)
    tz = np.where(fraction == 0, width, np.frexp(lowest.astype(np.float64))[1] - 1)
    return sign_exp * (TRAILING_ZERO_CAP + 1) + np.minimum(tz, TRAILING_ZERO_CAP)


class _ClassTable:
    """Naive-Bayes log ratio of per-coordinate classes: ``s(x) = sum_j l_j(c_j(x))`` with
    ``l_j(c) = log((k0 + 1/2)/(n0 + 1/2)) - log((k1 + 1/2)/(n1 + 1/2))`` from the class counts ``k`` of coordinate
    j on the two fit samples (0 for a class seen on neither)."""

    def __init__(self, c0: np.ndarray, c1: np.ndarray, classes: int):
        self.classes = classes
        k0, k1 = self._keys(c0).ravel(), self._keys(c1).ravel()
        self.keys, inverse = np.unique(np.concatenate([k0, k1]), return_inverse=True)
        inverse = inverse.reshape(-1)
        n0, n1 = c0.shape[0], c1.shape[0]
        count0 = np.bincount(inverse[: k0.size], minlength=self.keys.size)
        count1 = np.bincount(inverse[k0.size:], minlength=self.keys.size)
        self.table = np.log((count0 + 0.5) / (n0 + 0.5)) - np.log((count1 + 0.5) / (n1 + 0.5))
        self.d = c0.shape[1]

    def _keys(self, c: np.ndarray) -> np.ndarray:
        return c + self.classes * np.arange(c.shape[1], dtype=np.int64)

    def __call__(self, c: np.ndarray) -> np.ndarray:
        if c.shape[1] != self.d:
            raise ValueError(f"outputs changed shape between fit and evaluation ({self.d} values, now {c.shape[1]})")
        keys = self._keys(c)
        pos = np.minimum(np.searchsorted(self.keys, keys), self.keys.size - 1)
        return np.where(self.keys[pos] == keys, self.table[pos], 0.0).sum(axis=1)


def _fit_rows(x: np.ndarray) -> int:
    d = max(1, int(np.prod(np.shape(x)[1:], dtype=np.int64)))
    return max(1000, MAX_FIT_VALUES // d)


def ulp_pattern_log_ratio(x0: np.ndarray, x1: np.ndarray) -> Statistic:
    """``fp:ulp_pattern``: the naive-Bayes log ratio of the bit classes (:func:`bit_classes`; module docstring),
    fitted on ``x0`` (outputs of M(D)) and ``x1`` (of M(D'))."""
    m = _fit_rows(x0)
    table = _ClassTable(bit_classes(x0[:m]), bit_classes(x1[:m]), _CLASSES_PER_VALUE)
    return Statistic("fp:ulp_pattern",
                     f"log-ratio of float bit classes (sign, exponent, lowest set bit; {table.keys.size} classes)",
                     lambda x: table(bit_classes(x)))


def reachability_classes(x: np.ndarray, mu0: np.ndarray, mu1: np.ndarray) -> np.ndarray:
    """Per value, ``2 r0 + r1`` with ``r_i = [fl(fl(x - mu_i) + mu_i) == x]`` (round to nearest, in the outputs' own
    format, ``mu_i`` rounded to it): ``r_i = 1`` proves ``x`` reachable as ``fl(mu_i + n)`` with the float
    ``n = fl(x - mu_i)``. ``mu0``, ``mu1`` broadcast against one output. Shape (n, d), int64 in [0, 4)."""
    arr = np.asarray(x)
    if arr.dtype not in _FORMATS:
        arr = arr.astype(np.float64)
    mu0, mu1 = np.asarray(mu0, dtype=arr.dtype), np.asarray(mu1, dtype=arr.dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        r0 = (arr - mu0) + mu0 == arr
        r1 = (arr - mu1) + mu1 == arr
    return (2 * r0.astype(np.int64) + r1).reshape(arr.shape[0], -1)


def reachable_log_ratio(x0: np.ndarray, x1: np.ndarray, mu0: np.ndarray, mu1: np.ndarray) -> Statistic:
    """``fp:reachable``: the naive-Bayes log ratio of the reachability classes (:func:`reachability_classes`) for
    the query values ``mu0`` = query(D), ``mu1`` = query(D') (Mironov 2012)."""
    m = _fit_rows(x0)
    table = _ClassTable(reachability_classes(x0[:m], mu0, mu1), reachability_classes(x1[:m], mu0, mu1), 4)
    return Statistic("fp:reachable",
                     "log-ratio of which query value's float sum fl(mu + n) can produce x (Mironov 2012)",
                     lambda x: table(reachability_classes(x, mu0, mu1)))


def query_values(mechanism: Any, dataset: Any, neighbour: Any, output: np.ndarray) -> tuple | None:
    """``(query(D), query(D'))`` as float64 arrays when the mechanism says what its noise is added to
    (``mechanism.query_value(dataset)``, else ``mechanism.query(dataset)``) and both broadcast against one
    ``output`` (shape of one output row) without changing it; otherwise None
    (:func:`dpverify.audit.abilities.query_of`)."""
    fn = query_of(mechanism)
    if fn is None:
        return None
    try:
        mu0 = np.asarray(fn(dataset), dtype=np.float64)
        mu1 = np.asarray(fn(neighbour), dtype=np.float64)
    except Exception:  # an attribute of another meaning, or a query that cannot take these datasets
        return None
    shape = np.shape(output)
    try:
        if np.broadcast_shapes(mu0.shape, shape) != shape or np.broadcast_shapes(mu1.shape, shape) != shape:
            return None
    except ValueError:
        return None
    if not (np.isfinite(mu0).all() and np.isfinite(mu1).all()):
        return None
    return mu0, mu1


def implementation_statistics(f0: np.ndarray, f1: np.ndarray, *, mechanism: Any = None, dataset: Any = None,
                              neighbour: Any = None, seed: int = 0) -> list[Statistic]:
    """The statistics implementation mode adds (module docstring), fitted on the fit samples ``f0`` (of M(D)) and
    ``f1`` (of M(D')): none for non-float outputs; else ``fp:ulp_pattern``, ``fp:reachable`` when the query value
    is known (:func:`query_values`), and the unrounded log-likelihood ratio when the mechanism has
    ``log_likelihood_ratio`` or ``log_density``. ``seed`` is accepted for the auditor's uniform call (the
    statistics are deterministic)."""
    if not (is_float_output(f0) and is_float_output(f1)):
        return []
    found = [ulp_pattern_log_ratio(f0, f1)]
    mus = query_values(mechanism, dataset, neighbour, np.asarray(f0)[0])
    if mus is not None:
        found.append(reachable_log_ratio(f0, f1, *mus))
    log_density = log_density_of(mechanism)
    if white_box_statistic_of(mechanism) is not None:
        found.append(whitebox_statistic(mechanism, dataset, neighbour, decimals=None))
    elif log_density is not None:
        found.append(log_likelihood_ratio(log_density, dataset, neighbour, decimals=None))
    return found


def violation_note(test: str) -> str | None:
    """One plain sentence to append to the verdict reason of a violation found by a statistic of this module
    (``test`` = the result's ``test``); None for the other statistics."""
    what = {
        "fp:reachable": "the set of floating-point values it can output depends on the data: some outputs are "
                        "reachable from one query value and impossible from the other",
        "fp:ulp_pattern": "the low-order bits of its floating-point outputs depend on the data",
        "likelihood_ratio:unrounded": "the last bits of its floating-point outputs depend on the data, as seen "
                                      "through the unrounded likelihood ratio",
    }.get(test)
    if what is None:
        return None
    return (f"floating-point leak: {what} (Mironov 2012); the idealised mechanism may be private, the code that runs "
            "is not -- use an exact or snapping sampler")
