"""ULA and noisy SGD / SGLD as private mechanisms (Bertazzi et al. 2025, eqs. 25 and 31; reconstructed).

- ``ula_final`` / ``ula_path`` -- the unadjusted Langevin algorithm, eq. (25):
  ``X_{k+1} = X_k - h grad U^D(X_k) + sqrt(2h) xi_{k+1}``, ``U^D = -log prior - sum_i log p(x_i | .)``, common start
  ``x_0``; releases ``X_n`` (Theorem 5.2) or ``(X_0, ..., X_n)`` (Theorem 5.4).
- ``noisy_sgd_final`` / ``noisy_sgd_path`` -- eq. (31): with ``l(theta, x) = -log p(x | theta) - log prior(theta)/N``,
  ``theta_{k+1} = theta_k - (h/s) sum_{i in S_{k+1}} grad l(theta_k, x_i) + sqrt(2h/beta) xi_{k+1}``, ``S_k`` uniform
  ``s``-subsets; releases the final state (Theorems 5.6, 5.7) or the path (Theorem 5.8). ``beta = N`` makes the
  stationary law approximately the posterior; the paper keeps ``beta`` free.

On :class:`~dpverify.models.targets.GaussianTarget` the ULA output is Gaussian with a data-independent covariance
(replace-one adjacency keeps N), so ``log_density`` and ``exact_epsilon`` are closed form: the privacy loss of
``N(mu, S)`` vs ``N(mu', S)`` is that of ``N(0, 1)`` vs ``N(Delta, 1)`` with the Mahalanobis distance
``Delta = ||S^{-1/2}(mu - mu')||`` (exact; :func:`dpverify.calculus.mechanisms.gaussian.gaussian_epsilon`).
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np

from dpverify.calculus.accounting.pld import gaussian_pld
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.calculus.tradeoff import GaussianDP
from dpverify.validation import check_delta, check_finite_array, check_positive_int, check_real
from dpverify.models.targets import GaussianTarget
from dpverify.calculus.mechanism_description import FixedSizeSampling, FullBatch, PairPrivacyLoss
from dpverify.samplers.base import Claim
from dpverify.samplers.claims import claim_from, evaluate_theorem
from dpverify.samplers.registry import register
from dpverify.samplers.schedules import check_steps
from dpverify.samplers.sgmcmc import LangevinSampler

__all__ = ["ULAFinal", "ULAPath", "NoisySGDFinal", "NoisySGDPath"]


#: ``(delta, alpha) -> values``: a sampler's theorem values at a point of the curve (``_theorem_values``)
_TheoremValues = Callable[[float, float], dict]


def _check_curve_hypotheses(theorem_id: str, values: _TheoremValues, unguaranteed: bool) -> None:
    """The hypotheses of a Bertazzi et al. 2025 theorem whose conclusion is a curve epsilon(delta) and a Renyi
    bound, checked when the sampler is built: at ``delta = 0.5``, ``alpha = 2`` (they depend on neither)."""
    evaluate_theorem(theorem_id, values(0.5, 2.0), unguaranteed)


def _curve_claim(theorem_id: str, values: _TheoremValues, delta: float, alpha: float) -> Claim:
    """The claim of a Bertazzi et al. 2025 sampler: its theorem evaluated at the model's constants ``values(delta,
    alpha)``: (epsilon, delta) at the given delta; ``details["conclusion"]`` also holds the Rényi bound ``rdp`` at
    order ``alpha``."""
    delta = check_delta(delta, allow_zero=False)
    alpha = check_real("alpha", alpha, low=1.0, low_inclusive=False)
    ev = evaluate_theorem(theorem_id, values(delta, alpha), True)
    return claim_from(ev, delta=delta)


class _ULA(LangevinSampler):
    """ULA, Bertazzi et al. 2025, eq. (25) (full-batch gradient, beta = 1): ``theta + h (grad log prior + sum_i grad
    log p(x_i | theta)) + sqrt(2h) xi``: the full-batch gradient and the Euler-Maruyama kernel. Mechanism: replace-one, full batch, each step releases ``h sum grad`` of
    sensitivity ``h K_path`` (the model's gradient-difference bound) with noise ``sqrt(2h)``."""

    def __init__(self, model, N: int, step_size: float, n_steps: int, theta0=None, unguaranteed: bool = False):
        self._setup_common(model, N, theta0, unguaranteed)
        self.h = check_real("step_size", step_size, low=0.0, low_inclusive=False)
        self.n_steps = check_steps(n_steps)
        self._setup_langevin(coefficients=self.h, noise_std=math.sqrt(2 * self.h), prior_weight=1.0, data_weight=1.0,
                             sampling=FullBatch(), clip=None, neighbouring="replace_one",
                             source="Bertazzi et al. 2025, eq. (25)")
        _check_curve_hypotheses(self.theorem_id, self._theorem_values, self.unguaranteed)

    # -- guarantee ------------------------------------------------------------
    def _theorem_values(self, delta: float, alpha: float) -> dict:
        """Assumption 5.1 constants (final state) or 5.3 (path) of the model, in the theorems' symbols."""
        c = self.model.ula_constants(self.N)
        K = c["K_path"] if self.output == "path" else c["K"]
        return {"m": c["m"], "M": c["M"], "K": K, "h": self.h, "k": self.n_steps, "delta": delta, "alpha": alpha}

    @property
    def theorem_id(self) -> str:
        return self.theorems[0]

    def guarantee(self, delta: float = 1e-5, alpha: float = 2.0) -> Claim:
        """(epsilon, delta) of Theorem 5.2 / 5.4 at the given delta (a curve epsilon(delta), :func:`_curve_claim`);
        ``details["conclusion"]`` also holds the Rényi bound ``rdp`` at order ``alpha``."""
        return _curve_claim(self.theorem_id, self._theorem_values, delta, alpha)

    # -- exact law on the Gaussian target --------------------------------------
    def _gaussian(self, who: str) -> GaussianTarget:
        if not isinstance(self.model, GaussianTarget):
            raise NotImplementedError(f"{who} is closed form only on GaussianTarget; the model is {self.model!r}")
        return self.model

    def law(self, dataset) -> tuple[np.ndarray, np.ndarray]:
        """Exact law of the final state on :class:`GaussianTarget`: (mean, diagonal covariance)."""
        model = self._gaussian("the ULA law")
        return model.ula_law(self.prepare_data(dataset).raw, self.h, self.n_steps, self.theta0)

    def _mahalanobis(self, dataset, neighbour) -> float:
        model = self._gaussian("exact_epsilon")
        X = self.prepare_data(dataset).raw
        Y = self.prepare_data(neighbour).raw
        if self.output == "path":
            # Path: log-density = sum of transition densities N(X_{k+1}; rho X_k + h b, 2h I); the two laws differ by a
            # shift h (b - b') of every innovation: Mahalanobis^2 = n |h (b - b')|^2 / (2h).
            db = model.linear_term(X) - model.linear_term(Y)
            return float(math.sqrt(self.n_steps * self.h / 2.0) * np.linalg.norm(db))
        m1, v1 = model.ula_law(X, self.h, self.n_steps, self.theta0)
        m2, v2 = model.ula_law(Y, self.h, self.n_steps, self.theta0)
        if not np.allclose(v1, v2, rtol=1e-12, atol=0):
            raise ValueError("the two ULA laws do not share a covariance; exact_epsilon needs equal dataset sizes")
        return float(np.sqrt(np.sum((m1 - m2) ** 2 / v1)))

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        """Exact epsilon of this pair at ``delta`` (both directions are the same for a Gaussian shift); on other
        models than GaussianTarget, the canary-path value of :class:`LangevinSampler` (None if unknown)."""
        if not isinstance(self.model, GaussianTarget):
            return super().exact_epsilon(dataset, neighbour, delta)
        delta = check_delta(delta, allow_zero=False)
        return float(gaussian_epsilon(delta, self._mahalanobis(dataset, neighbour)))

    def pair_guarantee(self, dataset, neighbour):
        """On GaussianTarget: ``mu``-GDP with the Mahalanobis distance ``mu`` of the two Gaussian laws (exact, final
        state or path); on other models the gradient samplers' exact pair PLD (None if unknown)."""
        if not isinstance(self.model, GaussianTarget):
            return super().pair_guarantee(dataset, neighbour)

        return GaussianDP(self._mahalanobis(dataset, neighbour))

    def pair_privacy_loss(self, dataset, neighbour):
        """On GaussianTarget the pair's law is Gaussian with a common covariance, final state or path alike: the
        exact privacy loss of ``N(Delta, 1)`` vs ``N(0, 1)`` with the Mahalanobis distance ``Delta``."""
        if not isinstance(self.model, GaussianTarget):
            return super().pair_privacy_loss(dataset, neighbour)

        mu = self._mahalanobis(dataset, neighbour)
        return PairPrivacyLoss(gaussian_pld(mu), f"exact: Gaussian pair, Mahalanobis distance {mu:.4g} "
                               f"({self.output} of ULA on GaussianTarget)", exact=True)

    def log_density(self, dataset, outputs) -> np.ndarray:
        """Normalised log density of each output under this mechanism on ``dataset`` (GaussianTarget only)."""
        model = self._gaussian("log_density")
        X = self.prepare_data(dataset).raw
        d = model.dim
        if self.output == "path":
            out = check_finite_array(outputs, "outputs", shape=(None, self.n_steps + 1, d))
            if not np.allclose(out[:, 0], self.theta0):
                raise ValueError("every path must start at theta0 (the chain's fixed start)")
            a = model.precision(X.shape[0])
            mean = (1 - self.h * a) * out[:, :-1] + self.h * model.linear_term(X)
            r = out[:, 1:] - mean
            var = 2 * self.h
            return -0.5 * np.sum(r**2, axis=(1, 2)) / var - 0.5 * self.n_steps * d * math.log(2 * math.pi * var)
        out = check_finite_array(outputs, "outputs", shape=(None, d))
        mean_final, var_final = model.ula_law(X, self.h, self.n_steps, self.theta0)
        return -0.5 * np.sum((out - mean_final) ** 2 / var_final + np.log(2 * math.pi * var_final), axis=1)


@register
class ULAFinal(_ULA):
    """ULA (Bertazzi et al. 2025, eq. 25) releasing the final state ``X_n``; Theorem 5.2 (Assumption 5.1,
    ``0 < h < 2m/L^2``), uniform in n."""

    id = "ula_final"
    theorems = ("bertazzi2025.thm52_ula_final",)
    output = "final"
    description = "ULA (Bertazzi et al. 2025, eq. 25), final state; exact Gaussian law on GaussianTarget"


@register
class ULAPath(_ULA):
    """ULA (Bertazzi et al. 2025, eq. 25) releasing the path ``(X_0, ..., X_n)``, shape ``(n, steps + 1, d)``;
    Theorem 5.4 (Assumption 5.3)."""

    id = "ula_path"
    theorems = ("bertazzi2025.thm54_ula_path",)
    output = "path"
    description = "ULA (Bertazzi et al. 2025, eq. 25), whole path; exact Gaussian law on GaussianTarget"


class _NoisySGD(LangevinSampler):
    """Noisy SGD / SGLD, Bertazzi et al. 2025, eq. (31). Mechanism: replace-one, s of N without replacement, each
    step releases ``(h/s) sum grad`` of sensitivity ``(h/s) K_ell`` with noise ``sqrt(2h/beta)``."""

    def __init__(self, model, N: int, batch_size: int, step_size: float, n_steps: int, beta: float = 1.0,
                 theta0=None, unguaranteed: bool = False):
        self._setup_common(model, N, theta0, unguaranteed)
        self.s = check_positive_int(batch_size, "batch_size")
        if self.s > self.N:
            raise ValueError(f"batch_size must be <= N = {self.N}; got {self.s}")
        self.h = check_real("step_size", step_size, low=0.0, low_inclusive=False)
        self.n_steps = check_steps(n_steps)
        self.beta = check_real("beta", beta, low=0.0, low_inclusive=False)
        self._setup_langevin(coefficients=self.h, noise_std=math.sqrt(2 * self.h / self.beta),
                             prior_weight=1.0 / self.N, data_weight=1.0 / self.s,
                             sampling=FixedSizeSampling(self.s, self.N), clip=None, neighbouring="replace_one",
                             source="Bertazzi et al. 2025, eq. (31)")
        _check_curve_hypotheses(self.theorem_id, self._theorem_values, self.unguaranteed)

    @property
    def theorem_id(self) -> str:
        if self.output == "path":
            return "bertazzi2025.thm58_sgld_path"
        c = self.model.sgd_constants(self.N)
        return "bertazzi2025.thm57_sgld_strongly_convex" if c.get("affine_l2") else "bertazzi2025.thm56_sgld_final"

    def _theorem_values(self, delta: float, alpha: float) -> dict:
        """Assumption 5.5 constants of the model in the theorems' symbols (the batch size s is ``tau`` there)."""
        c = self.model.sgd_constants(self.N)
        return {"m": c["m"], "M": c["M"], "K": c["K"], "K_ell": c["K_ell"], "h": self.h, "tau": self.s,
                "k": self.n_steps, "beta": self.beta, "N": self.N, "delta": delta, "alpha": alpha}

    def guarantee(self, delta: float = 1e-5, alpha: float = 2.0) -> Claim:
        """(epsilon, delta) of Theorem 5.6, 5.7 or 5.8 at the given delta (a curve epsilon(delta),
        :func:`_curve_claim`); ``details["conclusion"]`` also holds the Rényi bound ``rdp`` at order ``alpha``."""
        return _curve_claim(self.theorem_id, self._theorem_values, delta, alpha)



@register
class NoisySGDFinal(_NoisySGD):
    """Noisy SGD (Bertazzi et al. 2025, eq. 31) releasing the final state; Theorem 5.6 (Assumption 5.5), or 5.7
    when the data-dependent gradient part is constant in theta (then ``1/s`` better)."""

    id = "noisy_sgd_final"
    theorems = ("bertazzi2025.thm56_sgld_final", "bertazzi2025.thm57_sgld_strongly_convex")
    output = "final"
    description = "noisy SGD / SGLD with mini-batches (Bertazzi et al. 2025, eq. 31), final state"


@register
class NoisySGDPath(_NoisySGD):
    """Noisy SGD (Bertazzi et al. 2025, eq. 31) releasing the path, shape ``(n, steps + 1, d)``; Theorem 5.8."""

    id = "noisy_sgd_path"
    theorems = ("bertazzi2025.thm58_sgld_path",)
    output = "path"
    description = "noisy SGD / SGLD with mini-batches (Bertazzi et al. 2025, eq. 31), whole path"
