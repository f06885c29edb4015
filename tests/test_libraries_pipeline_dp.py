"""pipeline-dp (0.3.1) catalogue: every aggregation runs and is not flagged; a monkeypatched library that quarters
its Laplace noise, or a wrapper that skips contribution bounding, is flagged.

Marker ``pipeline_dp`` (excluded from the default run; ``pytest -m pipeline_dp``; the ``pipeline-dp`` extra). The
library is imported by an autouse fixture: without it these tests FAIL, they do not skip; the default run, which
deselects the marker, still collects this file without it.
PyDP's C++ generator supplies the noise (not seedable): the assertions are statistical, their error rates next to
them.
"""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from dpverify.libraries import pipeline_dp as catalogue_module
from dpverify.libraries.base import LabelledPair
from dpverify.libraries.runner import FAILING_LABELS, Budget, load, run_catalogue, select

pytestmark = pytest.mark.pipeline_dp

# The library is imported where the marked tests run (an autouse fixture), not at collection: the default run deselects
# the marker and must still collect this file where the extra is not installed; a marked run without the extra fails
# with the ImportError (never a skip).


@pytest.fixture(autouse=True)
def dp_computations():
    """pipeline-dp's ``dp_computations`` module (the tests patch its Laplace mechanism)."""
    importlib.import_module("pipeline_dp")
    return importlib.import_module("pipeline_dp.dp_computations")

TINY = Budget("tiny", search=800, final=800)


def test_load_claims_and_pairs():
    module = load("pipeline-dp")
    assert module is catalogue_module and module.version() == "0.3.1"
    fns = {f.name: f for f in module.catalogue()}
    assert len(fns) == 6
    s = fns["aggregate(SUM, gaussian, [0, 1])"]
    c = s.claim(s.pairs[0][0])
    assert (c.epsilon, c.delta) == (1.0, 1e-6) and "mechanism_specs" in c.source
    mean = fns["aggregate(MEAN, laplace, [0, 1])"]
    assert mean.claim(mean.pairs[0][0]).epsilon == pytest.approx(1.0)  # count + normalized sum, composed
    assert all(np.asarray(p[0]).shape[1:] == (catalogue_module.CONTRIBUTIONS,) for p in s.pairs)


def test_contribution_bounding_keeps_one_value_per_privacy_id():
    """Three privacy ids with three contributions of 1 each: a bounded COUNT is 3 plus Laplace(1) noise; without
    bounding it would be 9. The mean of 200 releases has standard error sqrt(2/200) = 0.1: |mean - 3| < 0.6 is a
    six-sigma band."""
    d = np.ones((3, catalogue_module.CONTRIBUTIONS))
    values = [catalogue_module.release(d, "COUNT", "LAPLACE", 1.0, 0.0)[0] for _ in range(200)]
    assert abs(np.mean(values) - 3.0) < 0.6


def test_bad_input_is_a_value_error():
    with pytest.raises(ValueError, match="metric must be one of"):
        catalogue_module.release(np.ones((2, 3)), "MEDIAN", "LAPLACE", 1.0, 0.0)
    with pytest.raises(ValueError, match="noise must be"):
        catalogue_module.release(np.ones((2, 3)), "SUM", "DISCRETE", 1.0, 0.0)
    with pytest.raises(ValueError, match="records of 3 contributions"):
        catalogue_module.release(np.ones((2, 4)), "SUM", "LAPLACE", 1.0, 0.0)


def test_catalogue_runs_and_the_library_is_not_flagged():
    """No error, no unavailable row, no finding (at confidence 0.99 a correct claim is a confirmed finding with
    probability at most 1e-4 per function)."""
    rows = run_catalogue(catalogue_module.catalogue(), TINY, seed=4, confidence=0.99)
    assert len(rows) == 6
    assert not [r.case for r in rows if r.label in FAILING_LABELS or r.verdict in ("error", "unavailable")]


def test_quartered_laplace_noise_is_a_finding(monkeypatch, dp_computations):
    """Mutation: the library's Laplace mechanism is built with 4x the epsilon it was allocated (a quarter of the
    noise): SUM's true epsilon is 4 against the claimed 1; the audits certified above 1.5 in our runs."""
    original = dp_computations.LaplaceMechanism.create_from_epsilon.__func__

    def quartered(cls, epsilon, l1_sensitivity):
        return original(cls, 4.0 * epsilon, l1_sensitivity)

    monkeypatch.setattr(dp_computations.LaplaceMechanism, "create_from_epsilon", classmethod(quartered))
    fns = select(catalogue_module.catalogue(), "aggregate(SUM, laplace*")
    (row,) = run_catalogue(fns, TINY, seed=5)
    assert row.label == "finding" and row.certified > 1.0 and row.confirm_certified > 1.0


def test_ledger_records_every_noise_call_and_matches_the_accountant(dp_computations):
    """MEAN draws two Laplace noises (count: epsilon 1/2, sensitivity 1; normalized sum: epsilon 1/2, sensitivity
    1/2), from pipeline_dp/combiners.py; their composition equals the accountant's allocation and the total asked."""
    d = np.ones((3, catalogue_module.CONTRIBUTIONS))
    led = catalogue_module.release_ledger(d, "MEAN", "LAPLACE", 1.0, 0.0)
    assert [(e.mechanism, e.epsilon, e.sensitivity) for e in led.entries] == [
        ("LaplaceMechanism", 0.5, 1.0), ("LaplaceMechanism", 0.5, 0.5)]
    assert all(e.site.startswith("pipeline_dp/combiners.py:") for e in led.entries)
    assert led.entries[0].value == 3.0  # three privacy ids after contribution bounding
    assert led.spent.epsilon == pytest.approx(1.0) and led.mismatch == {}
    assert dp_computations.dp_mechanisms.__name__.endswith("numerical_mechanisms")  # restored after recording
    gauss = catalogue_module.release_ledger(d, "SUM", "GAUSSIAN", 1.0, 1e-6)
    assert [(e.mechanism, e.epsilon, e.delta) for e in gauss.entries] == [("GaussianMechanism", 1.0, 1e-6)]


def test_ledger_catches_the_quartered_noise_without_sampling(monkeypatch, dp_computations):
    """The same mutation as above seen by the ledger: the Laplace call spends epsilon 4 where the accountant
    recorded 1; the runner's row says the finding comes from the ledger."""
    original = dp_computations.LaplaceMechanism.create_from_epsilon.__func__
    monkeypatch.setattr(dp_computations.LaplaceMechanism, "create_from_epsilon",
                        classmethod(lambda cls, e, s: original(cls, 4.0 * e, s)))
    led = catalogue_module.release_ledger(np.ones((3, 3)), "SUM", "LAPLACE", 1.0, 0.0)
    assert led.mismatch["spent_over_recorded"]["epsilon"] == pytest.approx(3.0)
    fns = select(catalogue_module.catalogue(), "aggregate(COUNT*")
    (row,) = run_catalogue(fns, Budget("floor", search=200, final=200), seed=7)
    assert row.label == "finding" and "ledger" in row.finding_from


def test_a_wrapper_without_contribution_bounding_is_a_finding():
    """Mutation: a wrapper that gives every contribution its own privacy id (so the library's bound of one
    contribution per id no longer bounds a person): the person added contributes 3, the true epsilon of COUNT is 3
    against the claimed 1."""
    fn = select(catalogue_module.catalogue(), "aggregate(COUNT*")[0]

    def unbounded(dataset, n, rng):
        flat = np.asarray(dataset, dtype=float).reshape(-1, 1)
        spread = np.repeat(flat, catalogue_module.CONTRIBUTIONS, axis=1)  # each contribution its own id
        return fn.mechanism(spread, n, rng)

    pair = LabelledPair(np.ones((2, 3)), np.ones((3, 3)), "bounds:add", "one more person with 3 contributions")
    broken = type(fn)(fn.library, fn.version, fn.name + " [no bounding]", unbounded, fn.claim, [pair],
                      adjacency="add_remove", reproducible=False, cost=fn.cost)
    (row,) = run_catalogue([broken], TINY, seed=6)
    assert row.label == "finding" and row.certified > 1.0
