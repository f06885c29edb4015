"""One-posterior sample (OPS) by a long MCMC run, with convergence diagnostics (Wang et al. 2015, Algorithm 1).

OPS releases one draw from the tempered posterior ``pi_rho(theta | X) ~ exp(rho (sum_i log p(x_i|theta) + log prior))``
with ``rho = min(1, eps/(4B))`` (Algorithm 1; Theorem 1 gives eps-DP for an *exact* draw). Without a conjugate form
the draw is approximated by a long Metropolis-adjusted Langevin (MALA) run per output, all chains at once:

    theta' = theta + (h/2) grad log pi_rho(theta) + sqrt(h) xi,
    accept with probability min(1, pi_rho(theta') q(theta | theta') / (pi_rho(theta) q(theta' | theta))),

``q(a | b) = N(a; b + (h/2) grad log pi_rho(b), h I)`` (Roberts & Tweedie 1996). Proposals outside a bounded
parameter space have ``pi_rho = 0`` and are rejected. The step ``h`` is adapted during burn-in (common to all
chains, Robbins-Monro on log h towards acceptance 0.574) and frozen afterwards: the kernel
(:class:`~dpverify.samplers.gradients.TemperedLogPosterior` with :class:`~dpverify.samplers.integrators.MALAIntegrator`)
takes h as a per-step parameter, the sampler adapts it.

An MCMC draw is only approximately from ``pi_rho``: by Wang et al. 2015, Proposition 3 a total-variation error
``delta_tv`` turns eps-DP into (eps, (1 + e^eps) delta_tv)-DP. The run reports split R-hat and bulk ESS
(Vehtari, Gelman, Simpson, Carpenter, Buerkner 2021, "Rank-normalization, folding, and localization: an improved
R-hat", Bayesian Analysis 16(2)) over a subset of chains, so a user can see whether the chains mixed.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np
from scipy.special import ndtri
from scipy.stats import rankdata

from dpverify.backends import NUMPY, generator_backend, is_device_generator
from dpverify.validation import check_epsilon, check_finite_array, check_positive_int, check_real
from dpverify.samplers.base import Claim
from dpverify.samplers.claims import claim_from, evaluate_theorem
from dpverify.samplers.device import DeviceData, dense_estimator
from dpverify.samplers.gradients import Data, TemperedLogPosterior
from dpverify.samplers.integrators import MALAIntegrator, MALAState
from dpverify.samplers.kernels import ChainState, Kernel
from dpverify.samplers.registry import register
from dpverify.samplers.schedules import check_steps
from dpverify.samplers.sgmcmc import StochasticGradientSampler

__all__ = ["split_rhat", "effective_sample_size", "AdaptiveMALAState", "OPSMCMCLogistic"]

#: Vehtari et al. 2021 recommend R-hat < 1.01 and a bulk ESS of at least 100 per chain group (400 for 4 chains).
RHAT_THRESHOLD = 1.01


def _as_draws(draws) -> np.ndarray:
    x = check_finite_array(draws, "draws")
    if x.ndim == 2:
        x = x[..., None]
    if x.ndim != 3 or x.shape[0] < 1 or x.shape[1] < 4:
        raise ValueError(f"draws must have shape (chains, draws[, params]) with at least 4 draws; got {np.shape(draws)}")
    return x


def _split_chains(x: np.ndarray) -> np.ndarray:
    """Each chain cut into its first and second half (the middle draw dropped for odd lengths)."""
    half = x.shape[1] // 2
    return np.concatenate([x[:, :half], x[:, -half:]], axis=0)


def _rank_normalise(x: np.ndarray) -> np.ndarray:
    """``Phi^{-1}((r - 3/8)/(S + 1/4))`` of the pooled ranks r (average ties), per parameter (Vehtari et al. 2021, eq. 14)."""
    m, n, p = x.shape
    ranks = rankdata(x.reshape(m * n, p), axis=0, method="average")
    return ndtri((ranks - 0.375) / (m * n + 0.25)).reshape(m, n, p)


def _basic_rhat(x: np.ndarray) -> np.ndarray:
    """Gelman-Rubin: ``sqrt(var_plus / W)``, ``var_plus = (n-1)/n W + B/n`` (Gelman et al. 2013, BDA3 eq. 11.4)."""
    n = x.shape[1]
    W = x.var(axis=1, ddof=1).mean(axis=0)
    B = n * x.mean(axis=1).var(axis=0, ddof=1)
    var_plus = (n - 1) / n * W + B / n
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(W > 0, np.sqrt(var_plus / np.where(W > 0, W, 1.0)), np.nan)


def split_rhat(draws) -> np.ndarray:
    """Rank-normalised split R-hat, ``max(bulk, folded tail)`` per parameter (Vehtari et al. 2021, Sec. 4.2).

    ``draws``: ``(chains, draws)`` or ``(chains, draws, params)``; returns one value per parameter.
    """
    x = _split_chains(_as_draws(draws))
    if x.shape[0] < 2:
        raise ValueError("split R-hat needs at least one chain of 4 draws (two halves)")
    bulk = _basic_rhat(_rank_normalise(x))
    folded = np.abs(x - np.median(x.reshape(-1, x.shape[2]), axis=0))
    tail = _basic_rhat(_rank_normalise(folded))
    return np.fmax(bulk, tail)


def _autocovariance(x: np.ndarray) -> np.ndarray:
    """Biased autocovariance of each chain along axis 1 by FFT: ``(m, n, p)``."""
    n = x.shape[1]
    centred = x - x.mean(axis=1, keepdims=True)
    size = 1 << (2 * n - 1).bit_length()
    f = np.fft.rfft(centred, n=size, axis=1)
    return np.fft.irfft(f * np.conj(f), n=size, axis=1)[:, :n] / n


def effective_sample_size(draws, rank_normalise: bool = True) -> np.ndarray:
    """Bulk effective sample size per parameter (Vehtari et al. 2021, Sec. 3.2; Geyer 1992 initial monotone sequence).

    On split (and by default rank-normalised) chains: ``rho_t = 1 - (W - mean_c acov_c(t)) / var_plus``; with
    ``P_k = rho_{2k} + rho_{2k+1}`` kept while positive and made non-increasing,
    ``tau = -1 + 2 sum_k P_k`` and ``ESS = m n / tau``.
    """
    x = _split_chains(_as_draws(draws))
    if rank_normalise:
        x = _rank_normalise(x)
    m, n, p = x.shape
    acov = _autocovariance(x)
    W = acov[:, 0].mean(axis=0) * n / (n - 1)
    var_plus = W * (n - 1) / n + (x.mean(axis=1).var(axis=0, ddof=1) if m > 1 else 0.0)
    rho = 1.0 - (W - acov.mean(axis=0)) / var_plus  # (n, p)
    rho[0] = 1.0
    K = n // 2
    pairs = rho[0 : 2 * K : 2] + rho[1 : 2 * K : 2]  # (K, p)
    positive = np.cumprod(pairs > 0, axis=0).astype(bool)
    mono = np.minimum.accumulate(np.where(positive, pairs, np.inf), axis=0)
    tau = -1.0 + 2.0 * np.sum(np.where(positive, mono, 0.0), axis=0)
    tau = np.maximum(tau, 1.0 / math.log10(max(m * n, 10)))  # Stan's cap: ESS <= m n log10(m n)
    return m * n / tau


class AdaptiveMALAState(NamedTuple):
    """OPS by MALA's chain variables: MALA's own state ``mala`` (:class:`~dpverify.samplers.integrators.MALAState`:
    positions, the target's log density and gradient there, the last proposals' acceptances) and the proposal step
    ``step_size`` (h) its next transition uses, common to all chains (adapted during burn-in, then fixed)."""

    mala: MALAState
    step_size: float

    @property
    def theta(self) -> np.ndarray:
        """The positions ``(chains, d)`` (``mala.theta``)."""
        return self.mala.theta

    @property
    def aux(self) -> dict[str, Any]:
        """Read-only, for code written against the untyped state: MALA's other variables and the step, under the
        names that state used (``logp``, ``grad``, ``h``, ``accepted``)."""
        return {"logp": self.mala.logp, "grad": self.mala.grad, "h": self.step_size, "accepted": self.mala.accepted}


@register
class OPSMCMCLogistic(StochasticGradientSampler):
    """OPS (Wang et al. 2015, Alg. 1) for a model without a conjugate posterior -- built for
    :class:`~dpverify.models.logistic.LogisticRegression` with a bounded parameter space (finite B) -- by MALA.

    Each output is the last state of its own chain after ``n_steps`` (the first ``burn_in`` adapt h). Chains start
    at data-independent random points (``N(0, init_scale^2 I)`` shrunk into the parameter ball). After ``sample``,
    :attr:`diagnostics` holds split R-hat, bulk ESS (over the post-burn-in draws of the first ``diagnostic_chains``
    chains), the acceptance rate and h.
    """

    id = "ops_mcmc_logistic"
    theorems = ("wang2015.alg1_ops_scaled", "wang2015.thm1_ops_pure_dp")
    output = "sample"
    description = "OPS (Wang et al. 2015, Alg. 1) by MALA on the tempered posterior, with split R-hat and ESS"

    def __init__(self, model, N: int, epsilon: float, n_steps: int = 2000, burn_in: int | None = None,
                 step_size: float | None = None, init_scale: float = 1.0, diagnostic_chains: int = 32,
                 unguaranteed: bool = False):
        self._setup_common(model, N, None, unguaranteed)
        self.epsilon = check_epsilon(epsilon)
        self.n_steps = check_steps(n_steps, "n_steps", minimum=8)
        self.burn_in = self.n_steps // 2 if burn_in is None else check_positive_int(burn_in, "burn_in", minimum=0)
        if self.burn_in > self.n_steps - 8:
            raise ValueError(f"burn_in must leave at least 8 draws for the diagnostics; got {self.burn_in} of {self.n_steps}")
        self.step_size = None if step_size is None else check_real("step_size", step_size, low=0.0, low_inclusive=False)
        self.init_scale = check_real("init_scale", init_scale, low=0.0, low_inclusive=False)
        self.diagnostic_chains = check_positive_int(diagnostic_chains, "diagnostic_chains", minimum=2)
        B = model.constants.B
        if B is None or not math.isfinite(B):
            raise ValueError(
                f"OPS (Wang et al. 2015, Alg. 1) needs sup |log p| <= B finite; {model!r} has none "
                "(give LogisticRegression a theta_radius)"
            )
        self.B = float(B)
        self.rho = self._evaluation().conclusion["rho"]
        self.diagnostics: dict | None = None
        # the kernel: the tempered posterior (every record) and MALA; h is adapted between steps (burn-in), not scheduled
        self._set_kernel(Kernel(TemperedLogPosterior(model, self.rho), MALAIntegrator()), None)

    def _evaluation(self):
        return evaluate_theorem("wang2015.alg1_ops_scaled", {"B": self.B, "epsilon": self.epsilon}, self.unguaranteed)

    def _init_theta(self, n: int, rng) -> np.ndarray:
        """``n`` data-independent starts ``N(0, init_scale^2 I)`` shrunk into 0.9 of the parameter ball, on ``rng``'s
        backend."""
        xp = generator_backend(rng)
        theta = self.init_scale * rng.standard_normal((n, self.model.dim))
        radius = self.model.theta_radius
        if radius is not None:
            norms = xp.norm(theta)[:, None]
            theta = theta * xp.minimum(0.9 * radius / xp.maximum(norms, 1e-300), 1.0)
        return theta

    def init(self, dataset, n_chains: int, rng) -> ChainState[AdaptiveMALAState]:
        """``n_chains`` chains at data-independent random starts: an :class:`AdaptiveMALAState` (MALA's state with
        the log target and its gradient there, and the starting step h) at step 0."""
        n_chains = check_positive_int(n_chains, "n_chains")
        rng = self._rng(rng)
        return self._start(self.prepare_data(dataset), n_chains, rng)

    def _start(self, data, n_chains: int, rng) -> ChainState[AdaptiveMALAState]:
        theta = self._init_theta(n_chains, rng)
        target = self._kernel_for(data).estimator.estimate(None, theta, data)
        state: MALAState = self._require_kernel().integrator.init(theta, target)
        h = self.step_size
        if h is None:  # a starting guess of the inverse curvature; adapted during burn-in
            R = self.model.constants.R
            if R is None:
                raise ValueError(f"the default step size needs the data bound R of {self.model!r}; give step_size")
            h = 1.0 / (self.rho * self.N * R**2 / self.model.dim + 1.0)
        return ChainState(AdaptiveMALAState(state, h), 0)

    def _kernel_for(self, data) -> Kernel:
        """The kernel on numpy's :class:`Data`, its device counterpart (the dense tempered posterior, the same MALA
        update) on another backend's :class:`~dpverify.samplers.device.DeviceData`."""
        kernel = self._require_kernel()
        if isinstance(data, Data):
            return kernel

        return Kernel(dense_estimator(kernel.estimator), kernel.integrator)

    def device_path_available(self) -> bool:
        """Whether :meth:`sample` runs on another backend's generator: the model has the backend-generic log prior,
        full-data terms and prior gradient (:meth:`~dpverify.models.base.Model.dense_capabilities`)."""
        return {"dense_log_prior", "dense_full_data_terms", "dense_grad_log_prior"} <= self.model.dense_capabilities()

    def _step(self, state: ChainState[AdaptiveMALAState], data, rng) -> ChainState[AdaptiveMALAState]:
        """One MALA transition of every chain with the state's step h (the kernel; see the module docstring): MALA's
        typed state in, its new one out, the step carried over."""
        chain = state.state
        new = self._kernel_for(data).step(rng, chain.mala, data, step_size=chain.step_size)
        return ChainState(AdaptiveMALAState(new, chain.step_size), state.t + 1)

    def sample_with_diagnostics(self, dataset, n: int, rng) -> tuple[np.ndarray, dict]:
        """``n`` OPS draws ``(n, d)`` and the diagnostics dict. With ``rng`` a generator of another backend
        (:mod:`dpverify.backends`) the chains run on its device and the draws are its arrays; the step's adaptation
        (one acceptance rate per step) and the diagnostics' trace (the first ``diagnostic_chains`` chains) are read on
        the host."""
        n = check_positive_int(n, "n")
        device = is_device_generator(rng)
        if device and not self.device_path_available():
            raise NotImplementedError(f"{self.id}: the model {type(self.model).__name__} has no backend-generic "
                                      "log prior and full-data terms (backend='torch' supports LogisticRegression)")
        data: Data | DeviceData = dataset if isinstance(dataset, DeviceData) else self.prepare_data(dataset)
        if device:
            backend = rng.backend
            if isinstance(data, Data):
                data = DeviceData(backend.asarray(data.prepared), data.N)
        elif isinstance(data, DeviceData):
            raise TypeError("a dataset on a device (DeviceData) needs that backend's generator as rng")
        else:
            rng = self._rng(rng)
            backend = NUMPY
        state = self._start(data, n, rng)
        n_diag = min(n, self.diagnostic_chains)
        keep = self.n_steps - self.burn_in
        trace = np.empty((n_diag, keep, self.model.dim))
        accepted = 0.0
        for k in range(self.n_steps):
            state = self._step(state, data, rng)
            rate = float(backend.sum(backend.astype(state.state.mala.accepted, "float64"), axis=0)) / n
            if k < self.burn_in:
                if self.step_size is None:  # Robbins-Monro on log h towards acceptance 0.574 (burn-in only)
                    h = state.state.step_size * math.exp((rate - 0.574) / math.sqrt(k + 1.0))
                    state = ChainState(state.state._replace(step_size=h), state.t)
            else:
                trace[:, k - self.burn_in] = backend.to_numpy(state.theta[:n_diag])
                accepted += rate
        rhat = split_rhat(trace)
        diagnostics = {
            "rhat": rhat,
            "ess_bulk": effective_sample_size(trace),
            "acceptance": accepted / keep,
            "step_size": state.state.step_size,
            "chains": n_diag,
            "draws_per_chain": keep,
            "rho": self.rho,
            "converged": bool(np.all(rhat < RHAT_THRESHOLD)),
        }
        self.diagnostics = diagnostics
        return state.theta, diagnostics

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        return self.sample_with_diagnostics(dataset, n, rng)[0]

    def guarantee(self) -> Claim:
        """eps-DP of an exact draw (Alg. 1 / Theorem 1); the MCMC error adds ``(1 + e^eps) delta_tv`` to delta
        (Proposition 3), which the diagnostics can flag but not bound."""
        return claim_from(self._evaluation(), exact_sampling=False,
                          note="MCMC approximation: Wang et al. 2015 Prop. 3 adds (1 + e^eps) TV to delta",
                          diagnostics=self.diagnostics)
