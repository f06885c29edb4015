"""``audit``: a certified lower bound on the epsilon of a mechanism on one adjacent pair.

Method (each step is one module, see :mod:`dpverify.audit`):

1. draw ``samples`` outputs of M(dataset) and M(neighbour), seeded and in chunks
   (:mod:`.split`);
2. on the selection part, fit every candidate scalar statistic on its first half (at most ``fit_cap`` outputs per
   side) and choose the threshold event maximising the epsilon lower bound on the rest
   (:mod:`.statistics`, :mod:`.likelihood_ratio`, :mod:`.events`, :mod:`.classifier`): the candidate thresholds
   come from the first ``threshold_sample`` scoring outputs per side, the counts of every candidate event from the
   whole scoring part, accumulated chunk by chunk;
   keep the ``candidates`` best (statistic, event, orientation) triples (default 1);
3. on the estimation part (never seen by step 2) count those events on both sides;
4. certify ``epsilon_lower = max(0, log((L_hi - delta) / U_lo))`` from two one-sided
   Clopper-Pearson bounds at alpha/(2 candidates) each, alpha = 1 - confidence, maximised over
   the candidates (Bonferroni; :mod:`.bounds`). The orientation (event or complement, which side is
   high) was fixed by the selection, so two one-sided bounds per candidate suffice;
5. beside the certificate, what it is compared with: the exact pair epsilon (closed form, when known), the
   accountant's epsilon of the run (an upper bound; exact for path outputs up to its error), and the budget
   ceiling -- the most any event-based audit could certify on this pair with these samples
   (:mod:`.ceiling`) -- which decides whether "no violation" means "consistent" or "inconclusive at this
   budget" (:mod:`.verdicts`).

With probability >= ``confidence`` (over the estimation samples), ``epsilon_lower`` is at most the
smallest epsilon for which M is (epsilon, delta)-DP on this pair -- hence at most the exact pair
epsilon and, if the claim is right, at most the claimed epsilon. The verdict is "violation"
exactly when ``epsilon_lower > epsilon_claimed`` (Ding et al. 2018; Jagielski et al. 2020).

The mechanism protocol (all optional besides the call): ``mechanism(dataset, n, rng)`` returns n outputs on axis
0; ``log_density(dataset, outputs)`` (normalised log density, enables the Neyman-Pearson test);
``log_likelihood_ratio(dataset, neighbour)`` (a white-box statistic ``outputs -> log p_D - log p_D'``, used the
same way, e.g. a chain's per-step mixture likelihood ratio); ``exact_epsilon(dataset, neighbour, delta)``;
``account(delta)`` (the accountant's epsilon, a :class:`~dpverify.calculus.guarantees.Conversion`);
``pair_privacy_loss(dataset, neighbour)`` (an object whose ``masses()`` returns the privacy-loss masses
``(losses, p, q, p_inf, q_inf)`` of the pair, whose ``basis`` says what it is and ``exact`` whether it is the pair's
own law or an upper bound on it, e.g. :class:`~dpverify.calculus.mechanism_description.PairPrivacyLoss`; for the budget
ceiling).

Memory and processes: besides at most ``fit_cap + threshold_sample`` outputs per side held for fitting and fixing the
candidate thresholds, only one chunk per side and per process is in memory at a time, whatever ``samples`` is. With
``workers > 1`` the chunks after the fit (scoring and estimation) are drawn, evaluated and counted in worker processes
that return integer counts only (:mod:`.parallel`); every chunk has its own seed and the counts are summed, so the
result is bit-identical for any number of workers. With ``client`` (a ``dask.distributed.Client``) the same chunks are
drawn and counted as tasks on the Dask cluster (:mod:`.distributed`), with the same numbers again.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import numpy as np

from dpverify.calculus.guarantees import ApproxDP
from dpverify.validation import check_delta, check_epsilon, check_positive_int, check_probability, check_real
from dpverify.audit.bounds import epsilon_lower_bound
from dpverify.audit.ceiling import ceiling_event, ceiling_from_masses, saturation
from dpverify.audit.classifier import learned_log_odds
from dpverify.audit.datasets import check_adjacent
from dpverify.audit.events import is_discrete, outcome_log_ratio
from dpverify.audit.likelihood_ratio import DECIMALS, log_likelihood_ratio, whitebox_statistic
from dpverify.audit.parallel import ChunkRunner, check_workers
from dpverify.audit.split import (
    DEFAULT_CHUNK_SIZE,
    DEFAULT_SELECTION_FRACTION,
    FIT_CAP,
    THRESHOLD_SAMPLE,
    ChunkSampler,
    SplitPlan,
)
from dpverify.audit.statistics import (
    Statistic,
    ThresholdEvent,
    best_events,
    DistinctRows,
    count_at_least,
    flatten,
    identity,
    mean_difference_projection,
    threshold_candidates,
)
from dpverify.audit.tradeoff import tradeoff_curve
from dpverify.audit.vector_statistics import additive_log_ratio, vector_candidates
from dpverify.audit.verdicts import POWER_FACTOR, verdict_reason

__all__ = ["AuditResult", "audit", "TESTS"]

#: Names accepted by ``audit(test=...)`` besides "auto" and a callable statistic.
TESTS = ("threshold", "likelihood_ratio", "events", "classifier", "boosting", "additive")

#: Names accepted by ``audit(mode=...)``: "mathematical" audits the idealised mechanism (the log-likelihood ratio is
#: rounded, :mod:`.likelihood_ratio`); "implementation" also looks for floating-point artefacts of the code that
#: runs (:mod:`.floating_point`; Mironov 2012).
MODES = ("mathematical", "implementation")


@dataclass(frozen=True)
class AuditResult:
    """Outcome of one audit. ``counts`` holds the raw numbers the bound is computed from (for the
    event that gave ``epsilon_lower``); ``candidates`` every event evaluated on the estimation
    samples, with its selection score, counts and (Bonferroni-corrected) bound."""

    epsilon_lower: float
    epsilon_claimed: float
    delta: float
    epsilon_exact: float | None
    verdict: str
    samples: int
    confidence: float
    seed: int
    test: str
    event: str
    counts: dict = field(default_factory=dict)
    candidates: tuple = field(default_factory=tuple)
    wall_time: float = 0.0
    tradeoff: dict = field(default_factory=dict)
    #: why the verdict is what it is (one sentence, :mod:`dpverify.audit.verdicts`)
    verdict_reason: str = ""
    #: the accountant's epsilon of the run at ``delta`` (an upper bound on the pair's epsilon) and its method
    epsilon_accountant: float | None = None
    accountant_method: str = ""
    #: the most any event-based audit could certify on this pair with these samples (:mod:`.ceiling`)
    budget_ceiling: float | None = None
    ceiling_basis: str = ""
    #: True when the ceiling comes from the pair's own privacy loss; False when from an upper bound on it (the
    #: mechanism's worst case, or the path for a final release): then it can only prove an audit inconclusive
    ceiling_exact: bool = False
    #: the most any pair at all could be certified with these samples
    saturation: float | None = None
    #: "mathematical" or "implementation" (:data:`MODES`)
    mode: str = "mathematical"

    @property
    def claimed(self):
        """The guarantee this audit tests, as the calculus' :class:`~dpverify.calculus.guarantees.ApproxDP`
        (``epsilon_claimed`` at ``delta``)."""
        return ApproxDP(self.epsilon_claimed, self.delta)

    @property
    def is_violation(self) -> bool:
        return self.verdict == "violation"

    @property
    def exceeds_exact(self) -> bool:
        """True if the certified bound is above the exact pair epsilon (rare by chance, at most
        1 - confidence of the time; systematically, a bug in the auditor)."""
        return self.epsilon_exact is not None and self.epsilon_lower > self.epsilon_exact

    @property
    def detectable_factor(self) -> float | None:
        """claim / budget ceiling: how many times more than the audited run an implementation must leak for this
        budget to flag it (None when the ceiling is unknown)."""
        if self.budget_ceiling is None:
            return None
        return float("inf") if self.budget_ceiling <= 0 else self.epsilon_claimed / self.budget_ceiling

    def to_dict(self) -> dict:
        out = asdict(self)
        out["detectable_factor"] = self.detectable_factor
        return out


def _candidate_statistics(test, mechanism, dataset, neighbour, f0, f1, seed, mode="mathematical") -> list[Statistic]:
    """The statistics to try, fitted on the fit samples ``f0`` (of M(D)) and ``f1`` (of M(D')); in implementation
    mode, plus the floating-point statistics of :mod:`.floating_point`."""
    found = _mathematical_statistics(test, mechanism, dataset, neighbour, f0, f1, seed)
    if mode == "implementation":
        from dpverify.audit.floating_point import implementation_statistics

        found = found + implementation_statistics(f0, f1, mechanism=mechanism, dataset=dataset, neighbour=neighbour,
                                                  seed=seed)
    return found


def _mathematical_statistics(test, mechanism, dataset, neighbour, f0, f1, seed) -> list[Statistic]:
    """The statistics of the idealised mechanism (every mode)."""
    if callable(test):
        name = getattr(test, "__name__", "custom")
        return [Statistic(f"custom:{name}", f"{name}(x)", test)]
    scalar = flatten(f0[:1]).shape[1] == 1
    threshold = identity if scalar else mean_difference_projection
    has_density = callable(getattr(mechanism, "log_density", None))
    whitebox = callable(getattr(mechanism, "log_likelihood_ratio", None))
    if test == "threshold":
        return [threshold(f0, f1)]
    if test == "likelihood_ratio":
        if whitebox:
            return [whitebox_statistic(mechanism, dataset, neighbour)]
        if not has_density:
            raise ValueError("test='likelihood_ratio' needs mechanism.log_density(dataset, outputs) or "
                             "mechanism.log_likelihood_ratio(dataset, neighbour)")
        return [log_likelihood_ratio(mechanism.log_density, dataset, neighbour)]
    if test == "events":
        return [outcome_log_ratio(f0, f1)]
    if test == "classifier":
        return [learned_log_odds(f0, f1, model="logistic", seed=seed)]
    if test == "boosting":
        return [learned_log_odds(f0, f1, model="boosting", seed=seed)]
    if test == "additive":
        return [additive_log_ratio(f0, f1, seed=seed)]
    # auto: the Neyman-Pearson statistic when densities are known; otherwise every cheap proxy.
    if whitebox:
        return [whitebox_statistic(mechanism, dataset, neighbour)]
    if has_density:
        return [log_likelihood_ratio(mechanism.log_density, dataset, neighbour)]
    found = [threshold(f0, f1)]
    if is_discrete(f0, f1):
        found.append(outcome_log_ratio(f0, f1))
    elif not scalar:
        found.append(learned_log_odds(f0, f1, model="logistic", seed=seed))
        found.extend(vector_candidates(f0, f1, seed=seed))
    return found


#: Statistics whose values are the privacy loss log dP_D/dP_D' itself (exactly, when the pair's law is known).
_LOSS_STATISTICS = ("likelihood_ratio", "whitebox_llr")


def _privacy_loss_event(pool, privacy_loss, n: int, alpha: float, delta: float, candidates: int):
    """The budget ceiling's own event, on a likelihood-ratio statistic, when the pair's privacy loss is known exactly.

    The ceiling's argmax ``{L >= t}`` (or ``{L <= t}``) is the Neyman-Pearson event with the best expected certificate
    at the estimation size; choosing it from the *known* law needs no selection sample, so it is free of the
    threshold-selection noise that makes small-epsilon audits pick lucky tail events. It is counted as one more
    candidate beside the data-driven one (Bonferroni), so an implementation that departs from its description is
    still caught by the data-driven event. None when not applicable.
    """
    if privacy_loss is None or not getattr(privacy_loss, "exact", False):
        return None
    stats = [stat for stat, _ in pool if stat.name in _LOSS_STATISTICS]
    if not stats:
        return None
    losses, p, q, p_inf, q_inf = privacy_loss.masses()
    value, t, p_high = ceiling_event(losses, p, q, p_inf=p_inf, q_inf=q_inf, n=n, alpha=alpha, delta=delta,
                                     candidates=candidates)
    if not value > 0 or not math.isfinite(t):
        return None
    if p_high:  # {s >= t}, more likely under M(dataset)
        event = ThresholdEvent(t, False, True, value)
    else:  # {s <= t} = not {s >= t+}, more likely under M(neighbour); the statistic is rounded to DECIMALS places
        event = ThresholdEvent(t + 10.0 ** -DECIMALS, True, False, value)
    return stats[0], event


def _runner(work: Callable[[Any], Any], workers: int, client: Any):
    """Where the chunks after the fit run: the Dask cluster of ``client`` if given, else :class:`ChunkRunner`."""
    if client is not None:
        from dpverify.audit.distributed import DaskRunner

        return DaskRunner(work, client)
    return ChunkRunner(work, workers)


def audit(
    mechanism: Callable,
    dataset: Any,
    neighbour: Any,
    *,
    epsilon: float,
    delta: float = 0.0,
    samples: int = 100_000,
    confidence: float = 0.95,
    seed: int = 0,
    test: str | Callable = "auto",
    exact_epsilon: float | None = None,
    selection_fraction: float = DEFAULT_SELECTION_FRACTION,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    candidates: int = 1,
    adjacency: str | None = None,
    accountant: Any = None,
    privacy_loss: Any = None,
    power_factor: float = POWER_FACTOR,
    progress: Callable[[int, int], None] | None = None,
    mode: str = "mathematical",
    workers: int = 1,
    fit_cap: int = FIT_CAP,
    threshold_sample: int = THRESHOLD_SAMPLE,
    client: Any = None,
) -> AuditResult:
    """Certify a lower bound on the epsilon of ``mechanism`` on the pair (dataset, neighbour).

    Parameters: ``mechanism(dataset, n, rng) -> array`` with n outputs on axis 0 (optional
    ``log_density``, ``exact_epsilon`` attributes: the module docstring's protocol); ``epsilon``/``delta`` the
    claimed guarantee (delta is also used in the bound); ``samples`` outputs per side (a fraction
    ``selection_fraction`` of them choose the test, the rest certify); ``confidence`` = 1 - alpha;
    ``seed`` the root of the SeedSequence tree (:mod:`.split`); ``test`` one of "auto",
    "threshold" (identity for scalars, difference-of-means projection for vectors),
    "likelihood_ratio", "events", "classifier" (logistic), "boosting", or a callable scalar
    statistic ``s(outputs) -> (n,)``; ``exact_epsilon`` the known pair epsilon (else taken from
    ``mechanism.exact_epsilon(dataset, neighbour, delta)`` if present); ``candidates`` how many
    of the best selected events (over statistics and the four orientations) are counted on the
    estimation samples -- the bound is their maximum, each at alpha/candidates (Bonferroni).
    ``samples`` must be >= 4 (two per side for fitting and two for scoring the test).
    ``adjacency`` ("replace", "add_remove" or "either"): if given, the pair is first checked with
    :func:`dpverify.audit.datasets.check_adjacent` (a non-adjacent pair is a ``ValueError`` saying
    why); ``None`` audits any pair (e.g. query-answer vectors with their own neighbouring relation).
    ``accountant``: the accountant's (epsilon, delta) of the run, a :class:`~dpverify.calculus.guarantees.Conversion`
    (else ``mechanism.account(delta)`` if present); ``privacy_loss``: the pair's privacy-loss masses for the
    budget ceiling (else ``mechanism.pair_privacy_loss(dataset, neighbour)`` if present; see the module
    docstring); ``power_factor``: see :mod:`dpverify.audit.verdicts`; ``progress(done, total)`` is called after
    every chunk of samples drawn and counted (both sides count as one chunk; with workers, in the parent as the
    chunks complete, ``done`` running from 1 to ``total``). ``mode``: "mathematical" (default) audits the
    idealised mechanism; "implementation" also tries statistics aimed at floating-point artefacts of the outputs
    (:data:`MODES`, :mod:`.floating_point`).
    ``workers``: processes that draw and count the chunks after the fit (:mod:`.parallel`; the numbers do not depend
    on it). ``fit_cap``: at most this many outputs per side fit the statistics; ``threshold_sample``: at most this many
    scoring outputs per side fix the candidate thresholds (both bound the memory; below them the audit is the
    unbounded one).
    ``client``: a ``dask.distributed.Client``; the chunks after the fit are then drawn and counted as tasks on its
    cluster, which return integer counts only (:mod:`.distributed`; needs the ``distributed`` extra; the numbers
    equal those of ``workers=1``). ``client`` and ``workers > 1`` together are a ``ValueError``.

    The method is the module docstring's; the returned bound holds with probability >= confidence.
    """
    start = time.perf_counter()
    if not callable(mechanism):
        raise TypeError(f"mechanism must be callable as mechanism(dataset, n, rng); got {type(mechanism).__name__}")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    samples = check_positive_int(samples, "samples", minimum=4)
    confidence = check_probability(confidence, "confidence", open_low=True, open_high=True)
    seed = check_positive_int(seed, "seed", minimum=0)
    selection_fraction = check_probability(selection_fraction, "selection_fraction", open_low=True, open_high=True)
    chunk_size = check_positive_int(chunk_size, "chunk_size")
    candidates = check_positive_int(candidates, "candidates")
    workers = check_workers(workers)
    fit_cap = check_positive_int(fit_cap, "fit_cap")
    threshold_sample = check_positive_int(threshold_sample, "threshold_sample")
    if client is not None:
        from dpverify.audit.distributed import check_client

        check_client(client)
        if workers > 1:
            raise ValueError(f"client and workers={workers} together: with a Dask client the cluster's workers draw "
                             "the chunks; leave workers at 1")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}; got {mode!r}")
    if not callable(test) and test != "auto" and test not in TESTS:
        raise ValueError(f"test must be 'auto', one of {TESTS}, or a callable statistic; got {test!r}")
    if exact_epsilon is None and callable(getattr(mechanism, "exact_epsilon", None)):
        exact_epsilon = mechanism.exact_epsilon(dataset, neighbour, delta)
    if exact_epsilon is not None:
        exact_epsilon = check_real("exact_epsilon", exact_epsilon, low=0.0, allow_inf=True)
    power_factor = check_real("power_factor", power_factor, low=1.0)
    if accountant is None and callable(getattr(mechanism, "account", None)):
        accountant = mechanism.account(delta)
    if privacy_loss is None and callable(getattr(mechanism, "pair_privacy_loss", None)):
        privacy_loss = mechanism.pair_privacy_loss(dataset, neighbour)
    if adjacency is not None:
        check_adjacent(dataset, neighbour, adjacency)
    alpha = 1.0 - confidence

    plan = SplitPlan.make(samples, selection_fraction, chunk_size)
    sampler = ChunkSampler(mechanism, (dataset, neighbour), plan, seed)
    total = sampler.n_chunks
    done = [0]

    def report(k: int = 1) -> None:
        done[0] += k
        if progress is not None:
            progress(done[0], total)

    # Selection, held part: the fit outputs and the threshold sample (bounded by fit_cap + threshold_sample).
    n_fit = min(plan.n_selection // 2, fit_cap)
    n_score = plan.n_selection - n_fit
    held = n_fit + min(n_score, threshold_sample)
    drawn, j_next, parts = 0, 0, ([], [])
    while drawn < held:
        c0, c1 = sampler.chunk(j_next)
        parts[0].append(c0)
        parts[1].append(c1)
        drawn += c0.shape[0]
        j_next += 1
        report()
    sel0, sel1 = (np.concatenate(p) for p in parts)
    del parts
    f0, f1 = sel0[:n_fit], sel1[:n_fit]
    v0, v1 = sel0[n_fit:held], sel1[n_fit:held]
    rest0, rest1 = sel0[held:], sel1[held:]  # the tail of the last chunk drawn: scored, not held for thresholds

    # Selection: every statistic fitted on (f0, f1); candidate thresholds from (v0, v1); counts over all scoring outputs.
    statistics = _candidate_statistics(test, mechanism, dataset, neighbour, f0, f1, seed, mode)
    del f0, f1
    r0, r1 = DistinctRows(v0), DistinctRows(v1)
    sample_values = [(r0.apply(stat), r1.apply(stat)) for stat in statistics]
    del v0, v1, r0, r1
    thresholds = [threshold_candidates(s0, s1) for s0, s1 in sample_values]
    k_score = [[count_at_least(s0, t), count_at_least(s1, t)] for (s0, s1), t in zip(sample_values, thresholds)]

    def score_counts(c0: np.ndarray, c1: np.ndarray) -> list:
        r0, r1 = DistinctRows(c0), DistinctRows(c1)  # each chunk prepared once for all statistics
        return [(count_at_least(r0.apply(stat), t), count_at_least(r1.apply(stat), t))
                for stat, t in zip(statistics, thresholds)]

    def add_scores(found: list) -> None:
        for acc, (a, b) in zip(k_score, found):
            acc[0] += a
            acc[1] += b

    if rest0.shape[0]:
        add_scores(score_counts(rest0, rest1))
    del sel0, sel1, rest0, rest1

    def work(task: tuple) -> Any:
        """One chunk: drawn, evaluated and reduced to integer counts (run in a worker process when workers > 1)."""
        kind, j, events = task
        c0, c1 = sampler.chunk(j)
        if kind == "score":
            return score_counts(c0, c1)
        values: dict = {}
        r0, r1 = DistinctRows(c0), DistinctRows(c1)
        out = np.zeros((2, len(events)), dtype=np.int64)
        for e, (i, threshold) in enumerate(events):
            if i not in values:  # each statistic evaluated once per chunk
                values[i] = (r0.apply(statistics[i]), r1.apply(statistics[i]))
            out[0, e] = np.count_nonzero(values[i][0] >= threshold)
            out[1, e] = np.count_nonzero(values[i][1] >= threshold)
        return out

    n_sel_chunks = len(sampler.selection_sizes)
    remaining = total - j_next
    with _runner(work, workers if remaining > 1 else 1, client) as runner:
        for found in runner.map([("score", j, None) for j in range(j_next, n_sel_chunks)]):
            add_scores(found)
            report()

        pool = []
        for stat, (k0s, k1s), t in zip(statistics, k_score, thresholds):
            pool.extend((stat, event) for event in best_events(k0s, n_score, k1s, n_score, t, delta=delta, alpha=alpha))
        pool.sort(key=lambda pair: -pair[1].score)
        chosen = pool[:candidates]
        oracle = _privacy_loss_event(pool, privacy_loss, plan.n_estimation, alpha, delta, candidates + 1)
        if oracle is not None:
            chosen.append(oracle)

        # Estimation: count the chosen events on fresh samples.
        index = {id(stat): i for i, stat in enumerate(statistics)}
        events = [(index[id(stat)], event.threshold) for stat, event in chosen]
        k0 = np.zeros(len(chosen), dtype=np.int64)
        k1 = np.zeros(len(chosen), dtype=np.int64)
        for found in runner.map([("count", j, events) for j in range(n_sel_chunks, total)]):
            k0 += found[0]
            k1 += found[1]
            report()
    n = plan.n_estimation
    bounds = [float(epsilon_lower_bound(k0[j], n, k1[j], n, delta=delta, alpha=alpha,
                                        orientation=event.orientation, candidates=len(chosen)))
              for j, (_, event) in enumerate(chosen)]
    best = int(np.argmax(bounds))
    stat, event = chosen[best]
    eps_lower = bounds[best]

    def in_event(k: int) -> int:
        return int(n - k) if event.complement else int(k)

    counts = {
        "dataset_in_event": in_event(k0[best]),
        "neighbour_in_event": in_event(k1[best]),
        "n_estimation": n,
        "n_selection": plan.n_selection,
    }
    evaluated = tuple(
        {"test": st_.name, "event": ev.describe(st_), "selection_score": ev.score,
         "dataset_in_event": n - int(k0[j]) if ev.complement else int(k0[j]),
         "neighbour_in_event": n - int(k1[j]) if ev.complement else int(k1[j]), "epsilon_lower": bounds[j]}
        for j, (st_, ev) in enumerate(chosen)
    )
    ceiling = ceiling_basis = None
    ceiling_exact = False
    if privacy_loss is not None:
        losses, p, q, p_inf, q_inf = privacy_loss.masses()
        # the most a single-event audit (the user's ``candidates``) could certify; an extra privacy-loss event
        # costs this audit a Bonferroni share, not the ceiling
        ceiling = ceiling_from_masses(losses, p, q, p_inf=p_inf, q_inf=q_inf, n=n, alpha=alpha, delta=delta,
                                      candidates=candidates)
        ceiling_basis = str(getattr(privacy_loss, "basis", ""))
        ceiling_exact = bool(getattr(privacy_loss, "exact", False))
    sat = saturation(n, alpha=alpha, delta=delta, candidates=candidates)
    verdict, reason = verdict_reason(eps_lower, epsilon, budget_ceiling=ceiling, saturation=sat,
                                     epsilon_exact=exact_epsilon, power_factor=power_factor)
    if mode == "implementation" and verdict == "violation":
        from dpverify.audit.floating_point import violation_note

        note = violation_note(stat.name)
        if note:  # the certificate came from a floating-point statistic: say what that means
            reason = f"{reason}; {note}"
    return AuditResult(
        epsilon_lower=eps_lower,
        epsilon_claimed=epsilon,
        delta=delta,
        epsilon_exact=exact_epsilon,
        verdict=verdict,
        verdict_reason=reason,
        epsilon_accountant=None if accountant is None else float(accountant.epsilon),
        accountant_method="" if accountant is None else str(accountant.method),
        budget_ceiling=ceiling,
        ceiling_basis=ceiling_basis or "",
        ceiling_exact=ceiling_exact,
        saturation=sat,
        mode=mode,
        samples=samples,
        confidence=confidence,
        seed=seed,
        test=stat.name,
        event=event.describe(stat),
        counts=counts,
        candidates=evaluated,
        wall_time=time.perf_counter() - start,
        # descriptive only: the chosen statistic's trade-off on the threshold sample of the scoring part
        tradeoff=tradeoff_curve(*sample_values[index[id(stat)]], dataset_high=(not event.complement) == event.d_high),
    )
