"""Li et al. 2019, Section 2: Definitions 1-3, Theorem 1 (Abadi et al.), Lemma 2, Remark 1 and
Algorithm 1, as catalogue entries with checks.

Each check re-does a step with sympy on the Gaussian mechanism (where every quantity has a closed
form) or compares a bound with an exact number (the hockey-stick divergence of
:mod:`dpverify.calculus.mechanisms.gaussian`, the exact RDP of the sampled Gaussian of
:mod:`dpverify.calculus.accounting`).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import sympy as sp
from scipy import integrate, optimize
from sympy.stats import Normal, moment_generating_function

from dpverify.calculus.accounting.moments import (
    delta_from_log_moments,
    epsilon_from_log_moments,
    li2019_log_moment_approx,
    li2019_log_moment_bound,
    log_moment_sampled_gaussian,
)
from dpverify.calculus.accounting.sampled_gaussian import rdp_sampled_gaussian
from dpverify.calculus.mechanisms.gaussian import gaussian_delta
from dpverify.theorems.base import Erratum, Hypothesis, Theorem
from dpverify.theorems.li2019.common import LINK, noise_multiplier_sq, source, symbols

__all__ = ["THEOREMS", "LEMMA2_GRID", "lemma2_ratio_table"]

_o = sp.Symbol("o", real=True)


def _gauss_pdf(x, mean, sd):
    return sp.exp(-((x - mean) ** 2) / (2 * sd**2)) / (sp.sqrt(2 * sp.pi) * sd)


# ---------------------------------------------------------------------------------------------
# Definition 1
# ---------------------------------------------------------------------------------------------
S = symbols("epsilon", "delta", "mu")
eps, delta, mu = S["epsilon"], S["delta"], S["mu"]
def1 = Theorem(
    "li2019.def1_dp",
    "(epsilon, delta)-differential privacy",
    source("Definition 1", "Sec. 2.1"),
    "definition",
    symbols=symbols("epsilon", "delta"),
    hypotheses=[Hypothesis("epsilon_positive", eps > 0, "epsilon > 0 (the paper: 'positive real numbers')")],
    conclusion={"probability_ratio_bound": sp.exp(eps), "additive_slack": delta},
    statement=(
        "M is (eps, delta)-DP if Pr(M(X) in S) <= e^eps Pr(M(X') in S) + delta for all measurable S and "
        "all adjacent X, X' (differing in one record, i.e. replace-one adjacency); delta = 0 is pure eps-DP."
    ),
    notes=(
        "Adjacency here is replace-one ('d_i != d'_i for some i'). Lemma 2 (Abadi et al.) is proved for "
        "add/remove adjacency, where the clipped gradient sum has sensitivity L; under replace-one it has "
        "sensitivity 2L. The paper does not address the mismatch; dpverify's step-size items follow the "
        "paper (sensitivity L, add/remove), as does the exact accountant."
    ),
)


@def1.add_check("randomized_response_tight", "symbolic",
                "randomized response with p = e^eps/(1+e^eps) meets Def. 1 with delta = 0, with equality")
def _():
    p = sp.exp(eps) / (1 + sp.exp(eps))
    P = {0: 1 - p, 1: p}  # M(X): report the true bit 1
    Q = {0: p, 1: 1 - p}  # M(X'): true bit 0
    slacks = []
    for r in range(3):
        for subset in itertools.combinations((0, 1), r):
            slacks.append(sp.simplify(sum(P[o] for o in subset) - sp.exp(eps) * sum(Q[o] for o in subset)))
    worst = [s for s in slacks if s != 0]
    nonpos = all(sp.simplify(s.subs(eps, v)) <= 0 for s in worst for v in (sp.Rational(1, 10), 1, 5))
    tight = sp.simplify(slacks[2]) == 0  # S = {1}: P(S) = e^eps Q(S) exactly
    return nonpos and tight, f"sup_S [P(S) - e^eps Q(S)] over the 4 sets: {slacks}; S={{1}} attains 0"


@def1.add_check("gaussian_hockey_stick", "numeric",
                "smallest delta of Def. 1 for N(mu,1) vs N(0,1) = sup_S, attained at S = {c(o) > eps}; "
                "quadrature vs Balle-Wang closed form (dpverify.calculus.mechanisms.gaussian)")
def _():
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    worst = 0.0
    for m, e in [(0.5, 0.1), (1.0, 0.5), (2.0, 1.0), (3.0, 2.0)]:
        # privacy loss c(o) = m o - m^2/2 exceeds e iff o > e/m + m/2
        cut = e / m + m / 2
        quad, _ = integrate.quad(lambda o: phi(o - m) - math.exp(e) * phi(o), cut, np.inf, epsabs=1e-14)
        worst = max(worst, abs(quad - gaussian_delta(e, m)))
    return worst < 1e-10, f"max |quadrature - closed form| = {worst:.2e}", 0.0, worst



# ---------------------------------------------------------------------------------------------
# Definition 2
# ---------------------------------------------------------------------------------------------
S2 = symbols("mu", "sigma")
sig = S2["sigma"]
def2 = Theorem(
    "li2019.def2_privacy_loss",
    "privacy loss random variable c(o) = log Pr[M(X)=o]/Pr[M(X')=o]",
    source("Definition 2", "Sec. 2.1"),
    "definition",
    symbols=S2,
    conclusion={"mean": mu**2 / (2 * sig**2), "variance": mu**2 / sig**2},
    statement=(
        "c(o; M, aux, X, X') = log Pr[M(aux, X) = o] / Pr[M(aux, X') = o]. For the Gaussian mechanism with "
        "shift mu and noise sigma, c(o) = (2 o mu - mu^2)/(2 sigma^2) and c ~ N(mu^2/(2 sigma^2), mu^2/sigma^2) "
        "for o ~ M(X) (the conclusion)."
    ),
)


@def2.add_check("gaussian_privacy_loss", "symbolic",
                "c(o) for N(mu, s^2) vs N(0, s^2) is linear in o with mean mu^2/(2 s^2), variance mu^2/s^2")
def _():
    c = sp.simplify(sp.expand_log(sp.log(_gauss_pdf(_o, mu, sig) / _gauss_pdf(_o, 0, sig)), force=True))
    linear = sp.simplify(c - (2 * _o * mu - mu**2) / (2 * sig**2)) == 0
    # c is a polynomial of degree 1 in o: its moments follow from E o = mu, E o^2 = mu^2 + sigma^2
    moments = {2: mu**2 + sig**2, 1: mu}
    def expect(poly):
        p = sp.Poly(sp.expand(poly), _o)
        return sum(coef * (moments[m[0]] if m[0] else 1) for m, coef in zip(p.monoms(), p.coeffs()))
    m1 = sp.simplify(expect(c))
    var = sp.simplify(expect(c**2) - m1**2)
    ok = linear and sp.simplify(m1 - def2.conclusion["mean"]) == 0 and sp.simplify(var - def2.conclusion["variance"]) == 0
    return ok, f"c(o) = {sp.simplify(c)}; E c = {m1}; Var c = {var}"



# ---------------------------------------------------------------------------------------------
# Definition 3
# ---------------------------------------------------------------------------------------------
S3 = symbols("mu", "sigma", "lam")
lam = S3["lam"]
def3 = Theorem(
    "li2019.def3_moments_accountant",
    "moments accountant alpha(lam) = max log E exp(lam c)",
    source("Definition 3", "Sec. 2.2"),
    "rdp",
    symbols=S3,
    conclusion={"log_moment": lam * (lam + 1) * mu**2 / (2 * sig**2)},
    statement=(
        "alpha_M(lam) = max_{aux, X, X'} log E_{o ~ M(aux, X)} exp(lam c(o)). For the Gaussian mechanism "
        "(shift mu, noise sigma) alpha(lam) = lam (lam+1) mu^2 / (2 sigma^2) (the conclusion); in general "
        "alpha(lam) = lam * D_{lam+1}(M(X) || M(X')), i.e. lam times the Renyi divergence of order lam+1."
    ),
)


@def3.add_check("gaussian_log_mgf", "symbolic", "log E exp(lam c) = lam(lam+1) mu^2/(2 s^2) by integration")
def _():
    # c(o) = (mu/sigma^2) o - mu^2/(2 sigma^2) (Def. 2), o ~ N(mu, sigma^2): E exp(lam c) is the normal MGF at
    # lam mu/sigma^2 times exp(-lam mu^2/(2 sigma^2))
    mgf = moment_generating_function(Normal("o", mu, sig))(lam * mu / sig**2) * sp.exp(-lam * mu**2 / (2 * sig**2))
    a = sp.expand(sp.expand_log(sp.log(mgf), force=True))
    ok = sp.simplify(a - def3.conclusion["log_moment"]) == 0
    return ok, f"alpha(lam) = {sp.factor(a)}"


@def3.add_check("renyi_link", "numeric",
                "alpha(lam) = lam * rdp(lam+1): the exact log moment (dpverify.calculus.accounting.moments) equals lam(lam+1)/(2 s^2) "
                "at q = 1 and lam times the sampled-Gaussian RDP at q = 0.01")
def _():
    lams = np.array([0.5, 1.0, 2.0, 7.5, 31.0])
    worst = 0.0
    for s in (0.8, 1.0, 3.0):
        full = log_moment_sampled_gaussian(1.0, s, lams)
        worst = max(worst, float(np.max(np.abs(full / (lams * (lams + 1) / (2 * s**2)) - 1))))
        sub = log_moment_sampled_gaussian(0.01, s, lams)
        worst = max(worst, float(np.max(np.abs(sub / (lams * rdp_sampled_gaussian(0.01, s, lams + 1)) - 1))))
    return worst < 1e-9, f"max relative error {worst:.2e} over sigma in (0.8, 1, 3)", 0.0, worst



# ---------------------------------------------------------------------------------------------
# Theorem 1: composability and tail bound (Abadi et al. 2016)
# ---------------------------------------------------------------------------------------------
S4 = symbols("sigma", "lam", "k")
k = S4["k"]
thm1c = Theorem(
    "li2019.thm1_composability",
    "log moments add under (adaptive) composition",
    source("Theorem 1 [Composability] (Abadi et al. 2016)", "Sec. 2.2"),
    "composition",
    symbols=S4,
    conclusion={"log_moment": k * lam * (lam + 1) / (2 * sig**2)},
    statement=(
        "For M = M_k o ... o M_1 (adaptive), alpha_M(lam) <= sum_i alpha_{M_i}(lam). For k Gaussian "
        "mechanisms with sensitivity 1 and noise sigma the bound is k lam (lam+1)/(2 sigma^2) (the conclusion), "
        "with equality."
    ),
)


@thm1c.add_check("gaussian_product_equality", "symbolic",
                 "two independent Gaussians: the joint privacy loss is c1 + c2 and log moments add exactly")
def _():
    s1, s2 = sp.symbols("s1 s2", positive=True)
    # per-mechanism loss c_i = (2 x_i - 1)/(2 s_i^2) (Def. 2 check), x_i ~ N(1, s_i^2) independent:
    # the joint loss is the sum, Gaussian with mean/variance by linearity; log MGF = lam m + lam^2 v / 2.
    m = sum((2 * 1 - 1) / (2 * s**2) for s in (s1, s2))
    v = sum((2 / (2 * s**2)) ** 2 * s**2 for s in (s1, s2))
    total = sp.simplify(lam * m + lam**2 * v / 2)
    single = [def3.conclusion["log_moment"].subs({mu: 1, sig: s}) for s in (s1, s2)]
    return sp.simplify(total - sum(single)) == 0, f"alpha_(M1,M2)(lam) = {sp.factor(total)} = alpha_1 + alpha_2"


@thm1c.add_check("adaptive_randomized_response", "numeric",
                 "adaptive pair (second eps depends on the first output): exact joint alpha <= alpha_1 + max alpha_2")
def _():
    def rr(e, bit):  # P(output = 1) for true bit
        p = math.exp(e) / (1 + math.exp(e))
        return p if bit else 1 - p

    e1, e2_of = 0.7, {0: 0.3, 1: 1.1}
    worst_gap = math.inf
    for lm in (0.5, 1.0, 3.0, 8.0):
        mgf = 0.0
        for o1, o2 in itertools.product((0, 1), repeat=2):
            pX = (rr(e1, 1) if o1 else 1 - rr(e1, 1)) * (rr(e2_of[o1], 1) if o2 else 1 - rr(e2_of[o1], 1))
            pY = (rr(e1, 0) if o1 else 1 - rr(e1, 0)) * (rr(e2_of[o1], 0) if o2 else 1 - rr(e2_of[o1], 0))
            mgf += pX * (pX / pY) ** lm
        joint = math.log(mgf)

        def alpha_rr(e):
            p = rr(e, 1)
            return math.log(p * (p / (1 - p)) ** lm + (1 - p) * ((1 - p) / p) ** lm)

        bound = alpha_rr(e1) + max(alpha_rr(e) for e in e2_of.values())
        worst_gap = min(worst_gap, bound - joint)
    return worst_gap >= -1e-12, f"min over lam of (bound - exact joint alpha) = {worst_gap:.3e} (>= 0 required)", 0.0, worst_gap



S5 = symbols("epsilon", "sigma", "lam", "k")
thm1t = Theorem(
    "li2019.thm1_tail_bound",
    "delta = min_lam exp(alpha(lam) - lam eps)",
    source("Theorem 1 [Tail bound] (Abadi et al. 2016)", "Sec. 2.2"),
    "privacy",
    symbols=S5,
    hypotheses=[Hypothesis("lam_positive", lam > 0, "any lam > 0 gives a valid delta")],
    conclusion={"delta": sp.exp(k * lam * (lam + 1) / (2 * sig**2) - lam * eps), "epsilon": eps},
    statement=(
        "For any eps > 0, M is (eps, delta)-DP with delta = min_{lam > 0} exp(alpha_M(lam) - lam eps). "
        "The conclusion evaluates exp(alpha(lam) - lam eps) at a given lam for k compositions of the "
        "Gaussian mechanism (sensitivity 1, noise sigma); any lam > 0 gives a valid delta."
    ),
)


@thm1t.add_check("gaussian_optimal_lambda", "symbolic",
                 "for alpha = k lam(lam+1)/(2 s^2): lam* = eps s^2/k - 1/2, log delta = -(eps - k/(2s^2))^2 s^2/(2k)")
def _():
    expo = sp.log(thm1t.conclusion["delta"])
    lstar = sp.solve(sp.diff(expo, lam), lam)
    want_l = eps * sig**2 / k - sp.Rational(1, 2)
    val = sp.simplify(expo.subs(lam, lstar[0]))
    want_v = -((eps - k / (2 * sig**2)) ** 2) * sig**2 / (2 * k)
    ok = len(lstar) == 1 and sp.simplify(lstar[0] - want_l) == 0 and sp.simplify(val - want_v) == 0
    return ok, f"lam* = {lstar}, min exponent = {val}"


@thm1t.add_check("tail_bound_dominates_exact_delta", "numeric",
                 "min_lam exp(alpha - lam eps) >= the exact Gaussian hockey-stick delta (Balle & Wang 2018)")
def _():
    rows = []
    for s, e, kk in [(1.0, 1.0, 1), (2.0, 2.0, 4), (5.0, 2.0, 10), (0.7, 3.0, 1)]:
        lstar = max(e * s**2 / kk - 0.5, 1e-9)
        tail = math.exp(kk * lstar * (lstar + 1) / (2 * s**2) - lstar * e)
        exact = gaussian_delta(e, math.sqrt(kk) / s)
        rows.append((s, e, kk, tail, exact))
    ok = all(t >= x for *_, t, x in rows)
    detail = "; ".join(f"sigma={s}, eps={e}, k={kk}: tail {t:.3e} vs exact {x:.3e}" for s, e, kk, t, x in rows)
    return ok, detail



# ---------------------------------------------------------------------------------------------
# Lemma 2 and Remark 1
# ---------------------------------------------------------------------------------------------
S6 = symbols("q", "sigma", "lam")
q = S6["q"]
LEMMA2_BOUND = q**2 * lam * (lam + 1) / ((1 - q) * sig**2)

#: (q, sigma, lam) points inside Lemma 2's hypotheses used by the numeric checks, including each
#: (q, sigma)'s largest admissible lam = sigma^2 ln(1/(q sigma)).
LEMMA2_GRID = [
    (q_, s_, l_)
    for q_ in (1e-3, 5e-3, 0.01, 0.03, 0.06)
    for s_ in (1.0, 1.1, 1.5, 2.0, 4.0, 10.0)
    if q_ < 1 / (16 * s_)
    for l_ in [l for l in (1.0, 2.0, 8.0, 32.0, 128.0) if l <= s_**2 * math.log(1 / (q_ * s_))]
    + [s_**2 * math.log(1 / (q_ * s_))]
]


def lemma2_ratio_table(remark1: bool = False) -> dict[float, tuple[float, float, float]]:
    """For each sigma of :data:`LEMMA2_GRID`: the largest ratio exact log moment / Lemma 2's leading term
    (``remark1=True``: / Remark 1's q^2 lam(lam+1)/sigma^2) and the (q, lam) where it occurs."""
    table: dict[float, tuple[float, float, float]] = {}
    for q_, s_, l_ in LEMMA2_GRID:
        exact = float(log_moment_sampled_gaussian(q_, s_, l_)[0])
        bound = float(li2019_log_moment_approx(q_, s_, l_)[0]) if remark1 else li2019_log_moment_bound(q_, s_, l_).value
        r = exact / bound
        if r > table.get(s_, (0.0,))[0]:
            table[s_] = (r, q_, l_)
    return table


lem2 = Theorem(
    "li2019.lem2_sampled_gaussian",
    "log moment of the sampled Gaussian mechanism",
    source("Lemma 2 (Abadi et al. 2016, Lemma 3)", "Sec. 2.2"),
    "rdp",
    symbols=S6,
    hypotheses=[
        Hypothesis("sigma_ge_1", sig >= 1, "sigma >= 1"),
        Hypothesis("q_small", q < 1 / (16 * sig), "q < 1/(16 sigma)"),
        Hypothesis("lam_range", lam <= sig**2 * sp.log(1 / (q * sig)), "lam <= sigma^2 ln(1/(q sigma))"),
    ],
    conclusion={"log_moment": LEMMA2_BOUND},
    statement=(
        "For ||f|| <= 1, Poisson sampling with rate q = tau/N, sigma >= 1, q < 1/(16 sigma) and "
        "0 < lam <= sigma^2 ln(1/(q sigma)), M(X) = sum_{i in J} f(d_i) + N(0, sigma^2 I) has "
        "alpha_M(lam) <= q^2 lam (lam+1)/((1-q) sigma^2) + O(q^3). The conclusion is the leading term."
    ),
    notes=(
        "Abadi et al.'s remainder is O(q^3 lam^3/sigma^3); Li et al. write O(q^3). The numeric check shows the "
        "leading term alone already bounds the exact log moment on a grid inside the hypotheses."
    ),
)


@lem2.add_check("q_squared_coefficient", "symbolic",
                "for integer lam the exact moment is sum_j C(lam+1,j) q^j (1-q)^(lam+1-j) e^{j(j-1)/(2s^2)}; its q^2 "
                "coefficient lam(lam+1)(e^{1/s^2}-1)/2 is <= lam(lam+1)/s^2 for s >= 1")
def _():
    lines = []
    ok = True
    E = sp.IndexedBase("E")  # E[j] stands for exp(j(j-1)/(2 sigma^2)); E[0] = E[1] = 1
    for L_ in (1, 2, 3, 5):
        moment = sum(sp.binomial(L_ + 1, j) * q**j * (1 - q) ** (L_ + 1 - j) * (E[j] if j >= 2 else 1) for j in range(L_ + 2))
        c = sp.Poly(sp.expand(moment), q).all_coeffs()[::-1]  # c[0] + c[1] q + c[2] q^2 + ...
        # log(c0 + c1 q + c2 q^2 + O(q^3)) = log c0 + (c1/c0) q + (c2/c0 - c1^2/(2 c0^2)) q^2 + O(q^3)
        c2 = sp.simplify((c[2] / c[0] - c[1] ** 2 / (2 * c[0] ** 2)).subs(E[2], sp.exp(1 / sig**2)))
        want = sp.Rational(L_ * (L_ + 1), 2) * (sp.exp(1 / sig**2) - 1)
        ok &= c[0] == 1 and c[1] == 0 and sp.simplify(c2 - want) == 0
        lines.append(f"lam={L_}: q^2 coeff {c2}")
    # (e^x - 1)/2 <= x on (0, 1]: equality-free since e^x - 1 - 2x < 0 there (convex, < 0 at both ends)
    x = sp.Symbol("x", positive=True)
    g = sp.exp(x) - 1 - 2 * x
    ok &= bool(g.subs(x, 1) < 0) and sp.limit(g, x, 0) == 0 and sp.diff(g, x, 2).is_positive
    return ok, "; ".join(lines) + "; and (e^x-1)/2 <= x for x = 1/sigma^2 in (0,1]"


@lem2.add_check("leading_term_vs_exact", "numeric",
                "exact log moment <= q^2 lam(lam+1)/((1-q) s^2) on a grid inside the hypotheses for sigma >= 1.1; at sigma = 1 "
                "the dropped O(q^3) term matters (recorded as an erratum); the closed form agrees with dpverify.calculus.accounting.moments")
def _():
    table = lemma2_ratio_table()
    safe = all(r <= 1.0 for s_, (r, _, _) in table.items() if s_ >= 1.1)
    r1, q1, l1 = table[1.0]
    documented = any(f"{r1:.3f}" in e.corrected for e in lem2.errata)
    same = all(math.isclose(float(lem2.evaluate(q=q_, sigma=s_, lam=l_, allow_unguaranteed=True).log_moment),
                            li2019_log_moment_bound(q_, s_, l_).value, rel_tol=1e-12) for q_, s_, l_ in LEMMA2_GRID[::7])
    rows = "; ".join(f"sigma={s_}: {r:.4f} at q={q_}, lam={l_:.3g}" for s_, (r, q_, l_) in sorted(table.items()))
    return safe and r1 > 1 and documented and same, (
        f"max exact/leading-term ratio per sigma over {len(LEMMA2_GRID)} points: {rows}. Erratum documented: {documented}"), 1.0, r1


lem2.errata.append(Erratum(
    "Lemma 2 cannot drop its O(q^3) term throughout its range: at sigma = 1, q = 0.06, lam = ln(1/0.06) (all hypotheses "
    "hold) the exact log moment exceeds the leading term (also found by dpverify.calculus.accounting.moments). On the grid "
    "the leading term is an upper bound for sigma >= 1.1.",
    "alpha(lam) <= q^2 lam(lam+1)/((1-q) sigma^2) (+ O(q^3), dropped in use)",
    "exact/leading term = 1.085 at sigma = 1, q = 0.06, lam = 2.81",
    check="leading_term_vs_exact",
))



rem1 = Theorem(
    "li2019.rem1_approx_moments",
    "approximate bound alpha(lam) <= q^2 lam(lam+1)/sigma^2",
    source("Remark 1", "Sec. 2.2"),
    "rdp",
    symbols=S6,
    conclusion={"log_moment": q**2 * lam * (lam + 1) / sig**2},
    statement=(
        "Since q is small the paper uses alpha(lam) <= q^2 lam (lam+1)/sigma^2 in the rest of the paper "
        "(experiments use Abadi et al.'s numerical accountant)."
    ),
    notes="Remark 1's expression is Lemma 2's leading term times (1-q): an approximation, not implied by Lemma 2.",
)


@rem1.add_check("weaker_than_lemma2", "symbolic",
                "Remark 1's expression is (1-q) times Lemma 2's: smaller, so it does not follow from Lemma 2")
def _():
    ratio = sp.simplify(rem1.conclusion["log_moment"] / LEMMA2_BOUND)
    return sp.simplify(ratio - (1 - q)) == 0, f"Remark 1 / Lemma 2 = {ratio}"


@rem1.add_check("exact_vs_approximation", "numeric",
                "exact log moment vs q^2 lam(lam+1)/s^2 inside Lemma 2's hypotheses: <= 1 for sigma >= 1.1 (about 1/2 for "
                "large sigma), above 1 at sigma = 1 (erratum)")
def _():
    table = lemma2_ratio_table(remark1=True)
    safe = all(r <= 1.0 for s_, (r, _, _) in table.items() if s_ >= 1.1)
    r1 = table[1.0][0]
    documented = any(f"{r1:.3f}" in e.corrected for e in rem1.errata)
    large = table[10.0][0]
    rows = "; ".join(f"sigma={s_}: {r:.4f}" for s_, (r, _, _) in sorted(table.items()))
    return safe and r1 > 1 and 0.45 < large < 0.55 and documented, (
        f"max exact/Remark-1 ratio per sigma: {rows}. Erratum documented: {documented}"), 1.0, r1


rem1.errata.append(Erratum(
    "Remark 1's approximation is not an upper bound at sigma = 1 (q = 0.06, lam = ln(1/0.06)); it is one on the grid "
    "for sigma >= 1.1, where it is about twice the exact log moment for large sigma.",
    "alpha(lam) <= q^2 lam(lam+1)/sigma^2",
    "exact/approximation = 1.155 at sigma = 1, q = 0.06, lam = 2.81",
    check="exact_vs_approximation",
))



# ---------------------------------------------------------------------------------------------
# Algorithm 1
# ---------------------------------------------------------------------------------------------
S7 = symbols("N", "q", "eta", "L")
N_, q7, eta7, L7 = S7["N"], S7["q"], S7["eta"], S7["L"]
alg1 = Theorem(
    "li2019.alg1_dp_sgld",
    "DP-SGLD (Algorithm 1): clipping to L, z_t ~ N(0, eta_t/N)",
    source("Algorithm 1", "Sec. 2.3"),
    "algorithm",
    symbols=S7,
    conclusion={
        "noise_variance": eta7 / N_,
        "noise_multiplier": sp.sqrt(noise_multiplier_sq(N_, q7, eta7, L7)),
    },
    statement=(
        "Each iteration: Poisson-sample J_t with rate q = tau/N; clip g_t(d_i) = grad log l(theta_t|d_i) to "
        "norm L; theta_{t+1} = theta_t -/+ eta_t (grad log p(theta)/N + (1/tau) sum_{i in J_t} g~_t(d_i)) + z_t, "
        "z_t ~ N(0, eta_t/N I). The conclusion gives the per-coordinate noise variance and the noise "
        "multiplier sigma = q sqrt(N/eta)/L = tau/(L sqrt(N eta)) of the equivalent sampled Gaussian mechanism."
    ),
    errata=[
        Erratum(
            "Step 6 descends the log posterior: with g = grad log-likelihood the drift must be added.",
            "theta_{t+1} <- theta_t - eta_t (grad log p(theta)/N + (1/tau) sum g~_t(d_i)) + z_t",
            "theta_{t+1} <- theta_t + eta_t (grad log p(theta)/N + (1/tau) sum g~_t(d_i)) + z_t",
            check="stationary_law_is_tempered",
        ),
        Erratum(
            "With the sign fixed, drift (eta/N) grad log pi and noise variance eta/N discretise "
            "d theta = 2 grad log pi dt + sqrt(2) dW in time units h = eta/(2N): the stationary law is pi^2 "
            "(inverse temperature 2), not pi (Sec. 3.2 calls it 'tempered SGLD with temperature 1').",
            "stationary law pi (temperature 1)",
            "stationary law proportional to pi^2; standard SGLD (Welling & Teh 2011) needs variance 2 eta/N "
            "for drift (eta/N) grad log pi",
            check="stationary_law_is_tempered",
        ),
    ],
    empirical=[LINK],
)


@alg1.add_check("noise_multiplier", "symbolic",
                "rescaling (eta/tau) sum g~ + N(0, eta/N) by tau/(eta L) gives sum f + N(0, sigma^2), "
                "sigma^2 = tau^2/(N eta L^2) = q^2 N/(eta L^2)")
def _():
    tau = sp.Symbol("tau", positive=True)
    var = sp.simplify((tau / (eta7 * L7)) ** 2 * eta7 / N_)
    want = noise_multiplier_sq(N_, tau / N_, eta7, L7)
    return sp.simplify(var - want) == 0, f"rescaled noise variance {var} = q^2 N/(eta L^2) with q = tau/N"


@alg1.add_check("stationary_law_is_tempered", "symbolic",
                "1-D Fokker-Planck: with per-step drift a grad log pi and noise variance v, "
                "the stationary density is pi^{2h/v}; Alg. 1 has v = h -> pi^2")
def _():
    x = sp.Symbol("x", real=True)
    a, v = sp.symbols("a v", positive=True, cls=sp.Dummy)
    logpi = sp.Function("f")(x)
    p = sp.exp(2 * a / v * logpi)
    # Euler step x + a f'(x) + N(0, v) ~ SDE dx = a f' dt + sqrt(v) dW per unit step: FP operator
    fp = -sp.diff(a * sp.diff(logpi, x) * p, x) + v / 2 * sp.diff(p, x, 2)
    stationary = sp.simplify(fp) == 0
    exponent_li = sp.simplify((2 * a / v).subs({a: eta7 / N_, v: eta7 / N_}))
    exponent_wt = sp.simplify((2 * a / v).subs({a: eta7 / (2 * N_), v: eta7 / N_}))
    ok = stationary and exponent_li == 2 and exponent_wt == 1
    return ok, (f"pi^(2a/v) is stationary: {stationary}; Alg. 1 (a = v = eta/N): exponent {exponent_li}; "
                f"Welling-Teh (a = v/2): exponent {exponent_wt}")




# ---------------------------------------------------------------------------------------------
# Pins: every conclusion evaluated at points and compared with an independent computation.
def _event_profile(p: np.ndarray, q: np.ndarray, e: float) -> tuple[float, float]:
    """By enumerating every event S of two discrete laws: (max P(S)/Q(S) over Q(S) > 0, max P(S) - e^e Q(S))."""
    ratio, slack = 0.0, 0.0
    for r in range(len(p) + 1):
        for S in itertools.combinations(range(len(p)), r):
            ps, qs = float(p[list(S)].sum()), float(q[list(S)].sum())
            if qs > 0:
                ratio = max(ratio, ps / qs)
            slack = max(slack, ps - math.exp(e) * qs)
    return ratio, slack


def _def1_cases():
    out = []
    for e, d in ((0.7, 0.03), (2.3, 0.001), (0.05, 0.2)):
        keep = math.exp(e) / (1 + math.exp(e))
        rr_ratio, _ = _event_profile(np.array([keep, 1 - keep]), np.array([1 - keep, keep]), e)
        a, b = (1 - d) * keep, (1 - d) * (1 - keep)  # the canonical (eps, delta) pair (Kairouz et al. 2015)
        _, slack = _event_profile(np.array([d, a, b, 0.0]), np.array([0.0, b, a, d]), e)
        out.append(({"epsilon": e, "delta": d}, {"probability_ratio_bound": rr_ratio, "additive_slack": slack}))
    return out


def1.add_pin(
    "pin_events_enumerated",
    "by enumerating all events: randomized response at eps has largest probability ratio e^eps, the canonical "
    "(eps, delta) pair has largest P(S) - e^eps Q(S) = delta; rel 1e-12, abs 1e-15",
    _def1_cases, rel=1e-12, abs_tol=1e-15)


def _gauss_log_moment_quad(mu_: float, s_: float, lam_: float) -> float:
    """log E_{o ~ N(mu, s^2)} exp(lam c(o)), c the privacy loss against N(0, s^2): scipy quadrature of the integrand
    divided by its numerically located maximum (so large lam does not overflow)."""
    def log_f(o):
        return -((o - mu_) ** 2) / (2 * s_**2) - math.log(math.sqrt(2 * math.pi) * s_) + lam_ * (2 * o * mu_ - mu_**2) / (2 * s_**2)

    peak = optimize.minimize_scalar(lambda o: -log_f(o), bracket=(mu_ - s_, mu_ + s_)).x
    top = log_f(peak)
    val, _ = integrate.quad(lambda o: math.exp(log_f(o) - top), peak - 40 * s_, peak + 40 * s_, points=[peak],
                            limit=400, epsabs=0.0, epsrel=1e-13)
    return top + math.log(val)


def2.add_pin(
    "pin_privacy_loss_moments_by_quadrature",
    "mean and variance of c(o) = log N(o; mu, s^2)/N(o; 0, s^2) for o ~ N(mu, s^2), by scipy quadrature at mu = 1.7, "
    "s = 0.8 and mu = 0.3, s = 2.5; rel 1e-9",
    lambda: [({"mu": m, "sigma": s_}, _loss_moments(m, s_)) for m, s_ in ((1.7, 0.8), (0.3, 2.5))], rel=1e-9)


def _loss_moments(mu_: float, s_: float) -> dict[str, float]:
    c = lambda o: (2 * o * mu_ - mu_**2) / (2 * s_**2)  # noqa: E731
    dens = lambda o: math.exp(-((o - mu_) ** 2) / (2 * s_**2)) / (math.sqrt(2 * math.pi) * s_)  # noqa: E731
    kw = dict(limit=400, epsabs=1e-14, epsrel=1e-13)
    m1 = integrate.quad(lambda o: dens(o) * c(o), mu_ - 20 * s_, mu_ + 20 * s_, **kw)[0]
    m2 = integrate.quad(lambda o: dens(o) * (c(o) - m1) ** 2, mu_ - 20 * s_, mu_ + 20 * s_, **kw)[0]
    return {"mean": m1, "variance": m2}


def3.add_pin(
    "pin_log_mgf_by_quadrature",
    "log E exp(lam c) of the Gaussian mechanism by scipy quadrature at (mu, sigma, lam) = (1.7, 0.8, 2.5), "
    "(0.3, 2.5, 0.4), (1, 3, 31); rel 1e-9",
    lambda: [({"mu": m, "sigma": s_, "lam": l_}, {"log_moment": _gauss_log_moment_quad(m, s_, l_)})
             for m, s_, l_ in ((1.7, 0.8, 2.5), (0.3, 2.5, 0.4), (1.0, 3.0, 31.0))], rel=1e-9)

thm1c.add_pin(
    "pin_k_fold_gaussian_by_quadrature",
    "k Gaussian mechanisms (sensitivity 1, noise sigma) are one Gaussian mechanism with shift sqrt(k) (rotation "
    "invariance, no composition theorem used); its log moment by scipy quadrature; rel 1e-9",
    lambda: [({"sigma": s_, "lam": l_, "k": kk}, {"log_moment": _gauss_log_moment_quad(math.sqrt(kk), s_, l_)})
             for s_, l_, kk in ((1.3, 2.5, 7), (0.8, 0.7, 3), (4.0, 12.0, 50))], rel=1e-9)


def _tail_cases():
    out = []
    for s_, l_, kk, e in ((2.0, 3.0, 4, 4.0), (5.0, 5.0, 10, 3.0), (0.7, 0.5, 1, 3.0)):
        alpha = np.array([_gauss_log_moment_quad(math.sqrt(kk), s_, l_)])
        tb = delta_from_log_moments([l_], alpha, e)  # dpverify.calculus.accounting.moments: the tail bound at this lam
        back = epsilon_from_log_moments([l_], alpha, tb.delta)  # and inverted at that delta
        out.append(({"epsilon": e, "sigma": s_, "lam": l_, "k": kk}, {"delta": tb.delta, "epsilon": back.epsilon}))
    return out


thm1t.add_pin(
    "pin_core_tail_bound",
    "exp(alpha(lam) - lam eps) with alpha by quadrature, through dpverify.calculus.accounting.moments.delta_from_log_moments, "
    "and the epsilon that epsilon_from_log_moments recovers at that delta; rel 1e-8 (quadrature error 1e-13 "
    "relative in the moment, amplified by at most lam eps = 15 in delta)",
    _tail_cases, rel=1e-8)


def _lem2_cases():
    out = []
    for q_, s_, l_ in ((0.01, 2.0, 4.0), (0.003, 1.5, 0.6), (0.02, 1.2, 2.0)):
        # the q^2 coefficient of the exact log moment, lam (lam+1) (e^{1/s^2} - 1)/2, bounded by lam (lam+1)/s^2 (check
        # q_squared_coefficient), with the 1/(1 - q) of Abadi et al.'s Lemma 3 -- typed from the statement
        out.append(({"q": q_, "sigma": s_, "lam": l_}, {"log_moment": q_ * q_ * l_ * (l_ + 1) / ((1 - q_) * s_ * s_)}))
    return out


lem2.add_pin(
    "pin_statement_by_hand",
    "q^2 lam (lam+1)/((1-q) sigma^2) typed from the statement in floats, inside the hypotheses; rel 1e-13 (the check "
    "leading_term_vs_exact compares it with the exact log moment)",
    _lem2_cases, rel=1e-13)

rem1.add_pin(
    "pin_statement_by_hand",
    "q^2 lam (lam+1)/sigma^2 typed from Remark 1 in floats; rel 1e-13",
    lambda: [({"q": q_, "sigma": s_, "lam": l_}, {"log_moment": q_ * q_ * l_ * (l_ + 1) / (s_ * s_)})
             for q_, s_, l_ in ((0.01, 2.0, 4.0), (0.2, 0.7, 0.3))], rel=1e-13)


def _alg1_cases():
    out = []
    for N_v, q_v, eta_v, L_v in ((60_000, 128 / 60_000, 0.3, 0.3), (1_000, 0.05, 2e-3, 4.0)):
        std = math.sqrt(eta_v / N_v)  # z_t ~ N(0, eta/N)
        sens = eta_v * L_v / (q_v * N_v)  # one clipped gradient (norm L) in (eta/tau) sum g~, tau = q N
        out.append(({"N": N_v, "q": q_v, "eta": eta_v, "L": L_v}, {"noise_variance": std**2, "noise_multiplier": std / sens}))
    return out


alg1.add_pin(
    "pin_noise_over_sensitivity",
    "noise multiplier = std of z_t (sqrt(eta/N)) over the L2 sensitivity eta L/tau of the step's data term, and the "
    "noise variance eta/N, at two settings with L != 1; rel 1e-12",
    _alg1_cases, rel=1e-12)


#: This part's items (the package registers them: :mod:`dpverify.theorems.registry`).
THEOREMS: tuple[Theorem, ...] = (def1, def2, def3, thm1c, thm1t, lem2, rem1, alg1)
