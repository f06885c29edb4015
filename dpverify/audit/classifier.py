"""A learned test, DP-Sniper style.

Bichsel, Gehr, Drachsler-Cohen, Tsankov & Vechev 2021 ("DP-Sniper: Black-box discovery of
differential privacy violations using classifiers", IEEE S&P 2021, Sec. IV): train a classifier
to estimate the posterior probability that an output came from M(D) rather than M(D') and
threshold it. With balanced classes the classifier's log-odds estimate
``log p_D(x) - log p_D'(x)``, the Neyman-Pearson statistic (:mod:`.likelihood_ratio`), so the
threshold search on independent samples recovers a near-optimal event.

Models: ``"logistic"`` (scikit-learn ``LogisticRegression`` on standardised features ``x`` and
``x**2``, so location and scale differences are both linear in the features) and
``"boosting"`` (``HistGradientBoostingClassifier`` on ``x``). At most ``max_train`` outputs per side
are used for training (time grows with it; the threshold is chosen on other samples).
Training and prediction run with one OpenMP/BLAS thread (``threadpoolctl``): on a shared 2-core
machine the default thread pool of ``HistGradientBoostingClassifier`` was measured 40x slower
(22 s instead of 0.56 s for 1000 outputs) from oversubscription.

The logistic model is fitted by Newton's method with a Cholesky solve (``solver="newton-cholesky"``) when there are at
most :data:`NEWTON_MAX_FEATURES` features, else by L-BFGS. The outputs of a sampler's path or samples are strongly
correlated coordinates, an ill-conditioned problem for L-BFGS: on ``dp_sgld_path``'s 51 x 2 path (204 features,
2 x 20,000 outputs) L-BFGS took 438 iterations and 9.0 s, Newton 2 iterations and 0.5 s, with the same held-out AUC
(0.6207); on random-walk features at 2 x 50,000 outputs, 1.1 s against 11.9 s (256 features) and 13 s against 116 s
(1024 features). Both minimise the same penalised log-loss; they stop at different points within the tolerance, so
the statistic (and an audit's numbers) differ in the digits between the two. The fit is the serial part of a
sampler audit (it runs before any worker has chunks to count), so this is what ``workers=`` and Dask could not
speed up.
"""
from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

from dpverify.audit.statistics import Statistic, flatten

__all__ = ["CLASSIFIERS", "NEWTON_MAX_FEATURES", "learned_log_odds"]

CLASSIFIERS = ("logistic", "boosting")
#: The most features (``2 x`` the output's dimension: ``x`` and ``x**2``) fitted by Newton's method; beyond it a
#: Newton step's ``n p^2`` Hessian outgrows L-BFGS's iterations (module docstring; 1024 is the largest size measured).
NEWTON_MAX_FEATURES = 1024


def learned_log_odds(x0: np.ndarray, x1: np.ndarray, *, model: str = "logistic",
                     max_train: int = 50_000, seed: int = 0) -> Statistic:
    """Fit a classifier of D (label 1) against D' (label 0); the statistic is its log-odds."""
    if model not in CLASSIFIERS:
        raise ValueError(f"model must be one of {CLASSIFIERS}; got {model!r}")
    f0, f1 = flatten(x0)[:max_train], flatten(x1)[:max_train]
    X = np.concatenate([f0, f1])
    y = np.concatenate([np.ones(f0.shape[0]), np.zeros(f1.shape[0])])
    if model == "logistic":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import FunctionTransformer, StandardScaler

        features = FunctionTransformer(lambda z: np.concatenate([z, z * z], axis=1))
        solver = "newton-cholesky" if 2 * X.shape[1] <= NEWTON_MAX_FEATURES else "lbfgs"
        clf = make_pipeline(features, StandardScaler(), LogisticRegression(max_iter=1000, solver=solver))
    else:
        from sklearn.ensemble import HistGradientBoostingClassifier

        clf = HistGradientBoostingClassifier(random_state=seed)
    with threadpool_limits(1):
        clf.fit(X, y)

    def log_odds(x: np.ndarray) -> np.ndarray:
        with threadpool_limits(1):
            return clf.decision_function(flatten(x))

    return Statistic(f"classifier:{model}", f"{model} classifier log-odds of D vs D'", log_odds)
