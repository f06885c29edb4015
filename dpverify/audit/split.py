"""Seeded, chunked sampling of a mechanism on two datasets, split into selection and estimation.

Seeding (numpy ``SeedSequence`` spawning; O'Neill 2014, the PCG paper, and the numpy
"Parallel random number generation" guide): ``root = SeedSequence(seed)``; ``root.spawn(2)``
gives one child per side (D, D'); each side's child is spawned once more into one grandchild per
chunk, and chunk ``j`` of that side is drawn with ``default_rng(grandchild[j])``. Streams of the
two sides and of all chunks are statistically independent, and the whole audit is reproducible from
``(seed, samples, selection_fraction, chunk_size)``.

Split (the selection/estimation discipline of Ding et al. 2018, "Detecting violations of
differential privacy", CCS 2018, Sec. 4, and Bichsel et al. 2021, DP-Sniper, IEEE S&P 2021):
the first ``n_selection = ceil(selection_fraction * samples)`` outputs per side choose the test and
its event; the remaining ``n_estimation = samples - n_selection`` outputs per side, drawn from
fresh chunks, only count that one event. The event is therefore independent of the counts, which is
what makes the Clopper-Pearson bound of :mod:`dpverify.audit.bounds` valid. The selection part is
itself halved: the first half fits each candidate statistic, the second half picks the threshold
and scores the candidates (so a statistic that overfits the first half is not preferred).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np

__all__ = ["DEFAULT_SELECTION_FRACTION", "DEFAULT_CHUNK_SIZE", "SplitPlan", "draw", "check_outputs"]

#: Fraction of the samples per side used to choose the test (the rest certify).
DEFAULT_SELECTION_FRACTION = 0.2
#: Maximum number of outputs requested from the mechanism in one call.
DEFAULT_CHUNK_SIZE = 1 << 20


@dataclass(frozen=True)
class SplitPlan:
    """How ``samples`` outputs per side are divided: selection (fit + score) and estimation."""

    samples: int
    n_selection: int
    n_estimation: int
    chunk_size: int

    @classmethod
    def make(cls, samples: int, selection_fraction: float, chunk_size: int) -> "SplitPlan":
        n_sel = min(max(2, math.ceil(selection_fraction * samples)), samples - 1)
        return cls(samples, n_sel, samples - n_sel, chunk_size)

    def chunk_sizes(self, total: int) -> list[int]:
        full, rest = divmod(total, self.chunk_size)
        return [self.chunk_size] * full + ([rest] if rest else [])

    @property
    def n_chunks(self) -> int:
        return len(self.chunk_sizes(self.n_selection)) + len(self.chunk_sizes(self.n_estimation))


def check_outputs(out, n: int, side: str, reference_shape: tuple | None) -> np.ndarray:
    """Validate one chunk of mechanism outputs: an array with first axis ``n``, the same trailing
    shape as ``reference_shape`` (if given), numeric or boolean, no NaN."""
    arr = np.asarray(out)
    if arr.ndim == 0 or arr.shape[0] != n:
        raise ValueError(
            f"mechanism must return n outputs stacked on axis 0; asked for n={n} on {side}, "
            f"got shape {arr.shape}"
        )
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise ValueError(f"mechanism outputs must be numeric or boolean; got dtype {arr.dtype} on {side}")
    if reference_shape is not None and arr.shape[1:] != reference_shape:
        raise ValueError(
            f"mechanism outputs have inconsistent shapes: one output has shape {reference_shape} "
            f"but {side} gave {arr.shape[1:]}"
        )
    if np.issubdtype(arr.dtype, np.inexact) and np.isnan(arr).any():
        raise ValueError(f"mechanism returned NaN outputs on {side}")
    return arr


def draw(
    mechanism: Callable, datasets: tuple, plan: SplitPlan, seed: int,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[tuple[np.ndarray, np.ndarray], Iterator[tuple[np.ndarray, np.ndarray]]]:
    """Selection outputs of both sides, and an iterator over estimation chunks (pairs of arrays).

    Chunk seeds follow the module docstring. The estimation chunks are drawn lazily, so a caller
    that only counts an event never holds more than one chunk per side in memory.
    ``progress(done, total)`` is called after each chunk index is drawn on both sides.
    """
    sides = np.random.SeedSequence(seed).spawn(2)
    sel_sizes = plan.chunk_sizes(plan.n_selection)
    est_sizes = plan.chunk_sizes(plan.n_estimation)
    chunk_seeds = [s.spawn(len(sel_sizes) + len(est_sizes)) for s in sides]
    names = ("dataset", "neighbour")
    shape: list = [None]

    def one(side: int, j: int, size: int) -> np.ndarray:
        out = check_outputs(
            mechanism(datasets[side], size, np.random.default_rng(chunk_seeds[side][j])),
            size,
            names[side],
            shape[0],
        )
        if shape[0] is None:
            shape[0] = out.shape[1:]
        return out

    total = len(sel_sizes) + len(est_sizes)

    def report(done: int) -> None:
        if progress is not None:
            progress(done, total)

    parts: tuple[list, list] = ([], [])
    for j, size in enumerate(sel_sizes):
        for side in (0, 1):
            parts[side].append(one(side, j, size))
        report(j + 1)
    selection = tuple(np.concatenate(p) for p in parts)

    def estimation() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for j, size in enumerate(est_sizes, start=len(sel_sizes)):
            pair = one(0, j, size), one(1, j, size)
            report(j + 1)
            yield pair

    return selection, estimation()
