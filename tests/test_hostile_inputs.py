"""Issue 23: every hostile input and fault of the new-user report answered -- a clean error naming the argument and
its allowed range, or the right answer -- and nothing a user owns lost.

Sections follow the issue: 1. data a user owns, 2. silently wrong answers (the edge-of-type class -- booleans,
infinities, NaN, integers beyond the float range, negative zero, strings -- for every numeric command-line option,
every plugin option and marker argument, and the shared validators), 3. hangs and raw errors, 5. the command line.
The HTML report's items (section 4) are in tests/test_report.py and, in a real browser, tests/test_browser_report.py.
"""
from __future__ import annotations

import argparse
import errno
import io
import json
import math
import re
import tomllib
from pathlib import Path

import numpy as np
import pytest

from dpverify.interfaces.cli import main
from dpverify.validation import (
    MAX_COUNT,
    UsageError,
    check_delta,
    check_epsilon,
    check_finite_array,
    check_orders,
    check_positive_int,
    check_real,
)

REPO = Path(__file__).resolve().parents[1]
USER_JSON = b'{"my": "own results"}'
USER_HTML = b"<html>my own page</html>"


def error_of(capsys) -> str:
    return capsys.readouterr().err


# -- 1. data a user owns ------------------------------------------------------------------------------------------

VERIFY_FAST = ["verify", "--only", "laplace_mechanism", "--no-theorems"]


def _user_report(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    (root / "report.json").write_bytes(USER_JSON)
    (root / "report.html").write_bytes(USER_HTML)


def test_a_users_own_report_files_are_never_replaced_without_overwrite(tmp_path, capsys):
    root = tmp_path / "R"
    _user_report(root)
    for _ in range(2):  # the issue: the first run moved them away, the second deleted them
        assert main(VERIFY_FAST + ["--report", str(root)]) == 2
        err = error_of(capsys)
        assert "report.json (a file) and report.html (a file)" in err and "--overwrite" in err
        assert (root / "report.json").read_bytes() == USER_JSON and (root / "report.html").read_bytes() == USER_HTML
        assert not (root / "report.json").is_symlink() and not (root / ".dpverify-runs").exists()


def test_overwrite_keeps_the_users_files_however_many_runs_follow(tmp_path, capsys):
    root = tmp_path / "R"
    _user_report(root)
    for _ in range(2):  # published runs are cleaned up (the current one and one before stay: before, the legacy run
        # of the user's files was "one before" after the first run and removed by the second), legacy runs never
        assert main(VERIFY_FAST + ["--report", str(root), "--overwrite"]) == 0
    capsys.readouterr()
    (legacy,) = (root / ".dpverify-runs").glob("run-legacy-*")
    assert (legacy / "report.json").read_bytes() == USER_JSON and (legacy / "report.html").read_bytes() == USER_HTML
    assert json.loads((root / "report.json").read_text())["audits"][0]["case"] == "laplace_mechanism"


@pytest.mark.parametrize("kind", ["directory", "link elsewhere"])
def test_other_things_named_report_json_are_refused_too(tmp_path, capsys, kind):
    root = tmp_path / "R"
    root.mkdir()
    if kind == "directory":
        (root / "report.json").mkdir()
        (root / "report.json" / "inside").write_text("mine")
    else:
        (tmp_path / "elsewhere.json").write_bytes(USER_JSON)
        (root / "report.json").symlink_to(tmp_path / "elsewhere.json")
    assert main(VERIFY_FAST + ["--report", str(root)]) == 2
    assert ("a directory" if kind == "directory" else "a link to") in error_of(capsys)
    assert main(VERIFY_FAST + ["--report", str(root), "--overwrite"]) == 0
    (legacy,) = (root / ".dpverify-runs").glob("run-legacy-*")
    if kind == "directory":
        assert (legacy / "report.json" / "inside").read_text() == "mine"
    else:
        assert (tmp_path / "elsewhere.json").read_bytes() == USER_JSON and (legacy / "report.json").read_bytes() == USER_JSON


def _disk_full_on(name: str, monkeypatch) -> None:
    """Make writing ``name`` into a run directory fail as a full disk does."""
    from dpverify.interfaces import files

    real = files.write_atomic

    def write_atomic(path, data):
        if Path(path).name == name and "partial-" in str(path):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(files, "write_atomic", write_atomic)


def test_disk_full_while_publishing_names_the_file_and_resume_publishes_without_recomputing(tmp_path, monkeypatch,
                                                                                         capsys):
    root = tmp_path / "R"
    assert main(VERIFY_FAST + ["--report", str(root), "--seed", "1"]) == 0
    before = (root / "report.json").read_text()
    with monkeypatch.context() as m:
        _disk_full_on("report.html", m)
        assert main(VERIFY_FAST + ["--report", str(root), "--seed", "2"]) == 1
    err = error_of(capsys)
    assert re.search(r"could not write the report file \S+/partial-[^/]+/report\.html \(No space left on device\)", err)
    assert "nothing in" in err and "--resume" in err and "[Errno" not in err
    assert (root / "report.json").read_text() == before  # the published report is intact
    (partial,) = (root / ".dpverify-runs").glob("partial-*")  # the checkpoint is kept for --resume
    import dpverify.interfaces.cli.verify as verify_cli

    monkeypatch.setattr(verify_cli, "_run_case_job", lambda *a, **k: pytest.fail("resume recomputed an audit"))
    assert main(VERIFY_FAST + ["--report", str(root), "--seed", "2", "--resume"]) == 0
    assert json.loads((root / "report.json").read_text())["settings"]["seed"] == 2
    assert not list((root / ".dpverify-runs").glob("partial-*"))


def test_disk_full_without_a_checkpoint_leaves_no_partial_directory(tmp_path, monkeypatch):
    from dpverify.interfaces.files import WriteError
    from dpverify.interfaces.report import write_report

    root = tmp_path / "R"
    _disk_full_on("report.json", monkeypatch)
    with pytest.raises(WriteError, match=r"report\.json \(No space left on device\).*partial files are removed"):
        write_report(root, [], [], paper_figures=False)
    assert list((root / ".dpverify-runs").iterdir()) == [root / ".dpverify-runs" / "lock"]


def test_a_full_disk_while_checkpointing_names_the_checkpoint(tmp_path):
    from dpverify.interfaces.files import RunDirectory, WriteError

    run = RunDirectory(tmp_path / "R").prepare().start({"settings": {}})
    run.append({"type": "audit", "case": "a"})

    class Full(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")

    run._checkpoint = Full()
    with pytest.raises(WriteError, match=r"checkpoint \S+checkpoint\.jsonl \(No space left on device\); the 1 results"):
        run.append({"type": "audit", "case": "b"})


PLUGIN_TESTS = """
import numpy as np
import pytest

def lap(d, n, rng):
    return float(np.sum(d)) + rng.laplace(0.0, 2.0, size=n)

D, D2 = np.array([1, 0, 1]), np.array([1, 1, 1])

@pytest.mark.parametrize("i", range(5))
@pytest.mark.dp_audit(epsilon=0.5)
def test_audit(dp_auditor, i):
    dp_auditor(lap, D, D2, samples=2000, seed=i)
"""


def test_xdist_workers_audits_are_merged_into_one_table_and_report(pytester):
    """``pytest -n 2 --dp-report``: before, the last worker's file won (2 of 5 audits) and the table vanished."""
    pytester.makepyfile(PLUGIN_TESTS)
    report = pytester.path / "r.json"
    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider", "--dp-report", str(report))
    result.assert_outcomes(passed=5)
    data = json.loads(report.read_text())
    assert sorted(r["name"] for r in data["audits"]) == [f"test_xdist_workers_audits_are_merged_into_one_table_and_report.py::test_audit[{i}]" for i in range(5)]
    assert sum(data["summary"].values()) == 5 and data["missing_workers"] == []
    result.stdout.fnmatch_lines(["*dpverify audits*", "*5 audits: *"])
    assert sum("::test_audit[" in line for line in result.outlines) >= 5  # one table row each


def test_dp_report_never_replaces_a_file_that_is_not_a_dpverify_report(pytester):
    pytester.makepyfile("def test_x():\n    pass\n")
    mine = pytester.path / "mine.json"
    mine.write_bytes(USER_JSON)
    result = pytester.runpytest_subprocess("--dp-report", str(mine))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--dp-report*the file exists and is not a dpverify report*"])
    assert mine.read_bytes() == USER_JSON


# -- 2. silently wrong answers: --param, empty paths, the plugin's markers ----------------------------------------

def _declared(sampler: str, name: str):
    from dpverify.interfaces.cli.audit import declared_parameters

    return declared_parameters(sampler)[name]


@pytest.mark.parametrize("text, value", [("no", False), ("off", False), ("0", False), ("False", False), ("yes", True),
                                         ("on", True), ("TRUE", True), ("1", True)])
def test_bool_params_read_every_spelling_of_true_and_false(text, value):
    from dpverify.interfaces.cli.audit import parse_value

    assert parse_value("half_drift", text, _declared("dp_sgld_broken", "half_drift")) is value  # a forwarded one


@pytest.mark.parametrize("text", ["maybe", "2", "", "none", "nan"])
def test_other_bool_text_is_an_error_naming_the_parameter(capsys, text):
    assert main(["audit", "dp_sgld_broken_half_noise", "--param", f"half_drift={text}"]) == 2
    assert f"--param half_drift must be true or false (also yes/no, on/off, 1/0); got {text!r}" in error_of(capsys)


def test_typed_params_numbers_vectors_none_and_the_model(capsys):
    from dpverify.interfaces.cli.audit import parse_value

    theta0 = _declared("dp_sgld_li", "theta0")
    assert parse_value("theta0", "[-2, 0.5]", theta0) == [-2.0, 0.5]
    assert parse_value("theta0", "-2,0.5", theta0) == [-2.0, 0.5]
    assert parse_value("theta0", "none", theta0) is None
    assert parse_value("L", "none", _declared("dp_sgld_li", "L")) is None
    assert parse_value("N", "1e3", _declared("dp_sgld_li", "N")) == 1000
    for name, text in (("N", "2.5"), ("N", "true"), ("N", "1e400"), ("tau", "ten"), ("theta0", "[1, x]")):
        with pytest.raises(UsageError, match=f"--param {name} must be"):
            parse_value(name, text, _declared("dp_sgld_li", name))
    assert main(["audit", "dp_sgld_path", "--param", "model=foo"]) == 2
    err = error_of(capsys)
    assert "--param model cannot be set on the command line" in err and "AttributeError" not in err


@pytest.mark.parametrize("argv", [["verify", "--report", ""], ["verify", "--report", "   "],
                                  ["audit-library", "diffprivlib", "--report", ""]])
def test_an_empty_report_path_is_an_error_not_a_run_without_a_report(capsys, argv):
    assert main(argv) == 2
    assert "must be a directory path; got an empty string" in error_of(capsys)


MARKER_CASES = {
    "extra positional": ("@pytest.mark.dp_audit(0.5, 0.0, 3)", "takes at most 2 positional arguments"),
    "given twice": ("@pytest.mark.dp_audit(0.5, epsilon=1.0)", "gives epsilon both by position and by keyword"),
    "bool epsilon": ("@pytest.mark.dp_audit(epsilon=True)", "epsilon must be a real number in (0.0, inf), not a boolean"),
    "inf epsilon": ("@pytest.mark.dp_audit(epsilon=float('inf'))", "epsilon must be a finite number in (0.0, inf); got inf"),
    "nan epsilon": ("@pytest.mark.dp_audit(epsilon=float('nan'))", "epsilon must be a number in (0.0, inf); got NaN"),
    "huge epsilon": ("@pytest.mark.dp_audit(epsilon=10**400)", "got an integer of 401 digits, beyond the range of a float"),
    "negative zero": ("@pytest.mark.dp_audit(epsilon=-0.0)", "epsilon must be in (0.0, inf); got -0.0"),
    "string": ("@pytest.mark.dp_audit(epsilon='0.5')", "epsilon must be a real number in (0.0, inf); got '0.5'"),
    "delta one": ("@pytest.mark.dp_audit(epsilon=0.5, delta=1)", "delta must be in [0.0, 1.0); got 1"),
    "samples too few": ("@pytest.mark.dp_audit(epsilon=0.5, samples=2)", "samples must be an integer in [4, "),
    "samples bool": ("@pytest.mark.dp_audit(epsilon=0.5, samples=True)", "not a boolean"),
    "confidence one": ("@pytest.mark.dp_audit(epsilon=0.5, confidence=1.0)", "confidence must be in (0.0, 1.0)"),
    "seed negative": ("@pytest.mark.dp_audit(epsilon=0.5, seed=-1)", "seed must be an integer in [0, "),
}


def test_bad_markers_error_before_the_test_runs_and_markers_promise_an_audit(pytester):
    body = ["import numpy as np", "import pytest", "",
            "def lap(d, n, rng):", "    return float(np.sum(d)) + rng.laplace(0.0, 2.0, size=n)", ""]
    for i, (marker, _) in enumerate(MARKER_CASES.values()):
        body += [marker, f"def test_bad_{i}(dp_auditor):", "    dp_auditor(lap, np.array([1, 0]), np.array([1, 1]))",
                 ""]
    body += ["@pytest.mark.dp_audit(epsilon=1.0)", "class TestTwo:", "    @pytest.mark.dp_audit(epsilon=2.0)",
             "    def test_two(self, dp_auditor):", "        dp_auditor(lap, np.array([1, 0]), np.array([1, 1]))", "",
             "@pytest.mark.dp_audit(epsilon=0.5)", "def test_forgot(dp_auditor):", "    pass", "",
             "@pytest.mark.dp_audit(epsilon=0.5)", "def test_no_fixture():", "    assert True", "",
             "@pytest.mark.dp_audit(epsilon=0.5, delta=-0.0)", "def test_negative_zero_delta_is_zero(dp_auditor):",
             "    assert dp_auditor(lap, np.array([1, 0]), np.array([1, 1]), samples=2000).delta == 0.0", ""]
    pytester.makepyfile(test_markers="\n".join(body))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfE")
    result.assert_outcomes(passed=1, failed=2, errors=len(MARKER_CASES) + 1)
    out = result.stdout.str()
    for name, (_, message) in MARKER_CASES.items():
        assert message in out, name
    assert "2 dp_audit markers apply (@pytest.mark.dp_audit(epsilon=2.0) and @pytest.mark.dp_audit(epsilon=1.0)" in out
    assert out.count("is marked dp_audit but ran no audit") >= 2  # test_forgot and test_no_fixture


# -- 2. the edge-of-type class: every numeric option, the validators ----------------------------------------------

#: (command prefix, option, a valid value for the others) of every numeric command-line option.
NUMERIC_OPTIONS = [
    (["audit", "laplace_mechanism"], "--epsilon"), (["audit", "laplace_mechanism"], "--delta"),
    (["audit", "laplace_mechanism"], "--samples"), (["audit", "laplace_mechanism"], "--confidence"),
    (["audit", "laplace_mechanism"], "--seed"), (["audit", "laplace_mechanism"], "--workers"),
    (["verify"], "--workers"), (["verify"], "--seed"),
    (["audit-library", "diffprivlib"], "--scale"), (["audit-library", "diffprivlib"], "--seed"),
    (["audit-library", "diffprivlib"], "--confidence"),
    (["account", "sgm", "--sampling-rate", "0.01", "--steps", "10", "--delta", "1e-5"], "--noise-multiplier"),
    (["account", "sgm", "--noise-multiplier", "1", "--steps", "10", "--delta", "1e-5"], "--sampling-rate"),
    (["account", "sgm", "--noise-multiplier", "1", "--sampling-rate", "0.01", "--delta", "1e-5"], "--steps"),
    (["account", "sgm", "--noise-multiplier", "1", "--sampling-rate", "0.01", "--steps", "10"], "--delta"),
    (["account", "sgm", "--noise-multiplier", "1", "--sampling-rate", "0.01", "--steps", "10", "--delta", "1e-5"],
     "--orders"),
]
#: Text that no numeric option accepts: a boolean, NaN, infinities, beyond the float range, beyond int64, text.
EDGE_VALUES = ["True", "nan", "inf", "-inf", "1e400", "9" * 400, "abc", ""]


@pytest.mark.parametrize("prefix, option", NUMERIC_OPTIONS, ids=[f"{p[0]}{o}" for p, o in NUMERIC_OPTIONS])
@pytest.mark.parametrize("value", EDGE_VALUES, ids=["true", "nan", "inf", "-inf", "1e400", "400-digits", "abc", "empty"])
def test_every_numeric_option_rejects_the_edge_of_type_class_naming_itself(capsys, prefix, option, value):
    assert main([*prefix, f"{option}={value}"]) == 2  # "=": argparse reads "-inf" after a space as an option
    err = error_of(capsys)
    line = err.strip().splitlines()[-1]
    assert f"error: argument {option}: must be " in line and "Traceback" not in err
    assert re.search(r"(an integer|a (finite )?number)", line), line  # the allowed kind and range are named
    assert len(line) < 300  # a 400-digit value is not echoed whole... unless it is short enough


@pytest.mark.parametrize("prefix, option", NUMERIC_OPTIONS, ids=[f"{p[0]}{o}" for p, o in NUMERIC_OPTIONS])
def test_negative_zero_is_zero_or_out_of_range_never_a_sign_bug(capsys, prefix, option):
    """``-0`` reads as 0: accepted where 0 is allowed (the seeds), else rejected by the range like 0."""
    from dpverify.interfaces.cli import build_parser

    parser = build_parser()
    try:
        args = parser.parse_args([*prefix, option, "-0"])
    except SystemExit:
        assert "must be" in error_of(capsys)
        return
    value = getattr(args, option.lstrip("-").replace("-", "_"))
    assert value == 0 and math.copysign(1.0, float(value)) == 1.0


def test_counts_accept_integral_float_text_and_the_epsilon_message_is_right(capsys):
    from dpverify.interfaces.cli import build_parser

    args = build_parser().parse_args(["audit", "laplace_mechanism", "--samples", "1e6", "--seed", "1_000"])
    assert (args.samples, args.seed) == (10**6, 1000)
    assert main(["audit", "laplace_mechanism", "--epsilon", "inf"]) == 2
    assert "argument --epsilon: must be a finite number in (0, inf); got 'inf'" in error_of(capsys)
    assert main(["audit", "laplace_mechanism", "--samples", "99999999999999999999999"]) == 2
    err = error_of(capsys)
    assert "argument --samples: must be an integer in [4, 1000000000000]" in err and "MemoryError" not in err


@pytest.mark.parametrize("value", ["True", "nan", "inf", "1e400", "9" * 400, "abc"])
def test_theorem_values_reject_the_edge_of_type_class(capsys, value):
    assert main(["theorems", "eval", "wang2015.thm1_ops_pure_dp", f"B={value}"]) == 2 or value == "9" * 400
    err = error_of(capsys)
    assert "Traceback" not in err and (value == "9" * 400 or "value of B must be a finite number" in err)


@pytest.mark.parametrize("option, value", [("--dp-samples", "1e400"), ("--dp-samples", "True"), ("--dp-samples", "3"),
                                           ("--dp-confidence", "nan"), ("--dp-confidence", "1"), ("--dp-seed", "-1"),
                                           ("--dp-seed", "9" * 30), ("--dp-workers", "inf"), ("--dp-report", "")])
def test_every_plugin_option_rejects_the_edge_of_type_class(pytester, option, value):
    pytester.makepyfile("def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess(option, value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert f"argument {option}: must be " in result.stderr.str()


EDGE_OBJECTS = {"True": True, "np.True_": np.True_, "inf": math.inf, "nan": math.nan, "10**400": 10**400,
                "'1'": "1", "None": None, "1j": 1j, "np.complex128": np.complex128(1 + 0j)}


@pytest.mark.parametrize("name", list(EDGE_OBJECTS))
def test_the_shared_validators_answer_the_whole_class(name):
    value = EDGE_OBJECTS[name]
    expected = (TypeError, ValueError)
    with pytest.raises(expected, match="epsilon"):
        check_epsilon(value)
    with pytest.raises(expected, match="delta"):
        check_delta(value)
    with pytest.raises(expected, match="samples"):
        check_positive_int(value, "samples")
    with pytest.raises(expected, match="orders"):
        check_orders([2.0, value])
    # never an OverflowError, a ComplexWarning or a silent conversion
    assert not isinstance(value, bool) or check_real("x", float(value)) == float(value)


def test_validators_edge_values_that_are_valid_give_the_right_answer():
    assert math.copysign(1.0, check_delta(-0.0)) == 1.0  # -0.0 is 0.0
    assert check_positive_int(1e6, "n") == 10**6 and check_positive_int(MAX_COUNT, "n") == MAX_COUNT
    with pytest.raises(ValueError, match=r"n must be an integer in \[1, 2\*\*63 - 1 \(int64\)\]"):
        check_positive_int(MAX_COUNT + 1, "n")
    with pytest.raises(ValueError, match=r"beyond the range of a float"):
        check_finite_array([1.0, 10**400], "x")
    with pytest.raises(ValueError, match=r"orders must all be in \(1, 100\]"):
        check_orders([2.0, 1000.0], maximum=100)
    assert check_real("x", 10**300) == 1e300  # a big integer within the float range is a number


# -- 3. hangs and raw errors ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("sigma, extra", [("1e-3", []), ("1e-9", []), ("1e-3", ["--method", "mironov2017"]),
                                          ("1e-300", [])])
def test_account_sgm_with_tiny_noise_answers_at_once_without_multiprecision(monkeypatch, capsys, sigma, extra):
    from dpverify.calculus.accounting import sampled_gaussian
    from dpverify.calculus.accounting.sampled_gaussian import one_step_epsilon

    monkeypatch.setattr(sampled_gaussian, "_log_a_mpmath", lambda *a: pytest.fail("the slow path ran"))
    argv = ["account", "sgm", "--noise-multiplier", sigma, "--sampling-rate", "0.01", "--steps", "100",
            "--delta", "1e-5", "--json", *extra]
    assert main(argv) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["no_meaningful_privacy"] is True and rec["epsilon"] is None
    want = one_step_epsilon(0.01, float(sigma), 1e-5)
    assert (rec["epsilon_lower_bound"] == want) or (math.isinf(want) and rec["epsilon_lower_bound"] == "inf")
    assert "no meaningful privacy" in rec["note"]


def test_account_sgm_orders_beyond_the_supported_range_are_an_error(capsys):
    argv = ["account", "sgm", "--noise-multiplier", "1e-3", "--sampling-rate", "0.01", "--steps", "100", "--delta",
            "1e-5", "--orders", "1e300"]
    assert main(argv) == 2
    assert "argument --orders: must be a number in (1, 1e+08]; got '1e300'" in error_of(capsys)


def test_one_step_epsilon_is_the_exact_profile_and_below_the_rdp_bound():
    """The one-step epsilon solves delta(eps) = delta for the Poisson-subsampled Gaussian (checked by mpmath
    quadrature of the mixture's hockey-stick divergence, independent of the closed form), equals the Gaussian
    mechanism's at q = 1, and lies below the RDP accountant's epsilon of any number of steps."""
    import mpmath as mp

    from dpverify.calculus.accounting import epsilon_sampled_gaussian
    from dpverify.calculus.accounting.sampled_gaussian import needs_multiprecision, one_step_epsilon
    from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon

    for q, sigma, delta in ((0.1, 0.5, 1e-3), (0.01, 0.05, 1e-5)):
        eps = one_step_epsilon(q, sigma, delta)
        with mp.workdps(40):
            def excess(x):
                p = (1 - q) * mp.npdf(x, 0, sigma) + q * mp.npdf(x, 1, sigma)
                return max(p - mp.exp(eps) * mp.npdf(x, 0, sigma), 0)

            cut = sigma**2 * float(mp.log((mp.exp(eps) - 1 + q) / q)) + 0.5
            value = mp.quad(excess, [cut, cut + 1, mp.inf])
        assert float(value) == pytest.approx(delta, rel=1e-6)
        assert not needs_multiprecision(q, sigma, [1.5, 2.0, 8.0])
        assert eps <= epsilon_sampled_gaussian(sigma, q, 10, delta).epsilon
    assert one_step_epsilon(1.0, 2.0, 1e-5) == gaussian_epsilon(1e-5, 0.5)
    assert one_step_epsilon(0.01, 1.0, 0.5) == 0.0  # delta >= q: one step leaks nothing measurable


def test_the_multiprecision_predicate_matches_the_accountant(monkeypatch):
    from dpverify.calculus.accounting import sampled_gaussian
    from dpverify.calculus.accounting.sampled_gaussian import needs_multiprecision, rdp_sampled_gaussian

    calls = []
    real = sampled_gaussian._log_a_mpmath
    monkeypatch.setattr(sampled_gaussian, "_log_a_mpmath", lambda *a: calls.append(a) or real(*a))
    for q, sigma, orders in ((0.01, 1.1, [1.5, 2.0, 10.5]), (0.01, 1e-3, [1.5]), (0.01, 1.1, [3e7]), (1.0, 1e-3, [1.5])):
        calls.clear()
        rdp_sampled_gaussian(q, sigma, orders)
        assert bool(calls) == needs_multiprecision(q, sigma, orders), (q, sigma, orders)


def test_a_5000_character_report_path_names_the_option_and_is_not_echoed(capsys, tmp_path):
    long = str(tmp_path / ("x" * 300) / ("y" * 300)) * 8
    assert main(["verify", "--only", "laplace_mechanism", "--report", long]) == 2
    err = error_of(capsys)
    # the usage (about 650 characters) and one line; the path itself (5000 characters) is not echoed
    assert "--report" in err and long[:100] not in err and len(err) < 1000 and "Traceback" not in err


def test_cli_hints_are_spelled_for_the_command_line(capsys):
    argv = ["theorems", "eval", "wang2015.thm4_dp_sgld", "epsilon=1", "delta=1e-5", "N=100", "T=1e-3", "tau=10"]
    assert main(argv) == 2
    err = error_of(capsys)
    assert "--allow-unguaranteed" in err and "allow_unguaranteed=True" not in err
    assert main(["audit", "ula_final", "--param", "step_size=1"]) == 2  # Bertazzi Thm 5.2 needs h < 2m/L^2
    err = error_of(capsys)
    assert "--param unguaranteed=true" in err and "unguaranteed=True" not in err


def test_a_rejected_parameter_names_the_cases_own_value(capsys):
    assert main(["audit", "dp_sgld_path", "--param", "N=1"]) == 2
    err = error_of(capsys)
    assert "case dp_sgld_path (sampler dp_sgld_li) with --param N=1: tau must be in (0.0, 1.0]; got 10" in err
    assert "(tau=10 is the case's value: set it with --param tau=VALUE)" in err


def test_internal_errors_and_failed_audits_are_not_bad_input(monkeypatch, capsys):
    """A ValueError raised inside dpverify is an internal error (3), an audit that fails while running is an audit
    error (1); only bad input is 2."""
    import dpverify.interfaces.suite as suite
    from dpverify.samplers import registry

    monkeypatch.setattr(registry, "all_samplers", lambda: (_ for _ in ()).throw(ValueError("a bug")))
    assert main(["samplers", "list"]) == 3
    assert "internal error: ValueError: a bug" in error_of(capsys)
    monkeypatch.undo()

    def failing(case, *options, **kwargs):
        return suite.CaseResult(case.id, case.sampler, {}, case.pair, {}, None, 0.0, error="RuntimeError: boom")

    monkeypatch.setattr(suite, "run_case", failing)
    assert main(["audit", "laplace_mechanism", "--samples", "1000"]) == 1
    assert "audit error: case laplace_mechanism (sampler laplace_mechanism) failed while auditing: RuntimeError: boom" \
        in error_of(capsys)


# -- 5. the command line ------------------------------------------------------------------------------------------

def _widths(out: str) -> int:
    return max(len(line) for line in out.splitlines())


@pytest.mark.parametrize("argv", [["theorems", "list"], ["samplers", "list"], ["samplers", "show", "dp_sgld_li"],
                                  ["theorems", "show", "wang2015.thm4_dp_sgld"]])
@pytest.mark.parametrize("columns", [80, 120])
def test_tables_and_text_fit_columns_and_wide_prints_everything(monkeypatch, capsys, argv, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    assert main(argv) == 0
    fitted = capsys.readouterr().out
    assert _widths(fitted) <= columns
    assert main([*argv, "--wide"]) == 0
    wide = capsys.readouterr().out
    assert _widths(wide) > columns
    words = lambda text: sorted(re.findall(r"\S+", text.replace("-", " ")))  # noqa: E731 -- nothing is cut
    assert len(words(fitted)) >= len(words(wide)) - 5 * wide.count("\n")


def test_verify_and_audit_library_output_fits_columns(monkeypatch, capsys):
    from test_cli_verify import _fake_results

    import dpverify.interfaces.cli.verify as verify_cli
    from dpverify.interfaces.cli.audit_library import print_rows

    monkeypatch.setattr(verify_cli, "_run_case_job", _fake_results({"ula_final": "inconclusive"}))
    for columns in (80, 100):
        monkeypatch.setenv("COLUMNS", str(columns))
        main(["verify", "--only", "ula_", "--no-theorems"])
        out = capsys.readouterr().out
        assert _widths(out) <= columns and "ula_final (samples 20000, time [s] 1.0)" in out
    monkeypatch.setenv("COLUMNS", "100")
    from dpverify.libraries.base import Claimed
    from dpverify.libraries.runner import LibraryResult

    row = LibraryResult("x", "diffprivlib", "0.6.6", "tools.quantile(epsilon=1.0, quantile=0.5)", "replace_one",
                        claimed=Claimed(1.0, 0.0), certified=2.5, pair="a very long description of the worst pair " * 3,
                        verdict="violation", label="expected", seconds=1.0)
    print_rows([row], width=100)
    assert _widths(capsys.readouterr().out) <= 100


def test_the_glossary_is_printed_only_with_explain_and_cases_are_named_as_cases(capsys):
    argv = ["audit", "dp_sgld_broken_double_rate", "--samples", "1000"]
    assert main(argv) in (0, 1)
    out = capsys.readouterr().out
    assert out.startswith("audit case dp_sgld_broken_double_rate: sampler dp_sgld_broken; pair: ")
    assert "defect='double_rate'" in out and "exact: the closed-form epsilon" not in out and "--explain" in out
    assert main(["audit", "laplace_mechanism", "--samples", "1000", "--explain"]) == 0
    assert "exact: the closed-form epsilon of the audited pair" in capsys.readouterr().out
    assert main(["samplers", "show", "dp_sgld_li"]) == 0
    out = capsys.readouterr().out
    assert "Audit cases of dp_sgld_li" in out and "dp_sgld_path" in out
    assert main(["audit", "dp_sgld_broken"]) == 2
    assert "dp_sgld_broken is a sampler; its audit cases are dp_sgld_broken_no_noise" in error_of(capsys)


def test_a_long_audit_shows_an_eta_and_warns_once_when_it_will_take_hours(monkeypatch):
    from dpverify.interfaces.cli import progress as progress_module

    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "perf_counter", lambda: clock[0])
    stream = io.StringIO()
    p = progress_module.Progress(1, "audit", stream=stream, item_lines=False, quiet_for=0.0)
    p.start_item("laplace_mechanism")
    callback = p.chunk_callback("laplace_mechanism")
    clock[0] += 10.0
    callback(2, 9538)  # 5 s a chunk: about 13 hours left
    callback(3, 9538)
    assert stream.getvalue().count("warning:") == 1
    assert "laplace_mechanism will take about 13 h 14 min more at the rate so far (2/9538 sample chunks in 10 s)" \
        in stream.getvalue()
    assert p.heartbeat_line().endswith("3/9538 sample chunks drawn, about 8 h 49 min left")
    p.close()
    assert progress_module.duration(45) == "45 s" and progress_module.duration(3 * 86400 + 7200) == "3 days 2 h"


def test_theorems_show_says_each_symbols_assumptions_once(capsys):
    assert main(["theorems", "show", "wang2015.thm4_dp_sgld"]) == 0
    out = capsys.readouterr().out
    assert "  N: positive integer" in out and "  delta: nonnegative real" in out and "  T: positive real" in out
    assert "(positive, nonnegative, integer, real)" not in out


def test_help_and_extras_say_what_happens(capsys):
    assert main(["audit-library", "--help"]) == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "quick (1.6k screening + 1k final; a whole catalogue takes one to two minutes of CPU)" in help_text
    assert "seconds" not in help_text
    extras = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(d.startswith("nbconvert") for d in extras["docs"])  # jupyter nbconvert --execute
    assert any(d.startswith("pytest-xdist") for d in extras["test"])


def test_argument_types_are_argparse_types():
    """The option types raise argparse's error (so argparse names the option), never a bare exception."""
    from dpverify.interfaces.cli import arguments

    for parse, text in ((arguments.samples(), "1e400"), (arguments.real(0.0), "nan"), (arguments.seed(), "-1"),
                        (arguments.path(), ""), (arguments.count(1), "2.5")):
        with pytest.raises(argparse.ArgumentTypeError, match="must be"):
            parse(text)


def test_slow_orders_with_a_small_lower_bound_are_computed_with_progress_and_the_same_numbers(capsys):
    """Where multi-precision orders are needed but one step leaks little (a huge order at a moderate noise
    multiplier), the RDP bound is still computed -- one order at a time, with progress on stderr -- and equals the
    accountant's own number."""
    from dpverify.calculus.accounting import epsilon_sampled_gaussian
    from dpverify.calculus.accounting.sampled_gaussian import needs_multiprecision

    orders = [1.5, 8.0, 2500000.5]  # a fractional order: integer ones up to 2^22 take the binomial sum
    assert needs_multiprecision(0.01, 0.6, orders)
    argv = ["account", "sgm", "--noise-multiplier", "0.6", "--sampling-rate", "0.01", "--steps", "100",
            "--delta", "1e-5", "--json", "--orders", *map(str, orders)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    rec = json.loads(captured.out)
    want = epsilon_sampled_gaussian(0.6, 0.01, 100, 1e-5, orders=orders)
    assert rec["epsilon"] == want.epsilon and rec["order"] == want.order
    assert "1 of 3 orders need multi-precision quadrature" in captured.err and "orders 1/1" in captured.err
