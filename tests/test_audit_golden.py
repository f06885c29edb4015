"""Golden comparison of the auditor (issue 22, section 3): every case of tests/golden_cases.py gives, number for number,
what tests/golden/audit_results.json recorded from the auditor before it was restructured into stages.

Floats are compared by their repr (bit-exact, -0.0, inf and nan included), integers as ints, strings and keys as they
are; the wall time is the one field left out. Regenerate the file only for a deliberate change of an audit's numbers
(``python tests/golden/make_golden.py``) and say so in the commit.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import golden_cases

GOLDEN = json.loads((Path(__file__).resolve().parent / "golden" / "audit_results.json").read_text())


def test_every_case_is_recorded_and_every_record_has_a_case():
    assert sorted(GOLDEN) == sorted(golden_cases.CASES)


@pytest.mark.parametrize("name", sorted(golden_cases.CASES))
def test_audit_numbers_are_unchanged(name):
    moved = golden_cases.differences(golden_cases.run(name), GOLDEN[name])
    assert not moved, f"{name}: numbers changed (field: (recorded, now)): {moved}"


def test_workers_and_one_process_are_pinned_to_the_same_numbers():
    assert GOLDEN["path_streamed_workers_2"] == GOLDEN["path_streamed_workers_1"]
    assert GOLDEN["laplace_streamed_workers_2"]["result"] == GOLDEN["laplace_streamed"]["result"]


def test_the_comparison_names_what_moved():
    """A changed number, a lost key and a wrong added key are each reported (the comparison can fail); so is a
    backend or device other than the numpy CPU the cases run on."""
    expected = GOLDEN["laplace_streamed"]
    found = {"result": dict(expected["result"], claim={"type": "ApproxDP", "epsilon": "f:1.0", "delta": "f:0.0"},
                            backend="numpy", device="cpu", samples_used=expected["result"]["samples"],
                            stopping_rule="", looks=[])}
    assert golden_cases.differences(found, expected) == {}
    changed = {"result": dict(found["result"], epsilon_lower="f:0.5")}
    assert set(golden_cases.differences(changed, expected)) == {"epsilon_lower"}
    lost = {"result": {k: v for k, v in found["result"].items() if k != "event"}}
    assert set(golden_cases.differences(lost, expected)) == {"event"}
    wrong_claim = {"result": dict(found["result"], claim={"type": "PureDP"})}
    assert set(golden_cases.differences(wrong_claim, expected)) == {"claim"}
    on_torch = {"result": dict(found["result"], backend="torch")}
    assert set(golden_cases.differences(on_torch, expected)) == {"backend"}
    unrecorded = {"result": {k: v for k, v in found["result"].items() if k != "device"}}
    assert set(golden_cases.differences(unrecorded, expected)) == {"device"}
    stopped_early = {"result": dict(found["result"], samples_used=1000, stopping_rule="violation")}
    assert set(golden_cases.differences(stopped_early, expected)) == {"samples_used", "stopping_rule"}


def test_the_canonical_form_tells_apart_what_a_comparison_must():
    """The comparison is exact: one ulp, the sign of zero, a numpy int vs a float, a nan and an inf all differ."""
    c = golden_cases.canonical
    assert c(0.1 + 0.2) != c(0.3)
    assert c(0.0) != c(-0.0)
    assert c(np.int64(3)) == c(3) != c(3.0)
    assert c(float("nan")) == c(np.nan) != c(float("inf"))
    assert c({"a": (1, np.float64(0.5))}) == {"a": [1, "f:0.5"]}
    with pytest.raises(TypeError, match="cannot canonicalise"):
        c(object())
