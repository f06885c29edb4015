"""Accountants against rigorous enclosures of the truth (issue 35, section 4; dpverify.prove.accountants).

Which bug would make these fail: a lower bound that is not one (it would exceed the exact epsilon of a full-batch
run, where the test on the sum is optimal), an upper bound below it, an unsound accountant (answers 20% below the
truth) not flagged, a vacuous or crashing one reported as consistent, a memory-hungry one taking the machine down.
"""
from __future__ import annotations

import math

import pytest

from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.prove.accountants import (
    _dpverify_pld,
    call_with_limits,
    check_accountant,
    epsilon_lower,
    epsilon_upper,
)

SMALL_BOX = {"sigma": (0.8, 4.0), "q": (0.01, 1.0), "steps": (1, 300), "delta": (1e-8, 1e-3)}


@pytest.mark.parametrize("sigma, steps, delta", [(1.0, 10, 1e-5), (2.0, 100, 1e-8), (0.7, 1, 1e-3)])
def test_full_batch_enclosures_bracket_the_exact_epsilon(sigma, steps, delta):
    # q = 1: T Gaussian steps are one Gaussian mechanism with mu = sqrt(T) / sigma (Balle and Wang 2018), and the
    # sum is a sufficient statistic, so the lower bound is within 1e-4 (relative) of the truth
    exact = gaussian_epsilon(delta, math.sqrt(steps) / sigma)
    low, _ = epsilon_lower(sigma, 1.0, steps, delta)
    up, _ = epsilon_upper(sigma, 1.0, steps, delta)
    assert low <= exact <= up
    assert low == pytest.approx(exact, rel=1e-4)  # the threshold is optimised in float64; the bound backs off 1e-6


def test_subsampled_enclosures_bracket_the_pld_accountant():
    # the DP-SGD reference point (DEPENDENCIES: PLD 2.3817, RDP 2.5966)
    args = (1.1, 256 / 60000, 14062, 1e-5)
    low, _ = epsilon_lower(*args)
    up, order = epsilon_upper(*args)
    assert 1.5 < low < 2.37 and 2.39 < up < 2.6
    assert low <= _dpverify_pld(*args) <= up * 1.01


def test_an_unsound_accountant_is_caught_and_a_good_one_is_not():
    def too_small(sigma, q, steps, delta):
        return 0.8 * gaussian_epsilon(delta, math.sqrt(steps) / sigma)  # 20% below the truth at q = 1

    def exact(sigma, q, steps, delta):
        return gaussian_epsilon(delta, math.sqrt(steps) / sigma)

    box = {**SMALL_BOX, "q": (1.0, 1.0)}
    bad = check_accountant(too_small, box=box, points=6)
    assert bad.count("unsound") == 6
    good = check_accountant(exact, box=box, points=6)
    assert good.count("consistent") == 6


def test_loose_vacuous_and_failing_accountants_are_told_apart():
    def loose(sigma, q, steps, delta):
        return 10 * epsilon_upper(sigma, q, steps, delta)[0] + 1

    def vacuous(sigma, q, steps, delta):
        return math.inf

    def crashes(sigma, q, steps, delta):
        raise ZeroDivisionError("bug")

    assert check_accountant(loose, box=SMALL_BOX, points=4).count("loose") == 4
    assert check_accountant(vacuous, box=SMALL_BOX, points=4).count("vacuous") == 4
    report = check_accountant(crashes, box=SMALL_BOX, points=3)
    assert report.count("error") == 3 and "ZeroDivisionError" in report.points[0].error


def test_limits_stop_a_hungry_or_hanging_accountant():
    def hungry():
        return float(len(bytearray(8 * 2**30)))

    def hangs():
        import time
        time.sleep(60)
        return 1.0

    with pytest.raises(RuntimeError, match="MemoryError"):
        call_with_limits(hungry, (), seconds=30, memory_bytes=2**30)
    with pytest.raises(RuntimeError, match="within 1 s"):
        call_with_limits(hangs, (), seconds=1, memory_bytes=2**30)


def test_dp_accounting_pld_is_consistent_on_a_small_box():
    report = check_accountant("dp-accounting-pld", box=SMALL_BOX, points=4)
    assert report.count("unsound") == 0 and report.count("error") == 0
