"""One vocabulary (issue 36): the closed vocabularies live in dpverify.vocabulary (stdlib only), and the layers, the
command line and the pytest plugin derive their words from it instead of keeping copies that drift apart."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from dpverify.vocabulary import (
    Adjacency,
    KnownBadDefect,
    Mode,
    NeighbouringRelation,
    Release,
    TestKind,
    Verdict,
    Vocabulary,
)

PACKAGE = Path(__file__).resolve().parents[1] / "dpverify"


def test_the_vocabulary_module_imports_only_the_standard_library():
    tree = ast.parse((PACKAGE / "vocabulary.py").read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported <= {"enum", "__future__"}, imported


def test_words_are_their_strings_and_typos_are_named_errors():
    assert Release.PATH == "path" and f"{Verdict.VIOLATION}" == "violation" and hash(Mode.MATHEMATICAL) == hash(
        "mathematical")
    with pytest.raises(ValueError, match=r"mode must be one of \('mathematical', 'implementation'\); got 'maths'"):
        Mode.parse("maths", "mode")


def test_replace_is_read_as_replace_one():
    """The auditor and the library catalogues said "replace" where the calculus said "replace_one"."""
    assert NeighbouringRelation("replace") is NeighbouringRelation.REPLACE_ONE
    assert Adjacency("replace") is Adjacency.REPLACE_ONE
    assert Adjacency.EITHER.relations() == (NeighbouringRelation.REPLACE_ONE, NeighbouringRelation.ADD_REMOVE)


def test_the_shims_re_export_the_same_classes():
    from dpverify.audit import kinds
    from dpverify.calculus import vocabulary

    assert vocabulary.Release is Release and vocabulary.NeighbouringRelation is NeighbouringRelation
    assert kinds.Verdict is Verdict and kinds.Mode is Mode and kinds.TestKind is TestKind


def test_choice_lists_and_catalogues_derive_from_the_vocabulary():
    from dpverify.cases import KNOWN_BAD_DEFECTS, cases
    from dpverify.interfaces.cli import audit as audit_cli
    from dpverify.interfaces.cli import build_parser
    from dpverify.samplers import broken

    assert audit_cli.MODES == Mode.values()
    assert broken.DEFECTS == KNOWN_BAD_DEFECTS == KnownBadDefect.values()
    known_bad = [c.params["defect"] for c in cases() if c.known_bad and "defect" in c.params]
    # one path-release case per defect, in the vocabulary's order; a defect may have more cases (issue 38: the
    # shared-noise defect's final release, dp_sgld_broken_shared_noise_final)
    assert list(dict.fromkeys(known_bad)) == list(KnownBadDefect.values())
    assert [c.params["defect"] for c in cases() if c.id == f"dp_sgld_broken_{c.params.get('defect')}"] == \
        list(KnownBadDefect.values())
    parser = build_parser()
    sub = next(a for a in parser._subparsers._group_actions if a.choices)  # noqa: SLF001 - argparse internals
    mode = next(a for a in sub.choices["audit"]._actions if "--mode" in a.option_strings)
    assert tuple(mode.choices) == Mode.values()


def _literal_tuples(words: tuple[str, ...]) -> list[str]:
    """Files of the package (outside the vocabulary) holding a literal tuple of ``words`` in order."""
    pattern = re.compile(r"\(\s*" + r"\s*,\s*".join(re.escape(repr(w)).replace("'", "[\"']") for w in words[:2]))
    return [str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py")
            if p.name != "vocabulary.py" and pattern.search(p.read_text())]


@pytest.mark.parametrize("vocabulary", [Mode, KnownBadDefect, Verdict], ids=lambda v: v.__name__)
def test_no_module_keeps_its_own_copy_of_a_vocabulary(vocabulary: type[Vocabulary]):
    """The audit mode was listed three times and the known-bad defects twice; a copy is now a test failure."""
    assert _literal_tuples(vocabulary.values()) == []


def test_library_relations_are_the_vocabulary():
    """The library layer speaks NeighbouringRelation: "replace" (the old spelling) is read as "replace_one" by a
    LibraryFunction, a ledger's composition and the pair builder; a word outside it is refused, naming the argument
    (a broken parse that kept "replace" as a third relation, or dropped the disjoint-parts rule, fails here)."""
    import numpy as np

    from dpverify.libraries.base import ADJACENCIES, Claimed, LibraryFunction
    from dpverify.libraries.ledger import LedgerEntry, compose
    from dpverify.libraries.search import record_pairs

    assert ADJACENCIES == NeighbouringRelation.values()
    fn = LibraryFunction("lib", "1", "f", lambda d, n, rng: np.zeros(n), lambda d: Claimed(1.0, 0.0, "arg"),
                         [(np.zeros(2), np.ones(2))], adjacency="replace")
    assert fn.adjacency is NeighbouringRelation.REPLACE_ONE
    with pytest.raises(ValueError, match="adjacency must be one of"):
        LibraryFunction("lib", "1", "f", lambda d, n, rng: np.zeros(n), lambda d: Claimed(1.0, 0.0, "arg"),
                        [(np.zeros(2), np.ones(2))], adjacency="swap")
    parts = [LedgerEntry("laplace", 0.5, 0.0, 1.0, 2.0, "lib/m.py:1", "f", partition=("disjoint", "loop", k)) for k in range(3)]
    assert compose(parts, "replace").epsilon == compose(parts, "replace_one").epsilon == 1.0  # two largest parts
    assert compose(parts, "add_remove").epsilon == 0.5
    assert [p.label for p in record_pairs(0.0, 1.0, adjacency="replace_one", families=("empty", "size1"))] == \
        ["size1:replace"]
    with pytest.raises(ValueError, match="adjacency must be one of"):
        record_pairs(0.0, 1.0, adjacency="bounded")
