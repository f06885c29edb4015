"""Baseline privacy mechanisms with their calibrations and exact privacy profiles.

- :mod:`dpverify.calculus.mechanisms.laplace` -- Laplace mechanism (Dwork et al. 2006; Foulds et al. 2016, eqs. 2-3).
- :mod:`dpverify.calculus.mechanisms.gaussian` -- Gaussian mechanism: classic calibration (Dwork & Roth 2014, Thm A.1;
  Wang et al. 2015, Thm 2) and the analytic Gaussian mechanism (Balle & Wang 2018).
- :mod:`dpverify.calculus.mechanisms.exponential` -- exponential mechanism (McSherry & Talwar 2007; Foulds et al. 2016,
  eqs. 4-5).
"""
from dpverify.calculus.mechanisms.exponential import ExponentialMechanism, exponential_probabilities  # noqa: F401
from dpverify.calculus.mechanisms.gaussian import (  # noqa: F401
    GaussianMechanism,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_delta,
    gaussian_epsilon,
)
from dpverify.calculus.mechanisms.laplace import LaplaceMechanism, laplace_delta, laplace_epsilon, laplace_scale  # noqa: F401
