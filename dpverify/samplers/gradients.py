"""Gradient estimators: ``estimate(rng, theta, data) -> gradient``, vectorised over chains (``theta`` ``(chains, d)``).

The data enter a gradient sampler only here. Each estimator draws its mini-batch from ``rng`` (nothing else) and
returns, per chain,

    w_prior grad log prior(theta) + w_data sum_{i in B} clip(grad_theta log p(x_i | theta)),

an estimate of the gradient of the log posterior (``w_prior = 1``, ``w_data = N / |B|`` for the unbiased one):

- :class:`FullBatchGradient` -- ``B`` = every record (ULA, Bertazzi et al. 2025, eq. 25);
- :class:`UniformMinibatchGradient` -- ``B`` a uniform ``tau``-subset of the N records, without replacement: Wang et
  al. 2015, eq. (4.1) (with ``w_data = N / tau``) and Algorithm 2 step 1; Bertazzi et al. 2025, eq. (31);
- :class:`PoissonMinibatchGradient` -- every record enters ``B`` independently with probability ``q``, each gradient
  clipped to norm ``L``: Li et al. 2019, Algorithm 1 steps 2-4;
- :class:`UniformMinibatchRecordGradients` -- the per-record gradients of a uniform ``tau``-subset themselves (not
  their sum) and the prior's gradient: what DP-SGFS (Wang et al. 2015, supp. Alg. 4) needs for its mean and
  covariance;
- :class:`TemperedLogPosterior` -- the tempered log posterior ``rho (log prior + sum_i log p)`` itself and its
  gradient, every record: what OPS by MALA (Wang et al. 2015, Alg. 1) needs for its accept/reject step.

The sums go through the model's gradient capabilities (:class:`~dpverify.models.base.Model`:
``per_record_gradients``, ``minibatch_gradient``, ``full_data_gradient``), which have defaults on every model.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from dpverify.calculus.mechanism_description import FixedSizeSampling, FullBatch, PoissonSampling
from dpverify.models.base import PreparedData, clip_gradients
from dpverify.samplers.minibatch import draw_minibatches, draw_poisson_minibatches

__all__ = [
    "Data",
    "per_record_gradients",
    "minibatch_gradient_sum",
    "full_gradient_sum",
    "FullBatchGradient",
    "UniformMinibatchGradient",
    "PoissonMinibatchGradient",
    "RecordGradients",
    "UniformMinibatchRecordGradients",
    "LogDensityAndGradient",
    "TemperedLogPosterior",
    "estimator_for_sampling",
    "clip_gradients",
]


class Data(NamedTuple):
    """A dataset validated by the model once per run: ``raw`` (validated array), ``prepared`` (the model's
    ``prepare(raw)``, e.g. signed features for logistic regression), ``N`` (number of records)."""

    raw: np.ndarray
    prepared: PreparedData
    N: int


def per_record_gradients(model, data: Data, idx: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``grad_theta log p(x_i | theta_c)`` for the records ``idx[c]`` of each chain c: shape ``(chains, b, d)``."""
    return model.per_record_gradients(data.prepared, idx, theta)


def minibatch_gradient_sum(model, data: Data, idx: np.ndarray, theta: np.ndarray,
                           clip: float | None = None, weights: np.ndarray | None = None) -> np.ndarray:
    """``sum_{i in batch} w_i clip_L(grad_theta log p(x_i | theta))`` per chain, shape ``(chains, d)``.

    Clipping is Li et al. 2019, Alg. 1 step 4 (:func:`~dpverify.models.base.clip_gradients`); ``weights`` is e.g.
    the 0/1 mask of a Poisson batch (the model's ``minibatch_gradient``).
    """
    return model.minibatch_gradient(data.prepared, idx, theta, clip=clip, weights=weights)


def full_gradient_sum(model, data: Data, theta: np.ndarray) -> np.ndarray:
    """``sum_{i=1}^N grad_theta log p(x_i | theta)`` per chain (full batch; the model's ``full_data_gradient``)."""
    return model.full_data_gradient(data.prepared, theta)


class _WeightedSum:
    """``prior_weight grad log prior(theta) + data_weight * (data sum)`` of a batch ``B``: the common form."""

    def __init__(self, model, *, prior_weight: float = 1.0, data_weight: float = 1.0, clip: float | None = None):
        self.model = model
        self.prior_weight = float(prior_weight)
        self.data_weight = float(data_weight)
        self.clip = clip

    def _combine(self, theta: np.ndarray, data_sum: np.ndarray) -> np.ndarray:
        return self.prior_weight * self.model.grad_log_prior(theta) + self.data_weight * data_sum

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(prior_weight={self.prior_weight:g}, data_weight={self.data_weight:g}, "
                f"clip={self.clip!r}{self._extra_repr()})")

    def _extra_repr(self) -> str:
        return ""


class FullBatchGradient(_WeightedSum):
    """Every record: ``w_prior grad log prior + w_data sum_{i=1}^N clip(grad log p(x_i | theta))``; draws nothing."""

    def estimate(self, rng: np.random.Generator, theta: np.ndarray, data: Data) -> np.ndarray:
        if self.clip is None:
            data_sum = full_gradient_sum(self.model, data, theta)
        else:
            idx = np.broadcast_to(np.arange(data.N), (theta.shape[0], data.N))
            data_sum = minibatch_gradient_sum(self.model, data, idx, theta, clip=self.clip)
        return self._combine(theta, data_sum)


class UniformMinibatchGradient(_WeightedSum):
    """A uniform ``batch_size``-subset per chain (without replacement; :func:`draw_minibatches`), then
    ``w_prior grad log prior + w_data sum_{i in B} clip(grad log p(x_i | theta))``. With ``w_prior = 1`` and
    ``w_data = N / tau`` it is the unbiased estimate of Wang et al. 2015, eq. (4.1)."""

    def __init__(self, model, batch_size: int, **weights) -> None:
        super().__init__(model, **weights)
        self.batch_size = int(batch_size)

    def _extra_repr(self) -> str:
        return f", batch_size={self.batch_size}"

    def estimate(self, rng: np.random.Generator, theta: np.ndarray, data: Data) -> np.ndarray:
        idx = draw_minibatches(rng, theta.shape[0], data.N, min(data.N, self.batch_size))
        return self._combine(theta, minibatch_gradient_sum(self.model, data, idx, theta, clip=self.clip))


class PoissonMinibatchGradient(_WeightedSum):
    """Poisson sampling with rate ``q`` per chain (:func:`draw_poisson_minibatches`), then
    ``w_prior grad log prior + w_data sum_{i in B} clip(grad log p(x_i | theta))`` (Li et al. 2019, Alg. 1 steps
    2-4: ``w_prior = 1/N``, ``w_data = 1/tau``, clip level L)."""

    def __init__(self, model, rate: float, **weights) -> None:
        super().__init__(model, **weights)
        self.rate = min(1.0, float(rate))

    def _extra_repr(self) -> str:
        return f", rate={self.rate:g}"

    def estimate(self, rng: np.random.Generator, theta: np.ndarray, data: Data) -> np.ndarray:
        idx, mask = draw_poisson_minibatches(rng, theta.shape[0], data.N, self.rate)
        return self._combine(theta, minibatch_gradient_sum(self.model, data, idx, theta, clip=self.clip, weights=mask))


class RecordGradients(NamedTuple):
    """A mini-batch's per-record gradients ``records`` ``(chains, tau, d)``, the prior's gradient ``prior``
    ``(chains, d)`` at the same theta, and the number of records ``N`` of the dataset."""

    records: np.ndarray
    prior: np.ndarray
    N: int


class UniformMinibatchRecordGradients:
    """A uniform ``batch_size``-subset per chain and its per-record gradients (unsummed; Wang et al. 2015, supp.
    Alg. 4 step 1), with the prior's gradient: a :class:`RecordGradients`."""

    def __init__(self, model, batch_size: int) -> None:
        self.model = model
        self.batch_size = int(batch_size)

    def __repr__(self) -> str:
        return f"UniformMinibatchRecordGradients(batch_size={self.batch_size})"

    def estimate(self, rng: np.random.Generator, theta: np.ndarray, data: Data) -> RecordGradients:
        idx = draw_minibatches(rng, theta.shape[0], data.N, self.batch_size)
        g = per_record_gradients(self.model, data, idx, theta)
        return RecordGradients(g, self.model.grad_log_prior(theta), data.N)


class LogDensityAndGradient(NamedTuple):
    """A log density ``log_density`` ``(chains,)`` (``-inf`` outside its support) and its gradient ``gradient``
    ``(chains, d)``."""

    log_density: np.ndarray
    gradient: np.ndarray


class TemperedLogPosterior:
    """``rho (log prior(theta) + sum_{i=1}^N log p(x_i | theta))`` and its gradient, from the model's
    ``full_data_terms`` (every record; ``-inf`` where the prior is 0), in blocks of :attr:`BLOCK` chains; draws
    nothing. ``rho`` tempers likelihood and prior alike (Wang et al. 2015, Alg. 1)."""

    #: chains per block (the per-block ``(chains, N)`` margins stay small)
    BLOCK = 1024

    def __init__(self, model, rho: float) -> None:
        self.model = model
        self.rho = rho

    def __repr__(self) -> str:
        return f"TemperedLogPosterior(rho={self.rho!r})"

    def estimate(self, rng: np.random.Generator | None, theta: np.ndarray, data: Data) -> LogDensityAndGradient:
        model, rho, B = self.model, self.rho, self.BLOCK
        c = theta.shape[0]
        logp = np.empty(c)
        grad = np.empty_like(theta)
        for lo in range(0, c, B):
            th = theta[lo : lo + B]
            lp = model.log_prior(th)
            inside = np.isfinite(lp)
            ll, g = model.full_data_terms(data.prepared, th)
            logp[lo : lo + B] = rho * np.where(inside, lp + np.where(inside, ll, 0.0), -np.inf)
            grad[lo : lo + B] = rho * (model.grad_log_prior(th) + g)
        return LogDensityAndGradient(logp, grad)


def estimator_for_sampling(model, sampling, *, prior_weight: float, data_weight: float, clip: float | None):
    """The gradient estimator that draws the batches of a sampling scheme of
    :mod:`dpverify.calculus.mechanism_description` (the one a mechanism description declares): every record
    (``FullBatch``), Poisson with rate q (``PoissonSampling``), or b of N without replacement (``FixedSizeSampling``)."""
    if isinstance(sampling, PoissonSampling):
        return PoissonMinibatchGradient(model, sampling.rate, prior_weight=prior_weight, data_weight=data_weight,
                                        clip=clip)
    if isinstance(sampling, FixedSizeSampling):
        return UniformMinibatchGradient(model, sampling.batch_size, prior_weight=prior_weight,
                                        data_weight=data_weight, clip=clip)
    if isinstance(sampling, FullBatch):
        return FullBatchGradient(model, prior_weight=prior_weight, data_weight=data_weight, clip=clip)
    raise TypeError(f"sampling must be a dpverify.calculus.mechanism_description sampling scheme; got {sampling!r}")
