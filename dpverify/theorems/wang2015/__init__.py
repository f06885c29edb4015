"""Wang, Fienberg, Smola (ICML 2015), "Privacy for Free: Posterior Sampling and Stochastic Gradient
Monte Carlo" (with supplement): the 28 ``wang2015.*`` items of :mod:`dpverify.theorems.catalogue`.

Each part module lists its items in ``THEOREMS``; this package collects them in catalogue order and the
registry registers them on first use::

    from dpverify.theorems import registry
    registry.get("wang2015.thm1_ops_pure_dp").evaluate(B=0.5).epsilon   # 2.0

The items live in four helper modules, one per part of the paper:

- :mod:`dpverify.theorems.wang2015.ops` -- Definitions 1-3, Lemma 1, Theorem 1, Algorithm 1,
  Propositions 1-3 and supplement Proposition 4 (one posterior sample, OPS);
- :mod:`dpverify.theorems.wang2015.dp_tools` -- L2 sensitivity, Lemmas 2-4, Remark 1, Theorem 2
  (the DP calculus Section 4 builds on);
- :mod:`dpverify.theorems.wang2015.sgmcmc` -- Algorithms 2-3, Theorems 3-4, the alpha-phase
  transition and eqs. 4.1-4.5 (DP-SGLD, SGHMC, SGNHT);
- :mod:`dpverify.theorems.wang2015.sgfs` -- supplement Lemmas 5-6, Theorem 5 and Algorithm 4 (DP-SGFS).

Shared symbols and the proof chain of Theorem 4 are in :mod:`dpverify.theorems.wang2015.common`.
"""
from dpverify.theorems import catalogue
from dpverify.theorems.wang2015 import dp_tools, ops, sgfs, sgmcmc

__all__ = ["THEOREMS"]

#: Every wang2015 item, in catalogue order (the registry registers them: :mod:`dpverify.theorems.registry`).
THEOREMS = catalogue.in_order(ops.THEOREMS + dp_tools.THEOREMS + sgmcmc.THEOREMS + sgfs.THEOREMS)
