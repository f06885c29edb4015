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

Checks before any bound is computed (:func:`check_outputs`, :func:`check_rng_use`): every chunk is a real,
finite, non-empty array with n rows; and the mechanism draws its randomness from the ``rng`` it is given. The
Clopper-Pearson bound assumes the outputs are independent draws: a mechanism that seeds its own generator
(``np.random.default_rng(0)`` inside) returns the same outputs in every chunk, and no bound computed from them is
valid; one that draws from a global source (``np.random.laplace``, ``random``) is independent but cannot be
reproduced from the audit's seed.
"""
from __future__ import annotations

import copy

import math
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterator

import numpy as np

__all__ = [
    "DEFAULT_SELECTION_FRACTION", "DEFAULT_CHUNK_SIZE", "RNG_PROBE_SIZE", "SplitPlan", "draw", "check_outputs",
    "check_rng_use", "check_device_use", "NonReproducibleMechanismWarning", "ChunkSampler", "FIT_CAP",
    "THRESHOLD_SAMPLE",
]

#: Fraction of the samples per side used to choose the test (the rest certify).
DEFAULT_SELECTION_FRACTION = 0.2
#: Maximum number of outputs requested from the mechanism in one call.
DEFAULT_CHUNK_SIZE = 1 << 20
#: Outputs per call of the rng probe (:func:`check_rng_use`).
RNG_PROBE_SIZE = 32
#: At most this many outputs per side fit the statistics (the rest of the selection part scores thresholds), so the
#: memory of an audit does not grow with its budget (:mod:`dpverify.audit.core`).
FIT_CAP = 1 << 20
#: At most this many scoring outputs per side are held in memory to fix the candidate thresholds; the counts of the
#: candidate events are then accumulated chunk by chunk over the whole scoring part.
THRESHOLD_SAMPLE = 1 << 20


class NonReproducibleMechanismWarning(UserWarning):
    """The mechanism gave different outputs for two generators seeded alike: it draws randomness from somewhere
    other than its ``rng`` argument, so the audit cannot be reproduced from its seed."""


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


def check_outputs(out: Any, n: int, side: str, reference_shape: tuple | None) -> np.ndarray:
    """Validate one chunk of mechanism outputs: an array with first axis ``n``, the same trailing
    shape as ``reference_shape`` (if given), real numeric or boolean, at least one value per output,
    no NaN and no infinity (a ``ValueError`` naming the problem otherwise)."""
    arr = np.asarray(out)
    if arr.ndim == 0 or arr.shape[0] != n:
        raise ValueError(
            f"mechanism must return n outputs stacked on axis 0; asked for n={n} on {side}, "
            f"got shape {arr.shape}"
        )
    if np.iscomplexobj(arr):
        raise ValueError(f"mechanism outputs must be real numbers; got complex dtype {arr.dtype} on {side} "
                         "(return the real and imaginary parts as two columns if both are released)")
    if not (np.issubdtype(arr.dtype, np.number) or arr.dtype == np.bool_):
        raise ValueError(f"mechanism outputs must be numeric or boolean; got dtype {arr.dtype} on {side}")
    if arr.ndim > 1 and math.prod(arr.shape[1:]) == 0:
        raise ValueError(f"mechanism outputs must hold at least one value each; got shape {arr.shape} on {side} "
                         "(an output with no values cannot be audited)")
    if reference_shape is not None and arr.shape[1:] != reference_shape:
        raise ValueError(
            f"mechanism outputs have inconsistent shapes: one output has shape {reference_shape} "
            f"but {side} gave {arr.shape[1:]}"
        )
    if np.issubdtype(arr.dtype, np.inexact):
        if np.isnan(arr).any():
            raise ValueError(f"mechanism returned NaN outputs on {side}")
        if np.isinf(arr).any():
            signs = sorted({"+inf" if v > 0 else "-inf" for v in arr[np.isinf(arr)].ravel()[:1000]})
            raise ValueError(f"mechanism returned infinite outputs ({', '.join(signs)}) on {side}; outputs must be "
                             "finite (map an overflow to a finite sentinel value if it is part of the release)")
    return arr


def _snapshot(dataset: Any) -> Any:
    """A deep copy of ``dataset`` to compare after a call, or ``None`` when it cannot be copied (then not checked)."""
    try:
        return copy.deepcopy(dataset)
    except Exception:  # an object that refuses to be copied: the check is skipped, nothing else depends on it
        return None


def _unchanged(before: Any, after: Any) -> bool:
    """Whether ``after`` still equals the snapshot ``before`` (arrays elementwise, NaN equal to NaN; other objects by
    ``==``); an undecidable comparison counts as unchanged."""
    try:
        a, b = np.asarray(before), np.asarray(after)
        if a.dtype != object and b.dtype != object:
            return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        return bool(before == after)
    except Exception:  # a comparison that raises or is ambiguous: do not guess
        return True


def check_rng_use(mechanism: Callable, dataset: Any, seed_sequence: np.random.SeedSequence,
                  size: int = RNG_PROBE_SIZE) -> str:
    """Check that ``mechanism`` draws its randomness from the ``rng`` argument; returns what was found.

    Three or four calls of ``size`` outputs on ``dataset`` (seeds spawned from ``seed_sequence``, never used by the
    audit itself). First, a mechanism that changes its ``dataset`` argument (compared with a deep copy after the
    first call) is a ``ValueError``: it would make each call see another dataset. Then:

    1. two calls with generators seeded alike must give identical outputs; otherwise the mechanism uses another
       source of randomness: a :class:`NonReproducibleMechanismWarning` (the outputs are still random, so the bound
       stays valid, but the seed no longer reproduces the audit) and ``"non-reproducible"`` is returned;
    2. a call with a different seed must give different outputs, unless every output of the batch is the same value
       (a deterministic mechanism, or one so concentrated that it returned one value ``size`` times: then
       ``"constant"``);
    3. if it does not, a fourth call with a third seed decides: three different seeds giving the same batch of
       ``size`` outputs that are not all equal means the mechanism ignores ``rng`` (typically it seeds its own
       generator), so the chunks of the audit would repeat each other and no bound would be valid: ``ValueError``.

    Discrete mechanisms whose outputs can coincide by chance: for a batch that is not constant, two further batches
    must match it row for row, which for independent draws has probability at most about
    ``size * p^3 (1 - p)^(3 (size - 1))`` for a binary output of minority probability p, below ``e^-3 / size^2``
    (< 1e-4 at size 32) for every p; hence the third call before an error.
    Returns ``"ok"`` when the mechanism passed all checks.
    """
    s1, s2, s3 = seed_sequence.spawn(3)
    before = _snapshot(dataset)

    def call(ss: np.random.SeedSequence) -> np.ndarray:
        # a fresh generator per call: the same seed sequence gives the same stream
        return check_outputs(mechanism(dataset, size, np.random.default_rng(ss)), size, "dataset", None)

    first = call(s1)
    if before is not None and not _unchanged(before, dataset):
        raise ValueError(
            "mechanism modified its dataset argument (the dataset differs after one call): every later call would see "
            "another dataset, so the audit would not be of this pair; copy the dataset inside the mechanism before "
            "changing it")
    if not np.array_equal(first, call(s1)):
        warnings.warn(
            "mechanism gave different outputs for two generators seeded alike: it draws randomness from somewhere "
            "other than its rng argument (numpy's global state, the random module, the clock...), so this audit "
            "cannot be reproduced from its seed; draw every random number from the rng passed in",
            NonReproducibleMechanismWarning, stacklevel=4,
        )
        return "non-reproducible"
    if np.all(first == first[:1]):
        return "constant"
    if not np.array_equal(first, call(s2)):
        return "ok"
    if np.array_equal(first, call(s3)):
        raise ValueError(
            "mechanism ignores its rng argument: three differently seeded generators gave the same "
            f"{size} (not all equal) outputs, so the chunks of an audit would repeat each other and no bound would be "
            "valid; draw every random number from the rng passed in (e.g. rng.laplace(...), not "
            "np.random.default_rng(0).laplace(...))"
        )
    return "ok"


def check_device_use(mechanism: Callable, dataset: Any, backend: Any, seed_sequence: np.random.SeedSequence,
                     size: int = RNG_PROBE_SIZE) -> None:
    """Check that ``mechanism`` can draw from ``backend``'s generator (:class:`~dpverify.backends.DeviceGenerator`),
    before any sample of the audit is drawn: one call of ``size`` outputs with a generator seeded from
    ``seed_sequence`` (a seed the audit's chunks never use). A mechanism written for numpy's ``Generator`` fails there
    (an ``AttributeError`` for a draw the device generator lacks, a ``TypeError`` for numpy arithmetic on its tensors,
    a ``RuntimeError`` for a host tensor met on a GPU); that is a ``NotImplementedError`` naming the mechanism and
    saying that ``backend='numpy'`` runs it."""
    try:
        mechanism(dataset, size, backend.generator(seed_sequence))
    except (AttributeError, TypeError, RuntimeError) as exc:  # NotImplementedError is a RuntimeError
        name = getattr(mechanism, "name", "") or getattr(mechanism, "__name__", "") or type(mechanism).__name__
        raise NotImplementedError(
            f"mechanism {name!r} cannot draw from the {backend.name} backend's generator on {backend.device!r} "
            f"({type(exc).__name__}: {exc}); it has no device path: audit it with backend='numpy' (the default), or "
            "draw with the generator's own methods (docs/gpu.md)") from exc


class ChunkSampler:
    """Draws chunk ``j`` of both sides on demand: ``default_rng(chunk_seeds[side][j])`` (module docstring), outputs
    checked by :func:`check_outputs`. Chunk indices run over the selection chunks, then the estimation chunks, of
    ``plan``; a chunk's outputs depend only on ``(seed, plan, j)``, never on which process draws it or when, which is
    what lets worker processes draw chunks in any order with results identical to one process.

    ``check_rng``: first run :func:`check_rng_use` on ``datasets[0]`` with seeds from a third child of the root seed
    sequence (the two sides' streams do not depend on it). On another backend, :func:`check_device_use` then probes
    that the mechanism can draw from the backend's generator (from one more child; a clear error before any sample).
    """

    names = ("dataset", "neighbour")

    def __init__(self, mechanism: Callable, datasets: tuple, plan: SplitPlan, seed: int, check_rng: bool = True,
                 backend: Any = None):
        #: the array backend the chunks are drawn on (None: numpy, ``default_rng``; else a
        #: :class:`~dpverify.backends.Backend` whose own generator is seeded from the same chunk seed)
        self.backend = None if backend is None or backend.name == "numpy" else backend
        root = np.random.SeedSequence(seed)
        sides = root.spawn(2)
        if check_rng:
            check_rng_use(mechanism, datasets[0], root.spawn(1)[0])
        if self.backend is not None:
            check_device_use(mechanism, datasets[0], self.backend, root.spawn(1)[0])
        self.mechanism = mechanism
        self.datasets = datasets
        self.plan = plan
        self.selection_sizes = plan.chunk_sizes(plan.n_selection)
        self.estimation_sizes = plan.chunk_sizes(plan.n_estimation)
        self.sizes = self.selection_sizes + self.estimation_sizes
        self.chunk_seeds = [s.spawn(len(self.sizes)) for s in sides]
        #: trailing shape of one output, fixed by the first chunk drawn (all later chunks must match it)
        self.shape: tuple | None = None

    @property
    def n_chunks(self) -> int:
        return len(self.sizes)

    def side(self, side: int, j: int, on_device: bool = False) -> np.ndarray:
        """Chunk ``j`` of one side (0: dataset, 1: neighbour). On another backend (``backend``) the mechanism gets that
        backend's generator seeded from the chunk's seed; its outputs are returned on the device when ``on_device``
        (checked there), else copied to the host."""
        size = self.sizes[j]
        if self.backend is not None:
            return self._device_side(side, j, size, on_device)
        out = check_outputs(
            self.mechanism(self.datasets[side], size, np.random.default_rng(self.chunk_seeds[side][j])),
            size, self.names[side], self.shape,
        )
        if self.shape is None:
            self.shape = out.shape[1:]
        return out

    def _device_side(self, side: int, j: int, size: int, on_device: bool) -> Any:
        backend = self.backend
        assert backend is not None
        out = self.mechanism(self.datasets[side], size, backend.generator(self.chunk_seeds[side][j]))
        if isinstance(out, np.ndarray) or not on_device:
            out = check_outputs(backend.to_numpy(out), size, self.names[side], self.shape)
        else:
            shape = tuple(out.shape)
            if shape[0] != size or (self.shape is not None and shape[1:] != tuple(self.shape)):
                raise ValueError(f"mechanism returned outputs of shape {shape} on {self.names[side]}; expected "
                                 f"{size} outputs" + ("" if self.shape is None else f" of shape {tuple(self.shape)}"))
            if not backend.all_finite(out):
                raise ValueError(f"mechanism returned non-finite outputs on {self.names[side]}")
        if self.shape is None:
            self.shape = tuple(out.shape[1:])
        return out

    def note_shape(self, c0: np.ndarray, c1: np.ndarray) -> None:
        """Record the trailing shape of one output from a chunk drawn elsewhere (a worker), or check it against the one
        recorded: every chunk must match the first (a ``ValueError`` otherwise, as for chunks drawn here)."""
        for side, out in enumerate((c0, c1)):
            if self.shape is None:
                self.shape = tuple(out.shape[1:])
            elif tuple(out.shape[1:]) != tuple(self.shape):
                raise ValueError(f"mechanism returned outputs of shape {tuple(out.shape[1:])} on {self.names[side]}; "
                                 f"expected outputs of shape {tuple(self.shape)}")

    def chunk(self, j: int, on_device: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """Chunk ``j`` of both sides (on the backend's device when ``on_device``, see :meth:`side`)."""
        return self.side(0, j, on_device), self.side(1, j, on_device)


def draw(
    mechanism: Callable, datasets: tuple, plan: SplitPlan, seed: int,
    progress: Callable[[int, int], None] | None = None, check_rng: bool = True,
) -> tuple[tuple[np.ndarray, np.ndarray], Iterator[tuple[np.ndarray, np.ndarray]]]:
    """Selection outputs of both sides, and an iterator over estimation chunks (pairs of arrays).

    Chunk seeds follow the module docstring (:class:`ChunkSampler`). The estimation chunks are drawn lazily, so a
    caller that only counts an event never holds more than one chunk per side in memory (the selection part is held
    whole: :func:`dpverify.audit.core.audit` streams it instead).
    ``progress(done, total)`` is called after each chunk index is drawn on both sides.
    """
    sampler = ChunkSampler(mechanism, datasets, plan, seed, check_rng=check_rng)
    n_sel = len(sampler.selection_sizes)
    total = sampler.n_chunks

    def report(done: int) -> None:
        if progress is not None:
            progress(done, total)

    parts: tuple[list, list] = ([], [])
    for j in range(n_sel):
        for side in (0, 1):
            parts[side].append(sampler.side(side, j))
        report(j + 1)
    selection = (np.concatenate(parts[0]), np.concatenate(parts[1]))

    def estimation() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for j in range(n_sel, total):
            pair = sampler.chunk(j)
            report(j + 1)
            yield pair

    return selection, estimation()
