"""M. Heikkilä, J. Jälkö, O. Dikmen, A. Honkela. Differentially Private Markov Chain Monte Carlo. NeurIPS 2019.

The theorem catalogue of this paper (reconstructed from the authors' code: the statements' text and numbering were not
read; see :mod:`dpverify.theorems.heikkila2019.barker`):

- ``heikkila2019.thm_barker_step_rdp`` -- the per-iteration Rényi bound of the DP Barker test on a batch;
- ``heikkila2019.thm_subsampled_amplification`` -- its amplification by subsampling without replacement;
- ``heikkila2019.cor_composed_dp`` -- T iterations composed and converted to (epsilon, delta);
- ``heikkila2019.cond_clip_and_noise`` -- the clip bound and the normal part's variance the test needs.

Usage::

    from dpverify.theorems import registry
    registry.get("heikkila2019.thm_barker_step_rdp").evaluate(alpha=10, tau=1000).rdp
"""
from __future__ import annotations

from dpverify.theorems import catalogue
from dpverify.theorems.heikkila2019 import barker

__all__ = ["THEOREMS"]

#: Every heikkila2019 item, in catalogue order.
THEOREMS = catalogue.in_order(barker.THEOREMS)
