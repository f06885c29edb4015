"""Provable forms of Wang, Fienberg and Smola (2015): the DP tools (Lemmas 1-4, Remark 1, Theorem 2, the
sensitivity 2L), one posterior sample (Theorem 1, both parts; Proposition 3), DP-SGLD and its relatives (Theorem 4,
the alpha-phase step size, the SGHMC and SGNHT conditions) and DP-SGFS (supplement, Lemmas 5-6, Theorem 5).

Comparators, item by item (each docstring below says what is compared):

- Theorem 2 and Lemma 5 (Gaussian mechanisms): the exact privacy profile (Balle and Wang 2018, Thm 8);
- Lemma 4: the exact amplification by subsampling, ``log(1 + gamma (e^eps - 1))`` and ``gamma delta`` (Balle,
  Barthe and Gaboardi 2018, Thm 9);
- Lemmas 2, 3: the optimal composition (Kairouz, Oh and Viswanath 2015); Remark 1: Lemma 3's own bound;
- Lemma 1: every randomized test of the dominating (eps, delta) pair (every (eps, delta)-DP pair is a
  post-processing of it, Kairouz et al. 2015, Thm 2.1, so every post-processing followed by an event is such a
  test);
- Theorem 1 (4B and 4LR) and the sensitivity 2L: the worst case over the configurations the bound quantifies over,
  reduced to a few real parameters (each docstring gives the reduction);
- Theorem 4, the SGHMC and SGNHT conditions, Theorem 5: the proof's chain (Theorem 2, Lemma 4, Lemma 3, each
  proved on its own) as a rigorous upper bound on the truth, and for Theorem 4 also the exact privacy of the
  full-batch run (tau = N: a composition of Gaussian mechanisms, which is one Gaussian mechanism);
- Lemma 6 (covariance sensitivity): the exact change of the sample variance of one-dimensional data.
"""
from __future__ import annotations

from dataclasses import replace

import sympy as sp

from dpverify.prove.comparators import (
    amplified_epsilon,
    gaussian_delta,
    optimal_composition_delta,
    two_fold_composition_delta,
)
from dpverify.prove.forms.base import ItemForm, Part, StatementLike, problem_for
from dpverify.prove.problem import Scale
from dpverify.prove.forms.common import (
    LOG,
    count_ceiling,
    delta_floor,
    epsilon_ceiling,
    probability,
    scale_ceiling,
    signed_box,
    signed_symbol,
    symbol_of,
    unit_box,
    unit_symbol,
)

__all__ = ["FORMS", "basic_composition_delta", "ops_two_point", "approx_sampling_delta"]


# ---------------------------------------------------------------------------------------------- Lemma 1
def _lemma1(item: StatementLike):
    """claimed delta >= the value at epsilon of any randomized test k in [0, 1]^4 on the dominating (eps, delta)
    pair P = (delta, (1-delta) e^eps/(1+e^eps), (1-delta)/(1+e^eps), 0), Q = its mirror image."""
    eps, delta = symbol_of(item, "epsilon"), symbol_of(item, "delta")
    k = [unit_symbol(f"k{i}") for i in range(4)]
    z = 1 + sp.exp(eps)
    p = [delta, (1 - delta) * sp.exp(eps) / z, (1 - delta) / z, 0]
    q = [0, (1 - delta) / z, (1 - delta) * sp.exp(eps) / z, delta]
    test_value = sum(k[i] * (p[i] - sp.exp(eps) * q[i]) for i in range(4))
    return problem_for(item, "delta", claimed=item.conclusion["delta"], comparator=test_value,
                       declared={"epsilon": epsilon_ceiling()}, extra=unit_box("k0", "k1", "k2", "k3"),
                       comparator_source="a randomized test k(w) in [0, 1] of the dominating pair of (eps, delta)-DP "
                                         "(Kairouz, Oh and Viswanath 2015, Thm 2.1)",
                       scope="every post-processing followed by an event, through the dominating pair")


# ---------------------------------------------------------------------------------------------- sensitivity 2L
def _sensitivity(key: str, divisor):
    def build(item: StatementLike):
        """||g - g'||^2 for gradients of norms s1 L and s2 L (s in [0, 1]) at angle u: the other records of the
        mini-batch cancel, and two vectors span a plane, so this is every replace-one pair; u in [0, 4] covers
        [0, pi]. Squares (both sides are >= 0), so that no square root of an enclosure reaching below 0 is
        taken."""
        L = symbol_of(item, "L")
        s1, s2, u = unit_symbol("s1"), unit_symbol("s2"), unit_symbol("u")
        spread = s1**2 + s2**2 - 2 * s1 * s2 * sp.cos(u)
        scale = (L / divisor(item)) ** 2
        claimed = item.conclusion[key] ** 2
        return problem_for(item, key, claimed=claimed, comparator=scale * spread,
                           margin=sp.simplify(claimed / scale) - spread, scale=scale,
                           extra=unit_box("s1", "s2") + [("angle_range", u <= 4)], quantity=f"{key}^2",
                           comparator_source="the squared norm of the change of the replaced record's gradient",
                           scope="every replace-one pair of gradient sets with norms <= L")
    return build


# ---------------------------------------------------------------------------------------------- Lemma 2 (shared)
def basic_composition_delta(item: StatementLike):
    """claimed delta1 + delta2 >= the optimal composition's delta at eps1 + eps2 (the hockey-stick divergence of
    the product of the two dominating pairs; Kairouz, Oh and Viswanath 2015, Sec. 3)."""
    e1, e2, d1, d2 = (symbol_of(item, n) for n in ("epsilon_1", "epsilon_2", "delta_1", "delta_2"))
    comparator = two_fold_composition_delta(e1, d1, e2, d2, item.conclusion["epsilon"])
    return problem_for(item, "delta", claimed=item.conclusion["delta"], comparator=comparator,
                       declared={"epsilon_1": epsilon_ceiling(), "epsilon_2": epsilon_ceiling(),
                                 "delta_1": probability(), "delta_2": probability()},
                       comparator_source="the optimal composition of the two dominating pairs (Kairouz et al. 2015)")


# ---------------------------------------------------------------------------------------------- Theorem 1 (shared)
def ops_two_point(item: StatementLike, bound: sp.Expr, key: str = "epsilon"):
    """The posterior's log-ratio at one parameter value theta_1 over any two-point parameter space: with
    d_j = log p(x'|theta_j) - log p(x|theta_j) and w = the posterior mass of theta_1 given the data with x (the
    prior and the other records folded in: any w in [0, 1] occurs),
    ``log p(theta_1|X) - log p(theta_1|X') = -d_1 + log(w e^{d_1} + (1 - w) e^{d_2})``. ``bound`` is the largest
    |d_j| the statement allows (2B when |log p| <= B; 2LR for an L-Lipschitz likelihood on a ball of radius R);
    d_j = bound t_j with t_j in [-1, 1]. Swapping X and X' maps d to -d: the box covers both directions."""
    t1, t2, w = signed_symbol("t1"), signed_symbol("t2"), unit_symbol("w")
    d1, d2 = bound * t1, bound * t2
    log_ratio = -d1 + sp.log(w * sp.exp(d1) + (1 - w) * sp.exp(d2))
    return problem_for(item, key, claimed=item.conclusion[key], comparator=log_ratio,
                       extra=signed_box("t1", "t2") + unit_box("w"),
                       declared={s.name: scale_ceiling(100 if len(bound.free_symbols) == 1 else 10)
                                 for s in bound.free_symbols},
                       comparator_source="the log posterior ratio of one parameter value",
                       scope="every prior and likelihood on a two-point parameter space (where 4B is approached)")


def _ops_lipschitz(item: StatementLike):
    """Theorem 1's second part: ``|log p(x'|theta) - log p(x|theta)| <= L ||x' - x|| <= 2 L R``, so the two-point
    family of :func:`ops_two_point` with bound 2 L R. L and R enter the claim (4 L R) and the family only through
    their product, which is the parameter ``LR`` here (the claim is the conclusion with L = LR / R)."""
    L, R = symbol_of(item, "L"), symbol_of(item, "R")
    product = sp.Symbol("LR", positive=True)

    class _ByProduct:
        id = item.id
        symbols = {**item.symbols, "LR": product}
        hypotheses = item.hypotheses
        conclusion = {k: sp.simplify(v.xreplace({L: product / R})) for k, v in item.conclusion.items()}
        dropped = tuple(getattr(item, "dropped", ()))
        widen = getattr(item, "widen", {})

    assert R not in _ByProduct.conclusion["epsilon"].free_symbols
    return ops_two_point(_ByProduct, 2 * product)


# ---------------------------------------------------------------------------------------------- Prop. 3 (shared)
def approx_sampling_delta(item: StatementLike):
    """For every event S: P(S) = u and P'(S) = v with u <= e^eps v (the exact sampler is eps-DP; u = e^eps v r,
    r in [0, 1]), and the approximate samplers within delta/2 of them (an L1 distance delta is a total variation
    delta/2): Q(S) - e^eps Q'(S) <= e^eps v r + s delta/2 - e^eps (v - s' delta/2), s, s' in [0, 1]."""
    eps, delta = symbol_of(item, "epsilon"), symbol_of(item, "delta")
    v, r, s1, s2 = unit_symbol("v"), unit_symbol("r"), unit_symbol("s"), unit_symbol("s_prime")
    event_gap = sp.exp(eps) * v * r + s1 * delta / 2 - sp.exp(eps) * (v - s2 * delta / 2)
    return problem_for(item, "delta", claimed=item.conclusion["delta"], comparator=event_gap,
                       declared={"epsilon": epsilon_ceiling(), "delta": (None, 1, "<= 1 (an L1 distance of "
                                                                                  "probability laws is at most 2)")},
                       extra=unit_box("v", "r", "s", "s_prime") + [("probability", sp.exp(eps) * v * r <= 1)],
                       comparator_source="the hockey-stick gap of every event",
                       scope="every event, with the approximate samplers' probabilities delta/2 off the exact ones")


# ---------------------------------------------------------------------------------------------- Lemma 3
_LEMMA3_DECLARED = {"epsilon": (None, 4, "<= 4 (the lemma is used with small per-step epsilons)"),
                    "delta": probability(),
                    "k": count_ceiling(8, "the optimal composition sums over k; each k is proved on its own"),
                    "delta_prime": delta_floor("log(1/delta') is unbounded as delta' -> 0")}


def _lemma3_pure(item: StatementLike):
    """The optimal k-fold composition's delta at eps' (Kairouz et al. 2015, Thm 3.3) is
    ``1 - (1 - delta)^k (1 - P)``, P the pure part (the hockey-stick divergence of k composed eps-DP randomized
    responses at eps'), and ``1 - (1 - delta)^k (1 - P) <= (1 - (1 - delta)^k) + P``; so the claim k delta + delta'
    follows from two inequalities, this one, ``delta' >= P(eps, eps', k)``, and the next,
    ``k delta >= 1 - (1 - delta)^k`` (Bernoulli). A sufficient split: proving both proves the lemma, and a failure
    of one is no refutation (the problems are marked not refutable)."""
    eps, delta, k, dp = (symbol_of(item, n) for n in ("epsilon", "delta", "k", "delta_prime"))
    whole = optimal_composition_delta(eps, sp.S.Zero, k, item.conclusion["epsilon"])  # delta = 0: 1 - (1 - P) = P
    pure = whole.args[1] if isinstance(whole, sp.Add) and len(whole.args) == 2 and whole.args[0] == 0 else whole
    problem = problem_for(item, "delta' vs the pure part", claimed=dp, comparator=pure, declared=_LEMMA3_DECLARED,
                          scales={"delta_prime": LOG}, pointwise=("k",), project=True,
                          comparator_source="the pure part of the optimal composition (Kairouz, Oh and Viswanath "
                                            "2015, Thm 3.3)",
                          scope="a sufficient split of the optimal composition's delta")
    return replace(problem, refutable=False)


def _lemma3_bernoulli(item: StatementLike):
    """``k delta >= 1 - (1 - delta)^k`` (Bernoulli's inequality): the other half of the split of
    :func:`_lemma3_pure`."""
    delta, k = symbol_of(item, "delta"), symbol_of(item, "k")
    problem = problem_for(item, "k delta vs 1 - (1 - delta)^k", claimed=k * delta, comparator=1 - (1 - delta) ** k,
                          declared=_LEMMA3_DECLARED, pointwise=("k",), project=True,
                          comparator_source="the delta that k (eps, delta)-DP mechanisms spend whatever eps",
                          scope="a sufficient split of the optimal composition's delta")
    return replace(problem, refutable=False)


# ---------------------------------------------------------------------------------------------- Remark 1
def _remark1(item: StatementLike):
    """claimed 2c >= Lemma 3's epsilon' at eps = c / sqrt(2 k log(1/delta')) (what the remark bounds); the margin
    is divided by c, which the two sides share."""
    c, k, dp = (symbol_of(item, n) for n in ("c", "k", "delta_prime"))
    eps = item.conclusion["epsilon_per_step"]
    lemma3 = sp.sqrt(2 * k * sp.log(1 / dp)) * eps + k * eps * (sp.exp(eps) - 1)
    # (2c - lemma3) / c = 2 - sqrt(2k l) eps / c - k (eps / c) (e^eps - 1), with eps / c = 1 / sqrt(2 k l): kept as
    # one product with (e^eps - 1) whole (an expanded form cancels two large terms and its enclosures are useless)
    root = sp.sqrt(2 * k * sp.log(1 / dp))
    per_c = 1 / root
    assert sp.simplify(eps / c - per_c) == 0, "Remark 1's per-step epsilon is c / sqrt(2 k log(1/delta'))"
    margin = sp.simplify(item.conclusion["epsilon"] / c) - root * per_c - k * per_c * (sp.exp(eps) - 1)
    return problem_for(item, "epsilon", claimed=item.conclusion["epsilon"], comparator=lemma3, margin=margin, scale=c,
                       declared={"delta_prime": (sp.Rational(1, 10**300), 1 - sp.Rational(1, 10**9),
                                                 "in [1e-300, 1 - 1e-9] (log(1/delta') is unbounded as delta' -> 0, "
                                                 "and the per-step epsilon's denominator vanishes at delta' = 1)"),
                                 "c": (None, 700, "<= 700 (c <= log(1/delta') <= 691 on the box)"),
                                 "k": count_ceiling()},
                       scales={"delta_prime": LOG, "k": LOG},
                       comparator_source="Lemma 3's epsilon' (itself proved against the optimal composition)")


# ---------------------------------------------------------------------------------------------- Lemma 4
def _lemma4_epsilon(item: StatementLike):
    """claimed 2 gamma eps >= log(1 + gamma (e^eps - 1)): the exact privacy of an eps-DP mechanism on a uniformly
    random gamma-fraction of the data under replace-one (Balle, Barthe and Gaboardi 2018, Thm 9)."""
    eps, gamma = symbol_of(item, "epsilon"), symbol_of(item, "gamma")
    return problem_for(item, "epsilon", claimed=item.conclusion["epsilon"], comparator=amplified_epsilon(eps, gamma),
                       comparator_source="amplification by subsampling without replacement (Balle et al. 2018, Thm 9)")


def _lemma4_delta(item: StatementLike):
    """claimed delta >= gamma delta (the same theorem's delta)."""
    delta, gamma = symbol_of(item, "delta"), symbol_of(item, "gamma")
    return problem_for(item, "delta", claimed=item.conclusion["delta"], comparator=gamma * delta,
                       declared={"delta": (None, 1, "<= 1 (a probability)")},
                       comparator_source="amplification by subsampling without replacement (Balle et al. 2018, Thm 9)")


# ---------------------------------------------------------------------------------------------- Theorem 2
def _gaussian_mechanism(std_key: str, part: str = "delta"):
    def build(item: StatementLike):
        """claimed delta >= the exact delta of the Gaussian mechanism with this noise at the claimed epsilon (Balle
        and Wang 2018, Thm 8); the sensitivity cancels (mu = sensitivity / sigma)."""
        eps, sens = symbol_of(item, "epsilon"), symbol_of(item, "sensitivity")
        mu = sens / item.conclusion[std_key]
        return problem_for(item, part, claimed=item.conclusion["delta"], comparator=gaussian_delta(eps, mu),
                           declared={"delta": delta_floor(), "epsilon": epsilon_ceiling()},
                           scales={"delta": LOG},
                           comparator_source="the Gaussian mechanism's exact profile (Balle and Wang 2018, Thm 8)")
    return build


# ---------------------------------------------------------------------------------------------- Theorem 4 and kin
_CHAIN_DECLARED = {"epsilon": epsilon_ceiling(), "delta": delta_floor(), "N": count_ceiling(),
                   "T": (None, 10**6, "<= 1e+06 data passes (unbounded above)"), "tau": count_ceiling()}
_CHAIN_SCALES: dict[str, Scale] = {"delta": LOG, "N": LOG, "T": LOG, "tau": LOG}


def _chain(claimed_key: str, extra_declared: dict | None = None, extra_scales: dict[str, Scale] | None = None):
    def build(item: StatementLike):
        """claimed epsilon >= the epsilon that the proof's chain gives (Theorem 2 per step, Lemma 4, Lemma 3, each
        proved on its own): a rigorous upper bound on the truth, so a failure here is not a refutation."""
        return problem_for(item, "epsilon (proof chain)", claimed=item.conclusion[claimed_key],
                           comparator=item.conclusion["epsilon"], comparator_kind="upper",
                           declared={**_CHAIN_DECLARED, **(extra_declared or {})},
                           scales={**_CHAIN_SCALES, **(extra_scales or {})},
                           comparator_source="the proof's chain: Theorem 2, Lemma 4, Lemma 3", project=True,
                           scope="through the proof's chain of lemmas (an upper bound on the truth)")
    return build


def _chain_delta(factor: int = 1):
    def build(item: StatementLike):
        """claimed delta >= the chain's total failure probability (k delta_0 + delta/2 per release)."""
        delta = symbol_of(item, "delta")
        return problem_for(item, "delta (proof chain)", claimed=factor * delta, comparator=item.conclusion["delta"],
                           comparator_kind="upper", declared=_CHAIN_DECLARED, scales=_CHAIN_SCALES, project=True,
                           comparator_source="the proof's chain: k delta_0 + delta/2",
                           scope="through the proof's chain of lemmas")
    return build


def _dp_sgld_full_batch(item: StatementLike):
    """tau = N (full batches): Algorithm 2 releases T Gaussian mechanisms on the gradient sum, each with
    mu_0 = 2L / sigma_sum = eps_0 / sqrt(2 log(1.25/delta_0)) (eps_0 the per-step epsilon, delta_0 = delta/(2T));
    their composition is one Gaussian mechanism with mu = sqrt(T) mu_0, whose exact delta at the claimed epsilon is
    the comparator (Balle and Wang 2018, Thm 8). The noise max{D eta^2, eta} is at least the data term D eta^2:
    this is the least noise the algorithm adds."""
    eps, delta, N, T, tau = (symbol_of(item, n) for n in ("epsilon", "delta", "N", "T", "tau"))
    full = {tau: N}
    eps0 = item.conclusion["epsilon_per_step"].xreplace(full)
    delta0 = delta / (2 * T)
    mu = sp.sqrt(T) * eps0 / sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta0))
    hyps = [h for h in item.hypotheses if h.name != "batch_within_data"]

    class _FullBatch:
        id = item.id
        symbols = item.symbols
        hypotheses = [type(h)(h.name, h.condition.xreplace(full), h.description) for h in hyps]
        conclusion = item.conclusion
        dropped = tuple(getattr(item, "dropped", ()))

    return problem_for(_FullBatch, "delta (full batch, exact)", claimed=delta, comparator=gaussian_delta(eps, mu),
                       declared={"epsilon": epsilon_ceiling(), "delta": delta_floor(),
                                 "T": (1, 10**6, "in [1, 1e+06]: a full-batch run makes T iterations, at least one "
                                                 "(unbounded above)")},
                       scales={"delta": LOG, "T": LOG},
                       comparator_source="the exact privacy of T composed Gaussian mechanisms (Balle and Wang 2018)",
                       scope="full batches (tau = N): the run's exact privacy")


# ---------------------------------------------------------------------------------------------- step-size items
def _phase_data_term(item: StatementLike):
    """claimed: after iteration t_switch = alpha N T / tau the data term D eta_t^2 is at most eta_t, i.e.
    t_switch >= the last t with D eta_t > 1; comparator: the iteration where D eta_t = 1, from the conclusion's
    data_term_over_eta (relation "<=": t_switch is at most that iteration, and here equal)."""
    alpha, N, T, tau, t = (symbol_of(item, n) for n in ("alpha", "N", "T", "tau", "t"))
    crossing = sp.solve(sp.Eq(item.conclusion["data_term_over_eta"], 1), t)[0]
    return problem_for(item, "t_switch", claimed=item.conclusion["t_switch"], comparator=crossing, relation="<=",
                       declared={"N": count_ceiling(), "T": count_ceiling(), "tau": count_ceiling(),
                                 "delta": delta_floor()},
                       scales={"N": LOG, "T": LOG, "tau": LOG, "delta": LOG},
                       comparator_source="the iteration at which Algorithm 2's data term equals eta_t")


def _step_max(key: str, step: str, noise):
    def build(item: StatementLike):
        """claimed step bound <= the largest step whose injected noise covers Algorithm 2's data term (``noise``
        solved for the step)."""
        s = symbol_of(item, step)
        largest = sp.solve(sp.Eq(noise(item), _data_term(item)), s)[0]
        return problem_for(item, key, claimed=item.conclusion[key], comparator=largest, relation="<=",
                           declared=_CHAIN_DECLARED | {"L": scale_ceiling(), "A": scale_ceiling(),
                                                       "a": scale_ceiling(), "h": scale_ceiling(),
                                                       "eta": scale_ceiling(), "B_hat": scale_ceiling()},
                           scales=_CHAIN_SCALES, project=True,
                           comparator_source="the step at which the injected noise equals Algorithm 2's data term")
    return build


def _data_term(item: StatementLike) -> sp.Expr:
    """Algorithm 2's data-term coefficient D = 128 N T L^2/(tau eps^2) log(2.5 N T/(tau delta)) log(2/delta)."""
    N, T, tau, L, eps, delta = (symbol_of(item, n) for n in ("N", "T", "tau", "L", "epsilon", "delta"))
    return 128 * N * T * L**2 / (tau * eps**2) * sp.log(sp.Rational(5, 2) * N * T / (tau * delta)) * sp.log(2 / delta)


# ---------------------------------------------------------------------------------------------- Lemma 6
def _covariance_1d(item: StatementLike):
    """One-dimensional data |x| <= L: replacing x by x' among n points changes the sample variance by
    ``L^2 ((a^2 - b^2) - 2 s (a - b)) / n`` with x = L a, x' = L b and the other points' sum (n - 1) L s, a, b, s in
    [-1, 1] (expand (Q + x^2 - (S + x)^2/n)/(n - 1) for both); the margin is divided by L^2."""
    L, n = symbol_of(item, "L"), symbol_of(item, "n")
    a, b, s = signed_symbol("a"), signed_symbol("b"), signed_symbol("s")
    change = sp.Abs((a**2 - b**2) - 2 * s * (a - b)) / n
    claimed = item.conclusion["sensitivity"]
    return problem_for(item, "sensitivity", claimed=claimed, comparator=L**2 * change,
                       margin=sp.simplify(claimed / L**2) - change, scale=L**2,
                       declared={"n": count_ceiling()}, scales={"n": LOG}, extra=signed_box("a", "b", "s"),
                       comparator_source="the change of the sample variance",
                       scope="one-dimensional data (the sample variance; the d-dimensional Frobenius norm is not "
                             "enclosed here)")


_CHAIN_WHY = ("the proof's chain (Theorem 2, Lemma 4, Lemma 3: an upper bound on the truth) gives more than the claimed "
              "epsilon where eps / log(2/delta) is large (e.g. eps = 10, delta = 0.5, tau = N: chain 25.2): not a "
              "refutation, since the truth there can be smaller")


FORMS: tuple[ItemForm, ...] = (
    ItemForm("wang2015.lem1_post_processing", (Part("delta", _lemma1),)),
    ItemForm("wang2015.def_l2_sensitivity", (Part("sensitivity", _sensitivity("sensitivity", lambda i: 1)),
                                             Part("sensitivity_mean", _sensitivity("sensitivity_mean",
                                                                                   lambda i: symbol_of(i, "tau"))))),
    ItemForm("wang2015.lem2_composition", (Part("delta", basic_composition_delta),)),
    ItemForm("wang2015.thm1_ops_pure_dp", (Part("epsilon", lambda i: ops_two_point(i, 2 * symbol_of(i, "B"))),)),
    ItemForm("wang2015.thm1_ops_lipschitz", (Part("epsilon", _ops_lipschitz),)),
    ItemForm("wang2015.prop3_approx_sampling", (Part("delta", approx_sampling_delta),)),
    ItemForm("wang2015.lem3_advanced_composition", (Part("delta' vs the pure part", _lemma3_pure),
                                                    Part("k delta vs 1 - (1 - delta)^k", _lemma3_bernoulli))),
    ItemForm("wang2015.rem1_composition_simplified", (Part("epsilon", _remark1),), expected="undecided",
             why="two hypotheses couple all three parameters (c <= log(1/delta'), the per-step epsilon < 1) and the "
                 "claim fails just outside them; the branch and bound does not separate that boundary over delta' in "
                 "[1e-300, 1) and k up to 1e9 within the limits (by hand: the margin is 1 - (c / (2 log(1/delta'))) "
                 "(e^x - 1)/x with x < 1, >= 0.14)"),
    ItemForm("wang2015.lem4_subsampling", (Part("epsilon", _lemma4_epsilon), Part("delta", _lemma4_delta)),
             widen={"epsilon_below_one": {"epsilon": (None, 20)}}),
    ItemForm("wang2015.thm2_gaussian_mechanism", (Part("delta", _gaussian_mechanism("sigma")),),
             widen={"epsilon_below_one": {"epsilon": (None, 20)}}),
    ItemForm("wang2015.thm4_dp_sgld", (Part("delta (full batch, exact)", _dp_sgld_full_batch),
                                       Part("epsilon (proof chain)", _chain("epsilon_claimed")),
                                       Part("delta (proof chain)", _chain_delta())),
             expected="undecided", why="proved exactly for full batches (tau = N); " + _CHAIN_WHY),
    ItemForm("wang2015.phase_transition_stepsize", (Part("t_switch", _phase_data_term),)),
    ItemForm("wang2015.sghmc_privacy_condition",
             (Part("h_max", _step_max("h_max", "h",
                                      lambda i: 2 * (symbol_of(i, "A") - symbol_of(i, "B_hat")) / symbol_of(i, "h"))),
              Part("epsilon (proof chain)", _chain("epsilon_claimed"))), expected="undecided",
             why="the step-size bound is proved; " + _CHAIN_WHY),
    ItemForm("wang2015.sgnht_privacy_condition",
             (Part("eta_max", _step_max("eta_max", "eta", lambda i: 2 * symbol_of(i, "a") / symbol_of(i, "eta"))),
              Part("epsilon (proof chain)", _chain("epsilon_claimed"))), expected="undecided",
             why="the step-size bound is proved; " + _CHAIN_WHY),
    ItemForm("wang2015.supp_lem5_nonspherical_gaussian", (Part("delta", _gaussian_mechanism("noise_std")),),
             expected="refuted",
             why="the lemma has no condition on epsilon, but the Gaussian mechanism with std (1 + sqrt(2 log(1/delta)))"
                 "/eps is not (eps, delta)-DP for large eps: the exact delta exceeds delta from eps ~ 8.6 (delta = "
                 "0.9), 10.4 (0.5), 15.4 (0.01) on; the proof's tail bound needs eps <= 2 (1 + sqrt(2 log(1/delta)))"),
    ItemForm("wang2015.supp_thm5_dp_sgfs", (Part("epsilon (proof chain)", _chain("epsilon_claimed")),
                                           Part("delta (proof chain)", _chain_delta(2))), expected="undecided",
             why=_CHAIN_WHY),
    # without n > 4, n goes down to 2, not to 4/20: the sample covariance divides by n - 1, so n = 1 is no data set
    # the statement can speak of (a singular point, where no finding can be made)
    ItemForm("wang2015.supp_lem6_cov_sensitivity", (Part("sensitivity", _covariance_1d),),
             widen={"n_above_four": {"n": (2, None)}}),
)
