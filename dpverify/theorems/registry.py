"""The theorem registry: every catalogue item by ID.

One registration style for the four papers:

- each *part module* of a paper package (``dpverify/theorems/wang2015/ops.py`` and so on) builds its
  :class:`~dpverify.theorems.base.Theorem` objects at import time and lists them, last thing in the module,
  in ``THEOREMS: tuple[Theorem, ...]``; it registers nothing itself;
- each *paper package* (``dpverify.theorems.wang2015``, ``li2019``, ``bertazzi2025``, ``foulds2016``, and the
  supporting ``balle2018``)
  collects its parts' lists (and any item it defines itself) into its own ``THEOREMS``, in catalogue order
  (:func:`dpverify.theorems.catalogue.in_order`);
- this module registers them: :func:`load_all` imports each package of :data:`PAPER_MODULES` and calls
  :func:`register` on every theorem of its ``THEOREMS``, so :func:`all_theorems` is in catalogue order.

:func:`get` and :func:`all_theorems` import the paper packages on first use, so
``from dpverify.theorems import registry`` stays cheap. A statement two papers make is one
:class:`~dpverify.theorems.base.Statement` shared by two theorems, one per paper, each registered under its
own ID (:mod:`dpverify.theorems.shared`).

Only IDs of the catalogue (:mod:`dpverify.theorems.catalogue`) can be registered, and an unknown ID is
an error everywhere (:func:`get` raises ``KeyError`` naming close matches; nothing returns ``None``), so a
typo cannot silently switch a theorem or its checks off.
"""
from __future__ import annotations

import difflib
import importlib

from dpverify.theorems import catalogue
from dpverify.theorems.base import PAPERS, Theorem

__all__ = ["PAPER_MODULES", "register", "get", "all_theorems", "ids", "load_all"]

#: The paper modules, in catalogue order (:data:`dpverify.theorems.catalogue.CATALOGUE`).
PAPER_MODULES: tuple[str, ...] = ("wang2015", "li2019", "bertazzi2025", "foulds2016", "balle2018", "chourasia2021",
                                  "geumlek2017", "ponnoprat2022", "yildirim2019", "raisa2021",
                                  "heikkila2019", "minami2016", "gopi2022", "bok2024", "heller2023",
                                  "annamalai2024", "cebere2025")

_REGISTRY: dict[str, Theorem] = {}
_loaded = False


def register(theorem: Theorem) -> Theorem:
    """Add a theorem; its ID must be a catalogue ID (:mod:`dpverify.theorems.catalogue`) and may be
    registered only once."""
    if not isinstance(theorem, Theorem):
        raise TypeError(f"theorem must be a Theorem; got {type(theorem).__name__}")
    catalogue.item(theorem.id)  # KeyError for an ID the catalogue does not list
    if theorem.id in _REGISTRY and _REGISTRY[theorem.id] is not theorem:
        raise ValueError(f"theorem ID {theorem.id!r} is already registered")
    _REGISTRY[theorem.id] = theorem
    return theorem


def load_all() -> None:
    """Import every paper package and register the theorems of its ``THEOREMS``."""
    global _loaded
    if _loaded:
        return
    for name in PAPER_MODULES:
        package = importlib.import_module(f"dpverify.theorems.{name}")
        for theorem in package.THEOREMS:
            if theorem.paper != name:
                raise RuntimeError(f"dpverify.theorems.{name}.THEOREMS lists {theorem.id}, an item of another paper")
            register(theorem)
    missing = [i for i in catalogue.ids() if i not in _REGISTRY]
    if missing:
        raise RuntimeError(f"catalogue IDs with no registered theorem: {missing}")
    _loaded = True


def get(theorem_id: str) -> Theorem:
    """The theorem with this catalogue ID (KeyError with close matches otherwise)."""
    load_all()
    try:
        return _REGISTRY[theorem_id]
    except KeyError:
        close = difflib.get_close_matches(theorem_id, list(_REGISTRY), n=3, cutoff=0.4)
        hint = f"; did you mean {', '.join(close)}?" if close else "; see `dpverify theorems list`"
        raise KeyError(f"no theorem with ID {theorem_id!r}{hint}") from None


def all_theorems(paper: str | None = None) -> list[Theorem]:
    """Every registered theorem (optionally of one paper), in registration order.

    ``paper`` must be a paper key of :data:`dpverify.theorems.base.PAPERS` (``ValueError`` otherwise)."""
    if paper is not None and paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)}; got {paper!r}")
    load_all()
    return [t for t in _REGISTRY.values() if paper is None or t.paper == paper]


def ids(paper: str | None = None) -> list[str]:
    return [t.id for t in all_theorems(paper)]
