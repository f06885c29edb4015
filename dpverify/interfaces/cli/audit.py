"""``dpverify audit CASE``: one audit case of the suite from the command line.

A *case* (:mod:`dpverify.interfaces.suite`) is a reference sampler with parameters and an adjacent pair; most cases
carry their sampler's ID (``laplace_mechanism``), some do not (``dp_sgld_path`` runs the sampler ``dp_sgld_li`` as a
path release; ``dp_sgld_broken_double_rate`` runs ``dp_sgld_broken`` with one defect); ``dpverify samplers show
SAMPLER`` lists a sampler's cases. The case is audited against the claim its theorem gives for the parameters (or an
explicit ``--epsilon``/``--delta``). ``--mode implementation`` also tries the floating-point statistics of
:mod:`dpverify.audit.floating_point` (the bits of the outputs, Mironov 2012). ``--scheduler ADDRESS|local`` draws and
counts the samples on a Dask cluster (:mod:`dpverify.audit.distributed`, the ``distributed`` extra) with the numbers
of a run without it.

``--param NAME=VALUE`` values are read by the type the sampler declares (:func:`dpverify.samplers.registry.parameters`):
a bool is true/false (yes/no, on/off, 1/0), a number must be one, ``none`` is accepted where the parameter may be
None, a vector is ``[1, 0]`` or ``1,0``; the model is the case's and cannot be set here. The sampler is built before
the audit starts, so a parameter it rejects is a usage error (exit status 2) naming it, with the case's own value
when the complaint is about a parameter the user did not set. An audit that fails while running is an audit error
(exit status 1), never reported as bad input.
"""
from __future__ import annotations

import argparse
import inspect
import sys

from dpverify.interfaces.cli import arguments
from dpverify.interfaces.cli.arguments import user_input
from dpverify.interfaces.cli.verify import check_scheduler, cluster_for
from dpverify.vocabulary import Mode

#: ``--mode`` values (:class:`dpverify.vocabulary.Mode`; that module imports no numpy).
MODES = Mode.values()

#: Python spellings of a sampler's remedies and their command-line spellings.
BUILD_HINTS = {
    "Pass allow_unguaranteed=True to evaluate anyway; the result is then marked guaranteed=False.":
        "Pass --param unguaranteed=true to build the sampler anyway; its claim is then marked unguaranteed.",
    "pass unguaranteed=True": "pass --param unguaranteed=true",
}

#: Spellings of true and false accepted for a bool parameter.
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="run one audit case: a reference sampler on its worst known adjacent pair")
    p.add_argument("case_id", metavar="CASE",
                   help="an audit case; `dpverify samplers show SAMPLER` lists a sampler's cases (most carry the "
                        "sampler's ID)")
    p.add_argument("--param", action="append", default=[], metavar="K=V",
                   help="sampler parameter (repeatable); `dpverify samplers show SAMPLER` lists the names, types "
                        "and allowed values")
    p.add_argument("--epsilon", type=arguments.real(0.0, low_inclusive=False), default=None,
                   help="claimed epsilon, a finite number > 0 (default: the theorem's)")
    p.add_argument("--delta", type=arguments.real(0.0, 1.0, high_inclusive=False), default=None,
                   help="claimed delta in [0, 1) (default: the theorem's)")
    p.add_argument("--samples", type=arguments.samples(), default=None,
                   help=f"samples per side, an integer in [4, {arguments.MAX_SAMPLES:.0e}] (1e6 is accepted; "
                        "default: the quick budget)")
    p.add_argument("--confidence", type=arguments.confidence(), default=0.95,
                   help="confidence of the certified bound, in (0, 1)")
    p.add_argument("--seed", type=arguments.seed(), default=0, help="root seed (integer >= 0)")
    p.add_argument("--mode", choices=MODES, default="mathematical",
                   help="mathematical (default): audit the idealised mechanism, outputs read as real numbers; "
                        "implementation: also look for floating-point artefacts of the code that runs (low-order bits "
                        "and the set of float outputs that depend on the data, Mironov 2012)")
    p.add_argument("--workers", type=arguments.workers(), default=None,
                   help="processes that draw and count the samples (integer >= 1, default 1; the numbers do not depend "
                        "on it); with --scheduler local, the Dask workers of the local cluster (default 2); "
                        f"{arguments.WORKERS_CAP_HELP}")
    p.add_argument("--scheduler", metavar="ADDRESS|local", default=None,
                   help="draw and count the samples as tasks on a Dask cluster: a scheduler address (tcp://host:8786) "
                        "or 'local' (a LocalCluster for this audit); needs dpverify[distributed]. "
                        f"{arguments.SCHEDULER_PROBE_HELP}")
    arguments.add_dask_resources_argument(p, "draw and count the chunks")
    arguments.add_backend_arguments(p)
    arguments.add_sequential_argument(p, "the audit")
    p.add_argument("--json", action="store_true", help="print the result object as JSON")
    p.add_argument("--explain", action="store_true", help="also print what each column of the table means")
    p.add_argument("--wide", action="store_true", help="do not wrap the text to the terminal width")
    p.set_defaults(func=_run)


# -- --param ------------------------------------------------------------------------------------------------------

def parse_params(pairs: list[str], declared: dict | None = None) -> dict:
    """``K=V`` strings to a dict. With ``declared`` (name -> :class:`dpverify.samplers.registry.Parameter`) each
    value is read by its parameter's declared type (:func:`parse_value`); a name the sampler does not declare is
    kept as text (building the sampler then names the valid ones). Without it, values are read as int, float,
    bool ("true"/"false"), None ("none") or left as text. A malformed pair or a name given twice is a
    :class:`~dpverify.validation.UsageError`."""
    from dpverify.validation import UsageError

    out: dict = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"--param must be K=V; got {pair!r}")
        k, v = (s.strip() for s in pair.split("=", 1))
        if not k:
            raise UsageError(f"--param must be K=V with a name; got {pair!r}")
        if k in out:
            raise UsageError(f"--param {k} is given twice; give each parameter once")
        if declared is not None and k in declared:
            out[k] = parse_value(k, v, declared[k])
        else:
            out[k] = _guess(v)
    return out


def declared_parameters(sampler_id: str) -> dict:
    """name -> :class:`~dpverify.samplers.registry.Parameter` of the sampler, including those a sampler that takes
    ``**kwargs`` passes on to the registered sampler it extends (``dp_sgld_broken`` passes ``half_drift`` to
    ``dp_sgld_li``), so that every value is read by its declared type."""
    from dpverify.samplers import registry

    cls = registry.get(sampler_id)
    declared = {p.name: p for p in registry.parameters(sampler_id)}
    if any(p.kind == p.VAR_KEYWORD for p in inspect.signature(cls).parameters.values()):
        known = {c.id: c for c in registry.all_samplers()}
        for base in cls.__mro__[1:]:
            if known.get(str(getattr(base, "id", ""))) is base:
                for p in registry.parameters(base.id):
                    declared.setdefault(p.name, p)
    return declared


def _guess(v: str):
    if v.lower() == "none":
        return None
    if v.lower() in ("true", "false"):
        return v.lower() == "true"
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            continue
    return v


def parse_value(name: str, text: str, param):
    """The value of ``--param name=text`` for a parameter declared as ``param`` (its ``type`` annotation, default and
    allowed range), or a :class:`~dpverify.validation.UsageError` naming the parameter and what it accepts."""
    from dpverify.validation import UsageError

    kind = param.type.replace(" ", "")
    optional = "None" in kind.split("|") or (not param.required and param.default is None)
    base = kind.split("|")[0]
    allowed = f" ({param.range})" if param.range else ""
    if name == "model" or "not settable with --param" in (param.range or ""):
        raise UsageError(f"--param {name} cannot be set on the command line: the audit case builds it (a model object "
                         "of dpverify.models); audit another model from Python with dpverify.audit.audit")
    if optional and text.lower() == "none":
        return None
    if base == "bool":
        if text.lower() in TRUE_WORDS:
            return True
        if text.lower() in FALSE_WORDS:
            return False
        raise UsageError(f"--param {name} must be true or false (also yes/no, on/off, 1/0); got {text!r}")
    if base == "int":
        try:
            return arguments.integer()(text)
        except argparse.ArgumentTypeError:
            raise UsageError(f"--param {name} must be an integer{allowed}; got {text!r}") from None
    if base == "float":
        try:
            return arguments.real(allow_inf=True)(text)
        except argparse.ArgumentTypeError:
            raise UsageError(f"--param {name} must be a number{allowed}; got {text!r}") from None
    if base == "any":
        return _number_or_vector(name, text, allowed)
    return text


def _number_or_vector(name: str, text: str, allowed: str):
    """A number, or a vector written ``[1, 0]`` or ``1,0`` (a list of floats)."""
    from dpverify.validation import UsageError

    number = arguments.real()
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    parts = [t for t in body.replace(";", ",").split(",")]
    try:
        values = [number(t) for t in parts]
    except argparse.ArgumentTypeError:
        raise UsageError(f"--param {name} must be a finite number or a vector such as [1, 0] or 1,0{allowed}; got "
                         f"{text!r}") from None
    if len(values) == 1 and "," not in text and "[" not in text:
        return values[0]
    return values


# -- the command --------------------------------------------------------------------------------------------------

def _run(args) -> int:
    from dpverify.interfaces.suite import get_case, run_case

    check_scheduler(args.scheduler, args.workers)  # before building the case: a bad address costs nothing
    with user_input():
        case = get_case(args.case_id)
    params = parse_params(args.param, declared_parameters(case.sampler))
    arguments.check_backend_arguments(args)
    _check_buildable_saying_so(case, params)
    if args.scheduler is not None:
        with cluster_for(args.scheduler, args.workers, checked=True) as client:
            if args.dask_resources is not None:
                from dpverify.audit.distributed import require_resources
                from dpverify.validation import UsageError

                try:
                    require_resources(client, args.dask_resources)
                except ValueError as exc:
                    raise UsageError(f"--dask-resources: {exc}") from None
            return _audit(args, case, params, run_case, client=client)
    workers = arguments.cap_workers(args.workers)
    return _audit(args, case, params, run_case, workers=1 if workers is None else workers)


def _check_buildable_saying_so(case, params: dict) -> None:
    """:func:`_check_buildable`, with heartbeat lines on stderr when it runs longer than a few seconds: the claim of a
    long run is its privacy accountant over every step (``--param T=1000000`` on ``dp_sgld_li``: the exact accountant
    of the final iterate takes minutes), and a silent command looks hung. Each line says how long it has run and the
    dpverify function it is in (:class:`~dpverify.interfaces.cli.progress.Progress`)."""
    from dpverify.interfaces.cli.progress import Progress

    given = " ".join(f"{k}={v}" for k, v in params.items())
    item = (f"the claim of case {case.id}" + (f" with --param {given}" if given else "")
            + " (the privacy accountant of the sampler's run, computed before any sampling)")
    with Progress(1, "audit", item_lines=False, counted=False, quiet_for=2.0) as progress:
        progress.start_item(item)
        _check_buildable(case, params)


def _check_buildable(case, params: dict) -> None:
    """Build the case's sampler with ``params`` and evaluate its claim before any sampling: a parameter it rejects is
    a usage error. When the complaint names a parameter the user did not set, the case's value is named with it
    (``--param N=1`` makes the case's ``tau=10`` too large: the message says that tau=10 is the case's)."""
    from dpverify.validation import UsageError

    try:
        with user_input(hints=BUILD_HINTS):
            case.build(**params).guarantee()
    except UsageError as exc:
        message = str(exc)
        culprit = message.split(" ", 1)[0].rstrip(":,")
        note = ""
        if culprit in case.params and culprit not in params:
            note = (f" ({culprit}={case.params[culprit]!r} is the case's value: set it with --param "
                    f"{culprit}=VALUE)")
        given = ", ".join(f"{k}={v!r}" for k, v in params.items())
        raise UsageError(f"case {case.id} (sampler {case.sampler})"
                         + (f" with --param {given}" if given else "") + f": {message}{note}") from None


def _audit(args, case, params: dict, run_case, *, workers: int = 1, client=None) -> int:
    """Run and print the audit of ``case`` (with ``workers`` local processes or on the Dask cluster of ``client``)."""
    from dpverify.interfaces.cli.output import format_table, output_width, print_json, wrap
    from dpverify.interfaces.cli.progress import Progress
    from dpverify.interfaces.presentation import (AUDIT_HEADERS, AuditView, accountant_marks, audit_cells,
                                                  legend_lines, loose_claim_notes, samples_text)
    from dpverify.audit.options import Execution
    from dpverify.cases import CaseOptions
    from dpverify.interfaces.suite import case_settings

    # progress lines on stderr for an audit that runs longer than a few seconds (with an ETA, and a warning when
    # it will take hours)
    progress = Progress(1, "audit", item_lines=False)
    progress.start_item(case.id)
    try:
        options = CaseOptions(budget=args.samples if args.samples is not None else "quick", seed=args.seed,
                              confidence=args.confidence, params=params, epsilon=args.epsilon, delta=args.delta,
                              mode=args.mode, sequential=args.sequential)
        execution = Execution(workers=workers, client=client, backend=args.backend, device=args.device,
                              resources=args.dask_resources, progress=progress.chunk_callback(case.id))
        res = run_case(case, options, execution)
    finally:
        progress.close()
    if res.error:
        print(f"dpverify: audit error: case {case.id} (sampler {case.sampler}) failed while auditing: {res.error}",
              file=sys.stderr)
        return 1
    r = res.audit
    if args.json:  # the audit's JSON, with the theorem's claim beside what was tested (claim_epsilon, tested_kind)
        row = res.to_dict()
        out = dict(row["audit"])
        out.update({"case": res.case, "sampler": res.sampler, "params": res.params, "pair": res.pair,
                    "claim": row["claim"]})
        print_json(out)
        return 1 if r.verdict == "violation" else 0
    width = output_width(args.wide)
    a = AuditView.of(r, claimed=res.claim_epsilon, tested_kind=res.tested_kind)
    marks = accountant_marks([a])
    print(wrap(f"audit case {case.id}: sampler {case.sampler}; pair: {case.pair}", width))
    print(wrap(f"parameters: {case_settings(case, params)}", width, indent="  ", subsequent="    "))
    print(format_table(list(AUDIT_HEADERS), [audit_cells(a, marks)]))
    print(wrap(f"samples per side {samples_text(a)}; confidence {r.confidence}; seed {r.seed}; backend {r.backend} on "
               f"{r.device}; time {res.seconds:.2f} s", width))
    print(wrap(f"verdict: {r.verdict}: {r.verdict_reason or '-'}", width))
    for note in loose_claim_notes(res.case, a):
        print(wrap(f"loose claim: {note}", width))
    print(wrap(f"mode: {getattr(r, 'mode', 'mathematical')}; test: {r.test}; event: {r.event}", width))
    lines = legend_lines(marks) if args.explain else legend_lines(marks)[len(legend_lines({})):]
    if lines:
        print()
    for line in lines:
        print(wrap(line, width, indent="  ", subsequent="    "))
    if not args.explain:
        print("  (--explain: what each column means)")
    return 1 if r.verdict == "violation" else 0
