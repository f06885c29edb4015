"""``audit``: a certified lower bound on the epsilon of a mechanism on one adjacent pair.

``audit()`` is a composition of four stages, each a module with a small typed result that can be read, tested and
replaced alone (issue 22):

1. **plan** (:mod:`.plan`): every parameter validated once; the claim to test (a guarantee object, or the shorthand
   ``epsilon=``/``delta=`` for an ``ApproxDP``); the selection/estimation split of the ``samples`` outputs per side
   into chunks (:mod:`.split`); the fit and threshold budgets -> an :class:`~.plan.AuditPlan`. Beside it, what the
   mechanism says about the pair -- exact epsilon, accountant, privacy loss -- asked once through its abilities
   (:mod:`.abilities`) -> :class:`~.abilities.MechanismFacts`;
2. **select** (:mod:`.select`): on the selection part, fit every candidate scalar statistic on its first half (at most
   ``fit_cap`` outputs per side), fix candidate thresholds on the first ``threshold_sample`` scoring outputs, count
   every candidate event over the whole scoring part chunk by chunk, and keep the ``candidates`` best (statistic,
   event, orientation) triples, plus the pair's privacy-loss event when its law is known exactly ->
   :class:`~.select.ChosenEvents`;
3. **estimate** (:mod:`.estimate`): on the estimation part (never seen by step 2) count those events on both sides,
   in this process, in ``workers`` processes (:mod:`.parallel`) or on the Dask cluster of ``client``
   (:mod:`.distributed`) -> :class:`~.estimate.EventCounts`;
4. **certify** (:mod:`.certify`): ``epsilon_lower = max(0, log((L_hi - delta) / U_lo))`` from two one-sided
   Clopper-Pearson bounds at alpha/(2 k) each for the k events counted, maximised over them (Bonferroni;
   :mod:`.bounds`); the budget ceiling -- the most any event-based audit could certify on this pair with these
   samples (:mod:`.ceiling`) -- and the verdict with its reason (:mod:`.verdicts`) -> :class:`~.certify.Certificate`,

and the stages' values are assembled into an :class:`~.result.AuditResult` (:mod:`.result`).

With probability >= ``confidence`` (over the estimation samples), ``epsilon_lower`` is at most the smallest epsilon
for which M is (epsilon, delta)-DP on this pair -- hence at most the exact pair epsilon and, if the claim is right, at
most the claimed epsilon. The verdict is "violation" when ``epsilon_lower > epsilon_claimed`` (Ding et al.
2018; Jagielski et al. 2020), when the claimed curve is refuted, or when ``epsilon_lower`` exceeds the pair's stated
exact epsilon (the implementation is then not the mechanism that exact value describes; :mod:`.certify`).

Parameters of :func:`audit`, the fields of its two option objects (:mod:`.options`): what is tested
(:class:`~.options.AuditQuestion`: the claim, samples, confidence, seed, test, mode, what is known about the pair and
the statistical knobs) and how it runs (:class:`~.options.Execution`: workers, client, resources, backend, device,
chunk size, progress, the rng probe); each may also be given as a keyword:

- ``mechanism(dataset, n, rng) -> array`` with n outputs on axis 0, and optionally the abilities of
  :mod:`.abilities` (``log_density``, ``log_likelihood_ratio``, ``exact_epsilon``, ``account``,
  ``pair_privacy_loss``, ``query_value``);
- ``claim``: the guarantee tested (:mod:`dpverify.calculus.claimed`: ``ApproxDP``, ``PureDP``, ``Conversion``,
  ``Claim``, a ``PrivacyProfile`` or anything with ``epsilon_at(delta)``), tested at ``delta`` (default: the claim's
  own delta; a trade-off curve such as ``GaussianDP(mu)`` names none: its curve test tests the whole curve and its
  event test runs at ``delta = 1 / samples``, which the reason says: :func:`~.plan.default_delta`); or the shorthand
  ``epsilon``/``delta`` (default 0) for ``ApproxDP(epsilon, delta)`` -- not both. ``delta`` is also the delta of the
  bound. A claimed epsilon of 0 is tested (any certificate above 0 refutes it); ``inf`` is vacuous (inconclusive);
- ``samples`` outputs per side (>= 4), a fraction ``selection_fraction`` of which choose the test, the rest certify;
  ``confidence`` = 1 - alpha, in [2^-53, 1) (below, 1 - confidence rounds to 1); ``seed`` the root of the
  SeedSequence tree (:mod:`.split`);
- ``test``: "auto", "threshold" (identity for scalars, difference-of-means projection for vectors),
  "likelihood_ratio", "events", "classifier" (logistic), "boosting", "additive" (:class:`~.kinds.TestKind`), or a
  callable scalar statistic ``s(outputs) -> (n,)``;
- ``exact_epsilon``: the known pair epsilon (else ``mechanism.exact_epsilon(dataset, neighbour, delta)`` if
  present); ``accountant``: the accountant's (epsilon, delta) of the run, e.g. a
  :class:`~dpverify.calculus.guarantees.Conversion`, or the name "pld" or "rdp" of the mechanism's own accountant
  (``mechanism.account(delta, method=name)``; :data:`~.abilities.ACCOUNTANT_NAMES`) (else ``mechanism.account(delta)``;
  anything else is a ``ValueError`` naming ``accountant``); ``privacy_loss``: the pair's
  privacy-loss masses for the budget ceiling (else ``mechanism.pair_privacy_loss(dataset, neighbour)``);
- ``candidates``: how many of the best selected events are counted on the estimation samples -- the bound is their
  maximum, each at alpha/candidates (Bonferroni);
- ``adjacency`` ("replace_one" (or "replace"), "add_remove" or "either": :class:`dpverify.vocabulary.Adjacency`): if given, the pair is first checked with
  :func:`dpverify.audit.datasets.check_adjacent` (a non-adjacent pair is a ``ValueError`` saying why); ``None`` audits
  any pair (e.g. query-answer vectors with their own neighbouring relation);
- ``power_factor``: see :mod:`.verdicts`; ``mode``: "mathematical" (default) audits the idealised mechanism,
  "implementation" also tries statistics aimed at floating-point artefacts of the outputs (:class:`~.kinds.Mode`,
  :mod:`.floating_point`);
- ``check_rng``: run the rng probe (:func:`.split.check_rng_use`: the mechanism must draw from its ``rng``, leave
  its dataset unchanged, and not ignore the seed) before sampling; leave it True unless this mechanism was already
  probed (e.g. the later audits of one worst-pair search): the probe draws from its own seed child, so skipping it
  changes no sample and no bound;
- ``progress(done, total)`` is called after every chunk of samples drawn and counted (both sides count as one chunk;
  with workers, in the parent as the chunks complete, ``done`` running from 1 to ``total``);
- ``chunk_size``: the most outputs asked of the mechanism in one call; ``fit_cap``: at most this many outputs per side
  fit the statistics; ``threshold_sample``: at most this many scoring outputs per side fix the candidate thresholds
  (both bound the memory; below them the audit is the unbounded one);
- ``workers``: processes that draw and count the chunks after the fit, and draw the held part of the selection when it
  spans several chunks (:func:`~.chunk_work.held_drawer`; :mod:`.parallel`); ``client``: a
  ``dask.distributed.Client`` whose cluster draws and counts them instead (:mod:`.distributed`; the ``distributed``
  extra). The numbers depend on neither; ``client`` with ``workers > 1`` is a ``ValueError``. ``resources`` (only
  with ``client``): the Dask worker resources each chunk task needs, e.g. ``{"GPU": 1}`` so that only workers
  started with ``--resources GPU=1`` draw chunks;
- ``backend`` ("numpy", the default and reference, or "torch") and ``device`` (torch: "cpu", "cuda", "cuda:K"): the
  array backend the chunks after the fit are drawn, evaluated and counted on (:mod:`dpverify.backends`). Chunk ``j``
  of a side is drawn with the backend's own generator seeded from the same ``SeedSequence`` grandchild, so a run is
  reproducible per backend and device; the numbers differ between backends, every guarantee is the same. A statistic
  that takes the backend's arrays (the samplers' white-box path statistic) is evaluated on the device and only
  integer counts come back; others get the chunk copied to the host. ``chunk_size`` None: on numpy
  ``DEFAULT_CHUNK_SIZE``, or fewer outputs where the mechanism declares large ones (256 MiB per side), on another
  backend what fits the device's free memory (:func:`device_chunk_size`, measured in this process, which also draws
  the fit part on its own device). ``workers > 1`` is refused with torch (one process
  drives a device); with ``client`` each chunk is drawn and counted on the worker's own device (a GPU worker is a Dask
  worker with one GPU: docs/distributed.md), bit-identical to this process on the same kind of device. The result
  records ``backend`` and ``device``.

Memory and processes: besides at most ``fit_cap + threshold_sample`` outputs per side held for fitting and fixing the
candidate thresholds, only one chunk per side and per process is in memory at a time, whatever ``samples`` is. Every
chunk has its own seed and the chunks after the fit are reduced to integer counts that are summed
(:mod:`.chunk_work`), so the result is bit-identical for any number of workers, with or without Dask.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np

from dpverify.backends import Backend, get_backend
from dpverify.backends.base import MEMORY_FRACTION
from dpverify.audit.abilities import Mechanism, MechanismFacts, declared_output_bytes, read_facts
from dpverify.audit.certify import Certificate, budget_ceiling, certify, curve_power, decide
from dpverify.audit.chunk_work import Progress, held_drawer, runner_for
from dpverify.audit.datasets import check_adjacent, pair_note
from dpverify.audit.estimate import EventCounts, count_events
from dpverify.audit.kinds import Mode, TestKind, Verdict
from dpverify.audit.options import AuditQuestion, Execution, split_options
from dpverify.audit.plan import AuditPlan, make_plan
from dpverify.audit.result import AuditResult, assemble_result
from dpverify.audit.select import ChosenEvents, choose_events, fit_statistics
from dpverify.audit.sequential import (FUTILITY_FROM, Look, RoundSchedule, StopRule, projected_bound,
                                       projected_refutation, round_seed)
from dpverify.audit.split import DEFAULT_CHUNK_SIZE, ChunkSampler, SplitPlan

__all__ = ["AuditResult", "AuditQuestion", "Execution", "audit", "run_audit", "TESTS", "MODES"]

#: Names accepted by ``audit(test=...)`` besides "auto" and a callable statistic (:class:`~.kinds.TestKind`).
TESTS = TestKind.values()[1:]
#: Names accepted by ``audit(mode=...)`` (:class:`~.kinds.Mode`).
MODES = Mode.values()


#: The most outputs per chunk on a device for a mechanism whose outputs are small (``output_bytes()`` at most
#: :data:`SMALL_OUTPUT_BYTES`; the memory budget decides below it): 2^24 one-number outputs keep a GPU busy between
#: two rounds of Python work, where 2^20 left 10^9 outputs per side in about 950 chunks of a fraction of a millisecond.
DEVICE_CHUNK_CAP = 1 << 24
#: Outputs up to this many bytes on the device (``output_bytes()``: the output and its temporaries) are "small".
#: Larger ones (a sampler's chains: kilobytes each) keep the cap :data:`~dpverify.audit.split.DEFAULT_CHUNK_SIZE`: a
#: chunk of 2^20 of them is already a gigabyte or more per side.
SMALL_OUTPUT_BYTES = 1024


#: Bytes of outputs (and their temporaries, ``output_bytes()``) one numpy chunk of one side may hold when the outputs are
#: larger than :data:`SMALL_OUTPUT_BYTES`: 256 MiB. A sampler's chains (kilobytes each) then come in chunks of 2^14-2^17,
#: so that memory does not grow with the budget and workers have chunks to share.
NUMPY_CHUNK_BYTES = 1 << 28
#: The smallest default chunk.
MIN_CHUNK_SIZE = 1 << 10


def device_chunk_size(mechanism: Any, backend: Backend, datasets: Sequence[Any] = ()) -> int:
    """The default ``chunk_size``, from what one output takes (:func:`~.abilities.declared_output_bytes` of ``mechanism`` on the
    audited ``datasets``, as the gradient samplers and the standard suite's mechanisms declare it: the output and its
    step temporaries).

    - numpy: :data:`~dpverify.audit.split.DEFAULT_CHUNK_SIZE` for a mechanism that declares nothing or outputs of at
      most :data:`SMALL_OUTPUT_BYTES` (every one-number mechanism: their chunks, hence their numbers, are those of
      before); for larger outputs (a sampler's chains) the largest power of 2 whose outputs fit
      :data:`NUMPY_CHUNK_BYTES`, at least :data:`MIN_CHUNK_SIZE`;
    - another backend: the largest power of 2 whose outputs and temporaries fit the device's free memory budget
      (:meth:`~dpverify.backends.Backend.chunk_size`; 8000 bytes per output when undeclared), at most
      :data:`DEVICE_CHUNK_CAP` for outputs of at most :data:`SMALL_OUTPUT_BYTES`, at most the numpy default otherwise.
    """
    declared = declared_output_bytes(mechanism, datasets)
    if backend.name == "numpy":
        if declared is None or declared <= SMALL_OUTPUT_BYTES:
            return DEFAULT_CHUNK_SIZE
        fit = int(NUMPY_CHUNK_BYTES // declared)
        return int(min(DEFAULT_CHUNK_SIZE, max(MIN_CHUNK_SIZE, 1 << max(0, fit.bit_length() - 1))))
    per_output = 8.0 * 1000 if declared is None else declared  # undeclared: 1000 float64 values per output assumed
    cap = DEVICE_CHUNK_CAP if per_output <= SMALL_OUTPUT_BYTES else DEFAULT_CHUNK_SIZE
    return backend.chunk_size(per_output, fraction=MEMORY_FRACTION / 2, maximum=cap)  # the pair's two chunks share it


def audit(mechanism: Callable, dataset: Any, neighbour: Any, *, question: AuditQuestion | None = None,
          execution: Execution | None = None, **options: Any) -> AuditResult:
    """Certify a lower bound on the epsilon of ``mechanism`` on the pair (dataset, neighbour) against the claim of
    ``question`` (an :class:`~dpverify.audit.options.AuditQuestion`: ``claim`` or ``epsilon``/``delta``, ``samples``,
    ``confidence``, ``seed``, ``test``, ``mode``, ...), run as ``execution`` says (an
    :class:`~dpverify.audit.options.Execution`: ``workers``, ``client``, ``backend``, ``device``, ``chunk_size``,
    ``progress``, ...).

    The keyword form is the same audit: every field of either object may be given as a keyword
    (``audit(m, D, D2, epsilon=1.0, samples=20_000, workers=2)``), alone or beside the objects (a field set in both is
    a ``TypeError``; so is a keyword of neither). The stages and every option are described in the module docstring
    (:mod:`dpverify.audit.core`); the returned bound holds with probability >= ``confidence``.
    """
    asked, how = split_options(question, execution, **options)
    return run_audit(mechanism, dataset, neighbour, asked, how)


def run_audit(mechanism: Callable, dataset: Any, neighbour: Any, question: AuditQuestion,
              execution: Execution) -> AuditResult:
    """:func:`audit` with its two option objects (what layers above the auditor call with the objects they pass
    through)."""
    q, x = question, execution
    start = time.perf_counter()
    if not isinstance(mechanism, Mechanism):
        raise TypeError(f"mechanism must be callable as mechanism(dataset, n, rng); got {type(mechanism).__name__}")
    if not isinstance(q.sequential, (bool, np.bool_)):
        raise TypeError(f"sequential must be True or False; got {q.sequential!r}")
    array_backend = get_backend(x.backend, x.device)
    if array_backend.name != "numpy" and x.workers != 1:
        raise ValueError(f"workers={x.workers} with backend={x.backend!r}: a device is driven by one process (a CUDA "
                         "context does not survive fork); leave workers at 1, and spread chunks over several devices "
                         "with a Dask client= whose workers have one device each (docs/distributed.md)")
    chunk_size = x.chunk_size
    if chunk_size is None:
        chunk_size = device_chunk_size(mechanism, array_backend, (dataset, neighbour))
    plan = make_plan(claim=q.claim, epsilon=q.epsilon, delta=q.delta, samples=q.samples, confidence=q.confidence,
                     seed=q.seed, test=q.test, selection_fraction=q.selection_fraction, chunk_size=chunk_size,
                     candidates=q.candidates, power_factor=q.power_factor, mode=q.mode, workers=x.workers,
                     fit_cap=q.fit_cap, threshold_sample=q.threshold_sample, client=x.client, resources=x.resources)
    facts = read_facts(mechanism, dataset, neighbour, plan.delta, exact_epsilon=q.exact_epsilon,
                       accountant=q.accountant, privacy_loss=q.privacy_loss)
    if q.adjacency is not None:
        check_adjacent(dataset, neighbour, q.adjacency)
    run = _Run(mechanism, dataset, neighbour, facts, array_backend, x)
    if q.sequential:
        result = run.sequential(plan, q.selection_fraction, start)
    else:
        report = Progress(x.progress, plan.split.n_chunks)
        chosen, counts, certificate = run.stages(plan, report, check_rng=bool(x.check_rng))
        result = assemble_result(plan, facts, chosen, counts, certificate, time.perf_counter() - start,
                                 backend=array_backend.name, device=array_backend.device)
    note = pair_note(dataset, neighbour, mechanism) if q.adjacency is None else None
    if note is not None and (note[0] == "identical" or result.verdict is Verdict.VIOLATION):
        result = replace(result, verdict_reason=f"{result.verdict_reason}; {note[1]}")
    return result


@dataclass(frozen=True)
class _Run:
    """One audit's fixed parts: the mechanism and pair, what is known about the pair, the array backend and the
    execution; :meth:`stages` runs the stages of one plan, :meth:`sequential` the rounds of a sequential audit."""

    mechanism: Callable
    dataset: Any
    neighbour: Any
    facts: MechanismFacts
    backend: Backend
    execution: Execution

    def stages(self, plan: AuditPlan, report: Progress, *,
               check_rng: bool) -> tuple[ChosenEvents, EventCounts, Certificate]:
        """Stages 2-4 of ``plan`` (the selection, the estimation and the certificate)."""
        sampler = ChunkSampler(self.mechanism, (self.dataset, self.neighbour), plan.split, plan.seed,
                               backend=self.backend, check_rng=check_rng)
        first_estimation = len(sampler.selection_sizes)
        with held_drawer(sampler, plan.held, plan.workers, plan.client, plan.resources) as drawer:
            fitted = fit_statistics(sampler, plan, self.mechanism, self.dataset, self.neighbour, report, drawer)
        several = sampler.n_chunks - fitted.chunks_drawn > 1
        with runner_for(fitted.work(sampler), plan.workers if several else 1, plan.client, plan.resources) as runner:
            chosen = choose_events(fitted, runner, plan, self.facts.privacy_loss, first_estimation, report)
            counts = count_events(chosen, runner, plan, range(first_estimation, sampler.n_chunks), report)
        return chosen, counts, certify(chosen, counts, plan, self.facts)

    def sequential(self, plan: AuditPlan, selection_fraction: float, start: float) -> AuditResult:
        """The rounds of a sequential audit of ``plan``'s budget until a stopping rule holds
        (:mod:`dpverify.audit.sequential`), as one result: the largest bound of the rounds run, the verdict of the
        fixed rule at the last round's capacity (or the violation), the outputs used, the rule and the rounds."""
        schedule = RoundSchedule.make(plan.samples, plan.alpha)
        plans = [round_plan(plan, r, schedule, selection_fraction) for r in range(schedule.rounds)]
        report = Progress(self.execution.progress, sum(p.split.n_chunks for p in plans))
        looks: list[Look] = []
        best: tuple[AuditPlan, ChosenEvents, EventCounts, Certificate] | None = None
        rule = StopRule.BUDGET
        for r, round_ in enumerate(plans):
            chosen, counts, certificate = self.stages(round_, report,
                                                      check_rng=bool(self.execution.check_rng) and r == 0)
            looks.append(Look(r, round_.samples, round_.alpha, certificate.epsilon_lower, str(certificate.verdict)))
            if best is None or certificate.epsilon_lower >= best[3].epsilon_lower or \
                    certificate.verdict is Verdict.VIOLATION:
                best = (round_, chosen, counts, certificate)
            if certificate.verdict is Verdict.VIOLATION:
                rule = StopRule.VIOLATION
                break
            if (r < len(plans) - 1 and round_.samples >= FUTILITY_FROM * plan.samples
                    and certificate.epsilon_lower > 0 and futile(chosen, counts, plan, plans[-1], self.facts)):
                rule = StopRule.FUTILITY
                break
        assert best is not None
        if report.callback is not None and report.done < report.total:
            report.callback(report.total, report.total)  # a stop ends the progress: the later rounds are not drawn
        return sequential_result(plan, plans[-1], best, self.facts, looks, rule, time.perf_counter() - start,
                                 self.backend, rounds=len(plans))


def round_plan(plan: AuditPlan, r: int, schedule: RoundSchedule, selection_fraction: float) -> AuditPlan:
    """Round ``r`` of ``schedule`` as a fixed audit's plan: its outputs per side, its share of alpha (as its
    confidence), its own seed (:func:`~.sequential.round_seed`) and split; the claim, the delta and every other
    parameter are the audit's."""
    size = schedule.sizes[r]
    return replace(plan, samples=size, confidence=1.0 - schedule.alphas[r], seed=round_seed(plan.seed, r),
                   split=SplitPlan.make(size, selection_fraction, plan.split.chunk_size))


def futile(chosen: ChosenEvents, counts: EventCounts, plan: AuditPlan, last: AuditPlan,
           facts: MechanismFacts) -> bool:
    """The futility rule (:mod:`dpverify.audit.sequential`): no chosen event of this round could certify more than
    the claim -- nor more than the pair's stated exact epsilon -- in the last round ``last``, and its curve test could
    not refute the claim there, even with the round's rates at the optimistic ends of their intervals."""
    target = plan.epsilon if facts.exact_epsilon is None else min(plan.epsilon, facts.exact_epsilon)
    n, n_final = counts.n, last.split.n_estimation
    share = last.alpha / (2.0 * chosen.tests)
    for j, found in enumerate(chosen.events):
        projected = projected_bound(int(counts.dataset[j]), int(counts.neighbour[j]), n,
                                    complement=found.event.complement, d_high=found.event.d_high, n_final=n_final,
                                    alpha_final=share, delta=plan.delta)
        if projected > target:
            return False
    if chosen.curve is not None and chosen.curve.claim is not None:
        j = len(chosen.events)
        if projected_refutation(int(counts.dataset[j]), int(counts.neighbour[j]), n, d_high=chosen.curve.test.d_high,
                                claim=chosen.curve.claim, n_final=n_final, alpha_final=share):
            return False
    return True


def sequential_result(plan: AuditPlan, last: AuditPlan,
                      best: tuple[AuditPlan, ChosenEvents, EventCounts, Certificate], facts: MechanismFacts,
                      looks: list[Look], rule: str, wall_time: float, backend: Backend, *,
                      rounds: int) -> AuditResult:
    """One result for the rounds run: the round with the largest bound (or the violation) gives the event, its
    counts and the curve test; the verdict is the fixed rule (:func:`~.certify.decide`) at the capacity of the last
    round (its budget ceiling, saturation and curve power) -- a violation of the round is one here too, since no
    violation depends on the ceiling or the power; the budget, confidence and seed are the audit's."""
    round_, chosen, counts, certificate = best
    result = assemble_result(round_, facts, chosen, counts, certificate, wall_time, backend=backend.name,
                             device=backend.device)
    capacity = budget_ceiling(facts.privacy_loss, last.split.n_estimation, last)
    power = curve_power(chosen, last.split.n_estimation, last, facts.privacy_loss)
    # a violation does not depend on the ceiling or the curve's power, so the round's violation is found again here,
    # its reason stated at the audit's confidence (every round's bound holds with the others at that confidence)
    verdict, reason = decide(certificate.epsilon_lower, plan, facts, capacity, certificate.curve, power,
                             chosen.events[certificate.best].statistic.name)
    assert (verdict is Verdict.VIOLATION) == (certificate.verdict is Verdict.VIOLATION)
    used = sum(look.samples for look in looks)
    stop = {StopRule.VIOLATION: f"stopped at round {len(looks)} of {rounds}: violation",
            StopRule.FUTILITY: (f"stopped at round {len(looks)} of {rounds}: futility (the "
                                "last round could not certify above the claim even at the optimistic ends of this "
                                "round's rates)"),
            StopRule.BUDGET: "ran every round"}[rule]
    reason = f"{reason}; sequential audit, {used} of {plan.samples} samples per side used, {stop}"
    return replace(result, verdict=verdict, verdict_reason=reason, samples=plan.samples, confidence=plan.confidence,
                   seed=plan.seed, budget_ceiling=capacity.value, ceiling_basis=capacity.basis,
                   ceiling_exact=capacity.exact, saturation=capacity.saturation, samples_used=used,
                   stopping_rule=rule, looks=tuple(looks))
