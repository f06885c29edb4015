"""Small helpers shared by the subcommands: JSON output and plain-text tables."""
from __future__ import annotations

import json
import math
from typing import Any, Iterable, Sequence


def _jsonable(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


def print_json(obj: Any) -> None:
    print(json.dumps(_jsonable(obj), indent=2, default=str))


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    rows = [["" if v is None else str(v) for v in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in rows:
        widths = [max(w, len(v)) for w, v in zip(widths, r)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in rows]
    return "\n".join(out)
