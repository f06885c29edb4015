"""`dpverify verify`, `dpverify audit` and the report writer."""
import dataclasses
import json
import re

import pytest

from dpverify.interfaces.cli import main
from dpverify.interfaces.report import write_atomic
from dpverify.interfaces.suite import get_case, run_case, select


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
    """The audit suite covers every reference sampler (issue 5: one audit per sampler): each sampler is audited by
    a case, and by its own module audits/test_<id>.py -- or, for a deliberately broken sampler whose cases are all
    marked ``known_bad``, by audits/test_known_bad_gradient.py."""
    from pathlib import Path

    from dpverify.samplers import registry

    audits = Path(__file__).resolve().parent.parent / "audits"
    by_sampler: dict = {}
    for c in select(None):
        by_sampler.setdefault(c.sampler, []).append(c)
    sampler_ids = {cls.id for cls in registry.all_samplers()}
    assert sampler_ids <= set(by_sampler), sorted(sampler_ids - set(by_sampler))
    missing = []
    for i in sampler_ids:
        known_bad = all(getattr(c, "known_bad", False) for c in by_sampler[i])
        module = audits / ("test_known_bad_gradient.py" if known_bad else f"test_{i}.py")
        if not module.exists():
            missing.append(module.name)
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
    from dpverify.interfaces.report import write_report

    res = run_case("ula_final", budget=2_000, seed=0)
    assert res.claim.epsilon > 700  # the audit tests the release's exact epsilon; the claim is shown beside it
    res.audit = dataclasses.replace(res.audit, epsilon_claimed=res.claim.epsilon)  # and a claim tested as it is
    paths = write_report(tmp_path, [], [res], paper_figures=False)
    assert all(p.exists() for p in paths)


# -- selection and honest verdicts (issue 14, section 4) ------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["--only", "no_such_thing_anywhere"], "--only 'no_such_thing_anywhere' matches no theorem or audit case"),
    (["--paper", "li2019", "--only", "laplace"], "--only 'laplace' and --paper 'li2019' matches no theorem or audit"),
    (["--paper", "nope2020"], "--paper must be one of wang2015, li2019, bertazzi2025, foulds2016, balle2018, chourasia2021, "
                               "geumlek2017, ponnoprat2022, yildirim2019, raisa2021, heikkila2019, minami2016, gopi2022, "
                               "bok2024, heller2023, annamalai2024, cebere2025; got 'nope2020'"),
    (["--no-theorems", "--no-audits"], "--no-theorems and --no-audits together leave nothing to verify"),
    (["--no-theorems", "--only", "thm4_dp_sgld"], "matches no audit case"),
    (["--workers", "0"], "argument --workers: must be an integer in [1, 1024]; got '0'"),
])
def test_empty_or_bad_selection_is_an_error(capsys, argv, message):
    assert main(["verify", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_paper_restricts_theorems_and_audits(monkeypatch, capsys):
    import dpverify.interfaces.cli.verify as verify_cli

    thms, cases = verify_cli.select(None, "foulds2016")
    assert thms and {t.paper for t in thms} == {"foulds2016"}
    assert {c.id for c in cases} >= {"laplace_mechanism", "private_gibbs"}
    assert "dp_sgld_wang" not in {c.id for c in cases} and "analytic_gaussian_mechanism" not in {c.id for c in cases}
    thms, cases = verify_cli.select("laplace", "foulds2016", theorems=False)
    assert thms == [] and {c.id for c in cases} == {"laplace_mechanism", "laplace_posterior_beta_bernoulli"}


def _fake_results(verdicts: dict[str, str]):
    from test_report import ULA, fake_audit, fake_case

    def job(job, progress=None):
        verdict = verdicts.setdefault(job[0], "consistent")  # cases added to the suite later count as consistent
        if verdict == "error":
            return fake_case(job[0], None, error="RuntimeError: boom")
        if job[0] == "ula_final":
            return fake_case(job[0], ULA)
        return fake_case(job[0], fake_audit(verdict=verdict, verdict_reason=f"reason of {job[0]}"))

    return job


@pytest.mark.parametrize("verdicts, status", [
    ({"ula_final": "inconclusive", "ula_path": "consistent"}, 0),
    ({"ula_final": "inconclusive", "ula_path": "violation"}, 1),
    ({"ula_final": "inconclusive", "ula_path": "error"}, 1),
])
def test_inconclusive_is_counted_apart_and_only_violations_and_errors_fail(monkeypatch, capsys, verdicts, status):
    import dpverify.interfaces.cli.verify as verify_cli

    verdicts = dict(verdicts)
    monkeypatch.setattr(verify_cli, "_run_case_job", _fake_results(verdicts))
    assert main(["verify", "--only", "ula_", "--no-theorems", "--explain"]) == status
    out = capsys.readouterr().out
    counts = {v: list(verdicts.values()).count(v) for v in ("consistent", "inconclusive", "violation", "error")}
    assert (f"audits: {counts['consistent']} consistent, {counts['inconclusive']} inconclusive at this budget, "
            f"{counts['violation']} violations, {counts['error']} errors") in out
    assert out.splitlines()[-1].startswith("PASS" if status == 0 else "FAIL")
    # the table explains itself: columns, '-' in the exact column, the loose claim, the reasons
    assert re.search(r"audit\s+claimed\s+tested\s+accountant\s+exact\s+ceiling\s+certified\s+ratio\s+verdict", out)
    assert "exact: the closed-form epsilon of the audited pair; '-' = no closed form is known" in out
    assert "ula_final: claim 4000x the exact value (4545 vs 1.135)" in out
    assert "ula_final (inconclusive): the claim 4545 is above the most any audit can certify" in out


def test_audit_command_shows_the_reason_and_every_column(capsys):
    assert main(["audit", "laplace_mechanism", "--samples", "4000", "--epsilon", "100"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"claimed\s+tested\s+accountant\s+exact\s+ceiling\s+certified\s+ratio\s+verdict", out)
    assert "verdict: inconclusive: the claim 100 is above the most any audit can certify" in out
    assert "loose claim: laplace_mechanism: claim 100x the exact value (100 vs 1)" in out


def test_audit_command_rejects_bad_budget_input(capsys):
    for argv, message in ((["--samples", "2"], "argument --samples: must be an integer in [4, 1000000000000]; got '2'"),
                          (["--confidence", "1.5"], "argument --confidence: must be a number in (0, 1); got '1.5'"),
                          (["--param", "epsilon=1", "--param", "epsilon=2"], "--param epsilon is given twice")):
        assert main(["audit", "laplace_mechanism", *argv]) == 2
        assert message in capsys.readouterr().err


def test_verify_runs_each_case_job_with_the_option_objects(monkeypatch):
    """A verify job travels as a CaseJob (it pickles, for worker processes and Dask) and reaches run_case as a
    CaseOptions and an Execution carrying the chunk progress, the backend and the sequential flag; a plain tuple of
    its fields (a checkpoint of an older run, a test's fake) is the same job."""
    import pickle

    import dpverify.interfaces.cli.verify as verify_cli
    import dpverify.interfaces.suite as suite
    from dpverify.audit import Execution
    from dpverify.cases import CaseOptions

    seen = {}

    def run_case(case, options, execution):
        seen.update(case=case, options=options, execution=execution)
        if execution.progress is not None:
            execution.progress(1, 2)
        return suite.CaseResult(case, case, {}, "", {}, None, 0.0, error="stub")

    monkeypatch.setattr(suite, "run_case", run_case)
    calls = []
    job = verify_cli.CaseJob("dp_sgld_li", 5_000, 3, "torch", "cpu", True)
    assert pickle.loads(pickle.dumps(job)) == job
    assert verify_cli._run_case_job(job, lambda d, t: calls.append((d, t)))["error"] == "stub"
    assert calls == [(1, 2)] and seen["case"] == "dp_sgld_li"
    assert seen["options"] == CaseOptions(budget=5_000, seed=3, sequential=True)
    assert isinstance(seen["execution"], Execution)
    assert (seen["execution"].backend, seen["execution"].device) == ("torch", "cpu")
    verify_cli._run_case_job(("laplace_mechanism", "quick", 0))
    assert seen["options"] == CaseOptions(budget="quick", seed=0) and seen["execution"].backend == "numpy"


def test_heartbeat_reports_long_items():
    import io

    from dpverify.interfaces.cli.progress import Progress

    stream = io.StringIO()
    p = Progress(3, "audits", stream=stream, quiet_for=0.0)
    p.start_item("dp_sgld_li")
    p.chunk_callback("dp_sgld_li")(1, 2)
    assert p.heartbeat_line().startswith("audits 0/3 done; dp_sgld_li running for ")
    assert p.heartbeat_line().endswith("1/2 sample chunks drawn")
    p.advance("dp_sgld_li", "consistent")
    assert p.heartbeat_line() is None
    p.close()


@pytest.mark.parametrize("found, status", [(True, 0), (False, 1)])
def test_known_bad_cases_pass_when_flagged_and_fail_the_run_when_missed(monkeypatch, capsys, found, status):
    # A known-bad implementation (dpverify.interfaces.suite, known_bad=True) must be a violation: found -> counted as
    # flagged, no failure; missed -> the run fails and says which one.
    import dpverify.interfaces.cli.verify as verify_cli
    from test_report import BROKEN, fake_audit, fake_case

    def job(job, progress=None):
        if job[0] == "dp_sgld_broken_half_noise":
            audit = BROKEN if found else fake_audit(verdict="inconclusive", epsilon_lower=0.2)
            return {**fake_case(job[0], audit), "known_bad": True, "passed": found}
        return fake_case(job[0], fake_audit())

    monkeypatch.setattr(verify_cli, "_run_case_job", job)
    assert main(["verify", "--only", "dp_sgld_broken_half_noise", "--no-theorems"]) == status
    out = capsys.readouterr().out
    assert "Known-bad implementations" in out and f"{int(found)}/1 flagged" in out
    assert out.splitlines()[-1].startswith("PASS" if found else "FAIL")
    assert "0 violations" not in out.splitlines()[-1] or found  # a flagged known-bad is not counted as a violation
    if not found:
        assert "NOT FLAGGED dp_sgld_broken_half_noise" in out


def test_known_bad_suite_cases_are_flagged_end_to_end(capsys):
    assert main(["verify", "--only", "dp_sgld_broken_no_noise", "--no-theorems"]) == 0
    assert "1/1 flagged" in capsys.readouterr().out
