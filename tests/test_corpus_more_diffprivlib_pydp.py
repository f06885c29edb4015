"""The diffprivlib corpus case diffprivlib#34 (issue 37, section 3) on the installed diffprivlib (0.6.6, fixed), and
diffprivlib#23 (the Wishart mechanism of 0.2-0.3, fixed in 0.4.0), and the re-implemented Google C++ DP defect
reached through PyDP (pydp-google-pr87), which needs no library.

``models.LinearRegression`` 0.4.0 declared the sensitivity of its ``sum(y^2)`` coefficient from the lower bounds of
``y`` only (0 for ``bounds_y=([0], [1])``); 0.4.1 fixed it (PR #35). The installed release must show the fix, and
the check must have power: the defect put back around the installed release (the first ``LaplaceFolded`` of a fit,
the ``sum(y^2)`` one, declared with sensitivity 0 as 0.4.0 did) flips the verdict. The by-version runs (0.4.0 bad,
0.4.1 good) install releases and are not run here: no test downloads anything. The pipeline-dp case is in
``test_corpus_pydp.py`` (marker ``pipeline_dp``).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dpverify.libraries import corpus
from dpverify.libraries.corpus import diffprivlib_bugs, pydp_bugs
from dpverify.libraries.corpus.model import installed_version


def _case() -> corpus.CorpusCase:
    return corpus.find("diffprivlib#34")


def test_its_versions_and_references():
    case = _case()
    assert case.kind == "library" and case.method == "ledger" and case.isolation == "target"
    assert case.fixed_in == "0.4.1" and case.releases == ("0.4.0", "0.4.1")
    assert case.expected("0.4.0") == "bad"
    assert [case.expected(v) for v in ("0.3.0", "0.4.1", "0.5.0", "0.6.6")] == ["good"] * 4
    assert case.refs == ("https://github.com/IBM/differential-privacy-library/issues/34",
                         "https://github.com/IBM/differential-privacy-library/pull/35")


def test_the_installed_release_shows_the_fix():
    case = _case()
    row = corpus.run_case(case)
    assert row.version == installed_version("diffprivlib") and row.expected == case.expected(row.version) == "good"
    assert row.status == "fixed", row.detail
    assert row.agrees is True and row.seconds < 60
    # the sum(y^2) coefficient: bounds_y = ([0], [1]) gives max(|0|, |1|)^2 = 1; the last label 0 -> 1 moves it by 1
    assert row.numbers["first_call"] == "LaplaceFolded"
    assert row.numbers["declared"] == 1.0 and row.numbers["change"] == 1.0


def test_the_check_flags_the_defect_put_back(monkeypatch):
    """0.4.0's defect around the installed release: the first LaplaceFolded a fit builds (the sum(y^2) coefficient)
    gets sensitivity ``np.abs(bounds_y[0]).max() ** 2`` = 0, as linear_regression.py:115 of 0.4.0 computed it."""
    from diffprivlib.models import linear_regression

    original = linear_regression.LaplaceFolded
    built: list[Any] = []

    class LowerBoundOnly(original):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, sensitivity: float, **kwargs: Any) -> None:
            super().__init__(*args, sensitivity=0.0 if not built else sensitivity, **kwargs)
            built.append(self)

    def fresh_ledgers() -> tuple:
        built.clear()
        return original_ledgers()

    original_ledgers = diffprivlib_bugs._dpl34_ledgers
    monkeypatch.setattr(linear_regression, "LaplaceFolded", LowerBoundOnly)
    monkeypatch.setattr(diffprivlib_bugs, "_dpl34_ledgers", fresh_ledgers)
    out = diffprivlib_bugs._dpl_34()
    assert out["status"] == "reproduced", out["detail"]
    assert out["declared"] == 0.0 and out["change"] == 1.0
    assert out["site"].startswith("diffprivlib/models/linear_regression.py:")


def test_the_legacy_shims_are_undone():
    """The import shims for old releases leave scikit-learn as they found it."""
    import inspect

    import sklearn.linear_model as sl
    from sklearn.base import BaseEstimator

    before = (sl.LinearRegression.__init__, hasattr(BaseEstimator, "_validate_data"))
    with diffprivlib_bugs._legacy_sklearn() as shims:
        # scikit-learn >= 1.2 has no ``normalize``: the shim adds it for the block
        assert "sklearn.linear_model.LinearRegression(normalize=...)" in shims
        assert "normalize" in inspect.signature(sl.LinearRegression.__init__).parameters
    assert (sl.LinearRegression.__init__, hasattr(BaseEstimator, "_validate_data")) == before


@pytest.mark.parametrize("name", ["_logistic_loss_and_grad"])
def test_a_stood_in_name_refuses_to_run(name):
    with pytest.raises(NotImplementedError, match=name):
        diffprivlib_bugs._removed(name)()


# -- pydp-google-pr87 (re-implementation): the implicit ApproxBounds of a BoundedSum ignore its contribution bounds --

def test_pr87_the_reported_builder_is_flagged_and_the_fix_passes():
    case = corpus.find("pydp-google-pr87")
    assert case.kind == "re-implementation" and case.method == "replay" and not case.releases
    row = corpus.run_case(case)
    assert row.status == "ok", row.detail
    assert row.numbers["reported_flags"] == ["sensitivity"] and row.numbers["fixed_flags"] == []
    assert row.version is None and row.expected is None and row.seconds < 60


@pytest.mark.parametrize("both_fixed", [True, False])
def test_pr87_the_check_has_power(monkeypatch, both_fixed):
    """Both builders made the same (both fixed: nothing flagged; both reported: the 'fixed' one flagged): 'failed'."""
    original = pydp_bugs._approx_bounds_bins

    def same(units, rng, *, implicit_bounds_fixed):
        return original(units, rng, implicit_bounds_fixed=both_fixed)

    monkeypatch.setattr(pydp_bugs, "_approx_bounds_bins", same)
    out = pydp_bugs._google_dp_pr87()
    assert out["status"] == "failed"
    assert (out["reported_flags"], out["fixed_flags"]) == (([], []) if both_fixed else (["sensitivity"],) * 2)


# -- diffprivlib#23: the Wishart mechanism (0.2.0-0.3.0) adds PSD noise, so its support moves with the data ----------

class _PsdNoise:
    """A stand-in for 0.3.0's Wishart mechanism (wishart.py:155-159): ``value + G G^T``, G a d x (d+1) Gaussian
    matrix of scale 1 / 2 (data_norm 1, epsilon 1), drawn from numpy's global generator as 0.3.0 did."""

    def randomise(self, value):
        g = np.random.randn(value.shape[0], value.shape[0] + 1) * 0.5
        return value + g @ g.T


def test_dpl23_versions_and_the_installed_release():
    case = corpus.find("diffprivlib#23")
    assert case.fixed_in == "0.4.0" and case.releases == ("0.3.0", "0.4.0") and case.isolation == "target"
    assert case.expected("0.2.0") == case.expected("0.3.0") == "bad" and case.expected("0.4.0") == "good"
    row = corpus.run_case(case)
    assert row.version == installed_version("diffprivlib") and row.status == "fixed" and row.agrees is True
    assert row.numbers["matrix_calls"] == [0, 0]  # 0.4.0+ fit without any matrix-valued noise


def test_dpl23_the_check_flags_psd_noise(monkeypatch):
    """The Wishart-style call put back (the fit's A^T A on D and D' handed to PSD noise): the audit certifies far
    above epsilon 1, since 'output - A'^T A' not PSD' happens on D (about 0.98 of releases) and never on D'."""
    def calls(x, y):
        a = np.c_[x, y]
        return [(_PsdNoise(), a.T @ a)]

    monkeypatch.setattr(diffprivlib_bugs, "_dpl23_noise_calls", calls)
    out = diffprivlib_bugs._dpl_23(samples=1000)
    assert out["status"] == "reproduced", out["detail"]
    # 500 releases per side: a rate near 0.98 on D (binomial sd ~0.006) and exactly 0 on D' (W is PSD)
    assert out["rates"][1] == 0.0 and out["rates"][0] > 0.9
    assert out["certified"] > out["claimed"] == 1.0
