"""Make the shipped proofs: ``python -m dpverify.prove.ship [--max-seconds S] [--only PATTERN]``.

Proves every catalogue item of a provable kind (:func:`dpverify.prove.catalogue.prove_all`), writes one certificate
per proved or refuted part into ``dpverify/prove/shipped/`` (named ``<id>.<part>.json.gz``, gzip-compressed) and
the index (:mod:`dpverify.prove.shipped`), each file atomically; certificates of parts that are no longer decided are
removed. Like ``dpverify prove``, an item stops at its first refuted part (the refutation is what is shipped: every
certificate is re-checked by ``verify`` and ``theorems show``, and Li et al.'s Lemma 2 with all 32 orders would cost
80 s of checking).
With ``--only`` only the matching items are redone and the rest of the index is kept.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import fnmatch
import json
import os
import re
import sys
import tempfile
from pathlib import Path

from dpverify import __version__
from dpverify.prove.catalogue import form, provable_ids, prove_item
from dpverify.prove.certificate import write_certificate
from dpverify.prove.results import ProofResult, Undecided
from dpverify.prove.search import Limits
from dpverify.prove.shipped import INDEX, SHIPPED

__all__ = ["main", "certificate_name"]


def certificate_name(theorem_id: str, part: str) -> str:
    """``<id>.<part>.json.gz`` with anything but letters, digits, '.', '_' and '-' replaced by '_'."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", part).strip("_")
    return f"{theorem_id}.{safe}.json.gz"


def _write_json(path: Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=1, sort_keys=True)
        handle.write("\n")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-seconds", type=float, default=120.0, help="time limit per part (default 120)")
    parser.add_argument("--only", default="*", help="item IDs matching this glob (default: all)")
    args = parser.parse_args(argv)
    SHIPPED.mkdir(exist_ok=True)
    old = json.loads(INDEX.read_text()) if INDEX.is_file() else {"items": {}}
    items = dict(old.get("items", {}))
    ids = [i for i in provable_ids() if fnmatch.fnmatch(i, args.only)]
    for theorem_id in ids:
        items[theorem_id] = _ship_item(theorem_id, args.max_seconds)
    items = {k: v for k, v in items.items() if k in provable_ids()}
    _remove_unlisted(items)
    _write_json(INDEX, {"format": "dpverify-proof-index/1", "dpverify": __version__,
                        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                        "items": items})
    unexpected = [k for k, v in items.items() if v["outcome"] != v["expected"]]
    print(f"{len(items)} items indexed in {INDEX}; {len(unexpected)} not as expected"
          + (f": {', '.join(unexpected)}" if unexpected else ""))
    return 1 if unexpected else 0


def _ship_item(theorem_id: str, max_seconds: float) -> dict:
    """Prove one item, write the certificate of each decided part, print a line, and return its index entry."""
    f = form(theorem_id)
    proof = prove_item(theorem_id, limits=Limits(max_seconds=max_seconds))
    parts = [_ship_part(theorem_id, name, result) for name, result in proof.parts]
    entry = {"outcome": proof.outcome, "expected": f.expected, "why": f.why,
             "reason": proof.reason or f.not_provable, "seconds": round(proof.seconds, 2), "parts": parts}
    mark = "" if proof.outcome == f.expected else f"  (expected {f.expected})"
    print(f"{theorem_id}: {proof.outcome} ({proof.seconds:.1f} s){mark}", flush=True)
    return entry


def _ship_part(theorem_id: str, name: str, result: ProofResult) -> dict:
    """The index entry of one part; a decided part's certificate is written into :data:`SHIPPED`."""
    entry = {"part": name, "outcome": result.outcome, "summary": result.summary(),
             "version": result.problem.version}
    if not isinstance(result, Undecided):
        entry["certificate"] = certificate_name(theorem_id, name)
        write_certificate(result, SHIPPED / entry["certificate"])
    return entry


def _remove_unlisted(items: dict) -> None:
    """Delete the shipped certificates that no part of ``items`` names (the index itself stays)."""
    keep = {p["certificate"] for row in items.values() for p in row.get("parts", []) if p.get("certificate")}
    for path in [*SHIPPED.glob("*.json"), *SHIPPED.glob("*.json.gz")]:
        if path.name != INDEX.name and path.name not in keep:
            path.unlink()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
