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
from dpverify.audit.statistics import MAX_DISTINCT_ROWS, DistinctRows, Statistic, count_at_least
from dpverify.backends import backend_of

__all__ = ["ChunkWork", "DeviceChunk", "device_distinct_rows", "DrawChunk", "Progress", "score_chunk", "count_chunk",
           "runner_for", "held_chunks", "held_drawer"]

#: One count per side for each candidate threshold of one statistic.
ScoreCounts = list[tuple[np.ndarray, np.ndarray]]


class DeviceChunk:
    """A chunk of outputs held on another backend's device (:mod:`dpverify.backends`), evaluated there:

    - outputs of several integer values per output with few distinct rows (a sparse vector's flag rows, RAPPOR's
      bits: :func:`device_distinct_rows`) are reduced on the device to their distinct rows; every statistic is then
      evaluated as numpy evaluates it (:class:`~dpverify.audit.statistics.DistinctRows`), once per distinct row on the
      host, and its values are gathered back on the device: the numpy values of those rows, bit for bit, and only the
      distinct rows (at most :data:`~dpverify.audit.statistics.MAX_DISTINCT_ROWS`) cross;
    - otherwise a statistic that takes that backend's arrays (``function.backend_generic``: the samplers' white-box
      path statistic, the identity and the outcome log-ratio of one-number outputs, the ratio of a backend-generic
      ``log_density``, the projection, the logistic and boosting classifiers and the additive statistic of vector
      outputs, a user's statistic marked :func:`~dpverify.backends.backend_generic`) is evaluated there, so the
      outputs never leave the device;
    - any other statistic (implementation mode's floating-point statistics, an unmarked custom one) gets the chunk
      copied to the host once (then as :class:`~dpverify.audit.statistics.DistinctRows`)."""

    def __init__(self, outputs: Any):
        self.outputs = outputs
        self.backend = backend_of(outputs)
        self._host: DistinctRows | None = None
        self._distinct: tuple[np.ndarray, Any] | None | bool = False  # False: not looked for yet

    def distinct(self) -> tuple[np.ndarray, Any] | None:
        """``(distinct rows on the host, each output's position among them on the device)`` for outputs of several
        integer values with few distinct rows (:func:`device_distinct_rows`), else None; found once per chunk."""
        if self._distinct is False:
            several = len(self.outputs.shape) > 1 and int(np.prod(self.outputs.shape[1:])) > 1
            self._distinct = device_distinct_rows(self.outputs) if several else None
        return self._distinct  # type: ignore[return-value]

    def on_device(self, statistic: Statistic) -> bool:
        """Whether :meth:`apply` evaluates ``statistic`` without copying the chunk to the host."""
        return self.distinct() is not None or bool(getattr(statistic.function, "backend_generic", False))

    def apply(self, statistic: Statistic) -> Any:
        found = self.distinct()
        if found is not None:
            rows, inverse = found
            return self.backend.lookup(np.asarray(statistic(rows), dtype=float).reshape(-1), inverse)
        if getattr(statistic.function, "backend_generic", False):
            return statistic.function(self.outputs)
        if self._host is None:
            self._host = DistinctRows(self.backend.to_numpy(self.outputs))
        return self._host.apply(statistic)


def device_distinct_rows(outputs: Any) -> tuple[np.ndarray, Any] | None:
    """The device version of :class:`~dpverify.audit.statistics.DistinctRows`: for at least 64 integer-valued outputs
    (integer or bool dtype, or floats holding integers of magnitude at most 2^52) whose mixed-radix keys
    (:func:`~dpverify.audit.statistics.row_keys`: per-column minimum and range; one exact float64 product below 2^53,
    Horner's scheme in int64 above) fit an int64 and take at most ``min(MAX_DISTINCT_ROWS, n/4)`` distinct values:
    ``(rows, inverse)`` with ``rows`` the distinct
    rows decoded on the host from their sorted keys (the values and dtype of the outputs, in numpy's order) and
    ``inverse`` each output's position among them, on the device. None otherwise. Keys, their sort and the inverse are
    computed on the device; only the distinct keys cross."""
    xp = backend_of(outputs)
    n = int(outputs.shape[0])
    if n < 64:
        return None
    rows = outputs.reshape(n, -1)
    dtype = str(rows.dtype).removeprefix("torch.")
    if not (dtype == "bool" or dtype.startswith(("int", "uint", "float"))):
        return None
    numeric = xp.astype(rows, "uint8") if dtype == "bool" else rows
    if dtype.startswith("float"):
        head = xp.astype(rows[:256], "float64")  # continuous outputs (a sampler's paths) are recognised on a prefix,
        if not bool((xp.astype(xp.astype(head, "int64"), "float64") == head).all()):  # before any pass over the chunk
            return None
        numeric = xp.astype(rows, "float64")
        if not bool(((xp.astype(xp.astype(numeric, "int64"), "float64") == numeric)
                     & (xp.abs(numeric) <= 2.0 ** 52)).all()):
            return None
    low_host = xp.to_numpy(xp.min(numeric, axis=0)).astype(np.int64)
    radix_host = xp.to_numpy(xp.max(numeric, axis=0)).astype(np.int64) - low_host + 1
    span = float(np.prod(radix_host.astype(float)))
    if span >= 2.0 ** 62:
        return None
    if span < 2.0 ** 53:  # one float64 product: every term and partial sum is an integer below 2^53, hence exact
        weights = np.concatenate([np.cumprod(radix_host[::-1][:-1])[::-1], [1]]).astype(float)  # prod of later radices
        offsets = xp.astype(numeric, "float64") - xp.asarray(low_host.astype(float))
        keys = xp.astype(xp.matmul(offsets, weights), "int64")
    else:  # Horner's scheme in int64 (keys up to 2^62)
        whole = xp.astype(numeric, "int64")
        keys = whole[:, 0] - int(low_host[0])
        for c in range(1, whole.shape[1]):
            keys = keys * int(radix_host[c]) + (whole[:, c] - int(low_host[c]))
    distinct, inverse = xp.unique(keys)
    if int(distinct.shape[0]) > min(MAX_DISTINCT_ROWS, n // 4):
        return None
    rest = xp.to_numpy(distinct).astype(np.int64)
    digits = np.empty((rest.size, radix_host.size), dtype=np.int64)
    for c in range(radix_host.size - 1, -1, -1):
        rest, digits[:, c] = np.divmod(rest, radix_host[c])
    host_rows = (digits + low_host).astype(dtype).reshape((digits.shape[0],) + tuple(outputs.shape[1:]))
    return host_rows, inverse


def _at_least(values: Any, thresholds: np.ndarray) -> np.ndarray:
    """``#{values >= t}`` per sorted threshold, on the device that holds ``values``."""
    if isinstance(values, np.ndarray):
        return count_at_least(values, thresholds)
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
