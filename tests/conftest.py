import os

import pytest

pytest_plugins = ["pytester"]


@pytest.fixture(scope="module")
def torch_device():
    """The torch backend the ``torch``-marked tests draw and audit on: torch's CPU, or the device named by
    ``DPVERIFY_TORCH_TEST_DEVICE`` (e.g. ``cuda``). On the CPU torch gets one thread (2 threads on a loaded 2-core
    machine spin)."""
    import torch

    from dpverify.backends import get_backend

    device = os.environ.get("DPVERIFY_TORCH_TEST_DEVICE", "cpu")
    if device == "cpu":
        torch.set_num_threads(1)
    return get_backend("torch", device)


@pytest.fixture(autouse=True)
def _unlimited_output_width(monkeypatch):
    """The command line fits its text to ``COLUMNS`` (dpverify.interfaces.cli.output); a ``COLUMNS`` exported by the
    user's shell or set by pytest-xdist's workers would wrap the lines the tests read. Every test starts from a pipe's
    unlimited width; a test of the wrapping sets ``COLUMNS`` itself."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture
def forbid_host_copy(monkeypatch):
    """A call that makes the host fallback of :class:`~dpverify.audit.chunk_work.DeviceChunk` (a whole chunk copied to
    the host as :class:`~dpverify.audit.statistics.DistinctRows`) raise for the rest of the test."""
    import dpverify.audit.chunk_work as chunk_work

    def no_host_copy(outputs):
        raise AssertionError(f"a chunk of {type(outputs).__name__} was copied to the host")

    return lambda: monkeypatch.setattr(chunk_work, "DistinctRows", no_host_copy)


@pytest.fixture
def audit_numpy_then_torch(torch_device, forbid_host_copy):
    """``run(case, samples, **settings)``: ``audit(test="auto")`` of a standard-suite case on numpy, then on the torch
    test device with the host fallback forbidden, both at seed 3 in chunks of 2^14 after a fit of 2^13 outputs per side
    (so that most chunks are scored and counted on the device), ``settings`` overriding these (``test=``,
    ``epsilon=``, ...); returns ``(on_numpy, on_torch)``."""
    from dpverify.audit import audit

    def run(case, samples: int, **overrides):
        settings = dict(epsilon=case.epsilon_claimed, delta=case.delta, samples=samples, seed=3,
                        exact_epsilon=case.epsilon_exact, chunk_size=1 << 14, fit_cap=1 << 13,
                        threshold_sample=1 << 13)
        settings.update(overrides)
        on_numpy = audit(case.mechanism, case.dataset, case.neighbour, **settings)
        forbid_host_copy()
        on_torch = audit(case.mechanism, case.dataset, case.neighbour, backend="torch", device=torch_device.device,
                         **settings)
        return on_numpy, on_torch

    return run
