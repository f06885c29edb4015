"""Stage 2 of an audit, the selection: which events to count, chosen on samples the certificate never sees.

Selection/estimation discipline of Ding et al. 2018 (CCS, Sec. 4) and Bichsel et al. 2021 (DP-Sniper, IEEE S&P):
everything here uses the selection part of the samples only (the first ``n_selection`` outputs per side,
:mod:`dpverify.audit.split`), so the events it returns are independent of the estimation counts and the
Clopper-Pearson certificate of :mod:`dpverify.audit.certify` is valid for any mechanism.

1. :func:`fit_statistics` draws the held part -- ``n_fit`` outputs per side, then the threshold sample
   (:class:`~dpverify.audit.plan.AuditPlan`) -- fits every candidate statistic (:func:`candidate_statistics`) on the
   fit outputs, fixes each statistic's candidate thresholds on the threshold sample and counts ``#{s >= t}`` there;
2. :func:`choose_events` adds the counts of the remaining scoring chunks (``runner``: this process, worker processes
   or a Dask cluster; integer counts only), scores the four orientations of every threshold by the epsilon lower bound
   they would certify (:func:`~dpverify.audit.statistics.best_events`) and keeps the ``candidates`` best
   (statistic, event) pairs, plus the pair's own privacy-loss event when its privacy loss is known exactly
   (:func:`privacy_loss_event`).

Candidate statistics (:func:`candidate_statistics`): a callable ``test`` is used alone; a named one
(:class:`~dpverify.audit.kinds.TestKind`) forces one statistic; ``auto`` takes the Neyman-Pearson statistic when the
mechanism knows it (a white-box ``log_likelihood_ratio``, else ``log_density``), otherwise every cheap proxy: the
output itself or a difference-of-means projection, the outcome frequencies of discrete outputs, a logistic classifier
and the vector statistics for vector outputs. Implementation mode adds the floating-point statistics of
:mod:`dpverify.audit.floating_point`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.audit.abilities import PairLoss, log_density_of, white_box_statistic_of
from dpverify.audit.ceiling import ceiling_event
from dpverify.audit.chunk_work import ChunkWork, Progress, score_chunk
from dpverify.audit.classifier import learned_log_odds
from dpverify.audit.events import is_discrete, outcome_log_ratio
from dpverify.audit.floating_point import implementation_statistics
from dpverify.audit.kinds import Mode, TestKind
from dpverify.audit.likelihood_ratio import DECIMALS, log_likelihood_ratio, whitebox_statistic
from dpverify.audit.plan import AuditPlan, Test
from dpverify.audit.split import ChunkSampler
from dpverify.audit.statistics import (
    DistinctRows,
    Statistic,
    ThresholdEvent,
    best_events,
    count_at_least,
    flatten,
    identity,
    mean_difference_projection,
    threshold_candidates,
)
from dpverify.audit.vector_statistics import additive_log_ratio, vector_candidates

__all__ = ["FittedStatistics", "ChosenEvent", "ChosenEvents", "candidate_statistics", "fit_statistics",
           "choose_events", "privacy_loss_event", "LOSS_STATISTICS"]

#: Statistics whose values are the privacy loss log dP_D/dP_D' itself (exactly, when the pair's law is known).
LOSS_STATISTICS = ("likelihood_ratio", "whitebox_llr")


def mathematical_statistics(test: Test, mechanism: Any, dataset: Any, neighbour: Any, f0: np.ndarray,
                            f1: np.ndarray, seed: int) -> list[Statistic]:
    """The statistics of the idealised mechanism (every mode), fitted on ``f0`` (outputs of M(D)) and ``f1``."""
    if callable(test):
        name = getattr(test, "__name__", "custom")
        return [Statistic(f"custom:{name}", f"{name}(x)", test)]
    scalar = flatten(f0[:1]).shape[1] == 1
    threshold = identity if scalar else mean_difference_projection
    log_density = log_density_of(mechanism)
    whitebox = white_box_statistic_of(mechanism) is not None
    if test == TestKind.THRESHOLD:
        return [threshold(f0, f1)]
    if test == TestKind.LIKELIHOOD_RATIO:
        if whitebox:
            return [whitebox_statistic(mechanism, dataset, neighbour)]
        if log_density is None:
            raise ValueError("test='likelihood_ratio' needs mechanism.log_density(dataset, outputs) or "
                             "mechanism.log_likelihood_ratio(dataset, neighbour)")
        return [log_likelihood_ratio(log_density, dataset, neighbour)]
    if test == TestKind.EVENTS:
        return [outcome_log_ratio(f0, f1)]
    if test == TestKind.CLASSIFIER:
        return [learned_log_odds(f0, f1, model="logistic", seed=seed)]
    if test == TestKind.BOOSTING:
        return [learned_log_odds(f0, f1, model="boosting", seed=seed)]
    if test == TestKind.ADDITIVE:
        return [additive_log_ratio(f0, f1, seed=seed)]
    # auto: the Neyman-Pearson statistic when densities are known; otherwise every cheap proxy.
    if whitebox:
        return [whitebox_statistic(mechanism, dataset, neighbour)]
    if log_density is not None:
        return [log_likelihood_ratio(log_density, dataset, neighbour)]
    found = [threshold(f0, f1)]
    if is_discrete(f0, f1):
        found.append(outcome_log_ratio(f0, f1))
    elif not scalar:
        found.append(learned_log_odds(f0, f1, model="logistic", seed=seed))
        found.extend(vector_candidates(f0, f1, seed=seed))
    return found


def candidate_statistics(plan: AuditPlan, mechanism: Any, dataset: Any, neighbour: Any, f0: np.ndarray,
                         f1: np.ndarray) -> list[Statistic]:
    """The statistics to try (module docstring), fitted on the fit samples ``f0`` (of M(D)) and ``f1`` (of M(D'))."""
    found = mathematical_statistics(plan.test, mechanism, dataset, neighbour, f0, f1, plan.seed)
    if plan.mode is Mode.IMPLEMENTATION:
        found = found + implementation_statistics(f0, f1, mechanism=mechanism, dataset=dataset, neighbour=neighbour,
                                                  seed=plan.seed)
    return found


@dataclass(frozen=True)
class FittedStatistics:
    """Step 1 of the selection: the fitted statistics, each one's candidate thresholds, its values on the threshold
    sample (kept for the report's trade-off curve), the counts ``#{s >= t}`` on the scoring outputs drawn so far,
    and how many chunks those came from."""

    statistics: tuple[Statistic, ...]
    thresholds: tuple[np.ndarray, ...]
    threshold_values: tuple[tuple[np.ndarray, np.ndarray], ...]
    score_counts: tuple[tuple[np.ndarray, np.ndarray], ...]
    chunks_drawn: int

    def work(self, sampler: ChunkSampler) -> ChunkWork:
        """The per-chunk work of the later chunks (scoring and estimation) for these statistics."""
        return ChunkWork(sampler, self.statistics, self.thresholds)


def fit_statistics(sampler: ChunkSampler, plan: AuditPlan, mechanism: Any, dataset: Any, neighbour: Any,
                   progress: Progress) -> FittedStatistics:
    """Draw the held part of the selection, fit the statistics, fix their thresholds (module docstring, step 1)."""
    n_fit, held = plan.n_fit, plan.held
    drawn, j_next = 0, 0
    parts: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    while drawn < held:
        c0, c1 = sampler.chunk(j_next)
        parts[0].append(c0)
        parts[1].append(c1)
        drawn += c0.shape[0]
        j_next += 1
        progress()
    sel0, sel1 = (np.concatenate(p) for p in parts)
    del parts
    statistics = tuple(candidate_statistics(plan, mechanism, dataset, neighbour, sel0[:n_fit], sel1[:n_fit]))
    r0, r1 = DistinctRows(sel0[n_fit:held]), DistinctRows(sel1[n_fit:held])
    values = tuple((r0.apply(stat), r1.apply(stat)) for stat in statistics)
    del r0, r1
    thresholds = tuple(threshold_candidates(s0, s1) for s0, s1 in values)
    counts = [(count_at_least(s0, t), count_at_least(s1, t)) for (s0, s1), t in zip(values, thresholds)]
    if sel0.shape[0] > held:  # the tail of the last chunk drawn: scored, not held for thresholds
        counts = _added(counts, score_chunk(statistics, thresholds, sel0[held:], sel1[held:]))
    return FittedStatistics(statistics, thresholds, values, tuple(counts), j_next)


def _added(counts: list[tuple[np.ndarray, np.ndarray]],
           found: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(k0 + a, k1 + b) for (k0, k1), (a, b) in zip(counts, found)]


@dataclass(frozen=True)
class ChosenEvent:
    """One event to count on the estimation part: ``statistic`` (the ``index``-th fitted one) and its threshold
    event."""

    index: int
    statistic: Statistic
    event: ThresholdEvent


@dataclass(frozen=True)
class ChosenEvents:
    """Step 2 of the selection: the events to count, best selection score first, the privacy-loss event (if any)
    last; and the fitted statistics they come from."""

    events: tuple[ChosenEvent, ...]
    fitted: FittedStatistics

    def __len__(self) -> int:
        return len(self.events)

    def thresholds(self) -> list[tuple[int, float]]:
        """``(statistic index, threshold)`` of each event: what :func:`~dpverify.audit.chunk_work.count_chunk`
        counts."""
        return [(chosen.index, chosen.event.threshold) for chosen in self.events]


def choose_events(fitted: FittedStatistics, runner: Any, plan: AuditPlan, privacy_loss: PairLoss | None,
                  first_estimation_chunk: int, progress: Progress) -> ChosenEvents:
    """Score the remaining selection chunks and keep the best events (module docstring, step 2)."""
    counts = list(fitted.score_counts)
    for found in runner.map([("score", j, None) for j in range(fitted.chunks_drawn, first_estimation_chunk)]):
        counts = _added(counts, found)
        progress()
    pool: list[ChosenEvent] = []
    for i, (stat, (k0, k1), t) in enumerate(zip(fitted.statistics, counts, fitted.thresholds)):
        pool.extend(ChosenEvent(i, stat, event) for event in best_events(k0, plan.n_score, k1, plan.n_score, t,
                                                                         delta=plan.delta, alpha=plan.alpha))
    pool.sort(key=lambda chosen: -chosen.event.score)
    chosen = pool[:plan.candidates]
    oracle = privacy_loss_event(pool, privacy_loss, plan.split.n_estimation, plan.alpha, plan.delta,
                                plan.candidates + 1)
    if oracle is not None:
        chosen.append(oracle)
    return ChosenEvents(tuple(chosen), fitted)


def privacy_loss_event(pool: list[ChosenEvent], privacy_loss: PairLoss | None, n: int, alpha: float, delta: float,
                       candidates: int) -> ChosenEvent | None:
    """The budget ceiling's own event, on a likelihood-ratio statistic, when the pair's privacy loss is known exactly.

    The ceiling's argmax ``{L >= t}`` (or ``{L <= t}``) is the Neyman-Pearson event with the best expected certificate
    at the estimation size (:func:`~dpverify.audit.ceiling.ceiling_event`); choosing it from the *known* law needs no
    selection sample, so it is free of the threshold-selection noise that makes small-epsilon audits pick lucky tail
    events. It is counted as one more candidate beside the data-driven ones (Bonferroni), so an implementation that
    departs from its description is still caught by the data-driven event. Its statistic is the best-scoring
    likelihood-ratio statistic of ``pool``. None when not applicable.
    """
    if privacy_loss is None or not privacy_loss.exact:
        return None
    stats = [chosen for chosen in pool if chosen.statistic.name in LOSS_STATISTICS]
    if not stats:
        return None
    losses, p, q, p_inf, q_inf = privacy_loss.masses
    value, t, p_high = ceiling_event(losses, p, q, p_inf=p_inf, q_inf=q_inf, n=n, alpha=alpha, delta=delta,
                                     candidates=candidates)
    if not value > 0 or not math.isfinite(t):
        return None
    if p_high:  # {s >= t}, more likely under M(dataset)
        event = ThresholdEvent(t, False, True, value)
    else:  # {s <= t} = not {s >= t+}, more likely under M(neighbour); the statistic is rounded to DECIMALS places
        event = ThresholdEvent(t + 10.0 ** -DECIMALS, True, False, value)
    return ChosenEvent(stats[0].index, stats[0].statistic, event)
