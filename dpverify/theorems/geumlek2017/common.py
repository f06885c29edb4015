"""Shared pieces of the Geumlek, Song, Chaudhuri 2017 catalogue: symbols, source and empirical links.

J. Geumlek, S. Song, K. Chaudhuri. Rényi Differential Privacy Mechanisms for Posterior Sampling. NeurIPS 2017
(arXiv:1710.00892).

**What was read, and what was not.** The paper's own text (statements, numbering, figures) could not be read from the
material available to this project: only its abstract (NeurIPS proceedings metadata: "we re-examine the inherent privacy
of releasing a single sample from a posterior distribution ... exploit the impact of the prior distribution ... focus
on sampling from an exponential family ... propose novel RDP mechanisms ... each method is capable of achieving
arbitrary RDP privacy guarantees"), and a public implementation that names and uses its two mechanisms
("Diffuse" -- the counts weighted by ``r`` -- and "Concentrated" -- a stronger prior; the reinforcement-learning code of
Ponnoprat's Dirichlet paper, which budgets them with ``2 r^2 lambda psi_1(...)`` and ``2 lambda psi_1(...)``). Every
item of this package is therefore marked ``reconstructed`` (:class:`~dpverify.theorems.base.Source`), its item named by
section and content rather than by a number that was not seen, with a confidence grade:

- ``R-high`` -- the closed-form Rényi divergence of two exponential-family posteriors (the identity every RDP analysis of
  conjugate posterior sampling starts from; re-derived here);
- ``R-med`` -- the Diffuse / Concentrated posterior mechanisms on the beta-Bernoulli model and their RDP bound
  (mechanisms confirmed by the implementation above; the bound is the curvature bound below with the beta's
  log-normaliser, which equals Ponnoprat's Theorem 1 at K = 2);
- ``UNCERTAIN`` -- the general statement "(lambda, lambda l Delta^2 / 2)-RDP for a curvature bound l": the form of the
  paper's general theorem (its constants, whether it is stated through a curvature bound on an extended parameter set)
  is what a reader of the paper must confirm. The encoded statement is proved here (checks), so it is true whatever
  the paper's form; what is uncertain is only that it is the paper's.

The symbol names are the keyword names of :meth:`Theorem.evaluate`: ``alpha`` the Rényi order (the paper's lambda),
``a_1, b_1, a_2, b_2`` two beta laws, ``curvature`` the curvature bound ``l``, ``sensitivity`` the distance ``Delta``
of neighbouring posterior parameters, ``a_min`` the smallest posterior concentration (the prior's), ``weight`` the
Diffuse Posterior's ``r``.
"""
from __future__ import annotations

import sympy as sp

from dpverify.theorems import symbols as sy
from dpverify.theorems.base import EmpiricalLink, Source

__all__ = ["SYMBOLS", "source", "link", "log_beta"]

#: This paper's symbols, keyword name -> the entry of the catalogue's symbol table.
SYMBOLS: dict[str, sp.Symbol] = sy.pick("alpha", "a_1", "b_1", "a_2", "b_2", "curvature", "sensitivity", "a_min",
                                        "weight")


def source(item: str, location: str, confidence: str) -> Source:
    """A reconstructed :class:`Source` in Geumlek et al. 2017 (see the module docstring for what was read)."""
    return Source("geumlek2017", item, location, reconstructed=True, confidence=confidence)


def link(sampler: str, description: str) -> EmpiricalLink:
    """The reference sampler ``sampler`` and its audit file ``audits/test_<sampler>.py``."""
    return EmpiricalLink(sampler, f"audits/test_{sampler}.py", description)


def log_beta(a, b):
    """``log B(a, b) = log Gamma(a) + log Gamma(b) - log Gamma(a + b)`` (sympy): the log-normaliser of ``Beta(a, b)``."""
    return sp.loggamma(a) + sp.loggamma(b) - sp.loggamma(a + b)
