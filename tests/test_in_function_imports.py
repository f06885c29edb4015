"""Imports inside functions (issue 36): each one is there for a reason, and the reason is written down here.

Read from the source with :mod:`ast` (nothing of the package is imported for it), every ``import`` inside a function
body of a module under :data:`FOLDERS` must be one of:

- an **optional dependency**: its top-level module is installed by one of pyproject.toml's extras and not by
  ``pip install -e .`` (:func:`optional_imports`), or it is a dpverify module that itself imports one at module level
  (``dpverify.backends.torch_backend`` imports torch);
- an **import-time cost** on a path that must stay light (:data:`IMPORT_COST`; the paths are pinned by
  :func:`test_light_paths_stay_light`): ``dpverify --help`` (it imports every command module, and must not get
  heavier), the pytest plugin (pytest loads it, and ``pytest_configure`` imports :mod:`dpverify.interfaces.testing`,
  in every session of an environment where dpverify is installed), the audit suite (``dpverify.cases``: "importing
  the suite stays cheap"), the sampler registry (listing or building a sampler loads no theorem catalogue), the
  auditor (``import dpverify.audit``, which every library adapter does: no scikit-learn, hypothesis or Dask runner
  until a statistic, a search or a cluster needs them) and the prover (``import dpverify.prove``: no scipy, no
  theorem package);
- a genuine **import cycle** (:data:`CYCLE`; none today: ``tests/test_architecture.py`` finds no cycle, lazy imports
  counted);
- an import that must run **after other code** at import time (:data:`ORDER`).

Everything else (stdlib, numpy, scipy, sympy, the other hard dependencies, dpverify's own modules) is imported at the
top of the module. An allowlist entry is ``(module, imported module)`` with a one-line reason; an entry that no longer
matches an import is an error too (the list says what is, not what was). The figures in the reasons were measured
with ``python -X importtime`` and ``len(sys.modules)`` after the path's own imports (modules added, rounded time on a
shared 2-core machine).
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: pytest itself depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]

#: The folders whose modules are checked: all of the package's folders.
FOLDERS: tuple[str, ...] = (
    "dpverify/calculus",
    "dpverify/audit",
    "dpverify/prove",
    "dpverify/theorems",
    "dpverify/libraries",
    "dpverify/samplers",
    "dpverify/models",
    "dpverify/cases",
    "dpverify/backends",
    "dpverify/interfaces",
)

#: Distributions of the extras whose import name is not their pip name (``dask[distributed]`` is how the
#: ``distributed`` distribution is declared).
IMPORT_NAMES: dict[str, tuple[str, ...]] = {
    "dask": ("dask", "distributed"),
    "dp-accounting": ("dp_accounting",),
    "pytest-xdist": ("xdist",),
    "mkdocs-material": ("material",),
    "scikit-learn": ("sklearn",),
    "python-flint": ("flint",),
    "python-dp": ("pydp",),
    "smartnoise-sql": ("snsql",),
}
#: Optional modules no extra names directly.
UNDECLARED: dict[str, str] = {
    "psutil": "a dependency of distributed (the distributed extra), not of dpverify",
    "cloudpickle": "a dependency of dask (the distributed extra), not of dpverify: audit.parallel.start_method asks",
    "pandas": "a dependency of smartnoise-sql and dpmm (their extras), not of dpverify: their tables are DataFrames",
    "polars": "OpenDP's Polars API (the opendp-polars extra names opendp[polars]): the corpus case opendp#2941",
    "pyarrow": "a dependency of opendp[polars] (the opendp-polars extra): the corpus case opendp#2941",
    "tensorflow_privacy": "a corpus case's library, installed --no-deps (its extra would pull TensorFlow): .ci/run",
}

# -- the allowlists -------------------------------------------------------------------------------------------------

#: `dpverify --help` (:func:`dpverify.interfaces.cli.build_parser`) imports every command module: a module-level
#: import there is paid by --help, which must not get heavier (the same modules before and after issue 36).
_HELP = "cli: --help imports every command module and must not get heavier"
#: Command modules import no numpy at module level (issue 36: --help and parser building must not import numpy; the
#: backends' names come from dpverify.vocabulary, which imports only enum).
_NUMPY = "cli: command modules import no numpy at module level (validation imports numpy)"
#: The pytest plugin: pytest imports it, and its pytest_configure imports dpverify.interfaces.testing, in every
#: session of an environment where dpverify is installed ("Importing this module is cheap (no numpy/sympy/...)").
_PLUGIN = "pytest plugin: loaded in every pytest session, numpy-free"
_SUITE = "suite: importing dpverify.cases stays cheap (catalogue.py)"
_SAMPLERS = "samplers: registry.all_samplers() (`dpverify samplers list`, every case build) stays light"
#: `import dpverify.audit` (every library adapter: LIGHT_PATHS["a library adapter"]).
_AUDITOR = "auditor: `import dpverify.audit` (every library adapter) loads no sklearn, hypothesis or Dask side"
#: `import dpverify.prove`: `dpverify prove`, proofs and the certificate checker (LIGHT_PATHS["the prover"]).
_PROVER = "prover: `import dpverify.prove` loads no theorem package and no scipy"

IMPORT_COST: dict[tuple[str, str], str] = {
    # `import dpverify.interfaces.cli` and dpverify.interfaces.cli.arguments (imported by the pytest plugin)
    ("dpverify.interfaces.cli", "dpverify.validation"): "cli: `import dpverify.interfaces.cli` imports no numpy (+108 modules)",
    ("dpverify.interfaces.cli.arguments", "dpverify.validation"): f"{_PLUGIN}; the plugin imports arguments (+93 modules)",
    ("dpverify.interfaces.cli.arguments", "dpverify.backends"): f"{_NUMPY}; also {_PLUGIN} (+94 modules)",
    ("dpverify.backends.base", "scipy.special"): f"{_HELP}: dpverify.backends is imported by it; +221 modules, ~0.25 s",
    # the command modules
    ("dpverify.interfaces.cli.account", "numpy"): _NUMPY,
    ("dpverify.interfaces.cli.bisect", "dpverify.libraries.corpus"): f"{_HELP}: the corpus imports the auditor",
    ("dpverify.interfaces.cli.bisect", "dpverify.interfaces.cli.output"): f"{_HELP}: +16 modules",
    ("dpverify.interfaces.cli.bisect", "dpverify.libraries.bisect"): f"{_HELP}: packaging, subprocess, tempfile",
    ("dpverify.interfaces.cli.bisect", "packaging.version"): f"{_HELP}: packaging",
    ("dpverify.interfaces.cli.bisect", "dpverify.libraries.corpus.versions"): f"{_HELP}: the corpus",
    ("dpverify.interfaces.cli.account", "dpverify.calculus.accounting"): f"{_HELP}: +545 modules, ~0.6 s",
    ("dpverify.interfaces.cli.account", "dpverify.calculus.accounting.sampled_gaussian"): f"{_HELP}: +545 modules",
    ("dpverify.interfaces.cli.account", "dpverify.calculus.conversions"): f"{_HELP}: +5 modules",
    ("dpverify.interfaces.cli.account", "dpverify.interfaces.cli.output"): f"{_HELP}: +16 modules",
    ("dpverify.interfaces.cli.account", "dpverify.interfaces.cli.progress"): f"{_HELP}: +2 modules",
    ("dpverify.interfaces.cli.audit", "dpverify.validation"): _NUMPY,
    ("dpverify.interfaces.cli.audit", "dpverify.audit.distributed"): f"{_HELP}: +754 modules (the auditor), ~1.3 s",
    ("dpverify.interfaces.cli.audit", "dpverify.interfaces.cli.output"): f"{_HELP}: +16 modules",
    ("dpverify.interfaces.cli.audit", "dpverify.interfaces.cli.progress"): f"{_HELP}: +2 modules",
    ("dpverify.interfaces.cli.audit", "dpverify.interfaces.presentation"): f"{_HELP}: +752 modules (the auditor)",
    ("dpverify.interfaces.cli.audit", "dpverify.interfaces.suite"): f"{_HELP}: +24 modules",
    ("dpverify.interfaces.cli.audit", "dpverify.audit.options"): f"{_HELP}: +754 modules (the auditor's package)",
    ("dpverify.interfaces.cli.audit", "dpverify.cases"): f"{_HELP}: +24 modules (the suite)",
    ("dpverify.interfaces.cli.audit", "dpverify.samplers.registry"): f"{_HELP}: +12 modules",
    ("dpverify.interfaces.cli.audit_library", "dpverify.validation"): _NUMPY,
    ("dpverify.interfaces.cli.audit_library", "dpverify.interfaces.cli.output"): f"{_HELP}: +16 modules",
    ("dpverify.interfaces.cli.audit_library", "dpverify.interfaces.files"): f"{_HELP}: +15 modules",
    ("dpverify.interfaces.cli.audit_library", "dpverify.interfaces.report"): f"{_HELP}: +766 modules, ~1.5 s",
    ("dpverify.interfaces.cli.audit_library", "dpverify.libraries.corpus"): f"{_HELP}: +766 modules, ~1.3 s",
    ("dpverify.interfaces.cli.audit_library", "dpverify.libraries.corpus.versions"): f"{_HELP}: the corpus",
    ("dpverify.interfaces.cli.audit_library", "dpverify.libraries.runner"): f"{_HELP}: +759 modules, ~1.2 s",
    ("dpverify.interfaces.cli.one_run", "dpverify.validation"): _NUMPY,
    ("dpverify.interfaces.cli.one_run", "dpverify.audit.verdicts"): f"{_HELP}: +751 modules (the auditor)",
    ("dpverify.interfaces.cli.one_run", "dpverify.interfaces.cli.output"): f"{_HELP}: +16 modules",
    ("dpverify.interfaces.cli.one_run", "dpverify.cases.one_run"): f"{_HELP}: +1363 modules, ~2 s",
    ("dpverify.interfaces.cli.one_run", "dpverify.cases"): f"{_HELP}: +24 modules (the suite)",
    ("dpverify.interfaces.cli.prove", "dpverify.validation"): _NUMPY,
    ("dpverify.interfaces.cli.prove", "dpverify.interfaces.cli.output"): f"{_HELP}: +16 modules",
    ("dpverify.interfaces.cli.prove", "dpverify.prove"): f"{_HELP}: +576 modules (sympy, flint), ~0.8 s",
    ("dpverify.interfaces.cli.prove", "dpverify.prove.accountants"): f"{_HELP}: +1152 modules (scipy, the accountants)",
    ("dpverify.interfaces.cli.prove", "dpverify.prove.catalogue"): f"{_HELP}: +576 modules",
    ("dpverify.interfaces.cli.prove", "dpverify.prove.hypotheses"): f"{_HELP}: +577 modules",
    ("dpverify.interfaces.cli.prove", "dpverify.prove.problem"): f"{_HELP}: +576 modules",
    ("dpverify.interfaces.cli.prove", "dpverify.prove.results"): f"{_HELP}: +576 modules",
    ("dpverify.interfaces.cli.samplers", "dpverify.interfaces.cli.output"): f"{_HELP}: +16 modules",
    ("dpverify.interfaces.cli.samplers", "dpverify.interfaces.suite"): f"{_HELP}: +24 modules",
    ("dpverify.interfaces.cli.samplers", "dpverify.samplers.registry"): f"{_HELP}: +12 modules",
    ("dpverify.interfaces.cli.theorems", "dpverify.validation"): _NUMPY,
    ("dpverify.interfaces.cli.theorems", "dpverify.interfaces.cli.output"): f"{_HELP}: +16 modules",
    ("dpverify.interfaces.cli.theorems", "dpverify.prove.shipped"): f"{_HELP}: +577 modules (sympy, flint), ~0.6 s",
    ("dpverify.interfaces.cli.theorems", "dpverify.theorems.base"): f"{_HELP}: +551 modules (sympy), ~0.6 s",
    ("dpverify.interfaces.cli.theorems", "dpverify.theorems.registry"): f"{_HELP}: +551 modules (sympy)",
    ("dpverify.interfaces.cli.verify", "dpverify.validation"): _NUMPY,
    ("dpverify.interfaces.cli.verify", "concurrent.futures"): f"{_HELP}: +8 modules (only --workers > 1 needs it)",
    ("dpverify.interfaces.cli.verify", "uuid"): f"{_HELP}: +2 modules (only --scheduler needs it)",
    ("dpverify.interfaces.cli.verify", "dpverify.audit.distributed"): f"{_HELP}: +754 modules (the auditor), ~1.3 s",
    ("dpverify.interfaces.cli.verify", "dpverify.interfaces.cli.output"): f"{_HELP}: +16 modules",
    ("dpverify.interfaces.cli.verify", "dpverify.interfaces.cli.progress"): f"{_HELP}: +2 modules",
    ("dpverify.interfaces.cli.verify", "dpverify.interfaces.files"): f"{_HELP}: +15 modules",
    ("dpverify.interfaces.cli.verify", "dpverify.interfaces.presentation"): f"{_HELP}: +752 modules (the auditor)",
    ("dpverify.interfaces.cli.verify", "dpverify.interfaces.report"): f"{_HELP}: +766 modules, ~1.5 s",
    ("dpverify.interfaces.cli.verify", "dpverify.interfaces.suite"): f"{_HELP}: +24 modules",
    ("dpverify.interfaces.cli.verify", "dpverify.cases"): f"{_HELP}: +24 modules (the suite)",
    ("dpverify.interfaces.cli.verify", "dpverify.audit.options"): f"{_HELP}: +754 modules (the auditor's package)",
    ("dpverify.interfaces.cli.verify", "dpverify.prove.catalogue"): f"{_HELP}: +576 modules (sympy, flint), ~0.8 s",
    ("dpverify.interfaces.cli.verify", "dpverify.prove.search"): f"{_HELP}: +576 modules (sympy, flint)",
    ("dpverify.interfaces.cli.verify", "dpverify.samplers.registry"): f"{_HELP}: +12 modules",
    ("dpverify.interfaces.cli.verify", "dpverify.theorems.base"): f"{_HELP}: +551 modules (sympy), ~0.6 s",
    ("dpverify.interfaces.cli.verify", "dpverify.theorems.registry"): f"{_HELP}: +551 modules (sympy)",
    # the pytest plugin and assert_dp's module
    ("dpverify.interfaces.pytest_plugin", "dpverify.validation"): f"{_PLUGIN}: +93 modules (numpy)",
    ("dpverify.interfaces.testing", "dpverify.libraries.replay"): f"{_PLUGIN}: its pytest_configure imports "
                                                                  "testing; replay adds 887 modules",
    ("dpverify.interfaces.pytest_plugin", "dpverify.backends"): f"{_PLUGIN}: +94 modules (numpy)",
    ("dpverify.interfaces.pytest_plugin", "dpverify.interfaces.files"): f"{_PLUGIN}: +96 modules (numpy)",
    ("dpverify.interfaces.pytest_plugin", "dpverify.interfaces.presentation"): f"{_PLUGIN}: +783 modules (the auditor)",
    ("dpverify.interfaces.pytest_plugin", "dpverify.audit.distributed"): f"{_PLUGIN}: +783 modules (the auditor)",
    ("dpverify.interfaces.pytest_plugin", "dpverify.samplers.device"): f"{_PLUGIN}: +279 modules (numpy, scipy)",
    ("dpverify.interfaces.pytest_plugin", "dpverify.audit.options"): f"{_PLUGIN}: +783 modules (the auditor's package)",
    ("dpverify.interfaces.testing", "dpverify.audit"): f"{_PLUGIN}: its pytest_configure imports testing; +782 modules, ~1.3 s",
    ("dpverify.interfaces.testing", "dpverify.audit.one_run"): f"{_PLUGIN}: its pytest_configure imports testing; +784 modules",
    ("dpverify.interfaces.testing", "dpverify.audit.options"): f"{_PLUGIN}: its pytest_configure imports testing; +782 modules",
    # the audit suite
    ("dpverify.cases.catalogue", "dpverify.models.logistic"): f"{_SUITE}: models are built on first use; +266 modules (scipy)",
    ("dpverify.cases.catalogue", "dpverify.models.targets"): f"{_SUITE}: models are built on first use; +490 modules, ~0.7 s",
    ("dpverify.cases.catalogue", "dpverify.models.least_squares"): f"{_SUITE}: models are built on first use; +246 modules (scipy)",
    ("dpverify.cases.reference", "dpverify.audit.abilities"): f"{_SUITE}: +756 modules (the auditor), ~1.8 s",
    ("dpverify.cases.run", "dpverify.audit"): f"{_SUITE}: +756 modules (the auditor), ~1.7 s",
    ("dpverify.cases.run", "dpverify.audit.abilities"): f"{_SUITE}: +756 modules (the auditor)",
    ("dpverify.cases.run", "dpverify.samplers.device"): f"{_SUITE}: +246 modules (scipy), ~0.2 s",
    ("dpverify.cases.options", "dpverify.audit.options"): f"{_SUITE}: +756 modules (the auditor's package), ~1.7 s",
    ("dpverify.cases.benchmark", "dpverify.audit"): f"{_SUITE}: +756 modules (the auditor), ~1.7 s",
    ("dpverify.cases.benchmark", "dpverify.audit.standard_suite"): f"{_SUITE}: the auditor and the benchmark mechanisms",
    ("dpverify.cases.model", "dpverify.audit.standard_suite"): f"{_SUITE}: the auditor and the benchmark mechanisms",
    ("dpverify.cases.model", "dpverify.libraries.corpus"): f"{_SUITE}: the auditor and the library adapters",
    ("dpverify.cases.model", "dpverify.cases.one_run"): f"{_SUITE}: the auditor, the one-run audit and its data",
    # the sampler registry
    ("dpverify.samplers.claims", "dpverify.theorems.registry"): f"{_SAMPLERS}: no theorem catalogue; +471 modules (sympy), ~0.5 s",
    ("dpverify.samplers.sgmcmc", "dpverify.samplers.release_statistic"): f"{_SAMPLERS}: +44 modules, ~0.15 s",
    # the auditor
    ("dpverify.audit.classifier", "sklearn.linear_model"): f"{_AUDITOR}: +586 modules, ~1 s (the logistic classifier)",
    ("dpverify.audit.classifier", "sklearn.pipeline"): f"{_AUDITOR}: +506 modules (the logistic classifier)",
    ("dpverify.audit.classifier", "sklearn.preprocessing"): f"{_AUDITOR}: +503 modules (the logistic classifier)",
    ("dpverify.audit.classifier", "sklearn.ensemble"): f"{_AUDITOR}: +660 modules, ~1 s (the boosting classifier)",
    ("dpverify.audit.classifier", "sklearn.exceptions"): f"{_AUDITOR}: +488 modules (the logistic classifier's fit)",
    ("dpverify.audit.vector_statistics", "sklearn.isotonic"): f"{_AUDITOR}: +490 modules, ~0.8 s (monotone tables)",
    ("dpverify.audit.datasets", "hypothesis"): f"{_AUDITOR}: +91 modules, ~0.3 s (only adjacent_pairs needs it)",
    ("dpverify.audit.search", "hypothesis"): f"{_AUDITOR}: +91 modules, ~0.3 s (only search_hypothesis needs it)",
    ("dpverify.audit.plan", "dpverify.audit.distributed"): f"{_AUDITOR}: +3 modules (uuid); for client= only",
    ("dpverify.audit.chunk_work", "dpverify.audit.distributed"): f"{_AUDITOR}: +3 modules (uuid); for client= only",
    # the calculus
    ("dpverify.calculus.accounting.pld", "scipy.signal"): f"{_SAMPLERS}: it loads pld; +41 modules, ~0.25 s",
    ("dpverify.calculus.mechanism_description", "dpverify.calculus.accounting.descriptions"):
        f"{_SUITE}: it loads mechanism_description; +771 modules (scipy, the accountants), ~2.7 s",
    # the prover
    ("dpverify.prove.forms.li2019", "dpverify.theorems.li2019.common"):
        f"{_PROVER}: +545 modules (the li2019 package: scipy, the accountants), ~2 s",
    # the library adapters
    ("dpverify.libraries.diffprivlib", "sklearn"): "libraries: sklearn serves only the diffprivlib shim; +490 modules, ~0.4 s",
    ("dpverify.libraries.diffprivlib", "sklearn.linear_model"): "libraries: sklearn serves only the diffprivlib shim; +588 modules",
}

#: Imports that would close an import cycle at module level (tests/test_architecture.py: none today).
CYCLE: dict[tuple[str, str], str] = {}

#: Imports that must run after other code of the importing module (module-level code, not the module's imports).
_MPL = "MPLCONFIGDIR is set at this module's import (use_writable_matplotlib_dir), before matplotlib's first import"
ORDER: dict[tuple[str, str], str] = {
    ("dpverify.interfaces.report_figures", "matplotlib"): _MPL,
    ("dpverify.interfaces.report_figures", "matplotlib.pyplot"): _MPL,
    ("dpverify.interfaces.report_figures", "dpverify.interfaces.figures"): f"{_MPL}; figures imports matplotlib at the top",
}

ALLOWED: dict[tuple[str, str], str] = {**IMPORT_COST, **CYCLE, **ORDER}

# -- reading the source ---------------------------------------------------------------------------------------------


def _requirement_name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement.strip())
    assert match, requirement
    return match.group(0).lower()


def optional_imports() -> dict[str, str]:
    """Top-level import name -> what installs it: every distribution of pyproject.toml's optional extras that
    ``[project] dependencies`` does not also install, and :data:`UNDECLARED`."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    hard = {_requirement_name(r) for r in project["dependencies"]}
    out: dict[str, str] = {}
    for extra, requirements in project["optional-dependencies"].items():
        for requirement in requirements:
            name = _requirement_name(requirement)
            if name in hard:
                continue
            for module in IMPORT_NAMES.get(name, (name.replace("-", "_"),)):
                out.setdefault(module, f"the {extra!r} extra")
    out.update(UNDECLARED)
    return out


OPTIONAL = optional_imports()


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> list[str]:
    """The modules an import statement imports: ``from dpverify.x import y`` names ``dpverify.x.y`` when that is a
    module of the package, else ``dpverify.x``; third-party ``from a.b import c`` names ``a.b``."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    out = []
    for alias in node.names:
        full = f"{source}.{alias.name}"
        out.append(full if source.split(".")[0] == "dpverify" and _is_package_module(full) else source)
    return list(dict.fromkeys(out))


def _module_level_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """The imports run when the module is imported: outside every function (class bodies and if/try blocks count)."""
    out: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append(child)
            visit(child)

    visit(tree)
    return out


def in_function_imports(source: str, module: str, is_package: bool = False) -> list[tuple[int, str, str, str]]:
    """``(line, function, imported module, statement)`` for every import inside a function body (nested functions and
    methods included; ``function`` is the innermost one)."""
    out: list[tuple[int, str, str, str]] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                visit(child, child.name)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                if function is not None:
                    out.extend((child.lineno, function, target, ast.unparse(child))
                               for target in _targets(child, module, is_package))
            else:
                visit(child, function)

    visit(ast.parse(source), None)
    return out


def needs_optional(target: str) -> str | None:
    """What makes ``target`` optional: its top-level module is an optional dependency, or it is a dpverify module
    importing one at module level; None otherwise."""
    top = target.split(".")[0]
    if top in OPTIONAL:
        return f"{top} ({OPTIONAL[top]})"
    if top == "dpverify" and _is_package_module(target):
        path = ROOT.joinpath(*target.split("."))
        path = path.with_suffix(".py") if path.with_suffix(".py").is_file() else path / "__init__.py"
        for node in _module_level_imports(ast.parse(path.read_text())):
            for imported in _targets(node, target, path.name == "__init__.py"):
                if imported.split(".")[0] in OPTIONAL:
                    return f"{target} imports {imported.split('.')[0]} ({OPTIONAL[imported.split('.')[0]]})"
    return None


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))}


MODULES = _modules()


def _found() -> list[tuple[str, int, str, str, str]]:
    """``(module, line, function, imported module, statement)`` over :data:`MODULES`."""
    out = []
    for name, path in MODULES.items():
        for line, function, target, statement in in_function_imports(path.read_text(), name,
                                                                      path.name == "__init__.py"):
            out.append((name, line, function, target, statement))
    return out


# -- the checks -----------------------------------------------------------------------------------------------------


def test_the_folders_exist():
    assert all((ROOT / folder).is_dir() for folder in FOLDERS), [f for f in FOLDERS if not (ROOT / f).is_dir()]


def test_the_optional_set_comes_from_the_extras():
    """The extras' own distributions are optional; the hard dependencies (numpy, scipy, sympy, scikit-learn,
    matplotlib, hypothesis, ...) are not, even where an extra repeats them (peers pins scikit-learn)."""
    for name in ("torch", "opacus", "distributed", "dask", "diffprivlib", "opendp", "dp_accounting", "playwright",
                 "nbclient", "psutil"):
        assert name in OPTIONAL, name
    for name in ("numpy", "scipy", "sympy", "mpmath", "statsmodels", "hypothesis", "sklearn", "matplotlib",
                 "threadpoolctl", "flint"):
        assert name not in OPTIONAL, name


def test_every_in_function_import_is_justified():
    bad = [f"{module.replace('.', '/')}.py:{line} in {function}(): {statement}"
           for module, line, function, target, statement in _found()
           if needs_optional(target) is None and (module, target) not in ALLOWED]
    assert not bad, ("imports inside functions with no recorded reason: move them to the top of the module, or add "
                     "(module, imported module) to IMPORT_COST, CYCLE or ORDER with a one-line reason:\n  "
                     + "\n  ".join(bad))


def test_every_allowlist_entry_matches_an_import():
    found = {(module, target) for module, _, _, target, _ in _found()}
    stale = sorted(key for key in ALLOWED if key[0] in MODULES and key not in found)
    assert not stale, f"allowlist entries that match no import inside a function (remove them): {stale}"


def test_the_allowlists_are_disjoint_and_explained():
    assert not set(IMPORT_COST) & set(CYCLE) and not set(IMPORT_COST) & set(ORDER) and not set(CYCLE) & set(ORDER)
    for key, reason in ALLOWED.items():
        assert reason.strip() and "\n" not in reason, key
        assert needs_optional(key[1]) is None, f"{key}: an optional dependency needs no entry"


def test_the_finder_finds_imports_inside_functions():
    """The walk can fail: a function's import (nested and in a method too) is found, a module-level one is not, and
    a relative import is resolved."""
    source = ("import os\n"
              "def f():\n    import numpy as np\n    def g():\n        from scipy import stats\n"
              "class C:\n    def m(self):\n        from . import registry\n")
    found = [(line, function, target) for line, function, target, _ in
             in_function_imports(source, "dpverify.samplers.example")]
    assert found == [(3, "f", "numpy"), (5, "g", "scipy"), (8, "m", "dpverify.samplers.registry")]
    assert needs_optional("torch.utils.data") and needs_optional("dpverify.backends.torch_backend")
    assert needs_optional("numpy") is None and needs_optional("dpverify.backends") is None


#: The light paths the reasons of IMPORT_COST rest on: what each imports no module of (top-level names, or dpverify
#: subpackages). `dpverify --help` still imports numpy today (arguments.add_backend_arguments -> dpverify.backends).
LIGHT_PATHS: dict[str, tuple[str, tuple[str, ...]]] = {
    "import dpverify.interfaces.cli": (
        "import dpverify.interfaces.cli", ("numpy", "scipy", "sympy")),
    "dpverify --help": (
        "import dpverify.interfaces.cli as c; c.build_parser()",
        ("numpy", "scipy", "sympy", "statsmodels", "matplotlib", "dpverify.audit", "dpverify.theorems",
         "dpverify.prove")),
    "the pytest plugin": (
        "import pytest, dpverify.interfaces.pytest_plugin; from dpverify.interfaces import testing",
        ("numpy", "scipy", "sympy", "statsmodels", "dpverify.audit")),
    "the audit suite": (
        "import dpverify.interfaces.suite", ("scipy", "sympy", "statsmodels", "dpverify.audit", "dpverify.theorems")),
    "the sampler registry": (
        "from dpverify.samplers import registry; registry.all_samplers()",
        ("sympy", "statsmodels", "dpverify.audit", "dpverify.theorems", "dpverify.samplers.release_statistic")),
    "a library adapter": (
        "import dpverify.libraries.diffprivlib", ("sklearn", "diffprivlib", "hypothesis", "dpverify.audit.distributed")),
    "the prover": (
        "import dpverify.prove", ("scipy", "statsmodels", "matplotlib", "dpverify.audit", "dpverify.samplers",
                                  "dpverify.calculus.accounting", "dpverify.theorems.li2019")),
}


@pytest.mark.parametrize("path", sorted(LIGHT_PATHS))
def test_light_paths_stay_light(path):
    code, forbidden = LIGHT_PATHS[path]
    script = f"import sys\n{code}\nprint('\\n'.join(sys.modules))\n"
    loaded = set(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                                cwd=ROOT).stdout.split())
    heavy = sorted(name for name in forbidden if name in loaded)
    assert not heavy, f"{path} ({code}) imports {heavy}; see IMPORT_COST"
