"""Standard-suite benchmark: audit every case of :mod:`dpverify.audit.standard_suite` at its claim.

For each case and budget it runs ``dpverify.audit.audit`` with default settings (test="auto", 95% confidence)
on the case's witness pair for ``--seeds`` seeds and prints: case, private?, claimed, exact, certified (median over
seeds), ratio certified/exact, samples per side, wall time (median per audit), verdicts (how many seeds gave
"violation"), and, for the rows of the issue's context table, DP-Sniper's published ratio at 10^6 per side
(Bichsel et al. 2021). A row ends in "OK" when its verdicts are right on every seed (non-private: violation;
private: no violation) and "MISS"/"FALSE ALARM" otherwise.

Usage::

    python benchmarks/suite.py [--sizes 1e5 1e6 1e7] [--only NAME ...] [--seeds 3] [--markdown] [--black-box]

By default the auditor sees the cases' ``log_density`` (closed form or tabulated) and uses the exact
likelihood-ratio statistic. ``--black-box`` hides it (only ``mechanism(dataset, n, rng)`` and the exact epsilon for
the verdict are passed), so the auditor must learn its statistic from samples as DP-Sniper does: that is the
like-for-like comparison with DP-Sniper's ratios.

Time on 2 shared cores (measured with other jobs running, so inflated): building the cases 6-12 s (exact
epsilons, once); all 28 cases at 10^5 per side about 10 s per seed; at 10^6 about 80 s per seed; at 10^7 about
15 min per seed.
"""
from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from dpverify.audit import audit
from dpverify.audit.standard_suite import cases, get


class BlackBox:
    """Only the sampler of a mechanism: hides ``log_density`` and every other white-box attribute."""

    def __init__(self, mechanism) -> None:
        self._mechanism = mechanism

    def __call__(self, dataset, n, rng):
        return self._mechanism(dataset, n, rng)


def _fmt(x: float, digits: int = 4) -> str:
    return "inf" if math.isinf(x) else f"{x:.{digits}f}"


def run(names: list[str] | None, sizes: list[int], seeds: int, markdown: bool, black_box: bool = False) -> int:
    selected = cases() if not names else [get(n) for n in names]
    cols = ["case", "private", "claimed", "exact", "certified", "ratio", "DP-Sniper", "samples/side", "time [s]",
            "violations", "verdict"]
    if markdown:
        print("| " + " | ".join(cols) + " |")
        print("|" + "|".join("---" for _ in cols) + "|")
    else:
        print(f"{'case':40s} {'priv':>5s} {'claimed':>8s} {'exact':>8s} {'certified':>9s} {'ratio':>6s} "
              f"{'DPSnpr':>6s} {'samples':>9s} {'time[s]':>8s} {'viol.':>6s} verdict")
    wrong = 0
    for case in selected:
        for n in sizes:
            lowers, times, violations = [], [], 0
            for seed in range(seeds):
                t0 = time.perf_counter()
                mech = BlackBox(case.mechanism) if black_box else case.mechanism
                r = audit(mech, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
                          samples=n, seed=seed, exact_epsilon=case.epsilon_exact)
                times.append(time.perf_counter() - t0)
                lowers.append(r.epsilon_lower)
                violations += r.verdict == "violation"
            cert = statistics.median(lowers)
            ratio = "-" if math.isinf(case.epsilon_exact) else f"{cert / case.epsilon_exact:.2f}"
            dps = f"{case.dpsniper_ratio:.2f}" if case.dpsniper_ratio is not None and n == 1_000_000 else ""
            ok = violations == seeds if not case.private else violations == 0
            verdict = "OK" if ok else ("FALSE ALARM" if case.private else "MISS")
            wrong += not ok
            row = [case.name, "yes" if case.private else "no", _fmt(case.epsilon_claimed), _fmt(case.epsilon_exact),
                   _fmt(cert), ratio, dps, f"{n:.0e}", f"{statistics.median(times):.1f}", f"{violations}/{seeds}",
                   verdict]
            if markdown:
                print("| " + " | ".join(row) + " |", flush=True)
            else:
                print(f"{row[0]:40s} {row[1]:>5s} {row[2]:>8s} {row[3]:>8s} {row[4]:>9s} {row[5]:>6s} {row[6]:>6s} "
                      f"{row[7]:>9s} {row[8]:>8s} {row[9]:>6s} {row[10]}", flush=True)
    return 1 if wrong else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=[1e5, 1e6, 1e7], help="samples per side")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="case names (default: all)")
    parser.add_argument("--seeds", type=int, default=3, help="audits per case and size (seeds 0..k-1)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--black-box", action="store_true", help="hide log_density (sampler only)")
    args = parser.parse_args()
    if args.seeds < 1:
        parser.error("--seeds must be >= 1")
    sizes = [int(s) for s in args.sizes]
    if any(s < 4 for s in sizes):
        parser.error("--sizes must be >= 4")
    try:
        names = args.only
        if names:
            for n in names:
                get(n)
    except ValueError as e:
        parser.error(str(e))
    sys.exit(run(names, sizes, args.seeds, args.markdown, args.black_box))


if __name__ == "__main__":
    main()
