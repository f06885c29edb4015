"""Every bound-curve builder of dpverify.interfaces.figures returns a labelled figure and a caption, quickly."""
from __future__ import annotations

import io
import time

import pytest

from dpverify.interfaces import figures


@pytest.mark.parametrize("name", list(figures.FIGURES))
def test_builder_returns_a_labelled_figure(name):
    start = time.perf_counter()
    fig, caption = figures.FIGURES[name]()
    seconds = time.perf_counter() - start
    assert isinstance(caption, str) and len(caption) > 80
    axes = fig.get_axes()
    assert axes
    for ax in axes:
        assert ax.get_xlabel().strip() and ax.get_ylabel().strip(), name
        assert ax.has_data(), name
        assert ax.get_legend() is not None, name
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=60)
    assert buf.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"
    assert seconds < 30, f"{name} took {seconds:.1f} s"


def test_ula_figure_orders_bounds_above_exact_values():
    # Bertazzi et al. 2025, Thms 5.2/5.4 are upper bounds: every plotted bound must lie above the exact epsilon
    # of the Gaussian target (the samplers' closed form) at the same abscissa.
    fig, _ = figures.bertazzi_ula_path_vs_final()
    for ax in fig.get_axes():
        lines = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
        assert (lines["path bound (Thm 5.4)"] >= lines["path, exact"]).all()
        assert (lines["final-state bound (Thm 5.2)"] >= lines["final state, exact"]).all()


def test_report_embeds_every_figure(tmp_path):
    from dpverify.interfaces.report import write_report

    _, html_path = write_report(tmp_path, [], [])
    html = html_path.read_text()
    for name in figures.FIGURES:
        assert name in html
    assert "could not be drawn" not in html


@pytest.mark.parametrize("name", list(figures.FIGURES))
def test_every_bound_curve_figure_has_one_width(name):
    """Issue 36: the two-panel figures were twice as wide as the others and, shown at the report's one width, their
    axes' text was half the size. Every figure is :data:`figures.FIGURE_WIDTH` inches wide (panels stack), so the
    report's 480 px shows every one at the same text size."""
    fig, _ = figures.FIGURES[name]()
    width, height = fig.get_size_inches()
    assert width == figures.FIGURE_WIDTH
    assert height == pytest.approx(figures.PANEL_HEIGHT * len(fig.get_axes()))
