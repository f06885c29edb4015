"""Causes, not just numbers: the line of a library's source behind a finding, read from its budget ledger.

:func:`locate` reads the ledgers of one public call on both sides of an adjacent pair (and on the other candidate
pairs) and names, in the installed library's source:

- ``sensitivity``: a noise addition whose declared sensitivity is 0 (no noise at all) while its statistic differs
  between D and D', or whose statistic changes by more than the declared sensitivity when nothing released before
  it differs (:func:`dpverify.libraries.ledger.diff`): the line where that sensitivity is computed (the last
  ``sensitivity`` assignment above the call in its function, or the call itself when the sensitivity is passed
  inline). A sensitivity that merely differs between D and D' is not a cause on its own (it may depend on an
  earlier release, which adaptive composition allows); it stays in the ledger's diff;
- ``clipping``: a statistic that changes by more than its declared sensitivity, where the library's file clips
  its input only under a condition (``if ...:`` above the ``clip...(`` call): the data reach the mechanism
  unclipped on this path; the guarded clipping line and its condition are named;
- ``divisor``: a scaling of the noisy release (e.g. Opacus' division by ``expected_batch_size`` under
  ``loss_reduction="mean"``) that differs between D and D': the line that computes it from the private data (the
  assignment found walking the recorded stack outwards);
- ``budget``: the calls' composed budget exceeds what the caller's accountant records: the lines that handed the
  unrecorded spends to accountants made inside the call (:attr:`dpverify.libraries.ledger.Ledger.unrecorded_sites`).

Each cause carries the library's version, ``path:line``, the source line as installed, the evidence from the
ledger, and the upstream reports (issues, pull requests) that describe it, from :data:`UPSTREAM`: each entry was
checked on the library's public tracker, and it is attached only when its source pattern is on the located line of
the installed version, so a fixed release (whose line changed) loses the reference and the cause with it.

Only the installed library's own files are read (the paths its stack frames name), through :mod:`linecache`.
"""
from __future__ import annotations

import linecache
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dpverify.libraries.ledger import Ledger, diff

__all__ = ["UPSTREAM", "Upstream", "declaration_line", "guarded_clip", "locate", "source_line", "statement"]


@dataclass(frozen=True)
class Upstream:
    """An upstream report: ``library``, ``path`` (suffix of the library file), ``pattern`` (a regular expression the
    located source line must match), ``kind`` ("sensitivity" or "budget"), ``refs`` (URLs of issues and pull
    requests, checked on the public tracker) and ``status`` (their state when checked)."""

    library: str
    path: str
    pattern: str
    kind: str
    refs: tuple[str, ...]
    status: str


#: Upstream reports, each checked on the library's public tracker (GitHub) before it was cited here.
UPSTREAM: tuple[Upstream, ...] = (
    Upstream("diffprivlib", "models/linear_regression.py", r"bounds_X\[0\]\[i\],\s*bounds_X\[0\]\[i\]",
             "sensitivity",
             ("https://github.com/IBM/differential-privacy-library/issues/105",
              "https://github.com/IBM/differential-privacy-library/pull/110",
              "https://github.com/IBM/differential-privacy-library/issues/104"),
             "issue #105 open (2026-02), fix PR #110 open (2026-08); also item 1 of issue #104 (open, 2025-09)"),
    Upstream("opacus", "privacy_engine.py", r"expected_batch_size\s*=\s*int\(len\(", "divisor",
             ("https://github.com/meta-pytorch/opacus/issues/571", "https://github.com/meta-pytorch/opacus/issues/819"),
             "issues #571 (2023-03) and #819 (2026-05) open"),
    Upstream("diffprivlib", "models/linear_regression.py", r"accountant=BudgetAccountant\(\)", "budget",
             ("https://github.com/IBM/differential-privacy-library/issues/104",),
             "item 2 of issue #104 (open, 2025-09): the centring of X and y shares one budget slice"),
)


def _file(package_dir: str, rel: str) -> str:
    return os.path.join(os.path.dirname(package_dir), rel)


def source_line(package_dir: str, site: str) -> str:
    """The text of ``site`` (``path:line`` relative to the package's parent directory), stripped."""
    path, _, line = site.rpartition(":")
    return linecache.getline(_file(package_dir, path), int(line)).strip()


def statement(package_dir: str, site: str, max_lines: int = 6) -> str:
    """The statement starting at ``site``, its continuation lines joined (until its brackets balance)."""
    path, _, line = site.rpartition(":")
    filename, no = _file(package_dir, path), int(line)
    parts, depth = [], 0
    for k in range(no, no + max_lines):
        text = linecache.getline(filename, k).strip()
        parts.append(text)
        depth += sum(text.count(o) for o in "([{") - sum(text.count(c) for c in ")]}")
        if depth <= 0:
            break
    return " ".join(parts)


def declaration_line(package_dir: str, site: str, name: str = "sensitivity") -> str:
    """The line that sets ``name`` for the call at ``site``: the call's own statement when it passes
    ``name=<expression>`` other than a plain ``name=name``, else the last ``name = ...`` assignment above it in
    the same function (``site`` when none is found)."""
    path, _, line = site.rpartition(":")
    filename, no = _file(package_dir, path), int(line)
    lines = linecache.getlines(filename)
    assign = re.compile(rf"^\s*{name}\s*=[^=]")
    # the statement that constructs the mechanism may span lines before the call (mech = X(...) then randomise)
    for i in range(no - 1, 0, -1):
        text = lines[i - 1]
        if assign.search(text):
            return f"{path}:{i}"
        kw = re.search(rf"\b{name}\s*=\s*([^,)]+)", text)
        if kw and kw.group(1).strip() != name:
            return f"{path}:{i}"
        if re.match(r"^\s*def\s", text):
            break
    return site


def guarded_clip(package_dir: str, site: str) -> tuple[str, str] | None:
    """In the file of ``site``, the first ``clip...(`` call that runs only under an ``if`` (the nearest enclosing
    line with less indentation starts with ``if``): ``(its path:line, "path:line: the if line")``, else None."""
    path = site.rpartition(":")[0]
    lines = linecache.getlines(_file(package_dir, path))
    for no, text in enumerate(lines, 1):
        if not re.search(r"\bclip\w*\(", text) or text.lstrip().startswith(("def ", "#", "from ", "import ")):
            continue
        indent = len(text) - len(text.lstrip())
        for k in range(no - 1, 0, -1):
            prev = lines[k - 1]
            if not prev.strip():
                continue
            pi = len(prev) - len(prev.lstrip())
            if pi < indent:
                if prev.lstrip().startswith("if "):
                    return f"{path}:{no}", f"{path}:{k}: {prev.strip()}"
                break
    return None


def _upstream(library: str, kind: str, site: str, text: str) -> list[dict]:
    return [{"refs": list(u.refs), "status": u.status} for u in UPSTREAM
            if u.library == library and u.kind == kind and site.split(":")[0].endswith(u.path)
            and re.search(u.pattern, text)]


@dataclass
class _Causes:
    """The causes found so far for one library version, one per ``(kind, site)``, in the order found."""

    library: str
    version: str
    package_dir: str
    found: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def at(self, kind: str, site: str, source: str, calls: list[str]) -> dict[str, Any]:
        """The cause of ``kind`` at ``site``, made (with ``source`` and ``calls``, no evidence yet) the first time."""
        return self.found.setdefault((kind, site), {
            "kind": kind, "library": self.library, "version": self.version, "site": site, "source": source,
            "calls": calls, "evidence": []})

    def add_divisor(self, label: str, a: Ledger, d: dict) -> None:
        """The ``divisor`` cause of the diff record ``d`` (a "divide by <name>" call whose scale differs): the line
        computing ``<name>``, found walking the recorded stack of the call on D (``a``) outwards."""
        name = d["mechanism"].split()[-1]
        entry = a.entries[d["index"]]
        site = d["site"]
        for frame in reversed(entry.stack):  # innermost first
            loc = frame.split()[0]
            found_at = declaration_line(self.package_dir, loc, name=name)
            if found_at != loc:
                site = found_at
                break
        c = self.at("divisor", site, source_line(self.package_dir, site), [d["site"]])
        u, v = d["differs"]["scale"]
        text = (f"pair {label}: the noisy release is divided by {u:g} on D and {v:g} on D' ({name}, passed at "
                f"{d['site']}): the noise scale of the output depends on the private dataset's size")
        if text not in c["evidence"]:
            c["evidence"].append(text)

    def add_sensitivity(self, label: str, d: dict) -> None:
        """The ``sensitivity`` (or ``clipping``) cause of the diff record ``d``, when it flags a declared
        sensitivity of 0 or a statistic changing by more than declared (nothing otherwise)."""
        zero = d.get("zero_sensitivity_on")
        exceeds = d.get("exceeds_declared")
        if not (zero or exceeds):
            return
        kind, site, guard = "sensitivity", declaration_line(self.package_dir, d["site"]), None
        if exceeds and not zero:
            clip = guarded_clip(self.package_dir, d["site"])
            if clip is not None:
                kind, (site, guard) = "clipping", clip
        c = self.at(kind, site, source_line(self.package_dir, site), [])
        if guard:
            c["guard"] = guard
        if d["site"] not in c["calls"]:
            c["calls"].append(d["site"])
        text = f"pair {label}, {d['mechanism']} at {d['site']}: " + "; ".join(_sensitivity_evidence(zero, exceeds,
                                                                                                    guard))
        if len(c["evidence"]) < 4 and text not in c["evidence"]:
            c["evidence"].append(text)

    def add_budget(self, led: Ledger) -> None:
        """The ``budget`` causes of one ledger whose calls spend more than the caller's accountant records: the
        sites that handed its unrecorded spends to accountants made inside the call (nothing without a mismatch)."""
        if not led.mismatch.get("spent_over_recorded"):
            return
        for site in dict.fromkeys(led.unrecorded_sites):
            c = self.at("budget", site, statement(self.package_dir, site), [])
            if not c["evidence"]:
                spent, rec = led.spent_least, led.recorded
                assert spent is not None and rec is not None
                c["evidence"].append(
                    f"the calls compose to epsilon {spent.epsilon:.6g} (dpverify's calculus) but the caller's "
                    f"accountant records {rec.epsilon:.6g}; spends on accountants made inside the call: "
                    f"{[round(e, 6) for e, _ in led.unrecorded_spends]}")


def _sensitivity_evidence(zero: list[str] | None, exceeds: dict | None, guard: str | None) -> list[str]:
    """What a flagged call shows, in words: a declared sensitivity of 0 on the sides ``zero``, and a statistic
    changing by more than declared (``exceeds``), with the condition ``guard`` (``path:line: if ...``) its input
    is clipped under."""
    what = []
    if zero:
        what.append("declared sensitivity 0 (no noise) on " + " and ".join(zero)
                    + " while the statistic differs between D and D'")
    if exceeds:
        what.append(f"the statistic changes by {exceeds['realized']:.4g} between D and D', above the "
                    f"declared sensitivity {exceeds['declared']:.4g}"
                    + (f" (the input is clipped only under `{guard.split(': ', 1)[1]}`)" if guard else ""))
    return what


def _is_divisor(d: dict) -> bool:
    """Whether the diff record ``d`` is a scaling of the noisy release ("divide by <name>") whose scale differs."""
    return d["mechanism"].startswith("divide by ") and "scale" in d.get("differs", {})


def locate(library: str, version: str, package_dir: str, pair_ledgers: Iterable[tuple[str, Ledger, Ledger]]
           ) -> list[dict]:
    """The causes (module docstring) behind the ledgers ``(pair label, ledger on D, ledger on D')`` of one public
    call, one dict per source line: ``kind``, ``library``, ``version``, ``site`` (``path:line``), ``source``
    (the line as installed), ``calls`` (the noise additions it affects), ``evidence`` and ``upstream``."""
    causes = _Causes(library, version, package_dir)
    for label, a, b in pair_ledgers:
        for d in diff(a, b):
            if "only_on" in d:
                continue
            if _is_divisor(d):
                causes.add_divisor(label, a, d)
            else:
                causes.add_sensitivity(label, d)
        for led in (a, b):
            causes.add_budget(led)
    out = list(causes.found.values())
    for c in out:
        c["upstream"] = _upstream(library, c["kind"], c["site"], c["source"])
    return out
