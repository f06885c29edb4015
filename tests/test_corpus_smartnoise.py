"""The SmartNoise corpus cases (:mod:`dpverify.libraries.corpus.smartnoise_bugs`) on the installed SmartNoise.

Marker ``smartnoise_sql`` (excluded from the default run), in the environment of its own that ``.ci/run`` builds:
smartnoise-sql (it pins an older OpenDP than the main environment's), smartnoise-synth installed without its
dependencies (the checks load the one module they test from its directory) and torch (PATE-GAN's accountant
imports it). The libraries are imported by an autouse fixture: a missing one makes every test here FAIL (an
ImportError or PackageNotFoundError), never skip; the default run, which deselects the marker, still collects this
file where SmartNoise is not installed (a module-level ``import snsql`` would break that collection, as in
``tests/test_libraries_smartnoise_sql.py``). Each check's status must be the verdict its case's ``affected`` range
gives the installed version.
"""
from __future__ import annotations

import importlib
import importlib.util
from importlib.metadata import version

import pytest

from dpverify.libraries.corpus import find, run_case

pytestmark = pytest.mark.smartnoise_sql

DISTRIBUTION = {"smartnoise#621": "smartnoise-sql", "smartnoise#574": "smartnoise-sql",
                "smartnoise-pr580": "smartnoise-sql", "smartnoise#622": "smartnoise-synth",
                "smartnoise#596": "smartnoise-synth"}


@pytest.fixture(autouse=True)
def _smartnoise_installed() -> None:
    """smartnoise-sql, smartnoise-synth and torch must be importable: otherwise the test fails here."""
    importlib.import_module("snsql")
    importlib.import_module("torch")
    version("smartnoise-synth")
    assert importlib.util.find_spec("snsynth") is not None


@pytest.mark.parametrize("case_id", sorted(DISTRIBUTION))
def test_check_matches_the_installed_version(case_id: str) -> None:
    case = find(case_id)
    assert case.pip_name == DISTRIBUTION[case_id]
    installed = version(case.pip_name)
    out = case.check()
    assert out["version"] == installed
    expected = case.expected(installed)
    assert out["status"] == ("reproduced" if expected == "bad" else "fixed"), out["detail"]
    row = run_case(case)
    assert row.status == out["status"] and row.agrees is True


def test_odometer_reports_at_most_theorem_3_4_on_a_fixed_release() -> None:
    """smartnoise#621 on a release with PR #624 (1.0.7 and later): the odometer's epsilon is Thm 3.4's (11.88 for
    400 queries of 0.1 at tol 5e-6, below the unfixed 12.16 and above the exact optimum 10.24)."""
    out = find("smartnoise#621").check()
    if find("smartnoise#621").expected(version("smartnoise-sql")) == "good":
        assert out["reported"] == pytest.approx(out["theorem_3_4"], rel=1e-9)
    else:
        assert out["reported"] > out["theorem_3_4"] * (1 + 1e-6)
    assert out["exact"] < out["theorem_3_4"]


@pytest.mark.parametrize("case_id", ["smartnoise#574", "smartnoise-pr580"])
def test_approx_bounds_replay_records_every_noisy_count(case_id: str) -> None:
    """smartnoise#574, PR #580: the replay sees all 128 bin counts on D (64 negative, 64 positive power-of-two
    bins); on a fixed release nothing is flagged, on an affected one the exception on D' is."""
    out = find(case_id).check()
    assert out["calls"] == 128
    if out["status"] == "fixed":
        assert out["flags"] == []
    else:
        assert any(f.startswith("control_flow") for f in out["flags"])


def test_covariance_moves_within_the_declared_sensitivity_only_when_clipped() -> None:
    """smartnoise#622: declared sensitivity 2 / 50 = 0.04; the clipped covariance moves by < 0.01 (one row of 50
    in [0, 1] replaced), the unclipped one by ~198 (a row at (100, 100))."""
    out = find("smartnoise#622").check()
    assert out["declared_sensitivity"] == pytest.approx(0.04)
    if out["status"] == "fixed":
        assert out["moved"] < 0.01
    else:
        assert out["moved"] > 100.0


def test_pate_accountant_epsilon_exceeds_the_papers() -> None:
    """smartnoise#596 (open in every release): the library's epsilon (25.4) is 5x Algorithm 1's (5.03)."""
    out = find("smartnoise#596").check()
    assert out["status"] == "reproduced"
    assert out["epsilon_library"] > 4 * out["epsilon_paper"] > 0
