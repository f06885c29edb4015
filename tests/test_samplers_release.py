"""Released samples of the gradient samplers: sample sets, the exact privacy of a linear-Gaussian chain's release on a
canary pair, and its white-box statistic -- each checked against the sampler's own outputs (Monte Carlo).

The Monte Carlo check: on the canary pair the release's exact log-likelihood ratio L is known
(:meth:`release_log_likelihood_ratio`), so the Neyman-Pearson event of delta(0) (the total variation distance) is
{L > 0}; its frequencies on n runs per side estimate TV = P(L > 0) - Q(L > 0) without bias. The exact TV comes from
the release's PLD (delta_bounds(0)). Tolerance: 5 standard errors of the difference of two frequencies. A wrong
gain, a wrong noise variance or a wrong window in the exact computation moves TV by far more (the mutation test at the
end halves the noise of the sampler and checks that the exact value no longer matches).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpverify.calculus.releases import SampleSet
from dpverify.models.canary import model_canary_pair
from dpverify.models.linear import LinearLoss
from dpverify.models.targets import GaussianTarget
from dpverify.samplers import registry

LIN = LinearLoss(dim=2, R=1.0, prior_variance=4.0)


def _li(release="final", **kw):
    params = dict(model=LIN, N=20, tau=3, T=20, epsilon=None, delta=1e-3, step_size=0.8, L=1.0, release=release,
                  claim="accountant")
    params.update(kw)
    return registry.make("dp_sgld_li", **params)


CASES = {
    # Li et al. 2019, Alg. 1: Poisson batches, add/remove (null canary)
    "dp_sgld_li_final": (lambda: _li("final"), "null"),
    "dp_sgld_li_samples": (lambda: _li(SampleSet(5, 5, 3), T=20), "null"),
    # Bertazzi et al. 2025, eq. (31): fixed-size batches, replace-one
    "noisy_sgd_final": (lambda: registry.make("noisy_sgd_final", model=LIN, N=10, batch_size=2, step_size=0.05,
                                              n_steps=15, beta=80.0), "replace"),
    # Wang et al. 2015, Alg. 2 and eq. (4.2): fixed-size batches, replace-one (parameters outside Theorem 4's
    # hypotheses: a leaky run, so that its release is far from perfectly private)
    "dp_sgld_wang_final": (lambda: registry.make("dp_sgld_wang", model=LIN, N=10, tau=2, T=2, epsilon=1.0,
                                                 delta=1e-5, step_size=1e-2, privacy_noise=False,
                                                 unguaranteed=True), "replace"),
    "dp_sghmc_final": (lambda: registry.make("dp_sghmc", model=LIN, N=10, tau=2, T=2, epsilon=1.0, delta=1e-5,
                                             h=0.1, A=1.0, B_hat=0.0, unguaranteed=True), "replace"),
}


def _tv_check(sampler, kind: str, n: int, seed: int = 0):
    D, D2 = model_canary_pair(sampler.model, sampler.N, kind=kind)
    loss = sampler.pair_privacy_loss(D, D2)
    assert loss.exact, loss.basis
    lo, hi = loss.pld.delta_bounds(0.0)
    stat = sampler.release_log_likelihood_ratio(D, D2)
    rng = np.random.default_rng(seed)
    p = float(np.mean(stat(sampler.sample(D, n, rng)) > 0))
    q = float(np.mean(stat(sampler.sample(D2, n, rng)) > 0))
    se = math.sqrt((p * (1 - p) + q * (1 - q)) / n)
    return p - q, (lo, hi), se


@pytest.mark.parametrize("name", sorted(CASES))
def test_exact_release_matches_the_sampler(name):
    build, kind = CASES[name]
    tv, (lo, hi), se = _tv_check(build(), kind, 40_000)
    assert 0.05 < lo  # a pair far from perfectly private, so that the check has power
    assert lo - 5 * se <= tv <= hi + 5 * se


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CASES))
def test_exact_release_matches_the_sampler_within_one_percent(name):
    """Issue 21's criterion: within 1% of the exact value, at 10^6 runs per side (standard error ~0.1-0.2%)."""
    build, kind = CASES[name]
    tv, (lo, hi), se = _tv_check(build(), kind, 1_000_000, seed=1)
    assert abs(tv - (lo + hi) / 2) <= 0.01 * (lo + hi) / 2
    assert 3 * se < 0.01 * lo  # the 1% criterion is resolved by the sample size


def test_halved_noise_is_caught_by_the_exact_value():
    """The mutation the Monte Carlo check exists for: a sampler whose noise differs from its declaration."""
    s = _li("final")
    D, D2 = model_canary_pair(LIN, s.N, kind="null")
    declared = s.pair_privacy_loss(D, D2).pld.delta_bounds(0.0)
    leaky = _li("final")
    leaky._noise_std = leaky._noise_std / 2  # noqa: SLF001 - the implementation departs from the declaration
    leaky._set_kernel(*leaky._langevin_kernel())  # noqa: SLF001
    stat = s.release_log_likelihood_ratio(D, D2)
    rng = np.random.default_rng(3)
    n = 40_000
    p = float(np.mean(stat(leaky.sample(D, n, rng)) > 0))
    q = float(np.mean(stat(leaky.sample(D2, n, rng)) > 0))
    se = math.sqrt((p * (1 - p) + q * (1 - q)) / n)
    assert p - q > declared[1] + 5 * se


def test_sample_sets_keep_the_right_iterates():
    s = _li(SampleSet(5, 5, 3), T=20)
    D, _ = model_canary_pair(LIN, s.N, kind="null")
    out = s.sample(D, 7, np.random.default_rng(0))
    assert out.shape == (7, 3, 2)
    # same seed, path release: the sample set is the path's iterates 10, 15, 20
    path = _li("path", T=20).sample(D, 7, np.random.default_rng(0))
    np.testing.assert_array_equal(out, path[:, [10, 15, 20]])
    with pytest.raises(ValueError, match="needs a run of burn_in"):
        _li(SampleSet(5, 5, 3), T=21)
    assert _li("samples(5, 5, 3)", T=20).output == SampleSet(5, 5, 3)


def test_ula_exact_release_equals_the_closed_form_on_gaussian_target():
    m = GaussianTarget(dim=2, R=1.0)
    for name in ("ula_final",):
        s = registry.make(name, model=m, N=20, step_size=0.01, n_steps=30)
        D, D2 = model_canary_pair(m, 20, kind="replace")
        description = s.canary_description(s.canary_shift(D, D2), s.canary_vector(D, D2))
        lo, hi = description.release_privacy().epsilon_bounds(1e-5)
        assert lo - 1e-9 <= s.exact_epsilon(D, D2, 1e-5) <= hi + 1e-9


def test_final_iterate_is_more_private_than_the_path_and_the_accountant_says_which():
    s = _li("final")
    D, D2 = model_canary_pair(LIN, s.N, kind="null")
    final = s.exact_epsilon(D, D2, 1e-3)
    path = _li("path").exact_epsilon(D, D2, 1e-3)
    assert final < path
    assert s.account(1e-3).method == "exact final release (linear-Gaussian)"
    assert s.account(1e-3).epsilon == pytest.approx(final, rel=1e-9)
    # Wang et al.'s fixed-size batches: exact for the canary pair, not proven the worst case: the accountant keeps
    # the path's bound
    w = CASES["dp_sgld_wang_final"][0]()
    assert "upper bound for the final iterate" in w.account(1e-5).method


def test_models_without_a_quadratic_potential_keep_the_path_bound():
    from dpverify.models.logistic import LogisticRegression

    m = LogisticRegression(dim=2, R=4.0)
    s = registry.make("dp_sgld_li", model=m, N=20, tau=3, T=10, epsilon=None, delta=1e-3, step_size=0.4, L=1.0,
                      release="final", claim="accountant", theta0=[-2.0, 0.0])
    D, D2 = model_canary_pair(m, 20, kind="null")
    loss = s.pair_privacy_loss(D, D2)
    assert not loss.exact and "upper bound" in loss.basis
    assert s.exact_epsilon(D, D2, 1e-3) is None
    with pytest.raises(ValueError, match="not a linear-Gaussian chain"):
        s.release_log_likelihood_ratio(D, D2)


def test_linear_loss_model():
    X = np.array([[1.0, 0.0], [0.0, -0.5]])
    theta = np.array([[0.5, 2.0], [1.0, 1.0]])
    np.testing.assert_allclose(LIN.log_likelihood(X, theta), theta @ X.T)
    np.testing.assert_allclose(LIN.grad_log_likelihood(X, theta), np.broadcast_to(X, (2, 2, 2)))
    assert LIN.gradient_sensitivity("replace_one") == 2.0 and LIN.gradient_sensitivity("add_remove", 0.5) == 0.5
    with pytest.raises(ValueError, match="norm"):
        LIN.validate_dataset([[2.0, 0.0]])
    mean, var = LIN.posterior(X)
    np.testing.assert_allclose(mean, 4.0 * X.sum(axis=0))
    assert LIN.sgd_constants(10)["affine_l2"] and LIN.ula_constants(10)["K"] == 10.0
