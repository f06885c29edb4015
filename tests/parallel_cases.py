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


def chunk_rounds_faults(_task=None) -> int:
    """Minor page faults of 40 rounds of a chunk's allocation pattern (8 MiB of Laplace outputs, a sorted copy and a
    boolean mask per round, freed before the next), in the calling thread: what a worker that does not keep a chunk's
    memory (dpverify.audit.chunk_memory) faults in again for every chunk."""
    import resource

    rng = np.random.default_rng(0)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(40):
        x = rng.laplace(size=1 << 20)
        y = np.sort(x)
        np.count_nonzero(y >= 0.5)
        del x, y
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
