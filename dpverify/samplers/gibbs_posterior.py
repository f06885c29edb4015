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

- ``gibbs_posterior_ula``: K steps of the unadjusted Langevin algorithm on the Gibbs posterior's potential (1-d), an
  approximate sampler: its law is ``N(rho^K theta_0 + (1 - rho^K) beta sum_i x_i / m, v_K)``, rho = 1 - h m. Claim:
  Minami's (epsilon, delta) of the Gibbs posterior (as ``gibbs_posterior`` claims it) transferred by
  ``minami2016.prop_approximate_sampling`` to (epsilon, delta + (1 + e^epsilon) gamma), gamma the exact supremum over
  datasets of TV(ULA's law, the Gibbs posterior).

All three laws are ``N(s sum_i x_i, I / P)`` (ULA's plus a data-independent offset) with a data-independent
precision P (``s = beta / m``, ``P = m``; ``s = 1 / (N mu)``, ``P = k mu``; ``s = (1 - rho^K) beta / m``,
``P = 1 / v_K``): a pair of datasets of the same size is a Gaussian shift, exactly ``mu_pair``-GDP with the
Mahalanobis distance ``mu_pair = s |sum x - sum x'| sqrt(P)`` (Dong, Roth, Su 2022, Thm 2.7), at most ``2 R s
sqrt(P)`` (one record moved from ``R e`` to ``-R e``). Abilities: :meth:`sample` (vectorised: one normal draw per
output; ULA: a loop over its K steps), :meth:`log_density`, :meth:`exact_epsilon` (the Gaussian hockey stick),
:meth:`pair_guarantee` (:class:`~dpverify.calculus.tradeoff.GaussianDP`, so the audit's curve test runs),
:meth:`pair_privacy_loss` (the exact Gaussian PLD: the budget ceiling applies) and :meth:`account` (the worst pair's
exact epsilon: the mechanism's).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpverify.calculus.accounting.pld import gaussian_pld
from dpverify.calculus.approximate_sampling import check_ula_step, gaussian_tv, ula_contraction, ula_variance
from dpverify.calculus.guarantees import Claim, Conversion
from dpverify.calculus.mechanism_description import PairPrivacyLoss
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.calculus.tradeoff import GaussianDP
from dpverify.samplers.base import Sampler
from dpverify.samplers.claims import claim_from_item, evaluate_item
from dpverify.samplers.registry import register
from dpverify.validation import check_delta, check_finite_array, check_positive_int, check_real

__all__ = ["GibbsPosterior", "RegularizedExponentialMechanism", "GibbsPosteriorULA", "CLAIMS"]

#: The statements ``gibbs_posterior`` can claim.
CLAIMS = ("theorem", "concentration")
_THEOREM = "minami2016.thm_gibbs_posterior_dp"
_LEMMA = "minami2016.lem_gibbs_privacy_loss_concentration"
_GOPI = "gopi2022.thm_regularized_em_gdp"
_TRANSFER = "minami2016.prop_approximate_sampling"


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


@register
class GibbsPosteriorULA(_GaussianLinearLoss):
    """The unadjusted Langevin algorithm (ULA) on the Gibbs posterior's potential, released after K steps: an
    approximate sampler of ``gibbs_posterior`` (Minami et al. 2016, approximate sampling by Langevin Monte Carlo).

    **Chain.** One-dimensional records ``|x_i| <= R``, exactly N of them, potential ``U_D(theta) = -beta sum_i x_i
    theta + m theta^2 / 2`` (the linear loss and the prior N(0, 1/m)); from the data-independent ``theta0``,

        theta_{k+1} = theta_k - h (m theta_k - beta S) + sqrt(2 h) xi_{k+1},     S = sum_i x_i,  0 < h < 2 / m,

    run for all outputs at once (a loop over the K steps only). Its K-th state is exactly ``N(rho^K theta0 +
    (1 - rho^K) beta S / m, v_K)`` with ``rho = 1 - h m``, ``v_K = 2 h (1 - rho^{2K}) / (1 - rho^2)``
    (:mod:`dpverify.calculus.approximate_sampling`); a pair is a Gaussian shift of Mahalanobis distance
    ``(1 - rho^K) beta |S - S'| / (m sqrt(v_K))`` (exact_epsilon, pair_guarantee, pair_privacy_loss, account as for
    the Gibbs posterior).

    **Claim.** The Gibbs posterior's (epsilon, delta) as ``gibbs_posterior`` claims it (``claim="theorem"``: Minami's
    condition, beta calibrated to beta_max(epsilon, delta) when ``beta=None``; ``"concentration"``: the lemma's
    epsilon), transferred by ``minami2016.prop_approximate_sampling``: (epsilon, delta + (1 + e^epsilon) gamma) with
    ``gamma = sup_D TV(A_D, G_D)``. The claim must not depend on the dataset, so gamma is the supremum over every
    dataset of N records in [-R, R]: the TV of ``N(rho^K (theta0 - c), v_K)`` and ``N(0, 1/m)`` depends on D only
    through ``c = beta S / m`` and increases with the offset ``|rho^K (theta0 - c)|`` (proof in the calculus module),
    so it is largest at the extreme sum, offset ``|rho|^K (|theta0| + beta N R / m)`` (exact, closed form). A
    transferred delta >= 1 (no guarantee) is a ``ValueError`` naming step_size and n_steps, unless ``unguaranteed``
    (the claim is then (epsilon, 1), marked unguaranteed). Output: theta, shape (n, 1).
    """

    id = "gibbs_posterior_ula"
    output = "final"
    theorems = (_TRANSFER, _THEOREM, _LEMMA)
    description = ("ULA (K steps, step h) on the Gibbs posterior of a linear R-Lipschitz loss (Minami et al. 2016, "
                   "approximate sampling): exact Gaussian law; claim transferred through the TV")

    def __init__(self, epsilon: float = 1.0, delta: float = 1e-5, R: float = 1.0, m: float = 1.0,
                 beta: float | None = None, N: int = 10, step_size: float = 0.01, n_steps: int = 1000,
                 theta0: float | None = 0.0, claim: str = "theorem", unguaranteed: bool = False) -> None:
        self._gibbs = GibbsPosterior(epsilon=epsilon, delta=delta, R=R, m=m, beta=beta, dim=1, claim=claim,
                                     unguaranteed=unguaranteed)
        self.epsilon, self.delta, self.R, self.m = (self._gibbs.epsilon, self._gibbs.delta, self._gibbs.R,
                                                    self._gibbs.m)
        self.beta, self.claim, self.unguaranteed = self._gibbs.beta, claim, bool(unguaranteed)
        self.dim = 1
        self.N = check_positive_int(N, "N")
        self.step_size = check_ula_step(step_size, self.m, "step_size")
        self.n_steps = check_positive_int(n_steps, "n_steps")
        self.theta0 = 0.0 if theta0 is None else check_real("theta0", theta0)
        self._rho_k, one_minus = ula_contraction(self.step_size, self.m, self.n_steps)
        self._variance = ula_variance(self.step_size, self.m, self.n_steps)
        self._scale, self._precision = one_minus * self.beta / self.m, 1.0 / self._variance
        self.gamma = self.tv_sup()
        transferred = self._transferred_delta()
        if not transferred < 1.0 and not self.unguaranteed:
            raise ValueError(
                f"step_size = {self.step_size:g}, n_steps = {self.n_steps}: the transferred delta = delta + (1 + "
                f"e^epsilon) gamma = {transferred:.4g} is >= 1 (gamma = sup_D TV = {self.gamma:.4g}): no guarantee; "
                f"take a smaller step_size (gamma ~ 0.12 step_size m at stationarity) or more n_steps")
        self.guarantee()  # the transfer's hypotheses checked at construction (HypothesisError unless unguaranteed)

    # -- the law --------------------------------------------------------------------------------------------------
    def records(self, dataset: Any) -> np.ndarray:
        x = super().records(dataset)
        if x.shape[0] != self.N:
            raise ValueError(f"dataset must have exactly N = {self.N} records; got {x.shape[0]}")
        return x

    def law(self, dataset: Any) -> tuple[np.ndarray, float]:
        """``(mean, precision)`` of the K-th state: ``(rho^K theta0 + (1 - rho^K) beta S / m, 1 / v_K)``."""
        mean, prec = super().law(dataset)
        return mean + self._rho_k * self.theta0, prec

    def sample(self, dataset: Any, n: int, rng: Any) -> np.ndarray:
        """``n`` independent chains of K ULA steps from theta0 (vectorised over chains), their K-th states, shape
        ``(n, 1)``."""
        s = self.records(dataset).sum(axis=0)
        n = check_positive_int(n, "n")
        gen = self._rng(rng)
        h, noise = self.step_size, math.sqrt(2.0 * self.step_size)
        theta = np.full((n, 1), self.theta0)
        for _ in range(self.n_steps):
            theta = theta - h * (self.m * theta - self.beta * s) + noise * gen.standard_normal((n, 1))
        return theta

    def tv_to_gibbs(self, dataset: Any) -> float:
        """The exact ``TV(A_D, G_D)`` of this chain's law and the Gibbs posterior ``N(beta S / m, 1 / m)`` on
        ``dataset``."""
        center = self.beta * float(self.records(dataset).sum()) / self.m
        mean = float(self.law(dataset)[0][0])
        return gaussian_tv(mean, math.sqrt(self._variance), center, 1.0 / math.sqrt(self.m))

    def tv_sup(self) -> float:
        """``sup_D TV(A_D, G_D)`` over the datasets of N records in [-R, R]: the TV at the offset ``|rho|^K
        (|theta0| + beta N R / m)`` (class docstring)."""
        offset = abs(self._rho_k) * (abs(self.theta0) + self.beta * self.N * self.R / self.m)
        return gaussian_tv(offset, math.sqrt(self._variance), 0.0, 1.0 / math.sqrt(self.m))

    # -- the claim ------------------------------------------------------------------------------------------------
    def _transferred_delta(self) -> float:
        base = self._gibbs.guarantee()
        return base.delta + (1.0 + math.exp(base.epsilon)) * self.gamma

    def guarantee(self) -> Claim:
        """(epsilon, delta + (1 + e^epsilon) gamma): the Gibbs posterior's claim (``gibbs_posterior``'s, same
        parameters) transferred by ``minami2016.prop_approximate_sampling`` with gamma = :meth:`tv_sup`.
        ``guaranteed`` when both items' hypotheses hold; ``details``: gamma, the Gibbs claim, beta, the chain's
        ``worst_mu`` (exact)."""
        base = self._gibbs.guarantee()
        ev = evaluate_item(_TRANSFER, unguaranteed=self.unguaranteed, epsilon=base.epsilon, delta=base.delta,
                           R_n=self.gamma)
        hypotheses = {**{f"{base.theorem}:{k}": v for k, v in base.hypotheses.items()},
                      **{f"{_TRANSFER}:{k}": v for k, v in ev.hypotheses.items()}}
        details = {"values": dict(ev.values), "conclusion": dict(ev.conclusion), "gamma": self.gamma,
                   "gibbs_claim": {"theorem": base.theorem, "epsilon": base.epsilon, "delta": base.delta},
                   "beta": self.beta, "worst_mu": self.worst_mu, "claim": self.claim}
        transferred = float(ev.conclusion["delta"])
        return Claim(float(ev.conclusion["epsilon"]), min(1.0, transferred), _TRANSFER,
                     bool(base.guaranteed and ev.guaranteed and transferred < 1.0), hypotheses, details)
