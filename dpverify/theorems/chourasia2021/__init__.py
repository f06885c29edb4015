"""Chourasia, Ye, Shokri (NeurIPS 2021): the theorem catalogue.

"Differential Privacy Dynamics of Langevin Diffusion and Noisy Gradient Descent" (arXiv:2102.05855). One item,
the final-state statement the catalogue checks against the exact privacy of linear-Gaussian chains
(:mod:`dpverify.theorems.final_state_check`):

- :mod:`dpverify.theorems.chourasia2021.noisy_gd` -- Theorem 2, the Rényi DP of noisy gradient descent's last
  iterate (``chourasia2021.thm2_noisy_gd_rdp``), with the numpy forms :func:`noisy_gd_rdp_bound` and the exact
  value on a quadratic loss :func:`noisy_gd_exact_final_rdp`.

Usage::

    from dpverify.theorems import registry
    registry.get("chourasia2021.thm2_noisy_gd_rdp").evaluate(alpha=2, S_g=2, m=1, M=1, eta=0.1, sigma=1, N=100,
                                                             k=50).rdp   # 7.34e-4
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.chourasia2021.noisy_gd import THEOREMS as _NOISY_GD
from dpverify.theorems.chourasia2021.noisy_gd import (
    noisy_gd_exact_final_rdp,
    noisy_gd_rdp_bound,
)

__all__ = ["THEOREMS", "noisy_gd_exact_final_rdp", "noisy_gd_rdp_bound"]

#: Every chourasia2021 entry, in catalogue order (the registry registers them: :mod:`dpverify.theorems.registry`).
THEOREMS = catalogue.in_order(_NOISY_GD)
