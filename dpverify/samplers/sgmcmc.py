"""Shared machinery of the stochastic-gradient samplers: mini-batches, gradients, the time loop, claims.

- mini-batches are drawn by :mod:`dpverify.samplers.minibatch` (re-exported here);
- :func:`minibatch_gradient_sum` -- sum over a mini-batch of (clipped) per-record gradients for a batch of chains.
- :class:`StochasticGradientSampler` -- the common init / step / sample loop (loop over time steps only).
- :func:`evaluate_theorem` -- a theorem of the catalogue evaluated at a sampler's parameters.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_finite_array, check_positive_int, check_real
from dpverify.models.logistic import clip_gradients
from dpverify.samplers.base import Claim, Sampler
from dpverify.samplers.minibatch import draw_minibatches, draw_poisson_minibatches

__all__ = [
    "draw_minibatches",
    "draw_poisson_minibatches",
    "minibatch_gradient_sum",
    "per_record_gradients",
    "full_gradient_sum",
    "Data",
    "ChainState",
    "StochasticGradientSampler",
    "evaluate_theorem",
    "catalogue_theorem",
    "claim_from",
    "GradientMechanism",
    "LangevinSampler",
    "MAX_STEPS",
    "MAX_OUTPUT_ELEMENTS",
    "check_steps",
]


class Data(NamedTuple):
    """A dataset validated by the model once per run: ``raw`` (validated array), ``prepared`` (the model's
    ``prepare(raw)``, e.g. signed features for logistic regression), ``N`` (number of records)."""

    raw: np.ndarray
    prepared: np.ndarray
    N: int


def per_record_gradients(model, data: Data, idx: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``grad_theta log p(x_i | theta_c)`` for the records ``idx[c]`` of each chain c: shape ``(chains, b, d)``."""
    if hasattr(model, "per_record_gradients"):
        return model.per_record_gradients(data.prepared, idx, theta)
    c = np.arange(theta.shape[0])[:, None]
    return model.grad_log_likelihood(data.raw, theta)[c, idx]


def minibatch_gradient_sum(model, data: Data, idx: np.ndarray, theta: np.ndarray,
                           clip: float | None = None, weights: np.ndarray | None = None) -> np.ndarray:
    """``sum_{i in batch} w_i clip_L(grad_theta log p(x_i | theta))`` per chain, shape ``(chains, d)``.

    Clipping is Li et al. 2019, Alg. 1 step 4 (:func:`dpverify.models.logistic.clip_gradients`); ``weights`` is
    e.g. the 0/1 mask of a Poisson batch. Models with a ``minibatch_gradient`` method do it without
    materialising every per-record gradient.
    """
    if hasattr(model, "minibatch_gradient"):
        return model.minibatch_gradient(data.prepared, idx, theta, clip=clip, weights=weights)
    g = per_record_gradients(model, data, idx, theta)
    if clip is not None:
        g = clip_gradients(g, clip)
    if weights is not None:
        g = g * weights[..., None]
    return g.sum(axis=-2)


def full_gradient_sum(model, data: Data, theta: np.ndarray) -> np.ndarray:
    """``sum_{i=1}^N grad_theta log p(x_i | theta)`` per chain (full batch), through the model's
    ``full_data_terms`` when it has one (sufficient statistics / one matrix product)."""
    if hasattr(model, "full_data_terms"):
        return model.full_data_terms(data.prepared, theta)[1]
    idx = np.broadcast_to(np.arange(data.N), (theta.shape[0], data.N))
    return minibatch_gradient_sum(model, data, idx, theta)


class ChainState(NamedTuple):
    """State of a batch of chains: ``theta`` ``(chains, d)``, the iteration count ``t`` (0 before the first step)
    and the auxiliary variables of the algorithm (momentum, thermostat, Fisher estimate) in ``aux``."""

    theta: np.ndarray
    t: int
    aux: dict


def catalogue_theorem(theorem_id: str):
    """The catalogue item ``theorem_id``; an unknown id is a ``LookupError`` naming it (never None: a typo must not
    switch a sampler's claim or hypothesis check off)."""
    from dpverify.theorems import registry

    try:
        return registry.get(theorem_id)
    except KeyError:
        raise LookupError(f"theorem {theorem_id!r} is not in the catalogue; a sampler's privacy claim rests on it "
                          "(see `dpverify theorems list`)") from None


def evaluate_theorem(theorem_id: str, values: dict, allow_unguaranteed: bool):
    """``Theorem.evaluate`` of catalogue item ``theorem_id`` with the entries of ``values`` it declares as symbols.

    Raises ``LookupError`` for an unknown ID, and the theorem's ``HypothesisError`` (a ``ValueError`` naming the
    failed hypothesis) unless ``allow_unguaranteed``.
    """
    thm = catalogue_theorem(theorem_id)
    kwargs = {k: v for k, v in values.items() if k in thm.symbols}
    return thm.evaluate(allow_unguaranteed=allow_unguaranteed, **kwargs)


def claim_from(evaluation, *, epsilon_key: str = "epsilon", delta_key: str = "delta", delta: float | None = None,
               force_unguaranteed: bool = False, **details: Any) -> Claim:
    """A :class:`Claim` from a theorem :class:`~dpverify.theorems.base.Evaluation`."""
    conc = evaluation.conclusion
    eps = float(conc[epsilon_key]) if epsilon_key in conc else float(evaluation.values[epsilon_key])
    if delta is None:
        delta = float(conc[delta_key]) if delta_key in conc else float(evaluation.values.get(delta_key, 0.0))
    return Claim(
        epsilon=eps,
        delta=float(delta),
        theorem=evaluation.theorem_id,
        guaranteed=bool(evaluation.guaranteed and not force_unguaranteed),
        hypotheses=dict(evaluation.hypotheses),
        details={"values": dict(evaluation.values), "conclusion": dict(conc), **details},
    )


class StochasticGradientSampler(Sampler):
    """Common loop of the gradient-based samplers: ``init``, ``step`` (subclasses), ``sample``.

    Subclasses set ``n_steps`` and implement ``_step(state, data, rng) -> ChainState`` and optionally
    ``_init_aux(theta, data, rng) -> dict``. ``theta0`` (data-independent, Wang et al. 2015, Theorem 4) is the
    common start of every chain (default 0).
    """

    model: Any
    N: int
    n_steps: int

    def _setup_common(self, model, N: int, theta0, unguaranteed: bool) -> None:
        self.model = model
        self.N = check_positive_int(N, "N")
        d = model.dim
        self.theta0 = np.zeros(d) if theta0 is None else check_finite_array(theta0, "theta0", shape=(d,))
        self.unguaranteed = bool(unguaranteed)

    def _setup_wang_budget(self, tau: int, T: float, epsilon: float, delta: float, *, tau_minimum: int = 1) -> None:
        """The privacy budget of Wang et al. 2015's samplers (Alg. 2, eqs. 4.2-4.5, supp. Alg. 4): batch size
        ``tau`` <= N, ``T`` data passes, target (epsilon, delta); ``n_steps`` = N T / tau iterations."""
        self.tau = check_positive_int(tau, "tau", minimum=tau_minimum)
        if self.tau > self.N:
            raise ValueError(f"tau must be <= N = {self.N}; got {self.tau}")
        self.T = check_real("T", T, low=0.0, low_inclusive=False)
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta, allow_zero=False)
        self.n_steps = wang_iterations(self.N, self.T, self.tau)

    # -- data -----------------------------------------------------------------
    def prepare_data(self, dataset) -> Data:
        """Validate ``dataset`` with the model (clear errors) and check it has the ``N`` records the privacy
        parameters were set for."""
        if isinstance(dataset, Data):
            return dataset
        raw = self.model.validate_dataset(dataset)
        if raw.shape[0] != self.N:
            raise ValueError(f"dataset must have N = {self.N} records (the sampler was built for N = {self.N}); got {raw.shape[0]}")
        prepared = self.model.prepare(raw) if hasattr(self.model, "prepare") else raw
        return Data(raw, prepared, raw.shape[0])

    # -- kernel ---------------------------------------------------------------
    def init(self, dataset, n_chains: int, rng) -> ChainState:
        """``n_chains`` chains at ``theta0``."""
        n_chains = check_positive_int(n_chains, "n_chains")
        rng = self._rng(rng)
        data = self.prepare_data(dataset)
        theta = np.broadcast_to(self.theta0, (n_chains, self.model.dim)).copy()
        return ChainState(theta, 0, self._init_aux(theta, data, rng))

    def _init_aux(self, theta: np.ndarray, data: Data, rng: np.random.Generator) -> dict:
        return {}

    def step(self, state: ChainState, dataset, rng) -> ChainState:
        """One transition of every chain (pure: returns a new state)."""
        return self._step(state, self.prepare_data(dataset), self._rng(rng))

    def _step(self, state: ChainState, data: Data, rng: np.random.Generator) -> ChainState:  # pragma: no cover
        raise NotImplementedError

    def run(self, dataset, n: int, rng, record_path: bool = False):
        """Run ``n`` chains for ``n_steps``; returns the final state and, if asked, the path ``(n, n_steps+1, d)``."""
        rng = self._rng(rng)
        data = self.prepare_data(dataset)
        size = n * (self.n_steps + 1 if record_path else 1) * self.model.dim
        if size > MAX_OUTPUT_ELEMENTS:
            raise ValueError(f"n = {n} runs of {self.n_steps} steps in dimension {self.model.dim} would need {size} "
                             f"values (more than {MAX_OUTPUT_ELEMENTS}); ask for fewer runs per call")
        state = self.init(data, n, rng)
        path = None
        if record_path:
            path = np.empty((state.theta.shape[0], self.n_steps + 1, self.model.dim))
            path[:, 0] = state.theta
        for k in range(self.n_steps):
            state = self._step(state, data, rng)
            if record_path:
                path[:, k + 1] = state.theta
        return state, path

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        """``n`` independent runs: final states ``(n, d)`` or paths ``(n, n_steps + 1, d)`` per ``output``."""
        n = check_positive_int(n, "n")
        state, path = self.run(dataset, n, rng, record_path=self.output == "path")
        return path if self.output == "path" else state.theta


def stochastic_grad_log_posterior(model, data: Data, theta: np.ndarray, tau: int, rng: np.random.Generator) -> np.ndarray:
    """``grad log prior(theta) + (N/tau) sum_{i in S} grad log p(x_i | theta)`` with S a uniform ``tau``-subset per
    chain: the unbiased mini-batch gradient of the log posterior of Wang et al. 2015, eq. (4.1) and Algorithm 2
    (minus the stochastic gradient of U in eqs. 4.2-4.5)."""
    idx = draw_minibatches(rng, theta.shape[0], data.N, tau)
    return model.grad_log_prior(theta) + (data.N / tau) * minibatch_gradient_sum(model, data, idx, theta)


#: The most steps a reference-sampler run may have: a schedule of 10^7 steps is 80 MB per array and a run of that
#: length takes hours; larger values are rejected up front instead of exhausting memory later.
MAX_STEPS = 10**7
#: The most float64 values one call may allocate for outputs (2 GiB); the auditor asks for chunks well below it.
MAX_OUTPUT_ELEMENTS = 2**28


def check_steps(value, name: str = "n_steps", minimum: int = 1) -> int:
    """A number of steps in ``[minimum, MAX_STEPS]``."""
    return check_positive_int(value, name, minimum=minimum, maximum=MAX_STEPS)


def wang_iterations(N: int, T: float, tau: int) -> int:
    """``floor(N T / tau)``: the iterations of T data passes with mini-batches of size tau (Wang et al. 2015, Alg. 2)."""
    n = int(np.floor(N * T / tau))
    if n < 1:
        raise ValueError(f"T must give at least one iteration floor(N T / tau) >= 1; got N T / tau = {N * T / tau}")
    if n > MAX_STEPS:
        raise ValueError(f"T = {T} gives floor(N T / tau) = {n} iterations; at most {MAX_STEPS} are allowed")
    return n


# -- Langevin-type samplers: one update form, its mechanism description, the pair's privacy loss -----------------

_RELEASES = ("final", "path")


class GradientMechanism:
    """What every private gradient sampler offers the auditor, given its :meth:`mechanism` description and the
    attributes ``model``, ``theta0``, ``neighbouring``, ``_sampling`` (the batch scheme) and ``_clip``:

    - :meth:`account` -- the accountant's epsilon of the run (PLD of the path; an upper bound for a final release);
    - :meth:`canary_shift` / :meth:`pair_privacy_loss` -- the privacy-loss distribution of an audited pair when it
      is a verified gradient canary (:mod:`dpverify.models.canary`), for the audit's budget ceiling.
    """

    neighbouring: str

    def mechanism(self):  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    @property
    def record_sensitivity(self) -> float:
        """The model's per-record gradient sensitivity under ``neighbouring``, after clipping."""
        return self.model.gradient_sensitivity(self.neighbouring, self._clip)

    def account(self, delta: float, method: str = "pld"):
        """The accountant's (epsilon, delta) of the run (:meth:`MechanismDescription.account`)."""
        return self.mechanism().account(delta, method=method)


    # -- the audited pair ----------------------------------------------------------------------------------------
    def _pair(self, dataset, neighbour):
        """``(X, Y, i)``: both datasets prepared and the index of the one record where they differ (None if they
        differ in no record or in more than one)."""
        X, Y = self.prepare_data(dataset), self.prepare_data(neighbour)
        rows = np.flatnonzero(np.any(X.raw != Y.raw, axis=tuple(range(1, X.raw.ndim))))
        return X, Y, (int(rows[0]) if rows.size == 1 else None)

    def _record_gradients(self, data: Data, rows: np.ndarray, theta: np.ndarray) -> np.ndarray:
        """Clipped gradients of records ``rows`` at each theta: ``(len(theta), len(rows), d)``."""
        idx = np.broadcast_to(np.asarray(rows), (theta.shape[0], len(rows)))
        g = per_record_gradients(self.model, data, idx, theta)
        return g if self._clip is None else clip_gradients(g, self._clip)

    def _probe_thetas(self) -> np.ndarray:
        d = self.model.dim
        offsets = np.vstack([np.zeros(d), 0.1 * np.eye(d), -0.1 * np.eye(d), 0.05 * np.ones(d)])
        return self.theta0 + offsets

    def canary_shift(self, dataset, neighbour) -> float | None:
        """``||u||`` if (dataset, neighbour) is a *verified canary pair* for this sampler, else None.

        A canary pair differs in one record i whose (clipped) gradient difference ``u = g_D(x_i) - g_D'(x_i)`` is
        the same at every probe point (theta0 and nearby points), and whose other records make the mini-batch
        mixture collapse to the dominating pair of the description: for the full batch nothing more; for
        fixed-size batches every other record equals the differing record on one side (its gradient then cancels
        exactly); for Poisson batches every other record, and the differing record on one side, has zero gradient
        (a null record, so the pair behaves as add/remove). Then each step's pair is exactly
        ``((1-q) N(m, s^2) + q N(m + c w u, s^2), N(m, s^2))`` (or its reverse), and the path's privacy loss is the
        description's with the sensitivity ``c w ||u||``.
        """
        from dpverify.calculus.mechanism_description import FixedSizeSampling, FullBatch

        X, Y, i = self._pair(dataset, neighbour)
        if i is None:
            return None
        probes = self._probe_thetas()
        gx = self._record_gradients(X, np.arange(X.N), probes)  # (probes, N, d)
        gy_i = self._record_gradients(Y, np.array([i]), probes)[:, 0]
        u = gx[:, i] - gy_i
        if not np.allclose(u, u[0], rtol=1e-9, atol=1e-12):
            return None
        others = np.delete(gx, i, axis=1)
        if isinstance(self._sampling, FullBatch) or others.shape[1] == 0:
            pass
        elif isinstance(self._sampling, FixedSizeSampling):
            same_as = [np.allclose(others, side[:, None, :], rtol=1e-12, atol=1e-14) for side in (gx[:, i], gy_i)]
            if not any(same_as):
                return None
        else:  # Poisson: null others and a null record on one side
            null_side = any(np.allclose(side, 0.0, atol=1e-14) for side in (gx[:, i], gy_i))
            if not (np.allclose(others, 0.0, atol=1e-14) and null_side):
                return None
        return float(np.linalg.norm(u[0]))

    def _canary_description(self, shift: float):
        """The description of the run on a canary pair with gradient difference ``shift``: every data term's
        sensitivity scaled by ``shift / record_sensitivity``."""
        return self.mechanism().scaled(shift / self.record_sensitivity)

    def pair_privacy_loss(self, dataset, neighbour):
        """The pair's privacy loss for the budget ceiling (a
        :class:`~dpverify.calculus.mechanism_description.PairPrivacyLoss`): the description's PLD with the canary's
        sensitivity when the pair is a verified canary (:meth:`canary_shift`; exact for path releases), else the
        mechanism's worst-case PLD (an upper bound). None for a run without noise. Cached per pair."""
        key = (self._pair_key(dataset), self._pair_key(neighbour))
        cache = self.__dict__.setdefault("_pair_pld_cache", {})
        if key not in cache:
            cache[key] = self._canary_pld(dataset, neighbour)
        return cache[key]

    @staticmethod
    def _pair_key(data) -> tuple:
        arr = np.ascontiguousarray(np.asarray(getattr(data, "raw", data), dtype=float))
        return arr.shape, hash(arr.tobytes())

    def _canary_pld(self, dataset, neighbour):
        from dpverify.calculus.mechanism_description import PairPrivacyLoss

        if not self.mechanism().is_private:
            return None
        shift = self.canary_shift(dataset, neighbour)
        path = self.output == "path"
        if shift is None:
            return PairPrivacyLoss(self.mechanism().pld(), "upper bound: the mechanism's worst-case PLD (the pair is "
                                   "not a verified canary)" + ("" if path else ", of the path"), exact=False)
        description = self._canary_description(shift)
        exactness = "exact" if path else "of the path: an upper bound for the final iterate"
        return PairPrivacyLoss(description.pld(), f"canary pair PLD ({exactness}): gradient difference {shift:.4g} of "
                               f"the sensitivity {self.record_sensitivity:.4g}", exact=path)

    def exact_epsilon(self, dataset, neighbour, delta: float) -> float | None:
        """For a path release on a verified canary pair: the pair's epsilon at ``delta`` from its privacy-loss
        distribution (exact up to the PLD's discretisation; the upper end of its bracket). None otherwise (final
        releases: the path's value is only an upper bound; other pairs: unknown)."""
        if self.output != "path" or not delta > 0:
            return None
        loss = self.pair_privacy_loss(dataset, neighbour)
        return loss.epsilon(delta) if loss is not None and loss.exact else None


class LangevinSampler(GradientMechanism, StochasticGradientSampler):
    """Samplers whose released state moves as

        theta_{t+1} = theta_t + c_t (w_prior grad log prior(theta_t) + w_data sum_{i in B_t} clip(grad log p(x_i | theta_t)))
                      + s_t xi_t,        xi_t ~ N(0, I_d),

    with B_t drawn by ``sampling`` (all records, Poisson with rate q, or b of N without replacement): DP-SGLD (Wang et
    al. 2015, Alg. 2; Li et al. 2019, Alg. 1), ULA and noisy SGD (Bertazzi et al. 2025, eqs. 25 and 31). The pieces
    are set once by ``_setup_langevin`` and used by ``_step``; the same numbers give

    - :meth:`mechanism` -- the :class:`~dpverify.calculus.mechanism_description.MechanismDescription` of the run: step t
      releases a data term of sensitivity ``c_t w_data S`` (``S`` = the model's per-record gradient sensitivity under
      the neighbouring relation, clipped) with noise ``s_t``;
    - :meth:`account` -- the accountant's epsilon of the run (PLD of the path; an upper bound for a final release);
    - :meth:`pair_privacy_loss` -- the privacy-loss distribution of an audited pair when it is a verified canary;
    - ``log_likelihood_ratio`` -- for path releases, the white-box per-step mixture likelihood ratio of the path.
    """

    neighbouring: str

    def _setup_langevin(self, *, coefficients, noise_std, prior_weight: float, data_weight: float, sampling,
                        clip: float | None, neighbouring: str, source: str, release: str | None = None) -> None:
        from dpverify.calculus.mechanism_description import FixedSizeSampling, FullBatch, PoissonSampling

        self._coef = np.broadcast_to(np.asarray(coefficients, dtype=float), (self.n_steps,)).copy()
        self._noise_std = np.broadcast_to(np.asarray(noise_std, dtype=float), (self.n_steps,)).copy()
        self._prior_weight = float(prior_weight)
        self._data_weight = float(data_weight)
        if not isinstance(sampling, (FullBatch, PoissonSampling, FixedSizeSampling)):
            raise TypeError(f"sampling must be a dpverify.calculus.mechanism_description sampling scheme; got {sampling!r}")
        self._sampling = sampling
        self._clip = clip
        self.neighbouring = neighbouring
        self._source = source
        if release is not None:
            if release not in _RELEASES:
                raise ValueError(f"release must be one of {_RELEASES}; got {release!r}")
            self.output = release

    # -- kernel ------------------------------------------------------------------------------------------------
    def _draw_batch(self, rng: np.random.Generator, n_chains: int, N: int, rate_factor: float = 1.0):
        """``(idx, mask)`` of the step's mini-batch (``idx`` None for the full batch, ``mask`` None unless Poisson)."""
        from dpverify.calculus.mechanism_description import FixedSizeSampling, PoissonSampling

        s = self._sampling
        if isinstance(s, PoissonSampling):
            return draw_poisson_minibatches(rng, n_chains, N, min(1.0, s.rate * rate_factor))
        if isinstance(s, FixedSizeSampling):
            return draw_minibatches(rng, n_chains, N, min(N, int(round(s.batch_size * rate_factor)))), None
        return None, None

    def _data_sum(self, theta: np.ndarray, data: Data, idx, mask, clip: float | None) -> np.ndarray:
        """``sum_{i in B} w_i clip(grad log p(x_i | theta))`` per chain."""
        if idx is None:
            if clip is None:
                return full_gradient_sum(self.model, data, theta)
            idx = np.broadcast_to(np.arange(data.N), (theta.shape[0], data.N))
        return minibatch_gradient_sum(self.model, data, idx, theta, clip=clip, weights=mask)

    def _implemented(self, t: int) -> tuple[float, float | None, float, float]:
        """``(rate factor, clip, data weight, noise std)`` the kernel uses at step t: exactly the declared ones.
        (The known-bad variants of :mod:`dpverify.samplers.broken` override this, and only this.)"""
        return 1.0, self._clip, self._data_weight, self._noise_std[t]

    def _step(self, state: ChainState, data: Data, rng: np.random.Generator) -> ChainState:
        theta, t = state.theta, state.t
        rate_factor, clip, data_weight, noise_std = self._implemented(t)
        idx, mask = self._draw_batch(rng, theta.shape[0], data.N, rate_factor)  # the mini-batch B_t
        drift = (self._prior_weight * self.model.grad_log_prior(theta)
                 + data_weight * self._data_sum(theta, data, idx, mask, clip))
        z = noise_std * rng.standard_normal(theta.shape)  # the Gaussian noise: the privacy mechanism
        return ChainState(theta + self._coef[t] * drift + z, t + 1, state.aux)

    # -- mechanism description --------------------------------------------------------------------------------
    def mechanism(self):
        """The :class:`~dpverify.calculus.mechanism_description.MechanismDescription` of one run (class docstring)."""
        from dpverify.calculus.mechanism_description import GaussianStep, MechanismDescription, describe_steps

        sens = self.record_sensitivity * self._data_weight
        steps = describe_steps(GaussianStep(float(c) * sens, float(s), self._sampling)
                               for c, s in zip(self._coef, self._noise_std))
        return MechanismDescription(steps, self.neighbouring, self.output, self._source)

    # -- white-box statistic for path releases -----------------------------------------------------------------
    @property
    def log_likelihood_ratio(self):
        """For path releases: ``(dataset, neighbour) -> statistic`` computing the per-step mixture log-likelihood
        ratio of released paths (:meth:`path_log_likelihood_ratio`); None for final releases (the auditor then uses
        its black-box tests)."""
        return self.path_log_likelihood_ratio if self.output == "path" else None

    def path_log_likelihood_ratio(self, dataset, neighbour):
        """The white-box Neyman-Pearson statistic of a released path ``(theta_0, ..., theta_T)``:

            sum_t log [q phi_s(theta_{t+1} - m_in^D) + (1-q) phi_s(theta_{t+1} - m_out)]
                  - log [q phi_s(theta_{t+1} - m_in^D') + (1-q) phi_s(theta_{t+1} - m_out)],

        where ``m_in`` is the step mean when the differing record i is in the batch and ``m_out`` when it is not,
        with the other records' contribution replaced by its expectation (their mean clipped gradient times the
        expected number of them in the batch). For the full batch (q = 1) it is the Gaussian log-likelihood ratio.
        Exact for verified canary pairs (:meth:`canary_shift`); a valid (if less powerful) statistic for any pair.
        Needs the pair to differ in exactly one record.
        """
        from dpverify.calculus.mechanism_description import FixedSizeSampling, FullBatch

        X, Y, i = self._pair(dataset, neighbour)
        if i is None:
            raise ValueError("the white-box path statistic needs a pair that differs in exactly one record")
        N, d, T = X.N, self.model.dim, self.n_steps
        others = np.delete(np.arange(N), i)
        uniq, first, counts = np.unique(X.raw[others], axis=0, return_index=True, return_counts=True)
        rep = others[first]  # one index per distinct other record, with its multiplicity
        s = self._sampling
        q = s.rate
        if isinstance(s, FullBatch):
            k_in = k_out = N - 1
        elif isinstance(s, FixedSizeSampling):
            k_in, k_out = s.batch_size - 1, s.batch_size
        else:
            k_in = k_out = (N - 1) * q
        coef, std = self._coef, self._noise_std
        log_q = math.log(q) if q < 1 else 0.0
        log_1mq = math.log1p(-q) if q < 1 else -math.inf
        block = max(1, 2_000_000 // max(1, (len(rep) + 2) * d * T))

        def statistic(paths: np.ndarray) -> np.ndarray:
            paths = np.asarray(paths, dtype=float)
            if paths.ndim != 3 or paths.shape[1:] != (T + 1, d):
                raise ValueError(f"outputs must be paths of shape (n, {T + 1}, {d}); got {paths.shape}")
            out = np.empty(paths.shape[0])
            for lo in range(0, paths.shape[0], block):
                p = paths[lo:lo + block]
                theta = p[:, :-1].reshape(-1, d)
                nxt = p[:, 1:].reshape(-1, d)
                c = np.tile(coef, p.shape[0])[:, None]
                var2 = 2.0 * np.tile(std, p.shape[0]) ** 2
                prior = self._prior_weight * self.model.grad_log_prior(theta)
                g_o = (self._record_gradients(X, rep, theta) * counts[None, :, None]).sum(axis=1) / max(1, len(others))
                g_x = self._record_gradients(X, np.array([i]), theta)[:, 0]
                g_y = self._record_gradients(Y, np.array([i]), theta)[:, 0]
                w = self._data_weight
                base_in = theta + c * (prior + w * k_in * g_o)
                r_x = np.sum((nxt - base_in - c * w * g_x) ** 2, axis=1)
                r_y = np.sum((nxt - base_in - c * w * g_y) ** 2, axis=1)
                with np.errstate(divide="ignore", invalid="ignore"):
                    if q >= 1:
                        llr = (r_y - r_x) / var2
                    else:
                        r_o = np.sum((nxt - theta - c * (prior + w * k_out * g_o)) ** 2, axis=1)
                        llr = (np.logaddexp(log_q - r_x / var2, log_1mq - r_o / var2)
                               - np.logaddexp(log_q - r_y / var2, log_1mq - r_o / var2))
                out[lo:lo + block] = llr.reshape(p.shape[0], T).sum(axis=1)
            return out

        statistic.description = "white-box path log-likelihood ratio (per-step Gaussian mixture)"
        return statistic
