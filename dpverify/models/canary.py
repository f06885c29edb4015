"""Gradient canaries: the worst-case adjacent pairs the auditing literature uses for gradient-based mechanisms.

A *gradient canary* (Jagielski, Ullman, Oprea 2020; Nasr et al. 2021 "adversary instantiation", 2023 "tight
auditing") is a record whose per-record gradient differs from its counterpart's by a fixed vector ``u``, the same
at every parameter value, as large as the model allows, while the other records either are copies of the
counterpart (their gradients then cancel between the two datasets, whichever of them enters a fixed-size batch) or
contribute nothing (null records, for Poisson batches). Then every step of a Langevin-type chain sees exactly the
dominating pair of its mechanism description (:mod:`dpverify.calculus.mechanism_description`), with sensitivity
``c w ||u||``, and the path's privacy loss is computable: the audit has a known budget ceiling and the chain's
white-box likelihood ratio is exact.

Models provide their canary records with ``canary_records(direction)``
(:class:`~dpverify.models.base.CanaryRecords`): logistic regression (records ``(R e_j, +1)`` and ``(R e_j, -1)``:
``u = R e_j`` exactly, since ``sigmoid(a) + sigmoid(-a) = 1``; null record: zero features), the Gaussian target
and the Gaussian mean (records ``+R e_j`` and ``-R e_j``: ``u = 2R e_j / sigma^2``; no null record). The
non-convex target has none (its bump gradients depend on theta).

For a model of your own, write the three records and call :func:`canary_pair`; then check the pair against a
sampler with ``sampler.canary_shift(dataset, neighbour)``, which verifies the constant gradient difference at
probe points and returns ``||u||`` (None if the pair is not a canary for that sampler's batches).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from dpverify.validation import check_positive_int

__all__ = ["canary_pair", "model_canary_pair"]

KINDS = ("replace", "null")


def canary_pair(N: int, canary: Any, counterpart: Any, null: Any = None, *, kind: str = "replace"):
    """``(dataset, neighbour)`` of N records built from canary records.

    ``kind="replace"`` (full or fixed-size batches, replace-one adjacency): the dataset is the canary followed by
    N-1 copies of the counterpart; the neighbour is N copies of the counterpart.
    ``kind="null"`` (Poisson batches, add/remove adjacency): the dataset is the canary followed by N-1 null
    records; the neighbour is N null records -- a null record contributes nothing to a gradient sum, so this
    replace-one pair has the output laws of the add/remove pair (canary present vs absent) whenever N is a public
    constant of the mechanism, as in DP-SGD/DP-SGLD.
    """
    N = check_positive_int(N, "N")
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
    if kind == "null" and null is None:
        raise ValueError("kind='null' needs a null record (one whose gradient is zero at every theta)")
    filler = np.asarray(counterpart if kind == "replace" else null)
    base = np.repeat(filler[None, ...], N, axis=0)
    dataset = base.copy()
    dataset[0] = np.asarray(canary)
    return dataset, base


def model_canary_pair(model, N: int, *, kind: str = "replace", direction: int = 0):
    """:func:`canary_pair` with the model's own canary records (``model.canary_records(direction)``)."""
    records = model.canary_records(direction)
    return canary_pair(N, records.canary, records.counterpart, records.null, kind=kind)
