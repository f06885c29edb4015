"""Plain JSON, atomic file writes, and report directories whose files are swapped in together.

Shared by the reports, the pytest plugin and the CLI. The standard library and :mod:`dpverify.validation` only (the
pytest plugin imports it when a session asks for a report).

**Atomic single files** (:func:`write_atomic`): a temporary file in the same directory, ``fsync``, then
``os.replace`` -- POSIX ``rename(2)`` replaces the target atomically, so a reader sees the old file or the new one,
never a truncated one.

**Report directories** (:class:`RunDirectory`): a report is several files (``report.json`` beside
``report.html``) that must never come from two different runs. Renaming two files is two operations, and a kill
between them mixes runs. So every run writes into its own directory and one symbolic link is swapped (the
"atomic deploy" pattern: ``rename(2)`` of a symlink over a symlink is atomic)::

    R/report.json -> .dpverify-runs/current/report.json     (created once, never rewritten)
    R/report.html -> .dpverify-runs/current/report.html
    R/.dpverify-runs/current -> run-<id>                     (the one atomic switch)
    R/.dpverify-runs/run-<id>/                               (a published run: all its files)
    R/.dpverify-runs/partial-<id>/                           (a run in progress: lock, checkpoint, renders)
    R/.dpverify-runs/lock                                    (serialises publishing and clean-up)

Whatever instant a process is killed at, ``R/report.json`` and ``R/report.html`` resolve through the same
``current`` link, hence to the same run. Concurrent runs write to distinct ``partial-<id>`` directories and publish
one at a time under ``lock`` (``flock(2)``); the last to publish wins, whole. A run in progress holds an exclusive
``flock`` on its own ``partial-<id>/lock``: the kernel releases it when the process dies (SIGKILL included), which
is how clean-up and ``--resume`` tell an interrupted run from a live one.

**Files a user owns are never lost.** A ``report.json`` or ``report.html`` in R that is not dpverify's link (a plain
file, e.g. the user's own report or one of an older dpverify, a link elsewhere, a directory) stops the run before any
work with a :class:`~dpverify.validation.UsageError` naming it, unless ``overwrite=True`` (``--overwrite``): then it is
first copied into ``run-legacy-<id>`` and linked (every intermediate state shows the old pair), and legacy runs are
never cleaned up. A report that cannot be written (a full disk) is a :class:`WriteError` naming the file and what was
kept: nothing in R changes, and a checkpointed run keeps its ``partial-<id>`` for ``--resume``.

**Checkpoints** (:meth:`Run.append`): one JSON line per completed unit of work, flushed and ``fsync``-ed, so a
resumed run (:meth:`RunDirectory.start` with ``resume=True``) repeats nothing that finished. A line torn by a kill
is dropped on reading. Floats are written with ``repr`` (exact round trip; infinities as JSON's ``Infinity``
extension), so resumed numbers are identical to the ones computed.
"""
from __future__ import annotations

import json
import math
import os
import secrets
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from dpverify.validation import UsageError, describe_value

try:  # POSIX; elsewhere runs are not locked (no concurrent-run protection, see RunDirectory)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["jsonable", "plain", "write_atomic", "write_json_atomic", "check_writable_dir", "check_writable_file",
           "new_run_id", "RunDirectory", "Run", "RUNS_DIR", "REPORT_FILES", "WriteError", "UsageError"]

#: The hidden directory of a report directory that holds the runs.
RUNS_DIR = ".dpverify-runs"
#: The files a report directory publishes (links into ``RUNS_DIR/current``).
REPORT_FILES = ("report.json", "report.html")
_LEGACY = "run-legacy-"
_CURRENT = "current"
_LOCK = "lock"
_CHECKPOINT = "checkpoint.jsonl"


class WriteError(OSError):
    """A file could not be written (a full disk, a quota, an I/O error): the message names the file, the reason and
    what was kept. An ``OSError``, so the command line answers it with exit status 1."""

    def __init__(self, message: str, errno_: int | None = None) -> None:
        super().__init__(errno_, message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def _name(path: str | os.PathLike) -> str:
    """A path for an error message: whole up to 200 characters, else its start, end and length."""
    return describe_value(str(path), limit=200)


def _convert(x: Any, finite_floats_only: bool) -> Any:
    if hasattr(x, "item") and getattr(x, "ndim", None) == 0:
        x = x.item()
    if hasattr(x, "tolist") and not isinstance(x, (str, bytes)):
        x = x.tolist()
    if finite_floats_only and isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {str(k): _convert(v, finite_floats_only) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_convert(v, finite_floats_only) for v in x]
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    return str(x)


def jsonable(x: Any) -> Any:
    """Plain JSON: numpy scalars and arrays to Python, inf/nan to strings (JSON has no infinities),
    anything else unknown to its ``str``."""
    return _convert(x, finite_floats_only=True)


def plain(x: Any) -> Any:
    """Like :func:`jsonable` but floats stay floats (inf and NaN included): for checkpoints, which must give back
    exactly the numbers that were stored (``json.dumps(..., allow_nan=True)`` writes them as ``Infinity``/``NaN``)."""
    return _convert(x, finite_floats_only=False)


def _fsync_dir(path: Path) -> None:
    """fsync a directory, so that renames in it survive a power cut (a no-op where directories cannot be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory and an atomic rename:
    an interrupted write never leaves a truncated file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; a report is meant to be read by others
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_json_atomic(path: str | os.PathLike, obj: Any) -> None:
    """:func:`write_atomic` of ``obj`` as indented, strict JSON (via :func:`jsonable`)."""
    write_atomic(path, json.dumps(jsonable(obj), indent=2, allow_nan=False).encode())


def check_writable_dir(path: str | os.PathLike, what: str = "--report") -> Path:
    """Create ``path`` (and its parents) if needed and prove it is a writable directory by creating and removing a
    file in it; a :class:`~dpverify.validation.UsageError` naming ``what`` and the reason otherwise (an empty path, a
    name too long for the file system, a file in the way, no permission). Called *before* any work, so that a bad
    path never costs a run's results. The path is named by :func:`~dpverify.validation.describe_value` (a
    5,000-character path is not echoed whole)."""
    if not str(path).strip():
        raise UsageError(f"{what} must be a directory path; got an empty string")
    p = Path(path)
    name = _name(p)
    dangling = _dangling_link(p)
    if dangling is not None:
        link, target = dangling
        which = name if link == p else f"{name}: its parent {_name(link)}"
        raise UsageError(f"{what} {which} is a dangling symbolic link: it points to {_name(target)}, which does not "
                         "exist; create that directory or remove the link")
    try:
        if p.exists() and not p.is_dir():
            raise UsageError(f"{what} must be a directory; {name} exists and is not a directory")
        p.mkdir(parents=True, exist_ok=True)
    except UsageError:
        raise
    except (FileExistsError, NotADirectoryError):
        raise UsageError(f"{what} {name}: a parent of it exists and is not a directory") from None
    except OSError as exc:
        raise UsageError(f"{what} {name}: cannot create the directory ({_reason(exc)})") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=".dpverify-write-probe.", dir=p)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"{what} {name} is not writable ({_reason(exc)})") from None
    return p


def _dangling_link(path: Path) -> tuple[Path, str] | None:
    """``(link, where it points)`` for the first of ``path`` and its parents (from ``path`` up) that is a symbolic link
    whose target does not exist (a dangling link, which ``mkdir`` reports as "File exists"), else None."""
    for candidate in (path, *path.parents):
        try:
            if candidate.is_symlink() and not candidate.exists():
                return candidate, os.readlink(candidate)
        except OSError:  # a name too long, no permission to look: the checks after this one say so
            return None
    return None


def check_writable_file(path: str | os.PathLike, what: str) -> Path:
    """Check that a file can be written at ``path`` (its directory is created if needed; the file itself is not):
    a :class:`~dpverify.validation.UsageError` naming ``what`` otherwise. ``path`` must not be an existing directory."""
    if not str(path).strip():
        raise UsageError(f"{what} must be a file path; got an empty string")
    p = Path(path)
    try:
        is_dir = p.is_dir()
    except OSError as exc:
        raise UsageError(f"{what} {_name(p)}: {_reason(exc)}") from None
    if is_dir:
        raise UsageError(f"{what} must be a file path; {_name(p)} is a directory")
    check_writable_dir(p.parent if str(p.parent) else Path("."), what=f"{what} (its directory)")
    return p


def new_run_id() -> str:
    """A run id, unique across processes and hosts: UTC time, process id and 32 random bits."""
    return f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{os.getpid()}-{secrets.token_hex(4)}"


def _lock_exclusive(fd: int, block: bool) -> bool:
    """flock(fd) exclusively; False if ``block`` is False and another open file holds it."""
    if fcntl is None:  # pragma: no cover
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
        return True
    except BlockingIOError:
        return False


class Run:
    """One run writing into a :class:`RunDirectory`: its id, its ``partial-<id>`` directory (locked while the
    process lives), the header it was started with, and its checkpoint."""

    def __init__(self, run_id: str, path: Path, lock_fd: int, header: dict, records: list[dict],
                 resumed: bool) -> None:
        self.run_id = run_id
        self.path = path
        self.header = header
        self.records = records
        self.resumed = resumed
        self._lock_fd: int | None = lock_fd
        self._checkpoint = open(path / _CHECKPOINT, "a", encoding="utf-8")

    def append(self, record: dict) -> None:
        """Add one completed unit of work to the checkpoint (durable when this returns)."""
        line = json.dumps(plain(record), allow_nan=True, separators=(",", ":"))
        try:
            self._checkpoint.write(line + "\n")
            self._checkpoint.flush()
            os.fsync(self._checkpoint.fileno())
        except OSError as exc:
            raise WriteError(f"could not save a result to the checkpoint {self.path / _CHECKPOINT} "
                             f"({_reason(exc)}); the {len(self.records)} results saved before it are kept: free "
                             "space and rerun the same command with --resume", exc.errno) from None
        self.records.append(record)

    def descriptors(self) -> tuple[int, ...]:
        """The open file descriptors of this run (lock, checkpoint): a forked child should close them."""
        fds = [] if self._checkpoint.closed else [self._checkpoint.fileno()]
        return tuple(([] if self._lock_fd is None else [self._lock_fd]) + fds)

    def close(self) -> None:
        """Release the checkpoint and the lock (the directory stays; a closed, unpublished run can be resumed)."""
        if not self._checkpoint.closed:
            self._checkpoint.close()
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def __del__(self) -> None:  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass


def _read_checkpoint(path: Path) -> tuple[dict | None, list[dict], bytes]:
    """(header, records, good bytes) of a checkpoint; a torn or unreadable line ends it."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None, [], b""
    header, records, good = None, [], 0
    for line in raw.splitlines(keepends=True):
        if not line.endswith(b"\n"):
            break
        try:
            obj = json.loads(line)
        except ValueError:
            break
        if header is None:
            if not isinstance(obj, dict) or obj.get("type") != "header":
                break
            header = obj
        else:
            records.append(obj)
        good += len(line)
    return header, records, raw[:good]


class RunDirectory:
    """A report directory whose published files always come from one run (see the module docstring)."""

    def __init__(self, root: str | os.PathLike, what: str = "--report", overwrite_flag: str = "--overwrite") -> None:
        self.root = Path(root)
        self.runs = self.root / RUNS_DIR
        self.what = what
        self.overwrite_flag = overwrite_flag

    # -- set-up -------------------------------------------------------------------------------------------------
    def prepare(self, overwrite: bool = False) -> "RunDirectory":
        """Check the directory is writable, and that its ``report.json``/``report.html`` (if any) are dpverify's links
        (a :class:`~dpverify.validation.UsageError` otherwise, naming them and ``overwrite_flag``); with ``overwrite``
        such files are kept in a ``run-legacy-<id>`` run directory and linked instead."""
        check_writable_dir(self.root, self.what)
        foreign = self.foreign_files()
        if foreign and not overwrite:
            names = " and ".join(f"{n} ({why})" for n, why in foreign)
            raise UsageError(
                f"{self.what} {_name(self.root)} already holds {names}, which dpverify did not publish "
                f"(it publishes links into {RUNS_DIR}); a report would replace them. Move them away, choose another "
                f"directory, or pass {self.overwrite_flag} to keep them in {RUNS_DIR}/{_LEGACY}<id>/ and publish over "
                "them")
        try:
            if self.runs.is_symlink() or (self.runs.exists() and not self.runs.is_dir()):
                raise UsageError(f"{self.what} {_name(self.root)}: {RUNS_DIR} exists and is not a "
                                 "directory; move it away")
            self.runs.mkdir(exist_ok=True)
        except UsageError:
            raise
        except OSError as exc:
            raise UsageError(f"{self.what} {_name(self.root)}: cannot create {RUNS_DIR} "
                             f"({_reason(exc)})") from None
        with self._locked():
            self._migrate_plain_files()
        return self

    def foreign_files(self) -> list[tuple[str, str]]:
        """(name, what it is) of each of :data:`REPORT_FILES` in the directory that is not dpverify's link: a plain
        file, a directory, or a link pointing elsewhere."""
        out = []
        for name in REPORT_FILES:
            path = self.root / name
            if path.is_symlink():
                if os.readlink(path) != f"{RUNS_DIR}/{_CURRENT}/{name}":
                    out.append((name, f"a link to {os.readlink(path)}"))
            elif path.is_dir():
                out.append((name, "a directory"))
            elif path.exists():
                out.append((name, "a file"))
        return out

    def _lock_path(self) -> Path:
        return self.runs / _LOCK

    class _Lock:
        def __init__(self, path: Path) -> None:
            self.path = path
            self.fd = -1

        def __enter__(self) -> None:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o666)
            _lock_exclusive(self.fd, block=True)

        def __exit__(self, *exc: Any) -> None:
            os.close(self.fd)  # closing the descriptor releases the flock

    def _locked(self) -> "RunDirectory._Lock":
        return RunDirectory._Lock(self._lock_path())

    def _migrate_plain_files(self) -> None:
        """Turn a plain-file report of an older dpverify into a published run (its files copied, then linked)."""
        names = REPORT_FILES
        if not self.foreign_files():
            return
        # The new run holds what each name shows now: the plain file, or (after a migration killed half-way) the
        # file its link already resolves to; so every intermediate state shows the same pair. A directory in the
        # way is moved into the legacy run whole.
        legacy = self.runs / f"{_LEGACY}{new_run_id()}"
        tmp = self.runs / f".migrating-{legacy.name}"
        tmp.mkdir()
        present, moved = [], []
        for n in names:
            src = self.root / n
            if src.is_dir() and not src.is_symlink():
                moved.append(n)
            elif src.exists():  # follows a link
                shutil.copy2(src, tmp / n)
                with open(tmp / n, "rb") as fh:
                    os.fsync(fh.fileno())
                present.append(n)
        same = self._identical_legacy(tmp, present) if not moved else None
        if same is not None:  # a migration killed after its copy: reuse that copy
            shutil.rmtree(tmp)
            legacy = same
        else:
            os.rename(tmp, legacy)
        for n in moved:
            os.rename(self.root / n, legacy / n)
        self._switch(legacy)
        self._ensure_links(present)

    def _identical_legacy(self, tmp: Path, names: list[str]) -> Path | None:
        """A legacy run already holding exactly these files (left by a migration killed after its copy)."""
        for old in self.runs.glob(f"{_LEGACY}*"):
            if sorted(p.name for p in old.iterdir()) == sorted(names) and all(
                    (old / n).read_bytes() == (tmp / n).read_bytes() for n in names):
                return old
        return None

    # -- runs ---------------------------------------------------------------------------------------------------
    def start(self, header: dict, resume: bool = False, match: tuple[str, ...] = ()) -> Run:
        """A new run (or, with ``resume``, an interrupted one whose header agrees on the keys ``match``).

        ``resume`` with no interrupted run in the directory starts a new one (``Run.resumed`` is False); with
        interrupted runs none of which matches, a :class:`~dpverify.validation.UsageError` says how their headers
        differ.
        """
        if resume:
            adopted, mismatches = self._adopt(header, match)
            if adopted is not None:
                return adopted
            if mismatches:
                raise UsageError(
                    f"cannot resume: the interrupted run(s) in {str(self.root)!r} used different settings ("
                    + "; ".join(mismatches) + "); rerun with those settings, or without --resume to start afresh")
        run_id = new_run_id()
        path = self.runs / f"partial-{run_id}"
        with self._locked():  # clean-up (under the same lock) never sees the directory without its locked lock file
            path.mkdir(parents=True)
            fd = os.open(path / _LOCK, os.O_RDWR | os.O_CREAT, 0o666)
            _lock_exclusive(fd, block=True)
        head = {"type": "header", "run_id": run_id, **header}
        write_atomic(path / _CHECKPOINT, (json.dumps(plain(head), allow_nan=True) + "\n").encode())
        return Run(run_id, path, fd, head, [], resumed=False)

    def _interrupted(self) -> Iterator[tuple[Path, int]]:
        """(directory, locked fd) of each partial run whose process is gone, newest first; the caller owns fd."""
        if not self.runs.is_dir():
            return
        partials = sorted(self.runs.glob("partial-*"), key=lambda p: _mtime(p / _CHECKPOINT), reverse=True)
        for path in partials:
            try:
                fd = os.open(path / _LOCK, os.O_RDWR)
            except OSError:
                continue
            if _lock_exclusive(fd, block=False):
                yield path, fd
            else:
                os.close(fd)

    def _adopt(self, header: dict, match: tuple[str, ...]) -> tuple[Run | None, list[str]]:
        mismatches = []
        for path, fd in self._interrupted():
            old, records, good = _read_checkpoint(path / _CHECKPOINT)
            diffs = [] if old is None else [k for k in match if plain(old.get(k)) != plain(header.get(k))]
            if old is None or diffs:
                if old is not None:
                    mismatches.append(", ".join(f"{k}={old.get(k)!r} (now {header.get(k)!r})" for k in diffs))
                os.close(fd)
                continue
            write_atomic(path / _CHECKPOINT, good)  # drop a line torn by the kill before appending
            return Run(str(old["run_id"]), path, fd, old, records, resumed=True), []
        return None, mismatches

    # -- publishing ---------------------------------------------------------------------------------------------
    def publish(self, run: Run, files: dict[str, bytes]) -> list[Path]:
        """Write ``files`` into the run's directory and make them the directory's report, all at once.

        A file that cannot be written is a :class:`WriteError` naming it; nothing in the directory changes. A run with
        checkpointed results keeps its ``partial-<id>`` directory (``--resume`` publishes them without recomputing);
        any other run's partial directory is removed."""
        for name, data in files.items():
            try:
                write_atomic(run.path / name, data)
            except OSError as exc:
                raise self._write_failure(run, name, exc) from None
        _fsync_dir(run.path)
        with self._locked():
            final = self.runs / f"run-{run.run_id}"
            if final.exists():  # the same run published before (resumed after publishing): replace it
                shutil.rmtree(final)
            os.rename(run.path, final)
            run.path = final
            self._switch(final)
            self._ensure_links(list(files))
            self._collect_garbage(keep={final.name})
        run.close()
        return [self.root / name for name in files]

    def _write_failure(self, run: Run, name: str, exc: OSError) -> WriteError:
        """The error of a report file that could not be written, after the clean-up that leaves nothing behind
        except a checkpoint worth resuming."""
        target = run.path / name
        saved = sum(r.get("type") in ("theorem", "audit") for r in run.records)
        run.close()
        if saved:
            kept = (f"the {saved} completed results are kept in {run.path / _CHECKPOINT}: free space and rerun the "
                    "same command with --resume to publish them without recomputing")
        else:
            shutil.rmtree(run.path, ignore_errors=True)
            kept = "its partial files are removed"
        return WriteError(f"could not write the report file {target} ({_reason(exc)}); nothing in "
                          f"{self.root} changed (the published report, if any, is intact) and {kept}", exc.errno)

    def _switch(self, target: Path) -> None:
        tmp = self.runs / f".current-{new_run_id()}"
        os.symlink(target.name, tmp)
        os.replace(tmp, self.runs / _CURRENT)
        _fsync_dir(self.runs)

    def _ensure_links(self, names: list[str]) -> None:
        for name in names:
            link = self.root / name
            target = f"{RUNS_DIR}/{_CURRENT}/{name}"
            if link.is_symlink() and os.readlink(link) == target:
                continue
            tmp = self.root / f".{name}.link-{new_run_id()}"
            os.symlink(target, tmp)
            os.replace(tmp, link)
        _fsync_dir(self.root)

    def current_run(self) -> str | None:
        """The name of the published run directory (None if nothing was published)."""
        try:
            return os.readlink(self.runs / _CURRENT)
        except OSError:
            return None

    def _collect_garbage(self, keep: set[str]) -> None:
        """Remove published runs but the current one and the one before it (a reader may be reading it), and the
        directories of interrupted runs (a completed run supersedes them); never a live run's directory, and never a
        legacy run (the files a user had in the directory, kept by ``overwrite``)."""
        current = self.current_run()
        published = sorted((p for p in self.runs.glob("run-*") if p.name != current and p.name not in keep
                            and not p.name.startswith(_LEGACY)),  # a user's files: never removed
                           key=lambda p: _mtime(p), reverse=True)
        for old in published[1:]:
            shutil.rmtree(old, ignore_errors=True)
        for path, fd in list(self._interrupted()):
            try:
                shutil.rmtree(path, ignore_errors=True)
            finally:
                os.close(fd)
        # leftovers of a process killed mid-step (every such step runs under the lock we hold, so none is live)
        for stale in [*self.runs.glob("partial-*"), *self.runs.glob(".migrating-*")]:
            if not (stale / _LOCK).exists():
                shutil.rmtree(stale, ignore_errors=True)
        for stale in [*self.runs.glob(".current-*"), *self.root.glob(".*.link-*")]:
            try:
                stale.unlink()
            except OSError:
                pass


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0
