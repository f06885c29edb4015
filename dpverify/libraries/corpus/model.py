"""A corpus case and its result row: what a reported bug is, which releases have it, and how one check went.

A :class:`CorpusCase` is one tracker-documented defect of a DP library: the report (``refs``), how it is
reproduced (``kind``: on the installed ``library`` or a ``re-implementation`` from the report), how it is caught
(``method``: :data:`METHODS`), the neighbouring datasets, and its *versions*: ``affected`` (a PEP 440 specifier of
the releases that have it), ``fixed_in`` (the first release without it, None where no fixed release exists) and
``releases`` (the releases the by-version run installs, each in a throwaway environment:
:mod:`dpverify.libraries.corpus.versions`). The expected verdict on a release is :meth:`CorpusCase.expected`:
``"bad"`` inside ``affected``, ``"good"`` outside it.

A case's ``check()`` runs against whatever version of the library is importable and returns a dict with
``status`` ("reproduced": the defect shows; "fixed": it does not; for a re-implementation "ok": the re-implemented
defect is flagged and its fix passes, or "failed"), ``detail`` (one sentence) and its numbers.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any, ClassVar

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from dpverify.vocabulary import CaseKind, RowKind

__all__ = ["CorpusCase", "CorpusResult", "KINDS", "METHODS", "installed_version", "run_case"]

#: How a case reproduces its bug: on the installed library, or re-implemented from the report.
KINDS = ("library", "re-implementation")
#: How a case catches its bug: ``replay`` (record on D, replay on D' with the same draws:
#: :mod:`dpverify.libraries.replay`), ``ledger`` (the budget ledger's composition against the library's own
#: record), ``exact`` (a deterministic comparison with an exact or rigorous value: an accountant's answer, a sampler's
#: exact law, a documented invariant) or ``statistical`` (a sampling audit that certifies a lower bound on epsilon).
METHODS = ("replay", "ledger", "exact", "statistical")


def installed_version(distribution: str) -> str:
    """The installed version of ``distribution`` (``importlib.metadata``; a ``PackageNotFoundError`` otherwise)."""
    return version(distribution)


@dataclass(frozen=True)
class CorpusCase:
    """One reported bug (module docstring).

    ``id`` (``library#issue`` or ``library-prN``), ``library`` (the name the report uses), ``title``, ``refs``
    (upstream URLs, each checked on the tracker), ``upstream_status`` (their state when checked, in words), ``kind``
    (:data:`KINDS`), ``check() -> dict``; then its versions and how it is caught: ``affected`` (PEP 440 specifier of
    the releases with the defect, e.g. ``">=0.5,<0.6.3"``; empty for a re-implementation), ``fixed_in`` (the first
    fixed release or None), ``method`` (:data:`METHODS`), ``datasets`` (the neighbouring pair, in words),
    ``releases`` (what the by-version run installs: an affected release and the first fixed one where it exists),
    ``distribution`` (the pip name when it is not ``library``), ``requirements`` (extra pins for those releases'
    environments, e.g. ``scikit-learn<1.6`` for an old release) and ``isolation`` (``"target"``: the release's code
    over the running environment; ``"venv"``: its own virtual environment, :class:`~dpverify.libraries.bisect.
    ReleaseCache`)."""

    id: str
    library: str
    title: str
    refs: tuple[str, ...]
    upstream_status: str
    kind: str
    check: Callable[[], dict]
    affected: str = ""
    fixed_in: str | None = None
    method: str = "statistical"
    datasets: str = ""
    releases: tuple[str, ...] = ()
    distribution: str = ""
    requirements: tuple[str, ...] = ()
    isolation: str = "target"

    #: the case model's kind (:class:`dpverify.cases.model.Case`; ``kind`` says how the bug is reproduced)
    case_kind: ClassVar[CaseKind] = CaseKind.CORPUS

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: kind must be one of {KINDS}; got {self.kind!r}")
        if self.method not in METHODS:
            raise ValueError(f"{self.id}: method must be one of {METHODS}; got {self.method!r}")
        if self.isolation not in ("target", "venv"):
            raise ValueError(f"{self.id}: isolation must be 'target' or 'venv'; got {self.isolation!r}")
        try:
            spec = SpecifierSet(self.affected)
        except InvalidSpecifier:
            raise ValueError(f"{self.id}: affected must be a PEP 440 specifier such as '>=0.5,<0.6.3'; "
                             f"got {self.affected!r}") from None
        for v in (*self.releases, *([self.fixed_in] if self.fixed_in else [])):
            try:
                Version(v)
            except InvalidVersion:
                raise ValueError(f"{self.id}: {v!r} is not a release version") from None
        if self.fixed_in and self.affected and spec.contains(self.fixed_in, prereleases=True):
            raise ValueError(f"{self.id}: the first fixed release {self.fixed_in} lies inside affected "
                             f"{self.affected!r}")
        if self.releases and not self.affected:
            raise ValueError(f"{self.id}: releases to run need the affected range that says what each should show")

    @property
    def pip_name(self) -> str:
        """The distribution pip installs (``distribution``, else ``library``)."""
        return self.distribution or self.library

    def expected(self, release: str) -> str:
        """``"bad"`` when ``release`` lies in ``affected``, else ``"good"``."""
        return "bad" if SpecifierSet(self.affected).contains(Version(release), prereleases=True) else "good"

    def to_dict(self) -> dict:
        """The case's description (no check): what ``corpus.json`` and the docs' table show."""
        return {"id": self.id, "library": self.library, "title": self.title, "refs": list(self.refs),
                "upstream_status": self.upstream_status, "kind": self.kind, "method": self.method,
                "affected": self.affected, "fixed_in": self.fixed_in, "datasets": self.datasets,
                "releases": list(self.releases)}


@dataclass
class CorpusResult:
    """One corpus case's check as a report row. The case: ``id``, ``library``, ``title``, ``refs``,
    ``upstream_status`` and ``check_kind`` (how the bug is reproduced: "library" or "re-implementation"; the JSON's
    ``kind``). The check: ``status`` (reproduced, fixed, ok, failed or unavailable), ``detail`` (one sentence; None
    if the check gave none), the installed ``version`` it ran on (None for a re-implementation), its numbers
    (``numbers``: the check's other entries, in its order) and ``seconds``; then ``method``, ``affected`` and
    ``fixed_in`` from the case, and ``expected`` (the verdict the case's ``affected`` range predicts for the
    installed version: "bad" or "good"; None for a re-implementation or a case without versions).

    :meth:`to_dict` is its JSON form (``corpus.json``, ``--json``); :meth:`from_dict` reads it back."""

    kind: ClassVar[RowKind] = RowKind.CORPUS

    id: str
    library: str
    title: str
    refs: tuple[str, ...]
    upstream_status: str
    check_kind: str
    status: str
    detail: str | None = None
    version: str | None = None
    numbers: dict = field(default_factory=dict)
    seconds: float = 0.0
    method: str = ""
    affected: str = ""
    fixed_in: str | None = None
    expected: str | None = None

    #: the JSON keys that are not the check's numbers
    FIELDS: ClassVar[tuple[str, ...]] = ("id", "library", "title", "refs", "upstream_status", "kind", "status",
                                          "version", "detail", "seconds", "method", "affected", "fixed_in",
                                          "expected")

    @property
    def agrees(self) -> bool | None:
        """Whether the status is the one the case's versions predict (None where they predict nothing)."""
        if self.expected is None or self.status not in ("reproduced", "fixed"):
            return None
        return (self.status == "reproduced") == (self.expected == "bad")

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"id": self.id, "library": self.library, "title": self.title, "refs": list(self.refs),
                               "upstream_status": self.upstream_status, "kind": self.check_kind,
                               "method": self.method, "affected": self.affected, "fixed_in": self.fixed_in,
                               "status": self.status}
        if self.version is not None:
            out["version"] = self.version
        if self.expected is not None:
            out["expected"] = self.expected
        out.update(self.numbers)
        if self.detail is not None:
            out["detail"] = self.detail
        out["seconds"] = self.seconds
        return out

    @classmethod
    def from_dict(cls, d: dict) -> CorpusResult:
        """The row of ``d`` (:meth:`to_dict`, read back)."""
        return cls(d["id"], d["library"], d["title"], tuple(d["refs"]), d["upstream_status"], d["kind"], d["status"],
                   d.get("detail"), d.get("version"), {k: v for k, v in d.items() if k not in cls.FIELDS},
                   d.get("seconds", 0.0), d.get("method", ""), d.get("affected", ""), d.get("fixed_in"),
                   d.get("expected"))


def run_case(case: CorpusCase) -> CorpusResult:
    """One case as a report row: the case's fields, the check's status, detail, version and numbers, ``seconds``,
    and the verdict its ``affected`` range expects on the version the check ran on."""
    start = time.perf_counter()
    try:
        numbers = dict(case.check())
        status, detail, ran_on = numbers.pop("status"), numbers.pop("detail", None), numbers.pop("version", None)
    except ImportError as exc:
        numbers, status, detail, ran_on = {}, "unavailable", f"{case.library} is not installed: {exc}", None
    except Exception as exc:  # noqa: BLE001 - a check that errs is reported, never hidden
        numbers, status, detail, ran_on = {}, "failed", f"{type(exc).__name__}: {exc}", None
    expected = None
    if case.kind == "library" and case.affected and ran_on is not None:
        try:
            expected = case.expected(str(ran_on))
        except InvalidVersion:
            expected = None
    return CorpusResult(case.id, case.library, case.title, tuple(case.refs), case.upstream_status, case.kind, status,
                        detail, ran_on, numbers, time.perf_counter() - start, case.method, case.affected,
                        case.fixed_in, expected)
