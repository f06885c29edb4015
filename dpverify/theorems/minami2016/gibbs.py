"""Minami, Arai, Sato, Nakagawa 2016: (epsilon, delta)-DP of the Gibbs posterior without a bounded sensitivity.

**Setting.** The Gibbs posterior of a dataset D = (x_1, ..., x_n) is

    G_D(theta) ∝ exp(-beta sum_i l(theta, x_i)) pi(theta),        theta in R^d,

with a loss ``l(., x)`` convex and L-Lipschitz in theta for every record, an inverse temperature beta > 0 and a prior
pi that is m-strongly log-concave (``-log pi`` m-strongly convex; a Gaussian prior N(0, I / m) is the example). Its
sensitivity ``sup |l(theta, x) - l(theta, x')|`` may be infinite (a linear or logistic loss on R^d), so the
exponential mechanism's pure-DP argument does not apply; the paper's abstract states (epsilon, delta)-DP "with convex
and Lipschitz loss functions ... allowing the loss functions to have an unbounded sensitivity".

**What was read, and what was not.** Read: the NeurIPS 2016 proceedings metadata and abstract, the title page, and
the method named in the issue (log-Sobolev inequality / Gaussian concentration). The body of the paper (its theorem
numbers, the printed constants, its figures) could not be read from the material available here. Both items are
therefore ``reconstructed``:

- ``minami2016.lem_gibbs_privacy_loss_concentration`` (R-high as mathematics, proved by the checks): with
  ``a = 2 beta L / sqrt(m)``, the privacy loss ``Lambda = log G_D / G_D'`` under G_D is a-Lipschitz-in-a-Gaussian
  sense: G_D is m-strongly log-concave (convex loss + prior), so it satisfies the log-Sobolev inequality with constant
  1/m; the gradient of Lambda is ``beta (grad l(theta, x') - grad l(theta, x))``, of norm <= 2 beta L; so
  ``E Lambda = KL(G_D || G_D') <= |grad Lambda|^2 / (2 m) <= a^2 / 2`` (LSI of G_D') and
  ``P(Lambda - E Lambda >= t) <= exp(-t^2 / (2 a^2))`` (Herbst), whence (epsilon, delta)-DP with
  ``epsilon = a^2 / 2 + a sqrt(2 log(1/delta))`` -- the tail-bound form of a-GDP, valid for every epsilon.
- ``minami2016.thm_gibbs_posterior_dp`` (UNCERTAIN as to the printed form): the condition form "the Gibbs posterior is
  (epsilon, delta)-DP if beta <= epsilon / (2 L) sqrt(m / (1 + 2 log(1/delta)))", as remembered from the literature
  that cites the paper, not read. It follows from the lemma **only for epsilon <= 1** (check
  ``follows_from_the_concentration_lemma``); for large epsilon the condition is false: on the Gaussian instance below
  the exact epsilon exceeds the target from epsilon = 7.4 (delta = 1e-2), 9.0 (1e-5), 10.8 (1e-12) on (check
  ``fails_for_large_epsilon``). The item encodes the hypothesis ``epsilon <= 1``; a reader of the paper must confirm
  its range (or find it stated differently).

**Exact instance.** The linear loss ``l(theta, x) = -<x, theta>`` with ``|x| <= L`` is convex and L-Lipschitz, and
with the prior N(0, I / m) the Gibbs posterior is ``N(beta sum_i x_i / m, I / m)``: a replaced record moves the mean
by ``beta |x - x'| / m <= 2 beta L / m``, so the pair is a Gaussian shift of Mahalanobis distance ``a = 2 beta L /
sqrt(m)`` at the worst pair: exactly a-GDP (the reference sampler ``gibbs_posterior``). The LSI bound is the
tail-bound form of the same a: exact / bound = 0.57 (small a) to 0.96 (a = 20) at delta = 1e-5 (check
``exact_gaussian_instance_below``); the theorem's condition at epsilon <= 1 is loose by exact / epsilon = 0.49-0.87. On a logistic loss (non-Gaussian posterior) the exact epsilon is
computed by quadrature and is below both statements (checks ``logistic_instance_below``).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem
from dpverify.theorems.minami2016.quadrature import grid_epsilon, uniform_grid

__all__ = ["THEOREMS", "LEMMA", "THM", "lsi_epsilon", "beta_max", "logistic_pair_epsilon"]

SYMBOLS = sy.pick("epsilon", "delta", "beta", "L", "m")
epsilon, delta, beta, L, m = (SYMBOLS[k] for k in ("epsilon", "delta", "beta", "L", "m"))

#: The Gaussian-concentration scale of the privacy loss: the Lipschitz constant 2 beta L of Lambda over sqrt(m).
_A = 2 * beta * L / sp.sqrt(m)


def lsi_epsilon(beta_value: float, L_value: float, m_value: float, delta_value: float) -> float:
    """The lemma's ``a^2 / 2 + a sqrt(2 log(1/delta))``, ``a = 2 beta L / sqrt(m)`` (numpy-free float form)."""
    a = 2.0 * beta_value * L_value / math.sqrt(m_value)
    return 0.5 * a * a + a * math.sqrt(2.0 * math.log(1.0 / delta_value))


def beta_max(epsilon_value: float, delta_value: float, L_value: float, m_value: float) -> float:
    """The theorem's largest inverse temperature ``epsilon / (2 L) sqrt(m / (1 + 2 log(1/delta)))``."""
    return epsilon_value / (2.0 * L_value) * math.sqrt(m_value / (1.0 + 2.0 * math.log(1.0 / delta_value)))


LEMMA = Theorem(
    "minami2016.lem_gibbs_privacy_loss_concentration",
    "Gibbs posterior, convex L-Lipschitz loss, m-strongly log-concave prior: (a^2/2 + a sqrt(2 log(1/delta)), "
    "delta)-DP with a = 2 beta L / sqrt(m)",
    Source("minami2016", "proof of the main theorem (log-Sobolev inequality, Gaussian concentration)",
           "Sec. 3 (body not read: the constants are derived here and proved by the checks)", reconstructed=True,
           confidence="R-high"),
    "privacy",
    symbols=SYMBOLS,
    hypotheses=[sy.delta_positive(delta, why="log(1/delta)")],
    conclusion={"epsilon": _A**2 / 2 + _A * sp.sqrt(2 * sp.log(1 / delta))},
    statement=(
        "Let l(., x) be convex and L-Lipschitz for every record, pi m-strongly log-concave and beta > 0. The Gibbs "
        "posterior G_D ∝ exp(-beta sum_i l(theta, x_i)) pi(theta) is (epsilon, delta)-DP under replace-one adjacency "
        "for every 0 < delta < 1 with epsilon = a^2/2 + a sqrt(2 log(1/delta)), a = 2 beta L / sqrt(m) (KL <= a^2/2 "
        "by the log-Sobolev inequality; Gaussian concentration of the a-Lipschitz privacy loss)."
    ),
    empirical=[EmpiricalLink("gibbs_posterior", "audits/test_gibbs_posterior.py",
                             "linear loss, Gaussian prior: the Gibbs posterior N(beta sum x / m, I / m); the worst "
                             "pair is exactly a-GDP")],
    notes=(
        "The proof route is the paper's (log-Sobolev inequality; no sensitivity); the constants are derived here. It "
        "is the tail-bound (epsilon, delta) of a-GDP; gopi2022.thm_gdp_strongly_convex_lipschitz gives the exact "
        "a-GDP curve under the same hypotheses (Lipschitz perturbation 2 beta L, strong convexity m)."
    ),
)

THM = Theorem(
    "minami2016.thm_gibbs_posterior_dp",
    "Gibbs posterior is (epsilon, delta)-DP if beta <= epsilon/(2L) sqrt(m/(1 + 2 log(1/delta))), 0 < epsilon <= 1",
    Source("minami2016", "main theorem (number not read)", "Sec. 3, the (epsilon, delta)-DP of Gibbs posteriors "
           "(form as cited, not read; see the module docstring)", reconstructed=True, confidence="UNCERTAIN"),
    "privacy",
    symbols=SYMBOLS,
    hypotheses=[
        sy.delta_positive(delta, why="log(1/delta)"),
        Hypothesis("epsilon_at_most_one", sp.Le(epsilon, 1),
                   "epsilon <= 1: the condition follows from the concentration lemma only there, and fails on the "
                   "Gaussian instance beyond epsilon ~ 7-11 (check fails_for_large_epsilon)"),
        Hypothesis("inverse_temperature_small",
                   sp.Le(beta, epsilon / (2 * L) * sp.sqrt(m / (1 + 2 * sp.log(1 / delta)))),
                   "beta <= epsilon / (2 L) sqrt(m / (1 + 2 log(1/delta)))"),
    ],
    conclusion={"beta_max": epsilon / (2 * L) * sp.sqrt(m / (1 + 2 * sp.log(1 / delta)))},
    statement=(
        "Under the lemma's hypotheses (convex L-Lipschitz loss, m-strongly log-concave prior), the Gibbs posterior "
        "with inverse temperature beta <= beta_max = epsilon / (2 L) sqrt(m / (1 + 2 log(1/delta))) is "
        "(epsilon, delta)-DP, for 0 < epsilon <= 1 and 0 < delta < 1. A condition on beta: epsilon and delta are "
        "inputs (Evaluation.guarantee reads them)."
    ),
    empirical=[EmpiricalLink("gibbs_posterior", "audits/test_gibbs_posterior.py",
                             "beta calibrated to beta_max(epsilon, delta); the worst pair is exactly a-GDP with "
                             "a = epsilon / sqrt(1 + 2 log(1/delta))")],
    notes=(
        "Reconstructed, UNCERTAIN: the printed form was not read. The encoded condition is proved here for "
        "epsilon <= 1 (from the lemma) and shown false for large epsilon on the exact Gaussian instance."
    ),
)


# -- checks of the lemma --------------------------------------------------------------------------------------------


@LEMMA.add_check("kl_and_tail_of_the_gaussian_pair", "symbolic")
def _lemma_symbolic():
    """On the extremal Gaussian pair P = N(0, 1/m), Q = N(2 beta L / m, 1/m) (linear loss, records +-L): the privacy
    loss log p/q is linear in theta with slope 2 beta L (= the Lipschitz bound of the lemma: attained), its mean under
    P (the KL, by sympy's integral) is a^2/2 (= the LSI bound: attained) and its standard deviation is a; the tail
    exp(-t^2 / (2 a^2)) = delta at t = a sqrt(2 log(1/delta)); the sum is the conclusion."""
    th = sp.Symbol("theta_var", real=True)
    shift = 2 * beta * L / m
    logp = -m * th**2 / 2
    logq = -m * (th - shift) ** 2 / 2
    lam = sp.expand(logp - logq)
    slope = sp.simplify(sp.diff(lam, th))
    dens = sp.sqrt(m / (2 * sp.pi)) * sp.exp(-m * th**2 / 2)
    kl = sp.simplify(sp.integrate(lam * dens, (th, -sp.oo, sp.oo)))
    var = sp.simplify(sp.integrate((lam - kl) ** 2 * dens, (th, -sp.oo, sp.oo)))
    lg = sp.Symbol("l_var", positive=True)  # log(1/delta), delta = e^-l in (0, 1)
    t = _A * sp.sqrt(2 * lg)
    tail_ok = sp.simplify(sp.exp(-t**2 / (2 * _A**2)) - sp.exp(-lg)) == 0
    conclusion = LEMMA.conclusion["epsilon"].subs(delta, sp.exp(-lg))
    ok = (sp.simplify(slope + 2 * beta * L) == 0 and sp.simplify(kl - _A**2 / 2) == 0
          and sp.simplify(var - _A**2) == 0 and tail_ok
          and sp.simplify(_A**2 / 2 + t - conclusion) == 0)
    return ok, f"slope {slope}, KL {kl}, variance {var}, tail exp(-t^2/(2a^2)) = delta at t = {t}: {tail_ok}"


#: (delta, a) grid of the Gaussian instance: a = 2 beta L / sqrt(m), from 0.01 to 20.
_A_GRID = np.geomspace(0.01, 20.0, 20)
_DELTAS = (1e-2, 1e-3, 1e-5, 1e-8, 1e-12)


@LEMMA.add_check("exact_gaussian_instance_below", "numeric")
def _lemma_gaussian():
    """The Gaussian instance's exact epsilon at delta (a-GDP, the exact hockey stick, gaussian_epsilon) is <= the
    conclusion at 20 values of a in [0.01, 20] and delta in {1e-2, 1e-3, 1e-5, 1e-8, 1e-12}; the largest exact /
    bound is reported (the bound's looseness: exact / bound runs 0.57 (a = 0.01) to 0.96 (a = 20) at delta = 1e-5:
    the a^2/2 mean term dominates both for large a; 0.975 at most over the grid)."""
    worst, at_1e5 = 0.0, []
    for d in _DELTAS:
        for a in _A_GRID:
            # beta = a sqrt(m) / (2 L) at L = m = 1
            bound = LEMMA.evaluate(beta=a / 2.0, L=1.0, m=1.0, delta=d).epsilon
            ratio = gaussian_epsilon(d, float(a)) / bound
            worst = max(worst, ratio)
            if d == 1e-5:
                at_1e5.append(ratio)
    return worst <= 1.0, (f"max exact / bound = {worst:.4f}; at delta = 1e-5 the ratio runs "
                          f"{min(at_1e5):.3f}-{max(at_1e5):.3f}"), 1.0, worst


def logistic_log_density(theta: np.ndarray, xs: np.ndarray, ys: np.ndarray, beta_value: float,
                         m_value: float) -> np.ndarray:
    """Unnormalised log Gibbs posterior of the logistic loss ``l(theta, (x, y)) = log(1 + e^(-y x theta))`` (convex,
    |x|-Lipschitz) with the prior N(0, 1/m), at each theta of a grid (1-d)."""
    z = -np.outer(theta, ys * xs)
    return -beta_value * np.sum(np.logaddexp(0.0, z), axis=1) - 0.5 * m_value * theta**2


def logistic_pair_epsilon(beta_value: float, L_value: float, m_value: float, delta_value: float,
                          n: int = 5) -> float:
    """The exact epsilon at delta (both directions, quadrature) of the logistic Gibbs posterior on
    the pair: n records (L, +1) vs the same with the first record (L, -1) (the loss gradients differ by 2L).
    Quadrature on 30001 points of [-30/sqrt(m) - 5, 30/sqrt(m) + 5] (the posterior's sd is >= 0.4 on the checks'
    parameters: > 100 points per sd)."""
    xs = np.full(n, float(L_value))
    ys, ys2 = np.ones(n), np.ones(n)
    ys2[0] = -1.0
    grid = uniform_grid(0.0, 30.0 / math.sqrt(m_value) + 5.0, 30001)
    return grid_epsilon(logistic_log_density(grid, xs, ys, beta_value, m_value),
                        logistic_log_density(grid, xs, ys2, beta_value, m_value), delta_value)


#: (beta, L, m) of the logistic checks.
_LOGISTIC = ((0.1, 1.0, 1.0), (0.5, 1.0, 1.0), (1.0, 1.0, 1.0), (2.0, 1.0, 4.0), (3.0, 0.5, 0.5))


@LEMMA.add_check("logistic_instance_below", "numeric")
def _lemma_logistic():
    """A non-Gaussian Gibbs posterior: logistic loss (convex, L-Lipschitz), prior N(0, 1/m), 5 records (L, +1), one
    flipped to (L, -1). Its exact epsilon (quadrature, both directions) is <= the conclusion at five (beta, L, m)
    and delta in {1e-3, 1e-6}; the largest exact / bound is reported."""
    worst = 0.0
    for b, l_, m_ in _LOGISTIC:
        for d in (1e-3, 1e-6):
            worst = max(worst, logistic_pair_epsilon(b, l_, m_, d) / LEMMA.evaluate(beta=b, L=l_, m=m_, delta=d).epsilon)
    return worst <= 1.0, f"max exact / bound = {worst:.4f}", 1.0, worst


def _lemma_pins():
    out = []
    for b, l_, m_, d in ((0.3, 1.0, 2.0, 1e-5), (1.7, 0.4, 0.9, 1e-3), (0.02, 3.0, 10.0, 1e-9)):
        a = 2 * b * l_ / math.sqrt(m_)  # typed again: a^2/2 + a sqrt(2 log(1/delta))
        out.append(({"beta": b, "L": l_, "m": m_, "delta": d},
                    {"epsilon": a * a / 2 + a * math.sqrt(2 * math.log(1 / d))}))
    return out


LEMMA.add_pin("pin_formula", "epsilon against a^2/2 + a sqrt(2 log(1/delta)), a = 2 beta L / sqrt(m), typed again "
              "in floats at three points; rel 1e-12 (float rounding only)", _lemma_pins, rel=1e-12)


# -- checks of the theorem ------------------------------------------------------------------------------------------


@THM.add_check("follows_from_the_concentration_lemma", "symbolic")
def _thm_from_lemma():
    """At beta = beta_max, a = epsilon / sqrt(1 + 2 l) (l = log(1/delta)), and the lemma's epsilon a^2/2 + a sqrt(2 l)
    is <= epsilon iff a/2 <= sqrt(1 + 2 l) - sqrt(2 l) = 1 / (sqrt(1 + 2 l) + sqrt(2 l)). With epsilon <= 1,
    a/2 <= 1 / (2 sqrt(1 + 2 l)), and 2 sqrt(1 + 2 l) >= sqrt(1 + 2 l) + sqrt(2 l): the theorem follows from the
    lemma (the lemma's epsilon increases in beta). Checked by sympy: a at beta_max, the identity of the gap, and
    (1 + 4 l)^2 - 8 l (1 + 2 l) = 1 > 0 (the squared form of the last inequality)."""
    lg = sp.Symbol("l_var", positive=True)  # log(1/delta), delta = e^-l in (0, 1)
    bmax = THM.conclusion["beta_max"].subs(delta, sp.exp(-lg))
    a_at = sp.simplify(_A.subs(beta, bmax))
    a_ok = sp.simplify(a_at - epsilon / sp.sqrt(1 + 2 * lg)) == 0
    gap = sp.simplify((sp.sqrt(1 + 2 * lg) - sp.sqrt(2 * lg)) * (sp.sqrt(1 + 2 * lg) + sp.sqrt(2 * lg)))
    square = sp.expand((1 + 4 * lg) ** 2 - 8 * lg * (1 + 2 * lg))
    increasing = sp.diff(LEMMA.conclusion["epsilon"], beta)
    inc_ok = sp.simplify(increasing.subs({beta: 1, L: 1, m: 1, delta: sp.Rational(1, 2)})) > 0
    ok = a_ok and gap == 1 and square == 1 and inc_ok
    return ok, f"a at beta_max = {a_at}; gap identity {gap}; squared margin {square}; increasing {inc_ok}"


@THM.add_check("exact_gaussian_instance_below", "numeric")
def _thm_gaussian():
    """On the Gaussian instance at beta = beta_max (the worst pair exactly a-GDP, a = epsilon / sqrt(1 + 2 log(1/
    delta))) the exact epsilon at delta is <= epsilon for 15 epsilon in [0.01, 1] and delta in {1e-2, ..., 1e-12};
    the largest exact / epsilon (0.49 at delta = 1e-2 to 0.87 at 1e-12, at epsilon = 1) is reported."""
    worst = 0.0
    for d in _DELTAS:
        for e in np.geomspace(0.01, 1.0, 15):
            bm = THM.evaluate(epsilon=float(e), delta=d, L=1.0, m=1.0, beta=1e-12).beta_max
            worst = max(worst, gaussian_epsilon(d, 2.0 * bm) / float(e))
    return worst <= 1.0, f"max exact / epsilon = {worst:.4f}", 1.0, worst


@THM.add_check("fails_for_large_epsilon", "numeric")
def _thm_large_epsilon():
    """Why ``epsilon_at_most_one``: without it the condition is false. On the Gaussian instance at beta = beta_max the
    exact epsilon exceeds the target epsilon = 10 at delta = 1e-2, 1e-3, 1e-5 (by 14%, 7.5%, 2.5%) and epsilon = 20 at
    every delta of the grid -- so a condition of this form needs a bounded epsilon; the logistic instance at epsilon =
    1 stays below (the lemma covers it)."""
    over = []
    for e, d in ((10.0, 1e-2), (10.0, 1e-3), (10.0, 1e-5), (20.0, 1e-8), (20.0, 1e-12)):
        bm = THM.evaluate(epsilon=e, delta=d, L=1.0, m=1.0, beta=1e-12, allow_unguaranteed=True).beta_max
        over.append(gaussian_epsilon(d, 2.0 * bm) / e)
    b1 = THM.evaluate(epsilon=1.0, delta=1e-5, L=1.0, m=1.0, beta=1e-12).beta_max
    logistic = logistic_pair_epsilon(b1, 1.0, 1.0, 1e-5)
    ok = min(over) > 1.0 and logistic <= 1.0
    return ok, f"exact / target beyond epsilon = 1: {[round(x, 4) for x in over]}; logistic at epsilon = 1: " \
               f"{logistic:.4f}", 1.0, min(over)


def _thm_pins():
    out = []
    for e, d, l_, m_ in ((1.0, 1e-5, 1.0, 1.0), (0.3, 1e-3, 2.0, 5.0), (0.05, 1e-8, 0.5, 0.2)):
        typed = e / (2 * l_) * math.sqrt(m_ / (1 + 2 * math.log(1 / d)))  # typed again
        out.append(({"epsilon": e, "delta": d, "L": l_, "m": m_, "beta": 1e-12}, {"beta_max": typed}))
    return out


THM.add_pin("pin_formula", "beta_max against epsilon / (2 L) sqrt(m / (1 + 2 log(1/delta))) typed again in floats "
            "at three points; rel 1e-12 (float rounding only)", _thm_pins, rel=1e-12)

THEOREMS: tuple[Theorem, ...] = (LEMMA, THM)
