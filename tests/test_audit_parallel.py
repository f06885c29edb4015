"""audit(workers=...): chunks drawn and counted in forked worker processes (dpverify.audit.parallel).

The numbers must not depend on the number of workers (each chunk has its own seed; integer counts are summed), workers
must see the fitted statistics (closures, inherited by fork), errors and Ctrl-C must reach the caller without leaving
processes behind, and each worker runs one BLAS thread."""
from __future__ import annotations

import multiprocessing
import os

import numpy as np
import pytest

import dpverify.audit.parallel as parallel
from dpverify.audit import audit
from dpverify.audit.known_bad import ReportNoisyMax
from dpverify.audit.parallel import ChunkRunner, ParallelFallbackWarning

from parallel_cases import D0, D1, STREAM, chunk_rounds_faults, gaussian_path, numbers  # noqa: E402,F401


def test_workers_give_bit_identical_results_discrete_outputs():
    mech = ReportNoisyMax(1.0)
    d0, d1 = np.array([1.0, 1.0, 1.0]), np.array([0.0, 2.0, 2.0])
    runs = [numbers(audit(mech, d0, d1, epsilon=1.0, samples=30_000, seed=11, workers=w, **STREAM)) for w in (1, 2, 4)]
    assert runs[0] == runs[1] == runs[2]
    assert runs[0]["counts"]["n_estimation"] == 24_000


def test_workers_give_bit_identical_results_fitted_vector_statistics():
    runs = [numbers(audit(gaussian_path, D0, np.array([0.3]), epsilon=1.0, samples=20_000, seed=5, workers=w,
                          candidates=3, **STREAM)) for w in (1, 2)]
    assert runs[0] == runs[1]
    assert len(runs[0]["candidates"]) == 3


def test_progress_counts_every_chunk_once_with_workers():
    calls = []
    audit(gaussian_path, D0, np.array([0.3]), epsilon=1.0, samples=20_000, seed=5, workers=2,
          progress=lambda done, total: calls.append((done, total)), **STREAM)
    total = 20_000 // STREAM["chunk_size"]  # 4,000 selection + 16,000 estimation outputs, in chunks of 2,000
    assert [d for d, _ in calls] == list(range(1, total + 1)) and {t for _, t in calls} == {total}


def nan_in_last_chunk(dataset, n, rng):
    out = float(np.sum(dataset)) + rng.laplace(0.0, 1.0, n)
    if n == 777:  # the last estimation chunk only (see below), drawn in a worker
        out[0] = np.nan
    return out


def test_worker_errors_reach_the_caller_and_no_worker_survives():
    # 20,972 per side: selection ceil(0.2 x 20,972) = 4,195 = 2 x 2,000 + 195, estimation 16,777 = 8 x 2,000 + 777.
    with pytest.raises(ValueError, match="NaN"):
        audit(nan_in_last_chunk, D0, D1, epsilon=1.0, samples=20_972, seed=0, workers=2, **STREAM)
    assert multiprocessing.active_children() == []


def test_ctrl_c_in_the_parent_terminates_the_workers():
    def interrupt(done, total):
        if done > 3:  # after the held selection chunks, while workers are running
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        audit(gaussian_path, D0, np.array([0.3]), epsilon=1.0, samples=40_000, seed=0, workers=2, progress=interrupt,
              **STREAM)
    assert multiprocessing.active_children() == []


def test_workers_run_one_blas_thread():
    from threadpoolctl import threadpool_info

    parent = os.getpid()

    def checked(dataset, n, rng):
        if os.getpid() != parent:
            threads = {info["num_threads"] for info in threadpool_info()}
            if threads - {1}:
                raise RuntimeError(f"worker runs {threads} threads")
        return float(np.sum(dataset)) + rng.laplace(0.0, 1.0, n)

    r = audit(checked, D0, D1, epsilon=1.0, samples=20_000, seed=0, workers=2, **STREAM)
    assert r.counts["n_estimation"] == 16_000


def test_workers_keep_a_chunks_memory_instead_of_faulting_it_in_again():
    """Each pool worker calls keep_chunk_memory (dpverify.audit.chunk_memory). Measured: 40 rounds fault about 50,000
    times in a forked worker without it (the freed 8 MiB blocks go back to the system and each round faults 2 x 2048
    pages in again) and about 1,300 with it (the first round of each worker only, 0 after); the bound 10,000 sits
    between. A worker that skips the call fails every task. (glibc only.)"""
    with ChunkRunner(chunk_rounds_faults, 2) as run:
        faults = list(run.map(range(4)))
    assert len(faults) == 4 and max(faults) < 10_000, faults


def test_without_worker_processes_one_process_with_a_warning(monkeypatch):
    expected = numbers(audit(gaussian_path, D0, np.array([0.3]), epsilon=1.0, samples=10_000, seed=2, **STREAM))
    monkeypatch.setattr(parallel, "start_method", lambda: None)
    with pytest.warns(ParallelFallbackWarning, match="one process"):
        got = numbers(audit(gaussian_path, D0, np.array([0.3]), epsilon=1.0, samples=10_000, seed=2, workers=2,
                            **STREAM))
    assert got == expected


def test_without_fork_cloudpickle_and_spawn_give_the_same_numbers(monkeypatch):
    mech = ReportNoisyMax(1.0)
    d0, d1 = np.array([1.0, 1.0, 1.0]), np.array([0.0, 2.0, 2.0])
    expected = numbers(audit(mech, d0, d1, epsilon=1.0, samples=10_000, seed=2, **STREAM))
    monkeypatch.setattr(parallel, "start_method", lambda: "spawn")
    got = numbers(audit(mech, d0, d1, epsilon=1.0, samples=10_000, seed=2, workers=2, **STREAM))
    assert got == expected
    assert multiprocessing.active_children() == []


def test_chunk_runner_returns_every_result_once():
    offset = 10  # a closure variable: inherited by the forked workers, never pickled

    with ChunkRunner(lambda j: j + offset, 2) as run:
        assert sorted(run.map(range(20))) == list(range(10, 30))
    with ChunkRunner(lambda j: j + offset, 1) as run:
        assert list(run.map(range(3))) == [10, 11, 12]
    assert multiprocessing.active_children() == []


@pytest.mark.slow
def test_workers_bit_identical_on_a_standard_case_at_four_million():
    # SVT1 of the standard suite (tabulated log density, discrete patterns) at 4 x 10^6 per side in chunks of 2^18:
    # 800,000 selection outputs: 2 chunks held (fit 2^18 + threshold sample 2^18), 2 scoring chunks streamed; 13
    # estimation chunks.
    from dpverify.audit.standard_suite import get

    case = get("svt1")
    kwargs = dict(epsilon=case.epsilon_claimed, samples=4_000_000, seed=1, chunk_size=1 << 18, fit_cap=1 << 18,
                  threshold_sample=1 << 18, exact_epsilon=case.epsilon_exact)
    one = numbers(audit(case.mechanism, case.dataset, case.neighbour, workers=1, **kwargs))
    two = numbers(audit(case.mechanism, case.dataset, case.neighbour, workers=2, **kwargs))
    assert one == two
    assert 0.0 < one["epsilon_lower"] <= case.epsilon_exact


class PidLoggingPath:
    """``gaussian_path`` that appends ``pid n`` to a file for every call (outputs unchanged): shows who drew what."""

    def __init__(self, log):
        self.log = str(log)

    def __call__(self, dataset, n, rng):
        with open(self.log, "a") as f:
            f.write(f"{os.getpid()} {n}\n")
        return gaussian_path(dataset, n, rng)


def test_the_held_part_of_the_selection_is_drawn_by_the_workers(tmp_path):
    # STREAM holds fit_cap + threshold_sample = 2,500 outputs per side in memory: two chunks of 2,000. With workers
    # they are drawn by the workers (dpverify.audit.chunk_work.DrawChunk), not by the calling process before any
    # worker starts; the numbers stay those of one process. The calling process draws only its rng probes.
    runs = {}
    for w in (1, 2):
        log = tmp_path / f"draws_{w}.txt"
        runs[w] = numbers(audit(PidLoggingPath(log), D0, np.array([0.3]), epsilon=1.0, samples=20_000, seed=5,
                                workers=w, **STREAM))
        calls = [tuple(int(v) for v in line.split()) for line in log.read_text().splitlines()]
        here = [n for pid, n in calls if pid == os.getpid()]
        elsewhere = [n for pid, n in calls if pid != os.getpid()]
        if w == 1:
            assert not elsewhere and here.count(STREAM["chunk_size"]) == 20  # all 10 chunks per side drawn here
        else:
            assert STREAM["chunk_size"] not in here  # no chunk of the audit drawn in the calling process
            assert elsewhere.count(STREAM["chunk_size"]) == 20
    assert runs[1] == runs[2]


def test_a_chunk_of_another_shape_from_a_worker_is_an_error():
    from dpverify.audit.split import ChunkSampler, SplitPlan

    sampler = ChunkSampler(gaussian_path, (D0, D1), SplitPlan.make(100, 0.2, 50), seed=0, check_rng=False)
    sampler.note_shape(np.zeros((50, 4)), np.zeros((50, 4)))
    with pytest.raises(ValueError, match="shape"):
        sampler.note_shape(np.zeros((50, 4)), np.zeros((50, 5)))


@pytest.mark.parametrize(("output_bytes", "expected"), [
    (None, 1 << 20),       # declares nothing: the default
    (8.0, 1 << 20),        # one number: the default
    (1024.0, 1 << 20),     # SMALL_OUTPUT_BYTES: every one-number mechanism keeps the default (and its numbers)
    (1200.0, 1 << 17),     # ula_path's chains: 131,072 of them in 256 MiB
    (4080.0, 1 << 16),     # dp_sgld_path's chains: 65,536
    (16120.0, 1 << 14),    # dp_sgfs
    (1e9, 1 << 10),        # never below MIN_CHUNK_SIZE
])
def test_numpy_chunks_follow_what_an_output_takes(output_bytes, expected):
    # Memory per chunk stays near NUMPY_CHUNK_BYTES whatever the budget, and a sampler's audit has chunks for its
    # workers to share (before, 2e5 chains of DP-SGLD were one chunk of 800 MB per side and workers had nothing to do).
    from dpverify.audit.core import NUMPY_CHUNK_BYTES, device_chunk_size
    from dpverify.backends import get_backend

    class Mechanism:
        def __call__(self, dataset, n, rng):
            return rng.normal(size=n)

    mech = Mechanism()
    if output_bytes is not None:
        mech.output_bytes = lambda: output_bytes
    size = device_chunk_size(mech, get_backend("numpy"))
    assert size == expected
    if output_bytes is not None and output_bytes > 1024:
        assert size * output_bytes <= max(NUMPY_CHUNK_BYTES, 1024 * output_bytes)


def test_chunks_follow_the_number_of_answers():
    """Mechanisms whose outputs grow with their input declare ``output_bytes(dataset)``, and the default chunk reads it
    on the audited pair (the larger of the two): the standard suite's cases keep numpy's default chunk (their numbers
    are unchanged), while an additive-noise query of 1000 coordinates gets chunks of 2^12 on numpy (40 KB per output:
    2^20 of them were 42 GB per side) and noisy max over 200 answers at most 2^20 on an 80 GB device instead of 2^23.
    Fails if the dataset is not passed on, or an output's size stops growing with its answers."""
    from dpverify.audit.abilities import declared_output_bytes
    from dpverify.audit.core import NUMPY_CHUNK_BYTES, device_chunk_size
    from dpverify.audit.known_bad import AdditiveNoise
    from dpverify.audit.standard.noisy_max import NoisyMax
    from dpverify.audit.standard_suite import cases
    from dpverify.backends import Backend, get_backend
    from dpverify.calculus.mechanisms.laplace import LaplaceMechanism

    numpy_backend = get_backend("numpy")
    for case in cases():
        assert device_chunk_size(case.mechanism, numpy_backend, (case.dataset, case.neighbour)) == 1 << 20, case.name

    wide = AdditiveNoise(query=lambda d: np.repeat(np.asarray(d, dtype=float), 1000),
                         noise=LaplaceMechanism(sensitivity=1.0, epsilon=1.0))
    assert declared_output_bytes(wide, ([0.0], [1.0])) == 40 * 1000 + 216
    size = device_chunk_size(wide, numpy_backend, ([0.0], [1.0]))
    assert size == 1 << 12 and size * 40_216 <= NUMPY_CHUNK_BYTES

    class EightyGigabytes(Backend):
        name, device = "torch", "cuda"

        def free_memory(self) -> int:
            return 80 * 10**9

    many = NoisyMax(1.0, release="value")
    answers = (np.zeros(200), np.r_[1.0, np.zeros(199)])
    assert declared_output_bytes(many, answers) == 48 * 200 + 256
    assert device_chunk_size(many, EightyGigabytes(), answers) == 1 << 20
    assert device_chunk_size(many, EightyGigabytes(), (np.zeros(5), np.ones(5))) == 1 << 23
    assert declared_output_bytes(many) is None  # no dataset: its size is unknown, as for a mechanism declaring nothing
