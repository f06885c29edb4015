"""S. Gopi, Y. T. Lee, D. Liu. Private Convex Optimization via Exponential Mechanism. COLT 2022.

The theorem catalogue of this paper (issue 39). Two curve-valued (Gaussian DP) items, both reconstructed (the body was
not read: :mod:`dpverify.theorems.gopi2022.gdp` says what was):

- ``gopi2022.thm_gdp_strongly_convex_lipschitz`` -- exp(-F) vs exp(-F~) with F m-strongly convex and F~ - F
  L-Lipschitz is (L / sqrt(m))-GDP (R-high; tight for the Gaussian mechanism);
- ``gopi2022.thm_regularized_em_gdp`` -- the regularised exponential mechanism exp(-k (F + mu |x|^2 / 2)) with
  F the mean of N convex G-Lipschitz losses is (2 G sqrt(k) / (N sqrt(mu)))-GDP under replace-one (R-med).

Two utility items (:mod:`dpverify.theorems.gopi2022.utility`, reconstructed, derived and proved there):

- ``gopi2022.lem_excess_risk_of_sampling`` -- F convex on R^d, x ~ exp(-k F): E F(x) - min F <= d / k (the classical
  lemma of Kalai and Vempala 2006 / Bassily, Smith, Thakurta 2014; equality for the Laplace family) (R-high);
- ``gopi2022.cor_regularized_em_excess_risk`` -- the regularised mechanism's excess empirical risk against any x* with
  |x*| <= R is at most d / k + mu R^2 / 2; calibrated to mu_gdp and optimised over mu, 2 sqrt(2) G R sqrt(d) /
  (N mu_gdp) (R-med).

Usage::

    from dpverify.theorems import registry
    registry.get("gopi2022.thm_regularized_em_gdp").evaluate(L=1, m=1, beta=100, N=50).mu_gdp   # 0.4
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.gopi2022 import gdp, utility

__all__ = ["THEOREMS"]

#: Every gopi2022 item, in catalogue order.
THEOREMS = catalogue.in_order(gdp.THEOREMS + utility.THEOREMS)
