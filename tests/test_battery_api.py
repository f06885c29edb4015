"""A review's battery against the public API (dpverify.audit, dpverify.calculus): silent wrong answers and raw errors.

One parametrised test per class of defect:

- clean errors: a bad argument is a ``ValueError`` (``TypeError`` for a wrong type) naming the argument and its range,
  never a raw numpy/scipy error, an ``AttributeError`` or a message about another argument;
- huge parameters: a value whose result overflows a double works (log space) or is such a clean error, with no
  overflow warning and no NaN;
- verdicts: the right verdict, and a reason that says why (a certificate above a stated exact epsilon, claims of
  epsilon 0 and inf, a trivial curve test, a curve claim without a delta);
- the result's repr is short, its ``to_dict()`` complete.

Statistical cases use fixed seeds and one-number Laplace/Gaussian mechanisms (a few hundredths of a second each).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dpverify.audit import audit
from dpverify.audit.one_run import GaussianCanaries, audit_one_run
from dpverify.calculus.accounting.accountant import RdpAccountant
from dpverify.calculus.accounting.moments import delta_from_log_moments, log_moment_sampled_gaussian
from dpverify.calculus.accounting.pld import gaussian_pld, pure_dp_pld, subsampled_gaussian_pld
from dpverify.calculus.accounting.sampled_gaussian import rdp_sampled_gaussian
from dpverify.calculus.composition import (advanced_composition, basic_composition,
                                           optimal_homogeneous_composition)
from dpverify.calculus.conversions import rdp_to_delta
from dpverify.calculus.guarantees import ApproxDP, Claim, PrivacyProfile, PureDP
from dpverify.calculus.mechanisms.gaussian import (GaussianMechanism, analytic_gaussian_sigma,
                                                   classic_gaussian_sigma, gaussian_delta)
from dpverify.calculus.mechanisms.laplace import laplace_scale
from dpverify.calculus.tradeoff import GaussianDP, LaplaceDP, approx_dp_curve
from dpverify.calculus.tradeoff_conversions import as_tradeoff_curve

D0, D1 = [1, 0, 1], [1, 1, 1]  # sums 2 and 3: a shift of 1
JUST_ABOVE_ONE = 1.0000000000000002  # the next double after 1


def laplace_sum(dataset, n, rng):
    """Laplace(1) noise on the sum: the pair (D0, D1) is exactly 1-DP."""
    return np.sum(dataset) + rng.laplace(0.0, 1.0, n)


def gaussian_sum(dataset, n, rng):
    """N(0, 1) noise on the sum: the pair (D0, D1) is exactly 1-GDP."""
    return np.sum(dataset) + rng.normal(0.0, 1.0, n)


def gaussian_sum_broken(dataset, n, rng):
    """A third of the noise: the pair is 3-GDP, not 1-GDP."""
    return np.sum(dataset) + rng.normal(0.0, 1.0 / 3.0, n)


def ignores_data(dataset, n, rng):
    """Perfectly private: the output does not depend on the dataset."""
    return rng.normal(0.0, 1.0, n)


def small_audit(mechanism=laplace_sum, d0=D0, d1=D1, **kwargs):
    return audit(mechanism, d0, d1, **{"samples": 20_000, "seed": 0, **kwargs})


def bad_profile(value):
    return PrivacyProfile(lambda eps: value, description=f"constant {value}")


# --------------------------------------------------------------------------------------------------- clean errors

CLEAN_ERRORS = {
    # confidence so small that 1 - confidence rounds to 1: the message named "alpha"
    "audit confidence 1e-300": (lambda: small_audit(epsilon=1.0, confidence=1e-300), ValueError,
                                r"confidence must be in \[.*, 1\.0\); got 1e-300"),
    # an order just above 1 reached the subsampled Gaussian's quadrature: divide-by-zero, NaN
    "rdp order 1+ulp (accountant)": (
        lambda: RdpAccountant([JUST_ABOVE_ONE, 2.0]).compose_sampled_gaussian(0.01, 1.0, 10), ValueError,
        r"order.*\[1\.001, inf\).*1\.0000000000000002"),
    "rdp order 1+ulp (rdp_sampled_gaussian)": (lambda: rdp_sampled_gaussian(0.01, 1.0, [JUST_ABOVE_ONE]),
                                               ValueError, r"order.*\[1\.001, inf\)"),
    "moment order lam 1e-17": (lambda: log_moment_sampled_gaussian(0.01, 1.0, [1e-17]), ValueError,
                               r"lam.*\[0\.001, inf\)"),
    # one-run alpha at or above 1/2: a correct run turned into a violation
    "one-run alpha 0.5": (lambda: audit_one_run(GaussianCanaries(1.0), 1000, alpha=0.5), ValueError,
                          r"alpha must be in \(0(\.0)?, 0\.5\); got 0\.5"),
    "one-run alpha 0.9": (lambda: audit_one_run(GaussianCanaries(1.0), 1000, alpha=0.9), ValueError,
                          r"alpha must be in \(0(\.0)?, 0\.5\)"),
    "one-run alpha 0.99": (lambda: audit_one_run(GaussianCanaries(1.0), 1000, alpha=0.99), ValueError,
                           r"alpha must be in \(0(\.0)?, 0\.5\)"),
    # one-run seeds were not validated
    "one-run seed -1": (lambda: audit_one_run(GaussianCanaries(1.0), 100, seed=-1), ValueError, r"seed must be"),
    "one-run seed 1.5": (lambda: audit_one_run(GaussianCanaries(1.0), 100, seed=1.5), ValueError, r"seed must be"),
    "one-run seed 2**64": (lambda: audit_one_run(GaussianCanaries(1.0), 100, seed=2**64), ValueError,
                           r"seed must be an integer in \[0, "),
    "one-run seed True": (lambda: audit_one_run(GaussianCanaries(1.0), 100, seed=True), TypeError, r"seed"),
    # accountant= given a name: AttributeError 'str' object has no attribute 'epsilon'
    "audit accountant='garbage'": (lambda: small_audit(epsilon=1.0, samples=1_000, accountant="garbage"), ValueError,
                                   r"accountant.*'pld'.*'rdp'.*got 'garbage'"),
    # a privacy profile returning NaN, a negative delta or a delta above 1 was accepted
    "profile NaN": (lambda: bad_profile(float("nan")).epsilon(1e-5), ValueError,
                    r"privacy profile 'constant nan' returned delta = nan at epsilon = "),
    "profile negative": (lambda: bad_profile(-0.1).delta(1.0), ValueError,
                         r"privacy profile 'constant -0.1' returned delta = -0.1 at epsilon = 1.0"),
    "profile above 1": (lambda: bad_profile(2.0).epsilon(1e-5), ValueError,
                        r"privacy profile 'constant 2.0' returned delta = 2.0 at epsilon = .*\[0, 1\]"),
    "profile NaN as a claim": (lambda: small_audit(claim=bad_profile(float("nan")), delta=1e-5), ValueError,
                               r"privacy profile 'constant nan' returned delta = nan"),
    "profile negative as a claim": (lambda: small_audit(claim=bad_profile(-0.1), delta=1e-5), ValueError,
                                    r"privacy profile 'constant -0.1' returned delta = -0.1"),
    "profile above 1 as a claim": (lambda: small_audit(claim=bad_profile(2.0), delta=1e-5), ValueError,
                                   r"privacy profile 'constant 2.0' returned delta = 2.0"),
    "profile inverse NaN": (
        lambda: PrivacyProfile(lambda e: 0.0, "inverse nan", epsilon_of_delta=lambda d: float("nan")).epsilon(1e-5),
        ValueError, r"privacy profile 'inverse nan' returned epsilon = nan at delta = 1e-05"),
}


@pytest.mark.parametrize("case", list(CLEAN_ERRORS))
def test_bad_arguments_are_clean_errors_naming_the_argument_and_its_range(case):
    call, exc, pattern = CLEAN_ERRORS[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow/divide warning on the way to the error
        with pytest.raises(exc, match=pattern):
            call()


# --------------------------------------------------------------------------------------------------- huge parameters

HUGE = 1e308
HUGE_PARAMETERS = {
    # (call, expected value or (exception, pattern)); each runs with warnings as errors
    # epsilon(delta) ~ mu^2 / 2 overflows: inf, as an overflowing double (its delta and curve, and a finite epsilon
    # just below the overflow, stay right)
    "GaussianDP(1e308).epsilon": (
        lambda: [GaussianDP(HUGE).epsilon(1e-5), GaussianDP(HUGE).delta(1.0),
                 GaussianDP(HUGE)(np.array([0.0, 0.5, 1.0])).tolist(), GaussianDP(1e150).epsilon(1e-5) / 5e299],
        [math.inf, 1.0, [1.0, 0.0, 0.0], pytest.approx(1.0, rel=1e-9)]),
    "GaussianDP(1e308) profile": (lambda: GaussianDP(HUGE).to_profile().epsilon(1e-5), math.inf),
    "gaussian_delta(eps=1e308)": (lambda: gaussian_delta(HUGE, 1.0), 0.0),
    "analytic sigma eps=1e308": (lambda: 0.0 < analytic_gaussian_sigma(1.0, HUGE, 1e-5) < 1e-150, True),
    "LaplaceDP(1e308) curve": (lambda: LaplaceDP(HUGE)(np.array([0.0, 0.3, 1.0])).tolist(), [1.0, 0.0, 0.0]),
    "approx_dp_curve(1e308)": (lambda: approx_dp_curve(HUGE, 1e-5)(0.3), 0.0),
    "PureDP(1e308) as a curve": (lambda: as_tradeoff_curve(PureDP(HUGE))(0.3), 0.0),
    "rdp_to_delta eps=1e308": (lambda: rdp_to_delta([2.0, 8.0], [1.0, 2.0], HUGE).delta, 0.0),
    "advanced composition eps=1e308": (lambda: advanced_composition(HUGE, 1e-5, 10, 1e-5),
                                       (ValueError, r"epsilon .*exceeds the largest float")),
    "basic composition of 2 x 1e308": (lambda: basic_composition([ApproxDP(HUGE, 0.1)] * 2),
                                       (ValueError, r"epsilon .*exceeds the largest float")),
    "optimal composition eps=1e308": (lambda: optimal_homogeneous_composition(HUGE, 1e-5, 3, 1e-3),
                                      (ValueError, r"epsilon \* k .*exceeds the largest float")),
    "RDP accountant sigma 1e-300": (
        lambda: RdpAccountant().compose_sampled_gaussian(0.01, 1e-300, 1).get_epsilon(1e-5).epsilon, math.inf),
    "RDP accountant sigma 1e308": (
        lambda: RdpAccountant().compose_sampled_gaussian(0.01, HUGE, 1).get_epsilon(1e-5).epsilon, 0.0),
    "moments tail bound eps=1e308": (lambda: delta_from_log_moments([2.0], [1.0], HUGE).delta, 0.0),
    "gaussian_pld(1e308)": (lambda: gaussian_pld(HUGE), (ValueError, r"mu = 1e\+308 is too large .*interval")),
    "subsampled_gaussian_pld(1e308)": (lambda: subsampled_gaussian_pld(0.01, HUGE),
                                       (ValueError, r"mu = 1e\+308 is too large")),
    "gaussian_pld(1e50)": (lambda: gaussian_pld(1e50), (ValueError, r"mu = 1e\+50 is too large")),
    "pure_dp_pld(1e308)": (lambda: pure_dp_pld(HUGE), (ValueError, r"epsilon = 1e\+308 is too large .*epsilon <=")),
    "GaussianMechanism sigma 1e-320": (lambda: GaussianMechanism(1.0, 1e-320),
                                       (ValueError, r"sigma must be at least .*got sigma = 1e-320")),
    "Laplace scale of epsilon 1e-300": (lambda: laplace_scale(HUGE, 1e-300),
                                        (ValueError, r"epsilon must be at least .*got epsilon = 1e-300")),
    "classic sigma, sensitivity 1e308": (lambda: classic_gaussian_sigma(HUGE, 0.5, 1e-300),
                                         (ValueError, r"sensitivity must be at most .*got 1e\+308")),
}


@pytest.mark.parametrize("case", list(HUGE_PARAMETERS))
def test_huge_parameters_work_or_fail_cleanly(case):
    call, expected = HUGE_PARAMETERS[case]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if isinstance(expected, tuple):
            with pytest.raises(expected[0], match=expected[1]):
                call()
        else:
            assert call() == expected


# --------------------------------------------------------------------------------------------------- verdicts


def _exact_below_certificate():
    # the pair's true epsilon is 1; 20,000 samples certify about 0.93 > the stated exact 0.1 (claim 5 not exceeded)
    return small_audit(epsilon=5.0, exact_epsilon=0.1)


def _claim_zero():
    return small_audit(claim=ApproxDP(0.0, 0.0))


def _claim_zero_identical_pair():
    return small_audit(d1=D0, claim=ApproxDP(0.0, 0.0))


def _claim_infinite():
    return small_audit(claim=Claim(math.inf, 1e-5, theorem="hypotheses fail"))


def _trivial_curve_test():
    # the output ignores the data: every threshold test is trivial (the selected one has FPR bound 1)
    return small_audit(ignores_data, claim=GaussianDP(1.0), delta=1e-5)


def _curve_claim_without_delta():
    return small_audit(gaussian_sum, claim=GaussianDP(1.0))


def _broken_curve_claim_without_delta():
    return small_audit(gaussian_sum_broken, claim=GaussianDP(1.0))


VERDICTS = {
    # (audit, verdict, texts the reason contains, texts it must not contain)
    "certificate above the stated exact epsilon": (
        _exact_below_certificate, "violation", ["exceeds the pair's stated exact epsilon 0.1",
                                                "not the mechanism that exact value describes"], ["no audit"]),
    "claim of epsilon 0, distinct pair": (_claim_zero, "violation", ["> claimed 0"], []),
    "claim of epsilon 0, identical pair": (_claim_zero_identical_pair, "inconclusive", ["certified 0"], []),
    "claim of epsilon inf": (_claim_infinite, "inconclusive", ["vacuous", "epsilon = inf"], []),
    "trivial curve test": (_trivial_curve_test, "inconclusive", ["curve test was trivial"], ["had power"]),
    "curve claim without delta": (_curve_claim_without_delta, "consistent",
                                  ["no delta was given", "delta = 1/samples = 5e-05"], []),
    "broken curve claim without delta": (_broken_curve_claim_without_delta, "violation", [], []),
}


@pytest.mark.parametrize("case", list(VERDICTS))
def test_verdicts_and_reasons(case):
    run, verdict, says, never = VERDICTS[case]
    r = run()
    assert r.verdict == verdict, r.verdict_reason
    for text in says:
        assert text in r.verdict_reason
    for text in never:
        assert text not in r.verdict_reason


def test_a_curve_claim_without_delta_is_tested_as_a_curve():
    r = _curve_claim_without_delta()
    assert r.curve is not None and r.curve.claim_description == "1-GDP"
    assert r.delta == pytest.approx(1 / 20_000)
    assert r.epsilon_claimed == pytest.approx(GaussianDP(1.0).epsilon(1 / 20_000))


# --------------------------------------------------------------------------------------------------- the result


@pytest.mark.parametrize("show", [repr, str])
def test_the_result_prints_briefly_and_to_dict_stays_complete(show):
    r = small_audit(gaussian_sum, claim=GaussianDP(1.0), delta=1e-5)
    points = len(r.tradeoff["alpha"])
    text = show(r)
    assert len(text) < 1500, text
    assert f"tradeoff=<{points} points>" in text
    assert "verdict='consistent'" in text and "epsilon_lower=" in text
    out = r.to_dict()
    assert len(out["tradeoff"]["alpha"]) == len(out["tradeoff"]["beta"]) == points > 100
