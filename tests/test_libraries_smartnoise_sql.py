"""smartnoise-sql (1.0.10) catalogue: the claims are what the library was given, composed as its odometer does;
the pairs are add/remove of one row; clean queries are not flagged; the library's two documented unsafe settings
are found; a library with a quarter of its noise, and a column whose bounds were widened after its sensitivity was
declared, are findings.

Marker ``smartnoise_sql`` (excluded from the default run; ``pytest -m smartnoise_sql``), in an environment of its
own (smartnoise-sql pins opendp 0.14): ``pip install -e '.[test]' smartnoise-sql``. The library is imported by an
autouse fixture: without it these tests FAIL (an ImportError), they never skip; the default run, which deselects the
marker, still collects this file where smartnoise-sql is not installed (a module-level ``import snsql`` would break
that collection).

OpenDP draws the noise from the operating system (not seedable): the assertions on audits are statistical, their
error rates next to them.
"""
from __future__ import annotations

import dataclasses
import importlib
import sys

import numpy as np
import pytest

from dpverify.audit.datasets import check_adjacent
from dpverify.interfaces.cli import main
from dpverify.libraries import smartnoise_sql as catalogue_module
from dpverify.libraries.base import LabelledPair
from dpverify.libraries.runner import FAILING_LABELS, Budget, load, run_catalogue

pytestmark = pytest.mark.smartnoise_sql

#: 400 + 400 samples per side, divided by the entries' cost 5: the floors, 200 + 200 (about ten seconds a function).
TINY = Budget("tiny", search=400, final=400)

#: Noisy columns of each entry's rewritten query (module docstring of dpverify.libraries.smartnoise_sql).
COLUMNS = {"COUNT(*) FROM T)": 1, "SUM(x)": 1, "AVG(x)": 2, "VAR(x)": 3, "GROUP BY g)": 1}


@pytest.fixture(autouse=True)
def snsql():
    """The library (an ImportError fails the test: the marked run needs it)."""
    return importlib.import_module("snsql")


def _fn(name: str, **kwargs):
    (fn,) = [f for f in catalogue_module.catalogue(**kwargs) if f.name == name]
    return fn


SUM = "execute(SELECT SUM(x) FROM T, x in [0, 1])"
GROUPED = "execute(SELECT g, COUNT(*) FROM T GROUP BY g) [censor_dims]"


def _columns(name: str) -> int:
    return next(k for key, k in COLUMNS.items() if key in name)


def test_load_and_the_claims_are_what_the_library_was_given():
    """Each claim is k x Privacy.epsilon (k noisy columns, each with the whole epsilon: snsql/_ast/ast.py:128),
    delta composed by the odometer (snsql/sql/odometer.py:75), and equals what the reader's odometer records after
    one execute; every noise call of the ledger carries Privacy.epsilon itself."""
    module = load("smartnoise-sql")
    assert module is catalogue_module and module.version() == "1.0.10"
    fns = module.catalogue()
    assert len(fns) == len(catalogue_module.ENTRIES) == 7
    tol = catalogue_module.DELTA / 2
    for fn, entry in zip(fns, catalogue_module.ENTRIES):
        data = fn.pairs[0][1]
        c = fn.claim(data)
        assert c.epsilon == pytest.approx(_columns(fn.name) * catalogue_module.EPSILON), fn.name
        led = catalogue_module.release_ledger(data, entry)
        assert led.recorded.epsilon == pytest.approx(c.epsilon) and led.recorded.delta == pytest.approx(c.delta)
        assert all(e.epsilon == catalogue_module.EPSILON for e in led.entries)
        key_deltas = [e.delta for e in led.entries if e.delta]  # the key count's (ast.py:129-130)
        groups = len({e.partition for e in led.entries})
        expected_delta = 1 - (1 - tol) * np.prod([1 - d for d in key_deltas[:len(key_deltas) // groups]])
        assert c.delta == pytest.approx(expected_delta, rel=1e-9), fn.name
        assert "get_privacy_cost" in c.source
        assert fn.adjacency == "add_remove" and not fn.reproducible


def test_pairs_are_adjacent_under_add_remove_of_one_row():
    for fn in catalogue_module.catalogue():
        for d, n in fn.pairs:
            check_adjacent(d, n, "add_remove")
            assert len(n) == len(d) + 1, (fn.name, getattr((d, n), "label", ""))
    labels = {p.label for p in _fn(SUM).pairs}
    assert {"bounds:add", "outlier:add", "empty:add", "many:add", "float_max:add"} <= labels
    assert {p.label for p in _fn(GROUPED).pairs} >= {"new_group:add", "threshold:add", "empty:add"}


def test_outputs_and_the_censoring_of_rare_groups():
    """A scalar query gives one value per execute, a grouped one a count per category with ABSENT for a missing
    group; with censor_dims a group of one row is dropped unless its noisy count passes tau = 11.82 (probability
    delta / 2 = 5e-6 per execute: 300 executes all censor it except with probability 1.5e-3)."""
    out = catalogue_module.release(np.full(8, 0.5), catalogue_module.ENTRIES[1], 5)
    assert out.shape == (5, 1) and np.all(np.abs(out) < 1e3)
    grouped = catalogue_module.release(np.array([0.0] * 40 + [1.0]), catalogue_module.ENTRIES[4], 300)
    assert grouped.shape == (300, 2)
    assert np.all(grouped[:, 1] == catalogue_module.ABSENT) and np.all(grouped[:, 0] > 20)
    uncensored = catalogue_module.release(np.array([0.0] * 40 + [1.0]), catalogue_module.ENTRIES[5], 50)
    assert np.all(uncensored[:, 1] != catalogue_module.ABSENT)  # censor_dims: false shows the group of one row


def test_the_memoised_scale_is_the_library_own(snsql):
    """library_context memoises the scale search; a mechanism built outside it (the library alone) gets the same
    float, and the library's method is restored on exit."""
    from snsql.sql._mechanisms.laplace import Laplace

    original = Laplace.__dict__["_compute_noise_scale"]
    with catalogue_module.library_context():
        assert Laplace.__dict__["_compute_noise_scale"] is not original
        inside = Laplace(1.0, sensitivity=1.0, max_contrib=1).scale
        again = Laplace(1.0, sensitivity=1.0, max_contrib=1).scale
    assert Laplace.__dict__["_compute_noise_scale"] is original
    outside = Laplace(1.0, sensitivity=1.0, max_contrib=1).scale
    assert inside == again == outside and 1.0 <= outside < 1.0 + 1e-6


def test_ledger_records_each_noise_call_and_composes_groups_in_parallel(snsql):
    """AVG draws two Laplace noises (sum and count, epsilon 1 each) at snsql/sql/private_reader.py:539; a grouped
    count draws one per group, in disjoint parts (spent 1, not 2); the library's release is restored after."""
    from snsql.sql._mechanisms.laplace import Laplace

    original = Laplace.__dict__["release"]
    led = catalogue_module.release_ledger(np.full(8, 0.5), catalogue_module.ENTRIES[2])
    assert [(e.mechanism, e.epsilon, e.sensitivity, e.value) for e in led.entries] == [
        ("Laplace", 1.0, 1.0, 4.0), ("Laplace", 1.0, 1.0, 8.0)]
    assert all(e.site == "snsql/sql/private_reader.py:539" for e in led.entries)
    assert led.spent.epsilon == pytest.approx(2.0) and led.mismatch == {}
    grouped = catalogue_module.release_ledger(np.array([0.0] * 3 + [1.0] * 2), catalogue_module.ENTRIES[4])
    assert sorted((e.partition[2], e.value) for e in grouped.entries) == [("('a',)", 3.0), ("('b',)", 2.0)]
    assert grouped.spent.epsilon == pytest.approx(1.0) and grouped.mismatch == {}
    assert Laplace.__dict__["release"] is original


def test_clean_queries_are_not_flagged():
    """A clean SUM and the censored histogram: no finding, no error (at confidence 0.99 a correct claim is a
    confirmed finding with probability at most 1e-4 per function)."""
    rows = run_catalogue([_fn(SUM), _fn(GROUPED)], TINY, seed=3, confidence=0.99)
    assert [r.verdict for r in rows] != ["error", "error"]
    assert not [r.case for r in rows if r.label in FAILING_LABELS or r.verdict in ("error", "unavailable")]
    assert all(r.certified is not None and r.certified <= r.claimed.epsilon for r in rows)
    assert all(r.ledger and not r.ledger.get("mismatch") for r in rows)


def test_the_documented_unsafe_settings_are_found():
    """censor_dims: false (a new group appears) and clamp_columns: false (an outlier is summed unclamped): both
    separate the outputs completely; the audits certified 3.76 (= the bound of 200 vs 0 samples) in our runs."""
    fns = [f for f in catalogue_module.catalogue() if f.expected]
    assert len(fns) == 2
    rows = run_catalogue(fns, TINY, seed=4)
    assert [r.label for r in rows] == ["expected", "expected"]
    assert all(r.certified > 1.0 and r.confirm_certified > 1.0 for r in rows)
    assert rows[0].pair == "new_group:add" and rows[1].pair in ("outlier:add", "float_max:add")
    assert "snsql.from_df" in rows[0].snippet


def test_quartered_noise_is_a_finding():
    """Mutation: every noisy value pulled to a quarter of its distance from the exact value (true epsilon 4 against
    the claimed 1) on the tight pair: 8 rows at 0, one more at 1."""
    fn = _fn(SUM + " [noise x0.25]", noise_factor=0.25)
    fn = dataclasses.replace(fn, pairs=[p for p in fn.pairs if p.label == "bounds:add"])
    (row,) = run_catalogue([fn], TINY, seed=5)
    assert row.label == "finding" and row.certified > 1.0 and row.confirm_certified > 1.0


def test_a_quartered_scale_inside_the_library_is_a_finding(monkeypatch, snsql):
    """Mutation inside the library: Laplace's noise-scale search returns a quarter of its scale (the memo keys on the
    search function, so the patched one is searched anew)."""
    from snsql.sql._mechanisms.laplace import Laplace

    original = Laplace._compute_noise_scale

    def quartered(self):
        original(self)
        self.scale = self.scale / 4

    monkeypatch.setattr(Laplace, "_compute_noise_scale", quartered)
    fn = _fn(SUM)
    fn = dataclasses.replace(fn, pairs=[p for p in fn.pairs if p.label == "bounds:add"])
    (row,) = run_catalogue([fn], TINY, seed=6)
    assert row.label == "finding" and row.certified > 1.0


@pytest.mark.filterwarnings("ignore:Sensitivity for x will override")  # snsql/metadata.py:341, as intended here
def test_bounds_widened_after_the_sensitivity_was_declared_is_a_finding():
    """Mutation of the metadata: the column keeps the declared sensitivity 1 (snsql/_ast/ast.py:589-590 prefers it)
    but its bounds are widened to [0, 4], so the clamp lets a row move the sum by 4: true epsilon 4, claimed 1."""
    entry = dataclasses.replace(catalogue_module.ENTRIES[1], name="SUM(x) [sensitivity 1, bounds 0..4]",
                                column={"upper": 4.0, "sensitivity": 1.0})
    (fn,) = catalogue_module.catalogue(entries=(entry,))
    pair = LabelledPair(np.zeros(8), np.array([0.0] * 8 + [4.0]), "bounds:add", "8 rows at 0, one more at 4")
    fn = dataclasses.replace(fn, pairs=[pair])
    assert fn.claim(pair[0]).epsilon == 1.0
    (row,) = run_catalogue([fn], TINY, seed=7)
    assert row.label == "finding" and row.certified > 1.0 and row.confirm_certified > 1.0


def test_cli_runs_one_function(capsys):
    assert main(["audit-library", "smartnoise-sql", "--only", "*COUNT(*) FROM T)", "--scale", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "smartnoise-sql" in out and "1.0.10" in out and "PASS" in out


def test_without_the_library_the_cli_says_unavailable(monkeypatch, capsys):
    """As for every other catalogue: exit status 2 and the install hint, no traceback."""
    monkeypatch.setitem(sys.modules, "snsql", None)  # ``import snsql`` now raises ImportError
    assert main(["audit-library", "smartnoise-sql"]) == 2
    err = capsys.readouterr().err
    assert "smartnoise-sql: unavailable" in err and "pip install" in err and "Traceback" not in err
