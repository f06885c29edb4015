"""Which release broke it, which fixed it: ``dpverify bisect LIBRARY CASE --versions A..B``.

A regression check of a DP library is a *check*: a function that runs against whatever version of the library is
importable and says whether the defect shows (``"bad"``) or not (``"good"``). :func:`bisect_versions` runs one check
on several releases of one library, each installed into its own cached directory, and finds the boundaries:

- **installing a release** (:class:`ReleaseCache`) into ``<cache>/<isolation>/<library>/<version>`` (default cache
  ``$DPVERIFY_BISECT_CACHE`` or ``~/.cache/dpverify/bisect``), in one of two ways:

  - ``isolation="venv"`` (the default): a throwaway virtual environment per release, into which pip installs the
    release *together with* dpverify's own requirements (read from its metadata) and the caller's ``requirements``
    (e.g. ``scikit-learn<1.6`` for an old release written against an older API), so that pip resolves one
    consistent set for that release; dpverify itself is put on the environment's path by a ``.pth`` file (its source
    is not rebuilt). pip's cache makes the second environment fast (tens of seconds);
  - ``isolation="target"``: ``pip install --no-deps --target DIR``, the release's code only, over the running
    environment's dependencies (seconds; right when the releases share their dependencies' API). A release that needs
    other dependencies fails to import and its step says so (verdict ``"error"``).

  The directory is built under a temporary name and renamed when complete, so an interrupted install is never
  reused. ``--find-links DIR`` (with ``--no-index``) installs local wheels only: the tests build their own, so nothing
  is downloaded at test time;
- **running the check** (:func:`run_check`): a fresh ``python -c`` process of the release's interpreter (with the
  ``--target`` directory first on ``PYTHONPATH``, so the release shadows any installed copy), which imports the check
  (``module:function``; a corpus case ID names the corpus case's check, :mod:`dpverify.libraries.corpus`) and prints
  its result as one JSON line: ``status`` (``"bad"``/``"good"``, or the corpus words ``"reproduced"``/``"fixed"``),
  ``detail``, and optionally ``certified`` (the audit's certified epsilon) and ``ledger`` (what the library's noise
  calls were). The version the process actually imported is recorded, so a shadowing failure cannot pass unseen;
- **searching** (:func:`bisect_versions`): the releases are ordered by :class:`packaging.version.Version`. The two
  ends are checked first. With one bad end and one good end, binary search finds the boundary (the first bad release
  after a good one, or the first good release after a bad one) in ``ceil(log2(n))`` more checks; with both ends good
  and a ``known_bad`` release inside (the version a report names), two searches find where the defect came in and
  where it went; with both ends alike and nothing known, the range holds no boundary a bisection can find, and the
  result says so. A release whose check errors is skipped (the search moves to its neighbour). Bisection assumes one
  change per boundary (a defect that comes and goes between checked releases is reported at one of its boundaries).

:class:`BisectResult` is a typed row (``to_dict`` for ``--json``): the table of checked releases (version, verdict,
certified, what the ledger recorded, seconds), the boundaries and the total time.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

__all__ = ["BisectStep", "BisectResult", "Release", "ReleaseCache", "ISOLATIONS", "available_releases", "select_releases", "run_check",
           "bisect_versions", "VERDICTS"]

#: A step's verdict: the defect shows, it does not, or the check could not run on that release.
VERDICTS = ("bad", "good", "error")
#: What a check's ``status`` word means (the corpus's own words included).
_STATUS = {"bad": "bad", "reproduced": "bad", "violation": "bad", "good": "good", "fixed": "good", "ok": "good"}
#: A distribution name as pip accepts it (PEP 508 names).
_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$")
#: The seconds one check may take before it is stopped (its step is then an error).
CHECK_TIMEOUT = 600.0


def _check_name(library: str) -> str:
    if not isinstance(library, str) or not _NAME.match(library):
        raise ValueError(f"library must be a distribution name as pip spells it (letters, digits, '.', '_', '-'); "
                         f"got {library!r}")
    return library


def _version(text: str, name: str = "version") -> Version:
    try:
        return Version(str(text).strip())
    except InvalidVersion:
        raise ValueError(f"{name} must be a release version such as 1.2 or 0.6.3; got {text!r}") from None


@dataclass(frozen=True)
class BisectStep:
    """One release checked: its version, the verdict (:data:`VERDICTS`), the check's detail, the certified epsilon
    and the ledger summary when the check reports them, the version the check actually imported, and seconds."""

    version: str
    verdict: str
    detail: str = ""
    certified: float | None = None
    ledger: str = ""
    imported: str = ""
    seconds: float = 0.0

    def to_dict(self) -> dict:
        return {"version": self.version, "verdict": self.verdict, "detail": self.detail, "certified": self.certified,
                "ledger": self.ledger, "imported": self.imported, "seconds": self.seconds}


@dataclass(frozen=True)
class BisectResult:
    """The outcome of a bisection: the library, the check, the releases in range (in order), the steps in the
    order they ran, and the boundaries: ``first_bad`` (the first release showing the defect after one that does
    not, or the range's first release when it is already bad) and ``first_good`` (the first release without it after
    one that has it); ``None`` where the range holds no such boundary. ``note`` says what the search could and could
    not conclude."""

    library: str
    check: str
    releases: tuple[str, ...]
    steps: tuple[BisectStep, ...]
    first_bad: str | None
    first_good: str | None
    note: str
    seconds: float = 0.0

    def table(self) -> list[BisectStep]:
        """The checked releases in version order."""
        order = {v: i for i, v in enumerate(self.releases)}
        return sorted(self.steps, key=lambda s: order[s.version])

    def to_dict(self) -> dict:
        return {"library": self.library, "check": self.check, "releases": list(self.releases),
                "steps": [s.to_dict() for s in self.table()], "first_bad": self.first_bad,
                "first_good": self.first_good, "note": self.note, "seconds": self.seconds}


def available_releases(library: str, *, find_links: str | os.PathLike | None = None,
                       index_url: str | None = None) -> list[str]:
    """The releases of ``library`` pip can install, oldest first: the wheels in ``find_links`` (a directory; no
    network), else ``pip index versions`` on the package index (``index_url`` or pip's configured one). A
    ``ValueError`` names the library when there is none (an unknown library, or an index that cannot be reached)."""
    name = _check_name(library)
    found: set[Version] = set()
    if find_links is not None:
        folder = Path(find_links)
        if not folder.is_dir():
            raise ValueError(f"find_links must be a directory of wheels; {str(folder)!r} is not one")
        canonical = re.sub(r"[-_.]+", "_", name).lower()
        for wheel in folder.glob("*.whl"):
            parts = wheel.name.split("-")
            if len(parts) >= 2 and re.sub(r"[-_.]+", "_", parts[0]).lower() == canonical:
                try:
                    found.add(Version(parts[1]))
                except InvalidVersion:
                    continue
    else:
        command = [sys.executable, "-m", "pip", "index", "versions", name, "--disable-pip-version-check"]
        if index_url:
            command += ["--index-url", index_url]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            raise ValueError(f"the package index did not answer within 120 s for {name!r}") from None
        match = re.search(r"Available versions:\s*(.+)", done.stdout)
        if done.returncode == 0 and match:
            for text in match.group(1).split(","):
                try:
                    found.add(Version(text.strip()))
                except InvalidVersion:
                    continue
    if not found:
        where = f"in {find_links}" if find_links is not None else "on the package index"
        raise ValueError(f"no release of {name!r} found {where} (check the library's name as pip spells it)")
    return [str(v) for v in sorted(found)]


def select_releases(spec: str, available: Sequence[str]) -> list[str]:
    """The releases ``spec`` names, oldest first: ``"A..B"`` (every available release from A to B, both included;
    either end may be omitted: ``"..B"``, ``"A.."``) or ``"v1,v2,..."`` (each must be available). A ``ValueError``
    names a version that does not exist, a reversed range, or a range with fewer than two releases."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("versions must be 'A..B' (a range of releases) or 'v1,v2,...' (a list of releases)")
    ordered = sorted((_version(v, "an available release") for v in available))
    known = {v: str(v) for v in ordered}
    shown = ", ".join(str(v) for v in ordered[-12:])
    if ".." in spec:
        lo_text, hi_text = (part.strip() for part in spec.split("..", 1))
        lo = _version(lo_text, "the range's first version") if lo_text else ordered[0]
        hi = _version(hi_text, "the range's last version") if hi_text else ordered[-1]
        for end in (lo, hi):
            if end not in known:
                raise ValueError(f"version {end} does not exist; available releases: {shown}")
        if hi < lo:
            raise ValueError(f"versions range {spec!r} is reversed: {lo} comes after {hi}")
        chosen = [v for v in ordered if lo <= v <= hi]
    else:
        wanted = [_version(part, "each listed version") for part in spec.split(",") if part.strip()]
        missing = [str(v) for v in wanted if v not in known]
        if missing:
            raise ValueError(f"version {', '.join(missing)} does not exist; available releases: {shown}")
        chosen = sorted(set(wanted))
    if len(chosen) < 2:
        raise ValueError(f"versions {spec!r} holds {len(chosen)} release; a bisection needs at least two")
    return [known[v] for v in chosen]


#: How a release is installed (module docstring).
ISOLATIONS = ("venv", "target")


@dataclass(frozen=True)
class Release:
    """An installed release: its directory, the interpreter that runs checks against it, and what goes first on that
    interpreter's import path (the ``--target`` directory; nothing for a virtual environment)."""

    directory: Path
    python: str
    path: tuple[str, ...] = ()


def _dpverify_requirements() -> list[str]:
    """dpverify's own runtime requirements (no extras), as its metadata states them."""
    try:
        return [r for r in (requires("dpverify") or []) if "extra ==" not in r]
    except PackageNotFoundError:  # pragma: no cover - dpverify run from a source tree without metadata
        return ["numpy", "scipy", "sympy", "mpmath", "statsmodels", "hypothesis", "scikit-learn<1.9", "matplotlib",
                "threadpoolctl", "python-flint<0.10,>=0.9"]


class ReleaseCache:
    """Releases of libraries installed one per directory, reused across runs (module docstring). ``isolation``:
    ``"venv"`` (a virtual environment per release, its dependencies resolved with dpverify's and ``requirements``)
    or ``"target"`` (the release's code only, over the running environment). ``find_links``: install from that
    directory of wheels only (``--no-index``). ``dpverify_requirements=False`` leaves dpverify's own requirements out
    of a release's environment (for a check that imports none of dpverify's numerics)."""

    def __init__(self, root: str | os.PathLike | None = None, *, isolation: str = "venv",
                 find_links: str | os.PathLike | None = None, index_url: str | None = None,
                 requirements: Sequence[str] = (), dpverify_requirements: bool = True) -> None:
        if isolation not in ISOLATIONS:
            raise ValueError(f"isolation must be one of {ISOLATIONS}; got {isolation!r}")
        default = os.environ.get("DPVERIFY_BISECT_CACHE") or Path.home() / ".cache" / "dpverify" / "bisect"
        self.root = Path(root if root is not None else default)
        self.isolation = isolation
        self.find_links = None if find_links is None else Path(find_links)
        self.index_url = index_url
        self.requirements = tuple(str(r) for r in requirements)
        self.dpverify_requirements = bool(dpverify_requirements)

    def path(self, library: str, version: str) -> Path:
        key = str(_version(version))
        if self.requirements:  # another resolution, another environment
            key += "-" + hashlib.sha256("\n".join(self.requirements).encode()).hexdigest()[:10]
        return self.root / self.isolation / _check_name(library) / key

    def _release(self, directory: Path) -> Release:
        if self.isolation == "target":
            return Release(directory, sys.executable, (str(directory),))
        return Release(directory, str(directory / "bin" / "python"))

    def _pip_source(self) -> list[str]:
        if self.find_links is not None:
            return ["--no-index", "--find-links", str(self.find_links)]
        return ["--index-url", self.index_url] if self.index_url else []

    def install(self, library: str, version: str) -> Release:
        """``library==version`` installed (now unless cached); a ``RuntimeError`` carries pip's last lines when the
        install fails."""
        target = self.path(library, version)
        if (target / ".complete").exists():
            return self._release(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
        wanted = f"{library}=={version}"
        try:
            if self.isolation == "target":
                command = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                           "--no-deps", "--target", str(scratch), wanted, *self._pip_source()]
                _pip(command, wanted)
            else:
                # the environment must work where it will live: build it in place of the scratch directory's name
                shutil.rmtree(scratch)
                scratch = target.with_name(f".{target.name}-building")
                shutil.rmtree(scratch, ignore_errors=True)
                subprocess.run([sys.executable, "-m", "venv", str(scratch)], check=True, capture_output=True)
                python = str(scratch / "bin" / "python")
                ours = _dpverify_requirements() if self.dpverify_requirements else []
                requirements = [wanted, *ours, *self.requirements]
                _pip([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *requirements,
                      *self._pip_source()], wanted)
                site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                      capture_output=True, text=True, check=True).stdout.strip()
                (Path(site) / "dpverify-bisect.pth").write_text(str(Path(__file__).resolve().parents[2]) + "\n")
        except (RuntimeError, subprocess.CalledProcessError) as exc:
            shutil.rmtree(scratch, ignore_errors=True)
            raise RuntimeError(str(exc)) from None
        (scratch / ".complete").write_text(f"{wanted}\n")
        if target.exists():  # a stale, incomplete directory from an interrupted run
            shutil.rmtree(target, ignore_errors=True)
        os.replace(scratch, target)
        if self.isolation == "venv":  # the environment's scripts name their directory: re-point them
            _repoint_venv(scratch, target)
        return self._release(target)


def _pip(command: list[str], wanted: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        tail = " ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise RuntimeError(f"pip could not install {wanted}: {tail}")


def _repoint_venv(old: Path, new: Path) -> None:
    """A virtual environment moved from ``old`` to ``new``: its ``pyvenv.cfg`` and scripts are rewritten (the
    interpreter itself is a link to the base Python and needs nothing)."""
    for path in [new / "pyvenv.cfg", *sorted((new / "bin").glob("*"))]:
        if path.is_file() and not path.is_symlink():
            try:
                text = path.read_text()
            except UnicodeDecodeError:
                continue
            if str(old) in text:
                path.write_text(text.replace(str(old), str(new)))


#: The program each check runs in (a fresh interpreter): import the check, run it, print one JSON line.
_RUNNER = """
import importlib, importlib.metadata, json, sys
spec, library = sys.argv[1], sys.argv[2]
try:
    imported = importlib.metadata.version(library)
except Exception:
    imported = ""
if ":" in spec:
    module, _, name = spec.partition(":")
    out = getattr(importlib.import_module(module), name)()
else:
    from dpverify.libraries import corpus
    try:
        case = corpus.find(spec)
    except KeyError as exc:
        raise SystemExit(str(exc))
    out = case.check()
out = dict(out)
out["imported"] = imported
print("DPVERIFY-BISECT " + json.dumps(out, default=str))
"""


def run_check(check: str, library: str, release: Release | None, *,
              python_path: Sequence[str | os.PathLike] = (), timeout: float = CHECK_TIMEOUT) -> BisectStep:
    """Run ``check`` (``module:function`` returning a dict with ``status``, or a corpus case ID) in a fresh process
    of the release's interpreter with its path first on the import path, then ``python_path`` (``release`` None: the
    running environment as it is); the step's ``version`` is the version the process imported. A check that raises,
    times out or prints no result is an ``"error"`` step with the reason."""
    env = dict(os.environ)
    env.pop("PYTHONHOME", None)
    python = sys.executable if release is None else release.python
    paths = (list(release.path) if release is not None else []) + [str(p) for p in python_path]
    if env.get("PYTHONPATH"):
        paths.append(env["PYTHONPATH"])
    if paths:
        env["PYTHONPATH"] = os.pathsep.join(paths)
    start = time.perf_counter()
    try:
        done = subprocess.run([python, "-c", _RUNNER, check, library], capture_output=True, text=True,
                              env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return BisectStep("", "error", f"the check ran past {timeout:g} s", seconds=time.perf_counter() - start)
    seconds = time.perf_counter() - start
    line = next((ln for ln in reversed(done.stdout.splitlines()) if ln.startswith("DPVERIFY-BISECT ")), None)
    if done.returncode != 0 or line is None:
        tail = " ".join((done.stderr or done.stdout).strip().splitlines()[-2:])
        return BisectStep("", "error", f"the check failed: {tail}"[:400], seconds=seconds)
    out: dict[str, Any] = json.loads(line[len("DPVERIFY-BISECT "):])
    status = str(out.get("status", ""))
    verdict = _STATUS.get(status, "error")
    detail = str(out.get("detail", "")) if verdict != "error" else f"the check's status {status!r} is not one of " \
        f"{sorted(_STATUS)}: {out.get('detail', '')}"
    certified = out.get("certified")
    ledger = out.get("ledger", "")
    return BisectStep(str(out.get("imported", "")), verdict, detail,
                      None if certified is None else float(certified),
                      ledger if isinstance(ledger, str) else json.dumps(ledger, default=str), str(out.get("imported", "")),
                      seconds)


def bisect_versions(library: str, check: str, releases: Sequence[str], *, cache: ReleaseCache | None = None,
                    known_bad: str | None = None, python_path: Sequence[str | os.PathLike] = (),
                    progress: Callable[[BisectStep], None] | None = None) -> BisectResult:
    """Bisect ``releases`` (oldest first, at least two, as :func:`select_releases` returns them) of ``library`` on
    ``check`` (module docstring). ``known_bad``: a release the defect is known to show in (from the report), used
    when both ends are good. ``progress`` is called with each step as it completes."""
    name = _check_name(library)
    order = [str(_version(v)) for v in releases]
    if len(order) < 2:
        raise ValueError(f"releases must hold at least two versions; got {list(releases)!r}")
    if known_bad is not None and str(_version(known_bad, "known_bad")) not in order:
        raise ValueError(f"known_bad {known_bad!r} is not one of the releases in range ({order[0]} .. {order[-1]})")
    cache = cache or ReleaseCache()
    start = time.perf_counter()
    steps: dict[str, BisectStep] = {}

    def verdict(i: int) -> str:
        version = order[i]
        if version not in steps:
            try:
                release = cache.install(name, version)
            except RuntimeError as exc:
                step = BisectStep(version, "error", str(exc)[:400])
            else:
                ran = run_check(check, name, release, python_path=python_path)
                step = BisectStep(version, ran.verdict, ran.detail, ran.certified, ran.ledger, ran.imported,
                                  ran.seconds)
                if ran.verdict != "error" and ran.imported and ran.imported != version:
                    step = BisectStep(version, "error", f"the check imported {name} {ran.imported}, not {version}: "
                                      "the release did not shadow the installed copy", seconds=ran.seconds)
            steps[version] = step
            if progress is not None:
                progress(step)
        return steps[version].verdict

    def usable(i: int, toward: int) -> int | None:
        """The first index from ``i`` toward ``toward`` (inclusive) whose check did not error."""
        step = 1 if toward >= i else -1
        for j in range(i, toward + step, step):
            if verdict(j) != "error":
                return j
        return None

    def boundary(lo: int, hi: int) -> int:
        """The first index in (lo, hi] whose verdict differs from lo's (lo and hi differ; errors are skipped)."""
        side = verdict(lo)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            j = usable(mid, hi - 1)
            if j is None:  # every release between mid and hi errored: look left of mid instead
                j = usable(mid - 1, lo + 1) if mid - 1 > lo else None
                if j is None:
                    break
            if verdict(j) == side:
                lo = j
            else:
                hi = j
        return hi

    first_i, last_i = usable(0, len(order) - 1), usable(len(order) - 1, 0)
    if first_i is None or last_i is None or first_i == last_i:
        first_bad = first_good = None
        note = "the check could not run on enough releases in range to bisect (see each step's detail)"
    else:
        k = None if known_bad is None else order.index(str(_version(known_bad)))
        first_bad, first_good, note = _boundaries(order, first_i, last_i, k, verdict, boundary)
    return BisectResult(name, check, tuple(order), tuple(steps.values()), first_bad, first_good, note,
                        time.perf_counter() - start)


def _boundaries(order: list[str], first: int, last: int, known: int | None, verdict: Callable[[int], str],
                boundary: Callable[[int, int], int]) -> tuple[str | None, str | None, str]:
    """``(first_bad, first_good, note)`` from the verdicts at the range's usable ends ``first`` and ``last`` (and at
    ``known``, a release said to be bad, when both ends are good): the cases of :func:`bisect_versions`."""
    a, b = verdict(first), verdict(last)
    if a == "good" and b == "bad":
        first_bad = order[boundary(first, last)]
        return first_bad, None, f"the defect came in with {first_bad} and shows up to {order[last]}"
    if a == "bad" and b == "good":
        first_good = order[boundary(first, last)]
        return order[first], first_good, (f"the defect shows from {order[first]} (the range's start) and is fixed in "
                                          f"{first_good}")
    if a == "good" and known is not None:
        if verdict(known) != "bad":
            return None, None, f"the check does not show the defect on {order[known]}, the release said to have it"
        first_bad, first_good = order[boundary(first, known)], order[boundary(known, last)]
        return first_bad, first_good, f"the defect came in with {first_bad} and is fixed in {first_good}"
    if a == "bad":
        return order[first], None, f"the defect shows at both ends ({order[first]} and {order[last]}): no fix in range"
    return None, None, (f"the defect shows at neither end ({order[first]}, {order[last]}); give a release known to "
                        "have it (known_bad) to find where it came and went")
