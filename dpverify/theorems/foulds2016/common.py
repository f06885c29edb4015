"""Shared pieces of the Foulds et al. 2016 catalogue: symbols, source and empirical links.

J. Foulds, J. Geumlek, M. Welling, K. Chaudhuri. On the Theory and Practice of
Privacy-Preserving Bayesian Data Analysis. UAI 2016.

The symbol names are the keyword names of :meth:`Theorem.evaluate` (shared across the four papers of the catalogue):

- ``epsilon`` privacy level, ``delta`` (eps, delta)-DP slack or the L1 closeness of Prop. 3;
- ``C`` Foulds' Delta log Pr(theta, X) = max |log Pr(x'|theta) - log Pr(x|theta)| (eqs. 7-9);
- ``B`` sup |log Pr(x|theta)| (Theorem 3); ``a0`` the truncation level of eq. 15;
- ``temperature`` the temperature of eqs. 10/14; ``sensitivity`` a generic sensitivity
  (Delta h of eq. 2, Delta u of eq. 5);
- ``N`` the number of data points (and of latent variables theta_l in Sec. 4.1), ``Q`` the number
  of theta_l updated by a random-scan Gibbs sampler, ``k`` a number of compositions (posterior
  samples -- the paper's q in Sec. 2.2 -- or Gibbs updates), ``T`` a number of Gibbs iterations.
"""
from __future__ import annotations

import sympy as sp

from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Source

__all__ = ["SYMBOLS", "source", "link"]

#: This paper's symbols, keyword name -> the entry of the catalogue's symbol table (:mod:`dpverify.theorems.symbols`).
SYMBOLS: dict[str, sp.Symbol] = {
    "epsilon": sy.epsilon,
    "delta": sy.delta,
    "C": sy.C,
    "B": sy.B,
    "a0": sy.a0,
    "temperature": sy.temperature,
    "sensitivity": sy.sensitivity,
    "N": sy.N,
    "Q": sy.Q,
    "k": sy.k,
    "T": sy.T_iterations,
    "epsilon_1": sy.epsilon_1,
    "epsilon_2": sy.epsilon_2,
    "delta_1": sy.delta_1,
    "delta_2": sy.delta_2,
}


def source(item: str, location: str) -> Source:
    """A :class:`Source` in Foulds et al. 2016."""
    return Source("foulds2016", item, location)


def link(sampler: str, description: str) -> EmpiricalLink:
    """The reference sampler ``sampler`` (``dpverify samplers list``) and its audit file ``audits/test_<sampler>.py``."""
    return EmpiricalLink(sampler, f"audits/test_{sampler}.py", description)
