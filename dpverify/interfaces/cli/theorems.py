"""``dpverify theorems list|show|check|eval``: the theorem catalogue from the command line."""
from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("theorems", help="list, show, check and evaluate the theorem catalogue")
    tsub = p.add_subparsers(dest="theorems_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    pl = tsub.add_parser("list", help="one row per theorem")
    pl.add_argument("--paper", help="only this paper (wang2015, li2019, bertazzi2025, foulds2016)")
    pl.add_argument("--json", action="store_true", help="print a JSON array")
    pl.set_defaults(func=_list)

    ps = tsub.add_parser("show", help="statement, symbols, hypotheses, conclusion, checks")
    ps.add_argument("id")
    ps.add_argument("--json", action="store_true")
    ps.set_defaults(func=_show)

    pc = tsub.add_parser("check", help="run derivation and published-number checks (exit 1 if any fails)")
    pc.add_argument("ids", nargs="*", metavar="ID", help="theorem IDs or paper keys (default: all)")
    pc.add_argument("--json", action="store_true")
    pc.set_defaults(func=_check)

    pe = tsub.add_parser("eval", help="evaluate a theorem: dpverify theorems eval ID name=value ...")
    pe.add_argument("id")
    pe.add_argument("values", nargs="*", metavar="NAME=VALUE")
    pe.add_argument("--allow-unguaranteed", action="store_true", help="evaluate even if a hypothesis fails")
    pe.add_argument("--json", action="store_true")
    pe.set_defaults(func=_eval)


def _list(args) -> int:
    from dpverify.interfaces.cli.output import format_table, print_json
    from dpverify.theorems import registry

    thms = registry.all_theorems(args.paper)
    if args.json:
        print_json(
            [
                {"id": t.id, "paper": t.paper, "item": t.source.item, "title": t.title, "kind": t.kind,
                 "reconstructed": t.reconstructed, "checks": len(t.checks)}
                for t in thms
            ]
        )
    else:
        rows = [(t.id, t.source.item, t.kind, len(t.checks), "yes" if t.reconstructed else "", t.title) for t in thms]
        print(format_table(["id", "item", "kind", "checks", "reconstructed", "title"], rows))
        print(f"\n{len(thms)} theorems")
    return 0


def _show(args) -> int:
    from dpverify.interfaces.cli.output import print_json
    from dpverify.theorems import registry

    thm = registry.get(args.id)
    if args.json:
        print_json(thm.to_dict())
    else:
        print(thm.explain())
    return 0


def _select(keys):
    from dpverify.theorems import registry
    from dpverify.theorems.base import PAPERS

    if not keys:
        return registry.all_theorems()
    out = []
    for k in keys:
        out.extend(registry.all_theorems(k) if k in PAPERS else [registry.get(k)])
    return out


def _check(args) -> int:
    from dpverify.interfaces.cli.output import print_json

    results = []
    any_failed = False
    for thm in _select(args.ids):
        checks = thm.run_checks()
        passed = all(c.passed for c in checks)
        any_failed |= not passed
        results.append((thm, checks, passed))
        if not args.json:
            mark = "PASS" if passed else "FAIL"
            print(f"{mark}  {thm.id}  ({sum(c.passed for c in checks)}/{len(checks)} checks)")
            for c in checks:
                if not c.passed:
                    print(f"      failed: {c.name}: {c.detail.splitlines()[0] if c.detail else ''}")
    if args.json:
        print_json(
            [
                {"id": t.id, "status": "passed" if ok else "failed", "checks": [c.to_dict() for c in cs]}
                for t, cs, ok in results
            ]
        )
    else:
        n_checks = sum(len(cs) for _, cs, _ in results)
        n_failed = sum(not c.passed for _, cs, _ in results for c in cs)
        print(f"\n{len(results)} theorems, {n_checks} checks, {n_failed} failed")
    return 1 if any_failed else 0


#: Parameters with a conventional range, named in the error when a theorem cannot be evaluated: (low, high, what).
_CONVENTIONAL_RANGES: dict[str, tuple[float, float, str]] = {
    "delta": (0.0, 1.0, "a probability"),
    "delta_prime": (0.0, 1.0, "a probability"),
    "delta_total": (0.0, 1.0, "a probability"),
    "q": (0.0, 1.0, "a sampling rate"),
    "gamma": (0.0, 1.0, "a sampling rate"),
}


def _parse_values(pairs: list[str]) -> dict[str, int | float]:
    """``NAME=VALUE`` strings to numbers (int when the text is an integer); a clear ``ValueError`` for a
    malformed pair, a value that is not a number (or NaN), and a name given twice."""
    values: dict[str, int | float] = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"values must be NAME=VALUE; got {pair!r}")
        name, raw = (part.strip() for part in pair.split("=", 1))
        if not name:
            raise ValueError(f"values must be NAME=VALUE with a name; got {pair!r}")
        if name in values:
            raise ValueError(f"{name} is given twice ({name}={values[name]!r} and {pair!r}); give each value once")
        try:
            value: int | float = int(raw)
        except ValueError:
            try:
                value = float(raw)
            except ValueError:
                raise ValueError(f"value of {name} must be a number; got {raw!r}") from None
        if value != value:
            raise ValueError(f"value of {name} must be a number; got NaN")
        values[name] = value
    return values


def _range_hints(values: dict) -> str:
    """The conventional ranges that these values leave (e.g. ``delta=2``), as a sentence; '' if none."""
    hints = []
    for name, value in values.items():
        if name in _CONVENTIONAL_RANGES:
            low, high, what = _CONVENTIONAL_RANGES[name]
            if not low < value < high:
                hints.append(f"{name} is {what}: it must be in ({low:g}, {high:g}); got {value:g}")
    return "; ".join(hints)


def _evaluate(thm, values: dict, allow_unguaranteed: bool):
    """``thm.evaluate`` with every failure as one ``ValueError`` line: a value outside the theorem's domain can make
    sympy fail inside a hypothesis or the conclusion (``delta=2`` turns log(2/delta) into 0 and a quotient into
    complex infinity: "Invalid comparison of non-real zoo")."""
    try:
        return thm.evaluate(allow_unguaranteed=allow_unguaranteed, **values)
    except (ValueError, KeyError):
        raise
    except (TypeError, ArithmeticError, AttributeError) as exc:
        at = ", ".join(f"{k}={v:g}" for k, v in values.items())
        hint = _range_hints(values)
        raise ValueError(
            f"{thm.id} cannot be evaluated at {at}: "
            + (hint if hint else "a hypothesis or the conclusion is not a real number there")
            + f" (sympy: {exc})"
        ) from None


def _eval(args) -> int:
    from dpverify.interfaces.cli.output import format_table, print_json
    from dpverify.theorems import registry

    thm = registry.get(args.id)
    result = _evaluate(thm, _parse_values(args.values), args.allow_unguaranteed)
    if args.json:
        print_json(result.to_dict())
        return 0
    print(f"{thm.id}: {thm.title}")
    print(format_table(["hypothesis", "holds"], [(k, "yes" if v else "NO") for k, v in result.hypotheses.items()]))
    print()
    print(format_table(["conclusion", "value"], [(k, f"{v:.6g}") for k, v in result.conclusion.items()]))
    if result.unchecked:
        print("\nunchecked (an input they need was left out): " + ", ".join(result.unchecked), file=sys.stderr)
    if result.failed:
        print("\nNOT GUARANTEED: hypotheses failed: " + ", ".join(result.failed), file=sys.stderr)
    elif not result.guaranteed:
        print("\nNOT GUARANTEED: some hypotheses could not be checked (see 'unchecked' above)", file=sys.stderr)
    return 0
