"""Benchmark: the smallest noise reduction of DP-SGLD that the audit flags, with and without the curve test (issue 22).

    python benchmarks/noise_reduction.py [--factors 1.0 0.95 0.925 0.9 0.85] [--seeds 20] [--budget standard]
                                         [--workers K] [--modes curve event [mu]] [--deadline SECONDS] [--json PATH]

The suite's case ``dp_sgld_path`` (Li et al. 2019, Alg. 1, released as a path, on the logistic canary pair: same
model, pair, T, step size, clip level and theta0) run by an implementation whose noise standard deviation is
multiplied by ``factor`` (1 = the declared sampler; 0.9 = a 10% noise reduction; 0.5 = ``dp_sgld_broken_half_noise``).
Its claim is always the DECLARED run's (the accountant's PLD of the f = 1 run, what ``run_case`` tests), so every
factor < 1 is a violation that a powerful audit finds. Each (factor, seed) is audited at ``--budget`` (the suite's
samples for the case) in two modes, on the same seed (the same outputs):

- ``curve``: the claim as the suite passes it (the PLD profile): the event test and the curve-level test
  (``AuditResult.curve``, a refutation of the claimed trade-off curve), sharing the confidence (Bonferroni);
- ``event only``: the claim as one point, (epsilon(delta), delta) of the same PLD at the case's delta = 1e-3: no
  curve test (the point's curve test is the event test), i.e. the auditor before issue 22;
- ``mu`` (optional, factor 1 only, not in the table's counts): the claim as Gaussian DP at ``mu_pair`` (below), so
  that the curve test selects its threshold for ``mu_lower`` itself rather than for the margin below the PLD; the pair
  is not exactly Gaussian, so its verdict is ignored: only its ``mu_lower`` is read, against ``mu_pair``.

Columns of the table (per factor, over ``--seeds`` seeds):

- ``reduction``: 1 - factor, the noise reduction;
- ``flagged curve`` / ``flagged event``: seeds whose verdict is ``violation``, in each mode (at factor 1, false
  alarms: they must be ~0, at most 5% of seeds by the audit's confidence);
- ``eps_lo curve`` / ``eps_lo event``: mean certified epsilon lower bound at delta = 1e-3 (the claim is the
  declared run's epsilon there, 1.615);
- ``mu_lo``: mean [min] ``curve.mu_lower`` of the curve mode (selected for the margin below the claimed curve, not
  for mu itself); ``/ mu_pair``: its mean over ``curve_ceiling.mu_pair``, the declared pair's tightest Gaussian
  mu down to error rates 1e-6 (0.628; the smallest mu with the pair mu-GDP there, reached in a far tail);
- ``s/audit``: mean wall seconds of one audit.

Below the table: for each mode, the smallest noise reduction flagged in >= 95% of seeds (the smallest tested
reduction at and beyond which every tested reduction is flagged that often); and at factor 1 the false-alarm rates
and ``mu_lower`` in the curve mode and, with ``--modes curve event mu``, in the mu mode (issue 22's targets: the smallest
reduction <= 10% with the curve test; ``mu_lo >= 0.85`` of "the mu that best describes its PLD"), against two readings
of the pair's mu (:class:`dpverify.audit.ceiling.CurveCeiling`): ``mu_fit`` (0.507), the Gaussian curve nearest the
pair's trade-off curve (largest type II difference 0.0074), and ``mu_pair`` (0.628), the tightest one down to error
rates 1e-6, and the curve test's own expectation at this budget (``mu_expected``, 0.523 = 0.83 ``mu_pair``: no
threshold test of 160,000 estimation outputs per side can be expected to reach 0.85 ``mu_pair``; 0.847 with all
200,000 and one test).

Cost: one audit at the standard budget (200,000 outputs per side, 50 steps) takes about 33 CPU seconds (single
thread; 43-80 s of wall time on the shared, loaded 2-core development machine); the default run is 5 factors x 20
seeds x 2 modes = 200 audits, 6,600 CPU seconds at that speed. ``--workers K`` runs them in K processes (each
single-threaded: BLAS/OpenMP threads are set to 1 before numpy is imported): with ``--workers 15``, 14 rounds, about
4 minutes on a server twice as fast per core. Audits run seed by seed (every factor and mode of seed 0, then seed 1,
...), ``--json`` is rewritten after every audit, and ``--deadline`` stops starting audits after that many seconds, so
a run cut short still reports the same seeds for every factor.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy is imported here or in a spawned worker: one thread per audit

import argparse
import json
import math
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from functools import lru_cache

import numpy as np

from dpverify.samplers.kernels import Kernel
from dpverify.samplers.schedules import Schedule
from dpverify.samplers.sgld import DPSGLDLi

CASE = "dp_sgld_path"
MODES = ("curve", "event")
#: the optional mode that reads mu_lower selected for mu itself (at factor 1 only; its verdict is not counted)
MU_MODE = "mu"
DEFAULT_FACTORS = (1.0, 0.95, 0.925, 0.9, 0.85)
#: CPU seconds of one standard-budget audit of dp_sgld_path on the 2-core development machine (module docstring)
CPU_SECONDS_HERE = 33.0
TARGET_RATE = 0.95


class NoiseScaledDPSGLD(DPSGLDLi):
    """DP-SGLD (Li et al. 2019, Alg. 1) that declares noise ``sqrt(eta_t / N)`` and adds ``factor`` times it.

    Like :class:`dpverify.samplers.broken.BrokenDPSGLD`, only the kernel that runs the chains differs: the mechanism
    description (``self._noise_std``), the claim, the accountant and the white-box statistic are the declared
    sampler's. ``factor = 1`` is the declared sampler; ``factor = 0.5`` is the ``half_noise`` defect. Not registered
    (a benchmark device)."""

    def __init__(self, *args, factor: float = 1.0, **kwargs):
        if not 0.0 < factor <= 1.0:
            raise ValueError(f"factor must lie in (0, 1]; got {factor!r}")
        self.factor = float(factor)  # set before the parent's setup builds the kernel
        super().__init__(*args, **kwargs)

    def _langevin_kernel(self) -> tuple[Kernel, Schedule]:
        kernel, _ = super()._langevin_kernel()
        return kernel, Schedule(self.n_steps, step_size=self._coef, noise_std=self.factor * self._noise_std)


def case_params() -> dict:
    """The keyword arguments of the ``dp_sgld_path`` case's sampler, the model built, theta0 an array."""
    from dpverify.interfaces.suite import get_case

    declared = get_case(CASE).build()
    params = {**get_case(CASE).params, "model": declared.model}
    if isinstance(params.get("theta0"), tuple):
        params["theta0"] = np.array(params["theta0"])
    return params


def make_sampler(factor: float) -> NoiseScaledDPSGLD:
    """The case's sampler with its noise multiplied by ``factor``."""
    return NoiseScaledDPSGLD(factor=factor, **case_params())


@lru_cache(maxsize=1)
def setup() -> dict:
    """Once per process: the pair, the declared reference (what ``run_case`` passes as the claim) and its point."""
    from dpverify.audit.ceiling import curve_ceiling
    from dpverify.calculus.guarantees import ApproxDP
    from dpverify.calculus.tradeoff import GaussianDP
    from dpverify.interfaces.suite import declared_reference, get_case

    case = get_case(CASE)
    declared = case.build()
    claim = declared.guarantee()
    dataset, neighbour = case.dataset(), case.neighbour()
    reference = declared_reference(declared, dataset, neighbour, claim, claim.delta)
    losses, p, q, p_inf, q_inf = declared.pair_privacy_loss(dataset, neighbour).masses()
    mu_pair = curve_ceiling(losses, p, q, p_inf=p_inf, q_inf=q_inf, n=case.samples("standard")).mu_pair
    # mode "mu": a Gaussian-DP claim makes the curve test select its threshold for mu_lower itself (not for the margin
    # below a PLD); the pair is not exactly mu_pair-GDP, so that mode's verdict means nothing and is not counted
    return {"case": case, "dataset": dataset, "neighbour": neighbour, "delta": claim.delta,
            "claims": {"curve": reference.guarantee, "event": ApproxDP(reference.epsilon, claim.delta),
                       MU_MODE: GaussianDP(mu_pair)},
            "epsilon": reference.epsilon, "mu_pair": mu_pair}


def run_one(factor: float, seed: int, mode: str, budget: str | int) -> dict:
    """One audit of the factor's sampler against the declared claim, in ``mode``; a row of plain data."""
    from dpverify.audit import audit

    s = setup()
    wall, cpu = time.perf_counter(), time.process_time()
    result = audit(make_sampler(factor), s["dataset"], s["neighbour"], claim=s["claims"][mode], delta=s["delta"],
                   samples=s["case"].samples(budget), confidence=0.95, seed=seed, test=s["case"].test)
    curve, ceiling = result.curve, result.curve_ceiling
    return {"factor": factor, "seed": seed, "mode": mode, "verdict": str(result.verdict),
            "flagged": bool(result.is_violation),
            "epsilon_lower": float(result.epsilon_lower), "epsilon_claimed": s["epsilon"],
            "curve_refuted": None if curve is None else bool(curve.refuted),
            "mu_lower": None if curve is None else float(curve.mu_lower),
            "mu_pair": None if ceiling is None else float(ceiling.mu_pair),
            "mu_fit": None if ceiling is None else float(ceiling.mu_fit),
            "mu_expected": None if ceiling is None else float(ceiling.mu_expected),
            "samples": int(s["case"].samples(budget)), "seconds": time.perf_counter() - wall,
            "cpu_seconds": time.process_time() - cpu}


def smallest_flagged(summary: dict, mode: str) -> float | None:
    """The smallest tested reduction flagged in >= TARGET_RATE of seeds such that every larger tested reduction is too
    (None when the largest tested reduction is not)."""
    best = None
    for factor in sorted(f for f in summary if f < 1.0):  # largest reduction first
        if summary[factor][mode] is None or summary[factor][mode] < TARGET_RATE:
            break
        best = 1.0 - factor
    return best


def _mean(values) -> float | None:
    values = [v for v in values if v is not None]
    return float(np.mean(values)) if values else None


def _fmt(value, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def report(rows: list[dict], factors, seeds: int, modes) -> dict:
    """Print the table and the summary lines; return the summary per factor (flagged rate per mode)."""
    from dpverify.interfaces.cli.output import format_table

    table, summary = [], {}
    for factor in factors:
        of = {m: [r for r in rows if r["factor"] == factor and r["mode"] == m] for m in MODES}
        flagged = {m: sum(r["flagged"] for r in of[m]) for m in MODES}
        summary[factor] = {m: flagged[m] / len(of[m]) if of[m] else None for m in MODES}
        mus = [r["mu_lower"] for r in of["curve"] if r["mu_lower"] is not None]
        pairs = [r["mu_pair"] for r in of["curve"] if r["mu_pair"] is not None]
        ratio = None if not mus or not pairs else np.mean(mus) / np.mean(pairs)
        table.append([f"{factor:g}", f"{100 * (1 - factor):.0f}%",
                      *(f"{flagged[m]}/{len(of[m])}" if of[m] else "-" for m in MODES),
                      *(_fmt(_mean(r["epsilon_lower"] for r in of[m])) for m in MODES),
                      "-" if not mus else f"{np.mean(mus):.3f} [{np.min(mus):.3f}]", _fmt(ratio),
                      _fmt(_mean(r["seconds"] for r in rows if r["factor"] == factor), 1)])
    s = setup()
    print(f"\nDP-SGLD ({CASE}) with its noise sd x factor, audited against the declared run's claim "
          f"(epsilon {s['epsilon']:.3f} at delta {s['delta']:g}); {seeds} seeds, "
          f"{rows[0]['samples']:,} samples per side" if rows else "no rows")
    print(format_table(["factor", "reduction", "flagged curve", "flagged event", "eps_lo curve", "eps_lo event",
                        "mu_lo mean [min]", "/ mu_pair", "s/audit"], table))
    for m, name in (("curve", "curve (curve + event tests)"), ("event", "event only")):
        if m not in modes:
            continue
        found = smallest_flagged(summary, m)
        print(f"smallest reduction flagged in >= {TARGET_RATE:.0%} of seeds, {name}: "
              + ("none of those tested" if found is None else f"{100 * found:.0f}%"))
    if 1.0 in summary:
        alarms = ", ".join(f"{m} {summary[1.0][m]:.2f}" for m in MODES if summary[1.0][m] is not None)
        print(f"false alarms at factor 1: {alarms}")
        ones = [r for r in rows if r["factor"] == 1.0 and r["mode"] == "curve" and r["mu_lower"] is not None]
        if ones:
            mus = np.array([r["mu_lower"] for r in ones])
            print(f"factor 1, mu_lower (selected for the margin below the claim): {_mu_line(ones)}")
    mu_rows = [r for r in rows if r["mode"] == MU_MODE and r["mu_lower"] is not None]
    if mu_rows:
        print(f"factor 1, mu_lower selected for mu (mode mu, {len(mu_rows)} seeds): {_mu_line(mu_rows)}")
    return summary


def _mu_line(rows: list[dict]) -> str:
    """mu_lower's mean and minimum over ``rows`` against the pair's two mus (:class:`~dpverify.audit.ceiling.
    CurveCeiling`: ``mu_fit``, the nearest Gaussian curve; ``mu_pair``, the tightest one down to error rates 1e-6) and
    the curve test's own expectation at this budget, ``mu_expected``; the target is 0.85."""
    mus = np.array([r["mu_lower"] for r in rows])
    pair, fit, expected = rows[0]["mu_pair"], rows[0].get("mu_fit"), rows[0]["mu_expected"]
    parts = [f"mean {mus.mean():.3f}, min {mus.min():.3f}; mu_expected {_fmt(expected)}"]
    for name, mu in (("mu_fit", fit), ("mu_pair", pair)):
        if mu:
            parts.append(f"{name} {_fmt(mu)}: mean / {name} {_fmt(mus.mean() / mu)}, min / {name} "
                         f"{_fmt(mus.min() / mu)}")
    return "; ".join(parts) + " (target >= 0.85)"


def _write_json(path: str, args, budget, factors, rows: list[dict], summary: dict | None, complete: bool) -> None:
    """The rows so far (``summary`` None while the run goes on); ``complete``: every planned audit is among them."""
    out = {"case": CASE, "budget": budget, "seeds": args.seeds, "factors": factors, "modes": args.modes,
           "complete": complete, "rows": sorted(rows, key=lambda r: (-r["factor"], r["seed"], r["mode"])),
           "python": sys.version.split()[0], "numpy": np.__version__}
    if summary is not None:
        out["flagged_rate"] = {str(f): v for f, v in summary.items()}
        out["smallest_reduction_flagged"] = {m: smallest_flagged(summary, m) for m in args.modes if m in MODES}
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--factors", type=float, nargs="+", default=list(DEFAULT_FACTORS),
                        help="noise sd multipliers in (0, 1]; 1 = the declared sampler")
    parser.add_argument("--seeds", type=int, default=20, help="audit seeds per factor and mode")
    parser.add_argument("--first-seed", type=int, default=0,
                        help="the first seed (seeds first-seed .. first-seed + seeds - 1): extend an earlier run")
    parser.add_argument("--budget", default="standard", help="quick, standard, thorough or a sample count per side")
    parser.add_argument("--modes", nargs="+", choices=(*MODES, MU_MODE), default=list(MODES),
                        help="curve, event, and optionally mu (at factor 1 only: mu_lower selected for mu)")
    parser.add_argument("--workers", type=int, default=1, help="processes running audits (each single-threaded)")
    parser.add_argument("--deadline", type=float, default=None, metavar="SECONDS",
                        help="start no audit after this many seconds; report the audits done (seeds run in order, "
                             "so a cut-off run has the first seeds of every factor)")
    parser.add_argument("--json", metavar="PATH", help="write every audit's row (after each audit) and the summary")
    args = parser.parse_args(argv)
    budget = int(args.budget) if str(args.budget).isdigit() else args.budget
    for f in args.factors:
        if not 0.0 < f <= 1.0:
            parser.error(f"factors must lie in (0, 1]; got {f}")
    factors = sorted(set(args.factors), reverse=True)

    from dpverify.interfaces.suite import get_case

    samples = get_case(CASE).samples(budget)
    # seed-major: a run cut off by --deadline (or killed) has the same seeds for every factor and mode
    jobs = [(f, seed, m, budget) for seed in range(args.first_seed, args.first_seed + args.seeds) for f in factors for m in args.modes
            if m != MU_MODE or f == 1.0]
    workers = max(1, args.workers)
    cpu = CPU_SECONDS_HERE * samples / 200_000
    rounds = math.ceil(len(jobs) / workers)
    print(f"{len(jobs)} audits ({len(factors)} factors x {args.seeds} seeds x {len(args.modes)} modes"
          f"{', mu at factor 1 only' if MU_MODE in args.modes else ''}) of "
          f"{samples:,} samples per side on {workers} worker(s): {rounds} rounds of ~{cpu:.0f} CPU s per audit "
          f"(2-core development machine), so ~{rounds * cpu / 60:.1f} min of wall time at that speed per core, "
          f"~{rounds * cpu / 2 / 60:.1f} min on a server twice as fast per core (plus ~10 s of worker start-up)",
          flush=True)

    rows: list[dict] = []
    start = time.perf_counter()

    def done(row: dict) -> None:
        rows.append(row)
        elapsed = time.perf_counter() - start
        eta = elapsed / len(rows) * (len(jobs) - len(rows))
        mu = "" if row["mu_lower"] is None else f" mu_lo {row['mu_lower']:.3f}"
        print(f"[{len(rows):>4}/{len(jobs)}] factor {row['factor']:g} seed {row['seed']} {row['mode']:<5}: "
              f"{row['verdict']:<12} eps_lo {row['epsilon_lower']:.3f}{mu} ({row['seconds']:.1f} s, "
              f"{row['cpu_seconds']:.1f} CPU s; elapsed {elapsed:.0f} s, eta {eta:.0f} s)", flush=True)
        if args.json:
            _write_json(args.json, args, budget, factors, rows, None, False)

    def late() -> bool:
        return args.deadline is not None and time.perf_counter() - start > args.deadline

    if workers == 1:
        for job in jobs:
            if late():
                break
            done(run_one(*job))
    else:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = [pool.submit(run_one, *job) for job in jobs]
            for future in as_completed(futures):
                done(future.result())
                if late():
                    pool.shutdown(wait=True, cancel_futures=True)  # the audits already started or queued finish
                    break
            for future in futures:
                if future.done() and not future.cancelled() and future.result() not in rows:
                    done(future.result())
    if len(rows) < len(jobs):
        print(f"deadline of {args.deadline:g} s: {len(rows)} of {len(jobs)} audits done", flush=True)
    rows.sort(key=lambda r: (-r["factor"], r["seed"], r["mode"]))
    summary = report(rows, factors, args.seeds, args.modes)
    print(f"total wall time {time.perf_counter() - start:.0f} s, {sum(r['cpu_seconds'] for r in rows):.0f} CPU s "
          "in the audits", flush=True)
    if args.json:
        _write_json(args.json, args, budget, factors, rows, summary, len(rows) == len(jobs))
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
