"""``dpverify one-run CASE --canaries M``: audit one training run with M canaries (Steinke et al. 2023; Mahloujifar et
al. 2025), beside the run's accountant.

    dpverify one-run dp_sgld_breast_cancer --canaries 10000
    dpverify one-run opacus_digits --canaries 1000 --json

Cases: :mod:`dpverify.cases.one_run` (``dpverify one-run --list``), run by :func:`dpverify.cases.run_case`. Exit status 0 when the verdict is not
"violation", 1 when it is (the run is less private than claimed), 2 on bad input.
"""
from __future__ import annotations

import argparse

from dpverify.interfaces.cli import arguments


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("one-run", help="one-run audit: M canaries in one training run, certified epsilon vs accountant",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("case", nargs="?", help="the case to audit (--list shows them)")
    p.add_argument("--canaries", type=arguments.count(2, 10**7), default=1000,
                   help="M, the number of canaries, in [2, 10^7] (default 1000)")
    p.add_argument("--method", choices=("fdp", "steinke"), default="fdp",
                   help="fdp: Mahloujifar et al. 2025 (default); steinke: Steinke et al. 2023, Thm 3.1")
    p.add_argument("--curve", choices=("gaussian", "approx_dp"), default=None,
                   help="f-DP curve family (default: gaussian when the canary release is Gaussian, else approx_dp)")
    p.add_argument("--guesses", type=arguments.count(0), nargs=2, metavar=("K_PLUS", "K_MINUS"),
                   help="guess counts fixed in advance: the K_PLUS highest scores guessed in, the K_MINUS lowest out; "
                        "integers >= 0 with 1 <= K_PLUS + K_MINUS <= --canaries (default: planned from the claim)")
    p.add_argument("--alpha", type=arguments.real(0.0, 0.5, low_inclusive=False, high_inclusive=False), default=0.05,
                   help="significance level in (0, 0.5) (default 0.05): the probability that a correct run is "
                        "flagged; at 0.5 or above a violation of a correct run is as likely as not")
    p.add_argument("--delta", type=arguments.real(0.0, 1.0, high_inclusive=False), default=1e-5,
                   help="delta of the claim and the certificate, in [0, 1) (default 1e-5)")
    p.add_argument("--seed", type=arguments.seed(), default=0, help="seed of the coins and the run (default 0)")
    p.add_argument("--list", action="store_true", help="list the cases and exit")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_one_run)


def _one_run(args) -> int:
    from dpverify.audit.verdicts import fmt_epsilon
    from dpverify.cases import find_case, run_case
    from dpverify.cases.one_run import CASES, OneRunOptions
    from dpverify.interfaces.cli.output import format_table, print_json
    from dpverify.validation import UsageError

    if args.list or not args.case:
        print(format_table(["case", "needs", "what"], [(c.name, c.needs or "-", c.summary) for c in CASES.values()]))
        return 0
    _check_guesses(args.guesses, args.canaries)
    try:
        case = find_case(args.case, "one_run")
    except ValueError as exc:
        raise UsageError(str(exc).replace("unknown one_run case", "unknown one-run case")) from None
    options = OneRunOptions(canaries=args.canaries, alpha=args.alpha, delta=args.delta, method=args.method,
                            curve=args.curve, guesses=None if args.guesses is None else tuple(args.guesses),
                            seed=args.seed)
    outcome = run_case(case, options)
    result, extra = outcome.result, outcome.extras
    if args.json:
        print_json(outcome.to_dict())
    else:
        rows = [("case", result.case), ("method", f"{result.method} {result.curve}".strip()),
                ("canaries (included)", f"{result.m} ({result.included})"),
                ("guesses k+ / k- (right)", f"{result.k_plus} / {result.k_minus} ({result.v} of {result.r})"),
                ("guess rule", result.guess_rule),
                ("epsilon certified (one run)", fmt_epsilon(result.epsilon_lower)),
                ("epsilon accountant", f"{fmt_epsilon(result.epsilon_accountant)} ({result.accountant_method})"),
                ("epsilon exact release", f"{fmt_epsilon(result.epsilon_release)} ({result.release_method or '-'})"),
                ("score separation", f"{result.score_separation:.3f}"),
                ("verdict", f"{result.verdict}: {result.verdict_reason}"),
                ("seconds", f"{result.wall_time:.1f}")]
        rows += [(k, v if isinstance(v, str) else f"{v:.4g}") for k, v in extra.items()]
        print(format_table(["quantity", "value"], rows))
    return 1 if result.is_violation else 0


def _check_guesses(guesses: list[int] | None, canaries: int) -> None:
    """``--guesses K_PLUS K_MINUS`` against ``--canaries M`` before the run: at least one guess and at most one per
    canary (``1 <= K_PLUS + K_MINUS <= M``, :class:`dpverify.audit.one_run.GuessPlan`); a
    :class:`~dpverify.validation.UsageError` naming both options otherwise."""
    if guesses is None:
        return
    k_plus, k_minus = guesses
    if not 1 <= k_plus + k_minus <= canaries:
        from dpverify.validation import UsageError

        raise UsageError(f"--guesses K_PLUS K_MINUS must be integers >= 0 with 1 <= K_PLUS + K_MINUS <= --canaries = "
                         f"{canaries} (at least one guess, at most one per canary); got {k_plus} {k_minus}")
