"""The boosting classifier and a user's backend-generic statistic on the torch backend (issue 26): the fitted trees
walked on the device give scikit-learn's log-odds bit for bit, and a torch audit with ``test="boosting"`` or a custom
``@backend_generic`` statistic counts its events without copying a chunk to the host.

Marker ``torch`` (excluded from the default run: ``python -m pytest -m torch``); ``DPVERIFY_TORCH_TEST_DEVICE=cuda``
runs the same checks on a GPU. The numpy side of the walk is tests/test_tree_ensemble.py.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from dpverify.audit import tree_ensemble
from dpverify.audit.chunk_work import DeviceChunk
from dpverify.audit.classifier import learned_log_odds
from dpverify.audit.standard_suite import get
from dpverify.backends import backend_generic

pytestmark = pytest.mark.torch


def shifted_pair(d: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(n, d)) + np.r_[0.5, np.zeros(d - 1)]


@pytest.mark.parametrize("block", [tree_ensemble.BLOCK_ELEMENTS, 4096])
def test_device_walk_equals_scikit_learn_bit_for_bit(torch_device, monkeypatch, block):
    """A boosting model of unbalanced labels (a baseline of about -0.03; the auditor's balanced training sets give a
    baseline of 0) evaluated on the device for 20,000 outputs (five with a NaN coordinate), in one block and in blocks
    of 4096 (row, tree) pairs: every value equals scikit-learn's ``decision_function`` of the same outputs on the host.
    Fails for any wrong step of the device walk (a child, a comparison, a level, the baseline, the order of the
    sum)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 5))
    model = HistGradientBoostingClassifier(random_state=0).fit(X, X[:, 0] + rng.normal(size=4000) > 0)
    trees = tree_ensemble.TreeEnsemble.from_sklearn(model)
    assert trees.baseline != 0.0 and trees.depth >= 10
    x = np.random.default_rng(1).normal(size=(20_000, 5))
    x[:5, 2] = np.nan
    monkeypatch.setattr(tree_ensemble, "BLOCK_ELEMENTS", block)
    on_device = trees.log_odds(torch_device.asarray(x))
    assert on_device.device.type == torch_device.torch_device.type
    assert np.array_equal(torch_device.to_numpy(on_device), model.decision_function(x))


def test_device_chunk_evaluates_the_boosting_statistic_on_the_device(torch_device, forbid_host_copy):
    """``learned_log_odds(model="boosting")`` through :class:`DeviceChunk` (the auditor's chunk) with the host fallback
    made to raise: the values are scikit-learn's on the host for a chunk of paths ``(n, 4, 3)``, bit for bit."""
    x0, x1 = shifted_pair(12, 2000, seed=2)
    statistic = learned_log_odds(x0.reshape(-1, 4, 3), x1.reshape(-1, 4, 3), model="boosting", seed=0)
    paths = np.random.default_rng(3).normal(size=(5000, 4, 3))
    on_host = statistic(paths)
    forbid_host_copy()
    chunk = DeviceChunk(torch_device.asarray(paths))
    assert chunk.on_device(statistic)
    assert np.array_equal(torch_device.to_numpy(chunk.apply(statistic)), on_host)


def test_torch_audit_with_boosting_stays_on_the_device_and_has_power(audit_numpy_then_torch):
    """``audit(test="boosting")`` of PrefixSum (ten real-valued prefix sums, exact epsilon 1) at 10^5 runs per side,
    on numpy and on torch with the host fallback forbidden: both certify at most the exact epsilon, and against a
    claim of 0.1 both find the violation (each certified 0.24-0.28 at this size, seed 3: measured 2026-11-26). Fails if
    the boosting statistic loses its device path, or if its device values are wrong (a broken walk scores outputs at
    random: certified 0)."""
    case = get("prefix_sum")
    on_numpy, on_torch = audit_numpy_then_torch(case, 100_000, test="boosting", epsilon=0.1)
    assert on_torch.backend == "torch"
    for result in (on_numpy, on_torch):
        assert 0.1 < result.epsilon_lower <= case.epsilon_exact
        assert result.verdict == "violation"


def test_a_custom_backend_generic_statistic_is_evaluated_on_the_device(audit_numpy_then_torch):
    """A user's statistic marked ``@backend_generic`` (``dpverify.backends``), here the last prefix sum minus the
    first (written with array methods numpy and torch share), is evaluated where the outputs are: the torch audit copies
    no chunk to the host and, like numpy, certifies more than a claim of 0.1 (the statistic is about
    ``q_10 - q_1`` plus Laplace noise, a shift of 1 in one of the two noises' sum)."""
    @backend_generic
    def spread(x):
        return x[:, -1] - x[:, 0]

    case = get("prefix_sum")
    on_numpy, on_torch = audit_numpy_then_torch(case, 100_000, test=spread, epsilon=0.1)
    for result in (on_numpy, on_torch):
        assert 0.1 < result.epsilon_lower <= case.epsilon_exact
