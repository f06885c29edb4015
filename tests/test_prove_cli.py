"""``dpverify prove`` from the command line (issue 35): items, certificates and their re-check, --drop/--box, the
hypothesis findings, --check, JSON, exit statuses and usage errors.

Which bug would make these fail: a certificate written but not re-checked (or re-checked against another file), an
exit status that ignores a refutation, a --box that is not applied, --drop that leaves the hypothesis in, a usage
error that becomes a traceback.
"""
from __future__ import annotations

import json

import pytest

from dpverify.interfaces.cli import main


def run(capsys, *argv):
    status = main(list(argv))
    out = capsys.readouterr()
    return status, out.out, out.err


def test_an_item_is_proved_with_a_certificate_that_re_checks(capsys, tmp_path):
    cert = tmp_path / "thm2.json"
    status, out, _ = run(capsys, "prove", "wang2015.thm2_gaussian_mechanism", "--certificate", str(cert))
    assert status == 0
    assert "wang2015.thm2_gaussian_mechanism: proved" in out and "re-checked: valid" in out
    assert "delta: >= 1e-300" in out  # the declared limit is stated
    data = json.loads(cert.read_text())
    assert data["outcome"] == "proved" and data["problem"]["statement"] == "wang2015.thm2_gaussian_mechanism[delta]"
    status, out, _ = run(capsys, "prove", "--check", str(cert))
    assert status == 0 and "certificate valid" in out
    data["tree"][1] = ["E", "0", "1"] if data["tree"][1][0] != "E" else ["S", 1, "1/2"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    status, out, _ = run(capsys, "prove", "--check", str(bad))
    assert status == 1 and "INVALID" in out


def test_dropping_a_hypothesis_refutes_the_classic_gaussian_quickly(capsys):
    status, out, _ = run(capsys, "prove", "wang2015.thm2_gaussian_mechanism", "--drop", "epsilon_below_one",
                         "--box", "epsilon=0:20", "--json")
    assert status == 1  # a statement of one's own is held to "proved"
    row = json.loads(out)
    assert row["outcome"] == "refuted"
    part = row["parts"][0]
    assert part["dropped"] == ["epsilon_below_one"]
    assert 1 <= part["witness_float"]["epsilon"] <= 20
    assert float(part["comparator_at_witness"]) > float(part["claimed_at_witness"])
    assert part["seconds"] < 1.0  # issue 35: the widened classic Gaussian refuted in under 1 s


def test_a_box_outside_the_hypotheses_is_not_a_proof(capsys):
    status, out, _ = run(capsys, "prove", "wang2015.thm2_gaussian_mechanism", "--box", "epsilon=1:20")
    assert status == 1 and "vacuously" in out and "undecided" in out


def test_hypothesis_findings(capsys):
    status, out, _ = run(capsys, "prove", "wang2015.lem4_subsampling", "--hypotheses", "--json")
    assert status == 0
    row = json.loads(out)
    findings = {f["hypothesis"]: f for f in row["hypotheses"]}
    assert findings["epsilon_below_one"]["verdict"] == "needed"
    w = findings["epsilon_below_one"]["witness_float"]
    assert 1 < w["epsilon"] < 20
    assert findings["gamma_at_most_one"]["verdict"] == "definitional"


@pytest.mark.parametrize("argv, message", [
    (["prove"], "give catalogue IDs"),
    (["prove", "nosuch.item"], "no theorem with ID"),
    (["prove", "wang2015.def1_dp"], "states no privacy bound"),
    (["prove", "wang2015.thm2_gaussian_mechanism", "--box", "epsilon=1"], "NAME=LO:HI"),
    (["prove", "wang2015.thm2_gaussian_mechanism", "--box", "epsilon=2:1"], "reversed"),
    (["prove", "wang2015.thm2_gaussian_mechanism", "--box", "epsilon=nan:1"], "finite"),
    (["prove", "wang2015.thm2_gaussian_mechanism", "--box", "epsilon=-1:1"], "positive"),
    (["prove", "wang2015.thm2_gaussian_mechanism", "--box", "gamma=0:1"], "no parameter gamma"),
    (["prove", "wang2015.thm2_gaussian_mechanism", "--drop", "nosuch"], "no hypothesis nosuch"),
    (["prove", "--all", "wang2015.thm2_gaussian_mechanism"], "not both"),
    (["prove", "--check", "x.json", "--all"], "--check takes certificate files only"),
])
def test_usage_errors_name_the_argument(capsys, argv, message):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert message in err and "Traceback" not in err


def test_theorems_show_reports_the_shipped_proof(capsys):
    from dpverify.prove import shipped

    if shipped.item("wang2015.lem4_subsampling") is None:  # pragma: no cover - the index must ship
        pytest.fail("dpverify/prove/shipped/index.json is missing: run python -m dpverify.prove.ship")
    status, out, _ = run(capsys, "theorems", "show", "wang2015.lem4_subsampling")
    assert status == 0
    assert "Proof (dpverify prove; shipped certificates re-checked):" in out
    assert "[epsilon] proved on epsilon in [0, 1], gamma in [0, 1]" in out and "[certificate valid]" in out
