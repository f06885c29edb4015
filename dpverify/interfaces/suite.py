"""The audit suite, as the interfaces import it: the cases, their references and :func:`run_case` live in
:mod:`dpverify.cases` (below the interfaces, so that the command line, the plugin, ``verify``, the suite's pytest
fixture and the benchmarks share one case model); this module re-exports them under their old names."""
from __future__ import annotations

from dpverify.cases import (
    BUDGETS,
    KNOWN_BAD_DEFECTS,
    AuditCase,
    CaseResult,
    ClaimCheck,
    PreparedCase,
    Reference,
    case_settings,
    cases,
    cases_of,
    claim_check,
    declared_reference,
    get_case,
    prepare_case,
    run_case,
    select,
)

__all__ = ["BUDGETS", "KNOWN_BAD_DEFECTS", "AuditCase", "CaseResult", "ClaimCheck", "PreparedCase", "Reference",
           "case_settings", "cases", "cases_of", "claim_check", "declared_reference", "get_case", "prepare_case",
           "run_case", "select"]
