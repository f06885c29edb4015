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
