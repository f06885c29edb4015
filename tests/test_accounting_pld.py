"""The PLD accountant (dpverify.calculus.accounting.pld): its bracket against closed forms and against dp-accounting.

Every bound is rigorous (see the module docstring), so each test checks that the bracket CONTAINS an
independently known value, and that it is narrow. Independent references: the exact Gaussian profile
(Balle & Wang 2018; dpverify.calculus.mechanisms.gaussian), the exact k-fold composition of pure DP (Kairouz, Oh,
Viswanath 2015; dpverify.calculus.composition), dp-accounting 0.6's PLD and RDP accountants (imported here only),
dpverify's RdpAccountant, and the budget ceiling of dpverify.audit.ceiling.

Slack in containment checks: the closed forms are themselves root-found (gaussian_epsilon: brentq with
xtol 1e-14, rtol 1e-13; optimal_homogeneous_composition: rtol 1e-12) and the discretisation carries
floating-point rounding (split fractions ~1e-8 relative of a cell's mass, i.e. < 1e-12 absolute on delta);
FLOAT_SLACK = 1e-10 covers both with margin. Bracket-width bounds are stated next to each check: for one
smooth step the gap is second order in the interval h = 1e-4 (measured <= 2e-7 on epsilon), and it grows
at most linearly with the number of composed steps.
"""
import logging
import math
import time

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import pld_privacy_accountant as dpa_pld
from dp_accounting.rdp import rdp_privacy_accountant as dpa_rdp

from dpverify.calculus.accounting import (
    PldAccountant,
    PrivacyLossDistribution,
    RdpAccountant,
    gaussian_pld,
    identity_pld,
    pure_dp_pld,
    subsampled_gaussian_pld,
)
from dpverify.audit.ceiling import ceiling_from_masses, gaussian_ceiling
from dpverify.calculus.composition import optimal_homogeneous_composition
from dpverify.calculus.guarantees import Conversion
from dpverify.calculus.mechanisms.gaussian import gaussian_delta, gaussian_epsilon

logging.getLogger("absl").setLevel(logging.ERROR)

FLOAT_SLACK = 1e-10
DPSGD_Q, DPSGD_SIGMA, DPSGD_STEPS = 256 / 60000, 1.1, 14062


def contains(bracket, value, slack=FLOAT_SLACK):
    lo, up = bracket
    return lo - slack <= value <= up + slack


def dp_accounting_epsilons(q, sigma, steps, delta):
    """(PLD epsilon at interval 1e-4, RDP epsilon) of dp-accounting 0.6 for Poisson-subsampled Gaussian steps."""
    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps)
    pld = dpa_pld.PLDAccountant(value_discretization_interval=1e-4)
    pld.compose(event)
    rdp = dpa_rdp.RdpAccountant()
    rdp.compose(event)
    return pld.get_epsilon(delta), rdp.get_epsilon(delta)


# ------------------------------------------------------------------------------------ one Gaussian step


@pytest.mark.parametrize("mu", [0.1, 0.5, 1.0, 3.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-10])
def test_gaussian_epsilon_bracket_contains_closed_form(mu, delta):
    lo, up = gaussian_pld(mu).epsilon_bounds(delta)
    exact = gaussian_epsilon(delta, mu)
    assert contains((lo, up), exact)
    # one step: second-order gap (measured <= 1.6e-7 at delta = 1e-10, <= 5e-8 at delta >= 1e-5)
    assert up - lo <= 1e-6


@pytest.mark.parametrize("mu", [0.5, 1.0, 3.0])
@pytest.mark.parametrize("eps", [0.0, 0.5, 1.0, 2.345])
def test_gaussian_delta_bracket_contains_closed_form(mu, eps):
    lo, up = gaussian_pld(mu).delta_bounds(eps)
    exact = gaussian_delta(eps, mu)
    assert exact > 1e-12  # where the tail cut (<= 5e-16 at +inf) does not dominate
    assert lo * (1 - 1e-12) <= exact <= up * (1 + 1e-12)  # relative float slack of the split fractions
    assert (up - lo) / exact <= 1e-6  # measured <= 1.3e-7


def test_gaussian_large_mu_no_overflow_and_bracket():
    # mu = 50: losses around mu^2/2 = 1250, epsilon ~ 1462; interval 1e-3 keeps the grid at ~8e5 points
    lo, up = gaussian_pld(50.0, interval=1e-3).epsilon_bounds(1e-5)
    exact = gaussian_epsilon(1e-5, 50.0)
    assert math.isfinite(lo) and math.isfinite(up)
    assert contains((lo, up), exact, slack=1e-9)
    assert up - lo <= 1e-5


# --------------------------------------------------------------------------------------- composition


@pytest.mark.parametrize("mu,k", [(0.5, 4), (0.5, 16), (0.2, 100), (1.0, 10)])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-8])
def test_composed_gaussians_equal_one_gaussian(mu, k, delta):
    """k Gaussian steps with mu compose to one Gaussian with mu sqrt(k) (closed form)."""
    lo, up = gaussian_pld(mu).self_compose(k).epsilon_bounds(delta)
    exact = gaussian_epsilon(delta, mu * math.sqrt(k))
    assert contains((lo, up), exact)
    # the gap grows at most linearly in k from the one-step gap (<= 1e-6 at delta >= 1e-8 per step)
    assert up - lo <= 1e-6 * k


def test_self_compose_equals_repeated_compose():
    one = subsampled_gaussian_pld(0.05, 1.0)
    a = one.self_compose(7)
    b = one
    for _ in range(6):
        b = b.compose(one)
    for delta in (1e-3, 1e-6):
        la, ua = a.epsilon_bounds(delta)
        lb, ub = b.epsilon_bounds(delta)
        # same laws convolved in another order: equal up to FFT round-off and tail cuts (<= 1e-15 mass)
        assert la == pytest.approx(lb, abs=1e-9) and ua == pytest.approx(ub, abs=1e-9)
    assert a.steps == b.steps == 7


def test_identity_is_neutral():
    ident = identity_pld()
    assert ident.epsilon_bounds(1e-6) == (0.0, 0.0)
    assert ident.delta_bounds(0.0) == (0.0, 0.0)
    g = gaussian_pld(0.8)
    assert ident.compose(g).epsilon_bounds(1e-5) == g.epsilon_bounds(1e-5)
    assert ident.basis == "PLD of no steps (identity)"


# --------------------------------------------------------------------------- DP-SGD reference point


def test_dpsgd_reference_point():
    """q = 256/60000, sigma = 1.1, 14062 steps, delta = 1e-5 (shared DEPENDENCIES.md): dp-accounting PLD
    (interval 1e-4, pessimistic) 2.381686, prv-accountant [2.371456, 2.391744] (estimate 2.381600)."""
    t0 = time.perf_counter()
    acc = PldAccountant(interval=1e-4).compose_subsampled_gaussian(DPSGD_Q, 1 / DPSGD_SIGMA, DPSGD_STEPS)
    conv = acc.get_epsilon(1e-5)
    seconds = time.perf_counter() - t0
    print(f"DP-SGD reference: [{conv.epsilon_lower:.6f}, {conv.epsilon:.6f}] in {seconds:.2f} s")
    lo, up = conv.epsilon_lower, conv.epsilon
    # dp-accounting's pessimistic PLD is an upper bound with the same kind of discretisation error as ours
    assert lo <= 2.381686 <= up + 1e-5
    assert 2.371456 <= lo and up <= 2.391744  # inside prv-accountant's certified interval
    assert up - lo <= 3e-4  # measured 1.4e-4
    assert seconds < 60.0  # measured 2-5 s on the shared 2-core machine


# ---------------------------------------------------------------------------------- vs dp-accounting


@pytest.mark.parametrize("q,sigma,steps", [(0.01, 1.0, 1000), (0.1, 2.0, 500), (0.001, 0.8, 10000)])
def test_subsampled_gaussian_agrees_with_dp_accounting(q, sigma, steps):
    delta = 1e-5
    theirs_pld, theirs_rdp = dp_accounting_epsilons(q, sigma, steps, delta)
    acc = PldAccountant().compose_subsampled_gaussian(q, 1 / sigma, steps)
    conv = acc.get_epsilon(delta)
    lo, up = conv.epsilon_lower, conv.epsilon
    width = up - lo
    assert width <= 5e-4  # measured <= 2.5e-4
    # dp-accounting's pessimistic value is an upper bound (>= our rigorous lower bound); its discretisation
    # error is of the same kind and size as ours, so it lies within our bracket widened by its width
    assert lo <= theirs_pld <= up + width
    # RDP accounting (dp-accounting's and ours, balle2020 conversion) is a looser upper bound
    ours_rdp = RdpAccountant().compose_sampled_gaussian(q, sigma, steps).get_epsilon(delta).epsilon
    assert up <= theirs_rdp and up <= ours_rdp


# ------------------------------------------------------------------------------ heterogeneous steps


def test_schedule_of_1000_distinct_gaussians_equals_one_gaussian():
    """1000 full-batch Gaussian steps with distinct mu_t compose to one Gaussian with mu = ||mu||_2."""
    mus = 0.02 + 0.03 * np.random.default_rng(0).random(1000)
    assert np.unique(mus).size == 1000
    acc = PldAccountant(interval=1e-3).compose_schedule(1.0, mus)
    for delta in (1e-3, 1e-6):
        lo, up = acc.pld.epsilon_bounds(delta)
        assert contains((lo, up), gaussian_epsilon(delta, float(np.linalg.norm(mus))))
        # per-step gap is second order in h (~1e-6 at h = 1e-3), added up over 1000 steps; measured 4.4e-4
        assert up - lo <= 1e-3
    assert acc.pld.steps == 1000


def test_schedule_grouping_equals_step_by_step():
    rng = np.random.default_rng(1)
    q = rng.choice([0.01, 0.05], size=30)
    mu = rng.choice([0.6, 0.9, 1.3], size=30)
    grouped = PldAccountant().compose_schedule(q, mu)
    stepwise = PldAccountant()
    for qq, mm in zip(q, mu):
        stepwise.compose_subsampled_gaussian(float(qq), float(mm))
    for delta in (1e-4, 1e-7):
        lg, ug = grouped.pld.epsilon_bounds(delta)
        ls, us = stepwise.pld.epsilon_bounds(delta)
        assert max(lg, ls) <= min(ug, us) + FLOAT_SLACK  # two rigorous brackets of one value overlap
    # same step laws composed in another order: the deltas differ only by the mass the tail cuts and the
    # round-off trimming move, <= (number of convolutions, ~30) x (tail_mass 1e-15 + trimmed round-off
    # ~1e-14) < 1e-12 (measured 1.3e-13)
    for eps in (1.0, 3.0, 4.2, 6.0):
        for a, b in zip(grouped.pld.delta_bounds(eps), stepwise.pld.delta_bounds(eps)):
            assert a == pytest.approx(b, abs=1e-12)


def test_schedule_heterogeneous_subsampled_between_its_extremes():
    """Composition is monotone in each step: a schedule of mu_t in [0.5, 1] lies between all-0.5 and all-1."""
    mus = np.linspace(0.5, 1.0, 60)
    mid = PldAccountant().compose_schedule(0.02, mus).pld.epsilon_bounds(1e-5)
    low = PldAccountant().compose_subsampled_gaussian(0.02, 0.5, 60).pld.epsilon_bounds(1e-5)
    high = PldAccountant().compose_subsampled_gaussian(0.02, 1.0, 60).pld.epsilon_bounds(1e-5)
    assert low[0] < mid[0] <= mid[1] < high[1]


# ------------------------------------------------------------------------------------------- pure DP


@pytest.mark.parametrize("eps0,k", [(0.1, 10), (0.5, 20), (1.0, 5), (2.0, 1)])
@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_pure_dp_on_grid_matches_kov(eps0, k, delta):
    exact = optimal_homogeneous_composition(eps0, 0.0, k, delta).epsilon
    lo, up = pure_dp_pld(eps0).self_compose(k).epsilon_bounds(delta)
    assert contains((lo, up), exact)
    assert up - lo <= 1e-9  # eps0 a multiple of the interval: both laws are the exact RR atoms


@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_pure_dp_off_grid_bracket(delta):
    eps0, k, h = 0.12345, 30, 1e-4
    exact = optimal_homogeneous_composition(eps0, 0.0, k, delta).epsilon
    lo, up = pure_dp_pld(eps0, interval=h).self_compose(k).epsilon_bounds(delta)
    assert contains((lo, up), exact)
    assert up - lo <= k * h  # the lower law is RR at the grid point below eps0: at most h per step


def test_pure_dp_composes_with_gaussian_steps():
    """A posterior sample claimed eps-DP plus Gaussian steps: more loss than either, bounded by basic
    composition of the parts' epsilons at delta split between them."""
    both = pure_dp_pld(0.5).compose(gaussian_pld(0.5).self_compose(10))
    lo, up = both.epsilon_bounds(1e-5)
    assert lo > gaussian_epsilon(1e-5, 0.5 * math.sqrt(10))
    assert up <= 0.5 + gaussian_epsilon(1e-5, 0.5 * math.sqrt(10))  # (0.5, 0) + (eps_G, 1e-5)


def test_pure_dp_large_epsilon_tiny_delta():
    pld = pure_dp_pld(300.0)
    lo, up = pld.epsilon_bounds(1e-300)
    assert lo == pytest.approx(300.0) and up == pytest.approx(300.0)
    assert pld.delta(299.0) == pytest.approx(-math.expm1(-1.0))  # RR: 1 - e^{eps - eps0} at eps < eps0


# ------------------------------------------------------------------------------------------ numerics


@pytest.mark.parametrize("q,mu,interval", [(1e-6, 1.0, 1e-4), (1e-6, 50.0, 1e-2), (0.5, 50.0, 1e-2),
                                           (0.3, 1e-3, 1e-4), (0.01, 20.0, 1e-3)])
def test_extreme_parameters_no_nan(q, mu, interval):
    pld = subsampled_gaussian_pld(q, mu, interval=interval)
    for delta in (1e-5, 1e-300):
        lo, up = pld.epsilon_bounds(delta)
        assert not math.isnan(lo) and not math.isnan(up) and 0.0 <= lo <= up
    for eps in (0.0, 1.0, 300.0):
        lo, up = pld.delta_bounds(eps)
        assert 0.0 <= lo <= up <= 1.0
    # delta below the mass kept at +inf: the upper bound is honest (inf), never NaN
    assert pld.epsilon(1e-300) == math.inf


def test_tiny_q_is_nearly_private():
    # q = 1e-6: TV distance q (2 Phi(mu/2) - 1) = 3.83e-7 at mu = 1, delta(0) bracket contains it
    lo, up = subsampled_gaussian_pld(1e-6, 1.0).delta_bounds(0.0)
    tv = 1e-6 * (2 * 0.6914624612740131 - 1)
    assert lo <= tv * (1 + 1e-9) and tv <= up * (1 + 1e-9)
    assert subsampled_gaussian_pld(1e-6, 1.0).epsilon(1e-5) == 0.0


def test_q_one_is_the_gaussian_pair():
    a = subsampled_gaussian_pld(1.0, 0.7).epsilon_bounds(1e-5)
    b = gaussian_pld(0.7).epsilon_bounds(1e-5)
    assert a == b
    assert contains(a, gaussian_epsilon(1e-5, 0.7))


def test_epsilon_and_delta_bounds_are_consistent():
    pld = subsampled_gaussian_pld(0.05, 1.0).self_compose(50)
    for delta in (1e-3, 1e-6, 1e-9):
        lo, up = pld.epsilon_bounds(delta)
        assert lo <= up
        assert pld.delta(up) <= delta * (1 + 1e-9)  # the upper epsilon is where the upper delta reaches delta
        assert pld.delta_bounds(lo)[0] >= delta * (1 - 1e-6)  # ... and the lower one, the lower delta
    eps = [pld.epsilon(d) for d in (1e-2, 1e-4, 1e-6, 1e-8)]
    assert eps == sorted(eps)


# -------------------------------------------------------------------------------------------- masses


@pytest.mark.parametrize("mu,expected", [(0.268, 0.633), (1.07, 3.133)])
def test_masses_reproduce_the_gaussian_ceiling(mu, expected):
    losses, p, q, p_inf, q_inf = gaussian_pld(mu).masses()
    assert np.all(np.diff(losses) > 0)
    assert p.sum() + p_inf == pytest.approx(1.0, abs=1e-12)
    assert q.sum() + q_inf == pytest.approx(1.0, abs=1e-12)
    ours = ceiling_from_masses(losses, p, q, n=160_000, delta=1e-5, p_inf=p_inf, q_inf=q_inf)
    ref = gaussian_ceiling(mu, n=160_000, delta=1e-5)
    assert ours == pytest.approx(ref, abs=1e-3)
    assert ours == pytest.approx(expected, abs=1e-3)


def test_masses_of_a_composed_subsampled_run_are_a_pair():
    losses, p, q, p_inf, q_inf = subsampled_gaussian_pld(0.1, 1.0).self_compose(20).masses()
    assert p.sum() + p_inf == pytest.approx(1.0, abs=1e-9)
    assert q.sum() + q_inf == pytest.approx(1.0, abs=1e-9)
    # where both are resolved, q = e^{-loss} p (the dominating pair's likelihood ratio), up to FFT round-off
    ok = (p > 1e-9) & (q > 1e-9)
    assert ok.sum() > 100
    np.testing.assert_allclose(q[ok], np.exp(-losses[ok]) * p[ok], rtol=1e-6)


# ---------------------------------------------------------------------------------------- interface


def test_accountant_returns_conversions():
    acc = PldAccountant(interval=1e-3).compose_gaussian(0.5, count=4).compose_pure_dp(0.1, count=2)
    c = acc.get_epsilon(1e-6)
    assert isinstance(c, Conversion) and c.method == "pld" and c.order is None
    assert c.epsilon_lower <= c.epsilon and c.delta == 1e-6
    d = acc.get_delta(1.0)
    assert d.method == "pld" and d.order is None and d.epsilon == 1.0 and d.delta_lower <= d.delta
    assert isinstance(acc.pld, PrivacyLossDistribution) and acc.pld.steps == 6
    assert "4 Gaussian steps (mu=0.5)" in acc.pld.basis and "2 pure-DP steps (epsilon=0.1)" in acc.pld.basis


def test_basis_describes_the_run():
    pld = subsampled_gaussian_pld(0.1, 0.67).self_compose(50)
    assert pld.basis == "PLD of 50 Poisson-subsampled Gaussian steps (q=0.1, mu=0.67)"


@pytest.mark.parametrize("call,name", [
    (lambda: subsampled_gaussian_pld(0.0, 1.0), "q"),
    (lambda: subsampled_gaussian_pld(1.5, 1.0), "q"),
    (lambda: subsampled_gaussian_pld(0.1, 0.0), "mu"),
    (lambda: gaussian_pld(-1.0), "mu"),
    (lambda: gaussian_pld(float("nan")), "mu"),
    (lambda: gaussian_pld(float("inf")), "mu"),
    (lambda: gaussian_pld(1.0, interval=0.0), "interval"),
    (lambda: gaussian_pld(1.0, interval=-1e-4), "interval"),
    (lambda: pure_dp_pld(0.0), "epsilon"),
    (lambda: gaussian_pld(1.0).self_compose(0), "count"),
    (lambda: PldAccountant().compose_gaussian(1.0, count=0), "count"),
    (lambda: gaussian_pld(1.0).epsilon(0.0), "delta"),
    (lambda: gaussian_pld(1.0).epsilon(1.0), "delta"),
    (lambda: gaussian_pld(1.0).delta(-0.1), "epsilon"),
    (lambda: PldAccountant(interval=0.0), "interval"),
    (lambda: PldAccountant().compose_schedule([0.1, 2.0], [1.0, 1.0]), "q"),
    (lambda: PldAccountant().compose_schedule(0.1, [1.0, -1.0]), "mu"),
    (lambda: PldAccountant().compose_schedule([0.1, 0.2, 0.3], [1.0, 1.0]), "same length"),
    (lambda: PldAccountant().compose_schedule([], []), "at least one step"),
    (lambda: gaussian_pld(1.0).compose(gaussian_pld(1.0, interval=1e-3)), "interval"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_compose_wrong_type():
    with pytest.raises(TypeError, match="PrivacyLossDistribution"):
        gaussian_pld(1.0).compose(1.0)
