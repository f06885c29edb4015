"""The report (dpverify.interfaces.report): what it shows and how it is written.

Synthetic audit results (built as :class:`dpverify.audit.AuditResult`, so they carry every field a real audit has)
exercise what a real quick run may not produce: an accountant, a budget ceiling, a certified 0, a claim thousands
of times the exact value, a violation and an error. The report takes typed rows: a synthetic row is written as JSON
(:func:`fake_case`, what a checkpoint or a worker holds) and read back with ``CaseResult.from_dict``
(:func:`case_row`); an audit's numbers are shown from an :class:`~dpverify.interfaces.presentation.AuditView`.
"""
from __future__ import annotations

import json
import math
import re

import pytest

from dpverify.audit import AuditResult
from dpverify.interfaces.presentation import AuditView, CaseResult
from dpverify.interfaces.report import (
    LEGEND,
    accountant_figure,
    chart_points,
    tradeoff_figure,
    audit_cells,
    accountant_marks,
    loose_claim_notes,
    render_report,
    times,
    write_report,
)


def fake_audit(**fields) -> dict:
    base = dict(epsilon_lower=0.5, epsilon_claimed=1.0, delta=1e-5, epsilon_exact=None, verdict="consistent",
                samples=20_000, confidence=0.95, seed=0, test="threshold", event="{x >= 1}",
                counts={"dataset_in_event": 900, "neighbour_in_event": 500, "n_estimation": 16_000,
                        "n_selection": 4_000},
                verdict_reason="certified 0.5 <= claimed 1")
    base.update(fields)
    return AuditResult(**base).to_dict()


def fake_case(case: str, audit: dict | None, error: str | None = None) -> dict:
    """A suite row as JSON (a checkpoint's record, a worker's answer)."""
    return {"case": case, "sampler": case, "params": {}, "pair": "a pair", "claim": {}, "audit": audit,
            "verdict": "error" if error else audit["verdict"], "seconds": 1.0, "error": error}


def case_row(case: str, audit: dict | None, error: str | None = None) -> CaseResult:
    """The typed row of :func:`fake_case`."""
    return CaseResult.from_dict(fake_case(case, audit, error))


view = AuditView.from_dict


ULA = fake_audit(epsilon_claimed=4545.0, epsilon_exact=1.135, epsilon_lower=0.0, verdict="inconclusive",
                 verdict_reason="the claim 4545 is above the most any audit can certify with these samples (9.2)")
SGLD = fake_audit(epsilon_claimed=0.73, epsilon_accountant=0.41, accountant_method="pld (path; exact up to 1e-4)",
                  budget_ceiling=0.12, ceiling_basis="canary", epsilon_lower=0.0, verdict="inconclusive",
                  verdict_reason="budget ceiling 0.12 < claim / 2: only an implementation leaking about 6.1x more "
                                 "than the audited run would be flagged at this budget")
NOISY = fake_audit(epsilon_claimed=2.0, epsilon_accountant=1.5, accountant_method="rdp (balle2020)",
                   budget_ceiling=1.2, epsilon_lower=0.9, verdict="consistent", verdict_reason="certified 0.9 <= claimed 2")
BROKEN = fake_audit(epsilon_claimed=0.73, epsilon_accountant=40.0, accountant_method="pld (path; exact up to 1e-4)",
                    budget_ceiling=5.0, epsilon_lower=3.1, verdict="violation",
                    verdict_reason="certified 3.1 > claimed 0.73: the mechanism is not private as claimed on this pair")
CASES = [case_row("ula_final", ULA), case_row("dp_sgld_wang", SGLD), case_row("noisy_sgd_path", NOISY),
         case_row("dp_sgld_broken", BROKEN), case_row("dp_sgfs", None, error="ValueError: boom")]


def test_times_rounds_to_two_significant_digits():
    assert times(4545 / 1.135) == "4000"
    assert times(12.3) == "12" and times(157.0) == "160" and times(3.14159) == "3.1" and times(math.inf) == "inf"


def test_loose_claims_say_how_loose():
    assert loose_claim_notes("ula_final", view(ULA)) == ["ula_final: claim 4000x the exact value (4545 vs 1.135)"]
    sgld = dict(SGLD, epsilon_claimed=41.0)
    assert loose_claim_notes("dp_sgld_wang", view(sgld)) == [
        "dp_sgld_wang: claim 100x the accountant's epsilon (41 vs 0.41, pld (path; exact up to 1e-4))"]
    assert loose_claim_notes("noisy_sgd_path", view(NOISY)) == []  # 2 vs 1.5 is not loose


def test_audit_cells_show_every_number_and_dash_for_unknown():
    marks = accountant_marks([view(SGLD), view(NOISY), view(ULA)])
    assert marks == {"pld (path; exact up to 1e-4)": 1, "rdp (balle2020)": 2}
    # claimed, tested (an audit outside the suite tests its claim), accountant, exact, ceiling, certified, ratio
    assert audit_cells(view(SGLD), marks) == ["0.73", "0.73", "0.41 [1]", "-", "0.12", "0", "0", "inconclusive"]
    assert audit_cells(view(NOISY), marks) == ["2", "2", "1.5 [2]", "-", "1.2", "0.9", "0.45", "consistent"]
    assert audit_cells(view(ULA), marks)[:6] == ["4545", "4545", "-", "1.135", "-", "0"]
    # a suite case: the sampler's claim beside what was tested (its pair's exact epsilon, or a marked bound)
    suite_view = {**ULA, "claim_epsilon": 4545.0, "epsilon_claimed": 1.135, "tested_kind": "exact"}
    assert audit_cells(view(suite_view), marks)[:2] == ["4545", "1.135"]
    assert audit_cells(view({**suite_view, "tested_kind": "upper bound"}), marks)[1] == "1.135 ub"
    assert any("'-' = no closed form" in line for line in LEGEND)


def test_rendered_report_shows_verdicts_reasons_and_the_accountant_plot():
    files = render_report([], CASES, {"budget": "quick"}, run_id="RUN-1", paper_figures=False)
    data = json.loads(files["report.json"])
    page = files["report.html"].decode()
    assert data["run_id"] == "RUN-1" and "content='RUN-1'" in page and "<code id='run-id'>RUN-1</code>" in page
    assert data["summary"]["audits"] == {"consistent": 1, "inconclusive": 2, "violation": 1, "error": 1}
    assert "1 consistent, 2 inconclusive at this budget, 1 violations, 1 errors" in page
    assert "id='accountant-plot'" in page  # three audits have an accountant
    assert "only an implementation leaking about 6.1x more" in page  # reasons are shown
    assert "ula_final: claim 4000x the exact value (4545 vs 1.135)" in page
    assert "[1] pld (path; exact up to 1e-4); [2] rdp (balle2020)" in page
    assert page.count("class='tradeoff'") == 4  # one trade-off plane per audit that ran
    assert "error: ValueError: boom" in page
    # self-contained: nothing may be loaded from elsewhere
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert all(src.startswith("data:") for src in re.findall(r"src='([^']*)'", page))
    assert not re.search(r"(href|src)=['\"]?(https?:)?//", page)


def test_no_accountant_and_no_exact_value_no_chart():
    files = render_report([], [case_row("noisy", fake_audit())], run_id="R", paper_figures=False)
    assert b"accountant-plot" not in files["report.html"]


def test_the_chart_draws_the_theorems_claim_and_the_tested_value_apart():
    """Issue 36: the chart labelled the tested value "claimed" (dp_sgnht's claim 0.7277 drawn at its tested 0.0126)
    and left out audits with an exact value but no accountant (ula_final's claim nowhere). A suite row's theorem claim
    (``claim_epsilon``) is the chart's "claimed"; what the audit tested is "tested"."""
    sgnht = {**fake_audit(epsilon_claimed=0.0126, epsilon_accountant=0.011, budget_ceiling=0.02),
             "claim_epsilon": 0.7277, "tested_kind": "upper bound"}
    entries = [("dp_sgnht", sgnht), ("ula_final", {**ULA, "claim_epsilon": 2179.0, "epsilon_claimed": 1.135})]
    rows = [(name, view(a)) for name, a in entries]
    points = chart_points(rows)
    assert points["dp_sgnht"]["claimed"] == 0.7277 and points["dp_sgnht"]["tested"] == 0.0126
    assert points["ula_final"]["claimed"] == 2179.0 and points["ula_final"]["exact"] == 1.135
    (ax,) = accountant_figure(rows).get_axes()
    drawn = {line.get_label(): sorted(line.get_xdata()) for line in ax.get_lines()}
    assert drawn["claimed (the theorem)"] == [0.7277, 2179.0] and drawn["tested"] == [0.0126, 1.135]
    page = render_report([], [case_row("dp_sgnht", sgnht), case_row("ula_final", entries[1][1])],
                         run_id="R", paper_figures=False)["report.html"].decode()
    assert "claimed epsilon (the theorem)</dt><dd>0.7277" in page and "tested epsilon</dt><dd>0.0126 (upper bound)" in page


def test_every_audit_row_has_one_cell_per_header_and_sorts_by_its_own_value():
    """Issue 36: 12 cells under 13 headers (the ratio cell never emitted), so every column from "ratio" on showed
    and sorted by its neighbour's value. Every row, error rows included, has one cell per header, and each numeric
    cell's sort value is the number it shows."""
    page = render_report([], CASES, run_id="R", paper_figures=False)["report.html"].decode()
    table = page[page.index("<table id='audit-table'"):page.index("</table>", page.index("<table id='audit-table'"))]
    headers = re.findall(r"<th data-type='(\w+)'[^>]*><button type='button'>([^<]*)</button>", table)
    assert [h for _, h in headers] == ["audit", "claimed", "tested", "accountant", "exact", "ceiling", "certified",
                                       "ratio", "verdict", "reason", "samples", "seed", "test"]
    rows = re.findall(r"<tr id='row-[^>]*>(.*?)</tr>", table)
    assert len(rows) == len(CASES)
    for row in rows:
        cells = re.findall(r"<td data-label='([^']*)'[^>]*?(?: data-sort='([^']*)')?>(.*?)</td>", row)
        assert [label for label, _, _ in cells] == [h for _, h in headers]
    broken = re.findall(r"<td data-label='([^']*)'[^>]*?data-sort='([^']*)'>", rows[3])
    sort = dict(broken)
    assert float(sort["certified"]) == 3.1 and float(sort["ratio"]) == pytest.approx(3.1 / 0.73)
    assert float(sort["samples"]) == 20_000 and sort["verdict"] == "violation" and float(sort["claimed"]) == 0.73


def test_accountant_figure_draws_a_certified_zero_at_the_floor():
    fig = accountant_figure([("dp_sgld_wang", view(SGLD)), ("noisy_sgd_path", view(NOISY))])
    (ax,) = fig.get_axes()
    assert ax.get_xscale() == "log"  # one horizontal row per audit: the chart grows downwards, never sideways
    labels = {line.get_label(): line for line in ax.get_lines()}
    assert {"claimed (the theorem)", "tested", "accountant", "budget ceiling", "certified",
            "certified 0 (drawn at the axis floor)"} <= set(labels)
    floor = labels["certified 0 (drawn at the axis floor)"].get_xdata()[0]
    assert 0 < floor < 0.12 and ax.get_xlim()[0] < floor
    assert [t.get_text() for t in ax.get_yticklabels()] == ["noisy_sgd_path", "dp_sgld_wang"]  # the first on top


def test_figures_have_one_size_whatever_their_titles_and_rows():
    """Every trade-off plane is the same number of pixels (a long title wraps, it never shrinks the plot), and the
    accountant chart is as wide for 2 audits as for 40 (it grows downwards), so the page shows them at one readable
    size (issue 23: a 1837-px chart, unreadable legends)."""
    import base64
    import struct

    from dpverify.interfaces.report_figures import png

    def size(b64: str) -> tuple[int, int]:
        raw = base64.b64decode(b64)
        return struct.unpack(">II", raw[16:24])  # the PNG IHDR chunk: width, height

    short = size(png(tradeoff_figure(view(NOISY), "x")))
    long = size(png(tradeoff_figure(view(NOISY), "a very long title " * 12)))
    assert short == long and 450 <= short[0] <= 560
    few = size(png(accountant_figure([("a", view(SGLD)), ("b", view(NOISY))])))
    many = size(png(accountant_figure([(f"audit_{i}", view(NOISY)) for i in range(40)])))
    assert few[0] == many[0] <= 900 and many[1] > few[1]


def test_write_report_refuses_a_file_and_leaves_it_alone(tmp_path):
    target = tmp_path / "r"
    target.write_text("keep me")
    with pytest.raises(ValueError, match="must be a directory"):
        write_report(target, [], CASES, paper_figures=False)
    assert target.read_text() == "keep me"


def test_both_files_name_the_same_run_and_a_rerun_replaces_both(tmp_path):
    ids = []
    for _ in range(2):
        write_report(tmp_path, [], CASES[:2], paper_figures=False)
        data = json.loads((tmp_path / "report.json").read_text())
        page = (tmp_path / "report.html").read_text()
        assert f"content='{data['run_id']}'" in page
        ids.append(data["run_id"])
    assert ids[0] != ids[1]
    assert sorted(p.name for p in tmp_path.iterdir()) == [".dpverify-runs", "report.html", "report.json"]
