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
from dpverify.interfaces.testing import assert_dp

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
    result = pytester.runpytest_subprocess("--dp-samples", "20000", "-p", "no:cacheprovider", "--dp-explain")
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
    result.stdout.fnmatch_lines(
        ["*dpverify audits*", "audit*claimed*tested*accountant*exact*ceiling*certified*ratio*verdict*samples*time*"])
    result.stdout.fnmatch_lines(["*3 audits: 1 consistent, 0 inconclusive at their budget, 2 violations*",
                                 "*test_broken (violation): certified * > claimed 0.5*",
                                 "*exact: the closed-form epsilon of the audited pair; '-' = no closed form*"])
    # __tracebackhide__: the failure points at the test's own call, not into dpverify
    assert not [line for line in result.outlines if "dpverify/interfaces/testing.py" in line or "pytest_plugin.py:" in line]
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
        "--dp-samples", "5000", "--dp-confidence", "0.9", "--dp-seed", "42", "--dp-report", str(report),
        "--dp-workers", "2",
    )
    result.assert_outcomes(passed=1)
    data = json.loads(report.read_text())
    (row,) = data["audits"]
    assert row["samples"] == 5000 and row["confidence"] == 0.9 and row["seed"] == 42
    assert row["epsilon_claimed"] == 0.5 and row["verdict"] == "consistent"
    assert [p.name for p in report.parent.iterdir()] == ["dp.json"]  # no temporary file left behind


def test_implementation_mode_flags_a_float_laplace_that_mathematical_mode_passes(pytester):
    """``--dp-mode implementation`` reaches every audit: numpy's float Laplace (count + Laplace(2), claimed 0.5-DP,
    exactly 0.5-DP as mathematics) passes in the default mode and fails in implementation mode with the plain-words
    floating-point cause (some doubles are reachable from count 2 and not from 3; measured certified ~4-5 at 20000
    samples, against the claim 0.5)."""
    pytester.makepyfile(
        MECHANISMS
        + """
@pytest.mark.dp_audit(epsilon=0.5, delta=0.0)
def test_float_laplace(dp_auditor):
    r = dp_auditor(laplace(2.0), D, D2)
    assert r.mode == "mathematical"
"""
    )
    pytester.runpytest_subprocess("--dp-samples", "20000").assert_outcomes(passed=1)
    result = pytester.runpytest_subprocess("--dp-samples", "20000", "--dp-mode", "implementation")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*floating-point leak*"])


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


@pytest.mark.parametrize("flag, value", [("--dp-confidence", "1.5"), ("--dp-samples", "1"), ("--dp-workers", "0")])
def test_bad_options_rejected(pytester, flag, value):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess(flag, value)
    assert result.ret != 0
    result.stderr.fnmatch_lines([f"*argument {flag}: must be *; got '{value}'*"])


def test_inconclusive_audit_warns_or_fails_on_request(pytester):
    """A claim far above anything the budget can certify is inconclusive: a warning by default, a failure with
    on_inconclusive="fail"; the session table counts it apart and says why."""
    pytester.makepyfile(
        MECHANISMS
        + """
from dpverify.interfaces.testing import InconclusiveAuditWarning

def test_warns():
    with pytest.warns(InconclusiveAuditWarning, match="inconclusive"):
        r = assert_dp(laplace(2.0), D, D2, epsilon=50.0, samples=2000)
    assert r.verdict == "inconclusive"

def test_fails():
    assert_dp(laplace(2.0), D, D2, epsilon=50.0, samples=2000, on_inconclusive="fail")
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*the audit of laplace_scale_2.0 is inconclusive: it could not have detected*",
                                 "*verdict: inconclusive: the claim 50 is above the most any audit can certify*"])
    result.stdout.fnmatch_lines(["*2 audits: 0 consistent, 2 inconclusive at their budget, 0 violations*"])


def test_loose_claims_and_accountant_columns_in_the_session_table(pytester):
    pytester.makepyfile(
        MECHANISMS
        + """
from dpverify.calculus.guarantees import Conversion

class Accounted:
    # a Laplace mechanism that also reports an accountant's epsilon (like the gradient samplers)
    def __call__(self, d, n, rng):
        return float(np.sum(d)) + rng.laplace(0.0, 1.0, size=n)
    def account(self, delta):
        return Conversion(epsilon=1.0, delta=delta, order=None, method="closed form")

def test_loose():
    assert_dp(Accounted(), D, D2, epsilon=40.0, samples=2000, exact_epsilon=1.0, on_inconclusive="ignore")
"""
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*40 * 1 [[]1[]] * 1 *",
                                 "*loose claim: Accounted: claim 40x the exact value (40 vs 1)*",
                                 "*loose claim: Accounted: claim 40x the accountant's epsilon (40 vs 1, closed form)*",
                                 "*accountant methods: [[]1[]] closed form*"])


@pytest.mark.parametrize("kind", ["directory", "below a file"])
def test_unwritable_dp_report_is_a_usage_error_at_start(pytester, kind):
    pytester.makepyfile("def test_x():\n    pass\n")
    blocker = pytester.path / "blocker"
    if kind == "directory":
        blocker.mkdir()
        target = blocker
    else:
        blocker.write_text("a file")
        target = blocker / "dp.json"
    result = pytester.runpytest_subprocess("--dp-report", str(target))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dp-report*"])
    assert "Traceback" not in result.stderr.str()
    assert "passed" not in result.stdout.str() and not target.is_file()  # nothing ran, nothing written


def test_dp_report_without_write_permission_is_a_usage_error_at_start(tmp_path):
    """Permission bits bind for root too (tests/test_faults.py: run_restricted)."""
    from test_faults import read_only_dir, run_restricted

    (tmp_path / "test_x.py").write_text("def test_x():\n    pass\n")
    ro = read_only_dir(tmp_path)
    res = run_restricted(["-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(tmp_path), "-c", "/dev/null",
                          "--dp-report", str(ro / "dp.json"), str(tmp_path / "test_x.py")], cwd=tmp_path)
    assert res.returncode == pytest.ExitCode.USAGE_ERROR, res.stdout + res.stderr
    assert "--dp-report" in res.stderr and "not writable" in res.stderr
    assert "Traceback" not in res.stderr and list(ro.iterdir()) == []
