"""The auditor's closed vocabularies: verdict, mode, and the kinds of test ``audit(test=...)`` names.

Members are strings equal to their values (:class:`~dpverify.calculus.vocabulary.Vocabulary`): ``result.verdict ==
"violation"`` holds, JSON and reports print ``"violation"``, and a misspelt word is a ``ValueError`` naming the
allowed ones where it enters (:meth:`~dpverify.calculus.vocabulary.Vocabulary.parse`).
"""
from __future__ import annotations

from dpverify.calculus.vocabulary import Vocabulary

__all__ = ["Verdict", "Mode", "TestKind"]


class Verdict(Vocabulary):
    """What an audit concludes (:mod:`dpverify.audit.verdicts`)."""

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
