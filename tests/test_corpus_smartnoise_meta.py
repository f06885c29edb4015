"""The SmartNoise corpus cases' metadata and reference formulas (no SmartNoise needed: the default run).

The checks themselves run on the installed SmartNoise in ``tests/test_corpus_smartnoise.py`` (marker
``smartnoise_sql``); here: each case's versions are consistent, the module imports without SmartNoise, and the two
reference formulas the exact checks compare against (Kairouz et al.'s Thm 3.4, PATE-GAN's Algorithm 1) have the
power to tell the reported defect from its fix.
"""
from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import pytest

from dpverify.libraries.corpus import CASES, find
from dpverify.libraries.corpus.smartnoise_bugs import (CASES as SMARTNOISE, kairouz_theorem_3_4,
                                                       pate_log_moment)

IDS = ("smartnoise#621", "smartnoise#622", "smartnoise#574", "smartnoise-pr580", "smartnoise#596")


def test_the_cases_are_in_the_corpus() -> None:
    assert tuple(c.id for c in SMARTNOISE) == IDS
    assert all(find(i) in CASES for i in IDS)


@pytest.mark.parametrize("case_id", IDS)
def test_versions_are_consistent(case_id: str) -> None:
    """An affected release and, where a fix shipped, the first fixed release, each with the verdict its range
    gives; refs are the upstream tracker's."""
    case = find(case_id)
    assert case.kind == "library" and case.method in ("exact", "replay")
    assert case.pip_name in ("smartnoise-sql", "smartnoise-synth")
    assert all(r.startswith("https://github.com/opendp/smartnoise-sdk/") for r in case.refs)
    if "#" in case_id:
        assert case.refs[0].endswith("/issues/" + case_id.split("#")[1])
    else:
        assert case.refs[0].endswith("/pull/" + case_id.split("-pr")[1])
    assert any(case.expected(r) == "bad" for r in case.releases)
    if case.fixed_in is not None:
        assert case.fixed_in in case.releases and case.expected(case.fixed_in) == "good"
    assert 1 <= len(case.releases) <= 3


def test_pr_624_boundaries() -> None:
    """PR #624 fixed #621 (smartnoise-sql 1.0.7) and #622 (smartnoise-synth 1.0.6): the release before each is
    affected."""
    assert find("smartnoise#621").expected("1.0.6") == "bad" and find("smartnoise#621").expected("1.0.7") == "good"
    assert find("smartnoise#622").expected("1.0.5") == "bad" and find("smartnoise#622").expected("1.0.6") == "good"
    for case_id in ("smartnoise#574", "smartnoise-pr580"):  # PR #580, released in 1.0.2
        assert find(case_id).expected("1.0.1") == "bad" and find(case_id).expected("1.0.2") == "good"


def test_the_module_imports_without_smartnoise() -> None:
    """The corpus is imported where SmartNoise is missing: the checks import it inside themselves."""
    code = ("import sys; import dpverify.libraries.corpus.smartnoise_bugs; "
            "print(any(m.split('.')[0] in ('snsql', 'snsynth') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_theorem_3_4_third_bound_wins_and_the_missing_log_loses_it() -> None:
    """400 queries of 0.1 at tol 5e-6: Thm 3.4 is its third bound, 2.0 + 0.1 sqrt(800 ln 2e5) = 11.880 (< 40 = k
    eps and < the second bound 12.16); the formula of smartnoise#621 (no log: 0.1 sqrt(800 * 2e5) = 40 = k eps)
    lies far above it."""
    eps, k, tol = 0.1, 400, 5e-6
    left = k * eps * math.expm1(eps) / (math.exp(eps) + 1)
    third = left + eps * math.sqrt(2 * k * math.log(1 / tol))
    assert kairouz_theorem_3_4(eps, k, tol) == pytest.approx(third, rel=1e-12)
    assert kairouz_theorem_3_4(eps, k, tol) == pytest.approx(11.8800646629, rel=1e-9)
    without_log = left + eps * math.sqrt(2 * k / tol)
    second = left + eps * math.sqrt(2 * k * math.log(math.e + math.sqrt(k) * eps / tol))
    assert min(k * eps, second, without_log) > kairouz_theorem_3_4(eps, k, tol) + 0.2


def test_theorem_3_4_is_basic_composition_for_few_queries() -> None:
    """k = 1: k eps is the smallest of the three bounds."""
    assert kairouz_theorem_3_4(0.5, 1, 1e-6) == pytest.approx(0.5)


def _log_moment_without_log(num_teachers: int, votes: np.ndarray, lap_scale: float, orders: np.ndarray) -> np.ndarray:
    """The computation of smartnoise#596 (``moments_acc``), in numpy: ``min(t, 2 lambda^2 l (l + 1))`` with the
    moment t where Algorithm 1 takes log t."""
    gap = np.abs(2.0 * votes.reshape(-1) - num_teachers)
    q = (2.0 + lap_scale * gap) / (4.0 * np.exp(lap_scale * gap))
    out = []
    for order in orders.astype(float):
        t = (1 - q) * ((1 - q) / (1 - math.exp(2 * lap_scale) * q)) ** order + q * np.exp(2 * lap_scale * order)
        out.append(float(np.minimum(t, 2 * lap_scale ** 2 * order * (order + 1)).sum()))
    return np.array(out)


def test_pate_log_moment_has_power_against_the_missing_log() -> None:
    """Unanimous votes of 10 teachers at lap_scale 1, l = 1: q = 12 / (4 e^10) = 1.36e-4 and the log-moment is
    log t = 0.00166 per vote, where the reported computation keeps t = 1.00166 (the bound 2 * 1 * 2 = 4 is larger
    in both); at lap_scale 1e-3 (the synthesizers' own) the bound is the smaller term and both agree."""
    votes, orders = np.full(64, 10.0), np.arange(1, 101)
    paper, reported = pate_log_moment(10, votes, 1.0, orders), _log_moment_without_log(10, votes, 1.0, orders)
    q = 12.0 / (4.0 * math.exp(10.0))
    t1 = (1 - q) * ((1 - q) / (1 - math.exp(2.0) * q)) + q * math.exp(2.0)
    assert paper[0] == pytest.approx(64 * math.log(t1), rel=1e-9)
    assert reported[0] == pytest.approx(64 * t1, rel=1e-9)
    assert np.all(reported >= paper) and np.any(reported > paper * 1.5)
    small = pate_log_moment(10, votes, 1e-3, orders)
    assert small == pytest.approx(_log_moment_without_log(10, votes, 1e-3, orders), rel=1e-12)
