"""Benchmark: RDP accounting of 10^5 Poisson-subsampled Gaussian steps over 100 orders, dpverify vs dp-accounting.

    python benchmarks/accounting.py [--steps 100000] [--subset 200] [--full]

Two workloads at q = 256/60000 (DP-SGD on MNIST with batch 256):

- homogeneous: sigma = 1.1 at every step (dp-accounting: ``SelfComposedDpEvent`` of one event);
- heterogeneous: sigma_t = 1.1 t^(1/6), t = 1..T, all distinct -- the noise of DP-SGLD with Li et al.
  2019's decreasing step size eta_t ~ t^(-1/3) (sigma_t^2 ~ t^(1/3), proof of Thm. 3)
  (dp-accounting: a ``ComposedDpEvent`` of the T distinct events).

and two sets of 100 orders: the integers 2..101 (where both libraries compute the same exact
numbers) and a mixed set in dp-accounting's style (1.25..11 by 0.25, 12..63, 64..8192), where
dp-accounting's fractional orders are upper bounds (see ``dpverify.calculus.accounting.sampled_gaussian``).

dp-accounting evaluates a ComposedDpEvent event by event, in pure Python, at tens of milliseconds
each, so the heterogeneous case would take hours; unless ``--full`` is given its time is measured on an
evenly spaced subset of ``--subset`` steps and scaled linearly (its cost is a sum over events), and
the table says so. The goal is a ratio dpverify / dp-accounting <= 1.

A second table times the PLD accountant (``dpverify.calculus.accounting.PldAccountant``, interval 1e-4) against
dp-accounting's ``PLDAccountant`` (same interval) at delta = 1e-5, with dpverify's (lower, upper) bracket:

- the DP-SGD reference point: 14062 steps of sigma = 1.1 (self-composition);
- 1000 heterogeneous steps sigma_t = 1.1 t^(1/6), all distinct (``compose_schedule``). dp-accounting takes
  about 0.1 s per distinct event here, so unless ``--full`` is given it runs on the first ``--pld-subset``
  steps, its time is scaled linearly, and its epsilon is compared with ours on that subset.
"""

from __future__ import annotations

import argparse
import logging
import time

import numpy as np

import dp_accounting
from dp_accounting.rdp import rdp_privacy_accountant as dpa

from dp_accounting.pld import pld_privacy_accountant as dpa_pld

from dpverify.calculus.accounting import PldAccountant, RdpAccountant
from dpverify.interfaces.cli.output import format_table

Q = 256 / 60000
SIGMA = 1.1
ORDER_SETS = {
    "integer 2..101": [float(a) for a in range(2, 102)],
    "mixed (30 fractional)": [1 + x / 4 for x in range(1, 41)] + [float(a) for a in range(12, 64)]
    + [64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0],
}


def _event(sigma: float) -> dp_accounting.DpEvent:
    return dp_accounting.PoissonSampledDpEvent(Q, dp_accounting.GaussianDpEvent(float(sigma)))


def _best_of(fn, repeats: int) -> tuple[float, object]:
    best, out = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def run(steps: int, subset: int, full: bool) -> list[tuple]:
    logging.getLogger("absl").setLevel(logging.ERROR)
    sigmas = SIGMA * np.arange(1, steps + 1) ** (1 / 6)
    rows = []
    for name, orders in ORDER_SETS.items():
        assert len(orders) == 100
        integer = np.array([float(a).is_integer() for a in orders])

        # homogeneous
        t_ours, ours = _best_of(lambda: RdpAccountant(orders).compose_sampled_gaussian(Q, SIGMA, steps), 3)

        def theirs_homog():
            acc = dpa.RdpAccountant(orders)
            acc.compose(dp_accounting.SelfComposedDpEvent(_event(SIGMA), steps))
            return acc

        t_theirs, theirs = _best_of(theirs_homog, 3)
        err = np.max(np.abs(ours.rdp[integer] / theirs._rdp[integer] - 1))
        rows.append(("homogeneous", name, steps, t_ours, t_theirs, "measured", err))

        # heterogeneous
        t_ours, ours = _best_of(lambda: RdpAccountant(orders).compose_sampled_gaussian_schedule(Q, sigmas), 1)
        idx = np.arange(steps) if full else np.linspace(0, steps - 1, subset).round().astype(int)

        def theirs_hetero():
            acc = dpa.RdpAccountant(orders)
            acc.compose(dp_accounting.ComposedDpEvent([_event(s) for s in sigmas[idx]]))
            return acc

        t_sub, theirs = _best_of(theirs_hetero, 1)
        t_theirs = t_sub * steps / idx.size
        check = RdpAccountant(orders).compose_sampled_gaussian_schedule(Q, sigmas[idx])
        err = np.max(np.abs(check.rdp[integer] / theirs._rdp[integer] - 1))
        how = "measured" if full else f"{idx.size} steps x {steps // idx.size}"
        rows.append(("heterogeneous", name, steps, t_ours, t_theirs, how, err))
    return rows


PLD_DELTA = 1e-5
PLD_REFERENCE_STEPS = 14062


def _pld_theirs(events: list) -> float:
    acc = dpa_pld.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_accounting.ComposedDpEvent(events) if len(events) > 1 else events[0])
    return acc.get_epsilon(PLD_DELTA)


def run_pld(hetero_steps: int, subset: int, full: bool) -> list[tuple]:
    logging.getLogger("absl").setLevel(logging.ERROR)
    rows = []
    t_ours, ours = _best_of(lambda: PldAccountant(interval=1e-4).compose_subsampled_gaussian(
        Q, 1 / SIGMA, PLD_REFERENCE_STEPS).get_epsilon(PLD_DELTA), 3)
    t_theirs, theirs = _best_of(
        lambda: _pld_theirs([dp_accounting.SelfComposedDpEvent(_event(SIGMA), PLD_REFERENCE_STEPS)]), 1)
    rows.append((f"DP-SGD reference ({PLD_REFERENCE_STEPS} steps)", t_ours, ours.epsilon_lower, ours.epsilon,
                 t_theirs, "measured", theirs, ours.epsilon))

    sigmas = SIGMA * np.arange(1, hetero_steps + 1) ** (1 / 6)
    t_ours, ours = _best_of(lambda: PldAccountant(interval=1e-4).compose_schedule(Q, 1 / sigmas).get_epsilon(
        PLD_DELTA), 1)
    m = hetero_steps if full else min(subset, hetero_steps)
    t_sub, theirs = _best_of(lambda: _pld_theirs([_event(s) for s in sigmas[:m]]), 1)
    same = ours if m == hetero_steps else PldAccountant(interval=1e-4).compose_schedule(
        Q, 1 / sigmas[:m]).get_epsilon(PLD_DELTA)
    how = "measured" if m == hetero_steps else f"{m} steps x {hetero_steps / m:g}"
    rows.append((f"heterogeneous ({hetero_steps} distinct steps)", t_ours, ours.epsilon_lower, ours.epsilon,
                 t_sub * hetero_steps / m, how, theirs, same.epsilon))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--subset", type=int, default=200, help="dp-accounting heterogeneous: steps actually timed")
    ap.add_argument("--full", action="store_true", help="time dp-accounting on every heterogeneous step (hours)")
    ap.add_argument("--pld-steps", type=int, default=1000, help="PLD table: heterogeneous steps")
    ap.add_argument("--pld-subset", type=int, default=100, help="PLD table: dp-accounting heterogeneous steps timed")
    ap.add_argument("--pld-only", action="store_true", help="print only the PLD table")
    args = ap.parse_args()
    if not args.pld_only:
        _print_rdp(args)
    print()
    rows = run_pld(args.pld_steps, args.pld_subset, args.full)
    print(format_table(
        ["PLD case (delta = 1e-5)", "dpverify s", "dpverify [lower, upper]", "dp-accounting s", "dp-accounting timing",
         "dp-accounting eps", "dpverify upper, same steps"],
        [(c, f"{t:.2f}", f"[{lo:.6f}, {up:.6f}]", f"{tt:.2f}", how, f"{th:.6f}", f"{same:.6f}")
         for c, t, lo, up, tt, how, th, same in rows],
    ))


def _print_rdp(args) -> None:
    rows = run(args.steps, args.subset, args.full)
    print(format_table(
        ["case", "orders", "steps", "dpverify s", "dp-accounting s", "dp-accounting timing", "ratio",
         "max rel diff (int orders)"],
        [(c, o, s, f"{a:.3f}", f"{b:.3f}", how, f"{a / b:.4f}", f"{e:.1e}") for c, o, s, a, b, how, e in rows],
    ))


if __name__ == "__main__":
    main()
