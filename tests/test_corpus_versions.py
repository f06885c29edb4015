"""The corpus by version (issue 37, section 3): each case run on its own releases, each in a throwaway environment.

Nothing is downloaded: the releases are the toy library's wheels (:mod:`toy_wheels`: ``dpv-toylib`` 1.6.0 to 1.10.0
draw a quarter of the noise, 1.11.0 fixes it, 1.3.0 fails to import), installed with ``--find-links`` into a cache
under ``tmp_path`` (``isolation="target"``). The check reads the noise scale from 4,000 draws (sd 1.6% of the scale;
the defect's 0.25 and the correct 1 are 30 sd from the cut at 0.5), so every verdict is deterministic.

Which bug fails which test: a run that compares with the wrong expectation (an ``affected`` range read inclusively
at its open end), a run that trusts the installed copy (``imported``), an install failure or an erroring release
counted as agreeing, a corpus case whose versions contradict themselves accepted at construction, and the CLI's
exit status ignoring a disagreement.
"""
from __future__ import annotations

import json

import pytest

from dpverify.interfaces.cli import main
from dpverify.libraries import corpus
from dpverify.libraries.corpus.model import CorpusCase
from dpverify.libraries.corpus.versions import check_spec, disagreements, run_by_version
from toy_wheels import CHECK, LIBRARY, RELEASES, wheel


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus-versions")
    wheels = root / "wheels"
    wheels.mkdir()
    for version, factor in RELEASES.items():
        wheel(wheels, version, factor)
    (root / "toy_check.py").write_text(CHECK)
    return {"wheels": wheels, "check_dir": root, "cache": root / "cache"}


def _in_release(module: str, name: str):
    """A check that lives in ``module`` (importable only beside the release: it imports dpv_toylib), as a case
    names it; calling it here is a bug."""
    def check() -> dict:
        raise AssertionError("this check runs in the release's process only")

    check.__module__, check.__qualname__ = module, name
    return check


def _case(toy, affected: str, releases: tuple[str, ...], fixed_in: str | None = "1.11.0") -> CorpusCase:
    return CorpusCase("dpv-toylib#1", LIBRARY, "a quarter of the Laplace noise", ("https://example.invalid/1",),
                      "fixed in 1.11.0", "library", _in_release("toy_check", "scale_check"), affected=affected,
                      fixed_in=fixed_in,
                      method="exact", datasets="[0]*5 vs [1]+[0]*4", releases=releases)


def test_each_release_gives_the_verdict_its_range_predicts(toy):
    case = _case(toy, ">=1.6.0,<1.11.0", ("1.5.0", "1.6.0", "1.10.0", "1.11.0"))
    rows = run_by_version([case], cache_root=toy["cache"], find_links=toy["wheels"],
                          python_path=[str(toy["check_dir"])])
    assert [(r.version, r.expected, r.observed, r.imported) for r in rows] == [
        ("1.5.0", "good", "good", "1.5.0"), ("1.6.0", "bad", "bad", "1.6.0"), ("1.10.0", "bad", "bad", "1.10.0"),
        ("1.11.0", "good", "good", "1.11.0")]
    assert not disagreements(rows) and all(r.to_dict()["agrees"] for r in rows)


def test_a_wrong_range_and_a_broken_release_are_disagreements(toy):
    """The range ends one release early (1.10.0 still has the defect) and 1.3.0 cannot be imported: both are
    reported, neither counts as agreeing."""
    case = _case(toy, ">=1.6.0,<1.10.0", ("1.3.0", "1.9.0", "1.10.0"), fixed_in="1.10.0")
    rows = run_by_version([case], cache_root=toy["cache"], find_links=toy["wheels"],
                          python_path=[str(toy["check_dir"])])
    assert [(r.version, r.expected, r.observed, r.agrees) for r in rows] == [
        ("1.3.0", "good", "error", False), ("1.9.0", "bad", "bad", True), ("1.10.0", "good", "bad", False)]
    assert "newer numpy" in rows[0].detail
    assert [r.version for r in disagreements(rows)] == ["1.3.0", "1.10.0"]


def test_a_release_that_does_not_exist_is_an_error_row(toy):
    case = _case(toy, ">=1.6.0,<1.11.0", ("1.7.5",))
    (row,) = run_by_version([case], cache_root=toy["cache"], find_links=toy["wheels"])
    assert (row.observed, row.agrees) == ("error", False) and "could not install dpv-toylib==1.7.5" in row.detail


def test_the_cli_runs_the_corpus_by_version_and_fails_on_a_disagreement(toy, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("PYTHONPATH", str(toy["check_dir"]))
    good = _case(toy, ">=1.6.0,<1.11.0", ("1.7.0", "1.11.0"))
    monkeypatch.setattr(corpus, "CASES", (good,))
    args = ["audit-library", "corpus", "--by-version", "--find-links", str(toy["wheels"]), "--cache",
            str(toy["cache"]), "--report", str(tmp_path)]
    assert main([*args, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert [(r["version"], r["observed"], r["agrees"]) for r in payload["corpus_by_version"]] == [
        ("1.7.0", "bad", True), ("1.11.0", "good", True)]
    assert json.loads((tmp_path / "corpus-by-version.json").read_text()) == payload
    wrong = _case(toy, ">=1.6.0,<1.7.0", ("1.7.0",), fixed_in="1.7.0")
    monkeypatch.setattr(corpus, "CASES", (wrong,))
    assert main(args) == 1
    assert "expected good, observed bad" in capsys.readouterr().out


def test_by_version_is_refused_outside_the_corpus(capsys):
    assert main(["audit-library", "diffprivlib", "--by-version"]) == 2
    assert "apply to LIBRARY corpus only" in capsys.readouterr().err


def test_a_corpus_case_runs_by_id_and_a_test_case_by_its_function(toy):
    assert check_spec(corpus.CASES[0]) == corpus.CASES[0].id
    assert check_spec(_case(toy, ">=1.6.0", ("1.7.0",), None)) == "toy_check:scale_check"


@pytest.mark.parametrize("fields, match", [
    ({"method": "vibes"}, "method must be one of"),
    ({"kind": "rumour"}, "kind must be one of"),
    ({"affected": "1.6 to 1.10"}, "PEP 440 specifier"),
    ({"affected": ">=1.6", "fixed_in": "1.7"}, "lies inside affected"),
    ({"releases": ("1.7",)}, "need the affected range"),
    ({"affected": ">=1.6", "releases": ("one",)}, "not a release version"),
    ({"isolation": "docker"}, "isolation must be"),
])
def test_a_case_whose_versions_contradict_themselves_is_refused(fields, match):
    base = dict(id="x#1", library="x", title="t", refs=(), upstream_status="", kind="library", check=dict)
    with pytest.raises(ValueError, match=match):
        CorpusCase(**{**base, **fields})


def test_bisect_of_a_corpus_case_defaults_known_bad_to_its_affected_release(toy, monkeypatch, capsys):
    """Both ends of 1.0.0..1.15.0 are good; the case's own affected release (1.9.0) is used as known bad, so one
    command finds where the defect came in (1.6.0) and where it went (1.11.0) without --known-bad."""
    monkeypatch.setenv("PYTHONPATH", str(toy["check_dir"]))
    case = _case(toy, ">=1.6.0,<1.11.0", ("1.9.0", "1.11.0"))
    monkeypatch.setattr(corpus, "CASES", (case,))
    code = main(["bisect", LIBRARY, case.id, "--versions", "1.0.0..1.15.0", "--isolation", "target", "--find-links",
                 str(toy["wheels"]), "--cache", str(toy["cache"]), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert (code, out["first_bad"], out["first_good"]) == (0, "1.6.0", "1.11.0"), out["note"]
