"""Baseline mechanisms on simple queries, as registered samplers.

Queries (replace-one adjacency, datasets of fixed size N):

- ``"count"``: x in {0, 1}, f(D) = sum x_i, sensitivity 1;
- ``"mean"``: x in [lower, upper], f(D) = mean x_i, sensitivity (upper - lower) / N (L1 = L2 in 1-d).

Samplers: ``laplace_mechanism`` (Foulds et al. 2016, eqs. 2-3), ``gaussian_mechanism`` (classic
calibration, Wang et al. 2015, Thm 2: eps in (0, 1)), ``analytic_gaussian_mechanism`` (Balle & Wang
2018, Alg. 1 -- not an item of the catalogue), ``exponential_mechanism`` (Foulds et al. 2016, eqs. 4-5:
select a category with utility u(D, r) = #{i : x_i = r}, Delta_u = 1). Each exposes the mechanism
protocol's ``log_density`` and ``exact_epsilon`` (closed forms of :mod:`dpverify.calculus.mechanisms`).
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_positive_int, check_real
from dpverify.calculus.mechanisms.exponential import ExponentialMechanism, discrete_epsilon
from dpverify.calculus.tradeoff import GaussianDP, LaplaceDP
from dpverify.calculus.mechanisms.gaussian import GaussianMechanism, analytic_gaussian_sigma, classic_gaussian_sigma, gaussian_epsilon
from dpverify.calculus.mechanisms.laplace import LaplaceMechanism, laplace_epsilon
from dpverify.samplers.base import Claim, Sampler
from dpverify.samplers.claims import claim_from_item, evaluate_item
from dpverify.samplers.registry import register

#: ``evaluate_theorem`` and ``claim_from`` (keyword form) live in :mod:`dpverify.samplers.claims` as ``evaluate_item``
#: and ``claim_from_item``; kept here under their former names.
evaluate_theorem, claim_from = evaluate_item, claim_from_item
__all__ = [
    "evaluate_theorem",
    "claim_from",
    "QueryMechanism",
    "LaplaceMechanismSampler",
    "GaussianMechanismSampler",
    "AnalyticGaussianMechanismSampler",
    "ExponentialMechanismSampler",
]


class QueryMechanism(Sampler):
    """Noise added to a count or a bounded mean (see the module docstring); output = the noisy statistic, (n, 1)."""

    output = "statistic"

    def __init__(self, query: str = "count", lower: float = 0.0, upper: float = 1.0) -> None:
        if query not in ("count", "mean"):
            raise ValueError(f"query must be 'count' or 'mean'; got {query!r}")
        self.query = query
        self.lower = check_real("lower", lower)
        self.upper = check_real("upper", upper, low=self.lower, low_inclusive=False)

    def validate_dataset(self, dataset) -> np.ndarray:
        x = np.asarray(dataset)
        if x.ndim != 1 or x.size == 0:
            raise ValueError(f"dataset must be a non-empty 1-d array; got shape {x.shape}")
        try:
            x = x.astype(float)
        except (TypeError, ValueError):
            raise ValueError("dataset must contain numbers") from None
        if self.query == "count":
            bad = ~((x == 0) | (x == 1))
            allowed = "0 or 1"
        else:
            bad = ~(np.isfinite(x) & (x >= self.lower) & (x <= self.upper))
            allowed = f"in [{self.lower}, {self.upper}]"
        if bad.any():
            raise ValueError(f"dataset values must be {allowed} for the {self.query!r} query; got {x[bad][0]!r}")
        return x

    def statistic(self, dataset) -> float:
        x = self.validate_dataset(dataset)
        return float(x.sum() if self.query == "count" else x.mean())

    def sensitivity(self, N: int) -> float:
        """Replace-one sensitivity: 1 for the count, (upper - lower)/N for the mean."""
        return 1.0 if self.query == "count" else (self.upper - self.lower) / N

    def _pair_distance(self, dataset, neighbour) -> tuple[float, float]:
        """|f(D) - f(D')| in units of the sensitivity of size-N datasets, and that sensitivity."""
        n1, n2 = len(self.validate_dataset(dataset)), len(self.validate_dataset(neighbour))
        if n1 != n2:
            raise ValueError(f"dataset and neighbour must have the same size (replace-one); got {n1} and {n2}")
        return abs(self.statistic(dataset) - self.statistic(neighbour)), self.sensitivity(n1)

    def _mechanism(self, N: int):
        raise NotImplementedError

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        n = check_positive_int(n, "n")
        N = len(self.validate_dataset(dataset))
        return self._mechanism(N).sample(np.array([self.statistic(dataset)]), n, self._rng(rng))

    def log_density(self, dataset, outputs) -> np.ndarray:
        N = len(self.validate_dataset(dataset))
        out = np.asarray(outputs, dtype=float).reshape(-1, 1)
        return self._mechanism(N).log_density(np.array([self.statistic(dataset)]), out)


@register
class LaplaceMechanismSampler(QueryMechanism):
    """f(D) + Lap(Delta/eps) (Foulds et al. 2016, eqs. 2-3); eps-DP. Exact epsilon of a pair at distance
    d: laplace_epsilon(delta, d/b) = max(0, d/b + 2 log(1 - delta))."""

    id = "laplace_mechanism"
    theorems = ("foulds2016.eq3_laplace_mechanism",)
    description = "Laplace noise of scale sensitivity/eps on a count or a bounded mean"

    def __init__(self, epsilon: float = 1.0, query: str = "count", lower: float = 0.0, upper: float = 1.0,
                 unguaranteed: bool = False) -> None:
        super().__init__(query, lower, upper)
        self.epsilon = check_epsilon(epsilon)
        self.unguaranteed = bool(unguaranteed)
        self._evaluation = evaluate_item(self.theorems[0], unguaranteed=self.unguaranteed,
                                         epsilon=self.epsilon, sensitivity=self.sensitivity(1))

    def _mechanism(self, N: int) -> LaplaceMechanism:
        return LaplaceMechanism(self.sensitivity(N), self.epsilon)

    def exact_epsilon(self, dataset, neighbour, delta: float = 0.0) -> float:
        dist, sens = self._pair_distance(dataset, neighbour)
        return laplace_epsilon(check_delta(delta), dist / (sens / self.epsilon))

    def pair_guarantee(self, dataset, neighbour) -> LaplaceDP:
        """The pair's exact trade-off curve: the Laplace curve of the shift ``|f(D) - f(D')| / b``."""
        dist, sens = self._pair_distance(dataset, neighbour)
        return LaplaceDP(dist / (sens / self.epsilon))

    def guarantee(self) -> Claim:
        return claim_from_item(self._evaluation, self.theorems[0], epsilon=self.epsilon, delta=0.0)


class _GaussianQuery(QueryMechanism):
    def exact_epsilon(self, dataset, neighbour, delta: float = 0.0) -> float:
        """gaussian_epsilon(delta, d/sigma) (Balle & Wang 2018, Thm 8); inf at delta = 0 unless d = 0."""
        dist, sens = self._pair_distance(dataset, neighbour)
        d = check_delta(delta)
        mu = dist / self._mechanism(len(self.validate_dataset(dataset))).sigma
        if mu == 0.0:
            return 0.0
        return math.inf if d == 0.0 else gaussian_epsilon(d, mu)

    def pair_guarantee(self, dataset, neighbour) -> GaussianDP:
        """The pair's exact trade-off curve: ``mu``-GDP with ``mu = |f(D) - f(D')| / sigma`` (Dong, Roth, Su 2022,
        Thm 2.7)."""
        dist, _ = self._pair_distance(dataset, neighbour)
        return GaussianDP(dist / self._mechanism(len(self.validate_dataset(dataset))).sigma)


@register
class GaussianMechanismSampler(_GaussianQuery):
    """f(D) + N(0, sigma^2), sigma = Delta sqrt(2 log(1.25/delta))/eps (Wang et al. 2015, Thm 2; Dwork &
    Roth 2014, Thm A.1): (eps, delta)-DP for eps in (0, 1). eps >= 1 breaks the hypothesis; with
    ``unguaranteed=True`` the same formula is used (from the theorem's conclusion) and the claim is unguaranteed."""

    id = "gaussian_mechanism"
    theorems = ("wang2015.thm2_gaussian_mechanism",)
    description = "classic Gaussian mechanism sigma = sensitivity sqrt(2 log(1.25/delta))/eps, eps < 1"

    def __init__(self, epsilon: float = 0.5, delta: float = 1e-5, query: str = "count", lower: float = 0.0,
                 upper: float = 1.0, unguaranteed: bool = False) -> None:
        super().__init__(query, lower, upper)
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        self.unguaranteed = bool(unguaranteed)
        self._evaluation = evaluate_item(self.theorems[0], unguaranteed=self.unguaranteed,
                                         epsilon=self.epsilon, delta=self.delta, sensitivity=1.0)

    def _sigma_per_unit_sensitivity(self) -> float:
        if self.epsilon < 1.0:
            return classic_gaussian_sigma(1.0, self.epsilon, self.delta)
        return float(self._evaluation.conclusion["sigma"])

    def _mechanism(self, N: int) -> GaussianMechanism:
        return GaussianMechanism(self.sensitivity(N), self.sensitivity(N) * self._sigma_per_unit_sensitivity())

    def guarantee(self) -> Claim:
        return claim_from_item(self._evaluation, self.theorems[0], epsilon=self.epsilon, delta=self.delta)


@register
class AnalyticGaussianMechanismSampler(_GaussianQuery):
    """f(D) + N(0, sigma^2) with the smallest sigma whose exact profile meets (eps, delta) (Balle & Wang 2018,
    Alg. 1; any eps > 0). The claim is Balle & Wang's Theorem 8 (``balle2018.thm8_analytic_gaussian``, a supporting
    catalogue item) evaluated at the calibrated sigma: the mechanism is (eps, delta_exact)-DP exactly, and the claim
    (eps, delta) holds when delta_exact <= delta up to :data:`CALIBRATION_TOLERANCE` (the calibration's root is found
    in floating point: delta_exact exceeds delta by about 1e-15 relative at most)."""

    id = "analytic_gaussian_mechanism"
    theorems = ("balle2018.thm8_analytic_gaussian",)
    description = "analytic Gaussian mechanism (Balle & Wang 2018): smallest sigma meeting (eps, delta) exactly"
    #: relative excess of Theorem 8's exact delta over the asked delta that the claim still accepts
    CALIBRATION_TOLERANCE = 1e-12

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, query: str = "count", lower: float = 0.0,
                 upper: float = 1.0) -> None:
        super().__init__(query, lower, upper)
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        self._sigma_unit = analytic_gaussian_sigma(1.0, self.epsilon, self.delta)
        self._evaluation = evaluate_item(self.theorems[0], unguaranteed=False, sensitivity=1.0,
                                         sigma=self._sigma_unit, epsilon=self.epsilon)

    def _mechanism(self, N: int) -> GaussianMechanism:
        return GaussianMechanism(self.sensitivity(N), self.sensitivity(N) * self._sigma_unit)

    def guarantee(self) -> Claim:
        delta_exact = float(self._evaluation.conclusion["delta_exact"])
        meets = delta_exact <= self.delta * (1 + self.CALIBRATION_TOLERANCE)
        claim = claim_from_item(self._evaluation, self.theorems[0], epsilon=self.epsilon, delta=self.delta,
                                details={"sigma_per_unit_sensitivity": self._sigma_unit, "delta_exact": delta_exact})
        return dataclasses.replace(claim, guaranteed=claim.guaranteed and meets)


@register
class ExponentialMechanismSampler(Sampler):
    """Select a category r in {0..K-1} with P(r) prop. to exp(eps u(D, r) / (2 Delta_u)), u(D, r) = count of r,
    Delta_u = 1 under replace-one (Foulds et al. 2016, eqs. 4-5; McSherry & Talwar 2007): eps-DP.
    Output: the selected index, shape (n, 1)."""

    id = "exponential_mechanism"
    theorems = ("foulds2016.eq4_exponential_mechanism",)
    output = "statistic"
    description = "exponential mechanism selecting the most frequent category (utility = count, sensitivity 1)"

    def __init__(self, epsilon: float = 1.0, K: int = 3, unguaranteed: bool = False) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.K = check_positive_int(K, "K", minimum=2)
        self.unguaranteed = bool(unguaranteed)
        self._mech = ExponentialMechanism(self.epsilon, 1.0)
        self._evaluation = evaluate_item(self.theorems[0], unguaranteed=self.unguaranteed,
                                         epsilon=self.epsilon, sensitivity=1.0)

    def utilities(self, dataset) -> np.ndarray:
        x = np.asarray(dataset)
        if x.ndim != 1 or x.size == 0:
            raise ValueError(f"dataset must be a non-empty 1-d array of categories; got shape {x.shape}")
        xf = x.astype(float)
        bad = ~((xf == np.round(xf)) & (xf >= 0) & (xf <= self.K - 1))
        if bad.any():
            raise ValueError(f"dataset values must be integers in [0, {self.K - 1}]; got {x[bad][0]!r}")
        return np.bincount(xf.astype(np.int64), minlength=self.K).astype(float)

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        return self._mech.sample(self.utilities(dataset), check_positive_int(n, "n"), self._rng(rng))[:, None]

    def log_density(self, dataset, outputs) -> np.ndarray:
        return self._mech.log_density(self.utilities(dataset), np.asarray(outputs).reshape(-1))

    def exact_epsilon(self, dataset, neighbour, delta: float = 0.0) -> float:
        lp = self._mech.log_probabilities(self.utilities(dataset))
        lq = self._mech.log_probabilities(self.utilities(neighbour))
        return discrete_epsilon(lp, lq, check_delta(delta))

    def guarantee(self) -> Claim:
        return claim_from_item(self._evaluation, self.theorems[0], epsilon=self.epsilon, delta=0.0)
