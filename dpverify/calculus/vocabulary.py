"""The calculus' closed vocabularies (what a run releases, the neighbouring relation), defined in
:mod:`dpverify.vocabulary` with every other closed vocabulary of dpverify and re-exported here."""
from __future__ import annotations

from dpverify.vocabulary import NeighbouringRelation, Release, Vocabulary

__all__ = ["Vocabulary", "Release", "NeighbouringRelation"]
