"""The record of one benchmark case: mechanism, witness pair, claim, exact pair epsilon, and what it is."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from dpverify.vocabulary import CaseKind, NeighbouringRelation

__all__ = ["BenchmarkCase", "ADJACENCIES"]

#: Short adjacency tags used by the suite (each case also states its relation in words, ``adjacency_text``): the
#: neighbouring relations of :class:`dpverify.vocabulary.NeighbouringRelation`, and the query-answer relations of the
#: DP-Sniper / StatDP benchmarks (answers that move by at most 1 in the named norm, monotonically, or one value).
ADJACENCIES = NeighbouringRelation.values() + ("linf_shift", "l1_shift", "monotone_shift", "value_change")


@dataclass(frozen=True)
class BenchmarkCase:
    """One audit target of the standard suite.

    ``mechanism`` follows the auditor protocol (:mod:`dpverify.audit.core`: ``mechanism(dataset, n, rng)``,
    ``log_density`` where the law is closed-form or tabulated, ``exact_epsilon(dataset, neighbour, delta)``).
    ``dataset``/``neighbour`` are the witness pair (for query mechanisms, the vectors of query answers, as in
    DP-Sniper and StatDP). ``epsilon_exact`` is computed (never typed in) for this pair at ``delta``: the largest
    ``log((P[S] - delta) / Q[S])`` over events S, both directions. ``private`` says whether the mechanism is
    ``epsilon_claimed``-DP for *every* pair of its adjacency; ``adjacency`` is a short tag
    (:data:`ADJACENCIES`) and ``adjacency_text`` the relation in words; ``source`` the paper and algorithm number;
    ``output`` one of "scalar", "discrete", "vector", "mixed" (discrete pattern with real values).
    """

    name: str
    mechanism: Any
    dataset: Any
    neighbour: Any
    epsilon_claimed: float
    delta: float
    epsilon_exact: float
    private: bool
    adjacency: str
    source: str
    output: str
    adjacency_text: str = ""
    #: DP-Sniper's published ratio certified/exact at 10^6 samples per side for this row (the issue's context
    #: table), None where not measured
    dpsniper_ratio: float | None = None
    notes: str = ""

    case_kind: ClassVar[CaseKind] = CaseKind.BENCHMARK

    @property
    def id(self) -> str:
        return self.name

    @property
    def title(self) -> str:
        return f"{self.source} ({'private' if self.private else 'not private'} for {self.adjacency})"
