"""Stage 3 of an audit, the estimation: count the chosen events on fresh samples.

The estimation part -- the last ``n_estimation`` outputs per side, drawn from chunks no earlier stage touched
(:mod:`dpverify.audit.split`) -- is drawn and counted chunk by chunk by ``runner`` (this process, worker processes or
a Dask cluster, :func:`dpverify.audit.chunk_work.runner_for`): each chunk is reduced to ``#{s_i >= t}`` on both sides
for each chosen event ``(i, t)`` (:func:`~dpverify.audit.chunk_work.count_chunk`), and the integer counts are summed.
Because the events were fixed before any of these samples was drawn, each event's two counts are Binomial(n, p) and
Binomial(n, q) given the events -- what the Clopper-Pearson bounds of :mod:`dpverify.audit.certify` need.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.audit.chunk_work import Progress
from dpverify.audit.plan import AuditPlan
from dpverify.audit.select import ChosenEvents

__all__ = ["EventCounts", "count_events"]


@dataclass(frozen=True)
class EventCounts:
    """``dataset[e]`` / ``neighbour[e]``: how many of the ``n`` estimation outputs of M(D) / M(D') have
    ``s_i >= t`` for chosen event ``e = (i, t)`` (the un-complemented set, whatever the event's orientation); after
    the events, the curve test's threshold (:meth:`~dpverify.audit.select.ChosenEvents.thresholds`)."""

    dataset: np.ndarray
    neighbour: np.ndarray
    n: int


def count_events(chosen: ChosenEvents, runner: Any, plan: AuditPlan, chunks: range,
                 progress: Progress) -> EventCounts:
    """The counts of the ``chosen`` events on the estimation chunks ``chunks`` (module docstring)."""
    events = chosen.thresholds()  # the chosen events, then the curve test's
    k0 = np.zeros(len(events), dtype=np.int64)
    k1 = np.zeros(len(events), dtype=np.int64)
    for found in runner.map([("count", j, events) for j in chunks]):
        k0 += found[0]
        k1 += found[1]
        progress()
    return EventCounts(k0, k1, plan.split.n_estimation)
