"""Stage 2 of the auditor, the selection (dpverify.audit.select): which statistics are fitted on what, the counts of
their candidate events, the events kept, and the privacy-loss event. Each check recomputes the stage's numbers
directly from the same seeded chunks, so no statistical tolerance is involved."""
from __future__ import annotations

import numpy as np
import pytest

from dpverify.audit.abilities import PairLoss
from dpverify.audit.ceiling import ceiling_event
from dpverify.audit.chunk_work import ChunkWork, Progress
from dpverify.audit.known_bad import ReportNoisyMax, gaussian_query, laplace_query
from dpverify.audit.likelihood_ratio import DECIMALS
from dpverify.audit.parallel import ChunkRunner
from dpverify.audit.plan import make_plan
from dpverify.audit.select import (
    LOSS_STATISTICS,
    candidate_statistics,
    choose_events,
    fit_statistics,
    privacy_loss_event,
)
from dpverify.audit.split import ChunkSampler
from dpverify.audit.statistics import best_events, count_at_least, threshold_candidates
from dpverify.calculus.accounting.pld import gaussian_pld
from dpverify.calculus.mechanism_description import PairPrivacyLoss

D0, D1 = np.array([0.0]), np.array([1.0])


def black_box_laplace(dataset, n, rng):
    return float(dataset[0]) + rng.laplace(0.0, 1.0, n)


def path(dataset, n, rng):
    return np.cumsum(float(dataset[0]) + rng.normal(size=(n, 3)), axis=1)


def plan(**overrides):
    kwargs = dict(claim=None, epsilon=1.0, delta=None, samples=6_000, confidence=0.95, seed=3, test="auto",
                  selection_fraction=0.2, chunk_size=500, candidates=1, power_factor=2.0, mode="mathematical",
                  workers=1, fit_cap=400, threshold_sample=300)
    return make_plan(**{**kwargs, **overrides})


def fitted_for(mechanism, p, d0=D0, d1=D1):
    sampler = ChunkSampler(mechanism, (d0, d1), p.split, p.seed)
    calls = []
    fitted = fit_statistics(sampler, p, mechanism, d0, d1, Progress(lambda *a: calls.append(a), sampler.n_chunks))
    return sampler, fitted, calls


@pytest.mark.parametrize("mechanism,overrides,names", [
    (black_box_laplace, {}, ["identity"]),
    # log_density: the declared Neyman-Pearson statistic, never alone (issue 21, section 4): beside the black-box ones
    (laplace_query(1.0), {}, ["likelihood_ratio", "identity"]),
    (laplace_query(1.0), {"test": "threshold"}, ["identity"]),
    (laplace_query(1.0), {"mode": "implementation"},
     ["likelihood_ratio", "identity", "fp:ulp_pattern", "fp:reachable", "likelihood_ratio:unrounded"]),
    (ReportNoisyMax(1.0), {}, ["identity", "events"]),  # discrete outputs
    (path, {}, ["projection", "classifier:logistic", "additive"]),  # vector outputs
])
def test_candidate_statistics_follow_the_mechanisms_abilities_and_the_test(mechanism, overrides, names):
    discrete = isinstance(mechanism, ReportNoisyMax)
    d0, d1 = (np.array([1.0, 1.0, 1.0]), np.array([0.0, 2.0, 2.0])) if discrete else (D0, D1)
    rng = np.random.default_rng(0)
    f0, f1 = mechanism(d0, 400, rng), mechanism(d1, 400, rng)
    found = [s.name for s in candidate_statistics(plan(**overrides), mechanism, d0, d1, f0, f1)]
    assert found[:len(names)] == names
    assert len(found) == len(names) or mechanism is path  # the vector candidates may add more


def test_likelihood_ratio_without_a_density_is_a_clear_error():
    rng = np.random.default_rng(0)
    f = black_box_laplace(D0, 10, rng)
    with pytest.raises(ValueError, match="log_density"):
        candidate_statistics(plan(test="likelihood_ratio"), black_box_laplace, D0, D1, f, f)


def test_fit_draws_the_held_part_and_counts_its_scoring_outputs():
    """1,200 selection outputs per side in chunks of 500: the fit (400) and threshold sample (300) need 700, so two
    chunks are drawn (1,000 outputs); the 300 after the held 700 are scored but do not fix thresholds."""
    p = plan()
    sampler, fitted, calls = fitted_for(black_box_laplace, p)
    assert (p.split.n_selection, p.n_fit, p.held) == (1_200, 400, 700)
    assert fitted.chunks_drawn == 2 and calls == [(1, sampler.n_chunks), (2, sampler.n_chunks)]
    c = [sampler.chunk(j) for j in range(2)]
    sel0, sel1 = np.concatenate([c[0][0], c[1][0]]), np.concatenate([c[0][1], c[1][1]])
    expected_thresholds = threshold_candidates(sel0[400:700], sel1[400:700])
    np.testing.assert_array_equal(fitted.thresholds[0], expected_thresholds)
    np.testing.assert_array_equal(fitted.threshold_values[0][0], sel0[400:700])
    k0, k1 = fitted.score_counts[0]
    np.testing.assert_array_equal(k0, count_at_least(sel0[400:], expected_thresholds))
    np.testing.assert_array_equal(k1, count_at_least(sel1[400:], expected_thresholds))


def test_chosen_events_are_the_best_scored_on_the_whole_scoring_part():
    p = plan(candidates=3)
    sampler, fitted, _ = fitted_for(black_box_laplace, p)
    n_sel = len(sampler.selection_sizes)
    with ChunkRunner(fitted.work(sampler), 1) as runner:
        chosen = choose_events(fitted, runner, p, None, n_sel, Progress(None, sampler.n_chunks))
    sel = [sampler.chunk(j) for j in range(n_sel)]
    s0 = np.concatenate([c[0] for c in sel])[p.n_fit:]
    s1 = np.concatenate([c[1] for c in sel])[p.n_fit:]
    t = fitted.thresholds[0]
    expected = best_events(count_at_least(s0, t), p.n_score, count_at_least(s1, t), p.n_score, t, delta=0.0,
                           alpha=0.05)[:3]
    # the same events from the same counts (scores equal up to their last bits: vectorised special functions over
    # candidate arrays); none repeats another, so all three are counted
    assert [(c.event.threshold, c.event.orientation) for c in chosen.events] == \
        [(e.threshold, e.orientation) for e in expected]
    assert [c.event.score for c in chosen.events] == pytest.approx([e.score for e in expected], rel=1e-12)
    assert [c.index for c in chosen.events] == [0, 0, 0] and len(chosen) == 3
    assert chosen.thresholds() == [(0, e.threshold) for e in expected]
    scores = [c.event.score for c in chosen.events]
    assert scores == sorted(scores, reverse=True)


def test_chunk_work_scores_and_counts_like_the_direct_computation():
    p = plan()
    sampler, fitted, _ = fitted_for(black_box_laplace, p)
    work = fitted.work(sampler)
    assert isinstance(work, ChunkWork)
    c0, c1 = sampler.chunk(3)
    (k0, k1), = work(("score", 3, None))
    np.testing.assert_array_equal(k0, count_at_least(c0, fitted.thresholds[0]))
    out = work(("count", 3, [(0, 0.5), (0, -1.0)]))
    expected = [[np.sum(c0 >= 0.5), np.sum(c0 >= -1.0)], [np.sum(c1 >= 0.5), np.sum(c1 >= -1.0)]]
    np.testing.assert_array_equal(out, expected)


GAUSS = gaussian_query(0.5, 1e-5, drop_log_factor=True)  # sigma = 2: mu = 0.5 on the pair 0 vs 1


def test_privacy_loss_event_is_the_ceilings_event_on_the_likelihood_ratio():
    p = plan(delta=1e-5, epsilon=1.0)
    sampler, fitted, _ = fitted_for(GAUSS, p)
    assert fitted.statistics[0].name in LOSS_STATISTICS
    with ChunkRunner(fitted.work(sampler), 1) as runner:
        loss = PairLoss.read(PairPrivacyLoss(gaussian_pld(0.5), "exact", exact=True))
        chosen = choose_events(fitted, runner, p, loss, len(sampler.selection_sizes), Progress(None, 99))
    # the best event of the selection, then the privacy-loss event: on a Gaussian pair the log-likelihood ratio is
    # linear in the output, so the best declared and the best black-box event are one set, counted once
    # (select.SelectionEvidence.distinct; test_audit_selection_evidence.py)
    assert len(chosen) == 2
    oracle = chosen.events[-1]
    value, t, p_high = ceiling_event(*loss.masses[:3], p_inf=loss.masses[3], q_inf=loss.masses[4],
                                     n=p.split.n_estimation, alpha=0.05, delta=1e-5, candidates=2)
    assert oracle.index == 0 and oracle.event.score == value
    if p_high:
        assert (oracle.event.threshold, oracle.event.orientation) == (t, (False, True))
    else:
        assert (oracle.event.threshold, oracle.event.orientation) == (t + 10.0 ** -DECIMALS, (True, False))


def test_no_privacy_loss_event_for_an_upper_bound_or_without_a_likelihood_ratio():
    p = plan(delta=1e-5)
    sampler, fitted, _ = fitted_for(GAUSS, p)
    with ChunkRunner(fitted.work(sampler), 1) as runner:
        bound = PairLoss.read(PairPrivacyLoss(gaussian_pld(0.5), "upper bound", exact=False))
        # no privacy-loss event: the best declared and the best black-box event, one set here (a Gaussian pair)
        assert len(choose_events(fitted, runner, p, bound, len(sampler.selection_sizes), Progress(None, 99))) == 1
    exact = PairLoss.read(PairPrivacyLoss(gaussian_pld(0.5), "exact", exact=True))
    assert privacy_loss_event([], exact, 1000, 0.05, 1e-5, 2) is None  # no likelihood-ratio statistic in the pool
