"""`dpverify audit-library`: selection, exit status, missing libraries, the report files and the JSON rows.

Most tests run a fake library (numpy mechanisms, milliseconds) through the real command; one runs a real
diffprivlib function at the quick budget.
"""
import json
import types

import numpy as np
import pytest

from dpverify.interfaces.cli import main
from dpverify.libraries import runner
from dpverify.libraries.base import Claimed, LabelledPair, LibraryFunction


def _laplace_sum(scale_if_outlier):
    def mech(dataset, n, rng):
        x = np.asarray(dataset, dtype=float)
        scale = scale_if_outlier if (x > 10).any() else 1.0
        return np.clip(x, 0, 1).sum() + rng.laplace(scale=scale, size=n)

    return mech


PAIRS = [LabelledPair(np.zeros(4), np.array([0, 0, 0, 1.0]), "bounds:replace", "one record to the upper bound"),
         LabelledPair(np.zeros(4), np.array([0, 0, 0, 1e6]), "outlier:replace", "an outlier")]


def _fake(name, leak=False, expected=""):
    fns = [LibraryFunction(name, "9.9", "sum_ok", _laplace_sum(1.0), lambda d: Claimed(1.0, 0.0, "fake map"), PAIRS,
                           adjacency="replace", snippet=lambda d, n: "print('reproduce')")]
    if leak:
        fns.append(LibraryFunction(name, "9.9", "sum_leaky", _laplace_sum(0.1), lambda d: Claimed(1.0, 0.0, "fake"),
                                   PAIRS, adjacency="replace", expected=expected,
                                   snippet=lambda d, n: f"D = {list(d)}  # reproduce"))
    return types.SimpleNamespace(catalogue=lambda: fns, VERSION="9.9")


@pytest.fixture
def fake_libraries(monkeypatch):
    """diffprivlib -> a correct fake; opendp -> a fake with an undocumented leak; every other library -> missing."""
    def load(library):
        if library not in ("diffprivlib", "opendp") and library in runner.LIBRARIES:
            raise ImportError(f"{library} is not installed: pip install {library}")
        if library not in runner.LIBRARIES:
            raise ValueError(library)
        return _fake(library, leak=library == "opendp")

    monkeypatch.setattr(runner, "load", load)


def test_unknown_library_and_bad_options_are_usage_errors(capsys):
    assert main(["audit-library", "tensorflow-privacy"]) == 2
    assert "LIBRARY must be one of" in capsys.readouterr().err
    assert main(["audit-library", "diffprivlib", "--seed", "-1"]) == 2
    assert main(["audit-library", "diffprivlib", "--confidence", "1.5"]) == 2
    assert main(["audit-library", "diffprivlib", "--scale", "0"]) == 2


def test_scale_multiplies_the_budget():
    b = runner.BUDGETS["quick"].scaled(4)
    assert (b.search, b.final, b.min_final) == (6_400, 4_000, 800)
    assert b.for_cost(10.0) == (800, 800)  # a model fit: the floors scale too


def test_missing_library_is_listed_unavailable_not_a_traceback(fake_libraries, capsys):
    assert main(["audit-library", "opacus"]) == 2
    err = capsys.readouterr().err
    assert "opacus: unavailable" in err and "pip install opacus" in err and "Traceback" not in err


def test_only_that_matches_nothing_names_the_functions(fake_libraries, capsys):
    assert main(["audit-library", "diffprivlib", "--only", "nothing*"]) == 2
    assert "diffprivlib.sum_ok" in capsys.readouterr().err


def test_correct_library_passes_with_table(fake_libraries, capsys):
    assert main(["audit-library", "diffprivlib", "--budget", "quick"]) == 0
    out = capsys.readouterr().out
    assert "sum_ok" in out and "9.9" in out and "PASS" in out


def test_finding_fails_and_report_holds_library_rows(fake_libraries, tmp_path, capsys):
    report = tmp_path / "rep"
    # "all": opacus (and the other catalogues) are listed unavailable, two run; opendp's fake leaks undocumented -> 1
    assert main(["audit-library", "all", "--report", str(report), "--json"]) == 1
    captured = capsys.readouterr()
    rows = json.loads(captured.out)["rows"]
    assert "opacus: unavailable" in captured.err
    leaky = next(r for r in rows if r["case"] == "opendp.sum_leaky")
    assert leaky["label"] == "finding" and leaky["certified"] > 1.0 and leaky["confirm_certified"] > 1.0
    assert leaky["worst_pair"]["family"] == "outlier:replace" and "reproduce" in leaky["snippet"]
    payload = json.loads((report / "report.json").read_text())
    assert payload["settings"]["command"] == "audit-library"
    libs = {r["case"]: r for r in payload["audits"]}
    assert set(libs) == {"diffprivlib.sum_ok", "opendp.sum_ok", "opendp.sum_leaky"}
    assert all(r["version"] == "9.9" and r["claimed"]["source"] for r in libs.values())
    html = (report / "report.html").read_text()
    assert "id='libraries'" in html and "Reproduction: opendp.sum_leaky" in html


def test_expected_violation_passes(monkeypatch, capsys):
    monkeypatch.setattr(runner, "load", lambda library: _fake(library, leak=True, expected="documented leak"))
    assert main(["audit-library", "diffprivlib"]) == 0
    out = capsys.readouterr().out
    assert "expected" in out and "documented leak" in out


def test_real_diffprivlib_no_bounds_mean(capsys):
    assert main(["audit-library", "diffprivlib", "--only", "tools.mean(epsilon=1.0)", "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)["rows"]
    # the documented PrivacyLeakWarning path: quick budget, 800 estimation samples per side, saturation ~5.4
    from importlib.metadata import version

    assert row["label"] == "expected" and row["certified"] > 3.0 and row["version"] == version("diffprivlib")
