"""Write tests/golden/audit_results.json: the canonical numbers of every case of tests/golden_cases.py.

Run from the repository root, on the code whose numbers are to be pinned:

    python tests/golden/make_golden.py            # every case
    python tests/golden/make_golden.py --check    # compare instead of writing (what tests/test_audit_golden.py does)

The file was first written from the auditor as it stood before it was restructured into stages (issue 22,
section 3); rewrite it only for a deliberate change of an audit's numbers, and say so in the commit.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import golden_cases  # noqa: E402

OUT = HERE / "audit_results.json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the file instead of writing it")
    parser.add_argument("cases", nargs="*", help="case names (default: all)")
    args = parser.parse_args(argv)
    names = args.cases or list(golden_cases.CASES)
    stored = json.loads(OUT.read_text()) if OUT.exists() else {}
    found, changed = {}, []
    for name in names:
        start = time.perf_counter()
        found[name] = golden_cases.run(name)
        print(f"{name:40s} {time.perf_counter() - start:6.2f} s", flush=True)
        if args.check and (name not in stored or golden_cases.differences(found[name], stored[name])):
            changed.append(name)
    if args.check:
        print("changed:", changed or "none")
        return 1 if changed else 0
    OUT.write_text(json.dumps({**stored, **found}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(found)} cases to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
