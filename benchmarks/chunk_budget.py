"""Chunk memory: does an audit's peak memory stay inside the budget its chunk size was chosen for? (issue 26)

On a device the auditor sizes its chunks from the mechanism's declared bytes per output
(``dpverify.audit.abilities.declared_output_bytes``; docs/gpu.md, "Chunks follow the device's memory"): a chunk of
``c`` outputs per side may use ``c * declared`` bytes per side, ``2 c declared`` for the pair, which the default chunk
size keeps under 40% of the device's free memory. The declarations were calibrated with numpy's allocation tracing;
this script measures what an audit really holds on the chosen backend, at several forced chunk sizes, each row in a
fresh process:

- **peak MB**: on CUDA ``torch.cuda.max_memory_allocated`` during the audit (reset after an untimed warm audit); on the
  CPU the process's peak RSS (``ru_maxrss``) minus its peak after the warm audit -- an upper bound of the audit's own
  memory, since everything it allocates counts;
- **budget MB**: ``2 * chunk * declared``, what the chunk size was chosen for;
- **B/output/side**: the growth of the peak between one chunk size and the next, per added output and side
  (``(peak_c' - peak_c) / (2 (c' - c))``): what each output really costs, the fit part (a fixed size) cancelled;
- **within**: peak <= budget (the memory target: "peak device memory stays under the chunk budget at every size").

Usage::

    PYTHONPATH=. python3 benchmarks/chunk_budget.py [--cases NAME ...] [--chunks 20 21 22] [--samples 1.6e7]
                                                    [--backend torch] [--device cpu|cuda]

``--chunks`` are exponents of 2; ``--samples`` per side should be several times the largest chunk, so that the
estimation chunks, not the fit, set the peak. The default cases are the suite's 11 one-number cases (the GPU target).
Measured rows are in docs/gpu.md and benchmarks/README.md.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark, run as a script or imported
from suite import GPU1D  # noqa: E402  (the suite's 11 one-number cases)


def _rss() -> int:
    """The process's peak resident set so far, in bytes (Linux reports ``ru_maxrss`` in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def measure(case_name: str, chunk: int, samples: int, backend_name: str, device: str) -> dict:
    """One row, in this process: a warm audit of 10^4 samples, then the measured audit at ``chunk`` outputs per
    chunk."""
    from dpverify.audit import audit
    from dpverify.audit.abilities import declared_output_bytes
    from dpverify.audit.standard_suite import get
    from dpverify.backends import get_backend

    case = get(case_name)
    backend = get_backend(backend_name, device)
    kwargs = {"backend": backend_name, "device": device}
    audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, samples=10_000,
          chunk_size=1024, **kwargs)
    backend.synchronize()
    backend.reset_peak_memory()
    before = _rss()
    result = audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
                   samples=samples, chunk_size=chunk, **kwargs)
    backend.synchronize()
    device_peak = backend.peak_memory()
    peak = device_peak if device_peak is not None else _rss() - before
    declared = declared_output_bytes(case.mechanism, (case.dataset, case.neighbour))
    return {"case": case_name, "chunk": chunk, "peak": int(peak), "rss": device_peak is None,
            "declared": None if declared is None else float(declared), "certified": result.epsilon_lower,
            "backend": result.backend, "device": result.device}


def _child(args: list[str]) -> None:
    case_name, chunk, samples, backend_name, device = args
    print(json.dumps(measure(case_name, int(chunk), int(float(samples)), backend_name, device)))


def _row_in_fresh_process(case_name: str, chunk: int, samples: int, backend_name: str, device: str) -> dict:
    done = subprocess.run([sys.executable, __file__, "--child", case_name, str(chunk), str(samples), backend_name,
                           device], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return {"case": case_name, "chunk": chunk, "error": tail[:160]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=GPU1D, metavar="NAME", help="standard-suite cases")
    parser.add_argument("--chunks", nargs="+", type=int, default=[20, 21, 22], metavar="K",
                        help="chunk sizes as exponents of 2 (default 20 21 22)")
    parser.add_argument("--samples", type=float, default=1.6e7, help="samples per side (default 1.6e7)")
    parser.add_argument("--backend", default="torch", choices=["numpy", "torch"])
    parser.add_argument("--device", default="cpu", help="cpu or cuda (default cpu)")
    args = parser.parse_args()
    if any(k < 10 or k > 26 for k in args.chunks):
        parser.error(f"--chunks must be exponents between 10 and 26; got {args.chunks}")
    from dpverify.audit.standard_suite import cases

    known = [c.name for c in cases()]
    unknown = [name for name in args.cases if name not in known]
    if unknown:
        parser.error(f"--cases must be standard-suite cases ({', '.join(known)}); got {unknown}")
    if not args.samples >= 2 ** max(args.chunks):
        parser.error(f"--samples must be at least the largest chunk, 2^{max(args.chunks)}; got {args.samples:g}")
    print("| case | backend | device | chunk | peak MB | budget MB | B/output/side | declared B | within | certified |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    failed = 0
    for name in args.cases:
        previous = None
        for k in sorted(args.chunks):
            row = _row_in_fresh_process(name, 1 << k, int(args.samples), args.backend, args.device)
            if "error" in row:
                failed += 1
                print(f"| {name} | {args.backend} | {args.device} | 2^{k} | failed: {row['error']} | | | | | |",
                      flush=True)
                continue
            declared = row["declared"]
            budget = None if declared is None else 2 * row["chunk"] * declared
            marginal = "-"
            if previous is not None:
                marginal = f"{(row['peak'] - previous['peak']) / (2 * (row['chunk'] - previous['chunk'])):.0f}"
            within = "-" if budget is None else ("yes" if row["peak"] <= budget else "NO")
            failed += within == "NO"
            peak = f"{row['peak'] / 2**20:.0f}" + (" (RSS)" if row["rss"] else "")
            print(f"| {name} | {row['backend']} | {row['device']} | 2^{k} | {peak} | "
                  f"{'-' if budget is None else f'{budget / 2**20:.0f}'} | {marginal} | "
                  f"{'-' if declared is None else f'{declared:.0f}'} | {within} | {row['certified']:.4f} |", flush=True)
            previous = row
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
