"""J. Bok, W. Su, J. M. Altschuler. Shifted Interpolation for Differential Privacy. ICML 2024 (arXiv:2403.00278).

The theorem catalogue of this paper: three Gaussian-DP statements for the last iterate of noisy gradient descent,
encoded from the authors' public code (the theorems' pages were not read: :mod:`dpverify.theorems.bok2024.noisy_gd`
says what was):

- ``bok2024.thm_noisy_gd_strongly_convex_gdp`` -- full-batch NoisyGD, strongly convex smooth losses (exact on
  quadratics);
- ``bok2024.thm_noisy_cgd_strongly_convex_gdp`` -- cyclic batches (NoisyCGD), strongly convex smooth losses;
- ``bok2024.thm_noisy_gd_constrained_convex_gdp`` -- projected NoisyGD, convex smooth losses on a bounded set.

Usage::

    from dpverify.theorems import registry
    registry.get("bok2024.thm_noisy_gd_strongly_convex_gdp").evaluate(S_g=1, N=10, sigma=1, eta=0.01, m=1, M=1,
                                                                      k=100).mu   # 0.8007
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.bok2024.noisy_gd import THEOREMS as _NOISY_GD

__all__ = ["THEOREMS"]

#: Every bok2024 item, in catalogue order.
THEOREMS = catalogue.in_order(_NOISY_GD)
