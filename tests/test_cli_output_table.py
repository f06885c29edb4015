"""``format_table``, the command line's tables: nothing is lost at any width, and each layout is the documented one."""
from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from dpverify.interfaces.cli.output import format_table

HEADERS = ["audit", "claimed", "certified", "verdict", "samples"]
ROW = ["dp_sgld_broken_shared_noise_final", "1.615", "8.19", "violation", "1000/20000"]


def test_a_table_that_fits_is_one_line_per_row():
    out = format_table(HEADERS, [ROW], width=200).splitlines()
    assert len(out) == 3 and out[0].split() == HEADERS and out[2].split() == ROW


def test_columns_above_move_onto_their_own_line_when_too_wide():
    out = format_table(HEADERS, [ROW], width=40, above=["audit", "samples"]).splitlines()
    assert out[0] == "audit, samples"
    assert "dp_sgld_broken_shared_noise_final (samples 1000/20000)" in out
    assert all(len(line) <= 40 for line in out if line.startswith("  "))  # the numbers fit; an identifier is never cut


def test_above_naming_every_column_prints_the_table_as_it_is():
    """Issue 36 (a loose end): ``above`` covering every column left no column below and raised a ValueError."""
    out = format_table(["a", "b"], [["x" * 50, "y" * 60]], width=40, above=["a", "b"])
    assert "x" * 50 in out and "y" * 60 in out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="abcdefghij0123456789.", min_size=0, max_size=30), min_size=5, max_size=5),
                min_size=1, max_size=4),
       st.integers(min_value=20, max_value=160), st.sampled_from([(), ("audit",), ("audit", "samples")]),
       st.sampled_from([(), ("verdict",)]))
def test_nothing_is_lost_at_any_width(rows, width, above, flexible):
    """Every character of every cell is in the output, and every row has its line(s), whatever the width (a wrapped
    cell may be split anywhere). Found by this test: a row of empty cells vanished from the stacked layout (an
    IndexError)."""
    out = format_table(HEADERS, rows, width=width, above=above if not flexible else (), flexible=flexible)
    wanted = Counter(ch for row in rows for cell in row for ch in cell if not ch.isspace())
    got = Counter(ch for ch in out if not ch.isspace())
    assert not wanted - got, out
