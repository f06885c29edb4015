"""Heikkilä, Jälkö, Dikmen, Honkela (NeurIPS 2019): the privacy of DP MCMC with the subsampled Barker test.

**What was read.** The paper's abstract (arXiv:1901.10275; NeurIPS 2019 proceedings text, first page only) and the
authors' public code, DPBayes/DP-MCMC-NeurIPS2019 at commit bf5349835b2044135749ea6dbedea2e310d7d2f2:
``gmm_code/exact_rdp.py`` (``rd_approx``, ``amplified_RDP``, ``from_RDP_to_DP``, ``get_privacy_spent``),
``gmm_code/barker_mog.py`` (the DP chain: clipped per-record log-likelihood ratios, ``logp_ratio = N temp r +
log prior ratio``, ``batch_var = s2 (N temp)^2 / b``, normal noise of variance ``2 - batch_var``, the correction
``X_corr`` and acceptance iff the sum is > 0), ``gmm_code/mog_main.py`` (``noise_scale = sqrt(2)``, clip ``0.99
sqrt(b) / temp / N``, ``temp = 100 / N``) and ``gmm_code/X_corr.py`` (the correction fitted as a Gaussian mixture).
The theorem statements and their numbering were **not** read: the items are named by content, marked
``reconstructed=True`` and encode what the code computes and what the proof below (re-done in the checks) supports.

**The mechanism (one iteration, white-box).** On a batch ``B`` of ``b`` of the ``N`` records (without replacement),
with per-record log-likelihood ratios clipped to ``[-C, C]`` and temperature ``tau_T``, the released statistic is

    Z = N tau_T mean_B(R) + N(0, 2 - V_B),     V_B = (N tau_T)^2 s_B^2 / b,

and the proposal is accepted iff ``Z + log prior ratio + V_corr > 0`` with ``N(0, 2) + V_corr`` approximately
logistic (Barker's test; Seita et al.'s decomposition). The four items:

- ``heikkila2019.thm_barker_step_rdp`` -- the per-iteration Rényi bound ``5/(2b) + log(2b/(b - 5 alpha))/(2(alpha -
  1)) + 2 alpha/(b - 5 alpha)``, ``1 < alpha < b/5`` (``rd_approx``), under ``N tau_T C <= sqrt(b)``;
- ``heikkila2019.thm_subsampled_amplification`` -- its amplification by subsampling without replacement (Wang, Balle,
  Kasiviswanathan 2019, Thm 9, at integer orders; ``amplified_RDP``);
- ``heikkila2019.cor_composed_dp`` -- ``T`` iterations composed and converted: ``T eps'(alpha) + log(1/delta)/(alpha -
  1)`` (``from_RDP_to_DP``; ``get_privacy_spent`` minimises it over integer orders);
- ``heikkila2019.cond_clip_and_noise`` -- the condition that makes the above hold and the test run: the clip bound
  ``C <= sqrt(b)/(N tau_T)`` (then ``V_B <= 1``) and a normal part of variance ``sigma^2`` in ``(1, pi^2/3)``: the added
  noise variance ``sigma^2 - V_B`` is at least ``sigma^2 - 1`` and the logistic has room for a correction. The
  correction is only approximate at every ``sigma^2 > 0`` (check ``no_exact_correction``).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp
from scipy.special import expit, ndtr

from dpverify.calculus import barker as cb
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem

__all__ = ["THEOREMS", "STEP", "AMPLIFICATION", "COMPOSED", "CONDITION", "step_rdp_expr", "amplified_expr",
           "typed_rd_approx", "typed_amplified", "AUTHORS_REPO", "AUTHORS_COMMIT"]

#: The authors' repository and the commit read.
AUTHORS_REPO = "DPBayes/DP-MCMC-NeurIPS2019"
AUTHORS_COMMIT = "bf5349835b2044135749ea6dbedea2e310d7d2f2"

_S = sy.pick("alpha", "tau", "N", "temperature", "C", "q", "T_iterations", "delta", "sigma")
alpha, b, N, temp, C, q, T, delta, sigma = (_S[k] for k in ("alpha", "tau", "N", "temperature", "C", "q", "T",
                                                            "delta", "sigma"))
_j = sp.Symbol("j_order", integer=True, positive=True)

_EMPIRICAL = [EmpiricalLink("dp_barker", "audits/test_dp_barker.py",
                            "white-box path of the noisy log-likelihood-ratio estimates on a +-R canary pair of the "
                            "linear model (Rademacher proposal): exact composed loss law, claim from the catalogue")]


def step_rdp_expr(order, batch=b):
    """The per-iteration bound at ``order`` (sympy)."""
    return (sp.Rational(5, 2) / batch + sp.log(2 * batch / (batch - 5 * order)) / (2 * (order - 1))
            + 2 * order / (batch - 5 * order))


def amplified_expr(order=alpha, rate=q, batch=b):
    """Wang-Balle-Kasiviswanathan's amplified RDP of the per-iteration bound at an integer ``order`` (sympy)."""
    e2 = step_rdp_expr(2, batch)
    inner = (1 + rate**2 * sp.binomial(order, 2) * sp.Min(4 * (sp.exp(e2) - 1), 2 * sp.exp(e2))
             + sp.Sum(2 * rate**_j * sp.binomial(order, _j) * sp.exp((_j - 1) * step_rdp_expr(_j, batch)),
                      (_j, 3, order)))
    return sp.log(inner) / (order - 1)


def typed_rd_approx(a: float, bb: float) -> float:
    """The authors' ``rd_approx(alpha, b)`` typed again (``exact_rdp.py``)."""
    return 5 / (2 * bb) + 1 / (2 * (a - 1)) * math.log(2 * bb / (bb - 5 * a)) + 2 * a / (bb - 5 * a)


def typed_amplified(a: int, qq: float, bb: float) -> float:
    """The authors' ``amplified_RDP([rd_approx(j, b) for j in 2..a], a, q)`` typed again, in plain floats."""
    eps = [typed_rd_approx(j, bb) for j in range(2, a + 1)]
    term1 = qq**2 * math.comb(a, 2) * min(4 * (math.exp(eps[0]) - 1), math.exp(eps[0]) * 2)
    term2 = sum(qq**j * math.comb(a, j) * math.exp((j - 1) * eps[j - 2]) * 2 for j in range(3, a + 1))
    return 1 / (a - 1) * math.log(1 + term1 + term2)


_CLIP_HYP = Hypothesis("clip_within_sqrt_batch", sp.Le(N * temp * C, sp.sqrt(b)),
                       "N tau_T C <= sqrt(b): the scaled ratios are within sqrt(b), so V_B <= 1 and one record moves "
                       "the mean by <= 2/sqrt(b) and V_B by <= 5/b (optional inputs: N, temperature, C)")
_OPTIONAL = {"N": "only the clip hypothesis needs it", "temperature": "only the clip hypothesis needs it",
             "C": "only the clip hypothesis needs it"}

STEP = Theorem(
    "heikkila2019.thm_barker_step_rdp",
    "one DP Barker iteration, batch of b: (alpha, 5/(2b) + log(2b/(b-5alpha))/(2(alpha-1)) + 2alpha/(b-5alpha))-RDP",
    Source("heikkila2019", "Sec. 4, RDP of the subsampled DP Barker test (number not read)",
           "the authors' exact_rdp.rd_approx; derivation re-done in the checks", reconstructed=True,
           confidence="R-high"),
    "rdp",
    symbols={k: _S[k] for k in ("alpha", "tau", "N", "temperature", "C")},
    hypotheses=[
        Hypothesis("order_above_one", sp.Gt(alpha, 1), "Rényi order alpha > 1"),
        Hypothesis("batch_above_five_alpha", sp.Gt(b, 5 * alpha),
                   "b > 5 alpha: the worst variance of the mixed normal, 1 - 5 alpha / b, stays positive"),
        _CLIP_HYP,
    ],
    conclusion={"rdp": step_rdp_expr(alpha)},
    optional=_OPTIONAL,
    statement=(
        "Given a batch of b records whose tempered, clipped log-likelihood ratios satisfy N tau_T |R_i| <= sqrt(b), "
        "releasing Z = N tau_T mean(R) + N(0, 2 - V_B) is (alpha, 5/(2b) + log(2b/(b - 5 alpha))/(2(alpha - 1)) + "
        "2 alpha/(b - 5 alpha))-RDP against a batch with one record replaced, for 1 < alpha < b/5. Keywords: alpha, "
        "tau = b (batch size); optional N, temperature = tau_T, C (clip) for the clip hypothesis."
    ),
    empirical=_EMPIRICAL,
    notes=("Reconstructed from the authors' code; the proof: D_alpha of two normals (log(s2/s1) <= 5/(2b), "
           "log(var2/var*) <= log(2b/(b - 5 alpha)) with var2 <= 2 and var* >= 1 - 5 alpha/b, and alpha (2/sqrt b)^2 / "
           "(2 var*)). The bound is loose: var* >= 1 - 5(alpha - 1)/b would do, and the largest divergence of real "
           "batches is far below it (check dominates_real_batches reports the ratio)."),
)


@STEP.add_check("from_normal_renyi_worst_case", "symbolic")
def _step_symbolic():
    """The Rényi divergence of two normals, term by term at the proof's extremes: ``(1/2) log(1 + 5/b) <= 5/(2b)``
    (``log(1 + x) <= x``), ``var2 = 2``, ``var* = (b - 5 alpha)/b``, ``(mu1 - mu2)^2 = 4/b``; the sum of the bounds is
    the conclusion (sympy), and var* is at least that: ``var2 + (alpha - 1)(var2 - var1) >= 1 - 5(alpha - 1)/b >= 1 - 5
    alpha / b``."""
    x = sp.Symbol("x_var", positive=True)
    log_ok = sp.simplify(sp.diff(x - sp.log(1 + x), x) - x / (1 + x)) == 0  # x - log(1+x) increasing from 0
    vstar = (b - 5 * alpha) / b
    total = 5 / (2 * b) + sp.log(2 / vstar) / (2 * (alpha - 1)) + alpha * (4 / b) / (2 * vstar)
    diff = sp.simplify(sp.expand_log(total - STEP.conclusion["rdp"], force=True))
    var_gap = sp.simplify((1 - 5 * (alpha - 1) / b) - (1 - 5 * alpha / b))
    ok = log_ok and diff == 0 and var_gap == 5 / b
    return ok, f"assembled bound - conclusion = {diff}; var* slack = {var_gap} > 0; log(1+x) <= x: {log_ok}"


@STEP.add_check("sensitivities_of_mean_and_variance", "symbolic")
def _sensitivities():
    """One record ``x -> y`` (both in ``[-c, c]``, ``c = sqrt(b)`` after scaling) moves the batch mean by ``(x - y)/b
    <= 2/sqrt(b)`` and ``V_B = (mean of squares - mean^2)/b`` by ``(x^2 - y^2)/b^2 - (m1 - m2)(m1 + m2)/b <= 1/b +
    4/b``: the two pieces at their extremes, sympy."""
    c = sp.sqrt(b)
    mean_shift = sp.simplify((c - (-c)) / b - 2 / sp.sqrt(b))
    squares = sp.simplify((c**2 - 0) / b**2 - 1 / b)
    means = sp.simplify(((2 * c / b) * (2 * c)) / b - 4 / b)
    ok = mean_shift == 0 and squares == 0 and means == 0
    return ok, f"mean shift - 2/sqrt(b) = {mean_shift}; squares - 1/b = {squares}; mean^2 part - 4/b = {means}"


@STEP.add_check("dominates_normal_divergence_box", "numeric")
def _box():
    """On the proof's box (``|mu1 - mu2| <= 2/sqrt(b)``, ``V1, V2 in [0, 1]``, ``|V1 - V2| <= 5/b``, variances ``2 -
    V``), the largest closed-form Rényi divergence (grid of 41 x 41 x 21 points; at ``|mu1 - mu2|`` maximal, the mean
    term is increasing in it) stays below the bound, at b in {20, 100, 1000} and orders up to 0.95 b/5."""
    worst = 0.0
    for bb in (20, 100, 1000):
        for frac in (0.3, 0.6, 0.95):
            a = 1 + frac * (bb / 5 - 1)
            v1 = np.linspace(0, 1, 41)[:, None, None]
            dv = np.linspace(-5 / bb, 5 / bb, 21)[None, None, :]
            v2 = np.clip(v1 + dv, 0, 1) + 0 * np.linspace(0, 1, 41)[None, :, None]
            d = cb.gaussian_renyi_divergence(a, 2 / math.sqrt(bb), 2 - v1, 0.0, 2 - v2)
            worst = max(worst, float(np.max(d)) / float(cb.barker_step_rdp(a, bb)))
    return worst <= 1.0, f"max divergence / bound = {worst:.4f}", 1.0, worst


@STEP.add_check("dominates_real_batches", "numeric")
def _batches():
    """2,000 random batches of scaled clipped ratios in ``[-sqrt(b), sqrt(b)]`` (half at the clip, half uniform) with
    one record replaced by a value at the clip: the exact divergence of the two released normals, both directions, is
    below the bound at b in {20, 50, 200} and three orders (seed 0)."""
    rng = np.random.default_rng(0)
    worst = 0.0
    for bb in (20, 50, 200):
        c = math.sqrt(bb)
        y = np.where(rng.random((2000, bb)) < 0.5, c * rng.choice([-1.0, 1.0], (2000, bb)),
                     rng.uniform(-c, c, (2000, bb)))
        y2 = y.copy()
        y2[:, 0] = -np.sign(y[:, 0] + 1e-300) * c
        m1, m2 = y.mean(1), y2.mean(1)
        v1, v2 = 2 - y.var(1) / bb, 2 - y2.var(1) / bb
        for frac in (0.2, 0.5, 0.9):
            a = 1 + frac * (bb / 5 - 1)
            d = np.maximum(cb.gaussian_renyi_divergence(a, m1, v1, m2, v2),
                           cb.gaussian_renyi_divergence(a, m2, v2, m1, v1))
            worst = max(worst, float(np.max(d)) / float(cb.barker_step_rdp(a, bb)))
    return worst <= 1.0, f"max exact divergence / bound = {worst:.4f} (the bound's slack)", 1.0, worst


def _step_pins():
    out = []
    for bb in (20, 100, 1000, 10000):
        for frac in (0.1, 0.5, 0.9):
            a = 1 + frac * (bb / 5 - 1)
            out.append(({"alpha": a, "tau": bb}, {"rdp": typed_rd_approx(a, bb)}))
    return out


STEP.add_pin("pin_authors_rd_approx",
             "rdp against the authors' exact_rdp.rd_approx typed again at 12 points (b from 20 to 1e4, orders at 10%, "
             "50%, 90% of b/5); rel 1e-12 (float64 round-off)", _step_pins, rel=1e-12)


AMPLIFICATION = Theorem(
    "heikkila2019.thm_subsampled_amplification",
    "subsampling b of N without replacement amplifies the per-iteration RDP (Wang-Balle-Kasiviswanathan Thm 9)",
    Source("heikkila2019", "Sec. 4, subsampling amplification (number not read)",
           "the authors' exact_rdp.amplified_RDP, citing Wang, Balle, Kasiviswanathan (AISTATS 2019), Theorem 9",
           reconstructed=True, confidence="R-high"),
    "composition",
    symbols={k: _S[k] for k in ("alpha", "q", "tau")},
    hypotheses=[
        Hypothesis("integer_order_at_least_two", sp.And(sp.Ge(alpha, 2), sp.Eq(alpha, sp.floor(alpha))),
                   "alpha an integer >= 2 (the bound is a binomial expansion)"),
        Hypothesis("batch_above_five_alpha", sp.Gt(b, 5 * alpha), "every per-iteration order j <= alpha is finite"),
        Hypothesis("rate_at_most_one", sp.Le(q, 1), "q = b/N <= 1"),
    ],
    conclusion={"rdp": amplified_expr()},
    statement=(
        "With batches of b of N records drawn without replacement (q = b/N), the DP Barker iteration is (alpha, "
        "log(1 + q^2 C(alpha,2) min(4(e^{eps(2)} - 1), 2 e^{eps(2)}) + sum_{j=3}^{alpha} 2 q^j C(alpha,j) e^{(j-1) "
        "eps(j)})/(alpha - 1))-RDP at integer alpha >= 2, eps(j) the per-iteration bound "
        "(heikkila2019.thm_barker_step_rdp). Keywords: alpha, q, tau = b."
    ),
    empirical=_EMPIRICAL,
    notes="Wang et al.'s Thm 9 with eps(inf) = inf (the min{2, (e^eps(inf) - 1)^j} factors are 2).",
)


@AMPLIFICATION.add_check("second_order_in_q", "symbolic")
def _amp_series():
    """At alpha = 3, b = 100 the bound is ``log(1 + 3 q^2 min(.) + 2 q^3 e^{2 eps(3)}) / 2``: it vanishes at q = 0 and
    ``bound / q^2 -> 3 min(4(e^{eps(2)} - 1), 2 e^{eps(2)}) / 2`` as q -> 0 (sympy limit, exact arithmetic)."""
    expr = AMPLIFICATION.conclusion["rdp"].subs({alpha: 3, b: 100}).doit()
    at0 = sp.simplify(expr.subs(q, 0))
    e2 = step_rdp_expr(2, sp.Integer(100))
    want = sp.Rational(3, 2) * sp.Min(4 * (sp.exp(e2) - 1), 2 * sp.exp(e2))
    lim = sp.limit(expr / q**2, q, 0)
    gap = sp.simplify(lim - want)
    return at0 == 0 and gap == 0, f"value at q = 0: {at0}; lim bound/q^2 - 3 min/2 = {gap}"


@AMPLIFICATION.add_check("dominates_exact_canary_rdp", "numeric")
def _amp_exact():
    """The exact Rényi divergence of one subsampled iteration on the +-R canary pair at the clip (``N tau_T c =
    sqrt(b)``; a mixture over the hypergeometric batch count against a normal; quadrature on 40,001 points, both
    directions) is below the amplified bound at (N, b) in {(40, 20), (100, 50), (2000, 100)}, alpha in {2, 3}."""
    worst = 0.0
    z = np.linspace(-40, 40, 40001)
    dz = z[1] - z[0]
    for n, bb in ((40, 20), (100, 50), (2000, 100)):
        p = cb.mixture_logpdf(z, *cb.canary_statistic_mixture(n, 1, bb, math.sqrt(bb)))
        qq = cb.mixture_logpdf(z, *cb.canary_statistic_mixture(n, 0, bb, math.sqrt(bb)))
        for a in (2, 3):
            if bb <= 5 * a:
                continue
            fwd = math.log(np.sum(np.exp(a * p + (1 - a) * qq)) * dz) / (a - 1)
            bwd = math.log(np.sum(np.exp(a * qq + (1 - a) * p)) * dz) / (a - 1)
            bound = cb.amplified_rdp(a, bb / n, cb.barker_step_rdp(np.arange(2, a + 1), bb))
            worst = max(worst, max(fwd, bwd) / bound)
    return worst <= 1.0, f"max exact canary RDP / amplified bound = {worst:.4f}", 1.0, worst


def _amp_pins():
    out = []
    for a, qq, bb in ((2, 0.5, 20), (3, 0.5, 20), (3, 0.01, 100), (5, 0.001, 1000), (9, 0.1, 100), (20, 0.001, 1000)):
        out.append(({"alpha": a, "q": qq, "tau": bb}, {"rdp": typed_amplified(a, qq, bb)}))
    return out


AMPLIFICATION.add_pin("pin_authors_amplified_rdp",
                      "rdp against the authors' exact_rdp.amplified_RDP typed again in plain floats at 6 points "
                      "(alpha 2..20, q 1e-3..0.5, b 20..1000); rel 1e-10 (float64 sums of up to 20 terms)",
                      _amp_pins, rel=1e-10)


COMPOSED = Theorem(
    "heikkila2019.cor_composed_dp",
    "T subsampled DP Barker iterations are (T eps'(alpha) + log(1/delta)/(alpha - 1), delta)-DP",
    Source("heikkila2019", "Sec. 4, privacy of the whole chain (number not read)",
           "the authors' exact_rdp.from_RDP_to_DP and get_privacy_spent (Mironov 2017, Props 1 and 3)",
           reconstructed=True, confidence="R-high"),
    "privacy",
    symbols={k: _S[k] for k in ("alpha", "q", "tau", "T", "delta")},
    hypotheses=[
        Hypothesis("integer_order_at_least_two", sp.And(sp.Ge(alpha, 2), sp.Eq(alpha, sp.floor(alpha))),
                   "alpha an integer >= 2 (the amplification's order)"),
        Hypothesis("batch_above_five_alpha", sp.Gt(b, 5 * alpha), "the per-iteration bound is finite"),
        Hypothesis("rate_at_most_one", sp.Le(q, 1), "q = b/N <= 1"),
        sy.delta_positive(),
    ],
    conclusion={"epsilon": T * amplified_expr() + sp.log(1 / delta) / (alpha - 1), "delta": delta},
    statement=(
        "T iterations of the subsampled DP Barker test (each (alpha, eps'(alpha))-RDP, "
        "heikkila2019.thm_subsampled_amplification) are (alpha, T eps'(alpha))-RDP and hence (T eps'(alpha) + "
        "log(1/delta)/(alpha - 1), delta)-DP; the authors report the smallest over integer 3 <= alpha < min(max_alpha, "
        "b // 5) with delta = 1/N. Keywords: alpha, q, tau = b, T, delta."
    ),
    empirical=_EMPIRICAL,
    notes=("The conversion is Mironov's (Prop. 3); Balle et al. 2020's conversion of the same curve is smaller (the "
           "sampler's account() uses it). The white-box path's exact epsilon on the canary pair is far below: check "
           "claim_above_exact_canary."),
)


@COMPOSED.add_check("composition_then_conversion", "symbolic")
def _composed_symbolic():
    """The conclusion is ``T`` times the amplified RDP (Mironov Prop. 1) plus ``log(1/delta)/(alpha - 1)`` (Prop. 3):
    the difference with that assembly is 0 and the epsilon is linear in T with slope the amplified RDP."""
    eps = COMPOSED.conclusion["epsilon"]
    diff = sp.simplify(eps - (T * AMPLIFICATION.conclusion["rdp"] + sp.log(1 / delta) / (alpha - 1)))
    slope = sp.simplify(sp.diff(eps, T) - AMPLIFICATION.conclusion["rdp"])
    return diff == 0 and slope == 0, f"conclusion - assembly = {diff}; d eps/dT - eps' = {slope}"


@COMPOSED.add_check("claim_above_exact_canary", "numeric")
def _composed_exact():
    """On the +-R canary pair at the clip the exact epsilon of the white-box path of T iterations (composed loss law,
    :func:`dpverify.calculus.barker.composed_loss_masses`) is below the authors' epsilon (optimised over orders) at
    delta = 1e-5, for (N, b, T) in {(40, 20, 5), (100, 50, 10), (200, 50, 20)}."""
    worst = 0.0
    lines = []
    for n, bb, t in ((40, 20, 5), (100, 50, 10), (200, 50, 20)):
        c = math.sqrt(bb)
        law = cb.composed_loss_masses(cb.canary_statistic_mixture(n, 1, bb, c),
                                      cb.canary_statistic_mixture(n, 0, bb, c), t)
        exact = law.epsilon(1e-5)
        claim, order = cb.heikkila_epsilon(bb, n, t, delta=1e-5, max_alpha=200)
        ev = COMPOSED.evaluate(alpha=order, q=bb / n, tau=bb, T=t, delta=1e-5).epsilon
        worst = max(worst, exact / ev, abs(ev - claim) / claim * 1e6)
        lines.append(f"(N={n}, b={bb}, T={t}): exact {exact:.3f}, claim {ev:.3f} (order {order})")
    return worst <= 1.0, "; ".join(lines), 1.0, worst


def _composed_pins():
    out = []
    for bb, n, t in ((20, 40, 5), (100, 10_000, 1000), (1000, 1_000_000, 20_000), (200, 2000, 50)):
        _, order = cb.heikkila_epsilon(bb, n, t, max_alpha=200)
        a = max(order, 3)
        want = t * typed_amplified(a, bb / n, bb) - math.log(1 / n) / (a - 1)  # from_RDP_to_DP typed again
        out.append(({"alpha": a, "q": bb / n, "tau": bb, "T": t, "delta": 1 / n}, {"epsilon": want, "delta": 1 / n}))
    return out


COMPOSED.add_pin("pin_authors_privacy_spent",
                 "epsilon against the authors' from_RDP_to_DP(T amplified_RDP(...), alpha, 1/N) typed again at 4 "
                 "settings (b 20..1000, N 40..1e6, T 5..2e4) at the order get_privacy_spent picks; rel 1e-9",
                 _composed_pins, rel=1e-9)


CONDITION = Theorem(
    "heikkila2019.cond_clip_and_noise",
    "the clip C <= sqrt(b)/(N tau_T) keeps V_B <= 1, so the noise variance sigma^2 - V_B >= sigma^2 - 1 (sigma^2 = 2)",
    Source("heikkila2019", "Sec. 3-4, the DP Barker test's conditions (number not read)",
           "the authors' barker_mog.py / mog_main.py (clip 0.99 sqrt(b)/temp/N, noise_scale sqrt(2), X_corr)",
           reconstructed=True, confidence="R-med"),
    "step_size",
    symbols={k: _S[k] for k in ("tau", "N", "temperature", "sigma")},
    hypotheses=[
        Hypothesis("noise_above_batch_variance", sp.Gt(sigma**2, 1),
                   "sigma^2 > 1 >= V_B: the added Gaussian noise has positive variance"),
        Hypothesis("noise_below_logistic_variance", sp.Lt(sigma**2, sp.pi**2 / 3),
                   "sigma^2 < pi^2/3: a correction N(0, sigma^2) + V_corr ~ Logistic needs a normal part of smaller "
                   "variance than the logistic"),
    ],
    conclusion={"C_max": sp.sqrt(b) / (N * temp), "noise_variance_min": sigma**2 - 1},
    statement=(
        "Clipping the per-record log-likelihood ratios to C <= C_max = sqrt(b)/(N tau_T) makes the scaled batch "
        "variance V_B = (N tau_T)^2 s_B^2/b <= 1 (Popoviciu); with a normal part of variance sigma^2 in (1, pi^2/3) "
        "(the authors: sigma^2 = 2) the added noise variance sigma^2 - V_B is >= sigma^2 - 1 and an approximate "
        "correction V_corr exists. Keywords: tau = b, N, temperature = tau_T, sigma = sigma_nor."
    ),
    empirical=_EMPIRICAL,
    notes=("No exact correction exists at any sigma^2 > 0 (check no_exact_correction): the test is approximate, "
           "the privacy is not (the correction is post-processing)."),
)


@CONDITION.add_check("popoviciu_batch_variance", "symbolic")
def _popoviciu():
    """For values in ``[-c, c]`` the biased variance is at most ``c^2`` (Popoviciu), attained by half at each end:
    at ``c = sqrt(b)/(N tau_T)`` the scaled variance ``(N tau_T)^2 c^2 / b`` is exactly 1 (sympy)."""
    cmax = CONDITION.conclusion["C_max"]
    scaled = sp.simplify((N * temp) ** 2 * cmax**2 / b)
    x = sp.Symbol("x_val", real=True)
    cc = sp.Symbol("c_val", positive=True)
    two_point = sp.simplify(((cc**2 + cc**2) / 2) - ((cc - cc) / 2) ** 2 - cc**2)
    # a single value's contribution to the variance about 0, x^2 <= c^2 on [-c, c]: maximum at the ends
    ends = sp.simplify(sp.Max(x**2, 0).subs(x, cc) - cc**2)
    ok = scaled == 1 and two_point == 0 and ends == 0
    return ok, f"scaled variance at the clip = {scaled}; half-and-half variance - c^2 = {two_point}"


@CONDITION.add_check("batch_variance_simulated", "numeric")
def _batch_var():
    """100,000 random batches (b in {10, 100}) of ratios in ``[-C_max, C_max]`` (uniform, and at the ends): the scaled
    variance never exceeds 1 and reaches 1 - 1e-12 only at a half-and-half batch (seed 1)."""
    rng = np.random.default_rng(1)
    worst = 0.0
    for bb in (10, 100):
        n, tt = 1000, 0.1
        cmax = CONDITION.evaluate(tau=bb, N=n, temperature=tt, sigma=math.sqrt(2)).C_max
        y = rng.uniform(-cmax, cmax, (50_000, bb))
        y2 = cmax * rng.choice([-1.0, 1.0], (50_000, bb))
        for arr in (y, y2):
            worst = max(worst, float(np.max((n * tt) ** 2 * arr.var(1) / bb)))
        half = np.concatenate([np.full(bb // 2, cmax), np.full(bb - bb // 2, -cmax)])
        if abs((n * tt) ** 2 * half.var() / bb - 1) > 1e-12 and bb % 2 == 0:
            return False, "a half-and-half batch does not reach 1"
    return worst <= 1 + 1e-12, f"max scaled batch variance {worst:.6f}", 1.0, worst


@CONDITION.add_check("no_exact_correction", "numeric")
def _no_exact():
    """``phi_logistic / phi_normal`` at sigma^2 = 2 exceeds 1 (it is 1.28 at t = 2): no distribution V_corr makes
    ``N(0, 2) + V_corr`` exactly logistic; the fitted mixture (NNLS,
    :func:`dpverify.calculus.barker.correction_mixture`)
    matches the logistic density to < 0.004 and its acceptance probabilities P(N(0,2) + V_corr > -d) to within 0.01 of
    the logistic's at d in [-6, 6]."""
    ratio = float(cb.logistic_over_normal_cf(2.0, 2.0))
    mix = cb.correction_mixture(2.0)
    d = np.linspace(-6, 6, 61)
    s = math.sqrt(2.0 + mix.scale**2)
    acc = np.sum(mix.weights[:, None] * ndtr((d[None, :] + mix.means[:, None]) / s), axis=0)
    err = float(np.max(np.abs(acc - expit(d))))
    ok = ratio > 1 and mix.sup_error < 0.004 and err < 0.01
    return ok, f"cf ratio at t = 2: {ratio:.4f}; mixture density error {mix.sup_error:.4g}; acceptance error {err:.4g}"


def _cond_pins():
    out = []
    for bb, n, tt, s2 in ((1000, 1_000_000, 100 / 1_000_000, 2.0), (100, 1000, 0.1, 2.0), (50, 500, 1.0, 1.5)):
        authors = 0.99 * math.sqrt(bb) / tt / n  # mog_main.py's clip, 1% inside the bound
        out.append(({"tau": bb, "N": n, "temperature": tt, "sigma": math.sqrt(s2)},
                    {"C_max": authors / 0.99, "noise_variance_min": s2 - 1.0}))
    return out


CONDITION.add_pin("pin_authors_clip",
                  "C_max against the authors' clip 0.99 sqrt(b)/temp/N divided by 0.99 (their paper setting N = 1e6, "
                  "b = 1000, temp = 100/N: C_max = sqrt(1000)/100 = 0.316) and the noise floor sigma^2 - 1 at three "
                  "settings; rel 1e-12", _cond_pins, rel=1e-12)


THEOREMS: tuple[Theorem, ...] = (STEP, AMPLIFICATION, COMPOSED, CONDITION)
