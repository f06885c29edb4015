"""The torch backend (CPU or CUDA): float64 tensors on one device and a ``torch.Generator`` on that device seeded from
a ``numpy.random.SeedSequence`` child. Imported only when ``backend="torch"`` is asked for.

The generator's draws beyond ``torch.rand``/``torch.randn`` (:class:`TorchGenerator`) transform one uniform ``U`` on
[0, 1) each, from ``torch.rand`` in float64: on the CPU ``U = k 2^-53`` with ``k`` uniform on ``{0, ..., 2^53 - 1}``;
on CUDA curand's 53-bit doubles. Every probability of the transformed law is therefore the exact one to within about
2^-53 (absolute); the tails stop where ``U`` stops, about 36.7 scales out (``-log(2^-53)``), as numpy's inversions do.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dpverify.backends.base import Backend, DeviceGenerator

try:
    import torch
except ImportError as exc:  # pragma: no cover - exercised only without torch
    raise ValueError("backend='torch' needs PyTorch: pip install 'dpverify[torch]'") from exc

__all__ = ["TorchBackend", "TorchGenerator"]

#: At most this many thresholds are counted by one comparison each (beyond: one sort and a binary search each).
_DIRECT_THRESHOLDS = 8
#: ``integers(low, high)`` accepts ranges up to this many values (each value's probability is then within
#: ``range * 2^-53`` of ``1 / range``, relative).
_MAX_INTEGER_RANGE = 1 << 32


def _shape(size: Any) -> tuple:
    """numpy's ``size``: None (one value, returned as a 0-d tensor), an int, or a shape."""
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


def _seed_from(seed: np.random.SeedSequence | int) -> int:
    """64 bits of ``seed`` (a SeedSequence's ``generate_state``; an int through a SeedSequence of it)."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(int(seed))
    return int(ss.generate_state(1, dtype=np.uint64)[0])


class TorchGenerator(DeviceGenerator):
    """``torch.Generator`` on ``backend.device``; draws float64 tensors there."""

    backend: TorchBackend

    def __init__(self, backend: TorchBackend, seed: np.random.SeedSequence | int) -> None:
        self.backend = backend
        self.torch = torch.Generator(device=backend.torch_device)
        self.torch.manual_seed(_seed_from(seed))

    def __repr__(self) -> str:
        return f"TorchGenerator(device={self.backend.device!r})"

    def standard_normal(self, size) -> Any:
        return torch.randn(_shape(size), generator=self.torch, dtype=torch.float64, device=self.backend.torch_device)

    def random(self, size) -> Any:
        """Uniform on [0, 1), float64 (module docstring)."""
        return torch.rand(_shape(size), generator=self.torch, dtype=torch.float64, device=self.backend.torch_device)

    def open_random(self, size) -> Any:
        """Uniform on (0, 1): :meth:`random` with every exact 0 drawn again (rejection, so the law is the uniform
        conditioned on ``U > 0``; a 0 has probability about 2^-53 per value), as numpy's ``laplace`` and ``gumbel``
        do."""
        u = self.random(size)
        zero = u == 0
        while bool(zero.any()):
            u[zero] = self.random(int(zero.sum()))
            zero = u == 0
        return u

    def laplace(self, loc: float = 0.0, scale: float = 1.0, size=None) -> Any:
        """Laplace(loc, scale) by inversion, numpy's algorithm (``random_laplace`` of numpy's ``distributions.c``):
        ``U`` uniform on (0, 1) (:meth:`open_random`); ``loc - scale log(2 - 2U)`` for ``U >= 1/2``, else
        ``loc + scale log(2U)``. ``|X - loc| <= 36.7 scale`` (``U >= 2^-53`` on the CPU)."""
        u = self.open_random(size)
        upper = u >= 0.5
        magnitude = scale * torch.log(torch.where(upper, 2.0 - u - u, u + u))
        return loc + torch.where(upper, -magnitude, magnitude)

    def exponential(self, scale: float = 1.0, size=None) -> Any:
        """Exponential of mean ``scale`` by inversion: ``-scale log(1 - U)``, ``U`` uniform on [0, 1) (numpy draws it
        by a ziggurat: the same law, other numbers). Values lie in ``[0, 36.7 scale]``."""
        return -scale * torch.log1p(-self.random(size))

    def gumbel(self, loc: float = 0.0, scale: float = 1.0, size=None) -> Any:
        """Gumbel(loc, scale) by inversion, numpy's algorithm: ``loc - scale log(-log V)``, ``V`` uniform on (0, 1)
        (:meth:`open_random`; numpy's ``V = 1 - U`` with ``V = 1`` rejected)."""
        return loc - scale * torch.log(-torch.log(self.open_random(size)))

    def integers(self, low: int, high: int | None = None, size=None) -> Any:
        """Uniform on ``{low, ..., high - 1}`` (``{0, ..., low - 1}`` without ``high``), int64: ``low + floor(U k)``
        for the range ``k = high - low`` (at most 2^32), clipped to ``k - 1`` (``U k`` may round up to ``k``). Each
        value's probability is ``1/k`` to within ``k 2^-53`` relative (numpy's ``integers`` is exact, by rejection).
        """
        low, high = (0, int(low)) if high is None else (int(low), int(high))
        k = high - low
        if not 1 <= k <= _MAX_INTEGER_RANGE:
            raise ValueError(f"high - low must be in [1, 2^32] for the torch generator's integers; got {k}")
        drawn = torch.floor(self.random(size) * k).to(torch.int64).clamp_(max=k - 1)
        return drawn + low


class TorchBackend(Backend):
    """torch on ``device`` ("cpu", "cuda" or "cuda:K"); float64."""

    name = "torch"

    def __init__(self, device: str = "cpu") -> None:
        if device.startswith("cuda"):
            if not torch.cuda.is_available():
                raise ValueError(f"device={device!r}: no CUDA device is available to torch {torch.__version__} here; "
                                 "use device='cpu' or backend='numpy'")
            index = int(device[5:]) if device.startswith("cuda:") else 0
            if index >= torch.cuda.device_count():
                raise ValueError(f"device={device!r}: only {torch.cuda.device_count()} CUDA device(s) are available")
        self.device = device
        self.torch_device = torch.device(device)

    def __reduce__(self) -> tuple:
        """Pickled as its device name and rebuilt by the constructor where it is unpickled (a Dask worker): there
        ``"cuda"`` is that process's own first visible GPU, and a worker without one says so (the ``ValueError``
        above) instead of failing inside a kernel."""
        return (TorchBackend, (self.device,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TorchBackend) and other.torch_device == self.torch_device

    def __hash__(self) -> int:
        return hash(("torch", str(self.torch_device)))

    def generator(self, seed: np.random.SeedSequence | int) -> TorchGenerator:
        return TorchGenerator(self, seed)

    def asarray(self, x: Any) -> Any:
        if isinstance(x, torch.Tensor):
            return x.to(device=self.torch_device, dtype=torch.float64)
        arr = np.asarray(x, dtype=float)
        if not arr.flags.writeable:  # torch wants writable memory (a broadcast view is not)
            arr = arr.copy()
        return torch.as_tensor(arr, device=self.torch_device)

    def to_numpy(self, x: Any) -> np.ndarray:
        return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)

    def zeros(self, shape) -> Any:
        return torch.zeros(tuple(shape), dtype=torch.float64, device=self.torch_device)

    def sigmoid(self, x: Any) -> Any:
        return torch.sigmoid(x)

    def minimum(self, x: Any, y: Any) -> Any:
        return torch.minimum(x, y if isinstance(y, torch.Tensor) else torch.as_tensor(y, dtype=x.dtype, device=x.device))

    def maximum(self, x: Any, y: Any) -> Any:
        return torch.maximum(x, y if isinstance(y, torch.Tensor) else torch.as_tensor(y, dtype=x.dtype, device=x.device))

    def sqrt(self, x: Any) -> Any:
        return torch.sqrt(x)

    def logaddexp(self, x: Any, y: Any) -> Any:
        return torch.logaddexp(x, y)

    def norm(self, x: Any) -> Any:
        return torch.linalg.vector_norm(x, dim=-1)

    def _operand(self, x: Any) -> Any:
        """A tensor on this device for an operand of :meth:`where` (a host scalar keeps numpy's dtype: float64 for a
        float, int64 for an int)."""
        return x if isinstance(x, torch.Tensor) else torch.as_tensor(np.asarray(x), device=self.torch_device)

    def flat(self, x: Any) -> Any:
        return (x if isinstance(x, torch.Tensor) else self._operand(x)).reshape(-1)

    def abs(self, x: Any) -> Any:
        return torch.abs(x)

    def log(self, x: Any) -> Any:
        return torch.log(x)

    def log1p(self, x: Any) -> Any:
        return torch.log1p(x)

    def exp(self, x: Any) -> Any:
        return torch.exp(x)

    def expm1(self, x: Any) -> Any:
        return torch.expm1(x)

    def isfinite(self, x: Any) -> Any:
        return torch.isfinite(x)

    def where(self, condition: Any, x: Any, y: Any) -> Any:
        return torch.where(condition, self._operand(x), self._operand(y))

    def max(self, x: Any, axis: int) -> Any:
        return torch.amax(x, dim=axis)

    def min(self, x: Any, axis: int) -> Any:
        return torch.amin(x, dim=axis)

    def argmax(self, x: Any, axis: int) -> Any:
        return torch.argmax(x, dim=axis)

    def sum(self, x: Any, axis: int) -> Any:
        return torch.sum(x, dim=axis)

    def matmul(self, x: Any, w: Any) -> Any:
        return self.asarray(x) @ self.asarray(w)

    def unique(self, x: Any) -> tuple[Any, Any]:
        values, inverse = torch.unique(self._operand(x).reshape(-1), sorted=True, return_inverse=True)
        return values, inverse

    def cumsum(self, x: Any, axis: int) -> Any:
        return torch.cumsum(x, dim=axis)

    def flip(self, x: Any, axis: int) -> Any:
        return torch.flip(x, dims=(axis,))

    def concatenate(self, arrays: Any, axis: int) -> Any:
        return torch.cat(list(arrays), dim=axis)

    def astype(self, x: Any, dtype: str) -> Any:
        return x.to(getattr(torch, dtype))

    def lookup(self, table: Any, indices: Any) -> Any:
        return self._operand(table)[indices.reshape(-1).to(torch.int64)]

    def searchsorted(self, sorted_values: Any, values: Any, side: str = "left") -> Any:
        return torch.searchsorted(self._operand(sorted_values).contiguous(), (values.contiguous() if isinstance(values, torch.Tensor)
                                                                    else self._operand(values)), side=side)

    def arange(self, n: int) -> Any:
        return torch.arange(int(n), dtype=torch.int64, device=self.torch_device)

    def all_finite(self, x: Any) -> bool:
        return bool(torch.isfinite(x).all())

    def any_nan(self, x: Any) -> bool:
        return bool(torch.isnan(x).any())

    def poisson_weights(self, rng: Any, n: int, N: int, q: float) -> Any:
        """The base class's ``U < q`` as float64 (``bool * 1.0`` is float32 in torch: the product of such weights with a
        float64 matrix, as the linear-loss model takes it, is refused)."""
        return (rng.random((n, N)) < q).to(torch.float64)

    def fixed_size_weights(self, rng: Any, n: int, N: int, b: int) -> Any:
        if b >= N:
            return torch.ones((n, N), dtype=torch.float64, device=self.torch_device)
        keys = rng.random((n, N))
        kth = torch.kthvalue(keys, b, dim=1, keepdim=True).values  # the b-th smallest key of each row
        return (keys <= kth).to(torch.float64)

    def fixed_size_indices(self, rng: Any, n: int, N: int, b: int) -> Any:
        keys = rng.random((n, N))
        return torch.topk(keys, b, dim=1, largest=False, sorted=False).indices

    def count_at_least(self, values: Any, thresholds: np.ndarray) -> np.ndarray:
        thresholds = np.asarray(thresholds, dtype=float)
        if thresholds.size <= _DIRECT_THRESHOLDS:  # an estimation count: one comparison each, no sort
            flat = values.reshape(-1)
            found = [torch.count_nonzero(flat >= float(t)) for t in thresholds]
            return torch.stack(found).cpu().numpy().astype(np.int64) if found else np.zeros(0, dtype=np.int64)
        v = torch.sort(values.reshape(-1)).values
        t = torch.as_tensor(thresholds, device=v.device)
        below = torch.searchsorted(v, t, side="left")
        return (v.numel() - below).cpu().numpy().astype(np.int64)

    def free_memory(self) -> int:
        if self.torch_device.type == "cuda":
            free, _ = torch.cuda.mem_get_info(self.torch_device)
            return int(free)
        return super().free_memory()

    def synchronize(self) -> None:
        if self.torch_device.type == "cuda":
            torch.cuda.synchronize(self.torch_device)

    def peak_memory(self) -> int | None:
        if self.torch_device.type == "cuda":
            return int(torch.cuda.max_memory_allocated(self.torch_device))
        return None

    def reset_peak_memory(self) -> None:
        if self.torch_device.type == "cuda":
            torch.cuda.reset_peak_memory_stats(self.torch_device)
