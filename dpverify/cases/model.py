"""The case model: what a named case is, the catalogues of every kind, and the one :func:`run_case`.

A case (:class:`Case`) has an ``id``, a one-line ``title`` and a ``case_kind``
(:class:`dpverify.vocabulary.CaseKind`).
Four catalogues hold them, each beside what it needs:

- ``audit``: a reference sampler on its worst known pair (:mod:`dpverify.cases.catalogue`, ``dpverify verify``);
- ``benchmark``: a standard-suite mechanism with its pair's exact epsilon (:mod:`dpverify.audit.standard_suite`);
- ``corpus``: a reported bug of a DP library, re-checked (:mod:`dpverify.libraries.corpus`);
- ``one_run``: an audit of one training run with m canaries (:mod:`dpverify.cases.one_run`).

:func:`run_case` runs any of them and returns its typed result (:class:`~dpverify.cases.run.CaseResult`,
:class:`~dpverify.cases.benchmark.BenchmarkResult`, the corpus' ``CorpusResult``,
:class:`~dpverify.cases.one_run.OneRunCaseResult`); the command line, ``dpverify verify``, the pytest plugin, the
audit suite's conftest and the benchmarks call it, so a case runs the same way from each. Each result's
``to_dict`` is its JSON (the report writer's business).
"""
from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from dpverify.cases.benchmark import run_benchmark_case
from dpverify.cases.catalogue import AuditCase, cases, get_case
from dpverify.cases.options import CaseOptions, split_case_options
from dpverify.cases.run import run_audit_case
from dpverify.vocabulary import CaseKind

if TYPE_CHECKING:  # the auditor and the libraries are imported when a case runs: importing the suite stays cheap
    from dpverify.audit.options import Execution
    from dpverify.cases.one_run import OneRunOptions

__all__ = ["Case", "catalogue", "find_case", "run_case"]


@runtime_checkable
class Case(Protocol):
    """A named case of any kind (module docstring)."""

    @property
    def id(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def case_kind(self) -> CaseKind: ...


def catalogue(kind: CaseKind | str) -> tuple[Case, ...]:
    """Every case of ``kind`` (one of :class:`~dpverify.vocabulary.CaseKind`), in catalogue order."""
    kind = CaseKind.parse(kind, "kind")
    if kind is CaseKind.AUDIT:
        return tuple(cases())
    if kind is CaseKind.BENCHMARK:
        from dpverify.audit.standard_suite import cases as benchmark_cases

        return tuple(benchmark_cases())
    if kind is CaseKind.CORPUS:
        from dpverify.libraries.corpus import CASES as CORPUS

        return tuple(CORPUS)
    from dpverify.cases.one_run import CASES as ONE_RUN

    return tuple(ONE_RUN.values())


def find_case(case_id: str, kind: CaseKind | str = CaseKind.AUDIT) -> Case:
    """The case ``case_id`` of ``kind``: an unknown id is a ``ValueError`` naming the catalogue and the closest ids
    (for the suite, :func:`~dpverify.cases.catalogue.get_case`'s message)."""
    kind = CaseKind.parse(kind, "kind")
    if kind is CaseKind.AUDIT:
        return get_case(case_id)
    found = {c.id: c for c in catalogue(kind)}
    if case_id not in found:
        close = difflib.get_close_matches(case_id, list(found), n=3)
        raise ValueError(f"unknown {kind} case {case_id!r}" + (f"; did you mean {', '.join(close)}?" if close else
                                                              f"; the {kind} cases are {', '.join(found)}"))
    return found[case_id]


def run_case(case: Case | str, options: CaseOptions | OneRunOptions | None = None, execution: Execution | None = None,
             **keywords: Any) -> Any:
    """Run ``case`` (a case of any kind, or the id of a suite case) and return its typed result (module docstring).

    Audits of the suite and benchmark cases take ``options`` (a :class:`~dpverify.cases.options.CaseOptions`: budget,
    seed, confidence, params, epsilon, delta, mode, sequential) and ``execution`` (an
    :class:`~dpverify.audit.options.Execution`: workers, client, backend, device, chunk_size, resources, progress),
    or the same fields as keywords (:func:`~dpverify.cases.options.split_case_options`); a one-run case takes a
    :class:`~dpverify.cases.one_run.OneRunOptions` (or its fields as keywords); a corpus case runs its seeded check
    and takes no options. An option a kind does not take is a ``TypeError`` naming it.
    """
    case = get_case(case) if isinstance(case, str) else case
    if isinstance(case, AuditCase):
        return run_audit_case(case, *split_case_options(_only(options, CaseOptions, case), execution, **keywords))
    if not isinstance(case, Case):
        raise TypeError(f"case must be a case (id, title, case_kind) or a suite case id; got {type(case).__name__}")
    if case.case_kind is CaseKind.BENCHMARK:
        benchmark: Any = case
        return run_benchmark_case(benchmark, *split_case_options(_only(options, CaseOptions, case), execution,
                                                                 **keywords))
    if execution is not None:
        raise TypeError(f"a {case.case_kind} case takes no execution options; got {execution!r}")
    if case.case_kind is CaseKind.ONE_RUN:
        from dpverify.cases.one_run import OneRunOptions, run_one_run_case

        one_run = _only(options, OneRunOptions, case) or OneRunOptions()
        return run_one_run_case(case, one_run.but(**keywords))  # type: ignore[arg-type]
    if options is not None or keywords:
        raise TypeError(f"a corpus case takes no options (its check is seeded); got {options or sorted(keywords)}")
    from dpverify.libraries.corpus import run_case as run_corpus_case

    return run_corpus_case(case)  # type: ignore[arg-type]


def _only(options: Any, expected: type, case: Any) -> Any:
    if options is not None and not isinstance(options, expected):
        raise TypeError(f"options of a {case.case_kind} case must be a {expected.__name__}; got {type(options).__name__}")
    return options
