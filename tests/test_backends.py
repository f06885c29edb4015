"""The array backends' arguments and the torch-free default path (issue 26). These run without torch; the torch
backend's own tests are in ``test_backends_torch.py`` (marker ``torch``)."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from dpverify.backends import BACKENDS, check_backend, get_backend


def test_backend_name_and_device_are_checked_with_the_allowed_values():
    """A bad backend or device is a ValueError naming the argument and what is allowed. Fails if a typo such as
    backend='jax' silently runs numpy, or numpy accepts a CUDA device."""
    with pytest.raises(ValueError, match=r"backend must be one of \['numpy', 'torch'\]; got 'jax'"):
        get_backend("jax")
    with pytest.raises(ValueError, match="device='cuda' needs backend='torch'"):
        check_backend("numpy", "cuda")
    with pytest.raises(ValueError, match="device must be 'cpu', 'cuda' or 'cuda:K'"):
        check_backend("torch", "tpu")
    assert BACKENDS == ("numpy", "torch")
    assert get_backend("numpy").generator(np.random.SeedSequence(3)).random() == np.random.default_rng(
        np.random.SeedSequence(3)).random()


def test_audit_refuses_an_unknown_backend():
    """audit(backend=...) validates before drawing anything. Fails if the argument is ignored."""
    from dpverify.audit import audit

    def mech(d, n, rng):
        return rng.normal(size=n)

    with pytest.raises(ValueError, match="backend must be one of"):
        audit(mech, 0, 1, epsilon=1.0, samples=100, backend="jax")


def test_chunk_size_follows_the_free_memory():
    """Backend.chunk_size is the largest power of 2 whose outputs fit the memory fraction, clamped. Fails if the chunk
    ignores the memory or is not a power of 2."""
    b = get_backend("numpy")
    free = b.free_memory()
    size = b.chunk_size(8000.0, minimum=1, maximum=1 << 40)
    assert size & (size - 1) == 0
    assert size * 8000 <= 0.4 * free < 2 * size * 8000
    assert b.chunk_size(1e18, minimum=1024) == 1024


def test_numpy_fixed_size_weights_are_uniform_subsets():
    """Every row of the dense fixed-size batch has exactly b ones and each record is in it with probability b/N
    (binomial sd sqrt(n p (1-p)) = 17 at n = 4000, p = 0.1; 5 sd tolerance). Fails on a wrong count or a biased
    record."""
    rng = np.random.default_rng(0)
    W = get_backend("numpy").fixed_size_weights(rng, 4000, 20, 2)
    assert np.all(W.sum(axis=1) == 2)
    assert np.all(np.abs(W.sum(axis=0) - 400) < 5 * np.sqrt(4000 * 0.1 * 0.9))


def test_default_imports_do_not_load_torch():
    """dpverify's default path (samplers, auditor, backends, suite) never imports torch. Fails on an eager import."""
    code = ("import sys\n"
            "import dpverify.backends, dpverify.audit, dpverify.samplers.sgld, dpverify.samplers.device\n"
            "import dpverify.interfaces.suite\n"
            "assert 'torch' not in sys.modules, 'torch imported by default'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def _run(args: list[str], tmp_path) -> subprocess.CompletedProcess:
    import os

    env = {**os.environ, "PYTHONPATH": str(__import__("pathlib").Path(__file__).resolve().parents[1])}
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=tmp_path, env=env, check=False)


def test_cli_and_plugin_check_backend_and_device(tmp_path):
    """`dpverify audit/verify --backend/--device` and the plugin's --dp-backend/--dp-device are usage errors (exit 2)
    naming the option and the allowed values, before any sampling. Fails if a bad value is accepted or crashes."""
    bad = _run(["-m", "dpverify", "audit", "dp_sgld_path", "--backend", "jax"], tmp_path)
    assert bad.returncode == 2 and "invalid choice: 'jax' (choose from 'numpy', 'torch')" in bad.stderr
    bad = _run(["-m", "dpverify", "verify", "--no-theorems", "--backend", "numpy", "--device", "cuda"], tmp_path)
    assert bad.returncode == 2 and "--device cuda" in bad.stderr and "needs backend='torch'" in bad.stderr
    (tmp_path / "test_nothing.py").write_text("def test_ok():\n    pass\n")
    bad = _run(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--dp-backend", "torch", "--dp-device", "tpu"],
               tmp_path)
    assert bad.returncode == 4 and "--dp-device tpu" in bad.stderr and "'cpu', 'cuda' or 'cuda:K'" in bad.stderr
