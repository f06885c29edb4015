"""Cebere, Bellet & Papernot (ICLR 2025): with a crafted gradient at every step, hiding DP-SGD's iterates gives no
privacy -- encoded on the full-batch case, where it is exact (reconstructed).

**What was read.** The abstract and the introduction's opening (arXiv:2405.14457 v3 and its ar5iv page): an adversary
in the hidden-state threat model (only the final model is released) "craft[s] a gradient sequence designed to
maximize the privacy loss of the final model"; "when the crafted gradient is inserted at every optimization step, we
show that concealing the intermediate model updates in DP-SGD does not enhance the privacy guarantees", while "when
the crafted gradient is not inserted at every step" an amplification appears (weaker than in convex regimes). The
paper's theorem numbers, its subsampled experiments and its constants were not read, so the item below is the
full-batch case proved here, not the paper's statement.

**The item** (``cebere2025.thm_crafted_gradient_every_step``). Full-batch DP-SGD with clip C and noise multiplier
sigma, ``theta_{t+1} = theta_t - eta (sum_i g_i + sigma C xi_t)``, where the canary's gradient is the crafted
constant ``g = -C u`` at every step and every other record's is 0. The last iterate is ``theta_0 + eta T C u + eta
sigma C sqrt(T) xi``, so the pair (canary present / absent) is a Gaussian shift with ``mu_last_iterate = T / (sigma
sqrt(T)) = sqrt(T) / sigma``: exactly the path's ``sqrt(sum_t (1/sigma)^2)`` (T composed Gaussian mechanisms,
check ``last_iterate_equals_path``). Inserting the gradient only every k-th step gives ``sqrt(T)/(k sigma)``: the
amplification of the partial-insertion regime appears, by the factor k (check ``every_kth_step``).

The naive claim of the sampler ``dp_sgd_crafted_gradient_last_iterate``: hiding the iterates leaves the privacy of
the last ``claimed_steps`` updates (``sqrt(claimed_steps)/sigma``-GDP).
"""
from __future__ import annotations

import math

import numpy as np
import sympy as sp

from dpverify.calculus.accounting.pld import gaussian_pld
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Source, Theorem

__all__ = ["THEOREMS", "CRAFTED", "CASE"]

SYMBOLS = sy.pick("sigma", "T_iterations")
sigma, T = SYMBOLS["sigma"], SYMBOLS["T"]

#: The audit case's parameters (``dp_sgd_crafted_gradient_last_iterate``): noise multiplier, steps, claimed steps,
#: delta; the pair is the canary (gradient 1) against the null record (gradient 0).
CASE: dict[str, float] = {"sigma": 2.0, "T": 16, "claimed_steps": 1, "delta": 1e-5}

CRAFTED = Theorem(
    "cebere2025.thm_crafted_gradient_every_step",
    "A crafted gradient at every step: DP-SGD's last iterate is sqrt(T)/sigma-GDP, exactly the path's privacy",
    Source("cebere2025", "abstract ('inserted at every optimization step ... does not enhance the privacy "
           "guarantees')", "full-batch case proved here (the body was not read: see the module docstring)",
           reconstructed=True, confidence="R-med"),
    "privacy",
    symbols=SYMBOLS,
    conclusion={"mu_last_iterate": sp.sqrt(T) / sigma},
    statement=(
        "Full-batch DP-SGD (clip C, noise multiplier sigma, T steps) on a dataset whose canary has the crafted "
        "gradient -C u at every step and whose other records have gradient 0 releases a last iterate that is exactly "
        "mu_last_iterate = sqrt(T)/sigma-GDP on the pair canary present / absent: the T-fold composition of the "
        "per-step Gaussian mechanism, i.e. the path's privacy. Keywords: sigma (noise multiplier), T (steps)."
    ),
    empirical=[EmpiricalLink("dp_sgd_crafted_gradient_last_iterate",
                             "audits/test_dp_sgd_crafted_gradient_last_iterate.py",
                             "the last iterate audited against the last step's privacy: a violation")],
    notes="The full-batch case of the paper's negative result; the paper's subsampled experiments are not encoded.",
)


@CRAFTED.add_check("last_iterate_equals_path", "symbolic")
def _equals_path():
    """The last iterate's mean gap ``eta T C`` over its standard deviation ``eta sigma C sqrt(T)`` is the conclusion,
    and so is the path's composition ``sqrt(sum_{t=1}^T (eta C / (eta sigma C))^2)`` (sympy)."""
    eta_, C_ = sp.symbols("eta_var C_var", positive=True)
    j = sp.Symbol("j_var", integer=True, positive=True)
    last = sp.simplify(eta_ * T * C_ / (eta_ * sigma * C_ * sp.sqrt(T)) - CRAFTED.conclusion["mu_last_iterate"])
    path = sp.simplify(sp.sqrt(sp.summation((eta_ * C_ / (eta_ * sigma * C_)) ** 2, (j, 1, T)))
                       - CRAFTED.conclusion["mu_last_iterate"])
    return last == 0 and path == 0, f"last iterate - conclusion = {last}; path - conclusion = {path}"


@CRAFTED.add_check("every_kth_step", "symbolic")
def _every_k():
    """Inserting the crafted gradient every k-th step (T/k insertions) gives the last iterate ``(T/k)/(sigma
    sqrt(T))``: the conclusion divided by k (the paper's partial-insertion regime amplifies; at k = 1 nothing)."""
    k = sp.Symbol("k_var", positive=True, integer=True)
    ratio = sp.simplify((T / k) / (sigma * sp.sqrt(T)) / CRAFTED.conclusion["mu_last_iterate"])
    return ratio == 1 / k, f"ratio to the every-step value = {ratio}"


@CRAFTED.add_check("accountant_agrees", "numeric")
def _accountant():
    """The PLD accountant of T composed Gaussian steps (mu = 1/sigma each) gives the epsilon of ``sqrt(T)/sigma``-GDP
    at delta = 1e-5 within its discretisation (rel 2e-3), at (sigma, T) = (2, 16) and (1, 5)."""
    worst = 0.0
    for s, n in ((2.0, 16), (1.0, 5)):
        composed = gaussian_pld(1.0 / s).self_compose(n).epsilon(1e-5)
        exact = gaussian_epsilon(1e-5, CRAFTED.evaluate(sigma=s, T=n).mu_last_iterate)
        worst = max(worst, abs(composed / exact - 1))
    return worst < 2e-3, f"max |accountant / closed form - 1| = {worst:.2e}", 0.0, worst


@CRAFTED.add_check("naive_claim_violated", "numeric")
def _violated():
    """At the audit case (sigma = 2, T = 16, delta = 1e-5) the last iterate's epsilon (mu = 2, the conclusion) is > 4
    times the naive one-step claim (mu = 1/sigma = 0.5), and equals the path accountant's (PLD of 16 composed Gaussian
    steps) within its discretisation (rel 2e-3)."""
    mu = CRAFTED.evaluate(sigma=CASE["sigma"], T=CASE["T"]).mu_last_iterate
    exact = gaussian_epsilon(CASE["delta"], mu)
    naive = gaussian_epsilon(CASE["delta"], math.sqrt(CASE["claimed_steps"]) / CASE["sigma"])
    path = gaussian_pld(1 / CASE["sigma"]).self_compose(int(CASE["T"])).epsilon(CASE["delta"])
    ok = exact > 4 * naive and math.isclose(exact, path, rel_tol=2e-3)
    return ok, f"exact {exact:.4f}, naive {naive:.4f}, path {path:.4f}", naive, exact


@CRAFTED.add_check("simulated_last_iterate", "numeric")
def _simulated():
    """200000 runs of the 16 DP-SGD steps (sigma = 2, the crafted gradient 1 at every step; seed 2) simulated with
    numpy: the last iterate's standardised mean gap (canary vs none, over the standard deviation sigma sqrt(T)) is
    the conclusion's mu within 5 standard errors (sqrt(2/n) in standard units), and its spread is sigma sqrt(T)
    within 5 standard errors."""
    rng = np.random.default_rng(2)
    n, sig, steps = 200_000, CASE["sigma"], int(CASE["T"])
    with_canary, without = np.zeros(n), np.zeros(n)
    for _ in range(steps):
        with_canary += 1.0 + sig * rng.standard_normal(n)
        without += sig * rng.standard_normal(n)
    sd = math.sqrt(steps) * sig
    mu_hat = float((with_canary.mean() - without.mean()) / sd)
    mu = CRAFTED.evaluate(sigma=sig, T=steps).mu_last_iterate
    z = abs(mu_hat - mu) / math.sqrt(2 / n)
    ok = z < 5 and abs(with_canary.std() / sd - 1) < 5 * math.sqrt(1 / (2 * n))
    return ok, f"simulated mu {mu_hat:.4f} vs {mu:.4f} (z = {z:.2f})", mu, mu_hat


def _pins():
    out = []
    for s, n in ((2.0, 16), (0.7, 3), (5.0, 1000)):
        shifts, variances = np.ones(n), np.full(n, s * s)  # per step: shift C = 1, noise variance (sigma C)^2
        out.append(({"sigma": s, "T": n}, {"mu_last_iterate": float(shifts.sum() / math.sqrt(variances.sum()))}))
    return out


CRAFTED.add_pin("pin_sum_of_steps", "mu_last_iterate against the sum of the per-step shifts over the root of the "
                "summed noise variances (numpy) at three points; rel 1e-12", _pins, rel=1e-12)

THEOREMS: tuple[Theorem, ...] = (CRAFTED,)
