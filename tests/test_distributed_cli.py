"""``--scheduler`` of ``dpverify verify`` / ``dpverify audit`` and ``--dp-scheduler`` of the pytest plugin.

Every run on a Dask cluster must give the numbers of the same run without it; a worker killed while it runs a task
must not lose or change any result (the scheduler runs its tasks again on the other worker or on the restarted one).
"""
from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

import pytest

from dpverify.interfaces.cli import main

ONLY = "*_mechanism"  # four baseline audits and the theorems of their mechanisms: a few seconds in all


def without_timings(value):
    """The report with its wall-clock times removed (everything else must match exactly)."""
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in ("seconds", "wall_time")}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def report(path) -> dict:
    data = json.loads((path / "report.json").read_text())
    return {"theorems": without_timings(data["theorems"]), "audits": without_timings(data["audits"]),
            "summary": data["summary"]}


def kill_a_busy_worker(killed: list, stop: threading.Event) -> None:
    """Wait for the run's Dask client, then SIGKILL a worker process while it holds a dpverify task."""
    from distributed.client import default_client

    while not stop.is_set():
        try:
            client = default_client()
            busy = [addr for addr, keys in client.processing().items()
                    if any(str(k).startswith("dpverify-") for k in keys)]
        except Exception:  # no client yet, or it is still connecting
            busy = []
        if busy:
            pid = client.run(os.getpid, workers=[busy[0]])[busy[0]]
            keys = client.processing()[busy[0]]
            os.kill(pid, signal.SIGKILL)
            killed.append((busy[0], pid, keys))
            return
        time.sleep(0.05)


def test_verify_on_a_local_cluster_survives_a_killed_worker(tmp_path, capsys):
    assert main(["verify", "--only", ONLY, "--report", str(tmp_path / "plain")]) == 0
    killed: list = []
    stop = threading.Event()
    killer = threading.Thread(target=kill_a_busy_worker, args=(killed, stop), daemon=True)
    killer.start()
    try:
        status = main(["verify", "--only", ONLY, "--scheduler", "local", "--workers", "2",
                       "--report", str(tmp_path / "dask")])
    finally:
        stop.set()
        killer.join(timeout=10)
    assert killed, "no worker was killed while it ran a task"
    _, pid, keys = killed[0]
    assert keys, "the killed worker held no task"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # that worker is gone
    assert status == 0
    plain, dask = report(tmp_path / "plain"), report(tmp_path / "dask")
    assert [a["case"] for a in dask["audits"]] == ["laplace_mechanism", "gaussian_mechanism",
                                                     "analytic_gaussian_mechanism", "exponential_mechanism"]
    assert dask["theorems"] and dask == plain  # complete, and every number equal to the run without the scheduler
    err = capsys.readouterr().err
    assert "on the Dask cluster at tcp://" in err and f"tasks {len(dask['theorems']) + 4}/" in err


def test_audit_command_on_a_local_cluster_gives_the_same_result(capsys):
    outputs = []
    for extra in ([], ["--scheduler", "local", "--workers", "1"]):
        assert main(["audit", "laplace_mechanism", "--samples", "30000", "--seed", "4", "--json", *extra]) == 0
        out = json.loads(capsys.readouterr().out)
        out.pop("wall_time")
        outputs.append(out)
    assert outputs[0] == outputs[1]


def test_scheduler_usage_errors_are_clear(capsys, monkeypatch):
    assert main(["verify", "--only", ONLY, "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2"]) == 2
    assert "give --workers only with --scheduler local" in capsys.readouterr().err
    assert main(["audit", "laplace_mechanism", "--scheduler", " "]) == 2
    assert "--scheduler must be 'local' or a scheduler address" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the extra were not installed
    for argv in (["verify", "--only", ONLY, "--scheduler", "local"], ["audit", "laplace_mechanism", "--scheduler",
                                                                       "local"]):
        assert main(argv) == 2
        assert "pip install 'dpverify[distributed]'" in capsys.readouterr().err


PLUGIN_TEST = """
import numpy as np
import pytest

def laplace(dataset, n, rng):
    return float(np.sum(dataset)) + rng.laplace(0.0, 2.0, size=n)

@pytest.mark.dp_audit(epsilon=0.5)
def test_laplace(dp_auditor):
    dp_auditor(laplace, np.array([1, 0, 1]), np.array([1, 1, 1]))
"""


def test_pytest_plugin_runs_audits_through_the_scheduler(pytester):
    import numpy as np

    from dpverify.audit import audit

    pytester.makepyfile(PLUGIN_TEST)
    path = pytester.path / "dp.json"
    result = pytester.runpytest_subprocess("--dp-samples", "20000", "--dp-seed", "2", "--dp-scheduler", "local",
                                           "--dp-workers", "2", "--dp-report", str(path), "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    row = json.loads(path.read_text())["audits"][0]

    def laplace(dataset, n, rng):
        return float(np.sum(dataset)) + rng.laplace(0.0, 2.0, size=n)

    local = audit(laplace, np.array([1, 0, 1]), np.array([1, 1, 1]), epsilon=0.5, samples=20_000, seed=2)
    assert (row["epsilon_lower"], row["counts"]) == (local.epsilon_lower, local.counts)
    bad = pytester.runpytest_subprocess("--dp-scheduler", "tcp://127.0.0.1:8786", "--dp-workers", "2")
    assert bad.ret == pytest.ExitCode.USAGE_ERROR
    bad.stderr.fnmatch_lines(["*--dp-workers is the cluster's own with --dp-scheduler*"])
