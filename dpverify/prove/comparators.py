"""Rigorous comparators: the true privacy of the mechanisms the catalogue speaks about, as sympy expressions.

Each function returns an expression in the symbols it is given, which the prover encloses in interval arithmetic
(:mod:`dpverify.prove.compile`). Each is pinned in ``tests/test_prove_comparators.py`` against the float
implementation of :mod:`dpverify.calculus` it mirrors.

- :func:`gaussian_delta` -- the exact hockey-stick divergence of N(0, 1) and N(mu, 1) at epsilon (Balle and Wang
  2018, Thm 8): the privacy profile of the Gaussian mechanism with ``mu = sensitivity / sigma``;
- :func:`gaussian_rdp` -- the Renyi divergence of order alpha of the same pair, ``alpha mu^2 / 2`` (Mironov 2017,
  Prop. 7);
- :func:`laplace_epsilon` -- the pure-DP epsilon of the Laplace mechanism, ``sensitivity / scale`` (Dwork et al.
  2006): the largest log-ratio of the two Laplace densities;
- :func:`randomized_response_epsilon` -- ``log(p / (1 - p))`` for randomized response reporting the truth with
  probability ``p >= 1/2``;
- :func:`amplified_epsilon` -- ``log(1 + q (e^eps - 1))``: an eps-DP mechanism on a q-subsample (Poisson under
  add/remove, or a uniform subset under replace-one; Balle, Barthe and Gaboardi 2018, Thms 8 and 9), tight;
- :func:`optimal_composition_delta` -- the least delta of k-fold adaptive composition of (eps, delta)-DP
  mechanisms at a total epsilon (Kairouz, Oh and Viswanath 2015, Thm 3.3; Murtagh and Vadhan 2016 for the form):
  ``1 - (1 - delta)^k (1 - sum_l C(k, l) max(0, e^{(k-l) eps} - e^{eps_g + l eps}) / (1 + e^eps)^k)``;
- :func:`two_fold_composition_delta` -- the same for two mechanisms with different (eps_i, delta_i) (the product
  of their dominating pairs; Kairouz et al. 2015, Sec. 3.3);
- :func:`sampled_gaussian_log_moment` -- the log moment of the Poisson-sampled Gaussian at an integer order
  ``lambda`` (the moments accountant's ``alpha(lambda)``; Abadi et al. 2016; its exact binomial form at integer
  orders, Mironov, Talwar and Zhang 2019, Sec. 3.3): ``log sum_k C(lambda + 1, k) (1 - q)^{lambda + 1 - k} q^k
  exp((k^2 - k) / (2 sigma^2))``.
"""
from __future__ import annotations

import sympy as sp

__all__ = [
    "normal_cdf",
    "gaussian_delta",
    "gaussian_rdp",
    "laplace_epsilon",
    "randomized_response_epsilon",
    "amplified_epsilon",
    "optimal_composition_delta",
    "two_fold_composition_delta",
    "sampled_gaussian_log_moment",
]


def normal_cdf(x: sp.Expr) -> sp.Expr:
    """``Phi(x) = erfc(-x / sqrt(2)) / 2``."""
    return sp.erfc(-x / sp.sqrt(2)) / 2


def gaussian_delta(epsilon: sp.Expr, mu: sp.Expr) -> sp.Expr:
    """``Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)`` (Balle and Wang 2018, Thm 8)."""
    return normal_cdf(mu / 2 - epsilon / mu) - sp.exp(epsilon) * normal_cdf(-mu / 2 - epsilon / mu)


def gaussian_rdp(alpha: sp.Expr, mu: sp.Expr) -> sp.Expr:
    """``alpha mu^2 / 2`` (Mironov 2017, Prop. 7)."""
    return alpha * mu**2 / 2


def laplace_epsilon(sensitivity: sp.Expr, scale: sp.Expr) -> sp.Expr:
    """``sensitivity / scale``: the largest log-ratio of Laplace(f(D), b) and Laplace(f(D'), b) densities."""
    return sensitivity / scale


def randomized_response_epsilon(p: sp.Expr) -> sp.Expr:
    """``log(p / (1 - p))``."""
    return sp.log(p / (1 - p))


def amplified_epsilon(epsilon: sp.Expr, rate: sp.Expr) -> sp.Expr:
    """``log(1 + q (e^eps - 1))`` (Balle, Barthe and Gaboardi 2018, Thms 8-9)."""
    return sp.log(1 + rate * (sp.exp(epsilon) - 1))


def optimal_composition_delta(epsilon: sp.Expr, delta: sp.Expr, k: sp.Symbol, epsilon_total: sp.Expr) -> sp.Expr:
    """The least delta of the k-fold composition of (eps, delta)-DP mechanisms at ``epsilon_total`` (Kairouz, Oh
    and Viswanath 2015, Thm 3.3): the hockey-stick divergence of the k-fold product of the dominating pair.
    ``k`` must be an integer symbol, evaluated at points (a ``Sum`` up to it).

    Each term ``max(0, e^{(k-l) eps} - e^{eps_g + l eps})`` is written ``e^{(k-l) eps} max(0, 1 - e^{eps (g - k +
    2l)})`` with ``g = eps_g / eps`` simplified: the same number, but its enclosure is exactly 0 wherever ``g - k +
    2l >= 0``, and with eps factored out the bracket's enclosure does not suffer from eps appearing twice."""
    ell = sp.Dummy("ell_", integer=True, nonnegative=True)
    ratio = sp.simplify(epsilon_total / epsilon)
    pure = sp.Sum(sp.binomial(k, ell) * sp.exp((k - ell) * epsilon)
                  * sp.Max(0, 1 - sp.exp(epsilon * (ratio - k + 2 * ell))),
                  (ell, 0, k)) / (1 + sp.exp(epsilon)) ** k
    return 1 - (1 - delta) ** k * (1 - pure)


def two_fold_composition_delta(eps1: sp.Expr, delta1: sp.Expr, eps2: sp.Expr, delta2: sp.Expr,
                               epsilon_total: sp.Expr) -> sp.Expr:
    """The least delta of the composition of an (eps1, delta1)- and an (eps2, delta2)-DP mechanism at
    ``epsilon_total``: the hockey-stick divergence of the product of the two dominating pairs (each: an atom of
    mass delta seen by one side only, and randomized response with the rest)."""
    pure = 0
    for a in (0, 1):
        for b in (0, 1):
            # a = 1: the first randomized response reports the outcome the first side prefers
            # max(0, p - e^{eps_g} q) with p = e^{a eps1 + b eps2}, q = e^{(1-a) eps1 + (1-b) eps2}, as
            # p max(0, 1 - e^{eps_g - (2a-1) eps1 - (2b-1) eps2}) (exactly 0 where the exponent is >= 0)
            p = sp.exp(a * eps1 + b * eps2)
            pure += p * sp.Max(0, 1 - sp.exp(epsilon_total - (2 * a - 1) * eps1 - (2 * b - 1) * eps2))
    pure = pure / ((1 + sp.exp(eps1)) * (1 + sp.exp(eps2)))
    return 1 - (1 - delta1) * (1 - delta2) * (1 - pure)


def sampled_gaussian_log_moment(rate: sp.Expr, sigma: sp.Expr, lam: sp.Symbol) -> sp.Expr:
    """``log sum_{k=0}^{lam+1} C(lam+1, k) (1-q)^{lam+1-k} q^k exp((k^2 - k) / (2 sigma^2))``: the log moment
    ``alpha(lam)`` of the Poisson-sampled Gaussian at an integer order (the Renyi divergence of order lam + 1 times
    lam). ``lam`` must be an integer symbol, evaluated at points."""
    k = sp.Dummy("k_", integer=True, nonnegative=True)
    order = lam + 1
    return sp.log(sp.Sum(sp.binomial(order, k) * (1 - rate) ** (order - k) * rate**k
                         * sp.exp((k**2 - k) / (2 * sigma**2)), (k, 0, order)))
