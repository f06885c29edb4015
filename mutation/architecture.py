"""Mutation test of the architecture rules: break the house on purpose and check ``tests/test_architecture.py`` notices.

Usage (from the repository root)::

    python mutation/architecture.py                 # every mutation below
    python mutation/architecture.py --bugs lazy_cycle --keep

The patches use ``mutation/auditor.py``'s ``Edit``/``Bug``/``apply_bug`` (each edit must match exactly once): the
package and ``tests/test_architecture.py`` are copied to a temporary directory, the mutation is applied as a textual
patch, and pytest runs the architecture test in the copy. That test reads the sources next to it with ``ast`` and
imports nothing, so (unlike the auditor's mutations) there is no import guard to pass. Each mutation is one way the house decays:

- ``lazy_cycle`` -- ``calculus/guarantees.py`` imports the conversions inside a method again (the cycle the
  restructuring removed; a lazy import hides a cycle, it does not remove it);
- ``private_import`` -- the RDP accountant imports a ``_private`` helper of the conversions module;
- ``auditor_imports_sampler`` -- the auditor reaches into the sampler registry (it must audit any callable);
- ``calculus_imports_interface`` -- the calculus imports the report module (the bottom layer importing the top).

Measured (2026-11-24): the unmutated copy passes (about 270 tests, 6 s); every mutation is caught by at least one test.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling auditor.py's machinery
import auditor as _base  # noqa: E402

Edit, Bug = _base.Edit, _base.Bug

BUGS: tuple = (
    Bug("lazy_cycle", "guarantees.py imports conversions inside a function (guarantees <-> conversions cycle)",
        (Edit("calculus/guarantees.py", r"^(__all__ = \[)",
              "def _convert(curve, delta):\n    from dpverify.calculus.conversions import rdp_to_dp\n\n"
              "    return rdp_to_dp(curve.orders, curve.epsilons, delta)\n\n\n\\1"),)),
    Bug("private_import", "the RDP accountant imports conversions._check_method",
        (Edit("calculus/accounting/accountant.py",
              r"^(from dpverify\.calculus\.accounting\.sampled_gaussian import check_sigma, log_a_matrix.*)$",
              "\\1\nfrom dpverify.calculus.conversions import _check_method  # noqa: F401"),)),
    Bug("auditor_imports_sampler", "audit/datasets.py imports the sampler registry inside check_adjacent",
        (Edit("audit/datasets.py", r"^(def check_adjacent\(.*\n(?:.*\n)*?    \"\"\"(?:.*\n)*?.*\"\"\"\n)",
              "\\1    from dpverify.samplers import registry  # noqa: F401\n"),)),
    Bug("calculus_imports_interface", "mechanism_description.py imports the report module",
        (Edit("calculus/mechanism_description.py", r"^(from dpverify\.validation import .*)$",
              "\\1\nfrom dpverify.interfaces import report  # noqa: F401"),)),
)


def run(root: Path, bug, timeout: float) -> tuple[list[str], int]:
    """Copy the package and the architecture test into ``root``, apply ``bug``, run the test; returns the failed test
    ids and pytest's exit status."""
    shutil.copytree(REPO / "dpverify", root / "dpverify", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (root / "tests").mkdir()
    shutil.copy2(REPO / "tests" / "test_architecture.py", root / "tests" / "test_architecture.py")
    if bug is not None:
        _base.apply_bug(root / "dpverify", bug)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:dpverify",
                           "-rf", "tests/test_architecture.py"], cwd=root, capture_output=True, text=True,
                          timeout=timeout)
    failed = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("FAILED ")]
    return failed, proc.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bugs", default=",".join(b.name for b in BUGS),
                        help="comma-separated mutations (default: all): " + ", ".join(b.name for b in BUGS))
    parser.add_argument("--keep", action="store_true", help="keep the temporary copies")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds allowed per pytest run")
    args = parser.parse_args(argv)
    chosen = _base.choose_bugs(parser, args.bugs, BUGS)
    base = Path(tempfile.mkdtemp(prefix="dpverify-mutation-architecture-"))
    missed = []
    try:
        for bug in [None, *chosen]:
            name = "none" if bug is None else bug.name
            try:
                failed, status = run(base / name, bug, args.timeout)
            except _base.PatchError as exc:
                print(f"PATCH DID NOT APPLY: {exc}", file=sys.stderr)
                return 3
            print(f"{name:28s} {len(failed):3d} failed  {', '.join(failed)[:150]}", flush=True)
            if bug is None and (failed or status != 0):
                print("the UNMUTATED copy fails its tests: the table would be meaningless", file=sys.stderr)
                return 2
            if bug is not None and not failed:
                missed.append(name)
    finally:
        if args.keep:
            print(f"copies kept in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    if missed:
        print(f"NOT CAUGHT: {', '.join(missed)}", file=sys.stderr)
        return 1
    print(f"all {len(chosen)} mutations caught")
    return 0


if __name__ == "__main__":
    sys.exit(main())
