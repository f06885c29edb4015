"""The Laplace mechanism and its exact privacy profile.

M(D) = f(D) + Lap(0, b)^d with b = Delta_1 f / epsilon is epsilon-DP (Dwork, McSherry, Nissim,
Smith 2006; Foulds et al. 2016, eqs. 2-3).

Exact profile of a pair whose L1 distance is Delta (so mu = Delta / b in units of the scale),
for one coordinate (Balle et al. 2018, "Privacy amplification by subsampling", Sec. 3; also the
hockey-stick of two shifted Laplace laws integrated directly):

    delta(eps) = max(0, 1 - exp((eps - mu) / 2)),   0 <= eps,

so delta(0) = TV = 1 - exp(-mu/2) and delta(eps) = 0 for eps >= mu. Its inverse is
eps(delta) = max(0, mu + 2 log(1 - delta)).
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass

import numpy as np

from dpverify.validation import check_delta, check_epsilon, check_finite_array, check_positive_int, check_real
from dpverify.calculus.guarantees import PrivacyProfile, PureDP

__all__ = ["laplace_scale", "laplace_delta", "laplace_epsilon", "LaplaceMechanism"]


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """Scale b = Delta_1 / epsilon of the epsilon-DP Laplace mechanism (Foulds et al. 2016, eq. 3)."""
    s = check_real("sensitivity", sensitivity, low=0.0, low_inclusive=False)
    eps = check_epsilon(epsilon)
    b = s / eps
    if not math.isfinite(b):
        raise ValueError(f"epsilon must be at least sensitivity / {sys.float_info.max:.6g} = "
                         f"{s / sys.float_info.max:.6g} for a finite Laplace scale sensitivity / epsilon; got "
                         f"epsilon = {eps!r} with sensitivity = {s!r}")
    return b


def laplace_delta(epsilon: float, mu: float) -> float:
    """Exact hockey-stick divergence of Lap(0, 1) vs Lap(mu, 1): max(0, 1 - exp((epsilon - mu)/2)).

    ``epsilon`` >= 0 and ``mu`` >= 0 (the shift in units of the scale). Symmetric in the two laws.
    """
    eps = check_real("epsilon", epsilon, low=0.0)
    m = check_real("mu", mu, low=0.0)
    if eps >= m:
        return 0.0
    return float(-math.expm1((eps - m) / 2.0))


def laplace_epsilon(delta: float, mu: float) -> float:
    """Smallest epsilon with laplace_delta(epsilon, mu) <= delta: max(0, mu + 2 log(1 - delta))."""
    d = check_delta(delta)
    m = check_real("mu", mu, low=0.0)
    return max(0.0, m + 2.0 * math.log1p(-d))


@dataclass(frozen=True)
class LaplaceMechanism:
    """f(D) + Lap(0, sensitivity/epsilon) per coordinate; epsilon-DP for an L1 sensitivity ``sensitivity``.

    ``sample(value, n, rng)`` returns ``n`` outputs of shape ``(n, *value.shape)``.
    """

    sensitivity: float
    epsilon: float

    def __post_init__(self) -> None:
        laplace_scale(self.sensitivity, self.epsilon)  # validates both

    @property
    def scale(self) -> float:
        return laplace_scale(self.sensitivity, self.epsilon)

    @property
    def guarantee(self) -> PureDP:
        return PureDP(self.epsilon)

    def sample(self, value, n: int, rng: np.random.Generator) -> np.ndarray:
        v = check_finite_array(value, "value")
        n = check_positive_int(n, "n")
        return v + rng.laplace(0.0, self.scale, size=(n,) + v.shape)

    def log_density(self, value, outputs) -> np.ndarray:
        """Log density of each output (summed over coordinates)."""
        v = check_finite_array(value, "value")
        out = np.asarray(outputs, dtype=float)
        b = self.scale
        ld = -np.abs(out - v) / b - math.log(2.0 * b)
        return ld.reshape(out.shape[0], -1).sum(axis=1)

    def profile(self, distance: float | None = None) -> PrivacyProfile:
        """Exact privacy profile for a 1-d pair at L1 distance ``distance`` (default: the sensitivity)."""
        d = self.sensitivity if distance is None else check_real("distance", distance, low=0.0)
        mu = d / self.scale
        return PrivacyProfile(lambda e: laplace_delta(e, mu), f"Laplace, mu = {mu:g}")
