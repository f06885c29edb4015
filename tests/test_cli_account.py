"""``dpverify account sgm``: text and JSON output, conversions, bad input (exit status 2)."""
import json

import pytest

from dpverify.calculus.accounting import epsilon_sampled_gaussian
from dpverify.interfaces.cli import main

REF = ["account", "sgm", "--noise-multiplier", "1.1", "--sampling-rate", str(256 / 60000),
       "--steps", "14062", "--delta", "1e-5"]


def test_text_output_names_epsilon_order_and_conversion(capsys):
    assert main(REF) == 0
    out = capsys.readouterr().out
    # dp-accounting 0.6 gives 2.596556 at this point (shared/DEPENDENCIES.md); optimal order 8.1.
    assert "2.59656" in out and "8.1" in out and "balle2020" in out


def test_json_output(capsys):
    assert main(REF + ["--json", "--method", "mironov2017"]) == 0
    rec = json.loads(capsys.readouterr().out)
    want = epsilon_sampled_gaussian(1.1, 256 / 60000, 14062, 1e-5, method="mironov2017")
    assert rec["epsilon"] == pytest.approx(want.epsilon, rel=1e-12)
    assert (rec["delta"], rec["order"], rec["method"], rec["steps"]) == (1e-5, want.order, "mironov2017", 14062)
    assert rec["epsilon"] > epsilon_sampled_gaussian(1.1, 256 / 60000, 14062, 1e-5).epsilon


def test_custom_orders(capsys):
    assert main(REF + ["--orders", "2", "4", "8", "16", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["order"] in (2.0, 4.0, 8.0, 16.0)
    assert rec["epsilon"] == pytest.approx(
        epsilon_sampled_gaussian(1.1, 256 / 60000, 14062, 1e-5, orders=[2, 4, 8, 16]).epsilon, rel=1e-12)


@pytest.mark.parametrize(
    "flag, value, name",
    [
        ("--sampling-rate", "1.5", "sampling_rate"),
        ("--sampling-rate", "0", "sampling_rate"),
        ("--noise-multiplier", "-1", "noise_multiplier"),
        ("--noise-multiplier", "nan", "noise_multiplier"),
        ("--steps", "2.5", "steps"),
        ("--steps", "0", "steps"),
        ("--delta", "1", "delta"),
        ("--delta", "0", "delta"),
    ],
)
def test_bad_input_exits_2_naming_the_argument(capsys, flag, value, name):
    argv = list(REF)
    argv[argv.index(flag) + 1] = value
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"error: argument {flag}: must be " in err and (f"got '{value}'" in err or value == "nan" and "got NaN" in err)


def test_bad_orders_exit_2(capsys):
    assert main(REF + ["--orders", "1", "2"]) == 2
    assert "orders" in capsys.readouterr().err
