"""The ``dpverify`` command line.

Each subcommand lives in its own module ``dpverify.cli.<name>`` exposing
``register(subparsers)``, which adds its parser and sets ``func`` (a callable
taking the parsed namespace and returning the exit status). Modules import
their heavy dependencies (sympy, statsmodels) inside the handler, so
``dpverify --help`` stays fast.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from typing import Sequence

from dpverify import __version__

#: Subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[str, ...] = ("verify", "theorems", "samplers", "audit", "account")


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
        module_name = f"dpverify.cli.{name}"
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


def _silence_stdout() -> None:
    """After EPIPE: point stdout at /dev/null so the interpreter's final flush does not raise again
    (the recipe of the Python docs, "Note on SIGPIPE", signal module)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor (captured)
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    0 success; 1 a verification failed (a violation, an audit error, a failed theorem check) or a file could not
    be written; 2 bad input (one line on stderr naming the argument); 3 an internal error (one line; set
    ``DPVERIFY_TRACEBACK=1`` for the traceback); 130 interrupted (Ctrl-C: one line, no traceback); 141 stdout
    closed early (``dpverify ... | head``: the conventional 128 + SIGPIPE, nothing printed).
    """
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 0
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows up here rather than at interpreter exit
        return status
    except KeyboardInterrupt:
        print("dpverify: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except (ValueError, KeyError) as exc:
        # Bad input: one clear line, exit status 2 (argparse's convention for usage errors).
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"dpverify: error: {msg}", file=sys.stderr)
        return 2
    except OSError as exc:  # a file that cannot be read or written (the message names it)
        print(f"dpverify: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: one line, the traceback on request
        if os.environ.get(TRACEBACK_ENV) == "1":
            traceback.print_exc()
        print(f"dpverify: internal error: {type(exc).__name__}: {exc} (set {TRACEBACK_ENV}=1 to see the "
              "traceback; please report it)", file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
