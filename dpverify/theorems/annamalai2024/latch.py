"""Annamalai (AISec 2024): no privacy amplification for hidden-state DP-SGD with a non-convex loss -- encoded on a
faithful instance built here, a latching double-well loss (reconstructed).

**What was read.** Only the abstract (arXiv:2407.06496 v1, through a translation proxy of its HTML page): prior
hidden-state analyses are tighter "only when the loss function is constrained, e.g., strongly convex and smooth or
linear"; "by carefully constructing a loss function for DP-SGD, we show that for specific loss functions, the final
iterate of DP-SGD alone leaks as much information as the sequence of all iterates combined", verified empirically to
match "the theoretical upper bound guaranteed by DP exactly"; so "no privacy amplification is possible for DP-SGD in
general for all (possibly non-convex) loss functions". The paper's loss function, theorem and constants could not be
read; the item below is **not** its construction but one built here with the property the abstract states, whose
privacy is exact.

**The instance.** Poisson-subsampled DP-SGD (rate q, clip C = 1, step eta = 1, noise multiplier sigma, T steps) on
records with constant gradients ``-x_i`` (x in [0, 1]: the canary, x = 1, pushes the parameter up by 1 when sampled;
null records x = 0) plus a data-independent double-well regulariser whose gradient step maps theta to ``F(theta) =
0`` below the threshold ``r`` and to the latch ``K = r + 40 sigma + 2`` at or above it (non-convex). Then
``theta_{t+1} = F(theta_t) + o_t`` with ``o_t = B_t + sigma xi_t`` (B_t the canary's inclusion): the parameter latches
once an update reaches r and stays there (leaving needs a 40-sigma deviation), so the last iterate reveals whether any
of the first T - 1 updates reached r, plus the last update. With ``p = (1-q) Phi_bar(r/sigma) + q Phi_bar((r-1)/sigma)``
(canary present) and ``p' = Phi_bar(r/sigma)`` (absent), the event "latched" has probability ``pi = 1 - (1-p)^{T-1}``
against ``pi' = 1 - (1-p')^{T-1}``, so for every epsilon the last iterate is not (epsilon, delta)-DP for any

    delta < delta_lower(epsilon) = pi - e^epsilon pi',

i.e. not for any epsilon below ``log((pi - delta)/pi')`` at a given delta.

Its exact epsilon (:func:`dpverify.samplers.negative_results.latch_epsilon`, closed form) lies between that bound and
the path's PLD accountant, and at the audit case it is 0.94 of the path's (check ``exact_between_bound_and_path``);
the naive claim -- the last-iterate privacy of the same DP-SGD on a *linear* loss (Steinke et al., ICLR 2025,
exact for linear losses) -- is 2.6 times below it.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np
import sympy as sp
from scipy.stats import binom, norm

from dpverify.calculus.accounting.pld import subsampled_gaussian_pld
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem

__all__ = ["THEOREMS", "LATCH", "CASE", "epsilon_lower"]

SYMBOLS = sy.pick("q", "sigma", "T_iterations", "epsilon", "r")
q, sigma, T, epsilon, r = (SYMBOLS[n] for n in ("q", "sigma", "T", "epsilon", "r"))

#: The audit case's parameters (``dp_sgd_nonconvex_last_iterate``): rate, noise multiplier, steps, threshold, delta;
#: the pair is the canary (x = 1) among null records against null records only.
CASE: dict[str, float] = {"q": 0.02, "sigma": 0.7, "T": 10, "r": 2.5, "delta": 1e-3}
_POINT: dict[str, Any] = {k: v for k, v in CASE.items() if k != "delta"}


def _sf(x):
    return sp.erfc(x / sp.sqrt(2)) / 2


P_CANARY = (1 - q) * _sf(r / sigma) + q * _sf((r - 1) / sigma)
P_NULL = _sf(r / sigma)
PI_CANARY = 1 - (1 - P_CANARY) ** (T - 1)
PI_NULL = 1 - (1 - P_NULL) ** (T - 1)
DELTA_LOWER = PI_CANARY - sp.exp(epsilon) * PI_NULL


def epsilon_lower(values: Mapping[str, Any], delta: float) -> float:
    """The epsilon below which the last iterate is not (epsilon, delta)-DP: ``log((pi - delta)/pi')`` from the item's
    latch probabilities at ``values`` (q, sigma, T, r); ``-inf`` when ``delta >= pi``."""
    ev = LATCH.evaluate(epsilon=1.0, **values)
    gap = ev.latch_probability - delta
    return math.log(gap / ev.latch_probability_neighbour) if gap > 0 else -math.inf

LATCH = Theorem(
    "annamalai2024.thm_nonconvex_last_iterate",
    "A latching non-convex loss: DP-SGD's last iterate is not (epsilon, delta)-DP for delta < pi - e^epsilon pi'",
    Source("annamalai2024", "abstract ('the final iterate of DP-SGD alone leaks as much information as the sequence "
           "of all iterates combined')", "instance built here (the body was not read: see the module docstring)",
           reconstructed=True, confidence="UNCERTAIN"),
    "privacy",
    symbols=SYMBOLS,
    hypotheses=[
        Hypothesis("rate_at_most_one", sp.Le(q, 1), "a sampling rate q <= 1"),
        Hypothesis("two_steps", sp.Ge(T, 2), "T >= 2: at least one update before the last can latch"),
    ],
    conclusion={"delta_lower": DELTA_LOWER, "latch_probability": PI_CANARY, "latch_probability_neighbour": PI_NULL},
    statement=(
        "Poisson DP-SGD (rate q, clip 1, step 1, noise multiplier sigma, T steps) with constant per-record gradients "
        "and a double-well regulariser latching at threshold r: on the pair canary (gradient -1) among null records / "
        "null records only, the last iterate is latched with probability latch_probability = 1 - (1 - p)^(T-1), p = "
        "(1-q) Phi_bar(r/sigma) + q Phi_bar((r-1)/sigma), against latch_probability_neighbour = 1 - (1 - "
        "Phi_bar(r/sigma))^(T-1), so for every epsilon it is not (epsilon, delta)-DP for delta < delta_lower = pi - "
        "e^epsilon pi' (at a given delta: not for epsilon < log((pi - delta)/pi')). Keywords: q, sigma, T (steps), "
        "epsilon, r (threshold)."
    ),
    empirical=[EmpiricalLink("dp_sgd_nonconvex_last_iterate",
                             "audits/test_dp_sgd_nonconvex_last_iterate.py",
                             "the last iterate audited against the linear-loss last iterate's epsilon: a violation")],
    notes=("A faithful instance of the abstract's claim, not the paper's construction (its body was not read). The "
           "latched region is left with probability below 1e-300 per step (40 noise standard deviations), which the "
           "exact computations neglect."),
)


@LATCH.add_check("event_inequality_is_tight", "symbolic")
def _tight():
    """``delta_lower = P(E) - e^epsilon Q(E)`` on the event E = {latched}: at ``epsilon = log((pi - d)/pi')`` it is
    exactly d (sympy), so at a given delta every epsilon below ``log((pi - delta)/pi')`` is refuted."""
    d = sp.Symbol("d_var", positive=True)
    diff = sp.simplify(DELTA_LOWER.subs(epsilon, sp.log((PI_CANARY - d) / PI_NULL)) - d)
    return diff == 0, f"delta_lower at epsilon = log((pi - d)/pi') minus d = {diff}"


@LATCH.add_check("no_canary_no_leak", "symbolic")
def _no_leak():
    """At q = 0 (the canary never sampled) and epsilon = 0 the bound is 0 (sympy): nothing is refuted."""
    at = sp.simplify(DELTA_LOWER.subs({q: 0, epsilon: 0}))
    return at == 0, f"delta_lower at q = 0, epsilon = 0: {at}"


def _grid_epsilon(p_cells: np.ndarray, q_cells: np.ndarray, delta: float) -> float:
    """The epsilon at ``delta`` of two laws given by their masses on the same cells (both directions; bisection on
    ``sum (p - e^eps q)_+``): an independent, discretised computation (cells can only lower it: post-processing)."""
    best = 0.0
    for a, b in ((p_cells, q_cells), (q_cells, p_cells)):
        lo, hi = 0.0, 30.0
        if np.sum(np.maximum(a - b, 0.0)) <= delta:
            continue
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if np.sum(np.maximum(a - math.exp(mid) * b, 0.0)) > delta else (lo, mid)
        best = max(best, hi)
    return best


def _latch_cells(qq: float, s: float, n: int, thr: float, cells: int = 200_001) -> tuple[np.ndarray, np.ndarray]:
    """The latching last iterate's masses on a grid (scipy's normal CDF): the free region ``o`` and the latched one
    ``K + o``, weighted by ``1 - pi`` and ``pi``."""
    p1 = (1 - qq) * norm.sf(thr / s) + qq * norm.sf((thr - 1) / s)
    p0 = norm.sf(thr / s)
    pi1, pi0 = 1 - (1 - p1) ** (n - 1), 1 - (1 - p0) ** (n - 1)
    edges = np.linspace(-12 * s, 1 + 12 * s, cells)
    f1 = np.diff((1 - qq) * norm.cdf(edges / s) + qq * norm.cdf((edges - 1) / s))
    f0 = np.diff(norm.cdf(edges / s))
    return np.concatenate([pi1 * f1, (1 - pi1) * f1]), np.concatenate([pi0 * f0, (1 - pi0) * f0])


def _linear_cells(qq: float, s: float, n: int, cells: int = 200_001) -> tuple[np.ndarray, np.ndarray]:
    """The linear-loss last iterate's masses on a grid: ``sum_k Binom(k; T, q) N(k, T sigma^2)`` and ``N(0, T
    sigma^2)``."""
    sd = s * math.sqrt(n)
    edges = np.linspace(-12 * sd, n + 12 * sd, cells)
    k = np.arange(n + 1)
    w = binom.pmf(k, n, qq)
    mix = np.sum(w[:, None] * norm.cdf((edges[None, :] - k[:, None]) / sd), axis=0)
    return np.diff(mix), np.diff(norm.cdf(edges / sd))


@LATCH.add_check("exact_between_bound_and_path", "numeric")
def _between():
    """At the audit case (q = 0.02, sigma = 0.7, T = 10, r = 2.5, delta = 1e-3), each on a grid of 2e5 cells: the
    naive linear-loss claim < epsilon_lower <= the last iterate's epsilon <= the path's PLD accountant (dpverify's
    PLD, 10 composed subsampled Gaussians), and the last iterate's is at least 0.9 of the path's (it leaks about as
    much as the path)."""
    d = CASE["delta"]
    lower = epsilon_lower(_POINT, d)
    last = _grid_epsilon(*_latch_cells(CASE["q"], CASE["sigma"], int(CASE["T"]), CASE["r"]), d)
    naive = _grid_epsilon(*_linear_cells(CASE["q"], CASE["sigma"], int(CASE["T"])), d)
    path = subsampled_gaussian_pld(CASE["q"], 1 / CASE["sigma"]).self_compose(int(CASE["T"])).epsilon(d)
    ok = naive < lower <= last * (1 + 1e-6) and last <= path * (1 + 1e-3) and last >= 0.9 * path
    return ok, f"naive {naive:.4f} < lower {lower:.4f} <= last iterate {last:.4f} <= path {path:.4f}", path, last


@LATCH.add_check("simulated_latch_frequency", "numeric")
def _frequency():
    """400000 runs of the latching DP-SGD (the audit case, the canary present; seed 3) simulated with numpy: the
    fraction latched at the end (above the threshold + 20 sigma) is latch_probability within 5 binomial standard
    errors."""
    rng = np.random.default_rng(3)
    n, s, thr = 400_000, CASE["sigma"], CASE["r"]
    latch = thr + 40 * s + 2
    theta = np.zeros(n)
    for _ in range(int(CASE["T"])):
        theta = np.where(theta >= thr, latch, 0.0) + (rng.random(n) < CASE["q"]) + s * rng.standard_normal(n)
    freq = float(np.mean(theta > thr + 20 * s))
    pi = LATCH.evaluate(epsilon=1.0, **_POINT).latch_probability
    z = abs(freq - pi) / math.sqrt(pi * (1 - pi) / n)
    return z < 5, f"frequency {freq:.5f} vs pi {pi:.5f} (z = {z:.2f})", pi, freq


def _pins():
    out = []
    for qq, s, n, thr, e in ((0.02, 0.7, 10, 2.5, 0.77), (0.1, 1.0, 5, 3.0, 0.3), (0.5, 0.5, 3, 1.0, 2.0)):
        p1 = (1 - qq) * norm.sf(thr / s) + qq * norm.sf((thr - 1) / s)
        p0 = norm.sf(thr / s)
        pi1, pi0 = 1 - (1 - p1) ** (n - 1), 1 - (1 - p0) ** (n - 1)
        out.append(({"q": qq, "sigma": s, "T": n, "r": thr, "epsilon": e},
                    {"delta_lower": pi1 - math.exp(e) * pi0, "latch_probability": pi1,
                     "latch_probability_neighbour": pi0}))
    return out


LATCH.add_pin("pin_scipy_normal", "the three conclusions against scipy.stats.norm.sf typed again at three points; "
              "rel 1e-9 (erfc and norm.sf agree to rounding)", _pins, rel=1e-9)

THEOREMS: tuple[Theorem, ...] = (LATCH,)
