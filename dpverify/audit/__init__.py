"""Empirical auditing: certified lower bounds on epsilon from distinguishing tests.

``audit(mechanism, dataset, neighbour, claim=ApproxDP(epsilon, delta), samples=..., confidence=..., seed=...)``
(or ``epsilon=..., delta=...`` for the same claim) samples the mechanism on an adjacent pair, chooses a
distinguishing event on one part of the samples and certifies ``epsilon_lower`` from Clopper-Pearson bounds on the
other (Ding et al. 2018, CCS; Jagielski et al. 2020, NeurIPS; Bichsel et al. 2021, IEEE S&P).

``audit`` (:mod:`.core`) is a composition of four stages, each a module with a small typed result:
:mod:`.plan` (validated parameters, the claim, the split and budgets: ``AuditPlan``), :mod:`.select` (statistics
fitted and events chosen on the selection part: ``ChosenEvents``), :mod:`.estimate` (their counts on the estimation
part: ``EventCounts``) and :mod:`.certify` (event bound, ceiling, verdict: ``Certificate``), assembled into an
``AuditResult`` (:mod:`.result`). What a mechanism can do besides sampling is a set of protocols (:mod:`.abilities`);
the verdict, mode and test kinds are enums (:mod:`.kinds`); :mod:`.chunk_work` is what one chunk is reduced to.

Other modules (one job each): :mod:`.bounds`
(Clopper-Pearson, epsilon from counts), :mod:`.split` (seeded chunked sampling, selection/estimation
split), :mod:`.statistics` (threshold tests, projections), :mod:`.likelihood_ratio`,
:mod:`.events` (discrete outputs), :mod:`.classifier` (learned test), :mod:`.exact` (exact pair
epsilon by quadrature), :mod:`.datasets` (adjacent pairs, hypothesis strategies), :mod:`.search`
(worst-case pair search), :mod:`.known_bad` (reference and deliberately wrong mechanisms), :mod:`.parallel`
(chunks counted in local worker processes, ``audit(workers=N)``), :mod:`.distributed` (chunks counted as tasks on a
Dask cluster, ``audit(client=...)``; the optional ``distributed`` extra, imported only when used).

Example (Laplace with half the noise it needs, claimed 1-DP)::

    >>> import numpy as np
    >>> from dpverify.audit import audit
    >>> from dpverify.audit.known_bad import laplace_query
    >>> r = audit(laplace_query(1.0, noise_factor=0.5), np.array([0.0]), np.array([1.0]),
    ...           epsilon=1.0, samples=100_000, seed=1)
    >>> r.verdict, round(r.epsilon_lower, 2), r.epsilon_exact
    ('violation', 1.98, 2.0)
"""
from dpverify.audit.bounds import epsilon_lower_bound
from dpverify.audit.core import AuditResult, audit, run_audit
from dpverify.audit.options import AuditQuestion, Execution
from dpverify.audit.datasets import add_one, adjacent_pairs, check_adjacent, remove_one, replace_one

__all__ = [
    "audit",
    "run_audit",
    "AuditQuestion",
    "Execution",
    "AuditResult",
    "epsilon_lower_bound",
    "check_adjacent",
    "replace_one",
    "add_one",
    "remove_one",
    "adjacent_pairs",
]
