"""Mutation test of the learned (DP-Sniper) classifier statistic: break it on purpose and see which test notices.

Usage (from the repository root)::

    python mutation/classifier.py                       # every mutation below
    python mutation/classifier.py --bugs stopped_short --keep

Same machinery as ``mutation/auditor.py`` (imported from it): the package and ``tests/test_audit_statistics.py`` are
copied to a temporary directory, one mutation of :data:`BUGS` is applied to the copy as a textual patch (each edit must
match exactly once, else the script stops naming the pattern), pytest runs there with the copy first on
``PYTHONPATH``, and a guard plugin checks that every ``dpverify`` module came from the copy.

A learned statistic is fitted on the fit samples only, so no mutation here can make a certificate invalid; these are
power bugs (:mod:`dpverify.audit.classifier`):

- ``stopped_short``: the logistic model fitted by L-BFGS alone and stopped after 20 iterations, without the Newton
  finish (a sampler's correlated path coordinates make L-BFGS need hundreds of iterations: 438 on ``dp_sgld_path``):
  its log-odds track the exact log-likelihood ratio of a random-walk pair with correlation 0.80 instead of 0.964;
- ``swapped_labels``: D' labelled as D, so the statistic is the log-odds of the wrong side.

Measured (2026-11-26): the unmutated copy passes; both mutations are caught by
``tests/test_audit_statistics.py``.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = ("test_audit_statistics.py",)

sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling auditor.py's machinery
import auditor as _base  # noqa: E402
Edit, Bug, PatchError = _base.Edit, _base.Bug, _base.PatchError

CL = "audit/classifier.py"
BUGS: tuple = (
    Bug("stopped_short", "the logistic model fitted by L-BFGS only, stopped after 20 iterations (no Newton finish)",
        (Edit(CL, r"^LBFGS_ITERATIONS = 100$", "LBFGS_ITERATIONS = 20"),
         Edit(CL, r"if int\(np\.max\(model\.n_iter_\)\) >= model\.max_iter:", "if False:"),
         Edit(CL, r"LogisticRegression\(max_iter=LBFGS_ITERATIONS if newton else 1000\)",
              "LogisticRegression(max_iter=LBFGS_ITERATIONS)"))),
    Bug("swapped_labels", "M(D') outputs labelled as M(D) and the other way round",
        (Edit(CL, r"y = np\.concatenate\(\[np\.ones\(f0\.shape\[0\]\), np\.zeros\(f1\.shape\[0\]\)\]\)",
              "y = np.concatenate([np.zeros(f0.shape[0]), np.ones(f1.shape[0])])"),)),
)


def prepare(root: Path, bug) -> list[str]:
    """Copy the package, this module's tests, conftest and pytest's settings into ``root``; apply ``bug``."""
    return _base.copy_with_tests(root, bug, [REPO / "tests" / name for name in TESTS])


def main(argv: list[str] | None = None) -> int:
    return _base.script_main(argv, doc=__doc__, bugs=BUGS, prepare=prepare, prefix="dpverify-mutation-classifier-",
                             title="Mutation test of the learned classifier statistic (tests/" + ", tests/".join(TESTS)
                             + ")")


if __name__ == "__main__":
    sys.exit(main())
