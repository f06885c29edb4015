"""Sampler registry and the ``dpverify samplers list`` command for the samplers of team A."""
from __future__ import annotations

import json

import numpy as np
import pytest

from dpverify.interfaces.cli import main
from dpverify.samplers import registry
from dpverify.samplers.base import OUTPUT_KINDS, Sampler

TEAM_A = {
    "laplace_mechanism": "baselines",
    "gaussian_mechanism": "baselines",
    "analytic_gaussian_mechanism": "baselines",
    "exponential_mechanism": "baselines",
    "ops_beta_bernoulli": "ops",
    "ops_dirichlet_categorical": "ops",
    "ops_gaussian_mean": "ops",
    "laplace_posterior_beta_bernoulli": "foulds",
    "private_gibbs": "foulds",
    "noisy_mc_estimator": "mc_estimator",
}

#: a valid dataset per sampler (defaults of each constructor)
DATASETS = {
    "laplace_mechanism": np.array([0, 1, 1, 0]),
    "gaussian_mechanism": np.array([0, 1, 1, 0]),
    "analytic_gaussian_mechanism": np.array([0, 1, 1, 0]),
    "exponential_mechanism": np.array([0, 2, 2, 1]),
    "ops_beta_bernoulli": np.array([0, 1, 1, 0]),
    "ops_dirichlet_categorical": np.array([0, 2, 2, 1]),
    "ops_gaussian_mean": np.array([0.2, -0.5, 0.9]),
    "laplace_posterior_beta_bernoulli": np.array([0, 1, 1, 0]),
    "private_gibbs": np.array([[0, 1, 1, 0, 1], [1, 1, 1, 1, 0], [0, 0, 0, 1, 0]]),
    "noisy_mc_estimator": np.r_[np.ones(30, int), np.zeros(70, int)],
}


@pytest.mark.parametrize("sampler_id, module", sorted(TEAM_A.items()))
def test_registered_with_metadata(sampler_id, module):
    cls = registry.get(sampler_id)
    assert issubclass(cls, Sampler)
    assert cls.__module__ == f"dpverify.samplers.{module}"
    assert cls.output in OUTPUT_KINDS and cls.description
    assert isinstance(cls.theorems, tuple)


@pytest.mark.parametrize("sampler_id", sorted(TEAM_A))
def test_default_sampler_draws_n_outputs(sampler_id):
    s = registry.make(sampler_id)
    out = s(DATASETS[sampler_id], 7, np.random.default_rng(0))
    assert out.shape[0] == 7 and np.all(np.isfinite(out))
    # the same seed gives the same outputs (randomness only from rng)
    np.testing.assert_array_equal(out, s.sample(DATASETS[sampler_id], 7, np.random.default_rng(0)))


def test_theorem_ids_are_catalogue_ids():
    """Every theorem a sampler names is an item of the catalogue's own list (dpverify.theorems.catalogue)."""
    from dpverify.theorems import catalogue

    known = set(catalogue.ids())
    for sampler_id in TEAM_A:
        for tid in registry.get(sampler_id).theorems:
            assert tid in known, tid


def test_cli_list_json(capsys):
    assert main(["samplers", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    by_id = {r["id"]: r for r in rows}
    for sampler_id, module in TEAM_A.items():
        row = by_id[sampler_id]
        assert set(row) >= {"id", "theorems", "output", "description", "module"}
        assert row["module"] == f"dpverify.samplers.{module}"


def test_cli_list_table(capsys):
    assert main(["samplers", "list"]) == 0
    out = capsys.readouterr().out
    for sampler_id in TEAM_A:
        assert sampler_id in out
    assert out.strip().endswith("samplers")


def test_unknown_sampler_suggests_close_ids():
    with pytest.raises(KeyError, match="ops_beta_bernoulli"):
        registry.get("ops_beta_bernouli")


def test_the_analytic_gaussian_mechanism_rests_on_balle_wangs_theorem_8():
    """Issue 36: the sampler linked no theorem (and its claim named an ID the catalogue does not have) although the
    Balle-Wang item exists. Its claim is Theorem 8 evaluated at the calibrated sigma; a sigma below the calibration
    (a broken calibration) makes Theorem 8's exact delta exceed the claim's, and the claim is then unguaranteed."""
    from dpverify.theorems import registry as theorems

    sampler = registry.make("analytic_gaussian_mechanism", epsilon=1.0, delta=1e-5)
    assert sampler.theorems == ("balle2018.thm8_analytic_gaussian",)
    claim = sampler.guarantee()
    assert claim.theorem in theorems.ids() and claim.guaranteed
    assert claim.details["delta_exact"] == pytest.approx(1e-5, rel=1e-9)
    sampler._sigma_unit *= 0.99
    sampler._evaluation = theorems.get(claim.theorem).evaluate(sensitivity=1.0, sigma=sampler._sigma_unit, epsilon=1.0)
    assert not sampler.guarantee().guaranteed
