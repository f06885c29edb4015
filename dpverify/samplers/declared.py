"""Audit a DP-SGLD you wrote yourself: your implementation, audited against what you declare it does.

Your sampler runs your code; dpverify needs only its *declaration* -- the update rule it claims to implement,

    theta_{t+1} = theta_t + c_t (w_prior grad log prior(theta_t) + w_data sum_{i in B_t} clip_L(grad log p(x_i | theta_t)))
                  + s_t xi_t,      xi_t ~ N(0, I_d),

with the batch scheme of ``B_t`` (all records, Poisson with rate q, or b of N without replacement) -- and the
gradients it claims to use (:class:`~dpverify.models.function.FunctionModel`). :class:`DeclaredLangevin` is one
constructor from those parameters; it is a :class:`~dpverify.samplers.sgmcmc.LangevinSampler` whose outputs come from
your ``implementation(dataset, n, rng)``, so it has everything the auditor reads:

- ``mechanism()`` -- the mechanism description of the declared run (``MechanismDescription``), and ``account(delta)``
  its PLD accountant (exact for a path; for a final iterate or a sample set the exact release privacy where the
  potential is quadratic and the pair is the worst case, else the path's upper bound);
- ``verify_canary(D, D')`` -- whether a pair is a gradient canary for the declared batches, with the reason if not;
- ``pair_privacy_loss(D, D')`` / ``exact_epsilon`` -- the canary pair's privacy loss from the description (no
  hand-set ``exact=True``): the audit's budget ceiling;
- ``path_log_likelihood_ratio(D, D')`` / ``release_log_likelihood_ratio(D, D')`` -- the declared algorithm's
  white-box statistics, usable on their own outputs (they see only what the declaration says: an audit should use
  them beside black-box statistics, never alone);
- ``guarantee()`` -- the claim: the accountant's epsilon at ``delta`` (what your DP-SGLD with an accountant claims).

Calls of your implementation: the auditor asks for outputs in chunks of at most 2^20 chains
(:data:`dpverify.audit.split.DEFAULT_CHUNK_SIZE`), fewer when the chains are large: about 256 MiB of chains and their
step temporaries per chunk (``output_bytes()``; :func:`dpverify.audit.core.device_chunk_size`); ``max_chains`` splits every request into calls of at most that
many chains, drawn one after the other from the same ``rng`` (so the audit stays reproducible). Every random number
your implementation uses must come from that ``rng``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from dpverify.validation import check_delta, check_positive_int, check_real, check_sampling_rate
from dpverify.calculus.mechanism_description import FixedSizeSampling, FullBatch, PoissonSampling
from dpverify.calculus.releases import SampleSet, released_indices
from dpverify.samplers.base import Claim
from dpverify.samplers.schedules import check_steps
from dpverify.samplers.sgmcmc import LangevinSampler

__all__ = ["DeclaredLangevin"]

_BATCHES = ("full", "poisson", "fixed")


class DeclaredLangevin(LangevinSampler):
    """Your Langevin-type sampler and its declaration (module docstring).

    ``implementation(dataset, n, rng)``: your code, returning ``n`` outputs of the declared ``release`` (final
    iterates ``(n, d)``, paths ``(n, n_steps + 1, d)`` or sample sets ``(n, count, d)``). ``model``: a
    :class:`~dpverify.models.base.Model` with the gradients your code uses (e.g. a
    :class:`~dpverify.models.function.FunctionModel`). ``N``: the number of records. ``step_size`` ``c_t`` and
    ``noise_std`` ``s_t``: numbers or arrays of ``n_steps`` values. ``batch``: ``"full"``, ``"poisson"`` (with
    ``sampling_rate``; add/remove adjacency) or ``"fixed"`` (with ``batch_size``; replace-one adjacency). ``clip``:
    the per-record clip level (None: no clipping; then the model's Lipschitz bound gives the sensitivity).
    ``prior_weight`` / ``data_weight``: ``w_prior`` and ``w_data``. ``delta``: the delta of :meth:`guarantee`.
    """

    id = "declared_langevin"
    theorems = ()
    output = "final"
    description = "your Langevin-type sampler, audited against its declaration"

    def __init__(self, implementation: Callable, model, N: int, *, step_size, noise_std, n_steps: int,
                 batch: str = "poisson", sampling_rate: float | None = None, batch_size: int | None = None,
                 clip: float | None = None, prior_weight: float = 1.0, data_weight: float = 1.0,
                 release="final", theta0=None, delta: float = 1e-5, max_chains: int = 2**16,
                 source: str = "your implementation"):
        if not callable(implementation):
            raise TypeError(f"implementation must be callable as implementation(dataset, n, rng); got "
                            f"{type(implementation).__name__}")
        self._implementation = implementation
        self._setup_common(model, N, theta0, unguaranteed=True)
        self.n_steps = check_steps(n_steps)
        self.delta = check_delta(delta, allow_zero=False)
        self.max_chains = check_positive_int(max_chains, "max_chains")
        sampling, neighbouring = self._batches(batch, sampling_rate, batch_size)
        coef = self._schedule_values(step_size, "step_size", allow_zero=False)
        noise = self._schedule_values(noise_std, "noise_std", allow_zero=True)
        self._setup_langevin(coefficients=coef, noise_std=noise,
                             prior_weight=check_real("prior_weight", prior_weight, low=0.0),
                             data_weight=check_real("data_weight", data_weight, low=0.0, low_inclusive=False),
                             sampling=sampling,
                             clip=None if clip is None else check_real("clip", clip, low=0.0, low_inclusive=False),
                             neighbouring=neighbouring, source=str(source), release=release)

    def _batches(self, batch: str, rate, size):
        if batch not in _BATCHES:
            raise ValueError(f"batch must be one of {_BATCHES}; got {batch!r}")
        if batch == "full":
            return FullBatch(), "replace_one"
        if batch == "poisson":
            if rate is None:
                raise ValueError("batch='poisson' needs sampling_rate (the inclusion probability q in (0, 1])")
            return PoissonSampling(check_sampling_rate(rate, "sampling_rate")), "add_remove"
        if size is None:
            raise ValueError(f"batch='fixed' needs batch_size (an integer in [1, N = {self.N}])")
        return FixedSizeSampling(check_positive_int(size, "batch_size", maximum=self.N), self.N), "replace_one"

    def _schedule_values(self, value, name: str, *, allow_zero: bool) -> np.ndarray:
        arr = np.broadcast_to(np.asarray(value, dtype=float), (self.n_steps,))
        for t, v in enumerate(arr):
            check_real(f"{name}[{t}]" if np.ndim(value) else name, v, low=0.0, low_inclusive=allow_zero)
        return arr.copy()

    # -- outputs: your implementation ---------------------------------------------------------------------------
    def _output_shape(self) -> tuple:
        d = self.model.dim
        if self.output == "path":
            return (self.n_steps + 1, d)
        if isinstance(self.output, SampleSet):
            return (len(released_indices(self.output, self.n_steps)), d)
        return (d,)

    def sample(self, dataset, n: int, rng) -> np.ndarray:
        """``n`` outputs of your implementation, requested in calls of at most ``max_chains`` chains from ``rng``;
        their shape is checked against the declared release."""
        n = check_positive_int(n, "n")
        rng = self._rng(rng)
        shape = self._output_shape()
        parts = []
        for lo in range(0, n, self.max_chains):
            k = min(self.max_chains, n - lo)
            out = np.asarray(self._implementation(dataset, k, rng), dtype=float)
            if out.shape != (k,) + shape:
                raise ValueError(f"implementation(dataset, {k}, rng) must return {k} outputs of shape {shape} (the "
                                 f"declared {self.output} release); got shape {out.shape}")
            parts.append(out)
        return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=0)

    # -- the claim ---------------------------------------------------------------------------------------------
    def guarantee(self) -> Claim:
        """The accountant's epsilon of the declared run at ``delta`` (:meth:`account`): the claim a DP-SGLD with an
        accountant makes."""
        acc = self.account(self.delta)
        return Claim(acc.epsilon, self.delta, f"accountant: {acc.method}", True, {},
                     {"accountant": acc.method, "epsilon_lower": acc.epsilon_lower,
                      "mechanism": self.mechanism().to_dict()})
