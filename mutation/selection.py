"""Mutation test of the selection's event rules (issue 22, section 4): break them on purpose and see which test
notices.

Usage (from the repository root)::

    python mutation/selection.py                     # every mutation below
    python mutation/selection.py --bugs on_values --keep

Same machinery as ``mutation/auditor.py`` (imported from it): the package and the tests of :data:`TESTS` are copied
to a temporary directory, the mutation is applied to the copy as a textual patch, and pytest runs there; the table
lists, per mutation, the tests that failed. Each mutation must fail at least one test.

The mutations: thresholds back on attained values (the bug that made iSVT2's projection event a different set on the
estimation part), no atom tolerance, every event counted however often it repeats, the other kind never counted (a
declared statistic alone again whenever it scores best), the other kind always dropped whatever the evidence, and the
winner's curse ignored.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = ("test_audit_selection_evidence.py", "test_audit_white_box_never_alone.py", "test_standard_suite.py")

sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling auditor.py's machinery
import auditor as _base  # noqa: E402
Edit, Bug, PatchError = _base.Edit, _base.Bug, _base.PatchError

STAT, SEL = "audit/statistics.py", "audit/select.py"
BUGS: tuple = (
    Bug("on_values", "thresholds on the attained values again (the atom's own value, not the midpoint below it)",
        (Edit(STAT, r"^(\s*)mid = lower \+ 0\.5 \* \(upper - lower\)", r"\1mid = upper + 0.0 * lower"),)),
    Bug("no_atom_tolerance", "values a few ulps apart are separate atoms",
        (Edit(STAT, r"new_atom\[1:\] = ~\(\(gaps <= ATOM_TOLERANCE \* scale\) & np\.isfinite\(scale\)\)",
              "new_atom[1:] = gaps > 0"),)),
    Bug("no_dedup", "every event is counted, also one that repeats a kept one",
        (Edit(SEL, r"^(\s*)if not any\(self\.same_set\(kept, c\) for kept in out\):", r"\1if True:"),)),
    Bug("always_ranked", "the other kind is dropped whatever the evidence",
        (Edit(SEL, r"^(\s*)return ea\[0\] - eb\[0\] > SEPARATION_SE \* math\.hypot\(ea\[1\], eb\[1\]\) \+ curse",
              r"\1return True"),)),
    Bug("no_curse", "the winner's curse of the best of M thresholds left out of the margin",
        (Edit(SEL, r"^(\s*)curse = math\.sqrt\(2\.0 \* math\.log\(4 \* max\(1, "
                   r"self\.fitted\.thresholds\[a\.index\]\.size\)\)\) \* ea\[1\]", r"\1curse = 0.0"),)),
    Bug("never_ranked", "the other kind is always counted (the rule before this change)",
        (Edit(SEL, r"^(\s*)return ea\[0\] - eb\[0\] > SEPARATION_SE \* math\.hypot\(ea\[1\], eb\[1\]\) \+ curse",
              r"\1return False"),)),
)


def prepare(root: Path, bug) -> list[str]:
    """Copy the package, this module's tests, conftest and pytest's settings into ``root``; apply ``bug``."""
    return _base.copy_with_tests(root, bug, [REPO / "tests" / name for name in TESTS])


def main(argv: list[str] | None = None) -> int:
    return _base.script_main(argv, doc=__doc__, bugs=BUGS, prepare=prepare, prefix="dpverify-mutation-selection-",
                             title="Mutation test of the selection's event rules (tests/" + ", tests/".join(TESTS)
                             + ")")


if __name__ == "__main__":
    sys.exit(main())
