"""The dpmm corpus cases on the installed dpmm (marker ``dpmm``: dpmm pins numpy 1.26.4, pandas 2.1.0,
scikit-learn 1.5.0 and opendp 0.12.1, so it gets an environment of its own).

Each check records dpmm's Gaussian noise on D and replays D' with the same draws; the leak is a noise vector whose
shape (the marginal's number of cells, read from the private table) differs between D and D'. The same fit with the
domain given as public knowledge is the fix the maintainers prescribe: the check runs it too, and it must flag
nothing, so the tests below show both sides: the defect flagged, the fix clean.
"""
from __future__ import annotations

import importlib

import pytest

from dpverify.libraries.corpus import dpmm_bugs, find, run_case
from dpverify.libraries.corpus.model import installed_version
from dpverify.libraries.replay import record_and_replay

pytestmark = pytest.mark.dpmm


@pytest.fixture(autouse=True)
def _dpmm_installed() -> None:
    """dpmm must be importable: a missing dpmm makes every test here FAIL, never skip. (Imported here, not at module
    level: the default run, which deselects the marker, still collects this file where dpmm is not installed.)"""
    importlib.import_module("dpmm")


def _dpmm_noise():
    """dpmm's noise module (``dpmm.models.base.utils``), imported when a test runs."""
    return importlib.import_module("dpmm.models.base.utils")


@pytest.mark.parametrize("case_id", ["dpmm#18", "dpmm#24"])
def test_the_check_gives_the_verdict_its_version_should(case_id: str) -> None:
    case = find(case_id)
    row = run_case(case)
    version = installed_version("dpmm")
    assert row.version == version
    assert row.expected == case.expected(version) == "bad"  # no fixed dpmm is on PyPI (0.1.1 .. 0.1.9)
    assert row.status == "reproduced", row.detail
    assert row.agrees is True and row.seconds < 60


def test_dpmm_18_the_inferred_domain_is_the_private_maximum_plus_one() -> None:
    """D has a in {0, 1, 2}: 3 cells; D' holds one a = 5: 6 cells. The first noise vector (the root's one-way
    marginal, or the two-way marginal) has the private maximum's size on each side; with the domain given, the
    same fit is clean."""
    out = dpmm_bugs._dpmm_18()
    assert out["status"] == "reproduced"
    assert out["flags_with_domain"] == []
    first = out["flags"][0]
    assert first.startswith("data_bound at dpmm/models/base/mechanisms/mechanism.py:")
    assert "D: (3,); D': (6,)" in first or "D: (3, 2); D': (6, 2)" in first or "D: (2, 3); D': (2, 6)" in first


def test_dpmm_24_the_categories_are_the_private_unique_values() -> None:
    out = dpmm_bugs._dpmm_24()
    assert out["status"] == "reproduced"
    assert out["flags_with_domain"] == []
    assert "D: (2,); D': (3,)" in out["flags"][0] or "D: (2, 2); D': (3, 2)" in out["flags"][0] \
        or "D: (2, 2); D': (2, 3)" in out["flags"][0]


@pytest.mark.parametrize("fit, pair", [(dpmm_bugs._fit_priv_bayes, dpmm_bugs._integer_pair),
                                       (dpmm_bugs._fit_pipeline, dpmm_bugs._categorical_pair)])
def test_the_replay_has_power_both_ways(fit, pair) -> None:
    """Mutation: the domain inferred (the defect) is flagged, the same pair with the domain given (the fix) is not;
    and the same dataset on both sides (no neighbour) is never flagged, domain inferred or not."""
    d, d_prime = pair()
    primitive = dpmm_bugs._noise_primitive()
    public = {"a": 6, "b": 2} if fit is dpmm_bugs._fit_priv_bayes else \
        {"c": {"categories": ["x", "y", "z"]}, "e": {"categories": ["u", "v"]}}
    assert "data_bound" in record_and_replay(fit(None), d, d_prime, primitives=[primitive], watch=False).kinds()
    assert record_and_replay(fit(public), d, d_prime, primitives=[primitive], watch=False).ok
    assert record_and_replay(fit(None), d, d.copy(), primitives=[primitive], watch=False).ok


def test_the_primitive_is_dpmms_gaussian_noise() -> None:
    """The recorded primitive is the one dpmm's marginal measurement calls (``Mechanism._measure``)."""
    p = dpmm_bugs._noise_primitive()
    assert p.module is _dpmm_noise() and p.name == "gaussian_noise"
    assert p.bounds_arg({"size": (3, 2)}) == (3, 2) and p.bounds_arg({"size": None}) is None


def test_dpmm_18_pr_19s_guard_flips_the_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    """Mutation: PR #19's fix (``assert self._domain is not None, "Domain must be provided"`` at the top of
    ``Mechanism.fit``) put into the installed dpmm turns the verdict to "fixed"."""
    from dpmm.models.base.mechanisms.mechanism import Mechanism

    original = Mechanism.fit

    def fit(self, df, *args, **kwargs):  # type: ignore[no-untyped-def]
        assert self._domain is not None, "Domain must be provided"
        return original(self, df, *args, **kwargs)

    monkeypatch.setattr(Mechanism, "fit", fit)
    out = dpmm_bugs._dpmm_18()
    assert out["status"] == "fixed", out["detail"]
    assert "Domain must be provided" in out["detail"] and out["flags_with_domain"] == []
