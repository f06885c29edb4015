"""``dpverify account sgm``: epsilon of the Poisson-subsampled Gaussian mechanism (DP-SGD, DP-SGLD).

    dpverify account sgm --noise-multiplier 1.1 --sampling-rate 0.0042667 --steps 14062 --delta 1e-5

Exact RDP per step (Mironov, Talwar, Zhang 2019), composed over the steps and converted to
(epsilon, delta) with the chosen conversion (see :mod:`dpverify.calculus.conversions`).

Tiny noise multipliers: below about 3e-3 the RDP of the fractional orders needs multi-precision quadrature, about a
second per order (:func:`~dpverify.calculus.accounting.sampled_gaussian.needs_multiprecision`), while the answer is
already known to be useless: one step alone has epsilon >= :func:`~dpverify.calculus.accounting.sampled_gaussian.
one_step_epsilon` (exact, and a lower bound for any number of steps). When that lower bound is at least
:data:`NO_PRIVACY_EPSILON` the command says so at once (``epsilon >= X: no meaningful privacy``) instead of
computing the RDP bound; otherwise the slow orders are computed one by one with a progress line and an ETA. No
number changes where the RDP bound was fast before.
"""
from __future__ import annotations

import argparse
import sys

from dpverify.interfaces.cli import arguments

#: An epsilon from which a guarantee is void (e^50 ~ 5e21: an event 10^21 times likelier with the record).
NO_PRIVACY_EPSILON = 50.0
#: The largest Rényi order accepted: beyond it the multi-precision quadrature takes tens of seconds per order (and
#: at 1e200 its result overflows a double).
MAX_ORDER = 1e8


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("account", help="privacy accounting (RDP) for subsampled Gaussian mechanisms")
    asub = p.add_subparsers(dest="account_command", metavar="MECHANISM")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    ps = asub.add_parser("sgm", help="Poisson-subsampled Gaussian mechanism composed over steps")
    ps.add_argument("--noise-multiplier", type=arguments.real(0.0, low_inclusive=False), required=True,
                    help="sigma: noise std / L2 sensitivity, a finite number > 0")
    ps.add_argument("--sampling-rate", type=arguments.real(0.0, 1.0, low_inclusive=False), required=True,
                    help="q: Poisson sampling rate in (0, 1]")
    ps.add_argument("--steps", type=arguments.count(1), required=True,
                    help="T: number of steps, an integer >= 1 (1e6 is accepted)")
    ps.add_argument("--delta", type=arguments.real(0.0, 1.0, low_inclusive=False, high_inclusive=False),
                    required=True, help="target delta in (0, 1)")
    ps.add_argument("--orders", type=arguments.real(1.0, MAX_ORDER, low_inclusive=False), nargs="+",
                    help=f"Renyi orders in (1, {MAX_ORDER:g}] (default: dp-accounting's 156)")
    ps.add_argument("--method", choices=("balle2020", "mironov2017"), default="balle2020",
                    help="RDP -> DP conversion (default balle2020)")
    ps.add_argument("--json", action="store_true", help="print one JSON object")
    ps.set_defaults(func=_sgm)


def _sgm(args) -> int:
    from dpverify.calculus.accounting import DEFAULT_ORDERS
    from dpverify.calculus.accounting.sampled_gaussian import needs_multiprecision, one_step_epsilon
    from dpverify.interfaces.cli.output import format_table, print_json

    sigma, q, steps, delta = args.noise_multiplier, args.sampling_rate, args.steps, args.delta
    orders = list(DEFAULT_ORDERS if args.orders is None else args.orders)
    record = {"mechanism": "poisson_subsampled_gaussian", "noise_multiplier": sigma, "sampling_rate": q,
              "steps": steps}
    slow = needs_multiprecision(q, sigma, orders)
    lower = one_step_epsilon(q, sigma, delta) if slow else None
    if lower is not None and lower >= NO_PRIVACY_EPSILON:
        record.update({"epsilon": None, "epsilon_lower_bound": lower, "delta": delta, "order": None,
                       "method": "one step, exact (a lower bound for any number of steps)",
                       "no_meaningful_privacy": True})
        note = (f"no meaningful privacy: one step alone has epsilon {_fmt(lower)} at delta {delta:g} (exact; "
                f"{steps} steps have at least as much). The RDP bound is not computed: at noise multiplier "
                f"{sigma:g} it needs multi-precision quadrature for minutes and would only be larger.")
        if args.json:
            print_json({**record, "note": note})
            return 0
        rows = [(k, _fmt(v) if isinstance(v, float) else v) for k, v in record.items() if k != "epsilon"]
        rows.insert(4, ("epsilon", f">= {_fmt(lower)}"))
        print(format_table(["quantity", "value"], rows))
        print(f"\n{note}")
        return 0
    conv = _epsilon(q, sigma, steps, delta, orders, args.method, slow)
    record.update({"epsilon": conv.epsilon, "delta": conv.delta, "order": conv.order, "method": conv.method})
    if args.json:
        print_json(record)
        return 0
    rows = [(k, f"{v:.6g}" if isinstance(v, float) else v) for k, v in record.items()]
    print(format_table(["quantity", "value"], rows))
    return 0


def _fmt(x: float) -> str:
    return "inf (beyond the float range)" if x == float("inf") else f"{x:.6g}"


def _epsilon(q: float, sigma: float, steps: int, delta: float, orders: list[float], method: str, slow: bool):
    """The RDP accountant's epsilon (:func:`~dpverify.calculus.accounting.epsilon_sampled_gaussian`); with ``slow``
    the orders that need multi-precision quadrature are computed one at a time with a progress line, and composed
    and converted exactly as the accountant does (``steps * rdp``, :func:`~dpverify.calculus.conversions.rdp_to_dp`)."""
    from dpverify.calculus.accounting import epsilon_sampled_gaussian
    from dpverify.calculus.accounting.sampled_gaussian import needs_multiprecision, rdp_sampled_gaussian
    from dpverify.calculus.conversions import rdp_to_dp
    from dpverify.interfaces.cli.progress import Progress

    import numpy as np

    if not slow:
        # A noise multiplier near the float range squares to inf: 1/sigma^2 = 0 is the right limit (epsilon 0).
        with np.errstate(over="ignore"):
            return epsilon_sampled_gaussian(sigma, q, steps, delta, orders=orders, method=method)

    hard = [a for a in orders if needs_multiprecision(q, sigma, [a])]
    easy = [a for a in orders if a not in hard]
    rdp = dict(zip(easy, rdp_sampled_gaussian(q, sigma, easy))) if easy else {}
    print(f"account: {len(hard)} of {len(orders)} orders need multi-precision quadrature (about a second each)",
          file=sys.stderr, flush=True)
    with Progress(len(hard), "orders", quiet_for=0.0, every=5.0) as progress:
        for a in hard:
            progress.start_item(f"order {a:g}")
            rdp[a] = float(rdp_sampled_gaussian(q, sigma, [a])[0])
            progress.advance(f"order {a:g}", "done")
    curve = np.array([rdp[a] for a in orders])
    return rdp_to_dp(np.array(orders, dtype=float), steps * curve, delta, method=method)
