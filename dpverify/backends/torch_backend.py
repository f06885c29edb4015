"""The torch backend (CPU or CUDA): float64 tensors on one device and a ``torch.Generator`` on that device seeded from
a ``numpy.random.SeedSequence`` child. Imported only when ``backend="torch"`` is asked for."""
from __future__ import annotations

from typing import Any

import numpy as np

from dpverify.backends.base import Backend, DeviceGenerator

try:
    import torch
except ImportError as exc:  # pragma: no cover - exercised only without torch
    raise ValueError("backend='torch' needs PyTorch: pip install 'dpverify[torch]'") from exc

__all__ = ["TorchBackend", "TorchGenerator"]


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

    def standard_normal(self, shape) -> Any:
        return torch.randn(tuple(shape), generator=self.torch, dtype=torch.float64, device=self.backend.torch_device)

    def random(self, shape) -> Any:
        return torch.rand(tuple(shape), generator=self.torch, dtype=torch.float64, device=self.backend.torch_device)


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

    def all_finite(self, x: Any) -> bool:
        return bool(torch.isfinite(x).all())

    def any_nan(self, x: Any) -> bool:
        return bool(torch.isnan(x).any())

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
        v = torch.sort(values.reshape(-1)).values
        t = torch.as_tensor(np.asarray(thresholds, dtype=float), device=v.device)
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
