"""T. Cebere, A. Bellet, N. Papernot. Tighter Privacy Auditing of DP-SGD in the Hidden State Threat Model. ICLR 2025
(arXiv:2405.14457): the theorem catalogue.

Two items, **reconstructed** (the abstract and introduction were read, not the body): with a crafted gradient at every
step, DP-SGD's last iterate is exactly as private as its path (``cebere2025.thm_crafted_gradient_every_step``, the
full-batch case, exact; :mod:`dpverify.theorems.cebere2025.crafted`; must-fail case
``dp_sgd_crafted_gradient_last_iterate``); under Poisson subsampling it is a Binomial mixture of Gaussians, below the
path's privacy (equal at q = 1) and far above one step's (``cebere2025.thm_crafted_gradient_subsampled``, derived
here; :mod:`dpverify.theorems.cebere2025.subsampled`; must-fail case
``dp_sgd_crafted_gradient_subsampled_last_iterate``).
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.cebere2025 import crafted, subsampled

__all__ = ["THEOREMS"]

#: Every cebere2025 item, in catalogue order.
THEOREMS = catalogue.in_order(crafted.THEOREMS + subsampled.THEOREMS)
