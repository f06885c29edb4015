"""The boosting model's trees as flat arrays (:mod:`dpverify.audit.tree_ensemble`) on the numpy backend: the walk of
every (output, tree) pair gives scikit-learn's ``decision_function`` bit for bit. The same checks on torch (and the
torch audit with ``test="boosting"``) are in tests/test_boosting_torch.py."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.ensemble import HistGradientBoostingClassifier

from dpverify.audit import tree_ensemble
from dpverify.audit.classifier import learned_log_odds
from dpverify.audit.tree_ensemble import TreeEnsemble


def fitted(d: int = 5, n: int = 4000, seed: int = 0, **settings) -> HistGradientBoostingClassifier:
    """A boosting model of a location shift in the first of ``d`` normal coordinates (deep, uneven trees: the
    default 31 leaves on noisy labels reach depth 20 or so)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X[:, 0] + rng.normal(size=n) > 0
    return HistGradientBoostingClassifier(random_state=seed, **settings).fit(X, y)


def test_the_walk_gives_scikit_learns_log_odds_bit_for_bit():
    """On 20,000 new outputs (five with a NaN coordinate, sent the way each node sends missing values) and on the
    training outputs, whose values sit exactly on the split thresholds' sides: every value equal. Fails for a wrong
    child offset, a swapped comparison, a missing tree or level, the trees summed in another order or without the
    baseline."""
    model = fitted()
    trees = TreeEnsemble.from_sklearn(model)
    assert trees is not None and trees.roots.size == model.n_iter_ and trees.depth >= 10
    rng = np.random.default_rng(1)
    new = rng.normal(size=(20_000, 5))
    new[:5, 1] = np.nan
    for x in (new, rng.normal(size=(4000, 5)) * 3):
        assert np.array_equal(trees.log_odds(x), model.decision_function(x))


def test_blocks_and_flattened_paths(monkeypatch):
    """Outputs of shape ``(n, 4, 3)`` are flattened to 12 features as the classifier flattens them, and a walk split
    into blocks of 64 pairs (several trees per block row) gives the same values as scikit-learn."""
    model = fitted(d=12)
    trees = TreeEnsemble.from_sklearn(model)
    paths = np.random.default_rng(2).normal(size=(3000, 4, 3))
    monkeypatch.setattr(tree_ensemble, "BLOCK_ELEMENTS", 64)
    assert np.array_equal(trees.log_odds(paths), model.decision_function(paths.reshape(3000, 12)))


def test_a_model_of_single_leaf_trees_is_its_baseline():
    """A model whose trees cannot split (``min_samples_leaf`` above half the data) has roots that are leaves: the
    walk takes no step and gives scikit-learn's values."""
    model = fitted(n=200, min_samples_leaf=150, max_iter=5, early_stopping=False)
    trees = TreeEnsemble.from_sklearn(model)
    assert trees.depth == 0
    x = np.random.default_rng(3).normal(size=(100, 5))
    assert np.array_equal(trees.log_odds(x), model.decision_function(x))


def test_models_it_does_not_evaluate_are_left_to_scikit_learn():
    """Several classes, or categorical splits: ``from_sklearn`` is None (the statistic keeps scikit-learn's own
    ``decision_function`` on the host)."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(600, 3))
    three = HistGradientBoostingClassifier(max_iter=5).fit(X, np.digitize(X[:, 0], [-0.5, 0.5]))
    assert TreeEnsemble.from_sklearn(three) is None
    X[:, 2] = rng.integers(0, 4, size=600)
    categorical = HistGradientBoostingClassifier(max_iter=5, categorical_features=[2]).fit(X, X[:, 2] > 1)
    assert TreeEnsemble.from_sklearn(categorical) is None


def test_outputs_of_another_width_are_refused():
    trees = TreeEnsemble.from_sklearn(fitted())
    with pytest.raises(ValueError, match="6 features.*fitted on 5"):
        trees.log_odds(np.zeros((3, 6)))


def test_the_boosting_statistic_is_marked_backend_generic_and_keeps_scikit_learn_on_numpy():
    """``learned_log_odds(model="boosting")`` is evaluated where the outputs are; on numpy it is scikit-learn's
    ``decision_function`` itself (the reference)."""
    rng = np.random.default_rng(5)
    x0, x1 = rng.normal(size=(2000, 3)), rng.normal(0.5, 1.0, size=(2000, 3))
    statistic = learned_log_odds(x0, x1, model="boosting", seed=0)
    assert statistic.function.backend_generic
    same = HistGradientBoostingClassifier(random_state=0).fit(np.concatenate([x0, x1]),
                                                              np.r_[np.ones(2000), np.zeros(2000)])
    x = rng.normal(size=(500, 3))
    assert np.array_equal(statistic(x), same.decision_function(x))
    assert np.array_equal(TreeEnsemble.from_sklearn(same).log_odds(x), statistic(x))
