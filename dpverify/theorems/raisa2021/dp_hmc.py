"""Räisä, Koskela & Honkela 2021: the privacy of DP-penalty and DP-HMC as composed Gaussian mechanisms.

O. Räisä, A. Koskela, A. Honkela, "Differentially Private Hamiltonian Monte Carlo", arXiv:2106.09376 (2021).

**The algorithms.** DP-penalty (Yildirim & Ermis 2019, :mod:`dpverify.theorems.yildirim2019.penalty`) with the noise
of each acceptance test set to ``tau_l sqrt(N)`` times the clipped ratio's sensitivity ``2 b d``; DP-HMC: an HMC
chain whose ``L`` leapfrog steps use noisy gradients (per-record gradients clipped to norm ``L_c``, their sum plus
``N(0, (2 tau_g sqrt(N) L_c)^2 I)``), and whose acceptance test is the penalty test on the clipped log-likelihood
ratio (plus the data-independent kinetic-energy difference). One iteration evaluates ``L + 1`` noisy gradients and
one noisy ratio.

**What the encoding rests on (read this).** Read: the arXiv abstract and introduction (ar5iv HTML of 2106.09376),
the workshop abstracts (TPDP 2021, PriML 2021) and the authors' public code DPBayes/DP-HMC-experiments (commit
ff8b828e8fc150ee59a3a271ef33dd75dd17bfe5): ``dp_penalty.py`` (``zcdp_iters``, ``adp_delta``, ``adp_iters``, the
noise std ``tau sqrt(n) d 2 r_clip``) and ``hmc.py`` (the same for DP-HMC with ``rho_l = 1/(2 tau^2 n)``, ``rho_g =
1/(2 tau_g^2 n)``, ``k (L + 1)`` gradient evaluations, the gradient noise std ``2 tau_g sqrt(n) grad_clip``). The
paper's privacy theorems themselves (their numbering, their exact wording) were not readable beyond the
introduction: the items state what the code computes, which is what the paper's experiments used, and every item is
``reconstructed=True`` (confidence R-med: the formulas are the code's, the attribution to theorem numbers is not
confirmed). The paper's main contribution -- correctness (invariance of the posterior) and ergodicity of DP-HMC -- is
a convergence statement, not encoded here.

Items:

- ``raisa2021.thm_dp_penalty_privacy`` -- ``k`` DP-penalty steps: ``mu = sqrt(k)/(tau_l sqrt(N))``-GDP, ``rho =
  k/(2 tau_l^2 N)``-zCDP, tight ``delta(epsilon)`` (the code's ``adp_delta``);
- ``raisa2021.lem_gradient_sensitivity`` -- the clipped gradient sum has replace-one sensitivity ``2 L_c``; with
  noise ``2 tau_g sqrt(N) L_c`` one gradient release is ``1/(tau_g sqrt(N))``-GDP;
- ``raisa2021.thm_dp_hmc_privacy`` -- ``k`` DP-HMC iterations: ``rho = k/(2 tau_l^2 N) + k (L + 1)/(2 tau_g^2 N)``,
  ``mu = sqrt(2 rho)``-GDP, tight ``delta(epsilon)`` (the code's ``hmc.adp_delta``).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import sympy as sp

from dpverify.calculus.accounting.pld import PldAccountant
from dpverify.calculus.mechanisms.gaussian import gaussian_delta
from dpverify.calculus.penalty import hmc_mu, max_iterations, penalty_mu
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Hypothesis, Source, Theorem
from dpverify.theorems.yildirim2019.penalty import COR_COMPOSITION, LEM_SENSITIVITY, THM_STEP

__all__ = ["THEOREMS", "THM_PENALTY", "LEM_GRADIENT", "THM_HMC", "CODE_EXPERIMENTS", "code_iterations"]

tau_l, tau_g, n_leap, N, k, eps, clip = (sy.entry(n).symbol for n in ("tau_ratio", "tau_grad", "leapfrog_steps", "N",
                                                                        "k", "epsilon", "L"))

_NOTE = ("the privacy theorems of the paper were not readable beyond its introduction: encoded from the authors' code "
         "DPBayes/DP-HMC-experiments (dp_penalty.py, hmc.py); see the module docstring")


def _phi(x):
    """The standard normal cdf in sympy: erfc(-x / sqrt 2) / 2."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


def _gdp_delta(mu_expr):
    return _phi(-eps / mu_expr + mu_expr / 2) - sp.exp(eps) * _phi(-eps / mu_expr - mu_expr / 2)


def _code_adp_delta(rho_expr):
    """The authors' adp_delta in its own form: 0.5 (erfc((eps - rho) / (2 sqrt rho)) - e^eps erfc((eps + rho) / (2
    sqrt rho))), rho the total zCDP parameter (the code's ``k * mu``)."""
    return (sp.erfc((eps - rho_expr) / (2 * sp.sqrt(rho_expr)))
            - sp.exp(eps) * sp.erfc((eps + rho_expr) / (2 * sp.sqrt(rho_expr)))) / 2


_PENALTY_LINK = EmpiricalLink("dp_penalty", "audits/test_dp_penalty.py",
                              "DP-penalty's transcript on a saturating Gaussian-mean canary pair: exactly "
                              "sqrt(k)/(tau sqrt(N))-GDP; the known-bad no_ll_noise misuse is flagged")
_HMC_LINK = EmpiricalLink("dp_hmc", "audits/test_dp_hmc.py",
                          "DP-HMC's transcript (noisy gradients, noisy ratios) on a saturating Gaussian-mean canary "
                          "pair: exactly mu-GDP with mu^2 = k/(tau_l^2 N) + k(L+1)/(tau_g^2 N)")

# -- DP-penalty ----------------------------------------------------------------------------------------------------
_rho_pen = k / (2 * tau_l**2 * N)
_mu_pen = sp.sqrt(k / (tau_l**2 * N))
THM_PENALTY = Theorem(
    "raisa2021.thm_dp_penalty_privacy",
    "k DP-penalty steps with noise tau_l sqrt(N) 2 b d are sqrt(k)/(tau_l sqrt(N))-GDP: tight delta(epsilon)",
    Source("raisa2021", "DP-penalty's privacy (Sec. 3)", _NOTE, reconstructed=True, confidence="R-med"),
    "privacy",
    symbols=sy.pick("tau_ratio", "N", "k", "epsilon"),
    hypotheses=[Hypothesis("epsilon_positive", sp.Gt(eps, 0), "epsilon > 0")],
    conclusion={"mu": _mu_pen, "rho": _rho_pen, "delta": _gdp_delta(_mu_pen)},
    statement=(
        "DP-penalty on N records, each step's per-record log-likelihood ratios clipped to [-b d, b d] and the noise "
        "standard deviation tau_l sqrt(N) 2 b d, run for k steps releasing its transcript, is mu = sqrt(k)/(tau_l "
        "sqrt(N))-GDP (rho = k/(2 tau_l^2 N)-zCDP), hence (epsilon, delta(epsilon))-DP with delta(epsilon) = "
        "Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2), tight. Keywords: tau_l (tau_ratio), N, k, "
        "epsilon."
    ),
    empirical=[_PENALTY_LINK],
    notes="The code divides the budget's iteration count by the number of chains (every chain spends the one budget); "
          "iters, repeats and no_ll_noise set by hand void the bound (the code's docstring): the known-bad case "
          "dp_penalty_no_ll_noise.",
)


@THM_PENALTY.add_check("from_the_penalty_step", "symbolic")
def _from_step():
    """yildirim2019: the step's mu at Delta = 2 b d (lem_clipped_ratio_sensitivity) and sigma = tau_l sqrt(N) 2 b d is
    1/(tau_l sqrt(N)) whatever d; k steps give cor_penalty_composition's rho = k/(2 tau_l^2 N) = the conclusion's rho,
    and mu = sqrt(2 rho)."""
    delta_ratio = LEM_SENSITIVITY.conclusion["sensitivity"]
    s = tau_l * sp.sqrt(N) * delta_ratio
    step_mu = sp.simplify(THM_STEP.conclusion["mu"].subs({THM_STEP.symbols["sensitivity"]: delta_ratio,
                                                           THM_STEP.symbols["sigma"]: s}))
    comp = COR_COMPOSITION.conclusion["rho"].subs({COR_COMPOSITION.symbols["sensitivity"]: delta_ratio,
                                                   COR_COMPOSITION.symbols["sigma"]: s,
                                                   COR_COMPOSITION.symbols["k"]: k})
    d1 = sp.simplify(step_mu - 1 / (tau_l * sp.sqrt(N)))
    d2 = sp.simplify(comp - THM_PENALTY.conclusion["rho"])
    d3 = sp.simplify(THM_PENALTY.conclusion["mu"] ** 2 / 2 - THM_PENALTY.conclusion["rho"])
    return d1 == 0 and d2 == 0 and d3 == 0, f"step mu - 1/(tau sqrt N) = {d1}; rho - composed = {d2}; mu^2/2 - rho = {d3}"


@THM_PENALTY.add_check("delta_is_the_codes_adp_delta", "symbolic")
def _is_adp_delta():
    """The conclusion's Phi form equals dp_penalty.py's erfc form 0.5 (erfc((eps - rho)/(2 sqrt rho)) - e^eps
    erfc((eps + rho)/(2 sqrt rho))) with rho = k mu_code, mu_code = 1/(2 tau^2 n) (sympy: the erfc arguments agree
    after mu = sqrt(2 rho))."""
    rho = THM_PENALTY.conclusion["rho"]
    diff = sp.simplify(sp.expand_power_base(THM_PENALTY.conclusion["delta"] - _code_adp_delta(rho), force=True))
    if diff != 0:  # sympy may leave sqrt forms unsimplified: compare the erfc arguments directly
        m = sp.sqrt(2 * rho)
        a1 = sp.simplify((eps / m - m / 2) / sp.sqrt(2) - (eps - rho) / (2 * sp.sqrt(rho)))
        a2 = sp.simplify((eps / m + m / 2) / sp.sqrt(2) - (eps + rho) / (2 * sp.sqrt(rho)))
        same_mu = sp.simplify(m - THM_PENALTY.conclusion["mu"]) == 0
        ok = a1 == 0 and a2 == 0 and same_mu
        return ok, f"erfc arguments differ by {a1}, {a2}; mu = sqrt(2 rho) {same_mu}"
    return True, "difference simplifies to 0"


@THM_PENALTY.add_check("pld_accountant_agrees", "numeric")
def _pld():
    """dpverify's PLD accountant composing k Gaussian mechanisms of mu_1 = 1/(tau sqrt N) brackets the conclusion's
    delta at epsilon (its [delta_lower, delta] bracket, widened by 1e-9 for the grid), at 6 (tau, N, k, epsilon)
    points including the code's gauss setting (tau = 0.05, N = 1e5); the exact closed form (gaussian_delta) agrees to
    rel 1e-9."""
    worst_closed = 0.0
    inside = True
    for tv, nv, kv, ev in ((0.5, 10, 5, 1.0), (0.05, 100_000, 4000, 2.0), (1.0, 50, 200, 3.0), (0.2, 400, 30, 0.5),
                           (0.05, 100_000, 20_000, 6.0), (2.0, 4, 1, 0.1)):
        got = THM_PENALTY.evaluate(tau_l=tv, N=nv, k=kv, epsilon=ev).delta
        mu1 = 1 / (tv * math.sqrt(nv))
        closed = gaussian_delta(ev, math.sqrt(kv) * mu1)
        worst_closed = max(worst_closed, abs(got - closed) / closed)
        acc = PldAccountant(interval=1e-3).compose_gaussian(mu1, count=kv)
        c = acc.get_delta(ev)
        lo = c.delta_lower if c.delta_lower is not None else 0.0
        inside &= lo - 1e-9 <= got <= c.delta + 1e-9
    ok = inside and worst_closed < 1e-9
    return ok, f"PLD bracket contains delta {inside}; closed form rel err {worst_closed:.1e}", 0.0, worst_closed


#: The authors' experiments (Snakefile, experiments.py, params/dp-*_gauss.py): n = 100 000 records, delta = 0.1 / n,
#: the epsilons of the comparison figure, DP-penalty's tau = 0.05, DP-HMC's tau = 0.1, tau_g = 0.25, L = 12.
CODE_EXPERIMENTS: dict[str, Any] = {"n": 100_000, "delta": 1e-6, "epsilons": (2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 15.0),
                    "penalty_tau": 0.05, "hmc_tau": 0.1, "hmc_tau_g": 0.25, "hmc_L": 12}


def code_iterations(which: str) -> list[int]:
    """The total iteration counts (before the code divides them among its 4 chains) the budget buys in the authors'
    gauss experiments at each epsilon of :data:`CODE_EXPERIMENTS`: ``which`` = "penalty" or "hmc"
    (:func:`dpverify.calculus.penalty.max_iterations`, the exact version of the code's ``adp_iters``)."""
    e = CODE_EXPERIMENTS
    if which == "penalty":
        mu1 = penalty_mu(e["penalty_tau"], e["n"])
    elif which == "hmc":
        mu1 = hmc_mu(e["hmc_tau"], e["hmc_tau_g"], e["hmc_L"], e["n"])
    else:
        raise ValueError(f"which must be 'penalty' or 'hmc'; got {which!r}")
    return [max_iterations(ev, e["delta"], mu1) for ev in e["epsilons"]]


@THM_PENALTY.add_check("code_experiment_budgets", "numeric")
def _code_budgets():
    """At the iteration counts the authors' gauss experiments buy (code_iterations: 50 at epsilon = 2 with tau =
    0.05, n = 1e5, delta = 1e-6), the conclusion's delta is <= 1e-6 and one more iteration exceeds it, at every epsilon
    of the comparison figure; the counts increase with epsilon."""
    ks = code_iterations("penalty")
    e = CODE_EXPERIMENTS
    ok = all(np.diff(ks) > 0)
    for kv, ev in zip(ks, e["epsilons"]):
        at = THM_PENALTY.evaluate(tau_l=e["penalty_tau"], N=e["n"], k=kv, epsilon=ev).delta
        above = THM_PENALTY.evaluate(tau_l=e["penalty_tau"], N=e["n"], k=kv + 1, epsilon=ev).delta
        ok &= at <= e["delta"] < above
    return ok, f"iterations at epsilon {list(e['epsilons'])}: {ks}", None, float(ks[0])


def _penalty_pins():
    out = []
    for tv, nv, kv, ev in ((0.5, 10, 5, 1.0), (0.05, 100_000, 1000, 4.0), (1.0, 50, 200, 3.0)):
        rho = kv / (2 * tv * tv * nv)  # the code's k * mu with mu = 1 / (2 tau^2 n)
        dl = 0.5 * (math.erfc((ev - rho) / (2 * math.sqrt(rho))) - math.exp(ev) * math.erfc((ev + rho) / (2 * math.sqrt(rho))))
        out.append(({"tau_l": tv, "N": nv, "k": kv, "epsilon": ev},
                    {"rho": rho, "mu": math.sqrt(2 * rho), "delta": dl}))
    return out


THM_PENALTY.add_pin(
    "pin_authors_code",
    "rho, mu and delta against dp_penalty.py's adp_delta typed again (math.erfc; rho = k / (2 tau^2 n)) at three "
    "points; rel 1e-9 (the erfc difference loses about 1e-12 relative at these points)",
    _penalty_pins, rel=1e-9)


# -- the gradient release --------------------------------------------------------------------------------------------
LEM_GRADIENT = Theorem(
    "raisa2021.lem_gradient_sensitivity",
    "Clipped gradient sums have replace-one sensitivity 2 L; noise 2 tau_g sqrt(N) L gives 1/(tau_g sqrt(N))-GDP",
    Source("raisa2021", "the noisy gradients of DP-HMC (Sec. 3)", _NOTE, reconstructed=True, confidence="R-med"),
    "sensitivity",
    symbols=sy.pick("L", "tau_grad", "N"),
    hypotheses=[],
    conclusion={"sensitivity": 2 * clip, "sigma": 2 * tau_g * sp.sqrt(N) * clip, "mu": 1 / (tau_g * sp.sqrt(N))},
    statement=(
        "Per-record gradients clipped to L2 norm L: their sum changes by at most 2 L in L2 norm when one record is "
        "replaced (attained by antipodal clipped gradients). DP-HMC adds N(0, sigma^2 I) with sigma = 2 tau_g sqrt(N) "
        "L, so one gradient release is mu_g = 2 L / sigma = 1/(tau_g sqrt(N))-GDP. Keywords: L (the gradient clip), "
        "tau_g (tau_grad), N."
    ),
    empirical=[_HMC_LINK],
)


@LEM_GRADIENT.add_check("mu_is_sensitivity_over_noise", "symbolic")
def _grad_mu():
    """mu = sensitivity / sigma simplifies to 1/(tau_g sqrt(N)) (L cancels: the calibration is clip-free)."""
    c = LEM_GRADIENT.conclusion
    diff = sp.simplify(c["sensitivity"] / c["sigma"] - c["mu"])
    return diff == 0 and clip not in c["mu"].free_symbols, f"sensitivity/sigma - mu = {diff}"


@LEM_GRADIENT.add_check("random_clipped_sums_within_bound", "numeric")
def _grad_numeric():
    """100 000 random datasets of 4 gradients in R^3 (norms up to 5 L) and a replaced record: the clipped sums (each
    gradient scaled by min(1, L / |g|), written here: the theorems do not import the models' clip_gradients) differ
    by at most 2 L in L2 norm, and by more than 1.99 L for some pair; antipodal records beyond the clip give exactly
    2 L."""

    def clip_gradients(g: np.ndarray, bound: float) -> np.ndarray:
        norms = np.linalg.norm(g, axis=-1, keepdims=True)
        return g * np.minimum(1.0, bound / np.maximum(norms, 1e-300))

    rng = np.random.default_rng(2021)
    lv = 0.7
    g = rng.normal(0, 2 * lv, (100_000, 5, 3))
    cl = clip_gradients(g, lv)
    diff = np.linalg.norm(cl[:, 0] - cl[:, 4], axis=1)  # records 1-3 shared, record 0 vs record 4
    top = float(diff.max()) / LEM_GRADIENT.evaluate(L=lv, tau_g=1.0, N=1).sensitivity
    u = np.array([[3.0, 0, 0], [-3.0, 0, 0]])
    anti = float(np.linalg.norm(np.diff(clip_gradients(u, lv), axis=0)))
    ok = 0.995 / 1.0 < top <= 1.0 + 1e-12 and abs(anti - 2 * lv) < 1e-12
    return ok, f"max difference / 2L = {top:.5f}; antipodal difference {anti:.6f} (2L = {2 * lv})", 1.0, top


LEM_GRADIENT.add_pin(
    "pin_authors_code",
    "sensitivity, sigma, mu against hmc.py typed again (grad_noise_sigma = 2 tau_g sqrt(n) grad_clip; mu = 2 "
    "grad_clip / grad_noise_sigma) at three points, one the gauss setting (tau_g = 0.25, grad_clip = 10, n = 1e5); "
    "rel 1e-14",
    lambda: [({"L": cv, "tau_g": tg, "N": nv},
              {"sensitivity": 2 * cv, "sigma": 2 * tg * math.sqrt(nv) * cv, "mu": 2 * cv / (2 * tg * math.sqrt(nv) * cv)})
             for cv, tg, nv in ((1.0, 1.0, 1), (10.0, 0.25, 100_000), (0.05, 0.55, 20))],
    rel=1e-14)


# -- DP-HMC --------------------------------------------------------------------------------------------------------
_rho_hmc = k / (2 * tau_l**2 * N) + k * (n_leap + 1) / (2 * tau_g**2 * N)
_mu_hmc = sp.sqrt(2 * _rho_hmc)
THM_HMC = Theorem(
    "raisa2021.thm_dp_hmc_privacy",
    "k DP-HMC iterations: rho = k/(2 tau_l^2 N) + k (L+1)/(2 tau_g^2 N)-zCDP, sqrt(2 rho)-GDP, tight delta(epsilon)",
    Source("raisa2021", "DP-HMC's privacy (Sec. 3)", _NOTE, reconstructed=True, confidence="R-med"),
    "privacy",
    symbols=sy.pick("tau_ratio", "tau_grad", "leapfrog_steps", "N", "k", "epsilon"),
    hypotheses=[Hypothesis("epsilon_positive", sp.Gt(eps, 0), "epsilon > 0")],
    conclusion={"rho": _rho_hmc, "mu": _mu_hmc, "delta": _gdp_delta(_mu_hmc)},
    statement=(
        "DP-HMC on N records, k iterations of L leapfrog steps, each iteration releasing L + 1 noisy clipped gradient "
        "sums (noise 2 tau_g sqrt(N) L_c) and one noisy clipped log-likelihood ratio (noise tau_l sqrt(N) 2 b d), is "
        "rho = k/(2 tau_l^2 N) + k (L + 1)/(2 tau_g^2 N)-zCDP and exactly mu = sqrt(2 rho)-GDP as a transcript, "
        "hence (epsilon, delta(epsilon))-DP with the Gaussian curve delta(epsilon) = Phi(-epsilon/mu + mu/2) - "
        "e^epsilon Phi(-epsilon/mu - mu/2). Keywords: tau_l, tau_g, n_leapfrog (the L leapfrog steps), N, k, "
        "epsilon."
    ),
    empirical=[_HMC_LINK],
    notes="The code's compute_less_grad option counts k L + 1 gradient evaluations (the last gradient of an iteration "
          "reused as the next one's first); the default, encoded here, counts k (L + 1).",
)


@THM_HMC.add_check("composition_of_the_releases", "symbolic")
def _hmc_composition():
    """rho = k rho_l + k (L + 1) rho_g with rho_l = thm_dp_penalty_privacy's one-step rho and rho_g = mu_g^2 / 2 of
    lem_gradient_sensitivity (zCDP and GDP compose additively in rho and mu^2); at L = 0 gradients aside (tau_g ->
    infinity) the conclusion is DP-penalty's."""
    rho_l = THM_PENALTY.conclusion["rho"].subs({k: 1})
    rho_g = LEM_GRADIENT.conclusion["mu"] ** 2 / 2
    diff = sp.simplify(k * rho_l + k * (n_leap + 1) * rho_g - THM_HMC.conclusion["rho"])
    limit = sp.simplify(sp.limit(THM_HMC.conclusion["rho"], tau_g, sp.oo) - THM_PENALTY.conclusion["rho"])
    return diff == 0 and limit == 0, f"composed - conclusion = {diff}; tau_g -> oo minus DP-penalty's rho = {limit}"


@THM_HMC.add_check("delta_is_the_codes_adp_delta", "numeric")
def _hmc_adp():
    """The conclusion's delta against hmc.py's adp_delta typed again (mu = k/(2 tau_l^2 n) + k (L+1)/(2 tau_g^2 n),
    0.5 (erfc((eps - mu)/(2 sqrt mu)) - e^eps erfc((eps + mu)/(2 sqrt mu)))) on 15 random parameter points with delta
    above 1e-12 (erfc's relative rounding): rel 1e-9 (the 60-point grid is tests/test_penalty_public_code.py)."""
    rng = np.random.default_rng(11)
    worst, count = 0.0, 0
    while count < 15:
        tv, tg = rng.uniform(0.05, 2), rng.uniform(0.05, 2)
        lv, nv, kv, ev = int(rng.integers(1, 20)), int(rng.integers(5, 2000)), int(rng.integers(1, 500)), \
            float(rng.uniform(0.1, 8))
        mu_c = kv / (2 * tv * tv * nv) + kv * (lv + 1) / (2 * tg * tg * nv)
        code = 0.5 * (math.erfc((ev - mu_c) / (2 * math.sqrt(mu_c))) - math.exp(ev) * math.erfc((ev + mu_c) / (2 * math.sqrt(mu_c))))
        if code < 1e-12:
            continue
        got = THM_HMC.evaluate(tau_l=tv, tau_g=tg, n_leapfrog=lv, N=nv, k=kv, epsilon=ev).delta
        worst = max(worst, abs(got - code) / code)
        count += 1
    return worst < 1e-9, f"max rel difference {worst:.2e} over {count} points", 0.0, worst


@THM_HMC.add_check("pld_accountant_and_code_budgets", "numeric")
def _hmc_pld():
    """dpverify's PLD accountant composing k ratio releases (mu_l) and k (L + 1) gradient releases (mu_g) brackets the
    conclusion's delta at 3 points; at the iteration counts the authors' DP-HMC gauss experiment buys (tau_l = 0.1,
    tau_g = 0.25, L = 12, n = 1e5, delta = 1e-6) delta <= 1e-6 < delta at one more iteration."""
    inside = True
    for tv, tg, lv, nv, kv, ev in ((0.5, 0.8, 3, 10, 4, 1.0), (0.1, 0.25, 12, 100_000, 50, 2.0),
                                   (1.0, 0.5, 5, 40, 20, 3.0)):
        got = THM_HMC.evaluate(tau_l=tv, tau_g=tg, n_leapfrog=lv, N=nv, k=kv, epsilon=ev).delta
        acc = PldAccountant(interval=1e-3).compose_gaussian(1 / (tv * math.sqrt(nv)), count=kv)
        acc.compose_gaussian(1 / (tg * math.sqrt(nv)), count=kv * (lv + 1))
        c = acc.get_delta(ev)
        lo = c.delta_lower if c.delta_lower is not None else 0.0
        inside &= lo - 1e-9 <= got <= c.delta + 1e-9
    e = CODE_EXPERIMENTS
    ks = code_iterations("hmc")
    budget_ok = True
    for kv, ev in zip(ks, e["epsilons"]):
        vals = {"tau_l": e["hmc_tau"], "tau_g": e["hmc_tau_g"], "n_leapfrog": e["hmc_L"], "N": e["n"],
                "epsilon": ev}
        budget_ok &= THM_HMC.evaluate(k=kv, **vals).delta <= e["delta"] < THM_HMC.evaluate(k=kv + 1, **vals).delta
    return inside and budget_ok, f"PLD bracket contains delta {inside}; code budgets {ks} consistent {budget_ok}"


def _hmc_pins():
    out = []
    for tv, tg, lv, nv, kv, ev in ((0.1, 0.25, 12, 100_000, 100, 4.0), (0.5, 0.8, 3, 10, 4, 1.0),
                                   (1.0, 0.5, 5, 40, 20, 3.0)):
        rho = kv / (2 * tv * tv * nv) + kv * (lv + 1) / (2 * tg * tg * nv)
        dl = 0.5 * (math.erfc((ev - rho) / (2 * math.sqrt(rho))) - math.exp(ev) * math.erfc((ev + rho) / (2 * math.sqrt(rho))))
        out.append(({"tau_l": tv, "tau_g": tg, "n_leapfrog": lv, "N": nv, "k": kv, "epsilon": ev},
                    {"rho": rho, "mu": math.sqrt(2 * rho), "delta": dl}))
    return out


THM_HMC.add_pin(
    "pin_authors_code",
    "rho, mu, delta against hmc.py's zcdp/adp_delta typed again (rho_l = 1/(2 tau^2 n), rho_g = 1/(2 tau_g^2 n), "
    "k (L + 1) gradient evaluations; math.erfc) at three points, one the gauss setting; rel 1e-9",
    _hmc_pins, rel=1e-9)

THEOREMS: tuple[Theorem, ...] = (THM_PENALTY, LEM_GRADIENT, THM_HMC)
