"""Bound curves of the catalogue as matplotlib figures, for reports and notebooks.

``FIGURES`` maps a figure name to a builder returning ``(figure, caption)``. Every builder takes its
numbers from the catalogue modules (never re-typed formulas), labels its axes with units and says in
the caption what the reader should see.

Figures are plain :class:`matplotlib.figure.Figure` objects on an Agg canvas: nothing here touches
pyplot's global backend, so the builders work in a headless report run and inside Jupyter alike
(``fig.savefig(...)``; in a notebook ``display(fig)``).

- ``li2019_figure1`` -- Li et al. 2019, Figure 1: step-size bounds against epsilon, Theorem 3 (decreasing,
  first step) and Theorem 4 (fixed) vs Wang et al. 2015 as quoted (:func:`dpverify.theorems.li2019.experiments.figure1_data`);
- ``li2019_figure2`` -- Li et al. 2019, Figure 2: Theorem 3's bound for several N and L
  (:func:`dpverify.theorems.li2019.experiments.figure2_data`);
- ``bertazzi_ula_path_vs_final`` -- Bertazzi et al. 2025, Theorems 5.2 and 5.4: (epsilon, delta) of the ULA
  final state and of its whole path against the number of steps and the step size
  (:mod:`dpverify.theorems.bertazzi2025.formulas`), beside the exact values on a Gaussian target
  (the ``ula_final`` / ``ula_path`` samplers' closed-form ``exact_epsilon``);
- ``foulds_figure2`` -- Foulds et al. 2016, Figure 2: mean L1 error of one private draw against N
  (:func:`dpverify.theorems.foulds2016.fig2_l1_errors`);
- ``wang_alg2_noise_variance`` -- Wang et al. 2015, Algorithm 2 and the phase transition after Theorem 4: the
  DP-SGLD noise variance ``max{D eta^2, eta}`` against the step size (the theorem's conclusion, lambdified).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import sympy as sp
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from dpverify.audit.abilities import HasExactEpsilon
from dpverify.models.targets import GaussianTarget
from dpverify.samplers import registry as sampler_registry
from dpverify.theorems import registry
from dpverify.theorems.bertazzi2025.formulas import ula_final_epsilon, ula_path_epsilon
from dpverify.theorems.foulds2016 import FIG2_L1_ERROR, fig2_l1_errors
from dpverify.theorems.li2019.experiments import FIG1_SETTING, figure1_data, figure2_data

__all__ = [
    "FIGURES",
    "li2019_figure1",
    "li2019_figure2",
    "bertazzi_ula_path_vs_final",
    "foulds_figure2",
    "wang_alg2_noise_variance",
    "BERTAZZI_SETTING",
    "WANG_SETTING",
]


#: Every bound-curve figure is this many inches wide (the report shows them at one width, so their text has one
#: size); a figure of several panels stacks them, each :data:`PANEL_HEIGHT` inches tall.
FIGURE_WIDTH = 5.0
PANEL_HEIGHT = 3.8


def _figure(panels: int = 1):
    """A headless figure on the Agg canvas, :data:`FIGURE_WIDTH` wide, and its axes (a list when ``panels > 1``,
    stacked top to bottom)."""
    fig = Figure(figsize=(FIGURE_WIDTH, PANEL_HEIGHT * panels), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(panels, 1)
    return fig, (list(axes) if panels > 1 else axes)


# --- Li et al. 2019 ---------------------------------------------------------------------------------------------

def li2019_figure1():
    """Li et al. 2019, Figure 1 (N = 50,000, T = 10,000 iterations, L = 1, delta = 1e-5, eps in [0.02, 1.7]),
    Remark 1's closed form (q -> 0), from :func:`~dpverify.theorems.li2019.experiments.figure1_data`."""
    d = figure1_data()
    fig, ax = _figure()
    ax.semilogy(d["epsilon"], d["decreasing"], label="Li et al. Thm 3, decreasing (first step)")
    ax.semilogy(d["epsilon"], d["fixed"], label="Li et al. Thm 4, fixed step")
    ax.semilogy(d["epsilon"], d["wang"], label="Wang et al. 2015 (as quoted by Li et al.)")
    ax.set_xlabel("privacy loss epsilon (dimensionless, delta = 1e-5)")
    ax.set_ylabel("largest admissible step size eta (Li's units)")
    ax.set_title("Li et al. 2019, Figure 1: step-size bounds", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    at = int(np.argmin(np.abs(d["epsilon"] - 1.0)))
    caption = (
        f"Largest DP-SGLD step size against epsilon at N = {FIG1_SETTING['N']:,}, T = {FIG1_SETTING['T']:,} iterations, "
        f"L = {FIG1_SETTING['L']:g}, delta = {FIG1_SETTING['delta']:g} (Remark 1's closed form). Li et al.'s bounds lie "
        f"far above Wang et al.'s at every epsilon: the fixed-step bound by a factor "
        f"{float(np.min(d['fixed'] / d['wang'])):.0f} to {float(np.max(d['fixed'] / d['wang'])):.0f}, the decreasing "
        f"schedule's first step by a factor {float(np.min(d['decreasing'] / d['wang'])):.0f} to "
        f"{float(np.max(d['decreasing'] / d['wang'])):.0f} (at epsilon = {d['epsilon'][at]:.2g}: "
        f"{d['decreasing'][at]:.3g} decreasing, {d['fixed'][at]:.3g} fixed, {d['wang'][at]:.3g} Wang). The paper reads "
        "'10^-1 vs 10^-4'."
    )
    return fig, caption


def li2019_figure2():
    """Li et al. 2019, Figure 2 (delta = 1/N, T = N; left N in 1e3..1e6 at L = 1, right L in {0.1, 0.5, 1, 10} at
    N = 1e4), Theorem 3's first step, from :func:`~dpverify.theorems.li2019.experiments.figure2_data`."""
    d = figure2_data()
    fig, (left, right) = _figure(panels=2)
    for n, curve in d["by_N"].items():
        left.semilogy(d["epsilon"], curve, label=f"N = {n:.0e} (delta = 1/N, T = N)")
    for l, curve in d["by_L"].items():
        right.semilogy(d["epsilon"], curve, label=f"L = {l:g}")
    left.set_title("L = 1, varying N", fontsize=10)
    right.set_title("N = 1e4, varying clipping bound L", fontsize=10)
    for ax in (left, right):
        ax.set_xlabel("privacy loss epsilon (dimensionless)")
        ax.set_ylabel("largest first step size eta (Li's units)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    first, last = d["by_N"][min(d["by_N"])], d["by_N"][max(d["by_N"])]
    caption = (
        "Theorem 3's largest first step (decreasing schedule eta_t = eta t^(-1/3)) against epsilon. Left: the bound "
        f"grows slowly with N (from N = 1e3 to 1e6 by a factor {float(np.median(last / first)):.2g}, not 'stable' as "
        "the paper says: see the errata). Right: the curves are parallel on the log scale, a factor 100 apart per "
        "factor 10 in L -- the bound is exactly proportional to 1/L^2 (the paper says approximately 1/L)."
    )
    return fig, caption


# --- Bertazzi et al. 2025 ---------------------------------------------------------------------------------------

#: Gaussian target of the ULA figure: d = 1, |x| <= R = 1, unit likelihood and prior variances, N = 2 records
#: (so Assumption 5.1 gives m = M = 3, K = 2 and Assumption 5.3 K_path = 2); delta = 1e-5.
BERTAZZI_SETTING = {"N": 2, "R": 1.0, "delta": 1e-5, "h": 0.1, "k": 100}


def _ula_exact(kind: str, h: float, k: int) -> float:
    """Exact pair epsilon of ULA on the Gaussian target (the sampler's closed form) for the edge pair x = R vs -R."""
    s = BERTAZZI_SETTING
    sampler = sampler_registry.make(f"ula_{kind}", model=GaussianTarget(1, R=s["R"]), N=s["N"], step_size=h,
                                    n_steps=int(k), unguaranteed=True)
    D = np.array([[s["R"]], [s["R"]]])
    D2 = np.array([[s["R"]], [-s["R"]]])
    if not isinstance(sampler, HasExactEpsilon):
        raise TypeError(f"ula_{kind} has no exact_epsilon: the figure's exact curve needs it")
    value = sampler.exact_epsilon(D, D2, s["delta"])
    if value is None:
        raise ValueError(f"ula_{kind} gives no exact epsilon at h = {h}, k = {k}")
    return value


def bertazzi_ula_path_vs_final():
    """Bertazzi et al. 2025, Theorem 5.2 (final state, :func:`~dpverify.theorems.bertazzi2025.formulas.ula_final_epsilon`)
    and Theorem 5.4 (path, :func:`~dpverify.theorems.bertazzi2025.formulas.ula_path_epsilon`) on
    :data:`BERTAZZI_SETTING`, against the number of steps (left) and the step size at fixed steps (right), with the
    exact epsilons of the Gaussian target."""
    s = BERTAZZI_SETTING
    c = GaussianTarget(1, R=s["R"]).ula_constants(s["N"])
    delta, h0, k0 = s["delta"], s["h"], s["k"]
    ks = np.unique(np.round(np.geomspace(1, 3000, 40)).astype(int))
    hs = np.geomspace(1e-3, 0.9 * 2 * c["m"] / c["M"] ** 2, 30)
    path_bound = ula_path_epsilon(delta, c["K_path"], h0, ks)
    final_bound = ula_final_epsilon(delta, c["K"], c["M"], c["m"], h0, ks)
    path_exact = np.array([_ula_exact("path", h0, k) for k in ks])
    final_exact = np.array([_ula_exact("final", h0, k) for k in ks])
    fig, (left, right) = _figure(panels=2)
    left.loglog(ks, path_bound, color="tab:red", label="path bound (Thm 5.4)")
    left.loglog(ks, final_bound, color="tab:blue", label="final-state bound (Thm 5.2)")
    left.loglog(ks, path_exact, color="tab:red", ls=":", label="path, exact")
    left.loglog(ks, final_exact, color="tab:blue", ls=":", label="final state, exact")
    left.set_xlabel(f"number of ULA steps k (step size h = {h0:g})")
    right.loglog(hs, ula_path_epsilon(delta, c["K_path"], hs, k0), color="tab:red", label="path bound (Thm 5.4)")
    right.loglog(hs, ula_final_epsilon(delta, c["K"], c["M"], c["m"], hs), color="tab:blue",
                 label="final-state bound (Thm 5.2)")
    right.loglog(hs, [_ula_exact("path", h, k0) for h in hs], color="tab:red", ls=":", label="path, exact")
    right.loglog(hs, [_ula_exact("final", h, k0) for h in hs], color="tab:blue", ls=":", label="final state, exact")
    right.set_xlabel(f"step size h (k = {k0} steps; h < 2m/M^2 = {2 * c['m'] / c['M'] ** 2:.3g})")
    for ax in (left, right):
        ax.set_ylabel(f"epsilon at delta = {delta:g} (dimensionless)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Bertazzi et al. 2025: ULA, whole path vs final state", fontsize=10)
    cross = ks[np.argmax(path_bound > final_bound)]
    caption = (
        f"Privacy of ULA on a 1-d Gaussian target (N = {s['N']} records, |x| <= {s['R']:g}; m = M = {c['m']:g}, "
        f"K = {c['K']:g}, K_path = {c['K_path']:g}), replace-one pair x = R vs x = -R. Solid: the Girsanov bounds; "
        "dotted: the exact epsilon of the Gaussian laws. Left: the path bound grows linearly in the number of steps "
        f"and overtakes the step-free final-state bound ({final_bound[0]:.3g}) near k = {cross}; the exact path "
        f"epsilon follows the path bound closely (ratio {float(np.min(path_exact / path_bound)):.2f} to "
        f"{float(np.max(path_exact / path_bound)):.2f}), while the exact final-state epsilon levels off at "
        f"{final_exact[-1]:.3g}: releasing only the last iterate is far more private than releasing the chain, and "
        "the final-state bound, though uniform in k, is loose by a factor "
        f"{final_bound[-1] / final_exact[-1]:.0f} here. Right: at k = {k0} the final-state bound blows up as h "
        "approaches 2m/M^2 (the coupling radius diverges) while the path bound grows like h. Every bound lies above "
        "its exact value, as it must."
    )
    return fig, caption


# --- Foulds et al. 2016 -----------------------------------------------------------------------------------------

def foulds_figure2(repeats: int = 1000, seed: int = 0):
    """Foulds et al. 2016, Figure 2 (p = 0.1, a0 = 0.05, eps = 0.1): mean |draw - p| over ``repeats`` datasets per N,
    from :func:`~dpverify.theorems.foulds2016.fig2_l1_errors`."""
    ns = np.unique(np.round(np.geomspace(10, 100_000, 17)).astype(int))
    errs = [fig2_l1_errors(int(n), repeats, seed=seed + i) for i, n in enumerate(ns)]
    fig, ax = _figure()
    labels = {"ops": "OPS (exponential mechanism, truncated, tempered)", "laplace": "Laplace mechanism on the counts",
              "posterior": "non-private posterior draw"}
    for key, label in labels.items():
        mean = np.array([e[key].mean() for e in errs])
        se = np.array([e[key].std(ddof=1) / np.sqrt(repeats) for e in errs])
        ax.errorbar(ns, mean, yerr=2 * se, label=label, capsize=2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of observations N")
    ax.set_ylabel("mean L1 error |p_draw - p| (probability units)")
    ax.set_title("Foulds et al. 2016, Figure 2 (eps = 0.1)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    temperature = FIG2_L1_ERROR.evaluate().temperature
    ops = np.array([e["ops"].mean() for e in errs])
    lap = np.array([e["laplace"].mean() for e in errs])
    post = np.array([e["posterior"].mean() for e in errs])
    ops_wins = ns[ops < lap]
    where = (f"OPS has the smaller error only for N <= {ops_wins.max()}" if ops_wins.size
             else f"the Laplace draw has the smaller error at every N here, from N = {ns[0]} on")
    caption = (
        f"Mean L1 error of one private draw of a Bernoulli parameter (p = 0.1, eps = 0.1, OPS truncated at a0 = 0.05, "
        f"{repeats} datasets per N, error bars +-2 s.e.). {where[0].upper() + where[1:]} (the paper: OPS is better only for very "
        f"small N, about N = 10). At N = {ns[-1]:,} the Laplace error is {lap[-1] / post[-1]:.2f} times the non-private "
        f"posterior's, OPS's {ops[-1] / post[-1]:.2f} times (Foulds Theorems 4-5 predict 1 and "
        f"sqrt((1 + T)/2) = {np.sqrt((1 + temperature) / 2):.2f}, T = {temperature:.1f})."
    )
    return fig, caption


# --- Wang et al. 2015 -------------------------------------------------------------------------------------------

#: Setting of the Algorithm 2 figure (Wang et al. 2015 use N in the thousands, mini-batches of ~100).
WANG_SETTING = {"N": 10_000, "T": 10, "tau": 100, "L": 1.0, "epsilon": 1.0, "delta": 1e-5}


def wang_alg2_noise_variance():
    """Wang et al. 2015, Algorithm 2: noise variance ``max{D eta^2, eta}`` against the step size eta, and the
    switch point ``eta_switch`` (the catalogue's ``wang2015.alg2_dp_sgld`` conclusions, lambdified), at
    :data:`WANG_SETTING`."""
    thm = registry.get("wang2015.alg2_dp_sgld")
    s = WANG_SETTING
    eta = thm.symbols["eta"]
    subs = {thm.symbols[k]: v for k, v in s.items()}
    variance = sp.lambdify(eta, thm.conclusion["noise_variance"].subs(subs), "numpy")
    data_term = sp.lambdify(eta, thm.conclusion["data_term"].subs(subs), "numpy")
    switch = thm.evaluate(eta=1e-3, **s).eta_switch
    etas = np.geomspace(switch / 1e3, switch * 1e3, 200)
    fig, ax = _figure()
    ax.loglog(etas, np.broadcast_to(variance(etas), etas.shape), color="k", lw=2.5, label="Alg. 2 noise variance max{D eta^2, eta}")
    ax.loglog(etas, data_term(etas), ls="--", label="privacy term D eta^2")
    ax.loglog(etas, etas, ls=":", label="SGLD's own noise eta")
    ax.axvline(switch, color="tab:gray", lw=1)
    ax.annotate(f"eta_switch = {switch:.2g}", (switch, etas[-1] ** 0.5 * switch ** 0.5), fontsize=8, rotation=90,
                ha="right", va="center")
    ax.set_xlabel("step size eta_t (Wang's units)")
    ax.set_ylabel("variance of the injected Gaussian noise")
    ax.set_title("Wang et al. 2015, Algorithm 2: DP-SGLD noise", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    caption = (
        f"Noise variance of DP-SGLD (Wang et al. 2015, Alg. 2) against the step size at N = {s['N']:,}, T = {s['T']} "
        f"passes, tau = {s['tau']}, L = {s['L']:g}, epsilon = {s['epsilon']:g}, delta = {s['delta']:g}. Below "
        f"eta_switch = {switch:.2g} SGLD's own noise eta already exceeds what the Gaussian mechanism needs: privacy "
        "comes for free, which is the phase transition after Theorem 4 (a decreasing schedule crosses it and becomes "
        "plain SGLD). Above it the privacy term D eta^2 dominates and grows quadratically."
    )
    return fig, caption


FIGURES: dict[str, Callable] = {
    "Li et al. 2019, Figure 1": li2019_figure1,
    "Li et al. 2019, Figure 2": li2019_figure2,
    "Bertazzi et al. 2025: ULA path vs final state": bertazzi_ula_path_vs_final,
    "Foulds et al. 2016, Figure 2": foulds_figure2,
    "Wang et al. 2015, Algorithm 2 noise variance": wang_alg2_noise_variance,
}
