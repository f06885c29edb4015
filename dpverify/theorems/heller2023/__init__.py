"""G. Heller, E. Fetaya. Can Stochastic Gradient Langevin Dynamics Provide Differential Privacy for Deep Learning?
SaTML 2023 (arXiv:2110.05057): the theorem catalogue.

Two items, both **reconstructed** (only the abstract could be read): a faithful, exactly solvable instance of the
negative result -- the posterior is as private as desired (``heller2023.prop_posterior_private``) while SGLD's state
before convergence has a privacy loss that grows without bound in its start (``heller2023.thm_interim_unbounded``).
See :mod:`dpverify.theorems.heller2023.interim`; the must-fail audit case is ``sgld_interim``.
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.heller2023 import interim

__all__ = ["THEOREMS"]

#: Every heller2023 item, in catalogue order.
THEOREMS = catalogue.in_order(interim.THEOREMS)
