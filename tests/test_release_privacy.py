"""The exact privacy of released samples (final iterate, sample sets) of linear-Gaussian chains.

Independent checks: the closed forms of the Gaussian and one-step subsampled Gaussian pairs (the PLD accountant),
dp-accounting's mixture-of-Gaussians PLD (an independent implementation of the same pair for a few atoms), the
closed-form mu of noisy GD on a quadratic (Bok, Su, Altschuler 2024), the ULA closed form of GaussianTarget, and
direct simulation of the linear recursion.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpverify.calculus.accounting.pld import gaussian_pld, subsampled_gaussian_pld
from dpverify.calculus.accounting.release import release_privacy, release_window_pairs
from dpverify.calculus.accounting.shift_mixture import shift_lattice, shift_mixture_loss, shift_mixture_pld
from dpverify.calculus.linear_dynamics import LinearDynamics
from dpverify.calculus.mechanism_description import (
    FullBatch,
    GaussianStep,
    MechanismDescription,
    PoissonSampling,
    Repeated,
)
from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.calculus.releases import SampleSet, parse_release, release_windows, released_indices


def _overlap(a: tuple, b: tuple, slack: float = 0.0) -> bool:
    return a[0] - slack <= b[1] and b[0] - slack <= a[1]


# -- the shift-mixture pair --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("q, mu", [(0.1, 1.0), (0.3, 2.0), (0.01, 3.0), (0.5, 0.2)])
def test_one_step_is_the_subsampled_gaussian(q, mu):
    ours = shift_mixture_pld([mu], [q])
    ref = subsampled_gaussian_pld(q, mu)
    for delta in (1e-2, 1e-4, 1e-6):
        lo, hi = ours.epsilon_bounds(delta)
        assert hi - lo < 2e-3  # the bracket is informative
        assert _overlap((lo, hi), ref.epsilon_bounds(delta))


def test_full_batches_are_the_gaussian_pair():
    w = np.array([0.3, 0.2, 0.5])
    ours = shift_mixture_pld(w, 1.0)
    for delta in (1e-3, 1e-6):
        assert ours.epsilon(delta) == pytest.approx(gaussian_pld(1.0).epsilon(delta), rel=1e-12)
        assert ours.epsilon(delta) == pytest.approx(gaussian_epsilon(delta, 1.0), abs=2e-4)


def test_equal_gains_agree_with_dp_accounting_mixture_of_gaussians():
    """T equal gains: W = w Binomial(T, q). dp-accounting's MixtureGaussianPrivacyLoss (an independent
    implementation, connect-the-dots at interval 1e-3, pessimistic) must lie in our bracket widened by its own
    discretisation error (one interval)."""
    pldm = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    T, q, w = 8, 0.2, 0.4
    ks = np.arange(T + 1)
    ref = pldm.from_mixture_gaussian_mechanism(1.0, list(ks * w), list(binom.pmf(ks, T, q)),
                                              value_discretization_interval=1e-3)
    ours = shift_mixture_pld(np.full(T, w), q)
    for delta in (1e-3, 1e-5):
        lo, hi = ours.epsilon_bounds(delta)
        assert lo - 1e-3 <= ref.get_epsilon_for_delta(delta) <= hi + 1e-3


def test_a_coarse_lattice_widens_the_bracket_around_the_truth():
    """The lattice rounds the gains up for the upper law and down for the lower one (the dominating pairs of the
    module docstring). With a coarse lattice the rounding dominates the bracket's width (about 0.06-0.15 here, against
    dp-accounting's own discretisation of 1e-3, whose epsilons agree with its 1e-4 ones to 1e-6 on this pair): the
    truth must still lie inside, strictly away from both ends. Gains rounded the wrong way put the upper end about 0.07
    below the truth and fail this (mutation/release.py, upper_rounds_down)."""
    pldm = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")
    w, q = np.array([0.53, 0.31, 0.77]), 0.3
    patterns = np.array(list(np.ndindex(2, 2, 2)), dtype=float)
    ref = pldm.from_mixture_gaussian_mechanism(1.0, list(patterns @ w),
                                              list(np.prod(np.where(patterns > 0, q, 1 - q), axis=1)),
                                              value_discretization_interval=1e-3)
    for shift_tolerance in (0.02, 0.05):
        ours = shift_mixture_pld(w, q, shift_tolerance=shift_tolerance)
        for delta in (1e-3, 1e-5):
            lo, hi = ours.epsilon_bounds(delta)
            truth = ref.get_epsilon_for_delta(delta)
            assert lo + 0.01 < truth < hi - 0.01, (shift_tolerance, delta, lo, truth, hi)


def test_the_bracket_is_monotone_in_every_gain():
    """Fact 0 of the shift_mixture module: a larger gain (any step) is a less private pair."""
    base = np.array([0.3, 0.2, 0.4, 0.1])
    lo0, hi0 = shift_mixture_pld(base, 0.2).epsilon_bounds(1e-4)
    for t in range(base.size):
        bigger = base.copy()
        bigger[t] *= 1.5
        lo1, hi1 = shift_mixture_pld(bigger, 0.2).epsilon_bounds(1e-4)
        assert lo1 > hi0 - 1e-9


def test_lattice_law_is_exact_on_small_cases():
    p, pruned = shift_lattice(np.array([1.0, 2.0, 2.0]), np.array([0.5, 0.1, 0.3]), 1.0, round_up=True,
                              prune_mass=0.0)
    # M = b1 + 2 b2 + 2 b3: enumerate the eight patterns
    expect = np.zeros(6)
    for b in np.ndindex(2, 2, 2):
        prob = np.prod([qq if bb else 1 - qq for bb, qq in zip(b, (0.5, 0.1, 0.3))])
        expect[b[0] + 2 * b[1] + 2 * b[2]] += prob
    np.testing.assert_allclose(p, expect, atol=1e-15)
    assert pruned == 0.0


def test_the_loss_table_is_the_mixture_log_likelihood_ratio():
    w, q = np.array([0.8, 0.5, 0.3]), np.array([0.3, 0.3, 0.3])
    loss = shift_mixture_loss(w, q)
    x = np.linspace(-3, 4, 41)
    # direct: log E[exp(W x - W^2/2)] over the 8 patterns
    atoms, probs = [], []
    for b in np.ndindex(2, 2, 2):
        atoms.append(float(np.dot(b, w)))
        probs.append(np.prod([qq if bb else 1 - qq for bb, qq in zip(b, q)]))
    atoms, probs = np.array(atoms), np.array(probs)
    direct = np.log(np.sum(probs[None, :] * np.exp(np.outer(x, atoms) - atoms**2 / 2), axis=1))
    np.testing.assert_allclose(loss(x), direct, atol=2e-3)


@pytest.mark.parametrize("kwargs, match", [
    ({"weights": [-1.0], "rates": [0.5]}, "weights must be finite numbers >= 0"),
    ({"weights": [1.0], "rates": [1.5]}, "rates must be in"),
    ({"weights": [1.0, 2.0], "rates": [0.5, 0.5, 0.5]}, "same length"),
    ({"weights": [np.nan], "rates": [0.5]}, "weights must be finite"),
])
def test_bad_input_is_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        shift_mixture_pld(**kwargs)


# -- linear dynamics and windows --------------------------------------------------------------------------------------
def test_contraction_gains_are_geometric_and_momentum_gains_are_the_impulse_response():
    dyn = LinearDynamics.contraction(np.full(6, 0.9))
    np.testing.assert_allclose(dyn.gains(1, 6), 0.9 ** np.arange(5, -1, -1))
    np.testing.assert_allclose(dyn.gains(3, 5), [0.81, 0.9, 1.0])
    h, a, lam, n = 0.1, 0.5, 2.0, 7
    mom = LinearDynamics.momentum(h, a, lam, n)
    # impulse response of the SGHMC update written out directly: a unit data term at step s, theta read at step n
    for s in range(1, n + 1):
        theta, p = 0.0, 0.0
        for t in range(1, n + 1):
            theta = theta + h * p
            p = p - h * lam * theta - h * a * p + (1.0 if t == s else 0.0)
        assert mom.gains(1, n)[s - 1] == pytest.approx(theta, abs=1e-14)


def test_release_windows_and_indices():
    assert release_windows("final", 5) == [(1, 5)]
    assert release_windows("path", 3) == [(1, 1), (2, 2), (3, 3)]
    assert release_windows(SampleSet(2, 3, 3), 11) == [(1, 5), (6, 8), (9, 11)]
    assert released_indices(SampleSet(0, 1, 4), 4) == [1, 2, 3, 4]
    assert parse_release("samples(10, 2, 5)") == SampleSet(10, 2, 5)
    with pytest.raises(ValueError, match="needs a run of"):
        released_indices(SampleSet(2, 3, 3), 12)
    with pytest.raises(ValueError, match="release must be"):
        parse_release("every other")


def _run(n: int, q: float, mu: float, rho: float, release):
    steps = (Repeated(GaussianStep(mu, 1.0, PoissonSampling(q) if q < 1 else FullBatch()), n),)
    return MechanismDescription(steps, "add_remove", release, dynamics=LinearDynamics.contraction(np.full(n, rho)))


def test_full_batch_final_iterate_is_the_closed_form_of_noisy_gd():
    """mu_K = (Delta/s) sqrt((1+c)/(1-c)) sqrt((1-c^K)/(1+c^K)) (issue 21; Bok, Su, Altschuler 2024)."""
    for c, K, mu in [(0.9, 30, 0.5), (0.5, 10, 1.0), (0.99, 200, 0.1)]:
        exact = _run(K, 1.0, mu, c, "final").release_privacy()
        mu_k = mu * math.sqrt((1 + c) / (1 - c)) * math.sqrt((1 - c**K) / (1 + c**K))
        assert exact.windows[0].mu == pytest.approx(mu_k, rel=1e-12)
        assert exact.epsilon(1e-5) == pytest.approx(gaussian_epsilon(1e-5, mu_k), abs=2e-4)
        # composition of the K steps would give mu sqrt(K): the final iterate is strictly more private
        assert mu_k < mu * math.sqrt(K)


def test_sample_set_of_every_iterate_is_the_path_and_of_the_last_is_the_final():
    n, q, mu, rho = 12, 0.2, 0.6, 0.95
    path = _run(n, q, mu, rho, "path").pld()
    as_samples = _run(n, q, mu, rho, SampleSet(0, 1, n)).release_privacy()
    final = _run(n, q, mu, rho, "final").release_privacy()
    as_one = _run(n, q, mu, rho, SampleSet(0, n, 1)).release_privacy()
    for delta in (1e-3, 1e-5):
        assert _overlap(as_samples.epsilon_bounds(delta), path.epsilon_bounds(delta), slack=3e-3)
        assert as_one.epsilon_bounds(delta) == final.epsilon_bounds(delta)
    # post-processing order: final <= sample set of 3 <= path
    three = _run(n, q, mu, rho, SampleSet(3, 3, 3)).release_privacy()
    assert final.epsilon(1e-5) < three.epsilon_bounds(1e-5)[0] + 1e-9
    assert three.epsilon(1e-5) < path.epsilon_bounds(1e-5)[0] + 1e-9


def test_worst_case_flag_and_accountant_labels():
    final = _run(10, 0.1, 1.0, 0.9, "final")
    conv = final.account(1e-5)
    assert conv.method == "exact final release (linear-Gaussian)"
    assert conv.epsilon_lower <= conv.epsilon < final.with_release("path").account(1e-5).epsilon
    from dpverify.calculus.mechanism_description import FixedSizeSampling

    fixed_steps = (Repeated(GaussianStep(1.0, 1.0, FixedSizeSampling(1, 10)), 10),)
    fixed = MechanismDescription(fixed_steps, "replace_one", "final", dynamics=final.dynamics)
    exact = fixed.release_privacy()
    assert not exact.worst_case and "canary pair" in exact.basis
    # not proven to be the worst pair of the mechanism: the accountant keeps the path's (proven) upper bound
    assert "upper bound for the final iterate" in fixed.account(1e-5).method
    assert exact.epsilon(1e-5) < fixed.account(1e-5).epsilon
    no_dyn = MechanismDescription(final.steps, "add_remove", "final")
    assert "upper bound for the final iterate" in no_dyn.account(1e-5).method
    with pytest.raises(ValueError, match="no linear dynamics"):
        no_dyn.release_privacy()


def test_momentum_sample_sets_are_refused_with_the_reason():
    steps = (Repeated(GaussianStep(0.5, 1.0, FullBatch()), 6),)
    dyn = LinearDynamics.momentum(0.1, 0.5, 1.0, 6)
    d = MechanismDescription(steps, "replace_one", SampleSet(0, 3, 2), dynamics=dyn)
    with pytest.raises(ValueError, match="hidden 2-dimensional state"):
        d.release_privacy()
    assert MechanismDescription(steps, "replace_one", "final", dynamics=dyn).release_privacy().epsilon(1e-5) > 0


def test_simulated_recursion_matches_the_window_pair():
    """Simulate the scalar recursion z_s = rho z_{s-1} + mu b_s + xi_s directly (10^6 runs): the released z_n has the
    mean and variance of the window pair, and its threshold events the pair's probabilities, to the sampling error
    (5 standard errors)."""
    n, q, mu, rho, runs = 15, 0.15, 0.8, 0.9, 1_000_000
    rng = np.random.default_rng(5)
    z = np.zeros(runs)
    for _ in range(n):
        z = rho * z + mu * (rng.random(runs) < q) + rng.standard_normal(runs)
    pair = release_window_pairs(_run(n, q, mu, rho, "final").steps_expanded(),
                                LinearDynamics.contraction(np.full(n, rho)), "final")[0]
    assert pair.std == pytest.approx(math.sqrt((1 - rho ** (2 * n)) / (1 - rho**2)), rel=1e-12)
    mean = pair.std * float(np.sum(pair.weights * pair.rates))
    assert abs(z.mean() - mean) < 5 * z.std() / math.sqrt(runs)
    # P(z/std >= t) from the lattice law (exact atoms up to 1e-4) vs the simulation
    from scipy.stats import norm

    g = 1e-4
    p, _ = shift_lattice(pair.weights + g / 2, pair.rates, g, round_up=False, prune_mass=0.0)
    atoms = np.arange(p.size) * g
    for t in (0.0, 1.0, 2.5):
        expect = float(np.sum(p * norm.sf(t - atoms)))
        got = float(np.mean(z / pair.std >= t))
        assert abs(got - expect) < 5 * math.sqrt(expect * (1 - expect) / runs) + 1e-4
