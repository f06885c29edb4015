"""Reported bugs of dpmm (sassoftware/dpmm), each a corpus case (:mod:`dpverify.libraries.corpus`).

dpmm's marginal models (PrivBayes, MST, AIM) measure marginals of a discrete table with the Gaussian mechanism
(``dpmm.models.base.utils.gaussian_noise(sigma, size)``, the noise vector added to the marginal's counts). How many
cells a marginal has is the table's *domain*; a domain read from the private table is released by the shape of every
noisy marginal (and by the synthetic data), outside any privacy budget. Both cases record the noise primitive on a
neighbouring pair with :func:`dpverify.libraries.replay.record_and_replay`: the declared ``bounds`` of each call is
the noise vector's shape, and a shape that differs between D and D' (a ``data_bound`` flag) is the leak. Each check
runs the same fit once more with the domain given as public knowledge (the fix the maintainers prescribe) and reports
that control run's flags (``flags_with_domain``, none expected), so the verdict rests on the inferred domain only.

dpmm pins numpy 1.26.4, pandas 2.1.0, scikit-learn 1.5.0 and opendp 0.12.1, so its releases run in their own virtual
environments (``isolation="venv"``). Every release on PyPI (0.1.1 to 0.1.9) has both defects: PR #19 (the fix of
#18) was merged after 0.1.9 (``pyproject.toml`` says 0.2.0) and no later release was published, and #24 is open.
"""
from __future__ import annotations

import copy
from typing import Any

import numpy as np

from dpverify.libraries.corpus.model import CorpusCase, installed_version as _version
from dpverify.libraries.replay import Primitive, record_and_replay


def _noise_primitive() -> Any:
    """dpmm's Gaussian noise as a replay primitive: no value (the noise is added to the counts after the call), its
    scale ``sigma`` and, as its declared bounds, the shape ``size`` of the noise vector (the marginal's cells)."""
    from dpmm.models.base import utils as noise

    return Primitive(noise, "gaussian_noise", value_arg=None, scale_arg="sigma",
                     bounds_arg=lambda a: None if a.get("size") is None else tuple(int(s) for s in
                                                                                   _shape(a["size"])),
                     mechanism="dpmm.gaussian_noise")


def _shape(size: Any) -> tuple:
    return tuple(np.atleast_1d(np.asarray(size)).ravel())


def _shape_flags(inferred: Any, given: Any) -> list:
    """The replay's ``data_bound`` flags on the noise vector's shape (the declared bounds) in the run that infers
    the domain; a ``RuntimeError`` when the control run (the domain given) flags anything, for then the flags could
    not be laid on the inferred domain."""
    if given.flags:
        raise RuntimeError("the control run with the domain given is flagged too: " + "; ".join(map(str, given.flags)))
    return [f for f in inferred.flags if f.kind == "data_bound"]


# -- dpmm#18 -----------------------------------------------------------------------------------------------------------

def _integer_pair() -> tuple[Any, Any]:
    """D: 40 records of (a, b), a in {0, 1, 2}, b in {0, 1}; D': the last record's a replaced by 5."""
    d = np.array([[i % 3, (i // 3) % 2] for i in range(40)], dtype=np.int64)
    d_prime = d.copy()
    d_prime[-1, 0] = 5
    return d, d_prime


def _fit_priv_bayes(domain: dict | None) -> Any:
    """The fit of dpmm's ``PrivBayes`` mechanism (epsilon 1, delta 1e-5, marginals only) on a two-column table, as a
    function of the private array. Two columns make the structure data-independent: the root is drawn by the seeded
    generator and the second column has one candidate parent set, so every measured marginal is fixed in advance
    and only its number of cells can depend on the data."""
    import pandas as pd
    from dpmm.models.priv_bayes import PrivBayes

    template = _built(PrivBayes, epsilon=1.0, delta=1e-5, domain=None, n_jobs=1, prng=np.random.RandomState(0))

    def fit(data: Any) -> None:
        df = pd.DataFrame(np.asarray(data, dtype=np.int64), columns=["a", "b"])
        model = copy.deepcopy(template)
        if domain is not None:
            model.set_domain(dict(domain))
        model.fit(df, marginals_only=True)

    return fit


_BUILT: dict = {}


def _built(cls: Any, **kwargs: Any) -> Any:
    """``cls(**kwargs)``, built once per process (dpmm's constructors convert (epsilon, delta) to zCDP's rho with a
    bisection in pure Python, about 2 s each); each run fits a deep copy of it, so every run starts from the same
    state."""
    key = (cls, tuple(sorted((k, repr(v)) for k, v in kwargs.items())))
    if key not in _BUILT:
        _BUILT[key] = cls(**kwargs)
    return _BUILT[key]


def _dpmm_18() -> dict:
    """dpmm#18 (PR #19): a marginal model fitted without a domain reads it from the private table.

    ``Mechanism.fit`` (``dpmm/models/base/mechanisms/mechanism.py:112`` in 0.1.9, the same in 0.1.1) sets
    ``_domain = (df.astype(int).max(axis=0) + 1).to_dict()`` when no domain was given: each column's size is its
    private maximum plus one, unnoised and unbudgeted, and it fixes the number of cells of every measured marginal,
    so the released noisy marginals (and the synthetic data's range) reveal the maximum. Neighbours (replace-one):
    D has 40 records with a in {0, 1, 2}; D' replaces the last record's a by 5. ``PrivBayes(epsilon=1,
    delta=1e-5, domain=None)`` measures the one-way marginal of a and the two-way marginal (a, b) with 3 and 6 cells
    on D, 6 and 12 on D'. The check records ``gaussian_noise`` on D and replays D' with the same draws: a noise
    vector whose shape differs between D and D' (a ``data_bound`` flag) is the defect ("reproduced"). The same fit
    with ``domain={"a": 6, "b": 2}`` must flag nothing (``flags_with_domain``). The fix (PR #19, merged after 0.1.9,
    unreleased on PyPI) makes the domain a required argument and asserts it is given: a fit without a domain that
    fails on D with an error naming the domain is the fix ("fixed"), the domain-given control still clean."""

    d, d_prime = _integer_pair()
    primitive = _noise_primitive()
    given = record_and_replay(_fit_priv_bayes({"a": 6, "b": 2}), d, d_prime, primitives=[primitive], watch=False)
    try:
        inferred = record_and_replay(_fit_priv_bayes(None), d, d_prime, primitives=[primitive], watch=False)
    except (AssertionError, TypeError, ValueError) as exc:  # the fix: no fit without a domain, on D already
        if "domain" not in str(exc).lower():
            raise
        if given.flags:
            raise RuntimeError("the control run with the domain given is flagged: "
                               + "; ".join(map(str, given.flags))) from None
        return {"status": "fixed", "version": _version("dpmm"), "flags": [], "flags_with_domain": [],
                "detail": (f"PrivBayes refuses to fit without a domain ({type(exc).__name__}: {exc}); with the "
                           "domain given, the noise vectors have the same shapes on D and D' (0 flags)")}
    bad = _shape_flags(inferred, given)
    shapes = [(f.on_d, f.on_d_prime) for f in bad]
    return {"status": "reproduced" if bad else "fixed", "version": _version("dpmm"),
            "flags": [str(f) for f in inferred.flags], "flags_with_domain": [str(f) for f in given.flags],
            "detail": (f"PrivBayes without a domain, a in {{0,1,2}} on D and one a = 5 on D': the noise vectors' "
                       f"shapes differ ({'; '.join(f'{u} vs {v}' for u, v in shapes)}) at {bad[0].site}: the domain "
                       f"is the private maximum + 1; with the domain given, {len(given.flags)} flag(s)") if bad else
                      (f"PrivBayes without a domain: the noise vectors have the same shapes on D and D' "
                       f"({len(inferred.flags)} flag(s)); with the domain given, {len(given.flags)} flag(s)")}


# -- dpmm#24 -----------------------------------------------------------------------------------------------------------

def _categorical_pair() -> tuple[Any, Any]:
    """D: 40 records of (c, e), c in {"x", "y"}, e in {"u", "v"}; D': the last record's c replaced by "z"."""
    d = np.array([["xy"[i % 2], "uv"[(i // 2) % 2]] for i in range(40)], dtype=object)
    d_prime = d.copy()
    d_prime[-1, 0] = "z"
    return d, d_prime


def _fit_pipeline(domain: dict | None) -> Any:
    """dpmm's generative pipeline (``TableBinner`` preprocessing, then ``PrivBayesGM`` with epsilon 1, delta 1e-5,
    no compression, marginals only) fitted on a two-column categorical table, as a function of the private array."""
    import pandas as pd
    from dpmm.models.priv_bayes import PrivBayesGM
    from dpmm.pipelines.base import GenerativePipeline
    from dpmm.processing.table_binner import TableBinner

    template = _built(PrivBayesGM, epsilon=1.0, delta=1e-5, compress=False, n_jobs=1, domain=None)

    def fit(data: Any) -> None:
        df = pd.DataFrame(np.asarray(data, dtype=object), columns=["c", "e"]).astype("category")
        gen = copy.deepcopy(template)
        pipeline = GenerativePipeline(gen=gen, proc=TableBinner(binner_type="uniform"))
        pipeline.fit(df, domain=None if domain is None else {k: dict(v) for k, v in domain.items()},
                     random_state=0, marginals_only=True)

    return fit


def _dpmm_24() -> dict:
    """dpmm#24: the preprocessing reads a categorical column's categories from the private table.

    ``TableBinner.get_categories`` (``dpmm/processing/table_binner.py:147`` in 0.1.9; the same code in 0.1.1) logs
    ``"PrivacyLeakage: No categorical domain provided for Column ... - will be imputed"`` and takes
    ``series.unique()`` of the private column as its categories when the domain does not list them: a category held
    by one record enters the domain, the number of cells of every marginal on that column and the synthetic data's
    values, with no noise and no budget (the maintainers: "There's no current mechanism to extract categorical
    domains in a DP way when no domain is provided"). Neighbours (replace-one): D has 40 records with c in {x, y};
    D' replaces the last record's c by "z". The pipeline (``TableBinner`` + ``PrivBayesGM(epsilon=1,
    delta=1e-5)``) measures marginals of c with 2 cells on D and 3 on D'. The check records ``gaussian_noise`` on D
    and replays D' with the same draws: a noise vector whose shape differs (a ``data_bound`` flag) is the defect
    ("reproduced"). With the categories given (``{"c": {"categories": ["x", "y", "z"]}, ...}``) nothing may be
    flagged (``flags_with_domain``). The issue is open: no fixed release."""

    d, d_prime = _categorical_pair()
    primitive = _noise_primitive()
    inferred = record_and_replay(_fit_pipeline(None), d, d_prime, primitives=[primitive], watch=False)
    public = {"c": {"categories": ["x", "y", "z"]}, "e": {"categories": ["u", "v"]}}
    given = record_and_replay(_fit_pipeline(public), d, d_prime, primitives=[primitive], watch=False)
    bad = _shape_flags(inferred, given)
    shapes = [(f.on_d, f.on_d_prime) for f in bad]
    return {"status": "reproduced" if bad else "fixed", "version": _version("dpmm"),
            "flags": [str(f) for f in inferred.flags], "flags_with_domain": [str(f) for f in given.flags],
            "detail": (f"pipeline without categories, c in {{x,y}} on D and one c = 'z' on D': the noise vectors' "
                       f"shapes differ ({'; '.join(f'{u} vs {v}' for u, v in shapes)}) at {bad[0].site}: the "
                       f"categories are the private column's unique values; with the categories given, "
                       f"{len(given.flags)} flag(s)") if bad else
                      (f"pipeline without categories: the noise vectors have the same shapes on D and D' "
                       f"({len(inferred.flags)} flag(s)); with the categories given, {len(given.flags)} flag(s)")}


CASES: tuple[CorpusCase, ...] = (
    CorpusCase("dpmm#18", "dpmm", "a marginal model fitted without a domain reads it from the private maximum",
               ("https://github.com/sassoftware/dpmm/issues/18", "https://github.com/sassoftware/dpmm/pull/19"),
               "issue closed; fix PR #19 merged on main (version 0.2.0 in pyproject.toml) but unreleased: PyPI's "
               "latest is 0.1.9, so no fixed release to install", "library", _dpmm_18,
               affected=">=0.1.1", fixed_in=None, method="replay",
               datasets="replace-one: 40 records (a in {0,1,2}, b in {0,1}); D' replaces one record's a by 5",
               releases=("0.1.1", "0.1.9"), isolation="venv"),
    CorpusCase("dpmm#24", "dpmm", "categorical domains imputed from the private column's unique values",
               ("https://github.com/sassoftware/dpmm/issues/24", "https://github.com/sassoftware/dpmm/issues/18"),
               "issue open (maintainer, 2026-05-13: no mechanism yet to extract categorical domains with DP): no "
               "fixed release", "library", _dpmm_24,
               affected=">=0.1.1", fixed_in=None, method="replay",
               datasets="replace-one: 40 records (c in {x,y}, e in {u,v}); D' replaces one record's c by 'z'",
               releases=("0.1.1", "0.1.9"), isolation="venv"),
)
