"""``dpverify bisect LIBRARY CASE --versions A..B``: which release of a DP library brought a defect in, which fixed it.

CASE is a check: a corpus case ID (``dpverify audit-library corpus`` lists them; a case of kind ``library`` runs
on the library itself) or ``module:function`` naming a function that returns ``{"status": "bad" | "good", ...}``
(a maintainer's own regression check; ``--python-path`` adds the directory it lives in). Each release is installed
once into a cached directory and the check runs in a fresh process against it (:mod:`dpverify.libraries.bisect`).
Prints the table of checked releases (version, verdict, certified, ledger, seconds) and the boundary.

Exit status: 0 when a boundary was found (or the range is consistently good); 1 when the defect shows at the end of
the range (not fixed there) or the search could not conclude; 2 for bad input (an unknown library, a version that
does not exist, a range with fewer than two releases, an unknown case).
"""
from __future__ import annotations

import argparse
import sys

from dpverify.interfaces.cli import arguments


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("bisect", help="find the release of a DP library that introduced or fixed a defect")
    p.add_argument("library", metavar="LIBRARY", help="the library's distribution name, as pip spells it")
    p.add_argument("case", metavar="CASE", help="a corpus case ID (dpverify audit-library corpus) or module:function")
    p.add_argument("--versions", default="..", metavar="A..B|v1,v2,...",
                   help="the releases to search: a range A..B (every release from A to B; either end may be omitted) "
                        "or a comma-separated list (default: every release pip can find)")
    p.add_argument("--known-bad", metavar="VERSION", default=None,
                   help="a release the defect is known to show in (from the report): with both ends good, the search "
                        "finds where it came in and where it was fixed (default for a corpus case: the latest of its "
                        "affected releases in range)")
    p.add_argument("--find-links", metavar="DIR", type=arguments.path("a directory of wheels"), default=None,
                   help="install releases from the wheels in DIR only (no package index, nothing downloaded)")
    p.add_argument("--isolation", choices=("venv", "target"), default=None,
                   help="venv: a virtual environment per release, its dependencies resolved by pip with dpverify's "
                        "and --with's; target: the release's code only, over this environment (seconds; right when "
                        "releases share their dependencies' API). Default: the corpus case's own (its isolation "
                        "field), else venv")
    p.add_argument("--with", dest="requirements", metavar="REQUIREMENT", action="append", default=[],
                   help="an extra requirement for each release's environment (repeatable), e.g. --with "
                        "'scikit-learn<1.6' for releases written against an older API; a corpus case's own "
                        "requirements come first")
    p.add_argument("--cache", metavar="DIR", type=arguments.path("a directory path"), default=None,
                   help="where releases are installed and reused (default $DPVERIFY_BISECT_CACHE or "
                        "~/.cache/dpverify/bisect)")
    p.add_argument("--python-path", metavar="DIR", action="append", default=[],
                   help="a directory to add to the check's import path (repeatable): where a module:function check "
                        "lives")
    p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    p.set_defaults(func=_run)


def _check_case(case: str, library: str):
    """A corpus case ID must exist and be a case of ``library`` run on the library itself (a ``ValueError`` says
    why); ``module:function`` is checked when it runs. Returns the corpus case (None for ``module:function``)."""
    if ":" in case:
        return None
    from dpverify.libraries import corpus

    try:
        found = corpus.find(case)
    except KeyError:
        raise ValueError(f"no corpus case {case!r}; the cases are {', '.join(c.id for c in corpus.CASES)} (or give "
                         "module:function)") from None
    if found.kind != "library":
        raise ValueError(f"corpus case {case!r} is a {found.kind}: it does not run the library, so no release "
                         "changes its verdict")
    def norm(name: str) -> str:
        return name.replace("_", "-").lower()

    if norm(library) not in (norm(found.library), norm(found.pip_name)):
        raise ValueError(f"corpus case {case!r} is a case of {found.pip_name}, not {library}")
    return found


def _run(args) -> int:
    from dpverify.interfaces.cli.output import format_table, print_json
    from dpverify.libraries.bisect import ReleaseCache, available_releases, bisect_versions, select_releases

    try:
        found = _check_case(args.case, args.library)
        releases = select_releases(args.versions, available_releases(args.library, find_links=args.find_links))
    except ValueError as exc:
        print(f"dpverify bisect: error: {exc}", file=sys.stderr)
        return 2
    isolation = args.isolation or (found.isolation if found is not None else "venv")
    requirements = [*(found.requirements if found is not None else ()), *args.requirements]
    cache = ReleaseCache(args.cache, isolation=isolation, find_links=args.find_links, requirements=requirements)

    def progress(step) -> None:
        if not args.json:
            print(f"  {args.library} {step.version}: {step.verdict} ({step.seconds:.1f} s)", file=sys.stderr)

    known_bad = args.known_bad
    if known_bad is None and found is not None:  # the case's own affected release, when it lies in the range
        from packaging.version import Version

        theirs = {Version(v) for v in found.releases}
        known_bad = next((v for v in reversed(releases) if Version(v) in theirs and found.expected(v) == "bad"), None)
    try:
        check = args.case
        if found is not None:
            from dpverify.libraries.corpus.versions import check_spec

            check = check_spec(found)
        result = bisect_versions(args.library, check, releases, cache=cache, known_bad=known_bad,
                                 python_path=args.python_path, progress=progress)
    except ValueError as exc:
        print(f"dpverify bisect: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print_json(result.to_dict())
    else:
        rows = [(s.version, s.verdict, "-" if s.certified is None else f"{s.certified:.4g}", s.ledger or "-",
                 f"{s.seconds:.1f}", s.detail) for s in result.table()]
        print(format_table(["version", "verdict", "certified", "ledger", "seconds", "detail"], rows))
        print(f"\n{result.library}: first bad {result.first_bad or '-'}, first good {result.first_good or '-'} "
              f"({len(result.steps)} of {len(result.releases)} releases checked, {result.seconds:.1f} s)")
        print(result.note)
    settled = result.first_good is not None or (result.first_bad is None and "neither end" in result.note)
    return 0 if settled else 1
