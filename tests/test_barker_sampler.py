"""The ``dp_barker`` sampler and :mod:`dpverify.calculus.barker` (Heikkilä et al. 2019): the released laws, the exact
privacy of the canary pair, the claim and the accountant, mutations the checks must reject, and input validation."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from scipy.special import expit

from dpverify.calculus import barker as cb
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.samplers.barker import DPBarker

CANARY = np.array([[1.0]] + [[-1.0]] * 39)
NULL = -np.ones((40, 1))


def _white_box(**kw) -> DPBarker:
    params = dict(N=40, batch_size=20, T=3, step=1.0, proposal="rademacher", release="statistics")
    params.update(kw)
    return DPBarker(**params)


def _mixture_cdf(z, weights, means, variances):
    return np.sum(weights * stats.norm.cdf((np.asarray(z)[:, None] - means) / np.sqrt(variances)), axis=1)


# --- the released law -----------------------------------------------------------------------------------------------
def test_white_box_statistic_has_the_exact_mixture_law():
    """Z_t sign-normalised (20,000 chains, 3 iterations pooled) against the exact hypergeometric mixture of normals
    (KS test, seed 0): p > 0.01. A wrong noise variance, batch scaling, clip or batch law moves the CDF by far more
    than the KS critical distance 1.63 / sqrt(60,000) = 0.0067."""
    s = _white_box()
    out = s.sample(CANARY, 20_000, 0)
    w = (np.sign(out[..., 1]) * out[..., 0]).ravel()
    mix = cb.canary_statistic_mixture(40, 1, 20, 40 * s.clip)
    p = stats.kstest(w, lambda z: _mixture_cdf(z, *mix)).pvalue
    assert p > 0.01


def test_half_noise_variant_is_rejected_by_the_law_check():
    """Mutation: halving the noise of the white-box statistic makes the same KS test fail (p < 1e-6)."""

    class HalfNoise(DPBarker):
        def _statistic(self, X, theta, prop, rng):
            sigma2 = self.sigma2
            try:
                self.sigma2 = sigma2 / 4.0
                return DPBarker._statistic(self, X, theta, prop, rng)
            finally:
                self.sigma2 = sigma2

    s = HalfNoise(N=40, batch_size=20, T=3, step=1.0, proposal="rademacher", release="statistics")
    out = s.sample(CANARY, 20_000, 0)
    w = (np.sign(out[..., 1]) * out[..., 0]).ravel()
    mix = cb.canary_statistic_mixture(40, 1, 20, 40 * s.clip)
    assert stats.kstest(w, lambda z: _mixture_cdf(z, *mix)).pvalue < 1e-6


def _up_acceptance(sampler: DPBarker, X: np.ndarray, n: int, seed: int) -> float:
    """The fraction of upward proposals accepted: twice the fraction of chains that end above the start."""
    out = sampler.sample(X, n, seed)
    return 2.0 * float(np.mean(out[:, 0] > sampler.theta0[0]))


def test_acceptance_is_barker_and_a_dropped_correction_is_detected():
    """Full batch (b = N = 20), all records +1, a fixed step 0.075 from theta0 = 0 (prior N(0, 4)): an upward proposal
    has log target ratio d = 20 * 0.075 - 0.075^2 / 8 = 1.4993 (the clip 1/sqrt(20) = 0.224 > 0.075 is inactive) and
    V_B = 0, so it is accepted with probability ~ expit(d) = 0.8174 (the correction's fit error is < 0.002). Over
    200,000 chains (100,000 upward) the rate is within 0.007 (4 SE of 0.0012 + the fit error) of it. Without the
    correction the probability is Phi(d / sqrt 2) = 0.855, off by 0.037: rejected by the same tolerance."""
    X = np.ones((20, 1))
    kw = dict(N=20, batch_size=20, T=1, step=0.075, proposal="rademacher", release="final")
    want = float(expit(20 * 0.075 - 0.075**2 / 8))
    assert abs(_up_acceptance(DPBarker(**kw), X, 200_000, 3) - want) < 0.007

    class NoCorrection(DPBarker):
        def __init__(self, **params):
            super().__init__(**params)
            self._correction = cb.CorrectionMixture(self.sigma2, np.array([1.0]), np.array([0.0]), 1e-12, 1.0)

    assert abs(_up_acceptance(NoCorrection(**kw), X, 200_000, 3) - want) > 0.02


def test_log_density_is_normalised_and_vectorised():
    """log_density of the white-box view integrates to 1 over (Z, xi) for T = 1 (xi = +-1, quadrature over Z), for
    both datasets of the pair; outputs (n, T, 2) give n values."""
    s = _white_box(T=1)
    z = np.linspace(-12, 12, 24001)
    for X in (CANARY, NULL):
        total = 0.0
        for sign in (-1.0, 1.0):
            out = np.stack([z, np.full_like(z, sign)], axis=-1)[:, None, :]
            total += float(np.trapezoid(np.exp(s.log_density(X, out)), z))
        assert total == pytest.approx(1.0, abs=1e-6)
    assert s.log_density(CANARY, s.sample(CANARY, 7, 1)).shape == (7,)


# --- exact privacy ----------------------------------------------------------------------------------------------
def test_composed_loss_law_matches_the_gaussian_closed_form():
    """Single-component mixtures N(mu, 1) vs N(0, 1), T iterations: the composed law's epsilon equals the Gaussian
    mechanism's at mu sqrt(T) (Balle-Wang) to 2e-3 relative, and never above it (grouping cells of the loss is
    post-processing)."""
    for mu, T in ((0.5, 1), (0.3, 10), (1.0, 4)):
        law = cb.composed_loss_masses(([1.0], [mu], [1.0]), ([1.0], [0.0], [1.0]), T)
        want = gaussian_epsilon(1e-5, mu * math.sqrt(T))
        assert law.epsilon(1e-5) == pytest.approx(want, rel=2e-3)
        assert law.epsilon(1e-5) <= want + 1e-9


def test_exact_epsilon_of_the_audit_pair_and_the_claim_above_it():
    """The audit case's pair (N = 40, b = 20, T = 10): exact 2.116 at 1e-5, under Balle's conversion of the RDP
    accountant (18.7) and the authors' claim (19.64); the exact value grows with T and is None off the canary
    setting."""
    s = _white_box(T=10)
    exact = s.exact_epsilon(CANARY, NULL, 1e-5)
    assert exact == pytest.approx(2.1157, abs=2e-3)
    assert exact < s.account(1e-5).epsilon < s.guarantee().epsilon
    assert s.guarantee().epsilon == pytest.approx(19.6443, abs=1e-3)
    assert _white_box(T=3).exact_epsilon(CANARY, NULL, 1e-5) < exact
    assert DPBarker(N=40, batch_size=20, T=3).exact_epsilon(CANARY, NULL, 1e-5) is None
    masses = s.pair_privacy_loss(CANARY, NULL)
    assert masses is not None and abs(masses.p.sum() - 1) < 1e-9 and abs(masses.q.sum() - 1) < 1e-9


def test_exact_per_iteration_rdp_below_the_step_bound_given_the_batch():
    """Given the batch, one record replaced at the clip: the two released normals' divergence (closed form) against
    quadrature of the densities at alpha = 3, b = 20 (agreement 1e-8), and below the per-iteration bound."""
    b = 20
    c = math.sqrt(b)
    y1 = np.array([c] * 10 + [-c] * 10)
    y2 = y1.copy()
    y2[0] = -c
    m1, v1, m2, v2 = y1.mean(), 2 - y1.var() / b, y2.mean(), 2 - y2.var() / b
    closed = float(cb.gaussian_renyi_divergence(3.0, m1, v1, m2, v2))
    z = np.linspace(-40, 40, 800001)
    log_integrand = 3 * stats.norm.logpdf(z, m1, math.sqrt(v1)) - 2 * stats.norm.logpdf(z, m2, math.sqrt(v2))
    quad = math.log(np.trapezoid(np.exp(log_integrand), z)) / 2
    assert closed == pytest.approx(quad, abs=1e-8)
    assert closed < float(cb.barker_step_rdp(3.0, b))


def test_broken_step_bound_is_rejected_by_the_catalogue_check(monkeypatch):
    """Mutation: a per-iteration bound without its mean term (2 alpha / (b - 5 alpha) dropped) is below the
    divergence of real batches, and the item's check dominates_real_batches fails."""
    from dpverify.theorems import registry

    check = next(c for c in registry.get("heikkila2019.thm_barker_step_rdp").checks
                 if c.name == "dominates_real_batches")
    assert check.run().passed
    honest = cb.barker_step_rdp

    def broken(alpha, b):
        a, bb = np.asarray(alpha, float), np.asarray(b, float)
        return honest(alpha, b) - 2 * a / (bb - 5 * a)

    monkeypatch.setattr(cb, "barker_step_rdp", broken)
    assert not check.run().passed


def test_no_exact_correction_exists():
    """phi_logistic / phi_normal exceeds 1 at sigma^2 = 2 (t = 2) and at sigma^2 = 0.5 (t = 15): no exact correction."""
    assert cb.logistic_over_normal_cf(2.0, 2.0) > 1.2
    assert cb.logistic_over_normal_cf(15.0, 0.5) > 1.0
    assert cb.logistic_over_normal_cf(0.0, 2.0) == pytest.approx(1.0)


# --- the chain ------------------------------------------------------------------------------------------------------
def test_path_shapes_and_chain_moves_towards_the_posterior():
    """Path (n, T + 1, 1) starting at theta0; on 200 records all +1 (posterior of the linear model N(4 * 200 * tau,
    4) truncated by nothing: the drift is upward), a long chain's mean rises above the start."""
    s = DPBarker(N=200, batch_size=100, T=60, step=0.3, release="path", temperature=0.02)
    p = s.sample(np.ones((200, 1)), 500, 5)
    assert p.shape == (500, 61, 1) and np.all(p[:, 0] == 0.0)
    assert p[:, -1].mean() > 0.5
    assert DPBarker(N=40, batch_size=20, T=2).sample(NULL, 3, 0).shape == (3, 1)


@pytest.mark.parametrize("kw, name", [
    ({"batch_size": 41}, "batch_size"), ({"T": 0}, "T"), ({"step": 0.0}, "step"), ({"proposal": "x"}, "proposal"),
    ({"sigma2": 4.0}, "sigma2"), ({"release": "all"}, "release"), ({"temperature": -1.0}, "temperature"),
    ({"clip": 0.0}, "clip"), ({"delta": 0.0}, "delta"),
])
def test_bad_parameters_name_the_argument(kw, name):
    params = dict(N=40, batch_size=20)
    params.update(kw)
    with pytest.raises(ValueError, match=name):
        DPBarker(**params)


def test_hypotheses_refuse_unguaranteed_settings():
    """A clip above sqrt(b) / (N tau_T) or a batch below 20 is refused unless unguaranteed=True (then the claim says
    so); a dataset of the wrong size is a ValueError."""
    with pytest.raises(ValueError, match="clip_within_sqrt_batch"):
        DPBarker(N=40, batch_size=20, clip=1.0)
    assert not DPBarker(N=40, batch_size=20, clip=1.0, unguaranteed=True).guarantee().guaranteed
    with pytest.raises(ValueError, match="batch_size"):
        DPBarker(N=40, batch_size=10)
    with pytest.raises(ValueError, match="N = 40"):
        DPBarker(N=40, batch_size=20).sample(np.ones((39, 1)), 2, 0)
