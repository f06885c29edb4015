"""Mutation test of the auditor: break it on purpose and check that a statistical test notices.

Usage (from the repository root)::

    python mutation/auditor.py            # default (CI-sized) validity tests
    python mutation/auditor.py --slow     # also the @pytest.mark.slow ones
    python mutation/auditor.py --bugs union,reuse_seed --keep

For the unmutated package and then for each bug of :data:`BUGS` (issue 14, section 1; and :data:`CURVE_BUGS`, issue
22, section 2), the script

1. copies the package ``dpverify/`` into a fresh temporary directory, together with the validity tests
   (``tests/test_audit_validity*.py``, ``tests/conftest.py``) and ``pyproject.toml`` (pytest's settings);
2. applies the bug as a textual patch to the *copy* (the working tree is never touched); every patch asserts
   that each of its edits matched exactly once, so if the code it targets has moved the script stops with a
   message naming the file and the text it looked for, instead of silently testing an unmutated copy;
3. checks, in a subprocess with the same environment as the test run, that ``import dpverify`` resolves to
   the copy (and, after the run, that every ``dpverify`` module pytest imported came from the copy);
4. runs ``python -m pytest -q -p no:cacheprovider tests/test_audit_validity*.py`` in the copy, with the copy
   first on ``PYTHONPATH`` and as the working directory, and reads the failed tests from a JUnit XML report.

The unmutated copy must pass (else the table is meaningless and the exit status is 2); each bug must make at
least one test fail (else the bug is "not caught" and the exit status is 1). The table lists, for each bug,
the tests that failed and the run time.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TEST_GLOB = "test_audit_validity*.py"


@dataclass(frozen=True)
class Edit:
    """Replace the single match of ``pattern`` (a regular expression, ``re.MULTILINE``) in ``path``
    (relative to the package directory) by ``replacement``."""

    path: str
    pattern: str
    replacement: str


@dataclass(frozen=True)
class Bug:
    name: str
    description: str
    edits: tuple[Edit, ...]


BUGS: tuple[Bug, ...] = (
    Bug(
        "union",
        "two one-sided bounds each at alpha (jointly only 1 - 2 alpha): the union (Bonferroni) split over "
        "the two rates is dropped",
        (Edit("audit/bounds.py", r"^(\s*)a = alpha / \(2\.0 \* candidates\)\s*$", r"\1a = alpha / candidates"),),
    ),
    Bug(
        "bonferroni",
        "the candidates events are counted and maximised without the Bonferroni factor over candidates",
        (Edit("audit/certify.py", r"orientation=found\.event\.orientation,(\s*)candidates=chosen\.tests",
              r"orientation=found.event.orientation,\1candidates=1"),),
    ),
    Bug(
        "same_samples",
        "the chosen events are counted on the selection samples that chose them (the scoring sample) instead of "
        "fresh ones",
        (Edit("audit/estimate.py",
              r'^(\s*)for found in runner\.map\(\[\("count", j, events\) for j in chunks\]\):\s*$',
              r"\1for found in [np.array([[np.count_nonzero(chosen.fitted.threshold_values[i][s] >= t) "
              r"for i, t in events] for s in (0, 1)])]:"),
         Edit("audit/estimate.py", r"^(\s*)return EventCounts\(k0, k1, plan\.split\.n_estimation\)\s*$",
              r"\1return EventCounts(k0, k1, len(chosen.fitted.threshold_values[0][0]))")),
    ),
    Bug(
        "reuse_seed",
        "the estimation chunks reuse the seed stream of the selection chunks (estimation chunk j is drawn from "
        "the seed of selection chunk j mod the number of selection chunks)",
        (Edit("audit/split.py", r"np\.random\.default_rng\(self\.chunk_seeds\[side\]\[j\]\)",
              "np.random.default_rng(self.chunk_seeds[side][j % len(self.selection_sizes)])"),),
    ),
)


#: Bugs of the curve-level certificate (issue 22, section 2; ``dpverify/audit/curve.py``), caught by
#: ``tests/test_audit_validity_curve.py`` (picked up by :data:`TEST_GLOB`).
CURVE_BUGS: tuple[Bug, ...] = (
    Bug(
        "curve_no_guard",
        "mu_lower without its max(0, .) guard: a test that did worse than guessing reports a negative mu_lower "
        "(jax_privacy PR #270 read such a value as evidence)",
        (Edit("audit/curve.py", r"^(\s*)out = np\.where\(x \+ y >= 1\.0, 0\.0, np\.maximum\(0\.0, raw\)\)\s*$",
              r"\1out = np.asarray(raw)"),),
    ),
    Bug(
        "curve_selection_on_estimation",
        "the curve test's threshold and orientation are chosen on the estimation part that certifies them",
        (Edit("audit/curve.py", r"test = select_test_from_scores\(s0_selection, s1_selection,",
              "test = select_test_from_scores(e0, e1,"),),
    ),
    Bug(
        "curve_fnr_lower",
        "the false-negative rate is bounded by its Clopper-Pearson LOWER bound instead of the upper one",
        (Edit("audit/curve.py", r"^from dpverify\.audit\.bounds import clopper_pearson_upper$",
              "from dpverify.audit.bounds import clopper_pearson_lower, clopper_pearson_upper"),
         Edit("audit/curve.py", r"return clopper_pearson_upper\(fp, n1, a\), clopper_pearson_upper\(fn, n0, a\)",
              "return clopper_pearson_upper(fp, n1, a), clopper_pearson_lower(fn, n0, a)")),
    ),
)


#: Bugs of sequential audits (issue 38; ``dpverify/audit/sequential.py`` and the rounds in ``dpverify/audit/core.py``),
#: caught by ``tests/test_audit_validity_sequential.py``.
SEQUENTIAL_BUGS: tuple[Bug, ...] = (
    Bug(
        "sequential_full_alpha",
        "every round of a sequential audit is certified at the full alpha instead of its share (no spending: the "
        "false-violation rate grows with the number of rounds)",
        (Edit("audit/sequential.py", r"alphas = tuple\(alpha \* \(1\.0 - 1e-12\) \* b / samples for b in sizes\)",
              "alphas = tuple(alpha for b in sizes)"),),
    ),
    Bug(
        "sequential_same_round_seed",
        "every round draws the first round's outputs again (its seed ignores the round): the rounds are not fresh, "
        "so the union bound over them is spent on one sample",
        (Edit("audit/core.py", r"seed=round_seed\(plan\.seed, r\)", "seed=round_seed(plan.seed, 0)"),),
    ),
)
BUGS = BUGS + CURVE_BUGS + SEQUENTIAL_BUGS


class PatchError(RuntimeError):
    """A patch did not apply: the code it targets has changed."""


def apply_bug(package: Path, bug: Bug) -> None:
    """Apply every edit of ``bug`` to the package copy at ``package``; raise :class:`PatchError` unless each
    pattern matches exactly once and the file changed."""
    for edit in bug.edits:
        target = package / edit.path
        if not target.is_file():
            raise PatchError(f"bug {bug.name!r}: {target} does not exist (the auditor's files have moved)")
        text = target.read_text()
        matches = list(re.finditer(edit.pattern, text, flags=re.MULTILINE))
        if len(matches) != 1:
            raise PatchError(
                f"bug {bug.name!r}: expected exactly one match of /{edit.pattern}/ in dpverify/{edit.path}, found "
                f"{len(matches)}; the code has moved -- update the patch in mutation/auditor.py")
        new = re.sub(edit.pattern, edit.replacement, text, count=1, flags=re.MULTILINE)
        if new == text:
            raise PatchError(f"bug {bug.name!r}: the edit of dpverify/{edit.path} changed nothing")
        target.write_text(new)


GUARD_PLUGIN = '''"""pytest plugin written by mutation/auditor.py: records where every dpverify module was imported from."""
import json
import os
import sys


def pytest_sessionfinish(session, exitstatus):
    modules = {name: getattr(module, "__file__", None) for name, module in list(sys.modules.items())
               if name == "dpverify" or name.startswith("dpverify.")}
    with open(os.environ["DPVERIFY_MUTATION_IMPORTS"], "w") as fh:
        json.dump(modules, fh)
'''


def copy_with_tests(root: Path, bug: Bug | None, tests: list[Path]) -> list[str]:
    """Copy the package, the test files ``tests`` (with ``tests/conftest.py``) and pytest's settings into ``root``;
    apply ``bug``; return the test files (relative to ``root``). Shared by the sibling mutation scripts."""
    shutil.copytree(REPO / "dpverify", root / "dpverify", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (root / "tests").mkdir()
    for path in [*tests, REPO / "tests" / "conftest.py"]:
        if path.exists():
            shutil.copy2(path, root / "tests" / path.name)
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")
    (root / "_mutation_guard.py").write_text(GUARD_PLUGIN)
    if bug is not None:
        apply_bug(root / "dpverify", bug)
    return [f"tests/{path.name}" for path in tests if path.exists()]


def prepare(root: Path, bug: Bug | None) -> list[str]:
    """Copy the package, the validity tests and pytest's settings into ``root``; apply ``bug``; return the test
    files (relative to ``root``)."""
    tests = sorted((REPO / "tests").glob(TEST_GLOB))
    if not tests:
        raise PatchError(f"no tests/{TEST_GLOB} in {REPO}")
    return copy_with_tests(root, bug, tests)


def script_main(argv: list[str] | None, *, doc: str, bugs: tuple, prepare, prefix: str, title: str,
                expected_misses: frozenset = frozenset(), timeout: float = 1800.0) -> int:
    """The command line of a sibling mutation script (``--bugs``, ``--keep``, ``--timeout``): run the unmutated copy
    and each chosen bug's through :func:`run_copies` with ``prepare``, then :func:`report` under ``title``."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--bugs", default=",".join(b.name for b in bugs),
                        help="comma-separated mutations (default: all): " + ", ".join(b.name for b in bugs))
    parser.add_argument("--keep", action="store_true", help="keep the temporary copies")
    parser.add_argument("--timeout", type=float, default=timeout, help="seconds allowed per pytest run")
    args = parser.parse_args(argv)
    chosen = choose_bugs(parser, args.bugs, bugs)
    runs = run_copies(chosen, prepare, prefix=prefix, slow=False, timeout=args.timeout, keep=args.keep)
    if isinstance(runs, int):
        return runs
    return report(runs, title, expected_misses=expected_misses, what="mutations")


def report(runs: list[Run], title: str, *, expected_misses: frozenset = frozenset(), what: str = "bugs") -> int:
    """Print the table and each failure's first line under ``title``; return the exit status: 1 when a mutation
    outside ``expected_misses`` made no test fail, else 0."""
    print()
    print(title)
    print(table(runs))
    print()
    for run in runs[1:]:
        for test_id in run.failed:
            print(f"  {run.name}: {_short(test_id)}: {run.messages.get(test_id, '')[:160]}")
    missed = [run.name for run in runs[1:] if not run.failed]
    expected = [name for name in missed if name in expected_misses]
    if expected:
        print(f"not caught, as expected (power only, no test measures it): {', '.join(expected)}")
    missed = [name for name in missed if name not in expected_misses]
    if missed:
        print(f"NOT CAUGHT: {', '.join(missed)}", file=sys.stderr)
        return 1
    print(f"all {len(runs) - 1 - len(expected)} {'other ' if expected else ''}{what} caught")
    return 0


def environment(root: Path, imports: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [os.environ.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["DPVERIFY_MUTATION_IMPORTS"] = str(imports)
    return env


def check_imports_copy(root: Path, env: dict) -> str:
    """In a subprocess with the test run's environment and working directory, ``import dpverify`` and the auditor
    and check they are the copy's; return the path of the imported package."""
    code = "import dpverify, dpverify.audit.core as c, dpverify.audit.split as s; print(dpverify.__file__); " \
           "print(c.__file__); print(s.__file__)"
    out = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"cannot import dpverify from the copy {root}:\n{out.stderr}")
    files = out.stdout.split()
    outside = [f for f in files if not Path(f).resolve().is_relative_to(root.resolve())]
    if outside:
        raise RuntimeError(f"the copy {root} is not what gets imported: {outside}")
    return files[0]


@dataclass
class Run:
    name: str
    returncode: int
    failed: list[str]
    passed: int
    skipped: int
    seconds: float
    messages: dict
    imported_from: str


def _test_id(case: ET.Element) -> str:
    module = case.get("classname", "").rsplit(".", 1)[-1]
    return f"{module}.py::{case.get('name')}" if module else str(case.get("name"))


def run_tests(root: Path, name: str, tests: list[str], slow: bool, timeout: float) -> Run:
    imports = root / "imports.json"
    xml = root / "junit.xml"
    env = environment(root, imports)
    imported_from = check_imports_copy(root, env)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "_mutation_guard",
           f"--junitxml={xml}", *(["-m", "slow or not slow"] if slow else []), *tests]
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - start
    if not xml.exists():
        raise RuntimeError(f"{name}: pytest wrote no report (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    # Every dpverify module the tests imported must come from the copy.
    loaded = json.loads(imports.read_text())
    outside = {m: f for m, f in loaded.items() if f and not Path(f).resolve().is_relative_to(root.resolve())}
    if outside or not any(m.startswith("dpverify.") for m in loaded):
        raise RuntimeError(f"{name}: the tests did not run against the copy in {root}: {outside or loaded}")
    failed, messages, passed, skipped = [], {}, 0, 0
    for case in ET.parse(xml).getroot().iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            test_id = _test_id(case)
            failed.append(test_id)
            messages[test_id] = (problem.get("message") or "").strip().splitlines()[0][:300] if problem.get(
                "message") else ""
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    if proc.returncode != 0 and not failed:
        raise RuntimeError(f"{name}: pytest exited {proc.returncode} without failed tests:\n{proc.stdout[-3000:]}\n"
                           f"{proc.stderr[-3000:]}")
    return Run(name, proc.returncode, failed, passed, skipped, seconds, messages, imported_from)


def _short(test_id: str) -> str:
    """``test_audit_validity.py::test_calibration[rr]`` -> ``calibration[rr]`` (other files keep their name)."""
    return test_id.replace("test_audit_validity.py::", "").replace("test_audit_validity_", "").replace(
        "::test_", "::").removeprefix("test_")


def table(runs: list[Run], width: int = 72) -> str:
    """One row per run: bug, the tests that failed (wrapped at ``width``), caught, tests passed, time."""
    rows = [("bug", "tests failed", "caught", "passed", "time")]
    for run in runs:
        caught = ("-- (must pass)" if not run.failed else "FAILED") if run.name == "none" else (
            "yes" if run.failed else "NO")
        failed = textwrap.wrap(", ".join(_short(t) for t in run.failed) or "none", width, break_on_hyphens=False)
        rows.append((run.name, failed[0], caught, f"{run.passed}", f"{run.seconds:.1f} s"))
        rows.extend(("", more, "", "", "") for more in failed[1:])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [" | ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    return "\n".join(lines)


def choose_bugs(parser: argparse.ArgumentParser, names: str, bugs) -> list:
    """The bugs named in the comma-separated ``names``, in that order; an unknown name is a usage error (exit 2)
    listing the known ones. Shared by the mutation scripts."""
    by_name = {b.name: b for b in bugs}
    unknown = [n for n in names.split(",") if n and n not in by_name]
    if unknown:
        parser.error(f"unknown bug(s) {unknown}; known: {sorted(by_name)}")
    return [by_name[n] for n in names.split(",") if n]


def run_copies(chosen: list, prepare, *, prefix: str, slow: bool, timeout: float, keep: bool) -> list[Run] | int:
    """Run the tests on the unmutated copy, then on one copy per bug of ``chosen``; ``prepare(root, bug)`` makes a copy
    and returns its test paths. Returns the runs, or an exit status: 3 when a patch did not apply, 2 when the
    unmutated copy fails its own tests (the table would be meaningless). Shared by the mutation scripts."""
    runs: list[Run] = []
    base = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        for bug in [None, *chosen]:
            name = "none" if bug is None else bug.name
            root = base / name
            root.mkdir()
            try:
                tests = prepare(root, bug)
            except PatchError as exc:
                print(f"PATCH DID NOT APPLY: {exc}", file=sys.stderr)
                return 3
            print(f"[{name}] {'unmutated copy' if bug is None else bug.description} ...", flush=True)
            run = run_tests(root, name, tests, slow, timeout)
            runs.append(run)
            print(f"[{name}] {len(run.failed)} failed, {run.passed} passed, {run.skipped} skipped in "
                  f"{run.seconds:.1f} s (dpverify imported from {run.imported_from})", flush=True)
            if bug is None and (run.failed or run.returncode != 0):
                print(table(runs))
                for test_id, message in run.messages.items():
                    print(f"  {test_id}: {message}")
                print("the UNMUTATED copy fails its tests: the table would be meaningless", file=sys.stderr)
                return 2
    finally:
        if keep:
            print(f"copies kept in {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    return runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--slow", action="store_true", help="also run the @pytest.mark.slow validity tests")
    parser.add_argument("--bugs", default=",".join(b.name for b in BUGS),
                        help="comma-separated bugs to apply (default: all): " + ", ".join(b.name for b in BUGS))
    parser.add_argument("--keep", action="store_true", help="keep the temporary copies and print where they are")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds allowed per pytest run")
    args = parser.parse_args(argv)
    chosen = choose_bugs(parser, args.bugs, BUGS)

    runs = run_copies(chosen, prepare, prefix="dpverify-mutation-", slow=args.slow, timeout=args.timeout,
                      keep=args.keep)
    if isinstance(runs, int):
        return runs

    return report(runs, f"Mutation test of the auditor ({'default + slow' if args.slow else 'default'} validity "
                        f"tests: tests/{TEST_GLOB})")


if __name__ == "__main__":
    sys.exit(main())
