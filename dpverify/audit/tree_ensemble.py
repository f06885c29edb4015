"""A fitted gradient-boosting classifier's trees as flat arrays, evaluated on any backend.

The boosting test (:func:`dpverify.audit.classifier.learned_log_odds` with ``model="boosting"``: DP-Sniper's learned
statistic, Bichsel et al. 2021, Sec. IV) scores an output ``x`` (flattened to ``d`` features) by the fitted model's
log-odds

    F(x) = b + f_1(x) + ... + f_T(x),

``b`` the baseline (the training labels' log-odds) and ``f_t(x)`` the value of the leaf of tree ``t`` that ``x``
reaches from the root, going left at a node that splits feature ``k`` at threshold ``c`` iff ``x_k <= c``, or ``x_k``
is NaN and the node sends missing values left. That is scikit-learn's ``HistGradientBoostingClassifier
.decision_function`` for numeric features (its predictor's ``_predict_one_from_raw_data``, binary classification).

:class:`TreeEnsemble` holds the ``T`` trees' nodes in one table (each tree's child indices shifted by the tree's
offset, a leaf pointing to itself on both sides) and walks every (output, tree) pair down one level per step, at most
the depth of the deepest tree, retiring the pairs that reached a leaf: table lookups, one gather of the split feature
and one comparison per step over all walking pairs at once, no Python loop per output or per tree. The leaf values are
then added one tree's column at a time to ``0 + b`` (``T`` vector additions), the order in which scikit-learn adds
them. Comparisons are exact and the additions are the same float64 additions in the same order, so on every backend
the values equal scikit-learn's bit for bit (``tests/test_tree_ensemble.py``); on a device
(:mod:`dpverify.backends`) an audit with ``test="boosting"`` therefore counts its events where the outputs are, with
numpy's numbers up to the draws.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpverify.audit.statistics import device_rows, flatten
from dpverify.backends import backend_of

__all__ = ["BLOCK_ELEMENTS", "TreeEnsemble"]

#: (output, tree) pairs walked at once: each of a step's int64/float64 temporaries then takes 128 MiB.
BLOCK_ELEMENTS = 1 << 24


@dataclass(frozen=True)
class TreeEnsemble:
    """The nodes of ``T`` regression trees in one table (global node indices) and the model's baseline.

    ``feature``/``threshold``/``missing_left``: the split of each node (leaves: feature 0, never used); ``left``/
    ``right``: the global indices of its children (a leaf's own index); ``value``: the leaf values (0 at split
    nodes); ``roots``: each tree's root; ``depth``: the most edges from a root to a leaf; ``n_features``: ``d``."""

    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray
    depth: int
    baseline: float
    n_features: int

    @classmethod
    def from_sklearn(cls, model: Any) -> TreeEnsemble | None:
        """The trees of a fitted binary ``HistGradientBoostingClassifier`` (its predictors' node records), or None
        for a model this module does not evaluate as scikit-learn does (several classes, categorical splits, or a
        scikit-learn whose fitted model no longer has these records): the caller then keeps scikit-learn's own
        ``decision_function``."""
        try:
            trees = [iteration[0].nodes for iteration in model._predictors]
            baseline = np.asarray(model._baseline_prediction, dtype=float).reshape(-1)
            n_features = int(model.n_features_in_)
            if any(len(iteration) != 1 for iteration in model._predictors) or baseline.size != 1:
                return None
            if any(np.any(nodes["is_categorical"]) for nodes in trees):
                return None
            sizes = np.array([len(nodes) for nodes in trees], dtype=np.int64)
            offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
            nodes = np.concatenate(trees) if trees else np.zeros(0, dtype=[("is_leaf", "u1")])
            shift = np.repeat(offsets, sizes)
            own = np.arange(nodes.size, dtype=np.int64)
            leaf = nodes["is_leaf"].astype(bool)
            return cls(feature=np.where(leaf, 0, nodes["feature_idx"]).astype(np.int64),
                       threshold=np.asarray(nodes["num_threshold"], dtype=float),
                       missing_left=np.asarray(nodes["missing_go_to_left"], dtype=float),
                       left=np.where(leaf, own, nodes["left"].astype(np.int64) + shift),
                       right=np.where(leaf, own, nodes["right"].astype(np.int64) + shift),
                       value=np.where(leaf, np.asarray(nodes["value"], dtype=float), 0.0),
                       roots=offsets, depth=int(nodes["depth"].max()) if nodes.size else 0,
                       baseline=float(baseline[0]), n_features=n_features)
        except (AttributeError, KeyError, TypeError, ValueError, IndexError):
            return None

    def log_odds(self, x: Any) -> Any:
        """``F(x)`` for each output of ``x`` (an array of any backend, one output per row; paths are flattened), on
        its device."""
        xp = backend_of(x)
        rows = flatten(x) if isinstance(x, np.ndarray) else device_rows(x)
        if rows.shape[1] != self.n_features:
            raise ValueError(f"outputs have {rows.shape[1]} features after flattening; the boosting model was fitted "
                             f"on {self.n_features}")
        tables = {name: xp.asarray(getattr(self, name)) for name in ("threshold", "missing_left", "value")}
        tables["is_split"] = xp.asarray((self.left != np.arange(self.left.size)).astype(float))
        tables.update({name: xp.astype(xp.asarray(getattr(self, name)), "int64")
                       for name in ("feature", "left", "right", "roots")})
        trees = self.roots.size
        step = max(1, BLOCK_ELEMENTS // max(trees, 1))
        blocks = [self._block(xp, rows[start:start + step], tables) for start in range(0, rows.shape[0], step)]
        return blocks[0] if len(blocks) == 1 else xp.concatenate(blocks, axis=0)

    def _block(self, xp: Any, rows: Any, tables: dict) -> Any:
        """``F`` of ``n`` rows: all ``n T`` (row, tree) pairs start at their tree's root; each step moves the pairs
        still at a split node one level down and retires those that reached a leaf, so a step's work is the number of
        pairs still walking (most trees' leaves are far shallower than the deepest)."""
        n, trees = rows.shape[0], self.roots.size
        total = xp.zeros((n,)) + self.baseline  # scikit-learn: zeros, then += baseline, then += each tree in order
        if trees == 0 or n == 0:
            return total
        leaf_node = (xp.astype(xp.zeros((n, trees)), "int64") + tables["roots"]).reshape(-1)
        pair = xp.arange(n * trees)
        walking = xp.lookup(tables["is_split"], leaf_node) > 0.5
        pair, node = pair[walking], leaf_node[walking]
        for _ in range(self.depth):
            if node.shape[0] == 0:
                break
            x = rows[pair // trees, xp.lookup(tables["feature"], node)]
            go_left = (x <= xp.lookup(tables["threshold"], node)) | (
                (x != x) & (xp.lookup(tables["missing_left"], node) > 0.5))  # x != x: x is NaN
            node = xp.where(go_left, xp.lookup(tables["left"], node), xp.lookup(tables["right"], node))
            walking = xp.lookup(tables["is_split"], node) > 0.5
            arrived = ~walking
            leaf_node[pair[arrived]] = node[arrived]
            pair, node = pair[walking], node[walking]
        values = xp.lookup(tables["value"], leaf_node).reshape(n, trees)
        for t in range(trees):
            total = total + values[:, t]
        return total
