"""Noisy gradient descent's last iterate, the mechanism of Bok, Su, Altschuler (ICML 2024, shifted interpolation).

``noisy_gd_last_iterate`` runs full-batch noisy GD on the per-record loss of a
:class:`~dpverify.models.targets.GaussianTarget` and releases only the last iterate:

    l(theta; x) = -log p(x | theta) - log prior(theta) / N,     F_D = (1/N) sum_i l(theta; x_i),
    theta_{k+1} = theta_k - eta (grad F_D(theta_k) + sigma xi_{k+1}),   xi ~ N(0, I_d),  theta_0 fixed,

vectorised over runs (the loop is over the chain's steps). ``grad F_D(theta) = (A theta - b_D) / N`` with the model's
precision ``A`` (diagonal, data-independent) and linear term ``b_D``: the loss is ``m``-strongly convex and
``M``-smooth with ``m, M`` the smallest and largest of ``a_j = A_jj / N``, and one record moves the mean gradient by at
most ``S_g / N`` with ``S_g = 2 R / sigma_lik^2`` (the model's ``gradient_difference_bound``).

Abilities:

- :meth:`guarantee`: ``bok2024.thm_noisy_gd_strongly_convex_gdp`` at the model's constants (hypotheses checked:
  ``eta <= 2/(M + m)``, ``eta m < 1``), mu-GDP, read as (epsilon, delta) at ``delta`` (the Gaussian mechanism's exact
  profile, Balle and Wang 2018); :meth:`gdp_claim` is the same statement as a trade-off curve ``GaussianDP(mu)``, which
  the curve test of :mod:`dpverify.audit.curve` tests whole;
- :meth:`law`: the exact law of the last iterate (per coordinate the AR(1) chain ``theta -> rho theta + (eta/N) b_D +
  eta sigma xi``, ``rho_j = 1 - eta a_j``): ``N(mean, diag(var))`` with a data-independent ``var``;
- :meth:`pair_mu`, :meth:`pair_guarantee`, :meth:`exact_epsilon`, :meth:`pair_privacy_loss`: the pair's two laws are
  Gaussians with one covariance, so its privacy is exactly ``mu``-GDP with ``mu`` their Mahalanobis distance;
- :meth:`worst_mu` / :meth:`account`: the largest pair ``mu`` over all replace-one pairs (the gap of ``b_D`` has norm
  at most ``S_g`` and goes into the coordinate that leaks most), as (epsilon, delta);
- :meth:`log_density`: the exact Gaussian log density of each output.

On this model the Bok bound is exact when the leaking coordinate has the smallest curvature ``m`` (``worst_mu`` equals
``mu`` of the claim); otherwise the claim is above the exact value.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpverify.calculus.accounting.pld import gaussian_pld
from dpverify.calculus.guarantees import Claim, Conversion
from dpverify.calculus.mechanism_description import PairPrivacyLoss
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.calculus.tradeoff import GaussianDP
from dpverify.models.targets import GaussianTarget
from dpverify.samplers.base import Sampler
from dpverify.samplers.claims import evaluate_item
from dpverify.samplers.registry import register
from dpverify.validation import check_delta, check_finite_array, check_positive_int, check_real

__all__ = ["NoisyGDLastIterate"]

_THEOREM = "bok2024.thm_noisy_gd_strongly_convex_gdp"


@register
class NoisyGDLastIterate(Sampler):
    """Full-batch noisy GD on a GaussianTarget's per-record loss, releasing the last iterate (Bok et al. 2024's
    NoisyGD, strongly convex case). Datasets: ``(N, d)`` records with ``||x|| <= R``. Output: ``(n, d)``."""

    id = "noisy_gd_last_iterate"
    theorems = (_THEOREM,)
    output = "final"
    description = ("noisy GD's last iterate on a strongly convex quadratic loss (Bok et al. 2024); exact Gaussian law, "
                   "mu-GDP claim")

    def __init__(self, model: GaussianTarget, N: int, step_size: float, n_steps: int, sigma: float,
                 theta0: Any = None, delta: float = 1e-5, unguaranteed: bool = False) -> None:
        if not isinstance(model, GaussianTarget):
            raise ValueError(f"model must be a dpverify.models.targets.GaussianTarget; got {model!r}")
        self.model = model
        self.N = check_positive_int(N, "N")
        self.eta = check_real("step_size", step_size, low=0.0, low_inclusive=False)
        self.n_steps = check_positive_int(n_steps, "n_steps")
        self.sigma = check_real("sigma", sigma, low=0.0, low_inclusive=False)
        self.theta0 = np.zeros(model.dim) if theta0 is None else check_finite_array(theta0, "theta0",
                                                                                    shape=(model.dim,)).copy()
        self.delta = check_delta(delta, allow_zero=False)
        self.unguaranteed = bool(unguaranteed)
        self._curvature = model.precision(self.N) / self.N  # a_j: the Hessian of F_D (diagonal)
        self.m = float(self._curvature.min())
        self.M = float(self._curvature.max())
        self.S_g = float(model.gradient_difference_bound())
        self._evaluation = evaluate_item(_THEOREM, unguaranteed=self.unguaranteed, **self.theorem_values())

    # -- the claim ---------------------------------------------------------------------------------------------------
    def theorem_values(self) -> dict:
        """The catalogue item's inputs: ``S_g``, ``N``, ``sigma``, ``eta``, ``m``, ``M``, ``k``."""
        return {"S_g": self.S_g, "N": self.N, "sigma": self.sigma, "eta": self.eta, "m": self.m, "M": self.M,
                "k": self.n_steps}

    @property
    def claimed_mu(self) -> float:
        """The GDP parameter the theorem gives for these parameters."""
        return float(self._evaluation.conclusion["mu"])

    def gdp_claim(self) -> GaussianDP:
        """The claim as a trade-off curve: ``GaussianDP(mu)`` (the whole curve, for the curve test)."""
        return GaussianDP(self.claimed_mu)

    def guarantee(self, delta: float | None = None) -> Claim:
        """mu-GDP read at ``delta`` (default: the constructor's): ``epsilon = gaussian_epsilon(delta, mu)``, the exact
        (epsilon, delta) profile of mu-GDP. ``details``: ``mu``, ``mu_limit`` (t -> infinity) and ``mu_step``."""
        d = self.delta if delta is None else check_delta(delta, allow_zero=False)
        ev = self._evaluation
        details = {k: float(v) for k, v in ev.conclusion.items()}
        details["contraction"] = 1.0 - self.eta * self.m
        return Claim(float(gaussian_epsilon(d, self.claimed_mu)), d, _THEOREM, ev.guaranteed, dict(ev.hypotheses),
                     details)

    # -- the mechanism ---------------------------------------------------------------------------------------------
    def _records(self, dataset: Any) -> np.ndarray:
        X = self.model.validate_dataset(dataset)
        if X.shape[0] != self.N:
            raise ValueError(f"dataset must have N = {self.N} records; got {X.shape[0]}")
        return X

    def sample(self, dataset: Any, n: int, rng) -> np.ndarray:
        """``n`` independent runs of noisy GD (vectorised over runs; a loop over the ``n_steps`` steps)."""
        X = self._records(dataset)
        runs = check_positive_int(n, "n")
        gen = self._rng(rng)
        a = self.model.precision(self.N)
        b = self.model.linear_term(X)
        theta = np.broadcast_to(self.theta0, (runs, self.model.dim)).copy()
        for _ in range(self.n_steps):
            grad = (theta * a - b) / self.N  # grad F_D, shape (runs, d)
            theta = theta - self.eta * (grad + self.sigma * gen.standard_normal(theta.shape))
        return theta

    # -- exact privacy -------------------------------------------------------------------------------------------------
    def law(self, dataset: Any) -> tuple[np.ndarray, np.ndarray]:
        """Exact law of the last iterate: (mean, diagonal covariance), by iterating ``mean -> rho mean + (eta/N) b_D``
        and ``var -> rho^2 var + eta^2 sigma^2`` (``rho = 1 - eta a``) from ``(theta0, 0)``."""
        X = self._records(dataset)
        rho = 1.0 - self.eta * self._curvature
        drift = self.eta * self.model.linear_term(X) / self.N
        mean, var = self.theta0.astype(float).copy(), np.zeros(self.model.dim)
        for _ in range(self.n_steps):  # a loop over the steps (closed forms: the catalogue item's check)
            mean = rho * mean + drift
            var = rho * rho * var + (self.eta * self.sigma) ** 2
        return mean, var

    def pair_mu(self, dataset: Any, neighbour: Any) -> float:
        """The pair's exact GDP parameter: the Mahalanobis distance of the two Gaussian laws (common covariance)."""
        m1, v = self.law(dataset)
        m2, _ = self.law(neighbour)
        return float(np.sqrt(np.sum((m1 - m2) ** 2 / v)))

    def worst_mu(self) -> float:
        """The largest pair mu over all replace-one pairs: the gap of ``b_D`` is ``(x - x')/sigma_lik^2``, of norm at
        most ``S_g``; the mean gap in coordinate j is ``(eta/N) gap_j sum_{i<k} rho_j^i``, so ``mu^2 = sum_j gap_j^2
        w_j`` is largest with the whole gap on the coordinate of largest ``w_j`` (attained by antipodal records
        ``+-R e_j``)."""
        rho = 1.0 - self.eta * self._curvature
        gain, var = np.zeros(self.model.dim), np.zeros(self.model.dim)
        for _ in range(self.n_steps):
            gain = rho * gain + self.eta / self.N
            var = rho * rho * var + (self.eta * self.sigma) ** 2
        return float(self.S_g * np.sqrt(np.max(gain * gain / var)))

    def pair_guarantee(self, dataset: Any, neighbour: Any) -> GaussianDP:
        """The pair's exact privacy: ``GaussianDP(pair_mu)``."""
        return GaussianDP(self.pair_mu(dataset, neighbour))

    def exact_epsilon(self, dataset: Any, neighbour: Any, delta: float) -> float:
        """The pair's exact epsilon at ``delta`` (a Gaussian shift: both directions are the same)."""
        return float(gaussian_epsilon(check_delta(delta, allow_zero=False), self.pair_mu(dataset, neighbour)))

    def pair_privacy_loss(self, dataset: Any, neighbour: Any) -> PairPrivacyLoss:
        """The pair's exact privacy-loss law (for the budget ceiling): that of ``N(mu, 1)`` vs ``N(0, 1)``."""
        mu = self.pair_mu(dataset, neighbour)
        return PairPrivacyLoss(gaussian_pld(mu), f"exact: Gaussian pair, Mahalanobis distance {mu:.4g} (last iterate "
                               "of noisy GD on GaussianTarget)", exact=True)

    def account(self, delta: float) -> Conversion:
        """The mechanism's exact (epsilon, delta) over every replace-one pair: ``worst_mu``-GDP read at ``delta``."""
        d = check_delta(delta, allow_zero=False)
        return Conversion(float(gaussian_epsilon(d, self.worst_mu())), d, method="exact-gdp")

    def log_density(self, dataset: Any, outputs: Any) -> np.ndarray:
        """Normalised Gaussian log density of each output (shape ``(n, d)``) under the last iterate's law on
        ``dataset``."""
        out = check_finite_array(outputs, "outputs", shape=(None, self.model.dim))
        mean, var = self.law(dataset)
        return -0.5 * np.sum((out - mean) ** 2 / var + np.log(2 * math.pi * var), axis=1)
