"""O. Räisä, A. Koskela, A. Honkela. Differentially Private Hamiltonian Monte Carlo. arXiv:2106.09376 (2021).

The theorem catalogue of this paper (issue 39): :mod:`dpverify.theorems.raisa2021.dp_hmc` -- DP-penalty's and
DP-HMC's privacy as composed Gaussian mechanisms and the clipped gradient's sensitivity (reconstructed from the
authors' code: the module docstring says what was read).
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.raisa2021 import dp_hmc

__all__ = ["THEOREMS"]

#: Every raisa2021 item, in catalogue order.
THEOREMS = catalogue.in_order(dp_hmc.THEOREMS)
