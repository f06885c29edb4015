"""The one-run audit's interfaces: ``dpverify one-run`` (CLI), ``assert_dp_one_run`` and the ``dp_one_run`` fixture."""
from __future__ import annotations

import json

import pytest

from dpverify.audit.one_run import GaussianCanaries
from dpverify.interfaces.cli import main
from dpverify.cases.one_run import CASES, build_case
from dpverify.interfaces.testing import InconclusiveAuditWarning, assert_dp_one_run


def test_cli_json_carries_the_certificate_the_accountant_and_the_method(capsys):
    status = main(["one-run", "dp_sgld_breast_cancer", "--canaries", "2000", "--json"])
    record = json.loads(capsys.readouterr().out)
    assert status == 0
    assert record["method"] == "fdp" and record["curve"] == "gaussian" and record["m"] == 2000
    assert 0 < record["epsilon_lower"] < record["epsilon_accountant"]
    assert record["epsilon_accountant"] == pytest.approx(1.993, abs=2e-3)  # 0.5-GDP at delta = 1e-5
    assert record["verdict"] == "consistent" and 0.5 < record["test_accuracy"] <= 1.0


def test_cli_flags_the_half_noise_run_with_exit_status_1(capsys):
    status = main(["one-run", "dp_sgld_breast_cancer_half_noise", "--canaries", "2000"])
    out = capsys.readouterr().out
    assert status == 1 and "violation" in out


def test_cli_lists_cases_and_refuses_unknown_ones(capsys):
    assert main(["one-run", "--list"]) == 0
    listed = capsys.readouterr().out
    assert all(name in listed for name in CASES)
    assert main(["one-run", "no_such_case"]) == 2
    assert "unknown one-run case" in capsys.readouterr().err
    assert main(["one-run", "gaussian_canaries", "--canaries", "1"]) == 2


def test_assert_dp_one_run_passes_a_correct_run_and_fails_a_leaky_one():
    result = assert_dp_one_run(GaussianCanaries(1.0), 1000, seed=0)
    assert result.verdict == "consistent"
    with pytest.raises(AssertionError, match="one run certified .* > claimed"):
        assert_dp_one_run(GaussianCanaries(1.0, noise_factor=0.5), 1000, seed=0)
    with pytest.raises(AssertionError, match="> claimed 1"):  # a claim below the truth is refuted
        assert_dp_one_run(GaussianCanaries(1.0), 1000, epsilon=1.0, seed=0)


def test_assert_dp_one_run_warns_when_inconclusive_and_rejects_unknown_arguments():
    with pytest.warns(InconclusiveAuditWarning, match="inconclusive"):
        assert_dp_one_run(GaussianCanaries(0.3), 200, seed=0)
    with pytest.raises(AssertionError, match="inconclusive"):
        assert_dp_one_run(GaussianCanaries(0.3), 200, seed=0, on_inconclusive="fail")
    with pytest.raises(TypeError, match="samples"):
        assert_dp_one_run(GaussianCanaries(1.0), 200, samples=10)


def test_dp_one_run_fixture_uses_the_marker_claim(pytester):
    pytester.makepyfile("""
        import pytest
        from dpverify.audit.one_run import GaussianCanaries

        @pytest.mark.dp_audit(epsilon=1.0, delta=1e-5)
        def test_refuted(dp_one_run):
            dp_one_run(GaussianCanaries(1.0), 1000)

        def test_accountant_claim(dp_one_run):
            assert dp_one_run(GaussianCanaries(1.0), 1000).verdict == "consistent"
    """)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)


def test_every_case_without_extras_builds_for_small_m():
    for name, case in CASES.items():
        if case.needs:
            continue
        experiment, extras = build_case(name, 50)
        assert experiment.name == name or name == "gaussian_canaries"


@pytest.mark.opacus
def test_opacus_digits_one_run_beside_its_accountant():
    """Opacus on digits with m = 1000 canaries: the one-run certificate stays below Opacus' own accountant and
    dpverify's (same run, they agree to 1%); white-box and loss scores rank alike here."""
    from dpverify.audit.one_run import audit_one_run

    experiment, extras = build_case("opacus_digits", 1000)
    result = audit_one_run(experiment, 1000, seed=0)
    facts = extras(experiment)
    assert facts["epsilon_opacus"] == pytest.approx(result.epsilon_accountant, rel=0.01)
    assert 0 < result.epsilon_lower < result.epsilon_accountant
    assert result.score_separation > 0.3  # the canaries are seen (separation in noise units)
    assert facts["test_accuracy"] > 0.8
