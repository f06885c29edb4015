"""The backend interface and the numpy backend (see :mod:`dpverify.backends`)."""
from __future__ import annotations

import os
import contextlib
from typing import Any, Callable, ContextManager, TypeVar

import numpy as np

from dpverify.vocabulary import ArrayBackend

__all__ = ["BACKENDS", "NUMPY", "Backend", "DeviceGenerator", "NumpyBackend", "backend_generic", "check_backend",
           "generator_backend", "is_device_generator"]

F = TypeVar("F", bound=Callable[..., Any])

#: The backends ``backend=`` accepts (numpy is the default and the reference).
#: The backends' names (:class:`dpverify.vocabulary.ArrayBackend`).
BACKENDS = ArrayBackend.values()
#: Fraction of the device's free memory one chunk of outputs and its temporaries may take (:meth:`Backend.chunk_size`);
#: an audit's two chunks, one per side, share it (``dpverify.audit.core.device_chunk_size``: 20% each).
MEMORY_FRACTION = 0.4


def check_backend(backend: Any, device: Any = None) -> tuple[str, str | None]:
    """``(backend, device)`` validated: ``backend`` one of :data:`BACKENDS`; ``device`` None (the backend's default),
    or for torch ``"cpu"``, ``"cuda"`` or ``"cuda:K"`` (numpy runs on the CPU only). A ``ValueError`` names the
    argument and the allowed values."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {list(BACKENDS)}; got {backend!r}")
    if device is None:
        return backend, None
    if not isinstance(device, str):
        raise TypeError(f"device must be a string ('cpu', 'cuda' or 'cuda:K') or None; got {device!r}")
    if backend == "numpy" and device != "cpu":
        raise ValueError(f"device={device!r} needs backend='torch' (the numpy backend runs on the CPU only)")
    if backend == "torch" and not (device == "cpu" or device == "cuda" or
                                   (device.startswith("cuda:") and device[5:].isdigit())):
        raise ValueError(f"device must be 'cpu', 'cuda' or 'cuda:K' for backend='torch'; got {device!r}")
    return backend, device


class DeviceGenerator:
    """A backend's random generator (numpy's own ``Generator`` is used as is). Every draw returns an array of the
    backend on its device; ``size`` is an int or a shape, as for numpy's ``Generator``, and the methods that numpy's
    ``Generator`` also has take its arguments, so a mechanism draws with one line for both.

    - ``random(size)``: uniform on [0, 1), float64 (torch: 53 random bits on the CPU, curand's doubles on CUDA);
    - ``standard_normal(size)``: float64;
    - ``laplace(loc, scale, size)``, ``exponential(scale, size)``, ``gumbel(loc, scale, size)``: float64, by inversion
      of one uniform each (the algorithms and their float64 resolution are those of
      :class:`~dpverify.backends.torch_backend.TorchGenerator`);
    - ``integers(low, high, size)``: int64, uniform on ``{low, ..., high - 1}`` (by scaling one uniform).

    The laws are numpy's; the algorithms, hence the numbers, are not (numpy draws exponentials by a ziggurat and
    integers by rejection).
    """

    backend: Backend

    def standard_normal(self, size) -> Any:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def random(self, size) -> Any:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def laplace(self, loc: float = 0.0, scale: float = 1.0, size=None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def exponential(self, scale: float = 1.0, size=None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def gumbel(self, loc: float = 0.0, scale: float = 1.0, size=None) -> Any:  # pragma: no cover
        raise NotImplementedError

    def integers(self, low: int, high: int | None = None, size=None) -> Any:  # pragma: no cover
        raise NotImplementedError


def is_device_generator(rng: Any) -> bool:
    """Whether ``rng`` is a non-numpy backend's generator (:class:`DeviceGenerator`): the samplers then run their
    device path (:mod:`dpverify.samplers.device`)."""
    return isinstance(rng, DeviceGenerator)


def generator_backend(rng: Any) -> Backend:
    """The backend whose arrays ``rng`` draws: its own for a :class:`DeviceGenerator`, numpy for anything else (a
    ``numpy.random.Generator``). A mechanism written with this backend's array functions runs on both."""
    return rng.backend if isinstance(rng, DeviceGenerator) else NUMPY


def backend_generic(function: F) -> F:
    """Mark ``function`` (a statistic, or a mechanism's ``log_density``) as taking any backend's arrays and returning
    its values as an array of the same backend, on the same device; the auditor then evaluates it where the outputs
    are (:mod:`dpverify.audit.chunk_work`)."""
    function.backend_generic = True  # type: ignore[attr-defined]
    return function


class Backend:
    """The array operations of the device path, for one backend and device (module docstring of
    :mod:`dpverify.backends`). Arrays are float64 throughout, as in the numpy reference.

    The array functions carry numpy's names and numpy's semantics, and the numpy backend's are numpy's own, so a
    mechanism or statistic written with them gives on numpy exactly the numbers it gave with numpy's functions (the
    standard suite's mechanisms and their log-densities, :mod:`dpverify.audit.standard`)."""

    name: str = ""
    device: str = "cpu"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(device={self.device!r})"

    # -- arrays ------------------------------------------------------------------------------------------------
    def generator(self, seed: np.random.SeedSequence | int) -> Any:
        raise NotImplementedError

    def asarray(self, x: Any) -> Any:
        raise NotImplementedError

    def to_numpy(self, x: Any) -> np.ndarray:
        raise NotImplementedError

    def zeros(self, shape) -> Any:
        raise NotImplementedError

    def sigmoid(self, x: Any) -> Any:
        raise NotImplementedError

    def minimum(self, x: Any, y: Any) -> Any:
        raise NotImplementedError

    def maximum(self, x: Any, y: Any) -> Any:
        raise NotImplementedError

    def sqrt(self, x: Any) -> Any:
        raise NotImplementedError

    def logaddexp(self, x: Any, y: Any) -> Any:
        raise NotImplementedError

    def norm(self, x: Any) -> Any:
        """Euclidean norm over the last axis."""
        raise NotImplementedError

    # -- numpy-named array functions (numpy's semantics; scalars allowed where numpy allows them) ----------------
    def flat(self, x: Any) -> Any:
        """``x`` as a 1-d array of the backend, its dtype kept (numpy: ``np.asarray(x).reshape(-1)``)."""
        raise NotImplementedError

    def abs(self, x: Any) -> Any:
        raise NotImplementedError

    def log(self, x: Any) -> Any:
        raise NotImplementedError

    def log1p(self, x: Any) -> Any:
        raise NotImplementedError

    def exp(self, x: Any) -> Any:
        raise NotImplementedError

    def expm1(self, x: Any) -> Any:
        raise NotImplementedError

    def isfinite(self, x: Any) -> Any:
        raise NotImplementedError

    def where(self, condition: Any, x: Any, y: Any) -> Any:
        raise NotImplementedError

    def max(self, x: Any, axis: int) -> Any:
        raise NotImplementedError

    def min(self, x: Any, axis: int) -> Any:
        raise NotImplementedError

    def argmax(self, x: Any, axis: int) -> Any:
        raise NotImplementedError

    def sum(self, x: Any, axis: int) -> Any:
        raise NotImplementedError

    def matmul(self, x: Any, w: Any) -> Any:
        """``x @ w`` in float64, ``w`` a host array or an array of this backend (a vector or a matrix)."""
        raise NotImplementedError

    def unique(self, x: Any) -> tuple[Any, Any]:
        """``(sorted distinct values, inverse)`` of a 1-d array, as ``np.unique(x, return_inverse=True)``."""
        raise NotImplementedError

    def cumsum(self, x: Any, axis: int) -> Any:
        raise NotImplementedError

    def flip(self, x: Any, axis: int) -> Any:
        raise NotImplementedError

    def concatenate(self, arrays: Any, axis: int) -> Any:
        raise NotImplementedError

    def astype(self, x: Any, dtype: str) -> Any:
        """``x`` converted to the dtype named ``dtype`` ("int8", "int64", "float64", ...)."""
        raise NotImplementedError

    def lookup(self, table: Any, indices: Any) -> Any:
        """``table[indices]`` as a 1-d array of the backend: ``table`` (a host array, e.g. a log-pmf over the atoms
        of a discrete output, computed once) indexed by the integer-valued ``indices`` (numpy:
        ``table[np.asarray(indices).reshape(-1).astype(int)]``)."""
        raise NotImplementedError

    def searchsorted(self, sorted_values: Any, values: Any, side: str = "left") -> Any:
        """``np.searchsorted(sorted_values, values, side)``; ``sorted_values`` may be a host array."""
        raise NotImplementedError

    def arange(self, n: int) -> Any:
        """``0, 1, ..., n - 1`` as int64 on the device."""
        raise NotImplementedError

    def errstate(self, **settings: str) -> ContextManager:
        """numpy's ``np.errstate(**settings)``; nothing on backends that do not warn."""
        return contextlib.nullcontext()

    def all_finite(self, x: Any) -> bool:
        raise NotImplementedError

    def any_nan(self, x: Any) -> bool:
        raise NotImplementedError

    # -- batches -----------------------------------------------------------------------------------------------
    def poisson_weights(self, rng: Any, n: int, N: int, q: float) -> Any:
        """``(n, N)`` 0/1 float weights, each entry 1 with probability ``q`` independently: Poisson subsampling
        (Li et al. 2019, Alg. 1 step 2) as ``U < q`` for ``U ~ Uniform[0, 1)`` (exact up to the generator's
        float64 resolution)."""
        return (rng.random((n, N)) < q) * 1.0

    def fixed_size_weights(self, rng: Any, n: int, N: int, b: int) -> Any:
        """``(n, N)`` 0/1 float weights with exactly ``b`` ones per row, the ones a uniform ``b``-subset of the N
        records: the ``b`` smallest of N i.i.d. uniform keys (every subset equally likely by exchangeability; ties
        have probability 0 up to float64 resolution)."""
        raise NotImplementedError

    def fixed_size_indices(self, rng: Any, n: int, N: int, b: int) -> Any:
        """``(n, b)`` record indices, each row a uniform ``b``-subset of the N records (the ``b`` smallest of N
        i.i.d. uniform keys; listed in no particular order)."""
        raise NotImplementedError

    # -- counting ----------------------------------------------------------------------------------------------
    def count_at_least(self, values: Any, thresholds: np.ndarray) -> np.ndarray:
        """``#{values >= t}`` for each threshold ``t``, as numpy int64 (sort once, one binary search per
        threshold)."""
        raise NotImplementedError

    # -- memory ------------------------------------------------------------------------------------------------
    def free_memory(self) -> int:
        """Bytes free for this backend's arrays (the device's free memory; for the CPU the available RAM)."""
        return _available_ram()

    def chunk_size(self, bytes_per_output: float, *, fraction: float = MEMORY_FRACTION, minimum: int = 1024,
                   maximum: int = 1 << 24) -> int:
        """Outputs per chunk so that ``chunk * bytes_per_output <= fraction * free memory`` (a power of 2, clamped to
        ``[minimum, maximum]``): chunks follow the device's free memory."""
        if not bytes_per_output > 0:
            raise ValueError(f"bytes_per_output must be > 0; got {bytes_per_output!r}")
        fit = int(fraction * self.free_memory() // bytes_per_output)
        size = 1 << max(0, fit.bit_length() - 1) if fit > 0 else 1
        return int(min(maximum, max(minimum, size)))

    def synchronize(self) -> None:
        """Wait for the device's queued work (timings); nothing on the CPU."""

    def peak_memory(self) -> int | None:
        """Peak bytes allocated on the device since the last reset (None on the CPU: use ``ru_maxrss``)."""
        return None

    def reset_peak_memory(self) -> None:
        """Start a new peak-memory measurement (nothing on the CPU)."""


def _available_ram() -> int:
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES"))


class NumpyBackend(Backend):
    """numpy on the CPU: the reference. Its generator is ``numpy.random.default_rng(seed)``."""

    name = "numpy"
    device = "cpu"

    def generator(self, seed: np.random.SeedSequence | int) -> np.random.Generator:
        return np.random.default_rng(seed)

    def asarray(self, x: Any) -> np.ndarray:
        return np.asarray(x, dtype=float)

    def to_numpy(self, x: Any) -> np.ndarray:
        return np.asarray(x)

    def zeros(self, shape) -> np.ndarray:
        return np.zeros(shape)

    def sigmoid(self, x: Any) -> np.ndarray:
        from scipy.special import expit

        return expit(x)

    def minimum(self, x: Any, y: Any) -> np.ndarray:
        return np.minimum(x, y)

    def maximum(self, x: Any, y: Any) -> np.ndarray:
        return np.maximum(x, y)

    def sqrt(self, x: Any) -> np.ndarray:
        return np.sqrt(x)

    def logaddexp(self, x: Any, y: Any) -> np.ndarray:
        return np.logaddexp(x, y)

    def norm(self, x: Any) -> np.ndarray:
        return np.linalg.norm(x, axis=-1)

    def flat(self, x: Any) -> np.ndarray:
        return np.asarray(x).reshape(-1)

    def abs(self, x: Any) -> np.ndarray:
        return np.abs(x)

    def log(self, x: Any) -> np.ndarray:
        return np.log(x)

    def log1p(self, x: Any) -> np.ndarray:
        return np.log1p(x)

    def exp(self, x: Any) -> np.ndarray:
        return np.exp(x)

    def expm1(self, x: Any) -> np.ndarray:
        return np.expm1(x)

    def isfinite(self, x: Any) -> np.ndarray:
        return np.isfinite(x)

    def where(self, condition: Any, x: Any, y: Any) -> np.ndarray:
        return np.where(condition, x, y)

    def max(self, x: Any, axis: int) -> np.ndarray:
        return np.max(x, axis=axis)

    def min(self, x: Any, axis: int) -> np.ndarray:
        return np.min(x, axis=axis)

    def argmax(self, x: Any, axis: int) -> np.ndarray:
        return np.argmax(x, axis=axis)

    def sum(self, x: Any, axis: int) -> np.ndarray:
        return np.sum(x, axis=axis)

    def matmul(self, x: Any, w: Any) -> np.ndarray:
        return np.asarray(x, dtype=float) @ np.asarray(w, dtype=float)

    def unique(self, x: Any) -> tuple[np.ndarray, np.ndarray]:
        values, inverse = np.unique(np.asarray(x).reshape(-1), return_inverse=True)
        return values, inverse.reshape(-1)

    def cumsum(self, x: Any, axis: int) -> np.ndarray:
        return np.cumsum(x, axis=axis)

    def flip(self, x: Any, axis: int) -> np.ndarray:
        return np.flip(x, axis=axis)

    def concatenate(self, arrays: Any, axis: int) -> np.ndarray:
        return np.concatenate(arrays, axis=axis)

    def astype(self, x: Any, dtype: str) -> np.ndarray:
        return np.asarray(x).astype(dtype)

    def lookup(self, table: Any, indices: Any) -> np.ndarray:
        return np.asarray(table)[np.asarray(indices).reshape(-1).astype(int)]

    def searchsorted(self, sorted_values: Any, values: Any, side: str = "left") -> np.ndarray:
        return np.searchsorted(sorted_values, values, side=side)  # type: ignore[call-overload]

    def arange(self, n: int) -> np.ndarray:
        return np.arange(n, dtype=np.int64)

    def errstate(self, **settings: str) -> ContextManager:
        return np.errstate(**settings)  # type: ignore[arg-type]

    def all_finite(self, x: Any) -> bool:
        return bool(np.isfinite(x).all())

    def any_nan(self, x: Any) -> bool:
        return bool(np.isnan(x).any())

    def fixed_size_weights(self, rng: Any, n: int, N: int, b: int) -> np.ndarray:
        keys = rng.random((n, N))
        if b >= N:
            return np.ones((n, N))
        kth = np.partition(keys, b - 1, axis=1)[:, b - 1:b]
        return (keys <= kth) * 1.0

    def fixed_size_indices(self, rng: Any, n: int, N: int, b: int) -> np.ndarray:
        keys = rng.random((n, N))
        return np.argpartition(keys, b - 1, axis=1)[:, :b] if b < N else np.tile(np.arange(N), (n, 1))

    def count_at_least(self, values: Any, thresholds: np.ndarray) -> np.ndarray:
        v = np.sort(np.asarray(values, dtype=float))
        return (v.size - np.searchsorted(v, np.asarray(thresholds, dtype=float), side="left")).astype(np.int64)


#: The numpy backend (one instance).
NUMPY = NumpyBackend()
