"""Every final-state statement of the catalogue checked against the truth (issue 21, section 2).

A final-state theorem bounds the privacy of what a chain releases at its end -- the last iterate -- rather than of
its whole path. On a quadratic model the chain is linear-Gaussian and that privacy is exactly computable
(:mod:`dpverify.calculus.accounting.release`), so each theorem can be compared with the truth on a grid of parameter
points, in its own currency, and its looseness (claimed / exact) printed:

- :mod:`~dpverify.theorems.final_state.runs` -- the runs on quadratic models (ULA, noisy SGD, noisy GD, the two
  DP-SGLDs) as mechanism descriptions with linear dynamics, built from the theorems' constants;
- :mod:`~dpverify.theorems.final_state.exact` -- the exact privacy of a final release: epsilon(delta) (lower end of
  the rigorous bracket) and the Rényi divergence (closed form, or a certified lower bound by quadrature);
- :mod:`~dpverify.theorems.final_state.check` -- the claim read from the catalogue, rows, summaries, tables;
- :mod:`~dpverify.theorems.final_state.statements` -- the seven statements (Bertazzi et al. 2025 Thms 5.2, 5.6,
  5.7; Chourasia et al. 2021 Thm 2; Wang et al. 2015 Thm 4; Li et al. 2019 Thms 3, 4) and their grids.

Usage::

    from dpverify.theorems import final_state
    rows = final_state.check_all("fast")          # ~10 s: every statement, >= 50 points each
    print(final_state.format_summaries(final_state.summarise(rows)))
    assert not any(r.breach for r in rows)
"""
from __future__ import annotations

from dpverify.theorems.final_state.check import (
    CompiledTheorem,
    GridRow,
    StatementSummary,
    compiled,
    converted_epsilon,
    format_rows,
    format_summaries,
    rows_for,
    summarise,
)
from dpverify.theorems.final_state.exact import (
    ExactFinal,
    exact_final,
    mixture_renyi_lower,
)
from dpverify.theorems.final_state.statements import (
    DENSITIES,
    STATEMENTS,
    FinalStateStatement,
    statement,
)

__all__ = [
    "DENSITIES",
    "STATEMENTS",
    "CompiledTheorem",
    "ExactFinal",
    "FinalStateStatement",
    "GridRow",
    "StatementSummary",
    "check_all",
    "compiled",
    "converted_epsilon",
    "exact_final",
    "format_rows",
    "format_summaries",
    "mixture_renyi_lower",
    "print_report",
    "rows_for",
    "statement",
    "summarise",
]


def check_all(density: str = "fast") -> list[GridRow]:
    """The rows of every statement of :data:`STATEMENTS` on its ``density`` grid (``"fast"`` or ``"dense"``)."""
    return [row for s in STATEMENTS.values() for row in s.rows(density)]


def print_report(density: str = "fast", rows_per_statement: int | None = 12) -> list[GridRow]:
    """Print, per statement, its first ``rows_per_statement`` rows (None: all) and the summary table of every
    statement; returns the rows."""
    rows = []
    for s in STATEMENTS.values():
        mine = s.rows(density)
        rows += mine
        print(f"\n{s.title} ({s.theorem_id}): {len(s.points(density))} points, {len(mine)} comparisons")
        print(format_rows(mine, rows_per_statement))
    print()
    print(format_summaries(summarise(rows)))
    return rows
