"""K. Minami, H. Arai, I. Sato, H. Nakagawa. Differential Privacy without Sensitivity. NeurIPS 2016.

The theorem catalogue of this paper (issue 39). Three items, all reconstructed (the paper's body was not read:
:mod:`dpverify.theorems.minami2016.gibbs` says what was):

- ``minami2016.thm_gibbs_posterior_dp`` -- the Gibbs posterior with a convex L-Lipschitz loss and an m-strongly
  log-concave prior is (epsilon, delta)-DP if beta <= epsilon / (2 L) sqrt(m / (1 + 2 log(1/delta))) (UNCERTAIN as to
  the printed form; proved here for epsilon <= 1, false for large epsilon);
- ``minami2016.lem_gibbs_privacy_loss_concentration`` -- the proof's concentration bound
  epsilon = a^2/2 + a sqrt(2 log(1/delta)), a = 2 beta L / sqrt(m) (R-high);
- ``minami2016.prop_approximate_sampling`` -- an approximate sampler within TV gamma of the Gibbs posterior for every
  dataset is (epsilon, delta + (1 + e^epsilon) gamma)-DP (R-med; exact instance: ULA,
  :mod:`dpverify.theorems.minami2016.approximate`).

Usage::

    from dpverify.theorems import registry
    registry.get("minami2016.thm_gibbs_posterior_dp").evaluate(epsilon=1, delta=1e-5, L=1, m=1, beta=0.1).beta_max
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.minami2016 import approximate, gibbs

__all__ = ["THEOREMS"]

#: Every minami2016 item, in catalogue order.
THEOREMS = catalogue.in_order(gibbs.THEOREMS + approximate.THEOREMS)
