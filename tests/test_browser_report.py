"""The HTML report in a real browser: Debian's chromium driven by Playwright (marker ``browser``).

Run with ``python -m pytest -m browser`` after ``apt-get install -y chromium`` and ``pip install playwright``
(``playwright install`` is not needed: the system chromium is used). Excluded from the default run, like ``slow``.

For a report of a real ``dpverify verify`` run and for one with every kind of audit row (accountant, ceiling,
certified 0, loose claim, violation, error), the page must load with no console error, no page error and no request
other than the file itself (every image is a data: URI and a Content-Security-Policy forbids the rest; a route
aborts and records anything else), and show its tables, its images (decoded, non-zero size) and the run id of the
``report.json`` beside it.

Issue 23: the page opens with the headline (PASS/FAIL, the counts, what needs attention, links to every section);
at 800 and 1400 px nothing is wider than the window (``document.scrollingElement.scrollWidth <= innerWidth``: no
sideways scrolling, on every kind of report); the audit table sorts by a column (header click, or the "sort by" list
where the table is shown as cards) and filters by verdict and by name; an audit's link opens its details.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert shutil.which(CHROMIUM) or Path(CHROMIUM).exists(), "install Debian's chromium: apt-get install -y chromium"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def load(browser, report_dir: Path, width: int = 1280) -> tuple:
    """Open report.html in a window ``width`` px wide; returns (page, console errors, page errors, foreign
    requests)."""
    page = browser.new_page(viewport={"width": width, "height": 900})
    console, errors, foreign = [], [], []
    page.on("console", lambda msg: console.append(f"{msg.type}: {msg.text}") if msg.type in ("error", "warning") else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    url = (report_dir.absolute() / "report.html").as_uri()  # the symlink published by the report directory

    def route(r):
        if r.request.url == url or r.request.url.startswith("data:"):
            r.continue_()
        else:
            foreign.append(r.request.url)
            r.abort()

    page.route("**/*", route)
    page.on("request", lambda req: None if req.url == url or req.url.startswith("data:") else foreign.append(req.url))
    page.goto(url, wait_until="load")
    page.wait_for_load_state("networkidle")
    return page, console, errors, foreign


def images(page) -> list[list]:
    return page.evaluate("Array.from(document.images).map(i => [i.alt, i.complete, i.naturalWidth, i.naturalHeight])")


def test_real_verify_report_loads_cleanly(browser, tmp_path):
    from dpverify.interfaces.cli import main

    assert main(["verify", "--only", "laplace_mechanism", "--report", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "report.json").read_text())
    page, console, errors, foreign = load(browser, tmp_path)
    assert console == [] and errors == [] and foreign == []
    assert page.title() == f"PASS: dpverify report {data['run_id']}"
    assert page.locator("meta[name='dpverify-run-id']").get_attribute("content") == data["run_id"]
    assert page.locator("#run-id").inner_text() == data["run_id"]
    assert page.locator("#theorem-table tr").count() == 1 + len(data["theorems"])
    assert page.locator("#audit-table tr").count() == 1 + len(data["audits"])
    assert page.locator("#audit-table").get_by_text("consistent").count() >= 1
    assert "'-' = no closed form" in page.locator("#audit-legend").inner_text()
    imgs = images(page)
    assert len(imgs) >= 2  # one trade-off plane and the Foulds et al. bound curves
    assert all(complete and w > 50 and h > 50 for _, complete, w, h in imgs), imgs
    page.close()


def test_report_with_every_kind_of_row_loads_cleanly(browser, tmp_path):
    from test_report import CASES

    from dpverify.interfaces.report import write_report

    write_report(tmp_path, [], CASES, settings={"budget": "quick"}, paper_figures=False)
    data = json.loads((tmp_path / "report.json").read_text())
    page, console, errors, foreign = load(browser, tmp_path)
    assert console == [] and errors == [] and foreign == []
    assert page.locator("meta[name='dpverify-run-id']").get_attribute("content") == data["run_id"]
    assert page.locator("#audit-table tr").count() == 1 + len(CASES)
    summary = page.locator("#audit-summary").inner_text()
    assert "1 consistent, 2 inconclusive at this budget, 1 violations, 1 errors" in summary
    plot = page.locator("#accountant-plot img")
    assert plot.count() == 1 and plot.evaluate("i => i.complete && i.naturalWidth > 100")
    assert "claim 4000x the exact value" in page.locator("#loose-claims").inner_text()
    reasons = page.locator("#audit-table td.reason").all_inner_texts()
    assert any("only an implementation leaking about 6.1x more" in r for r in reasons)
    assert all(complete and w > 50 for _, complete, w, _h in images(page))
    page.close()


def test_library_audit_report_loads_cleanly_with_its_reproduction(browser, tmp_path):
    """``dpverify audit-library`` writes the same kind of page: diffprivlib's mean without bounds (the documented
    PrivacyLeakWarning path, an expected violation) must show its row in the library table, labelled expected,
    and its reproduction snippet, with no console error, page error or foreign request."""
    from dpverify.interfaces.cli import main

    assert main(["audit-library", "diffprivlib", "--budget", "quick", "--only", "tools.mean(epsilon=1.0)",
                 "--report", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "report.json").read_text())
    page, console, errors, foreign = load(browser, tmp_path)
    assert console == [] and errors == [] and foreign == []
    assert page.locator("#run-id").inner_text() == data["run_id"]
    table = page.locator("#library-table")
    assert table.locator("tr").count() == 2
    assert table.get_by_text("tools.mean(epsilon=1.0)").count() == 1 and table.get_by_text("expected").count() >= 1
    snippet = page.locator("#libraries pre.snippet.reproduction").inner_text()
    assert "diffprivlib" in snippet and "mean" in snippet
    # The ledger sits in a closed <details>: opening it shows the call that declared sensitivity 0 and its line.
    ledger = page.locator("#libraries details.ledger")
    assert ledger.count() == 1
    ledger.locator("summary").click()
    text = ledger.locator("pre.snippet.ledger-text").inner_text()
    assert "sensitivity 0" in text and "diffprivlib/tools/utils.py" in text


WIDTHS = (800, 1400)

#: The audit table's headers, in order (issue 36: a test counting columns by hand went stale when "tested" came in).
HEADERS = ["audit", "claimed", "tested", "accountant", "exact", "ceiling", "certified", "ratio", "verdict", "reason",
           "samples", "seed", "test"]


def no_sideways_scroll(page) -> list[str]:
    """The elements wider than the window (empty when the page does not scroll sideways)."""
    overflow = page.evaluate("document.scrollingElement.scrollWidth - window.innerWidth")
    if overflow <= 0:
        return []
    return page.evaluate("""Array.from(document.querySelectorAll('body *'))
        .filter(e => e.getBoundingClientRect().right > window.innerWidth + 0.5)
        .slice(0, 8).map(e => e.tagName + '#' + e.id + '.' + e.className)""") or [f"scrollWidth exceeds by {overflow}"]


def test_every_kind_of_report_fits_800_and_1400_px_without_sideways_scrolling(browser, tmp_path):
    """A real verify report (theorem table, bound curves), the report with every kind of audit row (the accountant
    chart) and a library report (its reproduction <pre>) at both widths: the page never scrolls sideways, and every
    image is within the window."""
    from test_report import CASES, NOISY, case_row

    from dpverify.interfaces.cli import main
    from dpverify.interfaces.report import write_report

    reports = {"verify": tmp_path / "verify", "rows": tmp_path / "rows", "library": tmp_path / "library"}
    assert main(["verify", "--only", "laplace", "--report", str(reports["verify"])]) == 0
    write_report(reports["rows"], [], CASES + [case_row("a_case_with_a_rather_long_name_" * 3, NOISY)],
                 settings={"budget": "quick", "nested": {"a": [1, 2]}}, paper_figures=["foulds2016"])
    assert main(["audit-library", "diffprivlib", "--budget", "quick", "--only", "tools.mean(epsilon=1.0)",
                 "--report", str(reports["library"])]) == 0
    for name, directory in reports.items():
        for width in WIDTHS:
            page, console, errors, foreign = load(browser, directory, width)
            assert console == [] and errors == [] and foreign == [], (name, width)
            assert no_sideways_scroll(page) == [], (name, width)
            assert page.evaluate("Array.from(document.images).every(i => i.getBoundingClientRect().right <= "
                                 "window.innerWidth)"), (name, width)
            page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_the_headline_comes_first_with_the_counts_and_what_needs_attention(browser, tmp_path, width):
    from test_report import CASES

    from dpverify.interfaces.report import write_report

    write_report(tmp_path, [], CASES, settings={"budget": "quick"}, paper_figures=False)
    page, console, errors, foreign = load(browser, tmp_path, width)
    assert console == [] and errors == [] and foreign == []
    first = page.evaluate("document.querySelector('main').firstElementChild.id")
    assert first == "headline"
    box = page.locator("#headline").bounding_box()
    assert box["y"] < 40 and box["y"] + box["height"] <= 900  # on the first screen, whole
    assert page.locator("#status").inner_text() == "FAIL"
    counts = page.locator("#counts").inner_text()
    assert "1 consistent, 2 inconclusive at this budget, 1 violations, 1 errors" in counts
    attention = page.locator("#attention li")
    assert attention.count() == 2  # the violation and the error; inconclusive audits are not failures
    assert "dp_sgld_broken" in attention.nth(0).inner_text() and "dp_sgfs" in attention.nth(1).inner_text()
    links = page.locator("nav#sections a").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert links == ["#audits", "#audit-details", "#run"]
    assert all(page.locator(href).count() == 1 for href in links)
    # an attention link opens the audit's details
    detail = page.locator("#audit-dp_sgld_broken")
    assert detail.evaluate("d => d.open") is False
    attention.nth(0).locator("a").click()
    page.wait_for_function("document.getElementById('audit-dp_sgld_broken').open")
    assert "certified 3.1 > claimed 0.73" in detail.inner_text()
    assert detail.locator("figure.tradeoff img").evaluate("i => i.complete && i.naturalWidth > 100")
    page.close()


def _names(page) -> list[str]:
    return page.locator("#audit-table tbody tr:not([hidden])").evaluate_all(
        "rs => rs.map(r => r.getAttribute('data-name'))")


@pytest.mark.parametrize("width", WIDTHS)
def test_audit_table_sorts_and_filters(browser, tmp_path, width):
    """Sorting by certified: ascending puts the certified 0s first and the error (no number) last; a second click
    reverses the numbers, the error still last. Filtering: unticking "inconclusive" hides its two rows, a name filter
    keeps the matches, and the count says how many are shown. At 800 px the table is cards (no header to click): the
    "sort by" list does the same."""
    from test_report import CASES

    from dpverify.interfaces.report import write_report

    write_report(tmp_path, [], CASES, settings={"budget": "quick"}, paper_figures=False)
    page, console, errors, foreign = load(browser, tmp_path, width)
    assert _names(page) == ["ula_final", "dp_sgld_wang", "noisy_sgd_path", "dp_sgld_broken", "dp_sgfs"]
    certified_column = HEADERS.index("certified")
    header = page.locator("#audit-table thead th").nth(certified_column)
    if width >= 1400:
        assert header.is_visible()
        header.locator("button").click()
    else:
        assert not header.is_visible()  # cards: the header row is hidden
        page.select_option("#audit-sort", f"{certified_column}:asc")
    assert _names(page) == ["ula_final", "dp_sgld_wang", "noisy_sgd_path", "dp_sgld_broken", "dp_sgfs"]
    assert header.get_attribute("aria-sort") == "ascending"
    if width >= 1400:
        header.locator("button").click()
    else:
        page.select_option("#audit-sort", f"{certified_column}:desc")
    assert _names(page) == ["dp_sgld_broken", "noisy_sgd_path", "ula_final", "dp_sgld_wang", "dp_sgfs"]
    assert header.get_attribute("aria-sort") == "descending"
    page.locator("#audit-controls input[value=inconclusive]").uncheck()
    assert _names(page) == ["dp_sgld_broken", "noisy_sgd_path", "dp_sgfs"]
    assert page.locator("#audit-shown").inner_text() == "3 of 5 shown"
    page.fill("#audit-search", "sgd")
    assert _names(page) == ["noisy_sgd_path"]
    page.locator("#audit-controls input[value=inconclusive]").check()
    page.fill("#audit-search", "")
    assert len(_names(page)) == 5 and no_sideways_scroll(page) == []
    # a row's link opens its details
    page.locator("#audit-table a[href='#audit-noisy_sgd_path']").click()
    page.wait_for_function("document.getElementById('audit-noisy_sgd_path').open")
    assert console == [] and errors == [] and foreign == []
    page.close()


def _claimed(a: dict) -> float | None:
    return a.get("claim_epsilon", a.get("epsilon_claimed"))


#: What each numeric column of the audit table must sort by, read from report.json (never from the page).
SORT_VALUES = {
    "claimed": lambda r: _claimed(r["audit"]) if r.get("audit") else None,
    "tested": lambda r: (r.get("audit") or {}).get("epsilon_claimed"),
    "accountant": lambda r: (r.get("audit") or {}).get("epsilon_accountant"),
    "exact": lambda r: (r.get("audit") or {}).get("epsilon_exact"),
    "ceiling": lambda r: (r.get("audit") or {}).get("budget_ceiling"),
    "certified": lambda r: (r.get("audit") or {}).get("epsilon_lower"),
    "ratio": lambda r: (r["audit"]["epsilon_lower"] / r["audit"]["epsilon_claimed"]
                        if r.get("audit") and r["audit"]["epsilon_claimed"] else None),
    "samples": lambda r: (r.get("audit") or {}).get("samples_used") or (r.get("audit") or {}).get("samples"),
    "seed": lambda r: (r.get("audit") or {}).get("seed"),
}


def _expected_order(rows: list[dict], column: str, descending: bool) -> list[str]:
    """The case names sorted by ``column``'s value (unknown last, ties in suite order), as the page must sort them."""
    def number(v):
        return None if v is None else (float("inf") if v == "inf" else float(v))

    keyed = [(number(SORT_VALUES[column](r)), i, r["case"]) for i, r in enumerate(rows)]
    known = sorted((k for k in keyed if k[0] is not None), key=lambda k: ((-k[0] if descending else k[0]), k[1]))
    return [name for _, _, name in known] + [name for v, _, name in keyed if v is None]


def _report_with_every_row(tmp_path) -> dict:
    from test_report import CASES, case_row, fake_audit

    from dpverify.interfaces.report import write_report

    sgnht = {**fake_audit(epsilon_claimed=0.0126, epsilon_accountant=0.011, budget_ceiling=0.02, epsilon_lower=0.004,
                          seed=7, samples=40_000), "claim_epsilon": 0.7277, "tested_kind": "upper bound"}
    from dpverify.audit.sequential import Look

    # a sequential audit (issue 38): its samples cell reads used/budget and sorts by the samples it used
    sequential = fake_audit(epsilon_claimed=1.615, epsilon_lower=3.4, verdict="violation", samples=20_000,
                            samples_used=1000, stopping_rule="violation", seed=3,
                            looks=(Look(0, 1000, 0.0025, 3.4, "violation"),))
    write_report(tmp_path, [], CASES + [case_row("dp_sgnht", sgnht), case_row("dp_sgld_sequential", sequential)],
                 settings={"budget": "quick"}, paper_figures=False)
    return json.loads((tmp_path / "report.json").read_text())


@pytest.mark.parametrize("width", WIDTHS)
def test_every_audit_row_has_one_cell_per_header(browser, tmp_path, width):
    """Issue 36: rows had 12 cells under 13 headers, so from "ratio" on every column showed its neighbour. Every row
    (an error row too) has one cell per header, each labelled with its header (the card layout shows the label)."""
    data = _report_with_every_row(tmp_path)
    page, console, errors, foreign = load(browser, tmp_path, width)
    assert console == [] and errors == [] and foreign == []
    headers = page.locator("#audit-table thead th").all_inner_texts()
    assert [h.strip() for h in headers] == HEADERS
    labels = page.locator("#audit-table tbody tr").evaluate_all(
        "rs => rs.map(r => Array.from(r.cells).map(c => c.getAttribute('data-label')))")
    assert len(labels) == len(data["audits"]) and all(row == HEADERS for row in labels), labels
    # the ratio column shows certified / tested, the verdict column the verdict
    broken = page.locator("#row-dp_sgld_broken td")
    assert broken.nth(HEADERS.index("ratio")).inner_text() == f"{3.1 / 0.73:.3g}"
    assert broken.nth(HEADERS.index("verdict")).inner_text() == "violation"
    assert broken.nth(HEADERS.index("samples")).inner_text() == "20000"
    assert page.locator("#row-dp_sgld_sequential td").nth(HEADERS.index("samples")).inner_text() == "1000/20000"
    page.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_every_column_sorts_by_its_own_value(browser, tmp_path, width):
    """Each numeric column, ascending then descending (header click at 1400 px, the "sort by" list where the table is
    cards), gives the order of that column's own number in report.json (unknown last); the verdict column sorts by
    the verdict's text. The old table sorted "certified, high first" as 3.971 before 8.106 (its neighbour's value)."""
    data = _report_with_every_row(tmp_path)
    page, console, errors, foreign = load(browser, tmp_path, width)
    for column in [*SORT_VALUES, "verdict"]:
        index = HEADERS.index(column)
        for descending in (False, True):
            if width >= 1400:
                header = page.locator("#audit-table thead th").nth(index)
                header.locator("button").click()
                if (header.get_attribute("aria-sort") == "descending") != descending:
                    header.locator("button").click()
            else:
                page.select_option("#audit-sort", f"{index}:{'desc' if descending else 'asc'}")
            if column == "verdict":
                verdicts = [r.get("verdict") or "error" for r in data["audits"]]
                got = page.locator("#audit-table tbody tr").evaluate_all(
                    f"rs => rs.map(r => r.cells[{index}].textContent.split(' ')[0])")
                assert got == sorted(verdicts, reverse=descending), (column, descending)
            else:
                assert _names(page) == _expected_order(data["audits"], column, descending), (column, descending)
    assert console == [] and errors == [] and foreign == []
    page.close()


def test_the_chart_draws_each_audits_claim_as_the_table_shows_it(browser, tmp_path):
    """Issue 36: the chart drew the *tested* value as "claimed" (dp_sgnht's claim 0.7277 at 0.0126). The numbers the
    chart draws (embedded beside it) equal the table's claimed and tested cells and report.json's theorem claim."""
    data = _report_with_every_row(tmp_path)
    page, console, errors, foreign = load(browser, tmp_path, 1400)
    points = json.loads(page.locator("#accountant-plot").get_attribute("data-points"))
    rows = {r["case"]: r for r in data["audits"]}
    assert "dp_sgnht" in points and "ula_final" in points  # an exact value without an accountant is charted too
    for name, p in points.items():
        cells = page.locator(f"#row-{name} td")
        assert p["claimed"] == pytest.approx(_claimed(rows[name]["audit"]))
        assert float(cells.nth(HEADERS.index("claimed")).get_attribute("data-sort")) == pytest.approx(p["claimed"])
        assert float(cells.nth(HEADERS.index("tested")).get_attribute("data-sort")) == pytest.approx(p["tested"])
    assert points["dp_sgnht"]["claimed"] == 0.7277 and points["dp_sgnht"]["tested"] == 0.0126
    assert page.locator("#row-dp_sgnht td").nth(HEADERS.index("claimed")).inner_text() == "0.7277"
    assert page.locator("#row-dp_sgnht td").nth(HEADERS.index("tested")).inner_text() == "0.0126 ub"
    page.close()


def test_trivial_audits_collapse_to_one_line_in_a_narrow_window(browser, tmp_path):
    """Issue 36: at 800 px every audit was a 13-line card and a verify report was about 22 screens long. There,
    consistent audits and flagged known-bad ones show one line (name, claimed, certified, verdict); a violation, an
    inconclusive audit and an error keep every cell. At 1400 px every row shows every cell."""
    from test_report import CASES, NOISY, case_row

    from dpverify.interfaces.report import write_report

    many = CASES + [case_row(f"consistent_{i}", NOISY) for i in range(30)]
    write_report(tmp_path, [], many, settings={"budget": "quick"}, paper_figures=False)
    visible = "r => Array.from(r.cells).filter(c => c.getBoundingClientRect().height > 0).length"
    page, console, errors, foreign = load(browser, tmp_path, 800)
    heights = dict(page.locator("#audit-table tbody tr").evaluate_all(
        "rs => rs.map(r => [r.getAttribute('data-name'), r.getBoundingClientRect().height])"))
    shown = dict(page.locator("#audit-table tbody tr").evaluate_all(
        f"rs => rs.map(r => [r.getAttribute('data-name'), ({visible})(r)])"))
    assert all(heights[f"consistent_{i}"] < 60 and shown[f"consistent_{i}"] == 4 for i in range(30)), heights
    for name in ("dp_sgld_broken", "dp_sgld_wang", "dp_sgfs"):  # violation, inconclusive, error
        assert shown[name] == len(HEADERS) and heights[name] > 200, (name, heights[name])
    assert page.locator("#audit-narrow-note").is_visible()
    table_height = page.locator("#audit-table").bounding_box()["height"]
    assert table_height < 30 * 60 + 3 * 500 + 2 * 400, table_height
    assert no_sideways_scroll(page) == [] and console == [] and errors == [] and foreign == []
    page.close()
    page, *_ = load(browser, tmp_path, 1400)
    counts = page.locator("#audit-table tbody tr").evaluate_all(f"rs => rs.map({visible})")
    assert set(counts) == {len(HEADERS)} and not page.locator("#audit-narrow-note").is_visible()
    page.close()
