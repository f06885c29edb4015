"""The standard suite (dpverify.audit.standard_suite): exact epsilons against independent computations, the
mechanisms' shapes and seeding, and the audit verdicts (non-private caught, private never flagged).

Independent methods: scipy.integrate.quad (adaptive Gauss-Kronrod) for the outcome probabilities that the suite
computes by fixed composite Gauss-Legendre rules; closed forms worked by hand (tails of the noisy maximum, RAPPOR's
per-bit ratios, Balcer & Vadhan's Thm 4.7); Monte Carlo frequencies of the samplers against the tabulated laws
(tolerance from the binomial standard error); and the exact values of the issue's context table (0.088, 0.300,
0.095, 0.250, 1.000, 0.100), computed there by a separate script.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from dpverify.audit import audit
from dpverify.audit.exact import pair_epsilon
from dpverify.audit.known_bad import SparseVector
from dpverify.audit.standard import local, noisy_max, sparse_vector
from dpverify.audit.standard_suite import BenchmarkCase, cases, get, names

EXPECTED = {
    "laplace_0.1", "laplace_1", "truncated_geometric", "noisy_hist1", "noisy_hist2",
    "report_noisy_max1", "report_noisy_max2", "report_noisy_max3", "report_noisy_max4",
    "report_noisy_max_half_noise_add_remove", "report_noisy_max_half_noise_replace",
    "svt1", "svt2", "svt3", "svt4", "svt5", "svt6", "isvt1", "isvt2", "isvt3", "isvt4",
    "numerical_svt", "prefix_sum", "laplace_parallel", "rappor", "one_time_rappor", "randomized_response",
    "exponential",
}


def lap_pdf(x, b):
    return math.exp(-abs(x) / b) / (2 * b)


def lap_cdf(x, b):
    return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)


def quad(f, lo, hi, points):
    """Adaptive quadrature split at the kinks (scipy's QUADPACK, independent of the suite's fixed GL rule)."""
    edges = [lo, *sorted(p for p in set(points) if lo < p < hi), hi]
    return sum(integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-12, limit=400)[0] for a, b in zip(edges, edges[1:]))


# ---------------------------------------------------------------------------------------------------- registry


def test_names_and_get():
    assert set(names()) == EXPECTED and len(names()) == len(EXPECTED)
    assert get("svt1").name == "svt1"
    with pytest.raises(ValueError, match="name must be one of .*laplace_0.1"):
        get("svt7")


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_case_record_is_consistent(case: BenchmarkCase):
    """A private case's exact pair epsilon is within its claim; every non-private case's witness pair exceeds the
    claim (so the pair itself proves the violation). Halving the noise of a private case (or a wrongly computed
    exact epsilon above its claim) fails here."""
    assert case.adjacency and case.source and case.output in ("scalar", "discrete", "vector", "mixed")
    assert case.delta == 0.0 and case.epsilon_claimed > 0
    if case.private:
        assert case.epsilon_exact <= case.epsilon_claimed * (1 + 1e-9)
    else:
        assert case.epsilon_exact > case.epsilon_claimed * 1.05


# ------------------------------------------------------------------------------------- exact vs independent


def test_exact_matches_context_table():
    """The issue's context table (exact values computed separately, 3 decimals)."""
    expected = {"laplace_0.1": 0.100, "laplace_1": 1.0, "noisy_hist1": 0.100, "report_noisy_max1": 0.095,
                "report_noisy_max3": 0.250, "svt1": 0.088, "svt3": 0.300, "prefix_sum": 1.000,
                "laplace_parallel": 0.100}
    for name, value in expected.items():
        assert get(name).epsilon_exact == pytest.approx(value, abs=5e-4), name


def test_closed_forms():
    assert get("noisy_hist2").epsilon_exact == pytest.approx(10.0)  # |1| / scale 0.1
    assert get("report_noisy_max3").epsilon_exact == pytest.approx(5 * 1 / 20.0, abs=1e-9)  # left tail: m Delta / b
    assert math.isinf(get("report_noisy_max4").epsilon_exact)  # max >= max_i q_i: supports [1, inf) vs [2, inf)
    assert math.isinf(get("svt5").epsilon_exact) and math.isinf(get("isvt1").epsilon_exact)
    assert get("randomized_response").epsilon_exact == pytest.approx(0.1)
    assert get("truncated_geometric").epsilon_exact == pytest.approx(math.log1p(2.0 ** -3), rel=1e-12)
    # RAPPOR: filters of 0 and 1 differ in 6 bits (one of the four hashes collides); per bit log(pi(1)/pi(0))
    pi1 = 0.55 * 0.625 + 0.45 * 0.375
    assert get("rappor").epsilon_exact == pytest.approx(6 * math.log(pi1 / (1 - pi1)), rel=1e-12)
    assert get("one_time_rappor").epsilon_exact == pytest.approx(6 * math.log(0.525 / 0.475), rel=1e-12)
    # the exponential mechanism by hand: softmax of eps u / 2
    c = get("exponential")
    la = c.epsilon_claimed * c.dataset / 2 - np.log(np.exp(c.epsilon_claimed * c.dataset / 2).sum())
    lb = c.epsilon_claimed * c.neighbour / 2 - np.log(np.exp(c.epsilon_claimed * c.neighbour / 2).sum())
    assert c.epsilon_exact == pytest.approx(np.max(np.abs(la - lb)), rel=1e-12)


def test_laplace_exact_by_quadrature():
    """The closed form of the Laplace rows against the module of exact pair epsilons (grid supremum), at delta = 0
    and, through the hockey-stick integral, at delta = 1e-3."""
    c = get("laplace_0.1")
    lp = lambda x: -abs(x - 1.0) / 10 - math.log(20)  # noqa: E731
    lq = lambda x: -abs(x - 2.0) / 10 - math.log(20)  # noqa: E731
    assert pair_epsilon(lp, lq, 0.0, bounds=(-50.0, 50.0)) == pytest.approx(c.epsilon_exact, abs=1e-9)
    assert pair_epsilon(lp, lq, 1e-3, points=(1.0, 2.0)) == pytest.approx(
        c.mechanism.exact_epsilon(c.dataset, c.neighbour, 1e-3), abs=1e-7)


def test_noisy_max_index_probabilities_by_quad():
    q = get("report_noisy_max1").neighbour
    for noise, f, F in (("laplace", lap_pdf, lap_cdf),
                        ("exponential", lambda x, b: math.exp(-x / b) / b if x >= 0 else 0.0,
                         lambda x, b: -math.expm1(-x / b) if x > 0 else 0.0)):
        ours = np.exp(noisy_max.index_log_probabilities(q, noise, 20.0))
        for i in range(q.size):
            g = lambda x: f(x - q[i], 20.0) * math.prod(F(x - q[j], 20.0) for j in range(q.size) if j != i)  # noqa
            ref = quad(g, q.min() - 1500.0, q.max() + 1500.0, list(q))
            assert ours[i] == pytest.approx(ref, rel=1e-9), (noise, i)


def test_svt_pattern_probabilities_by_quad():
    """Flag patterns of SVT1 (cutoff) and SVT6 (no cutoff) by adaptive quadrature over the threshold noise."""
    for name in ("svt1", "svt6", "svt5"):
        c = get(name)
        svt = c.mechanism.svt
        q, T, br, bn = c.dataset, svt.threshold, svt.threshold_scale, svt.query_scale
        patterns, logp = c.mechanism.table(q)
        rows = np.random.default_rng(0).choice(patterns.shape[0], size=4, replace=False)
        for j in rows:
            o = patterns[j]

            def g(r, o=o):
                out = lap_pdf(r, br)
                for i, flag in enumerate(o):
                    d = T + r - q[i]
                    above = (1 - lap_cdf(d, bn)) if bn > 0 else float(d <= 0)
                    out *= above if flag == 1 else (1 - above) if flag == 0 else 1.0
                return out

            ref = quad(g, -80 * br, 80 * br, [0.0, *(q - T)])
            assert math.exp(logp[j]) == pytest.approx(ref, rel=1e-8, abs=1e-300), (name, o)


def test_svt_values_table_by_quad():
    """G_k(v) of SVT3 (Alg. 3, released values) against adaptive quadrature at a few points."""
    c = get("svt3")
    svt = c.mechanism.svt
    q, T, br, bn = c.neighbour, svt.threshold, svt.threshold_scale, svt.query_scale
    for k, v in ((0, 3.0), (4, -20.0), (7, 40.0)):
        h = lambda r: lap_pdf(r, br) * math.prod(lap_cdf(T + r - q[i], bn) for i in range(k))  # noqa: E731
        ref = quad(h, -60 * br, v - T, [0.0, *(q - T)])
        out = np.zeros(20)
        out[:10] = [0] * k + [1] + [-1] * (9 - k)
        out[10 + k] = v
        ld = c.mechanism.log_density(q, out[None, :])[0]
        assert ld == pytest.approx(math.log(lap_pdf(v - q[k], bn) * ref), abs=1e-6)


def test_truncated_geometric_theorem():
    """Balcer & Vadhan Thm 4.7: log(1 + 2^-k)-DP, attained by every adjacent pair of counts."""
    g = local.GeoSample(k=3, n=5)
    for cnt in range(5):
        eps = g.exact_epsilon(np.array([cnt]), np.array([cnt + 1]), 0.0)
        assert eps == pytest.approx(math.log1p(1 / 8), rel=1e-12)
        assert np.exp(g.log_probabilities(cnt)).sum() == pytest.approx(1.0, abs=1e-12)


def test_murmur3_reference_values():
    """mmh3's documented values, so RAPPOR's Bloom bits are DP-Sniper's."""
    assert local.murmur3_32(b"foo") == -156908512
    assert local.murmur3_32(b"foo", 42) == -1322301282
    assert local.murmur3_32(b"hello") == 613153351
    assert list(np.flatnonzero(local.bloom_bits(1, 4, 20))) == [3, 10, 13]
    assert list(np.flatnonzero(local.bloom_bits(0, 4, 20))) == [0, 11, 18]


MC_CASES = ["truncated_geometric", "report_noisy_max1", "report_noisy_max2", "svt1", "svt2", "svt4", "svt6",
            "exponential", "randomized_response"]


@pytest.mark.parametrize("name", MC_CASES)
def test_sampler_matches_tabulated_law(name):
    """Outcome frequencies of 10^5 draws against exp(log_density): |f - p| <= 5 sqrt(p (1 - p) / n) + 1e-4 for
    every outcome seen or of probability >= 1e-3 (5 standard errors; 1e-4 absorbs outcomes of tiny mass). A
    sampler that disagrees with its law (e.g. alg2 without fresh threshold noise at c > 1, or a wrong scale)
    fails."""
    c = get(name)
    n = 100_000
    x = np.asarray(c.mechanism(c.dataset, n, np.random.default_rng(3)))
    rows = x.reshape(n, -1)
    uniq, inv, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
    p = np.exp(c.mechanism.log_density(c.dataset, uniq.reshape((-1,) + x.shape[1:])))
    f = counts / n
    assert np.all(np.abs(f - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-4), np.max(np.abs(f - p))
    assert p.sum() <= 1 + 1e-9


def test_numerical_svt_law():
    """NumericalSVT: pattern frequencies of 10^5 draws against the table (5 standard errors), and the log density
    integrates the value part correctly (the released value of an above is q + Lap(3c/eps): its mean is q)."""
    c = get("numerical_svt")
    n = 100_000
    x = c.mechanism(c.dataset, n, np.random.default_rng(5))
    flags = np.where(x == -1000.0, -1, np.where(x == 0.0, 0, 1)).astype(np.int8)
    patterns, logp = c.mechanism.table(c.dataset)
    uniq, counts = np.unique(flags, axis=0, return_counts=True)
    table = {tuple(r): math.exp(v) for r, v in zip(patterns.tolist(), logp)}
    for row, k in zip(uniq.tolist(), counts):
        p = table[tuple(row)]
        assert abs(k / n - p) <= 5 * math.sqrt(p * (1 - p) / n) + 1e-4
    above = x[flags == 1]
    assert abs(above.mean() - 2.0) < 5 * (math.sqrt(2) * 60.0) / math.sqrt(above.size)  # sd of Lap(60) = 60 sqrt 2


def test_exact_epsilon_method_validates_pairs():
    with pytest.raises(ValueError, match="dataset must"):
        sparse_vector.TabulatedSVT(SparseVector(0.1, "alg1")).exact_epsilon(np.ones(13), np.ones(13), 0.0)
    with pytest.raises(ValueError, match="alg3"):
        sparse_vector.TabulatedSVT(SparseVector(0.1, "alg3"))
    with pytest.raises(ValueError, match="count must be"):
        local.GeoSample(3).log_probabilities(6)
    with pytest.raises(ValueError, match="noise must be"):
        noisy_max.NoisyMax(0.1, noise="gaussian")


# ---------------------------------------------------------------------------------------------- mechanisms


@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_shapes_and_seeding(case: BenchmarkCase):
    m = case.mechanism
    a = np.asarray(m(case.dataset, 7, np.random.default_rng(11)))
    b = np.asarray(m(case.dataset, 7, np.random.default_rng(11)))
    c = np.asarray(m(case.dataset, 7, np.random.default_rng(12)))
    assert a.shape[0] == 7 and np.array_equal(a, b) and not np.array_equal(a, c)
    expected_ndim = {"scalar": 1, "discrete": None, "vector": 2, "mixed": 2}[case.output]
    if expected_ndim is not None:
        assert a.ndim == expected_ndim
    ld = m.log_density(case.dataset, a)
    assert ld.shape == (7,) and np.all(np.isfinite(ld))


# ------------------------------------------------------------------------------------------------ verdicts

#: Samples per side at which each non-private case is caught with margin (checked on seeds 1-3: e.g.
#: ReportNoisyMax3 certifies >= 0.17 at 3x10^5, SVT3 only 0.09 on one seed at 5x10^5 hence 10^6; iSVT4 0.10 at
#: 10^6 hence 2x10^6; tables in docs/benchmark-suite.md).
CATCH_BUDGET = {"noisy_hist2": 20_000, "report_noisy_max4": 100_000, "report_noisy_max_half_noise_replace": 100_000,
                "svt5": 20_000, "svt6": 100_000, "isvt1": 20_000, "isvt2": 100_000, "report_noisy_max3": 300_000,
                "svt3": 1_000_000, "svt4": 1_000_000, "isvt3": 1_000_000, "isvt4": 2_000_000}


def test_every_non_private_case_has_a_budget():
    assert set(CATCH_BUDGET) == {c.name for c in cases() if not c.private}


@pytest.mark.parametrize("name", sorted(CATCH_BUDGET))
def test_non_private_caught(name):
    c = get(name)
    r = audit(c.mechanism, c.dataset, c.neighbour, epsilon=c.epsilon_claimed, delta=c.delta,
              samples=CATCH_BUDGET[name], seed=1)
    assert r.verdict == "violation", (r.epsilon_lower, r.verdict_reason)
    assert r.epsilon_lower <= c.epsilon_exact  # the certificate never exceeds the exact pair epsilon


@pytest.mark.parametrize("case", [c for c in cases() if c.private], ids=lambda c: c.name)
def test_private_never_flagged(case):
    """At the claim, with 10^5 samples per side: not a violation (at most 5% of seeds could fail by chance; seed 1
    is fixed), and below the exact pair epsilon."""
    r = audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
              samples=100_000, seed=1)
    assert r.verdict != "violation"
    assert r.epsilon_lower <= case.epsilon_exact


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3, 4])
@pytest.mark.parametrize("case", cases(), ids=lambda c: c.name)
def test_sweep_at_one_million(case, seed):
    """All cases at 10^6 samples per side over three more seeds: private ones never flagged, non-private ones
    caught (isvt4 at 2x10^6: its privacy loss 0.5 lives on a rare event)."""
    n = 2_000_000 if case.name == "isvt4" else 1_000_000
    r = audit(case.mechanism, case.dataset, case.neighbour, epsilon=case.epsilon_claimed, delta=case.delta,
              samples=n, seed=seed)
    assert (r.verdict == "violation") == (not case.private), (r.epsilon_lower, r.verdict_reason)


def test_row_logsumexp_matches_scipy_including_empty_rows():
    """The noisy-max density's numpy log-sum-exp equals scipy's to 1e-12 relative, with rows of -inf (a value no
    answer can reach), partly -inf rows and rows near the float64 exponent limit."""
    from scipy.special import logsumexp

    from dpverify.audit.standard.noisy_max import _row_logsumexp

    a = np.random.default_rng(0).normal(size=(1000, 5)) * 50
    a[3] = -np.inf
    a[5, 2] = -np.inf
    a[7] = 700.0
    got, want = _row_logsumexp(a), logsumexp(a, axis=1)
    assert got[3] == -np.inf and np.allclose(got, want, rtol=1e-12, atol=0)
