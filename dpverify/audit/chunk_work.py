"""What one chunk of an audit is reduced to after the fit: integer counts, wherever it runs.

After the statistics are fitted (:mod:`dpverify.audit.select`), every later chunk ``j`` of both sides is drawn from its
own seed (:class:`~dpverify.audit.split.ChunkSampler`), evaluated and reduced to integer counts:

- a **scoring** chunk (selection part) to ``#{s_i >= t}`` for every fitted statistic ``s_i`` and each of its candidate
  thresholds ``t`` (:func:`score_chunk`);
- an **estimation** chunk to ``#{s_i >= t}`` for each chosen event ``(i, t)`` (:func:`count_chunk`).

:class:`ChunkWork` is that function of a task ``("score", j, None)`` or ``("count", j, events)``; :func:`runner_for`
runs it in this process, in worker processes (:class:`~dpverify.audit.parallel.ChunkRunner`) or on a Dask cluster
(:class:`~dpverify.audit.distributed.DaskRunner`). Integer sums do not depend on where or in which order the chunks
are counted, so the audit's numbers do not either. With ``backend="torch"`` a chunk is drawn, evaluated and counted on
the audit's device; only the integer counts come back (:class:`DeviceChunk`). On a Dask cluster that device is the
worker's: the work function travels with its :class:`~dpverify.backends.torch_backend.TorchBackend`, rebuilt (and
checked) in the worker process, so ``device="cuda"`` is whichever GPU that worker sees as its first.
"""
from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Sequence

import numpy as np

from dpverify.audit.parallel import ChunkRunner
from dpverify.audit.split import ChunkSampler
from dpverify.audit.statistics import DistinctRows, Statistic, count_at_least

__all__ = ["ChunkWork", "DeviceChunk", "DrawChunk", "Progress", "score_chunk", "count_chunk", "runner_for",
           "held_chunks", "held_drawer"]

#: One count per side for each candidate threshold of one statistic.
ScoreCounts = list[tuple[np.ndarray, np.ndarray]]


class DeviceChunk:
    """A chunk of outputs held on another backend's device (:mod:`dpverify.backends`): a statistic that takes that
    backend's arrays (``function.backend_generic``: the samplers' white-box path statistic, the identity of one-number
    outputs, the outcome log-ratio of discrete one-number outputs, the ratio of a backend-generic ``log_density``) is
    evaluated there and its values counted there, so the outputs never leave the device; any other statistic (the
    learned ones, implementation mode's floating-point statistics) gets the chunk copied to the host once (then as
    :class:`~dpverify.audit.statistics.DistinctRows`)."""

    def __init__(self, outputs: Any):
        from dpverify.backends import backend_of

        self.outputs = outputs
        self.backend = backend_of(outputs)
        self._host: DistinctRows | None = None

    def apply(self, statistic: Statistic) -> Any:
        if getattr(statistic.function, "backend_generic", False):
            return statistic.function(self.outputs)
        if self._host is None:
            self._host = DistinctRows(self.backend.to_numpy(self.outputs))
        return self._host.apply(statistic)


def _at_least(values: Any, thresholds: np.ndarray) -> np.ndarray:
    """``#{values >= t}`` per sorted threshold, on the device that holds ``values``."""
    if isinstance(values, np.ndarray):
        return count_at_least(values, thresholds)
    from dpverify.backends import backend_of

    return backend_of(values).count_at_least(values, thresholds)


def score_chunk(statistics: Sequence[Statistic], thresholds: Sequence[np.ndarray], c0: np.ndarray,
                c1: np.ndarray) -> ScoreCounts:
    """For each statistic, ``(#{s(x) >= t} on c0, on c1)`` at each of its candidate thresholds ``t``. ``c0``/``c1``
    may be torch tensors on a device (:class:`DeviceChunk`)."""
    if not (isinstance(c0, np.ndarray) and isinstance(c1, np.ndarray)):
        d0, d1 = DeviceChunk(c0), DeviceChunk(c1)
        return [(_at_least(d0.apply(stat), t), _at_least(d1.apply(stat), t)) for stat, t in zip(statistics, thresholds)]
    r0, r1 = DistinctRows(c0), DistinctRows(c1)  # each chunk prepared once for all statistics
    return [(count_at_least(r0.apply(stat), t), count_at_least(r1.apply(stat), t))
            for stat, t in zip(statistics, thresholds)]


def count_chunk(statistics: Sequence[Statistic], events: Sequence[tuple[int, float]], c0: np.ndarray,
                c1: np.ndarray) -> np.ndarray:
    """``out[side, e] = #{statistics[i](x) >= t}`` on side ``c0`` (0) and ``c1`` (1) for each event ``e = (i, t)``;
    each statistic is evaluated once per chunk (on the device when the chunk is a torch tensor, :class:`DeviceChunk`)."""
    values: dict = {}
    device = not (isinstance(c0, np.ndarray) and isinstance(c1, np.ndarray))
    r0, r1 = (DeviceChunk(c0), DeviceChunk(c1)) if device else (DistinctRows(c0), DistinctRows(c1))
    out = np.zeros((2, len(events)), dtype=np.int64)
    for e, (i, threshold) in enumerate(events):
        if i not in values:
            values[i] = (r0.apply(statistics[i]), r1.apply(statistics[i]))
        if device:
            out[0, e] = _at_least(values[i][0], np.array([threshold]))[0]
            out[1, e] = _at_least(values[i][1], np.array([threshold]))[0]
        else:
            out[0, e] = np.count_nonzero(values[i][0] >= threshold)
            out[1, e] = np.count_nonzero(values[i][1] >= threshold)
    return out


@dataclass(frozen=True)
class ChunkWork:
    """One chunk drawn, evaluated and reduced to integer counts (run in a worker process when there are several):
    ``work(("score", j, None))`` is :func:`score_chunk` of chunk ``j``, ``work(("count", j, events))`` is
    :func:`count_chunk`."""

    sampler: ChunkSampler
    statistics: tuple[Statistic, ...]
    thresholds: tuple[np.ndarray, ...]

    def __call__(self, task: tuple) -> Any:
        kind, j, events = task
        c0, c1 = self.sampler.chunk(j, on_device=True)  # numpy arrays, or tensors on the audit's device
        if kind == "score":
            return score_chunk(self.statistics, self.thresholds, c0, c1)
        return count_chunk(self.statistics, events, c0, c1)


class Progress:
    """Calls ``callback(done, total)`` after every chunk drawn and counted (both sides count as one chunk)."""

    def __init__(self, callback: Callable[[int, int], None] | None, total: int):
        self.callback = callback
        self.total = total
        self.done = 0

    def __call__(self) -> None:
        self.done += 1
        if self.callback is not None:
            self.callback(self.done, self.total)


def runner_for(work: Callable[[Any], Any], workers: int, client: Any, resources: dict | None = None) -> Any:
    """Where the chunks after the fit run: the Dask cluster of ``client`` if given (each chunk task on a worker that
    has the Dask ``resources``, when given), else a :class:`~dpverify.audit.parallel.ChunkRunner` with ``workers``
    processes (both are ``with`` blocks whose ``map(tasks)`` yields ``work``'s results in completion order)."""
    if client is not None:
        from dpverify.audit.distributed import DaskRunner  # dask: an optional extra, imported only when used

        return DaskRunner(work, client, resources=resources)
    return ChunkRunner(work, workers)


def held_chunks(sampler: ChunkSampler, held: int) -> int:
    """How many chunks of each side, from the first, hold the ``held`` outputs the fit keeps in memory."""
    total, k = 0, 0
    while total < held and k < len(sampler.sizes):
        total += sampler.sizes[k]
        k += 1
    return k


@dataclass(frozen=True)
class DrawChunk:
    """Chunk ``j`` of both sides drawn on numpy and returned whole, ``(j, c0, c1)``: the held part of the selection
    (the fit part and the threshold sample, :mod:`dpverify.audit.select`) drawn by the workers instead of the calling
    process. The chunk's seed fixes its outputs, so the outputs are those the calling process would draw."""

    sampler: ChunkSampler

    def __call__(self, j: int) -> tuple[int, np.ndarray, np.ndarray]:
        c0, c1 = self.sampler.chunk(j)
        return j, c0, c1


def held_drawer(sampler: ChunkSampler, held: int, workers: int, client: Any,
                resources: dict | None = None) -> ContextManager[Any]:
    """Where the held chunks are drawn: worker processes or the Dask cluster (a runner of :class:`DrawChunk`, as
    :func:`runner_for`) when there are workers, numpy draws and more than one held chunk; else ``None`` (the fit
    draws them itself). With a sampler's outputs the held part is the whole selection part (about a fifth of the
    audit's draws), which the calling process would otherwise draw alone before any worker starts."""
    if sampler.backend is not None or (workers <= 1 and client is None) or held_chunks(sampler, held) <= 1:
        return nullcontext(None)
    return runner_for(DrawChunk(sampler), workers, client, resources)
