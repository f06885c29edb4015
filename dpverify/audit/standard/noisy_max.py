"""Report noisy max (Ding, Wang, Wang, Zhang & Kifer 2018, "Detecting violations of differential privacy", CCS,
Algs. 5-8; DP-Sniper's ``ReportNoisyMax1-4``) and the exponential mechanism, with their exact pair laws.

For answers q_1..q_m plus i.i.d. noise with density f and CDF F (Laplace or exponential, scale b):

- the argmax index has ``P(i) = int f(x - q_i) prod_{j != i} F(x - q_j) dx`` (the i-th noisy answer is at x and
  all others below it), computed by composite Gauss-Legendre quadrature split at the kinks x = q_j
  (:mod:`._numerics`);
- the maximum value has density ``g(x) = sum_i f(x - q_i) prod_{j != i} F(x - q_j)`` in closed form; its exact
  pair epsilon at delta = 0 is ``sup_x |log g_D(x) - log g_D'(x)|``, on a dense grid over the range where the
  log-ratio still moves (beyond 60 scales from the answers it is constant to e^-60); infinite when the supports
  differ (exponential noise: the maximum is never below max_i q_i).

Adjacency: the answers are sensitivity-1 queries, every answer moving by at most 1 in any direction (l_inf
shift; replace-one adjacency for general queries). Scale 2/epsilon makes the index epsilon-DP there (Dwork & Roth
2014, Claim 3.9 with sensitivity 2 for non-monotone changes); scale 1/epsilon suffices only when all answers move
in the same direction (counting queries under add/remove: monotone shift).

Device path (:mod:`dpverify.backends`): called with a device generator, :class:`NoisyMax` and
:class:`ExponentialSelection` draw their noise with that generator's ``laplace``/``exponential``/``gumbel`` (numpy's
signatures) and reduce it with the backend's ``argmax``/``max``, so the outputs are tensors on the device with the
numpy path's law; their ``log_density`` is backend-generic (the index laws tabulated once on the host and looked up on
the device, the maximum's density in closed form on the device). On numpy the same lines call numpy's own functions:
the numbers are unchanged.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from dpverify.backends import backend_generic, backend_of, generator_backend
from dpverify.validation import check_epsilon, check_positive_int, check_real
from dpverify.audit.standard.numerics import (
    exponential_logcdf,
    exponential_logpdf,
    gauss_legendre_nodes,
    laplace_logcdf,
    laplace_logpdf,
    log_integral,
)
from dpverify.calculus.mechanisms.exponential import ExponentialMechanism, discrete_epsilon

__all__ = ["NOISES", "RELEASES", "NoisyMax", "index_log_probabilities", "max_log_density", "ExponentialSelection",
           "DEVICE_OUTPUT_BYTES", "BYTES_PER_ANSWER", "answer_bytes"]

NOISES = ("laplace", "exponential")
RELEASES = ("index", "value")
#: How many noise scales beyond the answers the integrals and suprema extend (tail mass e^-60).
TAIL_SCALES = 60.0
#: Device memory one output of these mechanisms takes while it is drawn and scored (``output_bytes(dataset)``), at
#: least: the statistics' values and sort and, for up to 16 answers, the noise row and the maximum's log-density
#: temporaries.
DEVICE_OUTPUT_BYTES = 1024
#: Bytes per answer beyond that: the noise row and its sum with the answers (16; the draw of 50 answers measured 808
#: bytes per output in numpy) and the maximum's density ``sum_i f(x - q_i) prod_{j != i} F(x - q_j)`` (its ``(n, m)``
#: terms: 2458 bytes per output for 50 answers, about 48 per answer).
BYTES_PER_ANSWER = 48


def answer_bytes(dataset) -> float:
    """``output_bytes(dataset)`` of noisy max and the exponential mechanism: ``max(DEVICE_OUTPUT_BYTES, 48 m + 256)``
    for ``m`` answers."""
    return float(max(DEVICE_OUTPUT_BYTES, BYTES_PER_ANSWER * _answers(dataset).size + 256))


def _answers(dataset) -> np.ndarray:
    q = np.asarray(dataset, dtype=float).reshape(-1)
    if q.size < 1 or not np.all(np.isfinite(q)):
        raise ValueError(f"dataset must be a non-empty vector of finite query answers; got {dataset!r}")
    return q


def _log_f_F(noise: str):
    if noise == "laplace":
        return laplace_logpdf, laplace_logcdf
    return exponential_logpdf, exponential_logcdf


def _row_logsumexp(a: np.ndarray) -> np.ndarray:
    """log sum_j exp(a[:, j]) per row, shifted by the row maximum (rows of -inf give -inf). The backend's functions
    (any backend's array): scipy's general ``logsumexp`` was measured at twice the time on 10^6 x 5 arrays, most of
    an audit of the noisy maximum."""
    xp = backend_of(a)
    top = xp.max(a, axis=1)
    top = xp.where(xp.isfinite(top), top, 0.0)
    with xp.errstate(divide="ignore"):
        return top + xp.log(xp.sum(xp.exp(a - top[:, None]), axis=1))


def _leave_one_out_sum(logF: np.ndarray) -> np.ndarray:
    """sum_{j != i} logF[..., j] for every i, by prefix and suffix sums (no inf - inf; any backend's array)."""
    xp = backend_of(logF)
    zeros = xp.zeros(tuple(logF.shape[:-1]) + (1,))
    prefix = xp.concatenate([zeros, xp.cumsum(logF, axis=-1)[..., :-1]], axis=-1)
    suffix = xp.concatenate([xp.flip(xp.cumsum(xp.flip(logF, axis=-1), axis=-1), axis=-1)[..., 1:], zeros], axis=-1)
    return prefix + suffix


@functools.lru_cache(maxsize=256)
def _index_log_probabilities(q: tuple, noise: str, scale: float) -> np.ndarray:
    qa = np.array(q)
    hi = qa.max() + TAIL_SCALES * scale
    lo = qa.max() if noise == "exponential" else qa.min() - TAIL_SCALES * scale
    x, logw = gauss_legendre_nodes(lo, hi, qa, max_width=scale / 4.0)
    logf, logF = _log_f_F(noise)
    d = x[:, None] - qa[None, :]
    integrand = logf(d, scale) + _leave_one_out_sum(logF(d, scale))
    return log_integral(integrand.T, logw)


def index_log_probabilities(answers, noise: str, scale: float) -> np.ndarray:
    """log P(argmax_i (q_i + Z_i) = i) for i.i.d. noise Z of the given kind and scale (module docstring)."""
    if noise not in NOISES:
        raise ValueError(f"noise must be one of {NOISES}; got {noise!r}")
    scale = check_real("scale", scale, low=0.0, low_inclusive=False)
    return _index_log_probabilities(tuple(_answers(answers).tolist()), noise, scale).copy()


def max_log_density(answers, x, noise: str, scale: float) -> np.ndarray:
    """log g(x), g the density of max_i (q_i + Z_i) (module docstring), vectorised over ``x`` (any backend's array;
    the values on its device)."""
    q = _answers(answers)
    logf, logF = _log_f_F(noise)
    xp = backend_of(x)
    d = xp.asarray(x).reshape(-1)[:, None] - xp.asarray(q)[None, :]
    with xp.errstate(invalid="ignore"):
        return _row_logsumexp(logf(d, scale) + _leave_one_out_sum(logF(d, scale)))


@dataclass(frozen=True)
class NoisyMax:
    """Report noisy max over sensitivity-1 answers: ``argmax_i q_i + Z_i`` (``release="index"``) or
    ``max_i q_i + Z_i`` (``release="value"``), Z i.i.d. ``noise`` of scale ``scale_factor / epsilon``.

    Ding et al. 2018: Alg. 5 = (laplace, index), Alg. 6 = (exponential, index), Alg. 7 = (laplace, value),
    Alg. 8 = (exponential, value), all with scale_factor 2. The index versions are epsilon-DP; the value
    versions are not (Alg. 7's value is (m/2) epsilon-DP on m answers all shifted by 1; Alg. 8's has
    infinite epsilon: its support starts at max_i q_i).
    """

    epsilon: float
    noise: str = "laplace"
    release: str = "index"
    scale_factor: float = 2.0

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        check_real("scale_factor", self.scale_factor, low=0.0, low_inclusive=False)
        if self.noise not in NOISES:
            raise ValueError(f"noise must be one of {NOISES}; got {self.noise!r}")
        if self.release not in RELEASES:
            raise ValueError(f"release must be one of {RELEASES}; got {self.release!r}")

    @property
    def scale(self) -> float:
        return self.scale_factor / self.epsilon

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` outputs drawn from ``rng``: numpy's ``Generator`` (numpy arrays) or a device generator (tensors on
        its device; module docstring). The index is int64, the value float64, on both."""
        q = _answers(dataset)
        n = check_positive_int(n, "n")
        xp = generator_backend(rng)
        if self.noise == "laplace":
            z = rng.laplace(0.0, self.scale, size=(n, q.size))
        else:
            z = rng.exponential(self.scale, size=(n, q.size))
        noisy = xp.asarray(q) + z
        return xp.argmax(noisy, axis=1) if self.release == "index" else xp.max(noisy, axis=1)

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        """log P(index) from the tabulated index law (computed on the host once), or log g(value) in closed form;
        ``outputs`` of any backend, the values on its device."""
        if self.release == "index":
            table = index_log_probabilities(dataset, self.noise, self.scale)
            return backend_of(outputs).lookup(table, outputs)
        return max_log_density(dataset, outputs, self.noise, self.scale)

    def output_bytes(self, dataset) -> float:
        """Device bytes per output on ``dataset`` for the auditor's chunk size (:func:`answer_bytes`)."""
        return answer_bytes(dataset)

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        if self.release == "index":
            return discrete_epsilon(index_log_probabilities(dataset, self.noise, self.scale),
                                    index_log_probabilities(neighbour, self.noise, self.scale), delta)
        if delta != 0.0:
            return None
        return max_value_epsilon(dataset, neighbour, self.noise, self.scale)


def max_value_epsilon(dataset, neighbour, noise: str, scale: float, grid: int = 100_001) -> float:
    """sup_x |log g_D(x) - log g_D'(x)| for the noisy maximum value (module docstring)."""
    qa, qb = _answers(dataset), _answers(neighbour)
    if noise == "exponential":
        if qa.max() != qb.max():
            return math.inf
        lo = qa.max() + 1e-9 * scale
    else:
        lo = min(qa.min(), qb.min()) - TAIL_SCALES * scale
    hi = max(qa.max(), qb.max()) + TAIL_SCALES * scale
    x = np.unique(np.concatenate([np.linspace(lo, hi, grid), qa, qb]))
    x = x[x >= lo]
    with np.errstate(invalid="ignore"):
        r = max_log_density(qa, x, noise, scale) - max_log_density(qb, x, noise, scale)
    return float(np.nanmax(np.abs(r)))


@dataclass(frozen=True)
class ExponentialSelection:
    """The exponential mechanism (McSherry & Talwar 2007, Thm 6) on a utility vector ``dataset`` of
    sensitivity ``utility_sensitivity``: index i with probability proportional to exp(eps u_i / (2 Delta_u)).
    Sampling, log-pmf and exact epsilon are :mod:`dpverify.calculus.mechanisms.exponential`'s."""

    epsilon: float
    utility_sensitivity: float = 1.0

    @property
    def em(self) -> ExponentialMechanism:
        return ExponentialMechanism(self.epsilon, self.utility_sensitivity)

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` indices by the Gumbel-max trick, ``argmax_i (log P[i] + G_i)`` with ``G`` i.i.d. standard Gumbel
        (``ExponentialMechanism.sample``'s draws and arithmetic, written with ``rng``'s backend so that a device
        generator draws on its device; numpy's numbers are unchanged)."""
        n = check_positive_int(n, "n")
        logp = self.em.log_probabilities(_answers(dataset))
        xp = generator_backend(rng)
        return xp.argmax(xp.asarray(logp) + rng.gumbel(size=(n, logp.size)), axis=1)

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        """The log-pmf over the indices, computed on the host and looked up where ``outputs`` are."""
        return backend_of(outputs).lookup(self.em.log_probabilities(_answers(dataset)), outputs)

    def output_bytes(self, dataset) -> float:
        """Device bytes per output on ``dataset`` for the auditor's chunk size (:func:`answer_bytes`)."""
        return answer_bytes(dataset)

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float:
        return discrete_epsilon(self.em.log_probabilities(_answers(dataset)),
                                self.em.log_probabilities(_answers(neighbour)), delta)
