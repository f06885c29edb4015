"""Cebere et al. 2025, the crafted gradient at every step under Poisson subsampling (issue 39):
``cebere2025.thm_crafted_gradient_subsampled`` and ``dp_sgd_crafted_gradient_last_iterate`` with ``sampling_rate``.

What would make these fail: a wrong mixture (the Binomial weights dropped, the variance's Binomial term dropped); the
one-step accountant taken for the path's; a sampler that ignores the sampling rate, or whose q = 1 draws changed;
two implementations of the exact epsilon that disagree; a path accountant that disagrees with dp_accounting's; bad
``sampling_rate`` not refused by name.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from dp_accounting.pld import privacy_loss_distribution as dpa_pld
from scipy.stats import binom, norm

from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.cases import get_case
from dpverify.samplers import registry as samplers
from dpverify.samplers.negative_results import DPSGDCraftedGradientLastIterate, linear_last_iterate_epsilon
from dpverify.theorems import registry as theorems
from dpverify.theorems import symbols as sy
from dpverify.theorems.cebere2025 import subsampled
from dpverify.theorems.cebere2025.subsampled import (
    CASE,
    SUBSAMPLED,
    last_iterate_delta,
    last_iterate_epsilon,
    path_epsilon,
)

CANARY, NULL = np.array([1.0]), np.array([0.0])
ITEM = "cebere2025.thm_crafted_gradient_subsampled"


def _case_sampler() -> DPSGDCraftedGradientLastIterate:
    return DPSGDCraftedGradientLastIterate(noise_multiplier=CASE["sigma"], n_steps=int(CASE["T"]),
                                           claimed_steps=int(CASE["claimed_steps"]), delta=CASE["delta"],
                                           sampling_rate=CASE["q"])


def _check(name: str):
    (check,) = [c for c in SUBSAMPLED.checks if c.name == name]
    return check.run()


# ------------------------------------------------------------------------------------------------------- the item
def test_item_is_registered_and_its_checks_pass():
    """Every check of the item passes (symbolic: the moments from the MGF, the q = 1 reduction, the monotone loss;
    numeric: quadrature, the path ordering on a grid, the naive claim, a simulation, the moment pins)."""
    assert theorems.get(ITEM) is SUBSAMPLED and SUBSAMPLED.source.reconstructed
    results = SUBSAMPLED.run_checks()
    assert {r.name for r in results} == {"mixture_moments_from_the_mgf", "full_batch_reduction",
                                         "loss_monotone_with_a_floor", "exact_delta_against_quadrature",
                                         "exact_below_path_on_a_grid", "far_above_the_naive_claim",
                                         "simulated_last_iterate", "pin_binomial_moments"}
    assert all(r.passed for r in results), [(r.name, r.detail) for r in results if not r.passed]


def test_item_evaluates_and_refuses_a_rate_above_one():
    ev = SUBSAMPLED.evaluate(q=0.5, sigma=1.0, T=16)
    assert ev.mean_last_iterate == pytest.approx(8.0) and ev.var_last_iterate == pytest.approx(20.0)
    assert SUBSAMPLED.check_hypotheses(q=1.0, sigma=1.0, T=16) == {"rate_at_most_one": True}
    with pytest.raises(ValueError, match="q"):
        SUBSAMPLED.evaluate(q=1.5, sigma=1.0, T=16)
    assert sy.q in SUBSAMPLED.symbols.values()


def test_two_implementations_of_the_exact_epsilon_agree():
    """The item's last_iterate_epsilon (log-space tails) and the sampler's linear_last_iterate_epsilon (written
    separately in dpverify.samplers.negative_results) agree to rel 1e-8 (both solve to 1e-12) at five points."""
    for rate, noise, steps, delta in ((0.5, 1.0, 16, 1e-5), (0.01, 0.5, 16, 1e-5), (0.1, 2.0, 64, 1e-5),
                                      (0.9, 1.0, 4, 1e-3), (0.3, 0.7, 10, 1e-6)):
        assert last_iterate_epsilon(delta, rate, noise, steps) == pytest.approx(
            linear_last_iterate_epsilon(delta, rate, noise, steps), rel=1e-8)


def test_measured_ratio_table_entries():
    """Three entries of the module docstring's table (exact last iterate / path PLD at delta = 1e-5), to the three
    printed digits: the largest amplification (0.160), the audit case (0.969) and no amplification at q = 1."""
    for rate, noise, steps, printed in ((0.01, 0.5, 16, 0.160), (0.5, 1.0, 16, 0.969), (1.0, 2.0, 4, 1.000)):
        ratio = last_iterate_epsilon(1e-5, rate, noise, steps) / path_epsilon(rate, noise, steps, 1e-5)
        assert abs(ratio - printed) < 5e-4, (rate, noise, steps, ratio)


def test_path_accountant_matches_dp_accounting():
    """dpverify's PLD of T composed Poisson-subsampled Gaussians against Google's dp_accounting (connect-the-dots
    PLD, add/remove, discretisation 1e-3; both pessimistic): rel 2e-3 at two points (the case; a small rate). The
    sampler's account() is that accountant."""
    for rate, noise, steps in ((0.5, 1.0, 16), (0.01, 0.5, 4)):
        theirs = dpa_pld.from_gaussian_mechanism(noise, sampling_prob=rate, value_discretization_interval=1e-3)
        assert path_epsilon(rate, noise, steps, 1e-5) == pytest.approx(
            theirs.self_compose(steps).get_epsilon_for_delta(1e-5), rel=2e-3)
    assert _case_sampler().account(1e-5).epsilon == path_epsilon(0.5, 1.0, 16, 1e-5)
    assert _case_sampler().account(1e-5).method == "pld"


# ----------------------------------------------------------------------------------------------------- mutations
def test_mutation_dropped_binomial_weights_fails_the_quadrature(monkeypatch):
    """Mutation: uniform weights 1/(T + 1) instead of Binomial(T, q) in the exact delta: the quadrature check (which
    types the Binomial weights again) fails."""
    monkeypatch.setattr(subsampled, "_log_weights", lambda rate, steps: np.full(steps + 1, -math.log(steps + 1)))
    assert not _check("exact_delta_against_quadrature").passed


def test_mutation_one_step_accountant_for_the_path_fails_the_ordering(monkeypatch):
    """Mutation: the path's accountant computed for one step instead of T: the last iterate's exact epsilon exceeds
    it (post-processing violated), so the grid check fails; and the naive-claim check fails too (exact > path)."""
    real = subsampled.path_epsilon
    monkeypatch.setattr(subsampled, "path_epsilon", lambda rate, noise, steps, delta: real(rate, noise, 1, delta))
    assert not _check("exact_below_path_on_a_grid").passed
    assert not _check("far_above_the_naive_claim").passed


def test_mutation_variance_without_the_binomial_term_fails(monkeypatch):
    """Mutation: the conclusion's variance as T sigma^2 (the Binomial term T q (1 - q) dropped): the MGF check, the
    moment pins and the simulation fail."""
    monkeypatch.setitem(SUBSAMPLED.conclusion, "var_last_iterate", sy.T_iterations * sy.sigma**2)
    for name in ("mixture_moments_from_the_mgf", "pin_binomial_moments", "simulated_last_iterate"):
        assert not _check(name).passed, name


class _AlwaysSampled(DPSGDCraftedGradientLastIterate):
    """A broken sampler: claims rate q but puts every record in every batch (the full-batch draws)."""

    def sample(self, dataset, n, rng):
        g = self._rng(rng)
        theta = np.zeros(n)
        for _ in range(self.n_steps):
            theta = theta + float(np.sum(dataset)) + self.noise_multiplier * g.standard_normal(n)
        return theta[:, None]


@pytest.mark.parametrize("cls, broken", [(DPSGDCraftedGradientLastIterate, False), (_AlwaysSampled, True)])
def test_sampler_draws_follow_the_mixture(cls, broken):
    """200000 draws of the audit case's sampler (seed 12): mean T q and variance T sigma^2 + T q (1 - q) within 5
    standard errors (mean: sqrt(var / n); variance: from the sample's fourth moment), the distribution function at 0,
    8 and 16 within 5 binomial standard errors. The always-sampled mutant's mean is off by about 800 standard
    errors."""
    s = cls(noise_multiplier=1.0, n_steps=16, sampling_rate=0.5)
    out = s.sample(CANARY, 200_000, np.random.default_rng(12))[:, 0]
    n, mean, var = out.size, 8.0, 20.0
    z_mean = abs(out.mean() - mean) / math.sqrt(var / n)
    if broken:
        assert z_mean > 100
        return
    c = out - out.mean()
    z_var = abs(c.var() - var) / math.sqrt((np.mean(c**4) - c.var() ** 2) / n)
    assert z_mean < 5 and z_var < 5
    w = binom.pmf(np.arange(17), 16, 0.5)
    for x in (0.0, 8.0, 16.0):
        law = float(np.sum(w * norm.cdf((x - np.arange(17)) / 4.0)))
        assert abs(np.mean(out <= x) - law) < 5 * math.sqrt(law * (1 - law) / n)


def test_several_canaries_are_sampled_independently():
    """Two records of gradient 1 at q = 0.5: the pushes are Binomial(2T, q) (mean 2 T q, variance 2 T q (1 - q) + T
    sigma^2), not one shared inclusion (variance 4 T q (1 - q) + T sigma^2): 200000 draws, seed 13, 5 standard
    errors on the variance (a shared inclusion would be off by about 80)."""
    out = DPSGDCraftedGradientLastIterate(noise_multiplier=1.0, n_steps=16, sampling_rate=0.5).sample(
        np.array([1.0, 1.0, 0.0]), 200_000, np.random.default_rng(13))[:, 0]
    c = out - out.mean()
    var = 2 * 16 * 0.25 + 16.0
    assert abs(out.mean() - 16.0) < 5 * math.sqrt(var / out.size)
    assert abs(c.var() - var) < 5 * math.sqrt((np.mean(c**4) - c.var() ** 2) / out.size)


# ------------------------------------------------------------------------------------------ the sampler at q < 1
def test_q_one_reproduces_the_full_batch_sampler_bit_for_bit():
    """sampling_rate = 1 (the default) keeps the full-batch draws (the pre-issue code typed again here), claim,
    accountant, exact epsilon and pair loss; the item's exact epsilon at q = 1 is the full-batch item's sqrt(T)/sigma
    GDP (rel 1e-7)."""
    default, explicit = DPSGDCraftedGradientLastIterate(), DPSGDCraftedGradientLastIterate(sampling_rate=1.0)
    data = np.array([1.0, -0.5, 0.25])
    g = np.random.default_rng(3)
    theta = np.zeros(9)
    for _ in range(16):
        theta = theta + 0.75 + 2.0 * g.standard_normal(9)
    for s in (default, explicit):
        np.testing.assert_array_equal(s.sample(data, 9, np.random.default_rng(3))[:, 0], theta)
        assert s.guarantee().theorem == "cebere2025.thm_crafted_gradient_every_step"
        assert s.guarantee().epsilon == pytest.approx(gaussian_epsilon(1e-5, 0.5), rel=1e-12)
        assert s.account(1e-5).method == "gdp"
        assert s.exact_epsilon(CANARY, NULL, 1e-5) == pytest.approx(gaussian_epsilon(1e-5, 2.0), rel=1e-12)
        assert s.pair_privacy_loss(CANARY, NULL).exact
    assert last_iterate_epsilon(1e-5, 1.0, 2.0, 16) == pytest.approx(gaussian_epsilon(1e-5, 2.0), rel=1e-7)
    assert last_iterate_delta(1.0, 1.0, 2.0, 16) == pytest.approx(
        float(norm.cdf(-0.5 + 2.0 / 2) - math.e * norm.cdf(-0.5 - 2.0 / 2)), rel=1e-9)  # GDP's delta, mu = 2


def test_subsampled_claim_exact_and_accountant_at_the_case():
    """At the audit case: the naive claim is one subsampled step's PLD (3.534), the exact epsilon 12.98 (the
    mixture), the accountant the path's PLD (13.39): claim < exact <= accountant; the claim names the subsampled
    item; the exact epsilon does not depend on the sign of the crafted gradient."""
    s = _case_sampler()
    claim = s.guarantee()
    assert claim.theorem == ITEM and claim.theorem in s.theorems and not claim.guaranteed
    assert claim.epsilon == pytest.approx(path_epsilon(0.5, 1.0, 1, 1e-5), rel=1e-12)
    assert claim.epsilon == pytest.approx(3.534, abs=1e-3)
    exact = s.exact_epsilon(CANARY, NULL, 1e-5)
    assert exact == pytest.approx(12.978, abs=1e-3) and 3 * claim.epsilon < exact <= s.account(1e-5).epsilon
    assert s.exact_epsilon(np.array([-1.0]), NULL, 1e-5) == pytest.approx(exact, rel=1e-12)
    assert s.exact_epsilon(NULL, CANARY, 1e-5) == pytest.approx(exact, rel=1e-12)
    assert s.exact_epsilon(np.array([1.0, 1.0]), np.array([1.0, 0.0]), 1e-5) is None  # a shared canary: not exact
    assert s.pair_privacy_loss(np.array([1.0, 1.0]), np.array([1.0, 0.0])) is None


def test_pair_loss_cells_are_the_mixture():
    """The 6000-cell privacy-loss masses: each side sums to 1 (up to the 12-sd tails, 1e-9); their epsilon is at
    most the exact one (cells are a post-processing) and within 0.01 of it; P is the dataset's law (swapped for the
    null dataset)."""
    s = _case_sampler()
    cells, swapped = s.pair_privacy_loss(CANARY, NULL), s.pair_privacy_loss(NULL, CANARY)
    assert abs(cells.p.sum() - 1) < 1e-9 and abs(cells.q.sum() - 1) < 1e-9
    exact = s.exact_epsilon(CANARY, NULL, 1e-5)
    assert 0 <= exact - cells.epsilon(1e-5) < 0.01
    np.testing.assert_array_equal(cells.p, swapped.q)


@pytest.mark.parametrize("data", [CANARY, NULL, np.array([-0.5, 0.0])])
def test_log_density_is_normalised_and_matches_the_draws(data):
    """The mixture's log density integrates to 1 (trapezoid, 1e-6), and the mean log density of 50000 draws (seed 8)
    is the negative entropy computed from the same density within 5 standard errors."""
    s = _case_sampler()
    grid = np.linspace(-40.0, 60.0, 400_001)
    dens = np.exp(s.log_density(data, grid[:, None]))
    assert np.trapezoid(dens, grid) == pytest.approx(1.0, abs=1e-6)
    ld = s.log_density(data, s.sample(data, 50_000, np.random.default_rng(8)))
    entropy = -np.trapezoid(np.where(dens > 0, dens * np.log(np.where(dens > 0, dens, 1.0)), 0.0), grid)
    assert abs(ld.mean() + entropy) < 5 * ld.std() / math.sqrt(ld.size)


def test_the_case_is_known_bad_and_quick():
    case = get_case("dp_sgd_crafted_gradient_subsampled_last_iterate")
    assert case.known_bad and case.samples("quick") == 20_000
    assert case.sampler == "dp_sgd_crafted_gradient_last_iterate" and case.params["sampling_rate"] == CASE["q"]
    assert {k: case.params[k] for k in ("noise_multiplier", "n_steps", "claimed_steps", "delta")} == {
        "noise_multiplier": CASE["sigma"], "n_steps": CASE["T"], "claimed_steps": CASE["claimed_steps"],
        "delta": CASE["delta"]}
    assert samplers.make("dp_sgd_crafted_gradient_last_iterate", sampling_rate=0.5).sampling_rate == 0.5


# ------------------------------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize("bad", [0.0, -0.1, 1.5, float("nan"), float("inf")])
def test_bad_sampling_rate_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="sampling_rate"):
        DPSGDCraftedGradientLastIterate(sampling_rate=bad)


def test_other_bad_input_is_refused():
    with pytest.raises(ValueError, match="at most one nonzero record"):
        _case_sampler().log_density(np.array([1.0, 1.0]), np.zeros((2, 1)))
    with pytest.raises(ValueError, match="q"):
        last_iterate_delta(0.5, 0.0, 1.0, 4)
    with pytest.raises(ValueError, match="sigma"):
        last_iterate_epsilon(1e-5, 0.5, -1.0, 4)
    with pytest.raises(ValueError, match="delta"):
        path_epsilon(0.5, 1.0, 4, 1.5)
