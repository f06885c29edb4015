"""Noisy Monte Carlo estimator (Bertazzi et al. 2025, eq. 7; reconstructed statements).

A(D) = pihat_n^D(f) + xi, with pihat_n^D(f) = (1/n) sum_{k=1}^n f(X_k) the ergodic average of a bounded
test function along a Markov chain targeting pi_D, and xi ~ Laplace(Delta / eps) (Assumption 3.5 with
(eps_xi, delta_xi) = (Delta / b, 0)). The formulas are the catalogue's reconstructions of Bertazzi et al.'s
statements (Prop. 3.7, high confidence; Prop. 3.10, medium confidence: ``dpverify.theorems.bertazzi2025``).

Target: the truncated beta-Bernoulli posterior pi_D = Beta(alpha0 + n1, beta0 + n0) on [a0, 1 - a0] for
datasets of a public size N. Chain: the independence Metropolis-Hastings sampler whose proposal is
pi_D itself; its acceptance ratio is identically 1, so X_1, ..., X_n are i.i.d. pi_D draws (a uniformly
ergodic chain mixing in one step). That makes the hypotheses checkable exactly:

- ``test_function="mean"``: f(p) = p in [a0, 1 - a0]; ``"cdf"``: f(p) = 1{p <= threshold} in [0, 1].
- ``calibration="prop37"`` (Prop. 3.7): any coupling has |pihat^D f - pihat^D' f| <= range(f), so
  Assumption 3.6 holds with Delta = range(f), delta_tilde = 0: (eps, 0)-DP.
- ``calibration="prop310"`` (Prop. 3.10): Hoeffding (1963) for i.i.d. draws in an interval of length
  range(f) gives Assumption 3.8 with r = range(f) sqrt(log(2/delta_bar) / (2n)); Assumption 3.9's
  C_f = max over adjacent count vectors (n1, n0) vs (n1 + 1, n0 - 1) of |pi_D f - pi_D' f|, computed
  exactly over all N of them (vectorised incomplete-beta ratios); Delta = 2r + C_f:
  (eps, 1 - (1 - delta_bar)^2)-DP.
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.validation import check_epsilon, check_positive_int, check_probability, check_real
from dpverify.calculus.mechanisms.laplace import laplace_scale
from dpverify.models.beta_bernoulli import BetaBernoulli, log_beta_interval_mass, truncated_beta_mean
from dpverify.samplers.base import Claim, Sampler
from dpverify.samplers.claims import claim_from_item, evaluate_item
from dpverify.samplers.registry import register
from dpverify.samplers.schedules import MAX_STEPS

__all__ = ["NoisyMCEstimator", "hoeffding_radius"]


def hoeffding_radius(n_steps: int, value_range: float, delta_bar: float) -> float:
    """r with P(|mean of n i.i.d. draws in an interval of length ``value_range`` - expectation| > r)
    <= 2 exp(-2 n r^2 / range^2) = delta_bar (Hoeffding 1963, Thm 2): r = range sqrt(log(2/delta_bar)/(2n))."""
    return value_range * math.sqrt(math.log(2.0 / delta_bar) / (2.0 * n_steps))


@register
class NoisyMCEstimator(Sampler):
    """Ergodic average of f along the chain + Laplace noise (Bertazzi et al. 2025, eq. 7); see the module docstring.
    Output: the released scalar, shape (n, 1)."""

    id = "noisy_mc_estimator"
    theorems = ("bertazzi2025.prop37_mc_estimator", "bertazzi2025.prop310_mc_estimator")
    output = "statistic"
    description = "ergodic average of a bounded test function along a chain + Laplace noise (Bertazzi eq. 7)"

    def __init__(self, epsilon: float = 1.0, n_steps: int = 1000, N: int = 100, a0: float = 0.05,
                 alpha0: float = 1.0, beta0: float = 1.0, test_function: str = "mean", threshold: float = 0.5,
                 calibration: str = "prop310", delta_bar: float = 1e-6, unguaranteed: bool = False) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.n_steps = check_positive_int(n_steps, "n_steps", maximum=MAX_STEPS)
        self.N = check_positive_int(N, "N")
        self._model = BetaBernoulli(a0, alpha0, beta0)
        self.a0, self.alpha0, self.beta0 = self._model.a0, self._model.alpha0, self._model.beta0
        if test_function not in ("mean", "cdf"):
            raise ValueError(f"test_function must be 'mean' or 'cdf'; got {test_function!r}")
        self.test_function = test_function
        self.threshold = check_real("threshold", threshold, low=self.a0, high=1 - self.a0)
        if calibration not in ("prop37", "prop310"):
            raise ValueError(f"calibration must be 'prop37' or 'prop310'; got {calibration!r}")
        self.calibration = calibration
        self.delta_bar = check_probability(delta_bar, "delta_bar", open_low=True, open_high=True)
        self.unguaranteed = bool(unguaranteed)
        self.value_range = 1.0 - 2 * self.a0 if test_function == "mean" else 1.0
        if calibration == "prop37":
            self.r, self.C_f = None, None
            self._evaluation = evaluate_item(self.theorems[0], unguaranteed=self.unguaranteed,
                                             epsilon_xi=self.epsilon, delta_xi=0.0, delta_tilde=0.0,
                                             sensitivity=self.value_range)
            self.sensitivity = self.value_range
        else:
            self.r = hoeffding_radius(self.n_steps, self.value_range, self.delta_bar)
            self.C_f = self.target_sensitivity()
            self._evaluation = evaluate_item(self.theorems[1], unguaranteed=self.unguaranteed,
                                             epsilon_xi=self.epsilon, delta_xi=0.0, delta_bar=self.delta_bar,
                                             r=self.r, C_f=self.C_f)
            self.sensitivity = float(self._evaluation.conclusion["sensitivity"])  # Delta = 2r + C_f
        self.scale = laplace_scale(self.sensitivity, self.epsilon)  # b = Delta / eps_xi (Assumption 3.5)

    def target_values(self, n1) -> np.ndarray:
        """pi_D f for datasets with n1 ones (array), N - n1 zeros."""
        n1 = np.asarray(n1, dtype=float)
        a, b = self._model.posterior_parameters(np.stack([n1, self.N - n1], axis=-1))
        lo, hi = self.a0, 1.0 - self.a0
        if self.test_function == "mean":
            return truncated_beta_mean(a, b, lo, hi)
        return np.exp(log_beta_interval_mass(a, b, lo, self.threshold) - log_beta_interval_mass(a, b, lo, hi))

    def target_sensitivity(self) -> float:
        """C_f = max_{n1 = 0..N-1} |pi_{n1+1} f - pi_{n1} f| (Assumption 3.9, exact over every adjacent pair)."""
        values = self.target_values(np.arange(self.N + 1))
        return float(np.max(np.abs(np.diff(values))))

    def _f(self, p: np.ndarray) -> np.ndarray:
        return p if self.test_function == "mean" else (p <= self.threshold).astype(float)

    def ergodic_averages(self, dataset, n: int, rng) -> np.ndarray:
        """``n`` independent runs of the chain (vectorised): pihat_n^D f for each, shape (n,)."""
        x = self._model.validate_dataset(dataset)
        if x.size != self.N:
            raise ValueError(f"dataset must have N = {self.N} records (the calibration depends on N); got {x.size}")
        post = self._model.posterior(x)
        draws = post.rvs(check_positive_int(n, "n") * self.n_steps, self._rng(rng)).reshape(n, self.n_steps)
        return self._f(draws).mean(axis=1)

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        rng = self._rng(rng)
        avg = self.ergodic_averages(dataset, n, rng)
        return (avg + rng.laplace(0.0, self.scale, size=avg.shape))[:, None]

    def guarantee(self) -> Claim:
        theorem = self.theorems[0] if self.calibration == "prop37" else self.theorems[1]
        return claim_from_item(self._evaluation, theorem,
                               details={"sensitivity": self.sensitivity, "scale": self.scale, "r": self.r, "C_f": self.C_f,
                                        "reconstructed": True})
