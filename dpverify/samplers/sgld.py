"""Differentially private SGLD: Wang et al. 2015, Algorithm 2, and Li et al. 2019, Algorithm 1.

Both are stochastic-gradient Langevin chains over a batch of independent runs (leading axis = chains); the only
data access is a mini-batch sum of per-record gradients, perturbed by Gaussian noise whose variance is the privacy
mechanism. Each sampler is its budget (the theorem's parameters, the noise calibrated from them, the mechanism
description) and a Langevin kernel built from it (:class:`~dpverify.samplers.sgmcmc.LangevinSampler`: a mini-batch
gradient estimator, the Euler-Maruyama update, the step-size and noise schedule).

Drift convention. Both papers print the update with the step size ``eta_t`` in front of the gradient and noise
variance ``eta_t`` (Wang; ``eta_t/N`` with the gradient divided by N for Li). A Langevin chain
``theta + eta grad log pi + N(0, eta)`` discretises ``d theta = grad log pi dt + dW``, whose stationary law is
``pi^2`` (the posterior at temperature 1/2), not ``pi``: Welling & Teh 2011 put ``eta/2`` in front of the gradient.
We implement the printed form (its privacy analysis -- sensitivity of the ``eta_t (N/tau) sum grad`` term -- is the
one the proofs use); ``half_drift=True`` gives Welling & Teh's drift, which halves the data-dependent term and so is
at least as private under the same noise.
"""
from __future__ import annotations

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_real
from dpverify.calculus.mechanism_description import FixedSizeSampling, PoissonSampling
from dpverify.samplers.base import Claim
from dpverify.samplers.budgets import WangBudget, model_lipschitz, wang_noise_level
from dpverify.samplers.claims import claim_from, evaluate_theorem
from dpverify.samplers.registry import register
from dpverify.samplers.schedules import check_steps, step_size_schedule
from dpverify.samplers.sgmcmc import LangevinSampler

#: ``step_size_schedule`` lives in :mod:`dpverify.samplers.schedules` and ``model_lipschitz`` in
#: :mod:`dpverify.samplers.budgets`; both are re-exported here.
__all__ = ["wang_noise_variance", "step_size_schedule", "model_lipschitz", "DPSGLDWang", "DPSGLDLi"]


def wang_noise_variance(eta, N: float, T: float, tau: float, epsilon: float, delta: float, L: float) -> np.ndarray:
    """Wang et al. 2015, Algorithm 2 step 2: each coordinate of ``z_t`` has variance

        max{ (128 N T L^2 / (tau eps^2)) log(2.5 N T / (tau delta)) log(2/delta) eta_t^2 ,  eta_t }.

    ``T`` counts data passes. Vectorised over ``eta`` (a step-size schedule).
    """
    eta = np.asarray(eta, dtype=float)
    return np.maximum(wang_noise_level(N, T, tau, epsilon, delta, L) * eta**2, eta)


@register
class DPSGLDWang(LangevinSampler):
    """DP-SGLD, Wang et al. 2015, Algorithm 2 (guarantee: Theorem 4).

    For ``t = 1..floor(N T / tau)``: draw a mini-batch S of size tau uniformly without replacement, then

        theta_{t+1} = theta_t + eta_t (grad log prior(theta_t) + (N/tau) sum_{i in S} grad log p(x_i | theta_t)) + z_t,
        z_t ~ N(0, max{(128 N T L^2/(tau eps^2)) log(2.5 N T/(tau delta)) log(2/delta) eta_t^2, eta_t} I_d).

    ``T`` counts data passes; Theorem 4 needs ``T >= eps^2 N / (32 tau log(2/delta))`` and a data-independent start.
    ``privacy_noise=False`` drops the privacy term of the variance (plain SGLD with noise ``eta_t``): a deliberately
    broken DP-SGLD for audits, always ``guaranteed=False``. ``release="path"`` publishes every iterate (shape
    ``(n, steps + 1, d)``) instead of the last. Mechanism: replace-one adjacency (N is public), fixed-size batches,
    step t releases ``eta_t (N/tau) sum grad`` of sensitivity ``eta_t (N/tau) 2L`` with noise ``sqrt(var_t)``.
    """

    id = "dp_sgld_wang"
    theorems = ("wang2015.alg2_dp_sgld", "wang2015.thm4_dp_sgld")
    output = "final"
    description = "DP-SGLD (Wang et al. 2015, Alg. 2): max(privacy, eta_t) noise variance, T data passes; final iterate"

    #: Wang et al. 2015's budget (:meth:`_set_wang_budget`): a whole batch size and a target epsilon
    tau: int
    epsilon: float

    def __init__(self, model, N: int, tau: int, T: float, epsilon: float, delta: float, step_size,
                 theta0=None, privacy_noise: bool = True, half_drift: bool = False, release: str = "final",
                 unguaranteed: bool = False):
        self._setup_common(model, N, theta0, unguaranteed)
        budget = WangBudget.check(self.N, tau, T, epsilon, delta)
        self._set_wang_budget(budget)
        self.eta = step_size_schedule(step_size, self.n_steps)
        self.privacy_noise = bool(privacy_noise)
        self.half_drift = bool(half_drift)
        if self.privacy_noise:
            self.L = model_lipschitz(model, "DP-SGLD (Wang et al. 2015, Alg. 2)")
            self._noise_variance = np.maximum(budget.privacy_noise_level(self.L) * self.eta**2, self.eta)  # step 2
        else:
            self.L = model.constants.L
            self._noise_variance = self.eta.copy()
        self._setup_langevin(coefficients=self.eta / 2 if self.half_drift else self.eta,
                             noise_std=np.sqrt(self._noise_variance), prior_weight=1.0, data_weight=self.N / self.tau,
                             sampling=FixedSizeSampling(self.tau, self.N), clip=None, neighbouring="replace_one",
                             source="Wang et al. 2015, Alg. 2", release=release)
        evaluate_theorem("wang2015.thm4_dp_sgld", self._theorem_values(), self.unguaranteed or not self.privacy_noise)

    def _theorem_values(self) -> dict:
        return {"epsilon": self.epsilon, "delta": self.delta, "N": self.N, "T": self.T, "tau": self.tau,
                "L": self.L, "eta": float(self.eta.max())}

    @property
    def noise_variance(self) -> np.ndarray:
        """Per-coordinate variance of ``z_t`` at each step (Alg. 2 step 2, or ``eta_t`` without the privacy term)."""
        return self._noise_variance.copy()

    def guarantee(self) -> Claim:
        ev = evaluate_theorem("wang2015.thm4_dp_sgld", self._theorem_values(), True)
        return claim_from(ev, force_unguaranteed=not self.privacy_noise,
                          privacy_noise=self.privacy_noise, iterations=self.n_steps,
                          epsilon_claimed=self.epsilon)


@register
class DPSGLDLi(LangevinSampler):
    """DP-SGLD, Li et al. 2019, Algorithm 1 (guarantee: Theorem 3 for ``eta_t ~ t^{-1/3}``, Theorem 4 for fixed eta).

    For ``t = 1..T`` (T counts iterations): Poisson-sample a batch J_t with rate ``q = tau/N``; clip each per-record
    gradient, ``g~ = g / max(1, ||g||/L)``; then

        theta_{t+1} = theta_t + eta_t (grad log prior(theta_t)/N + (1/tau) sum_{i in J_t} g~_i) + z_t,
        z_t ~ N(0, (eta_t / N) I_d).

    (The paper prints "theta_t - eta_t(...)" with g the gradient of the log-likelihood; the sign that makes the chain
    sample the posterior is "+", as in its SDE of Section 2.) ``L`` is the clip level (default: the model's ``L``).

    Mechanism: add/remove adjacency with N a public constant (as in the moments accountant, Abadi et al. 2016), Poisson
    rate q, step t releases ``(eta_t/tau) sum g~`` of sensitivity ``eta_t L / tau`` with noise ``sqrt(eta_t/N)``.
    ``release="path"`` publishes every iterate. ``claim="accountant"`` claims the numeric accountant's epsilon of the
    run at ``delta`` (PLD of the path, :meth:`account`) instead of Theorem 3/4's ``epsilon`` -- the claim a
    practitioner's DP-SGLD with an accountant makes; the theorem's hypotheses are then not required.
    """

    id = "dp_sgld_li"
    theorems = ("li2019.thm3_decreasing_stepsize", "li2019.thm4_fixed_stepsize")
    output = "final"
    description = "DP-SGLD (Li et al. 2019, Alg. 1): Poisson batches, clipping to L, noise eta_t/N; final iterate"

    def __init__(self, model, N: int, tau: float, T: int, epsilon: float | None, delta: float, step_size,
                 schedule: str = "fixed", L: float | None = None, theta0=None, half_drift: bool = False,
                 release: str = "final", claim: str = "theorem", unguaranteed: bool = False):
        self._setup_common(model, N, theta0, unguaranteed)
        self.tau = check_real("tau", tau, low=0.0, high=float(self.N), low_inclusive=False)
        self.q = self.tau / self.N
        self.n_steps = self.T = check_steps(T, "T")
        if claim not in ("theorem", "accountant"):
            raise ValueError(f"claim must be 'theorem' or 'accountant'; got {claim!r}")
        self.claim = claim
        self.epsilon = None if (claim == "accountant" and epsilon is None) else check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        if np.ndim(step_size) != 0:
            schedule = "explicit"
        self.schedule = schedule
        self.eta = step_size_schedule(step_size, self.n_steps, "fixed" if schedule == "explicit" else schedule)
        self.L = model_lipschitz(model, "DP-SGLD (Li et al. 2019, Alg. 1)") if L is None else check_real("L", L, low=0.0, low_inclusive=False)
        self.half_drift = bool(half_drift)
        self._setup_langevin(coefficients=self.eta / 2 if self.half_drift else self.eta,
                             noise_std=np.sqrt(self.eta / self.N), prior_weight=1.0 / self.N,
                             data_weight=1.0 / self.tau, sampling=PoissonSampling(self.q), clip=self.L,
                             neighbouring="add_remove", source="Li et al. 2019, Alg. 1", release=release)
        if self.claim == "theorem":
            self._check_hypotheses()

    @property
    def theorem_id(self) -> str:
        return "li2019.thm3_decreasing_stepsize" if self.schedule == "decreasing" else "li2019.thm4_fixed_stepsize"

    def _theorem_values(self) -> dict:
        """Theorems 3/4 take the first step ``eta`` (``eta_t = eta t^{-1/3}`` or fixed) and check every step."""
        return {"epsilon": self.epsilon, "delta": self.delta, "N": self.N, "T": self.T, "q": self.q,
                "L": self.L, "eta": float(self.eta[0])}

    def _check_hypotheses(self) -> None:
        if self.schedule == "explicit" and not self.unguaranteed:
            raise ValueError("Li et al. 2019 Theorems 3/4 cover the t^{-1/3} and fixed schedules only; "
                             "pass unguaranteed=True for an explicit step-size array")
        evaluate_theorem(self.theorem_id, self._theorem_values(), self.unguaranteed)

    def guarantee(self) -> Claim:
        if self.claim == "accountant":
            acc = self.account(self.delta)
            return Claim(acc.epsilon, self.delta, f"accountant: {acc.method} (dpverify.calculus.accounting.pld)", True,
                         {}, {"accountant": acc.method, "epsilon_lower": acc.epsilon_lower,
                              "mechanism": self.mechanism().to_dict(), "q": self.q})
        ev = evaluate_theorem(self.theorem_id, self._theorem_values(), True)
        return claim_from(ev, force_unguaranteed=self.schedule == "explicit", schedule=self.schedule, q=self.q)
