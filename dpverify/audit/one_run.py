"""Auditing in one run: m canaries, each in the training data by its own fair coin, one run, a certified epsilon.

Steinke, Nasr, Jagielski 2023 ("Privacy auditing with one (1) training run", NeurIPS) and Mahloujifar, Melis,
Chaudhuri 2025 ("Auditing f-differential privacy in one run", ICML): every audit elsewhere in dpverify reruns the
mechanism 10^4 to 10^8 times; here the m canaries of *one* run stand in for the repetitions. The stages, each a small
function or value:

1. **coins** -- ``included[i] ~ Bernoulli(1/2)`` independently, from the seed (:func:`canary_coins`);
2. **run** -- the experiment trains once on the data with the included canaries and scores every canary
   (:class:`OneRunExperiment.run`: higher = "more likely included"; white-box scores such as the released parameters'
   displacement along the canary's gradient, or black-box ones such as minus the canary's loss);
3. **guesses** -- the ``k+`` highest scores are guessed "in", the ``k-`` lowest "out" (:func:`count_guesses`). The
   guess counts are **fixed before the scores are seen**: given, or planned from the claimed privacy of one canary
   (:func:`plan_guesses`: the counts with the best certificate *expected* if the claim were exact), or -- when the
   experiment knows no canary curve -- every pair of a fixed grid (:data:`GUESS_FRACTIONS`), each tested at
   alpha / (grid size) (Bonferroni; the certificate is the largest). Never chosen on the scores;
4. **certificate** -- :func:`~dpverify.audit.one_run_bounds.one_run_epsilon` from (m, r = k+ + k-, v right);
5. **verdict** -- "violation" when the certificate exceeds the claim (by default the accountant's epsilon of the
   run); "inconclusive" when even an exact run at the claim is expected to certify less than claim / 2
   (:data:`~dpverify.audit.verdicts.POWER_FACTOR`), or when nothing was certified; else "consistent".

``alpha`` lies in (0, 1/2) (:func:`check_one_run_alpha`): at 1/2 or above a "violation" of a correct run would be
as likely as not, so it is refused. With probability at least 1 - alpha over the coins and the run, the certificate is
at most the run's epsilon at delta (``method="steinke"``, or ``"fdp"`` with the (eps, delta) curve) or at most the
epsilon of the run's Gaussian curve (``"fdp"`` with the Gaussian curve, used by default only when the experiment
declares its canary's release curve Gaussian -- :meth:`OneRunExperiment.canary_curve` -- so that the certificate keeps
that meaning).

Example (the idealised experiment: each canary an independent 1-GDP release)::

    >>> from dpverify.audit.one_run import GaussianCanaries, audit_one_run
    >>> r = audit_one_run(GaussianCanaries(1.0), 1000, seed=1)
    >>> r.verdict, r.epsilon_lower < r.epsilon_accountant
    ('consistent', True)
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field
from typing import Protocol, Sequence, runtime_checkable

import numpy as np
from scipy.optimize import brentq
from scipy.special import ndtr

from dpverify.audit.one_run_bounds import CurveArgument, Method, METHODS, gaussian_mu, one_run_epsilon
from dpverify.audit.verdicts import POWER_FACTOR
from dpverify.calculus.guarantees import Conversion
from dpverify.calculus.tradeoff import GaussianDP, TradeOffCurve
from dpverify.validation import UsageError, check_delta, check_positive_int, check_real

__all__ = ["OneRunExperiment", "GuessPlan", "GaussianCanaries", "OneRunResult", "audit_one_run", "canary_coins",
           "count_guesses", "plan_guesses", "expected_counts", "one_run_verdict", "score_separation", "GUESS_FRACTIONS",
           "check_one_run_alpha", "MAX_ALPHA"]

#: Guess counts tried (Bonferroni) when nothing is known about a canary: ``k+ = k- = round(fraction m)``.
GUESS_FRACTIONS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2)
#: Candidate counts of the planner: ``k = round(fraction m)``, guessed both ways (k+ = k-) or "in" only.
_PLAN_FRACTIONS = tuple(np.geomspace(0.002, 0.5, 25))


@runtime_checkable
class OneRunExperiment(Protocol):
    """What :func:`audit_one_run` needs from a training run with canaries.

    - ``name`` -- a short label (the CLI case);
    - ``run(included, rng)`` -- train once with canary i in the data exactly when ``included[i]`` (a bool array of
      length m), the run's randomness from ``rng``; return the m canaries' scores (higher = more likely included);
    - ``account(delta)`` -- the accountant's (epsilon, delta) of the run, a
      :class:`~dpverify.calculus.guarantees.Conversion` (its ``method`` says which accountant; an upper bound on
      every canary's epsilon);
    - ``release_account(delta)`` -- the exact privacy of what one canary's score is computed from (e.g. the final
      iterate of a linear-Gaussian chain), or None when unknown;
    - ``canary_curve()`` -- that release's trade-off curve when known exactly (e.g.
      :class:`~dpverify.calculus.tradeoff.GaussianDP` for a full-batch Gaussian chain), else None. A Gaussian curve
      makes the f-DP method test Gaussian curves and lets the guesses be planned.
    """

    name: str

    def run(self, included: np.ndarray, rng: np.random.Generator) -> np.ndarray: ...

    def account(self, delta: float) -> Conversion: ...

    def release_account(self, delta: float) -> Conversion | None: ...

    def canary_curve(self) -> TradeOffCurve | None: ...


@dataclass(frozen=True)
class GuessPlan:
    """Guess the ``k_plus`` highest scores "in" and the ``k_minus`` lowest "out" (``r = k_plus + k_minus``)."""

    k_plus: int
    k_minus: int

    @property
    def r(self) -> int:
        return self.k_plus + self.k_minus

    def check(self, m: int) -> "GuessPlan":
        if self.k_plus < 0 or self.k_minus < 0 or self.r == 0 or self.r > m:
            raise ValueError(f"guesses must be (k_plus, k_minus) with k_plus, k_minus >= 0 and 1 <= k_plus + k_minus "
                             f"<= m = {m}; got ({self.k_plus}, {self.k_minus})")
        return self


class GaussianCanaries:
    """The idealised one-run experiment with known truth: canary i's score is ``mu S_i + N(0, 1)`` independently
    (each canary an independent mu-GDP release, DRS 2022, Def. 2.6; no interference). ``noise_factor`` < 1 scales the
    noise down while the claim stays mu (a deliberately broken release: its true separation is mu / noise_factor)."""

    def __init__(self, mu: float, noise_factor: float = 1.0) -> None:
        self.mu = check_real("mu", mu, low=0.0, low_inclusive=False)
        self.noise_factor = check_real("noise_factor", noise_factor, low=0.0, low_inclusive=False)
        self.name = f"gaussian_canaries(mu={self.mu:g}" + (")" if noise_factor == 1.0 else f", noise x{noise_factor:g})")

    def run(self, included: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return self.mu * included + self.noise_factor * rng.standard_normal(included.shape)

    def account(self, delta: float) -> Conversion:
        return Conversion(GaussianDP(self.mu).epsilon(delta), delta, None, f"exact {self.mu:g}-GDP")

    def release_account(self, delta: float) -> Conversion | None:
        true_mu = self.mu / self.noise_factor
        return Conversion(GaussianDP(true_mu).epsilon(delta), delta, None, f"exact {true_mu:g}-GDP (as run)")

    def canary_curve(self) -> TradeOffCurve:
        return GaussianDP(self.mu)


# -- stages --------------------------------------------------------------------------------------------------------


def canary_coins(m: int, rng: np.random.Generator) -> np.ndarray:
    """``included[i] ~ Bernoulli(1/2)`` independently (Steinke et al. 2023, Sec. 3: S uniform on {-1, +1}^m)."""
    return rng.random(m) < 0.5


def count_guesses(scores: np.ndarray, included: np.ndarray, plan: GuessPlan, rng: np.random.Generator) -> tuple[int, int]:
    """``(r, v)``: guess the plan's top scores "in" and bottom scores "out" (ties broken at random); v counts the right
    guesses."""
    order = np.lexsort((rng.random(scores.size), -scores))  # descending score, random among ties
    top, bottom = order[:plan.k_plus], order[scores.size - plan.k_minus:]
    return plan.r, int(included[top].sum() + (~included[bottom]).sum())


def expected_counts(m: int, mu: float, plan: GuessPlan) -> tuple[int, int]:
    """``(r, v)`` expected for the idealised experiment (:class:`GaussianCanaries`) with separation mu: the top
    ``k+`` of the mixture ``(N(mu, 1) + N(0, 1)) / 2`` are above the threshold t with
    ``m (Phi(mu - t) + Phi(-t)) / 2 = k+`` and ``m Phi(mu - t) / 2`` of them are included (the bottom ``k-`` by
    symmetry); v is rounded down."""
    def right_among(k: int, sign: float) -> float:
        if k == 0:
            return 0.0
        a, b = (mu, 0.0) if sign > 0 else (0.0, mu)  # the side guessed right, the other
        g = lambda t: m * (ndtr(sign * (a - t)) + ndtr(sign * (b - t))) / 2 - k  # noqa: E731 -- monotone in t
        t = brentq(g, -40.0, 40.0 + mu)
        return m * ndtr(sign * (a - t)) / 2

    v = right_among(plan.k_plus, 1.0) + right_among(plan.k_minus, -1.0)
    return plan.r, int(math.floor(v))


def plan_guesses(m: int, mu: float, *, alpha: float, delta: float, method: Method, curve: CurveArgument) -> tuple[GuessPlan, float]:
    """The guess counts, fixed before the run, with the best certificate expected (:func:`expected_counts`) if each
    canary were exactly mu-GDP; and that expected certificate. Candidates: ``k = round(f m)`` for 25 fractions f
    from 0.002 to 0.5, as ``(k, k)`` and ``(k, 0)``."""
    best, best_value = GuessPlan(max(1, m // 20), max(1, m // 20)), -1.0
    for f in _PLAN_FRACTIONS:
        k = int(round(f * m))
        for plan in (GuessPlan(k, k), GuessPlan(k, 0)):
            if k < 1 or plan.r > m:
                continue
            r, v = expected_counts(m, mu, plan)
            value = one_run_epsilon(m, r, v, alpha=alpha, delta=delta, method=method, curve=curve)
            if value > best_value:
                best, best_value = plan, value
    return best, max(best_value, 0.0)


def score_separation(scores: np.ndarray, included: np.ndarray) -> float:
    """``(mean score in - mean score out) / pooled standard deviation``: a diagnostic, never used by the certificate.
    For independent Gaussian scores it estimates the canary's GDP mu; interference between canaries (shared
    parameters) shows as a separation far below the canary release's mu."""
    a, b = scores[included], scores[~included]
    if a.size < 2 or b.size < 2:
        return 0.0
    pooled = math.sqrt(((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / (a.size + b.size - 2))
    return float((a.mean() - b.mean()) / pooled) if pooled > 0 else (math.inf if a.mean() > b.mean() else 0.0)


def one_run_verdict(epsilon_lower: float, epsilon_claimed: float, expected: float | None) -> tuple[str, str]:
    """``(verdict, reason)`` (module docstring, stage 5; the vocabulary of :mod:`dpverify.audit.verdicts`)."""
    if epsilon_lower > epsilon_claimed:
        return "violation", (f"certified {epsilon_lower:.4g} > claimed {epsilon_claimed:.4g}: the run is not as "
                             "private as claimed")
    if expected is not None and expected * POWER_FACTOR < epsilon_claimed:
        return "inconclusive", (f"an exact run at the claim is expected to certify only {expected:.4g} < claim / "
                                f"{POWER_FACTOR:g} with these canaries: only a much larger leak would be flagged")
    if epsilon_lower <= 0:
        return "inconclusive", "certified 0: the guesses were no better than chance at this level"
    return "consistent", f"certified {epsilon_lower:.4g} <= claimed {epsilon_claimed:.4g}"


# -- the audit -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class OneRunResult:
    """The outcome of :func:`audit_one_run`. ``candidates`` holds ``(k_plus, k_minus, r, v, epsilon)`` of every
    guess plan tested (Bonferroni over them: each at ``alpha / len(candidates)``); ``epsilon_lower`` is the largest."""

    case: str
    method: str
    curve: str
    m: int
    included: int
    k_plus: int
    k_minus: int
    r: int
    v: int
    alpha: float
    delta: float
    epsilon_lower: float
    epsilon_claimed: float
    epsilon_accountant: float
    accountant_method: str
    epsilon_release: float | None
    release_method: str
    expected_epsilon_lower: float | None
    verdict: str
    verdict_reason: str
    guess_rule: str
    score_separation: float
    seed: int
    wall_time: float
    candidates: tuple = field(default_factory=tuple)

    @property
    def is_violation(self) -> bool:
        return self.verdict == "violation"

    @property
    def fraction_of_accountant(self) -> float:
        """``epsilon_lower / epsilon_accountant`` (how much of the accountant's epsilon one run recovers)."""
        return self.epsilon_lower / self.epsilon_accountant if self.epsilon_accountant > 0 else math.inf

    def to_dict(self) -> dict:
        out = asdict(self)
        out["candidates"] = [list(c) for c in self.candidates]
        out["fraction_of_accountant"] = self.fraction_of_accountant
        return out


#: The largest one-run ``alpha`` (excluded): a verdict must be more likely right than wrong.
MAX_ALPHA = 0.5


def check_one_run_alpha(alpha) -> float:
    """``alpha`` in (0, :data:`MAX_ALPHA`): the one-run certificate exceeds the run's epsilon with probability at
    most alpha, so at alpha >= 1/2 a "violation" of a correct run is as likely as not (at alpha = 0.5, 3 of 30 seeded
    audits of the exact 1-GDP canaries were violations; at 0.99 every bound is a coin flip at best). A
    :class:`~dpverify.validation.UsageError` (a ``ValueError``) naming ``alpha`` and the range, so that the command
    line's ``--alpha`` answers it as bad input."""
    try:
        return check_real("alpha", alpha, low=0.0, high=MAX_ALPHA, low_inclusive=False, high_inclusive=False)
    except ValueError as exc:
        raise UsageError(f"{exc} (the miss probability of the certificate: at {MAX_ALPHA:g} or above a violation of a "
                         "correct run is as likely as not)") from None


def _curve_name(curve: CurveArgument, canary_curve: TradeOffCurve | None, method: str, delta: float) -> CurveArgument:
    """The f-DP family: as given; else Gaussian when the experiment's canary release is Gaussian (and delta > 0),
    else the (eps, delta) curve."""
    if method != "fdp":
        return None
    if curve is not None:
        return curve
    return "gaussian" if isinstance(canary_curve, GaussianDP) and delta > 0 else "approx_dp"


def _guess_plans(m, guesses, planning_mu, **bound) -> tuple[tuple[GuessPlan, ...], str, float | None]:
    """The plans to test, how they were chosen, and the expected certificate (None when not planned)."""
    if guesses is not None:
        pairs = [guesses] if isinstance(guesses[0], (int, np.integer)) else list(guesses)
        plans = tuple(GuessPlan(int(kp), int(km)).check(m) for kp, km in pairs)
        return plans, "given" + (f" (Bonferroni over {len(plans)})" if len(plans) > 1 else ""), None
    if planning_mu is not None and planning_mu > 0:
        plan, expected = plan_guesses(m, planning_mu, **bound)
        return (plan,), f"planned from the claim (mu = {planning_mu:.4g})", expected
    plans = tuple(GuessPlan(k, k) for k in sorted({max(1, int(round(f * m))) for f in GUESS_FRACTIONS}) if 2 * k <= m)
    return plans, f"grid of {len(plans)} (Bonferroni)", None


def audit_one_run(experiment: OneRunExperiment, m: int, *, alpha: float = 0.05, delta: float = 1e-5,
                  method: Method = "fdp", curve: CurveArgument = None,
                  guesses: tuple[int, int] | Sequence[tuple[int, int]] | None = None,
                  epsilon_claimed: float | None = None, seed: int = 0) -> OneRunResult:
    """One run of ``experiment`` with ``m`` canaries, audited (module docstring).

    ``method``: "fdp" (Mahloujifar et al. 2025; ``curve`` None picks the Gaussian curve when the experiment's canary
    release is Gaussian, else the (eps, delta) curve) or "steinke" (Steinke et al. 2023, Thm 3.1). ``guesses``:
    ``(k_plus, k_minus)``, a sequence of them (Bonferroni), or None (planned from the claim, else the grid).
    ``epsilon_claimed``: the claim the verdict tests (default: the accountant's epsilon of the run at ``delta``).
    ``alpha``: the certificate's miss probability, in (0, 0.5) (:func:`check_one_run_alpha`); ``seed``: an integer in
    [0, 2^63 - 1], as :func:`~dpverify.audit.audit`'s.
    """
    m = check_positive_int(m, "m", minimum=2)
    alpha = check_one_run_alpha(alpha)
    delta = check_delta(delta)
    seed = check_positive_int(seed, "seed", minimum=0)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if not isinstance(experiment, OneRunExperiment):
        raise TypeError("experiment must provide name, run(included, rng), account(delta), release_account(delta) "
                        f"and canary_curve() (dpverify.audit.one_run.OneRunExperiment); got {type(experiment).__name__}")
    start = time.perf_counter()
    accountant = experiment.account(delta) if delta > 0 else None
    claim = (accountant.epsilon if accountant is not None else math.inf) if epsilon_claimed is None \
        else check_real("epsilon_claimed", epsilon_claimed, low=0.0)
    canary_curve = experiment.canary_curve()
    family = _curve_name(curve, canary_curve, method, delta)
    planning_mu = canary_curve.mu if isinstance(canary_curve, GaussianDP) else (
        gaussian_mu(claim, delta) if delta > 0 and math.isfinite(claim) else None)
    plans, rule, expected = _guess_plans(m, guesses, planning_mu, alpha=alpha, delta=delta, method=method,
                                         curve=family)
    coin_rng, run_rng, tie_rng = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(3))
    included = canary_coins(m, coin_rng)
    scores = np.asarray(experiment.run(included, run_rng), dtype=float)
    if scores.shape != (m,) or not np.all(np.isfinite(scores)):
        raise ValueError(f"experiment.run must return m = {m} finite scores; got shape {scores.shape}")
    candidates = []
    for plan in plans:
        r, v = count_guesses(scores, included, plan, tie_rng)
        eps = one_run_epsilon(m, r, v, alpha=alpha / len(plans), delta=delta, method=method, curve=family)
        candidates.append((plan.k_plus, plan.k_minus, r, v, eps))
    best = max(candidates, key=lambda c: c[4])
    release = experiment.release_account(delta) if delta > 0 else None
    verdict, reason = one_run_verdict(best[4], claim, expected)
    return OneRunResult(
        case=experiment.name, method=method, curve="" if family is None else str(getattr(family, "__name__", family)),
        m=m, included=int(included.sum()), k_plus=best[0], k_minus=best[1], r=best[2], v=best[3], alpha=alpha,
        delta=delta, epsilon_lower=best[4], epsilon_claimed=claim,
        epsilon_accountant=math.inf if accountant is None else accountant.epsilon,
        accountant_method="" if accountant is None else accountant.method,
        epsilon_release=None if release is None else release.epsilon,
        release_method="" if release is None else release.method, expected_epsilon_lower=expected,
        verdict=verdict, verdict_reason=reason, guess_rule=rule, score_separation=score_separation(scores, included),
        seed=seed,
        wall_time=time.perf_counter() - start, candidates=tuple(candidates))
