"""Privacy accounting: exact RDP of the subsampled Gaussian, the moments accountant, the RDP and PLD accountants.

- :mod:`~dpverify.calculus.accounting.sampled_gaussian` -- ``rdp_sampled_gaussian(q, sigma, orders)`` (Mironov,
  Talwar, Zhang 2019) and its composition over a sigma schedule.
- :mod:`~dpverify.calculus.accounting.moments` -- the moments-accountant view of Li et al. 2019 (Def. 3, Thm. 1,
  Lemma 2, Remark 1).
- :mod:`~dpverify.calculus.accounting.base` -- :class:`PrivacyAccountant`, the accountants' one base class
  (dp_accounting's design: ``supports`` / ``compose(item, count)`` / ``get_epsilon`` / ``get_delta`` and a ledger).
- :mod:`~dpverify.calculus.accounting.accountant` -- :class:`RdpAccountant` and :func:`epsilon_sampled_gaussian`.
- :mod:`~dpverify.calculus.accounting.pld` -- :class:`PldAccountant` and :class:`PrivacyLossDistribution`: a
  privacy-loss-distribution accountant with a rigorous (lower, upper) bracket on epsilon(delta).
- :mod:`~dpverify.calculus.accounting.descriptions` -- what the accountants answer for a mechanism description
  (``account``, its PLD and RDP, the exact privacy of its release); not imported here (it loads ``scipy.signal``).
"""
from dpverify.calculus.accounting.accountant import (
    DEFAULT_ORDERS,
    RdpAccountant,
    SampledGaussianSteps,
    epsilon_sampled_gaussian,
)
from dpverify.calculus.accounting.base import LedgerEntry, PrivacyAccountant
from dpverify.calculus.accounting.pld import (
    PldAccountant,
    PrivacyLossDistribution,
    gaussian_pld,
    identity_pld,
    pure_dp_pld,
    subsampled_gaussian_pld,
)
from dpverify.calculus.accounting.sampled_gaussian import rdp_sampled_gaussian, rdp_sampled_gaussian_composed

__all__ = [
    "DEFAULT_ORDERS",
    "LedgerEntry",
    "PldAccountant",
    "PrivacyAccountant",
    "PrivacyLossDistribution",
    "RdpAccountant",
    "SampledGaussianSteps",
    "gaussian_pld",
    "identity_pld",
    "pure_dp_pld",
    "subsampled_gaussian_pld",
    "epsilon_sampled_gaussian",
    "rdp_sampled_gaussian",
    "rdp_sampled_gaussian_composed",
]
