"""Certificates: a proof or a refutation as a JSON file that someone else can re-check.

A certificate holds the statement and its version (:attr:`~dpverify.prove.problem.ProofProblem.version`), every
expression as sympy's ``srepr`` (which keeps each symbol's assumptions), the box, the working precision, and

- for a **proof**, the box partition in pre-order, one entry per node::

      ["S", j, "p/q"]                     split along parameter j at the exact rational p/q (two children follow:
                                          [lo, p/q] then [p/q, hi]; for an integer parameter [lo, p] then [p+1, hi])
      ["E", "lo", "hi"]                   a leaf: the margin's enclosure on the box (lo >= 0)
      ["X", i, "lo", "hi"]                a leaf outside hypothesis i: its gap's enclosure (certainly violated)
      ["M", j, +1|-1, symbolic]           the monotone lemma along parameter j; two sub-proofs follow, neither
                                          with an "X" leaf: that (+1 or -1) * d(expression)/d(parameter j) >= 0 on
                                          the same box, then that the expression is >= 0 on the lower (+1) or upper
                                          (-1) face, where parameter j is substituted into the expression when
                                          ``symbolic`` is true (else only its range shrinks to the point)

      ["P", j]                            parameter j is a single value on this box: it is substituted into the
                                          expression; one sub-proof (the same box) follows

  (enclosures are decimal strings rounded outward; the checker recomputes them and does not trust them);
- for a **refutation**, the box on which the margin is certainly negative while every hypothesis holds, and the
  witness point with the claimed value and the comparator there (50 digits).

:mod:`dpverify.prove.checker` re-verifies a certificate with code of its own. Files are written atomically (a
temporary file in the same folder, then one rename), so a reader never sees half a certificate.
"""
from __future__ import annotations

import datetime as _dt
import gzip
import json
import os
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

from dpverify import __version__
from dpverify.prove.results import Node, Proof, Refutation, Undecided

__all__ = ["FORMAT", "certificate", "write_certificate", "encode_tree"]

#: The format tag every certificate starts with.
FORMAT = "dpverify-proof-certificate/1"


def _frac(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def encode_tree(root: Node) -> list[list[Any]]:
    """The partition in pre-order (module docstring), without recursion (trees can be deep)."""
    out: list[list[Any]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind == "split":
            j, point = node.info
            out.append(["S", j, _frac(point)])
        elif node.kind == "enclosure":
            out.append(["E", *node.info])
        elif node.kind == "excluded":
            i, bounds = node.info
            out.append(["X", i, *bounds])
        elif node.kind == "monotone":
            j, direction, symbolic = node.info
            out.append(["M", j, direction, bool(symbolic)])
        elif node.kind == "substitute":
            out.append(["P", node.info[0]])
        else:
            raise ValueError(f"a proof's partition cannot hold a node of kind {node.kind!r}")
        stack.extend(reversed(node.children))
    return out


def certificate(result: Proof | Refutation) -> dict[str, Any]:
    """The certificate of a proof or a refutation, as a JSON-ready dict."""
    if isinstance(result, Undecided):
        raise ValueError("an undecided attempt has no certificate: there is nothing to re-check")
    out: dict[str, Any] = {
        "format": FORMAT,
        "outcome": result.outcome,
        "problem": result.problem.to_dict(),
        "precision": result.precision,
        "boxes_evaluated": result.boxes,
        "seconds": round(result.seconds, 3),
        "summary": result.summary(),
        "dpverify": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    if isinstance(result, Proof):
        out["leaves"] = result.tree.leaves()
        out["tree"] = encode_tree(result.tree)
    else:
        out["refutation"] = {
            "box": [[_frac(lo), _frac(hi)] for lo, hi in result.box],
            "margin": list(result.margin),
            "witness": {k: _frac(v) for k, v in result.witness.items()},
            "claimed_at_witness": result.claimed_value,
            "comparator_at_witness": result.comparator_value,
            "digits": result.digits,
        }
    return out


def write_certificate(result: Proof | Refutation, path: str | os.PathLike[str]) -> Path:
    """Write the certificate of ``result`` to ``path`` atomically (gzip-compressed when the name ends in ``.gz``);
    returns the path."""
    target = Path(path)
    if target.is_dir():
        raise IsADirectoryError(f"certificate path {str(target)!r} is a folder: give a file name")
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise FileNotFoundError(f"cannot write the certificate: the folder {str(parent)!r} does not exist")
    data = json.dumps(certificate(result), indent=None, separators=(",", ":"))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    try:
        with os.fdopen(fd, "wb") as raw:
            encoded = (data + "\n").encode("utf-8")
            # mtime 0: the same certificate gives the same bytes
            raw.write(gzip.compress(encoded, mtime=0) if target.name.endswith(".gz") else encoded)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return target
