"""``dpverify samplers list``: the reference samplers (one row per registered sampler)."""
from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("samplers", help="list the reference samplers")
    ssub = p.add_subparsers(dest="samplers_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    pl = ssub.add_parser("list", help="one row per registered sampler")
    pl.add_argument("--json", action="store_true", help="print a JSON array")
    pl.set_defaults(func=_list)


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
    from dpverify.cli._output import format_table, print_json

    rows = _rows()
    if args.json:
        print_json(rows)
        return 0
    table = [(r["id"], r["output"], r["module"].rsplit(".", 1)[-1], ", ".join(r["theorems"]) or "-", r["description"])
             for r in rows]
    print(format_table(["id", "output", "module", "theorems", "description"], table))
    print(f"\n{len(rows)} samplers")
    return 0
