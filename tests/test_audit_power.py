"""Power: the auditor reports violations for deliberately broken mechanisms, and not for their
correct counterparts on the same pairs. Each test states its samples per side and the margin."""
import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.known_bad import ReportNoisyMax, SparseVector, gaussian_query, laplace_query

D0, D1 = np.array([0.0]), np.array([1.0])


def test_laplace_with_half_the_noise():
    # Scale Delta/(2 eps): really 2-DP, claimed 1. 10^5 samples certify ~1.95 (tightness tests:
    # ratio >= 0.97 at 10^5), far above 1; the correct scale stays at <= 1.
    bad = audit(laplace_query(1.0, noise_factor=0.5), D0, D1, epsilon=1.0, samples=10**5, seed=1)
    assert bad.verdict == "violation" and bad.epsilon_lower > 1.8
    assert bad.epsilon_lower <= bad.epsilon_exact == pytest.approx(2.0)
    no_density = audit(laplace_query(1.0, noise_factor=0.5), D0, D1, epsilon=1.0, samples=10**5, seed=1, test="threshold")
    assert no_density.verdict == "violation"
    assert audit(laplace_query(1.0), D0, D1, epsilon=1.0, samples=10**5, seed=1).verdict == "consistent"  # certifies ~0.98


def test_gaussian_without_the_log_factor():
    # Claimed (0.5, 1e-5); sigma = Delta/eps = 2 instead of Delta sqrt(2 ln(1.25e5))/eps = 9.7.
    # Exact pair epsilon at delta = 1e-5 is ~2.0; 10^5 samples certify > 0.5 with a wide margin
    # (10^4 already gave 0.74). The correct sigma is consistent.
    bad = audit(gaussian_query(0.5, 1e-5, drop_log_factor=True), D0, D1, epsilon=0.5, delta=1e-5, samples=10**5, seed=2)
    assert bad.verdict == "violation" and bad.epsilon_lower <= bad.epsilon_exact
    good = audit(gaussian_query(0.5, 1e-5), D0, D1, epsilon=0.5, delta=1e-5, samples=10**5, seed=2)
    assert good.verdict != "violation"


def test_report_noisy_max_releasing_the_value():
    # Answers (0,0,0,0,0) vs (1,1,1,1,1): the released noisy max has left-tail likelihood ratio
    # exp(m eps / 2) = e^2.5 on {value < 0}, whose mass is 2^-5 = 0.031 under D. 10^5 samples give
    # ~2500 hits on the high side: certified ~2.3 > 1. The index alone is unchanged by this shift.
    q0, q1 = np.zeros(5), np.ones(5)
    bad = audit(ReportNoisyMax(1.0, release_value=True), q0, q1, epsilon=1.0, samples=10**5, seed=3)
    assert bad.verdict == "violation" and bad.epsilon_lower > 1.5
    for a, b in [(q0, q1), (np.array([0, 0, 0, 0, 1.0]), np.array([1, 1, 1, 1, 0.0]))]:
        assert audit(ReportNoisyMax(1.0), a, b, epsilon=1.0, samples=10**5, seed=3).verdict != "violation"


# Sparse vector variants of Lyu, Su & Li 2017 (Fig. 1), eps = 1, threshold T = 0.5, c = 1, answers
# of sensitivity 1. Pairs: "swap" (1,0) vs (0,1), and "block" five 1s then five 0s vs the reverse
# (each answer moves by 1). Samples per side and what they certify (measured, seed 1):
#   alg5 (no query noise)        swap, 2*10^4:  pattern (above, below) impossible under D': ~7 > 1
#   alg6 (no cutoff)             block, 10^5:   ~3.2 > 1
#   alg4 (Lee & Clifton)         block, 10^5:   ~1.6 > 1 (true epsilon (1 + 6c)/4 = 1.75)
#   alg3 (releases noisy value)  block, 10^5:   ~1.7 > 1 (logistic classifier on [flags, values])
SWAP = (np.array([1.0, 0.0]), np.array([0.0, 1.0]))
BLOCK = (np.array([1.0] * 5 + [0.0] * 5), np.array([0.0] * 5 + [1.0] * 5))


@pytest.mark.parametrize("variant,pair,samples", [
    ("alg5", SWAP, 20_000),
    ("alg6", BLOCK, 100_000),
    ("alg4", BLOCK, 100_000),
    ("alg3", BLOCK, 100_000),
])
def test_sparse_vector_variants_are_not_private(variant, pair, samples):
    r = audit(SparseVector(1.0, variant, threshold=0.5), *pair, epsilon=1.0, samples=samples, seed=1)
    assert r.verdict == "violation", r


@pytest.mark.parametrize("pair", [SWAP, BLOCK])
def test_sparse_vector_alg1_is_consistent_on_the_same_pairs(pair):
    # Lyu et al.'s Alg. 1 is eps-DP (their Thm 2): no violation at 10^5 samples.
    r = audit(SparseVector(1.0, "alg1", threshold=0.5), *pair, epsilon=1.0, samples=10**5, seed=1)
    assert r.verdict != "violation"


def test_ops_untruncated_beta_bernoulli_claimed_at_one():
    # Team A's ops_beta_bernoulli with a0 = 1e-12 (effectively untruncated) and no tempering: one
    # exact posterior draw, Beta(1, 11) vs Beta(2, 10) for ten 0s vs one flipped. The density ratio
    # ~ 10 / p is unbounded near 0 (exact pair epsilon 29.9 at this a0); {p < t} is ~2/(N t) times
    # likelier under D. 10^4 samples certify ~2.7 > 1.
    from dpverify.samplers.ops import OPSBetaBernoulli

    ops = OPSBetaBernoulli(a0=1e-12)
    d0 = np.zeros(10, dtype=int)
    d1 = d0.copy()
    d1[0] = 1
    r = audit(ops, d0, d1, epsilon=1.0, samples=10_000, seed=0)
    assert r.verdict == "violation" and r.epsilon_lower <= r.epsilon_exact


def test_dp_sgld_without_its_privacy_noise():
    # Team B's dp_sgld_wang (Wang et al. 2015, Alg. 2) with privacy_noise=False (variance eta_t only)
    # on the Gaussian-mean model, N = 2, records -1,-1 vs 1,-1, 40 steps of size 0.05, claimed
    # (1, 1e-3): the final iterate shifts by ~1 posterior sd. 2*10^4 samples certify ~4.5 > 1.
    # With the privacy term (variance ~10^4) the same audit certifies 0.
    from dpverify.models.gaussian_mean import GaussianMean
    from dpverify.samplers.sgld import DPSGLDWang

    model = GaussianMean(sigma=1.0, R=1.0, Theta=2.0)
    d0, d1 = np.array([-1.0, -1.0]), np.array([1.0, -1.0])
    for privacy_noise, verdict in [(False, "violation"), (True, "inconclusive")]:
        sgld = DPSGLDWang(model, N=2, tau=1, T=20, epsilon=1.0, delta=1e-3, step_size=0.05,
                          privacy_noise=privacy_noise, unguaranteed=True)
        r = audit(sgld, d0, d1, epsilon=1.0, delta=1e-3, samples=20_000, seed=0)
        assert r.verdict == verdict, r
