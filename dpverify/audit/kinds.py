"""The auditor's closed vocabularies: verdict, mode, and the kinds of test ``audit(test=...)`` names, defined in
:mod:`dpverify.vocabulary` with every other closed vocabulary of dpverify and re-exported here.

Members are strings equal to their values (:class:`~dpverify.vocabulary.Vocabulary`): ``result.verdict ==
"violation"`` holds, JSON and reports print ``"violation"``, and a misspelt word is a ``ValueError`` naming the
allowed ones where it enters (:meth:`~dpverify.vocabulary.Vocabulary.parse`).
"""
from __future__ import annotations

from dpverify.vocabulary import Mode, TestKind, Verdict

__all__ = ["Verdict", "Mode", "TestKind"]
