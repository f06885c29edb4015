"""A corpus of real reported DP bugs, each a seeded check (``dpverify audit-library corpus [--json]``).

Every case cites the upstream report it comes from (each reference was checked on the project's public tracker
before it was cited) and runs one seeded check with dpverify's own tools (the budget ledger, the sampling audit,
the curve estimator). A case is one of two kinds:

- ``library``: the check runs on the *installed* library. ``reproduced`` means the installed version still has the
  defect; ``fixed`` means it no longer shows it (then the case documents a fix). Where no fixed release exists
  (the upstream fix is unmerged or unreleased) the case says so instead of checking a fixed version.
- ``re-implementation``: the library is not installable here, so the defective computation and its fix are
  re-implemented from the report (labelled as such) and both run through the same check: the defective one must
  be flagged and the fixed one must pass (``ok``).

A case whose check misbehaves (a re-implemented defect not flagged, a fix flagged, an error) is ``failed``; a
missing library is ``unavailable``. Each case takes seconds (the target is under 60 s each on 2 cores).

Every case also says which releases have its bug (:class:`~dpverify.libraries.corpus.model.CorpusCase`:
``affected``, ``fixed_in``, ``releases``), so a row on the installed library carries the verdict its version should
show (``expected``), and :mod:`dpverify.libraries.corpus.versions` runs each case on its own releases, each installed
in a throwaway environment (``dpverify audit-library corpus --by-version``). A row whose status contradicts its
version (the defect on a release outside ``affected``, or missing inside it) counts as failed.

:data:`CASES` is every case, library by library, from one module per library (each case's check states the bug,
its source and its threshold in its docstring):
:mod:`~dpverify.libraries.corpus.diffprivlib_bugs`, :mod:`~dpverify.libraries.corpus.opacus_bugs`,
:mod:`~dpverify.libraries.corpus.opendp_bugs`, :mod:`~dpverify.libraries.corpus.accountant_bugs` (dp_accounting,
tensorflow-privacy, prv_accountant and an auditor's estimator), :mod:`~dpverify.libraries.corpus.pydp_bugs`,
:mod:`~dpverify.libraries.corpus.smartnoise_bugs` and :mod:`~dpverify.libraries.corpus.dpmm_bugs`. The table of
every case with its versions is in docs/libraries.md ("Corpus of reported DP bugs"), generated from :data:`CASES`.
"""
from __future__ import annotations

from collections.abc import Callable

from dpverify.libraries.corpus import (accountant_bugs, diffprivlib_bugs, dpmm_bugs, opacus_bugs, opendp_bugs,
                                       pydp_bugs, smartnoise_bugs)
from dpverify.libraries.corpus.model import METHODS, CorpusCase, CorpusResult, run_case

__all__ = ["CASES", "METHODS", "CorpusCase", "CorpusResult", "failed", "find", "run_case", "run_corpus"]

#: Every corpus case, library by library.
CASES: tuple[CorpusCase, ...] = (*diffprivlib_bugs.CASES, *opacus_bugs.CASES, *opendp_bugs.CASES,
                                 *accountant_bugs.CASES, *pydp_bugs.CASES, *smartnoise_bugs.CASES, *dpmm_bugs.CASES)


def find(case_id: str) -> CorpusCase:
    """The case with this ``id`` (a ``KeyError`` naming the known ids otherwise)."""
    for case in CASES:
        if case.id == case_id:
            return case
    raise KeyError(f"no corpus case {case_id!r}; the cases are: {', '.join(c.id for c in CASES)}")


def run_corpus(only: str | None = None, progress: Callable[[str], None] | None = None) -> list[CorpusResult]:
    """Every case (or those whose id contains ``only``), in order, on the installed libraries."""
    rows = []
    for case in CASES:
        if only and only not in case.id:
            continue
        if progress:
            progress(f"{case.id}: {case.title}")
        rows.append(run_case(case))
    return rows


def failed(rows: list[CorpusResult]) -> bool:
    """True when a case's check misbehaved or erred, or its status contradicts what its version should show
    (exit status 1)."""
    return any(r.status == "failed" or r.agrees is False for r in rows)
