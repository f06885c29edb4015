"""Closed vocabularies of the calculus: what a run releases, and the neighbouring relation its guarantee is under.

Each word is a member of a ``str``-valued :class:`Vocabulary` enum: it *is* its string (``Release.PATH == "path"``,
same hash, formats and serialises to JSON as ``"path"``), so code and files that use the plain strings keep working,
while a typo is a ``ValueError`` at the boundary (``Release("paht")``) instead of a silent mismatch, and the set of
allowed words lives in one place (dp_accounting's ``NeighboringRelation`` enum plays the same role).
"""
from __future__ import annotations

import enum

__all__ = ["Vocabulary", "Release", "NeighbouringRelation"]


class Vocabulary(str, enum.Enum):
    """A word of a closed vocabulary: a ``str`` equal to (and hashing like) its value, printed as its value."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

    def __hash__(self) -> int:
        return hash(str(self.value))

    @classmethod
    def values(cls) -> tuple[str, ...]:
        """The words, in definition order, as plain strings."""
        return tuple(str(member.value) for member in cls)

    @classmethod
    def parse(cls, value: object, name: str):
        """``value`` as a member (a ``ValueError`` naming ``name`` and the allowed words otherwise)."""
        try:
            return cls(value)
        except ValueError:
            raise ValueError(f"{name} must be one of {cls.values()}; got {value!r}") from None


class Release(Vocabulary):
    """What one run of a chain publishes: every iterate (``PATH``, the adaptive composition itself) or only the last
    (``FINAL``, a post-processing of the path: any accountant of the path is an upper bound, Dwork & Roth 2014,
    Prop. 2.1). The one release with parameters, the sample set a Bayesian user keeps, is
    :class:`dpverify.calculus.releases.SampleSet`; ``dpverify.calculus.releases.ReleaseSpec`` is either."""

    PATH = "path"
    FINAL = "final"


class NeighbouringRelation(Vocabulary):
    """Adjacent datasets: one record added or removed (``ADD_REMOVE``), or one record replaced, the dataset size
    public (``REPLACE_ONE``) (Dwork & Roth 2014, Def. 2.3 and its bounded variant)."""

    ADD_REMOVE = "add_remove"
    REPLACE_ONE = "replace_one"
