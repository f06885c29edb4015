"""The shape of the package (issue 16, "the house"): layers point one way, no import cycles, no private imports.

The rules are read from the source with :mod:`ast` (nothing is imported), so a violation names the file and line:

- **layers** -- the DP calculus (``dpverify.calculus``) is the bottom layer; the theorem catalogue and the models
  stand on it; the prover (``dpverify.prove``) on the catalogue; the samplers on those; the auditor on the calculus alone (it never imports a sampler or a theorem:
  it audits any callable); the library regression checks on the auditor; the audit cases (``dpverify.cases``: the
  case model, its catalogues and the one path that runs a case) on the samplers, the auditor and the library checks; the interfaces (CLI, pytest
  plugin, reports) on top, imported by nothing below them;
- **no import cycles** between modules, counting imports inside functions (a lazy import hides a cycle, it does not
  remove it);
- **no private names across modules** -- ``from dpverify.x import _name`` is refused outside ``dpverify.x`` itself,
  and no module file is private (``_name.py``): what two modules share is public in one of them.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "dpverify"

#: Which top-level parts of dpverify each part may import (besides itself). ``vocabulary`` holds the closed vocabularies
#: (stdlib only) every layer speaks; ``validation`` holds argument checks every layer uses; ``backends`` the array backends (numpy, torch) the models, samplers and auditor run on; ``__init__``/``__main__`` are the package's own files (``dpverify.__version__`` may be read from
#: anywhere).
ALLOWED: dict[str, set[str]] = {
    "vocabulary": set(),
    "validation": set(),
    "backends": {"vocabulary"},
    "calculus": {"vocabulary", "validation"},
    "theorems": {"vocabulary", "calculus", "validation"},
    "prove": {"vocabulary", "theorems", "calculus", "validation"},
    "models": {"vocabulary", "backends", "calculus", "validation"},
    "samplers": {"vocabulary", "backends", "models", "theorems", "calculus", "validation"},
    "audit": {"vocabulary", "backends", "calculus", "validation"},
    "libraries": {"vocabulary", "audit", "calculus", "validation"},
    "cases": {"vocabulary", "audit", "backends", "calculus", "libraries", "models", "samplers", "theorems",
              "validation"},
    "interfaces": {"vocabulary", "audit", "backends", "calculus", "cases", "libraries", "models", "prove", "samplers", "theorems",
                   "validation"},
    "__main__": {"interfaces"},
    "__init__": set(),
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


MODULES = _modules()


def _imports(name: str, path: Path) -> list[tuple[int, str, str | None]]:
    """``(line, imported module, imported name or None)`` for every dpverify import in the file, lazy ones included;
    relative imports resolved."""
    is_package = path.name == "__init__.py"
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, None) for a in node.names if a.name.split(".")[0] == "dpverify"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "dpverify":
                continue
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                out.append((node.lineno, sub, None) if sub in MODULES else (node.lineno, module, alias.name))
    return out


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        targets = set()
        for _, module, _ in _imports(name, path):
            while module not in MODULES and "." in module:
                module = module.rsplit(".", 1)[0]
            # a package's __init__ importing its own children, or a child importing its package, is not a cycle edge
            if module != name and not module.startswith(name + ".") and not name.startswith(module + "."):
                targets.add(module)
        edges[name] = targets
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_every_part_of_the_package_is_in_the_layer_table():
    parts = {_part(m) for m in MODULES}
    assert parts <= set(ALLOWED), f"parts with no layer rule: {sorted(parts - set(ALLOWED))} (add them to ALLOWED)"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_layers_point_one_way(name):
    own = _part(name)
    bad = [f"line {line}: {module}" for line, module, _ in _imports(name, MODULES[name])
           if _part(module) not in (own, "__init__") and _part(module) not in ALLOWED[own]]
    assert not bad, f"{name} ({own}) may import only {sorted(ALLOWED[own])}; it imports {bad}"


def test_no_import_cycles():
    assert _cycles(_edges()) == []


def test_the_cycle_finder_finds_a_cycle():
    """The check above can fail: a two-module and a three-module cycle are found, a chain is not."""
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_private_name_crosses_modules(name):
    bad = [f"line {line}: from {module} import {imported}" for line, module, imported in _imports(name, MODULES[name])
           if imported and imported.startswith("_") and not imported.startswith("__") and module != name]
    assert not bad, f"{name} imports another module's private name: {bad}"


def test_no_private_module_files():
    private = [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("_*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert private == []


def test_the_tree_names_where_things_live():
    """A newcomer finds a theorem, its sampler, its mechanism description and its audit from the folder names."""
    for paper in ("wang2015", "li2019", "foulds2016", "bertazzi2025"):
        assert (PACKAGE / "theorems" / paper / "__init__.py").is_file(), paper
    for folder in ("calculus", "calculus/mechanisms", "calculus/accounting", "samplers", "models", "audit",
                   "libraries", "interfaces", "interfaces/cli"):
        assert (PACKAGE / folder / "__init__.py").is_file(), folder
    assert (PACKAGE / "calculus" / "mechanism_description.py").is_file()
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "validation.py", "vocabulary.py"], loose
