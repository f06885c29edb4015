"""Audit cases: the case model (:mod:`dpverify.cases.model`: what a case is, the catalogues of every kind --
the suite's audits, the standard suite's benchmarks, the library bug corpus, the one-run audits -- and the one
:func:`run_case` that runs any of them), the suite's catalogue (:mod:`dpverify.cases.catalogue`: one case per
reference sampler on the worst adjacent pair known for it, plus average-case and known-bad cases), what each audit
tests against (:mod:`dpverify.cases.reference`), and running a suite case (:mod:`dpverify.cases.run`:
:func:`prepare_case` builds and accounts the sampler once, :func:`~dpverify.cases.run.run_audit_case` audits it and
returns a typed :class:`CaseResult`), with its options (:class:`CaseOptions`, beside the auditor's ``Execution``).

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
from dpverify.cases.model import Case, catalogue, find_case, run_case
from dpverify.cases.options import CaseOptions, split_case_options
from dpverify.cases.reference import ClaimCheck, Reference, claim_check, declared_reference
from dpverify.cases.run import CaseResult, PreparedCase, prepare_case, run_audit_case

__all__ = ["BUDGETS", "KNOWN_BAD_DEFECTS", "AuditCase", "case_settings", "cases", "cases_of", "get_case", "select",
           "Case", "catalogue", "find_case", "run_case", "CaseOptions", "split_case_options",
           "ClaimCheck", "Reference", "claim_check", "declared_reference", "CaseResult", "PreparedCase",
           "prepare_case", "run_audit_case"]
