"""The exact privacy of what a linear-Gaussian chain releases: its final iterate or a sample set.

Input: the run's Gaussian steps (sensitivity ``d_s``, noise ``sigma_s``, batch scheme with inclusion rate ``q_s``;
:mod:`dpverify.calculus.mechanism_description`), the chain's :class:`~dpverify.calculus.linear_dynamics.LinearDynamics`
and the release (:mod:`dpverify.calculus.releases`).

Each window ``(t_{j-1}, t_j]`` of the release is one shift-mixture pair (:mod:`.shift_mixture`): with
``gain_s = gain_{t_j, s}`` the released coordinate's standard deviation is ``V_j^{1/2} = (sum_s gain_s^2
sigma_s^2)^{1/2}`` and the pair is ``law(sum_s w_s b_s + Z)`` vs ``law(Z)`` with ``w_s = gain_s d_s / V_j^{1/2}`` and
``b_s ~ Bernoulli(q_s)``. A sample set is the composition of its windows (the bijection of
:mod:`dpverify.calculus.releases`, valid for a one-dimensional state: a hidden momentum carries information from one
window to the next, so for SGHMC only the final iterate is computed here); the final iterate is one window of the
whole run.

What the pair is, per neighbouring relation:

- add/remove with Poisson sampling (Li et al. 2019, Alg. 1) or full batches: the canary present vs absent; the other
  records' contributions are the same law under both datasets and independent of the canary's inclusion, so the pair
  with the largest data term (the sensitivity) is a post-processing-dominating pair of *every* adjacent pair -- the
  value is the mechanism's exact privacy for this release;
- replace-one with fixed-size batches (Wang et al. 2015, Alg. 2; Bertazzi et al. 2025, eq. 31): the pair of a
  canary record against N copies of its counterpart (the other records' terms then cancel between the two datasets
  whatever the batch), the structure of the per-step dominating pair (Balle, Barthe, Gaboardi 2018). That it is the
  worst pair for a *hidden-state* release is not proven (the batch's other records are not independent of the
  canary's inclusion), so the value is exact for that pair and a lower bound on the mechanism's privacy for the
  release; the path's PLD remains the proven upper bound (:meth:`ReleasePrivacy.worst_case` says which).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dpverify.calculus.accounting.pld import DEFAULT_INTERVAL, DEFAULT_TAIL_MASS, PrivacyLossDistribution, gaussian_pld
from dpverify.calculus.accounting.shift_mixture import DEFAULT_SHIFT_TOLERANCE, shift_mixture_pld
from dpverify.calculus.linear_dynamics import LinearDynamics
from dpverify.calculus.releases import ReleaseSpec, check_release, release_name, release_windows

__all__ = ["WindowPair", "ReleasePrivacy", "release_window_pairs", "release_privacy"]


@dataclass(frozen=True)
class WindowPair:
    """One window's pair, in units of its noise standard deviation: ``weights`` (``w_s``), ``rates`` (``q_s``), the
    released coordinate's standard deviation ``std`` (``V_j^{1/2}``, in the data's units) and ``gains``."""

    start: int
    end: int
    weights: np.ndarray
    rates: np.ndarray
    gains: np.ndarray
    std: float

    @property
    def full_batch(self) -> bool:
        return bool(np.all(self.rates >= 1.0))

    @property
    def mu(self) -> float:
        """For full batches, the Gaussian pair's ``mu = |sum_s w_s|`` (mean gap / std)."""
        return abs(float(np.sum(self.weights)))

    def mixture_weights(self) -> np.ndarray:
        """The gains as the non-negative weights of a shift mixture: as they are, or mirrored when all are <= 0
        (``law(-W + Z)`` vs ``law(Z)`` is the mirror image of the pair with W: the same privacy). A ``ValueError``
        when they change sign (an oscillating update: the privacy loss is then not monotone). Full-batch windows
        never need this (:attr:`mu`)."""
        w = self.weights
        if np.all(w >= 0):
            return w
        if np.all(w <= 0):
            return -w
        raise ValueError(f"the gains of steps {self.start}..{self.end} change sign (an oscillating update): the "
                         "privacy loss is not monotone, not covered by the exact computation")


def _step_arrays(steps) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sensitivity, noise std, inclusion rate) of every step of a run's Gaussian steps."""
    sens, noise, rate = [], [], []
    for s in steps:
        if not hasattr(s, "noise_std"):
            raise ValueError(f"the exact release privacy needs Gaussian steps only; got {s!r}")
        sens.append(s.sensitivity)
        noise.append(s.noise_std)
        rate.append(s.sampling.rate)
    return np.array(sens, dtype=float), np.array(noise, dtype=float), np.array(rate, dtype=float)


def release_window_pairs(steps, dynamics: LinearDynamics, release: ReleaseSpec) -> list[WindowPair]:
    """The shift-mixture pair of every window of ``release`` (module docstring). ``steps``: the run's Gaussian steps
    in order (one per step of ``dynamics``). A ``ValueError`` says why when the release is not covered (a momentum
    state with several windows; a gain that changes sign; a step without noise)."""
    release = check_release(release)
    d, sigma, q = _step_arrays(steps)
    n = dynamics.n_steps
    if d.size != n:
        raise ValueError(f"the run has {d.size} steps but its dynamics {n}")
    windows = release_windows(release, n)
    if dynamics.state_dim > 1 and len(windows) > 1:
        raise ValueError(f"the {release_name(release)} release of a chain with a hidden {dynamics.state_dim}-"
                         "dimensional state (momentum) is not a composition of independent windows; only its final "
                         "iterate is computed exactly")
    out = []
    for start, end in windows:
        g = dynamics.gains(start, end)
        ds, ss, qs = d[start - 1:end], sigma[start - 1:end], q[start - 1:end]
        var = float(np.sum((g * ss) ** 2))
        if not var > 0:
            raise ValueError(f"the released coordinate has no noise after steps {start}..{end}")
        std = math.sqrt(var)
        out.append(WindowPair(start, end, g * ds / std, qs, g, std))
    return out


@dataclass(frozen=True)
class ReleasePrivacy:
    """The exact privacy of one release of a linear-Gaussian run: its PLD (rigorous bracket), the windows, and
    ``worst_case`` -- True when the pair is the mechanism's worst case (add/remove with Poisson or full batches),
    False when it is exact for the canary pair only (replace-one with fixed-size batches; module docstring)."""

    release: ReleaseSpec
    pld: PrivacyLossDistribution
    windows: tuple
    worst_case: bool

    def epsilon_bounds(self, delta: float) -> tuple[float, float]:
        return self.pld.epsilon_bounds(delta)

    def epsilon(self, delta: float) -> float:
        """The upper end of the bracket of epsilon(delta)."""
        return self.pld.epsilon(delta)

    @property
    def basis(self) -> str:
        kind = "the mechanism's worst case" if self.worst_case else "the canary pair (identical other records)"
        return f"exact {release_name(self.release)} release, {kind}: {len(self.windows)} window(s), {self.pld.basis}"


def release_privacy(steps, dynamics: LinearDynamics, release: ReleaseSpec, neighbouring: str, *,
                    interval: float = DEFAULT_INTERVAL, tail_mass: float = DEFAULT_TAIL_MASS,
                    shift_tolerance: float = DEFAULT_SHIFT_TOLERANCE) -> ReleasePrivacy:
    """The exact privacy of ``release`` (module docstring) as a :class:`ReleasePrivacy`. ``steps`` must be a tuple of
    Gaussian steps (hashable; results are cached)."""
    steps = tuple(steps)
    release = check_release(release)
    pld, windows = _release_pld(steps, dynamics, release, interval, tail_mass, shift_tolerance)
    rates = np.array([s.sampling.rate for s in steps])
    worst = neighbouring == "add_remove" or bool(np.all(rates >= 1.0))
    return ReleasePrivacy(release, pld, windows, worst)


@lru_cache(maxsize=32)
def _release_pld(steps: tuple, dynamics: LinearDynamics, release: ReleaseSpec, interval: float, tail_mass: float,
                 shift_tolerance: float):
    pairs = release_window_pairs(steps, dynamics, release)
    if all(p.full_batch for p in pairs):  # Gaussian windows compose exactly: one Gaussian with mu^2 = sum mu_j^2
        mu = math.sqrt(sum(p.mu ** 2 for p in pairs))
        return gaussian_pld(mu, interval=interval, tail_mass=tail_mass), tuple(pairs)
    plds = [shift_mixture_pld(p.mixture_weights(), p.rates, interval=interval, tail_mass=tail_mass,
                              shift_tolerance=shift_tolerance) for p in pairs]
    while len(plds) > 1:  # a balanced tree of convolutions
        plds = [a.compose(b) for a, b in zip(plds[0::2], plds[1::2])] + ([plds[-1]] if len(plds) % 2 else [])
    return plds[0], tuple(pairs)
