"""M. S. M. S. Annamalai. It's Our Loss: No Privacy Amplification for Hidden State DP-SGD With Non-Convex Loss.
AISec 2024 (arXiv:2407.06496): the theorem catalogue.

One item, **reconstructed** (only the abstract was read): a latching non-convex loss whose last DP-SGD iterate leaks
nearly as much as the whole path and far more than the linear-loss last iterate
(``annamalai2024.thm_nonconvex_last_iterate``). See :mod:`dpverify.theorems.annamalai2024.latch`; the must-fail audit
case is ``dp_sgd_nonconvex_last_iterate``.
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.annamalai2024 import latch

__all__ = ["THEOREMS"]

#: Every annamalai2024 item, in catalogue order.
THEOREMS = catalogue.in_order(latch.THEOREMS)
