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
import sys
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except (ValueError, KeyError) as exc:
        # Bad input: one clear line, exit status 2 (argparse's convention for usage errors).
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"dpverify: error: {msg}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
