"""Foulds, Geumlek, Welling, Chaudhuri (UAI 2016): the theorem catalogue.

"On the Theory and Practice of Privacy-Preserving Bayesian Data Analysis". Every
``foulds2016.*`` item of :mod:`dpverify.theorems.catalogue` is a :class:`~dpverify.theorems.base.Theorem`
listed in :data:`THEOREMS` (catalogue order; the registry registers them under their IDs). The items live in helper modules by section:

- :mod:`dpverify.theorems.foulds2016.posterior` -- Sec. 2: eqs. 2-10, Theorems 1-3;
- :mod:`dpverify.theorems.foulds2016.expfam` -- Sec. 3: eqs. 13-17, Lemma 1, Theorems 4-5, Remark 1;
- :mod:`dpverify.theorems.foulds2016.gibbs` -- Sec. 4: Proposition 3, eqs. 18-20, Gibbs privacy costs;
- this module -- Table 1 and Figure 2 (the comparison of the two methods).

Usage::

    from dpverify.theorems import registry
    registry.get("foulds2016.eq15_beta_bernoulli_truncated").evaluate(a0=0.2, epsilon=1).temperature  # 2.7726
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy import stats

from dpverify.calculus.composition import basic_composition
from dpverify.calculus.guarantees import ApproxDP
from dpverify.calculus.mechanisms.laplace import laplace_scale
from dpverify.validation import check_epsilon, check_positive_int, check_probability, check_real
from dpverify.theorems import catalogue
from dpverify.theorems.foulds2016 import expfam, gibbs, posterior
from dpverify.theorems.base import Hypothesis, Theorem
from dpverify.theorems.foulds2016.common import SYMBOLS, link, source

__all__ = ["THEOREMS", "TABLE1_COMPARISON", "FIG2_L1_ERROR", "fig2_l1_errors"]

eps, a0, temperature, k = SYMBOLS["epsilon"], SYMBOLS["a0"], SYMBOLS["temperature"], SYMBOLS["k"]

# ----------------------------------------------------------------------------- Table 1
TABLE1_COMPARISON = Theorem(
    "foulds2016.table1_comparison",
    "Table 1: Laplace mechanism on statistics vs exponential mechanism (OPS)",
    source("Table 1", "Sec. 3"),
    "efficiency",
    symbols={"temperature": temperature, "epsilon": eps, "k": k},
    hypotheses=[Hypothesis("temperature_at_least_one", temperature >= 1, "OPS temperature (Theorem 5)")],
    conclusion={
        "are_laplace": 1,
        "are_exponential": 1 + temperature,
        "epsilon_gibbs_laplace": eps,
        "epsilon_gibbs_exponential": k * eps,
    },
    defaults={"k": 1},
    statement=(
        "Laplace: sensitivity sup ||sum_i S(x'_i) - sum_i S(x_i)||_1, statistics noised, releases statistics, "
        "ARE 1, pays the Gibbs privacy cost once. Exponential (OPS): sensitivity "
        "sup |theta^T (S(x') - S(x)) + log h(x') - log h(x)|, statistics rescaled (by 1/T), releases one sample, "
        "ARE 1 + T, pays the cost per Gibbs update (unless converged)."
    ),
    notes=(
        "The ARE column compares different releases: 1 is the Laplace posterior mean (Remark 1); one Laplace "
        "draw has ARE 2 (Theorem 4); 1 + T is one OPS draw (Theorem 5). `k` is the number of Gibbs updates, "
        "`epsilon` the cost of the Laplace release and of one exponential-mechanism update."
    ),
)


@TABLE1_COMPARISON.add_check("are_column_matches_theorems", "symbolic")
def _table1_are():
    """Foulds Table 1 ARE column = Remark 1 (Laplace mean, 1) and Theorem 5 (OPS draw, 1 + T); a Laplace draw
    (Theorem 4, 2) is still better than an OPS draw for every T > 1 (1 + T - 2 = T - 1 > 0)."""
    concl = TABLE1_COMPARISON.conclusion
    rem1 = expfam.REM1_ARE_MEAN.conclusion["are"]
    thm4 = expfam.THM4_ARE_LAPLACE.conclusion["are"]
    thm5 = expfam.THM5_ARE_EXPONENTIAL.conclusion["are"]
    ok = concl["are_laplace"] == rem1 and sp.simplify(concl["are_exponential"] - thm5) == 0
    ok = ok and sp.simplify(thm5 - thm4 - (temperature - 1)) == 0
    return ok, f"Laplace mean {rem1}, Laplace draw {thm4}, OPS draw {thm5}"


@TABLE1_COMPARISON.add_check("sensitivity_column_beta_bernoulli", "symbolic")
def _table1_sens():
    """Foulds Table 1 sensitivity column on the beta-Bernoulli: the Laplace row is 2 whatever the truncation
    (eq. 17), the exponential row is log((1 - a0)/a0) (eq. 15), unbounded as a0 -> 0; the two coincide at
    a0 = 1/(1 + e^2)."""
    l1 = expfam.EQ16_LAPLACE_STATS.conclusion["sensitivity"]
    expo = expfam.EQ15_BETA_BERNOULLI.conclusion["sensitivity"]
    equal_at = sp.solve(sp.Eq(expo, l1), a0)
    ok = sp.Integer(l1).free_symbols == set() and sp.limit(expo, a0, 0, "+") == sp.oo
    ok = ok and len(equal_at) == 1 and sp.simplify(equal_at[0] - 1 / (1 + sp.exp(2))) == 0
    return ok, f"Laplace {l1}; exponential {expo} -> oo as a0 -> 0; equal at a0 = {equal_at}"


@TABLE1_COMPARISON.add_check("gibbs_cost_column", "symbolic")
def _table1_cost():
    """Foulds Table 1 / Sec. 4.2: the Laplace cost does not depend on the number k of Gibbs updates (paid once),
    the exponential-mechanism cost is k eps by Theorem 1 (paid per update)."""
    concl = TABLE1_COMPARISON.conclusion
    thm1 = posterior.THM1_COMPOSITION
    e1, e2 = thm1.symbols["epsilon_1"], thm1.symbols["epsilon_2"]
    total = eps
    for _ in range(3):
        total = thm1.conclusion["epsilon"].subs({e1: total, e2: eps})
    ok = sp.diff(concl["epsilon_gibbs_laplace"], k) == 0
    ok = ok and sp.simplify(total - concl["epsilon_gibbs_exponential"].subs(k, 4)) == 0
    return ok, f"Laplace: {concl['epsilon_gibbs_laplace']}; exponential after 4 updates: {total}"


# ----------------------------------------------------------------------------- Figure 2
_FIG2_P = 0.1  # Foulds Fig. 2 caption: true p = 0.1, a0 = 0.05, eps = 0.1, 1000 repeats


def fig2_l1_errors(n_data: int, repeats: int, seed: int, p: float = _FIG2_P, a0_value: float = 0.05,
                   epsilon: float = 0.1) -> dict[str, np.ndarray]:
    """|draw - p| for one draw of each method on ``repeats`` Bernoulli(p) datasets of size N (Foulds Fig. 2).

    - ``ops``: the truncated tempered posterior, Beta(n1/T + 1, n0/T + 1) on [a0, 1 - a0], T = 2 log((1-a0)/a0)/eps
      (eqs. 14-15, uniform prior), drawn by inverse CDF;
    - ``laplace``: Beta(n1_hat + 1, n0_hat + 1), n_hat = max(0, n + Lap(2/eps)) (eqs. 16-17);
    - ``posterior``: the non-private Beta(n1 + 1, n0 + 1).
    The prior (uniform) and projection (clipping at 0) are our reading; the paper does not print them.
    """
    n_data, repeats = check_positive_int(n_data, "n_data"), check_positive_int(repeats, "repeats")
    p = check_probability(p, "p", open_low=True, open_high=True)
    a0_value = check_real("a0_value", a0_value, low=0.0, high=0.5, low_inclusive=False, high_inclusive=False)
    epsilon = check_epsilon(epsilon)
    rng = np.random.default_rng(seed)
    n1 = rng.binomial(n_data, p, repeats)
    n0 = n_data - n1
    t_value = 2 * np.log((1 - a0_value) / a0_value) / epsilon
    a, b = n1 / t_value + 1, n0 / t_value + 1
    lo, hi = stats.beta.cdf(a0_value, a, b), stats.beta.cdf(1 - a0_value, a, b)
    ops = stats.beta.ppf(lo + (hi - lo) * rng.uniform(size=repeats), a, b)
    n1_hat, n0_hat = expfam.noised_counts(n1, n0, epsilon, rng)
    laplace = rng.beta(n1_hat + 1, n0_hat + 1)
    posterior = rng.beta(n1 + 1, n0 + 1)
    return {name: np.abs(x - p) for name, x in (("ops", ops), ("laplace", laplace), ("posterior", posterior))}


FIG2_L1_ERROR = Theorem(
    "foulds2016.fig2_l1_error",
    "Figure 2: L1 error of private beta-Bernoulli draws vs N (p = 0.1, a0 = 0.05, eps = 0.1, 1000 repeats)",
    source("Figure 2", "Sec. 3.2"),
    "published_number",
    symbols={"a0": a0, "epsilon": eps},
    hypotheses=[Hypothesis("a0_below_half", a0 < sp.Rational(1, 2), "truncation level of eq. 15")],
    conclusion={
        "temperature": 2 * (-sp.log(a0) + sp.log(1 - a0)) / eps,
        "laplace_scale": 2 / eps,
    },
    defaults={"a0": 0.05, "epsilon": 0.1},
    statement=(
        "L1 error |p_tilde - p| of private approximate samples from a beta posterior, averaged over 1000 repeats, "
        "p = 0.1, OPS truncated at a0 = 0.05, eps = 0.1: the exponential mechanism is better only for very small N "
        "(about N = 10); the Laplace mechanism's error converges to that of the true posterior, while OPS behaves "
        "like the posterior with fewer than N observations."
    ),
    empirical=[
        link("laplace_posterior_beta_bernoulli", "Figure 2 Laplace curve"),
        link("ops_beta_bernoulli", "Figure 2 OPS curve (truncated, tempered)"),
    ],
    notes=(
        "At these settings OPS runs at T = 2 log 19 / 0.1 = 58.89 and the Laplace scale is 20. By Theorems 4-5 "
        "the large-N error ratios are sqrt((1 + T)/2) = 5.47 (OPS / posterior) and 1 (Laplace / posterior)."
    ),
)


@FIG2_L1_ERROR.add_check("fig2_settings", "numeric")
def _fig2_settings():
    """Foulds Fig. 2: T = 2 log(0.95/0.05)/0.1 = 58.889 and Laplace scale 2/0.1 = 20 at the defaults."""
    ev = FIG2_L1_ERROR.evaluate()
    ok = abs(ev.temperature - 20 * np.log(19)) < 1e-12 and ev.laplace_scale == 20.0
    return ok, f"T = {ev.temperature:.4f}, Laplace scale = {ev.laplace_scale}", 20 * np.log(19), ev.temperature


@FIG2_L1_ERROR.add_check("laplace_beats_ops_from_n_100", "numeric")
def _fig2_order():
    """Foulds Fig. 2 with its 1000 repeats: at N = 100 and 1000 the mean L1 error of the Laplace draw is below
    OPS's by more than 5 standard errors of the difference (s.e. from the 1000 repeats)."""
    lines, ok = [], True
    for n_data in (100, 1000):
        err = fig2_l1_errors(n_data, 1000, seed=n_data)
        diff = err["ops"] - err["laplace"]
        z = diff.mean() / (diff.std(ddof=1) / np.sqrt(diff.size))
        ok = ok and z > 5
        lines.append(f"N = {n_data}: OPS {err['ops'].mean():.4f}, Laplace {err['laplace'].mean():.4f} (z = {z:.1f})")
    return ok, "; ".join(lines)


@FIG2_L1_ERROR.add_check("large_n_error_ratios", "numeric")
def _fig2_ratios():
    """Foulds Fig. 2 at N = 10^5 (20000 repeats): mean error OPS / posterior = sqrt((1 + T)/2) = 5.47 (Theorem 5;
    E|draw - p| is proportional to the draw's s.d.) within 5%, Laplace / posterior = 1 within 6% (predicted
    1.02: the noise adds variance 2 * 20^2 (p^2 + (1-p)^2) / N^2 to 2p(1-p)/N). Tolerance: the mean |normal|
    has relative s.e. 0.755/sqrt(20000) = 0.0053, a ratio about 0.0075; 5% is 6.6 s.e. The truncation at
    0.05 is 7 OPS s.d. from p at this N."""
    err = fig2_l1_errors(100_000, 20_000, seed=2)
    t_value = FIG2_L1_ERROR.evaluate().temperature
    want_ops = np.sqrt((1 + t_value) / 2)
    ops_ratio = err["ops"].mean() / err["posterior"].mean()
    lap_ratio = err["laplace"].mean() / err["posterior"].mean()
    ok = abs(ops_ratio / want_ops - 1) < 0.05 and abs(lap_ratio - 1) < 0.06
    return ok, f"OPS/posterior {ops_ratio:.3f} (Thm 5: {want_ops:.3f}); Laplace/posterior {lap_ratio:.3f}", want_ops, ops_ratio


def _fig2_cases():
    out = []
    for a, e in ((0.05, 0.1), (0.2, 1.3)):
        c_value = expfam._grid_sensitivity(a)  # eq. 15's sensitivity as a grid supremum
        out.append(({"a0": a, "epsilon": e}, {"temperature": 2 * c_value / e, "laplace_scale": laplace_scale(2.0, e)}))
    return out


FIG2_L1_ERROR.add_pin(
    "pin_settings_from_their_items",
    "temperature = 2 x (eq. 15's sensitivity as a grid supremum)/eps and the Laplace scale of dpverify.calculus.mechanisms.laplace "
    "with L1 sensitivity 2, at the figure's setting and another; rel 1e-12",
    _fig2_cases, rel=1e-12)


def _table1_cases():
    out = []
    for t_value, e_val, kk in ((2.5, 0.7, 4), (58.9, 0.1, 30)):
        rem1 = expfam.REM1_ARE_MEAN.evaluate().are  # Remark 1 (its own checks pin it)
        thm5 = expfam.THM5_ARE_EXPONENTIAL.evaluate(temperature=t_value).are
        out.append(({"temperature": t_value, "epsilon": e_val, "k": kk}, {
            "are_laplace": rem1,
            "are_exponential": thm5,
            "epsilon_gibbs_laplace": basic_composition([ApproxDP(e_val, 0.0)]).epsilon,  # one release; Gibbs post-processes
            "epsilon_gibbs_exponential": basic_composition([ApproxDP(e_val, 0.0)] * kk).epsilon,  # paid per update
        }))
    return out


TABLE1_COMPARISON.add_pin(
    "pin_rows_from_their_items",
    "the ARE column against Remark 1 and Theorem 5 evaluated, the Gibbs costs by dpverify.calculus.composition.basic_composition "
    "of one release (Laplace, then post-processing) and of k updates (exponential mechanism); rel 1e-12",
    _table1_cases, rel=1e-12)


#: Every foulds2016 item, in catalogue order (the registry registers them: :mod:`dpverify.theorems.registry`).
THEOREMS = catalogue.in_order(posterior.THEOREMS + expfam.THEOREMS + gibbs.THEOREMS + (TABLE1_COMPARISON, FIG2_L1_ERROR))
