"""Foulds et al. 2016, Section 4 (and the Sec. 5 privacy accounting): approximate sampling and private Gibbs.

Items: Proposition 3 (as restated from Wang et al. 2015), eqs. 18-20 (a Gibbs update as the
exponential mechanism; sequence- and random-scan costs), and the privacy costs of Secs. 2.2, 4.1
and 5 (2 Delta per pass, 2 q Delta for q samples, eps(Gibbs) <= 400 eps). Registered, in order,
by :mod:`dpverify.theorems.foulds2016`.
"""
from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

from dpverify.calculus.composition import basic_composition
from dpverify.calculus.guarantees import ApproxDP
from dpverify.calculus.mechanisms.exponential import discrete_delta, discrete_epsilon
from dpverify.calculus.subsampling import beimel_subsampling
from dpverify.theorems.foulds2016.posterior import THM1_COMPOSITION, THM2_POSTERIOR_2C
from dpverify.validation import check_finite_array, check_positive_int, check_real
from dpverify.theorems.shared import APPROX_SAMPLING
from dpverify.theorems.base import Erratum, Hypothesis, Theorem
from dpverify.theorems.foulds2016.common import SYMBOLS, link, source

__all__ = ["THEOREMS", "PROP3_APPROX_SAMPLING", "EQ19_PRIVATE_GIBBS", "SEC4_GIBBS_COSTS", "random_scan_log_probabilities"]

eps, delta, C = SYMBOLS["epsilon"], SYMBOLS["delta"], SYMBOLS["C"]
N, Q, k, T = SYMBOLS["N"], SYMBOLS["Q"], SYMBOLS["k"], SYMBOLS["T"]


# ----------------------------------------------------------------------------- Proposition 3
PROP3_APPROX_SAMPLING = Theorem(
    "foulds2016.prop3_approx_sampling",
    "Proposition 3 (Wang et al. 2015): an L1-delta-close approximate sampler is (eps, (1 + e^eps) delta)-DP",
    source("Proposition 3", "Sec. 4"),
    "privacy",
    shared=APPROX_SAMPLING,
    errata=[
        Erratum(
            "Foulds' restatement misplaces a parenthesis; read literally, the slack 1 + e^eps delta exceeds 1 and is "
            "vacuous. Wang et al.'s Prop. 3 and the proof give (1 + e^eps) delta.",
            "(eps, (1 + exp(eps) delta)-differentially private",
            "(eps, (1 + exp(eps)) delta)-differentially private",
            check="printed_vs_wang",
        )
    ],
    notes=(
        "With ||.||_1 the L1 norm (twice the total variation), the chain of inequalities only needs TV = delta/2, "
        "and the tight slack is (1 + e^eps) delta / 2 (check `tight_example`); Wang's (1 + e^eps) delta holds "
        "with either reading."
    ),
)


@PROP3_APPROX_SAMPLING.add_check("chain_of_inequalities", "symbolic")
def _prop3_chain():
    """Foulds Prop. 3 (Wang's proof): P'_X(S) <= P_X(S) + delta <= e^eps P_X'(S) + delta
    <= e^eps (P'_X'(S) + delta) + delta = e^eps P'_X'(S) + (1 + e^eps) delta."""
    pprime = sp.Symbol("Pp", nonnegative=True)  # P'_{X'}(S)
    step3 = sp.exp(eps) * (pprime + delta) + delta
    slack = sp.expand(step3 - sp.exp(eps) * pprime)
    ok = sp.simplify(slack - PROP3_APPROX_SAMPLING.conclusion["delta"]) == 0
    return ok, f"slack = {sp.factor(slack)}"


@PROP3_APPROX_SAMPLING.add_check("printed_vs_wang", "numeric")
def _prop3_printed():
    """Foulds Prop. 3 as printed, read as 1 + e^eps delta, vs Wang's (1 + e^eps) delta at eps = 1, delta = 0.01:
    0.03718 vs 1.02718 -- the printed slack is >= 1 for every delta > 0, i.e. no guarantee at all."""
    e_val, d_val = 1.0, 0.01
    wang = PROP3_APPROX_SAMPLING.evaluate(epsilon=e_val, delta=d_val).delta
    printed = 1 + np.exp(e_val) * d_val
    ok = abs(wang - (1 + np.e) * 0.01) < 1e-15 and printed >= 1 and abs(printed - wang) > 0.9
    return ok, f"Wang (1+e^eps) delta = {wang:.5f}; printed 1 + e^eps delta = {printed:.5f}", wang, printed


@PROP3_APPROX_SAMPLING.add_check("tight_example", "numeric")
def _prop3_tight():
    """Foulds Prop. 3 on randomized response (exactly eps-DP) with each law moved by L1 distance delta towards
    the other's worst outcome: the exact slack at e^eps is (1 + e^eps) delta/2 <= (1 + e^eps) delta."""
    worst = 0.0
    for e_val, d_val in [(0.5, 0.01), (1.0, 0.05), (3.0, 0.001)]:
        a, b = np.exp(e_val) / (1 + np.exp(e_val)), 1 / (1 + np.exp(e_val))
        p_x = np.array([a + d_val / 2, b - d_val / 2])  # ||P'_X - P_X||_1 = delta
        p_xp = np.array([b - d_val / 2, a + d_val / 2])
        exact = max(discrete_delta(np.log(p_x), np.log(p_xp), e_val), discrete_delta(np.log(p_xp), np.log(p_x), e_val))
        bound = PROP3_APPROX_SAMPLING.evaluate(epsilon=e_val, delta=d_val).delta
        if abs(exact - bound / 2) > 1e-12:
            return False, f"exact slack {exact} is not (1 + e^eps) delta / 2 = {bound / 2}"
        worst = max(worst, exact / bound)
    return worst <= 0.5 + 1e-12, f"max exact / bound = {worst:.6f}", 0.5, worst


# ----------------------------------------------------------------------------- eqs. 18-20
def random_scan_log_probabilities(data: np.ndarray, n_updates: int, c_value: float) -> np.ndarray:
    """Log-probabilities of the state after one random-scan Gibbs sweep, for the counterexample of eq. 19.

    Model (Foulds et al. 2016, Sec. 4.1 with "theta_l associated with only x_l"): N binary latents
    theta_l, uniform prior, Pr(x_l | theta_l) = exp(C [x_l = theta_l]) / (1 + e^C), so
    max |log Pr(x'|theta) - log Pr(x|theta)| = C. The public state starts at theta = 0; the sweep
    picks ``n_updates`` = Q of the N indices uniformly without replacement and draws each picked
    theta_l from its Gibbs conditional Pr(theta_l = x_l | x_l) = e^C / (1 + e^C) (the exponential
    mechanism at eps = 2C, eq. 19). Returns log Pr(theta') for all 2^N states theta' (-inf where
    impossible), states ordered as ``itertools.product((0, 1), repeat=N)``.
    """
    data = check_finite_array(data, "data", ndim=1)
    if not np.isin(data, (0, 1)).all():
        raise ValueError("data must contain only 0 and 1")
    data = data.astype(int)
    n_data = data.size
    n_updates = check_positive_int(n_updates, "n_updates")
    if n_updates > n_data:
        raise ValueError(f"n_updates must be in [1, {n_data}] (the number of data points); got {n_updates}")
    c_value = check_real("c_value", c_value, low=0.0, low_inclusive=False)
    states = np.array(list(itertools.product((0, 1), repeat=n_data)))  # (2^N, N)
    stay_same = np.exp(c_value) / (1 + np.exp(c_value))
    p_one = np.where(data == 1, stay_same, 1 - stay_same)  # Pr(theta_l' = 1) if updated
    subsets = list(itertools.combinations(range(n_data), n_updates))
    prob = np.zeros(len(states))
    for subset in subsets:  # a loop over the few subsets; states are vectorised
        updated = np.zeros(n_data, dtype=bool)
        updated[list(subset)] = True
        per_coord = np.where(updated, np.where(states == 1, p_one, 1 - p_one), (states == 0).astype(float))
        prob += per_coord.prod(axis=1) / len(subsets)
    with np.errstate(divide="ignore"):
        return np.log(prob)


EQ19_PRIVATE_GIBBS = Theorem(
    "foulds2016.eq19_private_gibbs",
    "A Gibbs update is the exponential mechanism: 2 Delta per update; sequence-scan and random-scan costs",
    source("eqs. 18-20", "Sec. 4.1"),
    "algorithm",
    symbols={"C": C, "Q": Q, "N": N},
    hypotheses=[Hypothesis("Q_at_most_N", Q <= N, "a random scan updates Q distinct theta_l out of N")],
    conclusion={
        "epsilon": 2 * C,
        "epsilon_sequence_scan": 2 * C,
        "epsilon_random_scan": 2 * C,
        "epsilon_random_scan_printed": 4 * C * Q / N,
    },
    statement=(
        "The Gibbs kernel Pr(theta'_l | theta_{-l}, X) (eq. 18) is the exponential mechanism with utility "
        "log Pr(theta'_l, theta_{-l}, X) over the values of theta_l (eq. 19), so one update is eps-DP with "
        "eps = 2 Delta log Pr(theta'_l, theta_{-l}, X) <= 2 Delta log Pr(theta, X) (eq. 20). When each theta_l "
        "involves only x_l, a random sequence-scan pass over all N theta_l is 2 Delta-DP by parallel "
        "composition; the paper states that a random scan of Q out of N theta_l is 4 Delta Q/N-DP by "
        "subsampling amplification."
    ),
    errata=[
        Erratum(
            "Random-scan amplification does not hold in the paper's own setting (the Gibbs state is public, Sec. "
            "4.1): the coordinates that changed reveal which theta_l were updated, so the subsample is not hidden "
            "and the cost of a random scan is that of its updates under parallel composition, 2 Delta. "
            "4 Delta Q/N = 2 (Q/N)(2 Delta) is Beimel's subsampling bound, which in addition needs 2 Delta < 1.",
            "random scan of Q out of N theta_l: 4 Delta Q / N",
            "2 Delta (parallel composition); a one-update sweep with N = 6 already has exact epsilon C = Delta > 4 Delta/6",
            check="random_scan_counterexample",
        )
    ],
    empirical=[link("private_gibbs", "exact/audited epsilon of Gibbs updates, sequence and random scans")],
    notes=(
        "C is Delta log Pr(theta, X). `epsilon` is one update (its own Delta_l <= C by eq. 20); "
        "`epsilon_random_scan` is what the argument supports, `epsilon_random_scan_printed` the paper's formula."
    ),
)


@EQ19_PRIVATE_GIBBS.add_check("gibbs_conditional_is_exponential_mechanism", "symbolic")
def _eq19_expmech():
    """Foulds eqs. 18-19: for theta_l with 3 values and joint values J_i = Pr(theta_l = i, theta_{-l}, X), the
    Gibbs conditional J_i / sum J equals the exponential mechanism exp(eps log J_i/(2 Delta)) / Z at
    eps = 2 Delta (and not at eps = Delta)."""
    j = sp.symbols("J0:3", positive=True)
    delta_l = sp.Symbol("Delta_l", positive=True)
    gibbs = [ji / sum(j) for ji in j]

    def expmech(e):
        w = [sp.exp(e * sp.log(ji) / (2 * delta_l)) for ji in j]
        return [wi / sum(w) for wi in w]

    at_2d = [sp.simplify(g - m) for g, m in zip(gibbs, expmech(2 * delta_l))]
    at_1d = [sp.simplify(g - m) for g, m in zip(gibbs, expmech(delta_l))]
    ok = all(d == 0 for d in at_2d) and any(d != 0 for d in at_1d)
    return ok, f"Gibbs - exp. mechanism at eps = 2 Delta_l: {at_2d}"


@EQ19_PRIVATE_GIBBS.add_check("eq20_restricted_sensitivity", "numeric")
def _eq20():
    """Foulds eq. 20: for a random log-likelihood table l[x, theta_1, theta_2] (4 data values, 5 x 5 states),
    the sensitivity with theta_{-l} held fixed is <= the sensitivity over all theta, for every fixed value,
    and the largest of them equals it."""
    rng = np.random.default_rng(20)
    worst_excess, worst_gap = -np.inf, 0.0
    for _ in range(50):
        table = rng.normal(size=(4, 5, 5))
        diffs = np.abs(table[:, None] - table[None, :])  # (x, x', theta_1, theta_2)
        full = diffs.max()
        restricted = diffs.max(axis=(0, 1, 2))  # update theta_1 with theta_2 fixed: one value per theta_2
        worst_excess = max(worst_excess, float(np.max(restricted - full)))
        worst_gap = max(worst_gap, float(full - restricted.max()))
    return worst_excess <= 0 and worst_gap == 0, f"max(Delta_l - Delta) = {worst_excess:.3g}; max over theta_-l equals Delta"


@EQ19_PRIVATE_GIBBS.add_check("printed_random_scan_is_beimel_bound", "symbolic")
def _eq19_beimel():
    """Foulds Sec. 4.1: the printed 4 Delta Q/N is Beimel's 2 gamma eps with gamma = Q/N and eps = 2 Delta."""
    concl = EQ19_PRIVATE_GIBBS.conclusion
    gamma = Q / N
    symbolic = sp.simplify(2 * gamma * concl["epsilon"] - concl["epsilon_random_scan_printed"]) == 0
    return symbolic, "2 (Q/N)(2C) = 4CQ/N"


@EQ19_PRIVATE_GIBBS.add_check("printed_random_scan_core_beimel", "numeric")
def _eq19_beimel_core():
    """Foulds Sec. 4.1: the printed value equals dpverify.calculus.subsampling.beimel_subsampling at C = 0.25, Q/N = 1/6."""
    core = beimel_subsampling(0.5, 0.0, 1 / 6).epsilon
    ours = EQ19_PRIVATE_GIBBS.evaluate(C=0.25, Q=1, N=6).epsilon_random_scan_printed
    return abs(core - ours) < 1e-15, f"core {core} vs sympy {ours}", core, ours


@EQ19_PRIVATE_GIBBS.add_check("random_scan_counterexample", "numeric")
def _eq19_counter():
    """Foulds Sec. 4.1 random scan, exact: N = 6 binary latents, C = 0.25 (2C < 1, Beimel's condition holds),
    neighbours x_1 = 1 vs x_1 = 0. For Q = 1, 2, 3 the exact epsilon of the public state after one sweep is
    C (the state with only theta_1 flipped has likelihood ratio e^C), above the printed 4CQ/N for Q = 1
    (0.167) and within the supported 2C; with Q = N (sequence scan) it is also <= 2C."""
    c_value, n_data = 0.25, 6
    x = np.zeros(n_data, dtype=int)
    x_prime = x.copy()
    x[0] = 1
    lines, ok = [], True
    for q_value in (1, 2, 3, n_data):
        exact = discrete_epsilon(
            random_scan_log_probabilities(x, q_value, c_value), random_scan_log_probabilities(x_prime, q_value, c_value)
        )
        ev = EQ19_PRIVATE_GIBBS.evaluate(C=c_value, Q=q_value, N=n_data)
        ok = ok and abs(exact - c_value) < 1e-12 and exact <= ev.epsilon_random_scan
        lines.append(f"Q = {q_value}: exact {exact:.4f}, printed {ev.epsilon_random_scan_printed:.4f}")
    printed_q1 = EQ19_PRIVATE_GIBBS.evaluate(C=c_value, Q=1, N=n_data).epsilon_random_scan_printed
    ok = ok and printed_q1 < c_value
    return ok, "; ".join(lines), printed_q1, c_value


# ----------------------------------------------------------------------------- Sec. 4 / Sec. 5 costs
SEC4_GIBBS_COSTS = Theorem(
    "foulds2016.sec4_gibbs_costs",
    "Privacy costs: a sequence-scan pass 2 Delta, q posterior samples 2 q Delta, HMM worst case 400 eps",
    source("Secs. 2.2, 4.1, 5", "Sec. 2.2 (q samples), Sec. 4.1 (pass), Sec. 5 (eps(Gibbs) <= 400 eps)"),
    "composition",
    symbols={"C": C, "k": k, "epsilon": eps, "T": T},
    conclusion={"epsilon_pass": 2 * C, "epsilon_samples": 2 * k * C, "epsilon_gibbs": 2 * T * eps},
    defaults={"k": 1, "T": 200},
    statement=(
        "A random sequence-scan Gibbs pass updating each of the N theta_l once (theta_l tied to x_l only) is "
        "2 Delta-DP by parallel composition (Sec. 4.1). With a budget eps' >= 2 q Delta one can draw q posterior "
        "samples (Sec. 2.2, Theorem 1). In the HMM case study, OPS without convergence has worst case "
        "eps(Gibbs) <= 400 eps: 200 iterations of latent-variable and parameter updates, each of worst-case "
        "cost eps (Sec. 5)."
    ),
    notes=(
        "C is Delta log Pr(theta, X); k is the paper's q (the number of posterior samples; `q` is the sampling "
        "rate in dpverify); T is the number of Gibbs iterations (default 200, Sec. 5), each with two updates "
        "(latent variables, parameters) of cost `epsilon`."
    ),
)


@SEC4_GIBBS_COSTS.add_check("q_samples_by_composition", "symbolic")
def _sec4_samples():
    """Foulds Sec. 2.2 via Theorem 1: composing k draws, each 2C-DP (Theorem 2), gives 2kC (k = 1..6 folded
    through Theorem 1's conclusion), so a budget eps' buys floor(eps'/(2C)) samples."""
    e1, e2 = THM1_COMPOSITION.symbols["epsilon_1"], THM1_COMPOSITION.symbols["epsilon_2"]
    one = THM2_POSTERIOR_2C.conclusion["epsilon"]
    total, ok = one, True
    for kk in range(2, 7):
        total = THM1_COMPOSITION.conclusion["epsilon"].subs({e1: total, e2: one})
        ok = ok and sp.simplify(total - SEC4_GIBBS_COSTS.conclusion["epsilon_samples"].subs(k, kk)) == 0
    return ok, f"6 composed draws by Theorem 1: {total}"


@SEC4_GIBBS_COSTS.add_check("q_samples_budget_example", "numeric")
def _sec4_budget():
    """Foulds Sec. 2.2: a budget eps' = 10 at C = log 4 buys floor(eps'/(2C)) = 3 posterior samples: 3 cost 8.32 <= 10,
    4 cost 11.09 > 10."""
    c_value, budget = float(np.log(4)), 10.0
    cost = lambda kk: SEC4_GIBBS_COSTS.evaluate(C=c_value, k=kk, epsilon=1).epsilon_samples  # noqa: E731
    ok = cost(3) <= budget < cost(4) and int(budget // (2 * c_value)) == 3
    return ok, f"eps' = 10, C = log 4: 3 samples cost {cost(3):.3f}, 4 cost {cost(4):.3f}"


@SEC4_GIBBS_COSTS.add_check("sequence_scan_parallel_composition", "symbolic")
def _sec4_pass():
    """Foulds Sec. 4.1: in a pass over N = 5 theta_l each update touches one x_l; changing x_j affects only
    update j, so the pass costs max_j sum_{l touching x_j} 2C = 2C."""
    touches = sp.eye(5)  # touches[l, j] = 1 iff update l reads x_j
    per_record = [sum(touches[l, j] * 2 * C for l in range(5)) for j in range(5)]
    cost = sp.Max(*per_record)
    return sp.simplify(cost - SEC4_GIBBS_COSTS.conclusion["epsilon_pass"]) == 0, f"per-record costs {per_record}"


@SEC4_GIBBS_COSTS.add_check("hmm_worst_case_400_eps", "numeric")
def _sec4_hmm():
    """Foulds Sec. 5: 200 Gibbs iterations x 2 updates (latent variables, parameters) x eps = 400 eps."""
    got = SEC4_GIBBS_COSTS.evaluate(C=1.0, epsilon=1.0).epsilon_gibbs  # T defaults to 200
    return got == 400.0, f"eps(Gibbs) / eps = {got}", 400.0, got


#: This section's theorems in catalogue order; registered by :mod:`dpverify.theorems.foulds2016`.
# ----------------------------------------------------------------------------- pins
# Every conclusion evaluated at points and compared with an independent computation.
def _prop3_cases():
    out = []
    for e_val, d_val in ((0.5, 0.01), (2.0, 0.05)):
        a, b = np.exp(e_val) / (1 + np.exp(e_val)), 1 / (1 + np.exp(e_val))
        eps_exact = discrete_epsilon(np.log([a, b]), np.log([b, a]))  # the exact sampler: randomized response at eps
        p_x, p_xp = np.array([a + d_val / 2, b - d_val / 2]), np.array([b - d_val / 2, a + d_val / 2])
        slack = max(discrete_delta(np.log(p_x), np.log(p_xp), e_val), discrete_delta(np.log(p_xp), np.log(p_x), e_val))
        out.append(({"epsilon": e_val, "delta": d_val}, {"epsilon": eps_exact, "delta": 2 * slack}))
    return out


PROP3_APPROX_SAMPLING.add_pin(
    "pin_perturbed_randomized_response",
    "the exact sampler's epsilon (randomized response, computed) is kept; twice the exact slack of the L1-delta "
    "perturbed pair (tight_example: the slack is (1 + e^eps) delta/2) is the printed (1 + e^eps) delta; rel 1e-10",
    _prop3_cases, rel=1e-10)


def _eq19_cases():
    out = []
    for c_value, q_value, n_data in ((0.25, 1, 6), (0.6, 3, 5)):
        # one Gibbs update whose theta_l has m + 1 values, with the worst log-joint pair of sensitivity C (eq. 20): the
        # exponential mechanism at eps = 2C; its exact epsilon -> 2C as m grows (error ~ e^C/m)
        # (the m equal outputs grouped into one outcome of m times the mass, m = 1e12: same log-ratios)
        log_m, a = np.log(1e12), c_value  # eps u/(2 Delta) = 2C C/(2C) = C at u = C
        upd = discrete_epsilon(np.array([a, log_m]) - np.logaddexp(a, log_m),
                               np.array([0.0, log_m + a]) - np.logaddexp(0.0, log_m + a))
        # a pass touches the changed x_j in one update (parallel composition): the pass costs what one update costs
        out.append(({"C": c_value, "Q": q_value, "N": n_data},
                    {"epsilon": upd, "epsilon_sequence_scan": upd, "epsilon_random_scan": upd,
                     "epsilon_random_scan_printed": 2 * (q_value / n_data) * (2 * c_value)}))
    return out


EQ19_PRIVATE_GIBBS.add_pin(
    "pin_worst_update_and_parallel_composition",
    "one update's exact epsilon on the worst utility pair with 1e12 + 1 values (equal ones grouped; -> 2C, error ~ e 1e-12); "
    "a sequence or "
    "random scan changes one update's input (parallel composition) so costs the same; the printed random-scan value as "
    "Beimel's 2 gamma eps with gamma = Q/N, eps = 2C; rel 1e-9",
    _eq19_cases, rel=1e-9)


def _sec4_cases():
    out = []
    for c_value, kk, t_value, e_val in ((np.log(4), 3, 200, 0.05), (0.3, 7, 11, 1.3)):
        out.append(({"C": float(c_value), "k": kk, "T": t_value, "epsilon": e_val}, {
            "epsilon_pass": 2 * float(c_value),  # one update's 2C (Theorem 2), once per pass (parallel composition)
            "epsilon_samples": basic_composition([ApproxDP(2 * float(c_value), 0.0)] * kk).epsilon,
            "epsilon_gibbs": basic_composition([ApproxDP(e_val, 0.0)] * (2 * t_value)).epsilon,  # T iterations x 2 updates
        }))
    return out


SEC4_GIBBS_COSTS.add_pin(
    "pin_core_basic_composition",
    "k posterior samples and the HMM run (T iterations of 2 eps-DP updates) composed by dpverify.calculus.composition."
    "basic_composition; a pass costs one update's 2C; rel 1e-12",
    _sec4_cases, rel=1e-12)


THEOREMS: tuple[Theorem, ...] = (PROP3_APPROX_SAMPLING, EQ19_PRIVATE_GIBBS, SEC4_GIBBS_COSTS)
