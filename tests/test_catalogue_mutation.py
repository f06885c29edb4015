"""Every registered conclusion is pinned: perturb it and some check of that theorem must fail.

For each of the 116 theorems, every conclusion is perturbed in turn (:mod:`dpverify.theorems.mutation`): times 3/2,
plus 1/100, and with one argument of a top-level sum, product, min or max dropped. Each mutant must make at least
one check of *that* theorem fail, and each check that catches a mutant must pass on the unperturbed theorem (else
"caught" would mean nothing). ``mutation/catalogue.py`` prints the full table (which checks catch which mutant).
"""
import pytest

from dpverify.theorems import catalogue, mutation, registry

THEOREMS = registry.all_theorems()


def test_every_catalogue_item_is_perturbed():
    assert sorted(t.id for t in THEOREMS) == sorted(catalogue.ids()) and len(THEOREMS) == 116
    no_conclusion = [t.id for t in THEOREMS if not t.conclusion]
    assert no_conclusion == [], "every item needs a conclusion to pin"
    counts = {p: sum(1 for t in THEOREMS for m in mutation.mutants(t) if m.perturbation.split(":")[0] == p)
              for p in ("scale", "shift", "drop")}
    # every conclusion key that is not the constant 0 has a scale mutant; every key has a shift mutant
    keys = sum(len(t.conclusion) for t in THEOREMS)
    zeros = sum(1 for t in THEOREMS for v in t.conclusion.values() if v == 0)
    assert counts["shift"] == keys and counts["scale"] == keys - zeros and counts["drop"] > 0, counts


@pytest.mark.parametrize("theorem", THEOREMS, ids=[t.id for t in THEOREMS])
def test_every_theorem_has_a_pin(theorem):
    """At least one check evaluates the registered conclusion at points against an independent value."""
    assert any(c.pins for c in theorem.checks), f"{theorem.id}: no Theorem.add_pin check"


@pytest.mark.parametrize("theorem", THEOREMS, ids=[t.id for t in THEOREMS])
def test_every_perturbed_conclusion_is_caught(theorem):
    before = dict(theorem.conclusion)
    uncaught, catchers = [], set()
    for m in mutation.mutants(theorem):
        outcome = mutation.run_mutant(theorem, m, stop_at_first=True)
        if outcome.caught:
            catchers.update(outcome.caught_by)
        else:
            uncaught.append(f"{m.key} {m.perturbation}: {m.expr}")
    assert theorem.conclusion == before, "a mutant was left in the registered conclusion"
    assert not uncaught, f"{theorem.id}: no check fails for {uncaught}"
    by_name = {c.name: c for c in theorem.checks}
    failing_unperturbed = [n for n in sorted(catchers) if not by_name[n].run().passed]
    assert not failing_unperturbed, f"{theorem.id}: checks {failing_unperturbed} fail without any perturbation"
