"""Shared by the parallel and distributed auditor tests (tests/test_audit_parallel.py, tests/test_distributed.py)."""
import numpy as np

D0, D1 = np.array([0.0]), np.array([1.0])
# Small chunks and caps so that most of the selection is streamed through the workers as well as the estimation.
STREAM = dict(chunk_size=2_000, fit_cap=1_500, threshold_sample=1_000)


def numbers(result) -> dict:
    """An audit's result without its wall time: what must be bit-identical across schedules."""
    out = result.to_dict()
    out.pop("wall_time")
    return out


def gaussian_path(dataset, n, rng):
    """A 4-step random walk with drift dataset[0]: vector outputs, so 'auto' fits a projection, a logistic classifier
    and the vector candidates -- closures the worker processes must receive."""
    return np.cumsum(float(dataset[0]) + rng.normal(size=(n, 4)), axis=1)
