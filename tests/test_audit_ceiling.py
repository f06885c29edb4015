"""The budget ceiling and the verdicts (dpverify.audit.ceiling, dpverify.audit.verdicts)."""
import math

import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.ceiling import ceiling_from_masses, gaussian_ceiling, gaussian_loss_masses, saturation
from dpverify.audit.known_bad import gaussian_query
from dpverify.audit.verdicts import verdict, verdict_reason


@pytest.mark.parametrize("mu,expected", [(0.268, 0.633), (0.536, 1.457), (1.07, 3.133)])
def test_gaussian_ceiling_matches_the_reference_values(mu, expected):
    # Reference values computed independently on a grid of 2000 thresholds in [-3, 8] noise sds (AUDITING notes):
    # n = 1.6e5 estimation samples per side, two one-sided 97.5% bounds, delta = 1e-5; "changes the third decimal
    # at most" with a finer grid, hence the 1.5e-3 tolerance.
    assert gaussian_ceiling(mu, n=160_000, delta=1e-5) == pytest.approx(expected, abs=1.5e-3)


def test_ceiling_is_symmetric_in_the_orientation_and_monotone():
    losses, p, q = gaussian_loss_masses(0.5)
    forward = ceiling_from_masses(losses, p, q, n=10_000)
    backward = ceiling_from_masses(-losses, q, p, n=10_000)  # the pair (Q, P): loss -L, masses swapped
    assert forward == pytest.approx(backward, rel=1e-9)
    values = [gaussian_ceiling(mu, n=10_000) for mu in (0.25, 0.5, 1.0, 2.0)]
    assert values == sorted(values) and values[0] > 0  # more privacy loss, higher ceiling
    more = [gaussian_ceiling(1.0, n=n) for n in (1_000, 10_000, 100_000)]
    assert more == sorted(more)  # more samples, higher ceiling
    assert gaussian_ceiling(1.0, n=10_000, candidates=4) < gaussian_ceiling(1.0, n=10_000)  # Bonferroni costs


def test_infinite_loss_atom_and_saturation():
    # P puts mass 0.3 where Q vanishes: the event {L = +inf} alone certifies log((CP_lo(0.3 n) - delta)/CP_up(0)).
    c = ceiling_from_masses([0.0], [0.7], [1.0], p_inf=0.3, n=1000)
    assert c > math.log(0.25 * 1000 / 3.7)
    assert c <= saturation(1000)
    # saturation: all n in the event vs none: log((0.025^(1/n)) / (1 - 0.025^(1/n)))
    n, a = 16_000, 0.025
    assert saturation(n) == pytest.approx(math.log(a ** (1 / n) / (1 - a ** (1 / n))), rel=1e-9)


def test_ceiling_bounds_the_audit_of_a_gaussian_mechanism():
    # The audit with the exact likelihood ratio reaches most of the ceiling and (typically) not more:
    # 4 seeds, n = 8e4 estimation samples; the ceiling is a typical value, so allow 5% above it.
    mech = gaussian_query(0.9, 1e-5)  # classic calibration for (0.9, 1e-5): mu = 1/sigma
    mu = 1.0 / mech.noise.sigma
    c = gaussian_ceiling(mu, n=80_000, delta=1e-5)
    got = [audit(mech, np.array([0.0]), np.array([1.0]), epsilon=0.9, delta=1e-5, samples=100_000, seed=s,
                 test="likelihood_ratio").epsilon_lower for s in range(4)]
    assert max(got) <= 1.05 * c
    assert np.mean(got) >= 0.75 * c


def test_verdict_rules():
    assert verdict(1.2, 1.0) == "violation"
    assert verdict(0.9, 1.0) == "consistent"
    assert verdict(0.0, 1.0) == "inconclusive"
    assert verdict(0.9, 1.0, budget_ceiling=0.95) == "consistent"
    v, why = verdict_reason(0.02, 0.73, budget_ceiling=0.03)
    assert v == "inconclusive" and "24.33x" in why
    v, why = verdict_reason(0.3, 4545.0, saturation=8.4)
    assert v == "inconclusive" and "above the most any audit" in why
    # a violation is a violation whatever the ceiling says
    assert verdict(1.2, 1.0, budget_ceiling=0.1, saturation=8.0) == "violation"
    assert verdict(0.9, 1.0, budget_ceiling=0.45, power_factor=2.0) == "inconclusive"
    assert verdict(0.9, 1.0, budget_ceiling=0.45, power_factor=3.0) == "consistent"
    # the exact pair epsilon bounds what any audit of the pair certifies: a claim above twice it is not testable here
    v, why = verdict_reason(0.09, 1.0, epsilon_exact=0.28)
    assert v == "inconclusive" and "exact epsilon 0.28 < claim / 2" in why
    assert verdict(0.5, 1.0, epsilon_exact=0.6) == "consistent"
    assert verdict(0.5, 1.0, epsilon_exact=0.28, budget_ceiling=0.6) == "consistent"  # a known ceiling decides


@pytest.mark.parametrize("mu", [0.3, 1.0, 2.5])
def test_gaussian_fit_recovers_the_mu_of_a_gaussian_pair(mu):
    # A mu-GDP pair's own curve is G_mu: the nearest Gaussian curve is itself. The only error is the polyline through
    # the 2048 thresholds of a 4001-point loss grid (measured distance < 1e-5), so mu within 1e-4.
    from dpverify.audit.ceiling import curve_ceiling

    c = curve_ceiling(*gaussian_loss_masses(mu), n=100_000)
    assert c.mu_fit == pytest.approx(mu, abs=1e-4)
    assert c.fit_distance < 1e-4
    assert c.mu_pair == pytest.approx(mu, abs=1e-4)  # for a Gaussian pair both readings are mu


def test_gaussian_fit_is_the_nearest_gaussian_curve_and_lies_below_the_tightest_for_a_subsampled_pair():
    # Poisson-subsampled Gaussian steps (the DP-SGLD shape) are not Gaussian: their curve bends below G_mu in the far
    # tail, so the tightest mu (error rates down to 1e-6) exceeds the best overall fit, which misses the curve
    # somewhere by a positive distance; moving mu either way from the fit only increases that distance.
    from scipy.special import ndtr, ndtri

    from dpverify.audit.ceiling import curve_ceiling, gaussian_fit
    from dpverify.calculus.accounting.pld import subsampled_gaussian_pld

    pld = subsampled_gaussian_pld(0.2, 1.0).self_compose(10)
    losses, p, q, p_inf, q_inf = pld.masses()
    c = curve_ceiling(losses, p, q, p_inf=p_inf, q_inf=q_inf, n=100_000)
    assert 0.0 < c.mu_fit < c.mu_pair
    assert 1e-3 < c.fit_distance < 0.05
    # the same fit from the pair's threshold tests directly, and its optimality
    order = np.argsort(losses)
    p_tail = np.cumsum(p[order][::-1])[::-1] + p_inf
    q_tail = np.cumsum(q[order][::-1])[::-1]
    fpr, fnr = q_tail / (q.sum() + q_inf), 1.0 - p_tail / (p.sum() + p_inf)
    mu, dist = gaussian_fit(fpr, fnr)
    assert mu == pytest.approx(c.mu_fit, abs=0.01) and dist == pytest.approx(c.fit_distance, abs=2e-3)
    for other in (mu - 0.02, mu + 0.02):
        assert gaussian_fit_distance(other, fpr, fnr, ndtr, ndtri) > dist
    # no Gaussian curve is closer than the fit's distance at the points themselves (up to the interpolation)
    assert gaussian_fit_distance(mu, fpr, fnr, ndtr, ndtri) <= dist + 1e-3


def gaussian_fit_distance(mu, fpr, fnr, ndtr, ndtri):
    """sup over the pair's own points (both readings) of |G_mu(x) - y|: an independent evaluation of the fit's
    objective, without the interpolation grid."""
    both_x = np.concatenate([fpr, fnr])
    both_y = np.concatenate([fnr, fpr])
    return float(np.max(np.abs(ndtr(ndtri(1.0 - np.clip(both_x, 0, 1)) - mu) - both_y)))


def test_gaussian_fit_rejects_bad_input():
    from dpverify.audit.ceiling import gaussian_fit

    with pytest.raises(ValueError, match="fpr and fnr"):
        gaussian_fit([], [])
    with pytest.raises(ValueError, match="fpr and fnr"):
        gaussian_fit([0.1, 0.2], [0.5])
