"""Privacy amplification by subsampling.

- :func:`beimel_subsampling`: Beimel, Kasiviswanathan, Nissim 2010/2014 as quoted by Wang et al. 2015,
  Lemma 4: if M is (eps, delta)-DP with eps < 1, running it on a random gamma-fraction of the data
  is (2 gamma eps, delta)-DP. The quoted lemma assumes eps < 1; we enforce it.
- :func:`amplify_poisson`: the tight bound for Poisson subsampling with rate q under add/remove
  adjacency: eps' = log(1 + q (e^eps - 1)), delta' = q delta (Balle, Barthe, Gaboardi 2018, Thm 8;
  Li, Qardaji, Su 2012).
- :func:`amplify_substitution`: subsampling without replacement of m out of n records (q = m / n)
  under substitution (replace-one) adjacency: eps' = log(1 + q (e^eps - 1)), delta' = q delta
  (Balle, Barthe, Gaboardi 2018, Thm 9).

All are computed as log(1 - q + q e^eps) = logaddexp(log1p(-q), log q + eps), exact for eps up to
hundreds and q down to 1e-300.
"""
from __future__ import annotations

import math

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_real, check_sampling_rate
from dpverify.calculus.guarantees import ApproxDP

__all__ = ["beimel_subsampling", "amplify_poisson", "amplify_substitution", "amplified_epsilon"]


def amplified_epsilon(epsilon: float, q: float) -> float:
    """log(1 + q (e^eps - 1)), computed stably (q in (0, 1], eps >= 0)."""
    eps = check_real("epsilon", epsilon, low=0.0)
    q = check_sampling_rate(q, "q")
    if q == 1.0:
        return eps
    return float(np.logaddexp(math.log1p(-q), math.log(q) + eps))


def beimel_subsampling(epsilon: float, delta: float, gamma: float) -> ApproxDP:
    """(2 gamma eps, delta) for an (eps, delta)-DP mechanism run on a gamma-fraction, eps < 1.

    Wang et al. 2015, Lemma 4 (quoting Beimel et al.). ``gamma`` in (0, 1].
    """
    eps = check_real("epsilon", epsilon, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    d = check_delta(delta)
    g = check_sampling_rate(gamma, "gamma")
    return ApproxDP(2.0 * g * eps, d)


def amplify_poisson(epsilon: float, delta: float, q: float) -> ApproxDP:
    """(log(1 + q (e^eps - 1)), q delta): Poisson subsampling, add/remove adjacency (BBG 2018, Thm 8)."""
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    q = check_sampling_rate(q, "q")
    return ApproxDP(amplified_epsilon(eps, q), q * d)


def amplify_substitution(epsilon: float, delta: float, q: float) -> ApproxDP:
    """(log(1 + q (e^eps - 1)), q delta): sampling m of n without replacement, q = m/n, replace-one
    adjacency (Balle, Barthe, Gaboardi 2018, Thm 9)."""
    eps = check_epsilon(epsilon)
    d = check_delta(delta)
    q = check_sampling_rate(q, "q")
    return ApproxDP(amplified_epsilon(eps, q), q * d)
