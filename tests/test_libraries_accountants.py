"""dp-accounting and prv-accountant catalogues: each query's answer against dpverify's rigorous bracket.

Markers ``dp_accounting`` and ``prv_accountant`` (excluded from the default run; ``pytest -m dp_accounting`` needs
the test or dp-accounting extra, ``pytest -m prv_accountant`` the prv extra). Each test's library is imported by an
autouse fixture: without it the test FAILS, it does not skip; the default run, which deselects the markers, still
collects this file without them. Everything here is deterministic
(no sampling).
"""
from __future__ import annotations

import importlib
import json
import math

import pytest

from dpverify.interfaces.cli import main
from dpverify.libraries import accountants as acc
from dpverify.libraries.runner import LibraryResult, failed, load, run_catalogue, run_function, BUDGETS, select

dpa_mark = pytest.mark.dp_accounting
prv_mark = pytest.mark.prv_accountant

# The library is imported where the marked tests run (an autouse fixture), not at collection: the default run deselects
# the marker and must still collect this file where the extra is not installed; a marked run without the extra fails
# with the ImportError (never a skip).


@pytest.fixture(autouse=True)
def _libraries(request):
    """Each marked test's library (dp_accounting, prv_accountant, or both for a test marked with both)."""
    for marker, module in (("dp_accounting", "dp_accounting"), ("prv_accountant", "prv_accountant")):
        if request.node.get_closest_marker(marker) is not None:
            importlib.import_module(module)


@dpa_mark
@pytest.mark.parametrize("eps0", [0.1, 1.0, 2.5])
@pytest.mark.parametrize("delta", [1e-5, 1e-2])
def test_laplace_pld_brackets_the_closed_form(eps0, delta):
    """The grid law of one Laplace step brackets eps0 + 2 log(1 - delta) (the closed form, module docstring), and
    the bracket is no wider than a few grid cells (rounding moves each mass by at most one cell)."""
    exact = eps0 + 2 * math.log1p(-delta)
    lo, hi = acc.laplace_pld(eps0).epsilon_bounds(delta)
    assert lo <= exact <= hi and hi - lo < 4 * acc.INTERVAL


@dpa_mark
def test_laplace_pld_composition_is_below_pure_composition():
    """Ten Laplace(1) steps: the bracket lies below the basic composition 10 and above the single-step epsilon."""
    lo, hi = acc.laplace_pld(1.0).self_compose(10).epsilon_bounds(1e-5)
    assert 1.0 < lo <= hi < 10.0 and hi - lo < 40 * acc.INTERVAL


@dpa_mark
def test_reference_setting_numbers():
    """The issue's reference setting: dp-accounting 0.6.0's PLD answer 2.381686 lies in dpverify's bracket
    [2.381548, 2.381689]; its RDP answer 2.596556 is sound but loose (9% above)."""
    ref = acc.Reference(((("poisson_gaussian", 1.1, 256 / 60000), 14062),))
    lo, hi, method = acc.reference_bracket(ref, 1e-5)
    assert lo == pytest.approx(2.381548, abs=2e-6) and hi == pytest.approx(2.381689, abs=2e-6)
    assert "PLD" in method
    pld_answer = acc.dp_accounting_answer("pld", ref, 1e-5)[0]
    rdp_answer = acc.dp_accounting_answer("rdp", ref, 1e-5)[0]
    assert pld_answer == pytest.approx(2.381686, abs=1e-5) and lo <= pld_answer
    assert rdp_answer == pytest.approx(2.596556, abs=1e-5) and rdp_answer > hi * (1 + acc.LOOSE)


@dpa_mark
def test_dp_accounting_catalogue_is_consistent_and_rdp_is_loose():
    module = load("dp-accounting")
    assert module.version() == "0.6.0"
    rows = run_catalogue(module.catalogue(), "quick")
    assert len(rows) == len(acc.DP_ACCOUNTING_QUERIES) and not failed(rows)
    assert all(r.verdict == "consistent" and r.error is None for r in rows)
    loose = {r.function for r in rows if r.label == "loose"}
    assert loose and all(f.startswith("RdpAccountant") for f in loose)
    assert not [r for r in rows if r.function.startswith("PLDAccountant") and r.label]
    for r in rows:  # the row carries the query, the answer and the bracket; the report form reads back
        lo, hi = r.options["bracket"]
        assert lo <= r.options["answer"] and r.certified == lo and r.claimed.epsilon == r.options["answer"]
        assert LibraryResult.from_dict(json.loads(json.dumps(r.to_dict()))).options["bracket"] == [lo, hi]


@dpa_mark
def test_halved_dp_accounting_answers_are_findings():
    """Mutation: a wrapper that halves every answer under-reports every query."""
    rows = run_catalogue(acc.dp_accounting_catalogue(scale=0.5)[:5], "quick")
    assert all(r.label == "finding" and r.verdict == "violation" and "under-reporting" in r.error for r in rows)
    assert failed(rows)


@dpa_mark
def test_a_tiny_under_report_is_caught():
    """Mutation: one Gaussian query scaled by 1 - 1e-6: the exact Balle-Wang bracket is 1e-10 wide, so even this
    is below it."""
    fn = acc.dp_accounting_catalogue(scale=1 - 1e-6)[0]
    assert "Gaussian(noise 1)" in fn.name
    assert run_function(fn, BUDGETS["quick"]).label == "finding"


@dpa_mark
def test_a_failing_library_call_is_unavailable_not_a_verdict():
    fn = acc.dp_accounting_catalogue()[0]
    broken = acc.AccountantQuery(fn.library, fn.version, fn.name, fn.mechanism, fn.claim, fn.pairs,
                                 answer=lambda: (_ for _ in ()).throw(RuntimeError("boom")),
                                 reference=fn.reference, delta=fn.delta)
    row = broken.evaluate()
    assert row.label == "unavailable" and "boom" in row.error


@dpa_mark
def test_cli_dp_accounting(capsys):
    assert main(["audit-library", "dp-accounting", "--only", "*Laplace(scale 1), delta*", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert len(rows) == 1 and rows[0]["verdict"] == "consistent" and len(rows[0]["options"]["bracket"]) == 2
    assert main(["audit-library", "dp-accounting", "--only", "*Laplace(scale 1), delta*", "--wide"]) == 0
    assert "dpverify [0.99998, 0.99998]" in capsys.readouterr().out  # the bracket in the table's pair column


@prv_mark
def test_prv_catalogue_is_consistent():
    """prv-accountant 0.2.0: every eps_upper is above dpverify's lower end and every eps_lower below its upper end;
    at the reference setting the estimate is 2.3816 (inside [2.381548, 2.381689] to 1e-4)."""
    module = load("prv-accountant")
    assert module.version() == "0.2.0"
    rows = run_catalogue(module.catalogue(), "quick")
    assert len(rows) == len(acc.PRV_QUERIES) and not failed(rows)
    assert all(r.verdict == "consistent" and r.label == "" for r in rows)
    for r in rows:
        lo, hi = r.options["bracket"]
        assert r.options["library_lower"] <= hi and r.options["answer"] >= lo
    ref = rows[-1]
    assert "x14062" in ref.function and ref.options["library_estimate"] == pytest.approx(2.3816, abs=1e-4)


@prv_mark
def test_halved_prv_answers_are_findings():
    fns = select(acc.prv_catalogue(scale=0.5), "*Laplace(scale 1)*")
    rows = run_catalogue(fns, "quick")
    assert len(rows) == 2 and all(r.label == "finding" for r in rows)
