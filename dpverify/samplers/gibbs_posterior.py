"""Reference samplers: the Gibbs posterior (Minami et al. 2016) and the regularised exponential mechanism (Gopi et al.
2022), exact draws on the linear-loss instance where both are Gaussian.

**Model.** Records ``x_i`` in R^d with ``|x_i| <= R`` (a 1-d dataset is a vector), the linear loss
``l(theta, x) = -<x, theta>`` -- convex and R-Lipschitz in theta, with unbounded sensitivity on R^d (the setting of
"differential privacy without sensitivity").

- ``gibbs_posterior``: ``G_D(theta) ∝ exp(-beta sum_i l(theta, x_i)) N(theta; 0, I / m)`` = ``N(beta sum_i x_i / m,
  I / m)``. Claim: ``minami2016.thm_gibbs_posterior_dp`` (``claim="theorem"``, the default: (epsilon, delta) when
  ``beta <= beta_max(epsilon, delta)``, epsilon <= 1; ``beta=None`` calibrates beta to beta_max) or
  ``minami2016.lem_gibbs_privacy_loss_concentration`` (``claim="concentration"``: epsilon = a^2/2 + a sqrt(2
  log(1/delta)), a = 2 beta R / sqrt(m), any beta).
- ``gibbs_posterior_regularized_em``: ``pi_D(theta) ∝ exp(-k (F_D(theta) + mu |theta|^2 / 2))`` with ``F_D = (1/N)
  sum_i l(., x_i)`` (G = R-Lipschitz per record) = ``N(sum_i x_i / (N mu), I / (k mu))``. Claim:
  ``gopi2022.thm_regularized_em_gdp``, mu_gdp-GDP with mu_gdp = 2 R sqrt(k) / (N sqrt(mu)), read at the constructor's
  ``delta`` as (epsilon(delta), delta) (the GDP curve's exact epsilon); ``details["mu_gdp"]`` carries the curve.

Both laws are ``N(s sum_i x_i, I / P)`` with a data-independent precision P (``s = beta / m``, ``P = m``; ``s = 1 / (N
mu)``, ``P = k mu``): a pair of datasets of the same size is a Gaussian shift, exactly ``mu_pair``-GDP with the
Mahalanobis distance ``mu_pair = s |sum x - sum x'| sqrt(P)`` (Dong, Roth, Su 2022, Thm 2.7), at most ``2 R s
sqrt(P)`` (one record moved from ``R e`` to ``-R e``). Abilities: :meth:`sample` (vectorised: one normal draw per
output), :meth:`log_density`, :meth:`exact_epsilon` (the Gaussian hockey stick), :meth:`pair_guarantee`
(:class:`~dpverify.calculus.tradeoff.GaussianDP`, so the audit's curve test runs), :meth:`pair_privacy_loss` (the
exact Gaussian PLD: the budget ceiling applies) and :meth:`account` (the worst pair's exact epsilon: the mechanism's).
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
from dpverify.samplers.base import Sampler
from dpverify.samplers.claims import claim_from_item, evaluate_item
from dpverify.samplers.registry import register
from dpverify.validation import check_delta, check_finite_array, check_positive_int, check_real

__all__ = ["GibbsPosterior", "RegularizedExponentialMechanism", "CLAIMS"]

#: The statements ``gibbs_posterior`` can claim.
CLAIMS = ("theorem", "concentration")
_THEOREM = "minami2016.thm_gibbs_posterior_dp"
_LEMMA = "minami2016.lem_gibbs_privacy_loss_concentration"
_GOPI = "gopi2022.thm_regularized_em_gdp"


class _GaussianLinearLoss(Sampler):
    """Common part: the law ``N(scale sum_i x_i, I / precision)`` of records in the R-ball of R^dim."""

    output = "sample"
    R: float
    dim: int
    _scale: float
    _precision: float

    # -- data ---------------------------------------------------------------------------------------------------
    def records(self, dataset: Any) -> np.ndarray:
        """The records as an ``(n, dim)`` array (a vector is n one-dimensional records); a ``ValueError`` naming
        ``dataset`` when they are not finite, of the wrong dimension, empty, or outside the ball ``|x| <= R``."""
        x = check_finite_array(dataset, "dataset")
        if x.ndim == 1 and self.dim == 1:
            x = x[:, None]
        if x.ndim != 2 or x.shape[1] != self.dim or x.shape[0] == 0:
            raise ValueError(f"dataset must be a non-empty array of shape (n, {self.dim})"
                             + (" or (n,)" if self.dim == 1 else "") + f"; got shape {np.shape(dataset)}")
        norms = np.linalg.norm(x, axis=1)
        if np.any(norms > self.R * (1 + 1e-12)):
            raise ValueError(f"dataset: every record must have |x| <= R = {self.R:g} (the loss's Lipschitz constant); "
                             f"got a record of norm {float(norms.max()):g}")
        return x

    def law(self, dataset: Any) -> tuple[np.ndarray, float]:
        """``(mean, precision)`` of the released law on ``dataset``: ``(scale sum_i x_i, P)``."""
        return self._scale * self.records(dataset).sum(axis=0), self._precision

    # -- mechanism ------------------------------------------------------------------------------------------------
    def sample(self, dataset: Any, n: int, rng: Any) -> np.ndarray:
        """``n`` independent draws, shape ``(n, dim)``: ``mean + xi / sqrt(P)``, xi standard normal."""
        mean, prec = self.law(dataset)
        z = self._rng(rng).standard_normal((check_positive_int(n, "n"), self.dim))
        return mean[None, :] + z / math.sqrt(prec)

    def log_density(self, dataset: Any, outputs: Any) -> np.ndarray:
        """Normalised log density of each output (shape ``(n, dim)``) under the law on ``dataset``."""
        mean, prec = self.law(dataset)
        out = check_finite_array(outputs, "outputs", shape=(None, self.dim))
        return -0.5 * prec * np.sum((out - mean) ** 2, axis=1) + 0.5 * self.dim * math.log(prec / (2 * math.pi))

    # -- exact privacy --------------------------------------------------------------------------------------------
    def pair_mu(self, dataset: Any, neighbour: Any) -> float:
        """The pair's exact GDP parameter: the Mahalanobis distance ``scale |sum x - sum x'| sqrt(P)`` of the two laws
        (a ``ValueError`` when the datasets differ in size: the replace-one adjacency the claims are about)."""
        x, y = self.records(dataset), self.records(neighbour)
        if x.shape != y.shape:
            raise ValueError(f"dataset and neighbour must have the same number of records (replace-one); got "
                             f"{x.shape[0]} and {y.shape[0]}")
        return float(self._scale * np.linalg.norm(x.sum(axis=0) - y.sum(axis=0)) * math.sqrt(self._precision))

    @property
    def worst_mu(self) -> float:
        """The mechanism's GDP parameter: ``2 R scale sqrt(P)`` (one record moved across the ball)."""
        return 2.0 * self.R * self._scale * math.sqrt(self._precision)

    def exact_epsilon(self, dataset: Any, neighbour: Any, delta: float) -> float:
        """The pair's exact epsilon at ``delta`` (the Gaussian shift's hockey stick, both directions alike); ``inf`` at
        delta = 0 for different laws, 0 for equal ones."""
        d, mu = check_delta(delta), self.pair_mu(dataset, neighbour)
        if mu == 0.0:
            return 0.0
        return math.inf if d == 0.0 else float(gaussian_epsilon(d, mu))

    def pair_guarantee(self, dataset: Any, neighbour: Any) -> GaussianDP:
        """The pair's exact trade-off curve: ``GaussianDP(mu_pair)``."""
        return GaussianDP(self.pair_mu(dataset, neighbour))

    def pair_privacy_loss(self, dataset: Any, neighbour: Any) -> PairPrivacyLoss | None:
        """The pair's exact privacy-loss law (Gaussian, N(mu^2/2, mu^2)); None for equal laws (no loss)."""
        mu = self.pair_mu(dataset, neighbour)
        if mu == 0.0:
            return None
        return PairPrivacyLoss(gaussian_pld(mu), f"exact: Gaussian pair, Mahalanobis distance {mu:.4g} ({self.id})",
                               exact=True)

    def account(self, delta: float) -> Conversion:
        """The mechanism's exact epsilon at ``delta``: the worst pair's, ``worst_mu``-GDP (every pair is a Gaussian
        shift of at most that distance)."""
        d = check_delta(delta, allow_zero=False)
        return Conversion(float(gaussian_epsilon(d, self.worst_mu)), d, method="gdp")


@register
class GibbsPosterior(_GaussianLinearLoss):
    """The Gibbs posterior ``N(beta sum_i x_i / m, I / m)`` of the linear loss with the prior ``N(0, I / m)`` (Minami
    et al. 2016). Output: theta, shape (n, dim)."""

    id = "gibbs_posterior"
    theorems = (_THEOREM, _LEMMA)
    description = ("Gibbs posterior exp(-beta sum loss) x N(0, I/m) of a linear R-Lipschitz loss (Minami et al. 2016); "
                   "exact Gaussian law")

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, R: float = 1.0, m: float = 1.0,
                 beta: float | None = None, dim: int = 1, claim: str = "theorem", unguaranteed: bool = False) -> None:
        if claim not in CLAIMS:
            raise ValueError(f"claim must be one of {CLAIMS}; got {claim!r}")
        self.epsilon = check_real("epsilon", epsilon, low=0.0, low_inclusive=False)
        self.delta = check_delta(delta, allow_zero=False)
        self.R = check_real("R", R, low=0.0, low_inclusive=False)
        self.m = check_real("m", m, low=0.0, low_inclusive=False)
        self.dim = check_positive_int(dim, "dim")
        self.claim = claim
        self.unguaranteed = bool(unguaranteed)
        if beta is None:  # the theorem's calibration, a hair below beta_max so that the hypothesis holds in floats
            limit = self.epsilon / (2 * self.R) * math.sqrt(self.m / (1 + 2 * math.log(1 / self.delta)))
            self.beta = limit * (1 - 1e-12)
        else:
            self.beta = check_real("beta", beta, low=0.0, low_inclusive=False)
        self._scale, self._precision = self.beta / self.m, self.m
        self._evaluate()  # hypotheses checked at construction (HypothesisError unless unguaranteed)

    def _evaluate(self):
        if self.claim == "theorem":
            return evaluate_item(_THEOREM, unguaranteed=self.unguaranteed, epsilon=self.epsilon, delta=self.delta,
                                 beta=self.beta, L=self.R, m=self.m)
        return evaluate_item(_LEMMA, unguaranteed=self.unguaranteed, delta=self.delta, beta=self.beta, L=self.R,
                             m=self.m)

    def guarantee(self) -> Claim:
        """``claim="theorem"``: (epsilon, delta) of Minami et al.'s condition (``beta <= beta_max``, epsilon <= 1);
        ``claim="concentration"``: the lemma's epsilon at (beta, R, m, delta). ``details``: beta, beta_max (theorem) and
        the mechanism's GDP parameter ``worst_mu`` (exact)."""
        ev = self._evaluate()
        theorem = _THEOREM if self.claim == "theorem" else _LEMMA
        eps = self.epsilon if self.claim == "theorem" else None
        return claim_from_item(ev, theorem, epsilon=eps, delta=self.delta,
                               details={"beta": self.beta, "worst_mu": self.worst_mu, "claim": self.claim})


@register
class RegularizedExponentialMechanism(_GaussianLinearLoss):
    """The regularised exponential mechanism ``exp(-k (F_D + mu |theta|^2 / 2))`` of the mean linear loss (Gopi et al.
    2022) = ``N(sum_i x_i / (N mu), I / (k mu))``. Datasets of exactly N records. Output: theta, shape (n, dim)."""

    id = "gibbs_posterior_regularized_em"
    theorems = (_GOPI,)
    description = ("regularised exponential mechanism exp(-k(F + mu|x|^2/2)), F the mean linear G-Lipschitz loss "
                   "(Gopi et al. 2022); exact Gaussian law, GDP")

    def __init__(self, k: float = 100.0, mu: float = 1.0, R: float = 1.0, N: int = 10, dim: int = 1,
                 delta: float = 1e-5, unguaranteed: bool = False) -> None:
        self.k = check_real("k", k, low=0.0, low_inclusive=False)
        self.mu = check_real("mu", mu, low=0.0, low_inclusive=False)
        self.R = check_real("R", R, low=0.0, low_inclusive=False)
        self.N = check_positive_int(N, "N")
        self.dim = check_positive_int(dim, "dim")
        self.delta = check_delta(delta, allow_zero=False)
        self.unguaranteed = bool(unguaranteed)
        self._scale, self._precision = 1.0 / (self.N * self.mu), self.k * self.mu

    def records(self, dataset: Any) -> np.ndarray:
        x = super().records(dataset)
        if x.shape[0] != self.N:
            raise ValueError(f"dataset must have exactly N = {self.N} records; got {x.shape[0]}")
        return x

    def _evaluate(self):
        return evaluate_item(_GOPI, unguaranteed=self.unguaranteed, L=self.R, m=self.mu, beta=self.k, N=self.N)

    @property
    def mu_gdp(self) -> float:
        """The claimed GDP parameter, read from the catalogue item."""
        return float(self._evaluate().conclusion["mu_gdp"])

    def guarantee(self) -> Claim:
        """mu_gdp-GDP (``gopi2022.thm_regularized_em_gdp``) read at the constructor's ``delta``: (epsilon(delta),
        delta) of the GDP curve (exact conversion, Dong, Roth, Su 2022, Cor. 2.13). ``details["mu_gdp"]``: the curve."""
        ev = self._evaluate()
        mu = float(ev.conclusion["mu_gdp"])
        return claim_from_item(ev, _GOPI, epsilon=float(gaussian_epsilon(self.delta, mu)), delta=self.delta,
                               details={"mu_gdp": mu, "curve": f"{mu:.6g}-GDP"})

    def claimed_curve(self) -> GaussianDP:
        """The claim as the trade-off curve it is: ``GaussianDP(mu_gdp)``."""
        return GaussianDP(self.mu_gdp)
