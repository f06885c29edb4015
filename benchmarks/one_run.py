"""Benchmark: one-run audits (Steinke et al. 2023; Mahloujifar et al. 2025) -- the self-test and the real-data targets.

    python benchmarks/one_run.py [--seeds 5] [--skip-opacus]

1. **Self-test with known truth**: each canary an independent mu-GDP release (``GaussianCanaries``), mu chosen so
   that the true epsilon at delta = 1e-5 is 2, 4 or 8; m = 10^3, 10^4, 10^5; both methods (f-DP with the Gaussian
   curve, Steinke's Theorem 3.1). Guesses planned from the claim; the certified epsilon's median (and range) over
   ``--seeds`` seeded runs, and the certificate expected at the planned guesses.
2. **Target: DP-SGLD (Li et al. 2019, Alg. 1) on breast cancer** (``dpverify one-run dp_sgld_breast_cancer``),
   m = 10^4: certified epsilon against the accountant's (target >= 0.5 of it), wall time (target < 60 s on 2
   cores), and the Poisson-batch variant.
3. **Interference**: Dirac canaries (a coordinate each) against input-space canaries sharing the 30 weights, m = 1000.
4. **Opacus on digits** (needs the ``opacus`` extra): one-run certificates (white-box and loss scores), Opacus'
   accountant, dpverify's accountant, m = 1000 and 5000.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from dpverify.audit.one_run import GaussianCanaries, audit_one_run
from dpverify.audit.one_run_bounds import gaussian_mu
from dpverify.interfaces.cli.output import format_table
from dpverify.cases import find_case, run_case
from dpverify.cases.one_run import OneRunOptions

DELTA = 1e-5


def self_test(seeds: int) -> None:
    rows = []
    for eps in (2.0, 4.0, 8.0):
        mu = gaussian_mu(eps, DELTA)
        for m in (1_000, 10_000, 100_000):
            cells = [f"{eps:g}", f"{mu:.3f}", f"{m:,}"]
            for method in ("fdp", "steinke"):
                start = time.perf_counter()
                runs = [audit_one_run(GaussianCanaries(mu), m, method=method, delta=DELTA, seed=s) for s in range(seeds)]
                values = np.array([r.epsilon_lower for r in runs])
                cells += [f"{np.median(values):.2f} [{values.min():.2f}, {values.max():.2f}]",
                          f"{runs[0].expected_epsilon_lower:.2f}", f"{(time.perf_counter() - start) / seeds:.2f}"]
            rows.append(cells)
    print(f"Self-test: independent mu-GDP canaries, certified epsilon at delta = {DELTA:g}, alpha = 0.05 "
          f"(median [min, max] over {seeds} seeds; 'expected' at the planned guesses)")
    print(format_table(["true eps", "mu", "m", "f-DP (Gaussian)", "expected", "s/run", "Steinke", "expected", "s/run"],
                       rows))


def _run_case(name: str, m: int, method: str = "fdp", seed: int = 0):
    """One named one-run case through :func:`dpverify.cases.run_case` (the CLI's path): its audit, its extras, and
    the seconds it took."""
    start = time.perf_counter()
    outcome = run_case(find_case(name, "one_run"), OneRunOptions(canaries=m, method=method, delta=DELTA, seed=seed))
    return outcome.result, outcome.extras, time.perf_counter() - start


def breast_cancer(seeds: int) -> None:
    rows = []
    for name in ("dp_sgld_breast_cancer", "dp_sgld_breast_cancer_poisson"):
        for method in ("fdp", "steinke"):
            runs = [_run_case(name, 10_000, method, seed=s) for s in range(seeds)]
            values = np.array([r.epsilon_lower for r, _, _ in runs])
            first, facts, _ = runs[0]
            seconds = max(t for _, _, t in runs)
            rows.append([name, f"{method} {first.curve}".strip(), f"{np.median(values):.3f} [{values.min():.3f}, "
                         f"{values.max():.3f}]", f"{first.epsilon_accountant:.3f}", f"{first.epsilon_release:.3f}",
                         f"{np.median(values) / first.epsilon_accountant:.2f}", f"{values.min() / first.epsilon_accountant:.2f}",
                         f"{facts['test_accuracy']:.3f}", f"{seconds:.1f}"])
    print(f"\nTarget: DP-SGLD (Li et al. 2019, Alg. 1) logistic regression on breast cancer, m = 10,000 Dirac canaries, "
          f"delta = {DELTA:g} (median [min, max] over {seeds} seeds; target: certified >= 0.5 x accountant, < 60 s)")
    print(format_table(["case", "method", "certified", "accountant", "exact release", "median/acc", "min/acc",
                        "test acc", "max s/run"], rows))


def interference() -> None:
    rows = []
    for name in ("dp_sgld_breast_cancer", "dp_sgld_breast_cancer_input"):
        result, _, seconds = _run_case(name, 1_000)
        rows.append([name, f"{result.score_separation:.3f}", f"{result.epsilon_lower:.3f}",
                     f"{result.epsilon_accountant:.3f}", f"{seconds:.1f}"])
    print("\nInterference: score separation (mean in - mean out, in pooled sd; the canary release's mu is 0.499) and "
          "certificate, m = 1,000")
    print(format_table(["case", "separation", "certified", "accountant", "s"], rows))


def opacus() -> None:
    try:
        import opacus  # noqa: F401
    except ImportError:
        print("\nOpacus: not installed (pip install 'dpverify[opacus]'); skipped")
        return
    rows = []
    for m in (1_000, 5_000):
        for name in ("opacus_digits", "opacus_digits_loss"):
            result, facts, seconds = _run_case(name, m)
            rows.append([name, f"{m:,}", f"{result.epsilon_lower:.3f}", f"{facts['epsilon_opacus']:.3f}",
                         f"{result.epsilon_accountant:.3f}", f"{result.score_separation:.2f}", result.verdict,
                         f"{facts['test_accuracy']:.3f}", f"{seconds:.1f}"])
    print(f"\nOpacus make_private on digits (sigma = 2, C = 1, batch 256, 200 steps), delta = {DELTA:g}")
    print(format_table(["case", "m", "one-run", "Opacus (prv)", "dpverify (pld)", "separation", "verdict", "test acc",
                        "s"], rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=5, help="seeded runs per cell (default 5)")
    parser.add_argument("--skip-opacus", action="store_true")
    args = parser.parse_args()
    self_test(args.seeds)
    breast_cancer(args.seeds)
    interference()
    if not args.skip_opacus:
        opacus()


if __name__ == "__main__":
    main()
