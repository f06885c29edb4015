"""Foulds et al. 2016, Section 2: mechanisms, composition and posterior sampling as the exponential mechanism.

Items: eqs. 2-3 (Laplace mechanism), eqs. 4-5 (exponential mechanism), eqs. 6-9 (posterior
sensitivity), Theorem 1 (composition), Theorem 2 (2C-DP), Theorem 3 (4B-DP), eqs. 10/14
(temperature T = 2 Delta / eps). Registered, in order, by :mod:`dpverify.theorems.foulds2016`.
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp
from scipy.optimize import brentq

from dpverify.calculus.composition import basic_composition
from dpverify.calculus.guarantees import ApproxDP
from dpverify.calculus.mechanisms.exponential import (
    discrete_delta,
    discrete_epsilon,
    exponential_log_probabilities,
    exponential_probabilities,
)
from dpverify.calculus.mechanisms.laplace import laplace_delta, laplace_scale
from dpverify.theorems.shared import BASIC_COMPOSITION, OPS_PURE_DP
from dpverify.theorems.base import Theorem
from dpverify.theorems.foulds2016.common import SYMBOLS, link, source

__all__ = [
    "THEOREMS",
    "EQ3_LAPLACE",
    "EQ4_EXPONENTIAL",
    "EQ6_9_POSTERIOR",
    "THM1_COMPOSITION",
    "THM2_POSTERIOR_2C",
    "THM3_POSTERIOR_4B",
    "EQ10_TEMPERATURE",
]

eps, C, B = SYMBOLS["epsilon"], SYMBOLS["C"], SYMBOLS["B"]
temperature, sens = SYMBOLS["temperature"], SYMBOLS["sensitivity"]


def _two_point_posterior_log_probs(a0_value: float, n_data: int) -> np.ndarray:
    """Log posterior over Theta = {a0, 1 - a0} (uniform prior) for n1 = 0..N successes, shape (N+1, 2).

    The Bernoulli model on a two-point parameter space: the worst case of Theorem 2, since the
    posterior can concentrate on the theta where the log-likelihood difference is C.
    """
    thetas = np.array([a0_value, 1.0 - a0_value])
    n1 = np.arange(n_data + 1)[:, None]
    log_joint = n1 * np.log(thetas) + (n_data - n1) * np.log1p(-thetas)
    return log_joint - np.logaddexp.reduce(log_joint, axis=1, keepdims=True)


# ----------------------------------------------------------------------------- eqs. 2-3
EQ3_LAPLACE = Theorem(
    "foulds2016.eq3_laplace_mechanism",
    "Laplace mechanism: noise Laplace(Delta h / eps) per coordinate is eps-DP",
    source("eqs. 2-3", "Sec. 2.1.1"),
    "privacy",
    symbols={"sensitivity": sens, "epsilon": eps},
    conclusion={"scale": sens / eps, "epsilon": eps, "delta": 0},
    statement=(
        "With the L1 sensitivity Delta h = max ||h(X) - h(X')||_1 over datasets differing in one element "
        "(eq. 2), releasing h(X) + (Y_1, ..., Y_d), Y_j ~ Laplace(Delta h / eps) i.i.d. (eq. 3), is "
        "eps-differentially private."
    ),
    empirical=[link("laplace_mechanism", "exact and audited epsilon of the Laplace mechanism at scale Delta/eps")],
    notes="`sensitivity` is Delta h of eq. 2; the conclusion `scale` is the Laplace scale b = Delta h / eps.",
)


@EQ3_LAPLACE.add_check("privacy_loss_equals_epsilon", "numeric")
def _eq3_loss():
    """Foulds eq. 3: the log density ratio of the d = 2 Laplace mechanism at shift v, ||v||_1 = Delta,
    is (||y - v||_1 - ||y||_1)/b <= Delta/b = eps on a grid, with equality attained."""
    delta_h, epsilon = 2.0, 0.7
    b = EQ3_LAPLACE.evaluate(sensitivity=delta_h, epsilon=epsilon).scale
    shift = np.array([1.3, -0.7])  # L1 norm 2 = Delta h
    grid = np.linspace(-30.0, 30.0, 601)
    y = np.stack(np.meshgrid(grid, grid, indexing="ij"), axis=-1)
    loss = (np.abs(y - shift).sum(axis=-1) - np.abs(y).sum(axis=-1)) / b
    worst = float(np.max(np.abs(loss)))
    return abs(worst - epsilon) < 1e-12, f"max |privacy loss| on the grid = {worst!r}", epsilon, worst


@EQ3_LAPLACE.add_check("core_laplace_scale_and_profile", "numeric")
def _eq3_core():
    """dpverify.calculus.mechanisms.laplace: laplace_scale(Delta, eps) equals the conclusion, and the exact
    hockey-stick divergence of Lap(0,1) vs Lap(Delta/b, 1) vanishes at eps and not below it."""
    delta_h, epsilon = 2.0, 0.7
    ours = EQ3_LAPLACE.evaluate(sensitivity=delta_h, epsilon=epsilon).scale
    core = laplace_scale(delta_h, epsilon)
    mu = delta_h / core  # the shift in units of the scale (1-d worst case)
    at, below = laplace_delta(epsilon, mu), laplace_delta(0.95 * epsilon, mu)
    ok = abs(ours - core) < 1e-12 and at == 0.0 and below > 0.0
    return ok, f"scale sympy {ours} vs core {core}; delta(eps) = {at}, delta(0.95 eps) = {below:.3g}", ours, core


# ----------------------------------------------------------------------------- eqs. 4-5
EQ4_EXPONENTIAL = Theorem(
    "foulds2016.eq4_exponential_mechanism",
    "Exponential mechanism Pr(r) proportional to exp(eps u(X, r) / (2 Delta u)) is eps-DP",
    source("eqs. 4-5", "Sec. 2.1.2"),
    "privacy",
    symbols={"sensitivity": sens, "epsilon": eps},
    conclusion={"epsilon": eps, "delta": 0, "temperature": 2 * sens / eps},
    statement=(
        "Given a utility u(X, r) with sensitivity Delta u = max over r and neighbouring X1, X2 of "
        "|u(X1, r) - u(X2, r)| (eq. 5), sampling r with probability proportional to "
        "exp(eps u(X, r) / (2 Delta u)) (eq. 4) is eps-differentially private (McSherry & Talwar 2007)."
    ),
    empirical=[link("exponential_mechanism", "exact epsilon of the exponential mechanism on finite ranges")],
    notes="`sensitivity` is Delta u; `temperature` = 2 Delta u / eps is the Boltzmann form of eq. 10.",
)


@EQ4_EXPONENTIAL.add_check("two_factors_each_half_epsilon", "symbolic")
def _eq4_two_factors():
    """Foulds eq. 4: log Pr_X(r)/Pr_X'(r) = eps (u_r - u'_r)/(2 Delta) + log(Z'/Z); in the worst case
    u'_s = u_s + Delta for all s the normaliser ratio is exactly exp(eps/2), and the first term is
    at most eps/2: the total is eps."""
    u = sp.symbols("u0:3", real=True)
    scale = eps / (2 * sens)
    z = sum(sp.exp(scale * ui) for ui in u)
    z_shift = sum(sp.exp(scale * (ui + sens)) for ui in u)
    ratio = sp.simplify(z_shift / z)
    first = scale * sens
    total = sp.simplify(first + sp.log(ratio))
    ok = sp.simplify(ratio - sp.exp(eps / 2)) == 0 and sp.simplify(total - eps) == 0
    return ok, f"Z'/Z = {ratio}; eps Delta/(2 Delta) + log(Z'/Z) = {total}"


@EQ4_EXPONENTIAL.add_check("factor_two_is_needed", "numeric")
def _eq4_factor_two():
    """Foulds eq. 4: the 2 in the exponent cannot be dropped. With M + 1 outputs, u_X = (Delta, 0, ..., 0),
    u_X' = (0, Delta, ..., Delta), the exact epsilon is eps/2 + log((1 + M e^{eps/2})/(e^{eps/2} + M)),
    which tends to eps as M -> infinity (computed with dpverify.calculus.mechanisms.exponential)."""
    epsilon, delta_u, m = 1.0, 1.0, 10**6
    u_x = np.zeros(m + 1)
    u_x[0] = delta_u
    u_xp = np.full(m + 1, delta_u)
    u_xp[0] = 0.0
    exact = discrete_epsilon(
        exponential_log_probabilities(u_x, epsilon, delta_u), exponential_log_probabilities(u_xp, epsilon, delta_u)
    )
    closed = epsilon / 2 + np.log1p(m * np.exp(epsilon / 2)) - np.logaddexp(epsilon / 2, np.log(m))
    ok = exact <= epsilon + 1e-12 and exact > epsilon - 1e-5 and abs(exact - closed) < 1e-9
    return ok, f"exact epsilon {exact:.8f} (closed form {closed:.8f}) <= eps = {epsilon}", epsilon, exact


@EQ4_EXPONENTIAL.add_check("core_probabilities_match_eq4", "numeric")
def _eq4_core():
    """dpverify.calculus.mechanisms.exponential.exponential_probabilities equals the Boltzmann form exp(u/T)/Z with the
    registered temperature T (eq. 4 written as eq. 10)."""
    u = np.array([-3.0, 0.5, 2.0, 2.5])
    epsilon, delta_u = 0.8, 1.5
    core = exponential_probabilities(u, epsilon, delta_u)
    t_value = EQ4_EXPONENTIAL.evaluate(sensitivity=delta_u, epsilon=epsilon).temperature
    w = np.exp(u / t_value)
    ours = w / w.sum()
    err = float(np.max(np.abs(core - ours)))
    return err < 1e-14, f"T = {t_value}; max |core - exp(u/T)/Z| = {err:.2e}", 0.0, err


# ----------------------------------------------------------------------------- eqs. 6-9
EQ6_9_POSTERIOR = Theorem(
    "foulds2016.eq6_9_posterior_sensitivity",
    "Posterior sampling is the exponential mechanism with u = log Pr(theta, X); Delta = max |log Pr(x'|theta) - log Pr(x|theta)|",
    source("eqs. 6-9", "Sec. 2.2"),
    "sensitivity",
    symbols={"C": C, "epsilon": eps},
    conclusion={"sensitivity": C, "exponent": eps / (2 * C)},
    statement=(
        "Drawing theta with density proportional to exp(eps log Pr(theta, X) / (2 Delta log Pr(theta, X))) "
        "= Pr(theta, X)^{eps/(2 Delta)} (eq. 6) is the exponential mechanism with utility the log joint. "
        "For conditionally independent data (eq. 8) the prior cancels and only one likelihood term changes, "
        "so Delta log Pr(theta, X) = max_{x, x', theta} |log Pr(x'|theta) - log Pr(x|theta)| (eq. 9) =: C."
    ),
    notes="C is Foulds' Delta log Pr(theta, X); `exponent` = eps/(2C) is the power applied to the joint in eq. 6.",
)


@EQ6_9_POSTERIOR.add_check("eq6_power_form", "symbolic")
def _eq6_power():
    """Foulds eq. 6: exp(eps log P / (2 Delta)) = P^{eps/(2 Delta)} for P > 0."""
    p = sp.Symbol("P", positive=True)
    lhs = sp.exp(eps * sp.log(p) / (2 * C))
    rhs = p ** (eps / (2 * C))
    ok = sp.simplify(sp.expand_log(sp.log(lhs), force=True) - sp.expand_log(sp.log(rhs), force=True)) == 0
    return ok, "log of both sides: eps log P / (2 C)"


@EQ6_9_POSTERIOR.add_check("eq8_9_one_likelihood_term_changes", "symbolic")
def _eq8_9():
    """Foulds eqs. 8-9: with log Pr(theta, X) = log Pr(theta) + sum_i l(x_i, theta), replacing x_2 by y
    changes the log joint by l(y, theta) - l(x_2, theta): the prior cancels."""
    theta = sp.Symbol("theta", real=True)
    ell, prior = sp.Function("l"), sp.Function("log_prior")
    xs = list(sp.symbols("x1:5", real=True))
    y = sp.Symbol("y", real=True)
    log_joint = lambda data: prior(theta) + sum(ell(x, theta) for x in data)  # noqa: E731
    neighbour = xs.copy()
    neighbour[1] = y
    diff = sp.simplify(log_joint(neighbour) - log_joint(xs))
    ok = sp.simplify(diff - (ell(y, theta) - ell(xs[1], theta))) == 0
    return ok, f"log Pr(theta, X') - log Pr(theta, X) = {diff}"


@EQ6_9_POSTERIOR.add_check("exponent_one_at_two_C", "symbolic")
def _eq6_at_2c():
    """Foulds Sec. 2.2: at eps = 2 Delta the exponent of eq. 6 is 1 (the posterior itself); at eps -> 0 it
    is 0 (uniform)."""
    e = EQ6_9_POSTERIOR.conclusion["exponent"]
    one, zero = sp.simplify(e.subs(eps, 2 * C)), sp.limit(e, eps, 0)
    return one == 1 and zero == 0, f"exponent at eps = 2C: {one}; as eps -> 0: {zero}"


# ----------------------------------------------------------------------------- Theorem 1
eps1, eps2 = SYMBOLS["epsilon_1"], SYMBOLS["epsilon_2"]
del1, del2 = SYMBOLS["delta_1"], SYMBOLS["delta_2"]

THM1_COMPOSITION = Theorem(
    "foulds2016.thm1_composition",
    "Composition: (eps1, delta1) and (eps2, delta2) give (eps1 + eps2, delta1 + delta2)",
    source("Theorem 1", "Sec. 2.1.3"),
    "composition",
    shared=BASIC_COMPOSITION,
)


@THM1_COMPOSITION.add_check("pure_log_ratios_add", "symbolic")
def _thm1_pure():
    """Foulds Thm 1 (delta = 0): the density ratio of the pair is the product of the ratios, so
    log(p1 p2 / (q1 q2)) = log(p1/q1) + log(p2/q2) <= eps1 + eps2, attained when both are attained."""
    q1, q2 = sp.symbols("q1 q2", positive=True)
    p1, p2 = sp.exp(eps1) * q1, sp.exp(eps2) * q2  # each ratio at its worst case
    loss = sp.expand_log(sp.log((p1 * p2) / (q1 * q2)), force=True)
    ok = sp.simplify(loss - THM1_COMPOSITION.conclusion["epsilon"]) == 0
    return ok, f"worst-case joint privacy loss = {loss}"


def _canonical_pair(epsilon: float, delta: float) -> tuple[np.ndarray, np.ndarray]:
    """The (eps, delta)-DP pair with hockey-stick exactly delta at e^eps (Kairouz et al. 2015):
    P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0) and P' its mirror image."""
    a, b = (1 - delta) * np.exp(epsilon) / (1 + np.exp(epsilon)), (1 - delta) / (1 + np.exp(epsilon))
    return np.array([delta, a, b, 0.0]), np.array([0.0, b, a, delta])


@THM1_COMPOSITION.add_check("approx_dp_hockey_stick", "numeric")
def _thm1_hockey():
    """Foulds Thm 1 with delta > 0: the product of two canonical (eps_i, delta_i) pairs has hockey-stick
    divergence 1 - (1-delta1)(1-delta2) <= delta1 + delta2 at e^{eps1+eps2}, in both directions; also
    compared with dpverify.calculus.composition.basic_composition."""
    worst_gap = -np.inf
    for e1, d1, e2, d2 in [(0.5, 1e-3, 1.0, 1e-2), (2.0, 0.05, 0.1, 0.2), (3.0, 0.0, 0.7, 1e-5)]:
        p1, q1 = _canonical_pair(e1, d1)
        p2, q2 = _canonical_pair(e2, d2)
        joint_p, joint_q = np.outer(p1, p2).ravel(), np.outer(q1, q2).ravel()
        keep = (joint_p > 0) | (joint_q > 0)  # outcomes impossible under both laws carry no mass
        with np.errstate(divide="ignore"):
            lp, lq = np.log(joint_p[keep]), np.log(joint_q[keep])
        conc = THM1_COMPOSITION.evaluate(epsilon_1=e1, epsilon_2=e2, delta_1=d1, delta_2=d2)
        hs = max(discrete_delta(lp, lq, conc.epsilon), discrete_delta(lq, lp, conc.epsilon))
        core = basic_composition([ApproxDP(e1, d1), ApproxDP(e2, d2)])
        if abs(core.epsilon - conc.epsilon) > 1e-12 or abs(core.delta - conc.delta) > 1e-12:
            return False, f"core basic_composition {core} differs from the conclusion {conc.conclusion}"
        if abs(hs - (1 - (1 - d1) * (1 - d2))) > 1e-12:
            return False, f"hockey-stick {hs} is not 1 - (1-d1)(1-d2) for {(e1, d1, e2, d2)}"
        worst_gap = max(worst_gap, hs - conc.delta)
    return worst_gap <= 1e-15, f"max (hockey-stick - (delta1 + delta2)) = {worst_gap:.3g} <= 0", 0.0, worst_gap


# ----------------------------------------------------------------------------- Theorem 2
THM2_POSTERIOR_2C = Theorem(
    "foulds2016.thm2_posterior_2c",
    "One posterior sample is 2C-DP when |log Pr(x'|theta) - log Pr(x|theta)| <= C",
    source("Theorem 2", "Sec. 2.2"),
    "privacy",
    symbols={"C": C},
    conclusion={"epsilon": 2 * C, "delta": 0},
    statement=(
        "If max over x, x' in X and theta in Theta of |log Pr(x'|theta) - log Pr(x|theta)| <= C, releasing one "
        "sample from the posterior Pr(theta|X) with any prior is 2C-differentially private."
    ),
    empirical=[link("ops_beta_bernoulli", "one exact beta-Bernoulli posterior draw audited at 2C")],
    notes=(
        "Proof: the posterior is eq. 6 with eps = 2 Delta and Delta = C (eq. 9), i.e. the exponential mechanism "
        "at eps = 2C; equivalently the density ratio is Pr(x_j|theta)/Pr(x'_j|theta) * Z(X')/Z(X), each "
        "factor <= e^C. The bound is tight (check `tight_on_two_point_parameter_space`)."
    ),
)


@THM2_POSTERIOR_2C.add_check("exponential_mechanism_at_2C", "symbolic")
def _thm2_expmech():
    """Foulds Thm 2 from eqs. 6 and 9: the exponent eps/(2 Delta) equals 1 (plain posterior) exactly when
    eps = 2 Delta = 2C, so the posterior is the exponential mechanism at eps = 2C."""
    exponent = EQ6_9_POSTERIOR.conclusion["exponent"]
    solution = sp.solve(sp.Eq(exponent, 1), eps)
    ok = solution == [THM2_POSTERIOR_2C.conclusion["epsilon"]]
    return ok, f"eps/(2C) = 1  <=>  eps in {solution}"


@THM2_POSTERIOR_2C.add_check("tight_on_two_point_parameter_space", "numeric")
def _thm2_tight():
    """Foulds Thm 2: Bernoulli data, Theta = {a0, 1 - a0}, uniform prior, N = 40: C = log((1-a0)/a0); the exact
    epsilon of one posterior draw over all neighbouring count pairs (n1, n1 + 1) is <= 2C and equals 2C to
    1e-9 (the posterior can sit on the worst theta)."""
    a0_value, n_data = 0.2, 40
    c_value = np.log((1 - a0_value) / a0_value)
    logp = _two_point_posterior_log_probs(a0_value, n_data)
    exact = max(discrete_epsilon(logp[i], logp[i + 1]) for i in range(n_data))
    bound = THM2_POSTERIOR_2C.evaluate(C=c_value).epsilon
    ok = exact <= bound + 1e-12 and exact >= bound - 1e-9
    return ok, f"exact epsilon {exact:.12f} vs 2C = {bound:.12f}", bound, exact


# ----------------------------------------------------------------------------- Theorem 3
THM3_POSTERIOR_4B = Theorem(
    "foulds2016.thm3_posterior_4b",
    "One posterior sample is 4B-DP when |log Pr(x|theta)| <= B (Wang et al. 2015, Thm 1)",
    source("Theorem 3", "Sec. 2.2"),
    "privacy",
    shared=OPS_PURE_DP,
    notes=(
        "The paper writes C = Delta log Pr(theta, X) = 2B; what the argument supports is C <= 2B (an "
        "inequality), hence 2C <= 4B via Theorem 2. For a probability mass function log Pr(x|theta) <= 0, "
        "so then C <= B and one sample is already 2B-DP (check `discrete_data_gives_2B`)."
    ),
)


@THM3_POSTERIOR_4B.add_check("C_at_most_2B_gives_4B", "symbolic")
def _thm3_c_le_2b():
    """Foulds Thm 3 from Thm 2: l - l' is linear on the box [-B, B]^2, so its maximum |l - l'| is at a corner
    and equals 2B; C <= 2B and Thm 2's 2C becomes 4B. Also 4B - 2C >= 0 for every C in (0, 2B]."""
    l1, l2 = sp.symbols("l1 l2", real=True)
    corners = [abs((l1 - l2).subs({l1: s1 * B, l2: s2 * B})) for s1 in (-1, 1) for s2 in (-1, 1)]
    c_max = sp.Max(*corners)
    eps_from_thm2 = THM2_POSTERIOR_2C.conclusion["epsilon"].subs(C, c_max)
    s = sp.Symbol("s", positive=True)  # C = 2B s with s in (0, 1]
    slack = sp.factor(THM3_POSTERIOR_4B.conclusion["epsilon"] - THM2_POSTERIOR_2C.conclusion["epsilon"].subs(C, 2 * B * s))
    ok = sp.simplify(c_max - 2 * B) == 0 and sp.simplify(eps_from_thm2 - 4 * B) == 0 and sp.simplify(slack - 4 * B * (1 - s)) == 0
    return ok, f"max |l - l'| = {c_max}; Thm 2 gives {eps_from_thm2}; 4B - 2C = {slack} (C = 2Bs) >= 0 for s <= 1"


@THM3_POSTERIOR_4B.add_check("discrete_data_gives_2B", "numeric")
def _thm3_discrete():
    """Foulds Thm 3 on the truncated beta-Bernoulli (eq. 15) at a0 = 0.2: B = -log a0 = 1.6094,
    C = log 4 = 1.3863 <= B, so 2C = 2.7726 <= 2B = 3.2189 <= 4B = 6.4378."""
    a0_value = 0.2
    p = np.linspace(a0_value, 1 - a0_value, 10001)
    loglik = np.stack([np.log1p(-p), np.log(p)])  # x = 0, 1
    b_value = float(np.max(np.abs(loglik)))
    c_value = float(np.max(np.abs(loglik[1] - loglik[0])))
    eps_2c = THM2_POSTERIOR_2C.evaluate(C=c_value).epsilon
    eps_4b = THM3_POSTERIOR_4B.evaluate(B=b_value).epsilon
    ok = c_value <= b_value and eps_2c <= 2 * b_value <= eps_4b and abs(eps_4b - 4 * np.log(5)) < 1e-12
    return ok, f"B = {b_value:.4f}, C = {c_value:.4f}: 2C = {eps_2c:.4f} <= 2B <= 4B = {eps_4b:.4f}", eps_4b, eps_2c


# ----------------------------------------------------------------------------- eqs. 10/14
EQ10_TEMPERATURE = Theorem(
    "foulds2016.eq10_temperature",
    "Temperature T = 2 Delta / eps: the exponential mechanism as a Boltzmann distribution",
    source("eqs. 10 and 14", "Secs. 2.2 and 3.1"),
    "privacy",
    symbols={"C": C, "epsilon": eps},
    conclusion={"temperature": 2 * C / eps, "epsilon": eps},
    statement=(
        "The exponential mechanism with utility u = log Pr(theta, X) is the Boltzmann distribution "
        "exp(-E(theta)/T), E = -u, T = 2 Delta u / eps (eq. 10). For a conjugate exponential family the "
        "posterior at temperature T divides (N + alpha) and sum_i S(x_i) + alpha chi by T (eq. 14) and has "
        "privacy cost eps."
    ),
    notes="C is Delta log Pr(theta, X). T = 1 at eps = 2C (the posterior itself); T -> infinity as eps -> 0.",
)


@EQ10_TEMPERATURE.add_check("boltzmann_form", "symbolic")
def _eq10_boltzmann():
    """Foulds eq. 10: exp(eps u / (2 Delta)) = exp(-E/T) with E = -u and T = 2 Delta/eps."""
    u = sp.Symbol("u", real=True)
    t_expr = EQ10_TEMPERATURE.conclusion["temperature"]
    ok = sp.simplify(eps * u / (2 * C) - (-(-u) / t_expr)) == 0
    return ok, f"eps u/(2C) = u/T with T = {t_expr}"


@EQ10_TEMPERATURE.add_check("eq14_tempered_exponential_family", "symbolic")
def _eq14():
    """Foulds eq. 14: (g^{N+alpha} exp(theta (S + alpha chi)))^{1/T} = g^{(N+alpha)/T} exp(theta (S + alpha chi)/T)."""
    g, s_stat, alpha, chi = sp.symbols("g S alpha chi", positive=True, cls=sp.Dummy)
    theta = sp.Symbol("theta", real=True)
    n = SYMBOLS["N"]
    post = g ** (n + alpha) * sp.exp(theta * (s_stat + alpha * chi))
    tempered = g ** ((n + alpha) / temperature) * sp.exp(theta * (s_stat + alpha * chi) / temperature)
    diff = sp.expand_log(sp.log(post ** (1 / temperature)), force=True) - sp.expand_log(sp.log(tempered), force=True)
    return sp.simplify(diff) == 0, "log of both sides agree"


@EQ10_TEMPERATURE.add_check("limits_in_epsilon", "symbolic")
def _eq10_limits():
    """Foulds Sec. 2.2: eps = 2 Delta gives T = 1 (the posterior); eps -> 0 gives T -> infinity (uniform)."""
    t_expr = EQ10_TEMPERATURE.conclusion["temperature"]
    at_2c, at_0 = sp.simplify(t_expr.subs(eps, 2 * C)), sp.limit(t_expr, eps, 0)
    return at_2c == 1 and at_0 == sp.oo, f"T(eps = 2C) = {at_2c}; T(eps -> 0) = {at_0}"


@EQ10_TEMPERATURE.add_check("tempered_posterior_is_core_exponential_mechanism", "numeric")
def _eq10_core():
    """Foulds eqs. 6/10 on a grid: the truncated beta-Bernoulli posterior (a0 = 0.2, N = 20, n1 = 6, eps = 1)
    raised to 1/T, T = 2C/eps, normalised, equals dpverify.calculus.mechanisms.exponential.exponential_probabilities
    with utility log Pr(theta, X) and sensitivity C = log((1-a0)/a0)."""
    a0_value, epsilon, n_data, n1 = 0.2, 1.0, 20, 6
    c_value = np.log((1 - a0_value) / a0_value)
    t_value = EQ10_TEMPERATURE.evaluate(C=c_value, epsilon=epsilon).temperature
    p = np.linspace(a0_value, 1 - a0_value, 401)
    log_joint = n1 * np.log(p) + (n_data - n1) * np.log1p(-p)  # uniform prior
    tempered = np.exp((log_joint - log_joint.max()) / t_value)
    tempered /= tempered.sum()
    core = exponential_probabilities(log_joint, epsilon, c_value)
    err = float(np.max(np.abs(core - tempered)))
    return err < 1e-13, f"T = {t_value:.4f}; max |core - posterior^(1/T)| = {err:.2e}", 0.0, err


# ----------------------------------------------------------------------------- pins
# Every conclusion evaluated at points and compared with an independent computation.
def _thm1_cases():
    out = []
    for e1, e2, d1, d2 in ((0.5, 1.0, 1e-3, 1e-2), (2.0, 0.1, 0.0, 0.2)):
        k1, k2 = np.exp(e1) / (1 + np.exp(e1)), np.exp(e2) / (1 + np.exp(e2))
        eps_joint = float(np.log((k1 * k2) / ((1 - k1) * (1 - k2))))  # two randomized responses: the extreme outcome
        out.append(({"epsilon_1": e1, "epsilon_2": e2, "delta_1": d1, "delta_2": d2},
                    {"epsilon": eps_joint, "delta": basic_composition([ApproxDP(e1, d1), ApproxDP(e2, d2)]).delta}))
    return out


THM1_COMPOSITION.add_pin(
    "pin_joint_randomized_response_and_core",
    "epsilon: the log-ratio of the extreme outcome of two composed randomized responses (exactly eps1 + eps2); delta: "
    "dpverify.calculus.composition.basic_composition; rel 1e-12",
    _thm1_cases, rel=1e-12)


def _laplace_release_profile(sens_value: float, epsilon: float) -> dict[str, float]:
    """The Laplace mechanism at dpverify.calculus.mechanisms.laplace.laplace_scale: its scale, its exact pure epsilon for a shift
    of sens_value (largest log-density ratio on a grid through both centres), and the exact delta at that epsilon."""
    b = laplace_scale(sens_value, epsilon)
    x = np.linspace(-60 * b, 60 * b + sens_value, 240_001)
    loss = np.abs(np.abs(x - sens_value) - np.abs(x)) / b
    eps_exact = float(loss.max())
    return {"scale": b, "epsilon": eps_exact, "delta": laplace_delta(eps_exact, sens_value / b)}


EQ3_LAPLACE.add_pin(
    "pin_core_laplace_profile",
    "scale from dpverify.calculus.mechanisms.laplace.laplace_scale; epsilon = the exact pure epsilon of that mechanism (largest "
    "log-ratio on a grid containing both centres); delta = laplace_delta at it (0); rel 1e-12, abs 1e-15",
    lambda: [({"sensitivity": s_, "epsilon": e}, _laplace_release_profile(s_, e)) for s_, e in ((2.0, 0.7), (0.3, 3.1))],
    rel=1e-12, abs_tol=1e-15)


def _exp_mech_worst(epsilon: float, delta_u: float, m: float = 1e12) -> tuple[float, float]:
    """Exact (epsilon, delta at it) of eq. 4 on the worst utility pair with m + 1 outputs (u_X = (Delta, 0, ..., 0),
    u_X' = (0, Delta, ..., Delta)). The m outputs with equal utilities have equal privacy loss, so they are grouped
    into one outcome of m times the mass (this changes neither the largest log-ratio nor the hockey-stick); the
    probabilities are eq. 4's exp(eps u/(2 Delta))/Z with Z by logaddexp. epsilon -> eps as m -> oo (error ~ e^{eps/2}/m)."""
    a = epsilon / 2  # eps u/(2 Delta) at u = Delta
    log_m = np.log(m)
    lp = np.array([a, log_m]) - np.logaddexp(a, log_m)  # D: (the distinguished output, the m others)
    lq = np.array([0.0, log_m + a]) - np.logaddexp(0.0, log_m + a)  # D'
    e = discrete_epsilon(lp, lq)
    return e, max(discrete_delta(lp, lq, e), discrete_delta(lq, lp, e))


def _eq4_cases():
    out = []
    for s_, e in ((1.5, 0.8), (0.4, 2.0)):
        u = np.array([-1.0, 0.3, 2.2])
        p = exponential_probabilities(u, e, s_)
        t_fit = (u[2] - u[0]) / np.log(p[2] / p[0])  # the Boltzmann temperature read off the core mechanism
        e_exact, d_exact = _exp_mech_worst(e, s_)
        out.append(({"sensitivity": s_, "epsilon": e}, {"epsilon": e_exact, "delta": d_exact, "temperature": t_fit}))
    return out


EQ4_EXPONENTIAL.add_pin(
    "pin_worst_pair_and_boltzmann_fit",
    "epsilon: the exact epsilon of eq. 4 on the worst utility pair with 1e12 + 1 outputs (equal outputs grouped; -> eps, "
    "error ~ e^{eps/2} 1e-12); delta: its hockey-stick there (0); temperature read off dpverify's exponential mechanism "
    "as (u_i - u_j)/log(p_i/p_j); rel 1e-9, abs 1e-15",
    _eq4_cases, rel=1e-9, abs_tol=1e-15)


def _eq6_cases():
    rng = np.random.default_rng(69)
    out = []
    for n_x, n_theta in ((3, 5), (4, 2)):
        ll = rng.normal(size=(n_x, n_theta))  # log Pr(x | theta) for each datum value and parameter value
        c_value = float(np.max(np.abs(ll[:, None, :] - ll[None, :, :])))  # eq. 9's max over x, x', theta
        # the sensitivity of the log joint log Pr(theta) + sum_i log Pr(x_i | theta) over every dataset of 3 records and
        # every neighbour (one record replaced), by brute force
        prior = rng.normal(size=n_theta)
        best = 0.0
        for data in itertools.product(range(n_x), repeat=3):
            joint = prior + ll[list(data)].sum(axis=0)
            for i in range(3):
                for y in range(n_x):
                    other = list(data)
                    other[i] = y
                    best = max(best, float(np.max(np.abs(prior + ll[other].sum(axis=0) - joint))))
        out.append(({"C": c_value, "epsilon": 0.7}, {"sensitivity": best, "exponent": 0.7 / (2 * best)}))
    return out


EQ6_9_POSTERIOR.add_pin(
    "pin_log_joint_sensitivity_brute_force",
    "eq. 9: the sensitivity of the log joint over all datasets of 3 records and their neighbours (random discrete model, "
    "brute force) equals C = max |log Pr(x'|theta) - log Pr(x|theta)|; exponent eps/(2 Delta) with that Delta; rel 1e-12",
    _eq6_cases, rel=1e-12)


def _two_point_profile(a0_value: float, n_data: int, temp: float = 1.0) -> tuple[float, float]:
    """Exact (epsilon, delta at it) of one draw from the two-point posterior (raised to 1/temp) over all neighbouring
    count pairs (n1, n1 + 1); see Theorem 2's tightness check. Both outcomes have positive mass, so epsilon is the
    largest |log-ratio| and delta the larger hockey-stick, computed for all pairs at once."""
    logp = _two_point_posterior_log_probs(a0_value, n_data) / temp
    logp = logp - np.logaddexp.reduce(logp, axis=1, keepdims=True)
    gap = logp[:-1] - logp[1:]
    e = float(np.max(np.abs(gap)))
    p, q = np.exp(logp[:-1]), np.exp(logp[1:])
    w = np.exp(min(e, 700.0))  # e > 700 only inside the root finder's bracket, where delta is not used
    d = float(max(np.maximum(p - w * q, 0).sum(axis=1).max(), np.maximum(q - w * p, 0).sum(axis=1).max()))
    return e, d


THM2_POSTERIOR_2C.add_pin(
    "pin_two_point_posterior",
    "one draw from the Bernoulli posterior on {a0, 1 - a0} (uniform prior, N = 40): exact epsilon over all neighbouring "
    "counts -> 2C (the posterior can sit on the worst theta; 1e-9 relative at N = 40) and hockey-stick 0 at it; "
    "rel 1e-8, abs 1e-15",
    lambda: [({"C": float(np.log((1 - a) / a))}, dict(zip(("epsilon", "delta"), _two_point_profile(a, 40))))
             for a in (0.2, 0.35)],
    rel=1e-8, abs_tol=1e-15)


def _thm3_cases():
    out = []
    for a in (0.2, 0.35):
        # a pmf model with |log Pr(x|theta)| <= B on {a0, 1 - a0}: B = -log a0, and the posterior's exact epsilon 2C
        # (C = log((1-a0)/a0)); Theorem 3 through C <= 2B gives 4B -- evaluated at the B for which 2C = 4B
        e, d = _two_point_profile(a, 40)
        out.append(({"B": e / 4}, {"epsilon": e, "delta": d}))
    return out


THM3_POSTERIOR_4B.add_pin(
    "pin_attained_when_C_is_2B",
    "where C = 2B the bound 4B is Theorem 2's 2C, attained by the two-point posterior: evaluated at B = (exact epsilon)/4 "
    "it must return that exact epsilon and delta 0; rel 1e-12, abs 1e-15",
    _thm3_cases, rel=1e-12, abs_tol=1e-15)


def _eq10_cases():
    out = []
    for a, e in ((0.2, 1.0), (0.1, 3.0)):
        c_value = float(np.log((1 - a) / a))
        # the temperature at which the tempered two-point posterior's exact epsilon is e (brentq on T)
        t_value = brentq(lambda tt: _two_point_profile(a, 400, tt)[0] - e, 1e-3, 1e3, xtol=1e-13, rtol=1e-13)
        out.append(({"C": c_value, "epsilon": e}, {"temperature": t_value, "epsilon": _two_point_profile(a, 400, t_value)[0]}))
    return out


EQ10_TEMPERATURE.add_pin(
    "pin_temperature_by_root_finding",
    "the temperature at which one draw of the tempered two-point posterior (N = 400, where it concentrates on the worst "
    "theta to ~1e-9) has exact epsilon eps, found by brentq, and that epsilon; rel 1e-7",
    _eq10_cases, rel=1e-7)


#: This section's theorems in catalogue order; registered by :mod:`dpverify.theorems.foulds2016`.
THEOREMS: tuple[Theorem, ...] = (
    EQ3_LAPLACE,
    EQ4_EXPONENTIAL,
    EQ6_9_POSTERIOR,
    THM1_COMPOSITION,
    THM2_POSTERIOR_2C,
    THM3_POSTERIOR_4B,
    EQ10_TEMPERATURE,
)
