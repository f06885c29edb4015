"""`dpverify verify`, `dpverify audit` and the report writer."""
import json

import pytest

from dpverify.cli import main
from dpverify.report import write_atomic
from dpverify.suite import get_case, run_case, select


def test_verify_subset_passes_and_writes_report(tmp_path, capsys):
    status = main(["verify", "--only", "laplace_mechanism", "--report", str(tmp_path), "--seed", "3"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "laplace_mechanism" in out and "PASS" in out
    data = json.loads((tmp_path / "report.json").read_text())
    (row,) = data["audits"]
    assert row["case"] == "laplace_mechanism" and row["audit"]["seed"] == 3
    assert row["audit"]["epsilon_lower"] <= row["audit"]["epsilon_exact"] <= row["audit"]["epsilon_claimed"]
    html = (tmp_path / "report.html").read_text()
    assert html.startswith("<!doctype html>") and "data:image/png;base64," in html
    assert not list(tmp_path.glob(".report*"))  # no temporary files left


def test_verify_exit_status_is_one_when_an_audit_violates(capsys):
    # Claim eps = 0.2 for a Laplace mechanism whose exact epsilon is 1: a violation, so exit 1.
    res = run_case("laplace_mechanism", budget=20_000, seed=0, epsilon=0.2)
    assert res.verdict == "violation"
    assert main(["audit", "laplace_mechanism", "--epsilon", "0.2"]) == 1


def test_audit_json_has_the_documented_keys(capsys):
    assert main(["audit", "laplace_mechanism", "--samples", "5000", "--json", "--param", "epsilon=2.0"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("epsilon_lower", "epsilon_claimed", "epsilon_exact", "verdict", "samples", "confidence"):
        assert key in out
    assert out["epsilon_claimed"] == 2.0 and out["samples"] == 5000


def test_audit_errors_are_clear(capsys):
    assert main(["audit", "no_such_sampler"]) == 2
    assert "no audit case 'no_such_sampler'" in capsys.readouterr().err
    assert main(["audit", "laplace_mechanism", "--param", "epsilon=-1"]) == 2
    assert "epsilon" in capsys.readouterr().err


def test_suite_selection_and_budgets():
    assert [c.id for c in select("laplace_mech*")] == ["laplace_mechanism"]
    assert {c.id for c in select("laplace")} == {"laplace_mechanism", "laplace_posterior_beta_bernoulli"}
    case = get_case("laplace_mechanism")
    assert case.samples("quick") == 20_000 and case.samples(123) == 123
    with pytest.raises(ValueError, match="budget must be one of"):
        case.samples("huge")


def test_atomic_write_replaces_whole_file(tmp_path):
    target = tmp_path / "r.json"
    write_atomic(target, b"old")
    write_atomic(target, b"new content")
    assert target.read_bytes() == b"new content"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_every_registered_sampler_has_an_audit_case_and_an_audit_module():
    """The audit suite covers every reference sampler (issue 5: one audit per sampler)."""
    from pathlib import Path

    from dpverify.samplers import registry

    case_ids = {c.id for c in select(None)}
    sampler_ids = {cls.id for cls in registry.all_samplers()}
    assert sampler_ids <= case_ids, sorted(sampler_ids - case_ids)
    audits = Path(__file__).resolve().parent.parent / "audits"
    missing = [i for i in sampler_ids if not (audits / f"test_{i}.py").exists()]
    assert not missing, missing


def test_tradeoff_curve_is_recorded_and_monotone():
    res = run_case("laplace_mechanism", budget=5_000, seed=1)
    t = res.audit.tradeoff
    assert len(t["alpha"]) == len(t["beta"]) >= 3
    # as the threshold rises, type I error falls and type II error rises
    assert all(a >= b for a, b in zip(t["alpha"], t["alpha"][1:]))
    assert all(a <= b for a, b in zip(t["beta"], t["beta"][1:]))


def test_report_handles_huge_claims(tmp_path):
    """A theorem may claim epsilon in the thousands (Bertazzi Thm 5.2 for ULA's final state): no overflow."""
    from dpverify.report import write_report

    res = run_case("ula_final", budget=2_000, seed=0)
    assert res.audit.epsilon_claimed > 700
    paths = write_report(tmp_path, [], [res], paper_figures=False)
    assert all(p.exists() for p in paths)
