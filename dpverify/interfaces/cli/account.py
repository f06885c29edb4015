"""``dpverify account sgm``: epsilon of the Poisson-subsampled Gaussian mechanism (DP-SGD, DP-SGLD).

    dpverify account sgm --noise-multiplier 1.1 --sampling-rate 0.0042667 --steps 14062 --delta 1e-5

Exact RDP per step (Mironov, Talwar, Zhang 2019), composed over the steps and converted to
(epsilon, delta) with the chosen conversion (see :mod:`dpverify.calculus.conversions`).
"""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("account", help="privacy accounting (RDP) for subsampled Gaussian mechanisms")
    asub = p.add_subparsers(dest="account_command", metavar="MECHANISM")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    ps = asub.add_parser("sgm", help="Poisson-subsampled Gaussian mechanism composed over steps")
    ps.add_argument("--noise-multiplier", type=float, required=True, help="sigma: noise std / L2 sensitivity (> 0)")
    ps.add_argument("--sampling-rate", type=float, required=True, help="q: Poisson sampling rate in (0, 1]")
    ps.add_argument("--steps", type=float, required=True, help="T: number of steps (integer >= 1)")
    ps.add_argument("--delta", type=float, required=True, help="target delta in (0, 1)")
    ps.add_argument("--orders", type=float, nargs="+", help="Rényi orders > 1 (default: dp-accounting's 156)")
    ps.add_argument("--method", choices=("balle2020", "mironov2017"), default="balle2020",
                    help="RDP -> DP conversion (default balle2020)")
    ps.add_argument("--json", action="store_true", help="print one JSON object")
    ps.set_defaults(func=_sgm)


def _sgm(args) -> int:
    from dpverify.validation import check_delta
    from dpverify.calculus.accounting import epsilon_sampled_gaussian
    from dpverify.interfaces.cli.output import format_table, print_json

    delta = check_delta(args.delta, allow_zero=False)
    conv = epsilon_sampled_gaussian(
        args.noise_multiplier, args.sampling_rate, args.steps, delta, orders=args.orders, method=args.method
    )
    record = {
        "mechanism": "poisson_subsampled_gaussian",
        "noise_multiplier": args.noise_multiplier,
        "sampling_rate": args.sampling_rate,
        "steps": int(args.steps),
        "epsilon": conv.epsilon,
        "delta": conv.delta,
        "order": conv.order,
        "method": conv.method,
    }
    if args.json:
        print_json(record)
        return 0
    rows = [(k, f"{v:.6g}" if isinstance(v, float) else v) for k, v in record.items()]
    print(format_table(["quantity", "value"], rows))
    return 0
