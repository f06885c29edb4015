"""The budget ceiling: the most any event-based audit can certify on a pair at a given budget.

An audit certifies ``log((CP_lower(k_hi) - delta) / CP_upper(k_lo))`` from the counts of one event on ``n``
estimation samples per side (:mod:`dpverify.audit.bounds`). For a pair (P, Q) = (M(D), M(D')) whose privacy
loss ``L = log dP/dQ`` has a known law, the Neyman-Pearson lemma says the best events are the likelihood-ratio
level sets ``{L >= t}`` (P high) and ``{L <= t}`` (Q high), so no event does better than

    ceiling(n, alpha, delta) = max over t and both orientations of
        log( (CP_lower(P(L >= t) n; n; a) - delta) / CP_upper(Q(L >= t) n; n; a) ),   a = alpha / (2 candidates),

evaluated at the *expected* counts (Clopper-Pearson bounds of a real-valued "count" are the Beta quantiles;
the definition of the shared AUDITING notes, cross-checked there for a Gaussian pair: mu = 0.268, 0.536, 1.07
give 0.633, 1.457, 3.133 at n = 1.6e5, alpha = 0.05, delta = 1e-5). It is a *typical* value, not a
probability-one bound: a lucky estimation sample can certify a little more.

Two uses (Dwork-Rothblum privacy loss; Nasr et al. 2023 "tight auditing" for the gap between accountant and
audit):

1. the denominator of "how well did the audit do" (certified / ceiling);
2. the power statement: an audit whose ceiling is far below the claim could not have detected a violation of
   the claim at this budget (:func:`dpverify.audit.verdicts.verdict`).

:func:`saturation` is the pair-free limit: the most *any* pair (even disjoint supports) can be certified at
this budget, ``log((CP_lower(n; n; a) - delta) / CP_upper(0; n; a))`` ~ ``log(n / log(1/a))``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats
from scipy.optimize import minimize_scalar
from scipy.special import ndtr, ndtri

from dpverify.validation import check_delta, check_positive_int, check_probability
from dpverify.audit.bounds import clopper_pearson_lower, clopper_pearson_upper

__all__ = ["ceiling_from_masses", "ceiling_event", "gaussian_ceiling", "saturation", "gaussian_loss_masses",
           "CurveCeiling", "curve_ceiling", "gaussian_fit", "MIN_ERROR_RATE"]

#: The smallest error rate at which :func:`curve_ceiling` reads a pair's Gaussian-equivalent mu (its tails beyond
#: are where a subsampled Gaussian's mu keeps growing; H2's benchmark convention).
MIN_ERROR_RATE = 1e-6


#: Thresholds scored in a first pass over a long loss grid; the best is then refined among its neighbours.
_COARSE_THRESHOLDS = 2048


def _log_ratio_values(p_tail: np.ndarray, q_tail: np.ndarray, n: int, a: float, delta: float) -> np.ndarray:
    lower = clopper_pearson_lower(np.clip(p_tail, 0.0, 1.0) * n, n, a)
    upper = clopper_pearson_upper(np.clip(q_tail, 0.0, 1.0) * n, n, a)
    ok = (lower > delta) & (upper > 0)
    values = np.full(lower.shape, -np.inf)
    values[ok] = np.log((lower[ok] - delta) / upper[ok])
    return values


def _log_ratio_curve(p_tail: np.ndarray, q_tail: np.ndarray, n: int, a: float, delta: float) -> tuple[float, int]:
    """The best expected certificate over the thresholds of one orientation, and its index (-1 if none > 0).

    A long grid (a PLD has 10^4-10^6 points) is scored on ``_COARSE_THRESHOLDS`` evenly spaced thresholds first,
    then every threshold between the best one's coarse neighbours: the Clopper-Pearson quantiles cost most of the
    time, and the certificate is smooth in the threshold at the scale of the coarse spacing."""
    size = p_tail.size
    if size > 2 * _COARSE_THRESHOLDS:
        coarse = np.unique(np.linspace(0, size - 1, _COARSE_THRESHOLDS).round().astype(int))
        values = _log_ratio_values(p_tail[coarse], q_tail[coarse], n, a, delta)
        k = int(np.argmax(values))
        lo, hi = coarse[max(k - 1, 0)], coarse[min(k + 1, coarse.size - 1)]
        fine = np.arange(lo, hi + 1)
        values = _log_ratio_values(p_tail[fine], q_tail[fine], n, a, delta)
        j = int(np.argmax(values))
        value, index = float(values[j]), int(fine[j])
    else:
        values = _log_ratio_values(p_tail, q_tail, n, a, delta)
        index = int(np.argmax(values))
        value = float(values[index])
    return (value, index) if value > 0 else (0.0, -1)


def ceiling_from_masses(losses, p, q, *, n: int, alpha: float = 0.05, delta: float = 0.0, candidates: int = 1,
                        p_inf: float = 0.0, q_inf: float = 0.0) -> float:
    """The budget ceiling of a pair from its privacy-loss masses (:func:`ceiling_event`'s value)."""
    return ceiling_event(losses, p, q, n=n, alpha=alpha, delta=delta, candidates=candidates, p_inf=p_inf,
                         q_inf=q_inf)[0]


def ceiling_event(losses, p, q, *, n: int, alpha: float = 0.05, delta: float = 0.0, candidates: int = 1,
                  p_inf: float = 0.0, q_inf: float = 0.0) -> tuple[float, float, bool]:
    """The budget ceiling of a pair whose privacy loss ``L = log dP/dQ`` takes the value ``losses[j]`` with
    probability ``p[j]`` under P and ``q[j]`` under Q, plus ``p_inf = P(L = +inf)`` (P-mass where Q vanishes)
    and ``q_inf = Q(L = -inf)``.

    Both orientations are scored: events ``{L >= t}`` (P high; tails of ``p`` against ``q``) and ``{L <= t}``
    (Q high; lower tails of ``q`` against ``p``), at every threshold of the grid. ``n`` estimation samples per
    side, one-sided Clopper-Pearson bounds at ``alpha / (2 candidates)`` each (the auditor's Bonferroni split).
    Returns ``(ceiling, t, p_high)``: the value and its event, ``{L >= t}`` if ``p_high`` else ``{L <= t}``
    (``t`` is +-inf for the infinite-loss atoms; ``nan`` when nothing certifies more than 0).
    """
    n = check_positive_int(n, "n")
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    delta = check_delta(delta)
    candidates = check_positive_int(candidates, "candidates")
    losses = np.asarray(losses, dtype=float).reshape(-1)
    p = np.asarray(p, dtype=float).reshape(-1)
    q = np.asarray(q, dtype=float).reshape(-1)
    if not (losses.shape == p.shape == q.shape):
        raise ValueError(f"losses, p and q must have the same length; got {losses.size}, {p.size}, {q.size}")
    if np.any(p < 0) or np.any(q < 0) or p_inf < 0 or q_inf < 0:
        raise ValueError("probability masses must be >= 0")
    order = np.argsort(losses, kind="stable")
    losses, p, q = losses[order], p[order], q[order]
    a = alpha / (2.0 * candidates)
    # P high: S_t = {L >= t}; tails from the top, the +inf atom always inside.
    p_upper = np.cumsum(p[::-1])[::-1] + p_inf
    q_upper = np.cumsum(q[::-1])[::-1]
    # Q high: S_t = {L <= t}; tails from the bottom, the -inf atom always inside.
    q_lower = np.cumsum(q) + q_inf
    p_lower = np.cumsum(p)
    best = (0.0, math.nan, True)
    for value, j, p_high in (_log_ratio_curve(p_upper, q_upper, n, a, delta) + (True,),
                             _log_ratio_curve(q_lower, p_lower, n, a, delta) + (False,)):
        if j >= 0 and value > best[0]:
            best = (value, float(losses[j]), p_high)
    if p_inf > 0:  # the event {L = +inf} alone
        value = _log_ratio_curve(np.array([p_inf]), np.array([0.0]), n, a, delta)[0]
        if value > best[0]:
            best = (value, math.inf, True)
    if q_inf > 0:
        value = _log_ratio_curve(np.array([q_inf]), np.array([0.0]), n, a, delta)[0]
        if value > best[0]:
            best = (value, -math.inf, False)
    return best


def gaussian_loss_masses(mu: float, *, width: float = 10.0, points: int = 4001):
    """Privacy-loss masses of ``P = N(mu, 1)`` vs ``Q = N(0, 1)`` on a grid of the output x (cells of width
    ``(2 width + mu)/points``): ``L(x) = mu x - mu^2/2`` is increasing in x, so each cell [x_j, x_{j+1}) is one
    loss level (its left end, the smaller loss) with masses ``P`` and ``Q`` of the cell."""
    mu = float(mu)
    if not (mu > 0 and math.isfinite(mu)):
        raise ValueError(f"mu must be a finite number > 0; got {mu!r}")
    edges = np.linspace(-width, mu + width, points + 1)
    cdf_p = stats.norm.cdf(edges - mu)
    cdf_q = stats.norm.cdf(edges)
    p = np.diff(cdf_p)
    q = np.diff(cdf_q)
    p[0] += cdf_p[0]
    q[0] += cdf_q[0]
    p[-1] += 1 - cdf_p[-1]
    q[-1] += 1 - cdf_q[-1]
    losses = mu * edges[:-1] - 0.5 * mu * mu
    return losses, p, q


def gaussian_ceiling(mu: float, *, n: int, alpha: float = 0.05, delta: float = 0.0, candidates: int = 1) -> float:
    """Budget ceiling of the Gaussian pair ``N(mu, 1)`` vs ``N(0, 1)`` (a Gaussian mechanism with
    sensitivity / noise standard deviation = mu; a full-batch Gaussian path of T steps has mu = sqrt(T) C/sigma)."""
    losses, p, q = gaussian_loss_masses(mu)
    return ceiling_from_masses(losses, p, q, n=n, alpha=alpha, delta=delta, candidates=candidates)


def saturation(n: int, *, alpha: float = 0.05, delta: float = 0.0, candidates: int = 1) -> float:
    """The most any pair can be certified at this budget: every dataset output in the event, no neighbour
    output in it. A claim above this can never be contradicted by ``n`` estimation samples per side. Never negative:
    where even that event's bound is at or below 0 (a handful of samples, a confidence near 1) nothing above 0 can be
    certified, and the saturation is 0."""
    n = check_positive_int(n, "n")
    a = check_probability(alpha, "alpha", open_low=True, open_high=True) / (2.0 * check_positive_int(candidates, "candidates"))
    lower = float(clopper_pearson_lower(n, n, a))
    upper = float(clopper_pearson_upper(0, n, a))
    delta = check_delta(delta)
    return max(0.0, math.log((lower - delta) / upper)) if lower > delta else 0.0


@dataclass(frozen=True)
class CurveCeiling:
    """The power of the curve-level test on a pair (:mod:`dpverify.audit.curve`), and two readings of "the pair's mu".

    - ``mu_expected``: the most its ``mu_lower`` reaches at the expected counts of ``n`` estimation samples per side
      (Clopper-Pearson at the audit's Bonferroni share), over the likelihood-ratio threshold tests;
    - ``mu_pair``: the pair's *tightest* Gaussian-equivalent mu, the largest ``Phi^-1(1 - FPR) - Phi^-1(FNR)`` over
      threshold tests whose error rates are both at least :data:`MIN_ERROR_RATE` (the smallest mu with the pair
      mu-GDP there; exactly mu for a mu-GDP pair). For a pair that is not Gaussian it sits in a far tail and grows as
      :data:`MIN_ERROR_RATE` shrinks (a Poisson-subsampled Gaussian's does without bound);
    - ``mu_fit``: the mu of the Gaussian trade-off curve *nearest* the pair's, in the largest difference of type II
      errors over all type I errors (both readings of the pair; :func:`gaussian_fit`), and ``fit_distance`` that
      difference: the Gaussian curve that best describes the pair as a whole. Equal to mu (distance 0) for a mu-GDP
      pair; a test certifies ``mu_lower > mu_fit`` only where the pair's curve lies below the fitted one, which a
      non-Gaussian pair's tails do (``fit_distance`` says by how much at most).
    """

    mu_expected: float
    mu_pair: float
    mu_fit: float = float("nan")
    fit_distance: float = float("nan")


#: Type I errors at which :func:`gaussian_fit` compares the curves: dense in the bulk and in both tails.
_FIT_GRID = np.unique(np.concatenate([np.logspace(-8, -1, 700), np.linspace(0.1, 0.9, 801),
                                      1.0 - np.logspace(-1, -8, 700)]))


def gaussian_fit(fpr, fnr) -> tuple[float, float]:
    """``(mu, distance)``: the Gaussian trade-off curve ``G_mu(x) = Phi(Phi^-1(1 - x) - mu)`` (Dong, Roth & Su 2022,
    Def. 2.6) nearest a pair's curve in the uniform distance ``sup_x |G_mu(x) - f(x)|``, with ``f`` the piecewise
    linear curve through the points ``(fpr[j], fnr[j])`` of the pair's threshold tests (a trade-off curve is convex
    and randomised tests fill in its chords) and its reading with the roles swapped (the points ``(fnr[j],
    fpr[j])``); the distance is the larger of the two. ``distance`` is in error rate: 0 for a mu-GDP pair.

    ``sup_x |G_mu(x) - f(x)|`` is evaluated on :data:`_FIT_GRID` and minimised over mu by a grid search on [0, 8]
    refined by bounded Brent iteration (:func:`scipy.optimize.minimize_scalar`). Each ``|G_mu(x) - f(x)|`` is
    monotone in mu on either side of the mu where it vanishes, so their maximum is unimodal in mu."""
    x = np.clip(np.asarray(fpr, dtype=float).reshape(-1), 0.0, 1.0)
    y = np.clip(np.asarray(fnr, dtype=float).reshape(-1), 0.0, 1.0)
    if x.size == 0 or x.size != y.size:
        raise ValueError(f"fpr and fnr must be non-empty and of one length; got {x.size} and {y.size}")
    curves = []
    for a, b in ((x, y), (y, x)):
        order = np.argsort(a, kind="stable")
        a = np.concatenate([[0.0], a[order], [1.0]])
        b = np.concatenate([[np.max(b)], b[order], [0.0]])  # f(0) = the largest type II error, f(1) = 0
        curves.append(np.interp(_FIT_GRID, a, b))
    z = ndtri(1.0 - _FIT_GRID)

    def distance(mu: float) -> float:
        g = ndtr(z - mu)
        return float(max(np.max(np.abs(g - f)) for f in curves))

    grid = np.linspace(0.0, 8.0, 161)
    j = int(np.argmin([distance(m) for m in grid]))
    low, high = grid[max(j - 1, 0)], grid[min(j + 1, grid.size - 1)]
    if high > low:
        found = minimize_scalar(distance, bounds=(low, high), method="bounded", options={"xatol": 1e-6})
        mu = float(found.x) if found.fun <= distance(grid[j]) else float(grid[j])
    else:
        mu = float(grid[j])
    return mu, distance(mu)


def curve_ceiling(losses, p, q, *, n: int, alpha: float = 0.05, tests: int = 1, p_inf: float = 0.0,
                  q_inf: float = 0.0) -> CurveCeiling:
    """The :class:`CurveCeiling` of a pair from its privacy-loss masses (as :func:`ceiling_event` reads them). The
    likelihood-ratio threshold tests ``{L >= t}`` are the most powerful at every size (Neyman-Pearson), so their
    error rates trace the pair's trade-off curve; both readings of each test are scored (the curve is symmetric in
    its roles). Thresholds: :data:`_COARSE_THRESHOLDS` evenly spaced grid points."""
    n = check_positive_int(n, "n")
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    tests = check_positive_int(tests, "tests")
    losses = np.asarray(losses, dtype=float).reshape(-1)
    order = np.argsort(losses, kind="stable")
    p = np.asarray(p, dtype=float).reshape(-1)[order]
    q = np.asarray(q, dtype=float).reshape(-1)[order]
    total_p, total_q = float(p.sum()) + p_inf, float(q.sum()) + q_inf
    p_tail = np.cumsum(p[::-1])[::-1] + p_inf  # P(L >= t)
    q_tail = np.cumsum(q[::-1])[::-1]  # Q(L >= t)
    idx = np.unique(np.linspace(0, p_tail.size - 1, min(p_tail.size, _COARSE_THRESHOLDS)).round().astype(int))
    fpr = np.clip(q_tail[idx] / max(total_q, 1e-300), 0.0, 1.0)  # decide P on {L >= t}
    fnr = np.clip(1.0 - p_tail[idx] / max(total_p, 1e-300), 0.0, 1.0)
    a = alpha / (2.0 * tests)

    def mu_of(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.maximum(0.0, -ndtri(np.clip(x, 1e-300, 1.0)) - ndtri(np.clip(y, 1e-300, 1.0)))

    rates = [(fpr, fnr), (fnr, fpr)]  # the test and its reading with the roles of the two sides swapped
    expected = max(float(np.max(mu_of(clopper_pearson_upper(x * n, n, a), clopper_pearson_upper(y * n, n, a))))
                   for x, y in rates)
    own = 0.0
    for x, y in rates:
        ok = (x >= MIN_ERROR_RATE) & (y >= MIN_ERROR_RATE)
        if ok.any():
            own = max(own, float(np.max(mu_of(x[ok], y[ok]))))
    mu_fit, fit_distance = gaussian_fit(fpr, fnr)
    return CurveCeiling(expected, own, mu_fit, fit_distance)
