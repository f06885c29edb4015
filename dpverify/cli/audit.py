"""``dpverify audit SAMPLER_ID``: one audit of a reference sampler from the command line.

The sampler is audited on its suite case's adjacent pair (:mod:`dpverify.suite`) against the claim
its theorem gives for the parameters (or an explicit ``--epsilon``/``--delta``).
"""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="audit one reference sampler on its worst known adjacent pair")
    p.add_argument("sampler_id", metavar="SAMPLER_ID", help="see `dpverify samplers list`")
    p.add_argument("--param", action="append", default=[], metavar="K=V", help="sampler parameter (repeatable)")
    p.add_argument("--epsilon", type=float, default=None, help="claimed epsilon (default: the theorem's)")
    p.add_argument("--delta", type=float, default=None, help="claimed delta (default: the theorem's)")
    p.add_argument("--samples", type=int, default=None, help="samples per side (default: the quick budget)")
    p.add_argument("--confidence", type=float, default=0.95)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", action="store_true", help="print the result object as JSON")
    p.set_defaults(func=_run)


def parse_params(pairs: list[str]) -> dict:
    """``k=v`` strings to a dict; values parsed as int, float, bool or left as strings."""
    out: dict = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--param must be K=V; got {pair!r}")
        k, v = (s.strip() for s in pair.split("=", 1))
        if v.lower() in ("true", "false"):
            out[k] = v.lower() == "true"
            continue
        for cast in (int, float):
            try:
                out[k] = cast(v)
                break
            except ValueError:
                continue
        else:
            out[k] = v
    return out


def _run(args) -> int:
    from dpverify.cli._output import format_table, print_json
    from dpverify.suite import get_case, run_case

    case = get_case(args.sampler_id)
    res = run_case(
        case,
        budget=args.samples if args.samples is not None else "quick",
        seed=args.seed,
        confidence=args.confidence,
        params=parse_params(args.param),
        epsilon=args.epsilon,
        delta=args.delta,
    )
    if res.error:
        raise ValueError(f"audit of {args.sampler_id} failed: {res.error}")
    r = res.audit
    if args.json:
        out = r.to_dict()
        out.update({"sampler": res.sampler, "params": res.params, "pair": res.pair, "claim": res.claim})
        print_json(out)
    else:
        exact = "-" if r.epsilon_exact is None else f"{r.epsilon_exact:.4g}"
        print(f"audit of {res.sampler} ({res.pair})")
        print(format_table(
            ["claimed", "exact", "certified", "verdict", "samples", "confidence", "seed", "time [s]"],
            [[f"{r.epsilon_claimed:.4g}", exact, f"{r.epsilon_lower:.4g}", r.verdict, r.samples, r.confidence,
              r.seed, f"{res.seconds:.2f}"]],
        ))
        print(f"test: {r.test}; event: {r.event}")
    return 1 if r.verdict == "violation" else 0
