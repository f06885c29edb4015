"""The catalogue's symbol table, its one registration style and its shared statements (issue 16, part 2).

- every symbol a theorem declares is an entry of :mod:`dpverify.theorems.symbols`, and no paper module makes a
  catalogue symbol itself;
- a letter two papers use for two quantities is two entries that sympy tells apart; a plain letter has one
  assumption set; the decisions on delta (nonnegative, ``delta_positive`` where a statement takes its log) and
  epsilon (positive) hold;
- part modules list their items in ``THEOREMS``, paper packages collect them in catalogue order, only the
  registry registers;
- a statement two papers make is one :class:`~dpverify.theorems.base.Statement`: both IDs resolve, keep their own
  sources, evaluate to the same numbers, say "the same statement as", and each check exists once.
"""
from __future__ import annotations

import ast
import dataclasses
import importlib
import pickle
from collections import defaultdict
from pathlib import Path

import pytest
import sympy as sp

from dpverify.theorems import HypothesisError, catalogue, registry, shared
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import Source, Statement, Theorem

ROOT = Path(__file__).resolve().parent.parent
THEOREMS_DIR = ROOT / "dpverify" / "theorems"
THEOREMS = registry.all_theorems()
TABLE_SYMBOLS = [e.symbol for e in sy.TABLE.values()]

#: The statements two papers make: (first ID, second ID, inputs, expected sources (item, location) of each).
SHARED = [
    ("wang2015.thm1_ops_pure_dp", "foulds2016.thm3_posterior_4b", {"B": 0.5},
     ("Theorem 1", "Sec. 3.1, p. 3; proof in Supplement A"), ("Theorem 3", "Sec. 2.2")),
    ("wang2015.lem2_composition", "foulds2016.thm1_composition",
     {"epsilon_1": 0.5, "epsilon_2": 1.0, "delta_1": 1e-6, "delta_2": 1e-5},
     ("Lemma 2", "Sec. 2.1, p. 2"), ("Theorem 1", "Sec. 2.1.3")),
    ("wang2015.prop3_approx_sampling", "foulds2016.prop3_approx_sampling", {"epsilon": 1.0, "delta": 1e-3},
     ("Proposition 3", "Sec. 3.3, p. 4; proof in Supplement A"), ("Proposition 3", "Sec. 4")),
]
SHARED_IDS = {i for a, b, *_ in SHARED for i in (a, b)}


def _paper_modules() -> list[Path]:
    return sorted(p for paper in registry.PAPER_MODULES for p in (THEOREMS_DIR / paper).glob("*.py"))


def _sympy_calls(tree: ast.AST):
    """Every ``sp.Symbol(...)`` / ``sp.symbols(...)`` call with literal arguments, with whether it is at module level."""
    top = {id(n) for stmt in tree.body if not isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) for n in ast.walk(stmt)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "sp" and node.func.attr in ("Symbol", "symbols")
                and all(isinstance(a, ast.Constant) for a in node.args)):
            made = eval(compile(ast.Expression(node), "<call>", "eval"), {"sp": sp})  # literals only: safe
            yield node.lineno, (made if isinstance(made, (tuple, list)) else (made,)), id(node) in top


# ----------------------------------------------------------------------------------------------- the symbol table

def test_every_catalogue_symbol_is_a_table_entry_under_its_letter():
    for thm in THEOREMS:
        for keyword, symbol in thm.symbols.items():
            assert sy.entry_of(symbol).symbol == symbol, thm.id
            assert keyword == symbol.name, f"{thm.id}: keyword {keyword!r} for the symbol {symbol.name!r}"


def test_every_table_entry_is_used_by_the_papers_it_names():
    used = defaultdict(set)
    for thm in THEOREMS:
        for symbol in thm.symbols.values():
            used[sy.entry_of(symbol).key].add(thm.paper)
    assert {key: set(e.papers) for key, e in sy.TABLE.items()} == dict(used)


def test_a_plain_letter_never_has_two_assumption_sets():
    by_letter = defaultdict(set)
    for e in sy.TABLE.values():
        if not isinstance(e.symbol, sy.Quantity):
            by_letter[e.symbol.name].add(frozenset(e.assumptions.items()))
    assert {k: v for k, v in by_letter.items() if len(v) > 1} == {}
    # and within one paper one keyword is one symbol
    per_paper = defaultdict(set)
    for thm in THEOREMS:
        for keyword, symbol in thm.symbols.items():
            per_paper[(thm.paper, keyword)].add(symbol)
    assert {k: v for k, v in per_paper.items() if len(v) > 1} == {}


def test_one_letter_two_quantities_are_entries_sympy_tells_apart():
    by_letter = defaultdict(list)
    for e in sy.TABLE.values():
        by_letter[e.symbol.name].append(e)
    shared_letters = {k: sorted(e.key for e in v) for k, v in by_letter.items() if len(v) > 1}
    assert shared_letters == {
        "T": ["T_horizon", "T_iterations", "T_passes"], "L": ["L", "L_drift"], "R": ["R", "R_coupling"],
        "alpha": ["alpha", "alpha_phase"], "C": ["C", "C_mse"], "A": ["A_friction", "A_risk"],
        "m": ["m", "m_dissipativity"], "delta_prime": ["delta_prime", "delta_slack"],
    }
    for entries in by_letter.values():
        for i, e in enumerate(entries):
            for f in entries[i + 1:]:
                assert e.symbol != f.symbol and hash(e.symbol) != hash(f.symbol) and e.meaning != f.meaning
    # the T of each paper is its own quantity
    T_of = {t.paper: t.symbols["T"] for t in THEOREMS if "T" in t.symbols}
    assert T_of == {"wang2015": sy.T_passes, "li2019": sy.T_iterations, "foulds2016": sy.T_iterations,
                    "bertazzi2025": sy.T_horizon, "heikkila2019": sy.T_iterations, "annamalai2024": sy.T_iterations,
                    "cebere2025": sy.T_iterations, "bok2024": sy.T_passes}
    assert sy.T_iterations.is_integer and sy.T_passes.is_integer is None and sy.T_horizon.is_integer is None


def test_a_quantity_prints_its_letter_and_survives_pickling():
    assert str(sy.T_passes) == "T" and sp.latex(sy.alpha_phase) == r"\alpha"
    assert pickle.loads(pickle.dumps(sy.T_passes)) == sy.T_passes
    assert sy.T_passes != sp.Symbol("T", positive=True) and sy.T_passes != sy.T_horizon
    f = sp.lambdify([sy.T_passes, sy.T_horizon], sy.T_passes - 2 * sy.T_horizon, dummify=True)  # two "T"s
    assert f(5.0, 1.0) == 3.0


def test_delta_is_nonnegative_and_epsilon_positive_as_the_module_decides():
    assert sy.delta.is_nonnegative and sy.delta.is_positive is None
    assert sy.delta_1.is_nonnegative and sy.delta_2.is_nonnegative and sy.delta_prime.is_nonnegative
    assert sy.epsilon.is_positive and sy.epsilon_1.is_positive and sy.epsilon_xi.is_positive
    assert "nonnegative" in sy.__doc__ and "delta_positive" in sy.__doc__


def _takes_log_of_delta(thm: Theorem) -> bool:
    exprs = [h.condition for h in thm.hypotheses] + list(thm.conclusion.values())
    return any(sy.delta in log.free_symbols for e in exprs for log in sp.sympify(e).atoms(sp.log))


#: Items whose formula takes log(1/delta) with no delta_positive hypothesis, and why.
NO_DELTA_POSITIVE = {"li2019.wang_bound_quoted"}  # a quotation: eta_max -> 0 as delta -> 0, the right limit


def test_a_statement_that_takes_log_delta_says_delta_positive():
    for thm in THEOREMS:
        names = [h.name for h in thm.hypotheses]
        if _takes_log_of_delta(thm) and thm.id not in NO_DELTA_POSITIVE:
            assert "delta_positive" in names, thm.id
    limit = registry.get("li2019.wang_bound_quoted").conclusion["eta_max"].limit(sy.delta, 0, "+")
    assert limit == 0
    with pytest.raises(HypothesisError, match="delta_positive"):
        registry.get("wang2015.thm2_gaussian_mechanism").evaluate(sensitivity=1.0, epsilon=0.5, delta=0)
    # a statement about pure DP takes delta = 0
    assert registry.get("foulds2016.thm1_composition").evaluate(
        epsilon_1=0.5, epsilon_2=1.0, delta_1=0, delta_2=0).delta == 0


def test_no_paper_module_makes_a_catalogue_symbol_itself():
    letters = {s.name for s in TABLE_SYMBOLS}
    offences = []
    for path in _paper_modules() + [THEOREMS_DIR / "shared.py"]:
        for line, made, top in _sympy_calls(ast.parse(path.read_text())):
            for symbol in made:
                if symbol in TABLE_SYMBOLS or (top and symbol.name in letters):
                    offences.append(f"{path.relative_to(ROOT)}:{line}: {symbol.name}")
    assert offences == []


# ------------------------------------------------------------------------------------------------- registration

def test_only_the_registry_registers():
    for path in _paper_modules() + [THEOREMS_DIR / "shared.py", THEOREMS_DIR / "symbols.py"]:
        tree = ast.parse(path.read_text())
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        attrs = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
        assert "register" not in names | attrs | imported, path.relative_to(ROOT)


def test_part_modules_list_their_theorems_and_packages_collect_them_in_catalogue_order():
    for paper in registry.PAPER_MODULES:
        package = importlib.import_module(f"dpverify.theorems.{paper}")
        collected = []
        for path in sorted((THEOREMS_DIR / paper).glob("*.py")):
            module = package if path.stem == "__init__" else importlib.import_module(f"dpverify.theorems.{paper}.{path.stem}")
            built = [vars(module)[name] for name in _built_here(path, module)]  # `X = Theorem(...)` in this module
            if path.stem == "__init__":
                collected += built
                continue
            listed = getattr(module, "THEOREMS", ())
            assert sorted(map(id, listed)) == sorted(map(id, built)), f"{paper}.{path.stem}: THEOREMS is not what it builds"
            collected += list(listed)
        assert [t.id for t in package.THEOREMS] == catalogue.ids(paper)
        assert {id(t) for t in collected} == {id(t) for t in package.THEOREMS}
        assert [id(t) for t in registry.all_theorems(paper)] == [id(t) for t in package.THEOREMS]
    assert [t.id for t in THEOREMS] == catalogue.ids()


def _built_here(path: Path, module) -> list[str]:
    """Names a module assigns (not imports) at module level to a Theorem, in source order."""
    names = [t.id for stmt in ast.parse(path.read_text()).body if isinstance(stmt, (ast.Assign, ast.AnnAssign))
             for t in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]) if isinstance(t, ast.Name)]
    return [n for n in dict.fromkeys(names) if isinstance(vars(module).get(n), Theorem)]


def test_in_order_refuses_an_unknown_or_repeated_id():
    thm = registry.get("wang2015.def1_dp")
    with pytest.raises(ValueError, match="given twice"):
        catalogue.in_order([thm, thm])
    stray = Theorem("wang2015.not_an_item", "x", Source("wang2015", "none"), "definition")
    with pytest.raises(KeyError, match="not a catalogue ID"):
        catalogue.in_order([stray])


# ------------------------------------------------------------------------------------------- shared statements

@pytest.mark.parametrize("first,second,values,src_first,src_second", SHARED, ids=[a for a, *_ in SHARED])
def test_a_shared_statement_is_one_encoding_referenced_by_both_papers(first, second, values, src_first, src_second):
    a, b = registry.get(first), registry.get(second)
    assert a is not b and a.core is b.core and a.core in shared.STATEMENTS.values()
    assert a.symbols is b.symbols and a.conclusion is b.conclusion and a.hypotheses is b.hypotheses
    assert (a.source.item, a.source.location) == src_first and (b.source.item, b.source.location) == src_second
    assert a.same_as == [second] and b.same_as == [first]
    assert f"same statement as {second}" in a.explain() and f"same statement as {first}" in b.explain()
    assert a.to_dict()["same_as"] == [second] and b.to_dict()["id"] == second
    ev_a, ev_b = a.evaluate(**values), b.evaluate(**values)
    assert ev_a.theorem_id == first and ev_b.theorem_id == second
    assert dataclasses.replace(ev_b, theorem_id=first) == ev_a
    assert ev_a.guarantee == ev_b.guarantee
    assert not {id(c) for c in a.checks} & {id(c) for c in b.checks}  # each paper's own checks, each run once
    assert a.checks and b.checks


def test_a_change_to_a_shared_statement_is_a_change_to_both():
    a, b = registry.get("wang2015.thm1_ops_pure_dp"), registry.get("foulds2016.thm3_posterior_4b")
    original = a.conclusion["epsilon"]
    try:
        a.conclusion["epsilon"] = 5 * sy.B
        assert b.evaluate(B=1.0).epsilon == 5.0
        assert not all(r.passed for r in b.run_checks())  # Foulds' own checks see it
    finally:
        a.conclusion["epsilon"] = original
    assert b.evaluate(B=1.0).epsilon == 4.0


def test_every_other_item_has_its_own_statement_and_every_check_exists_once():
    for thm in THEOREMS:
        if thm.id not in SHARED_IDS:
            assert thm.core.theorems == [thm] and thm.same_as == [] and "same statement as" not in thm.explain()
    checks = [id(c) for t in THEOREMS for c in t.checks]
    assert len(checks) == len(set(checks))


def test_a_theorem_with_a_shared_statement_takes_nothing_else():
    statement = Statement("example", symbols=sy.pick("B"), conclusion={"epsilon": 4 * sy.B})
    with pytest.raises(ValueError, match="takes its conclusion from the shared statement"):
        Theorem("wang2015.thm1_ops_pure_dp", "x", Source("wang2015", "Theorem 1"), "privacy", shared=statement,
                conclusion={"epsilon": sy.B})
    with pytest.raises(TypeError, match="shared must be a Statement"):
        Theorem("wang2015.thm1_ops_pure_dp", "x", Source("wang2015", "Theorem 1"), "privacy", shared={"B": 1})
    with pytest.raises(ValueError, match="not declared in `symbols`"):
        Statement("bad", symbols=sy.pick("B"), conclusion={"epsilon": sy.epsilon})
