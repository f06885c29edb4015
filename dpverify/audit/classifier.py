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

The logistic model is fitted by L-BFGS for at most :data:`LBFGS_ITERATIONS` iterations and, when that is not enough
and there are at most :data:`NEWTON_MAX_FEATURES` features, finished by Newton's method with a Cholesky solve
(``solver="newton-cholesky"``, warm-started from L-BFGS's coefficients). The outputs of a sampler's path are strongly
correlated coordinates, an ill-conditioned problem for L-BFGS: on ``dp_sgld_path``'s 51 x 2 path (204 features,
2 x 20,000 outputs) L-BFGS alone took 438 iterations and 9.0 s, 100 iterations and 2 Newton steps 2.0 s, Newton alone
0.5 s, with the same held-out AUC (0.6207); on random-walk features at 2 x 50,000 outputs Newton alone took 1.1 s
against 11.9 s (256 features) and 13 s against 116 s (1024 features). On well-conditioned outputs (independent
coordinates) L-BFGS converges in a few dozen iterations and Newton's ``n p^2`` steps cost more (2 x 2,000 outputs of
500 coordinates: 0.18 s against 2.0 s), hence L-BFGS first: an output it fits within the budget gets exactly the
model it got before Newton's method was added. The fit is the serial part of a sampler audit (it runs before any
worker has chunks to count).

On a device (:mod:`dpverify.backends`) the fitted logistic model's log-odds are evaluated where the outputs are (its
affine map of ``[x, x^2]``), and so is the boosting model's (its trees walked on the device,
:mod:`~dpverify.audit.tree_ensemble`): an audit on ``backend="torch"`` counts its events without copying chunks to the
host.
"""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
from threadpoolctl import threadpool_limits

from dpverify.audit.statistics import Statistic, device_rows, flatten
from dpverify.audit.tree_ensemble import TreeEnsemble
from dpverify.backends import backend_generic, backend_of

__all__ = ["CLASSIFIERS", "LBFGS_ITERATIONS", "NEWTON_MAX_FEATURES", "learned_log_odds"]

CLASSIFIERS = ("logistic", "boosting")
#: The most features (``2 x`` the output's dimension: ``x`` and ``x**2``) fitted by Newton's method; beyond it a
#: Newton step's ``n p^2`` Hessian outgrows L-BFGS's iterations (module docstring; 1024 is the largest size measured).
NEWTON_MAX_FEATURES = 1024
#: L-BFGS iterations before an unconverged fit is finished by Newton's method (module docstring).
LBFGS_ITERATIONS = 100


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
        newton = 2 * X.shape[1] <= NEWTON_MAX_FEATURES
        clf = make_pipeline(features, StandardScaler(),
                            LogisticRegression(max_iter=LBFGS_ITERATIONS if newton else 1000))
    else:
        from sklearn.ensemble import HistGradientBoostingClassifier

        clf, newton = HistGradientBoostingClassifier(random_state=seed), False
    with threadpool_limits(1):
        if not newton:
            clf.fit(X, y)
        else:
            _fit_lbfgs_then_newton(clf, X, y)

    def log_odds(x: np.ndarray) -> np.ndarray:
        with threadpool_limits(1):
            return clf.decision_function(flatten(x))

    if model == "logistic":
        function = _logistic_on_any_backend(clf, log_odds)
    else:
        function = _boosting_on_any_backend(clf, log_odds)
    return Statistic(f"classifier:{model}", f"{model} classifier log-odds of D vs D'", function)


def _logistic_on_any_backend(pipeline, on_host: Callable[[np.ndarray], np.ndarray]) -> Callable[[Any], Any]:
    """The fitted logistic pipeline's log-odds for any backend's outputs: scikit-learn's own ``decision_function`` on
    numpy; on another backend the same affine map on its device, ``((f(x) - mean) / scale) . coef + intercept`` with
    ``f(x) = [x, x^2]`` and the fitted scaler's ``mean_``/``scale_`` (values equal to scikit-learn's up to the
    rounding of the two products, far inside :data:`~dpverify.audit.statistics.ATOM_TOLERANCE`)."""
    scaler, model = pipeline[1], pipeline[-1]
    mean, scale = np.asarray(scaler.mean_, dtype=float), np.asarray(scaler.scale_, dtype=float)
    coef, intercept = np.asarray(model.coef_, dtype=float).reshape(-1), float(np.asarray(model.intercept_)[0])

    @backend_generic
    def log_odds(x: Any) -> Any:
        xp = backend_of(x)
        if isinstance(x, np.ndarray) or xp.name == "numpy":
            return on_host(x)
        z = device_rows(x)
        features = xp.concatenate([z, z * z], axis=1)
        return xp.matmul((features - xp.asarray(mean)) / xp.asarray(scale), coef) + intercept

    return log_odds


def _boosting_on_any_backend(model, on_host: Callable[[np.ndarray], np.ndarray]) -> Callable[[Any], Any]:
    """The fitted boosting model's log-odds for any backend's outputs: scikit-learn's own ``decision_function`` on
    numpy; on another backend its trees walked on the device (:class:`~dpverify.audit.tree_ensemble.TreeEnsemble`,
    scikit-learn's values bit for bit). A model the ensemble does not cover (``from_sklearn`` is None) keeps the host
    function, and the auditor copies such chunks to the host."""
    trees = TreeEnsemble.from_sklearn(model)
    if trees is None:
        return on_host

    @backend_generic
    def log_odds(x: Any) -> Any:
        if isinstance(x, np.ndarray) or backend_of(x).name == "numpy":
            return on_host(x)
        return trees.log_odds(x)

    return log_odds


def _fit_lbfgs_then_newton(pipeline, X: np.ndarray, y: np.ndarray) -> None:
    """Fit ``pipeline`` (features, scaler, ``LogisticRegression``) by L-BFGS within its ``max_iter``; if L-BFGS used
    them all, finish from its coefficients by Newton's method (module docstring)."""
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # an unconverged L-BFGS is finished below
        pipeline.fit(X, y)
    model = pipeline[-1]
    if int(np.max(model.n_iter_)) >= model.max_iter:
        model.set_params(solver="newton-cholesky", warm_start=True, max_iter=1000)
        pipeline.fit(X, y)
