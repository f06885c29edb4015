"""Plain JSON and atomic file writes, shared by the reports, the pytest plugin and the CLI.

Standard library only, so that importing it costs nothing (the pytest plugin loads in every session).
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["jsonable", "write_atomic", "write_json_atomic"]


def jsonable(x: Any) -> Any:
    """Plain JSON: numpy scalars and arrays to Python, inf/nan to strings (JSON has no infinities),
    anything else unknown to its ``str``."""
    if hasattr(x, "item") and getattr(x, "ndim", None) == 0:
        x = x.item()
    if hasattr(x, "tolist") and not isinstance(x, (str, bytes)):
        x = x.tolist()
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and an atomic rename:
    an interrupted write never leaves a truncated file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a report is meant to be read by others
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json_atomic(path: str | os.PathLike, obj: Any) -> None:
    """:func:`write_atomic` of ``obj`` as indented, strict JSON (via :func:`jsonable`)."""
    write_atomic(path, json.dumps(jsonable(obj), indent=2, allow_nan=False).encode())
