"""The two one-run bounds: from (m canaries, r guesses, v right) to a certified epsilon.

**The experiment** (Steinke, Nasr, Jagielski 2023, "Privacy auditing with one (1) training run", NeurIPS, Sec. 3).
Each of m canaries is put in the training data by an independent fair coin ``S_i``. One run releases y; from y
alone the auditor makes r guesses -- "in" for some canaries, "out" for others, no guess on the rest -- of which v
turn out right. The number of guesses r must not depend on y (``dpverify.audit.one_run`` fixes ``k+`` and ``k-``
before the scores are seen: the ``k+`` highest scores are guessed "in", the ``k-`` lowest "out").

**Steinke et al. 2023, Theorem 3.1.** If the run is (eps, delta)-DP in each canary, then with
``q = e^eps / (1 + e^eps)`` and ``f(v) = P[Binomial(r, q) >= v]``,

    P[at least v right] <= f(v) + 2 m delta max_{i = 1..v} (f(v - i) - f(v)) / i.

That right side is the p-value of "(eps, delta)-DP" (:func:`steinke_p_value`); the certified epsilon is the
largest eps whose p-value is below alpha (:func:`one_run_epsilon`). It grows with eps (a larger eps is a weaker
claim), so a bisection finds it.

**Mahloujifar, Melis, Chaudhuri 2025, "Auditing f-differential privacy in one run", ICML (arXiv 2410.22235),
Algorithms 3 and 4** (the same experiment tested against a trade-off curve f). Write ``fbar(a) = 1 - f(a)`` (the
largest power of a test of level a; concave, as f is convex) and ``fbar^-1(y) = inf {a : fbar(a) >= y}``. For a
canary j, fix the other coins and take the test "the auditor guesses j in (or out) *and* at least i-1 of its other
guesses are right" -- a function of y and of the other coins, which the comparison of the two datasets that differ
in canary j holds fixed. f-DP in both orders, the fair coin and the concavity of fbar (averaging over j and the other
coins) give, for every i = 1..r, with C the number of right guesses,

    E[C 1{C >= i}] / m  <=  fbar( E[(r - C) 1{C >= i - 1}] / m ).

Suppose ``P[C >= v] >= tau``. The least probability mass consistent with these constraints is built level by level
from the top: put tau at C = v (``r_v = tau v / m`` right and ``h_v = tau (r - v) / m`` wrong guesses, per
canary), then for i = v-1 down to 0

    h_i = max(h_{i+1}, fbar^-1(r_{i+1})),        r_i = r_{i+1} + i / (r - i) (h_i - h_{i+1})

(the mass added at level i is ``m (h_i - h_{i+1}) / (r - i)``, each with i right and r - i wrong guesses). If
``r_0 + h_0 > r / m`` -- more than the r guesses every run makes -- the supposition is impossible, so
``P[C >= v] < tau``: the f-DP claim is rejected at level tau (:func:`fdp_rejects`). The paper proves the greedy
construction is the least mass; our tests check it against a direct convex program over the law of C
(``tests/test_one_run_bounds.py``).

**Curves tested.** ``curve="gaussian"`` (the default, as in Mahloujifar et al.'s experiments and jax_privacy):
for each eps, the Gaussian curve G_mu with the mu whose privacy profile passes through (eps, delta) -- a rejection
refutes mu-GDP, and the certified eps is a lower bound on the epsilon(delta) of the run *when its trade-off curve is
Gaussian* (a full-batch Gaussian mechanism, a linear canary of a full-batch chain); for other mechanisms it is the
paper's "empirical epsilon", not a guarantee. ``curve="approx_dp"``: the curve of (eps, delta)-DP itself
(``max(0, 1 - delta - e^eps a, e^-eps (1 - delta - a))``), valid for every mechanism. Or a callable
``eps -> TradeOffCurve``, pointwise non-increasing in eps.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Callable, Literal, Union

import numpy as np
from scipy.special import expit, ndtr, ndtri
from scipy.stats import binom

from dpverify.calculus.mechanisms.gaussian import analytic_gaussian_sigma
from dpverify.calculus.tradeoff import GaussianDP, PiecewiseLinearCurve, TradeOffCurve
from dpverify.validation import check_delta, check_positive_int, check_probability

__all__ = ["METHODS", "CURVES", "check_counts", "steinke_p_value", "fdp_rejects", "inverse_power",
           "curve_family", "gaussian_mu", "one_run_epsilon", "EPSILON_CAP"]

Method = Literal["steinke", "fdp"]
#: ``one_run_epsilon(method=...)``.
METHODS = ("steinke", "fdp")
#: Named curve families of the f-DP method.
CURVES = ("gaussian", "approx_dp")
#: The bisection stops here: a certificate of 50 means "at least 50" (the counts support more).
EPSILON_CAP = 50.0
#: Absolute tolerance of the certified epsilon (the bisection returns the lower end: never above the truth).
EPSILON_TOLERANCE = 1e-6

CurveFamily = Callable[[float], Callable[[float], float]]
CurveArgument = Union[None, str, Callable[[float], TradeOffCurve]]


def check_counts(m, r, v) -> tuple[int, int, int]:
    """``(m, r, v)`` as ints with ``1 <= m``, ``0 <= v <= r <= m``; a ``ValueError`` naming the argument otherwise."""
    m = check_positive_int(m, "m")
    r = check_positive_int(r, "r", minimum=0, maximum=m)
    v = check_positive_int(v, "v", minimum=0, maximum=r)
    return m, r, v


# -- Steinke, Nasr, Jagielski 2023 ------------------------------------------------------------------------------------


def steinke_p_value(m: int, r: int, v: int, epsilon: float, delta: float = 0.0) -> float:
    """Steinke et al. 2023, Theorem 3.1: the p-value of "(epsilon, delta)-DP in each canary" when v of r guesses
    about m canaries are right, ``min(1, f(v) + 2 m delta max_{i=1..v} (f(v-i) - f(v)) / i)`` with
    ``f(k) = P[Binomial(r, e^eps / (1 + e^eps)) >= k]`` (module docstring)."""
    m, r, v = check_counts(m, r, v)
    delta = check_delta(delta)
    q = float(expit(epsilon))
    tail = float(binom.sf(v - 1, r, q))
    if delta == 0.0 or v == 0:
        return min(1.0, tail)
    i = np.arange(1, v + 1)
    excess = binom.sf(v - 1 - i, r, q) - tail  # P[v - i <= Binomial < v]
    return min(1.0, tail + 2.0 * m * delta * float(np.max(excess / i)))


# -- Mahloujifar, Melis, Chaudhuri 2025 -------------------------------------------------------------------------------


def fdp_rejects(m: int, r: int, v: int, inverse: Callable[[float], float], alpha: float) -> bool:
    """Mahloujifar et al. 2025, Algorithm 3: True when v right of r guesses about m canaries is impossible with
    probability >= ``alpha`` under the curve whose ``fbar^-1`` is ``inverse`` (module docstring), i.e. the f-DP claim
    is rejected at level alpha. The recursion stops early once the mass exceeds ``r / m`` (it only grows) or stops
    changing (a fixed point)."""
    if v == 0:
        return False
    budget = r / m
    right = alpha * v / m
    wrong = alpha * (r - v) / m
    for i in range(v - 1, -1, -1):
        needed = inverse(right)
        if needed <= wrong:
            break  # a fixed point: nothing changes below this level
        right += i / (r - i) * (needed - wrong)
        wrong = needed
        if right + wrong > budget:
            return True
    return right + wrong > budget


def inverse_power(curve: TradeOffCurve) -> Callable[[float], float]:
    """``y -> fbar^-1(y) = inf {a : 1 - f(a) >= y}`` for a trade-off curve f: closed form for
    :class:`~dpverify.calculus.tradeoff.GaussianDP` (``Phi(Phi^-1(y) - mu)``), interpolation for
    :class:`~dpverify.calculus.tradeoff.PiecewiseLinearCurve`, bisection on ``curve(a)`` otherwise."""
    if isinstance(curve, GaussianDP):
        mu = curve.mu
        return lambda y: float(ndtr(ndtri(min(max(y, 0.0), 1.0)) - mu))
    if isinstance(curve, PiecewiseLinearCurve):
        power = 1.0 - np.asarray(curve.betas)  # non-decreasing in alpha
        alphas = np.asarray(curve.alphas)

        def inverse(y: float) -> float:
            if y <= power[0]:
                return 0.0
            j = int(np.searchsorted(power, y, side="left"))  # first vertex with power >= y
            if j >= power.size:
                return 1.0
            lo_p, hi_p = power[j - 1], power[j]
            return float(alphas[j - 1] + (alphas[j] - alphas[j - 1]) * (y - lo_p) / (hi_p - lo_p))

        return inverse

    def bisect(y: float) -> float:
        lo, hi = 0.0, 1.0
        if 1.0 - curve(0.0) >= y:
            return 0.0
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if 1.0 - curve(mid) >= y else (mid, hi)
        return hi

    return bisect


@lru_cache(maxsize=4096)
def gaussian_mu(epsilon: float, delta: float) -> float:
    """The mu whose Gaussian curve G_mu has the privacy profile through (epsilon, delta): ``1 / sigma`` of the
    analytic Gaussian mechanism (Balle & Wang 2018, Thm 8), rounded down (a weaker curve)."""
    if epsilon <= 0.0:
        return 0.0
    return 1.0 / analytic_gaussian_sigma(1.0, epsilon, delta)


def _approx_dp_inverse(epsilon: float, delta: float) -> Callable[[float], float]:
    """``fbar^-1`` of (eps, delta)-DP: ``fbar(a) = min(1, delta + e^eps a, 1 - e^-eps (1 - delta - a))``, so
    ``fbar^-1(y) = max(0, (y - delta) e^-eps, 1 - delta - e^eps (1 - y))``."""
    t = math.exp(epsilon)

    def inverse(y: float) -> float:
        return min(1.0, max(0.0, (y - delta) / t, 1.0 - delta - t * (1.0 - y)))

    return inverse


def curve_family(curve: CurveArgument, delta: float) -> CurveFamily:
    """``eps -> fbar^-1`` of the curve tested at eps (module docstring: "gaussian", "approx_dp" or a callable
    ``eps -> TradeOffCurve``); None is "gaussian"."""
    if curve is None or curve == "gaussian":
        if delta <= 0.0:
            raise ValueError("curve='gaussian' needs delta > 0 (a Gaussian curve is (eps, 0)-DP for no finite eps); "
                             "use curve='approx_dp' for delta = 0")
        return lambda eps: inverse_power(GaussianDP(gaussian_mu(eps, delta)))
    if curve == "approx_dp":
        return lambda eps: _approx_dp_inverse(eps, delta)
    if isinstance(curve, str):
        raise ValueError(f"curve must be one of {CURVES}, a callable epsilon -> TradeOffCurve, or None; got {curve!r}")
    if not callable(curve):
        raise TypeError(f"curve must be one of {CURVES}, a callable epsilon -> TradeOffCurve, or None; "
                        f"got {type(curve).__name__}")

    def family(eps: float):
        made = curve(eps)
        if not isinstance(made, TradeOffCurve):
            raise TypeError(f"curve({eps!r}) must return a dpverify.calculus.tradeoff.TradeOffCurve; "
                            f"got {type(made).__name__}")
        return inverse_power(made)

    return family


# -- the certificate ---------------------------------------------------------------------------------------------------


def one_run_epsilon(m: int, r: int, v: int, *, alpha: float = 0.05, delta: float = 0.0, method: Method = "steinke",
                    curve: CurveArgument = None) -> float:
    """The certified epsilon of one run: the largest eps (to 1e-6, at most :data:`EPSILON_CAP`) at which the claim
    is rejected at level ``alpha`` when v of r guesses about m canaries are right (module docstring).

    ``method="steinke"``: "(eps, delta)-DP" by Steinke et al. 2023, Theorem 3.1. ``method="fdp"``: the curve
    ``curve`` at eps by Mahloujifar et al. 2025, Algorithm 3 (``curve=None``: the Gaussian curve through
    (eps, delta), the paper's choice; ``"approx_dp"``: the (eps, delta) curve). 0 when nothing is rejected.

    With probability at least 1 - alpha (over the canaries' coins and the run), the certificate is at most the
    smallest eps for which the run satisfies the tested claim -- provided r was fixed before the run's output was seen.
    """
    m, r, v = check_counts(m, r, v)
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    delta = check_delta(delta)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if method == "steinke":
        if curve is not None:
            raise ValueError("curve applies to method='fdp' only")
        rejects = lambda eps: steinke_p_value(m, r, v, eps, delta) < alpha  # noqa: E731
    else:
        family = curve_family(curve, delta)
        rejects = lambda eps: fdp_rejects(m, r, v, family(eps), alpha)  # noqa: E731
    return _largest_rejected(rejects)


def _largest_rejected(rejects: Callable[[float], bool]) -> float:
    """The largest eps in [0, EPSILON_CAP] with ``rejects(eps)`` (rejection is monotone: a larger eps is a weaker
    claim), by doubling then bisection; returns the lower end of the final bracket."""
    if not rejects(0.0):
        return 0.0
    lo, hi = 0.0, 1.0
    while rejects(hi):
        lo, hi = hi, 2.0 * hi
        if hi > EPSILON_CAP:
            return EPSILON_CAP if rejects(EPSILON_CAP) else _bisect(rejects, lo, EPSILON_CAP)
    return _bisect(rejects, lo, hi)


def _bisect(rejects: Callable[[float], bool], lo: float, hi: float) -> float:
    while hi - lo > EPSILON_TOLERANCE:
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if rejects(mid) else (lo, mid)
    return lo
