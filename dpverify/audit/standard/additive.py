"""Additive-noise cases: Laplace on one answer, noisy histograms, 20 parallel Laplace releases, PrefixSum.

All are ``f(D) + Lap(b)^d`` up to an invertible linear map, so the exact pair epsilon at delta = 0 is the closed
form ``||f(D) - f(D')||_1 / b`` (Dwork & Roth 2014, Thm 3.6 and its proof: the density ratio is
``exp(sum_i (|x_i - f_i(D')| - |x_i - f_i(D)|)/b)``, maximal where every coordinate lies beyond both centres);
for one coordinate at delta > 0, ``mu + 2 log(1 - delta)`` (:func:`dpverify.calculus.mechanisms.laplace.laplace_epsilon`).
The noise is :class:`dpverify.calculus.mechanisms.laplace.LaplaceMechanism` wired through
:class:`dpverify.audit.known_bad.AdditiveNoise`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dpverify.backends import backend_generic, backend_of, generator_backend
from dpverify.validation import check_epsilon, check_positive_int
from dpverify.audit.known_bad import AdditiveNoise, coordinate_bytes
from dpverify.calculus.mechanisms.laplace import LaplaceMechanism, laplace_epsilon

__all__ = ["scalar_query", "identity_query", "Repeat", "laplace", "noisy_histogram", "laplace_parallel", "PrefixSum"]


def scalar_query(dataset) -> np.ndarray:
    """The single query answer of a length-1 input (DP-Sniper's ``a.item(0)``), as a 0-d array."""
    a = np.asarray(dataset, dtype=float).reshape(-1)
    if a.size != 1:
        raise ValueError(f"dataset must hold exactly one query answer; got {a.size}")
    return a[0]


def identity_query(dataset) -> np.ndarray:
    """The vector of query answers itself (histogram counts)."""
    return np.asarray(dataset, dtype=float).reshape(-1)


@dataclass(frozen=True)
class Repeat:
    """``k`` copies of the single answer: k independent releases of the same query run side by side."""

    k: int

    def __call__(self, dataset) -> np.ndarray:
        return np.full(self.k, float(scalar_query(dataset)))


def laplace(epsilon: float) -> AdditiveNoise:
    """Laplace mechanism on one sensitivity-1 answer, scale 1/epsilon (Dwork et al. 2006; DP-Sniper's
    ``LaplaceMechanism``)."""
    return AdditiveNoise(scalar_query, LaplaceMechanism(1.0, check_epsilon(epsilon)), f"laplace(eps={epsilon:g})")


def noisy_histogram(epsilon: float, *, wrong_scale: bool = False) -> AdditiveNoise:
    """NoisyHist1 (Ding et al. 2018, Alg. 9): each count plus Lap(1/epsilon). ``wrong_scale=True`` is NoisyHist2
    (Alg. 10): Lap(epsilon) instead, i.e. the Laplace mechanism at 1/epsilon (10 for epsilon = 0.1)."""
    eps = check_epsilon(epsilon)
    effective = 1.0 / eps if wrong_scale else eps
    return AdditiveNoise(identity_query, LaplaceMechanism(1.0, effective),
                         f"noisy_hist{2 if wrong_scale else 1}(eps={eps:g})")


def laplace_parallel(epsilon_each: float, copies: int) -> AdditiveNoise:
    """``copies`` independent Laplace(1/epsilon_each) releases of the same answer (DP-Sniper's
    ``LaplaceParallel``): (copies * epsilon_each)-DP by basic composition, exactly so for a unit change."""
    copies = check_positive_int(copies, "copies")
    return AdditiveNoise(Repeat(copies), LaplaceMechanism(1.0, check_epsilon(epsilon_each)),
                         f"laplace_parallel(eps_each={epsilon_each:g}, copies={copies})")


@dataclass(frozen=True)
class PrefixSum:
    """PrefixSum (Wang, Ding, Wang, Kifer & Zhang 2019, "Proving differential privacy with shadow execution",
    PLDI; DP-Sniper's ``PrefixSum``): outputs the running sums ``y_j = sum_{i<=j} (q_i + Lap(1/epsilon))``.

    The map from the noisy answers to y is linear with unit Jacobian and inverse ``diff``, so
    ``log p_D(y) = sum_i log Lap(diff(y)_i - q_i)`` and the exact pair epsilon at delta = 0 is
    ``epsilon * ||q - q'||_1``: with every answer allowed to move by 1 (l_inf adjacency) that is
    ``m * epsilon`` for m answers.
    """

    epsilon: float

    @property
    def scale(self) -> float:
        return 1.0 / check_epsilon(self.epsilon)

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` runs drawn from ``rng``: numpy's ``Generator``, or a device generator (tensors on its device; the
        same formula with the backend's functions)."""
        q = identity_query(dataset)
        n = check_positive_int(n, "n")
        xp = generator_backend(rng)
        return xp.cumsum(xp.asarray(q) + rng.laplace(0.0, self.scale, size=(n, q.size)), axis=1)

    @backend_generic
    def log_density(self, dataset, outputs) -> np.ndarray:
        """``sum_i log Lap(diff(y)_i - q_i)`` (class docstring); ``outputs`` of any backend, the values on its
        device (the steps ``y_1, y_2 - y_1, ...`` are numpy's ``diff`` with ``prepend=0`` on both)."""
        q = identity_query(dataset)
        xp = backend_of(outputs)
        y = xp.asarray(outputs).reshape(-1, q.size)
        steps = xp.concatenate([y[:, :1], y[:, 1:] - y[:, :-1]], axis=1)
        return xp.sum(-xp.abs(steps - xp.asarray(q)) / self.scale - math.log(2.0 * self.scale), axis=1)

    def output_bytes(self, dataset) -> float:
        """Bytes per output on ``dataset`` for the auditor's chunk size (:func:`~dpverify.audit.known_bad
        .coordinate_bytes` of its answers: 616 for the suite's ten)."""
        return coordinate_bytes(identity_query(dataset).size)

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        mu = float(np.abs(identity_query(dataset) - identity_query(neighbour)).sum()) / self.scale
        if delta == 0.0:
            return mu
        if identity_query(dataset).size == 1:
            return laplace_epsilon(delta, mu)
        return None
