"""T. Cebere, A. Bellet, N. Papernot. Tighter Privacy Auditing of DP-SGD in the Hidden State Threat Model. ICLR 2025
(arXiv:2405.14457): the theorem catalogue.

One item, **reconstructed** (the abstract and introduction were read, not the body): with a crafted gradient at every
step, DP-SGD's last iterate is exactly as private as its path (``cebere2025.thm_crafted_gradient_every_step``, the
full-batch case, exact). See :mod:`dpverify.theorems.cebere2025.crafted`; the must-fail audit case is
``dp_sgd_crafted_gradient_last_iterate``.
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.cebere2025 import crafted

__all__ = ["THEOREMS"]

#: Every cebere2025 item, in catalogue order.
THEOREMS = catalogue.in_order(crafted.THEOREMS)
