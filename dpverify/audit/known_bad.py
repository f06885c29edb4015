"""Reference mechanisms for the auditor's tests and demos: correct ones, and deliberately wrong ones.

Every object here follows the mechanism protocols of :mod:`dpverify.audit.abilities`: ``mech(dataset, n, rng)`` returns
``n`` outputs on axis 0; ``log_density`` and ``exact_epsilon`` where known. The noise itself is the
lead's :mod:`dpverify.calculus.mechanisms` (Laplace, Gaussian); this module only wires a query to it and adds
the known mistakes:

- :func:`laplace_query` with ``noise_factor < 1`` -- Laplace with too little noise
  (Dwork & Roth 2014, Thm 3.6 needs scale Delta_1/epsilon);
- :func:`gaussian_query` with ``drop_log_factor=True`` -- sigma = Delta/epsilon, i.e. the classic
  calibration sigma = Delta sqrt(2 ln(1.25/delta))/epsilon (Dwork & Roth 2014, Thm A.1) without
  its square-root factor;
- :class:`ReportNoisyMax` with ``release_value=True`` -- report-noisy-max that also publishes the
  noisy maximum (Ding et al. 2018, "Detecting violations of differential privacy", CCS 2018,
  Alg. 7 releases the noisy maximum value; here index and value);
- :class:`SparseVector` -- the sparse vector technique variants of Lyu, Su & Li 2017
  ("Understanding the sparse vector technique for differential privacy", PVLDB 10(6), Fig. 1).

The SVT and noisy-max parameters were written from the
papers' descriptions and then cross-checked against the reference implementations of DP-Sniper
(Bichsel et al. 2021; eth-sri/dp-sniper, ``dpsniper/mechanisms/sparse_vector_technique.py`` and
``report_noisy_max.py``): same epsilon1/epsilon2 splits, noise scales and cutoffs.

:class:`AdditiveNoise` and :class:`RandomizedResponse` also run on a device (:mod:`dpverify.backends`): called with a
device generator they draw with it and return tensors on its device, with the numpy path's law; their
``log_density`` takes the outputs of any backend and keeps the values where the outputs are.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from dpverify.backends import backend_generic, backend_of, generator_backend, is_device_generator
from dpverify.validation import check_delta, check_epsilon, check_finite_array, check_positive_int, check_real
from dpverify.calculus.mechanisms.gaussian import GaussianMechanism, classic_gaussian_sigma, gaussian_epsilon
from dpverify.calculus.mechanisms.laplace import LaplaceMechanism, laplace_epsilon

__all__ = [
    "AdditiveNoise",
    "coordinate_bytes",
    "laplace_query",
    "gaussian_query",
    "RandomizedResponse",
    "ReportNoisyMax",
    "SparseVector",
    "SVT_VARIANTS",
]


def _total(dataset) -> np.ndarray:
    """Default query: the sum of the records (L1 sensitivity = record bound under replace-one)."""
    return np.asarray(dataset, dtype=float).sum(axis=0)


#: Bytes one output coordinate of an additive-noise mechanism takes while it is drawn and scored: its answer, noise
#: and value, and the statistics' temporaries (measured with numpy's allocation tracing at 2^16 outputs of
#: ``laplace_parallel``'s 20 coordinates: 801 bytes per output with the logistic classifier, the heaviest statistic of
#: vector outputs; 336 with the projection, 488 with the additive statistic).
BYTES_PER_COORDINATE = 40
#: Bytes per output beyond the coordinates: the statistics' values and their sort.
BYTES_PER_OUTPUT = 216


def coordinate_bytes(k: int) -> float:
    """``40 k + 216`` bytes per output of ``k`` real coordinates (256 for one)."""
    return float(BYTES_PER_COORDINATE * int(k) + BYTES_PER_OUTPUT)


@dataclass(frozen=True)
class AdditiveNoise:
    """``M(D) = query(D) + noise`` with ``noise`` a :class:`LaplaceMechanism` or
    :class:`GaussianMechanism` of :mod:`dpverify.calculus.mechanisms`.

    ``exact_epsilon(D, D', delta)``: with ``Delta = query(D) - query(D')``,
    Laplace on a scalar: ``laplace_epsilon(delta, |Delta|/b)`` (mu + 2 log(1 - delta));
    Laplace on a vector at delta = 0: ``||Delta||_1 / b``; Gaussian:
    ``gaussian_epsilon(delta, ||Delta||_2 / sigma)`` by rotation invariance (Balle & Wang 2018, Thm 8),
    infinite at delta = 0. Otherwise ``None`` (unknown).

    On numpy, sampling and ``log_density`` are the noise mechanism's own (:mod:`dpverify.calculus.mechanisms`). On a
    device (a device generator, a tensor of outputs) the same formulas run with the backend's functions: ``f(D) +
    rng.laplace(0, b)`` or ``f(D) + sigma rng.standard_normal()``, and ``-|x - f(D)|/b - log(2b)`` or
    ``-z^2/2 - log sigma - log(2 pi)/2`` summed over coordinates (the calculus layer stays free of backends; the
    torch tests check the two agree).
    """

    query: Callable
    noise: LaplaceMechanism | GaussianMechanism
    name: str = ""

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        if not is_device_generator(rng):
            return self.noise.sample(self.query(dataset), n, rng)
        value = check_finite_array(self.query(dataset), "value")
        size = (check_positive_int(n, "n"),) + value.shape
        if isinstance(self.noise, LaplaceMechanism):
            noise = rng.laplace(0.0, self.noise.scale, size=size)
        else:
            noise = self.noise.sigma * rng.standard_normal(size)
        return generator_backend(rng).asarray(value) + noise

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        xp = backend_of(outputs)
        if xp.name == "numpy":
            return self.noise.log_density(self.query(dataset), outputs)
        value = xp.asarray(check_finite_array(self.query(dataset), "value"))
        out = xp.asarray(outputs)
        if isinstance(self.noise, LaplaceMechanism):
            b = self.noise.scale
            ld = -xp.abs(out - value) / b - math.log(2.0 * b)
        else:
            z = (out - value) / self.noise.sigma
            ld = -0.5 * z * z - math.log(self.noise.sigma) - 0.5 * math.log(2.0 * math.pi)
        return xp.sum(ld.reshape(out.shape[0], -1), axis=1)

    def output_bytes(self, dataset) -> float:
        """Bytes per output on ``dataset`` for the auditor's chunk size: :func:`coordinate_bytes` of the query's
        answer."""
        return coordinate_bytes(np.size(self.query(dataset)))

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        diff = np.atleast_1d(np.asarray(self.query(dataset), dtype=float) - np.asarray(self.query(neighbour), dtype=float))
        if isinstance(self.noise, LaplaceMechanism):
            mu1 = float(np.abs(diff).sum()) / self.noise.scale
            if diff.size == 1:
                return laplace_epsilon(delta, mu1)
            return mu1 if delta == 0.0 else None
        mu2 = float(np.sqrt((diff * diff).sum())) / self.noise.sigma
        if delta == 0.0:
            return 0.0 if mu2 == 0.0 else math.inf
        return gaussian_epsilon(delta, mu2)


def laplace_query(epsilon: float, sensitivity: float = 1.0, *, query: Callable = _total,
                  noise_factor: float = 1.0) -> AdditiveNoise:
    """Laplace mechanism claimed epsilon-DP for a query of L1 sensitivity ``sensitivity``, with its
    scale multiplied by ``noise_factor`` (1: correct, Dwork & Roth 2014, Thm 3.6; 0.5: half the noise it
    needs, really (epsilon/noise_factor)-DP)."""
    epsilon = check_epsilon(epsilon)
    noise_factor = check_real("noise_factor", noise_factor, low=0.0, low_inclusive=False)
    return AdditiveNoise(query, LaplaceMechanism(sensitivity, epsilon / noise_factor),
                         f"laplace(eps={epsilon:g}, noise_factor={noise_factor:g})")


def gaussian_query(epsilon: float, delta: float, sensitivity: float = 1.0, *, query: Callable = _total,
                   drop_log_factor: bool = False) -> AdditiveNoise:
    """Classic Gaussian mechanism, sigma = Delta sqrt(2 ln(1.25/delta))/epsilon (Dwork & Roth 2014,
    Thm A.1; epsilon < 1), or, with ``drop_log_factor``, the wrong sigma = Delta/epsilon."""
    epsilon, delta = check_epsilon(epsilon), check_delta(delta, allow_zero=False)
    sigma = sensitivity / epsilon if drop_log_factor else classic_gaussian_sigma(sensitivity, epsilon, delta)
    return AdditiveNoise(query, GaussianMechanism(sensitivity, sigma),
                         f"gaussian(eps={epsilon:g}, delta={delta:g}, drop_log_factor={drop_log_factor})")


@dataclass(frozen=True)
class RandomizedResponse:
    """Warner 1965 randomized response on one bit: report the bit with probability
    p = e^eps / (1 + e^eps), else flip it. epsilon-DP, and exactly epsilon on differing bits;
    at delta > 0 the exact pair epsilon is max(0, log((p - delta)/(1 - p))) (the hockey-stick
    divergence max(0, p - e^eps (1 - p)) set to delta)."""

    epsilon: float

    @property
    def p(self) -> float:
        return 1.0 / (1.0 + math.exp(-self.epsilon))

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` int8 reports: the bit where ``U < p``, ``U`` uniform from ``rng`` (numpy's ``Generator``, or a device
        generator: then an int8 tensor on its device)."""
        bit = int(np.asarray(dataset).reshape(-1)[0])
        xp = generator_backend(rng)
        keep = rng.random(n) < self.p
        return xp.astype(xp.where(keep, bit, 1 - bit), "int8")

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        bit = int(np.asarray(dataset).reshape(-1)[0])
        xp = backend_of(outputs)
        same = xp.flat(outputs) == bit
        return xp.where(same, math.log(self.p), math.log1p(-self.p))

    def output_bytes(self) -> float:
        """Device bytes per output for the auditor's chunk size (256 bytes, generously: the uniform, the report, the
        statistics' values and sort)."""
        return 256.0

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float:
        if int(np.asarray(dataset).reshape(-1)[0]) == int(np.asarray(neighbour).reshape(-1)[0]):
            return 0.0
        return max(0.0, math.log((self.p - delta) / (1.0 - self.p)))


@dataclass(frozen=True)
class ReportNoisyMax:
    """Report noisy max over query answers ``dataset`` (a vector; adjacent answer vectors differ by
    at most ``sensitivity`` in every coordinate): index of max_i q_i + Lap(2 Delta/epsilon),
    epsilon-DP (Dwork & Roth 2014, Claim 3.9 with the general 2 Delta/epsilon scale).

    ``release_value=True`` also returns the noisy maximum, output ``[index, value]``: not
    epsilon-DP. With m answers all shifted by Delta, the value alone is the max of m shifted
    Laplace variables, whose left tail has density ratio exp(m epsilon / 2).
    """

    epsilon: float
    sensitivity: float = 1.0
    release_value: bool = False

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        q = np.asarray(dataset, dtype=float).reshape(-1)
        noisy = q + rng.laplace(0.0, 2.0 * self.sensitivity / self.epsilon, size=(n, q.size))
        index = np.argmax(noisy, axis=1)
        if not self.release_value:
            return index
        return np.stack([index.astype(float), noisy[np.arange(n), index]], axis=1)


#: Lyu, Su & Li 2017, Fig. 1: Alg. 1 (theirs, correct), Alg. 2 (Dwork & Roth 2014, Alg. 2: fresh threshold
#: noise after every "above", correct), Alg. 3 (Roth 2011: outputs the noisy query value), Alg. 4 (Lee & Clifton 2014: query noise without the factor c, epsilon1 = epsilon/4),
#: Alg. 5 (Stoddard et al. 2014: no query noise, no cutoff), Alg. 6 (Chen et al. 2015: no cutoff,
#: query noise without the factor 2c).
SVT_VARIANTS = ("alg1", "alg2", "alg3", "alg4", "alg5", "alg6")


@dataclass(frozen=True)
class SparseVector:
    """Sparse vector technique on query answers ``dataset`` (vector of m answers, sensitivity
    Delta = ``sensitivity`` per answer) against threshold ``threshold``, following Lyu, Su & Li 2017,
    Fig. 1. All variants draw rho = Lap(Delta/epsilon1) once and answer query i with "above"
    (1) when q_i + nu_i >= T + rho, else "below" (0); -1 marks queries after the cutoff.

    - ``alg1``: epsilon1 = epsilon/2, nu_i = Lap(2 c Delta/epsilon2), stop after c aboves:
      epsilon-DP (their Thm 2).
    - ``alg2``: epsilon1 = epsilon/2, rho = Lap(c Delta/epsilon1) drawn afresh after every "above",
      nu_i = Lap(2 c Delta/epsilon2), stop after c: epsilon-DP (Dwork & Roth 2014, Thm 3.25).
    - ``alg3``: epsilon1 = epsilon/2, nu_i = Lap(c Delta/epsilon2), stop after c, and an "above"
      releases q_i + nu_i: output is ``[flags, values]`` (values 0 where not above). Not
      epsilon'-DP for any finite epsilon' (their Sec. 4).
    - ``alg4``: epsilon1 = epsilon/4, nu_i = Lap(Delta/epsilon2), stop after c:
      ((1 + 6c)/4) epsilon-DP, not epsilon-DP (their Sec. 4).
    - ``alg5``: epsilon1 = epsilon/2, nu_i = 0, no cutoff: infinite epsilon.
    - ``alg6``: epsilon1 = epsilon/2, nu_i = Lap(Delta/epsilon2), no cutoff: infinite epsilon.

    epsilon2 = epsilon - epsilon1 throughout. Vectorised over runs; the loop runs over queries.
    """

    epsilon: float
    variant: str = "alg1"
    threshold: float = 0.0
    c: int = 1
    sensitivity: float = 1.0

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        check_positive_int(self.c, "c")
        if self.variant not in SVT_VARIANTS:
            raise ValueError(f"variant must be one of {SVT_VARIANTS}; got {self.variant!r}")

    @property
    def epsilon1(self) -> float:
        """The threshold's share of the budget: epsilon/4 for ``alg4``, epsilon/2 otherwise."""
        return self.epsilon / 4.0 if self.variant == "alg4" else self.epsilon / 2.0

    @property
    def threshold_scale(self) -> float:
        """Scale of the threshold noise rho: c Delta/epsilon1 for ``alg2``, Delta/epsilon1 otherwise."""
        return (self.c if self.variant == "alg2" else 1.0) * self.sensitivity / self.epsilon1

    @property
    def query_scale(self) -> float:
        """Scale of the per-query noise nu_i (0: no noise), the table of the class docstring."""
        eps2 = self.epsilon - self.epsilon1
        return {"alg1": 2.0 * self.c / eps2, "alg2": 2.0 * self.c / eps2, "alg3": self.c / eps2, "alg4": 1.0 / eps2,
                "alg5": 0.0, "alg6": 1.0 / eps2}[self.variant] * self.sensitivity

    @property
    def cutoff(self) -> bool:
        """Whether the run stops after ``c`` aboves (all but ``alg5``/``alg6``)."""
        return self.variant in ("alg1", "alg2", "alg3", "alg4")

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` runs drawn from ``rng``: numpy's ``Generator`` (numpy arrays) or a device generator (tensors on its
        device, drawn in the same order with the backend's functions; :mod:`dpverify.backends`). Flags are int8 rows,
        ``alg3``'s ``[flags, values]`` float64 rows, on both."""
        q = np.asarray(dataset, dtype=float).reshape(-1)
        n = check_positive_int(n, "n")
        xp = generator_backend(rng)
        query_scale, cutoff = self.query_scale, self.cutoff
        rho = rng.laplace(0.0, self.threshold_scale, size=n)
        flags, values = [], []
        aboves = xp.zeros((n,))
        for i in range(q.size):
            noisy = float(q[i]) + (rng.laplace(0.0, query_scale, size=n) if query_scale > 0 else 0.0)
            above = noisy >= self.threshold + rho
            live = aboves < self.c if cutoff else None
            fresh = above if live is None else live & above
            flags.append(xp.astype(above, "int8") if live is None else xp.where(live, xp.astype(above, "int8"), -1))
            if self.variant == "alg3":
                values.append(xp.where(fresh, noisy, 0.0))
            aboves = aboves + xp.astype(fresh, "float64")
            if self.variant == "alg2":
                rho = xp.where(fresh, rng.laplace(0.0, self.threshold_scale, size=n), rho)
        columns = xp.concatenate([xp.astype(f, "int8")[:, None] for f in flags], axis=1)
        if self.variant == "alg3":
            return xp.concatenate([xp.astype(columns, "float64")] + [v[:, None] for v in values], axis=1)
        return columns
