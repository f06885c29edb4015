"""The case model (issue 36): one protocol for the four kinds of named case, their catalogues, and one ``run_case``
that runs any of them with the same options the layers pass through.

Which bug fails here: a catalogue that loses or duplicates cases; a dispatcher that sends a case to the wrong runner
or drops an option on the way (the seed, the confidence, the budget: the results would differ from the direct calls
below); a keyword given twice or to the wrong kind accepted silently.
"""
from __future__ import annotations

import pickle

import pytest

from dpverify.audit import AuditQuestion, Execution, audit, run_audit
from dpverify.audit.one_run import audit_one_run
from dpverify.audit.standard_suite import cases as benchmark_cases
from dpverify.audit.standard_suite import get as get_benchmark
from dpverify.cases import (
    BUDGETS,
    Case,
    CaseOptions,
    CaseResult,
    catalogue,
    cases,
    find_case,
    prepare_case,
    run_case,
    split_case_options,
)
from dpverify.cases.benchmark import BenchmarkResult
from dpverify.cases.one_run import CASES as ONE_RUN_CASES
from dpverify.cases.one_run import OneRunCaseResult, OneRunOptions, build_case
from dpverify.libraries.corpus import CASES as CORPUS_CASES
from dpverify.vocabulary import CaseKind


@pytest.mark.parametrize("kind", CaseKind.values())
def test_every_catalogue_holds_cases_of_its_kind_with_unique_ids(kind):
    listed = catalogue(kind)
    expected = {"audit": len(cases()), "benchmark": len(benchmark_cases()), "corpus": len(CORPUS_CASES),
                "one_run": len(ONE_RUN_CASES)}[kind]
    assert len(listed) == expected > 0
    assert all(isinstance(c, Case) and c.case_kind == kind and c.title for c in listed)
    ids = [c.id for c in listed]
    assert len(set(ids)) == len(ids)
    assert find_case(ids[-1], kind) is listed[-1] or find_case(ids[-1], kind) == listed[-1]


def test_unknown_cases_and_kinds_are_named():
    with pytest.raises(ValueError, match="unknown one_run case 'gaussian_canary'; did you mean gaussian_canaries"):
        find_case("gaussian_canary", "one_run")
    with pytest.raises(ValueError, match="kind must be one of"):
        catalogue("audits")
    with pytest.raises(TypeError, match="case must be a case"):
        run_case(object())  # type: ignore[arg-type]


def test_a_suite_case_runs_the_same_from_the_objects_and_the_keywords():
    """The options objects pass through to the audit: same numbers both ways, and the seed reaches the sampler."""
    by_keywords = run_case("laplace_mechanism", budget=2_000, seed=3, confidence=0.9, workers=1)
    by_objects = run_case(find_case("laplace_mechanism"), CaseOptions(budget=2_000, seed=3, confidence=0.9),
                          Execution(workers=1))
    assert isinstance(by_objects, CaseResult) and by_objects.error is None
    assert by_keywords.audit.epsilon_lower == by_objects.audit.epsilon_lower
    assert by_keywords.audit.counts == by_objects.audit.counts
    assert by_objects.audit.samples == 2_000 and by_objects.audit.confidence == 0.9
    other_seed = run_case("laplace_mechanism", CaseOptions(budget=2_000, seed=4, confidence=0.9))
    assert other_seed.audit.counts != by_objects.audit.counts
    prepared = prepare_case("laplace_mechanism")
    direct = run_audit(prepared.sampler, prepared.dataset, prepared.neighbour,
                       AuditQuestion(claim=prepared.reference.guarantee, delta=prepared.delta, samples=2_000,
                                     confidence=0.9, seed=3, **prepared.audit_facts()), Execution())
    assert direct.epsilon_lower == by_objects.audit.epsilon_lower


def test_case_options_split_pickle_and_refuse_doubles():
    options, execution = split_case_options(CaseOptions(budget=5_000), workers=2, seed=4)
    assert options == CaseOptions(budget=5_000, seed=4) and execution == Execution(workers=2)
    assert pickle.loads(pickle.dumps(options)) == options  # verify's workers and Dask ship them
    with pytest.raises(TypeError, match=r"\['seed'\] given both"):
        split_case_options(CaseOptions(seed=1), seed=2)
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['sample'\]"):
        run_case("laplace_mechanism", sample=10)
    with pytest.raises(TypeError, match="options must be a CaseOptions"):
        split_case_options({"budget": 10})  # type: ignore[arg-type]


def test_a_benchmark_case_runs_as_the_direct_audit_with_its_exact_epsilon():
    case = get_benchmark(benchmark_cases()[0].name)
    result = run_case(case, budget=4_000, seed=2)
    assert isinstance(result, BenchmarkResult) and result.case == case.name
    direct = audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
                   samples=4_000, seed=2, exact_epsilon=case.epsilon_exact)
    assert result.audit.epsilon_lower == direct.epsilon_lower and result.audit.counts == direct.counts
    assert result.passed == ((result.verdict == "violation") != case.private)
    assert result.ratio == pytest.approx(direct.epsilon_lower / case.epsilon_exact)
    assert result.to_dict()["kind"] == "benchmark"
    named = run_case(case, budget="quick", seed=2)
    assert named.audit.samples == BUDGETS["quick"]
    with pytest.raises(TypeError, match="params do not apply"):
        run_case(case, params={"epsilon": 2.0})


def test_a_one_run_case_runs_as_the_direct_one_run_audit():
    case = find_case("gaussian_canaries", "one_run")
    result = run_case(case, OneRunOptions(canaries=300, seed=5))
    assert isinstance(result, OneRunCaseResult) and result.case == "gaussian_canaries"
    experiment, _ = build_case("gaussian_canaries", 300)
    direct = audit_one_run(experiment, 300, seed=5)
    assert result.result.epsilon_lower == direct.epsilon_lower and result.result.v == direct.v
    assert run_case(case, canaries=300, seed=5).result.epsilon_lower == direct.epsilon_lower  # keyword form
    with pytest.raises(TypeError, match="takes no execution options"):
        run_case(case, execution=Execution(workers=2))
    with pytest.raises(TypeError, match="must be a OneRunOptions"):
        run_case(case, CaseOptions())


def test_a_corpus_case_runs_its_check_and_takes_no_options():
    """A corpus case goes to the corpus' own runner: the typed row it returns is the one ``run_corpus`` gives."""
    from dpverify.libraries.corpus import CorpusResult, run_corpus

    case = find_case("diffprivlib#104", "corpus")
    result = run_case(case)
    assert isinstance(result, CorpusResult) and result.id == case.id
    (expected,) = run_corpus(only="diffprivlib#104")
    assert result.status == expected.status and result.to_dict()["detail"] == expected.to_dict()["detail"]
    with pytest.raises(TypeError, match="takes no options"):
        run_case(case, seed=3)
