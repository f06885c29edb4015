"""The shipped proofs (issue 35): ``dpverify/prove/shipped/`` holds, for every catalogue item of a provable kind,
the outcome this version expects and a certificate per decided part, each of the current form and each accepted by
the independent checker. ``theorems show`` and ``verify`` report from them.

Which bug would make these fail: a form changed without re-running ``python -m dpverify.prove.ship`` (a stale
version), a certificate the checker rejects or that is missing from the package data, an item added to a provable
kind without a shipped outcome, a problem version that depends on the process (string hashing, sympy's dummy
counter: one problem, several versions).
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from dpverify.prove import check_certificate, shipped
from dpverify.prove.catalogue import form, item_problems, provable_ids


@pytest.fixture(scope="module")
def index():
    items = shipped.index()
    if not items:  # pragma: no cover - the index must ship
        pytest.fail("dpverify/prove/shipped/index.json is missing: run python -m dpverify.prove.ship")
    return items


def test_every_provable_item_ships_its_expected_outcome(index):
    ids = provable_ids()
    assert len(ids) == 79
    assert sorted(index) == sorted(ids)
    for theorem_id in ids:
        assert index[theorem_id].outcome == form(theorem_id).expected, theorem_id
    counts = {o: sum(1 for s in index.values() if s.outcome == o) for o in ("proved", "refuted", "undecided")}
    assert counts == {"proved": 52, "refuted": 3, "undecided": 9}, counts
    assert sum(1 for s in index.values() if s.outcome == "not provable") == 15


def test_every_shipped_part_is_of_the_current_form(index):
    stale = []
    for theorem_id, item in index.items():
        current = {name: problem.version for name, problem in item_problems(theorem_id)}
        stale += [f"{theorem_id}[{p.part}]" for p in item.parts if current.get(p.part) != p.version]
    assert not stale, f"stale shipped certificates (run python -m dpverify.prove.ship --only ...): {stale}"


def test_one_shipped_certificate_per_paper_re_checks(index):
    """The default run re-checks the first decided part of each paper's first items (13 certificates: the 7 papers of
    before issue 39 and yildirim2019, raisa2021, minami2016, gopi2022, bok2024, heikkila2019; a few seconds); every certificate in the slow run,
    and in each ``dpverify verify``."""
    seen, rechecked = set(), 0
    for theorem_id, item in sorted(index.items()):
        paper = theorem_id.split(".")[0]
        part = next((p for p in item.parts if p.certificate), None)
        if paper in seen or part is None:
            continue
        seen.add(paper)
        report = check_certificate(str(shipped.SHIPPED / part.certificate))
        assert report.valid and report.outcome == part.outcome, (theorem_id, part.part, report.errors)
        rechecked += 1
    assert rechecked == 13


@pytest.mark.slow
def test_every_shipped_certificate_re_checks(index):
    rechecks = shipped.recheck()
    decided = sorted((i, p.part) for i, item in index.items() for p in item.parts if p.outcome in ("proved", "refuted"))
    assert sorted((r.theorem_id, r.part) for r in rechecks) == decided and len(decided) > 90
    invalid = [(r.theorem_id, r.part, r.errors) for r in rechecks if not r.valid]
    assert not invalid


def test_problem_versions_do_not_depend_on_the_process():
    """The same problem in two processes with different string hashing has one version (Max's arguments and
    summation dummies were printed in process order before)."""
    code = ("from dpverify.prove.catalogue import item_problems\n"
            "for i in ('foulds2016.sec4_gibbs_costs', 'wang2015.lem3_advanced_composition'):\n"
            "    print(*[p.version for _, p in item_problems(i)])\n")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={**__import__("os").environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(outs) == 1, outs
