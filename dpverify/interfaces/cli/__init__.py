"""The ``dpverify`` command line.

Each subcommand lives in its own module ``dpverify.interfaces.cli.<name>`` exposing
``register(subparsers)``, which adds its parser and sets ``func`` (a callable
taking the parsed namespace and returning the exit status). Modules import
their heavy dependencies (sympy, statsmodels) inside the handler, so
``dpverify --help`` stays fast.
"""
from __future__ import annotations

import argparse
import codecs
import importlib
import os
import signal
import sys
import traceback
from typing import Any, Callable, Sequence

from dpverify import __version__

#: Subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[str, ...] = ("verify", "theorems", "prove", "samplers", "audit", "account", "audit_library",
                                 "bisect", "one_run")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dpverify",
        description=(
            "Verify the differential privacy of posterior sampling and SG-MCMC: a symbolic theorem "
            "catalogue, reference samplers, and empirical audits that certify epsilon lower bounds."
        ),
    )
    parser.add_argument("--version", action="version", version=f"dpverify {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMANDS:
        module_name = f"dpverify.interfaces.cli.{name}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # subcommand not built yet
            if exc.name != module_name:
                raise
            continue
        module.register(sub)
    return parser


#: Set this environment variable to 1 to see the traceback of an internal error.
TRACEBACK_ENV = "DPVERIFY_TRACEBACK"

#: What an interrupted command says it saved (set by a subcommand while it runs; see :func:`on_interrupt`).
_interrupt_hint: Callable[[], str] | None = None
#: Called before exiting on Ctrl-C (e.g. to stop worker processes).
_interrupt_cleanups: list[Callable[[], None]] = []


def on_interrupt(hint: Callable[[], str] | None = None, cleanup: Callable[[], None] | None = None) -> None:
    """Register what Ctrl-C should report (``hint()``, appended to "dpverify: interrupted") and do (``cleanup()``).

    ``on_interrupt()`` with no arguments clears both."""
    global _interrupt_hint
    if hint is None and cleanup is None:
        _interrupt_hint = None
        _interrupt_cleanups.clear()
        return
    if hint is not None:
        _interrupt_hint = hint
    if cleanup is not None:
        _interrupt_cleanups.append(cleanup)


def _interrupt_message() -> str:
    try:
        detail = _interrupt_hint() if _interrupt_hint is not None else ""
    except Exception:  # the message must never fail
        detail = ""
    return "dpverify: interrupted" + (f": {detail}" if detail else "")


def _on_sigint(signum: int, frame: Any) -> None:
    """Ctrl-C: one line and exit 130, at once.

    Raising ``KeyboardInterrupt`` (Python's default) is not enough: it can surface inside a finaliser or a weakref
    callback, where Python prints "Exception ignored" and carries on. Exiting here is safe because everything
    dpverify writes survives a kill at any instant (checkpoints are appended line by line and flushed; reports are
    published by one atomic switch, :mod:`dpverify.interfaces.files`)."""
    for cleanup in list(_interrupt_cleanups):
        try:
            cleanup()
        except Exception:
            pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # e.g. a reentrant flush: the line below is written directly
            pass
    try:
        os.write(2, (_interrupt_message() + "\n").encode())
    finally:
        os._exit(130)


def _install_sigint() -> Any:
    """Install :func:`_on_sigint`; returns the previous handler (None if signals cannot be set here)."""
    try:
        return signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread of the main interpreter
        return None


def _silence_stdout() -> None:
    """After EPIPE: point stdout at /dev/null so the interpreter's final flush does not raise again
    (the recipe of the Python docs, "Note on SIGPIPE", signal module)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (captured)
        pass


#: The error handler of stdout and stderr while a command runs (:func:`_tolerate_unencodable_output`).
OUTPUT_ERRORS = "dpverify-escape"


def _escape_unencodable(exc: UnicodeError) -> tuple[str | bytes, int]:
    """Python's ``surrogateescape`` where it applies (bytes of an undecodable file name written back as they were),
    else ``backslashreplace`` (``R\\xe9nyi`` on an ASCII terminal rather than a ``UnicodeEncodeError``)."""
    if isinstance(exc, UnicodeEncodeError):
        try:
            return codecs.lookup_error("surrogateescape")(exc)
        except UnicodeError:
            pass
    return codecs.lookup_error("backslashreplace")(exc)


codecs.register_error(OUTPUT_ERRORS, _escape_unencodable)


def _tolerate_unencodable_output() -> list[tuple[Any, str]]:
    """Let stdout and stderr write what their encoding cannot (help text or a name with a non-ASCII character on an
    ASCII terminal: ``LC_ALL=C`` without Python's UTF-8 mode, ``PYTHONIOENCODING=ascii``) as backslash escapes
    (:data:`OUTPUT_ERRORS`) instead of failing with a ``UnicodeEncodeError``; returns what to restore. Streams that
    already escape or replace, and streams without ``reconfigure`` (replaced ones), are left alone."""
    changed = []
    for stream in (sys.stdout, sys.stderr):
        errors = getattr(stream, "errors", None)
        if errors in (None, "strict", "surrogateescape") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors=OUTPUT_ERRORS)
            except (AttributeError, TypeError, ValueError, OSError, LookupError):
                continue
            changed.append((stream, errors or "strict"))
    return changed


def _restore_streams(changed: list[tuple[Any, str]]) -> None:
    for stream, errors in changed:
        try:
            stream.reconfigure(errors=errors)
        except (AttributeError, TypeError, ValueError, OSError):
            pass


class StdoutError(OSError):
    """Standard output could not be written (a full disk, an I/O error): the command line says so naming stdout,
    exit status 1."""


class _GuardedStdout:
    """``sys.stdout`` while a command runs: a write or flush that fails (other than a closed pipe, which stays a
    ``BrokenPipeError``) raises :class:`StdoutError` and is remembered in :attr:`error` -- argparse swallows the
    ``OSError`` of the ``--help`` text it writes, and a failed write leaves nothing for a later flush to fail on, so
    the failure must be caught where it happens. Everything else is the stream's own."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream
        self.error: OSError | None = None

    def _failed(self, exc: OSError) -> StdoutError:
        self.error = self.error or exc
        return StdoutError(exc.errno, exc.strerror or str(exc))

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from exc

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from exc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _guard_stdout() -> _GuardedStdout | None:
    if sys.stdout is None or isinstance(sys.stdout, _GuardedStdout):
        return None
    sys.stdout = _GuardedStdout(sys.stdout)
    return sys.stdout


def _unguard_stdout(guard: _GuardedStdout | None) -> None:
    if guard is not None and sys.stdout is guard:
        sys.stdout = guard._stream


def _stdout_failed(exc: OSError | None, guard: _GuardedStdout | None) -> OSError | None:
    """The error of writing stdout during the command (``exc`` when it is one), None when stdout was fine."""
    if guard is not None and guard.error is not None:
        return guard.error
    return exc if isinstance(exc, StdoutError) else None


def _stdout_error(exc: OSError) -> int:
    """Say that stdout could not be written, and why; exit status 1."""
    print(f"dpverify: error: cannot write to stdout: {exc.strerror or exc}", file=sys.stderr)
    _silence_stdout()  # what is left in its buffer would fail again at interpreter exit
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    0 success; 1 a verification failed (a violation, an audit error, a failed theorem check) or a file could not
    be written (stdout too: "cannot write to stdout: No space left on device", :class:`_GuardedStdout`); 2 bad input
    (argparse's usage errors and :class:`~dpverify.validation.UsageError`: one line on stderr naming the argument and
    its allowed values); 3 an internal error (any other exception, a ``ValueError``
    raised inside dpverify included: one line; set ``DPVERIFY_TRACEBACK=1`` for the traceback); 130 interrupted (Ctrl-C: one line, no traceback; see
    :func:`_on_sigint`); 141 stdout closed early (``dpverify ... | head``: the conventional 128 + SIGPIPE, nothing
    printed).
    """
    previous = _install_sigint()
    streams = _tolerate_unencodable_output()
    guard = _guard_stdout()
    try:
        parser = build_parser()
        try:
            args = parser.parse_args(argv)
        except SystemExit as exc:  # --help, --version, or a usage error argparse has already printed
            sys.stdout.flush()  # (argparse ignores a failed write of the help: the guard remembers it)
            failed = _stdout_failed(None, guard)
            if failed is not None:
                return _stdout_error(failed)
            return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        if not getattr(args, "func", None):
            parser.print_help()
            sys.stdout.flush()
            failed = _stdout_failed(None, guard)
            return _stdout_error(failed) if failed is not None else 0
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe or a full disk shows up here rather than at interpreter exit
        failed = _stdout_failed(None, guard)  # (a command that caught the error itself)
        return _stdout_error(failed) if failed is not None else status
    except KeyboardInterrupt:  # raised by code (or delivered before the handler was installed)
        print(_interrupt_message(), file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except OSError as exc:  # a file that cannot be read or written (the message names it), or stdout itself
        failed = _stdout_failed(exc, guard)
        if failed is not None:
            return _stdout_error(failed)
        print(f"dpverify: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:
        # (imported here: dpverify.validation imports numpy, which `dpverify --help` does not need)
        from dpverify.validation import UsageError

        if isinstance(exc, UsageError):
            # Bad input: one clear line, exit status 2 (argparse's convention for usage errors).
            print(f"dpverify: error: {exc}", file=sys.stderr)
            return 2
        # a bug: one line, the traceback on request
        if os.environ.get(TRACEBACK_ENV) == "1":
            traceback.print_exc()
        print(f"dpverify: internal error: {type(exc).__name__}: {exc} (set {TRACEBACK_ENV}=1 to see the "
              "traceback; please report it)", file=sys.stderr)
        return 3
    finally:
        on_interrupt()
        _unguard_stdout(guard)
        _restore_streams(streams)
        if previous is not None:
            signal.signal(signal.SIGINT, previous)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
