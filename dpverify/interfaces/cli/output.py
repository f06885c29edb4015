"""Small helpers shared by the subcommands: JSON output and plain-text tables."""
from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from dpverify.interfaces.files import jsonable


def print_json(obj: Any) -> None:
    print(json.dumps(jsonable(obj), indent=2))


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    rows = [["" if v is None else str(v) for v in r] for r in rows]
    widths = [len(h) for h in headers]
    for r in rows:
        widths = [max(w, len(v)) for w, v in zip(widths, r)]
    line = "  ".join(h.ljust(w) for h, w in zip(headers, widths))
    out = [line, "  ".join("-" * w for w in widths)]
    out += ["  ".join(v.ljust(w) for v, w in zip(r, widths)) for r in rows]
    return "\n".join(out)
