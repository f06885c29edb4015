"""DP-penalty and DP-HMC reference samplers (dpverify.samplers.penalty; issue 39).

Which bug would make each test fail:

- the transcript's law: a wrong noise scale (e.g. halved: the mutation test), a missing factor 2 in the clip's
  sensitivity, a white-box statistic that does not replay the chain, a clip that does not saturate on the canary;
- the exact checks: ``account``/``exact_epsilon`` against dp_accounting's PLD accountant and the Gaussian closed form;
- the chains' exactness: a missing penalty ``- s^2/2`` (the mutation test) or a wrong accept rule biases the
  stationary law away from the posterior;
- the misuse: ``no_ll_noise`` must release the noiseless clipped ratio;
- validation: each bad parameter is a ValueError naming it.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import dp_accounting
from dp_accounting.pld import pld_privacy_accountant

from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.models.canary import model_canary_pair
from dpverify.models.linear import LinearLoss
from dpverify.models.logistic import LogisticRegression
from dpverify.samplers import registry
from dpverify.samplers.penalty import DPHMC, DPPenalty

MODEL = LinearLoss(dim=1, R=1.0, prior_variance=4.0)
N = 10
D, E = model_canary_pair(MODEL, N)


def _penalty(**kw):
    params = {"tau": 1.0, "ratio_clip": 1.0, "prop_sd": 0.5, "n_steps": 10, "delta": 1e-5}
    return DPPenalty(MODEL, N, **{**params, **kw})


def _hmc(**kw):
    params = {"tau": 2.0, "tau_g": 2.0, "ratio_clip": 1.0, "L": 1.0, "step_size": 0.3, "n_leapfrog": 3, "n_steps": 5,
              "delta": 1e-5}
    return DPHMC(MODEL, N, **{**params, **kw})


def test_both_are_registered_with_their_theorems():
    assert registry.get("dp_penalty") is DPPenalty and registry.get("dp_hmc") is DPHMC
    assert DPPenalty.theorems[0] == "raisa2021.thm_dp_penalty_privacy"
    assert DPHMC.theorems[0] == "raisa2021.thm_dp_hmc_privacy"


@pytest.mark.parametrize("kw, name", [({"tau": 0.0}, "tau"), ({"ratio_clip": -1.0}, "ratio_clip"),
                                      ({"prop_sd": 0.0}, "prop_sd"), ({"n_steps": 0}, "n_steps"),
                                      ({"delta": 1.5}, "delta"), ({"release": "iterates"}, "release"),
                                      ({"misuse": "iters"}, "misuse"), ({"theta0": [0.0, 1.0]}, "theta0")])
def test_penalty_bad_parameters_name_themselves(kw, name):
    with pytest.raises(ValueError, match=name):
        _penalty(**kw)


@pytest.mark.parametrize("kw, name", [({"tau_g": 0.0}, "tau_g"), ({"L": 0.0}, "L"), ({"step_size": -0.1}, "step_size"),
                                      ({"n_leapfrog": 0}, "n_leapfrog")])
def test_hmc_bad_parameters_name_themselves(kw, name):
    with pytest.raises(ValueError, match=name):
        _hmc(**kw)


def test_dataset_size_is_the_declared_N():
    with pytest.raises(ValueError, match="N = 10"):
        _penalty().sample(D[:5], 3, 0)


def test_shapes_and_reproducibility():
    s, h = _penalty(), _hmc()
    assert s.sample(D, 7, 1).shape == (7, 10, 3)
    assert h.sample(D, 7, 1).shape == (7, 5, (3 + 2) * 1 + 2)
    assert np.array_equal(s.sample(D, 7, 3), s.sample(D, 7, 3))
    assert _penalty(release="final").sample(D, 7, 1).shape == (7, 1)
    assert _hmc(release="final").sample(D, 7, 1).shape == (7, 1)


# -- the claim and the exact checks ------------------------------------------------------------------------------------
def _dp_accounting_epsilon(noise_multipliers_counts, delta):
    events = [dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(noise_multiplier=z), c)
              for z, c in noise_multipliers_counts]
    acc = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_accounting.ComposedDpEvent(events))
    return acc.get_epsilon(delta)


def test_penalty_exact_check_against_dp_accounting_and_closed_form():
    """The canary pair saturates the clip every step: the transcript is exactly k Gaussian mechanisms of noise
    multiplier tau sqrt(N) (mu = sqrt(k)/(tau sqrt N) = 1). account (dpverify's PLD), exact_epsilon and the claim agree
    with the closed form gaussian_epsilon(delta, 1) = 4.37718 to 1e-6 relative, and dp_accounting's PLD accountant
    (discretisation 1e-4, pessimistic) to 1e-5."""
    s = _penalty()
    closed = gaussian_epsilon(1e-5, 1.0)
    assert s.pair_mu(D, E) == pytest.approx(1.0, rel=1e-12)
    assert s.exact_epsilon(D, E, 1e-5) == pytest.approx(closed, rel=1e-12)
    assert s.guarantee().epsilon == pytest.approx(closed, rel=1e-12)
    assert s.account(1e-5).epsilon == pytest.approx(closed, rel=1e-6)
    dpa = _dp_accounting_epsilon([(1.0 * math.sqrt(N), 10)], 1e-5)
    assert dpa == pytest.approx(closed, rel=1e-5) and dpa >= closed * (1 - 1e-9)
    assert s.account(1e-5, method="rdp").epsilon > closed  # the RDP conversion is an upper bound
    assert closed == pytest.approx(4.37718, abs=1e-5)


def test_hmc_exact_check_against_dp_accounting():
    """DP-HMC: k ratio releases (noise multiplier tau sqrt N) and k (L + 1) gradient releases (tau_g sqrt N); the
    canary saturates both clips: mu^2 = 5/40 + 20/40. dpverify's PLD accountant brackets the closed form (its
    discretisation: rel 1e-5), dp_accounting agrees to rel 1e-5."""
    h = _hmc()
    mu = math.sqrt(5 / 40 + 20 / 40)
    assert h.pair_mu(D, E) == pytest.approx(mu, rel=1e-12) and h.declared_mu() == pytest.approx(mu, rel=1e-12)
    closed = gaussian_epsilon(1e-5, mu)
    dpa = _dp_accounting_epsilon([(2.0 * math.sqrt(N), 5), (2.0 * math.sqrt(N), 20)], 1e-5)
    assert h.exact_epsilon(D, E, 1e-5) == pytest.approx(closed, rel=1e-12)
    acc = h.account(1e-5)  # PLD of two different Gaussians composed on a 1e-3 grid: a bracket around the exact value
    assert acc.epsilon_lower <= closed <= acc.epsilon and acc.epsilon == pytest.approx(closed, rel=1e-5)
    assert dpa == pytest.approx(closed, rel=1e-5)


def test_claim_is_the_catalogue_item():
    c = _penalty().guarantee()
    assert c.theorem == "raisa2021.thm_dp_penalty_privacy" and c.guaranteed
    assert c.details["delta_at_epsilon"] == pytest.approx(1e-5, rel=1e-6)
    assert c.details["rho"] == pytest.approx(0.5)


def test_pair_mu_of_an_unsaturated_pair():
    """Records 0.5 and -0.2 (b = 1, L = 1: no clip binds): the ratio shift per unit distance is 0.7, so mu = sqrt(k)
    0.7 / (2 tau sqrt N); a final release has no exact pair privacy (only the transcript's as an upper bound)."""
    X = np.full((N, 1), 0.1)
    Y = X.copy()
    X[0], Y[0] = 0.5, -0.2
    s = _penalty()
    assert s.pair_mu(X, Y) == pytest.approx(math.sqrt(10) * 0.7 / (2 * math.sqrt(N)), rel=1e-12)
    f = _penalty(release="final")
    assert f.pair_guarantee(X, Y) is None and f.exact_epsilon(X, Y, 1e-5) is None
    assert f.pair_privacy_loss(X, Y).exact is False and f.log_likelihood_ratio is None
    # other models: unknown
    lg = DPPenalty(LogisticRegression(dim=1), N, n_steps=3)
    Z = np.column_stack([np.full(N, 0.5), np.ones(N)])
    assert lg.pair_mu(Z, Z) is None and lg.pair_privacy_loss(Z, Z).exact is False


# -- the transcript's law (white-box statistic) ----------------------------------------------------------------------
def _stat_moments(sampler, n=20_000, seed=5):
    stat = sampler.log_likelihood_ratio(D, E)
    return stat(sampler.sample(D, n, seed)), stat(sampler.sample(E, n, seed + 1))


@pytest.mark.parametrize("which", ["penalty", "hmc"])
def test_transcript_privacy_loss_is_the_exact_gaussian(which):
    """Under D the privacy loss of the transcript is N(mu^2/2, mu^2), under D' N(-mu^2/2, mu^2). 20 000 draws: the
    mean's standard error is mu / 141 and the variance's about mu^2 sqrt(2/20000) = 0.01 mu^2; tolerances 5 standard
    errors."""
    s = _penalty() if which == "penalty" else _hmc()
    mu = s.pair_mu(D, E)
    p, q = _stat_moments(s)
    se_mean, se_var = mu / math.sqrt(len(p)), mu * mu * math.sqrt(2 / len(p))
    assert abs(p.mean() - mu * mu / 2) < 5 * se_mean and abs(q.mean() + mu * mu / 2) < 5 * se_mean
    assert abs(p.var() - mu * mu) < 5 * se_var and abs(q.var() - mu * mu) < 5 * se_var


class _HalvedNoisePenalty(DPPenalty):
    """Mutation: the ratio's noise halved in the run (the declaration unchanged)."""

    def _penalty_step(self, X, theta, prop, extra, rng):
        dist = np.linalg.norm(prop - theta, axis=1)
        s = 0.5 * self._ratio_noise_sd(dist)
        lam = self._clipped_ratio(X, theta, prop, dist) + s * rng.standard_normal(theta.shape[0])
        log_a = lam + self.model.log_prior(prop) - self.model.log_prior(theta) - 0.5 * s * s
        return lam, np.log(rng.random(theta.shape[0])) < log_a


def test_mutation_halved_noise_is_seen_by_the_transcript_law():
    """Halving the noise keeps the statistic's mean at mu^2/2 but shrinks its variance to mu^2/4: far outside the 5
    standard errors of the correct law."""
    bad = _HalvedNoisePenalty(MODEL, N, tau=1.0, ratio_clip=1.0, prop_sd=0.5, n_steps=10)
    p, _ = _stat_moments(bad)
    assert abs(p.var() - 0.25) < 0.05 and abs(p.var() - 1.0) > 5 * math.sqrt(2 / len(p))


def test_no_ll_noise_releases_the_noiseless_clipped_ratio():
    """The authors' no_ll_noise: the released ratio is the clipped sum itself, 2 b d apart between the canary
    datasets at every step (the claim is unchanged: the known-bad case)."""
    s = _penalty(misuse="no_ll_noise")
    out = s.sample(D, 200, 3)
    prop, lam = out[:, :, 0], out[:, :, 1]
    theta = np.zeros(200)
    for t in range(10):
        dist = np.abs(prop[:, t] - theta)
        # D: the canary R and 9 counterparts -R, each clipped to +-b d
        want = np.sign(prop[:, t] - theta) * dist * (1 - 9)
        assert np.allclose(lam[:, t], want, atol=1e-12)
        theta = np.where(out[:, t, 2] > 0.5, prop[:, t], theta)
    assert s.guarantee().epsilon == _penalty().guarantee().epsilon


# -- exactness of the chains (the penalty method) ------------------------------------------------------------------
_EXACT_X = np.full((N, 1), 0.05)  # posterior N(4 * 0.5, 4) under prior N(0, 4)


class _NoPenaltyCorrection(DPPenalty):
    """Mutation: the - s^2/2 penalty dropped (a noisy MH test that is not exact)."""

    def _penalty_step(self, X, theta, prop, extra, rng):
        dist = np.linalg.norm(prop - theta, axis=1)
        s = self._ratio_noise_sd(dist)
        lam = self._clipped_ratio(X, theta, prop, dist) + s * rng.standard_normal(theta.shape[0])
        log_a = lam + self.model.log_prior(prop) - self.model.log_prior(theta)
        return lam, np.log(rng.random(theta.shape[0])) < log_a


def _final_moments(cls, **kw):
    params = {"tau": 0.3, "ratio_clip": 1.0, "prop_sd": 1.5, "n_steps": 300, "release": "final", **kw}
    out = cls(MODEL, N, **params).sample(_EXACT_X, 4000, 11)[:, 0]
    return out.mean(), out.var()


def test_dp_penalty_targets_the_posterior_and_the_mutation_does_not():
    """No clip binds (|x| <= b): the penalty chain is exact, its law after 300 steps from 0 is the posterior N(2, 4)
    (mixing: the chain's autocorrelation after 300 steps at acceptance ~0.3 is negligible). 4000 chains: the mean's
    standard error is 2/63 = 0.032, the variance's 4 sqrt(2/4000) = 0.09; tolerance 5 standard errors. Without the
    penalty the chain over-disperses: variance above 4 by more than 10 standard errors."""
    mean, var = _final_moments(DPPenalty)
    assert abs(mean - 2.0) < 5 * 0.032 and abs(var - 4.0) < 5 * 0.09
    _, bad_var = _final_moments(_NoPenaltyCorrection)
    assert bad_var - 4.0 > 10 * 0.09


def test_dp_hmc_targets_the_posterior():
    """DP-HMC with noisy gradients and the penalty test (Räisä et al.'s correctness result), no clip binding: after 150
    iterations from 0 the law is the posterior N(2, 4); 4000 chains, 5 standard errors as above."""
    h = DPHMC(MODEL, N, tau=0.3, tau_g=0.3, ratio_clip=1.0, L=1.0, step_size=0.5, n_leapfrog=3, n_steps=150,
              release="final")
    out = h.sample(_EXACT_X, 4000, 13)[:, 0]
    assert abs(out.mean() - 2.0) < 5 * 0.032 and abs(out.var() - 4.0) < 5 * 0.09
