"""A pair's privacy-loss law as masses on cells: what the budget ceiling reads (:mod:`dpverify.audit.ceiling`).

:class:`LossMasses` holds, for cells of the output (or of the loss), the cell's P-mass ``p[j]``, Q-mass ``q[j]`` and the
loss ``losses[j]`` assigned to it, with what the cells are (``basis``) and whether they are the pair's own law
(``exact``). Samplers whose pair has a closed-form or grid-computed law return one from ``pair_privacy_loss``: the
conjugate posteriors (:func:`dpverify.calculus.conjugate_renyi.beta_pair_loss_masses`), the Barker test's composed
loss (:func:`dpverify.calculus.barker.composed_loss_masses`), the negative results' Gaussian pairs
(:mod:`dpverify.samplers.negative_results`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from dpverify.validation import check_delta

__all__ = ["LossMasses"]


@dataclass(frozen=True)
class LossMasses:
    """``L = log dP/dQ`` takes ``losses[j]`` with probability ``p[j]`` under P and ``q[j]`` under Q (no infinite
    atoms); ``basis`` says what the cells are, ``exact`` whether they are the pair's own law (an upper bound on the
    loss otherwise)."""

    losses: np.ndarray
    p: np.ndarray
    q: np.ndarray
    basis: str
    exact: bool = True

    def masses(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
        """``(losses, p, q, p_inf, q_inf)`` with no infinite atoms (:func:`dpverify.audit.ceiling.ceiling_from_masses`)."""
        return self.losses, self.p, self.q, 0.0, 0.0

    def delta(self, epsilon: float, forward: bool = True) -> float:
        """The hockey-stick divergence of the cells: ``sum (p - e^eps q)_+`` (forward) or ``sum (q - e^eps p)_+``."""
        a, c = (self.p, self.q) if forward else (self.q, self.p)
        return float(np.sum(np.maximum(a - math.exp(epsilon) * c, 0.0)))

    def epsilon(self, delta: float) -> float:
        """The smallest epsilon with both directions' hockey-stick divergence of the cells <= ``delta`` (0 when
        already; ``inf`` beyond 1e4)."""
        d = check_delta(delta, allow_zero=False)
        out = 0.0
        for forward in (True, False):
            if self.delta(0.0, forward) <= d:
                continue
            hi = 1.0
            while self.delta(hi, forward) > d:
                hi *= 2.0
                if hi > 1e4:
                    return math.inf
            out = max(out, brentq(lambda e: self.delta(e, forward) - d, 0.0, hi, xtol=1e-12))
        return out
