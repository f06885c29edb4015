"""``dpverify samplers list|show``: the reference samplers (one row per registered sampler) and one sampler's
parameters (type, default, allowed range; :func:`dpverify.samplers.registry.parameters`), i.e. the names
``dpverify audit ID --param NAME=VALUE`` accepts."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("samplers", help="list the reference samplers and show their parameters")
    ssub = p.add_subparsers(dest="samplers_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    pl = ssub.add_parser("list", help="one row per registered sampler")
    pl.add_argument("--json", action="store_true", help="print a JSON array")
    pl.set_defaults(func=_list)

    ps = ssub.add_parser("show", help="one sampler: description, theorems, parameters (type, default, range)")
    ps.add_argument("id", metavar="ID", help="see `dpverify samplers list`")
    ps.add_argument("--json", action="store_true", help="print one JSON object")
    ps.set_defaults(func=_show)


def _rows():
    from dpverify.samplers import registry

    return [
        {
            "id": cls.id,
            "theorems": list(cls.theorems),
            "output": cls.output,
            "description": cls.description,
            "module": cls.__module__,
        }
        for cls in sorted(registry.all_samplers(), key=lambda c: (c.__module__, c.id))
    ]


def _list(args) -> int:
    from dpverify.interfaces.cli.output import format_table, print_json

    rows = _rows()
    if args.json:
        print_json(rows)
        return 0
    table = [(r["id"], r["output"], r["module"].rsplit(".", 1)[-1], ", ".join(r["theorems"]) or "-", r["description"])
             for r in rows]
    print(format_table(["id", "output", "module", "theorems", "description"], table))
    print(f"\n{len(rows)} samplers")
    return 0


def _show(args) -> int:
    from dpverify.interfaces.cli.output import format_table, print_json
    from dpverify.samplers import registry

    cls = registry.get(args.id)
    params = registry.parameters(args.id)
    case_params = {}
    try:
        from dpverify.interfaces.suite import get_case

        case_params = dict(get_case(args.id).params)
    except KeyError:  # a sampler without an audit case of the same ID
        pass
    record = {
        "id": cls.id, "description": cls.description, "output": cls.output, "theorems": list(cls.theorems),
        "module": cls.__module__, "parameters": [p.to_dict() for p in params],
        "audit_case_parameters": {k: v if isinstance(v, (bool, int, float, str, type(None))) else repr(v)
                                  for k, v in case_params.items()},
    }
    if args.json:
        print_json(record)
        return 0
    print(f"{cls.id}: {cls.description}")
    print(f"output: {cls.output}; theorems: {', '.join(cls.theorems) or '-'}; module: {cls.__module__}\n")
    rows = [(p.name, p.type, "(required)" if p.required else repr(p.default),
             repr(case_params[p.name]) if p.name in case_params else "", p.range) for p in params]
    print(format_table(["parameter", "type", "default", "audit case", "allowed values"], rows))
    print(f"\nSet with `dpverify audit {cls.id} --param NAME=VALUE` (repeatable); the audit case's values are used "
          "for the others.")
    return 0
