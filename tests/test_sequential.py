"""Sequential audits (issue 38, section 1): the schedule, the stopping rules, the option in every layer.

Validity over thousands of seeded audits is ``test_audit_validity_sequential.py``; the savings are measured by
``benchmarks/sequential.py``. Each test here names the bug it catches.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.known_bad import laplace_query
from dpverify.audit.sequential import (EARLY_SHARE, MAX_ROUNDS, MIN_ROUND, RoundSchedule, projected_bound, projected_refutation,
                                       round_seed)
from dpverify.audit.curve import curve_claim
from dpverify.calculus.tradeoff import GaussianDP
from dpverify.interfaces.cli import main

D, D2 = np.array([0.0]), np.array([1.0])


# -- the schedule ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("samples", [4, 1999, 2000, 8000, 20_000, 200_000, 10**6, 10**9])
def test_rounds_double_and_add_up_to_the_budget(samples):
    """Bugs caught: rounds that overspend the budget or alpha, a last round that is not the largest."""
    s = RoundSchedule.make(samples, 0.05)
    assert sum(s.sizes) == samples and s.rounds <= MAX_ROUNDS
    assert math.fsum(s.alphas) <= 0.05
    assert math.fsum(s.alphas) == pytest.approx(0.05, rel=1e-9)
    if s.rounds > 1:
        assert s.sizes[0] >= MIN_ROUND
        assert all(b == 2 * a for a, b in zip(s.sizes[:-2], s.sizes[1:-1]))
        assert sum(s.sizes[:-1]) <= EARLY_SHARE * samples  # the last round keeps three quarters of the budget
    else:
        assert samples < 4 * MIN_ROUND


def test_the_quick_and_standard_budgets_have_the_documented_rounds():
    assert RoundSchedule.make(20_000, 0.05).sizes == (1000, 2000, 17000)
    assert RoundSchedule.make(200_000, 0.05).sizes == (1000, 2000, 4000, 8000, 16000, 169000)
    assert RoundSchedule.make(10**9, 0.05).sizes[0] == 1_968_503  # the early rounds scale with the budget


@pytest.mark.parametrize("kwargs, name", [({"samples": 3}, "samples"), ({"alpha": 0.0}, "alpha"),
                                          ({"alpha": 1.0}, "alpha"), ({"min_round": 2}, "min_round"),
                                          ({"max_rounds": 0}, "max_rounds")])
def test_a_bad_schedule_names_its_argument(kwargs, name):
    args = {"samples": 8000, "alpha": 0.05, **kwargs}
    with pytest.raises(ValueError, match=name):
        RoundSchedule.make(args.pop("samples"), args.pop("alpha"), **args)


def test_round_seeds_are_reproducible_and_distinct():
    """Bug caught: every round drawing the same stream (the rounds would not be fresh samples)."""
    seeds = [round_seed(7, r) for r in range(MAX_ROUNDS)]
    assert seeds == [round_seed(7, r) for r in range(MAX_ROUNDS)]
    assert len(set(seeds)) == MAX_ROUNDS and len({round_seed(8, 0), seeds[0]}) == 2
    assert all(0 <= s < 2**63 for s in seeds)


# -- the futility projection -----------------------------------------------------------------------------------------

def test_projection_grows_with_the_final_round_and_is_optimistic():
    """Bugs caught: a projection below what the round itself certified (it would stop audits that were winning),
    or one that does not grow with the samples left."""
    k0, k1, n = 300, 100, 1000
    values = [projected_bound(k0, k1, n, complement=False, d_high=True, n_final=m, alpha_final=0.01, delta=0.0)
              for m in (1000, 10_000, 100_000)]
    assert values == sorted(values) and values[0] > 0
    assert values[-1] > math.log(3.0)  # the optimistic ends of the rates lie beyond their estimates' ratio
    mirrored = projected_bound(n - k1, n - k0, n, complement=True, d_high=False, n_final=10_000, alpha_final=0.01,
                               delta=0.0)
    assert mirrored == pytest.approx(values[1])
    assert projected_bound(5, 1, n, complement=False, d_high=True, n_final=10_000, alpha_final=0.01,
                           delta=0.5) == 0.0


def test_curve_projection_refutes_only_curves_the_rates_could_reach():
    claim = curve_claim(GaussianDP(0.5))
    # a test with error rates 0.05 and 0.05 (mu about 3.3) refutes 0.5-GDP; rates 0.4 and 0.5 cannot
    assert projected_refutation(950, 50, 1000, d_high=True, claim=claim, n_final=10_000, alpha_final=0.01)
    assert not projected_refutation(500, 400, 1000, d_high=True, claim=claim, n_final=10_000, alpha_final=0.01)


# -- audits ------------------------------------------------------------------------------------------------------------

def test_a_large_violation_stops_at_the_first_round():
    """Laplace with a tenth of its noise (exact epsilon 10, claimed 1): the fixed audit draws 2x10^5 per side, the
    sequential one stops after its first round with a violation. Bugs caught: rounds that never stop, a stop that is
    not reported, samples_used counting the budget."""
    r = audit(laplace_query(1.0, noise_factor=0.1), D, D2, epsilon=1.0, samples=200_000, seed=1, sequential=True)
    assert r.verdict == "violation" and r.stopping_rule == "violation"
    assert r.samples_used == r.looks[0].samples == 1000 and len(r.looks) == 1 and r.samples == 200_000
    assert r.epsilon_lower > 1.0 and r.confidence == 0.95
    assert "sequential audit, 1000 of 200000 samples per side used" in r.verdict_reason


def _coin(dataset, n, rng):
    """1 with probability 0.3 + 0.4 x (x the record, 0 or 1): epsilon log(7/3) = 0.847, no exact value declared."""
    return (rng.random(n) < 0.3 + 0.4 * float(np.asarray(dataset).reshape(-1)[0])).astype(np.int8)


def test_a_loose_claim_stops_for_futility_without_a_violation():
    """A correct coin (epsilon 0.847) claimed 2: after the first round of at least a sixteenth of the budget (16000
    of 200000) that separated the sides, the last round could not certify 2 even at the optimistic ends of the
    rates: futility stops with the fixed rule's verdict. Bug caught: futility reported as a violation, or never
    firing."""
    r = audit(_coin, np.array([0]), np.array([1]), epsilon=2.0, samples=200_000, seed=2, sequential=True)
    assert r.stopping_rule == "futility" and r.verdict != "violation"
    assert r.samples_used == 31_000 and r.looks[-1].samples == 16_000
    assert 0 < r.epsilon_lower <= math.log(7 / 3)


def test_futility_waits_for_a_round_that_separated_the_sides():
    """A round that certified 0 (its selection found nothing) is no evidence of futility: an audit of two identical
    coins never stops for futility, whatever the claim. Bug caught: futility on an uninformative round (it stopped
    8 of the standard suite's 18 violations at the first round, benchmarks/sequential.py)."""
    same = audit(lambda d, n, rng: (rng.random(n) < 0.5).astype(np.int8), np.array([0]), np.array([1]), epsilon=2.0,
                 samples=40_000, seed=0, sequential=True)
    assert same.stopping_rule == "budget" and same.samples_used == 40_000


def test_a_tight_claim_runs_every_round_and_keeps_the_best_bound():
    r = audit(laplace_query(1.0), D, D2, epsilon=1.0, samples=20_000, seed=3, sequential=True)
    assert r.stopping_rule == "budget" and r.samples_used == 20_000 and r.verdict == "consistent"
    assert r.epsilon_lower == max(look.epsilon_lower for look in r.looks)
    assert r.budget_ceiling is None or r.budget_ceiling <= 1.0


def test_numbers_do_not_depend_on_the_workers():
    """The rounds' seeds and splits depend on the question only. Bug caught: a stop decided on chunks in the
    order workers finish them."""
    one = audit(laplace_query(1.0, noise_factor=0.5), D, D2, epsilon=1.0, samples=40_000, seed=4, sequential=True,
                chunk_size=1000)
    two = audit(laplace_query(1.0, noise_factor=0.5), D, D2, epsilon=1.0, samples=40_000, seed=4, sequential=True,
                chunk_size=1000, workers=2)
    assert one.looks == two.looks and one.epsilon_lower == two.epsilon_lower and one.verdict == two.verdict


def test_a_fixed_audit_records_its_whole_budget():
    r = audit(laplace_query(1.0), D, D2, epsilon=1.0, samples=5000, seed=0)
    assert r.samples_used == 5000 and r.stopping_rule == "" and r.looks == ()


def test_result_as_data_and_repr():
    r = audit(laplace_query(1.0), D, D2, epsilon=1.0, samples=8000, seed=0, sequential=True)
    row = json.loads(json.dumps(r.to_dict()))
    assert row["stopping_rule"] == r.stopping_rule and row["samples_used"] == r.samples_used
    assert [look["samples"] for look in row["looks"]] == [look.samples for look in r.looks]
    assert f"looks=<{len(r.looks)} rounds>" in repr(r)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_sequential_must_be_a_bool(value):
    with pytest.raises(TypeError, match="sequential must be True or False"):
        audit(laplace_query(1.0), D, D2, epsilon=1.0, samples=5000, sequential=value)


# -- the command line and the plugin -----------------------------------------------------------------------------------

def test_cli_audit_sequential_stops_and_says_so(capsys):
    """``dpverify audit CASE --sequential --json``: a known-bad sampler case stops early with a violation."""
    status = main(["audit", "dp_sgld_broken_no_clip", "--sequential", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert status == 1 and out["verdict"] == "violation" and out["stopping_rule"] == "violation"
    assert out["samples_used"] < out["samples"] == 20_000


def test_cli_verify_sequential_is_a_setting_of_the_run(tmp_path, capsys):
    status = main(["verify", "--only", "laplace_mechanism", "--no-theorems", "--sequential", "--report",
                   str(tmp_path)])
    report = json.loads((tmp_path / "report.json").read_text())
    assert status == 0 and report["settings"]["sequential"] is True
    (row,) = report["audits"]
    assert row["audit"]["stopping_rule"] in ("violation", "futility", "budget")
    assert "/" in capsys.readouterr().out.split("laplace_mechanism")[-1]  # samples shown as used/budget


def test_plugin_option_reaches_every_audit(pytester):
    pytester.makepyfile("""
import numpy as np
import pytest

def laplace(dataset, n, rng):
    return float(np.sum(dataset)) + rng.laplace(0.0, 0.1, size=n)

@pytest.mark.dp_audit(epsilon=1.0)
def test_broken(dp_auditor):
    dp_auditor(laplace, np.array([0.0]), np.array([1.0]))
""")
    report = pytester.path / "dp.json"
    result = pytester.runpytest_subprocess("--dp-samples", "100000", "--dp-sequential", "--dp-report", str(report),
                                           "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    data = json.loads(report.read_text())
    (row,) = data["audits"]
    assert data["settings"]["sequential"] is True and row["stopping_rule"] == "violation"
    assert row["samples_used"] < 100_000
    result.stdout.fnmatch_lines(["*test_broken*violation*/100000*"])


def test_the_library_search_passes_sequential_to_its_final_audits():
    """``audit-library --sequential``: the screening stays fixed (it only ranks), the final audit stops when decided.
    Bug caught: the option dropped on its way to the final audit."""
    from dpverify.audit.search import search_then_certify

    pairs = [(np.array([0.0]), np.array([0.5])), (np.array([0.0]), np.array([1.0]))]
    found = search_then_certify(laplace_query(1.0, noise_factor=0.1), pairs, epsilon=1.0, search_budget=2000,
                                final_samples=100_000, seed=0, sequential=True)
    assert found.index == 1 and found.final.stopping_rule == "violation" and found.final.samples_used < 100_000
    fixed = search_then_certify(laplace_query(1.0, noise_factor=0.1), pairs, epsilon=1.0, search_budget=2000,
                                final_samples=100_000, seed=0)
    assert fixed.final.stopping_rule == "" and fixed.final.samples_used == 100_000
