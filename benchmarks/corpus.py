"""The corpus of real DP-library bugs: each case on its releases, and bisect on the cases whose fix shipped (issue 37).

Three tables:

1. ``--installed``: every case on the libraries installed here (``dpverify audit-library corpus``): status, the
   verdict the installed version should show, seconds; the replay cases' seconds separately (target: under 1 s each).
2. by version (default): every library case on each of its ``releases``, each installed in a throwaway environment
   (:mod:`dpverify.libraries.corpus.versions`): expected and observed verdict, install and check seconds, and the
   total (target: the whole corpus under 15 minutes on 2 cores with a warm pip cache).
3. ``--bisect``: for every case whose first fixed release is among its releases, ``dpverify bisect`` over a window
   of at most 32 releases (from the lower end of its ``affected`` range, else from 8 releases before its first
   affected release), its latest affected release given as known bad, timed (target: the documented boundary, under
   10 minutes each with a warm cache).

Usage::

    PYTHONPATH=. python3 benchmarks/corpus.py [--installed] [--no-by-version] [--bisect] [--only PATTERN]
                                              [--cache DIR] [--markdown]

Needs pip's index for installs (the first run downloads; ``$DPVERIFY_BISECT_CACHE`` or ``--cache`` keeps them).
"""
from __future__ import annotations

import argparse
import sys
import time

from packaging.specifiers import SpecifierSet
from packaging.version import Version

from dpverify.libraries import corpus
from dpverify.libraries.bisect import ReleaseCache, available_releases, bisect_versions
from dpverify.libraries.corpus.versions import run_by_version

#: The most releases one bisection searches (the issue's target range).
MAX_RELEASES = 32


def _print(header: list[str], rows: list[list[str]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
        print("  ".join(h.ljust(w) for h, w in zip(header, widths)))
        for r in rows:
            print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    print()


def installed(cases: list, markdown: bool) -> None:
    rows, replay = [], []
    for case in cases:
        r = corpus.run_case(case)
        rows.append([r.id, r.library, r.method, r.version or "-", r.status, r.expected or "-",
                     {True: "yes", False: "NO", None: "-"}[r.agrees], f"{r.seconds:.2f}"])
        if r.method == "replay":
            replay.append(r.seconds)
    _print(["case", "library", "method", "installed", "status", "expected", "agrees", "seconds"], rows, markdown)
    if replay:
        median = sorted(replay)[len(replay) // 2]
        print(f"replay cases: {len(replay)}, slowest {max(replay):.2f} s, median {median:.2f} s\n")


def by_version(cases: list, cache: str | None, markdown: bool) -> None:
    start = time.perf_counter()
    rows = run_by_version(cases, cache_root=cache, progress=lambda m: print(f"  {m}", file=sys.stderr, flush=True))
    total = time.perf_counter() - start
    _print(["case", "library", "version", "expected", "observed", "agrees", "install s", "check s"],
           [[r.case, r.library, r.version, r.expected, r.observed, "yes" if r.agrees else "NO",
             f"{r.install_seconds:.1f}", f"{r.seconds:.1f}"] for r in rows], markdown)
    bad = [r for r in rows if not r.agrees]
    print(f"{len(rows)} case-release runs, {len(rows) - len(bad)} as expected, {len(bad)} not; {total:.0f} s\n")
    for r in bad:
        print(f"  {r.case} {r.version}: expected {r.expected}, observed {r.observed}: {r.detail}")


def _window(case, available: list[str]) -> list[str]:
    """The releases one bisection searches: from the lower end of the case's ``affected`` range (its ``>=`` bound),
    else from 8 releases before its first affected release, up to :data:`MAX_RELEASES` releases."""
    order = sorted(available, key=Version)
    bounds = [Version(s.version) for s in SpecifierSet(case.affected) if s.operator in (">=", ">")]
    first_bad = min((Version(v) for v in case.releases if case.expected(v) == "bad"))
    if bounds:
        start = next(i for i, v in enumerate(order) if Version(v) >= max(bounds))
    else:
        start = max(0, next(i for i, v in enumerate(order) if Version(v) >= first_bad) - 8)
    return order[start:start + MAX_RELEASES]


def bisect(cases: list, cache: str | None, markdown: bool) -> None:
    rows = []
    for case in cases:
        if case.kind != "library" or not case.fixed_in or case.fixed_in not in case.releases:
            continue
        available = available_releases(case.pip_name)
        window = _window(case, available)
        known_bad = max((v for v in case.releases if case.expected(v) == "bad"), key=Version)
        store = ReleaseCache(cache, isolation=case.isolation, requirements=case.requirements)
        start = time.perf_counter()
        result = bisect_versions(case.pip_name, case.id, window, cache=store, known_bad=known_bad)
        seconds = time.perf_counter() - start
        rows.append([case.id, case.pip_name, f"{window[0]}..{window[-1]} ({len(window)})", case.fixed_in,
                     result.first_good or "-", "yes" if result.first_good == case.fixed_in else "NO",
                     str(len(result.steps)), f"{seconds:.0f}"])
        print(f"  {case.id}: {result.note}", file=sys.stderr, flush=True)
    _print(["case", "library", "range (releases)", "documented fix", "bisect: first good", "recovered", "checks",
            "seconds"], rows, markdown)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--installed", action="store_true", help="table 1: the cases on the installed libraries")
    parser.add_argument("--no-by-version", action="store_true", help="skip table 2")
    parser.add_argument("--bisect", action="store_true", help="table 3: bisect the cases whose fix shipped")
    parser.add_argument("--only", default=None, help="only cases whose id contains this")
    parser.add_argument("--cache", default=None, help="the release cache (default as dpverify bisect)")
    parser.add_argument("--markdown", action="store_true", help="markdown tables")
    args = parser.parse_args(argv)
    cases = [c for c in corpus.CASES if not args.only or args.only in c.id]
    if args.installed:
        installed(cases, args.markdown)
    if not args.no_by_version:
        by_version(cases, args.cache, args.markdown)
    if args.bisect:
        bisect(cases, args.cache, args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
