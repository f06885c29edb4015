"""Run the per-chunk work of an audit on a Dask cluster (``dask.distributed``); only integer counts come back.

:class:`DaskRunner` has the interface of :class:`dpverify.audit.parallel.ChunkRunner` (a ``with`` block whose
:meth:`~DaskRunner.map` yields the results of ``work`` over the tasks in completion order) and is what
:func:`dpverify.audit.audit` uses when it is given ``client=``. Why the numbers are bit-identical for any number of
workers and any schedule, and identical to ``workers=1`` without Dask: a task is one chunk index ``j``; chunk ``j`` of
each side is drawn with ``default_rng`` of the ``j``-th ``SeedSequence.spawn`` child of that side
(:class:`dpverify.audit.split.ChunkSampler`), so its outputs depend on ``(seed, plan, j)`` only; the work reduces
them to integer counts, and integer sums do not depend on the order in which they are added (the map-reduce over
independently seeded blocks of numpy's "Parallel random number generation" guide). Each task runs with one
BLAS/OpenMP thread (``threadpoolctl``), as the local runners do, so the statistics are evaluated with the same
floating-point operations everywhere.

Serialisation: the work function closes over the mechanism, the datasets and the fitted statistics. It is serialised
once with ``cloudpickle`` (which Dask uses too) and submitted as one task whose result is the serialised bytes; every
chunk task depends on it, so the scheduler ships it to each worker once, and a worker deserialises it once (cached by
a per-runner token). Being a task rather than scattered data, it is recomputed if the worker holding it dies.

Resilience: a worker that dies has its tasks rescheduled by the scheduler (up to the scheduler's
``distributed.scheduler.allowed-failures`` deaths per task); a task that raises is retried ``retries`` times before its
exception reaches the caller. Memory: at most ``max_in_flight`` chunk tasks exist at once (default twice the
cluster's worker threads, at least 2), so neither the client nor the workers hold more than that many chunks' results
(a few integers each) and each worker draws one chunk per thread at a time, whatever the number of chunks.

GPU workers (``audit(..., backend="torch", device="cuda", client=...)``): the work function carries the torch backend
as its device name, rebuilt in the worker process, so each worker draws and counts its chunks on its own first
visible GPU (one worker per GPU: ``CUDA_VISIBLE_DEVICES``, dask-cuda); the chunk seeds are the same, so the counts are
those of the in-process audit on the same device model. ``resources`` (e.g. ``{"GPU": 1}``) pins the chunk tasks to
workers started with ``--resources GPU=1`` (Dask's worker resources); docs/distributed.md has the recipe.

Dask is an optional dependency (the ``distributed`` extra): this module imports it only inside the functions that need
it, and :func:`require_distributed` turns its absence into an ``ImportError`` naming the extra.
"""
from __future__ import annotations

import asyncio
import itertools
import logging
import math
import numbers
import os
import re
import threading
import uuid
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

from threadpoolctl import threadpool_info, threadpool_limits

from dpverify.audit.chunk_memory import keep_chunk_memory
from dpverify.validation import check_positive_int, describe_value

__all__ = [
    "DEFAULT_RETRIES", "EXTRA_HINT", "MALLOC_TRIM_KEY", "WORK_BY_VALUE_BYTES", "DaskRunner", "check_client",
    "check_resources", "check_scheduler_address", "connect", "HANDSHAKE_TIMEOUT", "keep_chunk_memory", "local_cluster",
    "malloc_tuning_plugin", "probe_scheduler", "require_distributed", "require_resources", "resource_threads",
    "total_threads", "worker_pids",
]

#: How often a chunk task that raised is run again before its exception reaches the caller (worker deaths are
#: handled by the scheduler independently of this number).
DEFAULT_RETRIES = 2
#: Dask's nanny starts workers with ``MALLOC_TRIM_THRESHOLD_=65536``, which also turns off glibc's dynamic mmap
#: threshold: every array of a chunk (8 MiB at 2^20 float64 outputs) is then mmap'ed and unmapped, and its pages
#: faulted in again, which made a Laplace audit 1.5-3 times slower per chunk here. :func:`local_cluster` unsets it
#: (this config key set to None); for a cluster of your own, see docs/distributed.md.
MALLOC_TRIM_KEY = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"
#: How to install Dask for dpverify.
EXTRA_HINT = "pip install 'dpverify[distributed]'"

#: Deserialised work functions on a worker, by runner token (a few recent ones; each holds fitted statistics).
_LOADED: "OrderedDict[str, Callable[[Any], Any]]" = OrderedDict()
_LOADED_LOCK = threading.Lock()
_LOADED_MAX = 4


def require_distributed() -> Any:
    """The ``distributed`` module; an ``ImportError`` naming the ``distributed`` extra if Dask is not installed."""
    try:
        import distributed
    except ImportError as err:
        raise ImportError(f"Dask-distributed audits need dask.distributed, which is not installed: {EXTRA_HINT} "
                          f"(the 'distributed' extra); {err}") from err
    return distributed


def check_client(client: Any) -> Any:
    """``client`` if it is a ``distributed.Client`` (a ``TypeError`` naming ``client`` otherwise)."""
    distributed = require_distributed()
    if not isinstance(client, distributed.Client):
        raise TypeError(f"client must be a dask.distributed.Client (or None); got {type(client).__name__}")
    return client


def check_resources(resources: Any) -> dict[str, float]:
    """``resources`` as a ``{name: amount}`` dict of Dask worker resources (names non-empty strings, amounts finite
    and > 0), e.g. ``{"GPU": 1}``; a ``TypeError``/``ValueError`` naming ``resources`` otherwise. A task that needs
    them runs only on workers started with them (``dask worker ... --resources GPU=1``; Dask's "Worker Resources")."""
    if not isinstance(resources, dict) or not resources:
        raise TypeError(f"resources must be a non-empty dict of Dask worker resources such as {{'GPU': 1}}; got "
                        f"{resources!r}")
    out = {}
    for name, amount in resources.items():
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"resources: every name must be a non-empty string such as 'GPU'; got {name!r}")
        if isinstance(amount, bool) or not isinstance(amount, numbers.Real) or not math.isfinite(amount) or amount <= 0:
            raise ValueError(f"resources[{name!r}] must be a finite number > 0 (how much of {name} one chunk task "
                             f"holds); got {amount!r}")
        out[name] = float(amount)
    return out


def resource_threads(client: Any, resources: dict[str, float]) -> int:
    """How many chunk tasks needing ``resources`` the cluster can run at once: per worker, the least over the
    resources of ``floor(worker's amount / amount per task)`` (capped by its threads), summed over the workers."""
    total = 0
    for w in _workers(client):
        have = w.get("resources", {}) or {}
        fits = min(int(float(have.get(name, 0)) // amount) for name, amount in resources.items())
        total += min(fits, int(w.get("nthreads", 1)))
    return total


def require_resources(client: Any, resources: dict[str, float]) -> None:
    """A ``ValueError`` when no worker of the cluster has ``resources`` (tasks needing them would wait forever), saying
    how to start such workers."""
    if resource_threads(client, resources) == 0:
        raise ValueError(f"resources={resources!r}: no worker of the cluster has them, so no task needing them could "
                         "run; start the workers with e.g. `dask worker SCHEDULER --resources GPU=1` "
                         "(docs/distributed.md)")


def total_threads(client: Any) -> int:
    """The number of worker threads of the cluster ``client`` is connected to (at least 1)."""
    return max(1, sum(int(w.get("nthreads", 1)) for w in _workers(client)))


def _workers(client: Any) -> list[dict]:
    """The scheduler's record of every worker of the cluster (``nthreads``, ``resources``, ...)."""
    try:
        info = client.scheduler_info(n_workers=-1)  # every worker (older versions list them all without asking)
    except TypeError:
        info = client.scheduler_info()
    return list(info.get("workers", {}).values())


def worker_pids(client: Any) -> dict[str, int]:
    """Process id of every worker of the cluster, by worker address (asked of the workers themselves)."""
    return {addr: int(pid) for addr, pid in client.run(os.getpid).items()}


#: The largest serialised work function that travels inside every chunk task (:class:`DaskRunner`); a larger one is
#: held once on the cluster. Measured: Laplace 5 KB (drawing the held chunks) and 13 KB (counting), dp_sgld_path 9 KB
#: and 141 KB (its fitted vector statistics). At 256 KiB a thousand chunk tasks carry at most 256 MiB through the
#: scheduler in all; a one-number audit of 10^9 outputs per side (about 1,900 tasks of 13 KB) about 25 MB.
WORK_BY_VALUE_BYTES = 1 << 18


def _hold(blob: bytes) -> bytes:
    """The serialised work function, as a task result (so that it is recomputed if its worker dies)."""
    return blob


def _run_chunk(token: str, blob: bytes, task: Any) -> Any:
    """On a worker: the work function of runner ``token`` (deserialised once per worker) applied to ``task``, with one
    BLAS/OpenMP thread."""
    with _LOADED_LOCK:
        work = _LOADED.get(token)
        if work is None:
            import cloudpickle

            work = _LOADED[token] = cloudpickle.loads(blob)
            while len(_LOADED) > _LOADED_MAX:
                _LOADED.popitem(last=False)
        else:
            _LOADED.move_to_end(token)
    if _one_thread():
        return work(task)
    with threadpool_limits(1):
        return work(task)


_SINGLE: list[bool] = []


def _one_thread() -> bool:
    """Whether every BLAS/OpenMP pool of this process already runs one thread (as Dask's nanny sets it up: then no
    per-task limit is needed; asked once per process)."""
    if not _SINGLE:
        _SINGLE.append(all(int(p.get("num_threads", 1)) == 1 for p in threadpool_info()))
    return _SINGLE[0]


class DaskRunner:
    """``with DaskRunner(work, client) as run: for result in run.map(tasks): ...`` on the cluster of ``client``.

    ``work(task) -> result`` runs on the workers, at most ``max_in_flight`` tasks at a time (default
    ``2 * total_threads(client)``, at least 2); :meth:`map` yields the results in completion order. ``resources``
    (e.g. ``{"GPU": 1}``, :func:`check_resources`): every chunk task needs them, so only workers started with them
    run it (then the default ``max_in_flight`` counts only the tasks they can hold at once); a cluster where no
    worker has them is a ``ValueError`` at once rather than tasks that wait forever. A task that
    raises is retried ``retries`` times, then its exception is raised in the caller. Leaving the block (also on an
    exception or Ctrl-C) cancels the tasks still pending and releases the serialised work function.

    The work function travels serialised (cloudpickle) and is deserialised once per worker. Up to
    :data:`WORK_BY_VALUE_BYTES` it travels inside every chunk task, which then depends on nothing: the scheduler places
    each task on whichever worker is free. A larger one is held once as a task result that every chunk task depends
    on; Dask places a task on a worker that holds its dependencies, so such tasks start on the one worker that holds
    it and reach the others by work stealing. Measured on 2 workers (Laplace, 3 x 10^7 outputs per side, a work
    function of 13 KB, three runs each): as a dependency the workers' CPU split about 1.4 / 2.6 s and the audit took
    3.2-3.5 s; by value 1.7-2.0 s each and 2.6-2.8 s.
    """

    def __init__(self, work: Callable[[Any], Any], client: Any, max_in_flight: int | None = None,
                 retries: int = DEFAULT_RETRIES, resources: dict | None = None):
        self.work = work
        self.client = check_client(client)
        #: the Dask worker resources every chunk task needs (None: any worker runs it)
        self.resources = None if resources is None else check_resources(resources)
        if self.resources is not None:
            require_resources(client, self.resources)
        if max_in_flight is None:
            slots = total_threads(client) if self.resources is None else resource_threads(client, self.resources)
            max_in_flight = max(2, 2 * slots)
        self.max_in_flight = check_positive_int(max_in_flight, "max_in_flight")
        self.retries = check_positive_int(retries, "retries", minimum=0)
        self.token = uuid.uuid4().hex
        self.workers = total_threads(client)
        self._work_arg: Any = None  # the serialised work function, or the future that holds it
        self._pending: set = set()
        self._counter = itertools.count()

    @property
    def in_flight(self) -> int:
        """Chunk tasks submitted whose results have not been consumed yet (at most ``max_in_flight``)."""
        return len(self._pending)

    def __enter__(self) -> "DaskRunner":
        import cloudpickle

        try:
            blob = cloudpickle.dumps(self.work)
        except Exception as err:  # noqa: BLE001 - say what could not be shipped to the workers
            raise TypeError(f"client=: cloudpickle could not serialise the mechanism or a statistic for the Dask "
                            f"workers ({type(err).__name__}: {err})") from err
        if len(blob) <= WORK_BY_VALUE_BYTES:
            self._work_arg = blob
        else:
            self._work_arg = self.client.submit(_hold, blob, key=f"dpverify-work-{self.token}", pure=False,
                                                retries=self.retries)
        return self

    def __exit__(self, *exc) -> None:
        pending, self._pending = self._pending, set()
        try:
            if pending:
                self.client.cancel(list(pending))
            if self._work_arg is not None and not isinstance(self._work_arg, bytes):  # the held future
                self._work_arg.release()
        except Exception:  # noqa: BLE001 - a closed client or cluster: nothing left to release
            pass
        finally:
            self._work_arg = None

    def _submit(self, task: Any) -> Any:
        future = self.client.submit(_run_chunk, self.token, self._work_arg, task,
                                    key=f"dpverify-chunk-{self.token}-{next(self._counter)}", pure=False,
                                    retries=self.retries, resources=self.resources)
        self._pending.add(future)
        return future

    def map(self, tasks: Iterable[Any]) -> Iterator[Any]:
        """Results of ``work`` on every task, in completion order, with at most ``max_in_flight`` tasks submitted and
        not yet consumed."""
        from distributed import as_completed

        if self._work_arg is None:
            raise RuntimeError("DaskRunner.map must be called inside its with block")
        tasks = iter(tasks)
        first = [self._submit(t) for t in itertools.islice(tasks, self.max_in_flight)]
        if not first:
            return
        queue = as_completed(first)
        for future in queue:
            result = future.result()
            self._pending.discard(future)
            future.release()
            del future
            nxt = next(tasks, _DONE)
            if nxt is not _DONE:
                queue.add(self._submit(nxt))
            yield result


_DONE = object()


def malloc_tuning_plugin() -> Any:
    """A Dask ``WorkerPlugin`` that calls :func:`keep_chunk_memory` on every worker of a cluster, also on workers
    that join or restart later: ``client.register_plugin(malloc_tuning_plugin())``. :func:`local_cluster` registers
    it; for a cluster of your own, register it once (docs/distributed.md)."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class MallocTuning(WorkerPlugin):
        name = "dpverify-malloc-tuning"
        idempotent = True

        def setup(self, worker: Any) -> None:
            keep_chunk_memory()

    return MallocTuning()


@contextmanager
def local_cluster(n_workers: int = 2, threads_per_worker: int = 1, memory_limit: str | int = "auto",
                  **kwargs: Any) -> Iterator[Any]:
    """A ``Client`` of a fresh ``LocalCluster`` of ``n_workers`` processes with ``threads_per_worker`` threads each
    (dashboard on a free port, quiet logs, glibc's default malloc tuning: :data:`MALLOC_TRIM_KEY`, no worker
    profiler; malloc that keeps chunk memory on every worker: :func:`malloc_tuning_plugin`); cluster and client are closed
    on leaving the block."""
    distributed = require_distributed()
    n_workers = check_positive_int(n_workers, "n_workers")
    threads_per_worker = check_positive_int(threads_per_worker, "threads_per_worker")
    import dask

    # MALLOC_TRIM_KEY: see there; the workers' statistical profiler (sampling every thread's stack every 10 ms, for
    # the dashboard) cost 5-10 % of an audit's time here
    with dask.config.set({MALLOC_TRIM_KEY: None, "distributed.worker.profile.enabled": False}):
        cluster = distributed.LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker, processes=True,
                                           dashboard_address=":0", silence_logs=logging.ERROR,
                                           memory_limit=memory_limit, **kwargs)
    try:
        client = distributed.Client(cluster)
        try:
            client.register_plugin(malloc_tuning_plugin())
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


#: Seconds a scheduler address that accepted the connection has to answer Dask's handshake (a Dask scheduler answers
#: in milliseconds; a server that is not one may never answer). At most ``distributed.comm.timeouts.connect``.
HANDSHAKE_TIMEOUT = 10.0


def check_scheduler_address(scheduler: Any) -> str:
    """``scheduler`` as a normalised Dask address (``127.0.0.1:8786`` becomes ``tcp://127.0.0.1:8786``); a
    ``ValueError`` naming ``scheduler``, what is accepted and what is wrong (no port, a port out of range, an unknown
    scheme, text that is no address) otherwise. Dask must be installed (:func:`require_distributed`)."""
    wanted = "'local' or a Dask scheduler address such as tcp://host:8786"
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ValueError(f"scheduler must be {wanted}; got {describe_value(scheduler)}")
    require_distributed()
    from distributed.comm import registry
    from distributed.comm.addressing import normalize_address, parse_address, parse_host_port

    text = scheduler.strip()
    try:
        address = normalize_address(text)
        scheme, location = parse_address(address)
        registry.get_backend(scheme)
        if scheme in ("tcp", "tls", "ws", "wss"):
            host, port = parse_host_port(location)
            if not host:
                raise ValueError("no host name")
            if not 0 < int(port) < 65536:
                raise ValueError(f"port {port} is not in [1, 65535]")
    except (ValueError, TypeError) as exc:
        raise ValueError(f"scheduler must be {wanted}; got {describe_value(scheduler)} ({exc})") from None
    return address


def _connect_timeout() -> float:
    """Dask's ``distributed.comm.timeouts.connect`` in seconds (30 s by default)."""
    import dask
    from dask.utils import parse_timedelta

    return float(parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="seconds"))


def probe_scheduler(address: str, timeout: float | None = None, handshake_timeout: float | None = None) -> None:
    """Check that a Dask peer answers at ``address`` (normalised, :func:`check_scheduler_address`) before a
    ``Client`` is made for it: connect once within ``timeout`` seconds (default Dask's
    ``distributed.comm.timeouts.connect``, 30 s) and exchange Dask's handshake within ``handshake_timeout`` seconds
    (default :data:`HANDSHAKE_TIMEOUT`, at most ``timeout``). ``distributed.Client`` waits for the handshake without
    a time limit, so an address where a server that is not a Dask scheduler listens (one that accepts and says
    nothing) would hang it for ever. An ``OSError`` (a ``TimeoutError`` for the time limits) saying what happened
    otherwise: nothing listens there, no answer, an answer that is not Dask's."""
    require_distributed()
    from distributed.comm import registry
    from distributed.comm.addressing import parse_address
    from distributed.security import Security

    timeout = _connect_timeout() if timeout is None else float(timeout)
    handshake_timeout = min(HANDSHAKE_TIMEOUT if handshake_timeout is None else float(handshake_timeout), timeout)
    scheme, location = parse_address(address)
    connector = registry.get_backend(scheme).get_connector()
    connection_args = Security().get_connection_args("client")

    async def probe() -> None:
        try:
            comm = await asyncio.wait_for(connector.connect(location, deserialize=False, **connection_args), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"no connection to {address} within {timeout:g} s (Dask's "
                               "distributed.comm.timeouts.connect)") from None
        except OSError as exc:
            reason = re.sub(r"^in <[^>]*>: ", "", str(exc))  # Dask's wrapping names its connector object
            raise OSError(f"could not connect to {address}: {reason}") from None
        try:
            await asyncio.wait_for(comm.write(comm.handshake_info()), handshake_timeout)
            reply = await asyncio.wait_for(comm.read(), handshake_timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"something listens at {address} but gave no Dask handshake within "
                               f"{handshake_timeout:g} s: it is not a Dask scheduler") from None
        except Exception:  # noqa: BLE001 - whatever garbage the peer sent (a MemoryError for a huge frame count)
            raise OSError(f"something listens at {address} but its answer is not Dask's protocol: it is not a Dask "
                          "scheduler") from None
        finally:
            comm.abort()
        if not isinstance(reply, dict) or "compression" not in reply:
            raise OSError(f"something listens at {address} but answered with no Dask handshake: it is not a Dask "
                          "scheduler")

    asyncio.run(probe())


@contextmanager
def connect(scheduler: str, n_workers: int | None = None, *, probe: bool = True) -> Iterator[Any]:
    """A ``Client`` for ``scheduler``: ``"local"`` starts a :func:`local_cluster` of ``n_workers`` worker processes
    (default 2), anything else is a scheduler address (``tcp://host:8786``) of a running cluster, whose workers the
    cluster decides (``n_workers`` must then be None). A malformed address is a ``ValueError``
    (:func:`check_scheduler_address`); with ``probe`` (the default) an address where no Dask scheduler answers within
    the time limits of :func:`probe_scheduler` is an ``OSError`` rather than a hang. Closed on leaving the block."""
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ValueError(f"scheduler must be 'local' or a scheduler address such as tcp://host:8786; got {scheduler!r}")
    distributed = require_distributed()
    if scheduler == "local":
        with local_cluster(2 if n_workers is None else n_workers) as client:
            yield client
        return
    if n_workers is not None:
        raise ValueError(f"the number of workers is the cluster's own with scheduler={scheduler!r}; give it only with "
                         "scheduler='local'")
    address = check_scheduler_address(scheduler)
    if probe:
        probe_scheduler(address)
    try:
        client = distributed.Client(address, timeout=_connect_timeout())
    except OSError as err:
        raise OSError(f"could not reach the Dask scheduler at {scheduler}: {err}") from err
    try:
        yield client
    finally:
        client.close()
