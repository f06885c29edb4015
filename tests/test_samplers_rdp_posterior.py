"""The Rényi-DP posterior samplers (dpverify.samplers.rdp_posterior): draws against the declared posterior (KS, fixed
seeds), two mutants caught, the claim through the catalogue against the exact privacy, the calibrations, the audit
case's pair found by enumeration, and bad input."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from dpverify.calculus.conjugate_renyi import beta_pair_epsilon
from dpverify.calculus.conversions import rdp_to_dp
from dpverify.samplers import registry
from dpverify.samplers.rdp_posterior import (
    RDPPosteriorBetaBernoulli,
    calibrate_prior_scale,
    calibrate_weight,
)
from dpverify.theorems import registry as theorems
from dpverify.theorems.base import HypothesisError

#: The audit case proposed for dpverify/cases/catalogue.py (see test_audit_case_pairs_are_the_worst_by_enumeration).
BETA_CASE = {"alpha0": 1.0, "beta0": 1.0, "order": 10.0, "rdp_epsilon": 0.5, "calibration": "diffuse", "N": 8}
BETA_PAIR = (np.zeros(8, dtype=int), np.array([1, 0, 0, 0, 0, 0, 0, 0]))
DIR_CASE = {"K": 3, "alpha": 1.0, "order": 10.0, "rdp_epsilon": 0.5, "calibration": "diffuse", "N": 6}
DIR_PAIR = (np.array([1, 2, 2, 2, 2, 2]), np.array([0, 2, 2, 2, 2, 2]))
#: Orders on which pairs' exact RDP curves are converted: 239 fractions of the way to max_order.
FRACTIONS = np.concatenate([np.geomspace(1e-4, 0.5, 120), np.linspace(0.5, 0.9999, 120)[1:]])

N_DRAWS = 20_000
#: the asymptotic Kolmogorov critical value at level 1e-3: sqrt(-log(1e-3 / 2) / 2) / sqrt(n) = 0.0138 at n = 20000;
#: a correct sampler exceeds it with probability 1e-3 (the seeds are fixed, so a failure is a change, not bad luck)
KS_CRITICAL = math.sqrt(-math.log(1e-3 / 2) / 2) / math.sqrt(N_DRAWS)


def _ks(draws: np.ndarray, a: float, b: float) -> float:
    return float(stats.kstest(np.asarray(draws).reshape(-1), stats.beta(a, b).cdf).statistic)


def test_both_samplers_are_registered_with_documented_parameters():
    for sid in ("rdp_posterior_beta_bernoulli", "rdp_posterior_dirichlet_categorical"):
        assert all(p.range for p in registry.parameters(sid)), sid
    with pytest.raises(ValueError, match="unknown parameter"):
        registry.make("rdp_posterior_beta_bernoulli", weight=0.5)


# ------------------------------------------------------------------------------------------------ draws vs the posterior
@pytest.mark.parametrize("params, data", [
    (BETA_CASE, BETA_PAIR[1]),
    ({"alpha0": 0.5, "beta0": 2.0, "r": 0.3}, np.array([1, 1, 0, 1, 0, 1, 1])),
    ({"alpha0": 1.0, "beta0": 1.0, "order": 4.0, "rdp_epsilon": 0.2, "calibration": "concentrated"}, np.ones(12)),
])
def test_beta_draws_match_the_declared_posterior(params, data):
    """KS against Beta(m alpha0 + r n1, m beta0 + r n0) computed here from the sampler's r and prior scale."""
    s = registry.make("rdp_posterior_beta_bernoulli", **params)
    n1 = int(np.sum(data))
    a, b = s.prior_scale * s.alpha0 + s.r * n1, s.prior_scale * s.beta0 + s.r * (data.size - n1)
    draws = s.sample(data, N_DRAWS, np.random.default_rng(11))
    assert draws.shape == (N_DRAWS, 1)
    assert _ks(draws, a, b) < KS_CRITICAL


def test_dirichlet_draws_match_the_declared_posterior():
    """Each marginal theta_k of Dir(a) is Beta(a_k, A - a_k): three KS tests (level 1e-3 each)."""
    s = registry.make("rdp_posterior_dirichlet_categorical", **DIR_CASE)
    a = np.array([1.0, 1.0, 1.0]) + s.r * np.array([0.0, 1.0, 5.0])
    draws = s.sample(DIR_PAIR[0], N_DRAWS, np.random.default_rng(12))
    assert draws.shape == (N_DRAWS, 3) and np.allclose(draws.sum(axis=1), 1.0)
    for k in range(3):
        assert _ks(draws[:, k], a[k], a.sum() - a[k]) < KS_CRITICAL


# ------------------------------------------------------------------------------------------------------------- mutants
class ForgetsTheWeight(RDPPosteriorBetaBernoulli):
    """Mutant: draws Beta(alpha0 + n1, beta0 + n0), the plain posterior, while claiming the Diffuse Posterior's r."""

    def sample(self, dataset, n, rng):
        n1, n0 = self.statistics(dataset)
        return self._rng(rng).beta(self._prior[0] + n1, self._prior[1] + n0, n)[:, None]


class ForgetsThePriorScale(RDPPosteriorBetaBernoulli):
    """Mutant: in the Concentrated Posterior, draws with the user's prior instead of the scaled one."""

    def sample(self, dataset, n, rng):
        n1, n0 = self.statistics(dataset)
        return self._rng(rng).beta(self.alpha0 + self.r * n1, self.beta0 + self.r * n0, n)[:, None]


@pytest.mark.parametrize("mutant, params, data", [
    (ForgetsTheWeight, BETA_CASE, BETA_PAIR[1]),
    (ForgetsThePriorScale, {"alpha0": 1.0, "beta0": 1.0, "order": 4.0, "rdp_epsilon": 0.2,
                            "calibration": "concentrated"}, np.ones(12)),
])
def test_mutants_are_caught(mutant, params, data):
    """The KS test the correct sampler passes (same seed, same data) rejects each mutant far beyond its critical value,
    and the mutant's true pair epsilon exceeds the claim it makes (an audit would find a violation)."""
    good, bad = RDPPosteriorBetaBernoulli(**params), mutant(**params)
    a, b = good.posterior_parameters(data)
    rng_seed = 13
    assert _ks(good.sample(data, N_DRAWS, np.random.default_rng(rng_seed)), a, b) < KS_CRITICAL
    assert _ks(bad.sample(data, N_DRAWS, np.random.default_rng(rng_seed)), a, b) > 5 * KS_CRITICAL
    # the mutant's actual law on the pair (data, data with its first record flipped)
    flipped = data.copy()
    flipped[0] = 1 - flipped[0]
    laws = []
    for d in (data, flipped):
        n1, n0 = bad.statistics(d)
        if mutant is ForgetsTheWeight:
            laws += [bad._prior[0] + n1, bad._prior[1] + n0]
        else:
            laws += [bad.alpha0 + bad.r * n1, bad.beta0 + bad.r * n0]
    assert beta_pair_epsilon(1e-5, *laws) > bad.guarantee().epsilon


# ------------------------------------------------------------------------------------------------- claim and exactness
def test_claim_is_read_from_the_catalogue_with_hypotheses_checked():
    s = registry.make("rdp_posterior_beta_bernoulli", **BETA_CASE)
    claim = s.guarantee()
    assert claim.theorem == "geumlek2017.alg_diffuse_concentrated_beta" and claim.guaranteed
    assert claim.hypotheses == {"order_above_one": True, "weight_at_most_one": True, "order_below_max_order": True}
    order = claim.details["order"]
    rdp = theorems.get(claim.theorem).evaluate(alpha=order, a_min=1.0, weight=s.r).rdp
    assert claim.epsilon == pytest.approx(rdp_to_dp([order], [rdp], 1e-5).epsilon, rel=1e-12)
    assert claim.details["rdp_at_target_order"] == pytest.approx(0.5, rel=1e-9)  # the calibration hit the target
    assert 1 < order < s.max_order and claim.delta == 1e-5


@pytest.mark.parametrize("sid, params, pair", [("rdp_posterior_beta_bernoulli", BETA_CASE, BETA_PAIR),
                                               ("rdp_posterior_dirichlet_categorical", DIR_CASE, DIR_PAIR)])
def test_claim_bounds_the_account_which_bounds_the_pair(sid, params, pair):
    """claim (the bound's curve) >= account (the exact RDP curve over all datasets of N records) >= the pair's exact
    epsilon (hockey-stick), all at delta = 1e-5."""
    s = registry.make(sid, **params)
    claim, account = s.guarantee().epsilon, s.account(1e-5).epsilon
    exact = s.exact_epsilon(*pair, 1e-5)
    assert claim >= account >= exact > 0


@pytest.mark.parametrize("sid, params, pair, rdp_eps, hockey", [
    ("rdp_posterior_beta_bernoulli", BETA_CASE, BETA_PAIR, 0.81173221, 0.63136085),
    ("rdp_posterior_dirichlet_categorical", DIR_CASE, DIR_PAIR, 0.82619275, 0.64655783),
])
def test_audit_case_pairs_are_the_worst_by_enumeration(sid, params, pair, rdp_eps, hockey):
    """Every adjacent pair of datasets of N records (N = 8 bits; N = 6 records in K = 3 categories): the proposed pair
    has the largest epsilon at delta = 1e-5, both from its exact RDP curve converted (dpverify.calculus.conversions,
    Balle et al. 2020) and from the exact hockey-stick divergence; its numbers are pinned."""
    s = registry.make(sid, **params)
    K, N = (2, 8) if sid.endswith("bernoulli") else (3, 6)
    orders = 1.0 + (s.max_order - 1.0) * FRACTIONS
    by_rdp, by_exact, seen = [], [], {}
    for counts in itertools.product(range(N + 1), repeat=K):
        if sum(counts) != N:
            continue
        base = np.repeat(np.arange(K), counts)
        for i, j in itertools.permutations(range(K), 2):
            if counts[i] == 0:
                continue
            other = base.copy()
            other[np.flatnonzero(base == i)[0]] = j
            d, dp = (1 - base, 1 - other) if K == 2 else (base, other)  # bits: category 0 counts the ones
            curve = s.pair_rdp(d, dp, orders)
            by_rdp.append(rdp_to_dp(curve.orders, curve.epsilons, 1e-5).epsilon)
            key = s._beta_pair(d, dp)  # the two beta laws the pair's privacy depends on: many pairs share them
            if key not in seen:
                seen[key] = s.exact_epsilon(d, dp, 1e-5)
            by_exact.append(seen[key])
    curve = s.pair_rdp(*pair, orders)
    mine = rdp_to_dp(curve.orders, curve.epsilons, 1e-5).epsilon
    assert mine == pytest.approx(max(by_rdp), rel=1e-12) and mine == pytest.approx(rdp_eps, rel=1e-6)
    assert s.exact_epsilon(*pair, 1e-5) == pytest.approx(max(by_exact), rel=1e-9) == pytest.approx(hockey, rel=1e-6)


def test_pair_rdp_is_symmetric_and_the_exact_epsilon_refuses_non_adjacent_pairs():
    s = registry.make("rdp_posterior_dirichlet_categorical", **DIR_CASE)
    a = s.pair_rdp(*DIR_PAIR, [2.0, 5.0])
    b = s.pair_rdp(DIR_PAIR[1], DIR_PAIR[0], [2.0, 5.0])
    assert a.epsilons == b.epsilons
    assert s.exact_epsilon(DIR_PAIR[0], np.array([0, 0, 2, 2, 2, 2]), 1e-5) is None  # two records moved
    assert s.exact_epsilon(*DIR_PAIR, 0.0) == math.inf and s.exact_epsilon(DIR_PAIR[0], DIR_PAIR[0], 1e-5) == 0.0


def test_log_density_is_the_posteriors():
    s = registry.make("rdp_posterior_beta_bernoulli", alpha0=0.7, beta0=2.0, r=0.4)
    data = np.array([1, 0, 1, 1])
    x = np.array([[0.1], [0.5], [0.93]])
    assert s.log_density(data, x) == pytest.approx(stats.beta(0.7 + 1.2, 2.0 + 0.4).logpdf(x[:, 0]), rel=1e-12)
    d = registry.make("rdp_posterior_dirichlet_categorical", K=3, alpha=[0.5, 1.0, 2.0], r=0.5)
    t = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    want = [stats.dirichlet([0.5 + 0.5, 1.0, 2.0 + 1.0]).logpdf(row) for row in t]
    assert d.log_density(np.array([0, 2, 2]), t) == pytest.approx(want, rel=1e-12)


# -------------------------------------------------------------------------------------------------------- calibrations
def test_calibrations_meet_the_target_exactly():
    bound = theorems.get("geumlek2017.alg_diffuse_concentrated_beta")
    r = calibrate_weight(10.0, 0.5, 1.0)
    assert bound.evaluate(alpha=10.0, a_min=1.0, weight=r).rdp == pytest.approx(0.5, rel=1e-10)
    m = calibrate_prior_scale(4.0, 0.2, 1.0, 1.0)
    assert bound.evaluate(alpha=4.0, a_min=m, weight=1.0).rdp == pytest.approx(0.2, rel=1e-10)
    assert calibrate_weight(1.5, 10.0, 2.0) == 1.0 and calibrate_prior_scale(1.5, 10.0, 2.0, 1.0) == 1.0  # already met
    s = registry.make("rdp_posterior_beta_bernoulli", alpha0=2.0, beta0=1.0, order=4.0, rdp_epsilon=0.2,
                      calibration="concentrated")
    assert s.prior_scale == pytest.approx(m, rel=1e-12) and s.a_min == pytest.approx(m, rel=1e-12)


def test_an_order_beyond_the_max_order_is_refused_unless_unguaranteed():
    with pytest.raises(HypothesisError, match="order_below_max_order"):
        registry.make("rdp_posterior_beta_bernoulli", alpha0=1.0, beta0=1.0, order=2.5)  # max order 2
    s = registry.make("rdp_posterior_beta_bernoulli", alpha0=1.0, beta0=1.0, order=2.5, unguaranteed=True)
    assert s.max_order == 2.0 and s.guarantee().epsilon > 0


@pytest.mark.parametrize("params, match", [
    ({"r": 0.0}, "r must be in"),
    ({"r": 1.5}, "r must be in"),
    ({"alpha0": -1.0}, "alpha0 must be in"),
    ({"calibration": "tempered"}, "calibration must be one of"),
    ({"calibration": "diffuse", "order": 2.0}, "needs a target"),
    ({"order": 0.5}, "order must be in"),
    ({"rdp_epsilon": 0.0, "order": 1.5}, "rdp_epsilon must be in"),
    ({"delta": 0.0}, "delta"),
    ({"N": 0}, "N must be"),
])
def test_bad_parameters_name_the_argument(params, match):
    with pytest.raises(ValueError, match=match):
        registry.make("rdp_posterior_beta_bernoulli", **params)


def test_bad_data_and_outputs_are_clear_errors():
    s = registry.make("rdp_posterior_beta_bernoulli")
    with pytest.raises(ValueError, match="integers in 0..1; got 2"):
        s.sample(np.array([0, 2, 1]), 3, 0)
    with pytest.raises(ValueError, match="non-empty 1-d"):
        s.sample(np.zeros((2, 2)), 3, 0)
    with pytest.raises(ValueError, match=r"outputs must have shape \(n, 1\)"):
        s.log_density(np.array([0, 1]), np.array([0.3, 0.4]))
    with pytest.raises(ValueError, match="alpha must be > 0"):
        registry.make("rdp_posterior_dirichlet_categorical", K=3, alpha=[1.0, 2.0])


# -- the pair's privacy-loss law, for the budget ceiling --------------------------------------------------------------
def _loss_cdf(masses, t):
    losses, p, q, _, _ = masses.masses()
    return float(p[losses <= t].sum()), float(q[losses <= t].sum())


@pytest.mark.parametrize("pair", [(3.0, 5.0, 4.0, 4.0), (1.0, 1.58, 1.07, 1.51), (40.0, 2.5, 39.7, 2.8)])
def test_loss_masses_reproduce_the_exact_hockey_stick(pair):
    """The masses' hockey-stick divergence sum max(p - e^eps q, 0) equals the closed form (beta_hockey_stick) in both
    directions to 1e-6 absolute: the cells are exact level sets, so the only error is the cut's resolution (the
    largest cell has 3e-4 probability, and a cell straddling the crossing loses at most its own excess, measured
    below 1e-7). A wrong constant in the loss (dropping the betaln difference) moves the crossing and fails this."""
    from dpverify.calculus.conjugate_renyi import beta_hockey_stick, beta_pair_loss_masses

    masses = beta_pair_loss_masses(*pair)
    losses, p, q, p_inf, q_inf = masses.masses()
    assert masses.exact and p_inf == q_inf == 0.0
    assert math.isclose(p.sum(), 1.0, abs_tol=1e-12) and math.isclose(q.sum(), 1.0, abs_tol=1e-12)
    a1, b1, a2, b2 = pair
    for eps in (0.0, 0.05, 0.3, 1.0):
        forward = float(np.sum(np.maximum(p - math.exp(eps) * q, 0.0)))
        backward = float(np.sum(np.maximum(q - math.exp(eps) * p, 0.0)))
        assert forward == pytest.approx(beta_hockey_stick(eps, a1, b1, a2, b2), abs=1e-6)
        assert backward == pytest.approx(beta_hockey_stick(eps, a2, b2, a1, b1), abs=1e-6)


def test_loss_masses_refuse_pairs_that_are_not_adjacent():
    from dpverify.calculus.conjugate_renyi import beta_pair_loss_masses

    with pytest.raises(ValueError, match="adjacent posteriors"):
        beta_pair_loss_masses(1.0, 2.0, 2.0, 2.0)
    with pytest.raises(ValueError, match="a1"):
        beta_pair_loss_masses(-1.0, 2.0, 2.0, -1.0)


@pytest.mark.parametrize("sid, params, data, neighbour", [
    ("rdp_posterior_beta_bernoulli", {"alpha0": 1.0, "beta0": 1.0, "r": 0.3}, [0] * 8, [1] + [0] * 7),
    ("rdp_posterior_dirichlet_categorical", {"K": 4, "alpha": [0.8, 1.5, 2.0, 1.0], "r": 0.5},
     [0, 1, 1, 2, 3, 3], [2, 1, 1, 2, 3, 3]),
])
def test_pair_privacy_loss_is_the_law_of_the_log_density_ratio(sid, params, data, neighbour):
    """Drawn outputs' log-density ratio (the samplers' own log_density, all K coordinates) has the law the masses
    state, under both datasets: two-sample KS distance between 40,000 draws and the masses' CDF at 40 quantiles below
    0.0097 (the 1e-3 critical value of a one-sample KS test, 1.95/sqrt(40000)). This pins the Dirichlet reduction (the
    two moved coordinates' beta law, aggregation) and the loss's sign and constant; a reversed sign fails by > 0.3."""
    sampler = registry.make(sid, **params)
    masses = sampler.pair_privacy_loss(data, neighbour)
    assert masses is not None and masses.exact
    rng = np.random.default_rng(7)
    critical = 1.95 / math.sqrt(40_000)
    for side, which in ((data, 0), (neighbour, 1)):
        x = sampler.sample(side, 40_000, rng)
        loss = np.sort(sampler.log_density(data, x) - sampler.log_density(neighbour, x))
        for t in np.quantile(loss, np.linspace(0.025, 0.975, 40)):
            empirical = np.searchsorted(loss, t, side="right") / loss.size
            assert abs(empirical - _loss_cdf(masses, t)[which]) < critical
    if sid.endswith("categorical"):  # three coordinates move: no beta reduction
        assert sampler.pair_privacy_loss(data, [3, 3, 3, 3, 3, 3]) is None
