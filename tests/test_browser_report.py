"""The HTML report in a real browser: Debian's chromium driven by Playwright (marker ``browser``).

Run with ``python -m pytest -m browser`` after ``apt-get install -y chromium`` and ``pip install playwright``
(``playwright install`` is not needed: the system chromium is used). Excluded from the default run, like ``slow``.

For a report of a real ``dpverify verify`` run and for one with every kind of audit row (accountant, ceiling,
certified 0, loose claim, violation, error), the page must load with no console error, no page error and no request
other than the file itself (every image is a data: URI and a Content-Security-Policy forbids the rest; a route
aborts and records anything else), and show its tables, its images (decoded, non-zero size) and the run id of the
``report.json`` beside it.
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


def load(browser, report_dir: Path) -> tuple:
    """Open report.html; returns (page, console errors, page errors, foreign requests)."""
    page = browser.new_page()
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
    assert page.title() == f"dpverify report {data['run_id']}"
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
    snippet = page.locator("#libraries pre.snippet").inner_text()
    assert "diffprivlib" in snippet and "mean" in snippet
