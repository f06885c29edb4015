"""Shared pieces of the Li, Chen, Liu, Carin (AISTATS 2019) catalogue: symbols, sources, the
empirical link to the ``dp_sgld_li`` sampler, and the privacy algebra of Algorithm 1.

The algebra every step-size item reuses (Li et al. 2019, Algorithm 1 and App. A):

- the only data access of step ``t`` is ``(eta_t / tau) sum_{i in J_t} g~(d_i)`` plus the injected
  ``z_t ~ N(0, eta_t / N)``; rescaling by ``tau / (eta_t L)`` gives Lemma 2's mechanism
  ``sum f(d_i) + N(0, sigma^2)`` with ``||f|| <= 1`` and the **noise multiplier**

      sigma_t^2 = tau^2 / (N eta_t L^2) = q^2 N / (eta_t L^2);

- with Lemma 2's leading term the log moment of step ``t`` is ``q^2 lam (lam+1) / ((1-q) sigma_t^2)
  = lam (lam+1) L^2 eta_t / ((1-q) N)``, so ``T`` steps compose to ``K lam (lam+1)`` with
  ``K = L^2 sum_t eta_t / ((1-q) N)``;
- the tail bound ``delta = min_{lam > 0} exp(K lam (lam+1) - lam eps)`` (continuous ``lam``,
  optimum ``lam* = (eps - K) / (2K)``) gives ``log(1/delta) = (eps - K)^2 / (4K)``; the largest
  admissible ``K`` is the small root

      K(eps, l) = eps^2 / (eps + 2 l + 2 sqrt(l^2 + eps l)),   l = log(1/delta).

  So the largest first step of the schedule ``eta_t = eta t^{-1/3}`` (Theorem 3) is
  ``(1-q) N K / (L^2 H_T)`` with ``H_T = sum_{t<=T} t^{-1/3}``, and the largest fixed step (Theorem 4)
  is ``(1-q) N K / (L^2 T)``. Theorem 3's constant is then ``c2^2 = H_T eps^2 / ((1-q) K T^{2/3} l)``:
  App. C's "calculate c2 from the accountant" made explicit.
"""
from __future__ import annotations

import sympy as sp

from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Source

__all__ = [
    "SYMBOLS",
    "symbols",
    "source",
    "LINK",
    "noise_multiplier_sq",
    "k_max",
    "harmonic_third",
]

#: This paper's symbols, keyword name -> the entry of the catalogue's symbol table (:mod:`dpverify.theorems.symbols`).
#: ``T`` counts *iterations* in Li et al. (Algorithm 1: "number of iterations T"): :data:`~dpverify.theorems.symbols.T_iterations`.
SYMBOLS: dict[str, sp.Symbol] = {
    "epsilon": sy.epsilon,
    "delta": sy.delta,
    "L": sy.L,
    "N": sy.N,
    "T": sy.T_iterations,
    "tau": sy.tau,
    "q": sy.q,
    "eta": sy.eta,
    "t": sy.t,
    "sigma": sy.sigma,
    "lam": sy.lam,
    "k": sy.k,
    "mu": sy.mu,
}


def symbols(*names: str) -> dict[str, sp.Symbol]:
    """The named shared symbols (a fresh dict, safe to extend)."""
    return {n: SYMBOLS[n] for n in names}


def source(item: str, location: str) -> Source:
    """A :class:`Source` for Li et al. 2019."""
    return Source("li2019", item, location)


#: Li et al. 2019, Algorithm 1 is implemented by the ``dp_sgld_li`` reference sampler.
LINK = EmpiricalLink(
    "dp_sgld_li",
    "audits/test_dp_sgld_li.py",
    "DP-SGLD of Li et al. 2019, Alg. 1 (clip to L, z_t ~ N(0, eta_t/N)); the audit's epsilon lower "
    "bound must stay below the epsilon this item certifies.",
)


def noise_multiplier_sq(N, q, eta, L):
    """Lemma 2's ``sigma^2`` for one step of Algorithm 1: ``q^2 N / (eta L^2) = tau^2 / (N eta L^2)``
    (Li et al. 2019, Alg. 1 rescaled as in App. A; see the module docstring)."""
    return q**2 * N / (eta * L**2)


def k_max(epsilon, delta):
    """``K(eps, l) = eps^2 / (eps + 2 l + 2 sqrt(l^2 + eps l))``, ``l = log(1/delta)``: the largest total
    log-moment coefficient ``K`` (log moment ``K lam (lam+1)``) whose tail bound
    ``min_lam exp(K lam(lam+1) - lam eps)`` is ``<= delta`` (Abadi et al. 2016 / Li et al. 2019,
    Thm 1 tail bound, continuous ``lam``). Written without the cancelling difference
    ``eps + 2l - 2 sqrt(l^2 + eps l)`` so floats stay accurate."""
    l = sp.log(1 / delta)
    return epsilon**2 / (epsilon + 2 * l + 2 * sp.sqrt(l**2 + epsilon * l))


def harmonic_third(T):
    """``H_T = sum_{t=1}^T t^{-1/3} = zeta(1/3) - zeta(1/3, T+1)`` (Hurwitz zeta; the identity holds by
    analytic continuation), the sum of Theorem 3's step-size profile ``t^{-1/3}``."""
    s = sp.Rational(1, 3)
    return sp.zeta(s) - sp.zeta(s, T + 1)
