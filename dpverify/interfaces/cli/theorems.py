"""``dpverify theorems list|show|check|eval``: the theorem catalogue from the command line.

Tables and statements fit the terminal (``COLUMNS``; ``--wide`` for every character, :mod:`.output`). Every ID and
``NAME=VALUE`` the user types is checked at this boundary: a mistake is a usage error (exit status 2) naming it, and a
remedy is spelled as the command line spells it (``--allow-unguaranteed``, not Python's ``allow_unguaranteed=True``).
"""
from __future__ import annotations

import argparse
import sys

from dpverify.interfaces.cli.arguments import real, user_input

#: The Python spelling of :class:`~dpverify.theorems.base.HypothesisError`'s remedy and its command-line spelling.
EVAL_HINTS = {"Pass allow_unguaranteed=True to evaluate anyway; the result is then marked guaranteed=False.":
              "Pass --allow-unguaranteed to evaluate anyway; the result is then marked NOT GUARANTEED."}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("theorems", help="list, show, check and evaluate the theorem catalogue")
    tsub = p.add_subparsers(dest="theorems_command", metavar="ACTION")
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])

    pl = tsub.add_parser("list", help="one row per theorem")
    pl.add_argument("--paper", help="only this paper (wang2015, li2019, bertazzi2025, foulds2016, or the supporting "
                                    "balle2018)")
    pl.add_argument("--json", action="store_true", help="print a JSON array")
    pl.add_argument("--wide", action="store_true", help="do not wrap the titles to the terminal width")
    pl.set_defaults(func=_list)

    ps = tsub.add_parser("show", help="statement, symbols, hypotheses, conclusion, checks")
    ps.add_argument("id")
    ps.add_argument("--json", action="store_true")
    ps.add_argument("--wide", action="store_true", help="do not wrap the text to the terminal width")
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
    from dpverify.interfaces.cli.output import format_table, output_width, print_json
    from dpverify.theorems import registry
    from dpverify.theorems.base import PAPERS

    if args.paper is not None and args.paper not in PAPERS:
        from dpverify.validation import UsageError

        raise UsageError(f"--paper must be one of {', '.join(PAPERS)}; got {args.paper!r}")
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
        rows = [(t.id, t.source.item + (" (reconstructed)" if t.reconstructed else ""), t.kind, len(t.checks),
                 t.title) for t in thms]
        print(format_table(["id", "item", "kind", "checks", "title"], rows, width=output_width(args.wide),
                           flexible=("item", "title")))
        print(f"\n{len(thms)} theorems")
    return 0


def _show(args) -> int:
    from dpverify.interfaces.cli.output import output_width, print_json, wrap
    from dpverify.theorems import registry

    with user_input():
        thm = registry.get(args.id)
    proof = proof_lines(thm.id)
    if args.json:
        data = thm.to_dict()
        data["proof"] = proof_dict(thm.id)
        print_json(data)
        return 0
    width = output_width(args.wide)
    for line in (explain_text(thm) + ("\n\n" + "\n".join(proof) if proof else "")).splitlines():
        indent = line[: len(line) - len(line.lstrip())]
        print(wrap(line.lstrip(), width, indent=indent, subsequent=indent + "    ") if line.strip() else "")
    return 0


def proof_lines(theorem_id: str) -> list[str]:
    """What ``dpverify prove`` established for an item, from the shipped certificates (re-checked here by the
    independent checker), as the lines of a "Proof" section; [] for an item that states no bound to prove."""
    from dpverify.prove import shipped

    result = shipped.item(theorem_id)
    if result is None:
        return []
    lines = ["Proof (dpverify prove; shipped certificates re-checked):"]
    if result.outcome == "not provable":
        return lines + [f"  not provable here: {result.reason}"]
    checks = {r.part: r.valid for r in shipped.recheck([theorem_id])}
    lines.append(f"  {result.outcome}" + (f" (expected: {result.why})" if result.why else ""))
    for part in result.parts:
        state = "" if part.part not in checks else " [certificate valid]" if checks[part.part] else \
            " [certificate INVALID]"
        lines.append(f"  [{part.part}] {part.summary}{state}")
    return lines


def proof_dict(theorem_id: str) -> dict | None:
    from dpverify.prove import shipped

    result = shipped.item(theorem_id)
    if result is None:
        return None
    out = shipped.as_dict(result)
    out["certificates_valid"] = all(r.valid for r in shipped.recheck([theorem_id]))
    return out


def symbol_kind(sym) -> str:
    """A sympy symbol's assumptions said once: "positive integer", "nonnegative real", "real", "" (none).

    (sympy reports every implied assumption: a positive integer is also nonnegative, real, ...)"""
    sign = next((word for word in ("positive", "negative", "nonnegative", "nonpositive")
                 if getattr(sym, f"is_{word}", None)), "")
    kind = "integer" if sym.is_integer else "real" if sym.is_real else ""
    return " ".join(w for w in (sign, kind) if w)


def explain_text(thm) -> str:
    """``thm.explain()`` with each symbol's assumptions said once ("N: positive integer").

    The catalogue's ``explain`` lists one line per symbol after "Symbols:", in ``thm.symbols`` order; those lines
    are rewritten here (the rest of the text is the theorem's own)."""
    lines = thm.explain().splitlines()
    symbols = list(getattr(thm, "symbols", {}).items())
    if "Symbols:" in lines and symbols:
        at = lines.index("Symbols:") + 1
        block = lines[at : at + len(symbols)]
        if all(line.strip().split(" ", 1)[0] == name for line, (name, _) in zip(block, symbols)):
            lines[at : at + len(symbols)] = [f"  {name}" + (f": {symbol_kind(sym)}" if symbol_kind(sym) else "")
                                             for name, sym in symbols]
    return "\n".join(lines)


def _select(keys):
    from dpverify.theorems import registry
    from dpverify.theorems.base import PAPERS

    if not keys:
        return registry.all_theorems()
    out = []
    for k in keys:
        with user_input():
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
    """``NAME=VALUE`` strings to numbers (int when the text is an integer); a :class:`UsageError` for a
    malformed pair, a value that is not a finite number (NaN, inf, 1e400, true), and a name given twice."""
    from dpverify.validation import UsageError

    number = real()
    values: dict[str, int | float] = {}
    for pair in pairs:
        if "=" not in pair:
            raise UsageError(f"values must be NAME=VALUE; got {pair!r}")
        name, raw = (part.strip() for part in pair.split("=", 1))
        if not name:
            raise UsageError(f"values must be NAME=VALUE with a name; got {pair!r}")
        if name in values:
            raise UsageError(f"{name} is given twice ({name}={values[name]!r} and {pair!r}); give each value once")
        try:
            value: int | float = int(raw)
        except ValueError:
            try:
                value = number(raw)
            except argparse.ArgumentTypeError as exc:
                raise UsageError(f"value of {name} {exc}") from None
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
    """``thm.evaluate`` with every failure as one :class:`UsageError` line: a value outside the theorem's domain can
    make sympy fail inside a hypothesis or the conclusion (``delta=2`` turns log(2/delta) into 0 and a quotient into
    complex infinity: "Invalid comparison of non-real zoo"); a failed hypothesis names its command-line remedy."""
    from dpverify.validation import UsageError

    try:
        return thm.evaluate(allow_unguaranteed=allow_unguaranteed, **values)
    except (TypeError, ArithmeticError, AttributeError) as exc:
        at = ", ".join(f"{k}={v:g}" for k, v in values.items())
        hint = _range_hints(values)
        raise UsageError(
            f"{thm.id} cannot be evaluated at {at}: "
            + (hint if hint else "a hypothesis or the conclusion is not a real number there")
            + f" (sympy: {exc})"
        ) from None
    except (ValueError, KeyError) as exc:
        with user_input(hints=EVAL_HINTS):
            raise exc from None


def _eval(args) -> int:
    from dpverify.interfaces.cli.output import format_table, print_json
    from dpverify.theorems import registry

    with user_input():
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
