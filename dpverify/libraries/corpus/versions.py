"""The corpus by version: each case run on its own releases, each installed in a throwaway environment.

A corpus case names the releases it should be run on (``releases``: an affected one and, where it exists, the first
fixed one) and the range that has its defect (``affected``). :func:`run_by_version` installs each of those releases
with :class:`~dpverify.libraries.bisect.ReleaseCache` (the case's ``isolation``: the release's code over the running
environment, or a virtual environment of its own with the case's ``requirements``), runs the case's check there in a
fresh interpreter (:func:`~dpverify.libraries.bisect.run_check`) and compares the verdict with the expected one
(:meth:`~dpverify.libraries.corpus.model.CorpusCase.expected`). A row agrees when the defect shows on every affected
release and on no fixed one; the version the check actually imported is recorded, so a release that failed to
shadow the installed copy is an error, never a silent pass.

Installs need pip's index (or ``find_links``, a directory of wheels); the first run downloads, later ones reuse the
cache (``$DPVERIFY_BISECT_CACHE``, as ``dpverify bisect``).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from dpverify.libraries import corpus
from dpverify.libraries.bisect import ReleaseCache, run_check
from dpverify.libraries.corpus.model import CorpusCase

__all__ = ["VersionVerdict", "check_spec", "run_by_version", "disagreements"]


@dataclass(frozen=True)
class VersionVerdict:
    """One case on one release: ``case`` (its id), ``library`` (the pip name), ``version``, ``expected`` ("bad" or
    "good", from the case's ``affected``), ``observed`` ("bad", "good" or "error"), ``detail`` (the check's sentence,
    or why it could not run), ``certified`` (the check's certified epsilon, if it has one), ``imported`` (the version
    the check's process imported), ``install_seconds`` and ``seconds`` (the check)."""

    case: str
    library: str
    version: str
    expected: str
    observed: str
    detail: str = ""
    certified: float | None = None
    imported: str = ""
    install_seconds: float = 0.0
    seconds: float = 0.0

    @property
    def agrees(self) -> bool:
        """The observed verdict is the expected one (an error never agrees)."""
        return self.observed == self.expected

    def to_dict(self) -> dict:
        return {"case": self.case, "library": self.library, "version": self.version, "expected": self.expected,
                "observed": self.observed, "agrees": self.agrees, "detail": self.detail,
                "certified": self.certified, "imported": self.imported,
                "install_seconds": self.install_seconds, "seconds": self.seconds}


def check_spec(case: CorpusCase) -> str:
    """What the release's process runs: the case's id when its check is one of the corpus's own (defined in
    :mod:`dpverify.libraries.corpus`), else its check as ``module:function`` (a maintainer's own case, e.g. in a
    test: the function must be defined at module level, and its module importable beside the release)."""
    module, name = getattr(case.check, "__module__", "") or "", getattr(case.check, "__qualname__", "")
    if module.startswith(corpus.__name__ + "."):
        return case.id
    if not module or not name.isidentifier():
        raise ValueError(f"{case.id}: a case outside the corpus needs a module-level check function "
                         f"(got {case.check!r})")
    return f"{module}:{name}"


def run_by_version(cases: Sequence[CorpusCase], *, cache_root: str | Path | None = None,
                   find_links: str | Path | None = None, progress: Callable[[str], None] | None = None,
                   python_path: Sequence[str] = ()) -> list[VersionVerdict]:
    """Each library case with ``releases`` run on each of them (module docstring); re-implementations and cases
    without releases are left out. ``cache_root``: where releases are installed (default as ``dpverify bisect``);
    ``find_links``: install only from that directory of wheels."""
    rows: list[VersionVerdict] = []
    for case in cases:
        if case.kind != "library" or not case.releases:
            continue
        cache = ReleaseCache(cache_root, isolation=case.isolation, find_links=find_links,
                             requirements=case.requirements)
        for release in case.releases:
            expected = case.expected(release)
            if progress:
                progress(f"{case.id} on {case.pip_name} {release} (expected {expected})")
            start = time.perf_counter()
            try:
                installed = cache.install(case.pip_name, release)
            except RuntimeError as exc:
                rows.append(VersionVerdict(case.id, case.pip_name, release, expected, "error", str(exc)[:400],
                                           install_seconds=time.perf_counter() - start))
                continue
            install_seconds = time.perf_counter() - start
            step = run_check(check_spec(case), case.pip_name, installed, python_path=python_path)
            observed, detail = step.verdict, step.detail
            if observed != "error" and step.imported != release:
                observed, detail = "error", (f"the check imported {case.pip_name} {step.imported or '(none)'}, "
                                             f"not {release}: the release did not shadow the installed copy")
            rows.append(VersionVerdict(case.id, case.pip_name, release, expected, observed, detail, step.certified,
                                       step.imported, install_seconds, step.seconds))
    return rows


def disagreements(rows: Sequence[VersionVerdict]) -> list[VersionVerdict]:
    """The rows whose observed verdict is not the expected one (errors included)."""
    return [r for r in rows if not r.agrees]
