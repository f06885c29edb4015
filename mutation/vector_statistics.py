"""Mutation test of the additive vector statistic: break it on purpose and see which test notices.

Usage (from the repository root)::

    python mutation/vector_statistics.py                 # every mutation below
    python mutation/vector_statistics.py --bugs sign_flip,no_whitening --keep

Same machinery as ``mutation/auditor.py`` (imported from it): for the unmutated package and then for each mutation of
:data:`BUGS`, the package is copied to a temporary directory with ``tests/test_audit_vector_statistics.py``,
``tests/test_audit_validity_vector.py``, ``tests/conftest.py`` and ``pyproject.toml``; the mutation is applied to the
copy as a textual patch (each edit must match exactly once, else the script stops naming the pattern); pytest runs
in the copy with the copy first on ``PYTHONPATH``, and a guard plugin checks every ``dpverify`` module came from the
copy. The table lists, per mutation, the tests that failed.

What to expect. A statistic fitted on the fit samples only cannot make a certificate invalid, whatever it computes
(:mod:`dpverify.audit.core`: the event is counted on fresh samples), so the mutations of
:mod:`dpverify.audit.vector_statistics` are *power* bugs, caught by the recovery tests of
``test_audit_vector_statistics.py``; the validity test is expected to pass under all of them. ``fit_on_scoring``
(a mutation of ``audit/select.py``) fits the candidate statistics on the samples that then choose the threshold: the
choice is biased towards events the fit overfitted, again a power loss, not a validity one; it is listed to show what
the tests can and cannot see. Mutations that *do* break validity (counting on the selection samples, re-drawing them)
are in ``mutation/auditor.py``, whose glob ``tests/test_audit_validity*.py`` includes the vector validity test.

The degenerate-side statistics of :mod:`dpverify.audit.degenerate_statistics` (issue 38) add two power bugs, caught by
``tests/test_audit_degenerate_statistics.py``: ``no_degenerate_candidates`` (the selection no longer offers them: the
shared-noise final release is then not flagged, the blind spot) and ``degenerate_no_floor`` (rounding on the
degenerate side counts as "off the set").

Measured (2026-11-23): the unmutated copy passes (28 tests); sign_flip, no_whitening, no_shrinkage, inverted_stein,
no_screening, gate_all_weak, no_monotone and wrong_direction are each caught by 1-13 tests of
``test_audit_vector_statistics.py`` (wrong_direction also by the validity file's power test); fit_on_scoring passes
every test, as expected. About 3 minutes for the ten runs on the shared 2-core machine.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = ("test_audit_vector_statistics.py", "test_audit_validity_vector.py", "test_audit_degenerate_statistics.py")


sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling auditor.py's machinery
import auditor as _base  # noqa: E402
Edit, Bug, PatchError = _base.Edit, _base.Bug, _base.PatchError

VS = "audit/vector_statistics.py"
BUGS: tuple = (
    Bug("sign_flip", "the statistic returns minus the summed log ratios",
        (Edit(VS, r"^(\s*)return total$", r"\1return -total"),)),
    Bug("no_whitening", "step 1 dropped: raw coordinates (prefix sums stay cumulative)",
        (Edit(VS, r"if whiten and 1 < f0\.shape\[1\]", "if False and 1 < f0.shape[1]"),)),
    Bug("no_shrinkage", "step 3's empirical-Bayes shrinkage across coordinates dropped",
        (Edit(VS, r"table = shrink_tables\(table, var\)", "table = table"),)),
    Bug("inverted_stein", "the James-Stein factor inverted: v / (tau^2 + v) instead of tau^2 / (tau^2 + v)",
        (Edit(VS, r"np\.divide\(tau2, total,", "np.divide(total - tau2, total,"),)),
    Bug("no_screening", "every coordinate treated as individually significant (no grouping, nulls never zeroed)",
        (Edit(VS, r"strong = screen_coordinates\(c0, c1, level\)", "strong = np.ones(c0.shape[0], dtype=bool)"),)),
    Bug("gate_all_weak", "the weak group is zeroed when not significant even with no strong coordinate",
        (Edit(VS, r"if not strong\.any\(\) or _group_signal", "if _group_signal"),)),
    Bug("no_monotone", "step 4's isotonic smoothing dropped",
        (Edit(VS, r"table = monotone_tables\(table, var\)", "table = table"),)),
    Bug("wrong_direction", "isotonic smoothing keeps the direction that fits worse",
        (Edit(VS, r"out\[j\] = up if err_up <= err_down else down", "out[j] = down if err_up <= err_down else up"),)),
    Bug("no_degenerate_candidates", "audit/select.py no longer offers the degenerate-side statistics (issue 38)",
        (Edit("audit/select.py", r"found\.extend\(degenerate_candidates\(f0, f1\)\)", "pass"),)),
    Bug("degenerate_no_floor", "the affine-hull distance without its rounding floor (every output off the set)",
        (Edit("audit/degenerate_statistics.py", r"return np\.where\(r > floor, r / scale, 0\.0\)",
              "return r / scale"),)),
    Bug("fit_on_scoring", "audit/select.py fits the statistics on the threshold sample instead of the fit part",
        (Edit("audit/select.py",
              r"candidate_statistics\(plan, mechanism, dataset, neighbour, sel0\[:n_fit\], sel1\[:n_fit\]\)",
              "candidate_statistics(plan, mechanism, dataset, neighbour, sel0[n_fit:held], sel1[n_fit:held])"),)),
)

#: mutations no test is expected to catch (module docstring): fitting on the scoring samples costs power only, by an
#: amount below what a default-run test can resolve
POWER_ONLY_UNCAUGHT = frozenset({"fit_on_scoring"})


def prepare(root: Path, bug) -> list[str]:
    """Copy the package, this module's tests, conftest and pytest's settings into ``root``; apply ``bug``."""
    return _base.copy_with_tests(root, bug, [REPO / "tests" / name for name in TESTS])


def main(argv: list[str] | None = None) -> int:
    return _base.script_main(argv, doc=__doc__, bugs=BUGS, prepare=prepare, prefix="dpverify-mutation-vector-",
                             title="Mutation test of the additive vector statistic (tests/" + ", tests/".join(TESTS) + ")",
                             expected_misses=POWER_ONLY_UNCAUGHT)


if __name__ == "__main__":
    sys.exit(main())
