"""Bound curves of the catalogue as matplotlib figures, for reports and notebooks.

``FIGURES`` maps a figure name to a builder returning ``(figure, caption)``. Every builder takes its
numbers from the catalogue modules (never re-typed formulas), labels its axes with units and says in
the caption what the reader should see.
"""
from __future__ import annotations

from typing import Callable

__all__ = ["FIGURES"]

FIGURES: dict[str, Callable] = {}
