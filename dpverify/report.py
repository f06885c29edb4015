"""Reports of ``dpverify verify``: ``report.json`` (machine-readable) and a self-contained ``report.html``.

``report.json`` holds every theorem check and every audit with its numbers, counts and seeds.
``report.html`` embeds its plots as base64 PNG (matplotlib, Agg backend), so the file can be mailed or
archived alone:

- per audit, the trade-off plane of the distinguishing test (type I error alpha = P[M(D') in S] against
  type II error beta = P[M(D) not in S]) with the region that (epsilon, delta)-DP allows,
  beta >= max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta - alpha)), drawn for the claimed and the
  certified epsilon, the empirical trade-off curve of the chosen statistic where the audit recorded one,
  and the certified event's point;
- per paper, the bound curves of the catalogue (:mod:`dpverify.figures`).

Both files are written atomically (temporary file in the same directory, then ``os.replace``): an
interrupted run never leaves a truncated report.
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

from dpverify._io import jsonable, write_atomic, write_json_atomic

__all__ = ["write_report", "write_atomic", "tradeoff_figure"]


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


def tradeoff_figure(audit: dict, title: str):
    """The trade-off plot of one audit (see the module docstring)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    a = np.linspace(0, 1, 401)
    delta = audit["delta"]
    claimed = _dp_region_boundary(audit["epsilon_claimed"], delta, a)
    ax.fill_between(a, 0, claimed, color="tab:red", alpha=0.15,
                    label=f"excluded by the claim eps = {audit['epsilon_claimed']:.3g}")
    ax.plot(a, claimed, color="tab:red", lw=1)
    ax.plot(a, _dp_region_boundary(audit["epsilon_lower"], delta, a), color="tab:blue", ls="--", lw=1,
            label=f"boundary at the certified eps = {audit['epsilon_lower']:.3g}")
    if audit.get("epsilon_exact") is not None and math.isfinite(audit["epsilon_exact"]):
        ax.plot(a, _dp_region_boundary(audit["epsilon_exact"], delta, a), color="k", ls=":", lw=1,
                label=f"boundary at the exact pair eps = {audit['epsilon_exact']:.3g}")
    curve = audit.get("tradeoff")
    if curve:
        ca, cb = np.asarray(curve["alpha"]), np.asarray(curve["beta"])
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


def _paper_figures() -> list[tuple[str, str, str]]:
    """(title, caption, base64 PNG) for each paper's bound curves; a figure that fails is reported in its caption."""
    from dpverify import figures

    out = []
    for name, build in figures.FIGURES.items():
        try:
            fig, caption = build()
            out.append((name, caption, _png(fig)))
        except Exception as exc:  # a missing curve must not lose the rest of the report
            out.append((name, f"could not be drawn: {type(exc).__name__}: {exc}", ""))
    return out


def _html(theorem_rows: list[dict], audits: list[dict], settings: dict, paper_figs) -> str:
    esc = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>dpverify report</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:auto;padding:1em}"
        "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 6px}"
        ".fail{color:#b00;font-weight:bold}.ok{color:#070}.warn{color:#a60}figure{display:inline-block;margin:8px;vertical-align:top;"
        "width:480px}figcaption{font-size:12px}</style></head><body>",
        f"<h1>dpverify report</h1><p>{esc(time.strftime('%Y-%m-%d %H:%M:%S %Z'))}; settings: {esc(json.dumps(settings))}</p>",
    ]
    if theorem_rows:
        n_fail = sum(r["status"] != "passed" for r in theorem_rows)
        parts.append(f"<h2>Theorem checks</h2><p>{len(theorem_rows)} theorems, {n_fail} failed.</p><table>"
                     "<tr><th>id</th><th>item</th><th>status</th><th>checks</th><th>failed checks</th></tr>")
        for r in theorem_rows:
            cls = "ok" if r["status"] == "passed" else "fail"
            failed = ", ".join(c["name"] for c in r["checks"] if not c["passed"])
            rec = " (reconstructed)" if r.get("reconstructed") else ""
            parts.append(f"<tr><td>{esc(r['id'])}</td><td>{esc(r['item'])}{rec}</td><td class='{cls}'>{r['status']}</td>"
                         f"<td>{len(r['checks'])}</td><td>{esc(failed)}</td></tr>")
        parts.append("</table>")
    if audits:
        parts.append("<h2>Audits</h2><p>A correct sampler and a sound auditor give claimed &ge; exact &ge; certified. "
                     "Each plot shows the trade-off plane of the chosen distinguishing test: points below the red "
                     "curve are impossible under the claim; the blue point is the event that certified the lower "
                     "bound.</p><table><tr><th>audit</th><th>claimed</th><th>exact</th><th>certified</th>"
                     "<th>verdict</th><th>samples</th><th>seed</th><th>test</th></tr>")
        for r in audits:
            a = r.get("audit")
            if not a:
                parts.append(f"<tr><td>{esc(r['case'])}</td><td colspan=7 class='fail'>error: {esc(str(r.get('error')))}</td></tr>")
                continue
            cls = {"consistent": "ok", "inconclusive": "warn"}.get(a["verdict"], "fail")
            exact = "-" if a.get("epsilon_exact") is None else f"{a['epsilon_exact']:.4g}"
            parts.append(f"<tr><td>{esc(r['case'])}</td><td>{a['epsilon_claimed']:.4g}</td><td>{exact}</td>"
                         f"<td>{a['epsilon_lower']:.4g}</td><td class='{cls}'>{a['verdict']}</td><td>{a['samples']}</td>"
                         f"<td>{a['seed']}</td><td>{esc(a['test'])}</td></tr>")
        parts.append("</table>")
        for r in audits:
            a = r.get("audit")
            if a:
                png = _png(tradeoff_figure(a, f"{r['case']}: {r.get('pair', '')}"))
                parts.append(f"<figure><img width='470' src='data:image/png;base64,{png}'>"
                             f"<figcaption>{esc(r['case'])}: event {esc(a['event'])}; counts {esc(json.dumps(jsonable(a['counts'])))}."
                             "</figcaption></figure>")
    if paper_figs:
        parts.append("<h2>Bound curves of the catalogue</h2>")
        for name, caption, png in paper_figs:
            img = f"<img width='470' src='data:image/png;base64,{png}'>" if png else ""
            parts.append(f"<figure>{img}<figcaption><b>{esc(name)}</b>: {esc(caption)}</figcaption></figure>")
    parts.append("</body></html>")
    return "\n".join(parts)


def write_report(directory: str | os.PathLike, theorem_rows: list[dict], audits: Iterable[Any],
                 settings: dict | None = None, paper_figures: bool = True) -> list[Path]:
    """Write ``report.json`` and ``report.html`` into ``directory``; returns their paths."""
    out = Path(directory)
    audit_dicts = [a.to_dict() if hasattr(a, "to_dict") else dict(a) for a in audits]
    payload = jsonable({
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "settings": settings or {},
        "theorems": theorem_rows,
        "audits": audit_dicts,
    })
    json_path, html_path = out / "report.json", out / "report.html"
    write_json_atomic(json_path, payload)
    figs = _paper_figures() if paper_figures else []
    write_atomic(html_path, _html(theorem_rows, payload["audits"], settings or {}, figs).encode())
    return [json_path, html_path]
