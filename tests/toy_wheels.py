"""A toy DP library's wheels, built in a test (nothing downloaded): ``dpv-toylib``, a Laplace count whose releases
1.0.0 ... 1.15.0 differ in their noise scale (the tests of ``dpverify bisect`` and of the corpus by version).

:data:`RELEASES` maps each release to its noise scale factor (1: correct; 0.25: the defect, releases 1.6.0 to
1.10.0, true epsilon 4 for a claimed 1; None: 1.3.0, which fails to import); :data:`CHECK` is the source of a
module of checks (``check``: dpverify's statistical audit; ``scale_check`` and ``pure_check``: the noise scale read
from draws); :func:`wheel` writes one release's wheel.
"""
from __future__ import annotations

import base64
import hashlib
import textwrap
import zipfile
from pathlib import Path

LIBRARY = "dpv-toylib"
#: noise scale factor of each release (1: correct; 0.25: the defect); None: a release that fails to import
RELEASES = {f"1.{k}.0": (None if k == 3 else 0.25 if 6 <= k <= 10 else 1.0) for k in range(16)}

CHECK = '''
import dpv_toylib


def check():
    from dpverify.audit import audit  # seconds to import: only this check pays it

    def mechanism(dataset, n, rng):
        return dpv_toylib.noisy_count(dataset, 1.0, n, rng)

    r = audit(mechanism, [0] * 5, [1] + [0] * 4, epsilon=1.0, samples=20_000, seed=0)
    status = "bad" if r.verdict == "violation" else "good"
    return {"status": status, "detail": f"{dpv_toylib.__version__}: {r.verdict}", "certified": r.epsilon_lower,
            "ledger": f"scale {dpv_toylib.SCALE_FACTOR:g}/epsilon"}


def pure_check():
    draws = dpv_toylib.noisy_count_pure([0] * 5, 1.0, 4000, 0)
    scale = sum(abs(x) for x in draws) / len(draws)
    return {"status": "bad" if scale < 0.5 else "good", "detail": f"noise scale {scale:.3f} x epsilon (1 needed)"}


def scale_check():
    import numpy as np

    draws = dpv_toylib.noisy_count([0] * 5, 1.0, 4000, np.random.default_rng(0))
    scale = float(np.mean(np.abs(draws)))
    return {"status": "bad" if scale < 0.5 else "good", "detail": f"noise scale {scale:.3f} x epsilon (1 needed)"}
'''


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel(folder: Path, version: str, factor: float | None, pure: bool = False) -> Path:
    """A minimal pure-Python wheel of dpv-toylib ``version`` (PEP 427: the module, METADATA, WHEEL, RECORD);
    ``pure``: its count is drawn with the standard library's ``random`` (no numpy)."""
    if pure:
        module = textwrap.dedent(f"""
            import random
            __version__ = {version!r}
            SCALE_FACTOR = {factor!r}

            def noisy_count_pure(data, epsilon, n, seed):
                rng = random.Random(seed)
                return [sum(data) + rng.choice((-1, 1)) * rng.expovariate(epsilon / SCALE_FACTOR) for _ in range(n)]
            """)
    elif factor is None:
        module = f"__version__ = {version!r}\nraise ImportError('dpv-toylib {version} needs a newer numpy')\n"
    else:
        module = textwrap.dedent(f"""
            import numpy as np
            __version__ = {version!r}
            SCALE_FACTOR = {factor!r}

            def noisy_count(data, epsilon, n, rng):
                return float(np.sum(data)) + rng.laplace(scale=SCALE_FACTOR / epsilon, size=n)
            """)
    info = f"dpv_toylib-{version}.dist-info"
    files = {"dpv_toylib/__init__.py": module.encode(),
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {LIBRARY}\nVersion: {version}\n".encode(),
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: dpverify-tests\nRoot-Is-Purelib: true\n"
                              b"Tag: py3-none-any\n"}
    record = "".join(f"{name},{record_hash(data)},{len(data)}\n" for name, data in files.items())
    files[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    path = folder / f"dpv_toylib-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return path
