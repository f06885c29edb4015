"""Adjacent dataset pairs: construction, validation, and hypothesis strategies.

Datasets are arrays with one record per row (axis 0), as in :mod:`dpverify.models.base`.
Adjacency (Dwork & Roth 2014, Sec. 2.3; Wang et al. 2015, Def. 1 use replace-one):

- ``"replace_one"`` (bounded DP; ``"replace"`` is read the same): same size, exactly one record differs;
- ``"add_remove"`` (unbounded DP): sizes differ by one, and deleting one record of the larger gives
  the smaller;
- ``"either"``: one of the two.

The words are :class:`dpverify.vocabulary.Adjacency`'s.

A pair that is not adjacent raises ``ValueError`` saying why (sizes, number of differing records).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dpverify.vocabulary import Adjacency

__all__ = ["ADJACENCIES", "check_adjacent", "pair_note", "replace_one", "add_one", "remove_one", "adjacent_pairs"]

#: The adjacencies a pair can be checked against (:class:`dpverify.vocabulary.Adjacency`; "replace" is also read as
#: "replace_one").
ADJACENCIES = Adjacency.values()


def _as_records(dataset: Any, name: str) -> np.ndarray:
    arr = np.asarray(dataset)
    if arr.ndim == 0:
        raise ValueError(f"{name} must have records on axis 0; got a scalar")
    return arr


def _differing_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    diff = np.asarray(a != b)
    return np.flatnonzero(diff.any(axis=tuple(range(1, diff.ndim))) if diff.ndim > 1 else diff)


def _why_not_replace(a: np.ndarray, b: np.ndarray) -> str | None:
    if a.shape != b.shape:
        return f"replace-one adjacency needs equal shapes; got {a.shape} and {b.shape}"
    k = _differing_rows(a, b).size
    if k != 1:
        return f"replace-one adjacency needs exactly one differing record; got {k}"
    return None


def _why_not_add_remove(a: np.ndarray, b: np.ndarray) -> str | None:
    if a.shape[1:] != b.shape[1:] or abs(a.shape[0] - b.shape[0]) != 1:
        return f"add/remove adjacency needs sizes differing by one record; got shapes {a.shape} and {b.shape}"
    big, small = (a, b) if a.shape[0] > b.shape[0] else (b, a)
    mismatch = _differing_rows(big[:-1], small)
    i = int(mismatch[0]) if mismatch.size else small.shape[0]
    if _differing_rows(np.delete(big, i, axis=0), small).size:
        return "add/remove adjacency: removing no single record of the larger dataset gives the smaller"
    return None


def check_adjacent(dataset: Any, neighbour: Any, adjacency: str = "replace_one") -> tuple[np.ndarray, np.ndarray]:
    """Return both datasets as arrays after checking they are adjacent; ``ValueError`` saying why not."""
    kind = Adjacency.parse(adjacency, "adjacency")
    a, b = _as_records(dataset, "dataset"), _as_records(neighbour, "neighbour")
    reasons = []
    if kind in (Adjacency.REPLACE_ONE, Adjacency.EITHER):
        reasons.append(_why_not_replace(a, b))
    if kind in (Adjacency.ADD_REMOVE, Adjacency.EITHER):
        reasons.append(_why_not_add_remove(a, b))
    if all(r is not None for r in reasons):
        raise ValueError("dataset and neighbour are not adjacent: " + "; ".join(r for r in reasons if r is not None))
    return a, b


def pair_note(dataset: Any, neighbour: Any, mechanism: Any = None) -> tuple[str, str] | None:
    """``(kind, sentence)`` -- kind ``"identical"`` or ``"not adjacent"`` -- when the pair is identical or is not a pair of
    neighbours; ``None`` when it is, or when it cannot be judged. Advisory: :func:`dpverify.audit.audit` appends it to
    the verdict's reason (identical datasets always, a non-adjacent pair when it is a violation); ``adjacency=`` makes a
    non-adjacent pair of records an error.

    Neighbours are judged by the relation of ``mechanism`` when it declares one
    (:class:`~dpverify.audit.abilities.HasNeighbourRelation`: ``are_neighbours(dataset, neighbour)`` and
    ``neighbour_relation``), else as arrays of records under replace-one or add/remove. A pair that cannot be read as
    records (objects, ragged lists) and no declared relation: ``None``."""
    records = _record_arrays(dataset, neighbour)
    if records is not None and records[0].shape == records[1].shape and np.array_equal(*records):
        return "identical", ("dataset and neighbour are identical: no audit can tell them apart, so nothing above 0 is certified; "
                "pass the neighbouring dataset (one record replaced, added or removed) as neighbour")
    declared = _declared_relation(mechanism, dataset, neighbour)
    if declared is not None:
        relation, neighbours = declared
        if neighbours:
            return None
        return "not adjacent", (f"dataset and neighbour are not neighbours under the mechanism's own relation "
                                f"({relation}): a DP claim speaks of neighbouring datasets only, so this verdict concerns "
                                "this pair, not the claim")
    if records is None:
        return None
    why = [_why_not_replace(*records), _why_not_add_remove(*records)]
    if all(w is not None for w in why):
        return "not adjacent", ("dataset and neighbour are not neighbours under replace-one nor add/remove of a record ("
                + "; ".join(w for w in why if w is not None) + "): a DP claim speaks of neighbouring datasets only, so "
                "this verdict concerns this pair, not the claim; check that the pair neighbours under the mechanism's "
                "relation (adjacency='either' makes a non-adjacent pair an error; a mechanism whose inputs are not "
                "records declares its own relation with are_neighbours(dataset, neighbour) and neighbour_relation)")
    return None


def _record_arrays(dataset: Any, neighbour: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Both datasets as arrays of records (axis 0), or None when they cannot be read so (scalars, objects, ragged)."""
    try:
        a, b = np.asarray(dataset), np.asarray(neighbour)
    except (TypeError, ValueError):
        return None
    if a.ndim == 0 or b.ndim == 0 or a.dtype == object or b.dtype == object:
        return None
    return a, b


def _declared_relation(mechanism: Any, dataset: Any, neighbour: Any) -> tuple[str, bool] | None:
    """``(relation, are they neighbours)`` from the mechanism's declared relation, None when it declares none. A
    relation that does not answer with a bool is a ``TypeError`` naming it."""
    are_neighbours = getattr(mechanism, "are_neighbours", None)
    if are_neighbours is None or not callable(are_neighbours):
        return None
    relation = str(getattr(mechanism, "neighbour_relation", "") or "declared by the mechanism")
    answer = are_neighbours(dataset, neighbour)
    if not isinstance(answer, (bool, np.bool_)):
        raise TypeError(f"mechanism.are_neighbours(dataset, neighbour) must return a bool; got "
                        f"{type(answer).__name__}")
    return relation, bool(answer)


def replace_one(dataset: Any, index: int, record: Any) -> tuple[np.ndarray, np.ndarray]:
    """(D, D') with record ``index`` of D replaced by ``record`` (must differ from it)."""
    a = _as_records(dataset, "dataset")
    if not -a.shape[0] <= index < a.shape[0]:
        raise ValueError(f"index must be in [0, {a.shape[0]}); got {index}")
    b = a.copy() if np.result_type(a, np.asarray(record)) == a.dtype else a.astype(np.result_type(a, np.asarray(record)))
    b[index] = record
    return check_adjacent(a, b, "replace_one")


def add_one(dataset: Any, record: Any) -> tuple[np.ndarray, np.ndarray]:
    """(D, D') with ``record`` appended to D."""
    a = _as_records(dataset, "dataset")
    b = np.concatenate([a, np.asarray(record, dtype=np.result_type(a, np.asarray(record)))[None]], axis=0)
    return check_adjacent(a, b, "add_remove")


def remove_one(dataset: Any, index: int) -> tuple[np.ndarray, np.ndarray]:
    """(D, D') with record ``index`` of D removed."""
    a = _as_records(dataset, "dataset")
    if not -a.shape[0] <= index < a.shape[0] or a.shape[0] < 1:
        raise ValueError(f"index must be in [0, {a.shape[0]}); got {index}")
    return check_adjacent(a, np.delete(a, index, axis=0), "add_remove")


def adjacent_pairs(records, *, min_size: int = 1, max_size: int = 20, adjacency: str = "replace_one"):
    """A hypothesis strategy of adjacent (D, D') array pairs built from ``records``, a strategy for
    one record (e.g. ``st.floats(-1, 1)`` or ``hypothesis.extra.numpy.arrays(float, 3, ...)``).

    ``"replace_one"`` (or ``"replace"``): a list of ``min_size..max_size`` records, one of them replaced by a different
    record. ``"add_remove"``: a record is added to or removed from the list (sizes stay >= 0).
    ``"either"``: one of the two, chosen by hypothesis.
    """
    from hypothesis import strategies as st

    chosen = Adjacency.parse(adjacency, "adjacency")
    if min_size < 1 or max_size < min_size:
        raise ValueError(f"need 1 <= min_size <= max_size; got {min_size}, {max_size}")

    @st.composite
    def pairs(draw):
        kind = chosen if chosen is not Adjacency.EITHER else draw(st.sampled_from(chosen.relations()))
        data = np.asarray(draw(st.lists(records, min_size=min_size, max_size=max_size)))
        if kind == Adjacency.REPLACE_ONE:
            i = draw(st.integers(0, data.shape[0] - 1))
            old = data[i]
            new = draw(records.filter(lambda r: bool(np.any(np.asarray(r) != old))))
            return replace_one(data, i, new)
        if draw(st.booleans()):
            return add_one(data, draw(records))
        return remove_one(data, draw(st.integers(0, data.shape[0] - 1)))

    return pairs()
