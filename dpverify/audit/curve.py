"""Curve-level certification: test a claimed trade-off curve with one threshold test, and certify mu_lower.

**Setting.** A scalar statistic s of one output has values ``s0`` on outputs of M(D) and ``s1`` on outputs of
M(D'), in two independent parts: a *selection* part and an *estimation* part. A threshold test decides "M(D)" on
the event S = {s >= t} when ``d_high`` (larger values look like M(D)), on S = {s < t} otherwise. Testing H0
"the output came from M(D')" this way, its

    false-positive rate  FPR = P[M(D') in S]            (type I error, counted on s1),
    false-negative rate  FNR = P[M(D) not in S]         (type II error, counted on s0).

**Claims as curves** (Dong, Roth, Su 2022, "Gaussian differential privacy", JRSS-B, Def. 2.1 and 2.3). A mechanism
is f-DP when every test of M(D) against M(D') -- either order -- has type II error >= f(type I error), f
non-increasing (:mod:`dpverify.calculus.tradeoff`). So for this test ``FNR >= f(FPR)`` and, reading the same test
with the roles of D and D' swapped (decide "M(D')" on the complement of S), ``FPR >= f(FNR)``.

**The certificate** (Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini, Terzis 2023, "Tight auditing of
differentially private machine learning", USENIX Security, Sec. 5, the Clopper-Pearson construction):

1. on the selection part only, choose the threshold t and orientation that maximise the *expected* certificate:
   the selection rates (pessimistic: their own upper bounds at :data:`SELECTION_LEVEL`), scaled to the estimation
   sizes, are plugged into the Clopper-Pearson bounds below (:func:`select_test`); the objective is mu_lower, or,
   given a claim, the log-margin
   ``max(log f(FPR_hi) - log FNR_hi, log f(FNR_hi) - log FPR_hi)``;
2. on the estimation part, count the false positives k_fp of n1 outputs of M(D') and the false negatives k_fn of
   n0 outputs of M(D); take one-sided Clopper-Pearson upper bounds (Clopper & Pearson 1934;
   :func:`dpverify.audit.bounds.clopper_pearson_upper`), each at level ``alpha / (2 m)`` where m = ``candidates``
   is the number of tests certified on the same estimation samples (Bonferroni; m = 1 here):

       FPR_hi = CP_upper(k_fp; n1; alpha / (2 m)),     FNR_hi = CP_upper(k_fn; n0; alpha / (2 m));

3. **refute** a claim f when the point lies below the curve: ``FNR_hi < f(FPR_hi)`` or ``FPR_hi < f(FNR_hi)``
   (:func:`refutes`; by more than a rounding slack of 1e-12, which only weakens the claim);
4. report ``mu_lower = max(0, Phi^-1(1 - FPR_hi) - Phi^-1(FNR_hi))`` (:func:`mu_lower`): the mu-GDP claims with
   mu < mu_lower are exactly those refuted in step 3 (G_mu(FPR_hi) > FNR_hi <=> mu < Phi^-1(1 - FPR_hi) -
   Phi^-1(FNR_hi); G_mu is symmetric, so the swapped reading gives the same). The ``max(0, .)`` guard matters: a
   negative value is not evidence of anything, and reading it as evidence (its absolute value) made an auditor
   report epsilon ~ 3.5 on identical score distributions (google-deepmind/jax_privacy PR #270).

**Validity, for any mechanism (no Gaussian assumption).** The test (t, orientation) is a function of the selection
part only, which is independent of the estimation part; so, given the selection, k_fp ~ Binomial(n1, FPR) and
k_fn ~ Binomial(n0, FNR) with fixed FPR, FNR, and with probability >= 1 - alpha both ``FPR <= FPR_hi`` and
``FNR <= FNR_hi`` hold (union bound over the two one-sided bounds). On that event, if M is f-DP,
``FNR_hi >= FNR >= f(FPR) >= f(FPR_hi)`` (f non-increasing), and likewise ``FPR_hi >= f(FNR_hi)``: the claim is
not refuted. Hence P[a true claim is refuted] <= alpha, and P[mu_lower > mu] <= alpha for a mu-GDP mechanism.
Choosing t on the estimation part would break the independence (the maximum over thresholds of noisy counts is
biased); ``mutation/auditor.py`` shows a test catching that bug.

**What mu_lower is not.** It is a statement about Gaussian curves ("no mu-GDP curve with mu < mu_lower fits the
data"), not a lower bound on epsilon(delta) of an arbitrary mechanism: the epsilon that mu_lower-GDP would have at
some delta (:func:`epsilon_assuming_gaussian`) is a lower bound only if the mechanism's curve is Gaussian, and is
labelled so. A mechanism-free lower bound from the same point is :func:`epsilon_lower`
(``max(log((1 - FNR_hi - delta) / FPR_hi), log((1 - FPR_hi - delta) / FNR_hi), 0)``, the event bound of
:mod:`dpverify.audit.bounds` for S with both rates at alpha / 2).

**Profile claims.** For a claim given as a privacy profile (a PLD accountant, (eps, delta)-DP, a Rényi curve, a
:class:`~dpverify.calculus.guarantees.PrivacyProfile`), :func:`most_violated_delta` also reports the delta at which
the certified ``epsilon_lower(delta)`` exceeds the claimed ``epsilon(delta)`` most, and by how much (a grid of
delta). Both readings are rigorous at the same confidence (they use the same two bounds); the certificate calls the
claim refuted when either finds a violation.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from dpverify.audit.bounds import clopper_pearson_upper
from dpverify.audit.statistics import count_at_least, threshold_candidates
from dpverify.calculus.accounting.pld import PrivacyLossDistribution
from dpverify.calculus.guarantees import ApproxDP, PrivacyProfile
from dpverify.calculus.tradeoff import GaussianDP, TradeOffCurve, check_error_rates
from dpverify.calculus.tradeoff_conversions import as_privacy_profile, as_tradeoff_curve
from dpverify.validation import check_delta, check_positive_int, check_probability

__all__ = ["CurveTest", "CurveCertificate", "CurveClaim", "ProfileViolation", "curve_claim", "error_counts",
           "error_upper_bounds", "mu_lower", "epsilon_lower", "epsilon_assuming_gaussian", "claim_margin", "refutes",
           "most_violated_delta", "select_test", "select_test_from_scores", "certify", "curve_audit", "MAX_THRESHOLDS",
           "SELECTION_LEVEL", "ROUNDING_SLACK"]

#: Candidate thresholds scored on the selection part (pooled quantiles of its values).
MAX_THRESHOLDS = 512
#: The selection scores each candidate with its error rates replaced by their one-sided (1 - SELECTION_LEVEL)
#: Clopper-Pearson upper bounds on the selection part. Measured on Gaussian scores (mu = 0.5, 1, 2; 10^5 per side,
#: 20% selection; 20 seeds): mean mu_lower / mu 0.86, 0.89, 0.93 with the raw selection rates, 0.96, 0.98, 0.99
#: with this penalty (0.01 and 0.001 gave the same).
SELECTION_LEVEL = 0.05
#: A point must lie this far below the claimed curve (in error rate; in epsilon for a profile violation) to refute
#: it: floating point puts a point computed on the curve up to ~1e-16 off it, and a PLD's curve up to ~5e-15 above
#: its true curve. Lowering the claim by 1e-12 only weakens it.
ROUNDING_SLACK = 1e-12
#: Deltas per decade of the grid of :func:`most_violated_delta` (from 1e-15 up).
_DELTAS_PER_DECADE = 4


@dataclass(frozen=True)
class CurveTest:
    """A threshold test chosen on the selection part: decide "M(D)" on {s >= threshold} when ``d_high``, on
    {s < threshold} otherwise. ``score`` is the expected certificate it achieved there (``objective`` says which:
    "mu" or "claim"); a selection criterion, never a certificate."""

    threshold: float
    d_high: bool
    score: float
    objective: str

    def describe(self) -> str:
        op = ">=" if self.d_high else "<"
        return f"decide M(dataset) when s {op} {self.threshold:.6g}"


@dataclass(frozen=True)
class ProfileViolation:
    """The delta at which a profile claim is violated most: the certified ``epsilon_certified`` (the event bound of
    the certificate's point at ``delta``) minus the claimed ``epsilon_claimed``; ``margin > 0`` is a violation."""

    delta: float
    epsilon_claimed: float
    epsilon_certified: float
    margin: float


@dataclass(frozen=True)
class CurveCertificate:
    """The result of certifying one threshold test on the estimation part (module docstring).

    Counts: ``false_positives`` of ``n_neighbour`` outputs of M(D'), ``false_negatives`` of ``n_dataset`` outputs of
    M(D). Bounds: ``fpr_upper``, ``fnr_upper`` (one-sided Clopper-Pearson, each at ``alpha / (2 candidates)``), so
    with probability >= 1 - ``alpha`` both hold. ``mu_lower``: no mu-GDP curve with mu < mu_lower fits (0 when
    nothing is shown). With a claim (``claim``: the guarantee as given, ``claim_description`` its curve's
    description): ``refuted`` (the point lies below the claimed curve, or a profile violation was found),
    ``margin`` = ``max(f(fpr_upper) - fnr_upper, f(fnr_upper) - fpr_upper)`` (> 0 refutes), ``violation`` for profile
    claims (:class:`ProfileViolation`).
    """

    threshold: float
    d_high: bool
    false_positives: int
    n_neighbour: int
    false_negatives: int
    n_dataset: int
    alpha: float
    candidates: int
    fpr_upper: float
    fnr_upper: float
    mu_lower: float
    claim: object | None = None
    claim_description: str | None = None
    refuted: bool | None = None
    margin: float | None = None
    violation: ProfileViolation | None = None

    def epsilon_lower(self, delta: float) -> float:
        """A certified lower bound on epsilon at ``delta`` from the same point, valid for any mechanism."""
        return float(epsilon_lower(self.fpr_upper, self.fnr_upper, delta))

    def epsilon_assuming_gaussian(self, delta: float) -> float:
        """epsilon at ``delta`` of mu_lower-GDP: a lower bound on the mechanism's epsilon ONLY IF its trade-off curve
        is Gaussian (:func:`epsilon_assuming_gaussian`)."""
        return epsilon_assuming_gaussian(self.mu_lower, delta)

    def describe(self) -> str:
        op = ">=" if self.d_high else "<"
        text = (f"test {{s {op} {self.threshold:.6g}}}: FPR <= {self.fpr_upper:.4g} ({self.false_positives}/"
                f"{self.n_neighbour}), FNR <= {self.fnr_upper:.4g} ({self.false_negatives}/{self.n_dataset}) at "
                f"confidence {1 - self.alpha:g}; mu_lower = {self.mu_lower:.4g}")
        if self.claim is not None:
            text += (f"; claim {self.claim_description}: {'REFUTED' if self.refuted else 'not refuted'} "
                     f"(margin {self.margin:.3g})")
        if self.violation is not None and self.violation.margin > 0:
            v = self.violation
            text += (f"; most violated at delta = {v.delta:.3g}: epsilon >= {v.epsilon_certified:.4g} vs claimed "
                     f"{v.epsilon_claimed:.4g}")
        return text


@dataclass(frozen=True)
class CurveClaim:
    """A claim converted once for the stages: the original ``guarantee``, its trade-off ``curve`` (never above the
    true one) and its ``profile`` (never below the true delta); ``is_profile`` when the claim is a profile (anything
    but a trade-off curve), which :func:`certify` also reads with :func:`most_violated_delta`."""

    guarantee: object
    curve: TradeOffCurve
    profile: PrivacyProfile

    @property
    def is_profile(self) -> bool:
        return not isinstance(self.guarantee, TradeOffCurve)


def curve_claim(claim) -> CurveClaim:
    """``claim`` (any guarantee of :mod:`dpverify.calculus`) with its curve
    (:func:`~dpverify.calculus.tradeoff_conversions.as_tradeoff_curve`) and profile
    (:func:`~dpverify.calculus.tradeoff_conversions.as_privacy_profile`); a :class:`CurveClaim` is returned as is.

    A PLD's profile is read from its curve (the exact conjugate of the Neyman-Pearson curves of its pessimistic laws:
    the upper end of ``epsilon_bounds``, up to rounding, at a tenth of the cost)."""
    if isinstance(claim, CurveClaim):
        return claim
    curve = as_tradeoff_curve(claim)
    if isinstance(claim, PrivacyLossDistribution):
        profile = PrivacyProfile(curve.delta, curve.description, epsilon_of_delta=curve.epsilon)
    else:
        profile = as_privacy_profile(claim)
    return CurveClaim(claim, curve, profile)


# ----------------------------------------------------------------------------------------------- the numbers


def error_counts(k0, n0: int, k1, n1: int, d_high: bool) -> tuple[np.ndarray, np.ndarray]:
    """(false positives among the n1 outputs of M(D'), false negatives among the n0 of M(D)) of the test, from
    ``k0 = #{s0 >= t}`` and ``k1 = #{s1 >= t}``."""
    k0 = np.asarray(k0)
    k1 = np.asarray(k1)
    return (k1, n0 - k0) if d_high else (n1 - k1, k0)


def error_upper_bounds(false_positives, n_neighbour: int, false_negatives, n_dataset: int, *, alpha: float,
                       candidates: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(FPR_hi, FNR_hi): one-sided Clopper-Pearson upper bounds, each at ``alpha / (2 candidates)``, so that with
    probability >= 1 - alpha both hold for all ``candidates`` tests (union bound). Counts may be real-valued
    (expected counts, for the selection) and arrays."""
    n1 = check_positive_int(n_neighbour, "n_neighbour")
    n0 = check_positive_int(n_dataset, "n_dataset")
    alpha = check_probability(alpha, "alpha", open_low=True, open_high=True)
    m = check_positive_int(candidates, "candidates")
    fp = np.asarray(false_positives, dtype=float)
    fn = np.asarray(false_negatives, dtype=float)
    if np.any(fp < 0) or np.any(fp > n1) or np.any(fn < 0) or np.any(fn > n0):
        raise ValueError("false_positives must lie in [0, n_neighbour] and false_negatives in [0, n_dataset]")
    a = alpha / (2.0 * m)
    return clopper_pearson_upper(fp, n1, a), clopper_pearson_upper(fn, n0, a)


def mu_lower(fpr_upper, fnr_upper):
    """``max(0, Phi^-1(1 - FPR_hi) - Phi^-1(FNR_hi))`` (Nasr et al. 2023, Sec. 5), vectorised.

    Computed as ``-Phi^-1(FPR_hi) - Phi^-1(FNR_hi)``, exact for tiny rates. The guard: a negative value means the
    test did worse than guessing on these bounds; it is reported as 0, never as evidence."""
    x = check_error_rates(fpr_upper, "fpr_upper")
    y = check_error_rates(fnr_upper, "fnr_upper")
    with np.errstate(invalid="ignore"):
        raw = -ndtri(x) - ndtri(y)
    # Phi^-1(1 - x) > Phi^-1(y) exactly when x + y < 1: the guard tests that, not the rounded difference
    out = np.where(x + y >= 1.0, 0.0, np.maximum(0.0, raw))
    return float(out) if out.ndim == 0 else out


def epsilon_lower(fpr_upper, fnr_upper, delta: float):
    """``max(0, log((1 - FNR_hi - delta) / FPR_hi), log((1 - FPR_hi - delta) / FNR_hi))``: the certified epsilon at
    ``delta`` of the point, valid for any mechanism (the event bound of :mod:`dpverify.audit.bounds`: 1 - FNR_hi is a
    lower bound on P[M(D) in S], FPR_hi an upper bound on P[M(D') in S], and symmetrically for the complement)."""
    x = check_error_rates(fpr_upper, "fpr_upper")
    y = check_error_rates(fnr_upper, "fnr_upper")
    d = check_delta(delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        one = np.where((1.0 - y - d > 0) & (x > 0), np.log((1.0 - y - d) / x), 0.0)
        two = np.where((1.0 - x - d > 0) & (y > 0), np.log((1.0 - x - d) / y), 0.0)
    out = np.maximum(0.0, np.maximum(one, two))
    return float(out) if out.ndim == 0 else out


def epsilon_assuming_gaussian(mu: float, delta: float) -> float:
    """epsilon(delta) of mu-GDP (DRS 2022, Cor. 2.13). Applied to ``mu_lower``, this is a lower bound on the
    mechanism's epsilon at ``delta`` ONLY IF the mechanism's trade-off curve is Gaussian; label it so wherever it is
    shown (e.g. "epsilon at delta = 1e-5 implied by mu_lower, assuming a Gaussian curve")."""
    return GaussianDP(mu).epsilon(check_delta(delta, allow_zero=False))


def claim_margin(curve: TradeOffCurve, fpr_upper, fnr_upper):
    """``max(f(FPR_hi) - FNR_hi, f(FNR_hi) - FPR_hi)``: how far below the claimed curve f the point lies (> 0
    refutes), vectorised over points."""
    x = check_error_rates(fpr_upper, "fpr_upper")
    y = check_error_rates(fnr_upper, "fnr_upper")
    out = np.maximum(curve.evaluate(x) - y, curve.evaluate(y) - x)
    return float(out) if np.ndim(out) == 0 else out


def refutes(claim, fpr_upper, fnr_upper):
    """True where the point (FPR_hi, FNR_hi) lies below the claimed curve by more than :data:`ROUNDING_SLACK`, in
    either reading of the test (module docstring). ``claim``: any guarantee
    (:func:`~dpverify.calculus.tradeoff_conversions.as_tradeoff_curve`) or a :class:`CurveClaim`."""
    out = np.asarray(claim_margin(curve_claim(claim).curve, fpr_upper, fnr_upper)) > ROUNDING_SLACK
    return bool(out) if out.ndim == 0 else out


def _delta_grid(fpr_upper: float, fnr_upper: float, claim) -> np.ndarray:
    top = 1.0 - fpr_upper - fnr_upper
    if top <= 1e-15:
        return np.empty(0)
    decades = math.log10(top) + 15.0
    grid = np.logspace(-15.0, math.log10(top), max(2, int(decades * _DELTAS_PER_DECADE) + 1), endpoint=False)
    if isinstance(claim, CurveClaim):
        claim = claim.guarantee
    if isinstance(claim, ApproxDP) and 0.0 < claim.delta < top:
        grid = np.union1d(grid, [claim.delta])
    return grid


def most_violated_delta(claim, fpr_upper: float, fnr_upper: float, deltas=None) -> ProfileViolation | None:
    """The delta where ``epsilon_lower(delta) - claimed epsilon(delta)`` is largest (a violation when > 0).

    ``claim``: any guarantee, read as a profile (:func:`~dpverify.calculus.tradeoff_conversions.as_privacy_profile`);
    ``deltas``: the grid (default: 4 per decade from 1e-15 up to 1 - FPR_hi - FNR_hi, where the point stops
    certifying anything, plus the claim's own delta for an (eps, delta) claim). None when the point certifies
    nothing (FPR_hi + FNR_hi >= 1)."""
    x = float(check_error_rates(fpr_upper, "fpr_upper"))
    y = float(check_error_rates(fnr_upper, "fnr_upper"))
    grid = _delta_grid(x, y, claim) if deltas is None else np.asarray(deltas, dtype=float).reshape(-1)
    if grid.size == 0:
        return None
    profile = claim.profile if isinstance(claim, CurveClaim) else as_privacy_profile(claim)
    best = None
    for d in grid:
        certified = float(epsilon_lower(x, y, float(d)))
        claimed = float(profile.epsilon(float(d)))
        margin = certified - claimed
        if best is None or margin > best.margin:
            best = ProfileViolation(float(d), claimed, certified, margin)
    return best


# ----------------------------------------------------------------------------------------------- the stages


def _objective(curve: TradeOffCurve | None, fpr_upper: np.ndarray, fnr_upper: np.ndarray) -> np.ndarray:
    if curve is None:
        return np.asarray(mu_lower(fpr_upper, fnr_upper), dtype=float)
    with np.errstate(divide="ignore"):
        return np.maximum(np.log(curve.evaluate(fpr_upper)) - np.log(fnr_upper),
                          np.log(curve.evaluate(fnr_upper)) - np.log(fpr_upper))


def select_test(k0, n0: int, k1, n1: int, thresholds, *, n_dataset: int, n_neighbour: int, alpha: float,
                candidates: int = 1, claim=None) -> CurveTest:
    """The threshold test maximising the expected certificate, from SELECTION counts only.

    ``k0[j] = #{s0 >= thresholds[j]}`` among ``n0`` selection values under M(D), ``k1`` likewise among ``n1`` under
    M(D') (:func:`dpverify.audit.statistics.count_at_least`). Each candidate's error rates are taken pessimistically,
    as their one-sided Clopper-Pearson upper bounds at :data:`SELECTION_LEVEL` on the selection part (so that a
    threshold whose small selection counts were lucky is not preferred: the winner's curse of a maximum over noisy
    scores), scaled to the estimation sizes ``n_dataset``, ``n_neighbour`` and bounded as :func:`certify` will bound
    them; the objective is mu_lower, or with ``claim`` the log-margin below the claimed curve. Ties: the first
    threshold, D high first."""
    n0 = check_positive_int(n0, "n0")
    n1 = check_positive_int(n1, "n1")
    t = np.asarray(thresholds, dtype=float).reshape(-1)
    k0 = np.asarray(k0, dtype=float).reshape(-1)
    k1 = np.asarray(k1, dtype=float).reshape(-1)
    if not (t.size == k0.size == k1.size) or t.size == 0:
        raise ValueError(f"thresholds, k0 and k1 must have the same non-zero length; got {t.size}, {k0.size}, "
                         f"{k1.size}")
    if np.any(k0 < 0) or np.any(k0 > n0) or np.any(k1 < 0) or np.any(k1 > n1):
        raise ValueError("selection counts k0, k1 must lie in [0, n0] and [0, n1]")
    curve = None if claim is None else curve_claim(claim).curve
    best: CurveTest | None = None
    for d_high in (True, False):
        fp, fn = error_counts(k0, n0, k1, n1, d_high)
        fpr_sel = clopper_pearson_upper(fp, n1, SELECTION_LEVEL)
        fnr_sel = clopper_pearson_upper(fn, n0, SELECTION_LEVEL)
        fpr_hi, fnr_hi = error_upper_bounds(fpr_sel * n_neighbour, n_neighbour, fnr_sel * n_dataset, n_dataset,
                                            alpha=alpha, candidates=candidates)
        scores = _objective(curve, fpr_hi, fnr_hi)
        j = int(np.argmax(scores))
        if best is None or scores[j] > best.score:
            best = CurveTest(float(t[j]), d_high, float(scores[j]), "mu" if curve is None else "claim")
    assert best is not None  # the loop ran over both orientations
    return best


def select_test_from_scores(s0, s1, *, n_dataset: int, n_neighbour: int, alpha: float, candidates: int = 1,
                            claim=None, max_thresholds: int = MAX_THRESHOLDS) -> CurveTest:
    """:func:`select_test` on selection values held in memory: candidate thresholds are up to ``max_thresholds``
    pooled quantiles (:func:`dpverify.audit.statistics.threshold_candidates`)."""
    a = np.asarray(s0, dtype=float).reshape(-1)
    b = np.asarray(s1, dtype=float).reshape(-1)
    if a.size == 0 or b.size == 0 or np.isnan(a).any() or np.isnan(b).any():
        raise ValueError("selection values s0 and s1 must be non-empty and free of NaN")
    thresholds = threshold_candidates(a, b, max_candidates=check_positive_int(max_thresholds, "max_thresholds"))
    return select_test(count_at_least(a, thresholds), a.size, count_at_least(b, thresholds), b.size, thresholds,
                       n_dataset=n_dataset, n_neighbour=n_neighbour, alpha=alpha, candidates=candidates, claim=claim)


def certify(test: CurveTest, k0: int, n0: int, k1: int, n1: int, *, alpha: float, candidates: int = 1,
            claim=None) -> CurveCertificate:
    """Certify ``test`` from ESTIMATION counts ``k0 = #{s0 >= t}`` of ``n0`` outputs of M(D) and ``k1`` of ``n1`` of
    M(D') (samples the selection never saw). ``claim``: any guarantee or a :class:`CurveClaim`; a profile claim
    also gets :func:`most_violated_delta`."""
    if not isinstance(test, CurveTest):
        raise TypeError(f"test must be a CurveTest; got {type(test).__name__}")
    n0 = check_positive_int(n0, "n0")
    n1 = check_positive_int(n1, "n1")
    fp, fn = error_counts(k0, n0, k1, n1, test.d_high)
    x_hi, y_hi = error_upper_bounds(fp, n1, fn, n0, alpha=alpha, candidates=candidates)
    x, y = float(x_hi), float(y_hi)
    refuted = margin = violation = label = guarantee = None
    if claim is not None:
        claimed = curve_claim(claim)
        guarantee, label = claimed.guarantee, claimed.curve.description
        margin = float(claim_margin(claimed.curve, x, y))
        violation = most_violated_delta(claimed, x, y) if claimed.is_profile else None
        refuted = margin > ROUNDING_SLACK or (violation is not None and violation.margin > ROUNDING_SLACK)
    return CurveCertificate(test.threshold, test.d_high, int(fp), n1, int(fn), n0, float(alpha),
                            int(candidates), x, y, float(mu_lower(x, y)), guarantee, label, refuted, margin, violation)


def curve_audit(s0_selection, s1_selection, s0_estimation, s1_estimation, *, alpha: float = 0.05,
                claim=None) -> CurveCertificate:
    """Select a threshold test on the selection values and certify it on the estimation values (module docstring).

    ``s0_*``: statistic values on outputs of M(D); ``s1_*``: on outputs of M(D'); the two parts independent.
    ``claim``: any guarantee (converted once). Returns the :class:`CurveCertificate`."""
    e0 = np.asarray(s0_estimation, dtype=float).reshape(-1)
    e1 = np.asarray(s1_estimation, dtype=float).reshape(-1)
    if e0.size == 0 or e1.size == 0 or np.isnan(e0).any() or np.isnan(e1).any():
        raise ValueError("estimation values s0_estimation and s1_estimation must be non-empty and free of NaN")
    claimed = None if claim is None else curve_claim(claim)
    test = select_test_from_scores(s0_selection, s1_selection, n_dataset=e0.size, n_neighbour=e1.size,
                                   alpha=alpha, claim=claimed)
    k0 = int(np.count_nonzero(e0 >= test.threshold))
    k1 = int(np.count_nonzero(e1 >= test.threshold))
    return certify(test, k0, e0.size, k1, e1.size, alpha=alpha, claim=claimed)
