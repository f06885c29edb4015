"""The in-repo catalogue (dpverify.theorems.catalogue) against the registry, and the catalogue's own hygiene:
the IDs match one to one, each theorem carries the kinds of check its row asks for, checks tagged "symbolic" do no
numerics, unknown IDs are errors, and no catalogue file reads a path outside the repository."""
import inspect
import re
from pathlib import Path

import pytest

from dpverify.theorems import catalogue, registry
from dpverify.theorems.base import PAPERS

REPO = Path(__file__).resolve().parents[1]
THEOREMS = registry.all_theorems()


def test_catalogue_and_registry_match_one_to_one():
    # 85 items of the four papers, balle2018 Thm 8, chourasia2021 Thm 2, geumlek2017's three, ponnoprat2022 Thm 1, and
    # the field's other private samplers and negative results (issue 39): 25 items of nine papers
    assert len(catalogue.CATALOGUE) == 116
    for paper in PAPERS:
        assert sorted(registry.ids(paper)) == sorted(catalogue.ids(paper)), paper
    assert {it.paper for it in catalogue.CATALOGUE} == set(PAPERS)
    assert {p: len(catalogue.ids(p)) for p in PAPERS} == {"wang2015": 28, "li2019": 20, "bertazzi2025": 18,
                                                        "foulds2016": 19, "balle2018": 1, "chourasia2021": 1,
                                                        "geumlek2017": 3, "ponnoprat2022": 1, "yildirim2019": 3,
                                                        "raisa2021": 3, "heikkila2019": 4, "minami2016": 3,
                                                        "gopi2022": 4, "bok2024": 3, "heller2023": 2,
                                                        "annamalai2024": 1, "cebere2025": 2}


@pytest.mark.parametrize("row", catalogue.CATALOGUE, ids=[r.id for r in catalogue.CATALOGUE])
def test_theorem_carries_the_checks_its_row_asks_for(row):
    thm = registry.get(row.id)
    assert row.kinds <= set(catalogue.CHECK_KINDS) and row.kinds, row.checks
    kinds = {c.kind for c in thm.checks}
    if "S" in row.kinds:
        assert "symbolic" in kinds, f"{row.id}: the catalogue asks for a symbolic check"
    if "N" in row.kinds:
        assert "numeric" in kinds, f"{row.id}: the catalogue asks for a numeric check"
    if "E" in row.kinds:
        assert thm.empirical, f"{row.id}: the catalogue asks for an empirical link"
        for link in thm.empirical:
            assert link.audit == f"audits/test_{link.sampler}.py"
    assert thm.source.paper == row.paper and thm.source.item and thm.statement


#: What a symbolic check may not do: evaluate numerically (numpy, scipy, floats, evalf/N, lambdify, random points).
NUMERIC_PATTERNS = (r"\bnp\.", r"\bnumpy\b", r"\bscipy\b", r"\bfloat\(", r"\.evalf\(", r"\bsp\.N\(", r"lambdify",
                    r"\bmath\.", r"default_rng", r"\brandom\.", r"linspace", r"\.evaluate\(")


@pytest.mark.parametrize("theorem", THEOREMS, ids=[t.id for t in THEOREMS])
def test_symbolic_checks_are_symbolic(theorem):
    """A check tagged "symbolic" re-does a step with sympy; one that samples numeric points is tagged "numeric"."""
    bad = {}
    for check in theorem.checks:
        if check.kind != "symbolic":
            continue
        src = inspect.getsource(check.func)
        src = src[src.index("def "):]  # the function itself, not its decorator's description
        body = src.split('"""', 2)[-1] if src.count('"""') >= 2 else src  # nor its docstring
        hits = [p for p in NUMERIC_PATTERNS if re.search(p, body)]
        if hits:
            bad[check.name] = hits
    assert not bad, f"{theorem.id}: symbolic checks doing numerics: {bad}"


def test_pin_checks_are_numeric_and_named():
    for thm in THEOREMS:
        for c in thm.checks:
            if c.pins:
                assert c.kind == "numeric" and c.name.startswith("pin_") and c.description, (thm.id, c.name)


@pytest.mark.parametrize("bad_id", ["wang2015.thm1_ops_pure_pd", "li2019.nothing", "no_paper_at_all", ""])
def test_unknown_ids_are_errors(bad_id):
    with pytest.raises(KeyError):
        registry.get(bad_id)
    with pytest.raises(KeyError):
        catalogue.item(bad_id)


#: The catalogue's files: the package's theorems, the theorem suites, these tests, the docs generator, moments.py.
CATALOGUE_FILES = sorted(
    [*(REPO / "dpverify" / "theorems").rglob("*.py"), *(REPO / "theorems").glob("*.py"), *(REPO / "tests").glob("test_theorem_*.py"),
     *(REPO / "tests").glob("test_catalogue_*.py"), REPO / "docs" / "hooks" / "generate.py", REPO / "dpverify" / "calculus" / "accounting" / "moments.py",
     *(REPO / "mutation").glob("catalogue.py")]
)
OUTSIDE = ("shared" + "/papers", "../" + "shared", "/work/" + "shared", "HELPERS" + ".md", "INDEX" + ".md", "parents" + "[2]")


@pytest.mark.parametrize("path", CATALOGUE_FILES, ids=[str(p.relative_to(REPO)) for p in CATALOGUE_FILES])
def test_no_catalogue_file_points_outside_the_repository(path):
    text = path.read_text()
    found = [s for s in OUTSIDE if s in text]
    assert not found, f"{path.relative_to(REPO)} refers to {found}, which is not in the repository"
