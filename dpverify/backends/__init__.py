"""Array backends for the samplers' kernels and the auditor's counting: numpy (the default and the reference) and
torch (CPU or CUDA).

A :class:`Backend` is a thin kernel layer, not a second copy of the samplers: the handful of array operations, random
draws and device facts that the gradient samplers' device path (:mod:`dpverify.samplers.device`) and the auditor's
device counting (:mod:`dpverify.audit.chunk_work`) need, written once per backend.

- :func:`get_backend` -- ``get_backend("numpy")`` or ``get_backend("torch", device="cuda")``; a bad name or a missing
  device is a ``ValueError`` naming the argument and the allowed values;
- :meth:`Backend.generator` -- the backend's own random generator seeded from a ``numpy.random.SeedSequence`` child
  (numpy: ``default_rng(ss)``; torch: a ``torch.Generator`` on the device, ``manual_seed`` from 64 bits of
  ``ss.generate_state``). A run is reproducible per backend and per device; the numbers differ between backends (the
  generators differ), the laws and every statistical guarantee do not;
- :meth:`Backend.chunk_size` -- how many outputs fit in a fraction of the device's free memory;
- numpy-named array functions (:meth:`Backend.where`, :meth:`Backend.argmax`, :meth:`Backend.lookup`, ...), numpy's
  own on the numpy backend, so that a mechanism or statistic written with them is one copy for every backend and its
  numpy numbers are those of plain numpy code; :func:`generator_backend` (the backend a generator draws on) and
  :func:`backend_generic` (marks a function that takes any backend's arrays and keeps its values on their device).

Nothing here imports torch until a torch backend is asked for.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from dpverify.backends.base import (
    BACKENDS,
    NUMPY,
    Backend,
    DeviceGenerator,
    NumpyBackend,
    backend_generic,
    check_backend,
    generator_backend,
    is_device_generator,
)

__all__ = ["BACKENDS", "NUMPY", "Backend", "DeviceGenerator", "NumpyBackend", "backend_generic", "backend_of",
           "check_backend", "generator_backend", "get_backend", "is_device_generator", "to_numpy"]


def get_backend(backend: str = "numpy", device: str | None = None) -> Backend:
    """The :class:`Backend` for ``backend`` (one of :data:`BACKENDS`) on ``device`` (torch: ``"cpu"`` by default,
    ``"cuda"`` or ``"cuda:K"``). ``device="cuda"`` without a CUDA device, or torch not installed, is a ``ValueError``
    saying so."""
    backend, device = check_backend(backend, device)
    if backend == "numpy":
        return NUMPY
    from dpverify.backends.torch_backend import (
        TorchBackend,  # torch: imported only when asked for
    )

    return TorchBackend(device or "cpu")


def backend_of(x: Any) -> Backend:
    """The backend whose array ``x`` is (numpy for anything that is not a torch tensor). Called for every array a
    backend-generic function receives, so the torch backend of each device is built once (:func:`_torch_on`)."""
    if isinstance(x, np.ndarray) or type(x).__module__.split(".")[0] != "torch":
        return NUMPY
    return _torch_on(str(x.device))


@functools.lru_cache(maxsize=None)
def _torch_on(device: str) -> Backend:
    from dpverify.backends.torch_backend import TorchBackend

    return TorchBackend(device)


def to_numpy(x: Any) -> np.ndarray:
    """``x`` as a numpy array (a torch tensor is copied to the host)."""
    return backend_of(x).to_numpy(x)
