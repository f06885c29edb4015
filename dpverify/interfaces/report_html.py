"""The HTML page of a report: one self-contained file that opens with the verdict.

Order of the page (each section linked from the headline):

1. **headline** (``#headline``): PASS or FAIL, the counts (theorems passed; audits consistent / inconclusive /
   violations / errors; known-bad implementations flagged; library labels), and what needs attention, each item a
   link to its details (:func:`dpverify.interfaces.presentation.run_status`);
2. **audits** (``#audits``): the table, sortable by any column (its header, or the "sort by" list on a narrow
   screen) and filterable by verdict and by name, with the legend, the accountant footnotes, the loose claims and the
   claimed / accountant / ceiling / certified chart;
3. **audit details** (``#audit-details``): one ``<details>`` per audit (``#audit-<case>``, opened by its link): every
   number, the reason, the pair, the parameters, the counts, the event, the array backend and device the samples
   were drawn on ("numpy on cpu", "torch on cuda"), and the trade-off plane;
4. library audits, theorem checks (folded when all pass), the catalogue's bound curves;
5. **run details** (``#run``): run id, date, version and the settings as a list (not raw JSON), among them the
   ``--backend``/``--device`` the run asked for.

Self-contained: images are ``data:`` URIs, the style is inline, and the one inline script (sorting, filtering,
opening the details a link points at) is allowed by its SHA-256 in the Content-Security-Policy, which forbids every
other request. Responsive: nothing is wider than the window at any width (tables become one card per row below
1100 px, images scale down, long words and code wrap), checked in a real browser at 800 and 1400 px
(``tests/test_browser_report.py``).
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from dpverify.cases import CaseResult
from dpverify.interfaces.files import jsonable
from dpverify.interfaces.presentation import (
    AUDIT_HEADERS,
    LEGEND,
    AuditView,
    Cell,
    RunStatus,
    accountant_marks,
    anchor,
    audit_row,
    audit_view,
    fmt_epsilon,
    known_bad_summary,
    loose_claim_notes,
    number,
    run_status,
    samples_text,
    samples_used,
    sequential_text,
    split_known_bad,
    summary_counts,
)
from dpverify.interfaces.report_figures import accountant_figure, chart_points, png, tradeoff_figure
from dpverify.interfaces.rows import AuditRow, TheoremRow
from dpverify.libraries.runner import LibraryResult, ledger_text

__all__ = ["page", "RunInfo", "CSS", "SCRIPT", "content_security_policy", "FILTERS"]

esc = html.escape

#: The verdict filters of the audit table (a known-bad case is filtered as "known-bad", whatever its verdict).
FILTERS = ("consistent", "inconclusive", "violation", "error", "known-bad")

CSS = """
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d1d1d;line-height:1.4;
overflow-wrap:break-word}
main{max-width:1280px;margin:0 auto;padding:12px 16px}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.25em;margin:1.4em 0 .4em}h3{font-size:1.05em}
a{color:#0645ad}
#audit-narrow-note{display:none;font-size:12px}
[hidden]{display:none!important}
table{border-collapse:collapse;font-size:13px;width:100%}
td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top;text-align:left;overflow-wrap:break-word}
td.num{white-space:nowrap}
#audit-table th{width:1%}#audit-table th.wide{width:auto}
#audit-table td.reason{min-width:18em}
th{background:#f3f3f3}
th button{font:inherit;font-weight:bold;background:none;border:0;padding:0;cursor:pointer;text-align:left;color:inherit;
white-space:nowrap}
th[aria-sort=ascending] button::after{content:' \\25B2'}th[aria-sort=descending] button::after{content:' \\25BC'}
code{overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;padding:.5em;font-size:12px;max-width:100%}
img{max-width:100%;height:auto}
figure{margin:10px 0;max-width:100%}
figure.tradeoff img{width:460px}
figure.paper{display:inline-block;vertical-align:top;width:480px;margin:8px 8px 8px 0}
figcaption,.legend,.reason{font-size:12px}
.legend{color:#333}
.fail{color:#b00;font-weight:bold}.ok{color:#070}.warn{color:#8a5300}
#headline{border:3px solid #070;border-radius:6px;padding:8px 16px;margin:8px 0 16px}
#headline.fail{border-color:#b00;color:inherit;font-weight:normal}
#status{display:inline-block;padding:.1em .6em;border-radius:4px;color:#fff;background:#070;font-weight:bold}
#headline.fail #status{background:#b00}
#counts{margin:.4em 0;padding-left:1.2em}
#attention li{margin:.2em 0}
nav#sections a{display:inline-block;margin:0 1em .3em 0}
#audit-controls{display:flex;flex-wrap:wrap;gap:.4em 1.2em;align-items:center;margin:.5em 0;font-size:13px}
#audit-controls fieldset{border:1px solid #ccc;padding:.2em .6em;margin:0}
#audit-controls label{margin-right:.6em;white-space:nowrap}
details.audit-detail{border:1px solid #ccc;border-radius:4px;padding:.3em .8em;margin:.4em 0}
details.audit-detail summary{cursor:pointer}
dl.numbers{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.15em 1em;margin:.5em 0;font-size:13px}
dl.numbers dt{font-weight:bold}dl.numbers dd{margin:0;overflow-wrap:anywhere}
@media (max-width:1100px){
 table.cards thead{display:none}
 table.cards,table.cards tbody,table.cards tr,table.cards td{display:block;width:100%}
 table.cards tr{border:1px solid #bbb;border-radius:4px;margin:0 0 .6em}
 table.cards td{border:0;border-bottom:1px solid #eee;display:grid;grid-template-columns:8.5em minmax(0,1fr);gap:.5em}
 table.cards td::before{content:attr(data-label);font-weight:bold}
 #audit-table td.reason{min-width:0}
 table.cards tr.trivial{display:flex;flex-wrap:wrap;gap:0 1.2em;padding:.2em .5em}
 table.cards tr.trivial td{display:block;width:auto;border:0;padding:1px 0}
 table.cards tr.trivial td::before{content:attr(data-label) ': ';font-weight:normal;color:#555}
 table.cards tr.trivial td:first-child::before{content:none}
 table.cards tr.trivial td.more{display:none}
 #audit-narrow-note{display:block}
 figure.paper{width:min(480px,100%)}
}
"""

#: Sorting, filtering, and opening the details a link points at. Plain ES2015, no library.
SCRIPT = """
(function () {
  function openTarget() {
    var id = decodeURIComponent(location.hash.slice(1));
    var el = id && document.getElementById(id);
    for (var d = el; d; d = d.parentElement) { if (d.tagName === 'DETAILS') { d.open = true; } }
    if (el) { el.scrollIntoView(); }
  }
  window.addEventListener('hashchange', openTarget);
  openTarget();
  var table = document.getElementById('audit-table');
  if (!table) { return; }
  var body = table.tBodies[0];
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  function value(row, col, type) {
    var cell = row.cells[col];
    var v = cell.getAttribute('data-sort');
    if (type === 'num') { return (v === null || v === '') ? null : parseFloat(v); }
    return (v === null ? cell.textContent : v).toLowerCase();
  }
  function sortBy(col, descending) {
    var type = heads[col].getAttribute('data-type');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a, col, type), y = value(b, col, type);
      if (x === y) { return (+a.getAttribute('data-order')) - (+b.getAttribute('data-order')); }
      if (x === null) { return 1; }
      if (y === null) { return -1; }
      var c = x < y ? -1 : 1;
      return descending ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    heads.forEach(function (h, i) {
      if (i === col) { h.setAttribute('aria-sort', descending ? 'descending' : 'ascending'); }
      else { h.removeAttribute('aria-sort'); }
    });
    var select = document.getElementById('audit-sort');
    if (select) { select.value = col + (descending ? ':desc' : ':asc'); }
  }
  heads.forEach(function (h, i) {
    var button = h.querySelector('button');
    if (button) {
      button.addEventListener('click', function () { sortBy(i, h.getAttribute('aria-sort') === 'ascending'); });
    }
  });
  var select = document.getElementById('audit-sort');
  if (select) {
    select.addEventListener('change', function () {
      var parts = select.value.split(':');
      sortBy(+parts[0], parts[1] === 'desc');
    });
  }
  var boxes = Array.prototype.slice.call(document.querySelectorAll('#audit-controls input[name=verdict]'));
  var search = document.getElementById('audit-search');
  var shown = document.getElementById('audit-shown');
  function filter() {
    var wanted = {};
    boxes.forEach(function (b) { wanted[b.value] = b.checked; });
    var text = search ? search.value.trim().toLowerCase() : '';
    var n = 0;
    Array.prototype.forEach.call(body.rows, function (r) {
      var ok = wanted[r.getAttribute('data-verdict')] !== false &&
               (!text || r.getAttribute('data-name').toLowerCase().indexOf(text) >= 0);
      r.hidden = !ok;
      if (ok) { n += 1; }
    });
    if (shown) { shown.textContent = n + ' of ' + body.rows.length + ' shown'; }
  }
  boxes.forEach(function (b) { b.addEventListener('change', filter); });
  if (search) { search.addEventListener('input', filter); }
  filter();
})();
"""


def content_security_policy(script: str = SCRIPT) -> str:
    """No request may leave the page: images are data: URIs, the style is inline, and the only script that may run
    is ``script`` (by its SHA-256)."""
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    return f"default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"


@dataclass(frozen=True)
class RunInfo:
    """What the page says about the run: its id, when the report was created, the dpverify version, whether it was
    resumed after an interruption, and its settings (plain data, as ``report.json`` records them)."""

    run_id: str
    created: str = ""
    version: str = ""
    resumed: bool = False
    settings: dict = field(default_factory=dict)


#: A suite row with its audit as the tables show it (None for an error row).
_Suite = tuple[CaseResult, AuditView | None]


def page(run: RunInfo, theorem_rows: Sequence[TheoremRow], audits: Sequence[AuditRow],
         paper_figs: list[tuple[str, str, str]]) -> str:
    """The whole HTML page of a report: the run, its theorem rows, its audit rows (suite cases and library
    functions, told apart by their type) and its catalogue figures."""
    status = run_status(theorem_rows, audits)
    library = [r for r in audits if isinstance(r, LibraryResult)]
    suite: list[_Suite] = [(r, audit_view(r)) for r in audits if isinstance(r, CaseResult)]
    sections = [("audits", "Audits", bool(suite)), ("audit-details", "Audit details", bool(suite)),
                ("libraries", "Library audits", bool(library)), ("theorems", "Theorem checks", bool(theorem_rows)),
                ("paper-figures", "Bound curves", bool(paper_figs)), ("run", "Run details", True)]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{content_security_policy()}\">",
        f"<meta name='dpverify-run-id' content='{esc(run.run_id)}'>",
        "<link rel='icon' href='data:,'>",
        f"<title>{status.word}: dpverify report {esc(run.run_id)}</title><style>{CSS}</style></head><body><main>",
        _headline(status, theorem_rows, [r for r, _ in suite], library,
                  [(k, t) for k, t, present in sections if present]),
    ]
    if suite:
        parts.append(_audit_section(suite))
        parts.append(_details_section(suite))
    if library:
        parts.append(_library_section(library))
    if theorem_rows:
        parts.append(_theorem_section(theorem_rows))
    if paper_figs:
        parts.append("<section id='paper-figures'><h2>Bound curves of the catalogue</h2>")
        for name, caption, image in paper_figs:
            img = (f"<img width='480' alt='{esc(name)}' src='data:image/png;base64,{image}'>" if image else "")
            parts.append(f"<figure class='paper'>{img}<figcaption><b>{esc(name)}</b>: {esc(caption)}</figcaption>"
                         "</figure>")
        parts.append("</section>")
    parts.append(_run_section(run))
    parts.append(f"</main><script>{SCRIPT}</script></body></html>")
    return "\n".join(parts)


# -- the headline -------------------------------------------------------------------------------------------------

def _headline(status: RunStatus, theorem_rows: Sequence[TheoremRow], suite: list[CaseResult],
              library: list[LibraryResult], sections: list[tuple[str, str]]) -> str:
    cls = "fail" if status.failed else "pass"
    counts = []
    if theorem_rows:
        counts.append(f"<li><a href='#theorems'>theorems</a>: {status.theorems - status.theorems_failed}/"
                      f"{status.theorems} passed</li>")
    regular, known_bad = split_known_bad(suite)
    if regular:
        c = status.counts
        counts.append(f"<li><a href='#audits'>audits</a>: {len(regular)} &mdash; <span class='ok'>{c['consistent']} "
                      f"consistent</span>, <span class='warn'>{c['inconclusive']} inconclusive</span> at this budget, "
                      f"<span class='{'fail' if c['violation'] else ''}'>{c['violation']} violations</span>, "
                      f"<span class='{'fail' if c['error'] else ''}'>{c['error']} errors</span></li>")
    if known_bad:
        counts.append(f"<li>known-bad implementations (each must be flagged as a violation): "
                      f"{status.known_bad_flagged}/{status.known_bad} flagged</li>")
    if library:
        labels = ", ".join(f"{n} {esc(label)}" for label, n in status.library_labels.items())
        counts.append(f"<li><a href='#libraries'>library functions</a>: {len(library)} &mdash; {labels}</li>")
    if status.attention:
        items = "".join(f"<li><a href='#{a.anchor}'>{esc(a.ident)}</a> <span class='fail'>{esc(a.kind)}</span>: "
                        f"{esc(a.text.split(': ', 1)[-1])}</li>" for a in status.attention)
        attention = (f"<div id='attention'><h2>Needs attention ({len(status.attention)})</h2><ul>{items}</ul>"
                     "</div>")
    else:
        inconclusive = status.counts["inconclusive"]
        note = (f" {inconclusive} audits are inconclusive: no violation, but this budget could not have detected one "
                "(<a href='#audits'>why, per audit</a>); a larger budget gives them power." if inconclusive else "")
        attention = (f"<p id='attention'>Nothing needs attention: no failed theorem check, no violation, no error"
                     f"{', every known-bad implementation flagged' if known_bad else ''}.{note}</p>")
    nav = " ".join(f"<a href='#{key}'>{esc(title)}</a>" for key, title in sections)
    return (f"<header id='headline' class='{cls}'><h1><span id='status'>{status.word}</span> dpverify report</h1>"
            f"<ul id='counts'>{''.join(counts)}</ul>{attention}<nav id='sections'>{nav}</nav></header>")


# -- audits -------------------------------------------------------------------------------------------------------

def _filter_key(r: CaseResult) -> str:
    return "known-bad" if r.known_bad else (r.verdict or "error")


#: The audit table's columns after the name: (header, sort type); the numbers sort as numbers ('-' last). Every row
#: has exactly one cell per column (:func:`_audit_row_cells`).
_EXTRA_COLUMNS = (("reason", "text"), ("samples", "num"), ("seed", "num"), ("test", "text"))
_COLUMNS = tuple((h, "text" if h == "verdict" else "num") for h in AUDIT_HEADERS) + _EXTRA_COLUMNS


def _audit_section(suite: list[_Suite]) -> str:
    """The audits: their counts, the controls, the table (one row per audit), its legend and notes, and the chart."""
    marks = accountant_marks(view for _, view in suite)
    rows = [r for r, _ in suite]
    headers = [("audit", "text")] + list(_COLUMNS)
    head = "".join(f"<th data-type='{t}'{' class=wide' if h == 'reason' else ''}><button type='button'>{esc(h)}"
                   "</button></th>" for h, t in headers)
    parts = ["<section id='audits'><h2>Audits</h2>", _audit_summary(rows),
             "<p>A correct sampler and a sound auditor give claimed &ge; accountant &ge; exact &ge; certified, and "
             "certified &le; ceiling up to sampling error. Click a column to sort; click an audit for its details.</p>",
             _audit_controls(rows, headers),
             "<p id='audit-narrow-note'>In a narrow window, consistent audits and flagged known-bad implementations "
             "show one line (claimed, certified, verdict); click a name for every number.</p>",
             f"<table id='audit-table' class='cards'><thead><tr>{head}</tr></thead><tbody>"]
    parts += [_audit_row(order, r, view, marks) for order, (r, view) in enumerate(suite)]
    parts.append("</tbody></table>")
    parts.append(_audit_legend(suite, marks))
    parts.append(_audit_chart(suite))
    parts.append("</section>")
    return "\n".join(p for p in parts if p)


def _audit_summary(audits: list[CaseResult]) -> str:
    regular, known_bad = split_known_bad(audits)
    counts = summary_counts(r.verdict or "error" for r in regular)
    bad = (f"; {esc(known_bad_summary(known_bad))} (deliberately broken; each must be a violation)" if known_bad
           else "")
    return (f"<p id='audit-summary'>{len(regular)} audits: {counts['consistent']} consistent, "
            f"{counts['inconclusive']} inconclusive at this budget, {counts['violation']} violations, "
            f"{counts['error']} errors{bad}.</p>")


def _audit_controls(audits: list[CaseResult], headers: list[tuple[str, str]]) -> str:
    """The verdict filters (those present), the name filter and the "sort by" list (every column, both ways)."""
    options = "".join(f"<option value='{i}:{d}'>{esc(h)} ({'high first' if d == 'desc' else 'low first'})</option>"
                      for i, (h, _) in enumerate(headers) for d in ("asc", "desc"))
    present = {_filter_key(r) for r in audits}
    boxes = "".join(f"<label><input type='checkbox' name='verdict' value='{f}' checked> {f}</label>"
                    for f in FILTERS if f in present)
    return (f"<div id='audit-controls'><fieldset><legend>show verdicts</legend>{boxes}</fieldset>"
            "<label>name <input type='search' id='audit-search' placeholder='filter by name'></label>"
            f"<label>sort by <select id='audit-sort'><option value=''>suite order</option>{options}</select></label>"
            "<span id='audit-shown'></span></div>")


def _audit_legend(suite: list[_Suite], marks: dict) -> str:
    """What each column means, the accountant methods behind the [n] marks, and the loose claims."""
    parts = ["<div class='legend' id='audit-legend'><p>" + "<br>".join(esc(x) for x in LEGEND) + "</p>"]
    if marks:
        parts.append("<p>Accountant methods: " + "; ".join(f"[{n}] {esc(m)}" for m, n in marks.items()) + "</p>")
    notes = [n for r, view in suite if view is not None for n in loose_claim_notes(r.case, view)]
    if notes:
        parts.append("<p id='loose-claims'>Loose claims (no audit of this pair can contradict them):<br>"
                     + "<br>".join(esc(n) for n in notes) + "</p>")
    return "".join(parts) + "</div>"


def _audit_chart(suite: list[_Suite]) -> str:
    """The chart of the audits with an accountant or an exact value, with the numbers it draws beside it
    (``data-points``: :func:`~dpverify.interfaces.report_figures.chart_points`); empty when there are none."""
    charted = [(str(r.case), view) for r, view in suite
               if view is not None and (view.accountant is not None or view.exact is not None)]
    if not charted:
        return ""
    image = png(accountant_figure(charted))
    points = esc(json.dumps(jsonable(chart_points(charted)), allow_nan=False))
    return (f"<figure id='accountant-plot' data-points='{points}'><img alt='claimed, tested, accountant, exact, "
            f"ceiling and certified epsilon per audit' src='data:image/png;base64,{image}'><figcaption>Audits with an "
            "accountant or an exact value: claimed (the theorem's claim), tested (what the audit tested), accountant "
            "(the run's epsilon), exact (the pair's), budget ceiling (the most this budget can certify on this pair) "
            "and certified, per audit, on a log-scale epsilon axis.</figcaption></figure>")


def _audit_row_cells(r: CaseResult, a: AuditView | None, marks: dict) -> list[Cell]:
    """The cells of one audit row after its name, one per :data:`_COLUMNS` entry (an error row: ``-`` in each
    number, "error" as its verdict and the error as its reason)."""
    if a is None:
        cells = [Cell(h, "-", None, t == "num") for h, t in _COLUMNS]
        cells[len(AUDIT_HEADERS) - 1] = Cell("verdict", "error", "error", False)
        cells[len(AUDIT_HEADERS)] = Cell("reason", f"error: {r.error}", None, False)
        return cells
    cells = list(audit_row(a, marks))
    if r.known_bad:
        v = cells[-1]
        cells[-1] = Cell(v.header, f"{v.text} (known-bad: {'flagged' if r.passed else 'NOT flagged'})", v.sort, False)
    cells += [Cell("reason", str(a.verdict_reason or ""), None, False),
              Cell("samples", samples_text(a), samples_used(a)), Cell("seed", str(a.seed), number(a.seed)),
              Cell("test", str(a.test), None, False)]
    return cells


#: The cells a trivial audit keeps where the table is shown as cards (narrow windows): every other number is one
#: click away, in its details.
_CARD_SUMMARY = ("claimed", "certified", "verdict")


def trivial(r: CaseResult) -> bool:
    """An audit row that needs no reading: a consistent audit, or a known-bad implementation that was flagged. In
    the narrow (cards) layout it collapses to one line: its name, claimed, certified and verdict."""
    if r.error or r.audit is None:
        return False
    return bool(r.passed) if r.known_bad else str(r.audit.verdict) == "consistent"


def _audit_row(order: int, r: CaseResult, a: AuditView | None, marks: dict) -> str:
    name = str(r.case)
    link = f"<a href='#{anchor('audit', name)}'>{breakable(name)}</a>"
    attrs = (f"id='{anchor('row', name)}' data-order='{order}' data-verdict='{_filter_key(r)}' "
             f"data-name='{esc(name)}'" + (" class='trivial'" if trivial(r) else ""))
    verdict_class = {"consistent": "ok", "inconclusive": "warn"}.get(str(None if a is None else a.verdict), "fail")
    if r.known_bad:
        verdict_class = "ok" if r.passed else "fail"
    cells = _audit_row_cells(r, a, marks)
    if [c.header for c in cells] != [h for h, _ in _COLUMNS]:
        raise RuntimeError(f"audit row {name!r} has cells {[c.header for c in cells]}, not one per column")
    out = [f"<td data-label='audit' data-sort='{esc(name.lower())}'>{link}</td>"]
    for c in cells:
        classes = (["num"] if c.numeric else []) + ([] if c.header in _CARD_SUMMARY else ["more"])
        if c.header == "verdict":
            classes.append(verdict_class)
        elif c.header == "reason":
            classes += ["reason"] + (["fail"] if a is None else [])
        sort = _sortable(c.sort) if c.numeric else esc(str(c.sort if c.sort is not None else c.text).lower())
        cls = f" class='{' '.join(classes)}'" if classes else ""
        out.append(f"<td data-label='{esc(c.header)}'{cls} data-sort='{sort}'>{esc(c.text)}</td>")
    return f"<tr {attrs}>{''.join(out)}</tr>"


#: Identifiers longer than this may wrap at their parts in the audit table (the suite's are at most 29 long).
UNBROKEN_NAME = 32


def breakable(ident: str) -> str:
    """An identifier, escaped; one longer than :data:`UNBROKEN_NAME` gets a line-break opportunity after each ``_``,
    ``.`` and ``-`` (``<wbr>``), so that it wraps at its parts instead of widening the table past the window."""
    out = esc(ident)
    if len(ident) <= UNBROKEN_NAME:
        return out
    for sep in ("_", ".", "-"):
        out = out.replace(sep, sep + "<wbr>")
    return out


def _sortable(value: float | str | None) -> str:
    if value is None or isinstance(value, str) or value != value:
        return ""
    return "1e308" if value == float("inf") else repr(float(value))


def _details_section(suite: list[_Suite]) -> str:
    parts = ["<section id='audit-details'><h2>Audit details</h2><p>One entry per audit: every number, the reason, "
             "the pair and the trade-off plane of its distinguishing test (points below the red curve are impossible "
             "under the tested epsilon; the dash-dotted red curve is the theorem's claim where it differs; the blue "
             "point is the event that certified the lower bound).</p>"]
    for r, view in suite:
        parts.append(_audit_detail(r, view))
    parts.append("</section>")
    return "\n".join(parts)


def _audit_numbers(a: AuditView) -> list[tuple[str, Any]]:
    """The details entry's lines for an audit that ran: every number of the audit."""
    kind = a.tested_kind or "exact"
    return [("claimed epsilon (the theorem)", fmt_epsilon(a.claimed)),
            ("tested epsilon", fmt_epsilon(a.tested) + (f" ({kind})" if a.tested_kind is not None else "")),
            ("delta", a.delta),
            ("accountant", fmt_epsilon(a.accountant) + (f" ({a.accountant_method})" if a.accountant_method else "")),
            ("exact", fmt_epsilon(a.exact)), ("budget ceiling", fmt_epsilon(a.ceiling)),
            ("certified", fmt_epsilon(a.certified)), ("confidence", a.confidence),
            ("samples per side", samples_text(a)), ("sequential", sequential_text(a)), ("seed", a.seed),
            ("test", a.test), ("event", a.event), ("counts", json.dumps(jsonable(a.counts))), ("mode", a.mode)]


def _audit_detail(r: CaseResult, a: AuditView | None) -> str:
    name = str(r.case)
    verdict = _filter_key(r) if r.known_bad else (r.verdict or "error")
    summary_reason = r.error if a is None else a.verdict_reason
    rows: list[tuple[str, Any]] = [("verdict", "error" if a is None else a.verdict), ("reason", summary_reason)]
    if r.known_bad:
        rows.append(("known-bad", "flagged (found the violation)" if r.passed else "NOT flagged"))
    rows += [("sampler", r.sampler), ("pair", r.pair)]
    if r.params:
        rows.append(("parameters", ", ".join(f"{k}={v}" for k, v in r.params.items())))
    if a is not None:
        rows += _audit_numbers(a)
    rows.append(("backend", _where(r, a)))
    if r.seconds is not None:
        rows.append(("time [s]", f"{float(r.seconds):.2f}"))
    dl = "".join(f"<dt>{esc(k)}</dt><dd>{esc(str(v))}</dd>" for k, v in rows if v is not None and v != "")
    figure = ""
    if a is not None:
        image = png(tradeoff_figure(a, f"{name}: {r.pair}"))
        figure = (f"<figure class='tradeoff'><img alt='trade-off plane of {esc(name)}' "
                  f"src='data:image/png;base64,{image}'><figcaption>{esc(name)} ({esc(a.verdict)}): "
                  f"{esc(a.verdict_reason or '')}. Event {esc(str(a.event))}.</figcaption></figure>")
    cls = {"consistent": "ok", "inconclusive": "warn", "known-bad": "ok" if r.passed else "fail"}.get(verdict, "fail")
    return (f"<details class='audit-detail' id='{anchor('audit', name)}'><summary><b>{esc(name)}</b> &mdash; "
            f"<span class='{cls}'>{esc(verdict)}</span>: {esc(str(summary_reason or ''))}</summary>"
            f"<dl class='numbers'>{dl}</dl>{figure}</details>")


def _where(r: CaseResult, a: AuditView | None) -> str:
    """The array backend and device of an audit row, e.g. "torch on cuda" (:mod:`dpverify.backends`): the audit's
    own when it ran, else the row's (an error row records the backend it was asked to run on)."""
    backend = (a.backend if a is not None else None) or r.backend or "numpy"
    device = (a.device if a is not None else None) or r.device or "cpu"
    return f"{backend} on {device}"


# -- libraries, theorems, run ---------------------------------------------------------------------------------------

def _library_cells(r: LibraryResult) -> list[str]:
    """The library table's cells of a row that are plain text (the function, the worst pair and the label are drawn
    from the row itself)."""
    c = r.claimed
    delta = f" (delta {float(c.delta):.1e})" if c is not None and c.delta else ""
    return [str(r.library), str(r.version), "", f"{fmt_epsilon(None if c is None else c.epsilon)}{delta}",
            str(c.source if c is not None else (r.error or "")), fmt_epsilon(r.certified),
            fmt_epsilon(r.confirm_certified), "", str(r.verdict), str(r.label or "")]


def _library_section(rows: list[LibraryResult]) -> str:
    """The library audits (``dpverify audit-library``, :mod:`dpverify.libraries.runner`): per function the library's
    version, the claim and where it was read, the certified bound (and the confirmation's), the worst pair found,
    the verdict and its label, and a reproduction snippet for every violation."""
    headers = ("library", "version", "function", "claimed", "claim read from", "certified", "confirmation",
               "worst pair", "verdict", "label")
    parts = ["<section id='libraries'><h2>Library audits</h2>",
             "<p>Each function: a worst-pair search under a fixed screening budget, a final audit of the best pair on "
             "fresh samples, and, for a violation, a confirmation with a new seed. A violation is a <b>finding</b> "
             "only if it reproduces and is not documented; <b>expected</b> marks a documented leak that was found."
             "</p><table id='library-table' class='cards'><thead><tr>"
             + "".join(f"<th>{esc(h)}</th>" for h in headers) + "</tr></thead><tbody>"]
    for r in rows:
        pair = r.worst_pair
        cls = {"finding": "fail", "error": "fail", "expected, not found": "fail", "expected": "ok"}.get(
            r.label or "", "")
        tds = []
        for h, text in zip(headers, _library_cells(r)):
            if h == "function":
                tds.append(f"<td data-label='function'><code>{esc(str(r.function))}</code></td>")
            elif h == "worst pair":  # an accountant query has no pair: its row shows dpverify's bracket instead
                what = pair.family if pair else (r.pair or "-")
                note = pair.note if pair else str(r.options.get("reference", ""))
                tds.append(f"<td data-label='worst pair'>{esc(what)}<br><span class='reason'>{esc(note)}</span></td>")
            elif h == "label":
                tds.append(f"<td data-label='label' class='{cls}'>{esc(text)}</td>")
            else:
                tds.append(f"<td data-label='{esc(h)}'>{esc(text)}</td>")
        parts.append(f"<tr id='{anchor('library', r.case)}'>{''.join(tds)}</tr>")
    parts.append("</tbody></table>")

    for r in rows:
        lines = ledger_text(r)
        if lines:
            parts.append(f"<details class='ledger' id='{anchor('ledger', r.case)}'><summary>Ledger and "
                         f"causes: {esc(r.case)} ({esc(r.label or r.verdict)})</summary>"
                         f"<pre class='snippet ledger-text'>{esc(chr(10).join(lines))}</pre></details>")
    for r in rows:
        if r.snippet:
            expected = f"<p class='reason'>expected: {esc(r.expected)}</p>" if r.expected else ""
            parts.append(f"<h3>Reproduction: {esc(r.case)} ({esc(r.label or r.verdict)})</h3>"
                         f"{expected}<pre class='snippet reproduction'>{esc(r.snippet)}</pre>")
    parts.append("</section>")
    return "\n".join(parts)


def _theorem_section(theorem_rows: Sequence[TheoremRow]) -> str:
    n_fail = sum(not r.passed for r in theorem_rows)
    n_checks = sum(len(r.checks) for r in theorem_rows)
    parts = [f"<section id='theorems'><h2>Theorem checks</h2><p>{len(theorem_rows)} theorems, {n_checks} checks: "
             f"{len(theorem_rows) - n_fail} theorems passed, <span class='{'fail' if n_fail else ''}'>{n_fail} "
             "failed</span>.</p>",
             f"<details id='theorem-list'{' open' if n_fail else ''}><summary>every theorem and its checks</summary>"
             "<table id='theorem-table' class='cards'><thead><tr><th>id</th><th>item</th><th>status</th>"
             "<th>checks</th><th>failed checks</th><th>proof</th></tr></thead><tbody>"]
    for r in theorem_rows:
        cls = "ok" if r.passed else "fail"
        rec = " (reconstructed)" if r.reconstructed else ""
        parts.append(f"<tr id='{anchor('theorem', r.id)}'><td data-label='id'>{esc(r.id)}</td>"
                     f"<td data-label='item'>{esc(str(r.item))}{rec}</td><td data-label='status' class='{cls}'>"
                     f"{esc(r.status)}</td><td data-label='checks'>{len(r.checks)}</td>"
                     f"<td data-label='failed checks'>{esc(', '.join(r.failed_checks))}</td>"
                     f"<td data-label='proof'>{_proof_cell(r.proof)}</td></tr>")
    parts.append("</tbody></table></details></section>")
    return "\n".join(parts)


def _proof_cell(proof: dict | None) -> str:
    """The outcome of ``dpverify prove`` for a theorem row (its parts' summaries in a fold), or "-" for an item that
    states no bound to prove."""
    if not proof:
        return "-"
    outcome = str(proof.get("outcome", ""))
    cls = {"proved": "ok", "refuted": "fail" if proof.get("expected") != "refuted" else ""}.get(outcome, "")
    lines = [f"[{p.get('part', '')}] {p.get('summary', '')}" for p in proof.get("parts", [])]
    if proof.get("reason") and not lines:
        lines = [str(proof["reason"])]
    if proof.get("why"):
        lines.append(f"expected {proof.get('expected')}: {proof['why']}")
    if proof.get("certificates_valid") is False:
        lines.append("a shipped certificate does NOT re-check")
    body = "".join(f"<li>{esc(line)}</li>" for line in lines)
    return (f"<details class='proof'><summary class='{cls}'>{esc(outcome)}</summary><ul>{body}</ul></details>"
            if body else f"<span class='{cls}'>{esc(outcome)}</span>")


def _run_section(run: RunInfo) -> str:
    rows = [("run", f"<code id='run-id'>{esc(run.run_id)}</code>"
             + (" (resumed after an interruption)" if run.resumed else "")),
            ("created", esc(str(run.created))),
            ("dpverify", esc(str(run.version)))]
    for key, value in _flat(run.settings):
        rows.append((esc(key), esc(value)))
    dl = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in rows)
    return (f"<section id='run'><h2>Run details</h2><dl class='numbers' id='settings'>{dl}</dl>"
            f"<p class='legend'>run {esc(run.run_id)}</p></section>")


def _flat(settings: dict, prefix: str = "") -> Iterable[tuple[str, str]]:
    """Settings as (name, value) lines; nested dicts as dotted names, lists joined, None as '-'."""
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            yield from _flat(value, name + ".")
        elif isinstance(value, (list, tuple)):
            yield name, ", ".join(map(str, value)) or "-"
        else:
            yield name, "-" if value is None else str(value)
