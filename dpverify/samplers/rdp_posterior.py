"""Rényi-DP posterior sampling: one draw of a conjugate posterior with weighted counts or a concentrated prior.

Geumlek, Song, Chaudhuri (NeurIPS 2017) release one draw of an exponential-family posterior made private by weighting
the data's sufficient statistics by ``r <= 1`` (the Diffuse Posterior) or by strengthening the prior (the Concentrated
Posterior); Ponnoprat (arXiv:2110.01984 v2, Theorem 1) bounds the RDP of the Dirichlet case. Two samplers:

- ``rdp_posterior_beta_bernoulli``: Bernoulli records (0/1), one draw of ``Beta(m alpha0 + r n1, m beta0 + r n0)``,
  output shape ``(n, 1)``; claim through ``geumlek2017.alg_diffuse_concentrated_beta``;
- ``rdp_posterior_dirichlet_categorical``: categorical records in ``{0, ..., K-1}``, one draw of
  ``Dir(m alpha + r n)``, output ``(n, K)``; claim through ``ponnoprat2022.thm1_dirichlet_rdp`` with the replace-one
  sensitivities ``Delta_2 = sqrt(2) r``, ``Delta_inf = r``.

``m`` (the prior scale) is 1 unless ``calibration="concentrated"``. With a target ``(order, rdp_epsilon)``:

- ``calibration="diffuse"``: the largest ``r <= 1`` whose bound ``order r^2 psi_1(a_min - (order - 1) r)`` is <=
  ``rdp_epsilon`` (the bound increases in ``r``; ``brentq``);
- ``calibration="concentrated"``: ``r`` as given and the smallest prior scale ``m >= 1`` whose bound at ``m a_min`` is
  <= ``rdp_epsilon`` (the bound decreases in ``a_min``).

Abilities (all exact, all in closed form or one-dimensional root finding; ``sample`` is vectorised over draws):

- :meth:`guarantee`: the bound's RDP curve on orders below ``max_order = 1 + a_min / r`` converted to (epsilon, delta)
  at ``delta`` (:func:`dpverify.calculus.conversions.rdp_to_dp`, Balle et al. 2020), the optimal order's RDP read from
  the catalogue item with its hypotheses checked;
- :meth:`pair_rdp`: the exact RDP curve of one adjacent pair (:mod:`dpverify.calculus.conjugate_renyi`, both
  directions); :meth:`rdp_curve`: the mechanism's exact RDP over every pair of datasets of N records (enumeration);
- :meth:`account`: that exact curve converted at ``delta`` (datasets of ``N`` records, the constructor's ``N``; the
  bound's curve when ``N`` is None);
- :meth:`exact_epsilon`: the pair's exact epsilon at ``delta`` from the hockey-stick divergence of the two posteriors
  (a Dirichlet pair reduces to two beta laws: :mod:`dpverify.calculus.conjugate_renyi`);
- :meth:`pair_privacy_loss`: the pair's exact privacy-loss law (masses on cells of the moved coordinates' beta law),
  for the budget ceiling;
- :meth:`log_density`: the posterior's normalised log density of each output.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special
from scipy.optimize import brentq

from dpverify.calculus.conjugate_renyi import (
    beta_pair_epsilon,
    beta_pair_loss_masses,
    dirichlet_categorical_worst_case,
    dirichlet_rdp_bound,
    dirichlet_renyi_divergence,
)
from dpverify.calculus.conversions import rdp_to_dp
from dpverify.calculus.loss_masses import LossMasses
from dpverify.calculus.guarantees import Claim, Conversion, RenyiDP
from dpverify.models.dirichlet_categorical import categories
from dpverify.samplers.base import Sampler
from dpverify.samplers.claims import evaluate_item
from dpverify.samplers.registry import register
from dpverify.validation import check_delta, check_order, check_positive_int, check_real

__all__ = ["CALIBRATIONS", "RDPPosteriorBetaBernoulli", "RDPPosteriorDirichletCategorical", "calibrate_weight",
           "calibrate_prior_scale"]

#: How a target (order, rdp_epsilon) is met.
CALIBRATIONS = ("none", "diffuse", "concentrated")
#: Orders of the claim's curve: 1 + (max_order - 1) q for these fractions q.
_FRACTIONS = np.concatenate([np.geomspace(1e-4, 0.5, 120), np.linspace(0.5, 0.999, 80)[1:]])


def _bound(order: float, a_min: float, r: float) -> float:
    """``order r^2 psi_1(a_min - (order - 1) r)`` (``inf`` at or beyond ``1 + a_min / r``)."""
    return float(dirichlet_rdp_bound(order, a_min, 2.0 * r * r, r))


def calibrate_weight(order: float, rdp_epsilon: float, a_min: float) -> float:
    """Geumlek et al.'s Diffuse Posterior: the largest ``r`` in (0, 1] with ``order r^2 psi_1(a_min - (order - 1) r)
    <= rdp_epsilon`` (1 when r = 1 already meets it). The bound is 0 at r = 0 and increases to infinity at
    ``a_min / (order - 1)``, so the root is unique (``brentq``)."""
    lam, eps = check_order(order), check_real("rdp_epsilon", rdp_epsilon, low=0.0, low_inclusive=False)
    a = check_real("a_min", a_min, low=0.0, low_inclusive=False)
    if _bound(lam, a, 1.0) <= eps:
        return 1.0
    top = min(1.0, a / (lam - 1.0) * (1 - 1e-12))
    return float(brentq(lambda r: _bound(lam, a, r) - eps, 1e-300, top, xtol=1e-15, rtol=1e-13))


def calibrate_prior_scale(order: float, rdp_epsilon: float, a_min: float, r: float) -> float:
    """Geumlek et al.'s Concentrated Posterior: the smallest prior scale ``m >= 1`` with ``order r^2 psi_1(m a_min -
    (order - 1) r) <= rdp_epsilon`` (1 when the prior already meets it). The bound decreases in ``m`` to 0
    (``psi_1(x) ~ 1/x``), so the root is unique (``brentq``)."""
    lam, eps = check_order(order), check_real("rdp_epsilon", rdp_epsilon, low=0.0, low_inclusive=False)
    a, w = check_real("a_min", a_min, low=0.0, low_inclusive=False), check_real("r", r, low=0.0, high=1.0,
                                                                               low_inclusive=False)
    if _bound(lam, a, w) <= eps:
        return 1.0
    lo = max(1.0, (lam - 1.0) * w / a * (1 + 1e-12))
    hi = 2.0 * lo
    while _bound(lam, hi * a, w) > eps:
        hi *= 2.0
    return float(brentq(lambda m: _bound(lam, m * a, w) - eps, lo, hi, xtol=1e-14, rtol=1e-13))


def _counts(dataset: Any, K: int) -> np.ndarray:
    """The category counts of a non-empty 1-d dataset of integers in {0, ..., K-1} (the Dirichlet model's check)."""
    return np.bincount(categories(dataset, K), minlength=K).astype(float)


class _RDPPosterior(Sampler):
    """Common part: prior, weight, calibration, the claim and the exact abilities over a Dirichlet posterior with K
    categories (K = 2: the beta posterior of ``(n1, n0)``)."""

    output = "sample"
    _theorem: str

    def _setup(self, prior: np.ndarray, r: float, order: float | None, rdp_epsilon: float | None,
               calibration: str, delta: float, N: int | None, unguaranteed: bool) -> None:
        if calibration not in CALIBRATIONS:
            raise ValueError(f"calibration must be one of {CALIBRATIONS}; got {calibration!r}")
        self.r = check_real("r", r, low=0.0, high=1.0, low_inclusive=False)
        self.order = None if order is None else check_order(order)
        self.rdp_epsilon = None if rdp_epsilon is None else check_real("rdp_epsilon", rdp_epsilon, low=0.0,
                                                                      low_inclusive=False)
        self.calibration = calibration
        self.delta = check_delta(delta, allow_zero=False)
        self.N = None if N is None else check_positive_int(N, "N")
        self.unguaranteed = bool(unguaranteed)
        a_min = float(prior.min())
        self.prior_scale = 1.0
        if calibration == "diffuse":
            self.r = calibrate_weight(*self._target(), a_min)
        elif calibration == "concentrated":
            self.prior_scale = calibrate_prior_scale(*self._target(), a_min, self.r)
        self._prior = self.prior_scale * prior
        self.a_min = float(self._prior.min())
        self.max_order = 1.0 + self.a_min / self.r
        if self.order is not None:  # the target order's evaluation: its hypotheses checked at construction
            self._evaluate(self.order)

    def _target(self) -> tuple[float, float]:
        """``(order, rdp_epsilon)`` of the calibration (a ``ValueError`` when either is missing)."""
        if self.order is None or self.rdp_epsilon is None:
            raise ValueError(f"calibration={self.calibration!r} needs a target: give order (> 1) and rdp_epsilon (> 0)")
        return self.order, self.rdp_epsilon

    # -- the claim ------------------------------------------------------------------------------------------------
    def _values(self, order: float) -> dict:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _evaluate(self, order: float):
        """The catalogue item at ``order`` (``HypothesisError`` naming a failed hypothesis unless ``unguaranteed``)."""
        return evaluate_item(self._theorem, unguaranteed=self.unguaranteed, **self._values(order))

    def bound_curve(self, orders=None) -> RenyiDP:
        """The bound's RDP curve (numpy form of the catalogue item) on ``orders`` (default: 200 orders below
        ``max_order``); ``inf`` at orders >= ``max_order``."""
        arr = 1.0 + (self.max_order - 1.0) * _FRACTIONS if orders is None else np.atleast_1d(np.asarray(orders, float))
        return RenyiDP(tuple(arr.tolist()), tuple(dirichlet_rdp_bound(arr, self.a_min, 2 * self.r**2, self.r).tolist()))

    def guarantee(self) -> Claim:
        """(epsilon, delta) at the constructor's ``delta``: the bound's RDP curve converted (Balle et al. 2020), the
        optimal order's RDP re-read from the catalogue item with its hypotheses checked. ``details``: the optimal order,
        its RDP, the prior, r, max_order and, with a target order, the bound there."""
        curve = self.bound_curve()
        best = rdp_to_dp(curve.orders, curve.epsilons, self.delta)
        order = float(best.order if best.order is not None else curve.orders[0])  # rdp_to_dp always names it
        ev = self._evaluate(order)
        exact_rdp = float(ev.conclusion["rdp"])
        eps = rdp_to_dp([order], [exact_rdp], self.delta).epsilon
        details: dict = {"order": order, "rdp_at_order": exact_rdp, "prior": self._prior.tolist(), "r": self.r,
                         "prior_scale": self.prior_scale, "max_order": self.max_order, "calibration": self.calibration,
                         "conversion": "balle2020"}
        if self.order is not None:
            details["target_order"] = self.order
            details["rdp_at_target_order"] = float(self._evaluate(self.order).conclusion["rdp"])
        return Claim(eps, self.delta, self._theorem, ev.guaranteed, dict(ev.hypotheses), details)

    # -- exact privacy -----------------------------------------------------------------------------------------------
    def posterior_parameters(self, dataset: Any) -> np.ndarray:
        """The concentration of the released law: ``m prior + r counts`` (K values)."""
        return self._prior + self.r * self.statistics(dataset)

    def statistics(self, dataset: Any) -> np.ndarray:
        """The category counts of ``dataset`` (K values)."""
        return _counts(dataset, self._prior.size)

    def pair_rdp(self, dataset: Any, neighbour: Any, orders) -> RenyiDP:
        """The exact RDP curve of the pair: ``max(D(P || Q), D(Q || P))`` of the two posteriors at each order."""
        p, q = self.posterior_parameters(dataset), self.posterior_parameters(neighbour)
        arr = np.atleast_1d(np.asarray(orders, dtype=float))
        values = np.maximum(dirichlet_renyi_divergence(arr, p, q), dirichlet_renyi_divergence(arr, q, p))
        return RenyiDP(tuple(arr.tolist()), tuple(values.tolist()))

    def rdp_curve(self, orders, N: int) -> RenyiDP:
        """The mechanism's exact RDP curve over all datasets of ``N`` records and all replacements of one record
        (:func:`~dpverify.calculus.conjugate_renyi.dirichlet_categorical_worst_case`, enumeration)."""
        arr = np.atleast_1d(np.asarray(orders, dtype=float))
        values = [dirichlet_categorical_worst_case(float(o), N, self._prior, self.r).rdp for o in arr]
        return RenyiDP(tuple(arr.tolist()), tuple(values))

    def account(self, delta: float) -> Conversion:
        """(epsilon, delta) of the mechanism at ``delta`` from its exact RDP curve over datasets of ``N`` records (the
        constructor's ``N``; without it, the bound's curve, valid for every N), converted (Balle et al. 2020)."""
        d = check_delta(delta, allow_zero=False)
        orders = 1.0 + (self.max_order - 1.0) * _FRACTIONS[::4]
        curve = self.bound_curve(orders) if self.N is None else self.rdp_curve(orders, self.N)
        return rdp_to_dp(curve.orders, curve.epsilons, d)

    def _beta_pair(self, dataset: Any, neighbour: Any) -> tuple[float, float, float, float] | None:
        """The two beta laws the pair's privacy loss is a function of (module docstring), or None when the datasets
        differ by more than one moved record."""
        p, q = self.posterior_parameters(dataset), self.posterior_parameters(neighbour)
        diff = np.flatnonzero(~np.isclose(p, q, rtol=0.0, atol=1e-12 * max(1.0, float(p.max()))))
        if diff.size == 0:
            return (1.0, 1.0, 1.0, 1.0)
        if diff.size != 2 or not math.isclose(float(p.sum()), float(q.sum()), rel_tol=1e-12):
            return None
        i, j = (int(k) for k in diff)
        return float(p[i]), float(p[j]), float(q[i]), float(q[j])

    def exact_epsilon(self, dataset: Any, neighbour: Any, delta: float = 0.0) -> float | None:
        """The pair's exact epsilon at ``delta`` (hockey-stick divergence of the two beta laws the privacy loss depends
        on, both directions); ``inf`` at delta = 0 for different posteriors; None when the datasets differ by more than
        one replaced record."""
        pair = self._beta_pair(dataset, neighbour)
        return None if pair is None else beta_pair_epsilon(check_delta(delta), *pair)

    def pair_privacy_loss(self, dataset: Any, neighbour: Any) -> LossMasses | None:
        """The pair's exact privacy-loss law for the budget ceiling: the log ratio of two adjacent Dirichlet posteriors
        is ``-r log(theta_i / theta_j) + const`` in the two moved coordinates, and ``theta_i / (theta_i + theta_j)`` is
        ``Beta(a_i, a_j)`` under a Dirichlet law (aggregation), so the loss law is that of the beta pair
        (:func:`~dpverify.calculus.conjugate_renyi.beta_pair_loss_masses`); None when the datasets differ by more
        than one replaced record."""
        pair = self._beta_pair(dataset, neighbour)
        return None if pair is None else beta_pair_loss_masses(*pair)

    def log_density(self, dataset: Any, outputs) -> np.ndarray:
        """The Dirichlet (beta) log density of each output under the posterior of ``dataset``: ``sum_k (a_k - 1) log
        theta_k - C(a)`` with the outputs' last coordinate completing the simplex for K = 2 outputs of shape (n, 1)."""
        theta = self._simplex(outputs)
        a = self.posterior_parameters(dataset)
        log_norm = float(np.sum(special.gammaln(a)) - special.gammaln(np.sum(a)))
        with np.errstate(divide="ignore"):
            return np.sum((a - 1.0) * np.log(theta), axis=-1) - log_norm

    def _simplex(self, outputs) -> np.ndarray:  # pragma: no cover - every subclass defines it
        raise NotImplementedError


@register
class RDPPosteriorBetaBernoulli(_RDPPosterior):
    """One draw of ``Beta(m alpha0 + r n1, m beta0 + r n0)`` (Geumlek et al. 2017's Diffuse / Concentrated Posterior on
    the beta-Bernoulli model). Datasets: 0/1 records. Output: p, shape (n, 1)."""

    id = "rdp_posterior_beta_bernoulli"
    theorems = ("geumlek2017.alg_diffuse_concentrated_beta",)
    description = "one draw of Beta(alpha0 + r n1, beta0 + r n0), RDP through r (diffuse) or the prior (concentrated)"
    _theorem = "geumlek2017.alg_diffuse_concentrated_beta"

    def __init__(self, alpha0: float = 1.0, beta0: float = 1.0, r: float = 1.0, order: float | None = None,
                 rdp_epsilon: float | None = None, calibration: str = "none", delta: float = 1e-5,
                 N: int | None = None, unguaranteed: bool = False) -> None:
        self.alpha0 = check_real("alpha0", alpha0, low=0.0, low_inclusive=False)
        self.beta0 = check_real("beta0", beta0, low=0.0, low_inclusive=False)
        # the statistics are (n1, n0): the first coordinate of the beta law counts the ones
        self._setup(np.array([self.alpha0, self.beta0]), r, order, rdp_epsilon, calibration, delta, N, unguaranteed)

    def _values(self, order: float) -> dict:
        return {"alpha": order, "a_min": self.a_min, "weight": self.r}

    def statistics(self, dataset: Any) -> np.ndarray:
        """``(n1, n0)``: the numbers of ones and zeros of a 0/1 dataset (a ``ValueError`` for any other value)."""
        return _counts(dataset, 2)[::-1].copy()

    def sample(self, dataset: Any, n: int, rng) -> np.ndarray:
        a, b = self.posterior_parameters(dataset)
        return self._rng(rng).beta(a, b, check_positive_int(n, "n"))[:, None]

    def _simplex(self, outputs) -> np.ndarray:
        out = np.asarray(outputs, dtype=float)
        if out.ndim != 2 or out.shape[1] != 1:
            raise ValueError(f"outputs must have shape (n, 1); got {out.shape}")
        return np.concatenate([out, 1.0 - out], axis=1)


@register
class RDPPosteriorDirichletCategorical(_RDPPosterior):
    """One draw of ``Dir(m alpha + r n)`` (Ponnoprat's Dirichlet posterior sampling; Geumlek et al.'s Diffuse /
    Concentrated Posterior). Datasets: categories in {0, ..., K-1}. Output: theta, shape (n, K)."""

    id = "rdp_posterior_dirichlet_categorical"
    theorems = ("ponnoprat2022.thm1_dirichlet_rdp",)
    description = "one draw of Dir(alpha + r n), RDP through r (diffuse) or the prior (concentrated)"
    _theorem = "ponnoprat2022.thm1_dirichlet_rdp"

    def __init__(self, K: int = 3, alpha=1.0, r: float = 1.0, order: float | None = None,
                 rdp_epsilon: float | None = None, calibration: str = "none", delta: float = 1e-5,
                 N: int | None = None, unguaranteed: bool = False) -> None:
        self.K = check_positive_int(K, "K", minimum=2)
        prior = np.broadcast_to(np.asarray(alpha, dtype=float), (self.K,)).copy() if np.ndim(alpha) == 0 \
            else np.asarray(alpha, dtype=float)
        if prior.shape != (self.K,) or not np.all(np.isfinite(prior)) or np.any(prior <= 0):
            raise ValueError(f"alpha must be > 0 (one value or K = {self.K} values); got {alpha!r}")
        self.alpha = prior.tolist()
        self._setup(prior, r, order, rdp_epsilon, calibration, delta, N, unguaranteed)

    def _values(self, order: float) -> dict:
        return {"alpha": order, "a_min": self.a_min, "sensitivity": math.sqrt(2.0) * self.r, "sensitivity_inf": self.r}

    def sample(self, dataset: Any, n: int, rng) -> np.ndarray:
        return self._rng(rng).dirichlet(self.posterior_parameters(dataset), check_positive_int(n, "n"))

    def _simplex(self, outputs) -> np.ndarray:
        out = np.asarray(outputs, dtype=float)
        if out.ndim != 2 or out.shape[1] != self.K:
            raise ValueError(f"outputs must have shape (n, {self.K}); got {out.shape}")
        return out
