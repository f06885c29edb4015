"""Plain JSON, atomic file writes, and report directories whose files are swapped in together.

Shared by the reports, the pytest plugin and the CLI. Standard library only, so that importing it costs nothing
(the pytest plugin loads in every session).

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
is how clean-up and ``--resume`` tell an interrupted run from a live one. A directory from an older dpverify with
plain ``report.json``/``report.html`` is first copied into a run directory and linked (every intermediate state
shows the old pair).

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

try:  # POSIX; elsewhere runs are not locked (no concurrent-run protection, see RunDirectory)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["jsonable", "plain", "write_atomic", "write_json_atomic", "check_writable_dir", "new_run_id",
           "RunDirectory", "Run", "RUNS_DIR"]

#: The hidden directory of a report directory that holds the runs.
RUNS_DIR = ".dpverify-runs"
_CURRENT = "current"
_LOCK = "lock"
_CHECKPOINT = "checkpoint.jsonl"


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
    file in it; a ``ValueError`` naming ``what`` and the reason otherwise. Called *before* any work, so that a bad
    path never costs a run's results."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"{what} must be a directory; {str(p)!r} exists and is not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise ValueError(f"{what} {str(p)!r}: a parent of it exists and is not a directory") from None
    except OSError as exc:
        raise ValueError(f"{what} {str(p)!r}: cannot create the directory ({exc.strerror or exc})") from None
    try:
        fd, probe = tempfile.mkstemp(prefix=".dpverify-write-probe.", dir=p)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"{what} {str(p)!r} is not writable ({exc.strerror or exc})") from None
    return p


def check_writable_file(path: str | os.PathLike, what: str) -> Path:
    """Check that a file can be written at ``path`` (its directory is created if needed; the file itself is not):
    a ``ValueError`` naming ``what`` otherwise. ``path`` must not be an existing directory."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{what} must be a file path; {str(p)!r} is a directory")
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
        self._checkpoint.write(line + "\n")
        self._checkpoint.flush()
        os.fsync(self._checkpoint.fileno())
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

    def __init__(self, root: str | os.PathLike, what: str = "--report") -> None:
        self.root = Path(root)
        self.runs = self.root / RUNS_DIR
        self.what = what

    # -- set-up -------------------------------------------------------------------------------------------------
    def prepare(self) -> "RunDirectory":
        """Check the directory is writable (``ValueError`` otherwise) and migrate an old plain-file report."""
        check_writable_dir(self.root, self.what)
        try:
            self.runs.mkdir(exist_ok=True)
        except OSError as exc:
            raise ValueError(f"{self.what} {str(self.root)!r}: cannot create {RUNS_DIR} ({exc.strerror or exc})") from None
        with self._locked():
            self._migrate_plain_files()
        return self

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
        names = ("report.json", "report.html")
        if not any((self.root / n).exists() and not (self.root / n).is_symlink() for n in names):
            return
        # The new run holds what each name shows now: the plain file, or (after a migration killed half-way) the
        # file its link already resolves to; so every intermediate state shows the same pair.
        legacy = self.runs / f"run-legacy-{new_run_id()}"
        tmp = self.runs / f".migrating-{legacy.name}"
        tmp.mkdir()
        present = []
        for n in names:
            if (self.root / n).exists():  # follows a link
                shutil.copy2(self.root / n, tmp / n)
                with open(tmp / n, "rb") as fh:
                    os.fsync(fh.fileno())
                present.append(n)
        os.rename(tmp, legacy)
        self._switch(legacy)
        self._ensure_links(present)

    # -- runs ---------------------------------------------------------------------------------------------------
    def start(self, header: dict, resume: bool = False, match: tuple[str, ...] = ()) -> Run:
        """A new run (or, with ``resume``, an interrupted one whose header agrees on the keys ``match``).

        ``resume`` with no interrupted run in the directory starts a new one (``Run.resumed`` is False); with
        interrupted runs none of which matches, a ``ValueError`` says how their headers differ.
        """
        if resume:
            adopted, mismatches = self._adopt(header, match)
            if adopted is not None:
                return adopted
            if mismatches:
                raise ValueError(
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
        """Write ``files`` into the run's directory and make them the directory's report, all at once."""
        for name, data in files.items():
            write_atomic(run.path / name, data)
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
        directories of interrupted runs (a completed run supersedes them); never a live run's directory."""
        current = self.current_run()
        published = sorted((p for p in self.runs.glob("run-*") if p.name != current and p.name not in keep),
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
