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
   (:func:`privacy_loss_event`);
3. :func:`choose_curve_test` picks, on the same selection counts, the threshold test of the curve-level
   certificate (:mod:`dpverify.audit.curve`) when the claim is a curve or a profile (Gaussian DP, a trade-off curve,
   a privacy profile, a PLD): over every statistic, the test that maximises the expected margin below the claimed
   curve. A point claim ((epsilon, delta), pure DP) has none: its curve is two lines, and a point below them is
   exactly an event bound above epsilon, so the event test already is its curve test (and its Bonferroni share is
   not spent twice).

Candidate statistics (:func:`candidate_statistics`): a callable ``test`` is used alone; a named one
(:class:`~dpverify.audit.kinds.TestKind`) forces one statistic; ``auto`` takes every cheap black-box proxy -- the
output itself or a difference-of-means projection, the outcome frequencies of discrete outputs, a logistic classifier
and the vector statistics for vector outputs, and for continuous outputs one side of which lies on a lower-dimensional
affine set or a few points, the distance to that set (:mod:`dpverify.audit.degenerate_statistics`, issue 38: the
final iterate of a DP-SGLD whose noise is shared by its coordinates; added only where the fit outputs show such a
side, so other audits keep their candidates) -- and, when the mechanism declares its Neyman-Pearson statistic (a
white-box ``log_likelihood_ratio``, else ``log_density``), that one *beside* them, never alone: a statistic computed
from the declared algorithm is blind to every way the code departs from the declaration (issue 21: a DP-SGLD whose
noise was broadcast over its coordinates was certified 0.12, "consistent", by its declared likelihood ratio alone, and
10.6 by a classifier). The selection chooses among all candidates on the selection part, so validity is unchanged;
the price is the selection noise of the extra candidates. A declared statistic the mechanism cannot give for this
pair (a ``ValueError`` from it, e.g. a release statistic on a pair that is not a verified canary) is left out in
``auto`` mode. When both kinds are candidates, the best event of each is counted on the estimation part
(:func:`both_kinds_counted`, at one more Bonferroni share), so the Neyman-Pearson statistic's power is kept too --
unless the selection ranks one clearly above the other (:class:`SelectionEvidence`: by more than three standard
errors of its estimate), and an event that is the same set as another on the selection outputs is counted once. Implementation mode adds the floating-point statistics of :mod:`dpverify.audit.floating_point`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from dpverify.backends import to_numpy
from dpverify.calculus.guarantees import ApproxDP, PureDP
from dpverify.calculus.tradeoff import GaussianDP
from dpverify.audit.abilities import PairLoss, log_density_of, white_box_statistic_of
from dpverify.audit.ceiling import ceiling_event
from dpverify.audit.chunk_work import ChunkWork, DeviceChunk, Progress, held_chunks, score_chunk
from dpverify.audit.classifier import learned_log_odds
from dpverify.audit.curve import CurveClaim, CurveTest, curve_claim, select_test
from dpverify.audit.degenerate_statistics import degenerate_candidates
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
    flatten,
    identity,
    mean_difference_projection,
    thresholds_and_counts,
)
from dpverify.audit.vector_statistics import additive_log_ratio, vector_candidates

__all__ = ["FittedStatistics", "ChosenEvent", "ChosenEvents", "CurveChoice", "candidate_statistics",
           "fit_statistics", "choose_events", "SelectionEvidence", "SAME_SET_FRACTION", "SEPARATION_SE",
           "choose_curve_test", "privacy_loss_event", "LOSS_STATISTICS"]

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
    # auto: every cheap black-box proxy, and the declared Neyman-Pearson statistic beside them (never alone).
    found = declared_statistics(mechanism, dataset, neighbour, whitebox=whitebox, log_density=log_density)
    found.append(threshold(f0, f1))
    if is_discrete(f0, f1):
        found.append(outcome_log_ratio(f0, f1))
        return found
    if not scalar:
        found.append(learned_log_odds(f0, f1, model="logistic", seed=seed))
        found.extend(vector_candidates(f0, f1, seed=seed))
    # a side whose law lies on a lower-dimensional affine set or a few points (issue 38); none for most outputs
    found.extend(degenerate_candidates(f0, f1))
    return found


def declared_statistics(mechanism: Any, dataset: Any, neighbour: Any, *, whitebox: bool,
                        log_density: Any) -> list[Statistic]:
    """The Neyman-Pearson statistic the mechanism declares for this pair: its white-box ``log_likelihood_ratio``,
    else the ratio of its ``log_density``; none when it declares neither, or when its white-box statistic is not
    available for this pair (a ``ValueError`` from the mechanism)."""
    if whitebox:
        try:
            return [whitebox_statistic(mechanism, dataset, neighbour)]
        except ValueError:
            pass
    if log_density is not None:
        return [log_likelihood_ratio(log_density, dataset, neighbour)]
    return []


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
                   progress: Progress, drawer: Any = None) -> FittedStatistics:
    """Draw the held part of the selection, fit the statistics, fix their thresholds (module docstring, step 1).
    ``drawer``: a runner of :class:`~dpverify.audit.chunk_work.DrawChunk` that draws the held chunks in workers
    (:func:`~dpverify.audit.chunk_work.held_drawer`), or None to draw them here."""
    n_fit, held = plan.n_fit, plan.held
    drawn, j_next = 0, 0
    parts: tuple[list[np.ndarray], list[np.ndarray]] = ([], [])
    if drawer is not None:  # numpy chunks drawn by the workers, put back in chunk order
        j_next = held_chunks(sampler, held)
        for j, c0, c1 in sorted(_reported(drawer.map(range(j_next)), progress), key=lambda got: got[0]):
            sampler.note_shape(c0, c1)
            parts[0].append(c0)
            parts[1].append(c1)
            drawn += c0.shape[0]
    # On another backend (:mod:`dpverify.backends`) the held outputs are also kept on the device, where the statistics
    # that take its arrays are evaluated, and the scored tail of the last chunk stays there.
    device_held: tuple[list[Any], list[Any]] = ([], [])
    device_tails: list[tuple[Any, Any]] = []
    while drawn < held:
        c0, c1 = sampler.chunk(j_next, on_device=True)
        size = c0.shape[0]
        if not isinstance(c0, np.ndarray):  # only the held outputs come to the host
            need = held - drawn
            if size > need:
                device_tails.append((c0[need:], c1[need:]))
            device_held[0].append(c0[:need])
            device_held[1].append(c1[:need])
            c0, c1 = to_numpy(c0[:need]), to_numpy(c1[:need])
        parts[0].append(c0)
        parts[1].append(c1)
        drawn += size
        j_next += 1
        progress()
    sel0, sel1 = (np.concatenate(p) for p in parts)
    del parts
    statistics = tuple(candidate_statistics(plan, mechanism, dataset, neighbour, sel0[:n_fit], sel1[:n_fit]))
    r0, r1 = DistinctRows(sel0[n_fit:held]), DistinctRows(sel1[n_fit:held])

    # evaluated there as the later chunks are (:class:`~dpverify.audit.chunk_work.DeviceChunk`), values to the host
    device_chunks = [[DeviceChunk(c) for c in side] for side in device_held]

    def held_values(stat: Statistic) -> tuple[np.ndarray, np.ndarray]:
        if device_chunks[0] and all(c.on_device(stat) for side in device_chunks for c in side):
            v0, v1 = (np.concatenate([to_numpy(c.apply(stat)) for c in side]) for side in device_chunks)
            return v0[n_fit:held], v1[n_fit:held]
        return r0.apply(stat), r1.apply(stat)

    values = tuple(held_values(stat) for stat in statistics)
    del r0, r1, device_held, device_chunks
    found = [thresholds_and_counts(s0, s1) for s0, s1 in values]  # candidates and their counts, one sort per side
    thresholds = tuple(t for t, _, _ in found)
    counts = [(k0, k1) for _, k0, k1 in found]
    if sel0.shape[0] > held:  # the tail of the last chunk drawn: scored, not held for thresholds
        counts = _added(counts, score_chunk(statistics, thresholds, sel0[held:], sel1[held:]))
    for t0, t1 in device_tails:  # the same tail on a device: scored there
        counts = _added(counts, score_chunk(statistics, thresholds, t0, t1))
    return FittedStatistics(statistics, thresholds, values, tuple(counts), j_next)


def _reported(results: Any, progress: Progress) -> Any:
    """``results`` passed on, ``progress()`` after each."""
    for result in results:
        progress()
        yield result


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
class CurveChoice:
    """Step 3 of the selection: the curve-level test (:class:`~dpverify.audit.curve.CurveTest`) on the ``index``-th
    fitted statistic, and the claim converted once (:class:`~dpverify.audit.curve.CurveClaim`; None when the claim
    has no curve to compare with)."""

    index: int
    statistic: Statistic
    test: CurveTest
    claim: CurveClaim | None


@dataclass(frozen=True)
class ChosenEvents:
    """Step 2 and 3 of the selection: the events to count, best selection score first, the privacy-loss event (if
    any) last; the curve-level test (counted after them); and the fitted statistics they come from."""

    events: tuple[ChosenEvent, ...]
    fitted: FittedStatistics
    curve: CurveChoice | None = None

    def __len__(self) -> int:
        return len(self.events)

    @property
    def tests(self) -> int:
        """How many tests share the confidence (Bonferroni): the events and the curve test."""
        return len(self.events) + (self.curve is not None)

    def thresholds(self) -> list[tuple[int, float]]:
        """``(statistic index, threshold)`` of each event, then of the curve test: what
        :func:`~dpverify.audit.chunk_work.count_chunk` counts (``#{s >= t}``)."""
        out = [(chosen.index, chosen.event.threshold) for chosen in self.events]
        if self.curve is not None:
            out.append((self.curve.index, self.curve.test.threshold))
        return out


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
    selection = SelectionEvidence(fitted, counts, plan.n_score, plan.delta)
    chosen = selection.distinct(both_kinds_counted(pool, pool[:plan.candidates], selection.ranks_above))
    curve_claim_ = _curve_claim(plan)
    tests = len(chosen) + 1 + (curve_claim_ is not None)  # the events, the privacy-loss event, the curve test
    oracle = privacy_loss_event(pool, privacy_loss, plan.split.n_estimation, plan.alpha, plan.delta, tests)
    if oracle is not None:
        chosen = selection.distinct(chosen + [oracle])
    curve = choose_curve_test(fitted, counts, plan, tests=len(chosen) + 1)
    return ChosenEvents(tuple(chosen), fitted, curve)


#: Two events differing on at most this fraction of the outputs in them (on each side of the threshold sample) are
#: counted as one (:meth:`SelectionEvidence.same_set`).
SAME_SET_FRACTION = 0.01
#: How many standard errors of the selection's estimate one event's score must lead another's by before the
#: selection is trusted to rank them (:meth:`SelectionEvidence.ranks_above`).
SEPARATION_SE = 3.0


class SelectionEvidence:
    """What the selection part says about the events it chose: their membership on the threshold sample
    (``fitted.threshold_values``) and their counts on all the scoring outputs (``counts``, ``n_score`` per side).
    Two uses, both of which only ever *drop* events from the estimation count, chosen from selection data alone -- so
    the certificate stays valid for any mechanism (Ding et al. 2018, Sec. 4: the events may be any function of samples
    the estimation never sees), and each event dropped gives its Bonferroni share back to the others:

    - :meth:`distinct`: an event that is (nearly) the same set as one kept before it -- the same orientation, and on
      each side of the threshold sample at most 1 % of its outputs differ (:data:`SAME_SET_FRACTION`) -- is counted
      once. A monotone transform of a statistic gives the same event up to where the two thresholds fall (the output
      itself and the likelihood ratio of a Laplace or report-noisy-max pair), and counting it twice only halved the
      confidence each got.
    - :meth:`ranks_above`: whether event ``a`` leads ``b`` on the scoring outputs by more than
      :data:`SEPARATION_SE` standard errors of the difference of their estimated epsilons (the delta method on the
      binomial frequencies: ``var = p_hi (1 - p_hi) / (n (p_hi - delta)^2) + (1 - p_lo) / (n p_lo)``) plus the
      winner's curse of ``a`` (chosen as the best of ``M`` thresholds and orientations on these outputs:
      ``sqrt(2 ln M)`` of its standard errors); :func:`both_kinds_counted` uses it to count the
      other kind's best event only where the two can be ranked.
    """

    def __init__(self, fitted: FittedStatistics, counts: list[tuple[np.ndarray, np.ndarray]], n_score: int,
                 delta: float):
        self.fitted = fitted
        self.counts = counts
        self.n_score = n_score
        self.delta = delta

    def _members(self, chosen: ChosenEvent) -> tuple[np.ndarray, np.ndarray]:
        """Which threshold-sample outputs of each side are in the event."""
        t, flip = chosen.event.threshold, chosen.event.complement
        return tuple((s >= t) != flip for s in self.fitted.threshold_values[chosen.index])  # type: ignore[return-value]

    def same_set(self, a: ChosenEvent, b: ChosenEvent) -> bool:
        """Whether ``a`` and ``b`` are the same event as far as the selection can see: the same orientation, and on each
        side of the threshold sample they differ on at most :data:`SAME_SET_FRACTION` of the outputs in the smaller
        (two thresholds a hair apart on a statistic and a monotone transform of it)."""
        if a.event.d_high != b.event.d_high:
            return False
        for m_a, m_b in zip(self._members(a), self._members(b)):
            differ = int(np.count_nonzero(m_a != m_b))
            if differ > SAME_SET_FRACTION * min(int(m_a.sum()), int(m_b.sum())):
                return False
        return True

    def distinct(self, chosen: list[ChosenEvent]) -> list[ChosenEvent]:
        """``chosen`` without the events that repeat an earlier kept one (:meth:`same_set`); order kept."""
        out: list[ChosenEvent] = []
        for c in chosen:
            if not any(self.same_set(kept, c) for kept in out):
                out.append(c)
        return out

    def scoring_estimate(self, chosen: ChosenEvent) -> tuple[float, float] | None:
        """The epsilon estimate ``log((p_hi - delta) / p_lo)`` of ``chosen`` from its counts on all the scoring outputs
        (``n_score`` per side) and its standard error (delta method); None where its threshold is not a fitted one,
        or a frequency is 0 or not above delta."""
        thresholds = self.fitted.thresholds[chosen.index]
        where = np.flatnonzero(thresholds == chosen.event.threshold)
        if where.size == 0:
            return None
        k0, k1 = (int(k[where[0]]) for k in self.counts[chosen.index])
        n = self.n_score
        if chosen.event.complement:
            k0, k1 = n - k0, n - k1
        k_hi, k_lo = (k0, k1) if chosen.event.d_high else (k1, k0)
        p_hi, p_lo = k_hi / n, k_lo / n
        if not (p_lo > 0 and p_hi > self.delta):
            return None
        se = math.sqrt(p_hi * (1 - p_hi) / (n * (p_hi - self.delta) ** 2) + (1 - p_lo) / (n * p_lo))
        return math.log((p_hi - self.delta) / p_lo), se

    def ranks_above(self, a: ChosenEvent, b: ChosenEvent) -> bool:
        """True when the selection clearly prefers ``a`` to ``b``: on the scoring outputs, ``a``'s estimate leads
        ``b``'s by more than :data:`SEPARATION_SE` standard errors of the difference (their errors taken as
        independent, which overstates the error of two events on the same outputs: the rule errs towards counting
        both) plus ``a``'s winner's curse. An event the scoring outputs cannot estimate is never ranked below: both
        are counted."""
        ea, eb = self.scoring_estimate(a), self.scoring_estimate(b)
        if ea is None or eb is None:
            return False
        # ``a`` won the argmax over its statistic's thresholds in four orientations on these same scoring outputs: its
        # estimate can be inflated by up to about sqrt(2 ln M) of its own errors (the winner's curse)
        curse = math.sqrt(2.0 * math.log(4 * max(1, self.fitted.thresholds[a.index].size))) * ea[1]
        return ea[0] - eb[0] > SEPARATION_SE * math.hypot(ea[1], eb[1]) + curse


def both_kinds_counted(pool: list[ChosenEvent], chosen: list[ChosenEvent],
                       ranks_above: Callable[[ChosenEvent, ChosenEvent], bool] | None = None) -> list[ChosenEvent]:
    """``chosen`` with, when the pool holds both, the best event of a declared likelihood-ratio statistic and the best
    of a black-box one, unless the selection ranks the chosen kind's best clearly above the other's
    (``ranks_above(best, other)``, :meth:`SelectionEvidence.ranks_above`): each is then counted on the estimation
    part (Bonferroni), so neither a lucky black-box event on the selection part costs the audit the Neyman-Pearson
    test's power, nor a declared statistic blind to the implementation's departures costs it the black-box
    statistics' view (module docstring). Where the selection separates them, the loser would not have won on the
    estimation part either, and its Bonferroni share goes back to the winner. ``ranks_above=None``: always both."""
    declared = [c for c in pool if c.statistic.name in LOSS_STATISTICS]
    black_box = [c for c in pool if c.statistic.name not in LOSS_STATISTICS]
    out = list(chosen)
    if declared and black_box and out:
        best = out[0]
        for kind, other in ((LOSS_STATISTICS, declared[0]), (None, black_box[0])):
            has_kind = any((c.statistic.name in LOSS_STATISTICS) == (kind is not None) for c in out)
            if has_kind:
                continue
            if ranks_above is not None and ranks_above(best, other):
                continue
            out.append(other)
    return out


def _curve_claim(plan: AuditPlan) -> CurveClaim | None:
    """The claim as a trade-off curve for the curve test, when it has one worth testing: curves, profiles and PLDs.
    Point claims ((epsilon, delta), pure DP) are left out: their curve test is the event test itself (their curve is
    two lines, and a point below a line is exactly an event bound above epsilon)."""
    if isinstance(plan.claim, (ApproxDP, PureDP)):
        return None
    try:
        return curve_claim(plan.claim)
    except (TypeError, ValueError):
        return None


def choose_curve_test(fitted: FittedStatistics, counts: list[tuple[np.ndarray, np.ndarray]], plan: AuditPlan, *,
                      tests: int) -> CurveChoice | None:
    """The curve-level test (module docstring, step 3) among every fitted statistic, from the selection counts
    ``counts`` (``#{s >= t}`` at each statistic's candidate thresholds); ``tests``: the Bonferroni count it will be
    certified with. None for a point claim, or when no statistic has thresholds."""
    claim = _curve_claim(plan)
    if claim is None:
        return None
    n = plan.split.n_estimation
    # a Gaussian-DP claim is refuted exactly when mu_lower exceeds its mu: select for mu_lower (which also makes the
    # reported mu_lower the largest the selection finds); any other curve: for the margin below it
    objective = None if isinstance(claim.guarantee, GaussianDP) else claim
    best: CurveChoice | None = None
    for i, (stat, (k0, k1), t) in enumerate(zip(fitted.statistics, counts, fitted.thresholds)):
        if np.size(t) == 0:
            continue
        test = select_test(k0, plan.n_score, k1, plan.n_score, t, n_dataset=n, n_neighbour=n, alpha=plan.alpha,
                           candidates=tests, claim=objective)
        if best is None or test.score > best.test.score:
            best = CurveChoice(i, stat, test, claim)
    return best


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
