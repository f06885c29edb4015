"""The final-state statements of the catalogue, each with the run it speaks about and a grid of parameter points.

A :class:`FinalStateStatement` says, for one catalogue item: which inputs of the theorem a grid point gives, which
run (:mod:`dpverify.theorems.final_state.runs`) the point describes, what the theorem claims in each currency, and
which of its hypotheses define the paper's claim. Every grid keeps only points where those hypotheses hold, and
reaches their edges (step sizes at 0.1% and 99.9% of their bound, the fewest passes a condition allows, Poisson rates
at the limit of Lemma 2).

- ``bertazzi2025.thm52_ula_final`` (ULA, final state), ``bertazzi2025.thm56_sgld_final`` and
  ``bertazzi2025.thm57_sgld_strongly_convex`` (noisy SGD, final state): RDP at alpha and epsilon at delta;
- ``chourasia2021.thm2_noisy_gd_rdp`` (noisy GD, last iterate): RDP, and its (epsilon, delta) consequence;
- ``wang2015.thm4_dp_sgld`` (DP-SGLD, Alg. 2) and ``li2019.thm4_fixed_stepsize`` / ``li2019.thm3_decreasing_stepsize``
  (DP-SGLD, Alg. 1): (epsilon, delta) claims for the whole run, so for the released final iterate (post-processing).
  Wang's claim is the paper's: its printed condition on the passes T; points where only the printed condition holds
  (not the corrected ``per_step_epsilon_below_one``) are kept and flagged.

Two grids per statement: ``"fast"`` (at least 50 points, cheap: short subsampled runs, coarse PLD; the default test
run) and ``"dense"`` (long runs, more orders and deltas; ``@pytest.mark.slow``). Subsampled runs need a non-negative
contraction (``1 - h lam >= 0``; an oscillating chain's privacy loss is not monotone, which the exact shift-mixture
computation does not cover); full-batch runs do not.
"""
from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from dpverify.calculus.mechanism_description import MechanismDescription
from dpverify.theorems.base import Evaluation
from dpverify.theorems.final_state.check import (
    GridRow,
    compiled,
    converted_epsilon,
    rows_for,
)
from dpverify.theorems.final_state.runs import (
    dp_sgld_li_run,
    dp_sgld_wang_run,
    noisy_gd_run,
    noisy_sgd_run,
    ula_run,
)

__all__ = ["DENSITIES", "STATEMENTS", "FinalStateStatement", "statement"]

#: The grids every statement has.
DENSITIES = ("fast", "dense")


@dataclass(frozen=True)
class FinalStateStatement:
    """One catalogue item checked against the exact privacy of its run (module docstring)."""

    key: str
    theorem_id: str
    title: str
    currencies: tuple
    inputs: Callable[[dict], dict]
    run: Callable[[dict], MechanismDescription]
    candidates: Callable[[str], list]
    claimed_epsilon: Callable[[Evaluation, dict], float]
    claimed_rdp: Callable[[Evaluation, dict], float] | None = None
    #: Hypotheses that make up the paper's claim (None: all of them).
    printed: tuple | None = None

    def claims(self, evaluation: Evaluation) -> bool:
        """Whether the paper claims anything at this point: its (printed) hypotheses hold."""
        names = evaluation.hypotheses if self.printed is None else self.printed
        return all(evaluation.hypotheses[n] for n in names)

    def points(self, density: str = "fast") -> list[dict]:
        """The grid: the candidate points of ``density`` where the paper's hypotheses hold."""
        if density not in DENSITIES:
            raise ValueError(f"density must be one of {DENSITIES}; got {density!r}")
        theorem = compiled(self.theorem_id)
        return [p for p in self.candidates(density) if self.claims(theorem.evaluate(**self.inputs(p)))]

    def rows(self, density: str = "fast") -> list[GridRow]:
        """Every comparison of the grid (:func:`~dpverify.theorems.final_state.check.rows_for`)."""
        return rows_for(self, self.points(density))


def _pick(point: dict, *names: str) -> dict:
    return {n: point[n] for n in names}


def _product(**axes) -> list[dict]:
    keys = list(axes)
    return [dict(zip(keys, values)) for values in itertools.product(*(axes[k] for k in keys))]


# --------------------------------------------------------------------------------------------- Bertazzi et al. 2025
_MM = [(0.5, 0.5), (1.0, 1.0), (0.2, 1.0), (1.0, 3.0)]
_STEP_FRACTIONS = (1e-3, 0.3, 0.9, 0.999)  # h as a fraction of the bound 2m/M^2


def _ula_candidates(density: str) -> list[dict]:
    fast = density == "fast"
    out = []
    for (m, M), frac, k, K in itertools.product(_MM, _STEP_FRACTIONS, (1, 20, 2000) if fast else (1, 5, 50, 500, 20_000),
                                                (1.0,) if fast else (0.1, 1.0, 10.0)):
        for lam in (m, M):
            for alpha, delta in ([(2.0, 1e-5)] if fast else [(1.5, 1e-3), (2.0, 1e-5), (8.0, 1e-9)]):
                out.append(dict(K=K, m=m, M=M, h=frac * 2 * m / M**2, k=k, lam=lam, alpha=alpha, delta=delta))
    return out


def _sgd_candidates(density: str) -> list[dict]:
    fast = density == "fast"
    out = []
    mms = [(1.0, 1.0), (0.3, 1.0)] if fast else [(1.0, 1.0), (0.3, 1.0), (0.5, 2.0)]
    batches = [(10, 10), (10, 1), (10, 3), (50, 5)] if fast else [(10, 10), (10, 1), (10, 3), (50, 5), (100, 1)]
    for (m, M), frac, (N, tau), k, beta in itertools.product(
            mms, (1e-3, 0.5, 0.999), batches, (1, 8) if fast else (1, 8, 60, 400), (1.0, 4.0)):
        h = frac * 2 * m / M**2
        if tau < N and 1 - h * m < 0:
            continue  # an oscillating subsampled chain: not covered by the exact computation (module docstring)
        for alpha, delta in ([(2.0, 1e-5), (8.0, 1e-5)] if fast else [(2.0, 1e-3), (8.0, 1e-6), (32.0, 1e-9)]):
            out.append(dict(K=1.0, m=m, M=M, h=h, beta=beta, tau=tau, N=N, k=k, lam=m, alpha=alpha, delta=delta))
    return out


def _sgd_run(p: dict) -> MechanismDescription:
    return noisy_sgd_run(p["K"], p["lam"], p["h"], p["beta"], p["tau"], p["N"], p["k"])


def _own(key: str):
    return lambda evaluation, point: evaluation[key]


# --------------------------------------------------------------------------------------------- Chourasia et al. 2021
def _noisy_gd_candidates(density: str) -> list[dict]:
    fast = density == "fast"
    out = []
    mms = [(0.1, 0.1), (1.0, 1.0), (0.1, 1.0), (1.0, 5.0)]
    for (m, M), frac, k, sigma in itertools.product(mms, (1e-3, 0.5, 0.999), (1, 10, 300, 3000) if fast else
                                                     (1, 3, 10, 100, 1000, 10_000), (1.0,) if fast else (0.3, 1.0, 4.0)):
        for lam in (m, M):
            for alpha, delta in ([(2.0, 1e-5)] if fast else [(1.5, 1e-3), (2.0, 1e-5), (16.0, 1e-9)]):
                out.append(dict(alpha=alpha, S_g=1.0, m=m, M=M, eta=frac / M, sigma=sigma, N=10, k=k, lam=lam,
                                delta=delta))
    return out


def _noisy_gd_run(p: dict) -> MechanismDescription:
    return noisy_gd_run(p["S_g"], p["lam"], p["eta"], p["sigma"], p["N"], p["k"],
                        start_variance=2 * p["sigma"] ** 2 / p["m"])


# --------------------------------------------------------------------------------------------- Wang et al. 2015
def _wang_candidates(density: str) -> list[dict]:
    """Passes T at the corrected condition's edge (1.01 times its bound), at 0.75 times it (only the printed
    condition, half the corrected bound, holds: flagged), and at whole passes."""
    fast = density == "fast"
    out = []
    for N, q, eps, eta, lam0 in itertools.product((20, 50, 100) if fast else (20, 100, 1000), (0.1, 0.5, 1.0),
                                                  (0.3, 2.0) if fast else (0.1, 0.5, 2.0, 8.0),
                                                  (1e-3, 0.05) if fast else (1e-5, 1e-3, 0.05),
                                                  (0.0, 1.0) if fast else (0.0, 0.1, 1.0)):
        tau = max(1, int(round(q * N)))
        delta = 1e-5
        corrected = eps**2 * N / (16 * tau * math.log(2 / delta))  # per_step_epsilon_below_one's bound on T
        for T in [corrected * 0.75, corrected * 1.01, 1.0] + ([] if fast else [4.0]):
            if math.floor(N * T / tau) < 1 or N * T / tau > 1200:
                continue  # Alg. 2 runs floor(N T / tau) >= 1 iterations; the dense grid stops at 1200
            out.append(dict(epsilon=eps, delta=delta, N=N, T=T, tau=tau, L=1.0, eta=eta, lam0=lam0))
    return out


def _wang_run(p: dict) -> MechanismDescription:
    alg2 = compiled("wang2015.alg2_dp_sgld").evaluate(**_pick(p, "N", "T", "tau", "L", "epsilon", "delta", "eta"))
    return dp_sgld_wang_run(p["L"], p["lam0"], p["eta"], alg2["noise_variance"], p["N"], p["tau"],
                            int(alg2["iterations"]))


# --------------------------------------------------------------------------------------------- Li et al. 2019
def _li_candidates(decreasing: bool):
    """Step sizes from Lemma 2's window: ``sigma_1 = q sqrt(N/eta)/L`` (L = 1) with ``q sigma_1`` from 0.005 up to
    the bound 1/16 of hypothesis ii), plus the two edges: just above ii)'s lower bound on eta (``256 q^4 N``, times
    ``T^{1/3}`` for the decreasing schedule) and just below iii)'s upper bound ``eta_max``; the grid keeps the points
    where every hypothesis (i-iii, lambda range) holds."""
    theorem_id = "li2019.thm3_decreasing_stepsize" if decreasing else "li2019.thm4_fixed_stepsize"

    def candidates(density: str) -> list[dict]:
        fast = density == "fast"
        out = []
        for N, q, eps, T, lam0 in itertools.product(
                (1000, 10_000), (0.005, 0.01, 0.02) if fast else (0.005, 0.01, 0.02, 0.05),
                (0.5, 1.0, 2.0, 4.0) if fast else (0.3, 1.0, 3.0), (10, 60) if fast else (10, 100, 400, 1500),
                (1.0,) if fast else (0.0, 1.0, 100.0)):
            base = dict(epsilon=eps, delta=1e-5, N=N, q=q, L=1.0, T=T, lam0=lam0)
            eta_max = compiled(theorem_id).evaluate(**_pick({**base, "eta": 1.0}, *_LI_INPUTS))["eta_max"]
            ii_bound = 256 * q**4 * N * (T ** (1 / 3) if decreasing else 1.0)
            etas = [q**2 * N / (qs / q) ** 2 for qs in (0.005, 0.01, 0.02, 0.04)] + [1.001 * ii_bound, 0.999 * eta_max]
            out += [{**base, "eta": eta} for eta in etas]
        return out
    return candidates


def _li_run(decreasing: bool):
    def run(p: dict) -> MechanismDescription:
        t = np.arange(1, int(p["T"]) + 1)
        etas = p["eta"] * t ** (-1 / 3) if decreasing else np.full(t.size, p["eta"])
        return dp_sgld_li_run(p["L"], p["lam0"], etas, p["N"], p["q"])
    return run


_LI_INPUTS = ("N", "T", "L", "q", "epsilon", "delta", "eta")

STATEMENTS: dict[str, FinalStateStatement] = {s.key: s for s in (
    FinalStateStatement(
        "bertazzi_5.2", "bertazzi2025.thm52_ula_final", "Bertazzi et al. 2025, Thm 5.2: ULA, final state",
        ("rdp", "epsilon"), lambda p: _pick(p, "K", "M", "m", "h", "delta", "alpha"),
        lambda p: ula_run(p["K"], p["lam"], p["h"], p["k"]), _ula_candidates, _own("epsilon"), _own("rdp")),
    FinalStateStatement(
        "bertazzi_5.6", "bertazzi2025.thm56_sgld_final", "Bertazzi et al. 2025, Thm 5.6: noisy SGD, final state",
        ("rdp", "epsilon"), lambda p: _pick(p, "K", "M", "m", "h", "beta", "delta", "alpha"),
        _sgd_run, _sgd_candidates, _own("epsilon"), _own("rdp")),
    FinalStateStatement(
        "bertazzi_5.7", "bertazzi2025.thm57_sgld_strongly_convex",
        "Bertazzi et al. 2025, Thm 5.7: noisy SGD with an affine data term, final state",
        ("rdp", "epsilon"), lambda p: _pick(p, "K", "M", "m", "h", "beta", "tau", "N", "delta", "alpha"),
        _sgd_run, _sgd_candidates, _own("epsilon"), _own("rdp")),
    FinalStateStatement(
        "chourasia_2", "chourasia2021.thm2_noisy_gd_rdp", "Chourasia et al. 2021, Thm 2: noisy GD, last iterate",
        ("rdp", "epsilon"), lambda p: _pick(p, "alpha", "S_g", "m", "M", "eta", "sigma", "N", "k"),
        _noisy_gd_run, _noisy_gd_candidates,
        lambda ev, p: converted_epsilon(ev["rdp"] / p["alpha"], p["delta"]), _own("rdp")),
    FinalStateStatement(
        "wang_4", "wang2015.thm4_dp_sgld", "Wang et al. 2015, Thm 4: DP-SGLD (Alg. 2), final iterate",
        ("epsilon",), lambda p: _pick(p, "epsilon", "delta", "N", "T", "tau"), _wang_run, _wang_candidates,
        _own("epsilon_claimed"), printed=("passes_condition", "delta_positive", "delta_below_one",
                                          "batch_within_data")),
    FinalStateStatement(
        "li_4", "li2019.thm4_fixed_stepsize", "Li et al. 2019, Thm 4: DP-SGLD (Alg. 1), fixed step, final iterate",
        ("epsilon",), lambda p: _pick(p, *_LI_INPUTS), _li_run(False), _li_candidates(False), _own("epsilon")),
    FinalStateStatement(
        "li_3", "li2019.thm3_decreasing_stepsize",
        "Li et al. 2019, Thm 3: DP-SGLD (Alg. 1), steps eta t^(-1/3), final iterate",
        ("epsilon",), lambda p: _pick(p, *_LI_INPUTS), _li_run(True), _li_candidates(True), _own("epsilon")),
)}


def statement(key: str) -> FinalStateStatement:
    """The statement with this key (``bertazzi_5.2``, ``bertazzi_5.6``, ``bertazzi_5.7``, ``chourasia_2``,
    ``wang_4``, ``li_4``, ``li_3``); ``KeyError`` naming them otherwise."""
    try:
        return STATEMENTS[key]
    except KeyError:
        raise KeyError(f"{key!r} is not a final-state statement; they are {sorted(STATEMENTS)}") from None
