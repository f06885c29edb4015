"""Reported bugs of diffprivlib (IBM/differential-privacy-library), each a corpus case
(:mod:`dpverify.libraries.corpus`).
"""
from __future__ import annotations

import importlib
import inspect
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import sklearn.linear_model as sklearn_linear_model
import sklearn.utils.validation as sklearn_validation
from sklearn.base import BaseEstimator

from dpverify.audit import audit
from dpverify.libraries import diffprivlib as dpl
from dpverify.libraries.causes import locate
from dpverify.libraries.corpus.model import CorpusCase, installed_version
from dpverify.libraries.diffprivlib import sklearn_compat
from dpverify.libraries.ledger import diff, diffprivlib_ledger, patch_diffprivlib
from dpverify.libraries.replay import DIFFPRIVLIB, record_and_replay


def _linear_regression(fit_intercept: bool):
    return next(f for f in dpl.catalogue() if f.name.startswith("models.LinearRegression")
                and f.options.get("bounds") == "given" and f.options.get("fit_intercept") is fit_intercept
                and f.options["bounds_X"][0][0] == 0.0)


def _dpl_105() -> dict:
    """diffprivlib#105: ``models.LinearRegression`` declares the sensitivity of its X^T X coefficient from the lower
    bound twice, 0 for ``bounds_X=([0], [1])``. The budget ledger of ``fit`` (without intercept) on the catalogue's
    first pair records each noise addition with its declared sensitivity and its statistic on both sides:
    "reproduced" when an addition of declared sensitivity 0 sees its statistic differ between D and D' (the cause,
    file:line in the installed release, is located by :func:`dpverify.libraries.causes.locate`)."""
    fn = _linear_regression(False)
    pair = fn.pairs[0]
    d, n = pair
    a, b = fn.ledger(d, 0), fn.ledger(n, 0)
    zero = [x for x in diff(a, b) if x.get("zero_sensitivity_on")]

    causes = [c for c in locate(fn.library, fn.version, a.package_dir, [(pair.label, a, b)])
              if c["kind"] == "sensitivity"]
    where = causes[0]["site"] if causes else "-"
    return {"status": "reproduced" if zero else "fixed", "version": fn.version, "site": where,
            "source": causes[0]["source"] if causes else "",
            "detail": (f"{len(zero)} noise addition(s) of declared sensitivity 0 whose statistic differs between D "
                       f"and D' (at {zero[0]['site']}; sensitivity computed at {where})") if zero else
                      "no noise addition of sensitivity 0: the installed diffprivlib declares this one right"}


def _dpl_104() -> dict:
    """diffprivlib#104 (item 2): ``models.LinearRegression`` with an intercept spends ``epsilon / (n_features + 1)``
    on each of its two centring means on accountants made inside ``fit``, which the caller's accountant never
    records. "reproduced" when the ledger's composition of the calls (dpverify's calculus) exceeds what the
    accountant recorded (``spent_over_recorded``), with the sites of the unrecorded spends."""
    fn = _linear_regression(True)
    led = fn.ledger(fn.pairs[0][0], 0)
    spent, rec = led.spent_least, led.recorded
    mm = led.mismatch.get("spent_over_recorded")
    return {"status": "reproduced" if mm else "fixed", "version": fn.version,
            "spent": None if spent is None else spent.epsilon, "recorded": None if rec is None else rec.epsilon,
            "unrecorded_sites": led.unrecorded_sites,
            "detail": (f"the calls compose to epsilon {spent.epsilon:.6g}, the accountant records {rec.epsilon:.6g}; "
                       f"spends on accountants made inside fit at {', '.join(led.unrecorded_sites)}") if mm else
                      "the ledger's composition equals the accountant's record"}


# -- diffprivlib#106: LogisticRegression reads its label set from the data ----------------------------------------

def _logistic_fit(data: np.ndarray) -> Any:
    """``models.LogisticRegression(epsilon=1, data_norm=1)`` fitted on ``data`` (features, then the integer label in
    the last column), ``random_state=0`` (since 0.6.0; before it the generator is ``secrets.SystemRandom``, whose
    state replay cannot restore); returns ``classes_``. Run inside
    :func:`~dpverify.libraries.diffprivlib.sklearn_compat`
    (scikit-learn >= 1.8 dropped the ``multi_class`` argument diffprivlib 0.6.6 passes; older releases ignore it)."""
    from diffprivlib.models import LogisticRegression

    with warnings.catch_warnings(), sklearn_compat():
        warnings.simplefilter("ignore")
        model = LogisticRegression(epsilon=1.0, data_norm=1.0, max_iter=20, random_state=0)
        model.fit(data[:, :-1], data[:, -1].astype(int))
    return model.classes_


def _dpl_106() -> dict:
    """diffprivlib#106: ``LogisticRegression.fit`` sets ``self.classes_ = np.unique(y)`` (logistic_regression.py:227
    in 0.6.6, :217 in 0.4.0-0.5.2): the label set is read from the private labels. With three classes the model
    fits one-vs-rest, one objective-perturbation ``Vector`` mechanism per class at epsilon/3 each; remove the only
    record of label 2 and it fits one binary model at epsilon 1. The number of noise calls, their epsilon and the
    released ``classes_`` reveal whether that record is present: no epsilon bounds it.

    Neighbours (add/remove one record): D = 8 records with labels 0/1 (features uniform in [0, 0.5], seed 0) plus
    one record of label 2; D' = D without it. The check replays ``fit`` on D' with diffprivlib's mechanisms frozen
    at their outputs on D (:func:`dpverify.libraries.replay.record_and_replay`, primitives ``DIFFPRIVLIB``): it is
    reproduced when replay flags ``control_flow`` (a call made on one side only) or ``data_bound`` (a declared
    epsilon that differs between D and D')."""
    rng = np.random.default_rng(0)
    d = np.r_[np.c_[rng.uniform(0.0, 0.5, size=(8, 1)), np.tile([0.0, 1.0], 4)], [[0.3, 2.0]]]
    r = record_and_replay(_logistic_fit, d, d[:-1], primitives=[DIFFPRIVLIB], seed=0)
    flags = [f for f in r.flags if f.kind in ("control_flow", "data_bound")]
    calls = (len(r.recording.calls), len(r.calls))
    return {"status": "reproduced" if flags else "fixed", "version": installed_version("diffprivlib"),
            "flags": sorted({f.kind for f in flags}), "calls": list(calls),
            "site": flags[0].site if flags else "-",
            "detail": (f"labels {{0, 1, 2}} vs {{0, 1}} (one record of label 2 removed): {calls[0]} noise call(s) "
                       f"on D, {calls[1]} on D' replayed; flagged {', '.join(sorted({f.kind for f in flags}))} at "
                       f"{flags[0].site}") if flags else
                      f"fit makes the same noise calls with the same parameters on both sides ({calls[0]} call(s))"}


# -- diffprivlib#94: the Laplace mechanism's floating-point output reveals its input ------------------------------

def _fine_bits(outputs: np.ndarray) -> np.ndarray:
    """1 where an output has a bit below 2^-53 (``x * 2^53`` is not an integer), else 0."""
    z = np.asarray(outputs, dtype=float).reshape(len(outputs), -1)[:, 0] * 2.0 ** 53
    return (z != np.floor(z)).astype(float)


def _laplace_mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` releases of ``Laplace(epsilon=1, sensitivity=1).randomise(value)``, ``value`` the dataset's one number;
    the mechanism's generator (``_rng``: ``secrets.SystemRandom`` before 0.6, a numpy ``RandomState`` since) is
    replaced by a ``RandomState`` seeded from ``rng``, so the draws are reproducible on every release."""
    from diffprivlib.mechanisms import Laplace

    value = float(np.asarray(dataset, dtype=float).ravel()[0])
    mech = Laplace(epsilon=1.0, sensitivity=1.0)
    mech._rng = np.random.RandomState(int(rng.integers(2 ** 31)))
    return np.array([mech.randomise(value) for _ in range(n)])


def _dpl_94(samples: int = 10_000) -> dict:
    """diffprivlib#94: the Laplace mechanism returns ``value - scale * L`` in floating point (laplace.py:148 in 0.6.6,
    ``L`` from the four-uniform sampler of Holohan and Braghin, EuroS&P 2021, since 0.5.0), which the precision-based
    attack (Haney et al., 2022; Tumult's "Tiny bits matter") still breaks: on value 0 the release is ``-L`` itself
    and often keeps bits below 2^-53 (0.21 of releases at scale 1, seed 1); on value 1, ``1 - L`` is a
    sum with 1 and is always a multiple of 2^-53. The statistic "has bits below 2^-53" separates the two inputs.

    Neighbours: the statistic 0 vs 1 (a count, sensitivity 1), epsilon 1, delta 0. The check is a sampling audit
    (:func:`dpverify.audit.audit`, ``samples`` releases per side, seed 0, test: the fine-bit indicator): reproduced
    when the certified lower bound on epsilon exceeds the claimed 1."""
    claim = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = audit(_laplace_mechanism, np.array([0.0]), np.array([1.0]), epsilon=claim, delta=0.0, samples=samples,
                  seed=0, test=_fine_bits)
        rates = [float(_fine_bits(_laplace_mechanism(np.array([x]), 2000, np.random.default_rng(1))).mean())
                 for x in (0.0, 1.0)]
    return {"status": "reproduced" if r.is_violation else "fixed", "version": installed_version("diffprivlib"),
            "claimed": claim, "certified": r.epsilon_lower, "fine_bit_rates": rates,
            "detail": (f"Laplace(epsilon=1, sensitivity=1).randomise(0) vs randomise(1): bits below 2^-53 in "
                       f"{rates[0]:.3f} vs {rates[1]:.3f} of 2000 releases; certified epsilon {r.epsilon_lower:.3g} "
                       f"against the claimed {claim:g} ({samples} samples, seed 0)")}



# -- diffprivlib#34: LinearRegression declares the sensitivity of sum(y^2) from the lower bounds of y only ---------

#: Names diffprivlib 0.3-0.5.1 import from scikit-learn that scikit-learn 1.1 removed (no scikit-learn < 1.1 has a
#: Python 3.11 wheel): module -> names. :func:`_legacy_sklearn` stands each in with a function that raises if called;
#: ``LinearRegression`` never calls them (they serve ``LogisticRegression``, imported by ``diffprivlib.models``).
_REMOVED_SKLEARN_NAMES: dict[str, tuple[str, ...]] = {
    "sklearn.linear_model._logistic": ("_logistic_loss_and_grad",),
    "sklearn.utils.fixes": ("_joblib_parallel_args",),
}


def _removed(name: str) -> Any:
    def gone(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{name} was removed from scikit-learn (dpverify's import shim for old diffprivlib)")

    return gone


@contextmanager
def _legacy_sklearn() -> Iterator[list[str]]:
    """Let diffprivlib 0.3-0.6.5 import and fit ``models.LinearRegression`` on the running scikit-learn (1.8 in the
    main environment), for the block: the names of :data:`_REMOVED_SKLEARN_NAMES` are stood in (only where missing);
    scikit-learn's ``LinearRegression.__init__`` accepts (and ignores) ``normalize``, which diffprivlib < 0.5.2
    passes as ``normalize=False`` (scikit-learn 1.2 removed it; False was its default); and
    ``BaseEstimator._validate_data``, which diffprivlib 0.5-0.6.5 call and scikit-learn 1.6 replaced by
    ``sklearn.utils.validation.validate_data(estimator, ...)``, is routed to it. diffprivlib's own code is untouched.
    Yields the shims made."""
    sl = sklearn_linear_model
    made: list[str] = []
    added: list[tuple[Any, str]] = []
    for module_name, names in _REMOVED_SKLEARN_NAMES.items():
        module = importlib.import_module(module_name)
        for name in names:
            if not hasattr(module, name):
                setattr(module, name, _removed(name))
                added.append((module, name))
                made.append(f"{module_name}.{name}")
    if not hasattr(BaseEstimator, "_validate_data"):  # scikit-learn >= 1.6, which has validate_data
        def _validate_data(self: Any, *args: Any, **kwargs: Any) -> Any:
            return sklearn_validation.validate_data(self, *args, **kwargs)

        BaseEstimator._validate_data = _validate_data  # type: ignore[attr-defined]
        added.append((BaseEstimator, "_validate_data"))
        made.append("sklearn.base.BaseEstimator._validate_data")
    init = sl.LinearRegression.__init__
    if "normalize" not in inspect.signature(init).parameters:
        def compat_init(self: Any, *args: Any, normalize: bool = False, **kwargs: Any) -> None:
            init(self, *args, **kwargs)

        sl.LinearRegression.__init__ = compat_init  # type: ignore[method-assign]
        made.append("sklearn.linear_model.LinearRegression(normalize=...)")
    try:
        yield made
    finally:
        sl.LinearRegression.__init__ = init  # type: ignore[method-assign]
        for owner, name in added:
            delattr(owner, name)


#: The neighbours of diffprivlib#34: four records (x, y) in [-1, 1] x [0, 1]; D' replaces the last label 0 by 1.
_DPL34_X = np.array([[-0.5], [0.25], [0.5], [1.0]])
_DPL34_Y = np.array([0.25, 0.5, 0.75, 0.0])
_DPL34_BOUNDS_X = ([-1.0], [1.0])
_DPL34_BOUNDS_Y = ([0.0], [1.0])


def _dpl34_ledgers() -> tuple[Any, Any, list[str]]:
    """The budget ledgers (:func:`dpverify.libraries.ledger.diffprivlib_ledger`: every mechanism call with its
    declared sensitivity and the statistic it randomises) of ``LinearRegression(epsilon=1, bounds_X=([-1], [1]),
    bounds_y=([0], [1]), fit_intercept=False).fit`` on D and on D', and the import shims used. No ``random_state``
    (0.4.x lacks it): the statistics and sensitivities compared do not depend on the noise."""
    y_prime = _DPL34_Y.copy()
    y_prime[-1] = 1.0
    ledgers = []
    with _legacy_sklearn() as shims, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from diffprivlib.models import LinearRegression

        for y in (_DPL34_Y, y_prime):
            with diffprivlib_ledger() as led:
                LinearRegression(epsilon=1.0, bounds_X=_DPL34_BOUNDS_X, bounds_y=_DPL34_BOUNDS_Y,
                                 fit_intercept=False).fit(_DPL34_X, y)
            ledgers.append(led)
    return ledgers[0], ledgers[1], shims


def _dpl_34() -> dict:
    """diffprivlib#34 (PR #35): ``models.LinearRegression`` (the functional mechanism, since 0.4.0) perturbs the
    0th-degree coefficient ``sum(y_i^2)`` with ``LaplaceFolded`` of sensitivity ``np.abs(bounds_y[i]).max() ** 2``
    (linear_regression.py:115 in 0.4.0). ``bounds_y`` is the pair (lower bounds, upper bounds), so for target 0 this
    is the largest absolute *lower* bound squared: 0 for ``bounds_y=([0], [1])``, where one record moves the sum by up
    to ``max(|lo|, |hi|)^2 = 1``. That coefficient is released with no noise: its change between neighbours is
    unbounded in epsilon. 0.4.1 takes ``np.abs([bounds_y[0][i], bounds_y[1][i]]).max() ** 2`` (= 1).

    Neighbours (replace one): four records (x, y) with ``bounds_X=([-1], [1])`` (a lower bound of -1, so the
    diagonal ``sum(x^2)`` term of diffprivlib#105 is declared right) and ``bounds_y=([0], [1])``; D' sets the last
    label from 0 to 1 (its x is 1). The check fits ``fit_intercept=False`` (no DP centring means) on both and diffs
    the budget ledgers (:func:`dpverify.libraries.ledger.diff`): reproduced when a noise call declares sensitivity 0
    while its statistic differs (``zero_sensitivity_on``) or the statistic moves by more than the declared
    sensitivity (``exceeds_declared``). diffprivlib 0.3.0 (a Wishart mechanism on the data norm, no such call) and
    0.4.1+ show neither. Releases before 0.6.6 run over the running scikit-learn through :func:`_legacy_sklearn` (no
    scikit-learn < 1.1 installs on Python 3.11; 0.5.2 also needs ``crlibm``, which does not install here)."""
    a, b, shims = _dpl34_ledgers()
    flagged = [x for x in diff(a, b) if x.get("zero_sensitivity_on") or x.get("exceeds_declared")]
    first = a.entries[0] if a.entries else None
    declared = None if first is None else first.sensitivity
    change = None if first is None or first.value is None or not b.entries or b.entries[0].value is None \
        else abs(first.value - b.entries[0].value)
    site = flagged[0]["site"] if flagged else "-"
    return {"status": "reproduced" if flagged else "fixed", "version": installed_version("diffprivlib"),
            "first_call": None if first is None else first.mechanism, "declared": declared, "change": change,
            "site": site, "shims": shims,
            "detail": (f"{len(flagged)} noise call(s) declare a sensitivity below their statistic's change between "
                       f"D and D' (first at {site}: {flagged[0]['mechanism']} declares {declared:g}, the statistic "
                       f"moves by {change:g})") if flagged else
                      (f"every noise call of fit declares at least its statistic's change (first call "
                       f"{None if first is None else first.mechanism}: declared {declared}, change {change})")}


# -- diffprivlib#23: LinearRegression's Wishart mechanism adds positive semi-definite noise: its support moves ------

#: D for diffprivlib#23: four records (x, y) in [-1, 1] x [0, 1]; D' adds the record (1, 1).
_DPL23_X = np.array([[-0.5], [0.25], [0.5], [0.0]])
_DPL23_Y = np.array([0.25, 0.5, 0.75, 0.0])


def _dpl23_noise_calls(x: np.ndarray, y: np.ndarray) -> list[tuple[Any, np.ndarray]]:
    """The matrix-valued noise calls of ``LinearRegression(epsilon=1, data_norm=1, bounds_X=([-1], [1]),
    bounds_y=([0], [1]), fit_intercept=False).fit(x, y)``: each as (the mechanism, the matrix it was handed), caught
    by wrapping every mechanism's ``randomise`` (:func:`dpverify.libraries.ledger.patch_diffprivlib`). ``data_norm``
    is what 0.2-0.3 need (else they read the norm from the data); 0.4+ ignore it (an unused argument)."""
    calls: list[tuple[Any, np.ndarray]] = []

    def on_randomise(mech: Any, args: tuple, kwargs: dict, original: Any) -> Any:
        if args and np.ndim(args[0]) == 2:
            calls.append((mech, np.array(args[0], dtype=float)))
        return original(mech, *args, **kwargs)

    with _legacy_sklearn(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from diffprivlib.models import LinearRegression

        with patch_diffprivlib(on_randomise, lambda acc, eps, delta, original: original(acc, eps, delta)):
            LinearRegression(epsilon=1.0, data_norm=1.0, bounds_X=([-1.0], [1.0]), bounds_y=([0.0], [1.0]),
                             fit_intercept=False).fit(x, y)
    return calls


def _not_psd_above(reference: np.ndarray) -> Any:
    """The audit's test: 1 where ``output - reference`` has an eigenvalue below -1e-9 (not positive semi-definite)."""
    def test(outputs: np.ndarray) -> np.ndarray:
        diffs = np.asarray(outputs, dtype=float) - reference
        return (np.linalg.eigvalsh(diffs).min(axis=-1) < -1e-9).astype(float)

    return test


def _dpl_23(samples: int = 2000) -> dict:
    """diffprivlib#23 (PR #25): ``models.LinearRegression`` 0.2.0-0.3.0 released ``A^T A`` (A = [X, y], X clipped to
    ``data_norm``) through the ``Wishart`` mechanism (Imtiaz and Sarwate), which adds ``W = G G^T``, G a d x (d+1)
    Gaussian matrix of scale ``data_norm / (2 epsilon)`` (wishart.py:155-159 in 0.3.0; linear_regression.py:239). W
    is positive semi-definite, so the output lies in ``A^T A + PSD`` and the support moves with the data: adding a
    record a moves ``A^T A`` by ``a a^T``, and every output with ``output - A'^T A'`` not PSD is impossible on D' but
    likely on D (Sheffet 2019, Amin et al. 2019, cited in the issue): no epsilon holds. 0.4.0 replaced it by an
    objective perturbation (Laplace noise on the regression's coefficients).

    Neighbours (add/remove): D = four records (x, y) in [-1, 1] x [0, 1]; D' = D plus (1, 1).
    ``LinearRegression(epsilon=1, data_norm=1, bounds_X=([-1], [1]), bounds_y=([0], [1]), fit_intercept=False)``. The
    check catches the fit's matrix-valued noise call on D and on D' (the mechanism and its input) and audits that
    mechanism (:func:`dpverify.audit.audit`, ``samples`` releases per side, seed 0) on the two inputs with the test
    "``output - A'^T A'`` is not PSD": reproduced when the certified epsilon exceeds the claimed 1. Releases without a
    matrix-valued noise call (0.4.0+) are "fixed". Old releases run through :func:`_legacy_sklearn`."""
    x_prime, y_prime = np.r_[_DPL23_X, [[1.0]]], np.r_[_DPL23_Y, 1.0]
    on_d, on_d_prime = _dpl23_noise_calls(_DPL23_X, _DPL23_Y), _dpl23_noise_calls(x_prime, y_prime)
    version = installed_version("diffprivlib")
    if not on_d or not on_d_prime:
        return {"status": "fixed", "version": version, "matrix_calls": [len(on_d), len(on_d_prime)],
                "detail": "fit makes no matrix-valued noise call (no Wishart mechanism): nothing to audit"}
    mech, value = on_d[0]
    value_prime = on_d_prime[0][1]

    def release(matrix: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        state = np.random.get_state()
        np.random.seed(int(rng.integers(2 ** 31)))  # the Wishart mechanism of 0.2-0.3 draws from numpy's global RNG
        try:
            return np.array([mech.randomise(np.array(matrix)) for _ in range(n)])
        finally:
            np.random.set_state(state)

    claim = 1.0
    r = audit(release, value, value_prime, epsilon=claim, delta=0.0, samples=samples, seed=0,
              test=_not_psd_above(value_prime))
    rates = [float(_not_psd_above(value_prime)(release(m, 500, np.random.default_rng(1))).mean())
             for m in (value, value_prime)]
    return {"status": "reproduced" if r.is_violation else "fixed", "version": version,
            "mechanism": type(mech).__name__, "claimed": claim, "certified": r.epsilon_lower, "rates": rates,
            "detail": (f"{type(mech).__name__} on A^T A of D vs D' (a record (1, 1) added): the output minus "
                       f"A'^T A' is not PSD in {rates[0]:.3f} vs {rates[1]:.3f} of 500 releases; certified epsilon "
                       f"{r.epsilon_lower:.3g} against the claimed {claim:g} ({samples} samples, seed 0)")}

_DPL = "https://github.com/IBM/differential-privacy-library"
#: diffprivlib before 0.6.6 calls ``self._validate_data``, which scikit-learn 1.6 removed: its releases run in their
#: own environments with scikit-learn 1.5 (0.6.6 accepts it too: it needs >= 1.4), one environment per release shared
#: by every case here.
_OLD_SKLEARN: dict[str, Any] = {"isolation": "venv", "requirements": ("scikit-learn<1.6",)}

CASES: tuple[CorpusCase, ...] = (
    CorpusCase("diffprivlib#105", "diffprivlib",
               "LinearRegression: sensitivity of the X^T X coefficient from the lower bound twice",
               (f"{_DPL}/issues/105", f"{_DPL}/pull/110", f"{_DPL}/issues/104"),
               "issue open; fix PR #110 open (unreleased): no fixed version to install", "library", _dpl_105,
               affected=">=0.4.0", fixed_in=None, method="ledger",
               datasets="8 training records in [0, 1] vs one replaced by a record at the bounds (the catalogue's "
                        "'bounds:replace' pair) for LinearRegression(bounds_X=([0], [1]), bounds_y=(0, 1), "
                        "fit_intercept=False)",
               releases=("0.6.0", "0.6.6"), **_OLD_SKLEARN),
    CorpusCase("diffprivlib#104", "diffprivlib",
               "LinearRegression: centring means spend budget the accountant never records",
               (f"{_DPL}/issues/104",),
               "issue open (item 2): no fixed version to install", "library", _dpl_104,
               affected=">=0.4.0", fixed_in=None, method="ledger",
               datasets="LinearRegression(bounds_X=([0], [1]), bounds_y=(0, 1), fit_intercept=True) on the 8 "
                        "records of the catalogue's 'bounds:replace' pair (one run: the ledger against the accountant)",
               releases=("0.6.0", "0.6.6"), **_OLD_SKLEARN),
    CorpusCase("diffprivlib#106", "diffprivlib",
               "LogisticRegression: the label set is read from the private labels (np.unique(y))",
               (f"{_DPL}/issues/106",),
               "issue open: no fixed version to install", "library", _dpl_106,
               affected=">=0.1.1", fixed_in=None, method="replay",
               datasets="8 records labelled 0/1 plus one record of label 2 vs the same without it (add/remove)",
               releases=("0.6.0", "0.6.6"), **_OLD_SKLEARN),
    CorpusCase("diffprivlib#94", "diffprivlib",
               "Laplace mechanism: floating-point output bits reveal the input (precision-based attack)",
               (f"{_DPL}/issues/94", f"{_DPL}/issues/19"),
               "issue open; the mechanisms still add floating-point noise: no fixed version to install", "library",
               _dpl_94, affected=">=0.1.1", fixed_in=None, method="statistical",
               datasets="a count 0 vs 1 (sensitivity 1) released by Laplace(epsilon=1)",
               releases=("0.6.0", "0.6.6"), **_OLD_SKLEARN),
    CorpusCase("diffprivlib#34", "diffprivlib",
               "LinearRegression: sensitivity of the sum(y^2) coefficient from the lower bounds of y only",
               (f"{_DPL}/issues/34", f"{_DPL}/pull/35"),
               "fixed by PR #35, released in 0.4.1", "library", _dpl_34,
               affected=">=0.4.0,<0.4.1", fixed_in="0.4.1", method="ledger",
               datasets="4 records (x, y) with bounds_X=([-1], [1]), bounds_y=([0], [1]) vs the last label 0 replaced "
                        "by 1, for LinearRegression(epsilon=1, fit_intercept=False)",
               releases=("0.4.0", "0.4.1"), isolation="target"),
    CorpusCase("diffprivlib#23", "diffprivlib",
               "LinearRegression: the Wishart mechanism's positive semi-definite noise moves its support with the data",
               (f"{_DPL}/issues/23", f"{_DPL}/pull/25"),
               "fixed by PR #25 (LinearRegression and PCA rewritten without the Wishart mechanism), released in 0.4.0",
               "library", _dpl_23, affected=">=0.2.0,<0.4.0", fixed_in="0.4.0", method="statistical",
               datasets="4 records (x, y) in [-1, 1] x [0, 1] vs the same plus (1, 1) (add/remove), for "
                        "LinearRegression(epsilon=1, data_norm=1, fit_intercept=False)",
               releases=("0.3.0", "0.4.0"), isolation="target"),
)
