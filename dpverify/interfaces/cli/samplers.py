"""``dpverify samplers list|show``: the reference samplers (one row per registered sampler) and one sampler's
parameters (type, default, allowed range; :func:`dpverify.samplers.registry.parameters`), i.e. the names
``dpverify audit CASE --param NAME=VALUE`` accepts, and its audit cases (:func:`dpverify.interfaces.suite.cases_of`).
Tables fit the terminal (``--wide`` for every character, :mod:`.output`)."""
from __future__ import annotations

import argparse

from dpverify.interfaces.cli.arguments import user_input


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("samplers", help="list the reference samplers and show their parameters")
    ssub = p.add_subparsers(dest="samplers_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    pl = ssub.add_parser("list", help="one row per registered sampler")
    pl.add_argument("--json", action="store_true", help="print a JSON array")
    pl.add_argument("--wide", action="store_true", help="do not wrap the descriptions to the terminal width")
    pl.set_defaults(func=_list)

    ps = ssub.add_parser("show", help="one sampler: description, theorems, parameters (type, default, range), "
                                      "audit cases")
    ps.add_argument("id", metavar="ID", help="see `dpverify samplers list`")
    ps.add_argument("--json", action="store_true", help="print one JSON object")
    ps.add_argument("--wide", action="store_true", help="do not wrap the text to the terminal width")
    ps.set_defaults(func=_show)


def _rows():
    from dpverify.interfaces.suite import cases_of
    from dpverify.samplers import registry

    return [
        {
            "id": cls.id,
            "theorems": list(cls.theorems),
            "output": cls.output,
            "description": cls.description,
            "module": cls.__module__,
            "audit_cases": [c.id for c in cases_of(cls.id)],
        }
        for cls in sorted(registry.all_samplers(), key=lambda c: (c.__module__, c.id))
    ]


def _list(args) -> int:
    from dpverify.interfaces.cli.output import format_table, output_width, print_json

    rows = _rows()
    if args.json:
        print_json(rows)
        return 0
    table = [(r["id"], r["output"], r["module"].rsplit(".", 1)[-1], ", ".join(r["theorems"]) or "-",
              r["description"]) for r in rows]
    print(format_table(["id", "output", "module", "theorems", "description"], table, width=output_width(args.wide),
                       flexible=("theorems", "description")))
    print(f"\n{len(rows)} samplers")
    return 0


def _show(args) -> int:
    from dpverify.interfaces.cli.output import format_table, output_width, print_json, wrap
    from dpverify.interfaces.suite import case_settings, cases_of
    from dpverify.samplers import registry

    with user_input():
        cls = registry.get(args.id)
    params = registry.parameters(args.id)
    cases = cases_of(cls.id)
    same_id = next((c for c in cases if c.id == cls.id), cases[0] if cases else None)
    case_params = dict(same_id.params) if same_id is not None else {}
    record = {
        "id": cls.id, "description": cls.description, "output": cls.output, "theorems": list(cls.theorems),
        "module": cls.__module__, "parameters": [p.to_dict() for p in params],
        "audit_case_parameters": {k: v if isinstance(v, (bool, int, float, str, type(None))) else repr(v)
                                  for k, v in case_params.items()},
        "audit_cases": [{"id": c.id, "known_bad": c.known_bad, "average_case": c.average_case, "pair": c.pair,
                         "parameters": case_settings(c)} for c in cases],
    }
    if args.json:
        print_json(record)
        return 0
    width = output_width(args.wide)
    print(wrap(f"{cls.id}: {cls.description}", width))
    print(wrap(f"output: {cls.output}; theorems: {', '.join(cls.theorems) or '-'}; module: {cls.__module__}", width))
    print()
    column = f"case {same_id.id}" if same_id is not None and same_id.id != cls.id else "audit case"
    rows = [(p.name, p.type, "(required)" if p.required else repr(p.default),
             repr(case_params[p.name]) if p.name in case_params else "", p.range) for p in params]
    print(format_table(["parameter", "type", "default", column, "allowed values"], rows, width=width,
                       flexible=(column, "allowed values")))
    if cases:
        print(f"\nAudit cases of {cls.id} (run one with `dpverify audit CASE`):")
        for c in cases:
            kind = " [known-bad: must be flagged]" if c.known_bad else " [average case]" if c.average_case else ""
            print(wrap(f"{c.id}{kind}: {c.pair}", width, indent="  ", subsequent="      "))
            print(wrap(f"parameters: {case_settings(c)}", width, indent="      ", subsequent="        "))
        example = cases[0].id
        print()
        print(wrap(f"Set a parameter with `dpverify audit {example} --param NAME=VALUE` (repeatable); the case's "
                   "values are used for the others.", width))
    else:
        print()
        print(wrap(f"{cls.id} has no audit case; audit it from Python (dpverify.audit.audit).", width))
    return 0
