"""Foulds et al. 2016 samplers: Laplace-mechanism posterior (eqs. 16-17), private Gibbs (eq. 19), and the
Figure 2 trend. Seeds fixed; tolerances from the MC error, derivations in comments."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpverify.calculus.mechanisms.exponential import discrete_epsilon, exponential_probabilities
from dpverify.samplers.foulds import (
    LaplacePosteriorBetaBernoulli,
    PrivateGibbsBernoulliMixture,
    figure2_table,
    project_counts,
)
from dpverify.theorems import registry

KS_LEVEL = 1e-3


# -- Laplace mechanism on sufficient statistics ---------------------------------------------------
def test_laplace_scale_is_the_catalogue_scale():
    s = LaplacePosteriorBetaBernoulli(epsilon=0.3)
    ev = registry.get("foulds2016.eq16_laplace_sufficient_stats").evaluate(epsilon=0.3)
    assert s.scale == pytest.approx(ev.scale) == pytest.approx(2 / 0.3)
    c = s.guarantee()
    assert (c.epsilon, c.delta, c.guaranteed) == (0.3, 0.0, True)


@settings(max_examples=60, deadline=None)
@given(s1=st.floats(-50, 80), s0=st.floats(-50, 80), N=st.integers(1, 60))
def test_simplex_projection_is_the_euclidean_projection(s1, s0, N):
    proj = project_counts(np.array([s1, s0]), N)
    assert proj.sum() == pytest.approx(N) and np.all(proj >= 0)
    # brute force over the feasible segment {(t, N - t): 0 <= t <= N}
    t = np.linspace(0, N, 20001)
    best = t[np.argmin((t - s1) ** 2 + (N - t - s0) ** 2)]
    assert proj[0] == pytest.approx(best, abs=N / 20000 + 1e-9)


def test_nonnegative_projection_clips_only():
    np.testing.assert_array_equal(project_counts(np.array([-2.0, 5.5]), 3, "nonnegative"), [0.0, 5.5])
    with pytest.raises(ValueError, match="projection"):
        project_counts(np.array([1.0, 2.0]), 3, "l2")


def test_negligible_noise_gives_the_exact_posterior():
    """eps = 1e7: the noise (scale 2e-7) is negligible, so draws follow Beta(1 + n1, 1 + n0) and the mean
    release is (1 + n1)/(2 + N)."""
    data = np.r_[np.ones(12, int), np.zeros(28, int)]
    s = LaplacePosteriorBetaBernoulli(epsilon=1e7)
    x = s.sample(data, 20000, np.random.default_rng(0))[:, 0]
    assert stats.kstest(x, stats.beta(13, 29).cdf).pvalue > KS_LEVEL
    m = LaplacePosteriorBetaBernoulli(epsilon=1e7, release="mean").sample(data, 5, 1)
    np.testing.assert_allclose(m, 13 / 42, atol=1e-7)
    t = LaplacePosteriorBetaBernoulli(epsilon=1e7, a0=0.35).sample(data, 2000, 2)
    assert np.all((t >= 0.35) & (t <= 0.65))


def test_noisy_statistics_have_laplace_noise():
    """Simplex projection away from the boundary: n1_hat = n1 + (Y1 - Y2)/2 with Y_j ~ Laplace(b = 2/eps).
    W = Y1 - Y2 has density (1 + |w|/b) e^{-|w|/b} / (4b), hence P(W > z) = e^{-z/b} (2 + z/b) / 4 for z >= 0.
    Recovered from the mean release (1 + n1_hat)/(2 + N)."""
    s = LaplacePosteriorBetaBernoulli(epsilon=0.5, release="mean")
    b, N = 4.0, 1000
    mean = s.release_from_statistics(np.tile([500.0, 500.0], (20000, 1)), np.random.default_rng(3))[:, 0]
    w = 2 * (mean * (N + 2) - 1 - 500)

    def cdf(z):
        tail = np.exp(-np.abs(z) / b) * (2 + np.abs(z) / b) / 4
        return np.where(z >= 0, 1 - tail, tail)

    assert stats.kstest(w, cdf).pvalue > KS_LEVEL


def test_laplace_bad_parameters():
    with pytest.raises(ValueError, match="release"):
        LaplacePosteriorBetaBernoulli(release="median")
    with pytest.raises(ValueError, match="projection"):
        LaplacePosteriorBetaBernoulli(projection="x")
    with pytest.raises(ValueError, match="epsilon"):
        LaplacePosteriorBetaBernoulli(epsilon=0.0)
    with pytest.raises(ValueError, match="0 or 1"):
        LaplacePosteriorBetaBernoulli().sample([0, 1, 2], 2, 0)


# -- private Gibbs ------------------------------------------------------------------------------
def _mixture_data(rng, N=40, M=5):
    cls = np.r_[np.zeros(N // 2), np.ones(N - N // 2)]
    return (rng.uniform(size=(N, M)) < np.where(cls == 1, 0.8, 0.2)[:, None]).astype(int)


def test_z_update_is_the_exponential_mechanism():
    """The z-update probabilities are exponential_probabilities(u, eps, Delta) with utility
    u_k = s log p_k + (M - s) log(1 - p_k) (Foulds eq. 19), computed by dpverify.calculus.mechanisms independently."""
    g = PrivateGibbsBernoulliMixture(epsilon=2.0, M=4, a0=0.05)
    s = np.array([0.0, 1.0, 3.0, 4.0])
    p = np.array([0.2, 0.7])
    n = 40000
    z = g._update_z(np.zeros((n, 4), dtype=np.int64), np.tile(p, (n, 1)), s, np.random.default_rng(4))
    u = s[:, None] * np.log(p) + (4 - s[:, None]) * np.log1p(-p)
    expected = exponential_probabilities(u, 2.0, g.sensitivity)[:, 1]
    # binomial SE <= 0.5/sqrt(4e4) = 2.5e-3; 5 SE
    np.testing.assert_allclose(z.mean(axis=0), expected, atol=0.0125)


def test_each_update_costs_at_most_epsilon():
    """Exact epsilon of one z-update between the most different records (s = 0 vs s = M) at the extreme
    parameters p = (a0, 1 - a0) is <= eps (exponential mechanism at exponent eps/(2 Delta))."""
    g = PrivateGibbsBernoulliMixture(epsilon=0.7, M=3, a0=0.1)
    p = np.array([0.1, 0.9])
    u = lambda s: s * np.log(p) + (3 - s) * np.log1p(-p)  # noqa: E731
    lp = np.log(exponential_probabilities(u(0), 0.7, g.sensitivity))
    lq = np.log(exponential_probabilities(u(3), 0.7, g.sensitivity))
    assert 0.5 * 0.7 < discrete_epsilon(lp, lq) <= 0.7 + 1e-12


def test_p_update_is_the_tempered_truncated_beta():
    g = PrivateGibbsBernoulliMixture(epsilon=3.0, M=2, a0=0.05)
    s = np.array([2.0, 2.0, 1.0, 0.0, 0.0, 0.0])
    z = np.tile([1, 1, 1, 0, 0, 0], (20000, 1))
    p = g._update_p(z, s, np.random.default_rng(5))
    a, b = g.rho * (1 + 5 - 1) + 1, g.rho * (1 + 1 - 1) + 1  # class 1: 5 ones, 1 zero
    ref = stats.beta(a, b)
    cdf = lambda x: (ref.cdf(x) - ref.cdf(0.05)) / (ref.cdf(0.95) - ref.cdf(0.05))  # noqa: E731
    assert stats.kstest(p[:, 1], cdf).pvalue > KS_LEVEL


def test_gibbs_path_and_claim():
    g = PrivateGibbsBernoulliMixture(epsilon=0.5, T=15, M=5)
    path = g.sample(_mixture_data(np.random.default_rng(6)), 64, np.random.default_rng(7))
    assert path.shape == (64, 16, 2)
    assert np.all((path >= 0.05) & (path <= 0.95))
    c = g.guarantee()
    assert c.theorem == "foulds2016.sec4_gibbs_costs"
    assert c.epsilon == pytest.approx(2 * 15 * 0.5)  # T iterations x 2 updates x eps (Foulds Thm 1, Sec. 5)
    assert c.details["epsilon_per_update"] == pytest.approx(0.5)


def test_gibbs_with_large_epsilon_separates_the_classes():
    """eps large enough that rho ~ 1 (non-private Gibbs): the two class probabilities approach 0.2 and 0.8
    (up to label switching). 200 chains x 30 iterations; posterior sd of p_k with 100 emissions ~ 0.04."""
    g = PrivateGibbsBernoulliMixture(epsilon=2 * 5 * math.log(19), T=30, M=5)
    path = g.sample(_mixture_data(np.random.default_rng(8)), 200, np.random.default_rng(9))
    final = np.sort(path[:, -1], axis=1)
    assert abs(np.median(final[:, 0]) - 0.2) < 0.08 and abs(np.median(final[:, 1]) - 0.8) < 0.08


def test_random_scan_updates_at_most_q_latents():
    g = PrivateGibbsBernoulliMixture(epsilon=1.0, M=5, scan="random", Q=3)
    z0 = np.zeros((500, 10), dtype=np.int64)
    z = g._update_z(z0, np.tile([0.05, 0.95], (500, 1)), np.full(10, 5.0), np.random.default_rng(10))
    assert np.all((z != z0).sum(axis=1) <= 3)


def test_gibbs_bad_input():
    with pytest.raises(ValueError, match="Q"):
        PrivateGibbsBernoulliMixture(scan="random")
    with pytest.raises(ValueError, match="scan"):
        PrivateGibbsBernoulliMixture(scan="zigzag")
    with pytest.raises(ValueError, match=r"shape \(N, M=5\)"):
        PrivateGibbsBernoulliMixture(M=5).sample(np.zeros((4, 3)), 2, 0)
    with pytest.raises(ValueError, match="0 or 1"):
        PrivateGibbsBernoulliMixture(M=2).sample(np.full((4, 2), 2), 2, 0)


# -- Foulds Figure 2 ----------------------------------------------------------------------------
def test_figure2_trend():
    """Foulds et al. 2016, Figure 2 (p = 0.1, a0 = 0.05, eps = 0.1): the Laplace-mechanism error decreases
    with N and beats OPS (exponential mechanism at T = 2C/eps) at large N, approaching the non-private
    posterior. Each comparison is required to exceed 3 combined standard errors of the repeat means."""
    rows = figure2_table(Ns=(10, 30, 100, 300, 1000, 3000, 10000), repeats=2000, rng=0)
    lap = [r["laplace"] for r in rows]
    for r0, r1 in zip(rows, rows[1:]):
        assert r0["laplace"] - r1["laplace"] > 3 * math.hypot(r0["laplace_se"], r1["laplace_se"])
    for r in rows:
        if r["N"] >= 100:
            assert r["ops"] - r["laplace"] > 3 * math.hypot(r["ops_se"], r["laplace_se"])
    big = rows[-1]
    assert big["laplace"] < 1.25 * big["posterior"]  # converges to the true posterior's error
    assert big["ops"] > 3 * big["posterior"]  # OPS stays flatter by sqrt((1 + T)/2) (Foulds Thm 5)
    assert lap[0] > 0.3  # tiny N: both private methods are near-useless (paper: errors ~0.3-0.4 at N = 10)
