"""Statistical validity of the auditor, with the power to catch a broken one (issue 14, section 1).

**The guarantee.** ``audit`` certifies ``eps_lower = log((L_hi - delta) / U_lo)`` from counts of a selected event
on estimation samples never seen by the selection; ``L_hi``/``U_lo`` are one-sided Clopper-Pearson bounds at
``alpha / (2 candidates)`` each (Clopper & Pearson 1934; union/Bonferroni split over the two rates and the
candidates), alpha = 1 - confidence (:mod:`dpverify.audit.core`, :mod:`dpverify.audit.bounds`; the estimator of
Ding et al. 2018, CCS, and Jagielski, Ullman & Oprea 2020, NeurIPS). So over seeds, the rate at which
``eps_lower`` exceeds the exact pair epsilon is at most alpha.

**Why "exceedance rate <= alpha" cannot catch a broken auditor.** With the two one-sided bounds at z = z_{alpha/2},
the certificate exceeds the exact epsilon only if ``(log p_hi_hat - log p_hi) - (log p_lo_hat - log p_lo) >
z (s_hi + s_lo)`` (s = standard errors of the log rates), an event of probability
``1 - Phi(z (s_hi + s_lo) / sqrt(s_hi^2 + s_lo^2)) <= alpha / 2`` in the normal approximation, approaching
alpha / 2 when one rate is known much better than the other (``p_hi`` near 1, ``p_lo`` small). Dropping the
union split (each bound at alpha, jointly only 1 - 2 alpha) therefore raises the rate to about alpha -- still
"valid at alpha" (issue 14: 0.22 -> 0.50 at confidence 0.5 passed the old limit 0.575). The same holds for the
Bonferroni factor over ``candidates`` and, with a small effect, for counting events on the samples that chose
them. Hence the tests below compare the number of exceedances in K seeded audits with the rate ``r`` that *the
documented method* has, computed here independently of the package (Clopper-Pearson from
``scipy.stats.beta.ppf``, binomial/multinomial enumeration):

- **exact reference** (randomized response, a three-outcome mechanism with ``candidates=2``): the selection
  (fit on 200 samples per side) always picks the tight events ({0} / {1} resp. {0} and {2}), so ``r`` is the
  exact exceedance probability; the test is two-sided (too many exceedances: invalid; too few: the bound is not
  what the method says, e.g. a wrong alpha split that is too conservative);
- **upper reference** (Laplace with the threshold and the likelihood-ratio test, Gaussian with delta and the
  likelihood-ratio test): every event the selection can pick is ``{x < t}`` (or its mirror image, with the
  same pair of rates), so *given the selection*, which is independent of the estimation samples, the
  exceedance probability is ``r(t_selected) <= r_sup = sup_t r(t)`` (a fine grid of t; r is smooth in t). A bug
  that lets the estimation counts depend on the selection (counting on the selection samples, or re-drawing the
  estimation samples from the selection's seeds) makes the selected event's counts biased upwards, and the rate
  climbs far above ``r_sup``. These use ``selection_fraction=0.5``, so that re-drawing from the selection's
  seeds reproduces the selection samples exactly (numpy draws are sequential: the first n_sel of n_est draws
  from one seed are the n_sel draws of the selection).

**Limits.** Audits with distinct seeds are independent (``SeedSequence(seed)``, :mod:`dpverify.audit.split`), so
the exceedance count of K audits is X ~ Binomial(K, r) (or stochastically smaller, for an upper reference). The
test fails if X > c_hi, the smallest c with P[Binomial(K, r) > c] <= FALSE_ALARM = 1e-3, or (exact references)
if X < c_lo, the smallest c with P[Binomial(K, r) <= c] >= 1e-3 (so P[X < c_lo] < 1e-3).
The seeds are fixed, so each outcome is too; 1e-3 is the chance that a correct auditor would have failed over
the draw of the seed set. Power = P[Binomial(K, r_broken) > c_hi]: against twice the reference rate (the union
and Bonferroni bugs double it; exact rates below) and against the rates of the four deliberate bugs of
``mutation/auditor.py``, measured over 1000 seeded audits (seeds 0-999) of mutated copies.

The default run (confidence 0.5, where the reference rates are ~0.2 and K of a few hundred suffices; 1350
audits, a few seconds) gates CI; the ``slow`` tests (``python -m pytest -m slow``) repeat the calibration at
the default confidence 0.95 with thousands of audits, and add Laplace with its exact likelihood ratio.
Tightness and a property test are in ``test_audit_validity_tightness.py``; ``python mutation/auditor.py`` shows
which of these tests fails for each bug.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pytest
from scipy import optimize, stats

from dpverify.audit import audit
from dpverify.audit.known_bad import AdditiveNoise, RandomizedResponse, laplace_query
from dpverify.calculus.mechanisms.gaussian import GaussianMechanism

FALSE_ALARM = 1e-3


# ---------------------------------------------------------------------------------------------------------------
# Reference rates, independent of dpverify.audit: Clopper-Pearson bounds from the Beta quantiles (Clopper &
# Pearson 1934), exceedance probabilities by enumerating binomial counts.
# ---------------------------------------------------------------------------------------------------------------
@lru_cache(maxsize=None)
def _cp_tables(n: int, a: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided (1 - a) Clopper-Pearson lower and upper bounds for every count k = 0..n."""
    k = np.arange(n + 1, dtype=float)
    with np.errstate(all="ignore"):
        lower = np.where(k == 0, 0.0, stats.beta.ppf(a, np.maximum(k, 1.0), n - k + 1.0))
        upper = np.where(k == n, 1.0, stats.beta.ppf(1.0 - a, k + 1.0, np.maximum(n - k, 1.0)))
    return lower, upper


def _support(n: int, p: float) -> np.ndarray:
    """Counts within 8 sd + 10 of the mean of Binomial(n, p): all but < 1e-12 of its mass for the n, p used here
    (Chernoff; e.g. Poisson(4) beyond 30 has 1e-15)."""
    mean, sd = n * p, math.sqrt(n * p * (1.0 - p))
    return np.arange(max(0, math.floor(mean - 8 * sd - 10)), min(n, math.ceil(mean + 8 * sd + 10)) + 1)


def _low_count_limit(k_hi: np.ndarray, n: int, eps: float, a: float, delta: float) -> np.ndarray:
    """m(k_hi): the certificate log((L(k_hi) - delta) / U(k_lo)) exceeds eps iff k_lo < m(k_hi) (U increases)."""
    lower, upper = _cp_tables(n, a)
    return np.searchsorted(upper, (lower[k_hi] - delta) * math.exp(-eps), side="left")


def exceed_rate(n: int, p_hi: float, p_lo: float, eps: float, a: float, delta: float = 0.0) -> float:
    """P[log((L(k_hi) - delta) / U(k_lo)) > eps] for independent k_hi ~ Bin(n, p_hi), k_lo ~ Bin(n, p_lo), both
    bounds at level a: the exceedance probability of one fixed event counted on n fresh samples per side."""
    k = _support(n, p_hi)
    m = _low_count_limit(k, n, eps, a, delta)
    return float(np.sum(stats.binom.pmf(k, n, p_hi) * stats.binom.cdf(m - 1, n, p_lo)))


def exceed_rate_two_events(n: int, p: float, q: float, eps: float, a: float) -> float:
    """Exceedance probability of the maximum of the two certificates of :class:`ThreeOutcomes` (event {0}, D high;
    event {2}, D' high), each from bounds at level a. Counts: (k0_A, k0_B) ~ Multinomial(n; p, q) on D and
    (k1_A, k1_B) ~ Multinomial(n; q, p) on D'. A exceeds iff k1_A < m(k0_A), B iff k0_B < m(k1_B), and given
    k1_B = b, k1_A ~ Bin(n - b, q / (1 - p)) (given k0_A = a', k0_B ~ Bin(n - a', q / (1 - p))), so
    P[neither] = sum_{a', b} P[k0_A = a'] P[k1_B = b] P[Bin(n - b, rho) >= m(a')] P[Bin(n - a', rho) >= m(b)]."""
    rho = q / (1.0 - p)
    k = _support(n, p)
    m = _low_count_limit(k, n, eps, a, 0.0)
    w = stats.binom.pmf(k, n, p)
    ka, kb = np.meshgrid(k, k, indexing="ij")
    ma, mb = np.meshgrid(m, m, indexing="ij")
    neither = stats.binom.sf(ma - 1, n - kb, rho) * stats.binom.sf(mb - 1, n - ka, rho)
    return float(1.0 - np.sum(np.outer(w, w) * neither) / (w.sum() ** 2))


def sup_exceed_rate(n: int, rates, eps: float, a: float, delta: float, lo: float, hi: float,
                    points=()) -> float:
    """max over t of :func:`exceed_rate` for the event family with rates ``rates(t) = (p_hi, p_lo)``: on 121 points
    of [lo, hi] and ``points``, then on 41 points within two steps of the best (r is smooth in t, so the refined
    maximum is the supremum up to a relative error far below the binomial error of the tests)."""
    def rate(t):
        return exceed_rate(n, *rates(t), eps, a, delta)

    coarse = np.union1d(np.linspace(lo, hi, 121), np.asarray(points, dtype=float))
    values = [rate(t) for t in coarse]
    best, step = coarse[int(np.argmax(values))], (hi - lo) / 120
    return max(max(values), *(rate(t) for t in np.linspace(best - 2 * step, best + 2 * step, 41)))


def gaussian_epsilon_at(mu: float, delta: float) -> float:
    """Exact epsilon of N(0,1) vs N(mu,1) at delta: the root of Phi(-e/mu + mu/2) - e^e Phi(-e/mu - mu/2) = delta
    (Balle & Wang 2018, "Improving the Gaussian mechanism", Thm 8)."""
    f = lambda e: stats.norm.cdf(-e / mu + mu / 2) - math.exp(e) * stats.norm.cdf(-e / mu - mu / 2) - delta  # noqa: E731
    return float(optimize.brentq(f, 0.0, 50.0, xtol=1e-14))


def upper_limit(audits: int, rate: float) -> int:
    """c_hi: the smallest c with P[Binomial(audits, rate) > c] <= FALSE_ALARM."""
    return int(stats.binom.ppf(1.0 - FALSE_ALARM, audits, rate))


def lower_limit(audits: int, rate: float) -> int:
    """c_lo: the smallest c with P[Binomial(audits, rate) <= c] >= FALSE_ALARM (so P[X < c_lo] < FALSE_ALARM)."""
    return int(stats.binom.ppf(FALSE_ALARM, audits, rate))


def power(audits: int, broken_rate: float, limit: int) -> float:
    """P[Binomial(audits, broken_rate) > limit]: the chance the test fails for an auditor with that rate."""
    return float(stats.binom.sf(limit, audits, broken_rate))


# ---------------------------------------------------------------------------------------------------------------
# Mechanisms whose exact epsilon the auditor nearly reaches.
# ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ThreeOutcomes:
    """Outputs 0, 1, 2. Bit 0: probabilities (p, 1 - p - q, q); bit 1: (q, 1 - p - q, p), q = p e^-epsilon.
    Exactly epsilon-DP on the pair (0, 1), with two tight events whose counts are only weakly dependent
    (multinomial correlation -0.41 on each side at p = 0.8, epsilon = 3): {0} (more likely under bit 0) and {2}
    (more likely under bit 1). With ``candidates=2`` both are counted, and a missing Bonferroni factor doubles the
    exceedance rate (:func:`exceed_rate_two_events`; with randomized response the two events are complements,
    their errors coincide, and the factor would hardly matter)."""

    epsilon: float
    p: float

    @property
    def q(self) -> float:
        return self.p * math.exp(-self.epsilon)

    def __call__(self, dataset, n: int, rng: np.random.Generator) -> np.ndarray:
        bit = int(np.asarray(dataset).reshape(-1)[0])
        first, last = (self.p, self.q) if bit == 0 else (self.q, self.p)
        return np.searchsorted(np.array([first, 1.0 - last]), rng.random(n), side="right").astype(np.int8)


def _sum(d):
    return np.asarray(d, dtype=float).sum(axis=0)


def _n_estimation(samples: int, selection_fraction: float) -> int:
    """The estimation samples per side of the documented split (:mod:`dpverify.audit.split`)."""
    return samples - math.ceil(selection_fraction * samples)


RR_EPS = 3.0                       # p = 0.9526: p_hi near 1, so the rate is near alpha / 2
THREE_EPS, THREE_P = 3.0, 0.8      # q = 0.0398, middle outcome 0.160
LAPLACE_EPS = 1.0                  # scale 1, pair at distance 1
GAUSS_MU, GAUSS_DELTA = 1.0, 0.05  # N(0, 1) vs N(1, 1): exact epsilon 1.5689 at delta 0.05 (Balle & Wang 2018)

#: The documented split of alpha over the one-sided bounds: two bounds per candidate event (rr, laplace and gauss
#: use one candidate, three uses two).
ALPHA_SPLIT = {"rr": 2, "three": 4, "laplace": 2, "gauss": 2}


def _rr(delta: float):
    mech = RandomizedResponse(RR_EPS)
    return mech, math.log((mech.p - delta) / (1.0 - mech.p))  # hockey-stick at delta (Warner 1965 RR)


@dataclass(frozen=True)
class Spec:
    """K = ``audits`` seeded audits (seeds ``seed0 .. seed0 + K - 1``) of the ``family``'s mechanism at its exact
    epsilon, ``samples`` per side. ``broken``: the rates of broken auditors the test must catch (name -> rate;
    ``None`` is twice the reference rate, ``"exact"`` the exact rate with each bound at twice its level)."""

    family: str
    confidence: float
    audits: int
    seed0: int
    samples: int = 2000
    delta: float = 0.0
    test: str = "events"
    broken: dict = field(default_factory=dict)

    @property
    def selection_fraction(self) -> float:
        # Continuous families: 0.5, so that re-drawing from the selection's seeds reproduces the selection samples.
        return 0.2 if self.family in ("rr", "three") else 0.5

    @property
    def exact_reference(self) -> bool:
        return self.family in ("rr", "three")

    def reference(self, split: int | None = None) -> float:
        """The rate of a correct auditor (each bound at alpha / ``split``, by default the documented
        :data:`ALPHA_SPLIT`; half of it is the union bug and, for "three", the Bonferroni bug)."""
        return _reference_rate(self.family, self.confidence, self.delta, self.samples, self.selection_fraction,
                               ALPHA_SPLIT[self.family] if split is None else split)

    def setup(self):
        """(mechanism, dataset, neighbour, exact epsilon, audit keyword arguments)."""
        kwargs = dict(confidence=self.confidence, delta=self.delta, test=self.test, samples=self.samples,
                      selection_fraction=self.selection_fraction)
        if self.family == "rr":
            mech, eps = _rr(self.delta)
            return mech, np.array([0]), np.array([1]), eps, kwargs
        if self.family == "three":
            return (ThreeOutcomes(THREE_EPS, THREE_P), np.array([0]), np.array([1]), THREE_EPS,
                    dict(kwargs, candidates=2))
        if self.family == "laplace":
            return laplace_query(LAPLACE_EPS), np.array([0.0]), np.array([1.0]), LAPLACE_EPS, kwargs
        if self.family == "gauss":
            mech = AdditiveNoise(_sum, GaussianMechanism(1.0, 1.0 / GAUSS_MU))
            return mech, np.array([0.0]), np.array([1.0]), gaussian_epsilon_at(GAUSS_MU, self.delta), kwargs
        raise ValueError(self.family)

    def exceedances(self) -> tuple[int, float]:
        """(number of audits whose certificate is above the exact epsilon, the exact epsilon)."""
        mech, d0, d1, eps, kwargs = self.setup()
        count = sum(audit(mech, d0, d1, epsilon=eps, exact_epsilon=eps, seed=s, **kwargs).epsilon_lower > eps
                    for s in range(self.seed0, self.seed0 + self.audits))
        return count, eps


@lru_cache(maxsize=None)
def _reference_rate(family: str, confidence: float, delta: float, samples: int, fraction: float,
                    split: int) -> float:
    a = (1.0 - confidence) / split
    n = _n_estimation(samples, fraction)
    if family == "rr":
        mech, eps = _rr(delta)
        return exceed_rate(n, mech.p, 1.0 - mech.p, eps, a, delta)
    if family == "three":
        mech = ThreeOutcomes(THREE_EPS, THREE_P)
        return exceed_rate_two_events(n, mech.p, mech.q, THREE_EPS, a)
    if family == "laplace":
        b = 1.0 / LAPLACE_EPS  # D at 0, D' at 1; events {x < t} (D high) and their mirror images {x >= 1 - t}
        cdf = lambda x: 0.5 * math.exp(x / b) if x <= 0 else 1.0 - 0.5 * math.exp(-x / b)  # noqa: E731
        return sup_exceed_rate(n, lambda t: (cdf(t), cdf(t - 1.0)), LAPLACE_EPS, a, 0.0, -6 * b, 1 + 2 * b, (0.0,))
    if family == "gauss":
        eps = gaussian_epsilon_at(GAUSS_MU, delta)
        return sup_exceed_rate(n, lambda t: (stats.norm.cdf(t), stats.norm.cdf(t - GAUSS_MU)), eps, a, delta,
                               -4.0, 2.0)
    raise ValueError(family)


# Broken rates: None = twice the reference; "exact" = the union bug's (and for "three" the Bonferroni bug's)
# exact rate; numbers = measured rates of the mutated copies of mutation/auditor.py over 1000 audits (seeds
# 0-999; sd <= 0.016 at confidence 0.5), at the spec's samples and confidence.
# Measured rates of the CORRECT auditor over the same 1000 seeds (compare with the reference r):
#   rr 0.5: 0.215 (r = 0.220 exact);  three 0.5: 0.156, 0.165 over 3000 seeds (r = 0.173 exact);
#   laplace threshold 0.5, 2000 samples: 0.127 (r_sup = 0.171);  gauss 0.5, 2000 samples: 0.077
#   (r_sup = 0.149);  laplace likelihood_ratio 0.5, 4000 samples: 0.142 (r_sup = 0.175);
#   rr 0.95: 0.016 (r = 0.0168);  three 0.95: 0.006 (r = 0.0114);  4000 samples: laplace threshold 0.95: 0.001
#   (r_sup = 0.0041), gauss 0.95: 0.001 (r_sup = 0.0033).
CASES = {
    # K = 200, r = 0.2198: c_hi = 63 (0.315), c_lo = 27. Power: 2r 0.9998; union (r = 0.4747 exact) 1.0.
    # Measured: union 0.468, same_samples 0.301, reuse_seed 0.282 (power 0.30 and 0.13: caught elsewhere).
    "rr": Spec("rr", 0.5, 200, 0, broken={"2r": None, "union": "exact"}),
    # delta = 0.1: exact epsilon log((p - 0.1)/(1 - p)) = 2.889; K = 200, r = 0.2186 exact, same limits.
    "rr_delta": Spec("rr", 0.5, 200, 1000, delta=0.1, broken={"2r": None, "union": "exact"}),
    # K = 300, r = 0.1732: c_hi = 73 (0.243), c_lo = 33. Power: 2r 0.9999; bonferroni (= union here, both
    # halve the per-bound level: 0.3677 exact) 1.0. Measured: bonferroni 0.322, union 0.322.
    "three": Spec("three", 0.5, 300, 2000, broken={"2r": None, "bonferroni": "exact", "union": "exact"}),
    # 2000 samples, K = 200, r_sup = 0.1712: c_hi = 52 (0.26). Power: 2r 0.992; measured union 0.399 (0.99995),
    # same_samples 0.846 (1.0), reuse_seed 0.549 (1.0).
    "laplace_threshold": Spec("laplace", 0.5, 200, 3000, test="threshold",
                              broken={"2r": None, "union": 0.399, "same_samples": 0.846, "reuse_seed": 0.549}),
    # 2000 samples, delta = 0.05, K = 250, r_sup = 0.1487: c_hi = 55 (0.22). Power: 2r 0.996; measured union 0.331
    # (0.9996), same_samples 0.602 (1.0), reuse_seed 0.363 (1.0).
    "gauss_delta": Spec("gauss", 0.5, 250, 5000, delta=GAUSS_DELTA, test="likelihood_ratio",
                        broken={"2r": None, "union": 0.331, "same_samples": 0.602, "reuse_seed": 0.363}),
}

SLOW_CASES = {
    # K = 3000, r = 0.0168: c_hi = 73 (0.0243), c_lo = 30. Power: 2r 0.998; union (0.0367 exact) 0.9999.
    # Measured: union 0.040, same_samples 0.025, reuse_seed 0.025.
    "rr_095": Spec("rr", 0.95, 3000, 10_000, broken={"2r": None, "union": "exact"}),
    # K = 4000, r = 0.0114: c_hi = 68 (0.017), c_lo = 26. Power: 2r 0.994; bonferroni/union (0.0264 exact) 0.9999.
    # Measured: bonferroni 0.019, union 0.019.
    "three_095": Spec("three", 0.95, 4000, 20_000, broken={"2r": None, "bonferroni": "exact", "union": "exact"}),
    # 4000 samples, K = 2000, r_sup = 0.0041: c_hi = 18 (0.009). Measured same_samples 0.078, reuse_seed 0.028:
    # power 1.0 (2r: 0.29 and union 0.006: 0.04 -- at 0.95 these are the rr/three tests' job).
    "laplace_threshold_095": Spec("laplace", 0.95, 2000, 30_000, samples=4000, test="threshold",
                                  broken={"same_samples": 0.078, "reuse_seed": 0.028}),
    # 4000 samples, delta = 0.05, K = 2000, r_sup = 0.0033: c_hi = 16 (0.008). Measured same_samples 0.031 (1.0),
    # reuse_seed 0.017 (0.9996); union 0.005 (0.03).
    "gauss_delta_095": Spec("gauss", 0.95, 2000, 40_000, samples=4000, delta=GAUSS_DELTA, test="likelihood_ratio",
                            broken={"same_samples": 0.031, "reuse_seed": 0.017}),
    # Laplace with its exact likelihood ratio (atoms at +-epsilon), 4000 samples, K = 400, r_sup = 0.1747:
    # c_hi = 94 (0.235). Power: 2r 1.0; measured union 0.424, same_samples 0.398 (1.0), reuse_seed 0.292 (0.994).
    "laplace_likelihood_ratio": Spec("laplace", 0.5, 400, 4000, samples=4000, test="likelihood_ratio",
                                     broken={"2r": None, "union": 0.424, "same_samples": 0.398,
                                             "reuse_seed": 0.292}),
}


def _check(case_id: str, spec: Spec) -> None:
    r = spec.reference()
    hi = upper_limit(spec.audits, r)
    x, eps = spec.exceedances()
    summary = (f"{case_id}: {x} of {spec.audits} audits certified above the exact epsilon {eps:.4g} "
               f"(confidence {spec.confidence}); {'exact' if spec.exact_reference else 'upper'} reference rate "
               f"{r:.4f}, allowed <= {hi}")
    assert x <= hi, summary + " -- the auditor's bound is invalid or not the documented one"
    if spec.exact_reference:
        lo = lower_limit(spec.audits, r)
        assert x >= lo, summary + f", >= {lo} -- the bound is more conservative than the documented method"
    # Validity as documented (implied by the limit, which is below alpha; stated for the reader).
    assert hi / spec.audits < 1.0 - spec.confidence


@pytest.mark.parametrize("case_id", list(CASES))
def test_calibration(case_id):
    """Exceedances of the exact epsilon in K seeded audits (mostly at confidence 0.5) match the documented
    method's rate (module docstring; numbers beside :data:`CASES`)."""
    _check(case_id, CASES[case_id])


@pytest.mark.slow
@pytest.mark.parametrize("case_id", list(SLOW_CASES))
def test_calibration_full(case_id):
    """The same at the default confidence 0.95 with thousands of audits, and Laplace with its exact likelihood
    ratio (numbers beside :data:`SLOW_CASES`)."""
    _check(case_id, SLOW_CASES[case_id])


@pytest.mark.parametrize("case_id", list(CASES) + list(SLOW_CASES))
def test_design_has_power(case_id):
    """The numbers written beside the cases: each test's false-alarm probability is <= 1e-3 and it fails with
    probability >= 0.99 for every broken rate listed (twice the reference rate; the union and Bonferroni bugs'
    exact rates; the other bugs' measured rates). No audits are run."""
    spec = {**CASES, **SLOW_CASES}[case_id]
    r = spec.reference()
    hi = upper_limit(spec.audits, r)
    assert stats.binom.sf(hi, spec.audits, r) <= FALSE_ALARM
    for bug, rate in spec.broken.items():
        if rate is None:
            rate = 2 * r
        elif rate == "exact":  # each bound at twice its level: alpha/2 instead of alpha/4 (three), alpha (rr)
            rate = spec.reference(split=ALPHA_SPLIT[spec.family] // 2)
            assert rate > 1.8 * r  # the bug roughly doubles the rate (0.22 -> 0.47, 0.017 -> 0.037, ...)
        assert power(spec.audits, rate, hi) >= 0.99, f"{case_id}: power {power(spec.audits, rate, hi):.3f} ({bug})"


def test_reference_rates_match_direct_simulation():
    """The enumerations behind the exact references agree with a direct simulation of the counts (binomial /
    multinomial draws, bounds from the same Beta quantiles): M = 40000 draws, sd <= sqrt(0.25/M) = 0.0025;
    allowed 4 sd = 0.01."""
    rng = np.random.default_rng(2024)
    m = 40_000
    n = _n_estimation(2000, 0.2)

    def bound(k_hi, k_lo, a, delta=0.0):
        lower, upper = _cp_tables(n, a)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log((lower[k_hi] - delta) / upper[k_lo])

    mech, eps = _rr(0.1)
    a = 0.5 / 2
    sim = np.mean(bound(rng.binomial(n, mech.p, m), rng.binomial(n, 1 - mech.p, m), a, 0.1) > eps)
    assert abs(sim - Spec("rr", 0.5, 1, 0, delta=0.1).reference()) <= 0.01

    three = ThreeOutcomes(THREE_EPS, THREE_P)
    a = 0.5 / 4
    c0 = rng.multinomial(n, [three.p, 1 - three.p - three.q, three.q], size=m)
    c1 = rng.multinomial(n, [three.q, 1 - three.p - three.q, three.p], size=m)
    sim = np.mean((bound(c0[:, 0], c1[:, 0], a) > THREE_EPS) | (bound(c1[:, 2], c0[:, 2], a) > THREE_EPS))
    assert abs(sim - Spec("three", 0.5, 1, 0).reference()) <= 0.01
    # The mechanism draws what its docstring says (sd of a frequency at 10^5 draws <= 0.0016; allowed 0.01).
    out = three(np.array([1]), 100_000, rng)
    assert np.allclose(np.bincount(out, minlength=3) / 100_000, [three.q, 1 - three.p - three.q, three.p], atol=0.01)


def test_normal_approximation_explains_alpha_over_two():
    """Why the references sit near alpha / 2 and the union bug near alpha (module docstring): the normal
    approximation 1 - Phi(z (s_hi + s_lo) / sqrt(s_hi^2 + s_lo^2)) of the randomized-response rate agrees with
    the exact enumeration to within 0.03 at confidence 0.5 (CP discreteness and skewness of log p_lo_hat)."""
    mech, eps = _rr(0.0)
    n = _n_estimation(2000, 0.2)
    s_hi, s_lo = math.sqrt((1 - mech.p) / (n * mech.p)), math.sqrt(mech.p / (n * (1 - mech.p)))
    for level, split in ((0.5, 2), (0.5, 1)):
        z = stats.norm.isf(level / split)
        approx = stats.norm.sf(z * (s_hi + s_lo) / math.hypot(s_hi, s_lo))
        assert approx <= level / split
        assert abs(approx - Spec("rr", 1 - level, 1, 0).reference(split=split)) <= 0.03
