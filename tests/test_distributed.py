"""audit(client=...): chunks drawn and counted as tasks on a Dask LocalCluster (dpverify.audit.distributed).

The numbers must equal those of ``workers=1`` without Dask for any number of Dask workers (each chunk has its own
seed; integer counts are summed in any order), the fitted statistics (closures) must reach the workers, errors must
reach the caller, a worker killed mid-audit must not change the result, and at most ``max_in_flight`` tasks may exist
at once. Clusters are small (``processes=True``, one thread per worker) and closed by their fixtures.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.distributed import DaskRunner, local_cluster, require_distributed, worker_pids
from dpverify.audit.known_bad import ReportNoisyMax

from parallel_cases import D0, D1, STREAM, chunk_rounds_faults, gaussian_path, numbers  # noqa: E402,F401


@pytest.fixture(scope="module")
def clients():
    """Clients of three LocalClusters: 1, 2 and 4 worker processes of one thread each."""
    from contextlib import ExitStack

    with ExitStack() as stack:
        yield {n: stack.enter_context(local_cluster(n)) for n in (1, 2, 4)}


def test_one_two_and_four_dask_workers_give_the_numbers_of_one_local_process(clients):
    mech = ReportNoisyMax(1.0)
    d0, d1 = np.array([1.0, 1.0, 1.0]), np.array([0.0, 2.0, 2.0])
    kwargs = dict(epsilon=1.0, samples=30_000, seed=11, **STREAM)
    local = numbers(audit(mech, d0, d1, **kwargs))
    for n, client in clients.items():
        assert numbers(audit(mech, d0, d1, client=client, **kwargs)) == local, f"{n} Dask workers"
    assert local["counts"]["n_estimation"] == 24_000


def test_fitted_vector_statistics_reach_the_workers(clients):
    kwargs = dict(epsilon=1.0, samples=20_000, seed=5, candidates=3, **STREAM)
    local = numbers(audit(gaussian_path, D0, np.array([0.3]), **kwargs))
    assert numbers(audit(gaussian_path, D0, np.array([0.3]), client=clients[2], **kwargs)) == local
    assert len(local["candidates"]) == 3


def test_progress_counts_every_chunk_once_with_a_client(clients):
    calls = []
    audit(gaussian_path, D0, np.array([0.3]), epsilon=1.0, samples=20_000, seed=5, client=clients[2],
          progress=lambda done, total: calls.append((done, total)), **STREAM)
    total = 20_000 // STREAM["chunk_size"]
    assert [d for d, _ in calls] == list(range(1, total + 1)) and {t for _, t in calls} == {total}


def nan_in_last_chunk(dataset, n, rng):
    out = float(np.sum(dataset)) + rng.laplace(0.0, 1.0, n)
    if n == 777:  # the last estimation chunk only, drawn on a worker
        out[0] = np.nan
    return out


def test_worker_errors_reach_the_caller_and_the_cluster_stays_usable(clients):
    # 20,972 per side: selection 4,195 = 2 x 2,000 + 195, estimation 16,777 = 8 x 2,000 + 777.
    with pytest.raises(ValueError, match="NaN"):
        audit(nan_in_last_chunk, D0, D1, epsilon=1.0, samples=20_972, seed=0, client=clients[2], **STREAM)
    r = audit(nan_in_last_chunk, D0, D1, epsilon=1.0, samples=20_000, seed=0, client=clients[2], **STREAM)
    assert r.counts["n_estimation"] == 16_000


def test_in_flight_tasks_are_bounded(clients):
    seen = []
    with DaskRunner(lambda j: j * j, clients[2], max_in_flight=3) as runner:
        out = []
        for value in runner.map(range(40)):
            seen.append(runner.in_flight)
            out.append(value)
    assert sorted(out) == [j * j for j in range(40)]
    assert max(seen) <= 3 and seen[-1] == 0  # 3 submitted at most; the last result leaves none behind


def _slow_square(j):
    time.sleep(0.2)
    return j * j


def _dependencies_of(dask_scheduler, keys):
    return [len(dask_scheduler.tasks[k].dependencies) for k in keys if k in dask_scheduler.tasks]


@pytest.mark.parametrize("by_value", [True, False])
def test_a_small_work_function_travels_in_each_task_a_large_one_is_held_once(clients, monkeypatch, by_value):
    """A work function of at most WORK_BY_VALUE_BYTES travels inside every chunk task, which then depends on nothing
    (the scheduler places it on any free worker; as a dependency it started every task on the one worker holding
    the function: 1.4 / 2.6 s of CPU on two workers for a Laplace audit); a larger one is held once on the cluster
    and every chunk task depends on it. Both give every result."""
    import dpverify.audit.distributed as distributed_module

    if not by_value:
        monkeypatch.setattr(distributed_module, "WORK_BY_VALUE_BYTES", 0)
    client = clients[2]
    with DaskRunner(_slow_square, client) as runner:
        results = runner.map(range(8))
        out = [next(results)]
        keys = [future.key for future in runner._pending]  # tasks still queued or running
        dependencies = client.run_on_scheduler(_dependencies_of, keys=keys)
        out.extend(results)
    assert sorted(out) == [j * j for j in range(8)]
    assert dependencies and set(dependencies) == ({0} if by_value else {1})


def test_bad_client_arguments_are_clear_errors(clients):
    with pytest.raises(ValueError, match="client and workers=2"):
        audit(gaussian_path, D0, D1, epsilon=1.0, samples=1_000, client=clients[1], workers=2)
    with pytest.raises(TypeError, match="client must be a dask.distributed.Client"):
        audit(gaussian_path, D0, D1, epsilon=1.0, samples=1_000, client="tcp://127.0.0.1:8786")
    with pytest.raises(ValueError, match="max_in_flight"):
        DaskRunner(len, clients[1], max_in_flight=0)


def test_a_worker_killed_mid_audit_changes_no_number():
    kwargs = dict(epsilon=1.0, samples=60_000, seed=3, **STREAM)
    local = numbers(audit(gaussian_path, D0, np.array([0.3]), **kwargs))
    killed = []
    with local_cluster(2) as client:
        pids = worker_pids(client)

        def kill_one(done, total):
            if done == total // 2 and not killed:  # half the chunks counted, tasks in flight on both workers
                pid = sorted(pids.values())[0]
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        result = numbers(audit(gaussian_path, D0, np.array([0.3]), client=client, progress=kill_one, **kwargs))
        deadline = time.monotonic() + 20
        while killed[0] in worker_pids(client).values() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert killed[0] not in worker_pids(client).values()  # the worker did die
    assert result == local


def test_without_dask_nothing_imports_it_and_using_it_names_the_extra(monkeypatch):
    code = ("import sys, dpverify, dpverify.audit, dpverify.audit.core, dpverify.interfaces.cli, "
            "dpverify.interfaces.suite, dpverify.interfaces.pytest_plugin; "
            "from dpverify.interfaces.cli import build_parser; build_parser(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the extra were not installed
    with pytest.raises(ImportError, match=r"dpverify\[distributed\]"):
        require_distributed()
    with pytest.raises(ImportError, match=r"dpverify\[distributed\]"):
        audit(gaussian_path, D0, D1, epsilon=1.0, samples=1_000, client=object())


def _chunk_memory_faults() -> int:
    """:func:`parallel_cases.chunk_rounds_faults` in a fresh thread (a Dask task's thread has its own glibc arena)."""
    import threading

    out: list[int] = []
    t = threading.Thread(target=lambda: out.append(chunk_rounds_faults()))
    t.start()
    t.join()
    return out[0]


def test_local_cluster_workers_keep_chunk_memory_instead_of_faulting_it_in_again(clients):
    """local_cluster registers the malloc tuning on every worker (dpverify.audit.distributed.keep_chunk_memory). Its
    effect, measured as page faults: 40 rounds of 3 x 8 MiB fault in at least 40 x 2048 pages when each round's
    arrays go back to the system, and about one round's worth (a few thousand) when they are reused; the bound
    10,000 sits between. A cluster without the plugin (or a plugin that does nothing) fails the second assertion
    wherever the thread arena returns the memory, and always fails the first. (glibc only: elsewhere keep_chunk_memory returns False and this test fails.)"""
    from dpverify.audit.distributed import keep_chunk_memory

    client = clients[2]
    registered = client.run(lambda dask_worker: "dpverify-malloc-tuning" in dask_worker.plugins)
    assert set(registered.values()) == {True}, registered
    assert set(client.run(keep_chunk_memory).values()) == {True}
    faults = client.run(_chunk_memory_faults)
    assert max(faults.values()) < 10_000, faults
