"""``dpverify audit SAMPLER_ID``: one audit of a reference sampler from the command line.

The sampler is audited on its suite case's adjacent pair (:mod:`dpverify.interfaces.suite`) against the claim
its theorem gives for the parameters (or an explicit ``--epsilon``/``--delta``). ``--mode implementation`` also
tries the floating-point statistics of :mod:`dpverify.audit.floating_point` (the bits of the outputs, Mironov 2012).
``--scheduler ADDRESS|local`` draws and counts the samples on a Dask cluster (:mod:`dpverify.audit.distributed`, the
``distributed`` extra) with the numbers of a run without it.
"""
from __future__ import annotations

import argparse

#: ``--mode`` values, as :data:`dpverify.audit.core.MODES` (kept here so that building the parser imports no numpy).
MODES = ("mathematical", "implementation")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="audit one reference sampler on its worst known adjacent pair")
    p.add_argument("sampler_id", metavar="SAMPLER_ID", help="see `dpverify samplers list`")
    p.add_argument("--param", action="append", default=[], metavar="K=V",
                   help="sampler parameter (repeatable); `dpverify samplers show ID` lists the names")
    p.add_argument("--epsilon", type=float, default=None, help="claimed epsilon (default: the theorem's)")
    p.add_argument("--delta", type=float, default=None, help="claimed delta (default: the theorem's)")
    p.add_argument("--samples", type=int, default=None, help="samples per side (default: the quick budget)")
    p.add_argument("--confidence", type=float, default=0.95, help="confidence of the certified bound, in (0, 1)")
    p.add_argument("--seed", type=int, default=0, help="root seed (integer >= 0)")
    p.add_argument("--mode", choices=MODES, default="mathematical",
                   help="mathematical (default): audit the idealised mechanism, outputs read as real numbers; "
                        "implementation: also look for floating-point artefacts of the code that runs (low-order bits "
                        "and the set of float outputs that depend on the data, Mironov 2012)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes that draw and count the samples (integer >= 1, default 1; the numbers do not depend "
                        "on it); with --scheduler local, the Dask workers of the local cluster (default 2)")
    p.add_argument("--scheduler", metavar="ADDRESS|local", default=None,
                   help="draw and count the samples as tasks on a Dask cluster: a scheduler address (tcp://host:8786) "
                        "or 'local' (a LocalCluster for this audit); needs dpverify[distributed]")
    p.add_argument("--json", action="store_true", help="print the result object as JSON")
    p.set_defaults(func=_run)


def parse_params(pairs: list[str]) -> dict:
    """``k=v`` strings to a dict; values parsed as int, float, bool, None ("none") or left as strings. A name given
    twice is an error."""
    out: dict = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"--param must be K=V; got {pair!r}")
        k, v = (s.strip() for s in pair.split("=", 1))
        if not k:
            raise ValueError(f"--param must be K=V with a name; got {pair!r}")
        if k in out:
            raise ValueError(f"--param {k} is given twice; give each parameter once")
        if v.lower() == "none":
            out[k] = None
            continue
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
    from dpverify.interfaces.suite import get_case, run_case

    if args.samples is not None and args.samples < 4:
        raise ValueError(f"--samples must be an integer >= 4; got {args.samples}")
    if not 0.0 < args.confidence < 1.0:
        raise ValueError(f"--confidence must be in (0, 1); got {args.confidence}")
    if args.seed < 0:
        raise ValueError(f"--seed must be an integer >= 0; got {args.seed}")
    if args.workers is not None and args.workers < 1:
        raise ValueError(f"--workers must be an integer >= 1; got {args.workers}")
    case = get_case(args.sampler_id)
    if args.scheduler is not None:
        from dpverify.interfaces.cli.verify import cluster_for

        with cluster_for(args.scheduler, args.workers) as client:
            return _audit(args, case, run_case, client=client)
    return _audit(args, case, run_case, workers=1 if args.workers is None else args.workers)


def _audit(args, case, run_case, *, workers: int = 1, client=None) -> int:
    """Run and print the audit of ``case`` (with ``workers`` local processes or on the Dask cluster of ``client``)."""
    from dpverify.interfaces.cli.output import format_table, print_json
    from dpverify.interfaces.cli.progress import Progress
    from dpverify.interfaces.report import AUDIT_HEADERS, accountant_marks, audit_cells, legend_lines, loose_claim_notes

    # progress lines on stderr for an audit that runs longer than a few seconds
    progress = Progress(1, "audit", item_lines=False)
    progress.start_item(case.id)
    try:
        res = run_case(
            case,
            budget=args.samples if args.samples is not None else "quick",
            seed=args.seed,
            confidence=args.confidence,
            params=parse_params(args.param),
            epsilon=args.epsilon,
            delta=args.delta,
            progress=progress.chunk_callback(case.id),
            mode=args.mode,
            workers=workers,
            client=client,
        )
    finally:
        progress.close()
    if res.error:
        raise ValueError(f"audit of {args.sampler_id} failed: {res.error}")
    r = res.audit
    if args.json:
        out = r.to_dict()
        out.update({"sampler": res.sampler, "params": res.params, "pair": res.pair, "claim": res.claim})
        print_json(out)
    else:
        a = r.to_dict()
        marks = accountant_marks([a])
        print(f"audit of {res.sampler} ({res.pair})")
        print(format_table([*AUDIT_HEADERS, "samples", "confidence", "seed", "time [s]"],
                           [audit_cells(a, marks) + [r.samples, r.confidence, r.seed, f"{res.seconds:.2f}"]]))
        print(f"verdict: {r.verdict}: {r.verdict_reason or '-'}")
        for note in loose_claim_notes(res.case, a):
            print(f"loose claim: {note}")
        print(f"mode: {getattr(r, 'mode', 'mathematical')}; test: {r.test}; event: {r.event}")
        print()
        for line in legend_lines(marks):
            print(f"  {line}")
    return 1 if r.verdict == "violation" else 0
