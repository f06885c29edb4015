"""Mutation test of the prover (issue 35): break the prover, and the independent checker (or the prover's own
self-check) must notice.

Usage (from the repository root)::

    python mutation/prover.py                    # every bug below (about 15 s each on 2 cores)
    python mutation/prover.py --bugs split_gap --keep

The machinery of ``mutation/auditor.py`` (the package and ``tests/test_prove_soundness.py`` copied to a temporary
directory, one textual patch per run, pytest in the copy). Each bug makes the prover answer wrongly; the soundness
tests hand every answer's certificate to the checker (:mod:`dpverify.prove.checker`, which shares no code with the
prover) and require true statements to be proved:

- ``rounding_inward``: every interval endpoint rounded inward (the lower end of an Arb result taken from its upper
  end and vice versa): a statement false by 2^-150 is "proved";
- ``split_gap``: a split loses the last 1/1024 of the left half: a counterexample inside the gap is never seen;
- ``leaf_skipped``: boxes six splits down are taken as proved without being evaluated;
- ``midpoint_enclosure``: the margin is evaluated at the box's midpoint instead of enclosed on the box;
- ``wrong_direction``: a box counts as proved when the margin's upper end (not its lower end) is >= 0;
- ``face_at_wrong_end``: the monotone lemma proves the face at the end where the margin is largest.

Measured (2026-11-29): the unmutated copy passes; every bug is caught (the table this script prints says by which
test and with the checker's message).
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "mutation"))  # run as a script or imported: the sibling scripts' machinery
import auditor as _base  # noqa: E402

Edit, Bug = _base.Edit, _base.Bug
TESTS = ("test_prove_soundness.py",)

BUGS: tuple = (
    Bug("rounding_inward", "every interval endpoint rounded inward",
        (Edit("prove/intervals.py", r"^def _low\(ball: arb, what: str = \"a value\"\) -> arb:\n    return _finite\(ball, what\)\.lower\(\)",
              'def _low(ball: arb, what: str = "a value") -> arb:\n    return _finite(ball, what).upper()'),
         Edit("prove/intervals.py", r"^def _high\(ball: arb, what: str = \"a value\"\) -> arb:\n    return _finite\(ball, what\)\.upper\(\)",
              'def _high(ball: arb, what: str = "a value") -> arb:\n    return _finite(ball, what).lower()'))),
    Bug("split_gap", "a split drops the last 1/1024 of the left half of the box",
        (Edit("prove/search.py", r"^(\s*)left = node\.box\[:j\] \+ \(\(lo, m\),\) \+ node\.box\[j \+ 1:\]\n(\s*)right = node\.box\[:j\] \+ \(\(m, hi\),\)",
              r"\1left = node.box[:j] + ((lo, m - (hi - lo) / 1024),) + node.box[j + 1:]\n\2right = node.box[:j] + ((m, hi),)"),)),
    Bug("leaf_skipped", "boxes six splits down are marked proved without evaluation",
        (Edit("prove/search.py", r"^(\s*)ivs = _intervals\(node\.box\)\n(\s*)violated, violated_interval, holds_all",
              r"\1if depth >= 6 and not in_face:\n\1    node.kind, node.info = 'enclosure', ('0', '0')\n"
              r"\1    return 'done', 0.0, 0\n\1ivs = _intervals(node.box)\n\2violated, violated_interval, holds_all"),)),
    Bug("midpoint_enclosure", "the margin evaluated at the midpoint of the box instead of enclosed on it",
        (Edit("prove/search.py", r"^(\s*)margin = ctx\.value\(\*ivs\)\n(\s*)except DomainError as exc:",
              r"\1margin = ctx.value(*[Interval.rational((lo + hi) / 2) for lo, hi in node.box])\n"
              r"\2except DomainError as exc:"),)),
    Bug("wrong_direction", "a box is proved when the margin's upper end is >= 0",
        (Edit("prove/search.py", r"^(\s*)if margin\.lo >= 0:\n(\s*)node\.kind, node\.info = \"enclosure\"",
              r'\1if margin.hi >= 0:\n\2node.kind, node.info = "enclosure"'),)),
    Bug("face_at_wrong_end", "the monotone lemma proves the face where the margin is largest",
        (Edit("prove/search.py", r"value = lo if direction > 0 else hi", "value = hi if direction > 0 else lo"),)),
)


def prepare(root: Path, bug) -> list[str]:
    tests = [REPO / "tests" / name for name in TESTS]
    missing = [str(t) for t in tests if not t.exists()]
    if missing:
        raise _base.PatchError(f"missing test files: {missing}")
    return _base.copy_with_tests(root, bug, tests)


def main(argv: list[str] | None = None) -> int:
    return _base.script_main(argv, doc=__doc__, bugs=BUGS, prepare=prepare, prefix="dpverify-prover-mutation-",
                             title="Prover mutations (each must make the checker or the prover fail a test):",
                             timeout=600.0)


if __name__ == "__main__":
    sys.exit(main())
