"""Run the per-chunk work of an audit in worker processes; only small results (integer counts) come back.

An audit's work after the statistics are fitted is a map over chunk indices followed by a sum: chunk ``j`` is drawn
from its own seed (:class:`dpverify.audit.split.ChunkSampler`), turned into statistic values and reduced to integer
counts. Integer sums do not depend on the order in which chunks finish, so any number of workers and any schedule
give bit-identical counts (the design of a map-reduce over independently seeded blocks; numpy's "Parallel random
number generation" guide for the seeding).

The work function closes over the mechanism and the fitted statistics, which need not be picklable. On platforms with
the ``fork`` start method (Linux) the pool is created after the function is registered, so the workers inherit it;
only the task arguments (chunk index and small numpy arrays) and the results are pickled. Without ``fork`` (macOS,
Windows), when ``cloudpickle`` is installed, the function is serialised by value once per worker and the pool uses
the ``spawn`` start method (each worker imports numpy and dpverify first: seconds of start-up). Otherwise, or if the
function cannot be serialised, or inside a daemonic process (which may not have children), the work runs in the
calling process with a :class:`ParallelFallbackWarning`.

Workers ignore SIGINT (Ctrl-C reaches the whole process group; the parent handles it and terminates the pool), ask the
kernel to kill them when the parent dies (Linux ``PR_SET_PDEATHSIG``), use one BLAS/OpenMP thread each
(``threadpoolctl``; the calling process does the same while it runs chunks itself, so one process and many give the
same floating-point results) and keep the memory of a chunk's arrays for the next chunk
(:func:`~dpverify.audit.chunk_memory.keep_chunk_memory`: without it a forked worker faulted its chunk arrays in again
for every chunk, about 50,000 page faults per 40 chunks of 2^20 outputs).
"""
from __future__ import annotations

import ctypes
import importlib.util
import itertools
import multiprocessing
import signal
import warnings
from typing import Any, Callable, Iterable, Iterator

from threadpoolctl import threadpool_limits

from dpverify.audit.chunk_memory import keep_chunk_memory
from dpverify.validation import check_positive_int

__all__ = ["ChunkRunner", "ParallelFallbackWarning", "check_workers", "fork_available", "start_method"]

#: Work functions of the live runners, by token; a forked worker inherits this table.
_WORK: dict[int, Callable[[Any], Any]] = {}
_TOKENS = itertools.count()


class ParallelFallbackWarning(UserWarning):
    """``workers > 1`` was asked for but the work runs in one process (no ``fork`` start method, or a daemonic
    process)."""


def check_workers(workers: Any) -> int:
    """``workers`` as a positive int (a ``TypeError``/``ValueError`` naming it otherwise)."""
    return check_positive_int(workers, "workers")


def fork_available() -> bool:
    """True if worker processes can inherit closures: the ``fork`` start method exists and this process may have
    children (it is not a daemonic worker itself)."""
    return "fork" in multiprocessing.get_all_start_methods() and not multiprocessing.current_process().daemon


def start_method() -> str | None:
    """How worker processes get the work function: "fork" (inherited), "spawn" (serialised with cloudpickle), or None
    (no worker processes possible: a daemonic process, or neither fork nor cloudpickle)."""
    if multiprocessing.current_process().daemon:
        return None
    if fork_available():
        return "fork"
    return "spawn" if importlib.util.find_spec("cloudpickle") is not None else None


def _worker_init_pickled(token: int, blob: bytes) -> None:
    import cloudpickle

    _worker_init()
    _WORK[token] = cloudpickle.loads(blob)


def _worker_init() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:  # Linux: die with the parent even if it is killed without cleaning up
        libc = ctypes.CDLL(None)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1
    except (OSError, AttributeError):
        pass
    threadpool_limits(1)
    keep_chunk_memory()


def _call(task: tuple[int, Any]) -> Any:
    token, payload = task
    return _WORK[token](payload)


class ChunkRunner:
    """``with ChunkRunner(work, workers) as run: for result in run.map(tasks): ...``

    ``work(task) -> result`` is called once per task, in the calling process (``workers == 1``) or in a pool of
    ``workers`` forked processes created on entering the ``with`` block; :meth:`map` yields the results in completion
    order (callers reduce them by an order-free sum). Leaving the block terminates the pool, also on an exception or
    Ctrl-C, so no worker outlives the audit.
    """

    def __init__(self, work: Callable[[Any], Any], workers: int = 1):
        self.work = work
        self.workers = check_workers(workers)
        self.method = start_method() if self.workers > 1 else None
        self._blob = None
        if self.method == "spawn":
            import cloudpickle

            try:
                self._blob = cloudpickle.dumps(work)
            except Exception as err:  # noqa: BLE001 - any serialisation failure means: no worker processes
                self.method = None
                reason = f"cloudpickle could not serialise the mechanism or a statistic ({type(err).__name__}: {err})"
            else:
                reason = ""
        else:
            reason = ("worker processes need the 'fork' start method (Linux) or cloudpickle, in a non-daemonic "
                      "process")
        if self.workers > 1 and self.method is None:
            warnings.warn(f"workers={self.workers}: {reason}; running in one process instead",
                          ParallelFallbackWarning, stacklevel=3)
            self.workers = 1
        self._token = next(_TOKENS)
        self._pool: multiprocessing.pool.Pool | None = None
        self._limits: threadpool_limits | None = None

    def __enter__(self) -> "ChunkRunner":
        _WORK[self._token] = self.work
        if self.workers > 1 and self.method == "fork":
            self._pool = multiprocessing.get_context("fork").Pool(self.workers, initializer=_worker_init)
        elif self.workers > 1:
            self._pool = multiprocessing.get_context("spawn").Pool(
                self.workers, initializer=_worker_init_pickled, initargs=(self._token, self._blob))
        else:
            self._limits = threadpool_limits(1)
        return self

    def __exit__(self, *exc) -> None:
        try:
            if self._pool is not None:
                self._pool.terminate()
                self._pool.join()
        finally:
            self._pool = None
            if self._limits is not None:
                self._limits.restore_original_limits()
                self._limits = None
            _WORK.pop(self._token, None)

    def map(self, tasks: Iterable[Any]) -> Iterator[Any]:
        """Results of ``work`` on every task, in completion order."""
        if self._pool is None:
            for task in tasks:
                yield self.work(task)
            return
        yield from self._pool.imap_unordered(_call, [(self._token, t) for t in tasks], chunksize=1)
