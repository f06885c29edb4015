"""docs/distributed.md is in the site's navigation (tests/test_docs.py builds the site in strict mode) and gives the
multi-machine recipe, the bit-identity guarantee and a measured table."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_distributed_page_is_in_the_nav_and_has_the_recipe_and_the_measurements():
    assert "distributed.md" in (REPO / "mkdocs.yml").read_text()
    page = (REPO / "docs" / "distributed.md").read_text()
    for needed in ("dask scheduler", "dask worker tcp://", "--scheduler tcp://", "audit(mechanism, dataset, neighbour",
                   "client=client", "SeedSequence.spawn", "pip install 'dpverify[distributed]'", "1e+09"):
        assert needed in page, needed
    assert "MEASURED-TABLE" not in page
