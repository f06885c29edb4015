"""Generate the catalogue pages of the documentation from the registries (never hand-copied).

``python docs/hooks/generate.py docs/`` writes, under ``docs/``:

- ``theorems/index.md`` and ``theorems/<paper>.md`` -- every theorem of
  :mod:`dpverify.theorems.registry` with its statement, hypotheses, conclusion, source, checks and the
  status of each check *from running it*, errata, the reconstructed flag and its empirical links;
- ``samplers.md`` -- every sampler of :mod:`dpverify.samplers.registry` (output kind, theorems, constructor,
  protocol methods, audit case of :mod:`dpverify.cases.catalogue`, audit file);
- ``errata.md`` -- every theorem's ``errata`` field, with the status of the check that shows it;
- ``api.md`` -- the API reference page: one mkdocstrings ``:::`` block per public module;
- ``notebooks/<name>.md`` -- each notebook of ``docs/notebooks/`` as a page (its cells, without outputs);
- (not generated) ``getting-started.md`` quotes the README's "two commands" section literally between
  :data:`README_START` and :data:`README_END`, so that the page reads right on its own (a snippet directive showed
  raw outside the built site); ``tests/test_docs.py`` fails when the quote and the README disagree
  (``pymdownx.snippets``), so the two never drift apart.

Running every check takes about a minute, so the results are cached in ``docs/.check_cache.json``,
keyed by a hash of every ``.py`` file of the package: a changed source reruns them all.
The same module is the MkDocs hook (``hooks:`` in ``mkdocs.yml``): :func:`on_pre_build` calls
:func:`generate` before MkDocs collects the files, so ``mkdocs build`` works from a clean checkout.
A file is rewritten only when its content changes (so ``mkdocs serve`` does not rebuild forever).
"""
from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import sys
from pathlib import Path
from typing import Any, Iterable

__all__ = [
    "GENERATED_FILES",
    "API_MODULES",
    "check_results",
    "theorem_pages",
    "sampler_page",
    "errata_page",
    "api_page",
    "notebook_pages",
    "readme_commands",
    "quoted_readme_commands",
    "generate",
    "on_pre_build",
    "main",
]

REPO_DIR = Path(__file__).resolve().parent.parent.parent  # docs/hooks/ -> the repository
#: The package whose sources key the check cache.
PACKAGE_DIR = REPO_DIR / "dpverify"
CACHE_NAME = ".check_cache.json"
#: The markers around the README's commands quoted in ``getting-started.md`` (:func:`quoted_readme_commands`).
README_START = "<!-- the README's two commands: start (kept equal to README.md by tests/test_docs.py) -->"
README_END = "<!-- the README's two commands: end -->"
#: Longest check detail shown on a page (details can hold tracebacks).
DETAIL_CHARS = 400

#: Modules of the API reference, in reading order (the theorem paper modules are documented by the catalogue).
API_MODULES: tuple[str, ...] = (
    "dpverify.audit",
    "dpverify.audit.core",
    "dpverify.audit.options",
    "dpverify.audit.plan",
    "dpverify.audit.select",
    "dpverify.audit.estimate",
    "dpverify.audit.certify",
    "dpverify.audit.result",
    "dpverify.audit.abilities",
    "dpverify.audit.kinds",
    "dpverify.audit.bounds",
    "dpverify.audit.exact",
    "dpverify.audit.datasets",
    "dpverify.audit.search",
    "dpverify.audit.parallel",
    "dpverify.audit.distributed",
    "dpverify.backends",
    "dpverify.audit.known_bad",
    "dpverify.audit.one_run",
    "dpverify.audit.one_run_bounds",
    "dpverify.interfaces.testing",
    "dpverify.interfaces.pytest_plugin",
    "dpverify.cases",
    "dpverify.cases.model",
    "dpverify.cases.options",
    "dpverify.cases.benchmark",
    "dpverify.cases.one_run",
    "dpverify.cases.catalogue",
    "dpverify.cases.reference",
    "dpverify.cases.run",
    "dpverify.interfaces.report",
    "dpverify.interfaces.presentation",
    "dpverify.interfaces.report_html",
    "dpverify.interfaces.figures",
    "dpverify.validation",
    "dpverify.vocabulary",
    "dpverify.calculus.guarantees",
    "dpverify.calculus.claimed",
    "dpverify.calculus.vocabulary",
    "dpverify.calculus.mechanisms.laplace",
    "dpverify.calculus.mechanisms.gaussian",
    "dpverify.calculus.mechanisms.exponential",
    "dpverify.calculus.composition",
    "dpverify.calculus.subsampling",
    "dpverify.calculus.conversions",
    "dpverify.calculus.accounting",
    "dpverify.theorems.base",
    "dpverify.theorems.registry",
    "dpverify.theorems.symbols",
    "dpverify.theorems.shared",
    "dpverify.theorems.final_state",
    "dpverify.samplers.base",
    "dpverify.samplers.registry",
    "dpverify.models.base",
    "dpverify.libraries.replay",
    "dpverify.libraries.bisect",
)


def _paper_page(paper: str) -> str:
    return f"theorems/{paper}.md"


def _notebooks(docs: Path) -> list[Path]:
    return sorted((docs / "notebooks").glob("*.ipynb"))


def _generated_files() -> list[str]:
    from dpverify.theorems.base import PAPERS

    notebooks = [f"notebooks/{p.stem}.md" for p in _notebooks(REPO_DIR / "docs")]
    return ["theorems/index.md", *(_paper_page(p) for p in PAPERS), "samplers.md", "errata.md", "api.md", *notebooks,
            PROVE_SNIPPET, CORPUS_SNIPPET]


#: The table of every provable item's outcome, included by docs/prove.md.
PROVE_SNIPPET = "_snippets/prove_table.md"


def prove_table() -> str:
    """Markdown: each catalogue item of a provable kind, its outcome over its whole domain (the shipped
    certificates, re-checked by ``dpverify verify``), the boxes and seconds, and why when it is not proved."""
    from dpverify.prove import shipped
    from dpverify.prove.catalogue import provable_ids

    rows = ["| item | outcome | parts (box, boxes, seconds) | why |", "|---|---|---|---|"]
    counts: dict[str, int] = {}
    for tid in provable_ids():
        result = shipped.item(tid)
        outcome = result.outcome if result else "not run"
        counts[outcome] = counts.get(outcome, 0) + 1
        parts = "<br>".join(_text(f"[{p.part}] {p.summary}") for p in result.parts) if result else ""
        why = _text(result.why or result.reason) if result else ""
        rows.append(f"| [{_text(tid)}]({_paper_page(tid.split('.', 1)[0])}#{tid}) | {outcome} | {parts} | {why} |")
    tally = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    return f"**{len(provable_ids())} privacy statements:** {tally}.\n\n" + "\n".join(rows)


#: The table of every corpus case (its report, versions and check), included by docs/libraries.md.
CORPUS_SNIPPET = "_snippets/corpus_table.md"


def _reference_label(url: str) -> str:
    """``owner/repo#12`` for a GitHub issue, ``owner/repo PR #12`` for a pull request, else the URL's host."""
    parts = url.rstrip("/").split("/")
    if len(parts) >= 7 and parts[2] == "github.com" and parts[5] in ("issues", "pull"):
        return _text(f"{parts[4]}{' PR ' if parts[5] == 'pull' else ''}#{parts[6]}")
    return _text(parts[2] if len(parts) > 2 else url)


def corpus_table() -> str:
    """Markdown: each case of :mod:`dpverify.libraries.corpus` with its upstream references, how it is reproduced
    and caught, the releases that have it, the first fixed release and the releases the by-version run installs."""
    from dpverify.libraries.corpus import CASES

    rows = ["| case | library | kind | caught by | affected | first fixed | run on | upstream |",
            "|---|---|---|---|---|---|---|---|"]
    for c in CASES:
        refs = ", ".join(f"[{_reference_label(r)}]({r})" for r in c.refs)
        affected = _code(c.affected) if c.affected else "-"
        rows.append(f"| `{c.id}` | {_text(c.pip_name)} | {c.kind} | {c.method} | {affected} | {c.fixed_in or '-'} "
                    f"| {', '.join(c.releases) or '-'} | {refs}: {_text(c.upstream_status)} |")
    libraries = sorted({c.pip_name for c in CASES})
    return (f"**{len(CASES)} cases** across {len(libraries)} libraries ({', '.join(libraries)}).\n\n"
            + "\n".join(rows))


#: Paths (relative to the docs directory) this module writes; ``docs/.gitignore`` lists them.
GENERATED_FILES: tuple[str, ...] = tuple(_generated_files())


# --- markdown helpers -------------------------------------------------------------------------------------------

_ESCAPE = str.maketrans({c: "\\" + c for c in "\\`*_[]|"} | {"<": "&lt;", ">": "&gt;", "&": "&amp;"})


def _text(s: Any) -> str:
    """Free text as inline markdown: one line, markdown and HTML specials escaped."""
    return " ".join(str(s).split()).translate(_ESCAPE)


def _code(s: Any) -> str:
    """Inline code span that survives backticks and pipes inside ``s`` (pipes break table cells only)."""
    s = " ".join(str(s).split())
    fence = "``" if "`" in s else "`"
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def _short(s: str, n: int = DETAIL_CHARS) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 3] + "..."


def _status(passed: bool | None) -> str:
    return {True: "passed", False: "**FAILED**", None: "not run"}[passed]


# --- running the checks (cached) --------------------------------------------------------------------------------

def _source_hash() -> str:
    h = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        h.update(str(path.relative_to(PACKAGE_DIR)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def check_results(cache_dir: Path | None = None, run: bool = True) -> dict[str, list[dict]]:
    """``{theorem id: [CheckResult.to_dict(), ...]}`` for every registered theorem, from running its checks.

    With ``cache_dir`` the results are read from / written to ``cache_dir/.check_cache.json`` when the
    package sources are unchanged. ``run=False`` runs nothing (every status is "not run").
    """
    from dpverify.theorems import registry

    theorems = registry.all_theorems()
    if not run:
        return {}
    key = _source_hash()
    cache = Path(cache_dir) / CACHE_NAME if cache_dir is not None else None
    if cache is not None and cache.exists():
        try:
            stored = json.loads(cache.read_text())
            if stored.get("key") == key and set(stored["results"]) == {t.id for t in theorems}:
                return stored["results"]
        except (ValueError, KeyError):
            pass  # a corrupt cache is rebuilt
    results = {t.id: [r.to_dict() for r in t.run_checks()] for t in theorems}
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps({"key": key, "results": results}, indent=1))
    return results


# --- theorem catalogue ------------------------------------------------------------------------------------------

def _theorem_status(results: list[dict] | None) -> bool | None:
    if results is None:
        return None
    return all(r["passed"] for r in results)


def _sampler_ids() -> set[str]:
    from dpverify.samplers import registry

    return {cls.id for cls in registry.all_samplers()}


def _proof_lines(theorem_id: str) -> list[str]:
    """The item's proof over its whole domain (``dpverify prove``, from the shipped certificates; docs/prove.md)."""
    from dpverify.prove import shipped

    result = shipped.item(theorem_id)
    if result is None:
        return []
    if result.outcome == "not provable":
        return [f"- **Proof:** not provable here -- {_text(result.reason)}"]
    lines = [f"- **Proof:** {result.outcome}" + (f" -- {_text(result.why)}" if result.why else "")
             + " ([dpverify prove](../prove.md))"]
    lines += [f"    - [{_text(p.part)}] {_text(p.summary)}" for p in result.parts]
    return lines


def _theorem_section(thm, results: list[dict] | None, samplers: set[str]) -> list[str]:
    src = thm.source
    by_name = {r["name"]: r for r in results or []}
    out = [f"## {_text(thm.id)} {{#{thm.id}}}", "", f"**{_text(thm.title)}**", ""]
    out += [
        f"- **Source:** {_text(src.item)}" + (f", {_text(src.location)}" if src.location else "")
        + f" -- {_text(src.citation)}",
        f"- **Kind:** {thm.kind}",
        "- **Reconstructed:** "
        + (f"yes (confidence {_text(src.confidence)}; restored from the paper's proofs: the text copy worked from "
           "lost its displayed formulas)" if src.reconstructed and src.confidence else "yes" if src.reconstructed else "no"),
        f"- **Check status:** {_status(_theorem_status(results))}"
        + (f" ({sum(r['passed'] for r in results)}/{len(results)} checks passed)" if results else ""),
    ]
    out += _proof_lines(thm.id)
    # a statement two papers make is one encoding (dpverify.theorems.shared): say so, and link the other item
    out += [f"- **Same statement as:** [{_text(other)}]({other.split('.', 1)[0]}.md#{other}) (one encoding, shared "
            "by both papers; the checks below are this paper's own)" for other in getattr(thm, "same_as", [])]
    out.append("")
    if thm.statement:
        out += ["**Statement.** " + _text(thm.statement), ""]
    if thm.parameters:
        out += ["**Parameters** (keywords of `evaluate`): " + ", ".join(_code(p) for p in thm.parameters), ""]
    if thm.optional:
        out += ["**Optional parameters** (may be left out of `evaluate`):", ""]
        out += [f"- {_code(k)} -- {_text(why)}" for k, why in thm.optional.items()]
        out.append("")
    if thm.hypotheses:
        out += ["**Hypotheses.**", ""]
        for h in thm.hypotheses:
            out.append(f"- {_code(h.name)}: {_code(h.condition)}" + (f" -- {_text(h.description)}" if h.description else ""))
        out.append("")
    if thm.conclusion:
        out += ["**Conclusion.**", ""]
        out += [f"- {_code(k)} = {_code(v)}" for k, v in thm.conclusion.items()]
        out.append("")
    if thm.checks:
        out += ["**Checks.**", ""]
        for c in thm.checks:
            r = by_name.get(c.name)
            line = f"- [{c.kind}] {_code(c.name)} -- {_status(None if r is None else r['passed'])}"
            if r is not None:
                line += f" ({r['seconds']:.2f} s)"
            if c.description:
                line += f": {_text(c.description)}"
            out.append(line)
            if r is not None and r.get("detail"):
                out.append(f"    - result: {_text(_short(r['detail']))}")
        out.append("")
    if thm.errata:
        out += ["**Errata.**", ""]
        for e in thm.errata:
            out.append(f"- {_text(e.description)}")
            out.append(f"    - printed: {_code(e.printed)}")
            out.append(f"    - corrected: {_code(e.corrected)}")
            if e.check:
                out.append(f"    - shown by check {_code(e.check)} ({_status(None if e.check not in by_name else by_name[e.check]['passed'])})")
        out.append("")
    if thm.empirical:
        out += ["**Empirical links.**", ""]
        for link in thm.empirical:
            sampler = (f"[{_text(link.sampler)}](../samplers.md#{link.sampler})" if link.sampler in samplers
                       else f"{_code(link.sampler)} (sampler not registered yet)")
            audit = _code(link.audit) + ("" if (REPO_DIR / link.audit).exists() else " (audit file not written yet)")
            out.append(f"- sampler {sampler}, audit {audit}" + (f": {_text(link.description)}" if link.description else ""))
        out.append("")
    if thm.notes:
        out += ["**Notes.** " + _text(thm.notes), ""]
    return out


def theorem_pages(results: dict[str, list[dict]]) -> dict[str, str]:
    """The catalogue pages: ``theorems/index.md`` (overview table) and one page per paper."""
    from dpverify.theorems import registry
    from dpverify.theorems.base import PAPERS

    samplers = _sampler_ids()
    everything = registry.all_theorems()
    n_run = sum(t.id in results for t in everything)
    n_fail = sum(_theorem_status(results.get(t.id)) is False for t in everything)
    pages: dict[str, str] = {}
    index = [
        "# Theorem catalogue",
        "",
        "*Generated by `python docs/hooks/generate.py` from `dpverify.theorems.registry`; do not edit.*",
        "",
        f"{len(everything)} theorems, {sum(len(t.checks) for t in everything)} checks; "
        f"checks run for {n_run} theorems, {n_fail} with a failed check. "
        "A check is a derivation step re-done with sympy (symbolic), or numeric: a published number recomputed, or "
        "(the `pin_*` checks) the registered conclusion evaluated at points and compared with an independent "
        "computation -- every theorem has one, and perturbing any conclusion makes a check of that theorem fail "
        "(`tests/test_catalogue_mutation.py`, `mutation/catalogue.py`). "
        "The status is the result of running the check when these pages were generated. "
        "From Python: `registry.get(id).explain()`; from a shell: `dpverify theorems show ID`.",
        "",
    ]
    for paper, citation in PAPERS.items():
        theorems = registry.all_theorems(paper)
        page = _paper_page(paper)
        index += [f"## {paper}", "", _text(citation), ""]
        if not theorems:
            index += ["No theorem of this paper is registered yet.", ""]
        else:
            index += ["| ID | item | kind | checks | status | reconstructed | errata |", "|---|---|---|---|---|---|---|"]
            for t in theorems:
                status = _status(_theorem_status(results.get(t.id)))
                index.append(
                    f"| [{_text(t.id)}]({paper}.md#{t.id}) | {_text(t.source.item)} | {t.kind} | {len(t.checks)} | "
                    f"{status} | {'yes' if t.reconstructed else ''} | {len(t.errata) or ''} |"
                )
            index.append("")
        body = [f"# {paper}", "", _text(citation), "",
                "*Generated from `dpverify.theorems.registry`; do not edit.*", ""]
        if not theorems:
            body += ["No theorem of this paper is registered yet.", ""]
        for t in theorems:
            body += _theorem_section(t, results.get(t.id), samplers)
        pages[page] = "\n".join(body)
    pages["theorems/index.md"] = "\n".join(index)
    return pages


# --- sampler catalogue ------------------------------------------------------------------------------------------

def _first_paragraph(doc: str | None) -> str:
    doc = inspect.cleandoc(doc or "")
    return doc.split("\n\n", 1)[0]


def _theorem_link(tid: str, known: set[str]) -> str:
    if tid in known:
        return f"[{_text(tid)}](theorems/{tid.split('.', 1)[0]}.md#{tid})"
    return f"{_code(tid)} (not in the catalogue yet)"


def _signature(func) -> str:
    """``(a: float = 1.0, ...)`` without ``self`` and without the quotes of postponed annotations."""
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return "(...)"
    parts = []
    for p in params[1:] if params and params[0].name == "self" else params:
        ann = p.annotation if isinstance(p.annotation, str) else getattr(p.annotation, "__name__", None)
        text = ("*" if p.kind is p.VAR_POSITIONAL else "**" if p.kind is p.VAR_KEYWORD else "") + p.name
        if ann and p.annotation is not p.empty:
            text += f": {ann}"
        if p.default is not p.empty:
            text += f" = {p.default!r}"
        parts.append(text)
    return "(" + ", ".join(parts) + ")"


def sampler_page() -> str:
    """``samplers.md``: one section per registered sampler."""
    from dpverify.interfaces import suite
    from dpverify.samplers import registry
    from dpverify.theorems import registry as theorems

    known = set(theorems.ids())
    classes = registry.all_samplers()
    cases: dict[str, list] = {}
    for case in suite.cases():
        cases.setdefault(case.sampler, []).append(case)
    out = [
        "# Sampler catalogue",
        "",
        "*Generated by `python docs/hooks/generate.py` from `dpverify.samplers.registry`; do not edit.*",
        "",
        f"{len(classes)} reference samplers. Every sampler is a mechanism in the auditor's sense: "
        "`sampler(dataset, n, rng)` returns `n` independent outputs stacked on axis 0, and "
        "`sampler.guarantee()` evaluates the theorem it rests on at its parameters (hypotheses checked). "
        "From a shell: `dpverify samplers list`, `dpverify audit ID`.",
        "",
        "| ID | output | module | theorems |",
        "|---|---|---|---|",
    ]
    for cls in classes:
        module = cls.__module__.rsplit(".", 1)[-1]
        thms = ", ".join(_text(t) for t in cls.theorems) or "-"
        out.append(f"| [{_text(cls.id)}](#{cls.id}) | {cls.output} | {_text(module)} | {thms} |")
    out.append("")
    for cls in classes:
        out += [f"## {_text(cls.id)} {{#{cls.id}}}", ""]
        if cls.description:
            out += [_text(cls.description), ""]
        sig = _signature(cls.__init__)
        out += [
            f"- **Class:** {_code(cls.__module__ + '.' + cls.__name__ + sig)}",
            f"- **Output:** {cls.output}",
            "- **Theorems:** " + (", ".join(_theorem_link(t, known) for t in cls.theorems) or "none (a baseline)"),
            "- **Mechanism protocol:** "
            + ", ".join(f"`{m}` {'yes' if callable(getattr(cls, m, None)) else 'no'}" for m in ("log_density", "exact_epsilon")),
        ]
        for case in cases.get(cls.id, []):
            out.append(f"- **Audit case** {_code(case.id)}: {_text(case.pair)} (test {_code(case.test)}, params {_code(case.params)})")
        audit = f"audits/test_{cls.id}.py"
        out.append(f"- **Audit file:** {_code(audit)}" + ("" if (REPO_DIR / audit).exists() else " (not written yet)"))
        doc = _first_paragraph(cls.__doc__)
        if doc:
            out += ["", _text(doc)]
        out.append("")
    return "\n".join(out)


# --- errata -----------------------------------------------------------------------------------------------------

def errata_page(results: dict[str, list[dict]]) -> str:
    """``errata.md``: every erratum of every theorem, grouped by paper."""
    from dpverify.theorems import registry
    from dpverify.theorems.base import PAPERS

    everything = registry.all_theorems()
    total = sum(len(t.errata) for t in everything)
    out = [
        "# Errata found by dpverify",
        "",
        "*Generated by `python docs/hooks/generate.py` from the `errata` field of every theorem; do not edit.*",
        "",
        f"{total} errata in {sum(bool(t.errata) for t in everything)} theorems. Each is a place where the paper as "
        "printed and what its proof supports disagree (or where a statement had to be reconstructed differently). "
        "*Printed* is the paper's version, *corrected* what dpverify encodes; the check named under each erratum "
        "shows the discrepancy and its status is the result of running it.",
        "",
    ]
    for paper in PAPERS:
        with_errata = [t for t in registry.all_theorems(paper) if t.errata]
        if not with_errata:
            continue
        out += [f"## {paper}", ""]
        for t in with_errata:
            by_name = {r["name"]: r for r in results.get(t.id, [])}
            out += [f"### [{_text(t.id)}](theorems/{paper}.md#{t.id})", "", f"{_text(t.source.item)}: {_text(t.title)}", ""]
            for i, e in enumerate(t.errata, 1):
                out.append(f"{i}. {_text(e.description)}")
                out.append(f"    - printed: {_code(e.printed)}")
                out.append(f"    - corrected: {_code(e.corrected)}")
                if e.check:
                    r = by_name.get(e.check)
                    out.append(f"    - check {_code(e.check)}: {_status(None if r is None else r['passed'])}"
                               + (f" -- {_text(_short(r['detail']))}" if r and r.get("detail") else ""))
            out.append("")
    return "\n".join(out)


# --- API reference ----------------------------------------------------------------------------------------------

def api_page(modules: Iterable[str] = API_MODULES) -> str:
    """``api.md``: a mkdocstrings block per module that exists in the package."""
    out = [
        "# API reference",
        "",
        "*Generated from the docstrings (mkdocstrings, static analysis: nothing is imported or fetched). "
        "The theorem paper modules are documented by the [theorem catalogue](theorems/index.md).*",
        "",
    ]
    for name in modules:
        rel = Path(*name.split("."))
        if not ((REPO_DIR / rel).with_suffix(".py").exists() or (REPO_DIR / rel / "__init__.py").exists()):
            continue
        out += [f"## `{name}`", "", f"::: {name}", "    options:", "      show_root_heading: false", ""]
    return "\n".join(out)


# --- notebooks --------------------------------------------------------------------------------------------------

def notebook_pages(docs_dir: str | Path) -> dict[str, str]:
    """``notebooks/<name>.md`` for every ``docs/notebooks/<name>.ipynb``: markdown cells as they are, code cells as
    Python blocks (the notebooks are committed without outputs; run them to see the figures)."""
    pages = {}
    for path in _notebooks(Path(docs_dir)):
        nb = json.loads(path.read_text())
        out = []
        for i, cell in enumerate(nb.get("cells", [])):
            source = "".join(cell.get("source", [])).rstrip()
            if cell.get("cell_type") == "markdown":
                out += [source, ""]
                if i == 0:
                    out += [f"*This page shows the cells of [{path.name}]({path.name}) without their outputs: download it "
                            "and run it in Jupyter to see the figures and tables.*", ""]
            elif cell.get("cell_type") == "code":
                out += ["```python", source, "```", ""]
        pages[f"notebooks/{path.stem}.md"] = "\n".join(out)
    return pages


# --- README ----------------------------------------------------------------------------------------------------

def readme_commands(readme: str | Path = REPO_DIR / "README.md") -> str:
    """The body of the README's level-2 section whose title mentions "commands" (the two commands for a fresh
    machine), without its heading. ValueError if the README has no such section."""
    text = Path(readme).read_text()
    sections = text.split("\n## ")[1:]
    for section in sections:
        title, _, body = section.partition("\n")
        if "command" in title.lower():
            return body.strip()
    raise ValueError(f"{readme}: no '## ...commands...' section to show in docs/getting-started.md")


def quoted_readme_commands(page: str | Path = REPO_DIR / "docs" / "getting-started.md") -> str:
    """The README commands ``page`` quotes between :data:`README_START` and :data:`README_END` (stripped)."""
    text = Path(page).read_text()
    if README_START not in text or README_END not in text:
        raise ValueError(f"{page}: no quoted README commands between the markers {README_START!r} and {README_END!r}")
    return text.split(README_START, 1)[1].split(README_END, 1)[0].strip()


# --- writing ----------------------------------------------------------------------------------------------------

def _write_if_changed(path: Path, text: str) -> bool:
    text = text.rstrip("\n") + "\n"
    if path.exists() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return True


def generate(docs_dir: str | Path, run_checks: bool = True) -> list[Path]:
    """Write every generated page into ``docs_dir``; returns the paths (changed or not)."""
    docs = Path(docs_dir)
    results = check_results(docs, run=run_checks)
    pages = theorem_pages(results)
    pages["samplers.md"] = sampler_page()
    pages["errata.md"] = errata_page(results)
    pages["api.md"] = api_page()
    pages.update(notebook_pages(docs))
    pages[PROVE_SNIPPET] = prove_table()
    pages[CORPUS_SNIPPET] = corpus_table()
    written = []
    for rel, text in pages.items():
        _write_if_changed(docs / rel, text)
        written.append(docs / rel)
    return written


def on_pre_build(config, **kwargs) -> None:
    """MkDocs hook: generate the catalogue pages into ``docs_dir`` before the files are collected."""
    generate(config["docs_dir"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python docs/hooks/generate.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("docs_dir", nargs="?", default="docs", help="the MkDocs docs directory (default: docs)")
    parser.add_argument("--no-checks", action="store_true", help="do not run the theorem checks (status 'not run')")
    args = parser.parse_args(argv)
    for path in generate(args.docs_dir, run_checks=not args.no_checks):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
