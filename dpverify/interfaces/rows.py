"""The rows of dpverify's reports, typed until the report writer turns them into JSON (issue 36).

A row object knows its kind (``row.kind``, a :class:`~dpverify.vocabulary.RowKind`), and code that must tell
rows apart asks their type, never their keys. Each row type lives beside what produces it:

- :class:`dpverify.cases.CaseResult` -- an audit case of the suite (``dpverify verify``, ``dpverify audit``);
- :class:`dpverify.libraries.runner.LibraryResult` -- a library function's audit (``dpverify audit-library``);
- :class:`dpverify.libraries.corpus.CorpusResult` -- a reported bug's seeded check (``audit-library corpus``);
- :class:`TheoremRow` (here) -- a theorem's checks and proof (``dpverify verify``).

Each has ``to_dict()``, its JSON form (the keys the reports have always had), and ``from_dict()``, which reads it
back where a row crosses a process or a file: a resumed run's checkpoint and a Dask worker's answer
(:mod:`dpverify.interfaces.cli.verify`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union

from dpverify.cases import CaseResult
from dpverify.libraries.runner import LibraryResult
from dpverify.vocabulary import RowKind
from dpverify.theorems.base import CheckResult

__all__ = ["AuditRow", "TheoremRow", "RowKind", "CaseResult", "LibraryResult"]

#: A row of a report's audits: a suite case's or a library function's.
AuditRow = Union[CaseResult, LibraryResult]


@dataclass(frozen=True, eq=False)
class TheoremRow:
    """A theorem's checks and its proof, a row of ``dpverify verify``: the theorem's ``id``, ``paper``, ``item``
    (where the paper states it) and ``title``, whether the statement is ``reconstructed``, its ``status``
    ("passed" or "failed": a check failed, a shipped certificate did not re-check, or the proof's outcome is not the
    one this version expects), its ``checks`` (:class:`~dpverify.theorems.base.CheckResult`) and its ``proof``
    (the outcome of ``dpverify prove`` as its report entry: outcome, expected, parts, ...; None for an item that
    states no bound to prove).

    :meth:`to_dict` is its JSON form; :meth:`from_dict` reads it back. Two rows are equal when their JSON forms are
    (a check's time is reported to 0.1 ms)."""

    kind: ClassVar[RowKind] = RowKind.THEOREM

    id: str
    paper: str
    item: str
    title: str
    reconstructed: bool
    status: str
    checks: tuple[CheckResult, ...] = ()
    proof: dict | None = None

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    @property
    def failed_checks(self) -> list[str]:
        """The names of the checks that failed, in order."""
        return [c.name for c in self.checks if not c.passed]

    def to_dict(self) -> dict:
        return {"id": self.id, "paper": self.paper, "item": self.item, "title": self.title,
                "reconstructed": self.reconstructed, "status": self.status,
                "checks": [c.to_dict() for c in self.checks], "proof": self.proof}

    @classmethod
    def from_dict(cls, d: dict) -> TheoremRow:
        """The row of ``d`` (:meth:`to_dict`, read back)."""
        return cls(d["id"], d["paper"], d["item"], d["title"], d["reconstructed"], d["status"],
                   tuple(CheckResult(**c) for c in d.get("checks", ())), d.get("proof"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TheoremRow) and self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.id, self.status))
