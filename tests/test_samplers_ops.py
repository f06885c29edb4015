"""OPS samplers: exact posterior draws, tempering, truncation, exact epsilon vs the claimed 4B and 2C.

KS tests at level 1e-3 (the false-alarm rate of a correct sampler; seeds fixed). Exact-epsilon
cross-checks compare against brute force (a fine grid) and quadrature, which are independent of the
closed forms used in the sampler.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, stats

from dpverify.samplers.ops import (
    OPSBetaBernoulli,
    OPSDirichletCategorical,
    OPSGaussianMean,
    hockey_stick_1d,
    tempering,
)

KS_LEVEL = 1e-3
A0 = 0.05


def _truncated_beta_cdf(a, b, lo, hi):
    dist = stats.beta(a, b)
    flo, fhi = dist.cdf(lo), dist.cdf(hi)
    return lambda x: (dist.cdf(np.clip(x, lo, hi)) - flo) / (fhi - flo)


def _data(n1, n0):
    return np.r_[np.ones(n1, int), np.zeros(n0, int)]


def test_ops_beta_bernoulli_matches_exact_posterior():
    s = OPSBetaBernoulli(a0=A0, alpha0=2.0, beta0=3.0)
    x = s.sample(_data(7, 13), 50000, np.random.default_rng(1))
    assert x.shape == (50000, 1)
    x = x[:, 0]
    assert x.min() >= A0 and x.max() <= 1 - A0
    cdf = _truncated_beta_cdf(9.0, 16.0, A0, 1 - A0)
    assert stats.kstest(x, cdf).pvalue > KS_LEVEL
    # moments: posterior sd ~ 0.09, MC standard error of the mean 0.09/sqrt(5e4) = 4e-4; 5 SE
    ref = stats.beta(9, 16)
    mass = ref.cdf(1 - A0) - ref.cdf(A0)
    mean = integrate.quad(lambda t: t * ref.pdf(t) / mass, A0, 1 - A0)[0]
    assert abs(x.mean() - mean) < 5 * x.std() / math.sqrt(x.size)


def test_tempered_posterior_has_the_right_temperature():
    """eps = 1: rho = 1/(4B) = 1/(-4 log a0); draws must follow Beta(rho(alpha0+n1-1)+1, rho(beta0+n0-1)+1)
    on [a0, 1-a0] (Wang et al. 2015, Alg. 1), and must reject the untempered posterior."""
    s = OPSBetaBernoulli(a0=A0, epsilon=1.0)
    rho = 1.0 / (-4 * math.log(A0))
    assert s.rho == pytest.approx(rho)
    n1, n0 = 300, 700
    x = s.sample(_data(n1, n0), 20000, np.random.default_rng(2))[:, 0]
    right = _truncated_beta_cdf(rho * n1 + 1, rho * n0 + 1, A0, 1 - A0)
    wrong = _truncated_beta_cdf(n1 + 1, n0 + 1, A0, 1 - A0)
    assert stats.kstest(x, right).pvalue > KS_LEVEL
    assert stats.kstest(x, wrong).pvalue < 1e-10
    # variance ratio: tempered/untempered variance ~ 1/rho; the sample variance of 2e4 draws has relative
    # SE sqrt(2/2e4) = 1%, the beta-parameter correction (a+b+1 vs rho(a+b)+1) is < 0.3% here; 5%
    var_untempered = stats.beta(n1 + 1, n0 + 1).var()
    assert x.var() / var_untempered * rho == pytest.approx(1.0, rel=0.05)


def test_foulds_calibration_uses_2c():
    s = OPSBetaBernoulli(a0=0.2, epsilon=1.0, calibration="foulds2016")
    assert s.rho == pytest.approx(1 / (2 * math.log(4)))  # T = 2C/eps = 2.7726 (Foulds eq. 14, 15)
    assert tempering(100.0, 1.0, 1.0) == 1.0


def test_gaussian_ops_matches_truncated_normal():
    s = OPSGaussianMean(sigma=1.0, R=1.0, Theta=0.5, mu0=0.0, tau0=1.0, epsilon=2.0)
    data = np.array([0.9, 0.8, 1.0, 0.7, 0.95] * 4)
    x = s.sample(data, 20000, np.random.default_rng(3))[:, 0]
    assert x.min() >= -0.5 and x.max() <= 0.5
    prec = s.rho * (1 + 20)
    m = data.sum() / 21
    sd = prec**-0.5
    ref = stats.truncnorm((-0.5 - m) / sd, (0.5 - m) / sd, loc=m, scale=sd)
    assert stats.kstest(x, ref.cdf).pvalue > KS_LEVEL


def test_dirichlet_ops_is_truncated_and_tempered():
    s = OPSDirichletCategorical(K=2, a0=0.1, epsilon=2.0)
    x = s.sample(np.array([0] * 30 + [1] * 10), 20000, np.random.default_rng(4))
    assert x.shape == (20000, 2) and np.all(x >= 0.1)
    a, b = s.rho * 30 + 1, s.rho * 10 + 1
    assert stats.kstest(x[:, 0], _truncated_beta_cdf(a, b, 0.1, 0.9)).pvalue > KS_LEVEL


# -- mechanism protocol: log_density and exact_epsilon -------------------------------------------
@pytest.mark.parametrize("sampler", [OPSBetaBernoulli(a0=A0, epsilon=2.0), OPSGaussianMean(Theta=1.0)])
def test_log_density_is_normalised(sampler):
    data = np.array([1, 0, 1, 1]) if isinstance(sampler, OPSBetaBernoulli) else np.array([0.3, -0.2])
    post = sampler.posterior(data)
    total = integrate.quad(lambda t: math.exp(float(sampler.log_density(data, np.array([[t]]))[0])),
                           post.lo, post.hi, points=[post.lo + 1e-9])[0]
    assert total == pytest.approx(1.0, abs=1e-8)


def _brute_force_sup(sampler, d1, d2):
    lo, hi = sampler.posterior(d1).lo, sampler.posterior(d1).hi
    t = np.linspace(lo, hi, 200001)[:, None]
    return np.max(np.abs(sampler.log_density(d1, t) - sampler.log_density(d2, t)))


@pytest.mark.parametrize("n1, n0", [(0, 10), (3, 7), (10, 0), (150, 50)])
def test_exact_epsilon_pure_matches_brute_force_and_bounds(n1, n0):
    s = OPSBetaBernoulli(a0=A0)
    d1 = _data(n1, n0)
    d2 = d1.copy()
    d2[0] = 1 - d2[0]
    eps = s.exact_epsilon(d1, d2, 0.0)
    assert eps == pytest.approx(_brute_force_sup(s, d1, d2), rel=1e-6)
    assert eps <= 2 * s.C + 1e-12 <= 4 * s.B


def test_exact_epsilon_non_adjacent_uses_stationary_point():
    """Datasets of different sizes: the log ratio has an interior stationary point."""
    s = OPSBetaBernoulli(a0=A0)
    d1, d2 = _data(5, 5), _data(8, 9)
    assert s.exact_epsilon(d1, d2, 0.0) == pytest.approx(_brute_force_sup(s, d1, d2), rel=1e-6)


@settings(max_examples=40, deadline=None)
@given(n1=st.integers(0, 60), n0=st.integers(0, 60), a0=st.floats(0.01, 0.4),
       eps=st.one_of(st.none(), st.floats(0.05, 20.0)))
def test_exact_epsilon_never_exceeds_claims(n1, n0, a0, eps):
    if n1 + n0 == 0:
        n0 = 1
    s = OPSBetaBernoulli(a0=a0, epsilon=eps)
    d1 = _data(n1, n0)
    d2 = d1.copy()
    d2[-1] = 1 - d2[-1]
    exact = s.exact_epsilon(d1, d2, 0.0)
    assert exact <= 4 * s.B * s.rho * (1 + 1e-9)
    assert exact <= 2 * s.C * s.rho * (1 + 1e-9)
    assert s.exact_epsilon(d1, d2, 1e-3) <= exact + 1e-12


def test_hockey_stick_matches_quadrature():
    s = OPSBetaBernoulli(a0=A0)
    p, q = s.posterior(_data(4, 6)), s.posterior(_data(5, 5))
    for eps in (0.0, 0.5, 1.5):
        f = lambda t: max(0.0, math.exp(float(p.logpdf(t))) - math.exp(eps + float(q.logpdf(t))))  # noqa: E731
        ref = integrate.quad(f, A0, 1 - A0, limit=200)[0]
        assert hockey_stick_1d(p, q, eps) == pytest.approx(ref, abs=1e-9)


def test_exact_epsilon_at_delta_meets_delta():
    s = OPSGaussianMean()
    d1, d2 = np.array([0.5, -0.2, 1.0]), np.array([0.5, -0.2, -1.0])
    e = s.exact_epsilon(d1, d2, 1e-3)
    p, q = s.posterior(d1), s.posterior(d2)
    assert max(hockey_stick_1d(p, q, e), hockey_stick_1d(q, p, e)) <= 1e-3 + 1e-9
    assert max(hockey_stick_1d(p, q, e * 0.99), hockey_stick_1d(q, p, e * 0.99)) > 1e-3
    assert e < s.exact_epsilon(d1, d2, 0.0) <= 2 * s.C


# -- claims -------------------------------------------------------------------------------------
def test_claims_come_from_the_catalogue():
    c = OPSBetaBernoulli(a0=A0).guarantee()
    assert c.theorem == "wang2015.thm1_ops_pure_dp" and c.guaranteed
    assert c.epsilon == pytest.approx(-4 * math.log(A0)) and c.delta == 0.0
    assert c.details["foulds2016_thm2_epsilon"] == pytest.approx(2 * math.log((1 - A0) / A0))
    c1 = OPSBetaBernoulli(a0=A0, epsilon=0.5).guarantee()
    assert c1.theorem == "wang2015.alg1_ops_scaled" and c1.epsilon == pytest.approx(0.5)
    c2 = OPSBetaBernoulli(a0=A0, epsilon=50.0).guarantee()
    assert c2.epsilon == pytest.approx(-4 * math.log(A0))  # rho = 1: the untempered 4B
    c3 = OPSBetaBernoulli(a0=A0, epsilon=0.5, calibration="foulds2016").guarantee()
    assert c3.epsilon == pytest.approx(0.5)


# -- bad input ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "build, match",
    [
        (lambda: OPSBetaBernoulli(epsilon=0.0), "epsilon"),
        (lambda: OPSBetaBernoulli(epsilon=float("nan")), "epsilon"),
        (lambda: OPSBetaBernoulli(calibration="x"), "calibration"),
        (lambda: OPSBetaBernoulli(a0=0.7), "a0"),
        (lambda: OPSGaussianMean(R=-1.0), "R"),
    ],
)
def test_bad_parameters(build, match):
    with pytest.raises(ValueError, match=match):
        build()


def test_bad_dataset_and_outputs():
    s = OPSBetaBernoulli()
    with pytest.raises(ValueError, match="0 or 1"):
        s.sample([0, 1, 3], 5, 0)
    with pytest.raises(ValueError, match="n must be"):
        s.sample([0, 1], 0, 0)
    with pytest.raises(ValueError, match="outputs"):
        s.log_density([0, 1], np.array([0.3, 0.4]))
    with pytest.raises(ValueError, match=r"\|x\| <= R"):
        OPSGaussianMean(R=1.0).sample([2.0], 3, 0)


def test_gaussian_claim_details_include_the_lipschitz_bound():
    """Wang et al. 2015, Thm 1 second part: 4 L_x R with L_x = (R + Theta)/sigma^2 (here 3 and R = 1: 12)."""
    c = OPSGaussianMean(sigma=1.0, R=1.0, Theta=2.0).guarantee()
    assert c.details["wang2015_thm1_lipschitz_epsilon"] == pytest.approx(12.0)
    assert c.details["foulds2016_thm2_epsilon"] == pytest.approx(8.0)  # 2C, C = ((R+Theta)^2 - (Theta-R)^2)/2
