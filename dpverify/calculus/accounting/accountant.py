"""An RDP accountant for compositions of Poisson-subsampled Gaussian steps and RDP curves.

State: one RDP value per order, starting at 0; composing adds curves order by order
(Mironov 2017, Prop. 1); the (epsilon, delta) answer minimises a conversion over the orders
(:mod:`dpverify.calculus.conversions`). The interface mirrors dp-accounting's ``RdpAccountant``
(``supports`` / ``compose`` / ``get_epsilon`` / ``get_delta``, a ledger; the shared template is
:class:`~dpverify.calculus.accounting.base.PrivacyAccountant`), with pure data for items instead of DpEvent
objects (an RDP curve, :class:`SampledGaussianSteps`, a mechanism description), and the answers returned as
:class:`~dpverify.calculus.guarantees.Conversion` so the optimal order and the conversion used travel with the number.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.validation import (
    check_delta,
    check_epsilon,
    check_orders,
    check_positive_int,
    check_real,
    check_sampling_rate,
    describe_value,
)
from dpverify.calculus.accounting.base import PrivacyAccountant
from dpverify.calculus.accounting.described import is_description, is_pure_dp_release
from dpverify.calculus.accounting.sampled_gaussian import check_sigma, log_a_matrix, rdp_sampled_gaussian
from dpverify.calculus.conversions import rdp_to_delta, rdp_to_dp
from dpverify.calculus.guarantees import Conversion, RenyiDP

__all__ = ["DEFAULT_ORDERS", "RdpAccountant", "SampledGaussianSteps", "epsilon_sampled_gaussian"]

#: dp-accounting 0.6's ``DEFAULT_RDP_ORDERS``, value for value (1.1 .. 10.9 by 0.1, 11 .. 63,
#: 128, 256, 512, 1024), so epsilons agree with it on the same orders.
DEFAULT_ORDERS: tuple[float, ...] = tuple(
    [1 + x / 10.0 for x in range(1, 100)] + [float(a) for a in range(11, 64)] + [128.0, 256.0, 512.0, 1024.0]
)


@dataclass(frozen=True)
class SampledGaussianSteps:
    """Poisson-subsampled Gaussian steps at one ``sampling_rate`` q: noise multiplier ``noise_multipliers[i]``
    (noise std / L2 sensitivity) for ``counts[i]`` steps. Pure data, the item
    :meth:`RdpAccountant.compose_sampled_gaussian` and :meth:`RdpAccountant.compose_sampled_gaussian_schedule` put in
    the ledger; its RDP is
    ``sum_i counts[i] * rdp_SGM(q, sigma_i)`` (Mironov, Talwar, Zhang 2019; Mironov 2017, Prop. 1)."""

    sampling_rate: float
    noise_multipliers: tuple[float, ...]
    counts: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "sampling_rate", check_sampling_rate(self.sampling_rate))
        sigmas = check_sigma(self.noise_multipliers, "noise_multipliers")
        counts = np.asarray(self.counts)
        if counts.shape != sigmas.shape or counts.dtype.kind not in "iu" or np.any(counts < 1):
            raise ValueError(f"counts must be integers >= 1, one per noise multiplier ({sigmas.size}); got "
                             f"{describe_value(self.counts)}")
        object.__setattr__(self, "noise_multipliers", tuple(sigmas.tolist()))
        object.__setattr__(self, "counts", tuple(counts.tolist()))

    @classmethod
    def of_schedule(cls, sampling_rate: float, noise_multipliers) -> "SampledGaussianSteps":
        """One step per entry of ``noise_multipliers`` (a sigma_t schedule), repeated values grouped."""
        sig = check_sigma(noise_multipliers, "noise_multipliers")
        uniq, counts = np.unique(sig, return_counts=True)
        return cls(sampling_rate, tuple(uniq.tolist()), tuple(counts.tolist()))


class RdpAccountant(PrivacyAccountant):
    """Accumulates RDP over a fixed set of orders.

    Items (:meth:`compose`): an RDP curve (:class:`~dpverify.calculus.guarantees.RenyiDP`, with a value at every order
    of the accountant), :class:`SampledGaussianSteps`, or a mechanism description whose steps are Gaussian or pure-DP
    releases (:mod:`~dpverify.calculus.accounting.described`).

    >>> acc = RdpAccountant()
    >>> acc.compose_sampled_gaussian(sampling_rate=256 / 60000, noise_multiplier=1.1, steps=14062)
    RdpAccountant(156 orders)
    >>> round(acc.get_epsilon(1e-5).epsilon, 4)
    2.5966
    >>> acc.ledger[0].count
    14062
    """

    name = "RDP"
    item_noun = "guarantee"
    item_types = (RenyiDP, SampledGaussianSteps)
    expected_items = "a RenyiDP or a mechanism description (or SampledGaussianSteps)"

    def __init__(self, orders=DEFAULT_ORDERS) -> None:
        super().__init__()
        self._orders = check_orders(orders).copy()
        self._rdp = np.zeros(self._orders.size)

    def _state_text(self) -> str:
        return f"{self._orders.size} orders"

    @property
    def orders(self) -> np.ndarray:
        """The Rényi orders (a copy)."""
        return self._orders.copy()

    @property
    def rdp(self) -> np.ndarray:
        """The accumulated RDP at each order (a copy); ``inf`` means no guarantee at that order."""
        return self._rdp.copy()

    @property
    def guarantee(self) -> RenyiDP:
        """The accumulated curve as a :class:`~dpverify.calculus.guarantees.RenyiDP`."""
        return RenyiDP(tuple(self._orders), tuple(self._rdp))

    def compose_sampled_gaussian(self, sampling_rate: float, noise_multiplier: float, steps: int = 1) -> "RdpAccountant":
        """Compose ``steps`` Poisson-subsampled Gaussian steps: rdp += steps * rdp_SGM(q, sigma).

        ``sampling_rate`` q in (0, 1], ``noise_multiplier`` sigma > 0 (noise std / L2 sensitivity),
        ``steps`` an integer >= 1. RDP of one step: Mironov, Talwar, Zhang 2019 (see
        :func:`~dpverify.calculus.accounting.sampled_gaussian.rdp_sampled_gaussian`). The ledger gets
        ``SampledGaussianSteps(q, (sigma,), (1,))`` composed ``steps`` times. Returns ``self``.
        """
        q = check_sampling_rate(sampling_rate)
        sigma = check_real("noise_multiplier", noise_multiplier, low=0.0, low_inclusive=False)
        steps = check_positive_int(steps, "steps")
        return self.compose(SampledGaussianSteps(q, (sigma,), (1,)), steps)

    def compose_sampled_gaussian_schedule(self, sampling_rate: float, noise_multipliers) -> "RdpAccountant":
        """Compose one SGM step per entry of ``noise_multipliers`` (a step-dependent sigma_t).

        rdp += sum_t rdp_SGM(q, sigma_t) (Mironov 2017, Prop. 1; in moments-accountant terms
        Li et al. 2019, Thm. 1 composability). Needed by DP-SGLD with decreasing step sizes.
        Repeated values are computed once (:meth:`SampledGaussianSteps.of_schedule`, the ledger's item). Returns
        ``self``.
        """
        q = check_sampling_rate(sampling_rate)
        return self.compose(SampledGaussianSteps.of_schedule(q, noise_multipliers))

    def supports(self, item: object) -> bool:
        """Whether :meth:`compose` accepts ``item``: an RDP curve with a value at every order of the accountant,
        :class:`SampledGaussianSteps`, or a mechanism description (:mod:`~dpverify.calculus.accounting.described`)
        whose steps are all Gaussian or pure-DP releases."""
        if isinstance(item, RenyiDP):
            return not self._missing_orders(item)
        if isinstance(item, SampledGaussianSteps):
            return True
        return is_description(item) and self.description_refusal(item) is None

    def _why_unsupported(self, item: object) -> str:
        if isinstance(item, RenyiDP):
            return f"this curve: it has no RDP value at the accountant's orders {self._missing_orders(item)[:5]}"
        return super()._why_unsupported(item)

    def _missing_orders(self, curve: RenyiDP) -> list[float]:
        have = set(curve.orders)
        return [a for a in self._orders.tolist() if a not in have]

    def _compose(self, item: Any, count: int) -> None:
        """Add ``count`` times the item's RDP at the accountant's orders: an RDP curve's values; for
        :class:`SampledGaussianSteps`, ``sum_i counts[i] rdp_SGM(q, sigma_i)`` (:func:`log_a_matrix`); for a
        description, per Gaussian step the RDP of the Gaussian ``alpha mu^2 / 2`` (full batch) or the exact RDP of the
        subsampled Gaussian (:func:`~dpverify.calculus.accounting.sampled_gaussian.rdp_sampled_gaussian`), ``inf`` at
        every order for a step without noise; per pure epsilon-DP step ``min(eps, alpha eps^2 / 2)`` (Bun & Steinke
        2016, Prop. 1.4 with Mironov 2017, Prop. 3's bound eps at every order); summed over the steps (Mironov 2017,
        Prop. 1)."""
        if isinstance(item, RenyiDP):
            lookup = dict(zip(item.orders, item.epsilons))
            added = np.array([lookup[a] for a in self._orders.tolist()])
        elif isinstance(item, SampledGaussianSteps):
            sigmas = np.asarray(item.noise_multipliers, dtype=float)
            counts = np.asarray(item.counts, dtype=float)
            added = counts @ self._rdp_per_sigma(item.sampling_rate, sigmas)
        else:
            added = self._steps_rdp(item.steps)
        self._rdp += added if count == 1 else count * added

    def get_epsilon(self, delta: float, method: str = "balle2020") -> Conversion:
        """Smallest epsilon over the orders for the accumulated RDP at ``delta`` (see conversions)."""
        return rdp_to_dp(self._orders, self._rdp, check_delta(delta), method=method)

    def get_delta(self, epsilon: float, method: str = "balle2020") -> Conversion:
        """Smallest delta over the orders for the accumulated RDP at ``epsilon`` (see conversions)."""
        return rdp_to_delta(self._orders, self._rdp, check_epsilon(epsilon), method=method)

    def _steps_rdp(self, steps) -> np.ndarray:
        """The summed RDP of a description's steps at the accountant's orders (:meth:`_compose`)."""
        a = self._orders
        total = np.zeros(a.size)
        for r in steps:
            s = r.step
            if is_pure_dp_release(s):
                total += r.count * np.minimum(s.epsilon, a * s.epsilon**2 / 2)
                continue
            q, mu = s.sampling.rate, s.mu
            if mu == 0:
                continue
            if math.isinf(mu):
                return np.full(a.size, math.inf)
            if q >= 1.0:
                total += r.count * a * mu * mu / 2
            else:
                total += r.count * np.asarray(rdp_sampled_gaussian(q, 1.0 / mu, a), dtype=float)
        return total

    def _rdp_per_sigma(self, q: float, sigmas: np.ndarray) -> np.ndarray:
        return log_a_matrix(q, sigmas, self._orders) / (self._orders - 1.0)


def epsilon_sampled_gaussian(
    noise_multiplier: float,
    sampling_rate: float,
    steps: int,
    delta: float,
    orders=None,
    method: str = "balle2020",
) -> Conversion:
    """epsilon of ``steps`` Poisson-subsampled Gaussian steps at ``delta`` (DP-SGD accounting).

    Exact per-step RDP (Mironov, Talwar, Zhang 2019), composed (Mironov 2017, Prop. 1) and
    converted with ``method`` ("balle2020": Balle et al. 2020 Thm. 21 / Canonne, Kamath, Steinke 2020
    Prop. 12; "mironov2017": Mironov 2017 Prop. 3) over ``orders`` (default :data:`DEFAULT_ORDERS`).
    Reference point: sigma = 1.1, q = 256/60000, 14062 steps, delta = 1e-5 gives 2.596556
    (dp-accounting 0.6 gives 2.596556 too).
    """
    acc = RdpAccountant(DEFAULT_ORDERS if orders is None else orders)
    acc.compose_sampled_gaussian(sampling_rate, noise_multiplier, steps)
    return acc.get_epsilon(delta, method=method)
