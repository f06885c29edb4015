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
