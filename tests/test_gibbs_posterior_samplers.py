"""The Gibbs posterior and regularised exponential mechanism samplers (dpverify.samplers.gibbs_posterior): draws against
the declared Gaussian law (fixed seeds, tolerances from the sampling error), the exact privacy against the catalogue's
claims (never below the exact epsilon; how loose), the two mechanisms' identity, a broken variant caught by the audit,
and bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from dpverify.audit import audit
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.cases import get_case
from dpverify.samplers import registry
from dpverify.samplers.gibbs_posterior import GibbsPosterior, RegularizedExponentialMechanism
from dpverify.theorems.base import HypothesisError

N_DRAWS = 20_000
#: Kolmogorov critical value at level 1e-3 for n = 20000 (asymptotic): a correct sampler exceeds it w.p. 1e-3
KS_CRITICAL = math.sqrt(-math.log(1e-3 / 2) / 2) / math.sqrt(N_DRAWS)
WORST = (np.array([1.0, 0.0, 0.0, 0.0]), np.array([-1.0, 0.0, 0.0, 0.0]))


def test_registered_with_documented_parameters():
    for sid in ("gibbs_posterior", "gibbs_posterior_regularized_em"):
        assert all(p.range for p in registry.parameters(sid)), sid
    assert get_case("gibbs_posterior").sampler == "gibbs_posterior"
    assert get_case("gibbs_posterior_regularized_em").sampler == "gibbs_posterior_regularized_em"


@pytest.mark.parametrize("dim", [1, 3])
def test_draws_match_the_gibbs_law(dim):
    """Each coordinate of the draws is N(beta sum x_j / m, 1 / m) (KS at level 1e-3, fixed seed), and the
    coordinates are uncorrelated (|r| < 4 / sqrt(n) = 0.028, a 4-sigma bound)."""
    s = GibbsPosterior(beta=0.7, m=2.0, R=1.5, dim=dim, claim="concentration")
    rng = np.random.default_rng(3)
    data = rng.uniform(-1, 1, size=(6, dim))
    data /= np.maximum(1.0, np.linalg.norm(data, axis=1, keepdims=True))
    draws = s.sample(data if dim > 1 else data[:, 0], N_DRAWS, np.random.default_rng(5))
    assert draws.shape == (N_DRAWS, dim)
    mean = 0.7 * data.sum(axis=0) / 2.0
    for j in range(dim):
        assert stats.kstest(draws[:, j], stats.norm(mean[j], 1 / math.sqrt(2.0)).cdf).statistic < KS_CRITICAL
    if dim > 1:
        assert abs(np.corrcoef(draws[:, 0], draws[:, 1])[0, 1]) < 4 / math.sqrt(N_DRAWS)


def test_log_density_is_the_normalised_gaussian():
    s = GibbsPosterior(beta=0.3, m=0.5, dim=2, claim="concentration")
    data = np.array([[0.6, 0.0], [0.0, -0.8]])
    x = np.array([[0.1, -0.2], [2.0, 1.0]])
    mean = 0.3 * data.sum(0) / 0.5
    want = stats.multivariate_normal(mean, np.eye(2) / 0.5).logpdf(x)
    assert np.allclose(s.log_density(data, x), want, rtol=1e-12)


def test_regularized_em_is_the_gibbs_posterior_at_beta_k_over_n():
    """exp(-k (F + mu |x|^2/2)) with F the mean loss is the Gibbs posterior with beta = k / N and prior precision
    k mu: the same law (mean and precision), hence the same pair GDP."""
    data, other = np.array([0.5, -0.2, 0.9, 1.0, 0.0]), np.array([0.5, -0.2, 0.9, -1.0, 0.0])
    rem = RegularizedExponentialMechanism(k=40.0, mu=0.3, N=5)
    gib = GibbsPosterior(beta=40.0 / 5, m=40.0 * 0.3, claim="concentration")
    (m1, p1), (m2, p2) = rem.law(data), gib.law(data)
    assert np.allclose(m1, m2, rtol=1e-13) and p1 == pytest.approx(p2, rel=1e-14)
    assert rem.pair_mu(data, other) == pytest.approx(gib.pair_mu(data, other), rel=1e-13)


def test_worst_pair_is_tight_for_gopi_and_never_above_the_claims():
    """On the worst pair the exact GDP equals Gopi et al.'s mu_gdp (tight) and Minami et al.'s claims are >= the
    exact epsilon; the looseness of each is the ratio exact / claim."""
    rem = RegularizedExponentialMechanism(k=25.0, mu=1.0, N=10)
    data, other = np.r_[1.0, np.zeros(9)], np.r_[-1.0, np.zeros(9)]
    assert rem.pair_mu(data, other) == pytest.approx(rem.mu_gdp, rel=1e-13) == pytest.approx(1.0, rel=1e-13)
    assert rem.guarantee().epsilon == pytest.approx(rem.exact_epsilon(data, other, 1e-5), rel=1e-12)
    for eps in (0.1, 0.5, 1.0):
        for delta in (1e-3, 1e-5, 1e-9):
            s = GibbsPosterior(epsilon=eps, delta=delta)
            exact = s.exact_epsilon(*WORST, delta)
            assert exact <= s.guarantee().epsilon
            assert s.account(delta).epsilon == pytest.approx(exact, rel=1e-12)
    # looseness at the audit case's parameters: exact 0.7415 against the claim 1
    assert GibbsPosterior().exact_epsilon(*WORST, 1e-5) == pytest.approx(0.7415, abs=1e-4)
    lemma = GibbsPosterior(beta=1.0, claim="concentration")
    assert lemma.exact_epsilon(*WORST, 1e-5) / lemma.guarantee().epsilon == pytest.approx(9.997 / 11.60, abs=2e-3)


def test_exact_epsilon_and_pair_abilities():
    s = GibbsPosterior(beta=0.5, m=1.0, claim="concentration")
    mu = s.pair_mu(*WORST)
    assert mu == pytest.approx(1.0, rel=1e-14)  # 2 beta R / sqrt(m)
    assert s.exact_epsilon(*WORST, 1e-5) == pytest.approx(gaussian_epsilon(1e-5, 1.0), rel=1e-14)
    assert s.exact_epsilon(WORST[0], WORST[0], 1e-5) == 0.0
    assert s.exact_epsilon(*WORST, 0.0) == math.inf
    assert s.pair_guarantee(*WORST).mu == pytest.approx(1.0)
    loss = s.pair_privacy_loss(*WORST)
    assert loss.exact and loss.epsilon(1e-5) == pytest.approx(gaussian_epsilon(1e-5, 1.0), rel=1e-3)
    assert s.pair_privacy_loss(WORST[0], WORST[0]) is None


def test_calibration_and_hypotheses():
    s = GibbsPosterior(epsilon=0.5, delta=1e-6, R=2.0, m=3.0)
    assert s.beta == pytest.approx(0.5 / 4.0 * math.sqrt(3.0 / (1 + 2 * math.log(1e6))), rel=1e-11)
    claim = s.guarantee()
    assert claim.guaranteed and claim.epsilon == 0.5 and claim.theorem == "minami2016.thm_gibbs_posterior_dp"
    with pytest.raises(HypothesisError, match="epsilon_at_most_one"):
        GibbsPosterior(epsilon=2.0)
    with pytest.raises(HypothesisError, match="inverse_temperature_small"):
        GibbsPosterior(epsilon=1.0, beta=1.0)
    loose = GibbsPosterior(epsilon=1.0, beta=1.0, unguaranteed=True)
    assert not loose.guarantee().guaranteed


@pytest.mark.parametrize("kwargs, match", [
    ({"claim": "paper"}, "claim must be one of"),
    ({"m": 0.0}, "m must be in"),
    ({"R": -1.0}, "R must be in"),
    ({"delta": 1.0}, "delta"),
    ({"dim": 0}, "dim"),
    ({"beta": -0.1}, "beta must be in"),
])
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GibbsPosterior(**kwargs)


def test_bad_datasets():
    s = GibbsPosterior(R=1.0, dim=2, claim="concentration", beta=0.1)
    with pytest.raises(ValueError, match=r"\|x\| <= R"):
        s.sample(np.array([[1.0, 1.0]]), 3, 0)
    with pytest.raises(ValueError, match="shape"):
        s.sample(np.array([0.1, 0.2]), 3, 0)
    with pytest.raises(ValueError, match="finite"):
        s.sample(np.array([[np.nan, 0.0]]), 3, 0)
    with pytest.raises(ValueError, match="same number of records"):
        s.pair_mu(np.zeros((3, 2)), np.zeros((4, 2)))
    rem = RegularizedExponentialMechanism(N=3)
    with pytest.raises(ValueError, match="exactly N = 3"):
        rem.sample(np.zeros(4), 2, 0)
    with pytest.raises(ValueError, match="k must be in"):
        RegularizedExponentialMechanism(k=0.0)


class _HalfNoise(RegularizedExponentialMechanism):
    """A broken implementation: it declares the regularised exponential mechanism but draws with half the standard
    deviation (a precision 4 k mu): the pair is then 2 mu_gdp-GDP."""

    def sample(self, dataset, n, rng):
        mean, prec = self.law(dataset)
        return mean[None, :] + self._rng(rng).standard_normal((n, self.dim)) / (2.0 * math.sqrt(prec))


def test_mutation_half_noise_is_a_violation():
    """The audit of the broken variant against the declared curve (mu_gdp = 1) finds the violation: with 20000
    samples its certified epsilon exceeds the declared exact epsilon (the halved noise doubles mu: exact 10.0 vs
    4.38 at delta = 1e-5), and the correct sampler on the same seed is consistent."""
    data, other = np.r_[1.0, np.zeros(9)], np.r_[-1.0, np.zeros(9)]
    good = RegularizedExponentialMechanism(k=25.0, mu=1.0, N=10)
    bad = _HalfNoise(k=25.0, mu=1.0, N=10)
    claim = good.pair_guarantee(data, other)
    res_bad = audit(bad, data, other, claim=claim, samples=N_DRAWS, seed=0)
    res_good = audit(good, data, other, claim=claim, samples=N_DRAWS, seed=0)
    assert res_bad.verdict == "violation", res_bad
    assert res_good.verdict != "violation", res_good
