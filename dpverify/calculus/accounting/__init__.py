"""Privacy accounting: exact RDP of the subsampled Gaussian, the moments accountant, an RDP accountant.

- :mod:`~dpverify.calculus.accounting.sampled_gaussian` -- ``rdp_sampled_gaussian(q, sigma, orders)`` (Mironov,
  Talwar, Zhang 2019) and its composition over a sigma schedule.
- :mod:`~dpverify.calculus.accounting.moments` -- the moments-accountant view of Li et al. 2019 (Def. 3, Thm. 1,
  Lemma 2, Remark 1).
- :mod:`~dpverify.calculus.accounting.accountant` -- :class:`RdpAccountant` and :func:`epsilon_sampled_gaussian`.
- :mod:`~dpverify.calculus.accounting.pld` -- :class:`PldAccountant` and :class:`PrivacyLossDistribution`: a
  privacy-loss-distribution accountant with a rigorous (lower, upper) bracket on epsilon(delta).
"""
from dpverify.calculus.accounting.accountant import DEFAULT_ORDERS, RdpAccountant, epsilon_sampled_gaussian
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
    "PldAccountant",
    "PrivacyLossDistribution",
    "RdpAccountant",
    "gaussian_pld",
    "identity_pld",
    "pure_dp_pld",
    "subsampled_gaussian_pld",
    "epsilon_sampled_gaussian",
    "rdp_sampled_gaussian",
    "rdp_sampled_gaussian_composed",
]
