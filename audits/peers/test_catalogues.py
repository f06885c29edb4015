"""The diffprivlib and OpenDP catalogues at the standard budget: no finding, every documented leak found.

A finding (a violation that reproduces on fresh samples with a new seed and is not documented) fails the test with
the rows that made it; so does a documented leak that the audit no longer finds (loss of power) and an audit
error. About 10-20 minutes per library on 2 cores; the quick versions run in tests/test_libraries.py.
"""
import pytest

from dpverify.libraries.runner import failed, load, run_catalogue


@pytest.mark.slow
@pytest.mark.parametrize("library", ["diffprivlib", "opendp"])
def test_catalogue_standard(library):
    pytest.importorskip(library, reason="needs the peers extra: pip install -e '.[peers]'")
    rows = run_catalogue(load(library).catalogue(), "standard", seed=0)
    bad = [(r["case"], r["label"], r.get("certified"), r.get("error")) for r in rows
           if r.get("label") in ("finding", "error", "expected, not found")]
    assert not failed(rows), bad
