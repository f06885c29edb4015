"""Audit cases: the suite's catalogue (:mod:`dpverify.cases.catalogue`: one case per reference sampler on the worst
adjacent pair known for it, plus average-case and known-bad cases), what each audit tests against
(:mod:`dpverify.cases.reference`), and running a case (:mod:`dpverify.cases.run`: :func:`prepare_case` builds and
accounts the sampler once; :func:`run_case` audits it and returns a typed :class:`CaseResult`).

Below :mod:`dpverify.interfaces`: the command line, the pytest plugin's suite fixture, ``dpverify verify`` and the
benchmarks all run cases through here.
"""
from dpverify.cases.catalogue import (
    BUDGETS,
    KNOWN_BAD_DEFECTS,
    AuditCase,
    case_settings,
    cases,
    cases_of,
    get_case,
    select,
)
from dpverify.cases.reference import ClaimCheck, Reference, claim_check, declared_reference
from dpverify.cases.run import CaseResult, PreparedCase, prepare_case, run_case

__all__ = ["BUDGETS", "KNOWN_BAD_DEFECTS", "AuditCase", "case_settings", "cases", "cases_of", "get_case", "select",
           "ClaimCheck", "Reference", "claim_check", "declared_reference", "CaseResult", "PreparedCase",
           "prepare_case", "run_case"]
