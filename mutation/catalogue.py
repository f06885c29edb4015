"""Mutation run over the theorem catalogue: perturb every registered conclusion, see which checks catch it.

For every theorem of ``dpverify.theorems`` and every conclusion, each perturbation of
:mod:`dpverify.theorems.mutation` (times 3/2; plus 1/100; one argument of a top-level sum, product, min or max
dropped) is applied in turn, all of that theorem's checks are run, and the checks that fail are listed. A row
whose perturbation no check notices is UNCAUGHT; the exit status is 1 if there is any (0 otherwise, 2 for bad
arguments). Checks are first run unperturbed: one that already fails would make "caught" meaningless, so
that is an error too (exit 1).

Usage (from the repository root)::

    python mutation/catalogue.py                 # the whole catalogue, full table (a few minutes on 2 cores)
    python mutation/catalogue.py --first         # stop at the first failing check per mutant (faster)
    python mutation/catalogue.py --only 'li2019.*' --perturbation scale
    python mutation/catalogue.py --json out.json # the table as JSON as well
    python mutation/catalogue.py --hypotheses    # each hypothesis dropped: the prover must refute the false ones

A statement two papers make (:mod:`dpverify.theorems.shared`: one encoding referenced by two catalogue IDs) is
mutated once under each ID, and each time only that ID's checks run: each paper's own proof must notice the change.

The summary counts the mutants caught by a pin (``Theorem.add_pin``: the conclusion at points against an
independent computation), by another numeric check, and by a symbolic check.
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import sys
import time

from dpverify.theorems import mutation, registry

KINDS = ("pin", "numeric", "symbolic")


def _kind(theorem, check_name: str) -> str:
    check = next(c for c in theorem.checks if c.name == check_name)
    return "pin" if check.pins else check.kind


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="*", help="theorem IDs matching this glob (default: all)")
    parser.add_argument("--perturbation", action="append", choices=["scale", "shift", "drop"],
                        help="perturbations to apply (repeatable; default: all three)")
    parser.add_argument("--first", action="store_true", help="stop at the first failing check of each mutant")
    parser.add_argument("--json", metavar="PATH", help="also write the table as JSON to PATH")
    parser.add_argument("--quiet", action="store_true", help="print only uncaught rows and the summary")
    parser.add_argument("--hypotheses", action="store_true",
                        help="mutate the hypotheses instead: each dropped (a bound widened 20-fold), and the prover "
                             "(dpverify prove) must refute every widened statement that is false")
    parser.add_argument("--max-seconds", type=float, default=60.0,
                        help="with --hypotheses: the prover's time limit per part (default 60)")
    args = parser.parse_args(argv)
    if args.hypotheses:
        return hypotheses_main(args)

    theorems = [t for t in registry.all_theorems() if fnmatch.fnmatch(t.id, args.only)]
    if not theorems:
        print(f"no theorem ID matches {args.only!r}", file=sys.stderr)
        return 2
    perturbations = tuple(args.perturbation or ("scale", "shift", "drop"))

    start = time.perf_counter()
    broken = [(t.id, r.name) for t in theorems for r in t.run_checks() if not r.passed]
    if broken:
        print(f"checks failing without any perturbation (fix these first): {broken}", file=sys.stderr)
        return 1

    rows, uncaught = [], 0
    by_kind = {k: 0 for k in KINDS}
    only_pin = 0
    for thm in theorems:
        for m in mutation.mutants(thm, perturbations):
            o = mutation.run_mutant(thm, m, stop_at_first=args.first)
            kinds = sorted({_kind(thm, n) for n in o.caught_by}, key=KINDS.index)
            for k in kinds:
                by_kind[k] += 1
            only_pin += kinds == ["pin"]
            uncaught += not o.caught
            row = {"theorem": thm.id, "conclusion": m.key, "perturbation": m.perturbation, "expression": str(m.expr),
                   "caught_by": o.caught_by, "kinds": kinds, "checks_run": o.ran}
            rows.append(row)
            if not args.quiet or not o.caught:
                caught = ", ".join(f"{n} [{_kind(thm, n)}]" for n in o.caught_by) or "UNCAUGHT"
                print(f"{thm.id:45s} {m.key:34s} {m.perturbation:8s} {caught}", flush=True)

    seconds = time.perf_counter() - start
    n = len(rows)
    print()
    per = {p: sum(r["perturbation"].split(":")[0] == p for r in rows) for p in perturbations}
    print(f"{len(theorems)} theorems, {sum(len(t.conclusion) for t in theorems)} conclusions, {n} mutants "
          f"({', '.join(f'{p}: {c}' for p, c in per.items())})")
    print(f"caught: {n - uncaught} of {n}; uncaught: {uncaught}")
    scope = "the first failing check" if args.first else "any failing check"
    print(f"caught by ({scope}): " + ", ".join(f"{k} {by_kind[k]}" for k in KINDS)
          + f"; by a pin only: {only_pin}")
    print(f"{seconds:.0f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "uncaught": uncaught, "by_kind": by_kind, "seconds": seconds}, fh, indent=1)
    return 1 if uncaught else 0


def hypotheses_main(args) -> int:
    """``--hypotheses``: every hypothesis of every item of a provable kind dropped in turn
    (:func:`dpverify.theorems.mutation.hypothesis_mutants`), decided by the prover
    (:func:`dpverify.prove.hypotheses.hypothesis_findings`). A mutant is *caught* when the widened statement is
    refuted (the hypothesis is needed), *equivalent* when it is proved (the statement is true without it: no
    mutant), kept when it only defines a probability's range, and MISSED when the prover decides neither; the exit
    status is 1 if one is missed. Only items the prover proves as stated are mutated (a statement already refuted or
    undecided says nothing about what its hypotheses do)."""
    from dpverify.prove.catalogue import form, provable_ids
    from dpverify.prove.hypotheses import hypothesis_findings
    from dpverify.prove.search import Limits

    ids = [i for i in provable_ids() if fnmatch.fnmatch(i, args.only) and form(i).expected == "proved"]
    if not ids:
        print(f"no provable item matches {args.only!r}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    rows, counts = [], {"caught": 0, "equivalent": 0, "kept": 0, "missed": 0}
    label = {"needed": "caught", "not needed on this box": "equivalent", "definitional": "kept",
             "undecided": "missed"}
    for theorem_id in ids:
        for f in hypothesis_findings(theorem_id, limits=Limits(max_seconds=args.max_seconds)):
            status = label[f.verdict]
            counts[status] += 1
            rows.append({**f.to_dict(), "status": status})
            if not args.quiet or status == "missed":
                print(f"{theorem_id:45s} {f.hypothesis:32s} {status.upper() if status == 'missed' else status}"
                      f"  {f.summary()[:160]}", flush=True)
    seconds = time.perf_counter() - start
    print()
    print(f"{len(ids)} items, {len(rows)} hypothesis mutants: {counts['caught']} caught (refuted without the "
          f"hypothesis), {counts['equivalent']} equivalent (proved without it), {counts['kept']} kept "
          f"(definitional), {counts['missed']} missed; {seconds:.0f} s")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "counts": counts, "seconds": seconds}, fh, indent=1)
    return 1 if counts["missed"] else 0


if __name__ == "__main__":
    sys.exit(main())
