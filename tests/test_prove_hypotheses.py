"""Hypothesis mutants (issue 35): ``python mutation/catalogue.py --hypotheses`` drops each hypothesis of an item the
prover proves, and the prover must refute the widened statement where the hypothesis is needed; and an item's
declared time per part (``ItemForm.part_seconds``) is honoured unless the caller asks for its own limit.

Which bug would make these fail: a dropped hypothesis that stays in the problem (the widened statement would be
proved: no mutant caught), a widening that does not widen (the same), a summary or exit status that ignores a missed
mutant, a time cap that is not applied or that overrides an explicit ``--max-seconds``.
"""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

from dpverify.prove import catalogue
from dpverify.prove.catalogue import prove_item
from dpverify.prove.search import Limits

ROOT = Path(__file__).resolve().parents[1]


def test_hypothesis_mutants_of_one_item_are_caught_or_kept(tmp_path):
    """Lemma 4 (subsampling) needs eps < 1 (refuted near eps = 1.46 without it); gamma <= 1 is a probability's range."""
    out = tmp_path / "hyp.json"
    run = subprocess.run([sys.executable, str(ROOT / "mutation" / "catalogue.py"), "--hypotheses", "--only",
                          "wang2015.lem4_subsampling", "--json", str(out), "--max-seconds", "60"],
                         capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(out.read_text())
    status = {r["hypothesis"]: r["status"] for r in data["rows"]}
    assert status["epsilon_below_one"] == "caught"
    assert status["gamma_at_most_one"] == "kept"
    assert data["counts"]["missed"] == 0 and data["counts"]["caught"] >= 1
    assert "1 items" in run.stdout and "caught (refuted without the hypothesis)" in run.stdout


def test_only_items_proved_as_stated_are_mutated():
    """An item refuted or undecided as stated has no hypothesis mutants (nothing to learn from dropping one)."""
    run = subprocess.run([sys.executable, str(ROOT / "mutation" / "catalogue.py"), "--hypotheses", "--only",
                          "li2019.lem2_sampled_gaussian"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert run.returncode == 2 and "no provable item matches" in run.stderr


def test_an_items_part_seconds_caps_its_parts_unless_the_caller_sets_its_own(monkeypatch):
    theorem_id = "wang2015.thm2_gaussian_mechanism"
    capped = dataclasses.replace(catalogue.FORMS[theorem_id], part_seconds=1e-3)
    monkeypatch.setitem(catalogue.FORMS, theorem_id, capped)
    short = prove_item(theorem_id, limits=Limits(max_seconds=60))
    assert short.outcome == "undecided" and "time limit" in short.summary()
    full = prove_item(theorem_id, limits=Limits(max_seconds=60), form_budget=False)
    assert full.outcome == "proved", full.summary()
