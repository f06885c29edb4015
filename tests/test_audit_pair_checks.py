"""Issue 23, section 2: answers that were silently wrong about the pair or the budget.

- datasets that are not neighbours under any relation gave a bare "violation"; identical datasets a bare
  "inconclusive": the reason now says what is wrong with the pair (:func:`dpverify.audit.datasets.pair_note`);
- a certificate above a stated exact epsilon was not flagged: the reason now says the implementation is not the
  mechanism that value describes (:func:`dpverify.audit.certify.exact_contradiction`);
- a mechanism that changes its dataset argument was blamed on "randomness from somewhere other than its rng": it is now
  a ``ValueError`` saying what it does;
- ``confidence = 1 - 1e-16`` or ``samples = 4`` printed a negative "most any audit can certify": it is 0, and the
  reason says nothing can be certified at that budget.
"""
from __future__ import annotations

import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.ceiling import saturation
from dpverify.audit.datasets import pair_note


def sum_laplace(dataset, n, rng):
    return np.sum(dataset) + rng.laplace(0.0, 1.0, n)


@pytest.mark.parametrize(("d0", "d1", "kind"), [
    ([1, 0, 1], [1, 1, 1, 1], "not adjacent"),   # sizes differ by one, but no single removal gives the other
    ([1, 0, 1], [0, 1, 0], "not adjacent"),      # three records replaced
    ([1, 0, 1], [1, 0, 1], "identical"),
    ([1, 0, 1], [1, 1, 1], None),                # replace-one
    ([1, 0, 1], [1, 0], None),                   # add/remove
    (np.zeros((4, 2)), np.ones((4, 2)), "not adjacent"),
])
def test_pair_note_reads_the_relation(d0, d1, kind):
    note = pair_note(d0, d1)
    assert (note[0] if note else None) == kind


def test_pair_note_is_silent_on_objects_it_cannot_read_as_records():
    assert pair_note({"a": 1}, {"a": 2}) is None
    assert pair_note([[1, 2], [3]], [[1, 2]]) is None  # ragged


def test_a_violation_on_a_non_adjacent_pair_says_so():
    r = audit(sum_laplace, [1, 0, 1], [1, 1, 1, 1], epsilon=1.0, samples=20_000, seed=0)
    assert r.verdict == "violation"  # true of this pair: the sums differ by 2
    assert "not neighbours under replace-one nor add/remove" in r.verdict_reason
    with pytest.raises(ValueError, match="not adjacent"):
        audit(sum_laplace, [1, 0, 1], [1, 1, 1, 1], epsilon=1.0, samples=20_000, seed=0, adjacency="either")


class QueryAnswersLaplace:
    """Laplace noise on a vector of query answers whose neighbouring relation is its own: every answer moved by at most
    1 (the l-infinity shift of DP-Sniper's and StatDP's query-vector mechanisms), not a record relation."""

    neighbour_relation = "each query answer moved by at most 1"

    def __call__(self, answers, n, rng):
        return np.max(np.asarray(answers, dtype=float)) + rng.laplace(0.0, 1.0, n)

    def are_neighbours(self, answers, other):
        a, b = np.asarray(answers, dtype=float), np.asarray(other, dtype=float)
        return bool(a.shape == b.shape and np.max(np.abs(a - b)) <= 1.0)


def test_a_mechanism_with_its_own_relation_is_judged_by_it():
    mech = QueryAnswersLaplace()
    # three answers moved by 1: not neighbours as records, neighbours under the mechanism's relation -> no note
    assert pair_note([1, 0, 1], [0, 1, 0]) is not None
    assert pair_note([1, 0, 1], [0, 1, 0], mech) is None
    r = audit(mech, [1, 0, 1], [0, 1, 2], epsilon=0.5, samples=20_000, seed=0)  # max moves by 1 -> exact eps 1
    assert r.verdict == "violation" and "neighbour" not in r.verdict_reason
    # moved by 2: not neighbours under its own relation, and the note names that relation, not the record ones
    kind, sentence = pair_note([1, 0, 1], [3, 0, 1], mech)
    assert kind == "not adjacent" and "each query answer moved by at most 1" in sentence
    assert "replace-one" not in sentence
    r = audit(mech, [1, 0, 1], [3, 0, 1], epsilon=1.0, samples=20_000, seed=0)
    assert r.verdict == "violation" and "mechanism's own relation" in r.verdict_reason
    # identical inputs are still named as such
    assert pair_note([1, 0, 1], [1, 0, 1], mech)[0] == "identical"


def test_a_declared_relation_must_answer_with_a_bool():
    class Vague(QueryAnswersLaplace):
        def are_neighbours(self, answers, other):
            return "yes"

    with pytest.raises(TypeError, match="are_neighbours.*must return a bool"):
        pair_note([1, 0, 1], [0, 1, 0], Vague())


def test_a_neighbouring_pair_has_no_note():
    r = audit(sum_laplace, [1, 0, 1], [1, 1, 1], epsilon=1.0, samples=20_000, seed=0)
    assert "neighbour" not in r.verdict_reason


def test_identical_datasets_say_why_nothing_is_certified():
    r = audit(sum_laplace, [1, 0, 1], [1, 0, 1], epsilon=1.0, samples=20_000, seed=0)
    assert r.verdict == "inconclusive"
    assert "dataset and neighbour are identical" in r.verdict_reason


def test_a_certificate_above_the_stated_exact_epsilon_is_a_contradiction():
    # the pair's true epsilon is 1 (sums 2 vs 3, Laplace scale 1); 20,000 samples certify about 0.93 > 0.1
    r = audit(sum_laplace, [1, 0, 1], [1, 1, 1], epsilon=1.0, samples=20_000, seed=0, exact_epsilon=0.1)
    assert r.epsilon_lower > 0.1
    assert "exceeds the pair's stated exact epsilon 0.1" in r.verdict_reason
    # the true value stated: no contradiction (the certificate is below 1 but with probability 0.05)
    r = audit(sum_laplace, [1, 0, 1], [1, 1, 1], epsilon=1.0, samples=20_000, seed=0, exact_epsilon=1.0)
    assert r.epsilon_lower <= 1.0 and "exceeds" not in r.verdict_reason


def test_a_mechanism_that_changes_its_dataset_is_named():
    def appends(dataset, n, rng):
        dataset.append(1)
        return np.sum(dataset) + rng.laplace(0.0, 1.0, n)

    with pytest.raises(ValueError, match="mechanism modified its dataset argument"):
        audit(appends, [1, 0, 1], [1, 1, 1], epsilon=1.0, samples=2_000, seed=0)

    def scales_in_place(dataset, n, rng):
        dataset *= 2.0
        return np.sum(dataset) + rng.laplace(0.0, 1.0, n)

    with pytest.raises(ValueError, match="mechanism modified its dataset argument"):
        audit(scales_in_place, np.array([1.0, 0.0]), np.array([1.0, 1.0]), epsilon=1.0, samples=2_000, seed=0)


@pytest.mark.parametrize("kwargs", [{"confidence": 1 - 1e-16, "samples": 20_000}, {"samples": 4}])
def test_the_most_any_audit_can_certify_is_never_negative(kwargs):
    r = audit(sum_laplace, [1, 0, 1], [1, 1, 1], epsilon=1.0, seed=0, **kwargs)
    assert r.saturation == 0.0 and r.epsilon_lower == 0.0
    assert r.verdict == "inconclusive" and "no audit can certify anything above 0" in r.verdict_reason
    assert saturation(4) == 0.0 and saturation(10**6) > 10.0
