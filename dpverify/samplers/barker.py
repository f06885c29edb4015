"""DP MCMC with the Barker acceptance test (Heikkilä, Jälkö, Dikmen, Honkela, NeurIPS 2019): sampler ``dp_barker``.

Each iteration of every chain (vectorised over chains; the loop runs over iterations):

1. propose ``theta' = theta + xi``: ``xi ~ N(0, step^2 I)`` (``proposal="gaussian"``, the paper's random walk) or
   ``xi = step * (+-1, ..., +-1)`` (``"rademacher"``: a fixed step length, which makes the canary pair's privacy loss
   the same at every iteration);
2. draw a batch ``B`` of ``b`` of the ``N`` records without replacement, the per-record log-likelihood ratios
   ``r_i = log p(x_i | theta') - log p(x_i | theta)`` clipped to ``[-C, C]`` (``C`` defaults to the largest the bound
   allows, ``sqrt(b) / (N tau_T)``, :func:`dpverify.calculus.barker.clip_bound`);
3. release (white-box) ``Z = N tau_T mean_B(R) + N(0, sigma^2 - V_B)`` with ``V_B = (N tau_T)^2 s_B^2 / b`` and
   ``sigma^2 = 2``;
4. accept iff ``Z + log prior ratio + V_corr > 0``, ``V_corr`` the fitted correction
   (:func:`dpverify.calculus.barker.correction_mixture`): Barker's test with ``N(0, 2) + V_corr`` about logistic.

Model: any :class:`~dpverify.models.base.Model` with ``log_likelihood(X, theta)``; the default, and the one with exact
checks, is the linear model in one dimension (:class:`~dpverify.models.linear.LinearLoss`, ``log p(x | theta) = x
theta``, records in ``[-R, R]``): its ratio ``x xi`` does not depend on theta and is bounded by ``R |xi|``, so with
records ``+-R`` and a Rademacher proposal every clipped ratio is ``+-min(R step, C)``.

Releases: ``"final"`` (the last state, ``(n, d)``), ``"path"`` (``(n, T + 1, d)``) or ``"statistics"`` (the
white-box view: ``(n, T, 1 + d)`` with ``[Z_t, xi_t]`` per iteration; the chain's states are a post-processing of it).

Abilities: :meth:`guarantee` (``heikkila2019.cor_composed_dp`` at the authors' best order, with the per-iteration
item's clip hypothesis and the condition item checked), :meth:`account` (the amplified per-iteration curve composed
by dpverify's :class:`~dpverify.calculus.accounting.RdpAccountant`, converted by Balle et al. 2020 or Mironov),
and, for ``release="statistics"`` on the linear model (d = 1) with records ``+-R``: :meth:`log_density` (exact,
Gaussian proposal too), :meth:`pair_privacy_loss` and :meth:`exact_epsilon` (Rademacher proposal: the composed
loss law of :func:`dpverify.calculus.barker.composed_loss_masses`).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.special import logsumexp

from dpverify.calculus import barker as cb
from dpverify.calculus.accounting import RdpAccountant
from dpverify.calculus.conversions import rdp_to_dp
from dpverify.calculus.guarantees import Claim, Conversion, RenyiDP
from dpverify.models.base import Model
from dpverify.models.linear import LinearLoss
from dpverify.samplers.base import Sampler
from dpverify.samplers.claims import evaluate_item
from dpverify.samplers.registry import register
from dpverify.validation import check_delta, check_finite_array, check_positive_int, check_real

__all__ = ["DPBarker", "PROPOSALS", "RELEASES"]

PROPOSALS = ("gaussian", "rademacher")
RELEASES = ("final", "path", "statistics")
_COMPOSED = "heikkila2019.cor_composed_dp"
_STEP = "heikkila2019.thm_barker_step_rdp"
_CONDITION = "heikkila2019.cond_clip_and_noise"


@register
class DPBarker(Sampler):
    """DP MCMC with the subsampled Barker test (Heikkilä et al. 2019); see the module docstring."""

    id = "dp_barker"
    theorems = (_COMPOSED, _STEP, "heikkila2019.thm_subsampled_amplification", _CONDITION)
    #: the class default; an instance sets its own from ``release`` ("final", "path" or "statistic")
    output = "final"
    description = ("DP MCMC with the subsampled Barker test (Heikkilä et al. 2019): clipped minibatch log-likelihood "
                   "ratio + Gaussian noise + correction; final state, path or white-box statistics")

    def __init__(self, model: Model | None = None, N: int = 100, batch_size: int = 50, T: int = 10,
                 step: float = 0.5, proposal: str = "gaussian", temperature: float = 1.0, clip: float | None = None,
                 sigma2: float = cb.SIGMA_NOR2, release: str = "final", theta0: Any = 0.0, delta: float = 1e-5,
                 max_alpha: int = 100, unguaranteed: bool = False) -> None:
        self.model = LinearLoss(dim=1, R=1.0, prior_variance=4.0) if model is None else model
        if not isinstance(self.model, Model):
            raise ValueError(f"model must be a dpverify Model; got {type(self.model).__name__}")
        self.N = check_positive_int(N, "N")
        self.batch_size = check_positive_int(batch_size, "batch_size", maximum=self.N)
        self.T = check_positive_int(T, "T")
        self.step = check_real("step", step, low=0.0, low_inclusive=False)
        if proposal not in PROPOSALS:
            raise ValueError(f"proposal must be one of {PROPOSALS}; got {proposal!r}")
        self.proposal = proposal
        self.temperature = check_real("temperature", temperature, low=0.0, low_inclusive=False)
        bound = cb.clip_bound(self.batch_size, self.N, self.temperature)
        # the default sits 1e-12 inside the bound, so that N tau_T C <= sqrt(b) survives float rounding
        self.clip = bound * (1 - 1e-12) if clip is None else check_real("clip", clip, low=0.0, low_inclusive=False)
        self.sigma2 = check_real("sigma2", sigma2, low=0.0, high=math.pi**2 / 3, low_inclusive=False,
                                 high_inclusive=False)
        if release not in RELEASES:
            raise ValueError(f"release must be one of {RELEASES}; got {release!r}")
        self.release = release
        self.output = "statistic" if release == "statistics" else release
        d = self.model.dim
        self.theta0 = check_finite_array(np.broadcast_to(np.asarray(theta0, dtype=float), (d,)), "theta0").copy()
        self.delta = check_delta(delta, allow_zero=False)
        self.max_alpha = check_positive_int(max_alpha, "max_alpha", minimum=4)
        self.unguaranteed = bool(unguaranteed)
        self.scale = self.N * self.temperature  # N tau_T
        self._correction = cb.correction_mixture(self.sigma2)
        self._claim = self._build_claim()  # hypotheses checked at construction (ValueError unless unguaranteed)

    # -- the chain ---------------------------------------------------------------------------------------------------
    def _data(self, dataset: Any) -> np.ndarray:
        X = self.model.validate_dataset(dataset)
        if X.shape[0] != self.N:
            raise ValueError(f"dataset must have N = {self.N} records (the N of the claim); got {X.shape[0]}")
        return np.asarray(X, dtype=float)

    def _propose(self, rng: np.random.Generator, n: int) -> np.ndarray:
        d = self.model.dim
        if self.proposal == "gaussian":
            return self.step * rng.standard_normal((n, d))
        return self.step * rng.choice(np.array([-1.0, 1.0]), size=(n, d))

    def _statistic(self, X: np.ndarray, theta: np.ndarray, prop: np.ndarray,
                   rng: np.random.Generator) -> np.ndarray:
        """``Z`` for every chain: clipped minibatch ratio scaled by ``N tau_T`` plus ``N(0, sigma^2 - V_B)``."""
        n = theta.shape[0]
        idx = np.argpartition(rng.random((n, self.N)), self.batch_size - 1, axis=1)[:, : self.batch_size]
        ratio = self.model.log_likelihood(X, prop) - self.model.log_likelihood(X, theta)  # (n, N)
        R = np.clip(np.take_along_axis(ratio, idx, axis=1), -self.clip, self.clip)
        V = self.scale**2 * R.var(axis=1) / self.batch_size
        noise_var = np.maximum(self.sigma2 - V, 0.0)  # negative only when the clip breaks the condition
        return self.scale * R.mean(axis=1) + np.sqrt(noise_var) * rng.standard_normal(n)

    def sample(self, dataset: Any, n: int, rng: Any) -> np.ndarray:
        """``n`` independent chains of ``T`` iterations from ``theta0``; the release (module docstring)."""
        X = self._data(dataset)
        g = self._rng(rng)
        n = check_positive_int(n, "n")
        d = self.model.dim
        theta = np.broadcast_to(self.theta0, (n, d)).copy()
        path = np.empty((n, self.T + 1, d)) if self.release == "path" else None
        stats = np.empty((n, self.T, 1 + d)) if self.release == "statistics" else None
        if path is not None:
            path[:, 0] = theta
        for t in range(self.T):
            xi = self._propose(g, n)
            prop = theta + xi
            z = self._statistic(X, theta, prop, g)
            prior = self.model.log_prior(prop) - self.model.log_prior(theta)
            accept = z + prior + self._correction.sample(g, n) > 0
            theta = np.where(accept[:, None], prop, theta)
            if path is not None:
                path[:, t + 1] = theta
            if stats is not None:
                stats[:, t, 0] = z
                stats[:, t, 1:] = xi
        if stats is not None:
            return stats
        return path if path is not None else theta

    # -- the claim ---------------------------------------------------------------------------------------------------
    def _build_claim(self) -> Claim:
        eps, order = cb.heikkila_epsilon(self.batch_size, self.N, self.T, self.delta, self.max_alpha)
        if order == 0 and not self.unguaranteed:
            raise ValueError(f"batch_size = {self.batch_size} leaves no order 3 <= alpha < min(max_alpha, b // 5): the "
                             "bound needs batch_size >= 20 and max_alpha >= 4 (or pass unguaranteed=True)")
        step = evaluate_item(_STEP, unguaranteed=self.unguaranteed, alpha=max(order, 3), tau=self.batch_size,
                             N=self.N, temperature=self.temperature, C=self.clip)
        cond = evaluate_item(_CONDITION, unguaranteed=self.unguaranteed, tau=self.batch_size, N=self.N,
                             temperature=self.temperature, sigma=math.sqrt(self.sigma2))
        if order == 0:
            return Claim(math.inf, self.delta, _COMPOSED, False, {"batch_above_five_alpha": False},
                         {"order": None})
        ev = evaluate_item(_COMPOSED, unguaranteed=self.unguaranteed, alpha=order, q=self.batch_size / self.N,
                           tau=self.batch_size, T=self.T, delta=self.delta)
        hyps = {**dict(ev.hypotheses), **{f"step.{k}": v for k, v in step.hypotheses.items()},
                **{f"condition.{k}": v for k, v in cond.hypotheses.items()}}
        guaranteed = ev.guaranteed and step.guaranteed and cond.guaranteed
        details = {"order": order, "epsilon_calculus": eps, "clip": self.clip,
                   "clip_bound": cond.conclusion["C_max"], "q": self.batch_size / self.N}
        return Claim(float(ev.conclusion["epsilon"]), self.delta, _COMPOSED, guaranteed, hyps, details)

    def guarantee(self) -> Claim:
        """The authors' (epsilon, delta) at ``delta``: ``heikkila2019.cor_composed_dp`` at the best integer order
        (``get_privacy_spent``'s search, :func:`~dpverify.calculus.barker.heikkila_epsilon`), its hypotheses and those
        of the per-iteration bound (the clip) and of the condition item (``sigma^2``) checked."""
        return self._claim

    def rdp_curve(self) -> RenyiDP:
        """The amplified per-iteration RDP at the integer orders ``2 .. min(max_alpha, b // 5) - 1``."""
        top = min(self.max_alpha, self.batch_size // 5)
        orders = np.arange(2, max(top, 3))
        q = self.batch_size / self.N
        vals = [cb.amplified_rdp(int(a), q, cb.barker_step_rdp(np.arange(2, a + 1), self.batch_size)) for a in orders]
        return RenyiDP(tuple(float(a) for a in orders), tuple(vals))

    def account(self, delta: float, method: str = "balle2020") -> Conversion:
        """dpverify's RDP accountant of the run: the amplified per-iteration curve (:meth:`rdp_curve`) composed ``T``
        times, converted at ``delta`` (``method``: "balle2020", or "mironov2017", the authors' conversion)."""
        d = check_delta(delta, allow_zero=False)
        curve = self.rdp_curve()
        acc = RdpAccountant(orders=curve.orders).compose(curve, self.T)
        if method == "balle2020":
            return acc.get_epsilon(d)
        if method == "mironov2017":
            return rdp_to_dp(acc.orders, acc.rdp, d, method="mironov2017")
        raise ValueError(f"method must be 'balle2020' or 'mironov2017'; got {method!r}")

    # -- exact privacy (white-box statistics on the linear model with records +-R) -------------------------------------
    def _plus_count(self, dataset: Any) -> int | None:
        """The number of ``+R`` records when every record is ``+-R`` of the 1-d linear model, else None."""
        if not isinstance(self.model, LinearLoss) or self.model.dim != 1:
            return None
        X = self._data(dataset)[:, 0]
        R = self.model.R
        if not np.all(np.isclose(np.abs(X), R, rtol=1e-12, atol=0.0)):
            return None
        return int(np.sum(X > 0))

    def _mixture(self, n_plus: int, c: float):
        return cb.canary_statistic_mixture(self.N, n_plus, self.batch_size, c, self.sigma2)

    def _exact_law(self, dataset: Any, neighbour: Any) -> cb.LossMasses | None:
        if self.release != "statistics" or self.proposal != "rademacher":
            return None
        a, b = self._plus_count(dataset), self._plus_count(neighbour)
        if a is None or b is None:
            return None
        c = self.scale * min(self.model.R * self.step, self.clip)  # type: ignore[attr-defined]
        return cb.composed_loss_masses(self._mixture(a, c), self._mixture(b, c), self.T)

    def pair_privacy_loss(self, dataset: Any, neighbour: Any) -> cb.LossMasses | None:
        """The white-box path's privacy-loss law on a pair of ``+-R`` datasets (Rademacher proposal, ``release=
        "statistics"``): ``T`` independent copies of one iteration's mixture pair (the sign of ``xi`` and the prior
        term only reflect and shift it); None otherwise."""
        return self._exact_law(dataset, neighbour)

    def exact_epsilon(self, dataset: Any, neighbour: Any, delta: float) -> float | None:
        """The pair's epsilon at ``delta`` from :meth:`pair_privacy_loss` (both directions); None when unknown."""
        law = self._exact_law(dataset, neighbour)
        return None if law is None else law.epsilon(check_delta(delta, allow_zero=False))

    def log_density(self, dataset: Any, outputs: Any) -> np.ndarray:
        """Normalised log density of white-box outputs ``(n, T, 2)`` on a ``+-R`` dataset of the 1-d linear model:
        ``sum_t log p(xi_t) + log sum_k w_k N(Z_t; sgn(xi_t) c_t m_k, sigma^2 - c_t^2 (1 - m_k^2)/b)``, ``c_t = N tau_T
        min(R |xi_t|, C)``."""
        if self.release != "statistics":
            raise ValueError("log_density needs release='statistics' (the white-box view)")
        n_plus = self._plus_count(dataset)
        if n_plus is None:
            raise ValueError("log_density is known on the 1-d linear model with every record at +-R only")
        out = check_finite_array(outputs, "outputs", shape=(None, self.T, 2))
        z, xi = out[..., 0], out[..., 1]
        c = self.scale * np.minimum(self.model.R * np.abs(xi), self.clip)  # type: ignore[attr-defined]
        w, k_means = cb.batch_sign_means(self.N, n_plus, self.batch_size)
        means = np.sign(xi)[..., None] * c[..., None] * k_means
        variances = self.sigma2 - c[..., None] ** 2 * (1.0 - k_means**2) / self.batch_size
        comp = np.log(w) - 0.5 * (z[..., None] - means) ** 2 / variances - 0.5 * np.log(2 * np.pi * variances)
        ll = np.sum(logsumexp(comp, axis=-1), axis=1)
        if self.proposal == "gaussian":
            ll = ll + np.sum(-0.5 * (xi / self.step) ** 2 - 0.5 * math.log(2 * math.pi * self.step**2), axis=1)
        else:
            ll = ll - self.T * math.log(2.0)
        return ll
