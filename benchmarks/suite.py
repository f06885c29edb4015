"""Standard-suite benchmark: audit every case of :mod:`dpverify.audit.standard_suite` at its claim.

For each case and budget it runs ``dpverify.audit.audit`` with default settings (test="auto", 95% confidence)
on the case's witness pair for ``--seeds`` seeds and prints: case, private?, claimed, exact, certified (median over
seeds), ratio certified/exact, samples per side, wall time (median per audit), verdicts (how many seeds gave
"violation"), and, for the rows of the issue's context table, DP-Sniper's published ratio at 10^6 per side
(Bichsel et al. 2021). A row ends in "OK" when its verdicts are right on every seed (non-private: violation;
private: no violation) and "MISS"/"FALSE ALARM" otherwise.

Usage::

    python benchmarks/suite.py [--sizes 1e5 1e6 1e7] [--only NAME ...] [--seeds 3] [--markdown] [--black-box]
                               [--backend numpy|torch] [--device cpu|cuda] [--preset gpu1d]

``--backend torch --device cuda`` (issue 26) audits on that array backend (the cases with a device path: the
one-number cases, ``GPU1D``; another case is a "failed" row saying it has none) and prints the device table instead:
case, backend, device (as the audit recorded them), samples per side, the chunk size (``device_chunk_size``: what
fits the device's free memory, numpy's default on numpy), wall seconds of ``audit()`` (the median over seeds), peak
memory (``Backend.peak_memory()`` on CUDA, reset before each audit; the process's ``ru_maxrss`` on the CPU, marked
RSS), the budget the chunks are fitted to (40% of the device's free memory before the audit, 20% per side, in MB;
the memory target is peak <= budget), certified epsilon (median), exact epsilon and their ratio. On torch an untimed
audit of 10^5 samples warms the device first (CUDA context, kernels). ``--preset gpu1d`` is the GPU target of issue
26 -- the 11 one-number cases at 10^9 samples per side, one seed, ``--backend torch --device cuda``; an explicit
``--sizes``, ``--seeds``, ``--only``, ``--backend`` or ``--device`` overrides its part::

    PYTHONPATH=. python3 benchmarks/suite.py --preset gpu1d --markdown            # on a GPU machine
    PYTHONPATH=. python3 benchmarks/suite.py --preset gpu1d --device cpu --sizes 1e6  # the same rows on torch-CPU
    PYTHONPATH=. python3 benchmarks/suite.py --preset gpu1d --backend numpy --device cpu --sizes 1e6
    PYTHONPATH=. python3 benchmarks/suite.py --preset gpusuite --markdown         # all 28 cases at 1e8 on a GPU

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
import resource
import statistics
import sys
import time

from dpverify.audit import audit
from dpverify.audit.standard_suite import cases, get
from dpverify.audit.core import device_chunk_size
from dpverify.backends import get_backend
from dpverify.backends.base import MEMORY_FRACTION

#: The standard suite's cases whose outputs are one number per sample: each has a device path (docs/gpu.md).
GPU1D = ["laplace_0.1", "laplace_1", "truncated_geometric", "report_noisy_max1", "report_noisy_max2",
         "report_noisy_max3", "report_noisy_max4", "report_noisy_max_half_noise_add_remove",
         "report_noisy_max_half_noise_replace", "randomized_response", "exponential"]
#: ``--preset NAME`` -> the options it sets (explicit options override them). ``gpusuite``: every case of the suite
#: (each has a device path since the sparse vector family, PrefixSum and RAPPOR gained one) at 10^8 per side on cuda.
PRESETS = {"gpu1d": {"only": GPU1D, "sizes": [1e9], "seeds": 1, "backend": "torch", "device": "cuda"},
           "gpusuite": {"sizes": [1e8], "seeds": 1, "backend": "torch", "device": "cuda"}}


class BlackBox:
    """Only the sampler of a mechanism: hides ``log_density`` and every other white-box attribute."""

    def __init__(self, mechanism) -> None:
        self._mechanism = mechanism

    def __call__(self, dataset, n, rng):
        return self._mechanism(dataset, n, rng)


def _header(cols: list[str], markdown: bool, plain: str) -> None:
    """A table's header: a markdown header row of ``cols``, or the fixed-width line ``plain``."""
    if markdown:
        print("| " + " | ".join(cols) + " |")
        print("|" + "|".join("---" for _ in cols) + "|")
    else:
        print(plain)


def _fmt(x: float, digits: int = 4) -> str:
    return "inf" if math.isinf(x) else f"{x:.{digits}f}"


def run(names: list[str] | None, sizes: list[int], seeds: int, markdown: bool, black_box: bool = False) -> int:
    selected = cases() if not names else [get(n) for n in names]
    cols = ["case", "private", "claimed", "exact", "certified", "ratio", "DP-Sniper", "samples/side", "time [s]",
            "violations", "verdict"]
    _header(cols, markdown, f"{'case':40s} {'priv':>5s} {'claimed':>8s} {'exact':>8s} {'certified':>9s} {'ratio':>6s} "
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


def _seconds(t: float) -> str:
    return f"{t:.2f}" if t < 10 else f"{t:.1f}"


def _release_cached(backend) -> None:
    """Give the memory torch's CUDA allocator cached from the last row back to the device, so that each row's chunk
    size (from the device's free memory) and peak start afresh."""
    if backend.name == "torch" and backend.device.startswith("cuda"):
        import torch  # the torch backend is in use: torch is installed

        torch.cuda.empty_cache()


def _peak(backend) -> str:
    """Peak memory of the last audit: the device's (CUDA) in MB, else the process's maximum RSS in MB."""
    peak = backend.peak_memory()
    if peak is not None:
        return f"{peak / 2**20:.0f}"
    return f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} (RSS)"


def _budget(backend) -> str:
    """The memory a device audit's chunks are fitted to, in MB: ``MEMORY_FRACTION`` (40%) of the device's free memory
    before the audit (20% per side, ``device_chunk_size``; the CPU's available RAM on torch-CPU); "-" on numpy,
    whose chunks are fixed. The memory target of issue 26 is peak <= budget (``benchmarks/chunk_budget.py`` checks
    the declared bytes per output the chunk size is computed from)."""
    if backend.name == "numpy":
        return "-"
    return f"{MEMORY_FRACTION * backend.free_memory() / 2**20:.0f}"


def run_device(names: list[str] | None, sizes: list[int], seeds: int, markdown: bool, backend_name: str,
               device: str | None, black_box: bool = False) -> int:
    """The device table (module docstring): one row per case and size; a case that fails (no device path, no CUDA)
    is a "failed" row with the error, and the other rows still run. Returns 1 if any row failed."""
    selected = cases() if not names else [get(n) for n in names]
    cols = ["case", "backend", "device", "samples/side", "chunk", "wall [s]", "peak MB", "budget MB", "certified",
            "exact", "ratio"]
    _header(cols, markdown, f"{'case':40s} {'backend':>7s} {'device':>6s} {'samples':>9s} {'chunk':>6s} {'wall[s]':>8s} "
                            f"{'peak MB':>12s} {'budget MB':>9s} {'certified':>9s} {'exact':>8s} {'ratio':>6s}")
    failed = 0
    try:
        backend = get_backend(backend_name, device)
    except ValueError as exc:
        print(f"failed: {exc}")
        return 1
    kwargs = {"backend": backend_name, "device": device}
    if backend.name != "numpy":  # warm the device (context, kernels) outside the timed rows
        for warm in selected:
            try:
                audit(warm.mechanism, warm.dataset, warm.neighbour, epsilon=warm.epsilon_claimed, samples=100_000,
                      **kwargs)
                break
            except Exception:  # no device path: its own row will say so
                continue
    for case in selected:
        for n in sizes:
            row = [case.name, backend_name, device or "cpu", f"{n:.0e}"]
            try:
                lowers, times = [], []
                for seed in range(seeds):
                    mech = BlackBox(case.mechanism) if black_box else case.mechanism
                    _release_cached(backend)
                    chunk = device_chunk_size(mech, backend, (case.dataset, case.neighbour))
                    budget = _budget(backend)
                    backend.reset_peak_memory()
                    t0 = time.perf_counter()
                    r = audit(mech, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
                              samples=n, seed=seed, exact_epsilon=case.epsilon_exact, **kwargs)
                    backend.synchronize()
                    times.append(time.perf_counter() - t0)
                    lowers.append(r.epsilon_lower)
                cert = statistics.median(lowers)
                ratio = "-" if math.isinf(case.epsilon_exact) else f"{cert / case.epsilon_exact:.3f}"
                row = [case.name, r.backend, r.device, f"{n:.0e}", f"2^{chunk.bit_length() - 1}",
                       _seconds(statistics.median(times)), _peak(backend), budget,
                       _fmt(cert), _fmt(case.epsilon_exact), ratio]
            except Exception as exc:  # a row that cannot run says why; the table goes on
                failed += 1
                row += ["", "failed", "", "", f"{type(exc).__name__}: {str(exc)[:120]}", "", ""]
            if markdown:
                print("| " + " | ".join(row) + " |", flush=True)
            else:
                print(f"{row[0]:40s} {row[1]:>7s} {row[2]:>6s} {row[3]:>9s} {row[4]:>6s} {row[5]:>8s} {row[6]:>12s} "
                      f"{row[7]:>9s} {row[8]:>9s} {row[9]:>8s} {row[10]:>6s}", flush=True)
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="+", default=None, help="samples per side (default 1e5 1e6 1e7)")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="case names (default: all)")
    parser.add_argument("--seeds", type=int, default=None, help="audits per case and size (seeds 0..k-1; default 3)")
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--black-box", action="store_true", help="hide log_density (sampler only)")
    parser.add_argument("--backend", choices=["numpy", "torch"], default=None,
                        help="array backend of the audits; given: the device table (module docstring)")
    parser.add_argument("--device", default=None, help="torch device: cpu, cuda or cuda:K")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="gpu1d: the 11 one-number cases at 1e9 on cuda; gpusuite: every case at 1e8 on cuda")
    args = parser.parse_args()
    preset = PRESETS.get(args.preset, {})
    for key, value in preset.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.sizes = [1e5, 1e6, 1e7] if args.sizes is None else args.sizes
    args.seeds = 3 if args.seeds is None else args.seeds
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
    if args.backend is None and args.device is None:
        sys.exit(run(names, sizes, args.seeds, args.markdown, args.black_box))
    backend = args.backend or "numpy"
    device = None if backend == "numpy" and args.device == "cpu" else args.device
    sys.exit(run_device(names, sizes, args.seeds, args.markdown, backend, device, args.black_box))


if __name__ == "__main__":
    main()
