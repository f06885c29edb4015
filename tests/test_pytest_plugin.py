"""The pytest plugin, exercised in throw-away test sessions with pytester.

The mechanisms are Laplace mechanisms on a counting query (sensitivity 1). A correct one (scale 1/eps)
audited at 20,000 samples per side passes; one with a tenth of the noise has an exact epsilon of 10
times the claim, which 20,000 samples certify far above the claim (the certified bound is ~ 3 at
eps = 0.5 for this budget), so it must fail.
"""
import json

import pytest

MECHANISMS = """
import numpy as np
import pytest
from dpverify.testing import assert_dp

def laplace(scale):
    def mech(dataset, n, rng):
        return float(np.sum(dataset)) + rng.laplace(0.0, scale, size=n)
    mech.__name__ = f"laplace_scale_{scale}"
    return mech

D, D2 = np.array([1, 0, 1]), np.array([1, 1, 1])
"""


def test_passing_and_failing_audits(pytester):
    pytester.makepyfile(
        MECHANISMS
        + """
@pytest.mark.dp_audit(epsilon=0.5)
def test_correct(dp_auditor):
    result = dp_auditor(laplace(2.0), D, D2)
    assert result.verdict == "consistent"

@pytest.mark.dp_audit(epsilon=0.5)
def test_broken(dp_auditor):
    dp_auditor(laplace(0.2), D, D2)

def test_plain_helper():
    assert_dp(laplace(0.2), D, D2, epsilon=0.5, samples=20000, seed=3)
"""
    )
    result = pytester.runpytest_subprocess("--dp-samples", "20000", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=2)
    # The failure message shows the claim, the certified bound, the counts and the seed.
    result.stdout.fnmatch_lines(
        [
            "*is not (0.5, 0)-DP on this pair: certified epsilon lower bound * > claimed epsilon 0.5*",
            "*counts: * of * outputs on the dataset and * of * on the neighbour*",
            "*seed: 3 (rerun with the same seed to reproduce)*",
        ]
    )
    # Session summary table, one row per audit.
    result.stdout.fnmatch_lines(["*dpverify audits*", "audit*claimed*exact*certified*ratio*verdict*samples*time*"])
    assert sum("violation" in line for line in result.outlines) >= 2
    assert any("consistent" in line and "test_correct" in line for line in result.outlines)


def test_options_are_honoured_and_report_written(pytester):
    pytester.makepyfile(
        MECHANISMS
        + """
@pytest.mark.dp_audit(epsilon=0.5, delta=0.0)
def test_correct(dp_auditor):
    r = dp_auditor(laplace(2.0), D, D2)
    assert r.samples == 5000 and r.confidence == 0.9 and r.seed == 42
"""
    )
    report = pytester.path / "out" / "dp.json"
    result = pytester.runpytest_subprocess(
        "--dp-samples", "5000", "--dp-confidence", "0.9", "--dp-seed", "42", "--dp-report", str(report)
    )
    result.assert_outcomes(passed=1)
    data = json.loads(report.read_text())
    (row,) = data["audits"]
    assert row["samples"] == 5000 and row["confidence"] == 0.9 and row["seed"] == 42
    assert row["epsilon_claimed"] == 0.5 and row["verdict"] == "consistent"
    assert [p.name for p in report.parent.iterdir()] == ["dp.json"]  # no temporary file left behind


def test_missing_claim_is_a_usage_error(pytester):
    pytester.makepyfile(
        MECHANISMS
        + """
def test_no_claim(dp_auditor):
    dp_auditor(laplace(2.0), D, D2)
"""
    )
    result = pytester.runpytest_subprocess("--dp-samples", "1000")
    result.assert_outcomes(errors=0, failed=1)
    result.stdout.fnmatch_lines(["*dp_auditor needs a claim*"])


@pytest.mark.parametrize("flag, value", [("--dp-confidence", "1.5"), ("--dp-samples", "1")])
def test_bad_options_rejected(pytester, flag, value):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess(flag, value)
    assert result.ret != 0
    result.stderr.fnmatch_lines([f"*{flag} must be*"])
