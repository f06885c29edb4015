"""OpenDP#2941 (a Polars cast to Float32 given a float64 domain) on the installed OpenDP with its Polars extra.

Needs ``polars`` and ``pyarrow`` beside OpenDP (``pip install "opendp[polars]==0.16.0"``, which pins polars 1.36.1):
imported by an autouse fixture, so an environment without them fails here instead of skipping.
"""
from __future__ import annotations

import importlib

import pytest

from dpverify.libraries import corpus
from dpverify.libraries.corpus.model import installed_version

pytestmark = pytest.mark.opendp_polars


@pytest.fixture(autouse=True)
def _polars_installed() -> None:
    """polars and pyarrow must be importable: a missing one makes every test here FAIL, never skip (imported here,
    not at module level, so that the default run collects this file where they are not installed)."""
    importlib.import_module("polars")
    importlib.import_module("pyarrow")


def test_opendp_2941_float32_cast_on_the_installed_version():
    case = corpus.find("opendp#2941")
    row = corpus.run_case(case)
    expected = "reproduced" if case.expected(installed_version("opendp")) == "bad" else "fixed"
    assert row.status == expected, row.detail
    # the map claims epsilon 1 at scale 1e38; about 0.94 vs 0.004 of releases exceed 1.7e38 (1000 per side)
    assert row.numbers["claimed"] == pytest.approx(1.0, rel=1e-9)
    assert row.numbers["certified"] > 2.0 and row.seconds < 90
