"""Worst-case adjacent pair search.

DP quantifies over all adjacent pairs; an audit certifies one. These searches look for the pair
with the largest epsilon:

- :func:`search_audits` -- audit every pair of a given list (random or hand-made, see
  :func:`random_pairs`) and keep the largest certified bound. Bonferroni over the list: each audit
  runs at confidence ``1 - alpha/len(pairs)``, so the maximum is a lower bound with confidence
  ``1 - alpha`` (union bound).
- :func:`search_hypothesis` -- hypothesis' targeted property-based search (``hypothesis.target``,
  Löscher & Sagonas 2017 "Targeted property-based testing") over a strategy of adjacent pairs
  (:func:`dpverify.audit.datasets.adjacent_pairs`), maximising either the certified bound (each
  audit at ``1 - alpha/max_examples``; the audits are adaptive but each is valid given the past,
  so the union bound still holds) or any cheap score such as the exact pair epsilon.
- :func:`search_exact` -- ``scipy.optimize.differential_evolution`` over a parametrised family of
  pairs, maximising a computable exact pair epsilon (e.g. ``mechanism.exact_epsilon`` or
  :func:`dpverify.audit.exact.pair_epsilon`). No sampling; the result is the exact value found.
- :func:`search_then_certify` -- a fixed total screening budget split over the candidate pairs, then the best
  pair(s) re-audited on fresh samples. The screening only *chooses*; the certificate comes from samples it never
  saw, so the final bound needs no correction for the number of pairs screened, only for the number ``top`` of
  pairs re-audited (Bonferroni). This is the selection/estimation split of :mod:`dpverify.audit.split` lifted
  from events to pairs (Ding et al. 2018, Sec. 4; Bichsel et al. 2021, DP-Sniper, Sec. 5).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from scipy import optimize

from dpverify.validation import check_positive_int, check_probability
from dpverify.calculus.claimed import Guarantee
from dpverify.audit.core import AuditResult, audit, run_audit
from dpverify.audit.options import AuditQuestion, Execution, split_options
from dpverify.audit.datasets import check_adjacent, replace_one

__all__ = ["PairSearch", "random_pairs", "search_audits", "search_hypothesis", "search_exact", "CertifiedSearch",
           "search_then_certify"]


@dataclass(frozen=True)
class PairSearch:
    """The best pair found, its value (certified bound or exact epsilon), how it was found."""

    dataset: Any
    neighbour: Any
    value: float
    method: str
    evaluations: int
    result: AuditResult | None = None
    values: tuple = field(default_factory=tuple)


def random_pairs(records: Callable[[np.random.Generator, int], np.ndarray], size: int, count: int,
                 seed: int = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` replace-one pairs: D is ``records(rng, size)``, D' replaces one random record of D
    by ``records(rng, 1)[0]`` (redrawn if equal)."""
    size, count = check_positive_int(size, "size"), check_positive_int(count, "count")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        data = np.asarray(records(rng, size))
        i = int(rng.integers(size))
        new = np.asarray(records(rng, 1))[0]
        while np.all(new == data[i]):
            new = np.asarray(records(rng, 1))[0]
        out.append(replace_one(data, i, new))
    return out


def _seeds(seed: int, count: int) -> list[int]:
    return [int(s) for s in np.random.SeedSequence(seed).generate_state(count)]


def search_audits(mechanism: Callable, pairs: Sequence[tuple], *, epsilon: float, delta: float = 0.0,
                  samples: int = 100_000, confidence: float = 0.95, seed: int = 0,
                  test="auto") -> PairSearch:
    """Audit every pair (Bonferroni over the list, module docstring); return the best."""
    if len(pairs) == 0:
        raise ValueError("pairs must contain at least one (dataset, neighbour) pair")
    confidence = check_probability(confidence, "confidence", open_low=True, open_high=True)
    per_pair = 1.0 - (1.0 - confidence) / len(pairs)
    results = [audit(mechanism, d, n, epsilon=epsilon, delta=delta, samples=samples,
                     confidence=per_pair, seed=s, test=test)
               for (d, n), s in zip(pairs, _seeds(seed, len(pairs)))]
    j = int(np.argmax([r.epsilon_lower for r in results]))
    return PairSearch(pairs[j][0], pairs[j][1], results[j].epsilon_lower, "audits", len(pairs),
                      results[j], tuple(r.epsilon_lower for r in results))


def search_hypothesis(strategy, score: Callable[[Any, Any], float] | None = None, *, mechanism=None,
                      epsilon: float | None = None, delta: float = 0.0, samples: int = 20_000,
                      confidence: float = 0.95, seed: int = 0, max_examples: int = 50, test="auto") -> PairSearch:
    """Targeted hypothesis search over ``strategy`` (pairs). With ``score(D, D')`` given, maximise it
    (e.g. an exact pair epsilon); otherwise audit ``mechanism`` at ``epsilon`` on each pair with
    confidence ``1 - alpha/max_examples`` and maximise the certified bound."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed
    from hypothesis import target

    max_examples = check_positive_int(max_examples, "max_examples")
    if score is None and (mechanism is None or epsilon is None):
        raise ValueError("give either score(D, D') or mechanism and epsilon to audit with")
    per_pair = 1.0 - (1.0 - check_probability(confidence, "confidence", open_low=True, open_high=True)) / max_examples
    seeds = iter(_seeds(seed, 10 * max_examples + 100))
    best: dict = {"value": -np.inf}
    values: list = []

    @settings(max_examples=max_examples, deadline=None, database=None, phases=(Phase.generate, Phase.target),
              suppress_health_check=list(HealthCheck))
    @hseed(seed)
    @given(strategy)
    def run(pair):
        d, n = pair
        result = None
        if score is not None:
            value = float(score(d, n))
        else:
            result = audit(mechanism, d, n, epsilon=epsilon, delta=delta, samples=samples,
                           confidence=per_pair, seed=next(seeds), test=test)
            value = result.epsilon_lower
        values.append(value)
        target(value)
        if value > best["value"]:
            best.update(value=value, dataset=d, neighbour=n, result=result)

    run()
    return PairSearch(best["dataset"], best["neighbour"], best["value"],
                      "hypothesis:score" if score is not None else "hypothesis:audit",
                      len(values), best["result"], tuple(values))


def search_exact(exact_epsilon: Callable[[Any, Any], float], make_pair: Callable[[np.ndarray], tuple],
                 bounds: Sequence[tuple[float, float]], *, seed: int = 0, maxiter: int = 50) -> PairSearch:
    """Maximise ``exact_epsilon(*make_pair(params))`` over a box of parameters with
    ``scipy.optimize.differential_evolution`` (derivative-free; the exact epsilon is often flat or
    kinked in the pair). Infinite values are capped at 1e6 for the optimiser and reported as found."""
    values: list = []

    def objective(params: np.ndarray) -> float:
        v = float(exact_epsilon(*make_pair(params)))
        values.append(v)
        return -min(v, 1e6)

    res = optimize.differential_evolution(objective, bounds=list(bounds), seed=seed, maxiter=maxiter,
                                          tol=1e-8, polish=False)
    d, n = make_pair(res.x)
    return PairSearch(d, n, float(exact_epsilon(d, n)), "scipy:differential_evolution", len(values),
                      None, tuple(values))


@dataclass(frozen=True)
class CertifiedSearch:
    """Result of :func:`search_then_certify`.

    ``index``: position of the certified pair in the candidate list; ``screening``: one dict per candidate
    (its screening bound and selection score, or ``skipped`` with the reason); ``final``: the audit of the chosen
    pair on fresh samples (its bound holds with probability >= ``confidence``); ``finals``: the audits of the
    ``top`` re-audited pairs (each at ``1 - alpha/top``); ``search_samples``: samples per side per screened pair."""

    dataset: Any
    neighbour: Any
    index: int
    final: AuditResult
    finals: tuple
    screening: tuple
    search_samples: int
    final_samples: int


def _score(result: AuditResult) -> tuple[float, float]:
    """Screening rank: the screening bound, then the best selection score (a tie-breaker when screens certify 0)."""
    sel = max((c.get("selection_score", 0.0) for c in result.candidates), default=0.0)
    return float(result.epsilon_lower), float(sel if np.isfinite(sel) else 0.0)


def search_then_certify(mechanism: Callable, pairs: Sequence[tuple], question: AuditQuestion | None = None,
                        execution: Execution | None = None, *, search_budget: int, final_samples: int | None = None,
                        top: int = 1, min_screen: int = 40, skip: tuple = (ValueError, ArithmeticError),
                        check_rng: bool | str = True, **keywords: Any) -> CertifiedSearch:
    """Screen every candidate pair under one total budget, then certify the best on fresh samples.

    ``question`` (an :class:`~dpverify.audit.options.AuditQuestion`) is the final audit's question: its claim (or
    ``epsilon``/``delta``), ``samples`` per side (``final_samples`` is the same option, kept as a keyword), confidence,
    seed, test, mode, ``adjacency`` and ``sequential``; ``execution`` (an :class:`~dpverify.audit.options.Execution`)
    is how every audit runs. As for :func:`~dpverify.audit.core.audit`, the fields of both may be given as keywords
    instead (a field set twice, or a keyword of neither, is a ``TypeError``).

    1. Screening: each of the ``K`` pairs gets ``max(min_screen, search_budget // K)`` samples per side (so the
       total is ``search_budget``, up to the floor) and one fixed audit (seed ``SeedSequence([seed, 0])`` child
       ``k``); pairs are ranked by the screening bound, ties by the selection score. With ``adjacency`` given, every
       pair is checked first (a pair that is not adjacent is a ValueError naming it). A pair on which the mechanism
       raises one of ``skip`` (e.g. the library refuses an empty dataset, or returns NaN/inf, which
       :func:`dpverify.audit.split.check_outputs` rejects) is recorded as skipped with the reason.
    2. Final audit: the ``top`` best pairs are audited again with the question's samples per side and fresh seeds
       (``SeedSequence([seed, 1])``), each at confidence ``1 - alpha/top``, alpha = 1 - confidence; with
       ``sequential`` they stop when decided (:mod:`dpverify.audit.sequential`).

    ``check_rng``: True runs the rng probe (:func:`dpverify.audit.split.check_rng_use`) in every audit; ``"first"``
    only in the first audit that completes (the probe is a property of the mechanism; it draws from its own seed
    child, so skipping it changes no sample and no bound; on a model fit it is 96 releases per audit); False never.

    Validity: the choice of pairs is a function of the screening samples alone, independent of the final
    samples, so conditional on the choice each final bound is a valid Clopper-Pearson bound; the union bound
    over the ``top`` final audits makes their maximum valid with probability >= ``confidence``. The screening
    budget therefore buys power (a better pair), never confidence; the confidence is paid only by ``top``.
    """
    if final_samples is not None:
        keywords["samples"] = check_positive_int(final_samples, "final_samples", minimum=4)
    asked, how = split_options(question, execution, **keywords)
    if len(pairs) == 0:
        raise ValueError("pairs must contain at least one (dataset, neighbour) pair")
    search_budget = check_positive_int(search_budget, "search_budget", minimum=4)
    check_positive_int(asked.samples, "final_samples", minimum=4)
    top = check_positive_int(top, "top")
    min_screen = check_positive_int(min_screen, "min_screen", minimum=4)
    confidence = check_probability(asked.confidence, "confidence", open_low=True, open_high=True)
    _check_candidates(pairs, asked.adjacency)
    if check_rng not in (True, False, "first"):
        raise ValueError(f"check_rng must be True, False or 'first'; got {check_rng!r}")
    probe = [check_rng is not False]
    per_pair = max(min_screen, search_budget // len(pairs))
    screen_seeds = [int(s) for s in np.random.SeedSequence([asked.seed, 0]).generate_state(len(pairs))]
    final_seeds = [int(s) for s in np.random.SeedSequence([asked.seed, 1]).generate_state(top)]
    screening: list[dict] = []
    ranked: list[tuple[tuple[float, float], int]] = []
    for k, ((d, n), s) in enumerate(zip(pairs, screen_seeds)):
        label = getattr(pairs[k], "label", f"pair {k}")
        try:
            r = run_audit(mechanism, d, n, asked.but(samples=per_pair, seed=s, sequential=False),
                          how.but(check_rng=probe[0]))
            if check_rng == "first":
                probe[0] = False
        except skip as exc:
            screening.append({"pair": label, "skipped": f"{type(exc).__name__}: {exc}"})
            continue
        score = _score(r)
        ranked.append((score, k))
        screening.append({"pair": label, "epsilon_lower": score[0], "selection_score": score[1],
                          "samples": per_pair})
    if not ranked:
        raise ValueError("the mechanism failed on every candidate pair: "
                         + "; ".join(f"{s['pair']}: {s['skipped']}" for s in screening))
    ranked.sort(key=lambda item: (-item[0][0], -item[0][1], item[1]))
    chosen = [k for _, k in ranked[:top]]
    per_final = 1.0 - (1.0 - confidence) / len(chosen)
    finals = tuple(run_audit(mechanism, pairs[k][0], pairs[k][1], asked.but(confidence=per_final, seed=s),
                             how.but(check_rng=probe[0])) for k, s in zip(chosen, final_seeds))
    j = int(np.argmax([r.epsilon_lower for r in finals]))
    k = chosen[j]
    return CertifiedSearch(pairs[k][0], pairs[k][1], k, finals[j], finals, tuple(screening), per_pair,
                           asked.samples)


def _check_candidates(pairs: Sequence[tuple], adjacency: str | None) -> None:
    """With ``adjacency`` given, every candidate pair is checked first: a pair that is not adjacent is a bug of the
    caller, not a pair to skip (a ValueError naming it)."""
    if adjacency is None:
        return
    for k, (d, n) in enumerate(pairs):
        try:
            check_adjacent(d, n, adjacency)
        except ValueError as exc:
            raise ValueError(f"candidate pair {getattr(pairs[k], 'label', k)}: {exc}") from None
