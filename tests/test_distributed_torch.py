"""A torch audit on a Dask cluster (issue 26: "a GPU worker is a Dask worker with backend='torch', device='cuda'").

``audit(..., backend="torch", device=D, client=client)`` draws and counts every chunk after the fit on the worker
that runs its task, with the torch backend on the worker's own device ``D``. The counts must stay a function of
(seed, plan, chunk index) only: on torch-CPU, a LocalCluster of 2 workers gives the bit-identical result of the
in-process torch audit with the same seed (the DP-SGLD path audit of ``tests/test_backends_torch.py``, 6000 samples
per side in chunks of 1000, so that both workers draw chunks). Chunk tasks pinned to Dask worker resources run only
on workers that have them; a cluster without them is an error at once. There is no GPU here: the CUDA half of the
recipe (docs/distributed.md) is the same code with ``device="cuda"`` on workers that have one GPU each.

Marker ``torch``; the cluster's workers import torch themselves (a few seconds each).
"""
from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.distributed import DaskRunner, check_resources, local_cluster
from dpverify.samplers import registry

from parallel_cases import numbers  # noqa: E402

pytestmark = pytest.mark.torch

#: The DP-SGLD path audit of tests/test_backends_torch.py, small: the white-box statistic (nothing fitted), 6000
#: samples per side in chunks of 1000 (about 5 estimation chunks per side after the selection part).
KWARGS = dict(delta=1e-3, samples=6000, seed=3, test="likelihood_ratio", backend="torch", device="cpu",
              chunk_size=1000)


def _path_audit():
    from dpverify.models.canary import model_canary_pair
    from dpverify.models.logistic import LogisticRegression

    model = LogisticRegression(2, R=4.0, prior_variance=100.0)
    X, Y = model_canary_pair(model, 100, kind="null")
    sampler = registry.make("dp_sgld_li", model=model, epsilon=None, claim="accountant", N=100, tau=10, T=20,
                            delta=1e-3, step_size=0.444, L=1.0, theta0=(-2.0, 0.0), release="path")
    return sampler, X, Y, sampler.guarantee().epsilon


@pytest.fixture(scope="module")
def one_torch_thread():
    import torch

    torch.set_num_threads(1)  # 2 threads on a loaded 2-core machine spin: 10x slower


@pytest.fixture(scope="module")
def gpu_cluster():
    """A LocalCluster of 2 single-threaded workers, each started with the Dask resource GPU=1 (as a GPU machine's
    workers are: one per GPU). Here the "GPU" is the CPU: torch-CPU stands in for CUDA."""
    with local_cluster(2, resources={"GPU": 1}) as client:
        yield client


def test_a_torch_audit_on_two_dask_workers_is_bit_identical_to_the_in_process_one(one_torch_thread, gpu_cluster):
    """Counts, bound, verdict, candidates and the recorded backend/device of the torch-CPU path audit on 2 Dask
    workers (chunk tasks pinned to GPU=1) equal the in-process torch audit's, bit for bit; both workers drew chunks
    (each draws its own, so the sum is over both); the bound is below the pair's exact epsilon."""
    sampler, X, Y, exact = _path_audit()
    local = audit(sampler, X, Y, epsilon=exact, **KWARGS)
    on_dask = audit(sampler, X, Y, epsilon=exact, client=gpu_cluster, resources={"GPU": 1}, **KWARGS)
    assert numbers(on_dask) == numbers(local)
    assert (on_dask.backend, on_dask.device) == ("torch", "cpu")
    assert local.counts["n_estimation"] >= 4000 and 0.0 < local.epsilon_lower <= exact
    # both workers loaded the work function, and it draws on the torch backend there
    assert list(gpu_cluster.run(_backends_loaded).values()) == [["TorchBackend(device='cpu')"]] * 2


def _backends_loaded() -> list[str]:
    """On a worker: the backends of the audits' work functions it has loaded (:mod:`dpverify.audit.distributed`)."""
    from dpverify.audit.distributed import _LOADED

    return sorted({repr(w.sampler.backend) for w in _LOADED.values() if hasattr(w, "sampler")})


def test_the_numpy_audit_of_the_same_pair_differs_so_the_comparison_can_fail(one_torch_thread):
    """The same audit on numpy draws other samples (another generator): its counts differ from torch's, so the
    equality above is not between two things that are always equal."""
    sampler, X, Y, exact = _path_audit()
    torch_counts = audit(sampler, X, Y, epsilon=exact, **KWARGS).counts
    numpy_counts = audit(sampler, X, Y, epsilon=exact, **{**KWARGS, "backend": "numpy", "device": None}).counts
    assert torch_counts != numpy_counts


def test_torch_backend_travels_as_its_device_name_and_is_rebuilt_where_unpickled():
    """A pickled TorchBackend is rebuilt by its constructor (which checks the device in the unpickling process, a
    Dask worker): the same device, and a generator that draws the same numbers from the same seed."""
    from dpverify.backends import get_backend

    cpu = get_backend("torch", "cpu")
    again = pickle.loads(pickle.dumps(cpu))
    assert again == cpu and again.device == "cpu"
    a = cpu.generator(np.random.SeedSequence(1)).standard_normal((3,))
    b = again.generator(np.random.SeedSequence(1)).standard_normal((3,))
    assert a.tolist() == b.tolist()


def test_workers_still_refused_with_torch_and_resources_need_a_client():
    """``workers > 1`` with torch is a ValueError naming workers and pointing at Dask; ``resources`` without a client
    is a ValueError naming resources; bad resources name the argument and what is allowed."""
    sampler, X, Y, exact = _path_audit()
    with pytest.raises(ValueError, match=r"workers=2 with backend='torch'.*Dask client="):
        audit(sampler, X, Y, epsilon=exact, workers=2, **KWARGS)
    with pytest.raises(ValueError, match=r"resources=.*needs client="):
        audit(sampler, X, Y, epsilon=exact, resources={"GPU": 1}, **KWARGS)
    with pytest.raises(TypeError, match="resources must be a non-empty dict"):
        check_resources(["GPU"])
    with pytest.raises(ValueError, match=r"resources\['GPU'\] must be a finite number > 0"):
        check_resources({"GPU": 0})
    assert check_resources({"GPU": 1}) == {"GPU": 1.0} == check_resources({"GPU": np.int64(1)})


def test_resources_no_worker_has_are_an_error_not_a_hang(gpu_cluster):
    """Chunk tasks that need a resource no worker of the cluster has would wait forever: a ValueError at once that
    says how to start such workers."""
    with pytest.raises(ValueError, match=r"no worker of the cluster has them.*--resources GPU=1"):
        DaskRunner(lambda task: task, gpu_cluster, resources={"TPU": 1})
    runner = DaskRunner(lambda task: task, gpu_cluster, resources={"GPU": 1})
    assert runner.max_in_flight == 4  # 2 workers with one GPU each: 2 tasks at once, twice that in flight
    with runner:
        assert sorted(runner.map(range(5))) == [0, 1, 2, 3, 4]


# -- command line --------------------------------------------------------------------------------------------------

def test_cli_audit_with_torch_on_a_local_cluster_prints_the_in_process_result(one_torch_thread, capsys):
    """``dpverify audit dp_sgld_path --backend torch --device cpu --scheduler local --workers 2 --json`` prints the
    result of the same command without the scheduler, wall time aside (and says torch on cpu)."""
    from dpverify.interfaces.cli import main

    argv = ["audit", "dp_sgld_path", "--backend", "torch", "--device", "cpu", "--samples", "4000", "--json"]
    assert main(argv) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main([*argv, "--scheduler", "local", "--workers", "2"]) == 0
    on_dask = json.loads(capsys.readouterr().out)
    alone.pop("wall_time"), on_dask.pop("wall_time")
    assert on_dask == alone and (on_dask["backend"], on_dask["device"]) == ("torch", "cpu")


@pytest.mark.parametrize("argv, message", [
    (["--backend", "torch", "--device", "cpu", "--workers", "2"], "drop --workers, or use --scheduler"),
    (["--dask-resources", "GPU=1"], "--dask-resources pins tasks to Dask workers that have them: it needs "
                                    "--scheduler"),
    (["--scheduler", "local", "--dask-resources", "GPU=0"], "NAME=AMOUNT[,NAME=AMOUNT...] with AMOUNT a number > 0"),
    (["--scheduler", "local", "--dask-resources", "GPU"], "such as GPU=1; got 'GPU'"),
])
def test_cli_backend_and_resources_usage_errors(argv, message, capsys):
    """Bad combinations are usage errors (exit 2) naming the option, before any sampling."""
    from dpverify.interfaces.cli import main

    assert main(["audit", "dp_sgld_path", *argv]) == 2
    assert message in capsys.readouterr().err


def test_plugin_runs_torch_audits_on_the_dask_cluster_and_resources_need_a_scheduler(pytester):
    """``pytest --dp-backend torch --dp-device cpu --dp-scheduler local --dp-workers 2``: the gradient sampler's audit
    runs on the cluster (no longer refused) and its report row says torch on cpu; ``--dp-resources`` without
    ``--dp-scheduler`` is a usage error naming both options."""
    pytester.makepyfile("""
import pytest
import torch

from dpverify.interfaces.suite import get_case

torch.set_num_threads(1)


@pytest.mark.dp_audit(epsilon=10.0, delta=1e-3)
def test_sgld(dp_auditor):
    case = get_case("dp_sgld_path")
    r = dp_auditor(case.build(), case.dataset(), case.neighbour(), test="likelihood_ratio", chunk_size=1000)
    assert (r.backend, r.device) == ("torch", "cpu")
""")
    report = pytester.path / "dp.json"
    result = pytester.runpytest_subprocess("--dp-backend", "torch", "--dp-device", "cpu", "--dp-scheduler", "local",
                                           "--dp-workers", "2", "--dp-samples", "4000", "--dp-report", str(report))
    result.assert_outcomes(passed=1)
    (row,) = json.loads(report.read_text())["audits"]
    assert (row["backend"], row["device"]) == ("torch", "cpu")
    bad = pytester.runpytest_subprocess("--dp-resources", "GPU=1")
    assert bad.ret == 4
    bad.stderr.fnmatch_lines(["*--dp-resources pins the chunk tasks*it needs --dp-scheduler*"])


def test_verify_runs_each_torch_case_whole_on_a_worker_with_the_in_process_numbers(one_torch_thread, tmp_path):
    """``dpverify verify --only dp_sgld_path --backend torch --device cpu --scheduler local``: the case runs as one task
    on a Dask worker, on the torch backend there; its report row says torch on cpu and its audit equals
    ``run_case`` of the same case in this process (wall times aside)."""
    from dpverify.interfaces.cli import main
    from dpverify.interfaces.suite import run_case

    out = tmp_path / "run"
    assert main(["verify", "--only", "dp_sgld_path", "--no-theorems", "--backend", "torch", "--device", "cpu",
                 "--scheduler", "local", "--workers", "1", "--report", str(out)]) == 0
    data = json.loads((out / "report.json").read_text())
    assert (data["settings"]["backend"], data["settings"]["scheduler"]) == ("torch", "local")
    (row,) = data["audits"]
    assert (row["backend"], row["device"], row["audit"]["backend"]) == ("torch", "cpu", "torch")
    here = run_case("dp_sgld_path", budget="quick", seed=0, backend="torch", device="cpu").to_dict()["audit"]
    on_worker = dict(row["audit"])
    here.pop("wall_time"), on_worker.pop("wall_time")
    assert json.loads(json.dumps(here)) == on_worker


@pytest.mark.parametrize("command", [["audit", "dp_sgld_path"], ["verify", "--only", "dp_sgld_path", "--no-theorems"]])
def test_cli_resources_no_worker_has_are_a_usage_error(command, capsys):
    """``--scheduler local --dask-resources GPU=1``: the local cluster's workers have no GPU resource, so the tasks
    could never run: a usage error (exit 2) naming the option and saying how to start such workers, not a hang."""
    from dpverify.interfaces.cli import main

    assert main([*command, "--scheduler", "local", "--workers", "1", "--dask-resources", "GPU=1"]) == 2
    err = capsys.readouterr().err
    assert "--dask-resources: resources={'GPU': 1}: no worker of the cluster has them" in err
    assert "--resources GPU=1" in err
