"""The pipeline-dp corpus case pipeline_dp#551 (issue 37, section 3) on the installed pipeline-dp (0.3.1, fixed);
marker ``pipeline_dp`` (pipeline-dp and python-dp are not in the default test run).

PipelineDP 0.2.1's VECTOR_SUM clipped the partition's total instead of each privacy unit's vector (issue #551, fixed
by PR #556 in 0.3.0). The installed release must show the fix, and the check must have power: with the per-unit clip
of 0.3.x turned into the identity (the vector handed to the noise is then the unclipped total, as in 0.2.1) the
replay flags the sensitivity. The by-version runs (0.2.1 bad, 0.3.0 good) install releases and are not run here.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from dpverify.libraries import corpus
from dpverify.libraries.corpus import pydp_bugs
from dpverify.libraries.corpus.model import installed_version

pytestmark = pytest.mark.pipeline_dp


@pytest.fixture(autouse=True)
def _pipeline_dp_installed() -> None:
    """pipeline-dp must be importable: a missing one makes every test here FAIL, never skip (imported here, not at
    module level, so that the default run collects this file where pipeline-dp is not installed)."""
    importlib.import_module("pipeline_dp")


def test_its_versions_and_references():
    case = corpus.find("pipeline_dp#551")
    assert case.kind == "library" and case.method == "replay" and case.pip_name == "pipeline-dp"
    assert case.fixed_in == "0.3.0" and case.releases == ("0.2.1", "0.3.0") and case.isolation == "target"
    assert case.expected("0.2.1") == "bad" and case.expected("0.3.0") == case.expected("0.3.1") == "good"
    assert case.refs == ("https://github.com/OpenMined/PipelineDP/issues/551",
                         "https://github.com/OpenMined/PipelineDP/pull/556")


def test_the_installed_release_shows_the_fix():
    case = corpus.find("pipeline_dp#551")
    row = corpus.run_case(case)
    assert row.version == installed_version("pipeline-dp") and row.expected == "good"
    assert row.status == "fixed", row.detail
    assert row.agrees is True and row.seconds < 60
    # 200 units clipped to -1 each, then one more clipped to +1: the sum moves by exactly the per-unit bound
    assert row.numbers["values"] == [[-200.0], [-199.0]] and row.numbers["moved"] == 1.0


def test_the_check_flags_the_missing_per_unit_clip(monkeypatch):
    combiners = importlib.import_module("pipeline_dp.combiners")
    monkeypatch.setattr(combiners.VectorSumCombiner, "_clip_vector", lambda self, vec: np.asarray(vec))
    out = pydp_bugs._pipeline_dp_551()
    assert out["status"] == "reproduced", out["detail"]
    assert out["flags"] == ["sensitivity"]
    assert out["values"] == [[-1000.0], [1000.0]] and out["moved"] == 2000.0 > out["declared"]
