"""Provable forms of the items of DP-penalty (Yildirim & Ermis 2019) and DP-HMC (Räisä et al. 2021) (issue 39).

Comparators (each an exact value, computed by sympy's integration rather than read from a closed form):

- ``yildirim2019.thm_penalty_step_gaussian`` [rdp]: ``log(int p^alpha q^(1 - alpha)) / (alpha - 1)`` for ``p =
  N(Delta, sigma^2)``, ``q = N(0, sigma^2)``, the densities written out and the Gaussian integral over the real line
  done by sympy: an identity with the conclusion, proved in one box;
- ``raisa2021.thm_dp_penalty_privacy`` and ``raisa2021.thm_dp_hmc_privacy`` [delta]: the hockey-stick divergence of
  ``N(mu, 1)`` from ``N(0, 1)``, ``int_t^oo phi(x - mu) - e^epsilon phi(x) dx`` at the likelihood-ratio threshold ``t =
  epsilon/mu + mu/2`` (the Neyman-Pearson set, so this is the exact delta of the pair), by sympy's integration, with
  ``mu^2`` the sum of the squared ``sensitivity / noise`` of the run's Gaussian releases (``k`` ratios of ``1/(tau_l
  sqrt N)``, and for DP-HMC ``k (L + 1)`` gradients of ``1/(tau_g sqrt N)``; adaptive composition of Gaussian
  mechanisms is exactly Gaussian: Dong, Roth & Su 2022, Cor. 3.3): an identity;
- the sensitivity lemmas and the zCDP conversion: not provable in this form (reasons below).
"""
from __future__ import annotations

import functools

import sympy as sp

from dpverify.prove.forms.base import ItemForm, Part, StatementLike, problem_for
from dpverify.prove.forms.common import scale_ceiling, symbol_of
from dpverify.prove.problem import ProofProblem

__all__ = ["FORMS", "gaussian_renyi_by_integration", "gaussian_hockey_stick_by_integration"]

_X = sp.Symbol("x_int", real=True)


@functools.lru_cache(maxsize=1)
def _renyi_template() -> tuple[sp.Symbol, sp.Symbol, sp.Symbol, sp.Expr]:
    a, dl, s = sp.symbols("alpha_int delta_int sigma_int", positive=True)
    logp = -(_X - dl) ** 2 / (2 * s**2) - sp.log(s * sp.sqrt(2 * sp.pi))
    logq = -_X**2 / (2 * s**2) - sp.log(s * sp.sqrt(2 * sp.pi))
    integral = sp.integrate(sp.exp(sp.expand(a * logp + (1 - a) * logq)), (_X, -sp.oo, sp.oo), conds="none")
    return a, dl, s, sp.simplify(sp.expand_log(sp.log(integral), force=True) / (a - 1))


def gaussian_renyi_by_integration(order: sp.Expr, shift: sp.Expr, noise: sp.Expr) -> sp.Expr:
    """``D_order(N(shift, noise^2) || N(0, noise^2))`` from sympy's integral of ``p^order q^(1 - order)``."""
    a, dl, s, value = _renyi_template()
    return value.xreplace({a: order, dl: shift, s: noise})


@functools.lru_cache(maxsize=1)
def _hockey_template() -> tuple[sp.Symbol, sp.Symbol, sp.Expr]:
    m, e = sp.symbols("mu_int epsilon_int", positive=True)
    phi = lambda z: sp.exp(-z**2 / 2) / sp.sqrt(2 * sp.pi)  # noqa: E731
    t = e / m + m / 2
    value = sp.integrate(phi(_X - m), (_X, t, sp.oo)) - sp.exp(e) * sp.integrate(phi(_X), (_X, t, sp.oo))
    return m, e, sp.simplify(value)


def gaussian_hockey_stick_by_integration(mu: sp.Expr, epsilon: sp.Expr) -> sp.Expr:
    """``int_t^oo phi(x - mu) - e^epsilon phi(x) dx`` at ``t = epsilon/mu + mu/2``: the exact delta of ``N(mu, 1)`` vs
    ``N(0, 1)`` at ``epsilon`` (sympy's integrals)."""
    m, e, value = _hockey_template()
    return value.xreplace({m: mu, e: epsilon})


def _identity(item: StatementLike, part: str, comparator: sp.Expr, declared: dict, source: str,
              scope: str) -> ProofProblem:
    claimed = item.conclusion[part]
    comparator = comparator.rewrite(sp.erfc)  # sympy's integrals give erf; the conclusions are written with erfc
    difference = sp.simplify(claimed - comparator)
    return problem_for(item, part, claimed=claimed, comparator=comparator,
                       margin=difference if difference == 0 else None, declared=declared,
                       comparator_source=source, scope=scope)


def _step_rdp(item: StatementLike) -> ProofProblem:
    """The Gaussian step's RDP against the Rényi divergence by integration (an identity)."""
    order, shift, noise = (symbol_of(item, n) for n in ("alpha", "sensitivity", "sigma"))
    return _identity(item, "rdp", gaussian_renyi_by_integration(order, shift, noise),
                     {"alpha": (None, 1000, "<= 1000 (unbounded above)"), "sensitivity": scale_ceiling(),
                      "sigma": scale_ceiling()},
                     "log of sympy's integral of N(Delta, sigma^2)^alpha N(0, sigma^2)^(1 - alpha) over the real line",
                     "an identity: the conclusion equals the exact Rényi divergence of the Gaussian pair")


def _penalty_delta(item: StatementLike) -> ProofProblem:
    """DP-penalty's delta(epsilon) against the hockey-stick divergence of the composed transcript (an identity)."""
    tau, n, k, eps = (symbol_of(item, name) for name in ("tau_l", "N", "k", "epsilon"))
    mu = sp.sqrt(k * (1 / (tau * sp.sqrt(n))) ** 2)
    return _identity(item, "delta", gaussian_hockey_stick_by_integration(mu, eps),
                     {"tau_l": scale_ceiling(), "N": scale_ceiling(), "k": scale_ceiling(), "epsilon": scale_ceiling()},
                     "sympy's integral of phi(x - mu) - e^eps phi(x) over the likelihood-ratio set, mu^2 = k releases "
                     "of (2 b d) / (tau sqrt(N) 2 b d)",
                     "an identity: the conclusion is the exact delta of k composed Gaussian releases")


def _hmc_delta(item: StatementLike) -> ProofProblem:
    """DP-HMC's delta(epsilon) against the hockey-stick divergence of the composed transcript (an identity)."""
    tau, tau_g, n_leap, n, k, eps = (symbol_of(item, name) for name in ("tau_l", "tau_g", "n_leapfrog", "N", "k",
                                                                                       "epsilon"))
    mu = sp.sqrt(k * (1 / (tau * sp.sqrt(n))) ** 2 + k * (n_leap + 1) * ((2 * 1) / (tau_g * sp.sqrt(n) * 2)) ** 2)
    return _identity(item, "delta", gaussian_hockey_stick_by_integration(mu, eps),
                     {"tau_l": scale_ceiling(), "tau_g": scale_ceiling(), "n_leapfrog": scale_ceiling(),
                      "N": scale_ceiling(), "k": scale_ceiling(), "epsilon": scale_ceiling()},
                     "sympy's integral of phi(x - mu) - e^eps phi(x) over the likelihood-ratio set, mu^2 = k ratio "
                     "releases of 1/(tau sqrt N) and k (L + 1) gradient releases of 2 L_c / (2 tau_g sqrt(N) L_c)",
                     "an identity: the conclusion is the exact delta of the composed Gaussian releases")


_SENSITIVITY_REASON = ("a sensitivity statement: a supremum over datasets and parameters of a clipped sum, whose value "
                       "is the clip's width by construction (checked symbolically and on random datasets); it has no "
                       "inequality between closed forms to enclose")
_ZCDP_REASON = ("the zCDP conversion epsilon = rho + 2 sqrt(rho log(1/delta)) is an upper bound whose exact comparator "
                "(the Gaussian curve's epsilon at delta) is the root of a transcendental equation with no closed form; "
                "the bound is checked against it numerically (above_exact_gaussian_epsilon)")

FORMS: list[ItemForm] = [
    ItemForm("yildirim2019.lem_clipped_ratio_sensitivity", not_provable=_SENSITIVITY_REASON),
    ItemForm("yildirim2019.thm_penalty_step_gaussian", (Part("rdp", _step_rdp),)),
    ItemForm("yildirim2019.cor_penalty_composition", not_provable=_ZCDP_REASON),
    ItemForm("raisa2021.thm_dp_penalty_privacy", (Part("delta", _penalty_delta),)),
    ItemForm("raisa2021.lem_gradient_sensitivity", not_provable=_SENSITIVITY_REASON),
    ItemForm("raisa2021.thm_dp_hmc_privacy", (Part("delta", _hmc_delta),)),
]
