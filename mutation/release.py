"""Mutation test of the exact release privacy (issue 21): break it on purpose and see which test notices.

Usage (from the repository root)::

    python mutation/release.py                     # every mutation below
    python mutation/release.py --bugs no_contraction --keep

Same machinery as ``mutation/auditor.py`` (imported from it): for the unmutated package and then for each mutation of
:data:`BUGS`, the package is copied to a temporary directory with the tests of :data:`TESTS`, ``tests/conftest.py`` and
``pyproject.toml``; the mutation is applied to the copy as a textual patch (each edit must match exactly once, else
the script stops naming the pattern); pytest runs in the copy with the copy first on ``PYTHONPATH``, and a guard
plugin checks every ``dpverify`` module came from the copy. The table lists, per mutation, the tests that failed.

The mutations are the bugs an exact computation of a release's privacy can have -- a contraction forgotten, a
variance read wrong, the rounding of the dominating pair turned the wrong way, a sample set's windows not made
independent -- and the auditor's: the declared white-box statistic used alone again. Each must fail at least one test
(the Monte Carlo checks against the samplers' own outputs, the closed forms, dp-accounting's mixture PLD, the
white-box-blind known-bad implementations).
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = ("test_release_privacy.py", "test_samplers_release.py", "test_audit_white_box_never_alone.py")


sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling auditor.py's machinery
import auditor as _base  # noqa: E402
Edit, Bug, PatchError = _base.Edit, _base.Bug, _base.PatchError

DYN, REL, MIX, STAT, SEL = ("calculus/linear_dynamics.py", "calculus/accounting/release.py",
                            "calculus/accounting/shift_mixture.py", "samplers/release_statistic.py", "audit/select.py")
BUGS: tuple = (
    Bug("no_contraction", "the gains ignore the contraction: every step reaches the release in full",
        (Edit(DYN, r"^(\s*)tail = np\.cumprod\(rho\[::-1\]\)\[::-1\]", r"\1tail = np.ones_like(rho)"),)),
    Bug("variance_unsquared", "the release's variance sums gain * noise^2 instead of (gain * noise)^2",
        (Edit(REL, r"var = float\(np\.sum\(\(g \* ss\) \*\* 2\)\)", "var = float(np.sum(g * ss ** 2))"),)),
    Bug("upper_rounds_down", "the upper law of the shift mixture is built from the gains rounded down (no longer a "
        "dominating pair)",
        (Edit(MIX, r"lattices\[upper\] = shift_lattice\(w_all, q_all, g, round_up=upper,",
              "lattices[upper] = shift_lattice(w_all, q_all, g, round_up=not upper,"),)),
    Bug("windows_not_independent", "a sample set's statistic forgets to subtract the window propagation",
        (Edit(STAT, r"^(\s*)Y\[:, 1:\] -= phis\[1:\] \* dev\[:, :-1\]", r"\1pass"),)),
    Bug("white_box_alone", "auto mode uses a declared statistic alone again (the bug of issue 21, section 4)",
        (Edit(SEL, r"^(\s*)found = declared_statistics\(mechanism, dataset, neighbour, whitebox=whitebox, "
              r"log_density=log_density\)\n(\s*)found\.append\(threshold\(f0, f1\)\)",
              r"\1found = declared_statistics(mechanism, dataset, neighbour, whitebox=whitebox, "
              r"log_density=log_density)\n\2if found:\n\2    return found\n\2found.append(threshold(f0, f1))"),)),
)


def prepare(root: Path, bug) -> list[str]:
    """Copy the package, this module's tests, conftest and pytest's settings into ``root``; apply ``bug``."""
    return _base.copy_with_tests(root, bug, [REPO / "tests" / name for name in TESTS])


def main(argv: list[str] | None = None) -> int:
    return _base.script_main(argv, doc=__doc__, bugs=BUGS, prepare=prepare, prefix="dpverify-mutation-release-",
                             title="Mutation test of the exact release privacy (tests/" + ", tests/".join(TESTS) + ")")


if __name__ == "__main__":
    sys.exit(main())
