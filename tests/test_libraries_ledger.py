"""The budget ledger (dpverify.libraries.ledger) and the causes it locates (dpverify.libraries.causes).

The composition and diff rules are checked on synthetic calls; the diffprivlib ledger on the installed library,
without sampling (a ledger is one call per side, milliseconds). The diffprivlib LinearRegression tests pin its
findings: each fails the day diffprivlib fixes the defect (the numbers are computed from the ledger, not typed).
"""
import math

import numpy as np
import pytest

from dpverify.calculus.guarantees import ApproxDP
from dpverify.libraries.ledger import Ledger, LedgerEntry, Partition, compose, diff

pytest.importorskip("diffprivlib", reason="needs the peers extra: pip install -e '.[peers]'")


def _e(eps, site="lib/m.py:1", sens=1.0, part=None, value=None, delta=0.0):
    return LedgerEntry("Laplace", eps, delta, sens, None if sens is None else sens / eps, site, "f", (), part, value)


def test_compose_sequential_and_partitioned():
    assert compose([]) is None
    assert compose([_e(0.5), _e(0.25, delta=1e-6)]) == ApproxDP(0.75, 1e-6)
    # a loop over disjoint parts: 3 parts of 0.5 (one call each) + a part with two calls of 0.25 and 0.5
    parts = [_e(0.5, part=("disjoint", 0, p)) for p in "abc"] + [_e(0.25, part=("disjoint", 0, "d")),
                                                                 _e(0.5, part=("disjoint", 0, "d"))]
    assert compose(parts, "add_remove").epsilon == pytest.approx(0.75)  # max over parts
    assert compose(parts, "replace").epsilon == pytest.approx(1.25)  # the two largest parts
    vec = [_e(0.3, part=("vector", 1, f"#{i}")) for i in range(4)]
    assert compose(vec, "replace").epsilon == pytest.approx(0.3)
    assert compose(vec + [_e(0.2)], "add_remove").epsilon == pytest.approx(0.5)
    with pytest.raises(ValueError, match="adjacency"):
        compose(vec, "swap")
    with pytest.raises(ValueError, match="kind"):
        Partition("a.py", "f", "i", kind="serial")


def test_an_unknown_partition_kind_is_refused_not_composed_as_a_maximum():
    """Issue 36: an entry whose partition kind is unknown was composed as a maximum over its parts (parallel
    composition), which only disjoint parts allow: three calls of 0.5 came out as 0.5 instead of an error."""
    serial = [_e(0.5, part=("serial", 0, p)) for p in "abc"]
    with pytest.raises(ValueError, match=r"partition kind must be one of \('disjoint', 'vector'\); got 'serial'"):
        compose(serial, "add_remove")
    mixed = [_e(0.5, part=("disjoint", 0, "a")), _e(0.5, part=("vector", 0, "b"))]
    with pytest.raises(ValueError, match="one loop has one kind"):
        compose(mixed, "add_remove")


def test_mismatch_uses_the_cheapest_relation_and_diff_flags_causes():
    led = Ledger("lib", entries=[_e(0.5, part=("disjoint", 0, p)) for p in "ab"],
                 recorded=ApproxDP(0.5, 0.0), asked=ApproxDP(0.5, 0.0), adjacency="replace")
    assert led.spent.epsilon == 1.0 and led.spent_least.epsilon == 0.5 and led.mismatch == {}
    led.entries.append(_e(0.25))
    mm = led.mismatch["spent_over_recorded"]
    assert mm["epsilon"] == pytest.approx(0.25) and mm["ratio"] == pytest.approx(1.5)
    a = Ledger("lib", entries=[_e(1.0, value=2.0), _e(1.0, sens=0.0, value=3.0, site="lib/m.py:9")])
    b = Ledger("lib", entries=[_e(1.0, value=4.5), _e(1.0, sens=0.0, value=3.5, site="lib/m.py:9")])
    d = diff(a, b)
    assert d[0]["exceeds_declared"] == {"realized": 2.5, "declared": 1.0}
    assert d[1]["zero_sensitivity_on"] == ["D", "D'"] and "exceeds_declared" not in d[1]  # not the first change
    same = Ledger("lib", entries=[_e(1.0, sens=0.0, value=3.0)])
    assert diff(same, same) == []  # sensitivity 0 on an unchanged statistic is harmless
    assert diff(a, Ledger("lib", entries=a.entries[:1]))[-1]["only_on"] == "D"


@pytest.fixture(scope="module")
def dpl_catalogue():
    from dpverify.libraries import diffprivlib as dpl

    return {f.name: f for f in dpl.catalogue()}


def _lr(catalogue, fit_intercept=True, lower=0.0):
    return next(f for f in catalogue.values() if f.name.startswith("models.LinearRegression")
                and f.options.get("bounds") == "given" and f.options["fit_intercept"] == fit_intercept
                and f.options["bounds_X"][0][0] == lower)


def test_ledger_agrees_with_the_accountant_where_diffprivlib_is_right(dpl_catalogue):
    """Tools, a histogram (disjoint bins), GaussianNB (classes), KMeans (clusters), PCA (an eigenvalue vector):
    the ledger's composition equals the accountant's record: no false mismatch."""
    from dpverify.libraries.runner import ledger_report

    names = ["tools.mean(epsilon=1.0, bounds=(0.0, 1.0))", "tools.histogram(bins=4, range=(0.0, 1.0), epsilon=1.0)",
             "tools.quantile(0.25, epsilon=1.0, bounds=(0.0, 1.0))"]
    names += [n for n in dpl_catalogue if n.startswith(("models.GaussianNB(epsilon=1.0, bounds", "models.KMeans",
                                                        "models.PCA", "models.StandardScaler"))]
    for name in names:
        rep = ledger_report(dpl_catalogue[name], seeds=1)
        d = rep["dataset"]
        assert d["calls"] and rep["mismatch"] == {}, name
        assert d["spent_least"]["epsilon"] == pytest.approx(d["recorded"]["epsilon"]), name
        assert all(c["site"].startswith("diffprivlib/") and ".py:" in c["site"] for c in d["calls"])
    # the replace-one histogram: its bins compose to 2 under replace-one, 1 under add/remove (the record)
    hist = dpl_catalogue["tools.histogram(bins=4, range=(0.0, 1.0), epsilon=1.0) [replace-one]"]
    led = hist.ledger(hist.pairs[0][0], 0)
    assert led.spent.epsilon == pytest.approx(2 * led.recorded.epsilon) and led.mismatch == {}


def test_ledger_restores_the_library(dpl_catalogue):
    from diffprivlib import BudgetAccountant, mechanisms

    before = (mechanisms.Laplace.randomise, mechanisms.LaplaceFolded.randomise, BudgetAccountant.spend)
    fn = _lr(dpl_catalogue)
    fn.ledger(fn.pairs[0][0], 0)
    assert (mechanisms.Laplace.randomise, mechanisms.LaplaceFolded.randomise, BudgetAccountant.spend) == before


def test_linear_regression_spends_more_than_its_accountant_records(dpl_catalogue):
    """Pinned finding: with fit_intercept=True the centring means spend on accountants made inside fit."""
    from dpverify.libraries.runner import ledger_report

    fn = _lr(dpl_catalogue)
    led = fn.ledger(fn.pairs[0][0], 0)
    spent = math.fsum(e.epsilon for e in led.entries)  # no partitioned loop in LinearRegression
    assert led.spent_least.epsilon == pytest.approx(spent)
    assert spent > led.recorded.epsilon * (1 + 1e-9) and led.recorded.epsilon == led.asked.epsilon
    # the excess is spent on accountants the caller never sees
    assert led.unrecorded_spends and math.fsum(e for e, _ in led.unrecorded_spends) >= spent - led.recorded.epsilon
    rep = ledger_report(fn, seeds=2)
    budget = [c for c in rep["causes"] if c["kind"] == "budget"]
    assert budget and all("linear_regression.py" in c["site"] and "BudgetAccountant()" in c["source"]
                          for c in budget)
    assert any("issues/104" in ref for c in budget for u in c["upstream"] for ref in u["refs"])


def test_linear_regression_causes_are_located_in_its_source(dpl_catalogue):
    """Pinned findings: the X^T X coefficient's sensitivity read from the lower bound twice (0 for bounds (0, 1):
    no noise), and, without an intercept, no clipping to the declared bounds."""
    from dpverify.libraries.runner import ledger_report

    fn = _lr(dpl_catalogue, fit_intercept=False)
    a, b = fn.ledger(fn.pairs[0][0], 0), fn.ledger(fn.pairs[0][1], 0)
    zero = [x for x in diff(a, b) if x.get("zero_sensitivity_on") == ["D", "D'"]]
    assert zero and all("linear_regression.py" in x["site"] for x in zero)
    rep = ledger_report(fn, seeds=1)
    kinds = {c["kind"]: c for c in rep["causes"]}
    sens, clip = kinds["sensitivity"], kinds["clipping"]
    assert sens["source"].replace(" ", "").count("bounds_X[0][i],bounds_X[0][i]") == 1
    assert sens["version"] == fn.version and sens["site"].startswith("diffprivlib/models/linear_regression.py:")
    assert any("issues/105" in ref for u in sens["upstream"] for ref in u["refs"])
    assert "clip" in clip["source"] and "if fit_intercept" in clip["guard"] and clip["upstream"] == []
    # symmetric bounds: the duplicated lower bound happens to be right, the missing clipping is still there
    sym = ledger_report(_lr(dpl_catalogue, fit_intercept=False, lower=-1.0), seeds=1)
    assert {c["kind"] for c in sym["causes"]} == {"clipping"}


def test_runner_row_carries_ledger_and_causes(dpl_catalogue):
    from dpverify.libraries.runner import LibraryResult, _add_ledger, ledger_cell, ledger_text

    row = LibraryResult("x", "diffprivlib", "0", "f", "replace_one")
    _add_ledger(row, _lr(dpl_catalogue), 0, 0)
    assert row.label == "finding" and row.finding_from == ["ledger"]
    assert ledger_cell(row).startswith("spent 1.5") and ledger_cell(LibraryResult("z", "lib", "0", "f", "")) == "-"
    text = "\n".join(ledger_text(row))
    assert "MISMATCH" in text and "cause [budget]" in text and "linear_regression.py" in text
    documented = LibraryResult("y", "diffprivlib", "0", "f", "replace_one", label="expected")
    _add_ledger(documented, _lr(dpl_catalogue), 0, 0)
    assert documented.label == "expected" and documented.finding_from == ["sampling", "ledger"]


def test_logistic_regression_rows_are_available(dpl_catalogue):
    """diffprivlib 0.6.6's LogisticRegression passes multi_class, which scikit-learn 1.8 removed: the catalogue's
    constructor shim makes the rows auditable (the claim is read from a real fit)."""
    rows = [f for n, f in dpl_catalogue.items() if n.startswith("models.LogisticRegression")]
    assert {f.options["fit_intercept"] for f in rows} == {True, False}
    for f in rows:
        c = f.claim(f.pairs[0][0])
        assert c.epsilon == 1.0
    out = rows[0].mechanism(np.asarray(rows[0].pairs[0][0]), 2, np.random.default_rng(0))
    assert out.shape == (2, 2) and np.all(np.isfinite(out))


# -- the corpus of reported bugs -------------------------------------------------------------------------------------

def test_corpus_cases_cite_checked_references_and_the_gdp_estimator_case_separates():
    import dataclasses

    from dpverify.libraries import corpus

    ids = [c.id for c in corpus.CASES]
    assert len(ids) == len(set(ids)) >= 6
    assert all(c.refs and all(r.startswith("https://github.com/") for r in c.refs) for c in corpus.CASES)
    assert {c.kind for c in corpus.CASES} <= {"library", "re-implementation"}
    row = corpus.run_case(next(c for c in corpus.CASES if c.id == "jax_privacy-pr270"))
    # identical score laws: the pre-#270 estimator reports a positive epsilon, the fixed one and dpverify's 0
    assert row.status == "ok" and row.numbers["epsilon"]["before PR #270"] > 1.0
    assert row.numbers["epsilon"]["after PR #270"] == 0.0 and row.numbers["mu"]["dpverify curve_audit"] == 0.0
    assert not corpus.failed([row]) and corpus.failed([dataclasses.replace(row, status="failed")])


def test_corpus_diffprivlib_cases_reproduce_on_the_installed_version():
    from dpverify.libraries import corpus

    rows = [corpus.run_case(corpus.find(i)) for i in ("diffprivlib#105", "diffprivlib#104")]
    assert [r.status for r in rows] == ["reproduced", "reproduced"], [r.detail for r in rows]
    assert "linear_regression.py" in rows[0].numbers["site"] and rows[1].numbers["spent"] > rows[1].numbers["recorded"]


@pytest.mark.opacus
def test_corpus_opacus_accountant_cases():
    pytest.importorskip("opacus")
    from dpverify.libraries import corpus

    rows = {r.id: r for r in corpus.run_corpus("opacus-pr829") + corpus.run_corpus("opacus#585")}
    pr829 = rows["opacus-pr829"]
    assert pr829.status == "reproduced" and pr829.numbers["len"] != pr829.numbers["steps"]
    eps = rows["opacus#585"].numbers["epsilons"]
    assert rows["opacus#585"].status == "reproduced"
    assert any(isinstance(v, str) or v < 0 for v in eps.values())


def test_cli_corpus_json_and_bad_only(capsys):
    import json

    from dpverify.interfaces.cli import main

    assert main(["audit-library", "corpus", "--only", "jax_privacy", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in out["corpus"]] == ["jax_privacy-pr270"] and out["corpus"][0]["status"] == "ok"
    assert main(["audit-library", "corpus", "--only", "nope"]) == 2
    assert "jax_privacy-pr270" in capsys.readouterr().err


@pytest.mark.opacus
def test_opacus_ledger_records_noise_and_locates_the_size_dependent_divisor():
    """The Opacus ledger: one Gaussian noise addition per step (std sigma C, sensitivity C) accounted by dpverify
    within 2% of Opacus' own accountant; with loss_reduction='mean' the divisor differs between the canary pair's
    sides (4 vs 3) and the cause is the line computing expected_batch_size from the dataset's size (#571)."""
    pytest.importorskip("opacus")
    from dpverify.libraries import opacus as lib
    from dpverify.libraries.runner import ledger_report

    fns = {f.name: f for f in lib.catalogue()}
    ok = fns["make_private[sum_full_batch_1_step]"]
    led = ok.ledger(ok.pairs[0][0], 0)
    steps = [e for e in led.entries if e.mechanism == "Gaussian"]
    assert len(steps) == lib.CASES["sum_full_batch_1_step"][0].steps and steps[0].site.startswith("opacus/")
    assert led.mismatch == {} and led.spent.epsilon == pytest.approx(led.recorded.epsilon, rel=0.02)
    rep = ledger_report(fns["make_private[mean_full_batch_divisor_differs]"], seeds=1)
    assert [x["differs"]["scale"] for x in rep["diff"]] == [[4.0, 3.0]]
    (cause,) = rep["causes"]
    assert cause["kind"] == "divisor" and cause["site"].startswith("opacus/privacy_engine.py:")
    assert "len(" in cause["source"] and any("issues/571" in r for u in cause["upstream"] for r in u["refs"])
