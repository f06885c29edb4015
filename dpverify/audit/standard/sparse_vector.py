"""The sparse vector technique family with exact outcome laws: Lyu, Su & Li 2017 ("Understanding the sparse vector
technique for differential privacy", PVLDB 10(6), Fig. 1, Algs. 1-6; DP-Sniper's ``SparseVectorTechnique1-6``)
and NumericalSVT (Wang, Ding, Wang, Kifer & Zhang 2019, "Proving differential privacy with shadow execution",
PLDI; DP-Sniper's ``NumericalSVT``).

All variants compare ``q_i + nu_i >= T + rho`` with one threshold noise rho ~ Lap(b_rho) and i.i.d. query noise
nu_i ~ Lap(b_nu) (or none). Given rho = r the comparisons are independent with
``P(above_i | r) = P(nu >= T + r - q_i)``, so a flag pattern o (1 above, 0 below, -1 after the cutoff) has

    P(o) = int f_rho(r) prod_{i: o_i = 1} S_nu(T + r - q_i) prod_{i: o_i = 0} F_nu(T + r - q_i) dr,

computed by composite Gauss-Legendre quadrature in log space, split at the kinks r = 0 and r = q_i - T
(:mod:`._numerics`), over every pattern: 2^m without cutoff, sum_{j <= c} C(m, j) with one. The exact pair
epsilon of the flags is then that of two discrete laws (:func:`dpverify.calculus.mechanisms.exponential.discrete_epsilon`).

Alg. 3 with c = 1 releases the noisy answer v = q_k + nu_k of the first above k: the pair (k, v) has density
``f_nu(v - q_k) G_k(v)`` with ``G_k(v) = int_{r <= v - T} f_rho(r) prod_{i<k} F_nu(T + r - q_i) dr``, tabulated
on a grid of step 1/32 by cumulative 4-point Gauss-Legendre sums; the exact epsilon is the supremum of the log
density ratio over k and the grid, together with the no-above outcome.

NumericalSVT releases q_i + eta_i (eta ~ Lap(3c/epsilon)) for each above, 0 for each below and -1000 after the
c-th above (DP-Sniper's encoding, kept numeric for the auditor). Values are independent of the pattern given the
pattern, so the log density is ``log P(pattern) + sum_{above} log Lap(z_i - q_i)`` and the supremum of the log
ratio is ``max_o [log P_D(o)/P_D'(o) + sum_{i above in o} |q_i - q'_i| / (3c/epsilon)]`` (each value term reaches
its bound on a half-line), in both directions.

Device path (:mod:`dpverify.backends`): called with a device generator, every variant draws its noise with that
generator, in the numpy path's order, and compares, counts and packs with the backend's functions, so the runs are
tensors on the device with the numpy path's law (int8 flag rows; float64 for Alg. 3 and NumericalSVT). The pattern
table is computed on the host once and looked up on the device by each row's base-3 code; Alg. 3's density
interpolates its tables there (:func:`_interp`, numpy's ``interp`` formula). On numpy the same lines call numpy's
own functions: the numbers are unchanged.
"""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from dpverify.backends import backend_generic, backend_of, generator_backend
from dpverify.validation import check_epsilon, check_positive_int, check_real
from dpverify.audit.known_bad import SparseVector
from dpverify.audit.standard.numerics import (
    NEG,
    gauss_legendre_nodes,
    laplace_logcdf,
    laplace_logpdf,
    laplace_logsf,
    log_integral,
)
from dpverify.calculus.mechanisms.exponential import discrete_epsilon

__all__ = ["flag_patterns", "pattern_log_probabilities", "TabulatedSVT", "SVTWithValues", "NumericalSVT",
           "DEVICE_OUTPUT_BYTES"]

TAIL_SCALES = 60.0
MAX_QUERIES = 12
ABORTED = -1000.0
#: Device memory one run takes while it is drawn and scored (``output_bytes()``, for the auditor's chunk size on a
#: device): for at most ``MAX_QUERIES`` queries, the threshold noise and count, the flag columns before they are
#: packed (int64), the released values (Alg. 3, NumericalSVT), the int64 copy, key, sort and inverse of the distinct
#: rows and the statistics' values and sort: about 600 bytes, declared with room.
DEVICE_OUTPUT_BYTES = 1024


def _answers(dataset) -> np.ndarray:
    q = np.asarray(dataset, dtype=float).reshape(-1)
    if not 1 <= q.size <= MAX_QUERIES or not np.all(np.isfinite(q)):
        raise ValueError(f"dataset must be 1 to {MAX_QUERIES} finite query answers; got {dataset!r}")
    return q


@functools.lru_cache(maxsize=64)
def flag_patterns(m: int, c: int | None) -> np.ndarray:
    """Every possible flag vector (rows, int8): all of {0,1}^m without cutoff (``c=None``); with a cutoff, the
    vectors with at most c ones, -1 after the c-th one."""
    if c is None:
        return np.array(list(itertools.product((0, 1), repeat=m)), dtype=np.int8)
    rows = []
    for j in range(0, min(c, m) + 1):
        for ones in itertools.combinations(range(m), j):
            row = np.zeros(m, dtype=np.int8)
            row[list(ones)] = 1
            if j == c:
                row[ones[-1] + 1:] = -1
            rows.append(row)
    return np.array(rows, dtype=np.int8)


def _codes(flags: np.ndarray) -> np.ndarray:
    """Base-3 code of each flag row (entries -1, 0, 1; numpy)."""
    f = np.asarray(flags).astype(np.int64) + 1
    return f @ (3 ** np.arange(f.shape[1], dtype=np.int64))


def _device_codes(flags) -> object:
    """:func:`_codes` of a device's flag rows, on that device (exact int64 arithmetic: the same codes)."""
    xp = backend_of(flags)
    f = xp.astype(flags, "int64") + 1
    codes = f[:, 0]
    for i in range(1, f.shape[1]):
        codes = codes + f[:, i] * 3 ** i
    return codes


@functools.lru_cache(maxsize=256)
def _pattern_log_probabilities(q: tuple, threshold: float, rho_scale: float, nu_scale: float, c: int | None):
    qa = np.array(q)
    patterns = flag_patterns(qa.size, c)
    kinks = np.concatenate([[0.0], qa - threshold])
    wide = max(rho_scale, nu_scale)
    narrow = min(rho_scale, nu_scale) if nu_scale > 0 else rho_scale
    r, logw = gauss_legendre_nodes(kinks.min() - TAIL_SCALES * wide, kinks.max() + TAIL_SCALES * wide, kinks,
                                   max_width=narrow / 2.0, order=8)
    d = threshold + r[None, :] - qa[:, None]  # (m, G): above_i iff nu_i >= d
    if nu_scale > 0:
        log_above, log_below = laplace_logsf(d, nu_scale), laplace_logcdf(d, nu_scale)
    else:
        log_above, log_below = np.where(d <= 0, 0.0, NEG), np.where(d > 0, 0.0, NEG)
    log_above, log_below = np.maximum(log_above, NEG), np.maximum(log_below, NEG)
    base = laplace_logpdf(r, rho_scale)
    if c is None:
        # all 2^m patterns by doubling, in the order of flag_patterns (query 0 the most significant bit)
        rows = base[None, :]
        for i in range(qa.size):
            rows = np.stack([rows + log_below[i], rows + log_above[i]], axis=1).reshape(-1, r.size)
        out = log_integral(rows, logw)
    else:
        ones = (patterns == 1).astype(float)
        zeros = (patterns == 0).astype(float)
        out = log_integral(ones @ log_above + zeros @ log_below + base, logw)
    out[out < NEG / 2] = -math.inf
    return patterns, out


def pattern_log_probabilities(answers, threshold: float, rho_scale: float, nu_scale: float, c: int | None):
    """``(patterns, log P(pattern))`` for the flags of a sparse vector run (module docstring)."""
    q = _answers(answers)
    rho_scale = check_real("rho_scale", rho_scale, low=0.0, low_inclusive=False)
    nu_scale = check_real("nu_scale", nu_scale, low=0.0)
    patterns, logp = _pattern_log_probabilities(tuple(q.tolist()), float(threshold), rho_scale, nu_scale, c)
    return patterns, logp.copy()


def _lookup(patterns: np.ndarray, logp: np.ndarray, flags) -> np.ndarray:
    """log P of each flag row from the pattern table (-inf for a row that is no pattern); ``flags`` of any backend,
    the values on its device."""
    table = np.full(3 ** patterns.shape[1], -math.inf)
    table[_codes(patterns)] = logp
    if isinstance(flags, np.ndarray):
        return table[_codes(flags)]
    return backend_of(flags).lookup(table, _device_codes(flags))


@dataclass(frozen=True)
class TabulatedSVT:
    """A flag-releasing :class:`~dpverify.audit.known_bad.SparseVector` (every variant but ``alg3``; ``alg2``
    only with c = 1, where it coincides in law with ``alg1`` at the same scales) with its tabulated law:
    ``log_density`` looks each flag row up in the pattern table, ``exact_epsilon`` is the discrete pair epsilon."""

    svt: SparseVector

    def __post_init__(self) -> None:
        if self.svt.variant == "alg3":
            raise ValueError("variant 'alg3' releases values: use SVTWithValues")
        if self.svt.variant == "alg2" and self.svt.c != 1:
            raise ValueError("the exact law of 'alg2' (fresh threshold noise) is tabulated only for c = 1")

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.svt(_answers(dataset), n, rng)

    def table(self, dataset):
        s = self.svt
        return pattern_log_probabilities(dataset, s.threshold, s.threshold_scale, s.query_scale,
                                         s.c if s.cutoff else None)

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        """log P(flag row) from the pattern table; ``outputs`` of any backend, looked up on their device."""
        patterns, logp = self.table(dataset)
        if not hasattr(outputs, "reshape"):  # a list: as numpy
            outputs = np.asarray(outputs)
        return _lookup(patterns, logp, outputs.reshape(-1, patterns.shape[1]))

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float:
        return discrete_epsilon(self.table(dataset)[1], self.table(neighbour)[1], delta)

    def output_bytes(self) -> float:
        """Device bytes per run for the auditor's chunk size (:data:`DEVICE_OUTPUT_BYTES`)."""
        return float(DEVICE_OUTPUT_BYTES)


def _interp(x, grid: np.ndarray, values: np.ndarray):
    """``np.interp(x, grid, values)`` for any backend's ``x`` (the values on its device): numpy's formula
    ``slope (x - x_j) + y_j`` on the cell ``[x_j, x_{j+1})`` found by ``searchsorted``, ``values[0]`` left of the grid
    and ``values[-1]`` right of it."""
    xp = backend_of(x)
    cell = xp.minimum(xp.maximum(xp.searchsorted(grid, x, side="right"), 1), grid.size - 1)
    x0, x1 = xp.lookup(grid, cell - 1), xp.lookup(grid, cell)
    y0, y1 = xp.lookup(values, cell - 1), xp.lookup(values, cell)
    inside = (y1 - y0) / (x1 - x0) * (x - x0) + y0
    return xp.where(x < float(grid[0]), float(values[0]), xp.where(x >= float(grid[-1]), float(values[-1]), inside))


@functools.lru_cache(maxsize=64)
def _value_tables(q: tuple, threshold: float, rho_scale: float, nu_scale: float, lo: float, hi: float):
    """Edges r_j and log G_k(r_j) for k = 0..m (row m at the last edge: the no-above probability)."""
    qa = np.array(q)
    h = 1.0 / 32.0
    edges = np.arange(lo, hi + h / 2, h)
    x, w = np.polynomial.legendre.leggauss(4)
    nodes = (edges[:-1, None] + edges[1:, None]) / 2.0 + (h / 2.0) * x[None, :]
    logw = np.log(h / 2.0 * w)
    logF = laplace_logcdf(threshold + nodes[None, :, :] - qa[:, None, None], nu_scale)  # (m, cells, 4)
    prefix = np.concatenate([np.zeros((1,) + nodes.shape), np.cumsum(logF, axis=0)], axis=0)  # (m+1, cells, 4)
    cells = logsumexp(prefix + laplace_logpdf(nodes, rho_scale)[None] + logw, axis=2)  # (m+1, cells)
    logG = np.logaddexp.accumulate(cells, axis=1)
    return edges[1:], logG


@dataclass(frozen=True)
class SVTWithValues:
    """Lyu et al. Alg. 3 (``SparseVector(variant="alg3")``) with c = 1: output ``[flags, values]`` (2m numbers).
    Exact law as in the module docstring; ``log_density`` interpolates log G_k linearly between grid edges
    (error ~1e-7 in the log density), enough for the likelihood-ratio statistic."""

    svt: SparseVector

    def __post_init__(self) -> None:
        if self.svt.variant != "alg3" or self.svt.c != 1:
            raise ValueError("SVTWithValues tabulates variant 'alg3' with c = 1 only")

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        return self.svt(_answers(dataset), n, rng)

    def _range(self, *datasets):
        q = np.concatenate([_answers(d) for d in datasets])
        wide = max(self.svt.threshold_scale, self.svt.query_scale)
        return (math.floor(min(q.min() - self.svt.threshold, 0.0) - 40 * wide),
                math.ceil(max(q.max() - self.svt.threshold, 0.0) + 40 * wide))

    def _tables(self, dataset, bounds):
        s = self.svt
        return _value_tables(tuple(_answers(dataset).tolist()), float(s.threshold), s.threshold_scale,
                             s.query_scale, *bounds)

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        """log of the (k, v) density (class docstring); ``outputs`` of any backend, the values on its device (numpy's
        ``interp`` there by :func:`_interp`)."""
        if not isinstance(outputs, np.ndarray) and backend_of(outputs).name != "numpy":
            return self._device_log_density(dataset, outputs)
        q = _answers(dataset)
        m = q.size
        out = np.asarray(outputs, dtype=float).reshape(-1, 2 * m)
        flags, values = out[:, :m], out[:, m:]
        edges, logG = self._tables(dataset, self._range(dataset))
        hit = flags == 1
        k = np.where(hit.any(axis=1), np.argmax(hit, axis=1), m)
        result = np.full(out.shape[0], logG[m, -1])  # no above
        for j in range(m):
            rows = k == j
            if rows.any():
                v = values[rows, j]
                result[rows] = (laplace_logpdf(v - q[j], self.svt.query_scale)
                                + np.interp(v - self.svt.threshold, edges, logG[j]))
        return result

    def _device_log_density(self, dataset, outputs):
        q = _answers(dataset)
        m = q.size
        xp = backend_of(outputs)
        out = xp.asarray(outputs).reshape(-1, 2 * m)
        edges, logG = self._tables(dataset, self._range(dataset))
        hit = xp.astype(out[:, :m] == 1, "float64")
        k = xp.where(xp.max(hit, axis=1) > 0, xp.argmax(hit, axis=1), m)  # the first above (argmax: first maximum)
        result = xp.zeros((out.shape[0],)) + float(logG[m, -1])  # no above
        for j in range(m):
            v = out[:, m + j]
            term = laplace_logpdf(v - float(q[j]), self.svt.query_scale) + _interp(v - self.svt.threshold, edges,
                                                                                   logG[j])
            result = xp.where(k == j, term, result)
        return result

    def output_bytes(self) -> float:
        """Device bytes per run for the auditor's chunk size (:data:`DEVICE_OUTPUT_BYTES`)."""
        return float(DEVICE_OUTPUT_BYTES)

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        if delta != 0.0:
            return None
        qa, qb = _answers(dataset), _answers(neighbour)
        bounds = self._range(dataset, neighbour)
        edges, ga = self._tables(dataset, bounds)
        _, gb = self._tables(neighbour, bounds)
        v = edges + self.svt.threshold
        b = self.svt.query_scale
        worst = abs(ga[-1, -1] - gb[-1, -1])
        for j in range(qa.size):
            r = laplace_logpdf(v - qa[j], b) - laplace_logpdf(v - qb[j], b) + ga[j] - gb[j]
            worst = max(worst, float(np.max(np.abs(r))))
        return worst


@dataclass(frozen=True)
class NumericalSVT:
    """NumericalSVT (module docstring; Wang et al. 2019): rho1 ~ Lap(3/epsilon), per query rho2 ~ Lap(6c/epsilon)
    for the comparison ``q_i + rho2_i >= T + rho1`` and eta ~ Lap(3c/epsilon) for the released value; 0 for a
    below, -1000 after the c-th above. epsilon-DP for sensitivity-1 answers (each moving by at most 1)."""

    epsilon: float
    c: int = 2
    threshold: float = 1.0

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        check_positive_int(self.c, "c")

    @property
    def scales(self) -> tuple[float, float, float]:
        """(rho1, rho2, eta) scales: 3/epsilon, 6c/epsilon, 3c/epsilon."""
        return 3.0 / self.epsilon, 6.0 * self.c / self.epsilon, 3.0 * self.c / self.epsilon

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        q = _answers(dataset)
        n = check_positive_int(n, "n")
        b1, b2, b3 = self.scales
        xp = generator_backend(rng)  # numpy, or a device generator's backend (tensors on its device)
        rho = rng.laplace(0.0, b1, size=n)
        columns = []
        count = xp.zeros((n,))
        for i in range(q.size):
            live = count < self.c
            above = live & (float(q[i]) + rng.laplace(0.0, b2, size=n) >= self.threshold + rho)
            z = float(q[i]) + rng.laplace(0.0, b3, size=n)
            columns.append(xp.where(live, xp.where(above, z, 0.0), ABORTED)[:, None])
            count = count + xp.astype(above, "float64")
        return xp.concatenate(columns, axis=1)

    def table(self, dataset):
        b1, b2, _ = self.scales
        return pattern_log_probabilities(dataset, self.threshold, b1, b2, self.c)

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        """The pattern's log P plus the released values' Laplace log-densities; ``outputs`` of any backend, the values
        on its device."""
        q = _answers(dataset)
        xp = backend_of(outputs)
        out = xp.asarray(outputs).reshape(-1, q.size)
        flags = xp.astype(xp.where(out == ABORTED, -1, xp.where(out == 0.0, 0, 1)), "int8")
        patterns, logp = self.table(dataset)
        values = xp.sum(xp.where(flags == 1, laplace_logpdf(out - xp.asarray(q), self.scales[2]), 0.0), axis=1)
        return _lookup(patterns, logp, flags) + values

    def output_bytes(self) -> float:
        """Device bytes per run for the auditor's chunk size (:data:`DEVICE_OUTPUT_BYTES`)."""
        return float(DEVICE_OUTPUT_BYTES)

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        if delta != 0.0:
            return None
        qa, qb = _answers(dataset), _answers(neighbour)
        patterns, la = self.table(dataset)
        _, lb = self.table(neighbour)
        value_room = ((patterns == 1) * np.abs(qa - qb)[None, :]).sum(axis=1) / self.scales[2]
        return float(max(np.max(la - lb + value_room), np.max(lb - la + value_room)))
