"""Exact pair epsilon by quadrature (dpverify.audit.exact) against closed forms."""
import math

import numpy as np
import pytest

from dpverify.audit.exact import (
    hockey_stick,
    mechanism_log_densities,
    pair_epsilon,
    pure_epsilon,
)
from dpverify.audit.known_bad import RandomizedResponse, gaussian_query
from dpverify.calculus.mechanisms.gaussian import gaussian_delta, gaussian_epsilon
from dpverify.calculus.mechanisms.laplace import laplace_delta, laplace_epsilon


def laplace_pair(mu):
    return (lambda x: -abs(x) - math.log(2.0)), (lambda x: -abs(x - mu) - math.log(2.0))


def gauss_pair(mu):
    c = 0.5 * math.log(2 * math.pi)
    return (lambda x: -0.5 * x * x - c), (lambda x: -0.5 * (x - mu) ** 2 - c)


@pytest.mark.parametrize("mu,eps", [(1.0, 0.0), (1.0, 0.5), (2.0, 0.3), (0.5, 0.49)])
def test_hockey_stick_laplace_and_gaussian(mu, eps):
    # Closed forms of the lead's dpverify.calculus.mechanisms (Laplace: max(0, 1 - e^{(eps - mu)/2});
    # Gaussian: Balle & Wang 2018, Thm 8).
    lp, lq = laplace_pair(mu)
    assert hockey_stick(lp, lq, eps, points=(0.0, mu)) == pytest.approx(laplace_delta(eps, mu), rel=1e-8, abs=1e-13)
    gp, gq = gauss_pair(mu)
    assert hockey_stick(gp, gq, eps, points=(0.0, mu)) == pytest.approx(gaussian_delta(eps, mu), rel=1e-7, abs=1e-13)


# At delta = 1e-10, quad reports roundoff (IntegrationWarning) on the far Gaussian tail piece; the
# result still matches the closed form to 1e-8, which is what this test checks.
@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")
@pytest.mark.parametrize("delta", [1e-10, 1e-5, 1e-2, 0.2])
def test_pair_epsilon_matches_closed_forms(delta):
    lp, lq = laplace_pair(1.0)
    assert pair_epsilon(lp, lq, delta, points=(0.0, 1.0)) == pytest.approx(laplace_epsilon(delta, 1.0), abs=1e-8)
    gp, gq = gauss_pair(0.8)
    assert pair_epsilon(gp, gq, delta, points=(0.0, 0.8)) == pytest.approx(gaussian_epsilon(delta, 0.8), abs=1e-8)


def test_pure_epsilon_is_the_sup_of_the_log_ratio():
    lp, lq = laplace_pair(1.3)
    assert pure_epsilon(lp, lq, bounds=(-5, 5)) == pytest.approx(1.3, abs=1e-9)
    assert pair_epsilon(lp, lq, 0.0, bounds=(-5, 5)) == pytest.approx(1.3, abs=1e-9)
    with pytest.raises(ValueError, match="bounds"):
        pair_epsilon(lp, lq, 0.0)
    # Disjoint supports: infinite.
    u0 = lambda x: 0.0 if 0 <= x <= 1 else -math.inf
    u1 = lambda x: 0.0 if 0.5 <= x <= 1.5 else -math.inf
    assert pure_epsilon(u0, u1, bounds=(-1, 2)) == math.inf


def test_quadrature_on_a_mechanism_agrees_with_its_exact_epsilon():
    # The generic path (mechanism.log_density -> quadrature) vs AdditiveNoise.exact_epsilon (closed form).
    mech = gaussian_query(0.5, 1e-5, drop_log_factor=True)
    d0, d1 = np.array([0.0]), np.array([1.0])
    lp, lq = mechanism_log_densities(mech, d0, d1)
    assert pair_epsilon(lp, lq, 1e-5, points=(0.0, 1.0)) == pytest.approx(mech.exact_epsilon(d0, d1, 1e-5), abs=1e-7)
    with pytest.raises(ValueError, match="log_density"):
        mechanism_log_densities(lambda d, n, rng: None, d0, d1)


def test_randomized_response_exact_epsilon_matches_discrete_epsilon():
    # RandomizedResponse.exact_epsilon (closed form log((p - delta)/(1 - p))) against the lead's
    # dpverify.calculus.mechanisms.exponential.discrete_epsilon on the two pmfs.
    from dpverify.calculus.mechanisms.exponential import discrete_epsilon

    rr = RandomizedResponse(1.0)
    lp = np.log([rr.p, 1 - rr.p])
    for delta in (0.0, 0.05, 0.3):
        assert rr.exact_epsilon(np.array([0]), np.array([1]), delta) == pytest.approx(
            discrete_epsilon(lp, lp[::-1], delta), abs=1e-9)
    assert rr.exact_epsilon(np.array([1]), np.array([1]), 0.0) == 0.0
