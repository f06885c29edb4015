"""Minami, Arai, Sato, Nakagawa 2016: from the exact Gibbs posterior to an approximate sampler (Langevin Monte Carlo)
through the total variation.

**The statement.** Let the Gibbs posterior ``G_D`` be (epsilon, delta)-DP (``minami2016.thm_gibbs_posterior_dp`` or
``minami2016.lem_gibbs_privacy_loss_concentration``) and let a sampler's output law ``A_D`` satisfy
``TV(A_D, G_D) <= gamma`` for **every** dataset D (one bound, uniform in the data). Then the sampler is
(epsilon, delta + (1 + e^epsilon) gamma)-DP. Proof, for adjacent D, D' and every event S:

    A_D(S) <= G_D(S) + gamma <= e^eps G_D'(S) + delta + gamma <= e^eps (A_D'(S) + gamma) + delta + gamma
           = e^eps A_D'(S) + delta + (1 + e^eps) gamma.

Encoded as the catalogue item ``minami2016.prop_approximate_sampling`` with the inputs of Bertazzi et al. 2025's
Prop. 3.2 (i) (``bertazzi2025.prop32_tv_to_dp``, the same transfer for a Markov chain's n-th state): the data-uniform
TV bound is ``gamma = kappa R_n`` (Bertazzi's Assumption 3.1 at n = the sampler's step count; ``kappa`` defaults to
1, so that ``R_n`` is gamma itself). It is also Wang et al. 2015's Prop. 3 (``wang2015.prop3_approx_sampling``, the
shared statement ``approx_sampling``) at delta = 0 with its L1 closeness read as the total variation its proof uses
(check ``same_as_bertazzi_and_wang``).

**What was read, and what was not.** As for :mod:`dpverify.theorems.minami2016.gibbs`: the abstract and title page,
not the body. That the paper passes from the exact Gibbs posterior to Langevin Monte Carlo through the total
variation is how the literature that cites it describes it; the printed form (a TV bound for every dataset, or an L1
bound; the constant in front of gamma; its proposition number) was not read. The item is ``reconstructed`` with grade
**R-med**: the inequality itself is proved here (check ``three_line_proof``) and is tight (pin
``pin_two_point_attained``); whether the paper states it in exactly this form is the uncertain part.

**Tightness.** The slack ``(1 + e^eps) gamma`` cannot be improved: take two-point laws G_D = (p, 1 - p), G_D' =
(q, 1 - q) with ``p = e^eps q + delta`` (exactly (eps, delta)-DP) and move gamma of mass towards the worst event in
each: A_D = (p + gamma, ...), A_D' = (q - gamma, ...). Then TV(A_D, G_D) = TV(A_D', G_D') = gamma and the pair's exact
hockey stick is ``p + gamma - e^eps (q - gamma) = delta + (1 + e^eps) gamma``: attained (pin, relative error 1e-12),
whenever the masses exist (``delta + (2 + e^eps) gamma <= 1``).

**Exact Gaussian instance: ULA on the Gibbs potential.** On the linear loss ``-<x, theta>`` (|x| <= R, N records) with
the prior N(0, I/m) the potential is ``U_D(theta) = -beta sum_i <x_i, theta> + m |theta|^2 / 2`` and ULA with step
``0 < h < 2/m`` from a data-independent theta_0 has, after K steps, the exact law (1-d; derived in
:mod:`dpverify.calculus.approximate_sampling`, checked here symbolically and by simulation)

    A_D = N(rho^K theta_0 + (1 - rho^K) c_D, v_K),   rho = 1 - h m,   c_D = beta sum_i x_i / m,
    v_K = 2 h (1 - rho^{2K}) / (1 - rho^2),

against the Gibbs posterior ``G_D = N(c_D, 1/m)``. So

(a) ``TV(A_D, G_D)`` is exact (two Gaussians with different variances; closed form through the crossing points,
    checked against scipy's quadrature, check ``tv_closed_form_vs_quadrature``), and depends on D only through the
    mean offset ``rho^K (theta_0 - c_D)``; the TV increases with |offset| (proof in the calculus module), so its
    supremum over all datasets of N records in the R-ball is at the extreme sum: offset ``|rho|^K (|theta_0| + beta N
    R / m)`` (check ``tv_sup_over_datasets``). This is the gamma the sampler ``gibbs_posterior_ula`` claims with;
(b) the ULA pair itself is an exact Gaussian shift (equal variances): Mahalanobis distance
    ``mu_ULA = (1 - rho^K) beta |S - S'| / (m sqrt(v_K))``, at most ``(1 - rho^K) 2 beta R / (m sqrt(v_K))``. With
    ``r = rho^K`` and ``a = 2 beta R / sqrt(m)`` (the Gibbs pair's distance),

        mu_ULA^2 = a^2 (1 - r)(1 - h m / 2) / (1 + r) <= a^2,

    because ``2 (1 + r) - (1 - r)(2 - h m) = 4 r + h m (1 - r) >= 0`` for r >= 0, and for r < 0 (rho < 0, K odd,
    so rho <= r) ``2 (1 + r) - (1 - r)(1 + rho) = (1 - r)(r - rho) + (1 + r)^2 >= 0`` (check ``ula_law_recursion``).
    **ULA is never less private than the Gibbs posterior on this family**: the extra ``(1 + e^eps) gamma`` the
    transfer adds is pure looseness here.

Check ``exact_ula_instance_below`` measures it on a grid of 180 points (beta in {0.05, 0.2, 1}, m in {0.5, 1, 4}, h m
in {0.01, 0.1, 0.5, 1, 1.5}, K in {1, 10, 100, 1000}, N = 10, R = 1, theta_0 = 0, delta = 1e-5, epsilon = the Gibbs
pair's exact epsilon at delta, gamma = the larger TV of the worst pair's two datasets): the ULA pair's exact delta at
epsilon is at most **0.0037** of ``delta + (1 + e^eps) gamma``, and never above delta itself. The transfer is very
loose wherever ``(1 + e^eps) gamma`` dominates delta, i.e. almost everywhere: at stationarity gamma is the TV of
``N(0, 1/(m (1 - h m/2)))`` against ``N(0, 1/m)``, about **0.12 h m** for small h m (0.00121 at h m = 0.01, 0.0124 at
0.1, 0.166 at 1), so gamma alone exceeds delta = 1e-5 from h m = 8.3e-5 on.
"""
from __future__ import annotations

import math
from typing import Callable, NamedTuple

import numpy as np
import sympy as sp
from scipy import integrate

from dpverify.calculus.approximate_sampling import (
    check_ula_step,
    gaussian_tv,
    ula_contraction,
    ula_variance,
)
from dpverify.calculus.mechanisms.exponential import discrete_delta
from dpverify.calculus.mechanisms.gaussian import gaussian_delta, gaussian_epsilon
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem
from dpverify.theorems.bertazzi2025.sec23 import prop_32
from dpverify.theorems.shared import APPROX_SAMPLING

__all__ = ["THEOREMS", "PROP", "ula_law", "ula_tv", "ula_tv_sup", "ula_pair_mu", "simulate_ula",
           "two_point_pair", "UlaRow", "ula_instance_grid", "law_by_simulation"]

SYMBOLS = sy.pick("epsilon", "delta", "kappa", "R_n")
epsilon, delta, kappa, R_n = (SYMBOLS[k] for k in ("epsilon", "delta", "kappa", "R_n"))

#: The transferred slack: delta + (1 + e^eps) gamma with gamma = kappa R_n (Bertazzi et al.'s inputs).
_GAMMA = kappa * R_n


PROP = Theorem(
    "minami2016.prop_approximate_sampling",
    "approximate sampling: TV(A_D, G_D) <= gamma for every D and an (epsilon, delta)-DP Gibbs posterior give "
    "(epsilon, delta + (1 + e^epsilon) gamma)-DP",
    Source("minami2016", "approximate sampling by Langevin Monte Carlo (proposition number not read)",
           "the section after the main theorem (body not read: the form is as cited, proved here)",
           reconstructed=True, confidence="R-med"),
    "privacy",
    symbols=SYMBOLS,
    hypotheses=[Hypothesis("delta_below_one", sp.Lt(delta, 1), "delta in [0, 1): the Gibbs posterior's delta")],
    conclusion={"epsilon": epsilon, "delta": delta + (1 + sp.exp(epsilon)) * _GAMMA},
    defaults={"kappa": 1},
    statement=(
        "If the Gibbs posterior {G_D} is (epsilon, delta)-DP under replace-one adjacency and a sampler's output laws "
        "satisfy TV(A_D, G_D) <= gamma = kappa R_n for every dataset D, the sampler is (epsilon, delta + (1 + "
        "e^epsilon) gamma)-DP. kappa defaults to 1 (R_n is then gamma itself: the data-uniform TV bound after the "
        "sampler's n steps, Bertazzi et al.'s Assumption 3.1)."
    ),
    empirical=[EmpiricalLink("gibbs_posterior_ula", "audits/test_gibbs_posterior_ula.py",
                             "ULA on the linear-loss Gibbs potential: an exact Gaussian law; the claim is Minami's "
                             "(epsilon, delta) transferred with gamma = the exact sup over datasets of the TV")],
    notes=(
        "The same inequality as bertazzi2025.prop32_tv_to_dp (i) and wang2015.prop3_approx_sampling at delta = 0 "
        "(check same_as_bertazzi_and_wang); tight on two-point laws. On the Gaussian/ULA instance the ULA pair is "
        "never less private than the Gibbs posterior, so there the transfer's (1 + e^eps) gamma is pure looseness "
        "(ratio <= 0.0037 on the grid of exact_ula_instance_below)."
    ),
)


# -- the ULA instance -------------------------------------------------------------------------------------------------


def ula_law(theta0: float, center: float, h: float, m: float, n_steps: int) -> tuple[float, float]:
    """``(mean, variance)`` of ULA's K-th state on ``m theta^2 / 2 - m center theta`` from ``theta0`` (1-d):
    ``(rho^K theta0 + (1 - rho^K) center, v_K)``; ``ValueError`` unless 0 < h < 2/m."""
    rho_k, one_minus = ula_contraction(h, m, n_steps)
    return rho_k * float(theta0) + one_minus * float(center), ula_variance(h, m, n_steps)


def ula_tv(beta: float, m: float, h: float, n_steps: int, theta0: float, data_sum: float) -> float:
    """The exact ``TV(A_D, G_D)`` of ULA's K-th state and the Gibbs posterior N(beta S / m, 1 / m) on a dataset with
    record sum ``data_sum`` = S (1-d)."""
    center = beta * data_sum / m
    mean, var = ula_law(theta0, center, h, m, n_steps)
    return gaussian_tv(mean, math.sqrt(var), center, 1.0 / math.sqrt(m))


def ula_tv_sup(beta: float, m: float, R: float, N: int, h: float, n_steps: int, theta0: float = 0.0) -> float:
    """``sup_D TV(A_D, G_D)`` over the datasets of N records with |x| <= R: the TV at the largest mean offset
    ``|rho|^K (|theta0| + beta N R / m)`` (the TV increases with the offset; attained at S = -sign(theta0) N R)."""
    return ula_tv(beta, m, h, n_steps, theta0, -math.copysign(N * R, theta0 if theta0 != 0 else 1.0))


def ula_pair_mu(beta: float, m: float, R: float, h: float, n_steps: int) -> float:
    """The worst ULA pair's Mahalanobis distance ``(1 - rho^K) 2 beta R / (m sqrt(v_K))`` (one record moved from R to
    -R; theta0 cancels)."""
    _, one_minus = ula_contraction(h, m, n_steps)
    return one_minus * 2.0 * beta * R / (m * math.sqrt(ula_variance(h, m, n_steps)))


def simulate_ula(theta0: float, center: float, h: float, m: float, n_steps: int, n: int,
                 rng: np.random.Generator) -> np.ndarray:
    """``n`` independent ULA chains of K steps on ``m theta^2 / 2 - m center theta`` (vectorised over chains, a loop
    over steps): ``theta <- theta - h m (theta - center) + sqrt(2 h) xi``. Returns the K-th states."""
    h_value = check_ula_step(h, m)
    theta = np.full(n, float(theta0))
    for _ in range(n_steps):
        theta = theta - h_value * m * (theta - center) + math.sqrt(2.0 * h_value) * rng.standard_normal(n)
    return theta


#: (theta0, center, h, m, K) of the simulation check: small and large steps (rho > 0, rho = 0, rho < 0), short and
#: long runs, and a start far from the centre (the rho^K theta0 term).
_SIM_CASES = ((0.0, 1.0, 0.05, 1.0, 20), (2.0, -0.5, 0.5, 2.0, 3), (1.0, 0.3, 1.0, 1.0, 5), (-1.0, 0.4, 1.6, 1.0, 7),
              (0.5, 2.0, 0.02, 4.0, 200), (3.0, 0.0, 0.1, 1.0, 5))


def law_by_simulation(law: Callable[[float, float, float, float, int], tuple[float, float]] = ula_law,
                      n: int = 200_000, seed: int = 11) -> tuple[bool, str, float]:
    """Simulated ULA chains (:func:`simulate_ula`, ``n`` per case, fixed seed) against ``law``'s mean and variance at
    the six cases of ``_SIM_CASES``: the mean within 5 standard errors (sqrt(v / n)) and the sample variance within
    5 of its standard errors (v sqrt(2 / (n - 1)), the normal law's) -- a correct law fails w.p. ~1e-5 per case.
    Returns (passed, detail, the largest deviation in standard errors)."""
    rng = np.random.default_rng(seed)
    worst = 0.0
    for theta0, center, h, m, k in _SIM_CASES:
        draws = simulate_ula(theta0, center, h, m, k, n, rng)
        mean, var = law(theta0, center, h, m, k)
        z_mean = abs(draws.mean() - mean) / math.sqrt(var / n)
        z_var = abs(draws.var(ddof=1) - var) / (var * math.sqrt(2.0 / (n - 1)))
        worst = max(worst, z_mean, z_var)
    return worst <= 5.0, f"largest deviation {worst:.2f} standard errors over {len(_SIM_CASES)} cases (n = {n})", worst


class UlaRow(NamedTuple):
    """One point of the Gaussian/ULA grid: the Gibbs pair's epsilon at delta, the pair's gamma, the ULA pair's exact
    delta at that epsilon, the transferred bound ``delta + (1 + e^eps) gamma`` and their ratio."""

    beta: float
    m: float
    hm: float
    n_steps: int
    epsilon: float
    gamma: float
    mu_ratio: float
    exact_delta: float
    bound: float

    @property
    def ratio(self) -> float:
        return self.exact_delta / self.bound


def ula_instance_grid(delta_value: float = 1e-5, R: float = 1.0, theta0: float = 0.0,
                      betas=(0.05, 0.2, 1.0), ms=(0.5, 1.0, 4.0), hms=(0.01, 0.1, 0.5, 1.0, 1.5),
                      steps=(1, 10, 100, 1000)) -> list[UlaRow]:
    """The grid of check ``exact_ula_instance_below`` (module docstring): at each (beta, m, h m, K) the worst pair
    (one record R vs -R, the others 0) with epsilon = the Gibbs pair's exact epsilon at ``delta_value`` and gamma =
    the larger of the pair's two TVs."""
    rows = []
    for b in betas:
        for m_ in ms:
            a = 2.0 * b * R / math.sqrt(m_)
            eps = float(gaussian_epsilon(delta_value, a))
            for hm in hms:
                for k in steps:
                    h_ = hm / m_
                    gam = max(ula_tv(b, m_, h_, k, theta0, R), ula_tv(b, m_, h_, k, theta0, -R))
                    mu = ula_pair_mu(b, m_, R, h_, k)
                    bound = float(PROP.evaluate(epsilon=eps, delta=delta_value, R_n=gam).delta)
                    rows.append(UlaRow(b, m_, hm, k, eps, gam, mu / a, float(gaussian_delta(eps, mu)), bound))
    return rows


def two_point_pair(eps_value: float, delta_value: float, gamma: float) -> tuple[np.ndarray, ...]:
    """The tight example: G_D = (p, 1 - p), G_D' = (q, 1 - q) with q = (1 - delta - gamma) / (1 + e^eps) and
    p = e^eps q + delta (exactly (eps, delta)-DP), and A_D, A_D' = G_D, G_D' with gamma moved towards outcome 0 and
    away from it. Returns ``(G_D, G_D', A_D, A_D')`` as pmfs; ``ValueError`` unless delta + (2 + e^eps) gamma <= 1 (the
    masses to move exist)."""
    e = math.exp(eps_value)
    if delta_value + (2.0 + e) * gamma > 1.0:
        raise ValueError(f"two_point_pair needs delta + (2 + e^eps) gamma <= 1; got {delta_value + (2 + e) * gamma}")
    q = (1.0 - delta_value - gamma) / (1.0 + e)
    p = e * q + delta_value
    g_d, g_dp = np.array([p, 1.0 - p]), np.array([q, 1.0 - q])
    return g_d, g_dp, g_d + np.array([gamma, -gamma]), g_dp + np.array([-gamma, gamma])


def _hockey_both(p: np.ndarray, q: np.ndarray, eps_value: float) -> float:
    with np.errstate(divide="ignore"):
        lp, lq = np.log(p), np.log(q)
    return max(discrete_delta(lp, lq, eps_value), discrete_delta(lq, lp, eps_value))


# -- checks ---------------------------------------------------------------------------------------------------------


@PROP.add_check("three_line_proof", "symbolic")
def _three_lines():
    """The proof's chain as an identity: with a = A_D(S), a' = A_D'(S), g = G_D(S), g' = G_D'(S),
    ``e^eps a' + [conclusion delta] - a = (g + gamma - a) + (e^eps g' + delta - g) + e^eps (a' + gamma - g')``, and each
    bracket is >= 0 by a hypothesis (TV <= gamma for D, (eps, delta)-DP of G, TV <= gamma for D'): sympy expands the
    difference to 0 with the registered conclusion."""
    a, ap, g, gp = sp.symbols("A_D A_Dp G_D G_Dp", nonnegative=True)
    slack = sp.exp(epsilon) * ap + PROP.conclusion["delta"] - a
    parts = (g + _GAMMA - a) + (sp.exp(epsilon) * gp + delta - g) + sp.exp(epsilon) * (ap + _GAMMA - gp)
    same_eps = sp.simplify(PROP.conclusion["epsilon"] - epsilon) == 0
    return sp.expand(slack - parts) == 0 and same_eps, (
        "slack = (G_D + gamma - A_D) + (e^eps G_D' + delta - G_D) + e^eps (A_D' + gamma - G_D'): each term >= 0 by a "
        f"hypothesis; epsilon unchanged: {same_eps}")


@PROP.add_check("same_as_bertazzi_and_wang", "symbolic")
def _same_as():
    """The conclusion is Bertazzi et al. 2025 Prop. 3.2 (i)'s (``bertazzi2025.prop32_tv_to_dp``, same symbols), and
    at delta = 0, kappa = 1 Wang et al. 2015 Prop. 3's ``(1 + e^eps) delta_L1`` (the shared statement
    ``approx_sampling``) with its closeness read as the total variation R_n (what its proof uses; see the notes of
    ``wang2015.prop3_approx_sampling``)."""
    bertazzi = sp.simplify(PROP.conclusion["delta"] - prop_32.conclusion["delta"]) == 0
    wang_expr = APPROX_SAMPLING.conclusion["delta"].xreplace({sy.delta: R_n})
    wang = sp.simplify(PROP.conclusion["delta"].subs({delta: 0, kappa: 1}) - wang_expr) == 0
    eps_ok = PROP.conclusion["epsilon"] == prop_32.conclusion["epsilon"] == APPROX_SAMPLING.conclusion["epsilon"]
    return bertazzi and wang and eps_ok, f"equals Bertazzi Prop. 3.2 (i): {bertazzi}; Wang Prop. 3 (TV): {wang}"


@PROP.add_check("ula_law_recursion", "symbolic")
def _ula_symbolic():
    """ULA on the Gibbs potential, derived: the closed forms ``mean_k = rho^k theta_0 + (1 - rho^k) c`` and ``v_k =
    2h (1 - rho^{2k}) / (1 - rho^2)`` (rho = 1 - h m) satisfy ``mean_{k+1} = rho mean_k + h m c``, ``v_{k+1} = rho^2
    v_k + 2h`` (one step theta - h (m theta - m c) + sqrt(2h) xi) with mean_0 = theta_0, v_0 = 0; the stationary
    variance is 1 / (m (1 - h m / 2)); the worst pair's squared distance is ``a^2 (1 - r)(1 - hm/2) / (1 + r)``
    (r = rho^K, a = 2 beta R / sqrt(m)), and the two margin identities of the module docstring hold (so mu_ULA <= a)."""
    h_, m_, c, th0, k = sp.symbols("h_step m_curv c_mean theta_0 k", positive=True)  # local names: not the table's
    b_, r_ = sp.symbols("beta_inv R_rec", positive=True)
    rho = 1 - h_ * m_
    mean = lambda j: rho**j * th0 + (1 - rho**j) * c  # noqa: E731
    var = lambda j: 2 * h_ * (1 - rho ** (2 * j)) / (1 - rho**2)  # noqa: E731
    rec_mean = sp.simplify(sp.expand(mean(k + 1) - (rho * mean(k) + h_ * m_ * c))) == 0
    rec_var = sp.simplify(var(k + 1) - (rho**2 * var(k) + 2 * h_)) == 0
    init = sp.simplify(mean(0) - th0) == 0 and sp.simplify(var(0)) == 0
    stationary = sp.simplify(2 * h_ / (1 - rho**2) - 1 / (m_ * (1 - h_ * m_ / 2))) == 0
    r = sp.Symbol("r", real=True)  # rho^K
    v_k = 2 * h_ * (1 - r**2) / (1 - rho**2)
    mu2 = ((1 - r) * 2 * b_ * r_ / m_) ** 2 / v_k
    a2 = (2 * b_ * r_ / sp.sqrt(m_)) ** 2
    identity = sp.simplify(mu2 - a2 * (1 - r) * (1 - h_ * m_ / 2) / (1 + r)) == 0
    hm = sp.Symbol("hm", positive=True)
    margin_pos = sp.expand(2 * (1 + r) - (1 - r) * (2 - hm) - (4 * r + hm * (1 - r))) == 0
    rho_s = sp.Symbol("rho_s", real=True)
    margin_neg = sp.expand(2 * (1 + r) - (1 - r) * (1 + rho_s) - ((1 - r) * (r - rho_s) + (1 + r) ** 2)) == 0
    ok = rec_mean and rec_var and init and stationary and identity and margin_pos and margin_neg
    return ok, (f"recursion: mean {rec_mean}, variance {rec_var}, start {init}; stationary variance {stationary}; "
                f"mu_ULA^2 = a^2 (1-r)(1-hm/2)/(1+r): {identity}; margins {margin_pos}, {margin_neg}")


@PROP.add_check("ula_law_by_simulation", "numeric")
def _ula_simulation():
    """The ULA law against simulated chains (:func:`law_by_simulation`: 200000 chains per case, six cases with
    rho > 0, rho = 0 and rho < 0, mean and variance within 5 standard errors)."""
    ok, detail, worst = law_by_simulation()
    return ok, detail, 5.0, worst


@PROP.add_check("tv_closed_form_vs_quadrature", "numeric")
def _tv_quadrature():
    """The closed-form TV of two 1-d Gaussians (:func:`~dpverify.calculus.approximate_sampling.gaussian_tv`) against
    scipy's adaptive quadrature of ``|p - q| / 2`` at 40 random pairs (seed 7; means N(0, 2), log-sds N(0, 1), a fifth
    of them with sd ratios 1 + 1e-6 ... 1 + 1e-2), the integral split at the crossing points found independently by
    ``numpy.roots`` of the log-density difference; the largest absolute difference is reported (< 1e-10)."""
    rng = np.random.default_rng(7)
    worst = 0.0
    for i in range(40):
        m1, m2 = rng.normal(0.0, 2.0, 2)
        s1, s2 = np.exp(rng.normal(0.0, 1.0, 2))
        if i % 5 == 0:
            s2 = s1 * (1 + 10 ** rng.uniform(-6, -2))
        coeffs = [1 / s1**2 - 1 / s2**2, -2 * (m1 / s1**2 - m2 / s2**2),
                  m1**2 / s1**2 - m2**2 / s2**2 - 2 * math.log(s2 / s1)]
        lo, hi = min(m1 - 14 * s1, m2 - 14 * s2), max(m1 + 14 * s1, m2 + 14 * s2)
        cuts = sorted(float(x.real) for x in np.roots(coeffs) if abs(x.imag) < 1e-12 and lo < x.real < hi)
        edges = [lo] + cuts + [hi]
        c1, c2 = 1.0 / (s1 * math.sqrt(2 * math.pi)), 1.0 / (s2 * math.sqrt(2 * math.pi))
        f = lambda x: 0.5 * abs(c1 * math.exp(-0.5 * ((x - m1) / s1) ** 2)  # noqa: E731
                                - c2 * math.exp(-0.5 * ((x - m2) / s2) ** 2))
        quad = sum(integrate.quad(f, u, v, epsabs=1e-14, epsrel=1e-12, limit=200)[0] for u, v in zip(edges, edges[1:]))
        worst = max(worst, abs(gaussian_tv(m1, s1, m2, s2) - quad))
    return worst < 1e-10, f"max |closed form - quadrature| = {worst:.2e} over 40 pairs", 0.0, worst


#: (beta, m, R, N, h, K, theta0) of the supremum check.
_SUP_CASES = ((0.1, 1.0, 1.0, 10, 0.05, 20, 0.0), (0.5, 2.0, 1.0, 5, 0.3, 4, 0.7), (1.0, 1.0, 2.0, 3, 1.5, 3, -1.0),
              (0.2, 0.5, 1.0, 20, 0.01, 300, 2.0))


@PROP.add_check("tv_sup_over_datasets", "numeric")
def _tv_sup():
    """The sampler's gamma is the supremum over datasets: at four (beta, m, R, N, h, K, theta_0) the exact TV on 401
    record sums S in [-N R, N R] never exceeds :func:`ula_tv_sup` (to 1e-15) and reaches it at the end
    S = -sign(theta_0) N R; along the grid the TV is monotone in the mean offset |rho^K (theta_0 - beta S / m)| (the
    envelope argument of the calculus module)."""
    worst_excess, monotone, attained = -math.inf, True, True
    for b, m_, r_, n_, h_, k, th0 in _SUP_CASES:
        sums = np.linspace(-n_ * r_, n_ * r_, 401)
        tvs = np.array([ula_tv(b, m_, h_, k, th0, float(s)) for s in sums])
        offsets = np.abs(th0 - b * sums / m_)
        order = np.argsort(offsets)
        monotone &= bool(np.all(np.diff(tvs[order]) >= -1e-15))
        sup = ula_tv_sup(b, m_, r_, n_, h_, k, th0)
        worst_excess = max(worst_excess, float(tvs.max() - sup))
        attained &= abs(tvs.max() - sup) <= 1e-15
    ok = worst_excess <= 1e-15 and monotone and attained
    return ok, f"max TV on the grid - sup = {worst_excess:.2e}; monotone in the offset {monotone}; attained {attained}"


@PROP.add_check("exact_ula_instance_below", "numeric")
def _ula_exact():
    """On the grid of :func:`ula_instance_grid` (180 points; module docstring) the ULA pair's exact delta at the Gibbs
    pair's epsilon is <= the conclusion ``delta + (1 + e^eps) gamma``; the largest ratio (0.0037: the transfer is very
    loose here) is reported, with the largest mu_ULA / a (<= 1: ULA is never less private than the Gibbs posterior)
    and gamma / (h m) at h m = 0.01, K = 1000 (the stationary bias, ~0.12)."""
    rows = ula_instance_grid()
    worst = max(r.ratio for r in rows)
    mu_max = max(r.mu_ratio for r in rows)
    below_delta = all(r.exact_delta <= 1e-5 * (1 + 1e-9) for r in rows)
    stationary = [r.gamma / r.hm for r in rows if r.hm == 0.01 and r.n_steps == 1000]
    ok = worst <= 1.0 and mu_max <= 1.0 + 1e-12 and below_delta
    return ok, (f"max exact / bound = {worst:.4g} over {len(rows)} points; max mu_ULA / a = {mu_max:.4f}; exact delta "
                f"<= delta everywhere: {below_delta}; stationary gamma / (h m) = {min(stationary):.4f}-"
                f"{max(stationary):.4f}"), 1.0, worst


def _two_point_cases():
    out = []
    for e, d, kap, rate in ((0.5, 1e-3, 1.0, 0.01), (1.0, 1e-5, 1.0, 1e-3), (2.0, 0.0, 2.0, 0.005),
                            (0.1, 0.05, 0.5, 0.1)):
        gam = kap * rate
        g_d, g_dp, a_d, a_dp = two_point_pair(e, d, gam)
        tvs = (0.5 * np.abs(a_d - g_d).sum(), 0.5 * np.abs(a_dp - g_dp).sum())
        if _hockey_both(g_d, g_dp, e) > d + 1e-15 or max(abs(t - gam) for t in tvs) > 1e-15:
            raise RuntimeError("two_point_pair: the reference pair is not (eps, delta)-DP or the TV is not gamma")
        out.append(({"epsilon": e, "delta": d, "kappa": kap, "R_n": rate},
                    {"epsilon": e, "delta": _hockey_both(a_d, a_dp, e)}))
    return out


PROP.add_pin("pin_two_point_attained",
             "the conclusion against the exact hockey stick (both directions, discrete_delta) of the two-point pair "
             "moved by gamma = kappa R_n towards its worst event (two_point_pair: TV exactly gamma, the reference "
             "pair exactly (eps, delta)-DP): the transfer is attained; four points, kappa 0.5-2; rel 1e-12 (float "
             "rounding of a two-term sum)", _two_point_cases, rel=1e-12)

THEOREMS: tuple[Theorem, ...] = (PROP,)
