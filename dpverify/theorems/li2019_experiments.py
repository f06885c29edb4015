"""Li et al. 2019, Section 4: Figures 1 and 2 (step-size bounds as data), Table 1 (MNIST/SVHN privacy
claims) and the logistic-regression claim of Sec. 4.2, recomputed.

The figure data use the closed forms of :mod:`dpverify.theorems.li2019_bounds` (Theorem 3 first step,
Theorem 4, Wang et al. as quoted); Table 1 and the logistic-regression claim use the exact moments
accountant (Algorithm 1's noise multiplier ``sigma = tau / (L sqrt(N eta))``; see
:mod:`dpverify.theorems.li2019_common`).
"""
from __future__ import annotations

import functools
import math

import numpy as np
import sympy as sp

from dpverify._validation import check_finite_array
from dpverify.theorems.base import Erratum, Theorem
from dpverify.theorems.li2019_bounds import (
    eta_max_exact,
    eta_max_lemma2,
    epsilon_exact,
    harmonic_third_float,
    k_max_float,
    wang_eta_max,
)
from dpverify.theorems.li2019_common import noise_multiplier_sq, source, symbols
from dpverify.theorems.li2019_stepsize import thm3, thm4
from dpverify.theorems.registry import register

__all__ = [
    "FIG1_SETTING",
    "FIG2_N",
    "FIG2_L",
    "TABLE1",
    "LOGREG",
    "figure1_data",
    "figure2_data",
    "table1_numbers",
    "logreg_numbers",
]

#: Figure 1 (Sec. 4.1): N = 50,000, T = 10,000, L = 1, delta = 1e-5, eps from 0.02 to 1.7.
FIG1_SETTING = {"N": 50_000, "T": 10_000, "L": 1.0, "delta": 1e-5}
#: Figure 2: N in 1e3..1e6 with L = 1, and L in {0.1, 0.5, 1, 10} with N = 1e4; delta = 1/N, T = N.
FIG2_N = (1_000, 10_000, 100_000, 1_000_000)
FIG2_L = (0.1, 0.5, 1.0, 10.0)


def _eps_grid(epsilon) -> np.ndarray:
    if epsilon is None:
        return np.linspace(0.02, 1.7, 85)
    e = check_finite_array(epsilon, "epsilon").reshape(-1)
    if np.any(e <= 0):
        raise ValueError("epsilon must be > 0 everywhere")
    return e


def _closed_form_curve(eps: np.ndarray, N: int, T: int, L: float, delta: float, q: float, schedule: str) -> np.ndarray:
    """``(1-q) N K(eps, log 1/delta) / (L^2 H)`` on an epsilon grid (vectorised :func:`eta_max_lemma2`)."""
    H = harmonic_third_float(T) if schedule == "decreasing" else float(T)
    return (1 - q) * N * k_max_float(eps, delta) / (L**2 * H)


def figure1_data(epsilon=None, q: float = 0.0) -> dict[str, np.ndarray]:
    """Li et al. 2019, Figure 1: step-size upper bounds against eps at N = 50,000, T = 10,000, L = 1,
    delta = 1e-5. Returns arrays ``epsilon`` (default 85 points in [0.02, 1.7]), ``decreasing`` (Theorem 3,
    first step), ``fixed`` (Theorem 4) and ``wang`` (the quoted Wang et al. bound). ``q = 0`` uses Remark 1's
    approximation; ``q > 0`` Lemma 2's leading term."""
    eps = _eps_grid(epsilon)
    s = FIG1_SETTING
    eta_max_lemma2(s["N"], s["T"], s["L"], float(eps[0]), s["delta"], q)  # validates q and the setting
    wang = eps**2 * wang_eta_max(s["N"], s["T"], s["L"], 1.0, s["delta"])  # the quoted bound is eps^2 times a constant
    return {
        "epsilon": eps,
        "decreasing": _closed_form_curve(eps, s["N"], s["T"], s["L"], s["delta"], q, "decreasing"),
        "fixed": _closed_form_curve(eps, s["N"], s["T"], s["L"], s["delta"], q, "fixed"),
        "wang": wang,
    }


def figure2_data(epsilon=None, schedule: str = "decreasing") -> dict:
    """Li et al. 2019, Figure 2: the Theorem 3 (first step; ``schedule="fixed"``: Theorem 4) bound against
    eps with delta = 1/N and T = N, for N in :data:`FIG2_N` at L = 1 (``by_N``) and for L in :data:`FIG2_L`
    at N = 1e4 (``by_L``). Returns ``{"epsilon": grid, "by_N": {N: array}, "by_L": {L: array}}``
    (Remark 1's closed form)."""
    eps = _eps_grid(epsilon)
    if schedule not in ("decreasing", "fixed"):
        raise ValueError(f"schedule must be 'decreasing' or 'fixed'; got {schedule!r}")
    by_N = {n: _closed_form_curve(eps, n, n, 1.0, 1.0 / n, 0.0, schedule) for n in FIG2_N}
    by_L = {l: _closed_form_curve(eps, 10_000, 10_000, l, 1e-4, 0.0, schedule) for l in FIG2_L}
    return {"epsilon": eps, "by_N": by_N, "by_L": by_L}


# ---------------------------------------------------------------------------------------------
# Figure 1
# ---------------------------------------------------------------------------------------------
S = symbols("N", "T", "L", "epsilon", "delta", "q", "eta", "tau")
N, T, L, eps, delta, q, eta, tau = (S[n] for n in ("N", "T", "L", "epsilon", "delta", "q", "eta", "tau"))

fig1 = Theorem(
    "li2019.fig1_stepsize_curves",
    "Figure 1: step-size bounds vs eps (fixed, decreasing, Wang)",
    source("Figure 1 (left)", "Sec. 4.1"),
    "published_number",
    symbols=symbols("N", "T", "L", "epsilon", "delta", "q"),
    conclusion={"decreasing": thm3.conclusion["eta_max"], "fixed": thm4.conclusion["eta_max"]},
    defaults={**FIG1_SETTING, "q": 128 / 50_000},
    statement=(
        "Upper bounds on the step size as eps goes from 0.02 to 1.7 (N = 50,000, T = 10,000, L = 1, delta = 1e-5): "
        "ours (fixed; decreasing, first step) are much larger than Wang et al.'s, 'e.g. 10^-1 vs 10^-4'. Data: "
        "dpverify.theorems.li2019.figure1_data()."
    ),
)


@fig1.add_check("shape_and_monotonicity", "numeric", "three positive curves on the eps grid, each increasing in eps")
def _():
    d = figure1_data()
    curves = [d[k] for k in ("decreasing", "fixed", "wang")]
    ok = all(c.shape == d["epsilon"].shape and np.all(np.isfinite(c)) and np.all(c > 0) and np.all(np.diff(c) > 0) for c in curves)
    return ok, f"{len(d['epsilon'])} points in [{d['epsilon'][0]}, {d['epsilon'][-1]}], all increasing"


@fig1.add_check("ordering", "numeric", "Wang < fixed < decreasing (first step) at every eps, as the figure shows")
def _():
    d = figure1_data()
    ok = bool(np.all(d["wang"] < d["fixed"]) and np.all(d["fixed"] < d["decreasing"]))
    ratio = d["fixed"] / d["wang"]
    return ok, f"fixed/Wang ratio in [{ratio.min():.3g}, {ratio.max():.3g}]; decreasing/fixed = {float(d['decreasing'][0] / d['fixed'][0]):.4g}"


@fig1.add_check("1e-1_vs_1e-4", "numeric",
                "where Wang's bound is 1e-4 (eps ~ 0.82), ours is of order 1e-1: fixed within a factor 3 of 0.1")
def _():
    s = FIG1_SETTING
    e = math.sqrt(1e-4 / wang_eta_max(s["N"], s["T"], s["L"], 1.0, s["delta"]))  # Wang's bound is eps^2 * const
    d = figure1_data(np.array([e]))
    ok = 0.1 / 3 <= d["fixed"][0] <= 0.3 and math.isclose(d["wang"][0], 1e-4, rel_tol=1e-9)
    return ok, f"at eps = {e:.4g}: Wang {d['wang'][0]:.3g}, fixed {d['fixed'][0]:.3g}, decreasing {d['decreasing'][0]:.3g}", 0.1, d["fixed"][0]


@fig1.add_check("sympy_agrees", "numeric", "the figure data equal the Theorem 3/4 conclusions evaluated with sympy")
def _():
    d = figure1_data(np.array([0.1, 1.0]), q=fig1.defaults["q"])
    worst = 0.0
    for i, e in enumerate(d["epsilon"]):
        ev = fig1.evaluate(epsilon=float(e))
        worst = max(worst, abs(ev["decreasing"] / d["decreasing"][i] - 1), abs(ev["fixed"] / d["fixed"][i] - 1))
    return worst < 1e-12, f"max relative difference {worst:.2e}", 0.0, worst


register(fig1)

# ---------------------------------------------------------------------------------------------
# Figure 2
# ---------------------------------------------------------------------------------------------
fig2 = Theorem(
    "li2019.fig2_stepsize_sensitivity",
    "Figure 2: bound vs eps for N in 1e3..1e6 and L in {0.1, 0.5, 1, 10}",
    source("Figure 2 (Figure 1 right)", "Sec. 4.1"),
    "published_number",
    symbols=symbols("N", "T", "L", "epsilon", "delta", "q"),
    conclusion={"decreasing": thm3.conclusion["eta_max"]},
    statement=(
        "With delta = 1/N and T = N the bound is 'stable in terms of the data size N' and 'approximately proportional "
        "to 1/L'; practical step sizes fall in (1e-4, 0.1). Data: dpverify.theorems.li2019.figure2_data()."
    ),
)


@fig2.add_check("inverse_square_in_L", "symbolic",
                "Alg. 1's noise multiplier depends on eta and L only through eta L^2, so every accountant's bound is "
                "exactly proportional to 1/L^2 (the paper: approximately 1/L); the data agree")
def _():
    sig_sq = noise_multiplier_sq(N, q, eta, L)
    u = sp.Symbol("u", positive=True)  # u = eta L^2
    only_product = sp.simplify(sig_sq.subs(eta, u / L**2)).free_symbols.isdisjoint({L})
    d = figure2_data()
    curves = d["by_L"]
    worst = max(float(np.max(np.abs(curves[l] * l**2 / curves[1.0] - 1))) for l in FIG2_L)
    return only_product and worst < 1e-12, f"sigma^2 in terms of u = eta L^2: {sp.simplify(sig_sq.subs(eta, u / L**2))}; max deviation from 1/L^2 scaling {worst:.1e}"


@fig2.add_check("growth_in_N", "numeric",
                "the bound is not stable in N: from N = 1e3 to 1e6 it grows about 5-fold (~ N^{1/3}/log N), at every eps")
def _():
    d = figure2_data()
    ratio = d["by_N"][1_000_000] / d["by_N"][1_000]
    approx = (1e6 / 1e3) ** (1 / 3) * math.log(1e3) / math.log(1e6)
    ok = bool(np.all(ratio > 3) and np.all(ratio < 8)) and all(
        np.all(d["by_N"][b] > d["by_N"][a]) for a, b in zip(FIG2_N, FIG2_N[1:]))
    return ok, f"eta(N=1e6)/eta(N=1e3) in [{ratio.min():.3g}, {ratio.max():.3g}] (asymptotic N^(1/3)/log N ratio {approx:.3g})", None, float(ratio.mean())


@fig2.add_check("practical_range", "numeric",
                "at L = 1 the bounds over eps in [0.02, 1.7] span the paper's (1e-4, 0.1) only partly: report the range")
def _():
    d = figure2_data()
    lo = min(float(c.min()) for c in d["by_N"].values())
    hi = max(float(c.max()) for c in d["by_N"].values())
    e01 = figure2_data(np.array([0.1]))
    at01 = {n: float(c[0]) for n, c in e01["by_N"].items()}
    ok = lo < 1e-4 < hi and all(1e-4 < v < 1 for v in at01.values())
    return ok, f"L = 1 curves span [{lo:.3g}, {hi:.3g}]; at eps = 0.1: {at01}", None, (lo, hi)


fig2.errata += [
    Erratum("The step-size bound of Theorem 3 (and of any accountant) is exactly proportional to 1/L^2, since "
            "Algorithm 1's noise multiplier is tau/(L sqrt(N eta)).",
            "approximately proportional to 1/L", "exactly proportional to 1/L^2", check="inverse_square_in_L"),
    Erratum("With delta = 1/N and T = N the closed-form bound grows with N (about 5x from N = 1e3 to 1e6).",
            "stable in terms of the data size N", "grows like N^{1/3}/log N", check="growth_in_N"),
]
register(fig2)

# ---------------------------------------------------------------------------------------------
# Table 1
# ---------------------------------------------------------------------------------------------
#: Table 1 settings. MNIST: N = 60,000, batch 128, 20 epochs, eta = 0.3, L = 0.3, claimed (0.99, 1e-5).
#: SVHN: eta = 0.1, L = 5, claimed (2.97, 1e-6); batch and epochs are not stated -- dpverify assumes
#: MNIST's (128, 20 epochs) and N = 73,257 (the SVHN training split).
TABLE1 = {
    "MNIST": {"N": 60_000, "tau": 128, "epochs": 20, "eta": 0.3, "L": 0.3, "epsilon": 0.99, "delta": 1e-5},
    "SVHN": {"N": 73_257, "tau": 128, "epochs": 20, "eta": 0.1, "L": 5.0, "epsilon": 2.97, "delta": 1e-6},
}
#: Smallest SVHN batch (N = 73,257, 20 epochs) for which the moments accountant gives eps <= 2.97.
SVHN_BATCH_FOR_CLAIM = 414


def _table_epsilon(row: dict, tau_value: int, conversion: str = "moments") -> float:
    T_it = row["epochs"] * row["N"] // tau_value
    return epsilon_exact(row["N"], T_it, row["L"], row["delta"], tau_value / row["N"], row["eta"], "fixed", conversion)


@functools.cache
def table1_numbers() -> dict[str, dict[str, float]]:
    """Li et al. 2019, Table 1, recomputed: for each data set the noise multiplier
    ``sigma = tau/(L sqrt(N eta))`` (Algorithm 1), the iterations ``epochs N / tau``, and eps at the claimed
    delta by the moments accountant (exact log moments) and by Balle et al. 2020's RDP conversion."""
    out = {}
    for name, row in TABLE1.items():
        out[name] = {
            "claimed_epsilon": row["epsilon"],
            "sigma": row["tau"] / (row["L"] * math.sqrt(row["N"] * row["eta"])),
            "iterations": row["epochs"] * row["N"] // row["tau"],
            "epsilon_moments": _table_epsilon(row, row["tau"]),
            "epsilon_balle2020": _table_epsilon(row, row["tau"], "balle2020"),
        }
    return out


table1 = Theorem(
    "li2019.table1_claims",
    "Table 1: MNIST (0.99, 1e-5) and SVHN (2.97, 1e-6) for plain SGLD",
    source("Table 1, Sec. 4.3", "Sec. 4.3"),
    "published_number",
    symbols=symbols("tau", "L", "N", "eta"),
    conclusion={"sigma": tau / (L * sp.sqrt(N * eta))},
    statement=(
        "MNIST: SGLD with eta = 0.3, batch 128, 20 epochs, L = 0.3 is (0.99, 1e-5)-DP; SVHN: eta = 0.1, L = 5 is "
        "(2.97, 1e-6)-DP. Algorithm 1's noise N(0, eta/N) on the step (eta/tau) sum of clipped gradients is a sampled "
        "Gaussian mechanism with noise multiplier sigma = tau/(L sqrt(N eta)) (the conclusion)."
    ),
    notes=(
        "dp-accounting 0.6 PLD (discretisation 1e-4) gives eps = 0.2205 for MNIST (sigma = 3.180, q = 128/60,000, "
        "9,375 steps, delta = 1e-5). With replace-one adjacency (sensitivity 2L, Def. 1) the moments accountant "
        "gives 0.720 for MNIST, still below 0.99. SVHN with N = 604,388 (train + extra) needs batch 948."
    ),
)


@table1.add_check("mnist_0.99", "numeric",
                  "MNIST: eps at delta = 1e-5 by the exact accountant vs the claimed 0.99 (the claim holds if ours <= 0.99)")
def _():
    r = table1_numbers()["MNIST"]
    consistent = r["epsilon_balle2020"] <= r["epsilon_moments"] and abs(r["sigma"] - 3.1802) < 1e-4 and r["iterations"] == 9375
    holds = r["epsilon_moments"] <= 0.99
    return consistent and holds, (
        f"sigma = {r['sigma']:.4f}, {r['iterations']} iterations, q = 128/60000: eps = {r['epsilon_moments']:.4g} "
        f"(moments accountant), {r['epsilon_balle2020']:.4g} (Balle et al. 2020) <= claimed 0.99: the claim is valid "
        "but not tight; the number 0.99 is not reproduced"), 0.99, r["epsilon_moments"]


@table1.add_check("svhn_2.97", "numeric",
                  "SVHN (assumed batch 128, 20 epochs, N = 73,257): eps vs the claimed 2.97; the smallest batch that "
                  "makes the claim hold is 414")
def _():
    r = table1_numbers()["SVHN"]
    row = TABLE1["SVHN"]
    at, below = _table_epsilon(row, SVHN_BATCH_FOR_CLAIM), _table_epsilon(row, SVHN_BATCH_FOR_CLAIM - 1)
    consistent = r["epsilon_balle2020"] <= r["epsilon_moments"] and at <= 2.97 < below
    documented = any(f"{r['epsilon_moments']:.4g}" in e.corrected for e in table1.errata)
    return consistent and documented, (
        f"sigma = {r['sigma']:.4f}: eps = {r['epsilon_moments']:.4g} (moments), {r['epsilon_balle2020']:.4g} (Balle) "
        f">> 2.97; batch {SVHN_BATCH_FOR_CLAIM} gives {at:.4g}, batch {SVHN_BATCH_FOR_CLAIM - 1} gives {below:.4g}. "
        f"Erratum documented: {documented}"), 2.97, r["epsilon_moments"]


table1.errata.append(Erratum(
    "SVHN: with eta = 0.1, L = 5 and MNIST's batch 128 / 20 epochs (N = 73,257), Algorithm 1's noise multiplier is "
    "0.299 and the exact moments accountant gives eps in the thousands at delta = 1e-6; the claim needs a batch of "
    "at least 414 (948 with N = 604,388).",
    "(2.97, 1e-6)",
    "eps = 2275 at delta = 1e-6 (batch 128, 20 epochs, N = 73,257)",
    check="svhn_2.97",
))
register(table1)

# ---------------------------------------------------------------------------------------------
# Logistic regression claim (Sec. 4.2)
# ---------------------------------------------------------------------------------------------
#: Sec. 4.2: Adult (N = 32,561 training records), delta = 1e-4, eps ~ 0.08. Not stated in the paper and
#: chosen by dpverify: L = 1, batch 100, 10 epochs (T = 3,256 iterations), a fixed step.
LOGREG = {"N": 32_561, "tau": 100, "T": 3_256, "L": 1.0, "epsilon": 0.08, "delta": 1e-4}


@functools.cache
def logreg_numbers() -> dict[str, float]:
    """Largest plain-SGLD step making Algorithm 1 (0.08, 1e-4)-DP in the :data:`LOGREG` setting: Theorem 4 (Lemma 2
    closed form), Theorem 3 (first step), and the exact moments accountant (fixed step)."""
    s = LOGREG
    qv = s["tau"] / s["N"]
    base = dict(N=s["N"], T=s["T"], L=s["L"], epsilon=s["epsilon"], delta=s["delta"], q=qv)
    return {
        "fixed_lemma2": eta_max_lemma2(**base, schedule="fixed"),
        "decreasing_lemma2": eta_max_lemma2(**base, schedule="decreasing"),
        "fixed_exact": eta_max_exact(**base, schedule="fixed"),
    }


logreg = Theorem(
    "li2019.logreg_claim",
    "Sec. 4.2: at eps ~ 0.08 (delta = 1e-4) DP-SGLD is standard SGLD (Adult)",
    source("Sec. 4.2, Figure 3", "Sec. 4.2"),
    "published_number",
    symbols=symbols("N", "T", "L", "epsilon", "delta", "q"),
    conclusion={"eta_max": thm4.conclusion["eta_max"]},
    defaults={"N": LOGREG["N"], "T": LOGREG["T"], "L": LOGREG["L"], "epsilon": LOGREG["epsilon"],
              "delta": LOGREG["delta"], "q": LOGREG["tau"] / LOGREG["N"]},
    statement=(
        "'When eps ~ 0.08 or above, our DP-SGLD becomes the standard SGLD' (Adult, delta = 1e-4). The paper gives "
        "no step size, batch, L or T. It is true, e.g., for L = 1, batch 100, 10 epochs (3,256 iterations) and any "
        "fixed step eta <= 1.73e-3 (Theorem 4 with all hypotheses met), or eta <= 3.2e-3 by the exact accountant."
    ),
)


@logreg.add_check("claim_under_theorem4", "numeric",
                  "at eta = 1.7e-3 (batch 100, 3,256 iterations, L = 1) every hypothesis of Theorem 4 holds at (0.08, 1e-4)")
def _():
    s = LOGREG
    ev = thm4.evaluate(N=s["N"], T=s["T"], L=s["L"], q=s["tau"] / s["N"], epsilon=s["epsilon"], delta=s["delta"], eta=1.7e-3)
    nums = logreg_numbers()
    ok = ev.guaranteed and math.isclose(ev.eta_max, nums["fixed_lemma2"], rel_tol=1e-12) and 1.7e-3 < nums["fixed_lemma2"]
    return ok, (f"Theorem 4: eta_max = {nums['fixed_lemma2']:.4g} (decreasing schedule, first step: "
                f"{nums['decreasing_lemma2']:.4g}); hypotheses at 1.7e-3: {ev.hypotheses}"), None, nums["fixed_lemma2"]


@logreg.add_check("claim_under_exact_accountant", "numeric",
                  "the exact moments accountant at eta = 1.7e-3 gives eps <= 0.08, and allows a larger step")
def _():
    s = LOGREG
    e = epsilon_exact(s["N"], s["T"], s["L"], s["delta"], s["tau"] / s["N"], 1.7e-3, "fixed")
    nums = logreg_numbers()
    ok = e <= s["epsilon"] and nums["fixed_exact"] >= nums["fixed_lemma2"]
    return ok, f"eps(eta = 1.7e-3) = {e:.4g}; exact eta_max = {nums['fixed_exact']:.4g}", s["epsilon"], e


register(logreg)
