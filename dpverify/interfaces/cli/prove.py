"""``dpverify prove``: certificates that the catalogue's privacy statements hold on whole domains, or
counterexamples (issue 35; :mod:`dpverify.prove`).

    dpverify prove wang2015.thm2_gaussian_mechanism                 # every part of one item
    dpverify prove wang2015.thm2_gaussian_mechanism --drop epsilon_below_one --box epsilon=0:20 --json
    dpverify prove wang2015.lem4_subsampling --hypotheses           # which hypotheses the statement needs
    dpverify prove ID --certificate cert.json                       # write the certificate, then re-check it
    dpverify prove --all [--certificates DIR]                       # every item of a provable kind
    dpverify prove --check cert.json                                # re-verify a certificate (independent checker)
    dpverify prove --accountant dp-accounting-pld --points 40       # an accountant against rigorous enclosures

Exit status: 0 when every outcome is the one this version expects (each form says what it reaches and why:
known errata are refutations) and every certificate checks; 1 otherwise; 2 for bad input. With ``--box`` an item
or ``--drop`` an item is held to "proved" (a box or a statement of your own has no expectation).
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

from dpverify.interfaces.cli import arguments
from dpverify.interfaces.cli.arguments import user_input


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("prove", help="prove the catalogue's privacy statements on whole domains (or refute them)",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("ids", nargs="*", metavar="ID", help="catalogue IDs (dpverify theorems list)")
    p.add_argument("--all", action="store_true", help="every item of a provable kind")
    p.add_argument("--check", nargs="+", metavar="FILE", help="re-verify certificates with the independent checker")
    p.add_argument("--accountant", action="append", default=[], metavar="NAME",
                   help="check an accountant's epsilon(sigma, q, T, delta) against rigorous lower and upper "
                        "enclosures of the truth at points of a box (repeatable; 'all' for every installed one): "
                        "dpverify-rdp, dpverify-pld, dp-accounting-rdp, dp-accounting-pld, opacus-rdp, opacus-prv, "
                        "opacus-gdp, prv-accountant")
    p.add_argument("--points", type=arguments.count(1, 10_000), default=24,
                   help="with --accountant: points of the box to check (default 24)")
    p.add_argument("--box", action="append", default=[], metavar="NAME=LO:HI",
                   help="another range for a parameter (repeatable), e.g. --box epsilon=1:20 --box delta=1e-10:1e-2")
    p.add_argument("--drop", action="append", default=[], metavar="HYPOTHESIS",
                   help="leave a hypothesis out (repeatable); a symbol it bounded gets 20 times the range (or "
                        "--box), e.g. --drop epsilon_below_one")
    p.add_argument("--hypotheses", action="store_true",
                   help="also drop each hypothesis in turn: needed (with a witness) or not needed on the box")
    p.add_argument("--certificate", metavar="FILE", help="write the certificate (one item; several parts get "
                                                         "FILE's stem + .<part>.json) and re-check it")
    p.add_argument("--certificates", metavar="DIR", help="write every certificate into DIR (created if missing)")
    p.add_argument("--max-seconds", type=arguments.real(0.0, low_inclusive=False), default=None,
                   help="time limit per part, seconds (default 120, or less where an item expected undecided "
                        "declares less: li2019.thm3/thm4 15)")
    p.add_argument("--max-boxes", type=arguments.count(1), default=400_000,
                   help="box limit per part (default 400000)")
    p.add_argument("--precision", type=arguments.count(24, 4096), default=96,
                   help="Arb working precision in bits (default 96)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)


def parse_box(specs: list[str]) -> dict[str, tuple[str, str]]:
    """``["epsilon=1:20", ...]`` -> ``{"epsilon": ("1", "20")}`` (a usage error names a malformed one)."""
    from dpverify.validation import UsageError

    out = {}
    for spec in specs:
        m = re.fullmatch(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([^:]+):([^:]+)\s*", spec)
        if not m:
            raise UsageError(f"--box must look like NAME=LO:HI (e.g. epsilon=1:20); got {spec!r}")
        if m.group(1) in out:
            raise UsageError(f"--box gives {m.group(1)} twice")
        out[m.group(1)] = (m.group(2).strip(), m.group(3).strip())
    return out


def _progress(label: str):
    if not sys.stderr.isatty():
        return None
    state = {"last": 0.0}

    def report(boxes: int, _left: int, seconds: float) -> None:
        if seconds - state["last"] >= 5:
            state["last"] = seconds
            print(f"  {label}: {boxes} boxes, {seconds:.0f} s", file=sys.stderr, flush=True)
    return report


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")


def _write_certificates(proof, target: Path, single: bool) -> list[tuple[str, str, bool]]:
    """Write each decided part's certificate and re-check it; (part, path, valid) per part."""
    from dpverify.prove import check_certificate, write_certificate
    from dpverify.prove.results import Undecided

    out = []
    parts = [(n, r) for n, r in proof.parts if not isinstance(r, Undecided)]
    for name, result in parts:
        if single and len(proof.parts) == 1:
            path = target
        elif single:
            path = target.with_name(f"{target.stem}.{_safe(name)}{target.suffix or '.json'}")
        else:
            path = target / f"{_safe(proof.theorem_id)}.{_safe(name)}.json"
        write_certificate(result, path)
        out.append((name, str(path), check_certificate(str(path)).valid))
    return out


def _run(args) -> int:
    from dpverify.prove import Limits
    from dpverify.prove.catalogue import DEFAULT_PART_SECONDS

    if args.accountant:
        return _accountants(args)
    if args.check:
        return _check_files(args)
    box, ids = _items(args)
    if args.certificates:
        Path(args.certificates).mkdir(parents=True, exist_ok=True)
    form_budget = args.max_seconds is None
    limits = Limits(max_seconds=DEFAULT_PART_SECONDS if form_budget else args.max_seconds, max_boxes=args.max_boxes)
    rows, ok, start = [], True, time.perf_counter()
    for i in ids:
        row, item_ok = _prove_one(args, i, box, limits, form_budget)
        rows.append(row)
        ok &= item_ok
    _print_rows(args, rows, start)
    return 0 if ok else 1


def _check_files(args) -> int:
    """``--check FILE ...``: re-verify each certificate with the independent checker; exit 1 when one is invalid."""
    from dpverify.prove import check_certificate
    from dpverify.validation import UsageError

    if args.ids or args.all:
        raise UsageError("--check takes certificate files only (no IDs, no --all)")
    reports = [check_certificate(path) for path in args.check]
    if args.json:
        from dpverify.interfaces.cli.output import print_json

        print_json([{"file": f, "valid": r.valid, "outcome": r.outcome, "statement": r.statement,
                     "version": r.version, "leaves": r.leaves, "errors": r.errors}
                    for f, r in zip(args.check, reports)])
    else:
        for f, r in zip(args.check, reports):
            print(f"{f}: {r.summary()}")
    return 0 if all(r.valid for r in reports) else 1


def _items(args) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """The ``--box`` ranges and the catalogue IDs to prove (IDs or ``--all``), once the arguments agree and every
    ID names an item with a bound to prove (else a usage error)."""
    from dpverify.prove.catalogue import form, provable_ids
    from dpverify.validation import UsageError

    if args.all and args.ids:
        raise UsageError("give IDs or --all, not both")
    if not args.all and not args.ids:
        raise UsageError("give catalogue IDs, --all, or --check FILE (dpverify prove --help)")
    if args.certificate and (args.all or len(args.ids) != 1):
        raise UsageError("--certificate writes one item's certificate: give exactly one ID (or --certificates DIR)")
    box = parse_box(args.box)
    ids = provable_ids() if args.all else list(args.ids)
    with user_input():
        for i in ids:
            form(i)  # an unknown ID or an item with no bound to prove: a usage error naming it
    return box, ids


def _prove_one(args, theorem_id: str, box: dict[str, tuple[str, str]], limits, form_budget: bool) -> tuple[dict, bool]:
    """Prove one item, write and re-check its certificates and find which hypotheses it needs where asked, and
    print it (without ``--json``); its JSON row, and whether its outcome is the one expected and every
    certificate checks."""
    from dpverify.prove.catalogue import form, prove_item
    from dpverify.prove.problem import BoxError
    from dpverify.validation import UsageError

    try:
        proof = prove_item(theorem_id, box=box or None, drop=args.drop, limits=limits, precision=args.precision,
                           progress=_progress(theorem_id), form_budget=form_budget)
    except BoxError as exc:
        raise UsageError(str(exc)) from None
    custom = bool(box or args.drop)
    expected = "proved" if custom else form(theorem_id).expected
    matches = proof.outcome == expected
    row = proof.to_dict()
    row["expected"], row["as_expected"], row["why"] = expected, matches, "" if custom else form(theorem_id).why
    certificates = []
    if args.certificate or args.certificates:
        target = Path(args.certificate) if args.certificate else Path(args.certificates)
        certificates = _write_certificates(proof, target, bool(args.certificate))
    row["certificates"] = [{"part": n, "file": p, "valid": v} for n, p, v in certificates]
    findings = []
    if args.hypotheses:
        from dpverify.prove.hypotheses import hypothesis_findings

        findings = hypothesis_findings(theorem_id, limits=limits, precision=args.precision)
        row["hypotheses"] = [f.to_dict() for f in findings]
    if not args.json:
        _print_item(proof, row, certificates, findings)
    return row, matches and all(valid for _, _, valid in certificates)


def _print_item(proof, row: dict, certificates: list[tuple[str, str, bool]], findings: list) -> None:
    """The text output of one item: its summary (marked where the outcome is not the one expected), why, its
    certificates and its hypothesis findings."""
    expected, matches = row["expected"], row["as_expected"]
    mark = "" if matches else f"   <-- expected {expected}"
    print(proof.summary().replace("\n", f"{mark}\n", 1) if "\n" in proof.summary() else proof.summary() + mark)
    if not matches and row["why"]:
        print(f"  (expected: {row['why']})")
    elif proof.outcome != "proved" and row["why"]:
        print(f"  why: {row['why']}")
    for n, p, v in certificates:
        print(f"  certificate [{n}]: {p} ({'re-checked: valid' if v else 'INVALID'})")
    for f in findings:
        print(f"  hypothesis {f.summary()}")
    sys.stdout.flush()


def _print_rows(args, rows: list[dict], start: float) -> None:
    """After the items: every row as JSON (one item's alone), or the tally of outcomes when there were several."""
    if args.json:
        from dpverify.interfaces.cli.output import print_json

        print_json(rows if len(rows) != 1 or args.all else rows[0])
        return
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
    tally = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    unexpected = sum(not r["as_expected"] for r in rows)
    print(f"\n{len(rows)} items: {tally}; {unexpected} not as expected; {time.perf_counter() - start:.1f} s"
          if len(rows) > 1 else "")


def _accountants(args) -> int:
    """``--accountant NAME``: each accountant's answers against the rigorous enclosures (dpverify.prove.accountants);
    exit 1 when one answer is unsound (below the rigorous lower bound) or an accountant fails."""
    from dpverify.prove.accountants import check_accountant
    from dpverify.validation import UsageError

    if args.ids or args.all or args.check:
        raise UsageError("--accountant takes no IDs, --all or --check")
    names = _accountant_names(args.accountant)
    box = _accountant_box(args.box)
    reports = []
    for name in names:
        try:
            reports.append(check_accountant(name, box=box, points=args.points))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not args.json:
            print(reports[-1].summary(), flush=True)
    if args.json:
        from dpverify.interfaces.cli.output import print_json

        print_json([r.to_dict() for r in reports])
    bad = sum(r.count("unsound") + r.count("error") for r in reports)
    return 1 if bad else 0


def _accountant_names(requested: list[str]) -> list[str]:
    """The accountants ``--accountant`` names ('all': every installed one); a usage error for an unknown one or
    one whose package is not installed."""
    from dpverify.prove.accountants import ACCOUNTANTS, available
    from dpverify.validation import UsageError

    names = list(ACCOUNTANTS) if "all" in requested else list(requested)
    unknown = [n for n in names if n not in ACCOUNTANTS]
    if unknown:
        raise UsageError(f"--accountant must be one of all, {', '.join(ACCOUNTANTS)}; got {', '.join(unknown)}")
    if "all" in requested:
        names = [n for n in names if available(n)]
    missing = [n for n in names if not available(n)]
    if missing:
        raise UsageError(f"accountant {', '.join(missing)} needs a package that is not installed "
                         f"({', '.join(sorted({ACCOUNTANTS[n][0] for n in missing}))})")
    return names


def _accountant_box(specs: list[str]) -> dict[str, tuple[float, float]]:
    """The accountants' default box with the ``--box`` ranges put in (only sigma, q, steps and delta; numbers)."""
    from dpverify.prove.accountants import DEFAULT_BOX
    from dpverify.validation import UsageError

    box = dict(DEFAULT_BOX)
    for name, (lo, hi) in parse_box(specs).items():
        if name not in box:
            raise UsageError(f"--box with --accountant takes sigma, q, steps or delta; got {name}")
        try:
            box[name] = (float(lo), float(hi))
        except ValueError:
            raise UsageError(f"--box {name}: the ends must be numbers; got {lo}:{hi}") from None
    return box
