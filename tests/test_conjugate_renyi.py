"""Exact Rényi divergences of conjugate posteriors (dpverify.calculus.conjugate_renyi): the closed form against
numerical integration, the mpmath fallback, the Dirichlet-to-beta reduction, the worst case over adjacent datasets
against brute force, the second-order bound, the exact (epsilon, delta) of a pair, and bad input."""
from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, special, stats

from dpverify.calculus import conjugate_renyi as cr
from dpverify.calculus.conversions import rdp_to_dp


def _grid(n: int, seed: int) -> list[tuple[float, float, float, float, float]]:
    """``n`` finite points (order, a1, b1, a2, b2): half neighbouring posteriors (one record of weight r moved), half
    arbitrary pairs; orders 1.02-15, parameters 0.3-20 (neighbours, weight 0.2-1) and 0.3-60 (arbitrary)."""
    rng = np.random.default_rng(seed)
    out: list[tuple[float, float, float, float, float]] = []
    while len(out) < n:
        lam, r = rng.uniform(1.02, 15.0), rng.uniform(0.2, 1.0)
        a, b = rng.uniform(0.3, 20.0, 2) if len(out) % 2 else rng.uniform(0.3, 60.0, 2)
        a2, b2 = (a + r, b - r) if len(out) % 2 else tuple(rng.uniform(0.3, 60.0, 2))
        if b2 > 0 and a2 + lam * (a - a2) > 0.05 and b2 + lam * (b - b2) > 0.05:
            out.append((lam, a, b, float(a2), float(b2)))
    return out


GRID = _grid(60, seed=39)


def test_closed_form_matches_quadrature_at_sixty_points():
    """60 points (>= 50), relative 1e-9: quad integrates p1^lam p2^(1 - lam) in the logit variable to ~1e-13 relative,
    which bounds the error on D = log(I)/(lam - 1) by ~1e-13 / |log I| (>= 1e-3 at these points: well below 1e-9)."""
    errors = []
    for lam, a1, b1, a2, b2 in GRID:
        closed = float(cr.beta_renyi_divergence(lam, a1, b1, a2, b2))
        quad = cr.beta_renyi_divergence_quadrature(lam, a1, b1, a2, b2)
        assert (lam - 1) * closed > 1e-4  # the regime where the tolerance above is justified
        errors.append(abs(closed - quad) / quad)
    assert len(errors) >= 50 and max(errors) < 1e-9, max(errors)


def test_vectorised_equals_pointwise():
    lam = 3.0
    a1, b1 = np.array([1.0, 2.5, 10.0]), np.array([4.0, 0.7, 3.0])
    out = cr.beta_renyi_divergence(lam, a1, b1, a1 + 0.5, b1 + 0.2)
    assert out.shape == (3,)
    for k in range(3):
        assert out[k] == pytest.approx(float(cr.beta_renyi_divergence(lam, a1[k], b1[k], a1[k] + 0.5, b1[k] + 0.2)),
                                       rel=1e-14)


def _mp_reference(lam, a1, b1, a2, b2, digits=80):
    with mpmath.workdps(digits):
        lb = lambda a, b: mpmath.log(mpmath.beta(a, b))  # noqa: E731 - a different route than loggamma sums
        lam, a1, b1, a2, b2 = (mpmath.mpf(x) for x in (lam, a1, b1, a2, b2))
        return float((lb(a2 + lam * (a1 - a2), b2 + lam * (b1 - b2)) - lam * lb(a1, b1) + (lam - 1) * lb(a2, b2))
                     / (lam - 1))


@pytest.mark.parametrize("point", [(2.0, 1e6, 2e6, 1e6 + 1, 2e6 - 1), (1.0001, 30.0, 40.0, 31.0, 39.0),
                                   (50.0, 3e4, 5.0, 3e4 - 0.1, 5.1)])
def test_ill_conditioned_points_are_recomputed_in_high_precision(point):
    """Large parameters or an order near 1: the three log-normalisers (~1e7 each) cancel to ~1e-6, so float64 alone
    would keep ~3 digits; the mpmath fallback agrees with an 80-digit evaluation through log B to 1e-11."""
    lam, a1, b1, a2, b2 = point
    naive = ((special.betaln(a2 + lam * (a1 - a2), b2 + lam * (b1 - b2)) - lam * special.betaln(a1, b1)
              + (lam - 1) * special.betaln(a2, b2)) / (lam - 1))
    ref = _mp_reference(*point)
    got = float(cr.beta_renyi_divergence(*point))
    assert got == pytest.approx(ref, rel=1e-11)
    if point[1] > 1e5:
        assert abs(naive - ref) / ref > 1e-9  # float64 alone would fail the tolerance the module promises


def test_dirichlet_against_two_dimensional_quadrature():
    """K = 3 (not a moved-record pair, so no reduction applies): the closed form against dblquad of p1^lam p2^(1-lam)
    over the simplex (the Dirichlet log densities written out, normalisers from gammaln); relative 1e-7 (dblquad's
    accuracy here)."""
    for lam, a1, a2 in ((2.0, (2.0, 3.0, 4.0), (3.0, 2.5, 4.5)), (1.5, (1.5, 1.2, 2.0), (1.0, 2.0, 1.5))):
        norm = [float(sum(special.gammaln(a)) - special.gammaln(sum(a))) for a in (a1, a2)]

        def f(y, x):
            z = 1.0 - x - y
            if z <= 0 or x <= 0 or y <= 0:
                return 0.0
            logs = (math.log(x), math.log(y), math.log(z))
            lp = [sum((ak - 1) * lk for ak, lk in zip(a, logs)) - c for a, c in zip((a1, a2), norm)]
            return math.exp(lam * lp[0] + (1 - lam) * lp[1])

        val, _ = integrate.dblquad(f, 0.0, 1.0, 0.0, lambda x: 1.0 - x, epsabs=1e-12, epsrel=1e-10)
        want = math.log(val) / (lam - 1)
        assert float(cr.dirichlet_renyi_divergence(lam, a1, a2)) == pytest.approx(want, rel=1e-7)


def test_moved_record_reduces_to_the_two_categories():
    """D(Dir(a) || Dir(a - r e_i + r e_j)) = D(Beta(a_i, a_j) || Beta(a_i - r, a_j + r)) for K = 4 (module docstring)."""
    a = np.array([2.0, 0.7, 5.0, 3.3])
    for lam, r, i, j in ((2.0, 0.4, 0, 2), (6.0, 0.1, 3, 1), (1.3, 1.0, 2, 0)):
        b = a.copy()
        b[i] -= r
        b[j] += r
        assert float(cr.dirichlet_renyi_divergence(lam, a, b)) == pytest.approx(
            float(cr.beta_renyi_divergence(lam, a[i], a[j], a[i] - r, a[j] + r)), rel=1e-13)


def test_order_one_limit_is_the_kl_divergence():
    a1, a2 = np.array([3.0, 4.0, 1.5]), np.array([4.0, 3.0, 1.2])
    kl = float(cr.dirichlet_kl_divergence(a1, a2))
    near = float(cr.dirichlet_renyi_divergence(1.0 + 1e-8, a1, a2))
    assert near == pytest.approx(kl, rel=1e-6)  # D_lam = KL + O(lam - 1)


def test_divergence_is_zero_on_equal_laws_nondecreasing_in_the_order_and_infinite_outside():
    assert float(cr.beta_renyi_divergence(3.0, 2.0, 5.0, 2.0, 5.0)) == 0.0
    orders = np.linspace(1.05, 2.95, 40)
    values = [float(cr.beta_renyi_divergence(o, 1.0, 9.0, 2.0, 8.0)) for o in orders]
    assert all(v2 >= v1 for v1, v2 in zip(values, values[1:]))
    assert float(cr.beta_renyi_divergence(2.0, 1.0, 9.0, 2.0, 8.0)) == math.inf  # mixture 2 + 2 (1 - 2) = 0
    assert float(cr.beta_renyi_divergence(3.5, 1.0, 9.0, 2.0, 8.0)) == math.inf


# ------------------------------------------------------------------------------------- worst case over adjacent datasets
def _brute_force_beta(lam, N, a0, b0, r):
    """Every dataset of N bits and every replacement of one record, both directions."""
    best = 0.0
    for bits in itertools.product((0, 1), repeat=N):
        n1 = sum(bits)
        for k in range(N):
            m1 = n1 + (1 - 2 * bits[k])  # record k flipped
            d = float(cr.beta_renyi_divergence(lam, a0 + r * n1, b0 + r * (N - n1), a0 + r * m1, b0 + r * (N - m1)))
            best = max(best, d)
    return best


@pytest.mark.parametrize("lam, N, a0, b0, r", [(1.5, 5, 1.0, 1.0, 1.0), (3.0, 6, 0.8, 2.5, 0.3), (8.0, 4, 5.0, 2.0, 0.5)])
def test_beta_worst_case_equals_brute_force(lam, N, a0, b0, r):
    worst = cr.beta_bernoulli_worst_case(lam, N, a0, b0, r)
    assert worst.rdp == pytest.approx(_brute_force_beta(lam, N, a0, b0, r), rel=1e-13)
    n1, n1p = worst.dataset_counts[0], worst.neighbour_counts[0]
    again = float(cr.beta_renyi_divergence(lam, a0 + r * n1, b0 + r * (N - n1), a0 + r * n1p, b0 + r * (N - n1p)))
    assert again == worst.rdp and abs(n1 - n1p) == 1 and sum(worst.dataset_counts) == N


def _brute_force_dirichlet(lam, N, prior, r):
    K = len(prior)
    best = 0.0
    for counts in itertools.product(range(N + 1), repeat=K):
        if sum(counts) != N:
            continue
        n = np.array(counts, dtype=float)
        for i, j in itertools.permutations(range(K), 2):
            if n[i] == 0:
                continue
            m = n.copy()
            m[i] -= 1
            m[j] += 1
            best = max(best, float(cr.dirichlet_renyi_divergence(lam, prior + r * n, prior + r * m)))
    return best


@pytest.mark.parametrize("lam, N, prior, r", [(2.0, 4, [1.0, 1.0, 1.0], 0.5), (3.0, 3, [0.5, 2.0, 3.0, 1.5], 0.2),
                                              (1.4, 5, [2.0, 0.9], 1.0)])
def test_dirichlet_worst_case_equals_brute_force_over_all_datasets(lam, N, prior, r):
    worst = cr.dirichlet_categorical_worst_case(lam, N, prior, r)
    assert worst.rdp == pytest.approx(_brute_force_dirichlet(lam, N, np.array(prior), r), rel=1e-13)
    p, q = (np.array(prior) + r * np.array(c) for c in (worst.dataset_counts, worst.neighbour_counts))
    assert float(cr.dirichlet_renyi_divergence(lam, p, q)) == pytest.approx(worst.rdp, rel=1e-13)
    assert sum(worst.dataset_counts) == sum(worst.neighbour_counts) == N


def test_beta_worst_case_is_the_dirichlet_one_at_k2():
    for lam, N, a0, b0, r in ((2.5, 7, 1.5, 3.0, 0.6), (1.2, 3, 0.4, 0.4, 1.0)):
        assert cr.beta_bernoulli_worst_case(lam, N, a0, b0, r).rdp == pytest.approx(
            cr.dirichlet_categorical_worst_case(lam, N, [a0, b0], r).rdp, rel=1e-14)


def test_exact_worst_case_never_exceeds_the_second_order_bound():
    """Ponnoprat's Theorem 1 with replace-one sensitivities Delta_2^2 = 2 r^2, Delta_inf = r, on a grid of K, N, priors,
    weights and orders up to 99% of the way to 1 + a_min / r; tight (ratio >= 0.99) for N = 1, K = 2, r = 0.01."""
    worst = 0.0
    for prior in ([1.0, 1.0], [0.5, 2.0, 3.0], [2.0, 2.0, 2.0, 2.0]):
        for N in (1, 3, 8):
            for r in (1.0, 0.3, 0.05):
                top = 1 + min(prior) / r
                for frac in (0.02, 0.3, 0.7, 0.99):
                    lam = 1 + frac * (top - 1)
                    exact = cr.dirichlet_categorical_worst_case(lam, N, prior, r).rdp
                    worst = max(worst, exact / float(cr.dirichlet_rdp_bound(lam, min(prior), 2 * r * r, r)))
    assert worst <= 1.0
    tight = cr.beta_bernoulli_worst_case(2.0, 1, 2.0, 2.0, 0.01).rdp / float(cr.dirichlet_rdp_bound(2.0, 2.0, 2e-4, 0.01))
    assert 0.99 <= tight <= 1.0


def test_worst_case_curve_is_infinite_from_the_max_order():
    curve = cr.worst_case_rdp_curve([1.5, 1.999, 2.0 + 1e-9, 3.0], 4, [1.0, 1.0], 1.0)
    assert np.all(np.isfinite(curve[:2])) and np.all(np.isinf(curve[2:]))


# --------------------------------------------------------------------------------------- exact (epsilon, delta) of a pair
def _hockey_quad(eps, a1, b1, a2, b2):
    f = lambda t: max(0.0, stats.beta.pdf(t, a1, b1) - math.exp(eps) * stats.beta.pdf(t, a2, b2))  # noqa: E731
    pts = [1e-12, 1e-6, 1e-3, 0.05, 0.2, 0.5, 0.8, 0.95, 1 - 1e-3, 1 - 1e-6, 1 - 1e-12]
    return sum(integrate.quad(f, lo, hi, epsabs=1e-14, limit=200)[0] for lo, hi in zip(pts[:-1], pts[1:]))


@pytest.mark.parametrize("pair", [(1.0, 9.0, 2.0, 8.0), (2.0, 8.0, 1.0, 9.0), (3.0, 4.0, 5.0, 2.5), (1.2, 1.3, 2.0, 3.0)])
def test_hockey_stick_against_quadrature(pair):
    """Adjacent pairs (monotone log ratio) and general pairs (one stationary point); absolute 1e-9."""
    for eps in (0.0, 0.3, 1.0, 2.5):
        assert cr.beta_hockey_stick(eps, *pair) == pytest.approx(_hockey_quad(eps, *pair), abs=1e-9)


def test_pair_epsilon_inverts_the_hockey_stick_and_is_below_the_rdp_conversion():
    pair = (1.0, 9.0, 1.3, 8.7)
    eps = cr.beta_pair_epsilon(1e-5, *pair)
    both = max(cr.beta_hockey_stick(eps, *pair), cr.beta_hockey_stick(eps, pair[2], pair[3], pair[0], pair[1]))
    assert both == pytest.approx(1e-5, rel=1e-6)
    orders = np.linspace(1.01, 1 + 1.0 / 0.3 * 0.999, 200)
    rdp = [max(float(cr.beta_renyi_divergence(o, *pair)), float(cr.beta_renyi_divergence(o, pair[2], pair[3], *pair[:2])))
           for o in orders]
    assert eps <= rdp_to_dp(orders, rdp, 1e-5).epsilon  # the RDP conversion is an upper bound on the exact value
    assert cr.beta_pair_epsilon(0.0, *pair) == math.inf  # unbounded log ratio: no pure DP


# --------------------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("call, match", [
    (lambda: cr.beta_renyi_divergence(1.0, 1, 2, 3, 4), "order must be in"),
    (lambda: cr.beta_renyi_divergence(2.0, -1, 2, 3, 4), "a1 must be finite and > 0"),
    (lambda: cr.dirichlet_renyi_divergence(2.0, [1, 2, 3], [1, 2]), "same number of categories"),
    (lambda: cr.dirichlet_renyi_divergence(2.0, [1.0], [1.0]), "last axis of length >= 2"),
    (lambda: cr.dirichlet_renyi_divergence(2.0, [1, 0, 3], [1, 2, 3]), "concentration1 must contain finite numbers > 0"),
    (lambda: cr.beta_bernoulli_worst_case(2.0, 0, 1, 1), "N must be"),
    (lambda: cr.beta_bernoulli_worst_case(2.0, 4, 1, 1, r=1.5), "r must be in"),
    (lambda: cr.dirichlet_categorical_worst_case(2.0, 4, [1.0, 2.0, np.nan]), "concentration must be finite"),
    (lambda: cr.beta_hockey_stick(-0.1, 1, 2, 3, 4), "epsilon must be in"),
    (lambda: cr.beta_pair_epsilon(1.5, 1, 2, 3, 4), "delta"),
])
def test_bad_input_names_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()
