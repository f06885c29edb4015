"""Argument types of the command line: every numeric option and every path is checked as it is parsed.

Each factory returns an ``argparse`` type: a callable from the option's text to its value that raises
``argparse.ArgumentTypeError`` with the allowed range, so that argparse answers with one line naming the option
(``dpverify audit: error: argument --samples: must be an integer in [4, 1000000000000]; got '1e30'``) and exit
status 2. The checks are the shared validators of :mod:`dpverify.validation`, so the whole class of values at the
edge of a number type is answered alike everywhere: ``nan``, ``inf`` (unless the option allows it), ``1e400``
(beyond the float range), ``True``, integers beyond int64, ``-0`` (read as 0), text that is not a number.

Importing this module imports numpy (through the validators) only when an option is parsed.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from dpverify.vocabulary import ArrayBackend

#: The most samples per side an audit takes from the command line or the pytest plugin. The auditor plans its
#: chunks up front (one entry per chunk of 2^20 samples), and 10^12 samples per side is already days of drawing on
#: a cluster; more is a typo.
MAX_SAMPLES = 10**12
#: The most worker processes a command starts.
MAX_WORKERS = 1024
#: The longest path accepted (Linux's PATH_MAX); longer text is an error naming the option, not an OS error.
MAX_PATH = 4096

_INF_TEXT = re.compile(r"^\s*[+-]?(inf|infinity)\s*$", re.IGNORECASE)


def _shown(text: str) -> str:
    """The text a user typed, for a message: whole up to 60 characters, else its start, end and length."""
    from dpverify.validation import describe_value

    return describe_value(text)


def _number(text: str, what: str) -> float | int:
    """The number ``text`` spells: an int for integer text (so that huge integers stay exact), else a float; an
    ``ArgumentTypeError`` naming the allowed range for anything else (booleans included)."""
    stripped = text.strip()
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        value = float(stripped)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {what}; got {_shown(text)}") from None
    if math.isinf(value) and not _INF_TEXT.match(stripped):
        raise argparse.ArgumentTypeError(f"must be {what}; got {_shown(text)}, beyond the range of a float")
    return value


def real(low: float | None = None, high: float | None = None, *, low_inclusive: bool = True,
         high_inclusive: bool = True, allow_inf: bool = False) -> Callable[[str], float]:
    """A real number in a range (see :func:`dpverify.validation.check_real`)."""
    def parse(text: str) -> float:
        from dpverify.validation import check_real

        lo = "[" if low_inclusive else "("
        hi = "]" if high_inclusive else ")"
        lo_text = "-inf" if low is None else f"{low:g}"
        hi_text = "inf" if high is None else f"{high:g}"
        if low is None:
            lo = "[" if allow_inf else "("
        if high is None:
            hi = "]" if allow_inf else ")"
        finite = "" if allow_inf or (low is not None and high is not None) else "finite "
        what = f"a {finite}number" + ("" if low is None and high is None else f" in {lo}{lo_text}, {hi_text}{hi}")
        value = _number(text, what)
        if value != value:
            raise argparse.ArgumentTypeError(f"must be {what}; got NaN")
        try:
            return check_real("value", value, low=low, high=high, low_inclusive=low_inclusive,
                              high_inclusive=high_inclusive, allow_inf=allow_inf)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"must be {what}; got {_shown(text)}") from None

    parse.__name__ = "number"  # argparse names the type in its own messages
    return parse


def count(minimum: int = 1, maximum: int | None = None) -> Callable[[str], int]:
    """An integer in ``[minimum, maximum]``; integral float text such as ``1e6`` is accepted (as the validators
    accept 1e6), anything else is an error naming the range."""
    def parse(text: str) -> int:
        from dpverify.validation import MAX_COUNT, check_positive_int

        top = MAX_COUNT if maximum is None else maximum
        what = f"an integer in [{minimum}, {top}]" if maximum is not None else f"an integer >= {minimum}"
        value = _number(text, what)
        if isinstance(value, float) and value.is_integer() and abs(value) > 2**53:
            raise argparse.ArgumentTypeError(f"must be {what}; got {_shown(text)}, too large to be exact as a float "
                                             "(write the integer out)")
        try:
            return check_positive_int(value, "value", minimum=minimum, maximum=top)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"must be {what}; got {_shown(text)}") from None

    parse.__name__ = "integer"
    return parse


def integer() -> Callable[[str], int]:
    """Any integer that fits int64 (a sampler checks its own range)."""
    from dpverify.validation import MAX_COUNT

    return count(-MAX_COUNT, MAX_COUNT)


def seed() -> Callable[[str], int]:
    """A root seed: an integer in [0, 2^63 - 1]."""
    return count(0)


def samples() -> Callable[[str], int]:
    """Samples per side of an audit: an integer in [4, :data:`MAX_SAMPLES`]."""
    return count(4, MAX_SAMPLES)


def workers() -> Callable[[str], int]:
    """Worker processes: an integer in [1, :data:`MAX_WORKERS`]."""
    return count(1, MAX_WORKERS)


def cpu_count() -> int:
    """The CPUs of this machine, as ``os.cpu_count()`` reports them (1 if unknown)."""
    return os.cpu_count() or 1


#: What the ``--workers`` help says about the cap (:func:`cap_workers`).
WORKERS_CAP_HELP = ("more than the machine's CPUs (os.cpu_count()) is reduced to that number, with a warning: more "
                    "processes than CPUs only add memory and start-up time")


#: What the ``--scheduler`` help says about an address where no scheduler answers
#: (:func:`dpverify.audit.distributed.probe_scheduler`).
SCHEDULER_PROBE_HELP = ("An address where no Dask scheduler answers is an error: nothing listening, no connection within "
                        "Dask's distributed.comm.timeouts.connect (30 s; DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT), "
                        "or a server that gives no Dask handshake within 10 s")


def cap_workers(workers: int | None, option: str = "--workers") -> int | None:
    """``workers`` reduced to :func:`cpu_count` (every worker is a process that draws samples on one CPU: more
    processes than CPUs are no faster, and a thousand of them exhaust the memory), with a one-line warning on stderr
    naming ``option``, the cap and where it comes from; None stays None. The numbers of an audit do not depend on the
    number of workers, so the cap changes only the time."""
    cpus = cpu_count()
    if workers is None or workers <= cpus:
        return workers
    print(f"dpverify: warning: {option} {workers} is more than the {cpus} CPUs of this machine (os.cpu_count() = "
          f"{cpus}): using {option} {cpus} (the numbers do not depend on it)", file=sys.stderr, flush=True)
    return cpus


def confidence() -> Callable[[str], float]:
    """The confidence of a certified bound: a number in (0, 1)."""
    return real(0.0, 1.0, low_inclusive=False, high_inclusive=False)


def pattern(what: str = "a glob or part of an ID") -> Callable[[str], str]:
    """A selection pattern (``--only``): text with something to match -- empty text, blanks or separators alone
    (``''``, ``' '``, ``',,'``) would select everything or nothing, never what was meant."""
    def parse(text: str) -> str:
        if not text.strip(" \t\n,;"):
            raise argparse.ArgumentTypeError(f"must be a non-empty pattern ({what}); got {_shown(text)}")
        return text

    parse.__name__ = "pattern"
    return parse


def path(what: str = "a path") -> Callable[[str], str]:
    """A non-empty path of at most :data:`MAX_PATH` characters (whether it can be written is checked before the run,
    :func:`dpverify.interfaces.files.check_writable_dir`)."""
    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"must be {what}; got an empty string")
        if "\x00" in text:
            raise argparse.ArgumentTypeError(f"must be {what}; got text with a NUL character")
        if len(text) > MAX_PATH:
            raise argparse.ArgumentTypeError(f"must be {what} of at most {MAX_PATH} characters; got one of "
                                             f"{len(text)} characters")
        return text

    parse.__name__ = "path"
    return parse


@contextmanager
def user_input(prefix: str = "", hints: dict[str, str] | None = None) -> Iterator[None]:
    """Turn the ``ValueError``/``TypeError``/``KeyError`` of a call that only consumes what the user typed (a
    registry lookup, building a sampler from ``--param``, evaluating a theorem at ``NAME=VALUE``) into a
    :class:`~dpverify.validation.UsageError` (exit status 2), prefixed with ``prefix``.

    ``hints`` rewrites the Python spelling of a remedy into its command-line spelling (``{"Pass
    allow_unguaranteed=True": "pass --allow-unguaranteed"}``), so that no Python-only advice reaches the command
    line. Any other exception passes unchanged (an internal error, exit status 3)."""
    from dpverify.validation import UsageError

    try:
        yield
    except UsageError as exc:
        raise UsageError(prefix + cli_spelling(str(exc), hints)) from None
    except KeyError as exc:
        text = str(exc.args[0]) if exc.args else "unknown key"
        raise UsageError(prefix + cli_spelling(text, hints)) from None
    except (ValueError, TypeError) as exc:
        raise UsageError(prefix + cli_spelling(str(exc), hints)) from None


def cli_spelling(message: str, hints: dict[str, str] | None = None) -> str:
    """``message`` with each key of ``hints`` replaced by its value (case-insensitive on the first letter)."""
    for python, cli in (hints or {}).items():
        for variant in (python, python[:1].swapcase() + python[1:]):
            message = message.replace(variant, cli)
    return message


def add_backend_arguments(p: Any) -> None:
    """``--backend numpy|torch`` and ``--device cpu|cuda|cuda:K`` (:mod:`dpverify.backends`, docs/gpu.md)."""
    p.add_argument("--backend", choices=ArrayBackend.values(), default="numpy",
                   help="array backend that draws and counts the samples: numpy (default, the reference) or torch "
                        "(needs dpverify[torch]; numbers differ from numpy's, the guarantee does not)")
    p.add_argument("--device", default=None, metavar="cpu|cuda|cuda:K",
                   help="device of --backend torch (default cpu)")


def add_sequential_argument(p: Any, what: str) -> None:
    """``--sequential`` (:mod:`dpverify.audit.sequential`): ``what`` names the audits that then stop when decided."""
    p.add_argument("--sequential", action="store_true",
                   help=f"spend the budget of {what} in rounds of growing size that stop as soon as the verdict is "
                        "decided (a violation, or futility: the rest of the budget cannot reach the claim); valid "
                        "whenever it stops, at the same confidence; the result says how many samples it used "
                        "(docs/sequential.md)")


def dask_resources() -> Callable[[str], dict]:
    """``--dask-resources NAME=AMOUNT[,NAME=AMOUNT...]`` (e.g. ``GPU=1``): the Dask worker resources each task needs
    (:func:`dpverify.audit.distributed.check_resources`), as a dict."""
    what = "NAME=AMOUNT[,NAME=AMOUNT...] with AMOUNT a number > 0, such as GPU=1"

    def parse(text: str) -> dict:
        out: dict = {}
        for part in text.split(","):
            name, sep, amount = part.partition("=")
            if not sep or not name.strip():
                raise argparse.ArgumentTypeError(f"must be {what}; got {_shown(text)}")
            value = _number(amount.strip(), what)
            if not math.isfinite(value) or value <= 0:
                raise argparse.ArgumentTypeError(f"must be {what}; got {_shown(text)}")
            out[name.strip()] = value
        return out

    return parse


def add_dask_resources_argument(p: Any, what: str) -> None:
    """``--dask-resources`` (:func:`dask_resources`): only with ``--scheduler``; ``what`` says which tasks need them."""
    p.add_argument("--dask-resources", type=dask_resources(), default=None, metavar="NAME=AMOUNT",
                   help=f"with --scheduler: {what} only on Dask workers started with these resources, e.g. GPU=1 for "
                        "workers started with `dask worker ... --resources GPU=1` (docs/distributed.md)")


def check_backend_arguments(args) -> None:
    """``--backend``/``--device`` checked before any sampling: a bad pair, a missing torch or a missing CUDA device
    is a usage error naming the option. A torch run is one process per device: with ``--workers`` above 1 (local
    processes) it is refused; with ``--scheduler`` each Dask worker uses its own device (docs/distributed.md).
    ``--dask-resources`` needs ``--scheduler``."""
    from dpverify.backends import get_backend
    from dpverify.validation import UsageError

    try:
        get_backend(args.backend, args.device)
    except (TypeError, ValueError) as exc:
        raise UsageError(f"--backend {args.backend}" + (f" --device {args.device}" if args.device else "")
                         + f": {exc}") from None
    if args.backend != "numpy" and args.scheduler is None and (args.workers or 1) > 1:
        raise UsageError(f"--backend {args.backend} drives its device from one process: drop --workers, or use "
                         "--scheduler with one Dask worker per device (docs/distributed.md)")
    if getattr(args, "dask_resources", None) is not None and args.scheduler is None:
        raise UsageError("--dask-resources pins tasks to Dask workers that have them: it needs --scheduler")
