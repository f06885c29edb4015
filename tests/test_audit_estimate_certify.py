"""Stages 3 and 4 of the auditor: the estimation counts (dpverify.audit.estimate) and the certificate
(dpverify.audit.certify). The counts are recomputed from the same seeded chunks; the certificate from the bound,
ceiling and verdict functions it composes, on hand-made counts."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.audit.abilities import MechanismFacts, PairLoss
from dpverify.audit.bounds import epsilon_lower_bound
from dpverify.audit.ceiling import ceiling_from_masses, saturation
from dpverify.audit.certify import budget_ceiling, certify, event_bounds
from dpverify.audit.chunk_work import Progress
from dpverify.audit.estimate import EventCounts, count_events
from dpverify.audit.kinds import Verdict
from dpverify.audit.parallel import ChunkRunner
from dpverify.audit.plan import make_plan
from dpverify.audit.select import ChosenEvent, ChosenEvents, FittedStatistics, choose_events, fit_statistics
from dpverify.audit.split import ChunkSampler
from dpverify.audit.statistics import Statistic, ThresholdEvent, identity
from dpverify.calculus.accounting.pld import gaussian_pld
from dpverify.calculus.mechanism_description import PairPrivacyLoss

D0, D1 = np.array([0.0]), np.array([1.0])


def black_box_laplace(dataset, n, rng):
    return float(dataset[0]) + rng.laplace(0.0, 1.0, n)


def plan(**overrides):
    kwargs = dict(claim=None, epsilon=1.0, delta=None, samples=5_000, confidence=0.95, seed=7, test="auto",
                  selection_fraction=0.2, chunk_size=600, candidates=2, power_factor=2.0, mode="mathematical",
                  workers=1, fit_cap=1 << 20, threshold_sample=1 << 20)
    return make_plan(**{**kwargs, **overrides})


def chosen_of(events, statistic=None) -> ChosenEvents:
    """Hand-made chosen events on one statistic (the identity)."""
    stat = statistic or identity(None, None)
    fitted = FittedStatistics((stat,), (np.zeros(1),), ((np.zeros(3), np.ones(3)),), ((np.zeros(1), np.zeros(1)),), 1)
    return ChosenEvents(tuple(ChosenEvent(0, stat, e) for e in events), fitted)


@pytest.mark.parametrize("workers", [1, 2])
def test_estimation_counts_the_chosen_events_on_the_estimation_chunks_only(workers):
    p = plan()
    sampler = ChunkSampler(black_box_laplace, (D0, D1), p.split, p.seed)
    n_sel = len(sampler.selection_sizes)
    progress = []
    report = Progress(lambda done, total: progress.append(done), sampler.n_chunks)
    fitted = fit_statistics(sampler, p, black_box_laplace, D0, D1, report)
    with ChunkRunner(fitted.work(sampler), workers) as runner:
        chosen = choose_events(fitted, runner, p, None, n_sel, report)
        counts = count_events(chosen, runner, p, range(n_sel, sampler.n_chunks), report)
    assert progress == list(range(1, sampler.n_chunks + 1))  # every chunk reported once, in order of completion
    est = [sampler.chunk(j) for j in range(n_sel, sampler.n_chunks)]
    e0, e1 = np.concatenate([c[0] for c in est]), np.concatenate([c[1] for c in est])
    assert counts.n == e0.size == p.split.n_estimation == 4_000
    for j, (_, t) in enumerate(chosen.thresholds()):
        assert (counts.dataset[j], counts.neighbour[j]) == (np.sum(e0 >= t), np.sum(e1 >= t))
    assert counts.dataset.dtype == np.int64


def test_event_bounds_are_bonferroni_corrected_over_every_event_counted():
    events = [ThresholdEvent(0.5, False, False, 1.0), ThresholdEvent(0.2, True, True, 0.5),
              ThresholdEvent(0.1, False, False, 0.1)]
    counts = EventCounts(np.array([1_000, 2_900, 1_200]), np.array([2_500, 1_200, 1_500]), 4_000)
    p = plan(delta=1e-5)
    bounds = event_bounds(chosen_of(events), counts, p)
    expected = [float(epsilon_lower_bound(counts.dataset[j], 4_000, counts.neighbour[j], 4_000, delta=1e-5,
                                          alpha=0.05, orientation=e.orientation, candidates=3))
                for j, e in enumerate(events)]
    assert bounds == tuple(expected)
    one = event_bounds(chosen_of(events[:1]), EventCounts(counts.dataset[:1], counts.neighbour[:1], 4_000), p)
    assert one[0] > bounds[0] > 0  # the same event alone pays no Bonferroni share


def test_budget_ceiling_uses_the_users_candidates_and_reads_the_loss_once():
    p = plan(delta=1e-5, candidates=2)
    assert budget_ceiling(None, 4_000, p).value is None
    pld = gaussian_pld(1.0)
    loss = PairLoss.read(PairPrivacyLoss(pld, "exact Gaussian pair", exact=True))
    ceiling = budget_ceiling(loss, 4_000, p)
    losses, pp, qq, p_inf, q_inf = pld.masses()
    assert ceiling.value == ceiling_from_masses(losses, pp, qq, p_inf=p_inf, q_inf=q_inf, n=4_000, alpha=0.05,
                                                delta=1e-5, candidates=2)
    assert (ceiling.basis, ceiling.exact) == ("exact Gaussian pair", True)
    assert ceiling.saturation == saturation(4_000, alpha=0.05, delta=1e-5, candidates=2)


def test_certify_takes_the_best_event_and_judges_it():
    events = [ThresholdEvent(0.5, False, True, 1.0), ThresholdEvent(0.2, False, True, 0.5)]
    counts = EventCounts(np.array([3_000, 2_000]), np.array([300, 1_000]), 4_000)
    violation = certify(chosen_of(events), counts, plan(epsilon=1.0), MechanismFacts())
    assert violation.best == 0 and violation.epsilon_lower == max(violation.bounds) > 1.0
    assert violation.verdict is Verdict.VIOLATION and "not private as claimed" in violation.reason
    consistent = certify(chosen_of(events), counts, plan(epsilon=3.0), MechanismFacts())
    assert consistent.verdict is Verdict.CONSISTENT
    loose = certify(chosen_of(events), counts, plan(epsilon=5.0), MechanismFacts(exact_epsilon=2.2))
    assert loose.verdict is Verdict.INCONCLUSIVE and "exact epsilon" in loose.reason
    # issue 36: a certificate above the stated exact epsilon refutes that value (not "inconclusive")
    refuted = certify(chosen_of(events), counts, plan(epsilon=3.0), MechanismFacts(exact_epsilon=1.2))
    assert refuted.verdict is Verdict.VIOLATION and "stated exact epsilon 1.2" in refuted.reason


def test_implementation_mode_names_a_floating_point_violation():
    events = [ThresholdEvent(0.5, False, True, 1.0)]
    counts = EventCounts(np.array([3_000]), np.array([10]), 4_000)
    fp = Statistic("fp:reachable", "reachability", lambda x: x)
    found = certify(chosen_of(events, fp), counts, plan(epsilon=1.0, mode="implementation"), MechanismFacts())
    assert found.verdict is Verdict.VIOLATION and "floating-point leak" in found.reason
    plain = certify(chosen_of(events), counts, plan(epsilon=1.0, mode="implementation"), MechanismFacts())
    assert "floating-point" not in plain.reason
    math_mode = certify(chosen_of(events, fp), counts, plan(epsilon=1.0), MechanismFacts())
    assert "floating-point" not in math_mode.reason and not math.isnan(math_mode.epsilon_lower)
