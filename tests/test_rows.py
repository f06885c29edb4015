"""Typed rows from the case to the report writer (issue 36): each row knows its kind, survives its JSON form, and the
report drawn from typed rows is the report the JSON rows gave before.

- every row kind (a suite case's :class:`~dpverify.cases.CaseResult`, a library function's
  :class:`~dpverify.libraries.runner.LibraryResult`, a corpus case's :class:`~dpverify.libraries.corpus.CorpusResult`,
  a theorem's :class:`~dpverify.interfaces.rows.TheoremRow`), built by the code that produces it, round-trips:
  ``from_dict(to_dict(x)) == x``, also through the JSON text of a checkpoint (inf and NaN kept);
- :func:`~dpverify.interfaces.presentation.run_status` tells a library row from a suite row by its type (a library row
  whose ``library`` is empty was counted as a suite case when rows were told apart by that key);
- ``tests/test_rows_reports.json`` holds rows and the ``report.json`` dpverify rendered from them before issue 36 (JSON
  rows); the same rows read back typed render the same ``report.json``, key order included.
"""
from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from dpverify.interfaces.files import plain
from dpverify.interfaces.presentation import AuditView, audit_view, run_status
from dpverify.interfaces.report import render_report
from dpverify.interfaces.rows import CaseResult, LibraryResult, RowKind, TheoremRow
from dpverify.libraries import corpus
from dpverify.libraries.base import Claimed
from dpverify.libraries.corpus import CorpusResult
from dpverify.libraries.runner import Budget, run_function

FIXTURE = Path(__file__).with_name("test_rows_reports.json")

#: A small budget: the rows' shape is the point, not their numbers.
SAMPLES = 2_000


def _through_json(d: dict) -> dict:
    """``d`` as a checkpoint stores and reads it (floats kept, inf and NaN included)."""
    return json.loads(json.dumps(plain(d), allow_nan=True))


@pytest.fixture(scope="module")
def suite_rows() -> list[CaseResult]:
    from dpverify.cases import run_case

    return [run_case("laplace_mechanism", budget=SAMPLES, seed=0),
            run_case("laplace_mechanism", budget=SAMPLES, seed=0, epsilon=0.2),  # a claim given by the user
            run_case("laplace_mechanism", budget=4 * SAMPLES, seed=0, sequential=True),
            run_case("laplace_mechanism", budget=SAMPLES, seed=0, params={"epsilon": -1.0})]  # an error row


def test_every_row_knows_its_kind():
    assert CaseResult.kind == RowKind.SUITE and LibraryResult.kind is RowKind.LIBRARY
    assert CorpusResult.kind is RowKind.CORPUS and TheoremRow.kind is RowKind.THEOREM
    assert RowKind.values() == ("suite", "library", "corpus", "theorem")


def test_a_suite_row_round_trips_and_stays_typed(suite_rows):
    for x in suite_rows:
        y = CaseResult.from_dict(x.to_dict())
        assert y == x and y.to_dict() == x.to_dict()
        z = CaseResult.from_dict(_through_json(x.to_dict()))  # a resumed run's row, a Dask worker's
        assert z == CaseResult.from_dict(_through_json(x.to_dict())) and plain(z.to_dict()) == plain(x.to_dict())
        assert (z.verdict, z.passed, z.known_bad, z.error) == (x.verdict, x.passed, x.known_bad, x.error)
        assert (z.claim_epsilon, z.tested_kind, z.release, z.backend, z.device) == \
            (x.claim_epsilon, x.tested_kind, x.release, x.backend, x.device)
        assert audit_view(z) == audit_view(x)  # every number the tables show
        if x.audit is not None:
            assert z.audit.epsilon_lower == x.audit.epsilon_lower and z.audit.verdict == x.audit.verdict
            assert (z.reference.kind, z.reference.epsilon) == (x.reference.kind, x.reference.epsilon)
    consistent, given, sequential, error = suite_rows
    assert given.tested_kind == "given" and CaseResult.from_dict(given.to_dict()).claim_epsilon == 0.2
    assert sequential.audit.stopping_rule and audit_view(CaseResult.from_dict(sequential.to_dict())).rounds
    assert error.audit is None and CaseResult.from_dict(error.to_dict()).verdict == "error"
    assert CaseResult.from_dict(consistent.to_dict()) != CaseResult.from_dict(given.to_dict())


def test_an_audit_result_round_trips_with_typed_rounds(suite_rows):
    """AuditResult.from_dict(to_dict(r)) gives back every recorded field: its JSON form is the same, the verdict and
    mode are members, and a sequential audit's rounds are Look objects again (so the result can be written again)."""
    from dpverify.audit import AuditResult
    from dpverify.audit.kinds import Mode, Verdict
    from dpverify.audit.sequential import Look

    for row in suite_rows:
        if row.audit is None:
            continue
        x = row.audit
        y = AuditResult.from_dict(_through_json(x.to_dict()))
        assert isinstance(y.verdict, Verdict) and isinstance(y.mode, Mode)
        assert all(isinstance(look, Look) for look in y.looks) and len(y.looks) == len(x.looks)
        mine, theirs = plain(y.to_dict()), plain(x.to_dict())
        for key in ("curve", "claim"):  # not rebuilt: no curve test or claim object in plain data
            mine.pop(key, None), theirs.pop(key, None)
        assert mine == theirs
    with pytest.raises(ValueError):
        AuditResult.from_dict({**suite_rows[0].audit.to_dict(), "verdict": "maybe"})


def test_a_library_row_round_trips():
    pytest.importorskip("diffprivlib")
    from dpverify.libraries.runner import load

    fn = next(f for f in load("diffprivlib").catalogue() if f.name == "tools.mean(epsilon=1.0)")  # a documented leak
    x = run_function(fn, Budget("tiny", 400, 300, 200, 200), seed=0)
    assert x.known_bad and x.audit is not None and x.ledger is not None
    assert LibraryResult.from_dict(x.to_dict()) == x
    y = LibraryResult.from_dict(_through_json(x.to_dict()))
    assert json.dumps(plain(y.to_dict())) == json.dumps(plain(x.to_dict()))  # the same keys in the same order
    assert (y.claimed, y.worst_pair, y.budget, y.audit.verdict) == (x.claimed, x.worst_pair, x.budget, x.audit.verdict)
    unavailable = LibraryResult("lib.f", "lib", "1", "f()", "replace_one", verdict="unavailable", label="unavailable",
                                error="ImportError: no lib")
    assert LibraryResult.from_dict(unavailable.to_dict()) == unavailable
    assert list(unavailable.to_dict()) == ["case", "library", "version", "function", "adjacency", "expected", "tags",
                                           "reproducible", "options", "verdict", "label", "error", "seconds"]


def test_a_corpus_row_round_trips():
    x = corpus.run_case(next(c for c in corpus.CASES if c.id == "jax_privacy-pr270"))
    assert x.status == "ok" and x.check_kind == "re-implementation" and x.to_dict()["kind"] == "re-implementation"
    assert CorpusResult.from_dict(x.to_dict()) == x
    assert CorpusResult.from_dict(_through_json(x.to_dict())).to_dict() == _through_json(x.to_dict())
    assert list(x.to_dict())[:10] == ["id", "library", "title", "refs", "upstream_status", "kind", "method",
                                      "affected", "fixed_in", "status"]
    assert list(x.to_dict())[-2:] == ["detail", "seconds"]


def test_a_theorem_row_round_trips():
    from dpverify.interfaces.cli.verify import _theorem_row
    from dpverify.theorems import registry

    x = _theorem_row(registry.get("wang2015.lem1_post_processing"))
    assert isinstance(x, TheoremRow) and x.passed and x.checks
    assert TheoremRow.from_dict(x.to_dict()) == x
    assert TheoremRow.from_dict(_through_json(x.to_dict())) == x


def test_run_status_tells_rows_apart_by_their_type(suite_rows):
    """A library row is a library row whatever its JSON holds: an empty ``library`` (which ``r.get("library")`` read
    as a suite case, counting a finding as an audit verdict) is still one, and its label fails the run."""
    finding = LibraryResult("x.f", "", "1", "f()", "replace_one", claimed=Claimed(1.0, 0.0, "arg"), verdict="violation",
                            label="finding")
    assert not finding.to_dict()["library"]
    error = suite_rows[-1]
    status = run_status([], [finding, error])
    assert status.library_labels == {"finding": 1}
    assert status.counts == {"consistent": 0, "inconclusive": 0, "violation": 0, "error": 1}
    assert [(a.kind, a.anchor) for a in status.attention] == [("error", "audit-laplace_mechanism"),
                                                             ("finding", "library-x-f")]
    quiet = run_status([], [dataclasses.replace(finding, label="expected", known_bad=True, passed=True)])
    assert not quiet.failed and quiet.counts == {"consistent": 0, "inconclusive": 0, "violation": 0, "error": 0}


def test_the_writer_takes_typed_rows_only():
    with pytest.raises(TypeError, match="from_dict"):
        render_report([], [{"case": "x", "verdict": "consistent"}], run_id="R", paper_figures=False)


def _without_created(report: bytes) -> str:
    return re.sub(r'"created": "[^"]*"', '"created": ""', report.decode())


@pytest.mark.parametrize("kind", ["suite", "library"])
def test_the_report_from_typed_rows_is_the_report_of_before(kind):
    """The rows of the fixture (real suite cases, a sequential one, a known-bad one, an error, synthetic rows with
    fewer keys, theorem rows, diffprivlib rows with ledgers and an unavailable one) read back typed: the same
    report.json as dpverify wrote from them as JSON rows, key order included ('created' aside)."""
    data = json.loads(FIXTURE.read_text())
    if kind == "suite":
        theorems = [TheoremRow.from_dict(r) for r in data["theorem_rows"]]
        audits: list = [CaseResult.from_dict(r) for r in data["suite_rows"]]
        files = render_report(theorems, audits, {"budget": "quick"}, run_id="RUN-SUITE", paper_figures=False)
    else:
        theorems, audits = [], [LibraryResult.from_dict(r) for r in data["library_rows"]]
        files = render_report([], audits, {"command": "audit-library"}, run_id="RUN-LIB", paper_figures=False)
    report = data[f"{kind}_report"]
    expected = {"run_id": report.pop("run_id"), "created": "", **report}
    assert _without_created(files["report.json"]) == json.dumps(expected, indent=2)


def test_a_fresh_row_and_its_json_read_back_give_the_same_report(suite_rows):
    """What ``dpverify verify`` writes from rows computed in this process equals what it writes from the same rows
    read back from a checkpoint (``--resume``) or a worker."""
    read_back = [CaseResult.from_dict(_through_json(r.to_dict())) for r in suite_rows]
    fresh = render_report([], suite_rows, run_id="R", paper_figures=False)
    again = render_report([], read_back, run_id="R", paper_figures=False)
    assert _without_created(fresh["report.json"]) == _without_created(again["report.json"])
    strip = lambda page: re.sub(r"created</dt><dd>[^<]*<", "", page.decode())  # noqa: E731
    assert strip(fresh["report.html"]) == strip(again["report.html"])


def test_an_audit_view_reads_an_audit_and_its_entry_alike(suite_rows):
    row = suite_rows[0]
    entry = row.to_dict()["audit"]
    assert AuditView.from_dict(entry) == audit_view(row)
