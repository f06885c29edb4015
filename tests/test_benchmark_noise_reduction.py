"""The noise-reduction benchmark's sampler (benchmarks/noise_reduction.py): factor 1 is the declared dp_sgld_path
sampler and factor 0.5 the known-bad half_noise one, output for output; the description is the declared run's."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from dpverify.interfaces.suite import get_case


@pytest.fixture(scope="module")
def bench():
    path = Path(__file__).resolve().parents[1] / "benchmarks" / "noise_reduction.py"
    spec = importlib.util.spec_from_file_location("benchmark_noise_reduction", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _draw(sampler, n: int = 64, seed: int = 3) -> np.ndarray:
    dataset = get_case("dp_sgld_path").dataset()
    return np.asarray(sampler(dataset, n, np.random.default_rng(seed)))


@pytest.mark.parametrize(("factor", "case"), [(1.0, "dp_sgld_path"), (0.5, "dp_sgld_broken_half_noise")])
def test_factor_sampler_matches_the_suite(bench, factor, case):
    ours, theirs = bench.make_sampler(factor), get_case(case).build()
    assert np.array_equal(_draw(ours), _draw(theirs))
    # the claim, accountant and white-box statistic come from the description: the declared run's
    assert ours.mechanism().to_dict() == get_case("dp_sgld_path").build().mechanism().to_dict()


def test_factor_changes_the_noise_only(bench):
    full, reduced = _draw(bench.make_sampler(1.0)), _draw(bench.make_sampler(0.9))
    assert full.shape == reduced.shape and not np.array_equal(full, reduced)
    with pytest.raises(ValueError):
        bench.make_sampler(0.0)
