"""S. Yildirim, B. Ermis. Exact MCMC with differentially private moves: revisiting the penalty algorithm in a data privacy framework. Statistics and Computing 29 (2019).

The theorem catalogue of this paper (issue 39): :mod:`dpverify.theorems.yildirim2019.penalty` -- the clipped ratio's
sensitivity, one penalty step as a Gaussian mechanism, and the composition over the chain (all reconstructed: the PDF
was not read; the module docstring says what was).
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.yildirim2019 import penalty

__all__ = ["THEOREMS"]

#: Every yildirim2019 item, in catalogue order.
THEOREMS = catalogue.in_order(penalty.THEOREMS)
