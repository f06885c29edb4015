"""Sequential against fixed audits: samples per side until the verdict, and whether the verdict changes (issue 38).

For every audit case of ``dpverify verify`` (:mod:`dpverify.cases`: the samplers' cases and the known-bad DP-SGLDs)
at ``--budget`` and every case of the standard suite (:mod:`dpverify.audit.standard_suite`: Laplace, noisy max, the
private and non-private sparse vector variants, RAPPOR, ...) at ``--samples`` per side, it runs the fixed audit and
the sequential one (``sequential=True``, :mod:`dpverify.audit.sequential`) with the same seed and confidence and
prints one row per case:

    case | truth (exact epsilon, or "bad" for a known-bad case) | claim | fixed: samples, verdict |
    sequential: samples used, verdict, stopping rule | saving (fixed / sequential samples) | seconds (fixed, seq.)

and a summary: the median saving on the cases the fixed audit calls a violation (target >= 5x), the median saving on
the cases it calls consistent (target >= 2x at the standard budget), how many fixed "consistent" became a sequential
violation (must be 0: a sequential violation is valid at the same confidence) and how many fixed violations the
sequential audit missed (the power it costs).

Usage::

    PYTHONPATH=. python3 benchmarks/sequential.py [--budget quick|standard] [--samples 2e5] [--only PATTERN]
                                                  [--seed 0] [--no-suite] [--no-standard] [--markdown]

Time on 2 cores: the verify cases at the quick budget about 3 min for both modes; the standard suite at 2x10^5 per side
about 2 min.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import dataclass

from dpverify.audit import audit
from dpverify.audit.standard_suite import cases as standard_cases
from dpverify.cases.catalogue import cases as all_cases
from dpverify.cases.run import run_case


@dataclass
class Row:
    case: str
    truth: str
    claim: float
    fixed_samples: int
    fixed_verdict: str
    seq_samples: int
    seq_verdict: str
    rule: str
    fixed_seconds: float
    seq_seconds: float

    @property
    def saving(self) -> float:
        return self.fixed_samples / max(1, self.seq_samples)


def _fmt(x: float) -> str:
    return f"{x:.4g}"


def suite_rows(budget: str, seed: int, only: str | None) -> list[Row]:
    rows = []
    for case in all_cases():
        if only and only not in case.id:
            continue
        out = {}
        for sequential in (False, True):
            start = time.perf_counter()
            res = run_case(case, budget=budget, seed=seed, sequential=sequential)
            out[sequential] = (res, time.perf_counter() - start)
        (fixed, t0), (seq, t1) = out[False], out[True]
        if fixed.error or seq.error or fixed.audit is None or seq.audit is None:
            print(f"  {case.id}: error: {fixed.error or seq.error}", file=sys.stderr)
            continue
        a, b = fixed.audit, seq.audit
        truth = "bad" if case.known_bad else _fmt(a.epsilon_exact) if a.epsilon_exact is not None else "-"
        rows.append(Row(case.id, truth, a.epsilon_claimed, a.samples, str(a.verdict), b.samples_used, str(b.verdict),
                        b.stopping_rule, t0, t1))
        print(f"  {case.id}: {a.verdict} / {b.verdict} ({b.stopping_rule}, {b.samples_used})", file=sys.stderr)
    return rows


def standard_rows(samples: int, seed: int, only: str | None) -> list[Row]:
    rows = []
    for case in standard_cases():
        if only and only not in case.name:
            continue
        out = {}
        for sequential in (False, True):
            start = time.perf_counter()
            r = audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
                      samples=samples, seed=seed, exact_epsilon=case.epsilon_exact, sequential=sequential)
            out[sequential] = (r, time.perf_counter() - start)
        (a, t0), (b, t1) = out[False], out[True]
        rows.append(Row(case.name, _fmt(case.epsilon_exact), case.epsilon_claimed, a.samples, str(a.verdict),
                        b.samples_used, str(b.verdict), b.stopping_rule, t0, t1))
        print(f"  {case.name}: {a.verdict} / {b.verdict} ({b.stopping_rule}, {b.samples_used})", file=sys.stderr)
    return rows


HEADERS = ("case", "truth", "claim", "fixed samples", "fixed verdict", "seq. samples", "seq. verdict", "rule",
           "saving", "seconds (fixed / seq.)")


def table(rows: list[Row], markdown: bool) -> str:
    cells = [[r.case, r.truth, _fmt(r.claim), str(r.fixed_samples), r.fixed_verdict, str(r.seq_samples),
              r.seq_verdict, r.rule, f"{r.saving:.1f}x", f"{r.fixed_seconds:.2f} / {r.seq_seconds:.2f}"]
             for r in rows]
    if markdown:
        lines = ["| " + " | ".join(HEADERS) + " |", "|" + "---|" * len(HEADERS)]
        return "\n".join(lines + ["| " + " | ".join(c) + " |" for c in cells])
    widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(HEADERS)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*HEADERS)] + [fmt.format(*c) for c in cells])


def summary(rows: list[Row]) -> list[str]:
    violations = [r for r in rows if r.fixed_verdict == "violation"]
    consistent = [r for r in rows if r.fixed_verdict == "consistent"]
    inconclusive = [r for r in rows if r.fixed_verdict == "inconclusive"]
    lines = []
    for name, group in (("violation", violations), ("consistent", consistent), ("inconclusive", inconclusive)):
        if group:
            savings = [r.saving for r in group]
            fixed_s, seq_s = sum(r.fixed_seconds for r in group), sum(r.seq_seconds for r in group)
            lines.append(f"fixed {name}: {len(group)} cases, median saving {statistics.median(savings):.1f}x "
                         f"(min {min(savings):.1f}x, max {max(savings):.1f}x); time {fixed_s:.1f} s fixed, "
                         f"{seq_s:.1f} s sequential")
    turned = [r.case for r in consistent + inconclusive if r.seq_verdict == "violation"]
    missed = [r.case for r in violations if r.seq_verdict != "violation"]
    changed = [f"{r.case} ({r.fixed_verdict} -> {r.seq_verdict})" for r in consistent + inconclusive
               if r.seq_verdict != r.fixed_verdict and r.seq_verdict != "violation"]
    lines.append(f"fixed consistent/inconclusive turned violation: {len(turned)} {turned}")
    lines.append(f"fixed violations the sequential audit missed: {len(missed)} {missed}")
    lines.append(f"consistent <-> inconclusive changes: {len(changed)} {changed}")
    return lines


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--budget", choices=("quick", "standard"), default="quick")
    p.add_argument("--samples", type=float, default=2e5, help="samples per side for the standard suite")
    p.add_argument("--only", default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-suite", action="store_true", help="skip the verify cases")
    p.add_argument("--no-standard", action="store_true", help="skip the standard suite")
    p.add_argument("--markdown", action="store_true")
    args = p.parse_args(argv)
    rows: list[Row] = []
    if not args.no_suite:
        rows += suite_rows(args.budget, args.seed, args.only)
    if not args.no_standard:
        rows += standard_rows(int(args.samples), args.seed, args.only)
    print(table(rows, args.markdown))
    print()
    print("\n".join(summary(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
