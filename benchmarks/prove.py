"""Issue 35's targets for ``dpverify prove``: every provable item of the catalogue, with its domain, outcome, boxes and
seconds, the counts and the median time per item, and the classic Gaussian counterexample (Wang et al. 2015,
Thm 2, with eps < 1 widened to eps <= 20) timed on its own.

    python benchmarks/prove.py                   # the table (about 8 minutes on 2 cores)
    python benchmarks/prove.py --only 'li2019.*' --markdown
    python benchmarks/prove.py --json out.json

Targets (issue 35): at least 40 of the 52 items proved on their whole domain; ``dpverify prove --all`` under 10
minutes on 2 cores, median under 10 s per item; the counterexample in under 1 s. Each item's time includes building
its problems (sympy) and each part's portfolio (``dpverify.prove.catalogue``); the per-part limit is the CLI's
(120 s, or the form's ``part_seconds``).
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import statistics
import sys
import time


def _domain(proof) -> str:
    boxes = []
    for name, result in proof.parts:
        text = result.problem.box_text() if hasattr(result, "problem") else ""
        boxes.append(text)
    distinct = list(dict.fromkeys(b for b in boxes if b))
    return "; ".join(distinct[:2]) + (" ..." if len(distinct) > 2 else "")


def main(argv: list[str] | None = None) -> int:
    from dpverify.prove.catalogue import DEFAULT_PART_SECONDS, form, provable_ids, prove_item
    from dpverify.prove.search import Limits

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="*", help="item IDs matching this glob (default: all)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    args = parser.parse_args(argv)

    ids = [i for i in provable_ids() if fnmatch.fnmatch(i, args.only)]
    if not ids:
        print(f"no provable item matches {args.only!r}", file=sys.stderr)
        return 2
    rows = []
    start = time.perf_counter()
    for theorem_id in ids:
        t0 = time.perf_counter()
        proof = prove_item(theorem_id, limits=Limits(max_seconds=DEFAULT_PART_SECONDS))
        seconds = time.perf_counter() - t0
        boxes = sum(getattr(r, "boxes", 0) for _, r in proof.parts)
        rows.append({"item": theorem_id, "domain": _domain(proof), "outcome": proof.outcome,
                     "expected": form(theorem_id).expected, "parts": len(proof.parts), "boxes": boxes,
                     "seconds": round(seconds, 2)})
        print(f"  {theorem_id}: {proof.outcome} ({seconds:.1f} s)", file=sys.stderr, flush=True)
    total = time.perf_counter() - start

    from dpverify.prove import prove

    t0 = time.perf_counter()
    wide = prove("wang2015.thm2_gaussian_mechanism", drop=["epsilon_below_one"], box={"epsilon": (0, 20)})
    counterexample = time.perf_counter() - t0

    header = ["item", "domain", "outcome", "expected", "parts", "boxes", "seconds"]
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print("| " + " | ".join(f"`{r[h]}`" if h == "item" else str(r[h]) for h in header) + " |")
    else:
        print(f"{'item':48s} {'outcome':10s} {'expected':10s} {'parts':>5s} {'boxes':>8s} {'seconds':>8s}  domain")
        for r in rows:
            print(f"{r['item']:48s} {r['outcome']:10s} {r['expected']:10s} {r['parts']:5d} {r['boxes']:8d} "
                  f"{r['seconds']:8.2f}  {r['domain'][:110]}")
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    unexpected = [r["item"] for r in rows if r["outcome"] != r["expected"]]
    median = statistics.median(r["seconds"] for r in rows)
    print()
    print(f"{len(rows)} items: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
          + f"; {len(unexpected)} not as expected" + (f" ({', '.join(unexpected)})" if unexpected else ""))
    print(f"total {total:.0f} s (target < 600 s on 2 cores), median {median:.2f} s per item (target < 10 s)")
    print(f"classic Gaussian with eps widened to [0, 20]: {wide.outcome} in {counterexample:.2f} s (target < 1 s)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"rows": rows, "total_seconds": total, "median_seconds": median,
                       "counterexample_seconds": counterexample, "counterexample": wide.outcome}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
