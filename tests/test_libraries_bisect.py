"""``dpverify bisect``: the release that brought a defect in and the one that fixed it (issue 37, section 4).

Nothing is downloaded: each test builds its own wheels of a toy DP library, ``dpv-toylib`` (a Laplace count), with
16 releases 1.0.0 ... 1.15.0: 1.6.0 to 1.10.0 draw a quarter of the noise their epsilon needs (true epsilon 4 for a
claimed 1), 1.11.0 fixes it, and 1.3.0 ships a module that fails to import. The releases are installed with
``pip --no-index --find-links`` into a cache under ``tmp_path``: with ``isolation="target"`` (the release's code over
this environment: seconds) for the searches, and once with ``isolation="venv"`` (an environment per release, its
dependencies resolved with dpverify's: what the CLI does by default) to show that path works end to end. Two checks, written next to the wheels:

- ``toy_check:check`` audits the count on the pair ``[0]*5`` / ``[1] + [0]*4`` with dpverify's statistical audit at
  20,000 samples per side: at a true epsilon of 4 against a claim of 1 it certifies about 3 (a violation, "bad"), on a
  correct release below 1 ("good") -- far from the boundary at this budget, so deterministic at the fixed seed; each
  run imports the auditor (seconds), so it is run on two releases only;
- ``toy_check:scale_check`` reads the noise scale from 4,000 draws (mean absolute value, sd 1.6% of the scale): below
  half of 1/epsilon is "bad" (the defect's 0.25 and the correct 1 are 30 sd from the cut); it imports numpy only, so
  the searches use it (a check of the search, not of the audit).

Which bug fails which test: a search that trusts the installed copy instead of the release (the ``imported`` check),
an off-by-one in the boundary search (the exact first_bad / first_good), a search that does not skip an erroring
release, or bad input that is not refused with a clear message.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dpverify.libraries.bisect import (Release, ReleaseCache, available_releases, bisect_versions, run_check,
                                       select_releases)

from toy_wheels import CHECK, LIBRARY, RELEASES, wheel as _wheel


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    root = tmp_path_factory.mktemp("bisect")
    wheels = root / "wheels"
    wheels.mkdir()
    for version, factor in RELEASES.items():
        _wheel(wheels, version, factor)
    (root / "toy_check.py").write_text(CHECK)
    return {"wheels": wheels, "check_dir": root, "cache": ReleaseCache(root / "cache", isolation="target", find_links=wheels)}


def _bisect(toy, spec: str, **kw):
    releases = select_releases(spec, available_releases(LIBRARY, find_links=toy["wheels"]))
    return bisect_versions(LIBRARY, "toy_check:scale_check", releases, cache=toy["cache"],
                           python_path=[toy["check_dir"]], **kw)


def test_releases_are_listed_and_selected_in_version_order(toy):
    available = available_releases(LIBRARY, find_links=toy["wheels"])
    assert available == list(RELEASES)  # 1.10.0 after 1.9.0: versions, not strings
    assert select_releases("1.8.0..1.11.0", available) == ["1.8.0", "1.9.0", "1.10.0", "1.11.0"]
    assert select_releases("..1.1.0", available) == ["1.0.0", "1.1.0"]
    assert select_releases("1.5.0,1.0.0", available) == ["1.0.0", "1.5.0"]


@pytest.mark.parametrize("spec, match", [("1.0.0..9.9.9", "9.9.9 does not exist"), ("1.3.0..1.0.0", "reversed"),
                                         ("1.2.0..1.2.0", "at least two"), ("1.1.5..1.2.0", "1.1.5 does not exist"), ("1.0.0,banana", "release version"),
                                         ("", "A..B")])
def test_bad_version_specs_are_clear_errors(toy, spec, match):
    with pytest.raises(ValueError, match=match):
        select_releases(spec, available_releases(LIBRARY, find_links=toy["wheels"]))


def test_an_unknown_library_is_a_clear_error(toy):
    with pytest.raises(ValueError, match="no release of 'no-such-dp-lib'"):
        available_releases("no-such-dp-lib", find_links=toy["wheels"])
    with pytest.raises(ValueError, match="distribution name"):
        available_releases("not a name!", find_links=toy["wheels"])


def test_the_check_runs_against_the_release_not_the_installed_copy(toy):
    """The statistical audit, run in the release's process: 1.7.0 is flagged, 1.2.0 is not."""
    bad = run_check("toy_check:check", LIBRARY, toy["cache"].install(LIBRARY, "1.7.0"), python_path=[toy["check_dir"]])
    good = run_check("toy_check:check", LIBRARY, toy["cache"].install(LIBRARY, "1.2.0"),
                     python_path=[toy["check_dir"]])
    assert (bad.verdict, bad.imported, good.verdict, good.imported) == ("bad", "1.7.0", "good", "1.2.0")
    assert bad.certified > 2.0 > 1.0 > good.certified  # true epsilon 4 vs 1 (module docstring)
    broken = run_check("toy_check:scale_check", LIBRARY, toy["cache"].install(LIBRARY, "1.3.0"),
                       python_path=[toy["check_dir"]])
    assert broken.verdict == "error" and "newer numpy" in broken.detail


def test_bisect_finds_where_the_defect_came_in_and_where_it_was_fixed(toy):
    """Both ends good, the report's release 1.9.0 known bad: two searches give 1.6.0 (in) and 1.11.0 (fixed)."""
    result = _bisect(toy, "1.0.0..1.15.0", known_bad="1.9.0")
    assert (result.first_bad, result.first_good) == ("1.6.0", "1.11.0"), result.to_dict()
    verdicts = {s.version: s.verdict for s in result.steps}
    assert all(verdicts[v] == ("bad" if RELEASES[v] == 0.25 else "error" if RELEASES[v] is None else "good")
               for v in verdicts)
    assert len(result.steps) < len(RELEASES)  # a search, not a scan
    table = [s.version for s in result.table()]
    assert table == sorted(table, key=list(RELEASES).index)
    assert json.loads(json.dumps(result.to_dict()))["first_good"] == "1.11.0"


def test_bisect_with_one_bad_end(toy):
    fixed = _bisect(toy, "1.7.0..1.15.0")
    assert (fixed.first_bad, fixed.first_good) == ("1.7.0", "1.11.0")
    came_in = _bisect(toy, "1.0.0..1.8.0")  # the search meets 1.3.0, which does not import, and steps past it
    assert (came_in.first_bad, came_in.first_good) == ("1.6.0", None) and "came in with 1.6.0" in came_in.note
    neither = _bisect(toy, "1.11.0..1.15.0")
    assert (neither.first_bad, neither.first_good) == (None, None) and "neither end" in neither.note


def test_the_cli_prints_the_table_and_refuses_bad_input(toy):
    base = [sys.executable, "-m", "dpverify", "bisect", LIBRARY, "toy_check:scale_check", "--find-links",
            str(toy["wheels"]), "--cache", str(toy["cache"].root), "--python-path", str(toy["check_dir"]),
            "--isolation", "target"]
    done = subprocess.run(base + ["--versions", "1.7.0..1.15.0", "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["first_bad"], out["first_good"]) == ("1.7.0", "1.11.0")
    table = subprocess.run(base + ["--versions", "1.9.0..1.12.0"], capture_output=True, text=True)
    assert table.returncode == 0 and "first bad 1.9.0, first good 1.11.0" in table.stdout
    bad = subprocess.run(base + ["--versions", "1.0.0..7.0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "7.0 does not exist" in bad.stderr and "Traceback" not in bad.stderr
    case = subprocess.run([sys.executable, "-m", "dpverify", "bisect", "diffprivlib", "no_such_case", "--versions",
                           "0.6.0..0.6.4"], capture_output=True, text=True)
    assert case.returncode == 2 and "no corpus case 'no_such_case'" in case.stderr


def test_a_release_in_its_own_environment(toy, tmp_path):
    """isolation="venv": a fresh environment per release, the release installed by pip from local wheels only
    (--no-index), dpverify put on its path by a .pth file, the environment moved into place after it was built; the
    check runs with that environment's interpreter and sees the release. Nothing is downloaded: the release is a
    pure-Python build of dpv-toylib 2.0.0 (the defect, drawn with the standard library), and dpverify's own
    requirements are left out (``dpverify_requirements=False``: the check does not import dpverify's numerics)."""
    wheelhouse = tmp_path / "wheelhouse"
    wheelhouse.mkdir()
    _wheel(wheelhouse, "2.0.0", 0.25, pure=True)
    cache = ReleaseCache(tmp_path / "cache", isolation="venv", find_links=wheelhouse, dpverify_requirements=False)
    release = cache.install(LIBRARY, "2.0.0")
    assert isinstance(release, Release) and release.python != sys.executable and release.path == ()
    assert not any(p.name.endswith("-building") for p in release.directory.parent.iterdir())
    step = run_check("toy_check:pure_check", LIBRARY, release, python_path=[toy["check_dir"]])
    assert (step.verdict, step.imported) == ("bad", "2.0.0"), step
    assert cache.install(LIBRARY, "2.0.0") == release  # cached: the second call installs nothing
    with pytest.raises(RuntimeError, match="pip could not install dpv-toylib==2.1.0"):
        cache.install(LIBRARY, "2.1.0")  # no such wheel: a clear error, and no half-built environment left behind
    assert not (tmp_path / "cache" / "venv" / LIBRARY / "2.1.0").exists()
