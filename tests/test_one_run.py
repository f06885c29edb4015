"""audit_one_run (dpverify.audit.one_run) on experiments with known truth, and the DP-SGLD canary runs.

Validity: with probability >= 1 - alpha a certificate is at most the run's true epsilon, so over n seeded audits of
correct runs the number of exceedances is at most Binomial(n, alpha); each test allows the count whose upper tail
has probability < 0.5% (so a correct implementation fails it less than once in 200 runs of the suite), and a bound
that ignored its alpha, chose its guesses on the scores or tested the wrong curve would exceed it.
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

from dpverify.audit.one_run import (
    GaussianCanaries,
    GuessPlan,
    audit_one_run,
    count_guesses,
    expected_counts,
    one_run_verdict,
    plan_guesses,
)
from dpverify.audit.one_run_bounds import one_run_epsilon
from dpverify.calculus.guarantees import Conversion
from dpverify.calculus.tradeoff import GaussianDP
from dpverify.models.dirac_canaries import NULL, REAL, DiracCanaryModel, canary_dataset
from dpverify.models.logistic import LogisticRegression
from dpverify.models.packaged_data import breast_cancer, digits, train_test_split
from dpverify.samplers.one_run_canaries import DPSGLDCanaryRun, InputCanaryRun, calibrated_step_size

ALPHA = 0.05


def allowed_exceedances(n: int, alpha: float = ALPHA) -> int:
    """The smallest k with P[Binomial(n, alpha) > k] < 0.005."""
    return int(binom.ppf(0.995, n, alpha))


@pytest.fixture(scope="module")
def rows():
    data = breast_cancer(1.0)
    train, _ = train_test_split(len(data), 0.2, 0)
    return data[train]


# -- stages ----------------------------------------------------------------------------------------------------------


def test_count_guesses_counts_right_guesses_both_ways():
    scores = np.array([5.0, 4.0, 3.0, 2.0, 1.0, 0.0])
    included = np.array([True, False, True, False, False, True])
    rng = np.random.default_rng(0)
    # top 2 guessed in: canaries 0 (in, right) and 1 (out, wrong); bottom 2 guessed out: 4 (out, right), 5 (in, wrong)
    assert count_guesses(scores, included, GuessPlan(2, 2), rng) == (4, 2)
    assert count_guesses(scores, included, GuessPlan(1, 0), rng) == (1, 1)
    assert count_guesses(scores, included, GuessPlan(0, 3), rng) == (3, 2)


def test_expected_counts_match_simulation():
    """The planner's expected right guesses against 400 simulated experiments (sd of the mean ~ sqrt(v)/20)."""
    m, mu, plan = 4000, 1.0, GuessPlan(200, 100)
    rng = np.random.default_rng(7)
    sims = []
    for _ in range(400):
        included = rng.random(m) < 0.5
        sims.append(count_guesses(mu * included + rng.standard_normal(m), included, plan, rng)[1])
    r, v = expected_counts(m, mu, plan)
    assert r == 300
    assert abs(np.mean(sims) - v) < 1.0 + 4 * np.std(sims) / 20  # v is rounded down


def test_plan_is_fixed_before_the_scores():
    """Planned guesses depend on (m, mu, alpha, delta, method) only: the same plan whatever the seed."""
    plans = {(r.k_plus, r.k_minus) for r in (audit_one_run(GaussianCanaries(1.0), 500, seed=s) for s in range(3))}
    assert len(plans) == 1
    plan, expected = plan_guesses(500, 1.0, alpha=ALPHA, delta=1e-5, method="fdp", curve="gaussian")
    assert plans == {(plan.k_plus, plan.k_minus)} and expected > 0


def test_grid_without_a_curve_is_bonferroni_corrected():
    class Unknown(GaussianCanaries):
        def canary_curve(self):
            return None

        def account(self, delta):
            return Conversion(math.inf, delta, None, "no accountant")

    res = audit_one_run(Unknown(1.0), 1000, method="steinke", seed=2)
    assert "Bonferroni" in res.guess_rule and len(res.candidates) == 6
    for kp, km, r, v, eps in res.candidates:
        assert eps == pytest.approx(one_run_epsilon(1000, r, v, alpha=ALPHA / 6, delta=1e-5), abs=1e-9)
    assert res.epsilon_lower == max(c[4] for c in res.candidates)


def test_verdicts():
    assert one_run_verdict(2.1, 2.0, 1.5)[0] == "violation"
    assert one_run_verdict(1.2, 2.0, 1.5)[0] == "consistent"
    assert one_run_verdict(0.5, 2.0, 0.8)[0] == "inconclusive"  # expected 0.8 < 2 / 2
    assert one_run_verdict(0.0, 2.0, 1.5)[0] == "inconclusive"


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(guesses=(600, 600)), ValueError, "guesses"),
    (dict(method="bayes"), ValueError, "method"),
    (dict(alpha=0.0), ValueError, "alpha"),
])
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        audit_one_run(GaussianCanaries(1.0), 1000, **kwargs)


def test_experiment_must_follow_the_protocol():
    with pytest.raises(TypeError, match="OneRunExperiment"):
        audit_one_run(lambda included, rng: included, 100)


# -- validity and power on the idealised experiment --------------------------------------------------------------------


@pytest.mark.parametrize("method", ["fdp", "steinke"])
def test_idealised_certificates_rarely_exceed_the_truth(method):
    """200 seeded one-run audits of 1.5-GDP canaries (m = 500, fixed guesses): exceedances of the exact epsilon
    within Binomial(200, 0.05)."""
    mu, m, n = 1.5, 500, 200
    truth = GaussianDP(mu).epsilon(1e-5)
    exceed = sum(audit_one_run(GaussianCanaries(mu), m, method=method, guesses=(25, 25), seed=s).epsilon_lower > truth
                 for s in range(n))
    assert exceed <= allowed_exceedances(n)


def test_idealised_halved_noise_is_a_violation():
    res = audit_one_run(GaussianCanaries(0.5, noise_factor=0.5), 1000, seed=0)
    assert res.verdict == "violation" and res.epsilon_lower > res.epsilon_accountant


# -- DP-SGLD with canaries ---------------------------------------------------------------------------------------------


def test_dirac_model_gradients_match_dense_per_record_gradients():
    base = LogisticRegression(3, R=1.0)
    model = DiracCanaryModel(base, 4, G=2.0)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 3))
    x /= 2 * np.linalg.norm(x, axis=1, keepdims=True)
    data = canary_dataset(np.column_stack([x, np.where(rng.random(5) < 0.5, 1.0, -1.0)]),
                          np.array([True, False, True, True]))
    assert data.shape == (9, 5) and list(data[5:, -1]) == [0, NULL, 2, 3] and np.all(data[:5, -1] == REAL)
    model.validate_dataset(data)
    prepared = model.prepare(data)
    theta = rng.standard_normal((2, model.dim))
    idx = np.array([[0, 3, 5, 6, 7, 8], [1, 2, 4, 5, 7, 8]])
    weights = np.array([[1, 1, 1, 1, 0, 1], [1, 0, 1, 1, 1, 1]], dtype=float)
    dense = model.grad_log_likelihood(data, theta)  # (2, 9, dim)
    per = np.take_along_axis(dense, idx[:, :, None], axis=1)
    for clip in (None, 0.3):
        g = per if clip is None else per / np.maximum(1.0, np.linalg.norm(per, axis=-1, keepdims=True) / clip)
        expected = (g * weights[..., None]).sum(axis=1)
        got = model.minibatch_gradient(prepared, idx, theta, clip=clip, weights=weights)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.per_record_gradients(prepared, idx, theta), per, rtol=1e-12, atol=1e-14)


def test_dirac_model_rejects_bad_rows():
    model = DiracCanaryModel(LogisticRegression(2), 3)
    with pytest.raises(ValueError, match="slot"):
        model.validate_dataset(np.array([[0.1, 0.1, 1.0, 7.0]]))
    with pytest.raises(ValueError, match="at most once"):
        model.validate_dataset(np.array([[0.0, 0.0, 0.0, 1.0], [0.0, 0.0, 0.0, 1.0]]))


def test_release_privacy_of_a_canary_coordinate_is_the_hand_computed_gaussian(rows):
    """Full batches: mean gap ``(eta L / N) sum_t rho^(T-t)`` over std ``sqrt(eta/N) (sum_t rho^(2(T-t)))^(1/2)`` with
    ``rho = 1 - eta / (N s^2)`` (the prior on the canary coordinate); the path's accountant without the contraction
    is ``L sqrt(T eta / N)``."""
    m, T = 200, 150
    N = len(rows) + m
    eta = calibrated_step_size(0.7, N, T, 1.0)
    exp = DPSGLDCanaryRun(rows, m, steps=T, step_size=eta)
    rho = 1 - eta / N
    powers = rho ** np.arange(T)
    mu = (eta / N) * powers.sum() / (math.sqrt(eta / N) * math.sqrt((powers ** 2).sum()))
    assert exp.canary_curve().mu == pytest.approx(mu, rel=1e-9)
    assert exp.release_account(1e-5).epsilon == pytest.approx(GaussianDP(mu).epsilon(1e-5), rel=1e-3)
    assert exp.account(1e-5).epsilon == pytest.approx(GaussianDP(0.7).epsilon(1e-5), rel=1e-3)


def test_dirac_scores_separate_by_the_release_mu_and_input_canaries_interfere(rows):
    """Dirac canaries: the score separation estimates the release's mu (sd of the estimate ~ sqrt(4/m) = 0.045);
    input-space canaries sharing the 30 weights: far below it (interference)."""
    m, T = 2000, 200
    N = len(rows) + m
    eta = calibrated_step_size(0.8, N, T, 1.0)
    dirac = audit_one_run(DPSGLDCanaryRun(rows, m, steps=T, step_size=eta), m, seed=1)
    mu = DPSGLDCanaryRun(rows, m, steps=T, step_size=eta).canary_curve().mu
    assert abs(dirac.score_separation - mu) < 4 * math.sqrt(4 / m)
    assert dirac.verdict == "consistent" and 0 < dirac.epsilon_lower <= dirac.epsilon_release
    inputs = audit_one_run(InputCanaryRun(rows, m, steps=T, step_size=eta), m, seed=1)
    assert inputs.score_separation < mu / 2
    assert inputs.epsilon_lower < dirac.epsilon_lower


def test_half_noise_dp_sgld_is_flagged_in_one_run(rows):
    m, T = 2000, 200
    N = len(rows) + m
    eta = calibrated_step_size(0.5, N, T, 1.0)
    broken = audit_one_run(DPSGLDCanaryRun(rows, m, steps=T, step_size=eta, defect="half_noise"), m, seed=0)
    assert broken.verdict == "violation", broken.verdict_reason
    correct = audit_one_run(DPSGLDCanaryRun(rows, m, steps=T, step_size=eta), m, seed=0)
    assert correct.verdict == "consistent"


def _dp_sgld_exceedances(rows, n_seeds: int) -> int:
    m, T = 300, 100
    N = len(rows) + m
    exp = DPSGLDCanaryRun(rows, m, steps=T, step_size=calibrated_step_size(1.2, N, T, 1.0))
    exact = exp.release_account(1e-5).epsilon
    return sum(audit_one_run(exp, m, guesses=(20, 20), seed=s).epsilon_lower > exact for s in range(n_seeds))


def test_dp_sgld_one_run_validity_fast(rows):
    assert _dp_sgld_exceedances(rows, 25) <= allowed_exceedances(25)


@pytest.mark.slow
def test_dp_sgld_one_run_validity_100_seeds(rows):
    """>= 100 seeded one-run audits of a correct DP-SGLD: exceedances of the exact release epsilon within
    Binomial(100, 0.05)."""
    assert _dp_sgld_exceedances(rows, 120) <= allowed_exceedances(120)


def test_experiment_checks_the_number_of_canaries(rows):
    exp = DPSGLDCanaryRun(rows, 50, steps=5, step_size=0.1)
    with pytest.raises(ValueError, match="m = 50"):
        exp.run(np.ones(40, dtype=bool), np.random.default_rng(0))


# -- packaged data -----------------------------------------------------------------------------------------------------


def test_breast_cancer_rows_are_standardised_and_bounded():
    data = breast_cancer(2.0)
    assert data.shape == (569, 31)
    assert np.max(np.linalg.norm(data[:, :-1], axis=1)) == pytest.approx(2.0)
    assert set(np.unique(data[:, -1])) == {-1.0, 1.0} and int((data[:, -1] == 1).sum()) == 212
    np.testing.assert_allclose(data[:, :-1].mean(axis=0), 0.0, atol=1e-12)
    LogisticRegression(30, R=2.0).validate_dataset(data)


def test_digits_and_split():
    images, labels = digits()
    assert images.shape == (1797, 1, 8, 8) and images.max() <= 1.0 and set(np.unique(labels)) == set(range(10))
    train, test = train_test_split(100, 0.2, 3)
    assert len(test) == 20 and len(np.intersect1d(train, test)) == 0 and len(train) + len(test) == 100
