"""Mutation test of the pair's two mus (:func:`dpverify.audit.ceiling.gaussian_fit`) and of the mechanism's own
neighbouring relation (:func:`dpverify.audit.datasets.pair_note`): break them on purpose and see which test notices.

Usage (from the repository root)::

    python mutation/ceiling.py                       # every mutation below
    python mutation/ceiling.py --bugs one_reading --keep

Same machinery as ``mutation/auditor.py`` (imported from it): the package and the tests of :data:`TESTS` are copied
to a temporary directory, the mutation is applied to the copy as a textual patch, and pytest runs there; the table
lists, per mutation, the tests that failed. Each mutation must fail at least one test.

The mutations: the fit reads only one of the pair's two readings (the pair with its roles swapped left out), the fit
stops at its coarse grid (no refinement: mu off by up to 0.025), a declared relation ignored (the record relations
always used), and a declared relation's answer trusted whatever it is.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = ("test_audit_ceiling.py", "test_audit_pair_checks.py")

sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling auditor.py's machinery
import auditor as _base  # noqa: E402
Edit, Bug, PatchError = _base.Edit, _base.Bug, _base.PatchError

CEIL, PAIRS = "audit/ceiling.py", "audit/datasets.py"
BUGS: tuple = (
    Bug("one_reading", "the fit reads the pair's curve only, not its reading with the roles swapped",
        (Edit(CEIL, r"^(\s*)for a, b in \(\(x, y\), \(y, x\)\):", r"\1for a, b in ((x, y),):"),)),
    Bug("no_refinement", "the fit stops at its grid of step 0.05",
        (Edit(CEIL, r"^(\s*)if high > low:", r"\1if False:"),)),
    Bug("relation_ignored", "a mechanism's declared relation is never read",
        (Edit(PAIRS, r"^(\s*)declared = _declared_relation\(mechanism, dataset, neighbour\)", r"\1declared = None"),)),
    Bug("answer_trusted", "whatever are_neighbours returns is taken as a bool",
        (Edit(PAIRS, r"^(\s*)if not isinstance\(answer, \(bool, np\.bool_\)\):", r"\1if False:"),)),
)


def prepare(root: Path, bug) -> list[str]:
    """Copy the package, this module's tests, conftest and pytest's settings into ``root``; apply ``bug``."""
    return _base.copy_with_tests(root, bug, [REPO / "tests" / name for name in TESTS])


def main(argv: list[str] | None = None) -> int:
    return _base.script_main(argv, doc=__doc__, bugs=BUGS, prepare=prepare, prefix="dpverify-mutation-ceiling-",
                             title="Mutation test of the pair's mus and the declared relation (tests/"
                             + ", tests/".join(TESTS) + ")")


if __name__ == "__main__":
    raise SystemExit(main())
