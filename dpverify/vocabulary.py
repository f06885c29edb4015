"""The closed vocabularies of dpverify, in one place: what a run releases, the neighbouring relation, what an audit
concludes, its mode and tests, and the defects of the known-bad implementations.

Each word is a member of a ``str``-valued :class:`Vocabulary` enum: it *is* its string (``Release.PATH == "path"``,
same hash, formats and serialises to JSON as ``"path"``), so code and files that use the plain strings keep working,
while a typo is a ``ValueError`` at the boundary (``Release("paht")``) instead of a silent mismatch, and the set of
allowed words lives here only (dp_accounting's ``NeighboringRelation`` enum plays the same role). Every layer, and
every command-line and pytest-plugin choice list, derives its words from this module (:meth:`Vocabulary.values`).

The module imports nothing but :mod:`enum`, so the command line can build its parser from it without numpy.
"""
from __future__ import annotations

import enum

__all__ = ["Vocabulary", "Release", "NeighbouringRelation", "Adjacency", "Verdict", "Mode", "TestKind",
           "KnownBadDefect", "WHITE_BOX_BLIND_DEFECTS", "ArrayBackend", "CaseKind", "RowKind"]


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
    public (``REPLACE_ONE``) (Dwork & Roth 2014, Def. 2.3 and its bounded variant). ``"replace"``, the older
    spelling of the auditor and the library catalogues, is read as ``REPLACE_ONE``."""

    ADD_REMOVE = "add_remove"
    REPLACE_ONE = "replace_one"

    @classmethod
    def _missing_(cls, value: object) -> NeighbouringRelation | None:
        return cls.REPLACE_ONE if value == "replace" else None


class Adjacency(Vocabulary):
    """The relation an audited pair is checked against (``audit(adjacency=...)``): one of the neighbouring
    relations, or ``EITHER`` of them. ``"replace"`` is read as ``REPLACE_ONE``."""

    ADD_REMOVE = "add_remove"
    REPLACE_ONE = "replace_one"
    EITHER = "either"

    @classmethod
    def _missing_(cls, value: object) -> Adjacency | None:
        return cls.REPLACE_ONE if value == "replace" else None

    def relations(self) -> tuple[NeighbouringRelation, ...]:
        """The neighbouring relations this adjacency admits."""
        if self is Adjacency.EITHER:
            return (NeighbouringRelation.REPLACE_ONE, NeighbouringRelation.ADD_REMOVE)
        return (NeighbouringRelation(self.value),)


class Verdict(Vocabulary):
    """What an audit concludes (:mod:`dpverify.audit.verdicts`; the one-run audits' too)."""

    VIOLATION = "violation"
    CONSISTENT = "consistent"
    INCONCLUSIVE = "inconclusive"


class Mode(Vocabulary):
    """What is audited: the idealised mechanism (``MATHEMATICAL``: the log-likelihood ratio is rounded,
    :mod:`dpverify.audit.likelihood_ratio`) or also the floating-point artefacts of the code that runs
    (``IMPLEMENTATION``, :mod:`dpverify.audit.floating_point`; Mironov 2012)."""

    MATHEMATICAL = "mathematical"
    IMPLEMENTATION = "implementation"


class TestKind(Vocabulary):
    """The statistics ``audit(test=...)`` can be told to use (besides a callable statistic of the user's):
    ``AUTO`` chooses (:mod:`dpverify.audit.select`); the others force one."""

    __test__ = False  # not a pytest test class

    AUTO = "auto"
    THRESHOLD = "threshold"
    LIKELIHOOD_RATIO = "likelihood_ratio"
    EVENTS = "events"
    CLASSIFIER = "classifier"
    BOOSTING = "boosting"
    ADDITIVE = "additive"


class KnownBadDefect(Vocabulary):
    """The defects of the deliberately broken DP-SGLDs (:class:`dpverify.samplers.broken.BrokenDPSGLD`), each a
    known-bad case of ``dpverify verify`` that must be flagged as a violation."""

    NO_NOISE = "no_noise"
    HALF_NOISE = "half_noise"
    NO_CLIP = "no_clip"
    DOUBLE_RATE = "double_rate"
    SUM_NOT_MEAN = "sum_not_mean"
    SHARED_NOISE = "shared_noise"
    REUSED_NOISE = "reused_noise"
    WARM_START = "warm_start"


#: The defects the declared algorithm's white-box statistic cannot see (the law of each step is unchanged, or the
#: change is across steps): a black-box statistic must find them.
WHITE_BOX_BLIND_DEFECTS: tuple[KnownBadDefect, ...] = (KnownBadDefect.SHARED_NOISE, KnownBadDefect.REUSED_NOISE,
                                                        KnownBadDefect.WARM_START)


class ArrayBackend(Vocabulary):
    """The array backends samples are drawn and counted on (:mod:`dpverify.backends`): ``NUMPY``, the reference, and
    ``TORCH`` (CPU or a CUDA device)."""

    NUMPY = "numpy"
    TORCH = "torch"


class CaseKind(Vocabulary):
    """The kinds of named case :func:`dpverify.cases.run_case` runs (:mod:`dpverify.cases.model`): a reference
    sampler's ``AUDIT`` on its worst known pair (the suite of ``dpverify verify``), a ``BENCHMARK`` mechanism of the
    standard suite (DP-Sniper / StatDP rows, with the pair's exact epsilon), a ``CORPUS`` case (a reported bug of a
    DP library) and a ``ONE_RUN`` audit (m canaries in one training run)."""

    AUDIT = "audit"
    BENCHMARK = "benchmark"
    CORPUS = "corpus"
    ONE_RUN = "one_run"


class RowKind(Vocabulary):
    """What a row of a report is; a row object knows its kind (``row.kind``), and code that must tell rows apart asks
    their type, never their keys. ``SUITE``: an audit case of the suite (:class:`dpverify.cases.CaseResult`);
    ``LIBRARY``: a library function's audit (:class:`dpverify.libraries.runner.LibraryResult`); ``CORPUS``: a reported
    bug's seeded check (:class:`dpverify.libraries.corpus.CorpusResult`); ``THEOREM``: a theorem's checks and proof
    (:class:`dpverify.interfaces.rows.TheoremRow`). (A row's kind is what the report shows; a case's kind,
    :class:`CaseKind`, is which catalogue it comes from.)"""

    SUITE = "suite"
    LIBRARY = "library"
    CORPUS = "corpus"
    THEOREM = "theorem"
