"""Reference samplers: DP-penalty (Yildirim & Ermis 2019) and DP-HMC (Räisä, Koskela & Honkela 2021).

Both are Metropolis-Hastings chains whose accept/reject test is the *penalty* test: from ``theta`` a proposal
``theta'`` at distance ``d = |theta' - theta|``; per-record log-likelihood ratios ``r_i = log p(x_i | theta') - log
p(x_i | theta)`` clipped to ``[-b d, b d]``; the released noisy ratio ``lambda_hat = sum_i clip(r_i) + s Z`` with ``s
= tau sqrt(N) 2 b d`` (noise ``tau sqrt(N)`` times the clip's replace-one sensitivity ``2 b d``:
yildirim2019.lem_clipped_ratio_sensitivity); accept when ``log U < lambda_hat + log prior ratio (+ kinetic energy
difference) - s^2 / 2``, the ``- s^2/2`` penalty keeping the posterior invariant (Ceperley & Dewing 1999).

- ``dp_penalty``: Gaussian random-walk proposals ``theta' = theta + prop_sd Z`` (DPBayes/DP-HMC-experiments'
  ``dp_penalty.py`` with ``ocu = grw = False``);
- ``dp_hmc``: HMC proposals: momentum ``p ~ N(0, I)``, ``n_leapfrog`` leapfrog steps of size ``step_size`` whose
  gradients are noisy: per-record log-likelihood gradients clipped to norm ``L``, summed, plus ``N(0, (2 tau_g
  sqrt(N) L)^2 I)``; the prior's gradient added exactly (``hmc.py``; its random Halton rescaling of the step size is
  not reproduced: a data-independent choice that changes no privacy statement).

**Releases.** ``release="path"`` (the default) releases the chain's whole *transcript*, shape ``(n, n_steps, w)``: per
step the proposal (penalty: ``theta'``, ``d`` values; HMC: the initial momentum ``p``, ``d`` values, and the
``n_leapfrog + 1`` released noisy gradient sums, ``(n_leapfrog + 1) d`` values, from which the proposal is a
deterministic function), the released noisy ratio and the accept flag (0/1). Every state of the chain is a function
of the transcript and ``theta0``. This is the release the privacy statements cover (every noisy quantity), and its
law on a pair is a product of Gaussian densities: :meth:`log_likelihood_ratio` is the exact white-box statistic.
``release="final"`` releases ``theta`` after ``n_steps`` steps, shape ``(n, d)`` (post-processing: the same claim).

**Claim** (:meth:`guarantee`): raisa2021.thm_dp_penalty_privacy / thm_dp_hmc_privacy evaluated at the run's
parameters: the transcript is ``mu``-GDP with ``mu^2 = k/(tau^2 N)`` (+ ``k (L + 1)/(tau_g^2 N)`` for DP-HMC);
epsilon at ``delta`` the Gaussian curve's (tight). :meth:`account` composes the same Gaussian mechanisms with
dpverify's PLD accountant (``method="pld"``) or their RDP curve (``method="rdp"``).

**Exact privacy of a pair** (:meth:`pair_mu`): on :class:`~dpverify.models.linear.LinearLoss` in one dimension
(``log p(x | theta) = x theta``) the clipped ratio is ``(theta' - theta) clip(x, -b, b)`` and the clipped gradient
``clip(x, -L, L)``, so the mean shift of every released Gaussian between two datasets, divided by its noise, is a
constant: ``|sum clip_b(x) - sum clip_b(y)| / (2 b tau sqrt(N))`` per ratio and ``|sum clip_L(x) - sum clip_L(y)| /
(2 L tau_g sqrt(N))`` per gradient. The transcript on the pair is then exactly GDP (:meth:`pair_guarantee`,
:meth:`exact_epsilon`, :meth:`pair_privacy_loss`); the canary pair ``(R, -R, ..., -R)`` vs ``(-R, ..., -R)`` with
``b, L <= R`` saturates every clip and attains the claim's ``mu`` (the check of the catalogue's E links).

**The documented misuse** (``misuse="no_ll_noise"``): the authors' ``dp_penalty(..., no_ll_noise=True)`` and
``hmc(..., no_ll_noise=True)`` -- "Using a non-default value for any of `repeats`, `no_ll_noise`, or `iters` will NOT
provide the privacy bounds given by `epsilon` and `delta`" (their docstring) -- switch the ratio's noise (and its
penalty) off while the budget is still computed from ``tau``. The sampler then keeps declaring the correct mechanism
(claim, white-box statistic and pair privacy are those of the declared run) and releases noiseless ratios: the
known-bad audit case ``dp_penalty_no_ll_noise`` must find the violation.
"""
from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from dpverify.calculus.accounting.pld import PldAccountant, gaussian_pld
from dpverify.calculus.conversions import rdp_to_dp
from dpverify.calculus.guarantees import Claim, Conversion
from dpverify.calculus.mechanism_description import PairPrivacyLoss
from dpverify.calculus.penalty import composed_mu, gdp_epsilon
from dpverify.calculus.tradeoff import GaussianDP
from dpverify.models.base import Model, clip_gradients
from dpverify.models.linear import LinearLoss
from dpverify.samplers.base import Sampler
from dpverify.samplers.claims import evaluate_item
from dpverify.samplers.registry import register
from dpverify.validation import check_delta, check_finite_array, check_positive_int, check_real

__all__ = ["RELEASES", "MISUSES", "DPPenalty", "DPHMC"]

#: What a run releases: its transcript (every noisy quantity) or its last state.
RELEASES = ("path", "final")
#: ``"none"`` (the algorithm) or the documented misuse that voids the bound (module docstring).
MISUSES = ("none", "no_ll_noise")
#: Rényi orders of :meth:`_PenaltyChain.account`'s ``method="rdp"``.
_ORDERS = np.concatenate([np.linspace(1.01, 2, 20), np.geomspace(2.05, 512, 120)])


class _PenaltyChain(Sampler):
    """The common part: the penalty test, the releases, the claim and the exact pair privacy."""

    _theorem: str
    #: the class default; the constructor's ``release`` sets the instance's
    output = "path"

    def _setup(self, model: Model, N: int, tau: float, ratio_clip: float, n_steps: int, delta: float, theta0,
               release: str, misuse: str) -> None:
        if not isinstance(model, Model):
            raise ValueError(f"model must be a dpverify.models model; got {type(model).__name__}")
        self.model = model
        self.N = check_positive_int(N, "N")
        self.tau = check_real("tau", tau, low=0.0, low_inclusive=False)
        self.ratio_clip = check_real("ratio_clip", ratio_clip, low=0.0, low_inclusive=False)
        self.n_steps = check_positive_int(n_steps, "n_steps", maximum=100_000)
        self.delta = check_delta(delta, allow_zero=False)
        if release not in RELEASES:
            raise ValueError(f"release must be one of {RELEASES}; got {release!r}")
        if misuse not in MISUSES:
            raise ValueError(f"misuse must be one of {MISUSES}; got {misuse!r}")
        self.release, self.misuse = release, misuse
        self.output = release
        dim = int(model.dim)
        start = np.zeros(dim) if theta0 is None else np.asarray(theta0, dtype=float).reshape(-1)
        self.theta0 = check_finite_array(start, "theta0", shape=(dim,))
        self.dim = dim

    # -- data and the penalty test ---------------------------------------------------------------------------------
    def _data(self, dataset: Any) -> np.ndarray:
        X = self.model.validate_dataset(dataset)
        if X.shape[0] != self.N:
            raise ValueError(f"dataset must have N = {self.N} records (N is a public constant of the run); got "
                             f"{X.shape[0]}")
        return X

    def _ratio_noise_sd(self, dist: np.ndarray) -> np.ndarray:
        """``tau sqrt(N) 2 b d``: the noise standard deviation of the ratio at proposal distance ``d``."""
        return self.tau * math.sqrt(self.N) * 2.0 * self.ratio_clip * dist

    def _clipped_ratio(self, X: np.ndarray, theta: np.ndarray, prop: np.ndarray, dist: np.ndarray) -> np.ndarray:
        """``sum_i clip(log p(x_i | prop) - log p(x_i | theta), -b d, b d)`` per chain."""
        c = (self.ratio_clip * dist)[:, None]
        r = self.model.log_likelihood(X, prop) - self.model.log_likelihood(X, theta)
        return np.clip(r, -c, c).sum(axis=1)

    def _penalty_step(self, X: np.ndarray, theta: np.ndarray, prop: np.ndarray, extra_log_ratio: np.ndarray,
                      rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """One penalty test for every chain: ``(lambda_hat, accept)``. ``extra_log_ratio`` is the data-independent
        part of the log acceptance ratio (kinetic energy difference, 0 for a random walk)."""
        dist = np.linalg.norm(prop - theta, axis=1)
        s = self._ratio_noise_sd(dist)
        if self.misuse == "no_ll_noise":
            s = np.zeros_like(s)  # the authors' no_ll_noise=True: sigma = 0 (noise and penalty gone)
        lam_hat = self._clipped_ratio(X, theta, prop, dist) + s * rng.standard_normal(theta.shape[0])
        with np.errstate(invalid="ignore"):
            log_a = lam_hat + self.model.log_prior(prop) - self.model.log_prior(theta) + extra_log_ratio - 0.5 * s * s
        accept = np.log(rng.random(theta.shape[0])) < log_a
        return lam_hat, accept

    # -- the claim and its accountants -----------------------------------------------------------------------------
    def _item_values(self) -> dict:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _mus(self) -> list[tuple[float, int]]:  # pragma: no cover - every subclass defines it
        """The declared run's Gaussian releases: ``(mu of one release, how many)``."""
        raise NotImplementedError

    def declared_mu(self) -> float:
        """The transcript's Gaussian-DP parameter from the catalogue item (its hypotheses checked)."""
        return float(evaluate_item(self._theorem, unguaranteed=False, epsilon=1.0, **self._item_values()).mu)

    def guarantee(self) -> Claim:
        """(epsilon, delta) at the constructor's ``delta``: the catalogue item's ``mu`` converted on the Gaussian curve
        (tight); ``details``: mu, rho, the item's delta at that epsilon (equal to ``delta`` up to the root finder)."""
        mu = self.declared_mu()
        eps = gdp_epsilon(mu, self.delta)
        ev = evaluate_item(self._theorem, unguaranteed=False, epsilon=max(eps, 1e-12), **self._item_values())
        details = {"mu": mu, "rho": float(ev.rho), "delta_at_epsilon": float(ev.delta), "n_steps": self.n_steps,
                   "release": self.release, "misuse": self.misuse, "values": dict(ev.values)}
        return Claim(eps, self.delta, self._theorem, ev.guaranteed, dict(ev.hypotheses), details)

    def account(self, delta: float, method: str = "pld") -> Conversion:
        """The accountant's epsilon of the declared run at ``delta``: ``method="pld"`` composes the run's Gaussian
        mechanisms (k ratio releases, and k (L + 1) gradient releases for DP-HMC) with dpverify's PLD accountant;
        ``method="rdp"`` converts their RDP curve ``alpha mu^2 / 2`` (Balle et al. 2020)."""
        d = check_delta(delta, allow_zero=False)
        if method == "pld":
            acc = PldAccountant(interval=1e-3)
            for m1, count in self._mus():
                acc.compose_gaussian(m1, count=count)
            return acc.get_epsilon(d)
        if method == "rdp":
            mu2 = sum(m1 * m1 * count for m1, count in self._mus())
            return rdp_to_dp(_ORDERS, _ORDERS * mu2 / 2.0, d)
        raise ValueError(f"method must be 'pld' or 'rdp'; got {method!r}")

    # -- the exact privacy of a pair ---------------------------------------------------------------------------------
    def _pair_shifts(self, X: np.ndarray, Y: np.ndarray) -> list[tuple[float, int]] | None:  # pragma: no cover
        raise NotImplementedError

    def pair_mu(self, dataset: Any, neighbour: Any) -> float | None:
        """The exact Gaussian-DP parameter of the declared run's transcript on this pair, when every release's shift
        over its noise is a constant (one-dimensional :class:`~dpverify.models.linear.LinearLoss`: module docstring);
        None otherwise (other models: the shift depends on the path)."""
        if not (isinstance(self.model, LinearLoss) and self.model.dim == 1):
            return None
        X, Y = self._data(dataset), self._data(neighbour)
        shifts = self._pair_shifts(X, Y)
        return None if shifts is None else composed_mu([m1 * math.sqrt(count) for m1, count in shifts])

    def pair_guarantee(self, dataset: Any, neighbour: Any):
        """``GaussianDP(pair_mu)`` for a path release whose pair privacy is known (module docstring); None otherwise
        (a final release is post-processing: its privacy is at most the transcript's, not equal to it)."""
        mu = self.pair_mu(dataset, neighbour) if self.release == "path" else None
        return None if mu is None else GaussianDP(mu)

    def exact_epsilon(self, dataset: Any, neighbour: Any, delta: float) -> float | None:
        """The exact epsilon of the transcript on the pair at ``delta`` (None when unknown or for a final release)."""
        g = self.pair_guarantee(dataset, neighbour)
        return None if g is None else gdp_epsilon(g.mu, check_delta(delta, allow_zero=False))

    def pair_privacy_loss(self, dataset: Any, neighbour: Any) -> PairPrivacyLoss | None:
        """The pair's privacy loss for the budget ceiling: exact for a path release with known :meth:`pair_mu`;
        otherwise the declared run's worst case (an upper bound; for a final release the transcript's)."""
        mu = self.pair_mu(dataset, neighbour)
        if mu is not None and self.release == "path":
            if mu == 0.0:
                return None
            return PairPrivacyLoss(gaussian_pld(mu), f"exact: the transcript's Gaussian releases shift by a constant "
                                   f"ratio on this pair, mu = {mu:.4g}", exact=True)
        bound = self.declared_mu() if mu is None else mu
        what = "the transcript's" if self.release == "final" else "the declared run's worst-case"
        return PairPrivacyLoss(gaussian_pld(bound), f"upper bound: {what} Gaussian DP, mu = {bound:.4g}", exact=False)

    # -- the white-box statistic ---------------------------------------------------------------------------------------
    @property
    def log_likelihood_ratio(self) -> Callable[[Any, Any], Callable[[np.ndarray], np.ndarray]] | None:
        """For a path release: ``(dataset, neighbour) -> s`` with ``s(transcripts) = log p_D - log p_D'`` of each
        transcript under the declared run (a sum of Gaussian log-density ratios); None for a final release."""
        return self._white_box if self.release == "path" else None

    def _white_box(self, dataset: Any, neighbour: Any) -> Callable[[np.ndarray], np.ndarray]:
        X, Y = self._data(dataset), self._data(neighbour)
        return lambda outputs: self._transcript_log_ratio(X, Y, outputs)

    def _transcript_log_ratio(self, X: np.ndarray, Y: np.ndarray, outputs) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _ratio_term(self, X: np.ndarray, Y: np.ndarray, theta: np.ndarray, prop: np.ndarray,
                    lam_hat: np.ndarray) -> np.ndarray:
        """``log N(lambda_hat; c_X, s^2) - log N(lambda_hat; c_Y, s^2)`` per transcript."""
        dist = np.linalg.norm(prop - theta, axis=1)
        s2 = self._ratio_noise_sd(dist) ** 2
        cx, cy = self._clipped_ratio(X, theta, prop, dist), self._clipped_ratio(Y, theta, prop, dist)
        with np.errstate(divide="ignore", invalid="ignore"):
            term = ((lam_hat - cy) ** 2 - (lam_hat - cx) ** 2) / (2.0 * s2)
        return np.where(s2 > 0, term, 0.0)

    def _ratio_mu(self, X: np.ndarray, Y: np.ndarray) -> float:
        """One ratio release's shift over noise on a 1-d linear-loss pair: ``|sum clip_b(x) - sum clip_b(y)| / (2 b
        tau sqrt(N))``."""
        b = self.ratio_clip
        gap = abs(float(np.clip(X[:, 0], -b, b).sum() - np.clip(Y[:, 0], -b, b).sum()))
        return gap / (2.0 * b * self.tau * math.sqrt(self.N))


@register
class DPPenalty(_PenaltyChain):
    """DP-penalty (Yildirim & Ermis 2019; the authors' code of Räisä et al. 2021): a random-walk Metropolis chain
    with the penalty test on the noisy clipped log-likelihood ratio. Output: the transcript ``(n, n_steps, d + 2)``
    (proposal, noisy ratio, accept flag per step) or the final state ``(n, d)``."""

    id = "dp_penalty"
    theorems = ("raisa2021.thm_dp_penalty_privacy", "yildirim2019.cor_penalty_composition",
                "yildirim2019.thm_penalty_step_gaussian", "yildirim2019.lem_clipped_ratio_sensitivity")
    description = "DP-penalty: random-walk MH with the penalty test on the noisy clipped log-likelihood ratio"
    _theorem = "raisa2021.thm_dp_penalty_privacy"

    def __init__(self, model: Model, N: int, tau: float = 1.0, ratio_clip: float = 1.0, prop_sd: float = 0.5,
                 n_steps: int = 10, delta: float = 1e-5, theta0=None, release: str = "path",
                 misuse: str = "none") -> None:
        self._setup(model, N, tau, ratio_clip, n_steps, delta, theta0, release, misuse)
        self.prop_sd = check_real("prop_sd", prop_sd, low=0.0, low_inclusive=False)

    def _item_values(self) -> dict:
        return {"tau_l": self.tau, "N": self.N, "k": self.n_steps}

    def _mus(self) -> list[tuple[float, int]]:
        return [(1.0 / (self.tau * math.sqrt(self.N)), self.n_steps)]

    def _pair_shifts(self, X: np.ndarray, Y: np.ndarray) -> list[tuple[float, int]] | None:
        return [(self._ratio_mu(X, Y), self.n_steps)]

    def sample(self, dataset: Any, n: int, rng) -> np.ndarray:
        X = self._data(dataset)
        n = check_positive_int(n, "n")
        g = self._rng(rng)
        d = self.dim
        theta = np.broadcast_to(self.theta0, (n, d)).copy()
        out = np.empty((n, self.n_steps, d + 2)) if self.release == "path" else None
        for t in range(self.n_steps):  # a loop over the chain's steps, vectorised over the n chains
            prop = theta + self.prop_sd * g.standard_normal((n, d))
            lam_hat, accept = self._penalty_step(X, theta, prop, np.zeros(n), g)
            if out is not None:
                out[:, t, :d], out[:, t, d], out[:, t, d + 1] = prop, lam_hat, accept
            theta = np.where(accept[:, None], prop, theta)
        return theta if out is None else out

    def _transcript_log_ratio(self, X: np.ndarray, Y: np.ndarray, outputs) -> np.ndarray:
        d = self.dim
        out = check_finite_array(outputs, "outputs", shape=(None, self.n_steps, d + 2))
        theta = np.broadcast_to(self.theta0, (out.shape[0], d)).copy()
        total = np.zeros(out.shape[0])
        for t in range(self.n_steps):
            prop, lam_hat, accept = out[:, t, :d], out[:, t, d], out[:, t, d + 1] > 0.5
            total += self._ratio_term(X, Y, theta, prop, lam_hat)
            theta = np.where(accept[:, None], prop, theta)
        return total


@register
class DPHMC(_PenaltyChain):
    """DP-HMC (Räisä, Koskela & Honkela 2021): HMC whose leapfrog steps use noisy clipped gradients and whose
    acceptance is the penalty test. Output: the transcript ``(n, n_steps, (n_leapfrog + 2) d + 2)`` (initial momentum,
    the n_leapfrog + 1 noisy gradient sums, noisy ratio, accept flag per iteration) or the final state ``(n, d)``."""

    id = "dp_hmc"
    theorems = ("raisa2021.thm_dp_hmc_privacy", "raisa2021.lem_gradient_sensitivity",
                "yildirim2019.lem_clipped_ratio_sensitivity")
    description = "DP-HMC: HMC with noisy clipped gradients and the penalty test on the noisy clipped ratio"
    _theorem = "raisa2021.thm_dp_hmc_privacy"

    def __init__(self, model: Model, N: int, tau: float = 1.0, tau_g: float = 1.0, ratio_clip: float = 1.0,
                 L: float | None = None, step_size: float = 0.1, n_leapfrog: int = 3, n_steps: int = 5,
                 delta: float = 1e-5, theta0=None, release: str = "path", misuse: str = "none") -> None:
        self._setup(model, N, tau, ratio_clip, n_steps, delta, theta0, release, misuse)
        self.tau_g = check_real("tau_g", tau_g, low=0.0, low_inclusive=False)
        clip = model.constants.L if L is None else L
        if clip is None:
            raise ValueError("L must be > 0: the model has no gradient bound to default to")
        self.L = check_real("L", clip, low=0.0, low_inclusive=False)
        self.step_size = check_real("step_size", step_size, low=0.0, low_inclusive=False)
        self.n_leapfrog = check_positive_int(n_leapfrog, "n_leapfrog", maximum=1000)

    def _item_values(self) -> dict:
        return {"tau_l": self.tau, "tau_g": self.tau_g, "n_leapfrog": self.n_leapfrog, "N": self.N, "k": self.n_steps}

    def _mus(self) -> list[tuple[float, int]]:
        root = math.sqrt(self.N)
        return [(1.0 / (self.tau * root), self.n_steps),
                (1.0 / (self.tau_g * root), self.n_steps * (self.n_leapfrog + 1))]

    def _grad_noise_sd(self) -> float:
        """``2 tau_g sqrt(N) L``: the noise standard deviation of a gradient sum (raisa2021.lem_gradient_sensitivity)."""
        return 2.0 * self.tau_g * math.sqrt(self.N) * self.L

    def _clipped_grad_sum(self, X: np.ndarray, theta: np.ndarray) -> np.ndarray:
        return clip_gradients(self.model.grad_log_likelihood(X, theta), self.L).sum(axis=1)

    def _pair_shifts(self, X: np.ndarray, Y: np.ndarray) -> list[tuple[float, int]] | None:
        c = self.L
        gap = abs(float(np.clip(X[:, 0], -c, c).sum() - np.clip(Y[:, 0], -c, c).sum()))
        mu_g = gap / self._grad_noise_sd()
        return [(self._ratio_mu(X, Y), self.n_steps), (mu_g, self.n_steps * (self.n_leapfrog + 1))]

    def _width(self) -> int:
        return (self.n_leapfrog + 2) * self.dim + 2

    def _leapfrog(self, theta: np.ndarray, p0: np.ndarray, noisy_grad: Callable[[int, np.ndarray], np.ndarray]):
        """The leapfrog integration with released gradients ``noisy_grad(j, position)`` (j = 0..n_leapfrog): returns
        ``(proposal, final momentum)``. The same arithmetic for sampling and for the white-box statistic."""
        eta = self.step_size
        q, p = theta.copy(), p0.copy()
        g = noisy_grad(0, q) + self.model.grad_log_prior(q)
        for j in range(self.n_leapfrog):
            p = p + 0.5 * eta * g
            q = q + eta * p
            g = noisy_grad(j + 1, q) + self.model.grad_log_prior(q)
            p = p + 0.5 * eta * g
        return q, p

    def sample(self, dataset: Any, n: int, rng) -> np.ndarray:
        X = self._data(dataset)
        n = check_positive_int(n, "n")
        g = self._rng(rng)
        d, n_leap = self.dim, self.n_leapfrog
        sg = self._grad_noise_sd()
        theta = np.broadcast_to(self.theta0, (n, d)).copy()
        out = np.empty((n, self.n_steps, self._width())) if self.release == "path" else None
        grads = np.empty((n, n_leap + 1, d))

        def noisy_grad(j: int, q: np.ndarray) -> np.ndarray:
            grads[:, j] = self._clipped_grad_sum(X, q) + sg * g.standard_normal((n, d))
            return grads[:, j]

        for t in range(self.n_steps):  # a loop over the chain's iterations, vectorised over the n chains
            p0 = g.standard_normal((n, d))
            prop, p = self._leapfrog(theta, p0, noisy_grad)
            kinetic = 0.5 * np.sum(p0 * p0, axis=1) - 0.5 * np.sum(p * p, axis=1)
            lam_hat, accept = self._penalty_step(X, theta, prop, kinetic, g)
            if out is not None:
                out[:, t, :d] = p0
                out[:, t, d:(n_leap + 2) * d] = grads.reshape(n, -1)
                out[:, t, -2], out[:, t, -1] = lam_hat, accept
            theta = np.where(accept[:, None], prop, theta)
        return theta if out is None else out

    def _transcript_log_ratio(self, X: np.ndarray, Y: np.ndarray, outputs) -> np.ndarray:
        d, n_leap = self.dim, self.n_leapfrog
        out = check_finite_array(outputs, "outputs", shape=(None, self.n_steps, self._width()))
        n = out.shape[0]
        s2 = self._grad_noise_sd() ** 2
        theta = np.broadcast_to(self.theta0, (n, d)).copy()
        total = np.zeros(n)
        for t in range(self.n_steps):
            released = out[:, t, d:(n_leap + 2) * d].reshape(n, n_leap + 1, d)

            def noisy_grad(j: int, q: np.ndarray) -> np.ndarray:
                nonlocal total
                gj = released[:, j]
                gx, gy = self._clipped_grad_sum(X, q), self._clipped_grad_sum(Y, q)
                total = total + (np.sum((gj - gy) ** 2, axis=1) - np.sum((gj - gx) ** 2, axis=1)) / (2.0 * s2)
                return gj

            prop, _ = self._leapfrog(theta, out[:, t, :d], noisy_grad)
            total = total + self._ratio_term(X, Y, theta, prop, out[:, t, -2])
            theta = np.where((out[:, t, -1] > 0.5)[:, None], prop, theta)
        return total
