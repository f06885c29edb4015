"""What a library regression check audits: one public function of a DP library, its claim and its candidate pairs.

A :class:`LibraryFunction` wraps one call of a library's public API as a mechanism of the auditor's protocol
(:mod:`dpverify.audit.core`: ``mechanism(dataset, n, rng)`` returns ``n`` outputs on axis 0, every random number
seeded from ``rng``), says what the library claims for that call (read from the library: the argument it was
given, its privacy map or its accountant, never re-typed), under which neighbouring relation, and which adjacent
pairs to try (:func:`dpverify.libraries.pairs` and the worst-pair search choose among them).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from dpverify.calculus.guarantees import ApproxDP
from dpverify.vocabulary import NeighbouringRelation

__all__ = ["Claimed", "LibraryFunction", "LabelledPair", "ADJACENCIES"]

#: Neighbouring relations a library may declare (:class:`dpverify.vocabulary.NeighbouringRelation`; "replace", the
#: older spelling, is read as "replace_one").
ADJACENCIES = NeighbouringRelation.values()


class LabelledPair(tuple):
    """An adjacent pair ``(dataset, neighbour)`` that says which family it comes from (``label``, e.g.
    ``"outlier:add"``) and how it was built (``note``); it is a plain 2-tuple everywhere else."""

    label: str
    note: str

    def __new__(cls, dataset: Any, neighbour: Any, label: str, note: str = "") -> "LabelledPair":
        obj = super().__new__(cls, (dataset, neighbour))
        obj.label = str(label)
        obj.note = str(note)
        return obj

    def __getnewargs__(self):  # pickling (worker processes) keeps the label
        return (self[0], self[1], self.label, self.note)


@dataclass(frozen=True)
class Claimed(ApproxDP):
    """The (epsilon, delta) a library claims for one call -- an :class:`~dpverify.calculus.guarantees.ApproxDP` --
    and where the numbers were read (``source``, e.g. ``"opendp privacy map m.map(1)"``,
    ``"diffprivlib BudgetAccountant.spent"``, ``"opacus RDPAccountant"``)."""

    source: str = ""


@dataclass(frozen=True)
class LibraryFunction:
    """One public function of a DP library, ready to audit.

    - ``library``, ``version``: the distribution name and its installed version;
    - ``name``: the call as a user writes it (e.g. ``"tools.mean(bounds=(0, 1))"``);
    - ``mechanism(dataset, n, rng) -> (n, ...) array``: ``n`` independent releases on ``dataset``, seeded from
      ``rng`` (the auditor's protocol);
    - ``claim(dataset) -> Claimed``: the guarantee the library states for the call, read from the library;
    - ``pairs``: candidate adjacent pairs ``(dataset, neighbour)`` under ``adjacency`` (the search picks among
      them, :mod:`dpverify.libraries.search`);
    - ``expected``: if not empty, why a violation is expected and documented (e.g. diffprivlib's
      ``PrivacyLeakWarning`` when bounds are computed from the data): such a finding is labelled expected, not a bug;
    - ``snippet(dataset, neighbour) -> str``: Python that reproduces one release on each side with the library
      alone (for a report's reproduction of a violation);
    - ``test``: the auditor's ``test`` argument ("auto" unless a statistic suits the output better);
    - ``cost``: the runner divides its sample budgets by it (:mod:`dpverify.libraries.runner`): 1 for a scalar tool
      (about 0.2 ms a release); the diffprivlib models use 4 (a fit takes 1-4 ms: fewer samples, less power);
    - ``reproducible``: False when the library draws its noise from the operating system, not from ``rng``
      (OpenDP): the auditor's reproducibility probe then warns, and the runner records that the verdict is
      reproduced by re-running on fresh samples, not sample by sample;
    - ``ledger(dataset, seed) -> Ledger``: one call on ``dataset`` with the library's privacy-consuming calls
      recorded (:mod:`dpverify.libraries.ledger`), or None when the library has no ledger yet;
    - ``options``: the public options of the call that change its privacy path (an option sweep's row says which
      setting it audits, e.g. ``{"fit_intercept": False}``).
    """

    library: str
    version: str
    name: str
    mechanism: Callable[[Any, int, np.random.Generator], np.ndarray]
    claim: Callable[[Any], Claimed]
    pairs: Sequence[tuple[Any, Any]]
    adjacency: str = NeighbouringRelation.ADD_REMOVE
    expected: str = ""
    snippet: Callable[[Any, Any], str] | None = None
    test: Any = "auto"
    tags: tuple[str, ...] = field(default_factory=tuple)
    cost: float = 1.0
    reproducible: bool = True
    ledger: Callable[[Any, int], Any] | None = None
    options: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "adjacency", NeighbouringRelation.parse(self.adjacency, "adjacency"))
        if not self.pairs:
            raise ValueError(f"{self.library} {self.name}: pairs must hold at least one (dataset, neighbour) pair")
        if not self.cost > 0:
            raise ValueError(f"{self.library} {self.name}: cost must be > 0; got {self.cost!r}")

    @property
    def qualified_name(self) -> str:
        return f"{self.library}.{self.name}"

    @classmethod
    def from_release(cls, library: str, version: str, name: str, release: Callable[[Any, int], Any],
                     claim: Callable[[Any], Claimed], pairs: Sequence[tuple[Any, Any]], **options: Any
                     ) -> "LibraryFunction":
        """A :class:`LibraryFunction` from a one-release call: ``release(dataset, seed) -> output`` (one output: a
        number or a small array) makes one call of the library with its own seed argument set to ``seed``. The
        mechanism draws one seed from the auditor's ``rng`` per output, so the audit is reproducible from its seed
        whenever the library honours its seed argument. ``options``: the other fields (``adjacency``,
        ``expected``, ``snippet``, ``test``, ``tags``, ``cost``, ``reproducible``).

        A maintainer's function in a few lines (see docs/libraries.md)::

            fn = LibraryFunction.from_release(
                "mylib", mylib.__version__, "private_sum(bounds=(0, 1))",
                release=lambda d, seed: mylib.private_sum(d, epsilon=1.0, bounds=(0, 1), seed=seed),
                claim=lambda d: Claimed(1.0, 0.0, "the epsilon argument"),
                pairs=record_pairs(0.0, 1.0, adjacency="replace_one"), adjacency="replace_one")
            row = run_function(fn, BUDGETS["standard"])
        """

        def mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
            seeds = rng.integers(2**31, size=n)
            return np.asarray([np.asarray(release(dataset, int(s)), dtype=float) for s in seeds])

        return cls(library, version, name, mechanism, claim, pairs, **options)
