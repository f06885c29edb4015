"""Small helpers shared by the subcommands: JSON output, plain-text tables that fit the terminal, wrapped prose.

Width: ``COLUMNS`` if set (the convention of ``ls``, ``git`` and Python's :func:`shutil.get_terminal_size`), else the
terminal's width when stdout is a terminal, else unlimited (a pipe or a file gets every character). ``--wide`` asks
for unlimited width everywhere. A table that is too wide wraps its free-text columns (descriptions, titles, reasons)
onto continuation lines, so nothing is lost; the other columns (identifiers, numbers) keep their width.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import textwrap
from typing import Any, Iterable, Sequence

from dpverify.interfaces.files import jsonable

#: The narrowest width text is fitted to.
MIN_WIDTH = 40
#: The narrowest a wrapped free-text column may be; below it the free text moves under its row.
MIN_FLEXIBLE = 16
#: Separator between columns.
GAP = "  "


def print_json(obj: Any) -> None:
    print(json.dumps(jsonable(obj), indent=2))


def output_width(wide: bool = False) -> int | None:
    """The width text is fitted to: None (unlimited) with ``wide``; else ``COLUMNS``, else the terminal's width when
    stdout is a terminal, else None (see the module docstring)."""
    if wide:
        return None
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return max(int(columns), MIN_WIDTH)
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stdout
        tty = False
    return max(shutil.get_terminal_size().columns, MIN_WIDTH) if tty else None


def wrap(text: str, width: int | None, indent: str = "", subsequent: str | None = None) -> str:
    """``text`` wrapped to ``width`` (unchanged when ``width`` is None), first line indented by ``indent`` and the
    others by ``subsequent`` (default: ``indent`` plus two spaces)."""
    if width is None:
        return indent + text
    sub = indent + "  " if subsequent is None else subsequent
    return textwrap.fill(text, width=max(width, MIN_WIDTH), initial_indent=indent, subsequent_indent=sub,
                         break_long_words=True, break_on_hyphens=False)


def format_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, width: int | None = None,
                 flexible: Sequence[str] = (), above: Sequence[str] = ()) -> str:
    """Rows under headers, columns separated by two spaces.

    ``width``: the most characters a line may have (None: no limit). When the natural table is wider, the columns
    named in ``flexible`` share what the others leave, in proportion to their natural widths, and their cells wrap
    onto continuation lines. If that leaves a flexible column fewer than :data:`MIN_FLEXIBLE` characters, the
    flexible columns move below their row instead, one wrapped ``header: text`` line each. ``above`` (for a table
    of numbers, which has nothing to wrap; not combined with ``flexible``) names columns -- an identifier such as
    the audit's name first, then any others -- that move onto a line of their own above their row when the table is
    too wide (``ula_final (samples 20000, time [s] 1.0)``). Other columns are never cut: nothing is lost at any width
    (a table of numbers alone wider than ``width`` stays as wide as it must)."""
    table = [["" if v is None else str(v) for v in r] for r in rows]
    natural = _natural_widths(headers, table)
    too_wide = width is not None and _total(natural) > width
    if above and too_wide and all(a in headers for a in above) and len(set(above)) < len(headers):
        # (when ``above`` names every column, nothing would stay below: the table is printed as it is)
        return _columns_above(headers, table, natural, [list(headers).index(a) for a in above])
    flex = [i for i, h in enumerate(headers) if h in flexible]
    if width is None or not too_wide or not flex:
        return _render(headers, table, natural, [])
    widths = _shared_widths(headers, natural, flex, width)
    if all(widths[i] >= min(MIN_FLEXIBLE, natural[i]) for i in flex) and _total(widths) <= width:
        return _render(headers, table, widths, flex)
    return _stacked(headers, table, natural, flex, width)


def _natural_widths(headers: Sequence[str], table: list[list[str]]) -> list[int]:
    """Each column's width: its longest cell or header."""
    natural = [len(h) for h in headers]
    for r in table:
        natural = [max(w, len(v)) for w, v in zip(natural, r)]
    return natural


def _columns_above(headers: Sequence[str], table: list[list[str]], natural: list[int], moved: list[int]) -> str:
    """The table without the ``moved`` columns, each row preceded by a line with the first moved column's value and
    the others' as ``header value`` in parentheses."""
    keep = [i for i in range(len(headers)) if i not in moved]
    rest = _render([headers[i] for i in keep], [[r[i] for i in keep] for r in table],
                   [natural[i] for i in keep], []).split("\n")  # (not splitlines: a row of empty cells is an empty line)
    first, extra = moved[0], moved[1:]
    lines = [headers[first] + "".join(f", {headers[i]}" for i in extra), "  " + rest[0], "  " + rest[1]]
    for r, numbers in zip(table, rest[2:]):  # one line per row: no column of the rest wraps
        lines += [r[first] + (" (" + ", ".join(f"{headers[i]} {r[i]}" for i in extra) + ")" if extra else ""),
                  "  " + numbers]
    return "\n".join(lines)


def _shared_widths(headers: Sequence[str], natural: list[int], flex: list[int], width: int) -> list[int]:
    """The column widths when the ``flex`` columns share what the others leave of ``width``, in proportion to
    their natural widths (never below their header)."""
    fixed = sum(w for i, w in enumerate(natural) if i not in flex) + len(GAP) * (len(natural) - 1)
    room = width - fixed
    want = sum(natural[i] for i in flex)
    widths = list(natural)
    for i in flex:
        widths[i] = min(natural[i], max(len(headers[i]), room * natural[i] // want))
    return widths


def _stacked(headers: Sequence[str], table: list[list[str]], natural: list[int], flex: list[int], width: int) -> str:
    """The fixed columns as a table, each flexible cell wrapped on its own line below its row."""
    keep = [i for i in range(len(headers)) if i not in flex]
    out = _render([headers[i] for i in keep], [[r[i] for i in keep] for r in table],
                  [natural[i] for i in keep], []).split("\n")  # (not splitlines: a row of empty cells is an empty line)
    lines = out[:2]
    for k, r in enumerate(table):
        lines.append(out[2 + k])
        for i in flex:
            if r[i]:
                lines.append(wrap(f"{headers[i]}: {r[i]}", width, indent="    ", subsequent="      "))
    return "\n".join(lines)


def _total(widths: Sequence[int]) -> int:
    return sum(widths) + len(GAP) * (len(widths) - 1)


def _render(headers: Sequence[str], table: list[list[str]], widths: Sequence[int], wrapped: Sequence[int]) -> str:
    out = [_line(list(headers), widths), GAP.join("-" * w for w in widths)]
    for r in table:
        cells = [textwrap.wrap(v, widths[i], break_long_words=True, break_on_hyphens=False) or [""]
                 if i in wrapped else [v] for i, v in enumerate(r)]
        for k in range(max(len(c) for c in cells)):
            out.append(_line([c[k] if k < len(c) else "" for c in cells], widths))
    return "\n".join(out)


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    return GAP.join(v.ljust(w) for v, w in zip(cells, widths)).rstrip()
