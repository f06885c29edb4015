"""Balle & Wang (ICML 2018): the analytic Gaussian mechanism, a supporting item of the catalogue.

"Improving the Gaussian Mechanism for Differential Privacy: Analytical Calibration and Optimal Denoising". The
catalogue's four papers lean on its Theorem 8 (Wang et al. 2015's Gaussian mechanism is checked against it, the
accountants' per-step profiles are its formula), and the reference sampler ``analytic_gaussian_mechanism`` claims it,
so it is encoded once, here:

- :mod:`dpverify.theorems.balle2018.gaussian` -- Theorem 8: the Gaussian mechanism is (eps, delta)-DP iff
  ``Phi(Delta/(2 sigma) - eps sigma/Delta) - e^eps Phi(-Delta/(2 sigma) - eps sigma/Delta) <= delta``.

Usage::

    from dpverify.theorems import registry
    registry.get("balle2018.thm8_analytic_gaussian").evaluate(sensitivity=1, sigma=1, epsilon=1).delta_exact
    # 0.1269
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.balle2018 import gaussian

__all__ = ["THEOREMS"]

#: Every balle2018 item, in catalogue order (the registry registers them).
THEOREMS = catalogue.in_order(gaussian.THEOREMS)
