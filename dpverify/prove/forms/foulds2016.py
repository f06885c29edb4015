"""Provable forms of Foulds, Geumlek, Welling and Chaudhuri (UAI 2016): the mechanisms of Sec. 2 (eqs. 2-5, the
Laplace and the exponential mechanism), posterior sampling as the exponential mechanism (eqs. 6-10, Theorems 1-3),
the exponential-family sensitivities of Sec. 3 (eqs. 13, 15, 16-17), Proposition 3 and the privacy costs of
Secs. 2.2, 4.1 and 5.

Comparators, item by item (each docstring below says what is compared and why the few real parameters cover every
case):

- eqs. 3 and 16 (Laplace mechanisms): the log-ratio of the two output densities at every output, for every shift
  the sensitivity allows (its supremum is the mechanism's exact epsilon);
- eqs. 4, 6 and 10, and eq. 15's temperature (exponential mechanism, tempered posteriors): the log-ratio of one
  outcome's probability under the two datasets, over every utility (or likelihood) change the sensitivity allows,
  through a reduction to two outcomes (the others enter only through one mean);
- Theorems 1-3 and Proposition 3: the same mathematics as Wang et al. 2015's Lemma 2, Theorem 1 and Proposition 3
  (:mod:`dpverify.prove.forms.wang2015`): the optimal composition of the two dominating pairs, the posterior's
  log-ratio on a two-point parameter space (with the per-record log-likelihood change bounded by C for Theorem 2,
  by 2B for Theorem 3), every event's hockey-stick gap;
- eqs. 6-9, 13, 15 and 17 (sensitivities): the change itself, over every pair of records and parameter value the
  statement quantifies over (its supremum is the sensitivity);
- Sec. 4 costs: the optimal composition's delta (Kairouz, Oh and Viswanath 2015) at the claimed epsilon with the
  per-step delta 0 -- pure DP composes exactly additively, so the claimed delta 0 must be met exactly.

Absolute values are written ``Max(x, -x)``: sympy differentiates ``Max`` into ``Heaviside`` terms, which the interval
evaluator reads, so the monotone lemma applies (the derivative of ``Abs`` is ``sign``, which it does not read).
"""
from __future__ import annotations

import sympy as sp

from dpverify.prove.comparators import optimal_composition_delta, two_fold_composition_delta
from dpverify.prove.forms.base import ItemForm, Part, StatementLike, problem_for
from dpverify.prove.forms.common import (
    DELTA_FLOOR,
    LOG,
    count_ceiling,
    epsilon_ceiling,
    scale_ceiling,
    signed_box,
    signed_symbol,
    symbol_of,
    unit_box,
    unit_symbol,
)
from dpverify.prove.forms.wang2015 import approx_sampling_delta, basic_composition_delta, ops_two_point
from dpverify.prove.problem import ProofProblem

__all__ = ["FORMS", "abs_max", "laplace_log_ratio", "two_outcome_log_ratio"]


# ---------------------------------------------------------------------------------------------- shared pieces
def _bit(name: str) -> sp.Symbol:
    """A record of the beta-Bernoulli model: an integer in {0, 1} (with :func:`_bits_box`; the forms make it
    ``pointwise``, so that each of the four pairs of records is substituted into the expression and what cancels
    for it -- a zero change when x = x' -- cancels symbolically)."""
    return sp.Symbol(name, integer=True, nonnegative=True)


def _bits_box(*names: str) -> list[tuple[str, sp.Basic]]:
    return [(f"{n}_is_a_bit", _bit(n) <= 1) for n in names]


def abs_max(x: sp.Expr) -> sp.Expr:
    """``|x|`` as ``Max(x, -x)`` (module docstring: its derivative is read by the interval evaluator)."""
    return sp.Max(x, -x)


def laplace_log_ratio(outputs: list[sp.Expr], shifts: list[sp.Expr]) -> sp.Expr:
    """``sum_j (|y_j - v_j| - |y_j|)``: the log-ratio of the densities of ``Laplace(0, 1)^d`` and
    ``Laplace(v, 1)^d`` at the output ``y`` (the centre of the first law moved to 0; divide by the scale for
    ``Laplace(., b)``)."""
    return sum(abs_max(y - v) - abs_max(y) for y, v in zip(outputs, shifts))


def two_outcome_log_ratio(h1: sp.Expr, h2: sp.Expr, w: sp.Expr) -> sp.Expr:
    """The log-ratio ``log P(r)/P'(r)`` of one outcome r of a Gibbs (Boltzmann) distribution when the exponent of
    r moves by ``h1`` from P to P', the exponents of the other outcomes move by amounts whose P-weighted mean of
    ``e^{h}`` is ``e^{h2}``, and ``w = P(r)``: with ``P(s) = e^{g_s}/Z`` and ``P'(s) = e^{g_s + h_s}/Z'``,
    ``log P(r)/P'(r) = -h_r + log(Z'/Z)`` and ``Z'/Z = sum_s P(s) e^{h_s} = w e^{h1} + (1 - w) e^{h2}``, so the
    log-ratio is ``-h1 + log(w e^{h1} + (1 - w) e^{h2}) = log(1 + (1 - w)(e^{h2 - h1} - 1))``, written in the
    second form (the same number; its enclosures carry neither h1 twice nor w twice, the argument of the log stays
    above e^{h2 - h1} > 0 on every box, and it is evaluated through log1p and expm1)."""
    return sp.log(1 + (1 - w) * (sp.exp(h2 - h1) - 1))


def _two_outcome_problem(item: StatementLike, part: str, claimed: sp.Expr, half: sp.Expr, *,
                         comparator_source: str, scope: str) -> ProofProblem:
    """claimed epsilon >= :func:`two_outcome_log_ratio` with ``h_j = half * t_j``, t_j in [-1, 1], w in [0, 1]
    (``half``: the largest change of an outcome's exponent the statement allows)."""
    t1, t2, w = signed_symbol("t1"), signed_symbol("t2"), unit_symbol("w")
    log_ratio = two_outcome_log_ratio(half * t1, half * t2, w)
    return problem_for(item, part, claimed=claimed, comparator=log_ratio,
                       extra=signed_box("t1", "t2") + unit_box("w"),
                       declared={"epsilon": epsilon_ceiling()},
                       comparator_source=comparator_source, scope=scope)


_TWO_OUTCOME_REDUCTION = (
    "every outcome space and every change of the exponents within the sensitivity: the other outcomes enter the "
    "log-ratio only through one P-weighted mean of e^{h_s}, which a second outcome reproduces (with w = P(r) in "
    "[0, 1]; w -> 0 is approached with many outcomes)")


# ---------------------------------------------------------------------------------------------- eqs. 2-3
def _eq3_laplace(item: StatementLike) -> ProofProblem:
    """Foulds eqs. 2-3: ``h(X) + Laplace(Delta h / eps)^d`` is eps-DP. claimed epsilon >= the log-ratio of the two
    output densities, ``sum_j (|y_j - v_j| - |y_j|) / b`` at the claimed scale b (the conclusion's ``scale``), for
    the output y and the shift v = h(X') - h(X) with ||v||_1 <= Delta h. Its supremum over y and v is the
    mechanism's exact pure epsilon (Dwork et al. 2006; ``laplace_epsilon``: Delta h / b).

    The form takes d = 2, v_1 = Delta r c, v_2 = Delta r (1 - c) with r, c in [0, 1] (every v >= 0 with
    ||v||_1 <= Delta; a negative v_j is the mirror image y_j -> -y_j, which leaves the loss unchanged) and
    y_j = Delta u_j with u_j in [-1, 1] (for |y_j| >= Delta >= |v_j| the term |y_j - v_j| - |y_j| is constant in
    y_j). Other d: the loss is a sum over coordinates, each term depending on its own (y_j, v_j), so d = 1 is the
    face c = 1 and d > 2 follows by grouping coordinates 2..d into the second (its terms' supremum is the sum of
    their |v_j|, the d = 1 case applied to each). The margin is divided by eps (the sensitivity cancels)."""
    eps, sens = symbol_of(item, "epsilon"), symbol_of(item, "sensitivity")
    u1, u2, r, c = signed_symbol("u1"), signed_symbol("u2"), unit_symbol("r"), unit_symbol("c")
    scale = item.conclusion["scale"]
    loss = sens * laplace_log_ratio([u1, u2], [r * c, r * (1 - c)]) / scale
    claimed = item.conclusion["epsilon"]
    return problem_for(item, "epsilon", claimed=claimed, comparator=loss,
                       margin=sp.simplify(claimed / eps) - sp.expand(loss / eps), scale=eps,
                       extra=signed_box("u1", "u2") + unit_box("r", "c"),
                       declared={"epsilon": epsilon_ceiling(), "sensitivity": scale_ceiling()},
                       comparator_source="the log-ratio of the two Laplace output densities (its supremum is the "
                                         "exact epsilon, Dwork et al. 2006)",
                       scope="every output and every shift of L1 norm <= Delta h, in d = 2 (other d: the loss is a "
                             "sum over coordinates)")


# ---------------------------------------------------------------------------------------------- eqs. 4-5
def _eq4_exponential(item: StatementLike) -> ProofProblem:
    """Foulds eqs. 4-5 (McSherry and Talwar 2007): Pr(r) proportional to exp(u(X, r)/T) with the claimed
    temperature T (the conclusion's ``temperature``, 2 Delta u/eps) is eps-DP. claimed epsilon >= the log-ratio
    ``log Pr_X(r)/Pr_X'(r)`` (:func:`two_outcome_log_ratio`) with the exponent changes
    h_s = (u(X', s) - u(X, s))/T = (Delta u / T) t_s, t_s in [-1, 1] (eq. 5's sensitivity). The reduction to two
    outcomes: the other outcomes enter only through the mean of e^{h_s} under Pr_X, which lies in
    [e^{-Delta/T}, e^{Delta/T}] and is therefore e^{h_2} for some t_2 in [-1, 1]. The supremum, eps/2 + eps/2 at
    t_1 = -1, t_2 = 1, w -> 0, is the exact epsilon over all utilities (check ``factor_two_is_needed``)."""
    sens = symbol_of(item, "sensitivity")
    return _two_outcome_problem(
        item, "epsilon", item.conclusion["epsilon"], sens / item.conclusion["temperature"],
        comparator_source="the log-ratio of one outcome's probability (exponential mechanism)",
        scope=_TWO_OUTCOME_REDUCTION)


# ---------------------------------------------------------------------------------------------- eqs. 6-9
def _eq9_sensitivity(item: StatementLike) -> ProofProblem:
    """Foulds eqs. 8-9: the sensitivity of the log joint ``log Pr(theta) + sum_i log Pr(x_i|theta)`` over
    neighbouring datasets is C. claimed sensitivity >= the change of the log joint when one record's
    log-likelihood l moves to l + C t (|t| <= 1: eq. 9's C bounds exactly this change): the prior P and the other
    records' sum S cancel symbolically, which is eq. 8's content, so the comparator is C t -- a definitional
    item (the supremum over t is C). Signed: swapping X and X' maps t to -t."""
    C = symbol_of(item, "C")
    prior, rest, ell, t = signed_symbol("P"), signed_symbol("S"), signed_symbol("l"), signed_symbol("t")
    change = (prior + rest + ell + C * t) - (prior + rest + ell)
    claimed = item.conclusion["sensitivity"]
    return problem_for(item, "sensitivity", claimed=claimed, comparator=change,
                       margin=sp.simplify(claimed / C) - change / C, scale=C, extra=signed_box("t"),
                       declared={"C": scale_ceiling()},
                       comparator_source="the change of the log joint between neighbouring datasets",
                       scope="every prior, every other record and every parameter value (they cancel)")


def _eq6_power(item: StatementLike) -> ProofProblem:
    """Foulds eq. 6: a draw from Pr(theta, X)^lambda with the claimed power lambda (the conclusion's
    ``exponent``, eps/(2C)) is eps-DP. claimed eps >= the log-ratio of the sampler's density at one theta
    (:func:`two_outcome_log_ratio`) with h_j = lambda d_j, d_j = log Pr(x'|theta_j) - log Pr(x|theta_j) = C t_j
    (eq. 9): the other parameter values enter only through one mean (the same reduction as eq. 4)."""
    C = symbol_of(item, "C")
    return _two_outcome_problem(
        item, "epsilon", symbol_of(item, "epsilon"), item.conclusion["exponent"] * C,
        comparator_source="the log-ratio of the density of Pr(theta, X)^lambda at one theta",
        scope="every prior, model and parameter space with per-record log-likelihood change <= C (two parameter "
              "values suffice: the others enter through one mean)")


# ---------------------------------------------------------------------------------------------- eqs. 10/14
def _eq10_temperature(item: StatementLike) -> ProofProblem:
    """Foulds eqs. 10 and 14: the posterior at the claimed temperature T (the conclusion's ``temperature``,
    2C/eps), Pr(theta|X)^{1/T} normalised, is eps-DP. claimed epsilon >= the log-ratio of its density at one theta
    (:func:`two_outcome_log_ratio`) with h_j = d_j / T, d_j = C t_j the change of log Pr(x|theta_j) (the tempered
    prior cancels); a two-point parameter space covers every one (the others enter through one mean)."""
    C = symbol_of(item, "C")
    return _two_outcome_problem(
        item, "epsilon", item.conclusion["epsilon"], C / item.conclusion["temperature"],
        comparator_source="the log-ratio of the tempered posterior's density at one parameter value",
        scope="every prior, model and parameter space with per-record log-likelihood change <= C (two parameter "
              "values suffice: the others enter through one mean)")


# ---------------------------------------------------------------------------------------------- eq. 13
def _eq13_expfam(item: StatementLike) -> ProofProblem:
    """Foulds eqs. 12-13 for a scalar natural parameter: claimed sensitivity >= theta (S(x') - S(x)) +
    log h(x') - log h(x) with theta = theta_max a, S(x') - S(x) = stat_range b, log h(x') - log h(x) =
    log_h_range c, a, b, c in [-1, 1] (the families the conclusion's ranges describe; g(theta) cancels, eq. 12).
    Signed: swapping x and x' maps (a, b, c) to (a, -b, -c) and the difference to its negative, so the supremum of
    the absolute value (eq. 13) is that of the difference; it is theta_max stat_range + log_h_range, attained by
    a family with two data values aligned at theta = theta_max, so the comparator is exact over these families."""
    tm, sr, lh = symbol_of(item, "theta_max"), symbol_of(item, "stat_range"), symbol_of(item, "log_h_range")
    a, b, c = signed_symbol("a"), signed_symbol("b"), signed_symbol("c")
    change = tm * a * sr * b + lh * c
    return problem_for(item, "sensitivity", claimed=item.conclusion["sensitivity"], comparator=change,
                       extra=signed_box("a", "b", "c"),
                       declared={"theta_max": scale_ceiling(), "stat_range": scale_ceiling(),
                                 "log_h_range": scale_ceiling()},
                       comparator_source="the log-likelihood difference of the exponential family (eq. 12)",
                       scope="scalar natural parameters |theta| <= theta_max with the statistic's and the base "
                             "measure's ranges as given")


# ---------------------------------------------------------------------------------------------- eq. 15
def _eq15_sensitivity(item: StatementLike) -> ProofProblem:
    """Foulds eq. 15: claimed sensitivity >= the Bernoulli log-likelihood difference
    ``(x - x')(log p - log(1 - p))`` for records x, x' in {0, 1} and p = a0 + (1 - 2 a0) s, s in [0, 1] (the
    truncated parameter range [a0, 1 - a0]; 1 - p is written a0 + (1 - 2 a0)(1 - s), the same number without a
    cancellation). Signed: swapping x and x' negates it. Its supremum, at s = 1, is
    log((1 - a0)/a0): the monotone lemma proves the edge s = 1 on its symbolic face. a0 >= 1e-300 is declared
    (log a0 is unbounded as a0 -> 0: the untruncated model has no finite sensitivity)."""
    a0 = symbol_of(item, "a0")
    x, xp, s = _bit("x"), _bit("x_prime"), unit_symbol("s")
    # p and 1 - p, each written without a cancellation (1 - p is tiny where p is near 1 - a0)
    change = (x - xp) * (sp.log(a0 + (1 - 2 * a0) * s) - sp.log(a0 + (1 - 2 * a0) * (1 - s)))
    return problem_for(item, "sensitivity", claimed=item.conclusion["sensitivity"], comparator=change,
                       extra=_bits_box("x", "x_prime") + unit_box("s"),
                       declared={"a0": (DELTA_FLOOR, 1, ">= 1e-300 (log a0 is unbounded as a0 -> 0) and <= 1 (a "
                                                         "probability)")},
                       scales={"a0": LOG}, pointwise=("x", "x_prime"),
                       comparator_source="the Bernoulli log-likelihood difference over the truncated range",
                       scope="every pair of records and every p in [a0, 1 - a0]")


def _eq15_temperature(item: StatementLike) -> ProofProblem:
    """Foulds eqs. 14-15: one draw from the truncated beta-Bernoulli posterior at the claimed temperature T (the
    conclusion's ``temperature``) is eps-DP. claimed eps >= the log-ratio of the tempered posterior's density at
    one p (:func:`two_outcome_log_ratio`) with h_j = (x' - x) logit(p_j) / T, the change of the tempered
    Bernoulli log-likelihood at p_j when the record x becomes x' (x, x' in {0, 1}; the tempered prior cancels). The
    parameter is written through its logit: logit(p_j) = K t_j with K = log(1 - a0) - log(a0) = logit(1 - a0)
    and t_j in [-1, 1] (the logit is increasing and odd about 1/2, so this is every p_j in [a0, 1 - a0]); K is
    written here on its own, not read from the conclusion, and K / T is simplified symbolically (eps/2 for the
    conclusion's T) so that the tight corner cancels exactly. Any prior on [a0, 1 - a0] (a two-point one realises
    every (t_1, t_2, w)); the other parameter values enter only through one mean (the reduction of eq. 4)."""
    a0 = symbol_of(item, "a0")
    x, xp, t1, t2, w = _bit("x"), _bit("x_prime"), signed_symbol("t1"), signed_symbol("t2"), unit_symbol("w")
    K = sp.log(1 - a0) - sp.log(a0)
    per_logit = sp.simplify(K / item.conclusion["temperature"])  # K / T, with K's cancellation done symbolically
    log_ratio = two_outcome_log_ratio((xp - x) * per_logit * t1, (xp - x) * per_logit * t2, w)
    return problem_for(item, "temperature", claimed=symbol_of(item, "epsilon"), comparator=log_ratio,
                       extra=_bits_box("x", "x_prime") + signed_box("t1", "t2") + unit_box("w"),
                       declared={"epsilon": epsilon_ceiling(),
                                 "a0": (DELTA_FLOOR, 1, ">= 1e-300 (log a0 is unbounded as a0 -> 0) and <= 1 (a "
                                                        "probability)")},
                       scales={"a0": LOG}, pointwise=("x", "x_prime"), quantity="epsilon at the temperature",
                       comparator_source="the log-ratio of the tempered truncated beta-Bernoulli posterior's density "
                                         "at one p",
                       scope="every prior on [a0, 1 - a0] and every pair of neighbouring datasets")


# ---------------------------------------------------------------------------------------------- eqs. 16-17
def _eq16_sensitivity(item: StatementLike) -> ProofProblem:
    """Foulds eq. 17 for the beta-Bernoulli: claimed L1 sensitivity >= ||S(x') - S(x)||_1 with S(x) = (x, 1 - x),
    x, x' in {0, 1} (the other records' statistics cancel from the sums, eq. 17): each of the four pairs is a
    point, evaluated exactly."""
    x, xp = _bit("x"), _bit("x_prime")
    change = abs_max(xp - x) + abs_max((1 - xp) - (1 - x))
    return problem_for(item, "sensitivity", claimed=item.conclusion["sensitivity"], comparator=change,
                       extra=_bits_box("x", "x_prime"),
                       comparator_source="the L1 change of the sufficient statistics (n1, n0)",
                       scope="every pair of records")


def _eq16_epsilon(item: StatementLike) -> ProofProblem:
    """Foulds eq. 16: (n1, n0) + Laplace(b)^2 with the claimed scale b (the conclusion's ``scale``, 2/eps), then
    the projection (post-processing), is eps-DP. claimed epsilon >= the log-ratio of the two output densities,
    ``(|y_1 - d_1| - |y_1| + |y_0 - d_0| - |y_0|) / b``, with the counts' shift (d_1, d_0) = S(x') - S(x) for
    records x, x' in {0, 1} (computed, not assumed to be 2) and the outputs y_j = u_j in [-1, 1] around the first
    dataset's counts (for |y_j| >= 1 >= |d_j| each term is constant in y_j). The margin is divided by eps."""
    eps = symbol_of(item, "epsilon")
    x, xp, u1, u0 = _bit("x"), _bit("x_prime"), signed_symbol("u1"), signed_symbol("u0")
    loss = laplace_log_ratio([u1, u0], [xp - x, (1 - xp) - (1 - x)]) / item.conclusion["scale"]
    claimed = item.conclusion["epsilon"]
    return problem_for(item, "epsilon", claimed=claimed, comparator=loss,
                       margin=sp.simplify(claimed / eps) - sp.expand(loss / eps), scale=eps,
                       extra=_bits_box("x", "x_prime") + signed_box("u1", "u0"),
                       declared={"epsilon": epsilon_ceiling()}, pointwise=("x", "x_prime"),
                       comparator_source="the log-ratio of the two Laplace output densities of the noised counts",
                       scope="every output and every pair of neighbouring datasets (projection: post-processing)")


# ---------------------------------------------------------------------------------------------- Sec. 4 costs
def _pure_composition(total: sp.Expr, per_step: sp.Expr, k: sp.Expr) -> sp.Expr:
    """The optimal composition's delta of k pure per_step-DP mechanisms at ``total``
    (:func:`~dpverify.prove.comparators.optimal_composition_delta` with delta 0), with every exponent expanded so
    that an exactly additive total cancels symbolically (each term's exponent ``total - (k - 2l) per_step``
    becomes ``2 l per_step``, >= 0, where the enclosure of max(0, 1 - e^{.}) is exactly 0)."""
    expr = optimal_composition_delta(per_step, sp.S.Zero, k, total)
    return expr.replace(lambda e: isinstance(e, sp.exp), lambda e: sp.exp(sp.expand(e.args[0])))


def _sec4_pass(item: StatementLike) -> ProofProblem:
    """Foulds Sec. 4.1: a sequence-scan pass whose update l reads only x_l is 2 Delta-DP. Changing x_j changes only
    update j's kernel (2C-DP, Theorem 2 / eq. 19); every other update has the same kernel under X and X' given the
    state (0-DP). claimed delta 0 >= the optimal adaptive composition's delta of a 2C-DP and a 0-DP mechanism at
    the claimed epsilon_pass (the product of the two dominating pairs; Kairouz et al. 2015)."""
    C = symbol_of(item, "C")
    comparator = two_fold_composition_delta(2 * C, sp.S.Zero, sp.S.Zero, sp.S.Zero, item.conclusion["epsilon_pass"])
    return problem_for(item, "epsilon_pass", claimed=sp.S.Zero, comparator=comparator, quantity="delta at epsilon_pass",
                       declared={"C": scale_ceiling()},
                       comparator_source="the optimal composition of a 2C-DP and a 0-DP mechanism (Kairouz et al. "
                                         "2015)",
                       scope="one update per record (each theta_l tied to x_l only); the update's 2C is Theorem 2")


def _sec4_samples(item: StatementLike) -> ProofProblem:
    """Foulds Sec. 2.2: k posterior draws, each 2C-DP (Theorem 2), are (2kC, 0)-DP. claimed delta 0 >= the optimal
    k-fold composition's delta at the claimed epsilon_samples (Kairouz, Oh and Viswanath 2015, Thm 3.3, with
    per-step delta 0: exact for the composition of k pure 2C-DP mechanisms); each k on its own."""
    C, k = symbol_of(item, "C"), symbol_of(item, "k")
    comparator = _pure_composition(item.conclusion["epsilon_samples"], 2 * C, k)
    return problem_for(item, "epsilon_samples", claimed=sp.S.Zero, comparator=comparator,
                       quantity="delta at epsilon_samples",
                       declared={"C": scale_ceiling(),
                                 "k": count_ceiling(64, "the optimal composition sums over k; each k is proved on "
                                                        "its own")},
                       pointwise=("k",),
                       comparator_source="the optimal composition (Kairouz, Oh and Viswanath 2015, Thm 3.3)",
                       scope="k draws, each 2C-DP (Theorem 2)")


def _sec4_gibbs(item: StatementLike) -> ProofProblem:
    """Foulds Sec. 5: T Gibbs iterations of two eps-DP updates each are (2 T eps, 0)-DP. claimed delta 0 >= the
    optimal 2T-fold composition's delta at the claimed epsilon_gibbs (per-step delta 0); each T on its own, up to
    the paper's T = 200."""
    eps, T = symbol_of(item, "epsilon"), symbol_of(item, "T")
    comparator = _pure_composition(item.conclusion["epsilon_gibbs"], eps, 2 * T)
    return problem_for(item, "epsilon_gibbs", claimed=sp.S.Zero, comparator=comparator,
                       quantity="delta at epsilon_gibbs",
                       declared={"epsilon": epsilon_ceiling(),
                                 "T": count_ceiling(200, "the paper's 200 iterations; the optimal composition sums "
                                                         "over 2T updates, each T proved on its own")},
                       pointwise=("T",),
                       comparator_source="the optimal composition (Kairouz, Oh and Viswanath 2015, Thm 3.3)",
                       scope="2T updates, each eps-DP")


FORMS: tuple[ItemForm, ...] = (
    ItemForm("foulds2016.eq3_laplace_mechanism", (Part("epsilon", _eq3_laplace),)),
    ItemForm("foulds2016.eq4_exponential_mechanism", (Part("epsilon", _eq4_exponential),)),
    ItemForm("foulds2016.eq6_9_posterior_sensitivity", (Part("sensitivity", _eq9_sensitivity),
                                                        Part("epsilon", _eq6_power))),
    ItemForm("foulds2016.thm1_composition", (Part("delta", basic_composition_delta),)),
    ItemForm("foulds2016.thm2_posterior_2c", (Part("epsilon", lambda i: ops_two_point(i, symbol_of(i, "C"))),)),
    ItemForm("foulds2016.thm3_posterior_4b", (Part("epsilon", lambda i: ops_two_point(i, 2 * symbol_of(i, "B"))),)),
    ItemForm("foulds2016.eq10_temperature", (Part("epsilon", _eq10_temperature),)),
    ItemForm("foulds2016.eq13_expfam_sensitivity", (Part("sensitivity", _eq13_expfam),)),
    ItemForm("foulds2016.eq15_beta_bernoulli_truncated", (Part("sensitivity", _eq15_sensitivity),
                                                          Part("temperature", _eq15_temperature)),
             widen={"a0_below_half": {"a0": (None, 1)}}),
    ItemForm("foulds2016.eq16_laplace_sufficient_stats", (Part("sensitivity", _eq16_sensitivity),
                                                          Part("epsilon", _eq16_epsilon))),
    ItemForm("foulds2016.prop3_approx_sampling", (Part("delta", approx_sampling_delta),)),
    ItemForm("foulds2016.sec4_gibbs_costs", (Part("epsilon_pass", _sec4_pass), Part("epsilon_samples", _sec4_samples),
                                             Part("epsilon_gibbs", _sec4_gibbs))),
)
