"""Foulds et al. 2016: the Laplace mechanism on sufficient statistics, and private Gibbs sampling.

``laplace_posterior_beta_bernoulli`` (Foulds et al. 2016, eqs. 16-17): release
S_hat = proj((n1, n0) + (Y1, Y2)), Y_j ~ Laplace(2/eps) (L1 sensitivity 2 of the counts under
replace-one), then either one draw of Beta(alpha0 + n1_hat, beta0 + n0_hat) (``release="sample"``;
optionally truncated to [a0, 1 - a0]) or its mean (``release="mean"``). Everything after the noisy
statistics is post-processing, so the release is eps-DP (Foulds et al. 2016, section 3.2).
``projection``: ``"simplex"`` (default) = Euclidean projection onto {n1 + n0 = N, n1, n0 >= 0} (N is
public under replace-one adjacency); ``"nonnegative"`` = clip each count at 0, the paper's literal example
("if the statistics are counts, the projection ensures that they are non-negative").

``private_gibbs`` (Foulds et al. 2016, eq. 19 and section 4.1) on a two-component Bernoulli mixture with
M binary emissions per record (records are rows x_i in {0,1}^M, latent class z_i with public prior
1/2, class probabilities p_k ~ Beta(alpha0, beta0) truncated to [a0, 1 - a0]). Every Gibbs update
samples the exponential mechanism Pr(theta_l | theta_-l, X)^{eps / (2 Delta)} with
Delta = sup |log Pr(x'|.) - log Pr(x|.)| = M log((1 - a0)/a0) (one record changes M emission terms):

- z-block: z_i depends on x_i only; tempered conditional
  P(z_i = k) prop. to exp(rho [s_i log p_k + (M - s_i) log(1 - p_k)]), s_i = sum_j x_ij, rho = eps/(2 Delta).
  ``scan="sequence"`` updates every z_i (random sequence scan): one pass is eps-DP by parallel
  composition; ``scan="random"`` updates Q of the N (random scan), Foulds' amplified cost 2 eps Q / N.
- p-block: (p_0, p_1) from the tempered joint conditional, a product of truncated betas
  Beta(rho(alpha0 + S1_k - 1) + 1, rho(beta0 + S0_k - 1) + 1) (S1_k, S0_k = ones/zeros of class k): eps-DP.
Output: the path of (p_0, p_1) over T iterations, shape (n, T + 1, 2); n chains vectorised. The claim
composes the per-update costs (Foulds et al. 2016, Thm 1 and section 4.1) through the catalogue.

:func:`figure2_table` reproduces the data behind Foulds et al. 2016, Figure 2.
"""
from __future__ import annotations

import math

import numpy as np
from scipy import special

from dpverify.validation import check_epsilon, check_positive_int, check_real
from dpverify.calculus.mechanisms.laplace import laplace_scale
from dpverify.models.beta_bernoulli import BetaBernoulli, sample_truncated_beta
from dpverify.samplers.base import Claim, Sampler
from dpverify.samplers.claims import claim_from_item, evaluate_item
from dpverify.samplers.ops import OPSBetaBernoulli
from dpverify.samplers.registry import register

__all__ = ["project_counts", "LaplacePosteriorBetaBernoulli", "PrivateGibbsBernoulliMixture", "figure2_table"]

PROJECTIONS = ("simplex", "nonnegative")


def project_counts(noisy, N, projection: str = "simplex") -> np.ndarray:
    """Projection of noisy counts (..., 2) onto the feasible set (Foulds et al. 2016, eq. 16).

    ``"simplex"``: the Euclidean projection onto {n1 + n0 = N, n >= 0}: n1 = clip((s1 - s0 + N)/2, 0, N),
    n0 = N - n1. ``"nonnegative"``: max(s, 0) coordinatewise.
    """
    s = np.asarray(noisy, dtype=float)
    if projection == "nonnegative":
        return np.maximum(s, 0.0)
    if projection != "simplex":
        raise ValueError(f"projection must be one of {PROJECTIONS}; got {projection!r}")
    N = np.asarray(N, dtype=float)
    n1 = np.clip((s[..., 0] - s[..., 1] + N) / 2.0, 0.0, N)
    return np.stack([n1, N - n1], axis=-1)


@register
class LaplacePosteriorBetaBernoulli(Sampler):
    """Laplace-noised sufficient statistics, then a posterior draw or mean (Foulds et al. 2016, eqs. 16-17).
    Output: p, shape (n, 1); eps-DP with the Laplace scale 2/eps of ``foulds2016.eq16_laplace_sufficient_stats``."""

    id = "laplace_posterior_beta_bernoulli"
    theorems = ("foulds2016.eq16_laplace_sufficient_stats",)
    output = "sample"
    description = "Laplace noise (scale 2/eps) on (n1, n0), projection, then a beta posterior draw or mean"

    def __init__(self, epsilon: float = 1.0, alpha0: float = 1.0, beta0: float = 1.0, release: str = "sample",
                 projection: str = "simplex", a0: float | None = None, unguaranteed: bool = False) -> None:
        self.epsilon = check_epsilon(epsilon)
        if release not in ("sample", "mean"):
            raise ValueError(f"release must be 'sample' or 'mean'; got {release!r}")
        if projection not in PROJECTIONS:
            raise ValueError(f"projection must be one of {PROJECTIONS}; got {projection!r}")
        self.release, self.projection = release, projection
        self.a0 = None if a0 is None else check_real("a0", a0, low=0.0, high=0.5, low_inclusive=False,
                                                     high_inclusive=False)
        self._model = BetaBernoulli(0.25 if a0 is None else a0, alpha0, beta0)  # a0 only used when given
        self.alpha0, self.beta0 = self._model.alpha0, self._model.beta0
        self.unguaranteed = bool(unguaranteed)
        sensitivity = self._model.constants.sufficient_statistic_sensitivity
        if sensitivity is None:
            raise ValueError(f"{self._model!r} has no sufficient-statistic sensitivity (Foulds et al. 2016, eq. 16)")
        self.scale = laplace_scale(sensitivity, self.epsilon)
        self._evaluation = evaluate_item(self.theorems[0], unguaranteed=self.unguaranteed, epsilon=self.epsilon)

    def release_from_statistics(self, statistics, rng) -> np.ndarray:
        """One release per row of true sufficient statistics (m, 2): noise, projection, draw or mean. (m, 1)."""
        rng = self._rng(rng)
        s = np.asarray(statistics, dtype=float).reshape(-1, 2)
        noisy = project_counts(s + rng.laplace(0.0, self.scale, size=s.shape), s.sum(axis=1), self.projection)
        a, b = self.alpha0 + noisy[:, 0], self.beta0 + noisy[:, 1]
        if self.release == "mean":
            if self.a0 is None:
                return (a / (a + b))[:, None]
            # truncated mean: a/(a+b) [I(a+1,b)]_lo^hi / [I(a,b)]_lo^hi (regularised incomplete beta I)
            lo, hi = self.a0, 1.0 - self.a0
            ratio = (special.betainc(a + 1, b, hi) - special.betainc(a + 1, b, lo)) / (
                special.betainc(a, b, hi) - special.betainc(a, b, lo))
            return (a / (a + b) * ratio)[:, None]
        if self.a0 is None:
            return rng.beta(a, b)[:, None]
        return sample_truncated_beta(a, b, self.a0, 1.0 - self.a0, rng)[:, None]

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        n = check_positive_int(n, "n")
        stats = self._model.sufficient_statistics(dataset)
        return self.release_from_statistics(np.broadcast_to(stats, (n, 2)), rng)

    def guarantee(self) -> Claim:
        return claim_from_item(self._evaluation, self.theorems[0], details={"scale": self.scale})


@register
class PrivateGibbsBernoulliMixture(Sampler):
    """Private Gibbs sampling (Foulds et al. 2016, eq. 19) on a 2-class Bernoulli mixture; see the module docstring."""

    id = "private_gibbs"
    theorems = ("foulds2016.eq19_private_gibbs", "foulds2016.sec4_gibbs_costs")
    output = "path"
    description = "Gibbs sampler whose every update is an exponential mechanism (2-class Bernoulli mixture)"

    def __init__(self, epsilon: float = 1.0, T: int = 20, M: int = 5, a0: float = 0.05, alpha0: float = 1.0,
                 beta0: float = 1.0, scan: str = "sequence", Q: int | None = None, unguaranteed: bool = False) -> None:
        self.epsilon = check_epsilon(epsilon)
        self.T = check_positive_int(T, "T")
        self.M = check_positive_int(M, "M")
        self._model = BetaBernoulli(a0, alpha0, beta0)
        self.a0, self.alpha0, self.beta0 = self._model.a0, self._model.alpha0, self._model.beta0
        if scan not in ("sequence", "random"):
            raise ValueError(f"scan must be 'sequence' or 'random'; got {scan!r}")
        if scan == "random" and Q is None:
            raise ValueError("scan='random' needs Q, the number of latent variables updated per iteration")
        self.scan = scan
        self.Q = None if Q is None else check_positive_int(Q, "Q")
        self.unguaranteed = bool(unguaranteed)
        C = self._model.constants.C
        if C is None:
            raise ValueError(f"{self._model!r} has no bound C on the log-likelihood ratio (Foulds et al. 2016, Thm 2)")
        #: Delta of every update: one record moves M emission log-likelihood terms, each by at most C
        self.sensitivity = self.M * C
        self.rho = self.epsilon / (2.0 * self.sensitivity)

    def validate_dataset(self, dataset) -> np.ndarray:
        x = np.asarray(dataset)
        if x.ndim != 2 or x.shape[0] == 0 or x.shape[1] != self.M:
            raise ValueError(f"dataset must have shape (N, M={self.M}) of 0/1 emissions; got {x.shape}")
        xf = x.astype(float)
        if not np.all((xf == 0) | (xf == 1)):
            raise ValueError("dataset values must be 0 or 1 (Bernoulli emissions)")
        if self.Q is not None and self.Q > x.shape[0]:
            raise ValueError(f"Q must be <= N = {x.shape[0]}; got {self.Q}")
        return xf

    def _update_z(self, z, p, s, rng) -> np.ndarray:
        """Tempered z_i | p, x_i for the selected entries: logit = rho [s (log p1 - log p0) + (M - s)(log(1-p1) - log(1-p0))]."""
        lp, l1p = np.log(p), np.log1p(-p)  # (n, 2)
        logit = self.rho * (s[None, :] * (lp[:, 1:2] - lp[:, 0:1]) + (self.M - s[None, :]) * (l1p[:, 1:2] - l1p[:, 0:1]))
        new = (rng.uniform(size=z.shape) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int64)
        if self.scan == "sequence":
            return new
        n, N = z.shape
        chosen = np.argsort(rng.uniform(size=(n, N)), axis=1)[:, : self.Q]  # Q distinct indices per chain
        mask = np.zeros((n, N), dtype=bool)
        np.put_along_axis(mask, chosen, True, axis=1)
        return np.where(mask, new, z)

    def _update_p(self, z, s, rng) -> np.ndarray:
        """Tempered (p0, p1) | z, X: product of truncated betas (see the module docstring)."""
        ones = np.stack([((z == k) * s[None, :]).sum(axis=1) for k in (0, 1)], axis=1)  # (n, 2)
        zeros = np.stack([((z == k) * (self.M - s[None, :])).sum(axis=1) for k in (0, 1)], axis=1)
        a = self.rho * (self.alpha0 + ones - 1.0) + 1.0
        b = self.rho * (self.beta0 + zeros - 1.0) + 1.0
        return sample_truncated_beta(a, b, self.a0, 1.0 - self.a0, rng).reshape(a.shape)

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        """``n`` chains, each started from p drawn from the (data-free) truncated prior; path (n, T + 1, 2)."""
        x = self.validate_dataset(dataset)
        n = check_positive_int(n, "n")
        rng = self._rng(rng)
        s = x.sum(axis=1)
        N = x.shape[0]
        p = sample_truncated_beta(np.full(2 * n, self.alpha0), np.full(2 * n, self.beta0), self.a0, 1 - self.a0,
                                  rng).reshape(n, 2)
        z = rng.integers(0, 2, size=(n, N))
        path = np.empty((n, self.T + 1, 2))
        path[:, 0] = p
        for t in range(self.T):  # a loop over Gibbs iterations (time), vectorised over chains and records
            z = self._update_z(z, p, s, rng)
            p = self._update_p(z, s, rng)
            path[:, t + 1] = p
        return path

    def guarantee(self) -> Claim:
        """epsilon_gibbs = 2 T eps of ``foulds2016.sec4_gibbs_costs`` (T iterations, each a latent-variable
        block and a parameter block of cost eps). The per-update cost is eq. 19's 2 Delta' with the tempered
        utility's sensitivity Delta' = rho Delta = eps/2. A random scan is charged like a sequence scan
        (parallel composition): the catalogue's erratum to eq. 19 shows the printed 4 Delta Q/N amplification
        unsupported when the Gibbs state is public."""
        tempered_sensitivity = self.rho * self.sensitivity
        costs = evaluate_item("foulds2016.sec4_gibbs_costs", unguaranteed=self.unguaranteed,
                              epsilon=self.epsilon, T=self.T, C=tempered_sensitivity)
        update = evaluate_item("foulds2016.eq19_private_gibbs", unguaranteed=self.unguaranteed,
                               C=tempered_sensitivity, Q=1, N=1)
        return claim_from_item(costs, "foulds2016.sec4_gibbs_costs", epsilon=float(costs.conclusion["epsilon_gibbs"]),
                               delta=0.0, details={"rho": self.rho, "sensitivity": self.sensitivity, "scan": self.scan,
                                                   "epsilon_per_update": float(update.conclusion["epsilon"])})


def figure2_table(Ns=(10, 30, 100, 300, 1000, 3000, 10000), p: float = 0.1, a0: float = 0.05,
                  epsilon: float = 0.1, repeats: int = 1000, rng=0) -> list[dict]:
    """The data behind Foulds et al. 2016, Figure 2: mean L1 error |p_hat - p| of one private sample vs N.

    For each N: ``repeats`` datasets of N Bernoulli(p) records; per dataset one draw from (i) the
    non-private posterior Beta(1 + n1, 1 + n0), (ii) the Laplace-mechanism posterior (eqs. 16-17,
    scale 2/eps, simplex projection), (iii) OPS = the exponential mechanism truncated at a0 at temperature
    T = 2C/eps (Foulds eq. 14; C = log((1 - a0)/a0)). Rows: {"N", "posterior", "laplace", "ops",
    "laplace_se", "ops_se"} (se = standard error of the mean error over the repeats).
    """
    rng = np.random.default_rng(rng) if not isinstance(rng, np.random.Generator) else rng
    repeats = check_positive_int(repeats, "repeats")
    lap = LaplacePosteriorBetaBernoulli(epsilon=epsilon)
    ops = OPSBetaBernoulli(a0=a0, epsilon=epsilon, calibration="foulds2016")
    rows = []
    for N in Ns:  # one row per dataset size (the paper's x axis)
        N = check_positive_int(N, "N")
        n1 = rng.binomial(N, p, size=repeats).astype(float)
        stats = np.stack([n1, N - n1], axis=1)
        errs = {
            "posterior": np.abs(rng.beta(1 + n1, 1 + N - n1) - p),
            "laplace": np.abs(lap.release_from_statistics(stats, rng)[:, 0] - p),
            "ops": np.abs(ops.sample_many(stats, rng)[:, 0] - p),
        }
        row = {"N": N, **{k: float(v.mean()) for k, v in errs.items()}}
        row.update({f"{k}_se": float(v.std(ddof=1) / math.sqrt(repeats)) for k, v in errs.items()})
        rows.append(row)
    return rows
