"""Ponnoprat (arXiv:2110.01984 v2, 2022): the theorem catalogue.

"Differential Privacy of Dirichlet Posterior Sampling". One item:

- :mod:`dpverify.theorems.ponnoprat2022.dirichlet` -- Theorem 1, the Rényi DP of one Dirichlet posterior draw
  (``ponnoprat2022.thm1_dirichlet_rdp``), encoded from the author's code (the PDF was not read; the module docstring
  says what was), with the exact RDP by enumeration over adjacent datasets and the paper's Figure 1 setting.

Usage::

    from dpverify.theorems import registry
    registry.get("ponnoprat2022.thm1_dirichlet_rdp").evaluate(alpha=2, a_min=2, sensitivity=1,
                                                              sensitivity_inf=1).rdp   # pi^2 / 6 = 1.6449
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.ponnoprat2022 import dirichlet

__all__ = ["THEOREMS"]

#: Every ponnoprat2022 item, in catalogue order (the registry registers them: :mod:`dpverify.theorems.registry`).
THEOREMS = catalogue.in_order(dirichlet.THEOREMS)
