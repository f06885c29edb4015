"""Shared machinery of the stochastic-gradient samplers: mini-batches, gradients, the time loop, claims.

- :func:`draw_minibatches` -- uniform ``tau``-subsets of ``{0..N-1}`` without replacement, one per chain, drawn for
  all chains at once (Wang et al. 2015, Alg. 2 step 1; Bertazzi et al. 2025, eq. 31).
- :func:`draw_poisson_minibatches` -- Poisson sampling with rate ``q`` (Li et al. 2019, Alg. 1 step 2).
- :func:`minibatch_gradient_sum` -- sum over a mini-batch of (clipped) per-record gradients for a batch of chains.
- :class:`StochasticGradientSampler` -- the common init / step / sample loop (loop over time steps only).
- :func:`evaluate_theorem` -- a theorem of the catalogue evaluated at a sampler's parameters.
"""
from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from dpverify._validation import check_delta, check_epsilon, check_finite_array, check_positive_int, check_real
from dpverify.models.logistic import clip_gradients
from dpverify.samplers.base import Claim, Sampler

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
    "claim_from",
]


def draw_minibatches(rng: np.random.Generator, n_chains: int, N: int, size: int) -> np.ndarray:
    """``(n_chains, size)`` indices; each row a uniform random ``size``-subset of ``{0, ..., N-1}`` (no repeats),
    listed in uniformly random order.

    Small batches (``size (size - 1) <= 2N``, acceptance probability about ``exp(-size^2/(2N)) >= e^{-1}``): draw
    ``size`` i.i.d. uniform indices per chain and redraw the rows that contain a repeat; an accepted row is uniform
    over ordered tuples of distinct indices. Medium batches (``size^2 <= 8N``): Floyd's algorithm (Bentley & Floyd
    1987: for ``j = N - size .. N - 1`` add a uniform ``u`` on ``{0..j}``, or ``j`` if ``u`` is taken), vectorised
    over chains. Larger batches: the ``size`` smallest of ``N`` i.i.d. uniform keys. The last two are then put in
    uniformly random order. All exact.
    """
    if size > N:
        raise ValueError(f"mini-batch size must be <= N = {N}; got {size}")
    if size * (size - 1) > 2 * N:
        if size * size <= 8 * N:  # Floyd: O(size^2) per chain beats O(N) random keys here
            chosen = np.empty((n_chains, size), dtype=np.intp)
            for k, j in enumerate(range(N - size, N)):
                u = rng.integers(0, j + 1, size=n_chains)
                if k:
                    u = np.where((chosen[:, :k] == u[:, None]).any(axis=1), j, u)
                chosen[:, k] = u
        else:
            keys = rng.random((n_chains, N))
            chosen = np.argpartition(keys, size - 1, axis=1)[:, :size] if size < N else np.tile(np.arange(N), (n_chains, 1))
        order = np.argsort(rng.random((n_chains, size)), axis=1)
        return np.take_along_axis(chosen, order, axis=1)
    dtype = np.int32 if N < 2**31 else np.int64  # int32 halves the memory traffic of the draws, sorts and gathers
    out = rng.integers(0, N, size=(n_chains, size), dtype=dtype)
    if size == 1:
        return out
    s = np.sort(out, axis=1)
    rows = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
    while rows.size:
        fresh = rng.integers(0, N, size=(rows.size, size), dtype=dtype)
        out[rows] = fresh
        s = np.sort(fresh, axis=1)
        rows = rows[(s[:, 1:] == s[:, :-1]).any(axis=1)]
    return out


def draw_poisson_minibatches(rng: np.random.Generator, n_chains: int, N: int, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Poisson subsampling: each record enters each chain's batch independently with probability ``q``.

    Returns ``(idx, mask)`` of shape ``(n_chains, k_max)``: the batch of chain ``c`` is ``idx[c, mask[c]]``.
    Drawn exactly by geometric skips: the gaps between successive included indices of a Bernoulli(q) sequence are
    i.i.d. Geometric(q) on {1, 2, ...}, so the included indices are the partial sums of geometric draws minus one,
    kept while below N (more gaps are drawn until every chain has passed N).
    """
    if q >= 1.0:
        return np.tile(np.arange(N), (n_chains, 1)), np.ones((n_chains, N), dtype=bool)
    cap = int(N * q + 6 * np.sqrt(N * q * (1 - q)) + 8)
    log1mq = np.log1p(-q)

    def geometric(shape):  # inverse CDF: P(floor(log U / log(1-q)) + 1 > k) = P(U <= (1-q)^k) = (1-q)^k, U in (0, 1]
        return np.floor(np.log(1.0 - rng.random(shape)) / log1mq).astype(np.int64) + 1

    pos = np.cumsum(geometric((n_chains, cap)), axis=1) - 1
    while True:
        short = np.flatnonzero(pos[:, -1] < N)
        if not short.size:
            break
        more = np.full((n_chains, cap), N, dtype=pos.dtype)
        more[short] = pos[short, -1:] + np.cumsum(geometric((short.size, cap)), axis=1)
        pos = np.concatenate([pos, more], axis=1)
    mask = pos < N
    k_max = max(int(mask.sum(axis=1).max()), 1)
    return np.where(mask, pos, 0)[:, :k_max], mask[:, :k_max]


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


def evaluate_theorem(theorem_id: str, values: dict, allow_unguaranteed: bool):
    """``Theorem.evaluate`` of catalogue item ``theorem_id`` with the entries of ``values`` it declares as symbols.

    Raises ``NotImplementedError`` naming the ID if the theorem is not in the catalogue yet, and the theorem's
    ``HypothesisError`` (a ``ValueError`` naming the failed hypothesis) unless ``allow_unguaranteed``.
    """
    from dpverify.theorems import registry

    try:
        thm = registry.get(theorem_id)
    except KeyError:
        raise NotImplementedError(
            f"theorem {theorem_id!r} is not in the catalogue yet; this sampler's privacy claim rests on it"
        ) from None
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


def wang_iterations(N: int, T: float, tau: int) -> int:
    """``floor(N T / tau)``: the iterations of T data passes with mini-batches of size tau (Wang et al. 2015, Alg. 2)."""
    n = int(np.floor(N * T / tau))
    if n < 1:
        raise ValueError(f"T must give at least one iteration floor(N T / tau) >= 1; got N T / tau = {N * T / tau}")
    return n
