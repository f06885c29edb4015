"""The report's figures: the trade-off plane of one audit and the claimed / accountant / ceiling / certified chart of
the audits that have an accountant, as base64 PNG of a fixed size, and the catalogue's bound curves
(:mod:`dpverify.interfaces.figures`).

Every figure is drawn at a fixed size in inches and saved without ``bbox_inches="tight"``, so every PNG of a kind has
the same pixel size whatever its title (long titles wrap; they never shrink the plot), and the HTML shows them at one
readable width. The accountant chart is horizontal: one row per audit, so it grows downwards, never sideways.
"""
from __future__ import annotations

import atexit
import base64
import io
import math
import os
import re
import shutil
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Iterable

import numpy as np

from dpverify.interfaces.presentation import AuditView

__all__ = ["png", "tradeoff_figure", "accountant_figure", "chart_points", "CHART_SERIES", "figure_paper", "paper_figures", "TRADEOFF_SIZE",
           "DPI"]

#: Pixels per inch of every report figure.
DPI = 110
#: The trade-off plane's size in inches (every one the same: 506 x 473 pixels).
TRADEOFF_SIZE = (4.6, 4.3)
#: Characters per line of a wrapped figure title.
TITLE_WIDTH = 60


def use_writable_matplotlib_dir() -> None:
    """Point ``MPLCONFIGDIR`` at a fresh temporary directory (removed at exit) when matplotlib's default config or
    cache directory cannot be written (a read-only or missing ``HOME``), before matplotlib is imported: matplotlib
    would do the same but print two warnings into every report command's output. Nothing changes when
    ``MPLCONFIGDIR`` is set, the defaults are writable, or matplotlib is already imported."""
    if os.environ.get("MPLCONFIGDIR") or "matplotlib" in sys.modules:
        return

    if sys.platform.startswith(("linux", "freebsd")):  # where matplotlib looks (matplotlib._get_config_or_cache_dir)
        dirs = [Path(os.environ.get(var) or Path.home() / sub, "matplotlib")
                for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"))]
    else:
        dirs = [Path.home() / ".matplotlib"]
    try:
        for d in dirs:
            d.mkdir(parents=True, exist_ok=True)
        if all(d.is_dir() and os.access(d, os.W_OK) for d in dirs):
            return
    except (OSError, RuntimeError):  # RuntimeError: no home directory at all
        pass

    tmp = tempfile.mkdtemp(prefix="dpverify-matplotlib-")
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    os.environ["MPLCONFIGDIR"] = tmp


use_writable_matplotlib_dir()  # at import: before any figure of the report imports matplotlib


def png(fig) -> str:
    """``fig`` as a base64 PNG at :data:`DPI`, its size as drawn (no tight bounding box: every figure of a kind has
    the same pixel size); the figure is closed."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI)
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _dp_region_boundary(eps: float, delta: float, alpha):
    alpha = np.asarray(alpha, dtype=float)
    e = math.exp(min(eps, 700.0))  # beyond e^700 the boundary is the axes to plotting precision
    return np.maximum.reduce([np.zeros_like(alpha), 1 - delta - e * alpha, (1 - delta - alpha) / e])


def _event_point(audit: AuditView) -> tuple[float, float] | None:
    """(alpha, beta) of the certified event, oriented so the event is more likely under M(D)."""
    c = audit.counts
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


def _title(text: str, lines: int = 2) -> str:
    """A title wrapped to :data:`TITLE_WIDTH` characters, at most ``lines`` lines (the rest elided)."""
    wrapped = textwrap.wrap(text, TITLE_WIDTH) or [""]
    if len(wrapped) > lines:
        wrapped = wrapped[:lines]
        wrapped[-1] = wrapped[-1][: TITLE_WIDTH - 3].rstrip() + "..."
    return "\n".join(wrapped)


def tradeoff_figure(audit: AuditView, title: str):
    """The trade-off plane of one audit (type I error alpha = P[M(D') in S] against type II error beta = P[M(D) not
    in S]) with the region (epsilon, delta)-DP allows, beta >= max(0, 1 - delta - e^eps alpha, e^-eps (1 - delta -
    alpha)) (Kairouz, Oh, Viswanath 2015, Thm 2.1; Dong, Roth, Su 2022, Prop. 2.5), drawn for the tested epsilon
    (shaded: what the audit tested), the theorem's claim where it differs, the certified and the exact epsilon, the empirical trade-off curve of the chosen statistic where the audit recorded
    one, and the certified event's point. Always :data:`TRADEOFF_SIZE`; the title wraps."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=TRADEOFF_SIZE, layout="constrained")
    a = np.linspace(0, 1, 401)
    delta = float(audit.delta)
    tested_eps = math.nan if audit.tested is None else audit.tested  # what the audit tested
    tested = _dp_region_boundary(tested_eps, delta, a)
    ax.fill_between(a, 0, tested, color="tab:red", alpha=0.15,
                    label=f"excluded by the tested eps = {tested_eps:.3g}")
    ax.plot(a, tested, color="tab:red", lw=1)
    claimed_eps = audit.claimed
    if claimed_eps is not None and math.isfinite(claimed_eps) and claimed_eps != tested_eps:
        ax.plot(a, _dp_region_boundary(claimed_eps, delta, a), color="tab:red", ls="-.", lw=1,
                label=f"boundary at the claimed (theorem) eps = {claimed_eps:.3g}")
    lower = math.nan if audit.certified is None else audit.certified
    ax.plot(a, _dp_region_boundary(lower, delta, a), color="tab:blue", ls="--", lw=1,
            label=f"boundary at the certified eps = {lower:.3g}")
    exact = audit.exact
    if exact is not None and math.isfinite(exact):
        ax.plot(a, _dp_region_boundary(exact, delta, a), color="k", ls=":", lw=1,
                label=f"boundary at the exact pair eps = {exact:.3g}")
    curve = audit.tradeoff
    if curve and curve.get("alpha"):
        ca, cb = np.asarray(curve["alpha"], dtype=float), np.asarray(curve["beta"], dtype=float)
        ax.plot(ca, cb, color="tab:green", lw=1.5, label="empirical trade-off of the chosen test")
    point = _event_point(audit)
    if point:
        ax.plot(*point, "o", color="tab:blue", ms=6, label="certified event (estimation half)")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("type I error alpha = P[M(D') in S]", fontsize=9)
    ax.set_ylabel("type II error beta = P[M(D) not in S]", fontsize=9)
    ax.set_title(_title(title), fontsize=9)
    ax.legend(fontsize=7.5, loc="upper right")
    return fig


#: The chart's series: (key of :func:`chart_points`, label, colour, marker), drawn in this order.
CHART_SERIES = (("claimed", "claimed (the theorem)", "tab:red", "o"), ("tested", "tested", "tab:pink", "P"),
                ("accountant", "accountant", "k", "s"), ("exact", "exact", "tab:purple", "x"),
                ("ceiling", "budget ceiling", "tab:orange", "^"), ("certified", "certified", "tab:blue", "D"))


def chart_points(rows: list[tuple[str, AuditView]]) -> dict[str, dict[str, float | None]]:
    """The numbers :func:`accountant_figure` draws, per audit name: ``claimed`` (the theorem's claim,
    :func:`~dpverify.interfaces.presentation.claimed_epsilon`), ``tested`` (what the audit tested), ``accountant``,
    ``exact``, ``ceiling`` and ``certified`` (None where unknown). The report embeds them beside the chart, so that
    what is drawn can be checked against the table."""
    return {name: {"claimed": a.claimed, "tested": a.tested, "accountant": a.accountant, "exact": a.exact,
                   "ceiling": a.ceiling, "certified": a.certified}
            for name, a in rows}


def accountant_figure(rows: list[tuple[str, AuditView]]):
    """Claimed / tested / accountant / exact / budget ceiling / certified epsilon per audit (rows of ``(name, audit
    view)``, those with an accountant or an exact value), from :func:`chart_points`, one horizontal row per audit on a
    log-scale epsilon axis: 8 inches wide whatever the number of audits, a third of an inch taller per audit. A
    certified 0 cannot sit on a log axis: it is drawn as a left-pointing triangle at the floor of the axis, and its
    label says so."""
    plt = _pyplot()
    points = chart_points(rows)
    positive = [v for p in points.values() for v in p.values() if v is not None and math.isfinite(v) and v > 0]
    floor = min(positive) / 10 if positive else 1e-3
    fig, ax = plt.subplots(figsize=(8.0, 1.6 + 0.32 * len(rows)), layout="constrained")
    ys = list(range(len(rows)))[::-1]  # the first audit on top
    at_floor = []
    for key, label, color, marker in CHART_SERIES:
        px, py = [], []
        for y, (name, _) in zip(ys, rows):
            v = points[name][key]
            if v is None or not math.isfinite(v):
                continue
            if v <= 0:
                if key == "certified":
                    at_floor.append(y)
                continue
            px.append(v)
            py.append(y)
        if px:
            ax.plot(px, py, marker, color=color, ms=7, ls="none", label=label)
    if at_floor:
        ax.plot([floor] * len(at_floor), at_floor, "<", color="tab:blue", ms=8, ls="none",
                label="certified 0 (drawn at the axis floor)")
    ax.set_xscale("log")
    ax.set_xlim(left=floor / 1.5)
    ax.set_yticks(list(range(len(rows))))  # bottom to top: the last audit first
    ax.set_yticklabels([name for name, _ in rows][::-1], fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_ylabel("audit")
    ax.set_xlabel("epsilon (log scale)")
    ax.set_title("claimed vs tested vs accountant vs exact vs budget ceiling vs certified", fontsize=9)
    ax.grid(True, which="major", axis="x", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    return fig


def figure_paper(name: str) -> str | None:
    """The catalogue's paper key of a figure named "<Author> et al. <year>..." ("li2019"), else None."""
    m = re.match(r"(\w+) et al\. (\d{4})", name)
    return f"{m.group(1).lower()}{m.group(2)}" if m else None


def paper_figures(papers: Iterable[str] | None = None) -> list[tuple[str, str, str]]:
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
            out.append((name, caption, png(fig)))
        except Exception as exc:  # a missing curve must not lose the rest of the report
            out.append((name, f"could not be drawn: {type(exc).__name__}: {exc}", ""))
    return out
