"""The proofs that ship with dpverify: one certificate per decided part of every catalogue item, and an index.

``dpverify/prove/shipped/index.json`` records, for each item of a provable kind, its outcome, the outcome this
version expects and why, and per part the summary, the problem's version and the certificate's file name. The
certificates beside it are re-verified by the independent checker (:func:`recheck`) wherever a result is shown
(``dpverify verify``, ``dpverify theorems show``), so what they say is checked, not trusted; a certificate whose
problem version differs from the current form's is reported stale (the catalogue changed since it was made).

The files are made by ``python -m dpverify.prove.ship`` (:mod:`dpverify.prove.ship`), and a test requires them to
be current.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from dpverify.prove.checker import check_certificate

__all__ = ["SHIPPED", "INDEX", "ShippedPart", "ShippedItem", "index", "item", "recheck"]

#: The folder of the shipped certificates and its index.
SHIPPED = Path(__file__).resolve().parent / "shipped"
INDEX = SHIPPED / "index.json"


@dataclass(frozen=True)
class ShippedPart:
    part: str
    outcome: str
    summary: str
    version: str
    certificate: str = ""


@dataclass(frozen=True)
class ShippedItem:
    theorem_id: str
    outcome: str
    expected: str
    why: str
    seconds: float
    parts: tuple[ShippedPart, ...] = field(default=())
    reason: str = ""

    def summary(self) -> str:
        if self.outcome == "not provable":
            return f"not provable here: {self.reason}"
        head = {"proved": "proved", "refuted": "refuted", "undecided": "undecided"}.get(self.outcome, self.outcome)
        return "; ".join(f"[{p.part}] {p.summary}" for p in self.parts) if self.parts else head


@lru_cache(maxsize=1)
def index() -> dict[str, ShippedItem]:
    """The shipped index (empty when none ships)."""
    if not INDEX.is_file():
        return {}
    data = json.loads(INDEX.read_text(encoding="utf-8"))
    out = {}
    for theorem_id, row in data.get("items", {}).items():
        parts = tuple(ShippedPart(p["part"], p["outcome"], p["summary"], p["version"], p.get("certificate", ""))
                      for p in row.get("parts", []))
        out[theorem_id] = ShippedItem(theorem_id, row["outcome"], row.get("expected", ""), row.get("why", ""),
                                      float(row.get("seconds", 0.0)), parts, row.get("reason", ""))
    return out


def item(theorem_id: str) -> ShippedItem | None:
    """The shipped result of one item (None when it has none)."""
    return index().get(theorem_id)


@dataclass(frozen=True)
class Recheck:
    theorem_id: str
    part: str
    certificate: str
    valid: bool
    current: bool
    errors: tuple[str, ...] = ()


def recheck(theorem_ids: list[str] | None = None, *, current_versions: dict[str, str] | None = None) -> list[Recheck]:
    """Re-verify the shipped certificates (of ``theorem_ids``, default all) with the independent checker.
    ``current_versions`` maps ``"<id>[<part>]"`` to the current form's problem version, to tell stale ones."""
    out = []
    for theorem_id, shipped in index().items():
        if theorem_ids is not None and theorem_id not in theorem_ids:
            continue
        for p in shipped.parts:
            if not p.certificate:
                continue
            report = check_certificate(str(SHIPPED / p.certificate))
            key = f"{theorem_id}[{p.part}]"
            current = current_versions is None or current_versions.get(key) == p.version
            out.append(Recheck(theorem_id, p.part, p.certificate, report.valid, current, tuple(report.errors)))
    return out


def as_dict(shipped: ShippedItem) -> dict[str, Any]:
    return {"outcome": shipped.outcome, "expected": shipped.expected, "why": shipped.why,
            "seconds": shipped.seconds, "reason": shipped.reason,
            "parts": [{"part": p.part, "outcome": p.outcome, "summary": p.summary, "version": p.version,
                       "certificate": p.certificate} for p in shipped.parts]}
