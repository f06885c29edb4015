"""The gradient samplers on another array backend (torch on CPU or CUDA): the same kernel, batches as dense weights.

``sampler.sample(dataset, n, rng)`` with ``rng`` a backend's generator (``get_backend("torch", device).generator(seed)``,
:mod:`dpverify.backends`) runs here and returns the outputs as arrays of that backend, on its device:

- the **integrator** is the sampler's own (:mod:`dpverify.samplers.integrators`: Euler-Maruyama, SGHMC, SGNHT use
  only arithmetic and ``rng.standard_normal``, so the update rule is written once for every backend);
- the **gradient estimator** is :class:`DenseBatchGradient`, the sampler's estimator with its mini-batch as a dense
  ``(chains, N)`` row of 0/1 weights ``W``: the same sum ``w_prior grad log prior(theta) + w_data sum_i W[c, i]
  clip(grad log p(x_i | theta_c))`` through the model's backend-generic ``dense_gradient_sum``. The batch laws are
  the numpy estimator's: Poisson(q) entries ``U < q`` (Li et al. 2019, Alg. 1 step 2); a uniform b-subset as the b
  smallest of N uniform keys (Wang et al. 2015, Alg. 2 step 1); every record for the full batch.

Numbers differ from the numpy backend's (another generator, another batch algorithm), the law of the outputs does
not; given the same batch and the same noise the step is the numpy step to float tolerance (tests/test_backends.py).
The loop is over time steps only. Supported: the samplers whose kernel is a full-batch, fixed-size or Poisson
gradient estimator with the Euler-Maruyama, SGHMC or SGNHT update and the sampler's ``start`` (DP-SGLD of Wang et al.
and of Li et al., ULA, noisy SGD, DP-SGHMC, DP-SGNHT, and the known-bad DP-SGLDs of :mod:`dpverify.samplers.broken`:
their noise bugs are update rules in shared arithmetic, their warm start a dense full-batch step), and DP-SGFS (its
record gradients, :class:`DenseRecordGradients`, and its update's torch.linalg branch), on LogisticRegression,
GaussianTarget or LinearLoss. OPS by MALA drives its own run (its step is adapted between steps) with the kernel's
device counterpart, :class:`DenseTemperedLogPosterior` and the MALA update in shared arithmetic, on LogisticRegression;
the hybrid sampler (Wang et al. 2015, Alg. 3) starts from those OPS draws (its ``start``) and runs DP-SGLD. Anything
else (a model without the backend-generic methods, a sampler with its own step) is a ``NotImplementedError`` naming
it.
"""
from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from dpverify.backends import NUMPY, backend_of
from dpverify.calculus.releases import SampleSet, released_indices
from dpverify.samplers.broken_integrators import ReusedNoiseEulerMaruyama, SharedNoiseEulerMaruyama
from dpverify.samplers.gradients import (
    FullBatchGradient,
    LogDensityAndGradient,
    PoissonMinibatchGradient,
    RecordGradients,
    TemperedLogPosterior,
    UniformMinibatchGradient,
    UniformMinibatchRecordGradients,
)
from dpverify.samplers.integrators import (
    EulerMaruyama,
    SGFSIntegrator,
    SGHMCIntegrator,
    SGNHTIntegrator,
)
from dpverify.samplers.kernels import Kernel

__all__ = ["SUPPORTED_INTEGRATORS", "DenseBatchGradient", "DenseTemperedLogPosterior", "DeviceData", "dense_estimator",
           "device_kernel", "has_device_path", "sample_on_device"]

#: The update rules that run on every backend (SGFS through its torch.linalg branch; the known-bad samplers' noise
#: bugs, :mod:`dpverify.samplers.broken_integrators`).
SUPPORTED_INTEGRATORS = (EulerMaruyama, SGHMCIntegrator, SGNHTIntegrator, SGFSIntegrator, SharedNoiseEulerMaruyama,
                         ReusedNoiseEulerMaruyama)


class DeviceData(NamedTuple):
    """The prepared dataset as an array of the backend (``prepared``, on its device) and its number of records."""

    prepared: Any
    N: int


class DenseBatchGradient:
    """``w_prior grad log prior(theta) + w_data sum_i W[c, i] clip(grad log p(x_i | theta_c))`` with the batch drawn
    as dense 0/1 weights ``W`` ``(chains, N)`` (module docstring): ``batch`` is "full", "fixed" (``size`` records
    without replacement) or "poisson" (rate ``size``)."""

    def __init__(self, model, batch: str, size: float | None, *, prior_weight: float, data_weight: float,
                 clip: float | None) -> None:
        if batch not in ("full", "fixed", "poisson"):
            raise ValueError(f"batch must be 'full', 'fixed' or 'poisson'; got {batch!r}")
        self.model, self.batch, self.size = model, batch, size
        self.prior_weight, self.data_weight, self.clip = float(prior_weight), float(data_weight), clip

    def __repr__(self) -> str:
        return (f"DenseBatchGradient(batch={self.batch!r}, size={self.size!r}, prior_weight={self.prior_weight:g}, "
                f"data_weight={self.data_weight:g}, clip={self.clip!r})")

    @classmethod
    def of(cls, estimator) -> DenseBatchGradient:
        """The dense counterpart of a numpy estimator of :mod:`dpverify.samplers.gradients` (exact types only)."""
        kind = type(estimator)
        weights = {"prior_weight": estimator.prior_weight, "data_weight": estimator.data_weight, "clip": estimator.clip}
        if kind is FullBatchGradient:
            return cls(estimator.model, "full", None, **weights)
        if kind is UniformMinibatchGradient:
            return cls(estimator.model, "fixed", estimator.batch_size, **weights)
        if kind is PoissonMinibatchGradient:
            return cls(estimator.model, "poisson", estimator.rate, **weights)
        raise NotImplementedError(f"no device path for the gradient estimator {kind.__name__} (backend='torch' runs "
                                  "FullBatchGradient, UniformMinibatchGradient and PoissonMinibatchGradient)")

    def weights(self, rng, n: int, N: int):
        """The batch of each chain as ``(n, N)`` 0/1 weights (None for the full batch: every weight 1)."""
        backend = getattr(rng, "backend", NUMPY)  # a numpy Generator: the numpy backend (tests, the reference)
        if self.batch == "full":
            return None
        if self.size is None:
            raise ValueError(f"a {self.batch!r} batch needs its size (the batch size, or the Poisson rate)")
        if self.batch == "poisson":
            return backend.poisson_weights(rng, n, N, float(self.size))
        return backend.fixed_size_weights(rng, n, N, min(N, int(self.size)))

    def combine(self, theta, data: DeviceData, W):
        """The estimate for given batch weights ``W`` (what :meth:`estimate` returns after drawing them)."""
        data_sum = self.model.dense_gradient_sum(data.prepared, theta, W, self.clip)
        return self.prior_weight * self.model.dense_grad_log_prior(theta) + self.data_weight * data_sum

    def estimate(self, rng, theta, data: DeviceData):
        return self.combine(theta, data, self.weights(rng, theta.shape[0], data.N))


class DenseRecordGradients:
    """The per-record gradients of a uniform ``batch_size``-subset per chain and the prior's gradient (a
    :class:`~dpverify.samplers.gradients.RecordGradients`; DP-SGFS, Wang et al. 2015, supp. Alg. 4 step 1), the
    subset drawn as the ``batch_size`` smallest of N uniform keys (:meth:`Backend.fixed_size_indices`)."""

    def __init__(self, model, batch_size: int) -> None:
        self.model, self.batch_size = model, int(batch_size)

    def __repr__(self) -> str:
        return f"DenseRecordGradients(batch_size={self.batch_size})"

    def records(self, theta, data: DeviceData, idx) -> RecordGradients:
        """The estimate for given record indices ``idx`` ``(chains, batch_size)``."""
        g = self.model.dense_record_gradients(data.prepared, idx, theta)
        return RecordGradients(g, self.model.dense_grad_log_prior(theta), data.N)

    def estimate(self, rng, theta, data: DeviceData) -> RecordGradients:
        backend = getattr(rng, "backend", NUMPY)
        return self.records(theta, data, backend.fixed_size_indices(rng, theta.shape[0], data.N, self.batch_size))


class DenseTemperedLogPosterior:
    """:class:`~dpverify.samplers.gradients.TemperedLogPosterior` on a backend's device: ``rho (log prior(theta) +
    sum_i log p(x_i | theta))`` and its gradient from the model's backend-generic ``dense_log_prior`` and
    ``dense_full_data_terms`` (``-inf`` where the prior is 0), for OPS by MALA (Wang et al. 2015, Alg. 1); draws
    nothing. The chunk's ``(chains, N)`` margins are one product (the auditor sizes chunks by ``output_bytes``)."""

    def __init__(self, model, rho: float) -> None:
        self.model, self.rho = model, float(rho)

    def __repr__(self) -> str:
        return f"DenseTemperedLogPosterior(rho={self.rho!r})"

    def estimate(self, rng, theta, data: DeviceData) -> LogDensityAndGradient:
        xp = backend_of(theta)
        lp = self.model.dense_log_prior(theta)
        inside = xp.isfinite(lp)
        ll, g = self.model.dense_full_data_terms(data.prepared, theta)
        logp = self.rho * xp.where(inside, lp + xp.where(inside, ll, 0.0), -math.inf)
        return LogDensityAndGradient(logp, self.rho * (self.model.dense_grad_log_prior(theta) + g))


def dense_estimator(estimator):
    """The device counterpart of a numpy estimator: :class:`DenseRecordGradients` for DP-SGFS's record gradients,
    else :meth:`DenseBatchGradient.of`."""
    if type(estimator) is UniformMinibatchRecordGradients:
        return DenseRecordGradients(estimator.model, estimator.batch_size)
    if type(estimator) is TemperedLogPosterior:
        return DenseTemperedLogPosterior(estimator.model, estimator.rho)
    return DenseBatchGradient.of(estimator)


def device_kernel(sampler) -> Kernel:
    """``sampler``'s kernel with its estimator made dense (:class:`DenseBatchGradient`); a ``NotImplementedError``
    naming what has no device path."""
    sid = getattr(sampler, "id", type(sampler).__name__)
    kernel = sampler.kernel
    if kernel is None or sampler.kernel_schedule is None:
        raise NotImplementedError(f"{sid}: no device path (the sampler adapts its kernel as it runs)")
    if type(kernel.integrator) not in SUPPORTED_INTEGRATORS:
        raise NotImplementedError(f"{sid}: no device path for the update {type(kernel.integrator).__name__} (backend="
                                  "'torch' runs " + ", ".join(c.__name__ for c in SUPPORTED_INTEGRATORS) + ")")
    cls = type(sampler)
    if not all(getattr(cls, name).__qualname__ == f"StochasticGradientSampler.{name}" for name in ("init", "_step")):
        raise NotImplementedError(f"{sid}: no device path (the sampler has its own start or step)")
    model = sampler.model
    needed = ("dense_record_gradients" if type(kernel.estimator) is UniformMinibatchRecordGradients
              else "dense_gradient_sum")
    if not {needed, "dense_grad_log_prior"} <= model.dense_capabilities():
        raise NotImplementedError(f"{sid}: the model {type(model).__name__} has no backend-generic gradient "
                                  "(backend='torch' supports LogisticRegression, GaussianTarget, LinearLoss and LeastSquares)")
    return Kernel(dense_estimator(kernel.estimator), kernel.integrator)


def has_device_path(mechanism) -> bool:
    """Whether ``mechanism`` is a gradient sampler that runs on another backend: :func:`device_kernel` succeeds, or
    the sampler drives its own device run and says it can (``device_path_available()``: OPS by MALA)."""
    own = getattr(mechanism, "device_path_available", None)
    if callable(own):
        return bool(own())
    try:
        device_kernel(mechanism)
    except (NotImplementedError, AttributeError):
        return False
    return True


def sample_on_device(sampler, dataset, n: int, rng, max_elements: int) -> Any:
    """``sampler.sample(dataset, n, rng)`` on ``rng``'s backend (module docstring): the final states ``(n, d)``, the
    paths ``(n, n_steps + 1, d)`` or the sample sets ``(n, count, d)``, as arrays of that backend (at most
    ``max_elements`` values; on a CUDA device up to half its free memory in float64 values, since the auditor sizes
    its chunks by that memory)."""
    backend = rng.backend
    kernel = device_kernel(sampler)
    data = sampler.prepare_data(dataset)  # validated on the host, once
    ddata = DeviceData(backend.asarray(data.prepared), data.N)
    d, T = sampler.model.dim, sampler.n_steps
    if isinstance(sampler.output, SampleSet):
        record: list[int] | None = released_indices(sampler.output, T)
    elif sampler.output == "path":
        record = list(range(T + 1))
    else:
        record = None
    kept = 1 if record is None else len(record)
    if str(getattr(backend, "device", "cpu")).startswith("cuda"):
        # on an accelerator the host-memory cap does not apply: the auditor sizes its chunks by the device's free
        # memory (output_bytes); allow up to half of it in float64 values
        max_elements = max(max_elements, backend.free_memory() // 16)
    if n * kept * d > max_elements:
        raise ValueError(f"n = {n} runs of {T} steps in dimension {d} would need {n * kept * d} values (more than "
                         f"{max_elements}); ask for fewer runs per call")
    theta = sampler.start(backend.asarray(np.broadcast_to(sampler.theta0, (n, d))), ddata, rng)
    state = kernel.init(theta)
    schedule = sampler.kernel_schedule
    path = None
    slot: dict[int, int] = {}
    if record is not None:
        slot = {t: j for j, t in enumerate(record)}
        path = backend.zeros((n, len(record), d))
        if 0 in slot:
            path[:, slot[0]] = state.theta
    for t in range(T):
        params = {k: float(v) for k, v in schedule.at(t).items()}
        state = kernel.step(rng, state, ddata, **params)
        if path is not None and t + 1 in slot:
            path[:, slot[t + 1]] = state.theta
    return state.theta if path is None else path


def output_bytes(sampler) -> float:
    """Bytes one output and its step temporaries take on a device (float64): the released iterates and about four
    ``(N,)`` rows per chain (margins, weights, keys, gradient weights); for :meth:`Backend.chunk_size`."""
    d, T = sampler.model.dim, sampler.n_steps
    if isinstance(sampler.output, SampleSet):
        kept = len(released_indices(sampler.output, T))
    else:
        kept = T + 1 if sampler.output == "path" else 1
    return 8.0 * (kept * d + 4 * sampler.N + 4 * d)
