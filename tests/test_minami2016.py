"""The minami2016 catalogue items (dpverify.theorems.minami2016): every check passes, the hypotheses bite, the
numbers the module docstring states, and mutated conclusions are caught by the checks (a dropped factor, a halved
epsilon)."""
from __future__ import annotations

import math

import pytest

from dpverify.calculus.mechanisms.gaussian import gaussian_epsilon
from dpverify.theorems import registry
from dpverify.theorems.base import HypothesisError
from dpverify.theorems.minami2016 import gibbs

THM_ID = "minami2016.thm_gibbs_posterior_dp"
LEMMA_ID = "minami2016.lem_gibbs_privacy_loss_concentration"


@pytest.mark.parametrize("item", [THM_ID, LEMMA_ID])
def test_every_check_passes(item):
    thm = registry.get(item)
    results = thm.run_checks()
    assert {r.kind for r in results} == {"symbolic", "numeric"}
    failed = [(r.name, r.detail) for r in results if not r.passed]
    assert not failed, failed
    assert thm.source.reconstructed and thm.empirical and thm.empirical[0].sampler == "gibbs_posterior"


def test_theorem_hypotheses():
    thm = registry.get(THM_ID)
    ev = thm.evaluate(epsilon=1.0, delta=1e-5, L=1.0, m=1.0, beta=0.1)
    # beta_max = 1/2 sqrt(1 / (1 + 2 log 1e5)), typed again
    assert ev.beta_max == pytest.approx(0.5 / math.sqrt(1 + 2 * math.log(1e5)), rel=1e-12)
    assert ev.guarantee.epsilon == 1.0 and ev.guarantee.delta == 1e-5
    with pytest.raises(HypothesisError, match="inverse_temperature_small"):
        thm.evaluate(epsilon=1.0, delta=1e-5, L=1.0, m=1.0, beta=0.2)
    with pytest.raises(HypothesisError, match="epsilon_at_most_one"):
        thm.evaluate(epsilon=2.0, delta=1e-5, L=1.0, m=1.0, beta=0.01)
    with pytest.raises(HypothesisError, match="delta_positive"):
        thm.evaluate(epsilon=0.5, delta=0.0, L=1.0, m=1.0, beta=0.01, )
    with pytest.raises(ValueError, match="L must be > 0"):
        thm.evaluate(epsilon=0.5, delta=1e-5, L=-1.0, m=1.0, beta=0.01)


def test_lemma_never_below_the_exact_gaussian_epsilon_and_its_looseness():
    """The numbers of the module docstring: exact / bound 0.57 (small a) to 0.96 (a = 20) at delta = 1e-5."""
    lemma = registry.get(LEMMA_ID)
    ratios = []
    for a in (0.01, 0.1, 1.0, 5.0, 20.0):
        bound = lemma.evaluate(beta=a / 2, L=1.0, m=1.0, delta=1e-5).epsilon
        ratios.append(gaussian_epsilon(1e-5, a) / bound)
    assert all(r <= 1 for r in ratios)
    assert ratios == sorted(ratios)
    assert 0.55 <= ratios[0] <= 0.6 and 0.95 <= ratios[-1] <= 0.97


def test_theorem_condition_breaks_beyond_epsilon_one():
    """Without epsilon <= 1 the encoded condition is false on the exact Gaussian instance: at delta = 1e-5 the
    exact epsilon at beta_max exceeds the target from epsilon ~ 9.0 on (the docstring's number)."""
    d = 1e-5
    s = math.sqrt(1 + 2 * math.log(1 / d))
    assert gaussian_epsilon(d, 8.9 / s) < 8.9
    assert gaussian_epsilon(d, 9.1 / s) > 9.1


def test_logistic_quadrature_is_accurate_on_a_gaussian_pair():
    """The quadrature used by the logistic checks, on a pair where the answer is known: N(0, 1) vs N(mu, 1) on the
    same grid gives gaussian_epsilon to 1e-6 relative."""
    import numpy as np

    from dpverify.theorems.minami2016.quadrature import grid_epsilon, uniform_grid

    grid = uniform_grid(0.0, 30.0, 60001)
    for mu in (0.2, 1.0, 3.0):
        got = grid_epsilon(-0.5 * grid**2, -0.5 * (grid - mu) ** 2, 1e-5)
        assert got == pytest.approx(gaussian_epsilon(1e-5, mu), rel=1e-6)
    assert np.isfinite(got)


def _mutated(thm, key, factor, names=("exact_gaussian_instance_below", "pin_formula")):
    """The named checks' outcomes with the conclusion ``key`` multiplied by ``factor`` (restored afterwards)."""
    original = thm.conclusion[key]
    thm.conclusion[key] = original * factor
    try:
        return {c.name: c.run().passed for c in thm.checks if c.name in names}
    finally:
        thm.conclusion[key] = original


def test_mutation_doubled_beta_max_is_caught():
    """A beta_max twice too large (a dropped factor 2 of the Lipschitz constant 2 beta L) makes the Gaussian
    instance's exact epsilon exceed the target: check exact_gaussian_instance_below fails (and the pin)."""
    outcome = _mutated(gibbs.THM, "beta_max", 2)
    assert not outcome["exact_gaussian_instance_below"] and not outcome["pin_formula"]


def test_mutation_halved_lemma_epsilon_is_caught():
    """A lemma epsilon at 0.6 of its value falls below the exact epsilon of the Gaussian and logistic instances."""
    outcome = _mutated(gibbs.LEMMA, "epsilon", 0.6)
    assert not outcome["exact_gaussian_instance_below"] and not outcome["pin_formula"]
