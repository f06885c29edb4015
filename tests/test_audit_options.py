"""audit() takes what is tested and how it runs as two frozen option objects (issue 36), keeping the keyword form:
both forms give the same result, the execution never changes the numbers (but the backend), and a keyword that
belongs to neither half, or is given twice, is a TypeError naming it."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.options import EXECUTION_FIELDS, QUESTION_FIELDS, AuditQuestion, Execution, split_options


def laplace(dataset, n, rng):
    return float(np.sum(dataset)) + rng.laplace(0.0, 1.0, size=n)


D, D2 = np.array([1, 0, 1]), np.array([1, 1, 1])


def test_the_halves_are_disjoint_and_frozen():
    assert not set(QUESTION_FIELDS) & set(EXECUTION_FIELDS)
    with pytest.raises(dataclasses.FrozenInstanceError):
        AuditQuestion().samples = 3  # type: ignore[misc]
    assert AuditQuestion(samples=10).but(seed=3) == AuditQuestion(samples=10, seed=3)


def test_the_keyword_form_and_the_objects_give_the_same_audit():
    by_keywords = audit(laplace, D, D2, epsilon=1.0, samples=4_000, seed=5, workers=1)
    by_objects = audit(laplace, D, D2, question=AuditQuestion(epsilon=1.0, samples=4_000, seed=5),
                       execution=Execution(workers=1))
    mixed = audit(laplace, D, D2, question=AuditQuestion(epsilon=1.0, samples=4_000), seed=5)
    assert by_keywords.epsilon_lower == by_objects.epsilon_lower == mixed.epsilon_lower
    assert by_keywords.counts == by_objects.counts


def test_the_workers_do_not_change_the_numbers():
    """Workers and a progress callback are pure execution; the chunk size and the backend change the sample streams
    (each chunk has its own seed), so they are execution options that do change the numbers, as documented."""
    question = AuditQuestion(epsilon=1.0, samples=8_000, seed=2)
    seen = []
    one = audit(laplace, D, D2, question=question, execution=Execution(chunk_size=1_000))
    other = audit(laplace, D, D2, question=question,
                  execution=Execution(chunk_size=1_000, workers=2, progress=lambda done, total: seen.append(done)))
    assert one.epsilon_lower == other.epsilon_lower and one.counts == other.counts and seen


def test_unknown_and_doubled_options_are_named():
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['sample'\]"):
        split_options(sample=10)
    with pytest.raises(TypeError, match=r"\['samples'\] given both as keyword\(s\) and in question="):
        split_options(AuditQuestion(samples=10), samples=20)
    with pytest.raises(TypeError, match="question must be an AuditQuestion"):
        split_options({"samples": 10})  # type: ignore[arg-type]
    question, execution = split_options(AuditQuestion(samples=10), workers=2, seed=4)
    assert question == AuditQuestion(samples=10, seed=4) and execution == Execution(workers=2)


def test_search_then_certify_takes_the_option_objects():
    """The worst-pair search passes the question and the execution through: the objects and the keyword form give the
    same search (same screening, same final audit), ``final_samples`` is the question's ``samples``, and a field set
    twice is named. A search that dropped the question's seed or confidence on the way would differ here."""
    from dpverify.audit.search import search_then_certify

    pairs = [(D, D2), (np.array([0, 0, 0]), np.array([0, 0, 1]))]
    by_keywords = search_then_certify(laplace, pairs, epsilon=1.0, search_budget=2_000, final_samples=3_000, seed=7,
                                      confidence=0.9)
    by_objects = search_then_certify(laplace, pairs, AuditQuestion(epsilon=1.0, samples=3_000, seed=7, confidence=0.9),
                                     Execution(workers=1), search_budget=2_000)
    assert by_keywords.screening == by_objects.screening
    assert by_keywords.final.epsilon_lower == by_objects.final.epsilon_lower
    assert by_objects.final.samples == 3_000 and by_objects.final.confidence == 0.9
    reseeded = search_then_certify(laplace, pairs, AuditQuestion(epsilon=1.0, samples=3_000, seed=8, confidence=0.9),
                                   search_budget=2_000)
    assert reseeded.final.counts != by_objects.final.counts
    with pytest.raises(TypeError, match=r"\['seed'\] given both"):
        search_then_certify(laplace, pairs, AuditQuestion(epsilon=1.0, seed=7), search_budget=2_000, seed=3)
