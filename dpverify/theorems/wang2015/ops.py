"""Wang, Fienberg, Smola (2015), Sections 2-3 and supplement A-B: DP definitions and the
One-Posterior-Sample (OPS) mechanism -- privacy (Theorem 1, Algorithm 1, Proposition 3) and
statistical efficiency (Propositions 1, 2 and supplement Proposition 4).

Each item is a :class:`~dpverify.theorems.base.Theorem` registered under its catalogue ID
(:mod:`dpverify.theorems.catalogue`). Every conclusion is pinned at points by a ``pin_*`` check
against an independent computation (an exact privacy profile, scipy's beta moments, ...).
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike
from scipy import stats
from scipy.optimize import brentq
from scipy.stats import beta
from sympy.stats import Normal, variance

from dpverify.calculus.mechanisms.exponential import discrete_delta, discrete_epsilon
from dpverify.theorems.shared import APPROX_SAMPLING, OPS_PURE_DP
from dpverify.theorems.base import Erratum, Hypothesis, Theorem
from dpverify.theorems.wang2015.common import hockey_stick_rows, link, source, symbols

__all__ = ["THEOREMS"]

_OPS_LINK = link("ops_beta_bernoulli", "exact conjugate posterior draws (optionally tempered), audited for the claimed epsilon")


def _beta_bernoulli_scaled_mse(rho):
    """n * E[(theta_hat - theta0)^2] for one draw theta_hat from the rho-tempered Beta(1,1)-Bernoulli
    posterior Beta(1 + rho S, 1 + rho (n - S)), S ~ Bin(n, theta0); exact in n, via E[S], E[S^2].

    Used by Propositions 2 and 4 (rho = 1 and rho = epsilon / (4B)); returns (expr, n, theta0).
    """
    n, th = sp.Symbol("n", positive=True), symbols("theta0")["theta0"]  # n continuous here (a limit in n)
    s = sp.Symbol("s")  # the success count S
    a, b = 1 + rho * s, 1 + rho * (n - s)
    mean = a / (a + b)
    # E[(theta_hat - theta0)^2 | S] = posterior variance + (posterior mean - theta0)^2
    cond = sp.expand((a * b / ((a + b) ** 2 * (a + b + 1)) + (mean - th) ** 2) * ((a + b) ** 2 * (a + b + 1)))
    # a + b = 2 + rho n does not depend on S: the numerator is a polynomial of degree 2 in S
    poly = sp.Poly(cond, s)
    coeffs = dict(zip(poly.monoms(), poly.coeffs()))
    es, es2 = n * th, n * th * (1 - th) + n**2 * th**2
    expect = sum(c * {(0,): 1, (1,): es, (2,): es2}[m] for m, c in coeffs.items())
    ab = 2 + rho * n
    return n * expect / (ab**2 * (ab + 1)), n, th


# ---------------------------------------------------------------------------------------------
# Definition 1
_s = symbols("epsilon")
_delta0 = symbols("delta")["delta"]
def1 = Theorem(
    "wang2015.def1_dp",
    "(epsilon, delta)-differential privacy",
    source("Definition 1", "Sec. 2.1, p. 2"),
    "definition",
    symbols={"epsilon": _s["epsilon"], "delta": _delta0},
    hypotheses=[Hypothesis("delta_below_one", _delta0 < 1, "delta in [0, 1)")],
    conclusion={"epsilon": _s["epsilon"], "delta": _delta0},
    statement=(
        "A randomized algorithm A is (epsilon, delta)-DP if for every measurable S and all X, Y with "
        "Hamming distance d(X, Y) <= 1 (replace one record), P(A(X) in S) <= exp(epsilon) P(A(Y) in S) + delta; "
        "delta = 0 is pure epsilon-DP. For fixed epsilon the smallest such delta of a pair is the hockey-stick "
        "divergence sup_S P(A(X) in S) - e^epsilon P(A(Y) in S)."
    ),
    notes="Adjacency is replace-one (Hamming distance); the sensitivities of Theorem 4 (2L) follow from this.",
)


@def1.add_check("randomized_response_is_tight", "symbolic",
                "binary randomized response with keep probability e^eps/(1+e^eps) meets Def. 1 with delta=0, with equality")
def _():
    eps = _s["epsilon"]
    p = sp.exp(eps) / (1 + sp.exp(eps))
    px, py = [p, 1 - p], [1 - p, p]
    gaps = []
    for r in range(3):
        for S in itertools.combinations(range(2), r):
            gaps.append(sp.simplify(sum(px[i] for i in S) - sp.exp(eps) * sum(py[i] for i in S)))
    # every gap must be <= 0 (Def. 1 with delta = 0), and the singleton {0} must be tight (gap 0)
    ok = all(sp.simplify(g.subs(eps, e)) <= 0 for g in gaps for e in (sp.Rational(1, 10), 1, 5)) and sp.simplify(gaps[1]) == 0
    return ok, f"gaps P(S) - e^eps Q(S) over all S: {gaps}"


@def1.add_check("hockey_stick_is_smallest_delta", "numeric",
                "enumerating all 2^6 events: max_S P(S) - e^eps Q(S) equals sum max(0, p - e^eps q)")
def _():
    rng = np.random.default_rng(1)
    p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    eps = 0.3
    best = max(sum(p[list(S)]) - np.exp(eps) * sum(q[list(S)]) for r in range(7) for S in itertools.combinations(range(6), r))
    hs = float(hockey_stick_rows(p, q, eps))
    return abs(best - hs) < 1e-12, f"max over events {best:.12g}, hockey-stick {hs:.12g}", hs, best


# ---------------------------------------------------------------------------------------------
# Lemma 1
lem1 = Theorem(
    "wang2015.lem1_post_processing",
    "post-processing immunity",
    source("Lemma 1", "Sec. 2.1, p. 2"),
    "privacy",
    symbols={"epsilon": _s["epsilon"], "delta": _delta0},
    hypotheses=[Hypothesis("delta_below_one", _delta0 < 1, "delta in [0, 1)")],
    conclusion={"epsilon": _s["epsilon"], "delta": _delta0},
    statement="If A is (epsilon, delta)-DP then B o A is (epsilon, delta)-DP for every (randomized) map B.",
)


@lem1.add_check("channel_identity", "symbolic",
                "for a channel K: (Kp)(S) - e^eps (Kq)(S) = sum_w K(w,S) (p_w - e^eps q_w) <= sum_w max(0, p_w - e^eps q_w)")
def _():
    eps = _s["epsilon"]
    p = sp.symbols("p0:3", nonnegative=True)
    q = sp.symbols("q0:3", nonnegative=True)
    K = sp.symbols("K0:3", nonnegative=True)  # K(w, S): probability that B maps w into S
    lhs = sum(K[i] * p[i] for i in range(3)) - sp.exp(eps) * sum(K[i] * q[i] for i in range(3))
    rhs = sum(K[i] * (p[i] - sp.exp(eps) * q[i]) for i in range(3))
    ident = sp.expand(lhs - rhs) == 0
    # termwise K d <= max(0, d) for K = 1/(1 + w) in (0, 1]: (1 - K) d >= 0 when d >= 0, and -K d >= 0 when d < 0
    w, dpos, dneg = sp.Symbol("w", nonnegative=True), sp.Symbol("d", nonnegative=True), sp.Symbol("d", negative=True)
    k = 1 / (1 + w)
    term_pos = bool(sp.simplify((1 - k) * dpos).is_nonnegative)
    term_neg = bool((-k * dneg).is_nonnegative)
    return ident and term_pos and term_neg, "linearity of the channel plus K in [0,1] termwise"


@lem1.add_check("random_channels_do_not_increase_delta", "numeric",
                "200 random output pairs and channels: hockey-stick after the channel <= before")
def _():
    rng = np.random.default_rng(2)
    p, q = rng.dirichlet(np.ones(5), size=200), rng.dirichlet(np.ones(5), size=200)
    K = rng.dirichlet(np.ones(4), size=(200, 5))  # row-stochastic 5 -> 4
    eps = 0.5
    before = hockey_stick_rows(p, q, eps)
    after = hockey_stick_rows(np.einsum("rw,rwo->ro", p, K), np.einsum("rw,rwo->ro", q, K), eps)
    worst = float(np.max(after - before))
    return worst <= 1e-12, f"max(after - before) = {worst:.3g}"


# ---------------------------------------------------------------------------------------------
# Definitions 2 and 3
_c = symbols("n", "theta0")
def23 = Theorem(
    "wang2015.def2_def3_consistency",
    "posterior consistency in the Bayesian and in the frequentist sense",
    source("Definitions 2 and 3", "Sec. 3.2, p. 3"),
    "definition",
    symbols=_c,
    hypotheses=[Hypothesis("theta0_in_unit_interval", _c["theta0"] < 1, "Bernoulli parameter in (0, 1)")],
    conclusion={
        "posterior_mean": (1 + _c["n"] * _c["theta0"]) / (_c["n"] + 2),
        "posterior_variance": (1 + _c["n"] * _c["theta0"]) * (1 + _c["n"] * (1 - _c["theta0"]))
        / ((_c["n"] + 2) ** 2 * (_c["n"] + 3)),
    },
    statement=(
        "Def. 2: the model is posterior consistent in the Bayesian sense if, with theta ~ pi and "
        "x_1..x_n ~ p_theta, pi(.|x_1..x_n) -> delta_theta weakly, pi-a.s. Def. 3 (frequentist sense): for "
        "every theta0, with x_i ~ p_theta0, pi(.|x_1..x_n) -> delta_theta0 weakly, p_theta0-a.s. The "
        "conclusion is the worked example: Beta(1,1)-Bernoulli posterior mean and variance when the "
        "success count is n theta0."
    ),
)


@def23.add_check("beta_bernoulli_is_consistent", "symbolic",
                 "posterior mean -> theta0 and variance -> 0 as n -> oo (Chebyshev: weak convergence to delta_theta0)")
def _():
    n, th = _c["n"], _c["theta0"]
    m = sp.limit(def23.conclusion["posterior_mean"], n, sp.oo)
    v = sp.limit(def23.conclusion["posterior_variance"], n, sp.oo)
    nv = sp.limit(n * def23.conclusion["posterior_variance"], n, sp.oo)
    ok = sp.simplify(m - th) == 0 and v == 0 and sp.simplify(nv - th * (1 - th)) == 0
    return ok, f"mean -> {m}, variance -> {v}, n*variance -> {sp.factor(nv)} (= inverse Fisher information)"


# ---------------------------------------------------------------------------------------------
# Theorem 1 (bounded log-likelihood)
_b = symbols("B")
thm1 = Theorem(
    "wang2015.thm1_ops_pure_dp",
    "one posterior sample with sup |log p(x|theta)| <= B is 4B-DP",
    source("Theorem 1", "Sec. 3.1, p. 3; proof in Supplement A"),
    "privacy",
    shared=OPS_PURE_DP,
    empirical=[_OPS_LINK],
    notes=(
        "Proof (Wang et al.): the posterior ratio of neighbours factors into p(x'_k|theta)/p(x_k|theta) <= e^{2B} "
        "times a ratio of normalising constants <= e^{2B}. The proof uses only sup |log p(x'|theta) - log p(x|theta)| <= 2B, so 4B can be replaced by "
        "2 sup |difference| (Foulds et al. 2016's 2C). The bound is attained in the limit (check "
        "bound_is_tight). The supplement's Factor 2 display has stray p(theta) and p(x_k) factors; the "
        "argument is the one re-done in check two_factors."
    ),
)


@thm1.add_check("two_factors", "symbolic",
                "Factor 1 = e^{l'-l} <= e^{2B}; Factor 2 = sum w e^{l} / sum w e^{l'} <= e^{2B}; product <= e^{4B}")
def _():
    B = _b["B"]
    l, lp = sp.symbols("l lp", real=True)
    # Factor 1: the log-ratio l' - l is linear, so its max over the box [-B, B]^2 is at a corner
    f1 = max(sp.simplify(lp0 - l0) for l0 in (-B, B) for lp0 in (-B, B))
    # Factor 2 over a 3-point parameter space with weights w_j = prod_{i != k} p(x_i|theta_j) pi(theta_j) > 0:
    w = sp.symbols("w0:3", positive=True)
    ls, lps = sp.symbols("l0:3", real=True), sp.symbols("lp0:3", real=True)
    num, den = sum(w[j] * sp.exp(ls[j]) for j in range(3)), sum(w[j] * sp.exp(lps[j]) for j in range(3))
    # e^{2B} den - num = sum_j w_j e^{l'_j} (e^{2B} - e^{l_j - l'_j}), each term >= 0 since l_j - l'_j <= 2B
    decomposition = sum(w[j] * sp.exp(lps[j]) * (sp.exp(2 * B) - sp.exp(ls[j] - lps[j])) for j in range(3))
    f2_ok = sp.simplify(sp.exp(2 * B) * den - num - decomposition) == 0
    total = sp.simplify(sp.log(sp.exp(f1) * sp.exp(2 * B)))
    ok = sp.simplify(f1 - 2 * B) == 0 and f2_ok and sp.simplify(total - thm1.conclusion["epsilon"]) == 0
    return ok, f"log Factor 1 <= {f1}, Factor 2 decomposition exact: {f2_ok}, log total <= {total}"


@thm1.add_check("random_posteriors_within_4B", "numeric",
                "500 random discrete models (|log-lik| <= B, 40 parameter values, n = 5): max |log posterior ratio| <= 4B")
def _():
    rng = np.random.default_rng(3)
    B, runs, m, n = 0.7, 500, 40, 5
    ll = rng.uniform(-B, B, size=(runs, n, m))  # log p(x_i | theta_j)
    llp = ll.copy()
    llp[:, 0, :] = rng.uniform(-B, B, size=(runs, m))  # replace record 0
    logprior = np.log(rng.dirichlet(np.ones(m), size=runs))

    def logpost(table):
        u = table.sum(axis=1) + logprior
        return u - np.logaddexp.reduce(u, axis=1, keepdims=True)

    worst = float(np.max(np.abs(logpost(ll) - logpost(llp))))
    bound = thm1.evaluate(B=B).epsilon
    return worst <= bound + 1e-12, f"max |log ratio| = {worst:.4f} <= 4B = {bound}", bound, worst


@thm1.add_check("bound_is_tight", "numeric",
                "two parameter values, l(x|.) = (B, -B), l(x'|.) = (-B, B), prior mass 1 - 1e-12 on the first: log ratio -> 4B")
def _():
    B, w = 0.5, 1 - 1e-12
    lw = np.log([w, 1 - w])
    post = lambda l: (lambda u: u - np.logaddexp.reduce(u))(np.asarray(l) + lw)  # noqa: E731
    ratio = float(np.max(post([-B, B]) - post([B, -B])))
    bound = thm1.evaluate(B=B).epsilon
    return abs(ratio - bound) < 1e-6, f"log ratio {ratio:.9f} vs 4B = {bound}", bound, ratio


# ---------------------------------------------------------------------------------------------
# Theorem 1, Lipschitz part
_lr = symbols("L", "R")
thm1l = Theorem(
    "wang2015.thm1_ops_lipschitz",
    "one posterior sample with L-Lipschitz log-likelihood on ||x|| <= R is 4LR-DP",
    source("Theorem 1 (second part)", "Sec. 3.1, p. 3; proof in Supplement A"),
    "privacy",
    symbols=_lr,
    conclusion={"epsilon": 4 * _lr["L"] * _lr["R"], "delta": 0},
    statement=(
        "If ||x||_* <= R on the data domain and x -> log p(x|theta) is L-Lipschitz in ||.||_* for every "
        "theta, one posterior sample is 4LR-DP: log p(x'|theta) - log p(x|theta) <= L ||x' - x|| <= 2LR "
        "takes the place of 2B in both factors of Theorem 1's proof."
    ),
    empirical=[_OPS_LINK],
)


@thm1l.add_check("lipschitz_gives_2LR_per_factor", "symbolic",
                 "sup over |x|, |x'| <= R of L|x - x'| is 2LR; the two-factor bound with 2B -> 2LR gives 4LR")
def _():
    L, R = _lr["L"], _lr["R"]
    sup_diff = max(L * sp.Abs(x - xp) for x in (-R, R) for xp in (-R, R))  # convex in (x, x'): max at corners
    sup_diff = sp.simplify(sup_diff)
    total = sp.simplify(thm1.conclusion["epsilon"].subs(_b["B"], sup_diff / 2))
    ok = sp.simplify(sup_diff - 2 * L * R) == 0 and sp.simplify(total - thm1l.conclusion["epsilon"]) == 0
    return ok, f"sup difference {sup_diff}; 4B with 2B = sup difference gives {total}"


@thm1l.add_check("laplace_location_model", "numeric",
                 "log p(x|theta) = -L|x - theta| + const on [-R, R], grid posterior, n = 3: max |log ratio| <= 4LR")
def _():
    L, R = 1.3, 0.8
    theta = np.linspace(-3, 3, 601)
    rng = np.random.default_rng(4)
    x = rng.uniform(-R, R, size=(300, 3))
    xp = x.copy()
    xp[:, 0] = rng.choice([-R, R], size=300)
    x[:, 0] = -xp[:, 0]  # the extreme replacement

    def logpost(data):
        u = -L * np.abs(data[:, :, None] - theta[None, None, :]).sum(axis=1)
        return u - np.logaddexp.reduce(u, axis=1, keepdims=True)

    worst = float(np.max(np.abs(logpost(x) - logpost(xp))))
    bound = thm1l.evaluate(L=L, R=R).epsilon
    return worst <= bound + 1e-9, f"max |log ratio| = {worst:.4f} <= 4LR = {bound:.4f}", bound, worst


# ---------------------------------------------------------------------------------------------
# Algorithm 1
_a1 = symbols("B", "epsilon")
_rho1 = sp.Min(1, _a1["epsilon"] / (4 * _a1["B"]))
alg1 = Theorem(
    "wang2015.alg1_ops_scaled",
    "OPS with tempering rho = min(1, epsilon/(4B)) is epsilon-DP",
    source("Algorithm 1", "Sec. 3, p. 3"),
    "algorithm",
    symbols=_a1,
    conclusion={"rho": _rho1, "epsilon": 4 * _a1["B"] * _rho1, "delta": 0},
    statement=(
        "Algorithm 1: given sup |l(x|theta)| <= B and a target epsilon, set rho = min(1, epsilon/(4B)), "
        "replace l by rho l and pi by pi^rho, and release one sample of the tempered posterior. The "
        "tempered log-likelihood is bounded by rho B, so Theorem 1 gives 4 rho B = min(4B, epsilon) <= epsilon."
    ),
    empirical=[_OPS_LINK],
    notes="The prior's tempering pi^rho does not affect privacy (the prior cancels in both factors).",
)


@alg1.add_check("tempered_bound_gives_epsilon", "symbolic",
                "Theorem 1 applied to rho*l (bound rho*B): 4 rho B = epsilon when epsilon <= 4B and 4B otherwise")
def _():
    B, eps = _a1["B"], _a1["epsilon"]
    rho = sp.Symbol("rho", positive=True)
    tempered = thm1.conclusion["epsilon"].subs(_b["B"], rho * B)  # Theorem 1 for the bound rho B
    u = sp.Symbol("u", positive=True)  # branches: epsilon = 4B u/(1+u) < 4B and epsilon = 4B (1+u) > 4B
    below, above = {eps: 4 * B * u / (1 + u)}, {eps: 4 * B * (1 + u)}
    ok = (sp.simplify(tempered.subs(rho, alg1.conclusion["rho"].subs(below)) - below[eps]) == 0
          and sp.simplify(tempered.subs(rho, alg1.conclusion["rho"].subs(above)) - 4 * B) == 0
          and sp.simplify(alg1.conclusion["epsilon"] - tempered.subs(rho, alg1.conclusion["rho"])) == 0)
    return ok, "4 rho B = min(4B, epsilon) on both branches of the min"


@alg1.add_check("evaluated_grid", "numeric", "evaluate on a grid: epsilon_out = min(4B, epsilon) and rho <= 1")
def _():
    worst = 0.0
    for B in (0.1, 0.5, 2.0):
        for e in (0.05, 0.4, 1.0, 10.0):
            r = alg1.evaluate(B=B, epsilon=e)
            worst = max(worst, abs(r.epsilon - min(4 * B, e)), abs(r.rho - min(1.0, e / (4 * B))))
    return worst < 1e-12, f"max deviation {worst:.3g}"


# ---------------------------------------------------------------------------------------------
# Proposition 1
_ops_mse_expr, _n_tmp, _th_tmp = _beta_bernoulli_scaled_mse(1)
prop1 = Theorem(
    "wang2015.prop1_consistency",
    "OPS is consistent iff the posterior is consistent",
    source("Proposition 1", "Sec. 3.2, p. 3"),
    "efficiency",
    symbols=_c,
    hypotheses=[Hypothesis("theta0_in_unit_interval", _c["theta0"] < 1, "Bernoulli parameter in (0, 1)")],
    conclusion={"ops_mse": (_ops_mse_expr / _n_tmp).subs({_n_tmp: _c["n"], _th_tmp: _c["theta0"]})},
    statement=(
        "The one-posterior-sample estimator theta_hat ~ pi(theta|x_1..x_n) is consistent iff the model is "
        "posterior consistent (Def. 2 or 3): P(|theta_hat - theta0| > r) = E[posterior mass outside the "
        "r-ball], and weak convergence to a point mass is convergence in probability. Worked instance "
        "(conclusion 'ops_mse'): for the Beta(1,1)-Bernoulli model with x_i ~ Bernoulli(theta0), the exact "
        "E[(theta_hat - theta0)^2] of one posterior draw, which tends to 0 (so theta_hat is consistent)."
    ),
    empirical=[link("ops_beta_bernoulli", "OPS draws concentrate at theta0 as n grows")],
)


@prop1.add_check("beta_bernoulli_mass_outside_ball", "numeric",
                 "Beta(1+S, 1+n-S), S = n theta0: posterior mass outside |theta - 0.3| <= 0.05 decreases to ~0 in n")
def _():
    th, r = 0.3, 0.05
    masses = []
    for n in (100, 1000, 10000, 100000):
        s = round(n * th)
        masses.append(float(beta.cdf(th - r, 1 + s, 1 + n - s) + beta.sf(th + r, 1 + s, 1 + n - s)))
    ok = all(a > b for a, b in zip(masses, masses[1:])) and masses[-1] < 1e-100 and masses[0] > 0.1
    return ok, f"mass outside the ball at n = 1e2..1e5: {masses}"


# ---------------------------------------------------------------------------------------------
# Proposition 2
prop2 = Theorem(
    "wang2015.prop2_are_two",
    "OPS has asymptotic relative efficiency 2",
    source("Proposition 2", "Sec. 3.2, p. 4"),
    "efficiency",
    conclusion={"are": 2},
    statement=(
        "Under the Bernstein-von Mises conditions, sqrt(n)(theta_hat - theta0) -> N(0, 2 I^{-1}) for one "
        "posterior sample theta_hat: the sum of the asymptotically independent sqrt(n)(theta_hat - "
        "theta_bar) ~ N(0, I^{-1}) (BvM) and sqrt(n)(theta_bar - theta0) ~ N(0, I^{-1}) (efficiency of the "
        "posterior mean)."
    ),
    empirical=[link("ops_beta_bernoulli", "n * MSE of OPS draws approaches 2 theta0 (1 - theta0)")],
)


@prop2.add_check("sum_of_independent_normals", "symbolic", "Var of the sum of two independent N(0, I^-1) is 2 I^-1")
def _():
    i = sp.Symbol("I", positive=True)
    v = sp.simplify(variance(Normal("U", 0, 1 / sp.sqrt(i)) + Normal("V", 0, 1 / sp.sqrt(i))) * i)
    return v == prop2.conclusion["are"], f"Var * I = {v}"


@prop2.add_check("beta_bernoulli_exact_mse", "symbolic",
                 "Beta(1,1)-Bernoulli: lim n E[(theta_hat - theta0)^2] = 2 theta0 (1 - theta0) = 2 I^{-1}")
def _():
    mse, n, th = _beta_bernoulli_scaled_mse(1)
    lim = sp.factor(sp.limit(mse, n, sp.oo))
    are = sp.simplify(lim / (th * (1 - th)))
    return are == 2, f"lim n MSE = {lim}; ratio to I^-1 = {are}", 2, are


# ---------------------------------------------------------------------------------------------
# Proposition 3
_p3 = symbols("epsilon", "delta")
prop3 = Theorem(
    "wang2015.prop3_approx_sampling",
    "approximate sampling: L1 error delta gives (epsilon, (1 + e^epsilon) delta)-DP",
    source("Proposition 3", "Sec. 3.3, p. 4; proof in Supplement A"),
    "privacy",
    shared=APPROX_SAMPLING,
    notes=(
        "The proof uses |P(S) - P'(S)| <= delta; since sup_S |P(S) - P'(S)| = ||P - P'||_{L1} / 2 the result "
        "holds with (1 + e^eps) delta / 2 (conservative by 2 as printed, not wrong). The printed proof's "
        "second line drops '+ delta' ('<= e^eps int dP_X' + delta <= e^eps int dP_X''); the chain re-done in "
        "check tv_chain is the intended one."
    ),
)


@prop3.add_check("tv_chain", "symbolic",
                 "e^eps P'_Y(S) + (1+e^eps) delta - P'_X(S) = (P_X + delta - P'_X) + (e^eps P_Y - P_X) + e^eps (P'_Y + delta - P_Y)")
def _():
    eps, delta = _p3["epsilon"], _p3["delta"]
    a, b, c, d = sp.symbols("Pp_X P_X P_Y Pp_Y", nonnegative=True)
    slack = sp.exp(eps) * d + prop3.conclusion["delta"] - a
    parts = (b + delta - a) + (sp.exp(eps) * c - b) + sp.exp(eps) * (d + delta - c)
    return sp.expand(slack - parts) == 0, "slack is a sum of three terms, each >= 0 by a hypothesis"


@prop3.add_check("random_perturbations", "numeric",
                 "random epsilon-DP pairs perturbed within L1 <= delta: hockey-stick at e^eps <= (1 + e^eps) delta")
def _():
    rng = np.random.default_rng(5)
    eps, delta, m = 0.4, 0.01, 8
    q = rng.dirichlet(np.ones(m), size=300)
    p = q * np.exp(rng.uniform(-eps / 2, eps / 2, size=q.shape))
    p /= p.sum(axis=1, keepdims=True)  # ratios within e^{+-eps}: pure eps-DP pair

    def perturb(x):
        y = x + rng.normal(size=x.shape) * 0.01
        y = np.clip(y, 1e-9, None)
        y /= y.sum(axis=1, keepdims=True)
        l1 = np.abs(y - x).sum(axis=1, keepdims=True)
        return x + (y - x) * np.minimum(1.0, delta / l1)  # L1 distance <= delta, still a distribution

    pp, qp = perturb(p), perturb(q)
    worst = float(np.max(hockey_stick_rows(pp, qp, eps)))
    bound = (1 + np.exp(eps)) * delta
    return worst <= bound, f"max hockey-stick {worst:.4g} <= {bound:.4g}", bound, worst


# ---------------------------------------------------------------------------------------------
# Supplement Proposition 4
_p4 = symbols("B", "epsilon")
prop4 = Theorem(
    "wang2015.supp_prop4_are_general_eps",
    "OPS at epsilon <= 4B has asymptotic relative efficiency 1 + 4B/epsilon",
    source("Proposition 4", "Supplement B"),
    "efficiency",
    symbols=_p4,
    hypotheses=[Hypothesis("tempering_active", _p4["epsilon"] <= 4 * _p4["B"], "rho = epsilon/(4B) <= 1")],
    conclusion={"are": 1 + 4 * _p4["B"] / _p4["epsilon"], "rho": _p4["epsilon"] / (4 * _p4["B"])},
    statement=(
        "Under Proposition 2's conditions, with the log-likelihood scaled by rho = epsilon/(4B) (Algorithm 1), "
        "sqrt(n)(theta_hat - theta0) -> N(0, (1 + 4B/epsilon) I^{-1}): the misspecified MLE has sandwich "
        "covariance J^{-1} V J^{-1} = I^{-1} (V = rho^2 I, J = rho I), and the tempered posterior has "
        "covariance (n J)^{-1} = I^{-1}/(n rho)."
    ),
    errata=[
        Erratum("scaling factor printed as 'epsilon/(AB)'", "rescaling the log-likelihood by epsilon/(AB)",
                "rescaling by epsilon/(4B) (Algorithm 1's rho)", check="scaling_factor_is_rho"),
        Erratum("sign of J in the proof", "J = -(epsilon/4B) E grad^2 l = -(epsilon/4B) I",
                "J = -(epsilon/4B) E grad^2 l = +(epsilon/4B) I", check="sandwich_formula"),
    ],
    empirical=[link("ops_beta_bernoulli", "n * MSE of tempered OPS draws approaches (1 + 4B/eps) theta0 (1 - theta0)")],
    notes="For epsilon > 4B Algorithm 1 does not temper (rho = 1) and Proposition 2's ARE 2 applies.",
)


@prop4.add_check("sandwich_formula", "symbolic",
                 "V = rho^2 I, J = rho I: J^-1 V J^-1 + J^-1 = (1 + 1/rho) I^-1 = (1 + 4B/eps) I^-1 (2x2 matrices)")
def _():
    rho = prop4.conclusion["rho"]
    i11, i12, i22 = sp.symbols("i11 i12 i22", real=True)
    I = sp.Matrix([[i11, i12], [i12, i22]])
    V, J = rho**2 * I, rho * I  # V = E grad l~ grad l~^T, J = -E grad^2 l~ = +rho I
    total = J.inv() * V * J.inv() + J.inv()
    diff = sp.simplify(total - prop4.conclusion["are"] * I.inv())
    return diff == sp.zeros(2, 2), "sandwich + posterior covariance = (1 + 4B/eps) I^-1"


@prop4.add_check("scaling_factor_is_rho", "symbolic",
                 "the ARE 1 + 4B/eps needs the scaling factor eps/(4B) = Algorithm 1's rho on epsilon <= 4B")
def _():
    B, eps = _p4["B"], _p4["epsilon"]
    s = sp.Symbol("s", positive=True)  # a generic scaling factor: ARE = 1 + 1/s
    solved = sp.solve(sp.Eq(1 + 1 / s, prop4.conclusion["are"]), s)
    u = sp.Symbol("u", positive=True)  # epsilon = 4B/(1+u) < 4B, where Proposition 4 applies
    rho_alg1 = alg1.conclusion["rho"].subs({_a1["B"]: B, _a1["epsilon"]: 4 * B / (1 + u)})
    matches = sp.simplify(rho_alg1 - prop4.conclusion["rho"].subs(eps, 4 * B / (1 + u))) == 0
    return solved == [eps / (4 * B)] and matches, f"scaling factor solving the ARE: {solved}; Alg. 1 rho matches: {matches}"


@prop4.add_check("beta_bernoulli_tempered_mse", "symbolic",
                 "tempered Beta-Bernoulli OPS: lim n MSE / I^-1 = 1 + 1/rho")
def _():
    r = sp.Dummy("rho", positive=True)
    mse, n, th = _beta_bernoulli_scaled_mse(r)
    are = sp.simplify(sp.limit(mse, n, sp.oo) / (th * (1 - th)))
    expected = 1 + 1 / r
    return sp.simplify(are - expected) == 0, f"ARE = {are}", expected, are


# ---------------------------------------------------------------------------------------------
# Pins: every conclusion evaluated at points and compared with an independent computation.
def _log(p):
    with np.errstate(divide="ignore"):
        return np.log(np.asarray(p, dtype=float))


def _rr(eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Binary randomized response with keep probability e^eps/(1+e^eps): the two output laws."""
    keep = np.exp(eps) / (1 + np.exp(eps))
    return np.array([keep, 1 - keep]), np.array([1 - keep, keep])


def _canonical(eps: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The (eps, delta) pair of Kairouz et al. 2015: hockey-stick exactly delta at e^eps, both directions."""
    a, b = (1 - delta) * np.exp(eps) / (1 + np.exp(eps)), (1 - delta) / (1 + np.exp(eps))
    return np.array([delta, a, b, 0.0]), np.array([0.0, b, a, delta])


def _exact_profile(p: np.ndarray, q: np.ndarray, eps: float) -> tuple[float, float]:
    """(smallest delta at eps, both directions; smallest eps at delta = 0 on the common support)."""
    lp, lq = _log(p), _log(q)
    d = max(discrete_delta(lp, lq, eps), discrete_delta(lq, lp, eps))
    keep = (p > 0) & (q > 0)
    return d, discrete_epsilon(lp[keep], lq[keep])


_DEF_POINTS = ((0.7, 0.03), (2.3, 0.0), (0.05, 0.2))


def _def1_cases():
    out = []
    for e, d in _DEF_POINTS:
        delta_exact, _ = _exact_profile(*_canonical(e, d), e)
        eps_exact = _exact_profile(*_rr(e), e)[1]
        out.append(({"epsilon": e, "delta": d}, {"epsilon": eps_exact, "delta": delta_exact}))
    return out


def1.add_pin(
    "pin_exact_privacy_profile",
    "Def. 1's (eps, delta) are exactly the privacy profile of the extreme pairs: eps = the largest log-ratio of "
    "randomized response at eps (dpverify.calculus.mechanisms.exponential.discrete_epsilon), delta = the hockey-stick at e^eps "
    "of the canonical (eps, delta) pair (Kairouz et al. 2015); rel 1e-12, abs 1e-14 (sums of a few doubles)",
    _def1_cases, rel=1e-12, abs_tol=1e-14)


def _lem1_cases():
    perm = np.array([[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 1, 0, 0]], dtype=float)  # a bijective channel
    out = []
    for e, d in _DEF_POINTS:
        p, q = _canonical(e, d)
        delta_after, _ = _exact_profile(p @ perm, q @ perm, e)
        rp, rq = _rr(e)
        eps_after = _exact_profile(rp[::-1], rq[::-1], e)[1]  # relabelling the outputs of randomized response
        out.append(({"epsilon": e, "delta": d}, {"epsilon": eps_after, "delta": delta_after}))
    return out


lem1.add_pin(
    "pin_invertible_post_processing",
    "post-processing keeps (eps, delta) and no less when the map is invertible: after permuting the outputs, the "
    "canonical (eps, delta) pair still has hockey-stick delta and randomized response still log-ratio eps; rel 1e-12, "
    "abs 1e-14",
    _lem1_cases, rel=1e-12, abs_tol=1e-14)


def _def23_cases():
    out = []
    for n, th in ((37, 0.3), (1000, 0.85), (5, 0.5)):
        post = stats.beta(1 + n * th, 1 + n * (1 - th))
        out.append(({"n": n, "theta0": th}, {"posterior_mean": float(post.mean()), "posterior_variance": float(post.var())}))
    return out


def23.add_pin(
    "pin_scipy_beta_moments",
    "posterior Beta(1 + n theta0, 1 + n (1 - theta0)): mean and variance from scipy.stats.beta; rel 1e-12",
    _def23_cases, rel=1e-12)


def _two_point_posteriors(l_x: ArrayLike, l_xp: ArrayLike, w: float) -> tuple[np.ndarray, np.ndarray]:
    """Posteriors on two parameter values (prior (w, 1 - w)) after one record with log-likelihoods l_x or l_xp."""
    lw = np.log([w, 1 - w])

    def post(l):
        u = np.asarray(l, dtype=float) + lw
        return np.exp(u - np.logaddexp.reduce(u))

    return post(l_x), post(l_xp)


def _worst_pair_profile(gap: float) -> tuple[float, float]:
    """Theorem 1's extreme pair: log-likelihoods (gap/2, -gap/2) vs (-gap/2, gap/2) on two parameter values, prior
    mass 1 - 1e-12 on the first. Returns (largest |log posterior ratio|, hockey-stick at that epsilon)."""
    p, q = _two_point_posteriors([gap / 2, -gap / 2], [-gap / 2, gap / 2], 1 - 1e-12)
    eps = float(np.max(np.abs(np.log(p) - np.log(q))))
    d, _ = _exact_profile(p, q, eps)
    return eps, d


def _thm1_cases():
    out = []
    for B in (0.5, 1.7):
        eps, d = _worst_pair_profile(2 * B)  # |log p| <= B: the log-likelihood difference reaches 2B
        out.append(({"B": B}, {"epsilon": eps, "delta": d}))
    return out


thm1.add_pin(
    "pin_worst_case_posterior_pair",
    "the extreme two-point posterior pair (|log-lik| <= B, prior mass 1 - 1e-12 on one point) has largest log-ratio "
    "4B up to 1e-11 and hockey-stick 0 at it; rel 1e-9 (the prior's 1e-12 perturbs the ratio by ~e^{2B} 1e-12), abs 1e-12",
    _thm1_cases, rel=1e-9, abs_tol=1e-12)


def _thm1l_cases():
    out = []
    for L_, R_ in ((1.3, 0.8), (0.4, 2.5)):
        # theta in {+M, -M}, M > R: log p(x|theta) = -L|x - theta|; x = R vs x' = -R differ by 2LR at each theta
        M = 3 * R_
        lx = [-L_ * abs(R_ - M), -L_ * abs(R_ + M)]
        lxp = [-L_ * abs(-R_ - M), -L_ * abs(-R_ + M)]
        p, q = _two_point_posteriors(lx, lxp, 1 - 1e-12)
        eps = float(np.max(np.abs(np.log(p) - np.log(q))))
        out.append(({"L": L_, "R": R_}, {"epsilon": eps, "delta": _exact_profile(p, q, eps)[0]}))
    return out


thm1l.add_pin(
    "pin_laplace_location_extreme_pair",
    "Laplace location model on theta in {-3R, 3R}, records x = R vs x' = -R, prior mass 1 - 1e-12 on 3R: largest "
    "log posterior ratio 4LR (to 1e-11) and hockey-stick 0 there; rel 1e-9, abs 1e-12",
    _thm1l_cases, rel=1e-9, abs_tol=1e-12)


def _alg1_cases():
    out = []
    for B, e in ((0.5, 0.8), (0.1, 2.0), (2.0, 1.0)):
        # the largest tempering r in (0, 1] with Theorem 1's 4 r B <= eps, found by root finding on the worst pair
        f = lambda r: _worst_pair_profile(2 * r * B)[0] - e  # noqa: E731
        r = 1.0 if f(1.0) <= 0 else brentq(f, 1e-9, 1.0, xtol=1e-14, rtol=1e-13)
        eps_out, d = _worst_pair_profile(2 * r * B)
        out.append(({"B": B, "epsilon": e}, {"rho": r, "epsilon": eps_out, "delta": d}))
    return out


alg1.add_pin(
    "pin_tempering_by_root_finding",
    "rho found numerically as the largest r <= 1 whose tempered extreme pair has log-ratio <= eps (brentq), and that "
    "pair's epsilon and hockey-stick; both branches of the min (eps < 4B and eps > 4B); rel 1e-9, abs 1e-12",
    _alg1_cases, rel=1e-9, abs_tol=1e-12)


def _prop1_cases():
    out = []
    for n, th in ((20, 0.3), (400, 0.7)):
        s = np.arange(n + 1)
        w = stats.binom.pmf(s, n, th)
        post = stats.beta(1 + s, 1 + n - s)
        mse = float(np.sum(w * (post.var() + (post.mean() - th) ** 2)))  # E over S of E[(theta_hat - theta0)^2 | S]
        out.append(({"n": n, "theta0": th}, {"ops_mse": mse}))
    return out


prop1.add_pin(
    "pin_exact_mse_by_summation",
    "E[(theta_hat - theta0)^2] of one Beta(1 + S, 1 + n - S) draw, summed over S ~ Binomial(n, theta0) with scipy "
    "(posterior variance + squared bias of the posterior mean); rel 1e-10 (a sum of n + 1 positive terms)",
    _prop1_cases, rel=1e-10)


@prop1.add_check("ops_mse_vanishes", "symbolic", "the exact one-draw MSE tends to 0 as n -> oo, like 2 theta0 (1 - theta0)/n")
def _():
    n, th = _c["n"], _c["theta0"]
    mse = prop1.conclusion["ops_mse"]
    lim, rate = sp.limit(mse, n, sp.oo), sp.factor(sp.limit(n * mse, n, sp.oo))
    return lim == 0 and sp.simplify(rate - 2 * th * (1 - th)) == 0, f"lim MSE = {lim}; lim n MSE = {rate}"


prop2.add_pin(
    "pin_exact_beta_bernoulli_are",
    "n E[(theta_hat - theta0)^2] / (theta0 (1 - theta0)) for one Beta(1 + S, 1 + n - S) draw at n = 2e5 (exact sum over "
    "S ~ Binomial) is 2 + O(1/n); rel 1e-3 (the O(1/n) remainder is ~1e-5 here)",
    lambda: [({}, {"are": 200_000 * _prop1_cases_at(200_000, 0.3) / (0.3 * 0.7)})], rel=1e-3)


def _prop1_cases_at(n: int, th: float) -> float:
    s = np.arange(n + 1)
    w = stats.binom.pmf(s, n, th)
    keep = w > 1e-300
    s, w = s[keep], w[keep]
    a, b = 1 + s, 1 + n - s
    mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
    return float(np.sum(w * (var + (mean - th) ** 2)))


def _prop3_cases():
    out = []
    for e, d in ((0.5, 0.01), (1.0, 0.05), (3.0, 0.001)):
        keep, lose = np.exp(e) / (1 + np.exp(e)), 1 / (1 + np.exp(e))
        p_x = np.array([keep + d / 2, lose - d / 2])  # ||P'_X - P_X||_1 = delta, towards the worst outcome
        p_xp = np.array([lose - d / 2, keep + d / 2])
        slack, _ = _exact_profile(p_x, p_xp, e)
        eps_exact = _exact_profile(*_rr(e), e)[1]
        # the exact slack of this pair is (1 + e^eps) delta / 2 (TV = L1/2): twice it is the printed bound
        out.append(({"epsilon": e, "delta": d}, {"epsilon": eps_exact, "delta": 2 * slack}))
    return out


prop3.add_pin(
    "pin_perturbed_randomized_response",
    "randomized response (exactly eps-DP: its log-ratio, computed, is the conclusion's eps) moved by L1 distance delta "
    "towards the other's likely output: twice its exact hockey-stick at e^eps is the printed (1 + e^eps) delta (the "
    "factor 2 is L1 = 2 TV, see notes); rel 1e-10",
    _prop3_cases, rel=1e-10)


prop4.add_pin(
    "pin_exact_tempered_mse",
    "tempered Beta-Bernoulli OPS at rho = eps/(4B): n MSE/I^-1 of one Beta(1 + rho S, 1 + rho (n - S)) draw summed "
    "exactly over S at n = 2e5 (-> 1 + 1/rho), and rho itself = eps/(4B) by hand; rel 2e-3 (O(1/(rho n)) remainder)",
    lambda: [({"B": B, "epsilon": e},
              {"are": _tempered_are(e / (4 * B), 200_000, 0.3), "rho": e / (4 * B)})
             for B, e in ((1.0, 1.0), (0.5, 1.5))],
    rel=2e-3)


def _tempered_are(rho: float, n: int, th: float) -> float:
    s = np.arange(n + 1)
    w = stats.binom.pmf(s, n, th)
    keep = w > 1e-300
    s, w = s[keep], w[keep]
    a, b = 1 + rho * s, 1 + rho * (n - s)
    mean, var = a / (a + b), a * b / ((a + b) ** 2 * (a + b + 1))
    return float(n * np.sum(w * (var + (mean - th) ** 2)) / (th * (1 - th)))


#: This part's items (the package registers them: :mod:`dpverify.theorems.registry`).
THEOREMS: tuple[Theorem, ...] = (def1, lem1, def23, thm1, thm1l, alg1, prop1, prop2, prop3, prop4)
