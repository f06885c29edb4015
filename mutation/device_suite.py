"""Mutation test of the standard suite's device paths: break a device-only step on purpose and see which test notices.

Usage (from the repository root)::

    python mutation/device_suite.py                     # every mutation below
    python mutation/device_suite.py --bugs codes_base_two --keep

Same machinery as ``mutation/auditor.py`` (imported from it): the package and the tests below are copied to a temporary
directory, one mutation of :data:`BUGS` is applied to the copy as a textual patch (each edit must match exactly once,
else the script stops naming the pattern), pytest runs there with the copy first on ``PYTHONPATH``. The tests are
marked ``torch`` (excluded from the default run), so the copy's pytest settings select that marker.

Every mutation touches a step that only the torch backend runs (the numpy path is the reference the tests compare
with, so a bug shared by both paths is for the numpy tests to find):

- ``distinct_rows_shifted``: the device's distinct rows decoded one above their values;
- ``codes_base_two``: a flag row's code on the device in base 2 instead of 3 (patterns collide in the table lookup);
- ``interp_wrong_cell``: Alg. 3's interpolation on the device from the cell to the right of the value's;
- ``projection_uncentred``: the projection on the device without subtracting the centre of the fit means;
- ``logistic_unscaled``: the logistic classifier on the device without the scaler's division;
- ``additive_unwhitened``: the additive statistic on the device without the whitening product;
- ``horner_wrong_radix``: the device's int64 row keys (key ranges beyond 2^53) built with each radix one too large;
- ``trees_one_level_short``: the boosting model's device walk stopped one level above the deepest leaves;
- ``trees_without_baseline``: the boosting log-odds on the device without the model's baseline;
- ``trees_children_swapped``: the device walk going right where scikit-learn goes left.

(A mutation of a step numpy and the device share, e.g. a sign in RAPPOR's density, which is one matrix-product line for
both backends, is not caught here: both sides of the comparison move. The numpy tests of the suite catch those.)

Measured (2026-11-26): the unmutated copy passes; see the table this script prints.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = ("test_standard_suite_torch_vectors.py", "test_boosting_torch.py")

sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling auditor.py's machinery
import auditor as _base  # noqa: E402
Edit, Bug, PatchError = _base.Edit, _base.Bug, _base.PatchError

CW, SV, ST = "audit/chunk_work.py", "audit/standard/sparse_vector.py", "audit/statistics.py"
TE = "audit/tree_ensemble.py"
BUGS: tuple = (
    Bug("distinct_rows_shifted", "the device's distinct rows decoded one above their values",
        (Edit(CW, r"host_rows = \(digits \+ low_host\)", "host_rows = (digits + low_host + 1)"),)),
    Bug("codes_base_two", "a flag row's device code in base 2 (patterns collide)",
        (Edit(SV, r"codes = codes \+ f\[:, i\] \* 3 \*\* i", "codes = codes + f[:, i] * 2 ** i"),)),
    Bug("interp_wrong_cell", "Alg. 3's device interpolation from the cell right of the value's",
        (Edit(SV, r"x0, x1 = xp\.lookup\(grid, cell - 1\), xp\.lookup\(grid, cell\)",
              "x0, x1 = xp.lookup(grid, cell), xp.lookup(grid, xp.minimum(cell + 1, grid.size - 1))"),)),
    Bug("projection_uncentred", "the device projection without the centre",
        (Edit(ST, r"return xp\.matmul\(device_rows\(x\) - xp\.asarray\(center\), w\)",
              "return xp.matmul(device_rows(x), w)"),)),
    Bug("logistic_unscaled", "the device logistic log-odds without the scaler's division",
        (Edit("audit/classifier.py", r"xp\.matmul\(\(features - xp\.asarray\(mean\)\) / xp\.asarray\(scale\), coef\)",
              "xp.matmul(features - xp.asarray(mean), coef)"),)),
    Bug("additive_unwhitened", "the device additive statistic without the whitening product",
        (Edit("audit/vector_statistics.py", r"            z = xp\.matmul\(z, w\)\n", "            pass\n"),)),
    Bug("horner_wrong_radix", "the device's int64 keys (beyond 2^53) built with each radix one too large",
        (Edit(CW, r"keys = keys \* int\(radix_host\[c\]\) \+", "keys = keys * int(radix_host[c] + 1) +"),)),
    Bug("trees_one_level_short", "the boosting model's device walk one level short of the deepest leaves",
        (Edit(TE, r"for _ in range\(self\.depth\):", "for _ in range(self.depth - 1):"),)),
    Bug("trees_without_baseline", "the boosting log-odds on the device without the baseline",
        (Edit(TE, r"total = xp\.zeros\(\(n,\)\) \+ self\.baseline", "total = xp.zeros((n,))"),)),
    Bug("trees_children_swapped", "the device walk going right where scikit-learn goes left",
        (Edit(TE, r'node = xp\.where\(go_left, xp\.lookup\(tables\["left"\], node\), xp\.lookup\(tables\["right"\], node\)\)',
              'node = xp.where(go_left, xp.lookup(tables["right"], node), xp.lookup(tables["left"], node))'),)),
)


def prepare(root: Path, bug) -> list[str]:
    """Copy the package, this module's tests, conftest and pytest's settings (selecting the ``torch`` marker) into
    ``root``; apply ``bug``."""
    return copy_torch_tests(root, bug, TESTS)


def copy_torch_tests(root: Path, bug, names: tuple) -> list[str]:
    """:func:`auditor.copy_with_tests` for the test files ``names`` (marked ``torch``), with the copy's pytest settings
    selecting that marker; shared with ``mutation/device_samplers.py``."""
    files = _base.copy_with_tests(root, bug, [REPO / "tests" / name for name in names])
    settings = root / "pyproject.toml"
    text = settings.read_text()
    if " and not torch'" not in text:
        raise PatchError("pyproject.toml's addopts no longer excludes the torch marker as ' and not torch'")
    settings.write_text(text.replace(" and not torch'", "'").replace("-m 'not slow", "-m 'torch and not slow"))
    return files


def main(argv: list[str] | None = None) -> int:
    return _base.script_main(argv, doc=__doc__, bugs=BUGS, prepare=prepare, prefix="dpverify-mutation-device-suite-",
                             title="Mutation test of the standard suite's device paths (tests/" + ", tests/".join(TESTS)
                             + ")")


if __name__ == "__main__":
    sys.exit(main())
