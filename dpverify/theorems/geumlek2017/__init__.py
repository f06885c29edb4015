"""Geumlek, Song, Chaudhuri (NeurIPS 2017): the theorem catalogue.

"Rényi Differential Privacy Mechanisms for Posterior Sampling" (arXiv:1710.00892). Every ``geumlek2017.*`` item of
:mod:`dpverify.theorems.catalogue` is a :class:`~dpverify.theorems.base.Theorem` listed in :data:`THEOREMS`
(catalogue order). All are **reconstructed**: the paper's text could not be read here, so its item numbers are not
cited and each item carries a confidence grade (:mod:`dpverify.theorems.geumlek2017.common` says what was read and
what a reader of the paper must confirm):

- :mod:`dpverify.theorems.geumlek2017.expfam` -- the closed-form Rényi divergence of two exponential-family posteriors
  (``geumlek2017.lem_expfam_renyi``, R-high) and the RDP of one posterior draw from a curvature bound on the
  log-normaliser (``geumlek2017.thm_expfam_rdp_curvature``, UNCERTAIN as to the paper's form);
- :mod:`dpverify.theorems.geumlek2017.beta` -- the Diffuse / Concentrated Posterior on the beta-Bernoulli model
  (``geumlek2017.alg_diffuse_concentrated_beta``, R-med), with the exact RDP by enumeration over adjacent datasets.

Usage::

    from dpverify.theorems import registry
    registry.get("geumlek2017.alg_diffuse_concentrated_beta").evaluate(alpha=2, a_min=1, weight=0.5).rdp  # 2.4674
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.geumlek2017 import beta, expfam

__all__ = ["THEOREMS"]

#: Every geumlek2017 item, in catalogue order (the registry registers them: :mod:`dpverify.theorems.registry`).
THEOREMS = catalogue.in_order(expfam.THEOREMS + beta.THEOREMS)
