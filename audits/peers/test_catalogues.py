"""The diffprivlib and OpenDP catalogues at the standard budget, and the one finding of the full run.

`test_catalogue_standard`: no new finding (a violation that reproduces on fresh samples with a new seed and is not
documented), every documented leak found, no audit error. Findings already reported (:data:`KNOWN_FINDINGS`) are
allowed there and checked by their own test, so a fix upstream shows up as that test failing. About 10-20 minutes
per library on 2 cores; the quick versions run in tests/test_libraries.py.
"""
import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.libraries.runner import load, run_catalogue

#: Reported findings (docs/libraries.md, "What the full run found").
KNOWN_FINDINGS = {
    "diffprivlib.models.LinearRegression(epsilon=1.0, bounds_X=([0.0], [1.0]), bounds_y=(0, 1)).coef_",
    # option sweep: without an intercept the X^T X coefficient has sensitivity 0 (line 144) and the data are not
    # clipped (clip_to_bounds runs only under `if fit_intercept:`); with symmetric bounds only the clipping remains
    ("diffprivlib.models.LinearRegression(epsilon=1.0, bounds_X=([0.0], [1.0]), bounds_y=(0, 1), "
     "fit_intercept=False).coef_"),
    ("diffprivlib.models.LinearRegression(epsilon=1.0, bounds_X=([-1.0], [1.0]), bounds_y=(0, 1), "
     "fit_intercept=False).coef_"),
}


@pytest.mark.slow
@pytest.mark.parametrize("library", ["diffprivlib", "opendp"])
def test_catalogue_standard(library):
    pytest.importorskip(library, reason="needs the peers extra: pip install -e '.[peers]'")
    rows = run_catalogue(load(library).catalogue(), "standard", seed=0)
    bad = [(r.case, r.label, r.certified, r.error) for r in rows
           if r.label in ("error", "expected, not found") or (r.label == "finding" and r.case not in KNOWN_FINDINGS)]
    assert not bad


@pytest.mark.slow
@pytest.mark.parametrize("seed", [101, 202])
def test_diffprivlib_linear_regression_exceeds_its_claim(seed):
    """The two-record replace-one pair on which diffprivlib's LinearRegression at epsilon = 1 was certified at
    1.69 / 1.50 (docs/libraries.md). Each seed is an independent audit with 15,000 samples per side at confidence
    0.95; a correct claim is exceeded by one of them with probability <= 0.05, by both with <= 0.0025."""
    pytest.importorskip("diffprivlib", reason="needs the peers extra: pip install -e '.[peers]'")
    fn = next(f for f in load("diffprivlib").catalogue() if f.qualified_name in KNOWN_FINDINGS
              and f.options.get("fit_intercept"))
    d, n = next(p for p in fn.pairs if p.label.startswith("small"))
    claim = fn.claim(d)
    result = audit(fn.mechanism, np.asarray(d), np.asarray(n), epsilon=claim.epsilon, samples=15_000, seed=seed,
                   adjacency=fn.adjacency)
    assert result.verdict == "violation", (result.epsilon_lower, result.event)


@pytest.mark.slow
@pytest.mark.parametrize("lower, family", [(0.0, "small"), (0.0, "outlier"), (-1.0, "outlier")])
def test_diffprivlib_linear_regression_without_intercept_leaks_without_bound(lower, family):
    """fit_intercept=False. bounds_X=([0], [1]), the two-record pair inside the bounds (the one of the finding
    above): the X^T X coefficient is released without noise (sensitivity 0, linear_regression.py line 144), so the
    noise scale of coef_ depends on the data (certified 4.6 at seed 7; on the 8-record `bounds` pair the same
    audit stays below 1: the scales differ less); outlier
    pair (one record 1e6): no clipping, coef_ collapses towards 0. Each audit (8,000 samples per side, confidence
    0.95) must certify above the claim; fails the day diffprivlib fixes the line and clips without an intercept."""
    pytest.importorskip("diffprivlib", reason="needs the peers extra: pip install -e '.[peers]'")
    fn = next(f for f in load("diffprivlib").catalogue() if f.options.get("fit_intercept") is False
              and f.name.startswith("models.LinearRegression") and f.options["bounds_X"][0][0] == lower)
    d, n = next(p for p in fn.pairs if p.label.startswith(family))
    claim = fn.claim(d)
    result = audit(fn.mechanism, np.asarray(d), np.asarray(n), epsilon=claim.epsilon, samples=8_000, seed=7,
                   adjacency=fn.adjacency)
    assert result.verdict == "violation" and result.epsilon_lower > claim.epsilon, (result.epsilon_lower,
                                                                                    result.event)
