"""Cebere, Bellet & Papernot (ICLR 2025), the crafted gradient at every step under Poisson subsampling: the last
iterate's exact law and privacy, and how far below the path's it is (derived here; reconstructed).

**What was read.** As for :mod:`dpverify.theorems.cebere2025.crafted`: the abstract and the introduction's opening
(arXiv:2405.14457 v3). The abstract: the adversary crafts "a gradient sequence designed to maximize the privacy loss
of the final model without relying on intermediate updates"; "when the crafted gradient is inserted at every
optimization step, we show that concealing the intermediate model updates in DP-SGD does not enhance the privacy
guarantees. The situation is more complex when the crafted gradient is not inserted at every step: our auditing
lower bound matches the privacy upper bound only for an adversarially-chosen loss landscape and a sufficiently large
batch size." The paper's body -- its sampling scheme, the form of its crafted gradient sequence, its theorem and its
measured numbers -- was **not** read. Everything below is derived here for one concrete instance, and is not the
paper's statement.

**The instance** (``cebere2025.thm_crafted_gradient_subsampled``). DP-SGD with Poisson subsampling at rate q (each
record in each step's batch with probability q, independently), clip C = 1, step eta = 1, noise multiplier sigma, T
steps, add/remove of one canary whose crafted gradient is the constant v in [-1, 1] at every step (the same direction
every step; every other record has gradient 0). With ``B_t ~ Bernoulli(q)`` the canary's inclusion at step t and
``xi_t`` iid N(0, 1), the update of step t is ``o_t = v B_t + sigma xi_t``, and

    theta_T = sum_t o_t = v K + sigma sqrt(T) Z,    K = sum_t B_t ~ Binomial(T, q), Z ~ N(0, 1) independent of K,

so with the canary the last iterate has the law ``P = sum_k Binom(k; T, q) N(k v, T sigma^2)`` and without it ``Q =
N(0, T sigma^2)``: the Binomial mixture of :func:`dpverify.samplers.negative_results.linear_last_iterate_delta` (the
linear-loss last iterate of Steinke et al., ICLR 2025). Derived here (v = 1, the clip bound, below; the pair's
epsilon depends on |v| only, by the reflection x -> -x):

1. *Moments* (check ``mixture_moments_from_the_mgf``, sympy, symbolic T): the moment generating function is
   ``M(u) = (1 - q + q e^u)^T e^{T sigma^2 u^2 / 2}``, so ``mean_last_iterate = M'(0) = T q`` and
   ``var_last_iterate = M''(0) - M'(0)^2 = T sigma^2 + T q (1 - q)``.
2. *Full batch* (check ``full_batch_reduction``): at q = 1 the Binomial is the point mass at T, the mixture is
   ``N(T, T sigma^2)``, and its ``mean / sqrt(var) = sqrt(T)/sigma`` is ``cebere2025.thm_crafted_gradient_every_step``'s
   ``mu_last_iterate``: no amplification, as the abstract states.
3. *The privacy loss is monotone* (check ``loss_monotone_with_a_floor``, sympy at T = 4): ``L(x) = log dP/dQ(x) = log
   sum_k w_k exp((k x - k^2/2) / (T sigma^2))`` has ``L'(x) = E_w~[K] / (T sigma^2) > 0`` (the mean of K under the
   tilted weights), tends to +inf at +inf and to ``log w_0 = T log(1 - q)`` at -inf. So ``{L > epsilon}`` is a
   half-line ``x > x*`` and the forward ``delta(epsilon) = P(X > x*) - e^epsilon Q(X > x*)``, a finite sum of normal
   tails; the backward direction (Q against P) is the half-line ``x < x_*`` with ``L(x_*) = -epsilon``, nonzero only
   when ``T log(1 - q) < -epsilon``. :func:`last_iterate_delta` computes both (log space, one root each), and check
   ``exact_delta_against_quadrature`` pins it against ``scipy.integrate.quad`` of ``(p - e^eps q)_+`` at three points.
4. *Below the path* (check ``exact_below_path_on_a_grid``): the path ``(o_1, ..., o_T)`` is T independent
   Poisson-subsampled Gaussian mechanisms of sensitivity 1 and noise sigma; their T-fold composition is its privacy,
   which dpverify's PLD accountant (:func:`path_epsilon`) bounds from above; ``theta_T`` is a function of the path
   (its sum), so by post-processing ``epsilon_last(delta) <= epsilon_path(delta)``, with equality at q = 1 (2.).
5. *Far above the naive claim* (check ``far_above_the_naive_claim``): at the audit case (q = 0.5, sigma = 1, T = 16,
   delta = 1e-5) the last iterate's epsilon 12.98 is 3.7 times the one subsampled step the naive hidden-state claim
   credits (3.53), and 0.969 of the path's (13.39).

**Where the hidden state amplifies** (measured, not proved; delta = 1e-5; ratio = exact last iterate / path's PLD):

    sigma  T   q=0.01  q=0.1  q=0.5  q=0.9  q=1
    0.5    4   0.275   0.820  0.998  1.000  1.000
    0.5   16   0.160   0.593  0.947  0.999  1.000
    1      4   0.500   0.797  0.993  1.000  1.000
    1     16   0.462   0.749  0.969  0.999  1.000
    1     64   0.538   0.756  0.949  0.998  1.000
    2      4   0.894   0.929  0.994  1.000  1.000
    2     16   0.901   0.929  0.988  1.000  1.000
    2     64   0.917   0.936  0.984  0.999  1.000

Every q < 1 on the grid gives a ratio below 1: with a *constant* crafted gradient and Poisson sampling the last
iterate hides which steps sampled the canary, and the hidden state does amplify -- little when q >= 0.5 or sigma = 2
(ratio >= 0.88), much at small q and small sigma (0.16 at q = 0.01, sigma = 0.5, T = 16: the path sees a
single inclusion through noise sigma, the last iterate through sigma sqrt(T)). So the abstract's "does not enhance"
is reproduced exactly in full batch and approximately at large sampling rates, and it is **not** reproduced by this
instance at small rates: either the paper's subsampled statement is about a different crafted sequence or sampling
scheme, or it is an empirical statement at rates where the gap is small -- the body was not read, so which is open
(confidence UNCERTAIN as a statement of the paper; the derivation itself is checked here).
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp
from scipy import integrate
from scipy.optimize import brentq
from scipy.special import log_ndtr, logsumexp
from scipy.stats import binom, norm

from dpverify.calculus.accounting.pld import subsampled_gaussian_pld
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem
from dpverify.theorems.cebere2025.crafted import CRAFTED
from dpverify.validation import check_delta, check_positive_int, check_real, check_sampling_rate

__all__ = ["THEOREMS", "SUBSAMPLED", "CASE", "last_iterate_delta", "last_iterate_epsilon", "path_epsilon"]

SYMBOLS = sy.pick("q", "sigma", "T_iterations")
q, sigma, T = SYMBOLS["q"], SYMBOLS["sigma"], SYMBOLS["T"]

#: The audit case's parameters (``dp_sgd_crafted_gradient_subsampled_last_iterate``): sampling rate, noise
#: multiplier, steps, claimed steps, delta; the pair is the canary (gradient 1) against a null record.
CASE: dict[str, float] = {"q": 0.5, "sigma": 1.0, "T": 16, "claimed_steps": 1, "delta": 1e-5}

_EPS_MAX = 1e4


# ------------------------------------------------------------------------------------------- the exact last iterate
def _log_weights(rate: float, steps: int) -> np.ndarray:
    """``log Binom(k; T, q)``, k = 0..T: the law of the canary's inclusion count (``-inf`` where the mass is 0)."""
    return binom.logpmf(np.arange(steps + 1), steps, rate)


def _checked(rate: float, noise: float, steps: int) -> tuple[float, float, int]:
    return (check_sampling_rate(rate, "q"), check_real("sigma", noise, low=0.0, low_inclusive=False),
            check_positive_int(steps, "T"))


def last_iterate_delta(epsilon: float, rate: float, noise: float, steps: int) -> float:
    """The exact ``delta(epsilon)`` of the last iterate, both directions (the larger): ``P = sum_k Binom(k; T, q)
    N(k, T sigma^2)`` (the canary, gradient 1, at every step, Poisson rate q) against ``Q = N(0, T sigma^2)``.

    The privacy loss ``L(x) = logsumexp_k(log w_k + k (x - k/2) / (T sigma^2))`` is increasing (module docstring,
    3.), so the forward set ``{L > epsilon}`` is ``x > x*`` with ``L(x*) = epsilon`` and ``delta_fwd = P(X > x*) -
    e^epsilon Q(X > x*)``; the backward set ``{L < -epsilon}`` is ``x < x_*`` (nonempty only when ``log w_0 <
    -epsilon``) and ``delta_bwd = Q(X < x_*) - e^epsilon P(X < x_*)``. Tails in log space (``log_ndtr``); each root by
    ``brentq`` on a bracket grown until it holds the root."""
    rate, noise, steps = _checked(rate, noise, steps)
    eps = check_real("epsilon", epsilon, low=0.0)
    k = np.arange(steps + 1)
    logw = _log_weights(rate, steps)
    sd = noise * math.sqrt(steps)
    var = sd * sd

    def loss(x: float) -> float:
        return float(logsumexp(logw + k * (x - k / 2.0) / var))

    def cross(target: float) -> float:
        lo, hi = -10.0 * sd - 1.0, steps + 10.0 * sd + 1.0
        while loss(lo) > target:
            lo = 2.0 * lo - 1.0
        while loss(hi) < target:
            hi = 2.0 * hi + 1.0
        return float(brentq(lambda x: loss(x) - target, lo, hi, xtol=1e-12 * max(1.0, sd), rtol=1e-15))

    x = cross(eps)
    log_p = float(logsumexp(logw + log_ndtr(-(x - k) / sd)))
    log_q = float(log_ndtr(-x / sd))
    fwd = math.exp(log_p) * -math.expm1(min(0.0, eps + log_q - log_p))
    bwd = 0.0
    if logw[0] < -eps:  # the loss goes below -epsilon on the left
        x2 = cross(-eps)
        log_qb = float(log_ndtr(x2 / sd))
        log_pb = float(logsumexp(logw + log_ndtr((x2 - k) / sd)))
        bwd = math.exp(log_qb) * -math.expm1(min(0.0, eps + log_pb - log_qb))
    return max(0.0, fwd, bwd)


def last_iterate_epsilon(delta: float, rate: float, noise: float, steps: int) -> float:
    """The exact epsilon at ``delta`` of the last iterate (:func:`last_iterate_delta`, nonincreasing in epsilon):
    0 when ``delta(0) <= delta``, else the root of ``delta(epsilon) = delta`` (``brentq``); ``inf`` beyond 1e4."""
    d = check_delta(delta, allow_zero=False)
    if last_iterate_delta(0.0, rate, noise, steps) <= d:
        return 0.0
    hi = 1.0
    while last_iterate_delta(hi, rate, noise, steps) > d:
        hi *= 2.0
        if hi > _EPS_MAX:
            return math.inf
    return float(brentq(lambda e: last_iterate_delta(e, rate, noise, steps) - d, 0.0, hi, xtol=1e-12, rtol=1e-12))


@functools.lru_cache(maxsize=64)
def path_epsilon(rate: float, noise: float, steps: int, delta: float) -> float:
    """The path's epsilon at ``delta``: dpverify's PLD accountant of ``steps`` composed Poisson-subsampled Gaussians
    (rate q, ``mu = 1 / sigma``; add/remove, both directions), an upper bound on the path's exact epsilon. With
    ``steps = claimed_steps`` it is the naive claim. Cached (a composition takes up to a second)."""
    rate, noise, steps = _checked(rate, noise, steps)
    return float(subsampled_gaussian_pld(rate, 1.0 / noise).self_compose(steps).epsilon(check_delta(delta)))


# ------------------------------------------------------------------------------------------------------ the item
SUBSAMPLED = Theorem(
    "cebere2025.thm_crafted_gradient_subsampled",
    "A crafted gradient at every step, Poisson-subsampled: the last iterate is a Binomial mixture of Gaussians, "
    "below the path's privacy (equal at q = 1) and far above one step's",
    Source("cebere2025", "abstract ('inserted at every optimization step ... does not enhance the privacy "
           "guarantees')", "Poisson-subsampled case derived here (the body was not read: "
           "see the module docstring)", reconstructed=True, confidence="UNCERTAIN"),
    "privacy",
    symbols=SYMBOLS,
    hypotheses=[Hypothesis("rate_at_most_one", sp.Le(q, 1), "a sampling rate q <= 1")],
    conclusion={"mean_last_iterate": T * q, "var_last_iterate": T * sigma**2 + T * q * (1 - q)},
    statement=(
        "DP-SGD with Poisson subsampling at rate q (clip 1, step 1, noise multiplier sigma, T steps) on a canary whose "
        "crafted gradient is 1 at every step (other records: gradient 0) releases a last iterate distributed as the "
        "Binomial(T, q) mixture sum_k Binom(k; T, q) N(k, T sigma^2) with the canary and N(0, T sigma^2) without it: "
        "mean mean_last_iterate = T q, variance var_last_iterate = T sigma^2 + T q (1 - q). Its exact epsilon(delta) "
        "(closed form up to a root) is at most the path's (the T-fold composition of the Poisson-subsampled Gaussian: "
        "the last iterate is the path's sum), equal to it at q = 1 (sqrt(T)/sigma-GDP, "
        "cebere2025.thm_crafted_gradient_every_step), below it for q < 1 (ratio 0.969 at q = 0.5, sigma = 1, T = 16; "
        "0.16 at q = 0.01, sigma = 0.5), and far above the naive one-subsampled-step claim (3.7 times at that point). "
        "Keywords: q (sampling rate), sigma (noise multiplier), T (steps)."
    ),
    empirical=[EmpiricalLink("dp_sgd_crafted_gradient_last_iterate",
                             "audits/test_dp_sgd_crafted_gradient_last_iterate.py",
                             "the sampler with sampling_rate = 0.5: case dp_sgd_crafted_gradient_subsampled_last_"
                             "iterate (audits/test_dp_sgd_crafted_gradient_subsampled_last_iterate.py), the last "
                             "iterate audited against one subsampled step's privacy: a violation")],
    notes=("Derived here for a constant crafted gradient; the paper's subsampled statement and crafted sequence were "
           "not read (UNCERTAIN as to the paper; the derivation is exact). The measured ratio table is in the module "
           "docstring; that the ratio is < 1 for every q < 1 is measured on the grid, not proved."),
)


@SUBSAMPLED.add_check("mixture_moments_from_the_mgf", "symbolic")
def _moments():
    """The last iterate ``K + sigma sqrt(T) Z`` (K ~ Binomial(T, q) independent of Z ~ N(0, 1)) has the moment
    generating function ``(1 - q + q e^u)^T exp(T sigma^2 u^2 / 2)``; its first derivative at 0 and its second minus
    the first squared are the conclusion's mean and variance (sympy, T symbolic)."""
    u = sp.Symbol("u_var", real=True)
    mgf = (1 - q + q * sp.exp(u)) ** T * sp.exp(T * sigma**2 * u**2 / 2)
    m1 = sp.diff(mgf, u).subs(u, 0)
    m2 = sp.diff(mgf, u, 2).subs(u, 0)
    dm = sp.simplify(m1 - SUBSAMPLED.conclusion["mean_last_iterate"])
    dv = sp.simplify(m2 - m1**2 - SUBSAMPLED.conclusion["var_last_iterate"])
    return dm == 0 and dv == 0, f"M'(0) - mean = {dm}; M''(0) - M'(0)^2 - variance = {dv}"


@SUBSAMPLED.add_check("full_batch_reduction", "symbolic")
def _full_batch():
    """At q = 1 the inclusion count's generating function ``(1 - q + q e^u)^T`` is ``e^{u T}`` (K = T surely), the
    variance is ``T sigma^2`` and ``mean / sqrt(variance)`` is the full-batch item's ``mu_last_iterate = sqrt(T) /
    sigma`` (sympy): the subsampled item contains the full-batch one."""
    u = sp.Symbol("u_var", real=True)
    mgf = sp.simplify(((1 - q + q * sp.exp(u)) ** T).subs(q, 1) - sp.exp(u * T))
    mean = SUBSAMPLED.conclusion["mean_last_iterate"].subs(q, 1)
    var = SUBSAMPLED.conclusion["var_last_iterate"].subs(q, 1)
    mu_gap = sp.simplify(mean / sp.sqrt(var) - CRAFTED.conclusion["mu_last_iterate"])
    ok = mgf == 0 and sp.simplify(var - T * sigma**2) == 0 and mu_gap == 0
    return ok, f"generating function at q = 1 minus e^(uT): {mgf}; mu at q = 1 minus the full-batch item's: {mu_gap}"


@SUBSAMPLED.add_check("loss_monotone_with_a_floor", "symbolic")
def _monotone():
    """At T = 4 (sympy, q = 1/(1 + p) with p > 0, so 0 < q < 1): the privacy loss ``L(x) = log sum_k w_k exp((k x -
    k^2/2)/(T sigma^2))`` has a positive derivative (``is_positive``), and ``L(x) - T log(1 - q) -> 0`` as ``x ->
    -oo`` (each term ``w_k e^{...} / w_0``, k >= 1, tends to 0): each direction's privacy-loss set is a half-line,
    and the backward one is empty unless ``T log(1 - q) < -epsilon``."""
    x = sp.Symbol("x_var", real=True)
    p = sp.Symbol("p_var", positive=True)
    n = 4
    rate = 1 / (1 + p)
    terms = [sp.binomial(n, j) * rate**j * (1 - rate) ** (n - j) * sp.exp((j * x - sp.Rational(j * j, 2))
                                                                          / (n * sigma**2)) for j in range(n + 1)]
    slope_positive = sp.diff(sp.log(sum(terms)), x).is_positive
    tails = [sp.limit(sp.simplify(t / terms[0]), x, -sp.oo) for t in terms[1:]]
    ok = slope_positive is True and all(t == 0 for t in tails)
    return ok, f"L'(x) > 0: {slope_positive}; limits of w_k e^(...) / w_0 at -oo (k = 1..4): {tails}"


@SUBSAMPLED.add_check("exact_delta_against_quadrature", "numeric")
def _quadrature():
    """:func:`last_iterate_delta` against ``scipy.integrate.quad`` of ``(p - e^eps q)_+`` and ``(q - e^eps p)_+``
    (the larger), with the densities typed again from scipy.stats (binom.pmf, norm.pdf), at three points (q, sigma,
    T, epsilon) whose deltas span 1e-5 to 0.2; absolute tolerance 1e-9 (quad's epsabs 1e-13 over at most 800
    subintervals; the closed form is exact up to a root found to 1e-12 sd)."""
    worst = 0.0
    lines = []
    for rate, noise, steps, eps in ((0.5, 1.0, 16, 3.0), (0.1, 0.8, 6, 0.4), (0.01, 0.5, 4, 1.0)):
        sd = noise * math.sqrt(steps)
        k = np.arange(steps + 1)
        w = binom.pmf(k, steps, rate)
        e = math.exp(eps)

        def p_pdf(x: float) -> float:
            return float(np.sum(w * norm.pdf(x, k, sd)))

        def q_pdf(x: float) -> float:
            return float(norm.pdf(x, 0.0, sd))

        lo, hi = -14.0 * sd, steps + 14.0 * sd
        opts = {"points": [0.0, steps * rate, float(steps)], "limit": 800, "epsabs": 1e-13, "epsrel": 1e-11}
        fwd = integrate.quad(lambda x: max(0.0, p_pdf(x) - e * q_pdf(x)), lo, hi, **opts)[0]
        bwd = integrate.quad(lambda x: max(0.0, q_pdf(x) - e * p_pdf(x)), lo, hi, **opts)[0]
        quad = max(fwd, bwd)
        exact = last_iterate_delta(eps, rate, noise, steps)
        worst = max(worst, abs(exact - quad))
        lines.append(f"({rate}, {noise}, {steps}, {eps}): {exact:.6e} vs {quad:.6e}")
    return worst < 1e-9, "; ".join(lines) + f"; max |closed form - quadrature| = {worst:.1e}", 0.0, worst


def _ratio(rate: float, noise: float, steps: int, delta: float) -> tuple[float, float]:
    return last_iterate_epsilon(delta, rate, noise, steps), path_epsilon(rate, noise, steps, delta)


@SUBSAMPLED.add_check("exact_below_path_on_a_grid", "numeric")
def _below_path():
    """On the grid (sigma, T) in {(1, 16), (2, 16)}, q in {0.01, 0.1, 0.5}, and (1, 4) at q in {0.01, 0.1, 1},
    delta = 1e-5: the last iterate's exact epsilon is at most the path's PLD accountant (rel 1e-9: post-processing,
    and the PLD is an upper bound); at q = 1 it equals it within the PLD's discretisation (rel 2e-3, the full-batch
    item); at every q < 1 it is below 0.999 of it (the hidden state amplifies; measured). Reports the smallest
    ratio."""
    ratios: dict[tuple, float] = {}
    for noise, steps, rates in ((1.0, 4, (0.01, 0.1, 1.0)), (1.0, 16, (0.01, 0.1, 0.5)),
                                (2.0, 16, (0.01, 0.1, 0.5))):
        for rate in rates:
            last, path = _ratio(rate, noise, steps, 1e-5)
            ratios[(noise, steps, rate)] = last / path
    below = all(r <= 1 + 1e-9 for r in ratios.values())
    equal_at_one = all(abs(r - 1) < 2e-3 for key, r in ratios.items() if key[2] == 1.0)
    amplified = all(r < 0.999 for key, r in ratios.items() if key[2] < 1.0)
    low = min(ratios, key=ratios.__getitem__)
    detail = ", ".join(f"(sigma {s:g}, T {n}, q {r:g}): {v:.3f}" for (s, n, r), v in ratios.items())
    return (below and equal_at_one and amplified, f"last / path: {detail}; smallest at {low}",
            1.0, ratios[low])


@SUBSAMPLED.add_check("far_above_the_naive_claim", "numeric")
def _naive():
    """At the audit case (q = 0.5, sigma = 1, T = 16, one claimed step, delta = 1e-5): the last iterate's exact
    epsilon is more than 3 times the naive claim (one subsampled step's PLD) and at least 0.95 of the path's PLD."""
    d = CASE["delta"]
    last, path = _ratio(CASE["q"], CASE["sigma"], int(CASE["T"]), d)
    naive = path_epsilon(CASE["q"], CASE["sigma"], int(CASE["claimed_steps"]), d)
    ok = last > 3 * naive and 0.95 * path <= last <= path
    return ok, f"naive {naive:.4f} < exact {last:.4f} <= path {path:.4f} (last / path {last / path:.4f})", naive, last


@SUBSAMPLED.add_check("simulated_last_iterate", "numeric")
def _simulated():
    """200000 runs of the 16 steps of the audit case (q = 0.5, sigma = 1; seed 11) simulated with numpy, the canary
    in each step's batch with probability q (Bernoulli): the last iterate's mean and variance are the conclusion's
    within 5 standard errors (the mean's ``sqrt(var / n)``; the variance's ``sqrt((m4 - var^2) / n)`` from the
    sample's fourth central moment), and its distribution function at 0, T q and T is the mixture's within 5
    binomial standard errors."""
    rng = np.random.default_rng(11)
    n, rate, noise, steps = 200_000, CASE["q"], CASE["sigma"], int(CASE["T"])
    theta = np.zeros(n)
    for _ in range(steps):
        theta += (rng.random(n) < rate) + noise * rng.standard_normal(n)
    ev = SUBSAMPLED.evaluate(q=rate, sigma=noise, T=steps)
    mean, var = ev.mean_last_iterate, ev.var_last_iterate
    centred = theta - theta.mean()
    z_mean = abs(theta.mean() - mean) / math.sqrt(var / n)
    z_var = abs(centred.var() - var) / math.sqrt((np.mean(centred**4) - centred.var() ** 2) / n)
    sd = noise * math.sqrt(steps)
    w = binom.pmf(np.arange(steps + 1), steps, rate)
    z_cdf = 0.0
    for x in (0.0, steps * rate, float(steps)):
        law = float(np.sum(w * norm.cdf((x - np.arange(steps + 1)) / sd)))
        z_cdf = max(z_cdf, abs(np.mean(theta <= x) - law) / math.sqrt(law * (1 - law) / n))
    ok = z_mean < 5 and z_var < 5 and z_cdf < 5
    return ok, f"z mean {z_mean:.2f}, z variance {z_var:.2f}, max z of the distribution function {z_cdf:.2f}", \
        var, float(centred.var())


def _pins():
    out = []
    for rate, noise, steps in ((0.5, 1.0, 16), (0.01, 0.5, 4), (0.9, 2.0, 64)):
        law = binom(steps, rate)
        out.append(({"q": rate, "sigma": noise, "T": steps},
                    {"mean_last_iterate": float(law.mean()), "var_last_iterate": float(law.var()) + steps * noise**2}))
    return out


SUBSAMPLED.add_pin("pin_binomial_moments", "mean and variance against scipy.stats.binom's mean and variance of the "
                   "inclusion count plus the noise variance T sigma^2 (law of total variance) at three points; rel "
                   "1e-12 (rounding)", _pins, rel=1e-12)

THEOREMS: tuple[Theorem, ...] = (SUBSAMPLED,)
