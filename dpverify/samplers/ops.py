"""One Posterior Sample (OPS) on conjugate models: exact (tempered) posterior draws.

Wang et al. 2015, Algorithm 1: with sup |log p(x | theta)| <= B, set rho = min(1, eps / (4B)), temper the
log-likelihood *and* the prior by rho, and release one draw of the tempered posterior. By Theorem 1
(two factors each <= e^{2 rho B}, supplement proof) this is min(eps, 4B)-DP. Foulds et al. 2016,
Theorem 2 gives the tighter 2C with C = sup |log p(x'|theta) - log p(x|theta)|; their eq. 14 tempers at
T = 2C/eps (``calibration="foulds2016"``: rho = min(1, eps / (2C))).

Samplers: ``ops_beta_bernoulli``, ``ops_dirichlet_categorical``, ``ops_gaussian_mean``. Each ``sample``
is vectorised (no loop per draw); the one-dimensional ones also give the mechanism protocol's
``log_density`` (normalised truncated density) and ``exact_epsilon``:

- delta = 0: sup over the support of |log p(theta|D) - log p(theta|D')|. For these families the log
  ratio r(theta) has at most one stationary point (beta: r = da log theta + db log(1 - theta) + c;
  normal: a quadratic), so the sup is attained at an end of the support or at that point, found in
  closed form (:func:`_stationary_point`).
- delta > 0: the hockey-stick divergence sum over the (at most two) intervals where r > eps of
  P(I) - e^eps Q(I), with interval probabilities from the exact truncated CDFs; the crossing points by
  ``brentq`` on the monotone pieces; eps(delta) by ``brentq`` on that non-increasing function.
"""
from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq

from dpverify.validation import check_delta, check_epsilon, check_positive_int
from dpverify.models.beta_bernoulli import BetaBernoulli, TruncatedBeta
from dpverify.models.dirichlet_categorical import DirichletCategorical
from dpverify.models.gaussian_mean import GaussianMean
from dpverify.samplers.base import Claim, Sampler
from dpverify.samplers.claims import claim_from_item, evaluate_item
from dpverify.samplers.registry import register

__all__ = [
    "tempering",
    "pure_epsilon_1d",
    "hockey_stick_1d",
    "exact_epsilon_1d",
    "OPSBetaBernoulli",
    "OPSDirichletCategorical",
    "OPSGaussianMean",
]

CALIBRATIONS = ("wang2015", "foulds2016")


def tempering(epsilon: float | None, B: float, C: float, calibration: str = "wang2015") -> float:
    """rho = min(1, eps/(4B)) (Wang et al. 2015, Alg. 1 step 1) or min(1, eps/(2C)) (Foulds et al. 2016,
    eq. 14 with T = 1/rho = 2C/eps, capped at the true posterior); 1 when no target epsilon is given."""
    if epsilon is None:
        return 1.0
    if calibration not in CALIBRATIONS:
        raise ValueError(f"calibration must be one of {CALIBRATIONS}; got {calibration!r}")
    return min(1.0, epsilon / (4.0 * B)) if calibration == "wang2015" else min(1.0, epsilon / (2.0 * C))


# -- exact privacy of a pair of one-dimensional truncated posteriors -------------------------------
def _stationary_point(p, q) -> float | None:
    """The zero of d/dtheta [log p - log q] inside (lo, hi), if any (closed form per family)."""
    if isinstance(p, TruncatedBeta):
        da, db = p.a - q.a, p.b - q.b  # r'(t) = da/t - db/(1 - t)
        t = da / (da + db) if da + db != 0 and da * db > 0 else None
    else:
        pp, pq = 1.0 / p.sd**2, 1.0 / q.sd**2  # r'(t) = -pp (t - mp) + pq (t - mq)
        t = (pp * p.mean - pq * q.mean) / (pp - pq) if pp != pq else None
    return t if t is not None and p.lo < t < p.hi else None


def _log_ratio(p, q):
    return lambda t: float(p.logpdf(t) - q.logpdf(t))


def pure_epsilon_1d(p, q) -> float:
    """sup_theta |log p(theta) - log q(theta)| over the common support [lo, hi] (exact; see module docstring)."""
    r = _log_ratio(p, q)
    points = [p.lo, p.hi] + [t for t in [_stationary_point(p, q)] if t is not None]
    return max(abs(r(t)) for t in points)


def hockey_stick_1d(p, q, epsilon: float) -> float:
    """delta(eps) = integral of max(0, p - e^eps q) = sum over intervals I where log p - log q > eps of
    P(I) - e^eps Q(I) (Balle et al. 2018, hockey-stick divergence)."""
    r = _log_ratio(p, q)
    mid = _stationary_point(p, q)
    knots = [p.lo] + ([mid] if mid is not None else []) + [p.hi]
    total = 0.0
    for a, b in zip(knots[:-1], knots[1:]):  # r is monotone on each piece
        ga, gb = r(a) - epsilon, r(b) - epsilon
        if ga <= 0 and gb <= 0:
            continue
        if ga > 0 and gb > 0:
            s, t = a, b
        else:
            c = brentq(lambda x: r(x) - epsilon, a, b, xtol=1e-15, rtol=1e-14)
            s, t = (c, b) if gb > 0 else (a, c)
        total += float(p.interval_probability(s, t)) - math.exp(epsilon) * float(q.interval_probability(s, t))
    return max(0.0, total)


def exact_epsilon_1d(p, q, delta: float) -> float:
    """Smallest eps >= 0 with delta_{p,q}(eps) <= delta and delta_{q,p}(eps) <= delta (both directions)."""
    d = check_delta(delta)
    top = pure_epsilon_1d(p, q)
    if d == 0.0 or top == 0.0:
        return top
    worst = lambda e: max(hockey_stick_1d(p, q, e), hockey_stick_1d(q, p, e)) - d  # noqa: E731
    if worst(0.0) <= 0.0:
        return 0.0
    return float(brentq(worst, 0.0, top, xtol=1e-12, rtol=1e-12))


# -- the samplers -----------------------------------------------------------------------------
class _OPS(Sampler):
    """Common part: tempering, claim (Wang Thm 1 / Alg. 1, with Foulds Thm 2 in ``details``)."""

    output = "sample"
    theorems = ("wang2015.thm1_ops_pure_dp", "wang2015.alg1_ops_scaled", "foulds2016.thm2_posterior_2c")

    def _setup(self, model, epsilon, calibration, unguaranteed) -> None:
        self._model = model
        self.epsilon = None if epsilon is None else check_epsilon(epsilon)
        if calibration not in CALIBRATIONS:
            raise ValueError(f"calibration must be one of {CALIBRATIONS}; got {calibration!r}")
        self.calibration = calibration
        self.unguaranteed = bool(unguaranteed)
        const = model.constants
        self.B, self.C = const.B, const.C
        self.rho = tempering(self.epsilon, self.B, self.C, calibration)
        u = self.unguaranteed
        self._thm1 = evaluate_item("wang2015.thm1_ops_pure_dp", unguaranteed=u, B=self.B)
        self._foulds = evaluate_item("foulds2016.thm2_posterior_2c", unguaranteed=u, C=self.C)
        self._lipschitz = (None if const.L_x is None or const.R is None
                           else evaluate_item("wang2015.thm1_ops_lipschitz", unguaranteed=u, L=const.L_x, R=const.R))
        self._alg1 = (None if self.epsilon is None or calibration != "wang2015"
                      else evaluate_item("wang2015.alg1_ops_scaled", unguaranteed=u, epsilon=self.epsilon, B=self.B))
        self._temperature = (None if self.epsilon is None or calibration != "foulds2016"
                             else evaluate_item("foulds2016.eq10_temperature", unguaranteed=u,
                                                epsilon=self.epsilon, C=self.C))

    @property
    def model(self):
        return self._model

    def guarantee(self) -> Claim:
        """epsilon = 4B (no target; Wang Thm 1), min(eps, 4B) (Alg. 1), or min(eps, 2C) (Foulds eq. 14 with
        Thm 2 applied to the tempered likelihood, whose C is rho C). ``details`` has Foulds' 2C bound and, for
        models with bounded data, Wang's 4 L_x R (both times rho)."""
        details = {"rho": self.rho, "B": self.B, "C": self.C, "calibration": self.calibration}
        if self._foulds is not None:
            details["foulds2016_thm2_epsilon"] = self.rho * float(self._foulds.conclusion["epsilon"])
        if self._lipschitz is not None:  # Wang Thm 1, second part (4 L_x R); tempering scales it by rho
            details["wang2015_thm1_lipschitz_epsilon"] = self.rho * float(self._lipschitz.conclusion["epsilon"])
        if self.epsilon is None:
            return claim_from_item(self._thm1, "wang2015.thm1_ops_pure_dp", details=details)
        if self.calibration == "wang2015":
            if self._alg1 is None:  # _setup evaluates Alg. 1 whenever epsilon is given with this calibration
                raise RuntimeError("the Alg. 1 evaluation is missing: _setup was not run with this epsilon")
            details["alg1_rho"] = float(self._alg1.conclusion["rho"])
            return claim_from_item(self._alg1, "wang2015.alg1_ops_scaled", details=details)
        return claim_from_item(self._foulds, "foulds2016.thm2_posterior_2c",
                               epsilon=self.rho * float(self._foulds.conclusion["epsilon"]), delta=0.0, details=details)


class _OPS1d(_OPS):
    """One-dimensional conjugate OPS: the tempered posterior is a frozen truncated law with
    ``rvs``, ``logpdf`` and ``interval_probability``."""

    def posterior(self, dataset):
        return self._model.posterior(dataset, self.rho)

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        n = check_positive_int(n, "n")
        return self.posterior(dataset).rvs(n, self._rng(rng))[:, None]

    def log_density(self, dataset, outputs) -> np.ndarray:
        """Normalised log density of each output (n, 1) under the tempered truncated posterior."""
        out = np.asarray(outputs, dtype=float)
        if out.ndim != 2 or out.shape[1] != 1:
            raise ValueError(f"outputs must have shape (n, 1); got {out.shape}")
        return self.posterior(dataset).logpdf(out[:, 0])

    def exact_epsilon(self, dataset, neighbour, delta: float = 0.0) -> float:
        """Exact epsilon of the pair (D, D') at ``delta`` (see the module docstring)."""
        return exact_epsilon_1d(self.posterior(dataset), self.posterior(neighbour), delta)


@register
class OPSBetaBernoulli(_OPS1d):
    """OPS on the truncated beta-Bernoulli model (Foulds et al. 2016, eq. 15): B = -log a0, C = log((1-a0)/a0).
    Output: p, shape (n, 1)."""

    id = "ops_beta_bernoulli"
    description = "one posterior sample, beta-Bernoulli truncated to [a0, 1-a0], optional tempering rho"

    def __init__(self, a0: float = 0.05, alpha0: float = 1.0, beta0: float = 1.0, epsilon: float | None = None,
                 calibration: str = "wang2015", unguaranteed: bool = False) -> None:
        self.a0, self.alpha0, self.beta0 = a0, alpha0, beta0
        self._setup(BetaBernoulli(a0, alpha0, beta0), epsilon, calibration, unguaranteed)

    def sample_many(self, statistics, rng) -> np.ndarray:
        """One draw per row of sufficient statistics (m, 2) = (n1, n0): for studies over many datasets."""
        return self._model.sample_posterior_batch(statistics, self._rng(rng), self.rho)


@register
class OPSGaussianMean(_OPS1d):
    """OPS on the bounded Gaussian-mean model (|x| <= R, |theta| <= Theta, known sigma). Output: theta, (n, 1)."""

    id = "ops_gaussian_mean"
    description = "one posterior sample, Gaussian mean with bounded data and parameter, optional tempering rho"

    def __init__(self, sigma: float = 1.0, R: float = 1.0, Theta: float = 2.0, mu0: float = 0.0, tau0: float = 1.0,
                 epsilon: float | None = None, calibration: str = "wang2015", unguaranteed: bool = False) -> None:
        self.sigma, self.R, self.Theta, self.mu0, self.tau0 = sigma, R, Theta, mu0, tau0
        self._setup(GaussianMean(sigma, R, Theta, mu0, tau0), epsilon, calibration, unguaranteed)


@register
class OPSDirichletCategorical(_OPS):
    """OPS on the Dirichlet-categorical model truncated to theta_k >= a0. Output: theta, shape (n, K).
    No ``log_density``/``exact_epsilon``: the truncated Dirichlet normaliser has no closed form."""

    id = "ops_dirichlet_categorical"
    description = "one posterior sample, Dirichlet-categorical truncated to theta_k >= a0 (rejection), optional rho"

    def __init__(self, K: int = 3, a0: float = 0.05, alpha=1.0, epsilon: float | None = None,
                 calibration: str = "wang2015", unguaranteed: bool = False) -> None:
        self.K, self.a0, self.alpha = K, a0, alpha
        self._setup(DirichletCategorical(K, a0, alpha), epsilon, calibration, unguaranteed)

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        return self._model.sample_posterior(dataset, check_positive_int(n, "n"), self._rng(rng), self.rho)
