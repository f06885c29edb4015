"""Reports of ``dpverify verify``: ``report.json`` (machine-readable) and a self-contained ``report.html``, and how
an audit's numbers are presented everywhere (the CLI tables, the pytest plugin, the HTML).

``report.json`` holds every theorem check and every audit with its numbers, counts, seeds and the run id.
``report.html`` embeds its plots as base64 PNG (matplotlib, Agg backend), loads nothing from the network (a
Content-Security-Policy forbids it), and carries the same run id, so the file can be mailed or archived alone:

- the audit table: claimed, accountant (with its method), exact, budget ceiling, certified, certified/claimed,
  verdict and the verdict's reason, with a legend saying what ``-`` means in each column;
- for the audits that have an accountant (the gradient samplers), one plot of claimed / accountant / ceiling /
  certified per audit on a log-scale epsilon axis;
- per audit, the trade-off plane of the distinguishing test (type I error alpha = P[M(D') in S] against
  type II error beta = P[M(D) not in S]) with the region that (epsilon, delta)-DP allows,
  beta >= max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)) (Kairouz, Oh, Viswanath 2015, Thm 2.1;
  Dong, Roth, Su 2022, Prop. 2.5), drawn for the claimed and the certified epsilon, the empirical trade-off curve
  of the chosen statistic where the audit recorded one, and the certified event's point;
- per paper, the bound curves of the catalogue (:mod:`dpverify.interfaces.figures`).

Writing (:func:`write_report`): the files are rendered completely, then published together through
:class:`dpverify.interfaces.files.RunDirectory` -- one atomic symlink switch -- so a report directory never shows a
``report.json`` of one run beside a ``report.html`` of another, whenever the process is killed, and concurrent
runs into one directory never mix.
"""
from __future__ import annotations

import base64
import html
import io
import json
import math
import os
import time
from pathlib import Path
from typing import Any, Iterable

from dpverify.audit.verdicts import fmt_epsilon
from dpverify.interfaces.files import Run, RunDirectory, jsonable, write_atomic, write_json_atomic

__all__ = ["write_report", "render_report", "write_atomic", "write_json_atomic", "tradeoff_figure",
           "accountant_figure", "fmt_epsilon", "AUDIT_HEADERS", "audit_cells", "accountant_marks", "LEGEND",
           "loose_claim_notes", "times", "summary_counts"]

# -- presentation shared by the CLI, the plugin and the HTML ------------------------------------------------------

#: Column headers of an audit row, in order (see :func:`audit_cells` and :data:`LEGEND`).
AUDIT_HEADERS = ("claimed", "accountant", "exact", "ceiling", "certified", "cert/claim", "verdict")

#: What each column means, and what ``-`` means in it.
LEGEND: tuple[str, ...] = (
    "claimed: the epsilon the sampler's theorem (or the test's marker) promises for these parameters.",
    "accountant: the accountant's epsilon of the concrete run at the same delta, an upper bound (exact for a path "
    "release, up to the accountant's error); [n] names its method; '-' = the mechanism describes no run to account.",
    "exact: the closed-form epsilon of the audited pair; '-' = no closed form is known for this pair "
    "(compare with the accountant instead).",
    "ceiling: the most any event-based audit could certify on this pair with this budget; '-' = unknown (the "
    "mechanism does not describe its privacy loss; the verdict then uses the budget's saturation).",
    "certified: the audit's lower bound on epsilon (holds with the stated confidence); cert/claim = certified / "
    "claimed.",
    "verdict: violation = certified > claimed; inconclusive = no violation, but this budget could not have "
    "detected one (reason given); consistent = no violation, and the audit had power against the claim.",
)

#: A claim this many times the exact or accountant epsilon is called out ("claim 4000x the exact value").
LOOSE_FACTOR = 10.0


def times(ratio: float) -> str:
    """A ratio rounded to 2 significant digits, as an integer from 10 up: 4004.4 -> '4000', 12.3 -> '12'."""
    if not math.isfinite(ratio):
        return "inf"
    if ratio >= 10:
        digits = int(math.floor(math.log10(ratio))) - 1
        return f"{round(ratio, -digits):.0f}"
    return f"{ratio:.2g}"


def _num(x: Any) -> float | None:
    if x is None:
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def accountant_marks(audits: Iterable[dict]) -> dict[str, int]:
    """Footnote number of each distinct accountant method, in order of first appearance."""
    marks: dict[str, int] = {}
    for a in audits:
        if a and a.get("epsilon_accountant") is not None:
            marks.setdefault(a.get("accountant_method") or "unspecified", len(marks) + 1)
    return marks


def audit_cells(a: dict, marks: dict[str, int]) -> list[str]:
    """The :data:`AUDIT_HEADERS` cells of one audit (an ``AuditResult.to_dict()``)."""
    claimed, lower = _num(a.get("epsilon_claimed")), _num(a.get("epsilon_lower"))
    acc = a.get("epsilon_accountant")
    acc_text = "-" if acc is None else f"{fmt_epsilon(acc)} [{marks.get(a.get('accountant_method') or 'unspecified', '?')}]"
    ratio = "-" if not claimed or lower is None else f"{lower / claimed:.3g}"
    return [fmt_epsilon(claimed), acc_text, fmt_epsilon(a.get("epsilon_exact")), fmt_epsilon(a.get("budget_ceiling")),
            fmt_epsilon(lower), ratio, str(a.get("verdict", "-"))]


def loose_claim_notes(name: str, a: dict, factor: float = LOOSE_FACTOR) -> list[str]:
    """Sentences for a claim at least ``factor`` times the exact or the accountant's epsilon, e.g. ``ula_final: claim
    4000x the exact value (4545 vs 1.135)``: such a claim cannot be contradicted by any audit of this pair."""
    notes = []
    claimed = _num(a.get("epsilon_claimed"))
    if claimed is None or not math.isfinite(claimed):
        return notes
    for key, what in (("epsilon_exact", "the exact value"), ("epsilon_accountant", "the accountant's epsilon")):
        ref = _num(a.get(key))
        if ref is None or not math.isfinite(ref):
            continue
        if ref <= 0:
            if claimed > 0:
                notes.append(f"{name}: claim {fmt_epsilon(claimed)} while {what} is 0")
            continue
        if claimed / ref >= factor:
            method = f", {a.get('accountant_method')}" if key == "epsilon_accountant" and a.get("accountant_method") else ""
            notes.append(f"{name}: claim {times(claimed / ref)}x {what} ({fmt_epsilon(claimed)} vs "
                         f"{fmt_epsilon(ref)}{method})")
    return notes


def legend_lines(marks: dict) -> list[str]:
    """The table's legend, then the accountant methods behind the ``[n]`` marks (for the CLI tables)."""
    lines = list(LEGEND)
    if marks:
        lines.append("accountant methods: " + "; ".join(f"[{n}] {m}" for m, n in marks.items()))
    return lines


def split_known_bad(audits: list[dict]) -> tuple[list[dict], list[dict]]:
    """``(regular, known_bad)``: known-bad cases (deliberately broken implementations, :mod:`dpverify.interfaces.suite`) pass
    when their violation is found, so they are counted apart from the verdicts of the other audits."""
    return [r for r in audits if not r.get("known_bad")], [r for r in audits if r.get("known_bad")]


def known_bad_summary(known_bad: list[dict]) -> str:
    flagged = sum(bool(r.get("passed")) for r in known_bad)
    return f"known-bad implementations: {flagged}/{len(known_bad)} flagged"


def summary_counts(verdicts: Iterable[str]) -> dict[str, int]:
    """Counts of each verdict (violation, consistent, inconclusive, error)."""
    out = {"consistent": 0, "inconclusive": 0, "violation": 0, "error": 0}
    for v in verdicts:
        out[v if v in out else "error"] += 1
    return out


# -- figures ------------------------------------------------------------------------------------------------------

def _png(fig) -> str:
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _dp_region_boundary(eps: float, delta: float, alpha):
    import numpy as np

    alpha = np.asarray(alpha, dtype=float)
    e = math.exp(min(eps, 700.0))  # beyond e^700 the boundary is the axes to plotting precision
    return np.maximum.reduce([np.zeros_like(alpha), 1 - delta - e * alpha, (1 - delta - alpha) / e])


def _event_point(audit: dict) -> tuple[float, float] | None:
    """(alpha, beta) of the certified event, oriented so the event is more likely under M(D)."""
    c = audit.get("counts") or {}
    n = c.get("n_estimation")
    if not n:
        return None
    p_d, p_n = c["dataset_in_event"] / n, c["neighbour_in_event"] / n
    if p_d < p_n:  # the event favours the neighbour: swap the roles of D and D'
        p_d, p_n = p_n, p_d
    return p_n, 1.0 - p_d


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def tradeoff_figure(audit: dict, title: str):
    """The trade-off plot of one audit (see the module docstring)."""
    import numpy as np

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    a = np.linspace(0, 1, 401)
    delta = float(audit["delta"])
    claimed_eps = _num(audit["epsilon_claimed"])
    claimed = _dp_region_boundary(claimed_eps, delta, a)
    ax.fill_between(a, 0, claimed, color="tab:red", alpha=0.15,
                    label=f"excluded by the claim eps = {claimed_eps:.3g}")
    ax.plot(a, claimed, color="tab:red", lw=1)
    lower = _num(audit["epsilon_lower"])
    ax.plot(a, _dp_region_boundary(lower, delta, a), color="tab:blue", ls="--", lw=1,
            label=f"boundary at the certified eps = {lower:.3g}")
    exact = _num(audit.get("epsilon_exact"))
    if exact is not None and math.isfinite(exact):
        ax.plot(a, _dp_region_boundary(exact, delta, a), color="k", ls=":", lw=1,
                label=f"boundary at the exact pair eps = {exact:.3g}")
    curve = audit.get("tradeoff")
    if curve and curve.get("alpha"):
        ca, cb = np.asarray(curve["alpha"], dtype=float), np.asarray(curve["beta"], dtype=float)
        ax.plot(ca, cb, color="tab:green", lw=1.5, label="empirical trade-off of the chosen test")
    point = _event_point(audit)
    if point:
        ax.plot(*point, "o", color="tab:blue", ms=6, label="certified event (estimation half)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("type I error alpha = P[M(D') in S]")
    ax.set_ylabel("type II error beta = P[M(D) not in S]")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6.5, loc="upper right")
    return fig


def accountant_figure(rows: list[tuple[str, dict]]):
    """Claimed / accountant / budget ceiling / certified epsilon per audit (rows of ``(name, audit dict)`` that have
    an accountant), on a log-scale epsilon axis. A certified 0 cannot sit on a log axis: it is drawn as a downward
    triangle at the floor of the axis, and its label says so."""
    plt = _pyplot()
    positive = [v for _, a in rows for v in (_num(a.get(k)) for k in
                ("epsilon_claimed", "epsilon_accountant", "budget_ceiling", "epsilon_lower", "epsilon_exact"))
                if v is not None and math.isfinite(v) and v > 0]
    floor = min(positive) / 10 if positive else 1e-3
    fig, ax = plt.subplots(figsize=(max(5.0, 0.9 * len(rows) + 2.5), 4.2))
    series = (("epsilon_claimed", "claimed", "tab:red", "o"), ("epsilon_accountant", "accountant", "k", "s"),
              ("epsilon_exact", "exact", "tab:purple", "x"), ("budget_ceiling", "budget ceiling", "tab:orange", "^"),
              ("epsilon_lower", "certified", "tab:blue", "D"))
    xs = list(range(len(rows)))
    at_floor = []
    for key, label, color, marker in series:
        px, py = [], []
        for x, (_, a) in zip(xs, rows):
            v = _num(a.get(key))
            if v is None or not math.isfinite(v):
                continue
            if v <= 0:
                if key == "epsilon_lower":
                    at_floor.append(x)
                continue
            px.append(x)
            py.append(v)
        if px:
            ax.plot(px, py, marker, color=color, ms=7, ls="none", label=label)
    if at_floor:
        ax.plot(at_floor, [floor] * len(at_floor), "v", color="tab:blue", ms=8, ls="none",
                label="certified 0 (drawn at the axis floor)")
    ax.set_yscale("log")
    ax.set_ylim(bottom=floor / 1.5)
    ax.set_xticks(xs)
    ax.set_xticklabels([name for name, _ in rows], rotation=30, ha="right", fontsize=8)
    ax.set_xlabel("audit")
    ax.set_ylabel("epsilon (log scale)")
    ax.set_title("claimed vs accountant vs budget ceiling vs certified", fontsize=9)
    ax.grid(True, which="major", axis="y", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return fig


def figure_paper(name: str) -> str | None:
    """The catalogue's paper key of a figure named "<Author> et al. <year>..." ("li2019"), else None."""
    import re

    m = re.match(r"(\w+) et al\. (\d{4})", name)
    return f"{m.group(1).lower()}{m.group(2)}" if m else None


def _paper_figures(papers: Iterable[str] | None = None) -> list[tuple[str, str, str]]:
    """(title, caption, base64 PNG) for each paper's bound curves (only those of ``papers`` if given, plus figures
    of no single paper); a figure that fails is reported in its caption."""
    from dpverify.interfaces import figures

    wanted = None if papers is None else set(papers)
    out = []
    for name, build in figures.FIGURES.items():
        if wanted is not None and figure_paper(name) is not None and figure_paper(name) not in wanted:
            continue
        try:
            fig, caption = build()
            out.append((name, caption, _png(fig)))
        except Exception as exc:  # a missing curve must not lose the rest of the report
            out.append((name, f"could not be drawn: {type(exc).__name__}: {exc}", ""))
    return out


# -- HTML ---------------------------------------------------------------------------------------------------------

_CSS = (
    "body{font-family:sans-serif;max-width:1150px;margin:auto;padding:1em}"
    "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}"
    ".fail{color:#b00;font-weight:bold}.ok{color:#070}.warn{color:#a60}"
    "figure{display:inline-block;margin:8px;vertical-align:top;width:480px}figure.wide{width:auto}"
    "figcaption{font-size:12px}.legend{font-size:12px;color:#333}.reason{font-size:12px}"
)
#: No request may leave the page: images are data: URIs and the style is inline.
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def _html(payload: dict, paper_figs: list[tuple[str, str, str]]) -> str:
    esc = html.escape
    run_id = payload["run_id"]
    theorem_rows, audits, settings = payload["theorems"], payload["audits"], payload["settings"]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{_CSP}\">",
        f"<meta name='dpverify-run-id' content='{esc(run_id)}'>",
        "<link rel='icon' href='data:,'>",
        f"<title>dpverify report {esc(run_id)}</title><style>{_CSS}</style></head><body>",
        f"<h1>dpverify report</h1><p>run <code id='run-id'>{esc(run_id)}</code>, created {esc(payload['created'])}"
        f" by dpverify {esc(str(payload.get('dpverify_version', '')))}"
        + (" (resumed after an interruption)" if payload.get("resumed") else "")
        + f"; settings: <code>{esc(json.dumps(settings))}</code></p>",
    ]
    if theorem_rows:
        n_fail = sum(r["status"] != "passed" for r in theorem_rows)
        parts.append(f"<section id='theorems'><h2>Theorem checks</h2><p>{len(theorem_rows)} theorems, {n_fail} failed."
                     "</p><table id='theorem-table'><tr><th>id</th><th>item</th><th>status</th><th>checks</th>"
                     "<th>failed checks</th></tr>")
        for r in theorem_rows:
            cls = "ok" if r["status"] == "passed" else "fail"
            failed = ", ".join(c["name"] for c in r["checks"] if not c["passed"])
            rec = " (reconstructed)" if r.get("reconstructed") else ""
            parts.append(f"<tr><td>{esc(r['id'])}</td><td>{esc(str(r['item']))}{rec}</td><td class='{cls}'>"
                         f"{esc(r['status'])}</td><td>{len(r['checks'])}</td><td>{esc(failed)}</td></tr>")
        parts.append("</table></section>")
    if any(isinstance(r, dict) and r.get("library") for r in audits):
        parts.append(_library_section(audits))
    if audits:
        parts.append(_audit_section(audits))
    if paper_figs:
        parts.append("<section id='paper-figures'><h2>Bound curves of the catalogue</h2>")
        for name, caption, png in paper_figs:
            img = f"<img width='470' alt='{esc(name)}' src='data:image/png;base64,{png}'>" if png else ""
            parts.append(f"<figure>{img}<figcaption><b>{esc(name)}</b>: {esc(caption)}</figcaption></figure>")
        parts.append("</section>")
    parts.append(f"<footer><p class='legend'>run {esc(run_id)}</p></footer></body></html>")
    return "\n".join(parts)


def _library_section(rows: list[dict]) -> str:
    """The library audits (``dpverify audit-library``, :mod:`dpverify.libraries.runner`): per function the library's
    version, the claim and where it was read, the certified bound (and the confirmation's), the worst pair found,
    the verdict and its label, and a reproduction snippet for every violation."""
    esc = html.escape
    lib_rows = [r for r in rows if r.get("library")]
    parts = ["<section id='libraries'><h2>Library audits</h2>",
             "<p>Each function: a worst-pair search under a fixed screening budget, a final audit of the best pair on "
             "fresh samples, and, for a violation, a confirmation with a new seed. A violation is a <b>finding</b> "
             "only if it reproduces and is not documented; <b>expected</b> marks a documented leak that was found."
             "</p><table id='library-table'><tr><th>library</th><th>version</th><th>function</th><th>claimed</th>"
             "<th>claim read from</th><th>certified</th><th>confirmation</th><th>worst pair</th><th>verdict</th>"
             "<th>label</th></tr>"]
    for r in lib_rows:
        c = r.get("claimed") or {}
        pair = r.get("worst_pair") or {}
        cls = {"finding": "fail", "error": "fail", "expected, not found": "fail", "expected": "ok"}.get(
            r.get("label") or "", "")
        delta = f" (delta {float(c['delta']):.1e})" if c.get("delta") else ""
        parts.append(
            f"<tr><td>{esc(str(r['library']))}</td><td>{esc(str(r.get('version', '')))}</td>"
            f"<td><code>{esc(str(r.get('function', '')))}</code></td>"
            f"<td>{esc(fmt_epsilon(c.get('epsilon')))}{esc(delta)}</td>"
            f"<td>{esc(str(c.get('source', r.get('error', ''))))}</td><td>{esc(fmt_epsilon(r.get('certified')))}</td>"
            f"<td>{esc(fmt_epsilon(r.get('confirm_certified')))}</td>"
            f"<td>{esc(str(pair.get('family', '-')))}<br><span class='reason'>{esc(str(pair.get('note', '')))}</span></td>"
            f"<td>{esc(str(r.get('verdict', '')))}</td><td class='{cls}'>{esc(str(r.get('label') or ''))}</td></tr>")
    parts.append("</table>")
    for r in lib_rows:
        if r.get("snippet"):
            expected = f"<p class='reason'>expected: {esc(r['expected'])}</p>" if r.get("expected") else ""
            parts.append(f"<h3>Reproduction: {esc(r['case'])} ({esc(r.get('label') or r.get('verdict', ''))})</h3>"
                         f"{expected}<pre class='snippet'>{esc(r['snippet'])}</pre>")
    parts.append("</section>")
    return "\n".join(parts)


def _audit_section(audits: list[dict]) -> str:
    esc = html.escape
    regular, known_bad = split_known_bad(audits)
    counts = summary_counts(r.get("verdict") or "error" for r in regular)
    marks = accountant_marks(r.get("audit") or {} for r in audits)
    parts = [
        "<section id='audits'><h2>Audits</h2>",
        f"<p id='audit-summary'>{len(regular)} audits: {counts['consistent']} consistent, {counts['inconclusive']} "
        f"inconclusive at this budget, {counts['violation']} violations, {counts['error']} errors"
        + (f"; {esc(known_bad_summary(known_bad))} (deliberately broken; each must be a violation)" if known_bad
           else "") + ".</p>",
        "<p>A correct sampler and a sound auditor give claimed &ge; accountant &ge; exact &ge; certified, and "
        "certified &le; ceiling up to sampling error.</p>",
        "<table id='audit-table'><tr><th>audit</th>" + "".join(f"<th>{esc(h)}</th>" for h in AUDIT_HEADERS)
        + "<th>reason</th><th>samples</th><th>seed</th><th>test</th></tr>",
    ]
    for r in audits:
        a = r.get("audit")
        if not a:
            parts.append(f"<tr><td>{esc(r['case'])}</td><td colspan='{len(AUDIT_HEADERS) + 4}' class='fail'>error: "
                         f"{esc(str(r.get('error')))}</td></tr>")
            continue
        cells = audit_cells(a, marks)
        cls = {"consistent": "ok", "inconclusive": "warn"}.get(a["verdict"], "fail")
        if r.get("known_bad"):
            cls = "ok" if r.get("passed") else "fail"
            cells[-1] = f"{cells[-1]} (known-bad: {'flagged' if r.get('passed') else 'NOT flagged'})"
        tds = "".join(f"<td>{esc(c)}</td>" for c in cells[:-1]) + f"<td class='{cls}'>{esc(cells[-1])}</td>"
        parts.append(f"<tr><td>{esc(r['case'])}</td>{tds}<td class='reason'>{esc(a.get('verdict_reason') or '')}</td>"
                     f"<td>{esc(str(a['samples']))}</td><td>{esc(str(a['seed']))}</td><td>{esc(str(a['test']))}</td></tr>")
    parts.append("</table><div class='legend' id='audit-legend'><p>" + "<br>".join(esc(line) for line in LEGEND)
                 + "</p>")
    if marks:
        parts.append("<p>Accountant methods: " + "; ".join(f"[{n}] {esc(m)}" for m, n in marks.items()) + "</p>")
    notes = [n for r in audits if r.get("audit") for n in loose_claim_notes(r["case"], r["audit"])]
    if notes:
        parts.append("<p id='loose-claims'>Loose claims (no audit of this pair can contradict them):<br>"
                     + "<br>".join(esc(n) for n in notes) + "</p>")
    parts.append("</div>")
    with_accountant = [(r["case"], r["audit"]) for r in audits
                       if r.get("audit") and r["audit"].get("epsilon_accountant") is not None]
    if with_accountant:
        png = _png(accountant_figure(with_accountant))
        parts.append("<figure class='wide' id='accountant-plot'><img alt='claimed, accountant, ceiling and certified "
                     f"epsilon per audit' src='data:image/png;base64,{png}'><figcaption>Audits with an accountant: "
                     "claimed (the theorem), accountant (the run's epsilon), budget ceiling (the most this budget can "
                     "certify on this pair) and certified, per audit, on a log-scale epsilon axis.</figcaption></figure>")
    parts.append("<h3>Trade-off planes</h3><p>Each plot shows the trade-off plane of the chosen distinguishing test: "
                 "points below the red curve are impossible under the claim; the blue point is the event that "
                 "certified the lower bound.</p>")
    for r in audits:
        a = r.get("audit")
        if a:
            png = _png(tradeoff_figure(a, f"{r['case']}: {r.get('pair', '')}"))
            parts.append(f"<figure class='tradeoff'><img width='470' alt='trade-off plane of {esc(r['case'])}' "
                         f"src='data:image/png;base64,{png}'><figcaption>{esc(r['case'])} ({esc(a['verdict'])}): "
                         f"{esc(a.get('verdict_reason') or '')}. Event {esc(str(a['event']))}; counts "
                         f"{esc(json.dumps(jsonable(a['counts'])))}.</figcaption></figure>")
    parts.append("</section>")
    return "\n".join(parts)


# -- writing ------------------------------------------------------------------------------------------------------

def _audit_dict(a: Any) -> dict:
    return a.to_dict() if hasattr(a, "to_dict") else dict(a)


def render_report(theorem_rows: list[dict], audits: Iterable[Any], settings: dict | None = None, *,
                  run_id: str, resumed: bool = False, paper_figures: bool | Iterable[str] = True) -> dict[str, bytes]:
    """The report's files, rendered in memory: ``{"report.json": ..., "report.html": ...}``, both naming ``run_id``.

    ``paper_figures``: True for every bound-curve figure of the catalogue, False for none, or the paper keys whose
    figures to draw (``dpverify verify`` passes the papers of the theorems it checked)."""
    from dpverify import __version__

    audit_dicts = [_audit_dict(a) for a in audits]
    payload = jsonable({
        "run_id": run_id,
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "dpverify_version": __version__,
        "resumed": bool(resumed),
        "settings": settings or {},
        "summary": {"theorems": len(theorem_rows),
                    "theorems_failed": sum(r.get("status") != "passed" for r in theorem_rows),
                    "audits": summary_counts(a.get("verdict") or "error" for a in split_known_bad(audit_dicts)[0]),
                    "known_bad": {"flagged": sum(bool(a.get("passed")) for a in split_known_bad(audit_dicts)[1]),
                                  "total": len(split_known_bad(audit_dicts)[1])}},
        "theorems": theorem_rows,
        "audits": audit_dicts,
    })
    if paper_figures is True:
        figs = _paper_figures()
    elif paper_figures is False:
        figs = []
    else:
        papers = list(paper_figures)
        figs = _paper_figures(papers) if papers else []
    return {
        "report.json": json.dumps(payload, indent=2, allow_nan=False).encode(),
        "report.html": _html(payload, figs).encode(),
    }


def write_report(directory: str | os.PathLike, theorem_rows: list[dict], audits: Iterable[Any],
                 settings: dict | None = None, paper_figures: bool | Iterable[str] = True, run: Run | None = None,
                 report_dir: RunDirectory | None = None, overwrite: bool = False) -> list[Path]:
    """Render ``report.json`` and ``report.html`` and publish them into ``directory`` together; returns their paths.

    ``paper_figures``: see :func:`render_report`. ``run``: the :class:`~dpverify.interfaces.files.Run` the results were
    checkpointed in (``dpverify verify --report``); by
    default a new one. ``directory`` is checked (and created) first: a ``ValueError`` if it is not a writable
    directory. Nothing in ``directory`` changes until both files are rendered; then one atomic switch publishes them.
    A ``report.json``/``report.html`` in ``directory`` that dpverify did not publish is an error unless ``overwrite``
    (then it is kept in a legacy run directory; :meth:`~dpverify.interfaces.files.RunDirectory.prepare`).
    """
    rd = report_dir or RunDirectory(directory).prepare(overwrite)
    if run is None:
        run = rd.start({"settings": settings or {}})
    try:
        files = render_report(theorem_rows, audits, settings, run_id=run.run_id, resumed=run.resumed,
                              paper_figures=paper_figures)
        return rd.publish(run, files)
    finally:
        run.close()
