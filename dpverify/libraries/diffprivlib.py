"""IBM diffprivlib audited through its public API (``diffprivlib.tools`` and ``diffprivlib.models``).

Every catalogue entry is one call as a user writes it, at ``epsilon = 1`` (and ``delta = 0``: the tools and models
below are pure-DP); the claim is read from the library, as the ``(epsilon, delta)`` that diffprivlib's own
:class:`diffprivlib.BudgetAccountant` records after one call (``accountant.total()``). Each release uses a
fresh accountant: diffprivlib's default accountant keeps every spend, and its check is linear in them.

Adjacency. diffprivlib does not state its neighbouring relation; its sensitivities say which one each function is
calibrated to (diffprivlib 0.6, ``diffprivlib/tools/utils.py``): ``sum`` adds Laplace noise of sensitivity
``U - L`` and truncates to ``[n L, n U]``, ``mean`` uses ``(U - L) / n`` and ``var`` ``((U - L) / n)^2 (n - 1)``:
replace-one adjacency with the size ``n`` public (bounded DP; Dwork & Roth 2014, Sec. 2.3). ``histogram`` and
``count_nonzero`` truncates its count to ``[0, n]``: replace-one too. ``histogram`` adds geometric noise of
sensitivity 1 per bin: add/remove adjacency (under replace-one a record moves between two bins, sensitivity 2).
Each function is audited under the relation it is calibrated to; three cross-relation audits (``sum`` and
``count_nonzero`` under add/remove, ``histogram`` under replace-one) show what happens outside it, labelled
expected. Together they show that no single neighbouring relation makes every claim of the library hold.

Bounds. Without ``bounds`` the tools compute them from the data and warn with ``PrivacyLeakWarning`` (the
documented leak): those entries are labelled expected, and the outlier pair must certify far above the claim.

Seeding. ``random_state`` is a ``numpy.random.RandomState`` seeded from the auditor's generator, so an audit is
reproducible from its seed. diffprivlib's calls release one value per call, so the sampler loops over calls (the
library's API allows nothing else; about 0.2 ms per tool call, 1-4 ms per model fit).
"""
from __future__ import annotations

import contextlib
import inspect
import warnings
from contextlib import contextmanager
from importlib.metadata import version as dist_version
from typing import Any, Callable, Iterator

import numpy as np

from dpverify.calculus.guarantees import ApproxDP
from dpverify.libraries.base import Claimed, LabelledPair, LibraryFunction
from dpverify.libraries.ledger import Ledger, Partition, diffprivlib_ledger
from dpverify.libraries.search import array_code, record_pairs
from dpverify.vocabulary import NeighbouringRelation

REPLACE_ONE = NeighbouringRelation.REPLACE_ONE

__all__ = ["catalogue", "version", "EPSILON", "float_sum_probe", "PARTITIONS"]

#: diffprivlib's loops over disjoint parts of the data (histogram bins, a model's classes and clusters) and its
#: one vector release with a joint sensitivity (the eigenvalues of ``covariance_eig``, L1 sensitivity 2), read in
#: diffprivlib 0.6's source; the ledger composes their calls in parallel (:class:`~dpverify.libraries.ledger.Partition`).
#: ``<listcomp>`` frames exist up to Python 3.11; 3.12 inlines comprehensions into the enclosing function.
PARTITIONS = (
    Partition("tools/histograms.py", "histogram", "i"),
    Partition("models/naive_bayes.py", "_partial_fit", "y_i"),
    Partition("models/naive_bayes.py", "<listcomp>", "y_i"),
    Partition("models/naive_bayes.py", "_noisy_class_counts", "y_i"),
    Partition("models/k_means.py", "_update_centers", "cluster"),
    Partition("models/utils.py", "<listcomp>", "eigval", kind="vector"),
    Partition("models/utils.py", "covariance_eig", "eigval", kind="vector"),
)

#: The epsilon every catalogue call is made with (the claim itself is read from the accountant).
EPSILON = 1.0
LIBRARY = "diffprivlib"


def _import():
    try:
        import diffprivlib  # noqa: F401
        from diffprivlib import BudgetAccountant, models, tools
        from diffprivlib.utils import PrivacyLeakWarning
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("diffprivlib is not installed: pip install 'diffprivlib>=0.6' "
                          "(or pip install -e '.[peers]')") from exc
    return tools, models, BudgetAccountant, PrivacyLeakWarning


def version() -> str:
    """The installed diffprivlib version (ImportError with an install hint if it is missing)."""
    _import()

    return dist_version("diffprivlib")


def _entry(name: str, release: Callable[[np.ndarray, Any, Any], Any], code: str, pairs: list,
           adjacency: str, *, expected: str = "", cost: float = 1.0, tags: tuple = (),
           test: Any = "auto", options: dict | None = None, asked: float = EPSILON) -> LibraryFunction:
    """One catalogue entry. ``release(X, random_state, accountant)`` is the library call on dataset ``X``;
    ``code`` the same call as source (a function ``release(X, s)`` body, ``s`` the seed) for the snippet;
    ``asked`` the epsilon the call asks for (the ledger's ``asked``); ``options`` the public options the entry
    sets that change the privacy path (an option sweep)."""
    tools, models, BudgetAccountant, PrivacyLeakWarning = _import()

    def one(X: np.ndarray, random_state: Any) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            # a copy per call: diffprivlib's PCA.fit centres its input in place
            return np.asarray(release(X.copy(), random_state, BudgetAccountant()), dtype=float).ravel()

    def mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        X = np.asarray(dataset, dtype=float)
        rs = np.random.RandomState(int(rng.integers(2**31)))
        out = np.stack([one(X, rs) for _ in range(n)])
        return out[:, 0] if out.shape[1] == 1 else out

    def claim(dataset: Any) -> Claimed:
        acc = BudgetAccountant()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            release(np.array(dataset, dtype=float), np.random.RandomState(0), acc)
        spent = acc.total()
        leak = any(issubclass(w.category, PrivacyLeakWarning) for w in caught)
        return Claimed(float(spent[0]), float(spent[1]),
                       "diffprivlib BudgetAccountant.total() after one call"
                       + ("; the call warned PrivacyLeakWarning" if leak else ""))

    def snippet(dataset: Any, neighbour: Any) -> str:
        body = "\n".join("    " + line for line in code.strip().splitlines())
        return (f"import numpy as np\nfrom diffprivlib import tools, models\n\n"
                f"D = {array_code(dataset)}\nD2 = {array_code(neighbour)}\n\n"
                f"def release(X, s):\n{body}\n\n"
                "a = np.array([release(D, s) for s in range(2000)])\n"
                "b = np.array([release(D2, s) for s in range(2000, 4000)])")

    def ledger(dataset: Any, seed: int) -> Ledger:
        acc = BudgetAccountant()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PrivacyLeakWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            with diffprivlib_ledger(acc, asked=ApproxDP(asked, 0.0), partitions=PARTITIONS,
                                    adjacency=adjacency) as led:
                release(np.array(dataset, dtype=float), np.random.RandomState(seed), acc)
        return led

    return LibraryFunction(LIBRARY, version(), name, mechanism, claim, pairs, adjacency=adjacency,
                           expected=expected, snippet=snippet, test=test, tags=tags, cost=cost, ledger=ledger,
                           options=dict(options or {}))


_NO_BOUNDS = ("no bounds given: diffprivlib computes them from the data and warns PrivacyLeakWarning "
              "(documented); the epsilon it accounts does not cover that leak")
_CROSS = ("audited outside the adjacency diffprivlib calibrates this function to (module docstring): "
          "the claim is not expected to hold here")


def _model_pairs(features: int, *, labelled: bool) -> list[LabelledPair]:
    """Pairs for the models: records ``[x_1..x_features, (y)]`` with features in [0, 1] and labels in {0, 1};
    replace-one (the models' sensitivities assume a public size, like the tools')."""
    rng = np.random.default_rng(20260)
    base = rng.uniform(0.2, 0.8, size=(8, features))
    if labelled:
        base = np.column_stack([base, np.arange(8) % 2])

    def replaced(d: np.ndarray, record: list, label: str, note: str) -> LabelledPair:
        n = d.copy()
        n[-1] = record
        return LabelledPair(d, n, label, note)

    lab = [1.0] if labelled else []
    many = np.repeat(base, 25, axis=0)
    size1 = base[:2] if labelled else base[:1]
    return [
        replaced(base, [1.0] * features + lab, "bounds:replace", "8 records, one moved to the upper corner"),
        replaced(base, [0.0] * features + lab, "bounds_low:replace", "8 records, one moved to the lower corner"),
        replaced(base, [1e6] * features + lab, "outlier:replace", "8 records, one replaced by an outlier 1e6"),
        replaced(size1, [1.0] * features + lab, "small:replace", "the smallest dataset, one record moved"),
        replaced(many, [1.0] * features + lab, "many:replace", "200 records, one moved to the upper corner"),
    ]


def _tools_entries() -> list[LibraryFunction]:
    tools, _, _, _ = _import()
    eps, b = EPSILON, (0.0, 1.0)
    rep = record_pairs(0.0, 1.0, adjacency=REPLACE_ONE)
    add = record_pairs(0.0, 1.0, adjacency="add_remove")
    rep_small = [p for p in rep if not p.label.startswith("many")]  # quantiles are O(n log n) per call

    def tool(fname: str, extra: str, release, pairs, adjacency=REPLACE_ONE, **kw) -> LibraryFunction:
        code = f"return tools.{fname}(X{extra}, random_state=s)"
        return _entry(f"tools.{fname}({extra.lstrip(', ')})", release, code, pairs, adjacency, **kw)

    out = [
        tool("mean", f", epsilon={eps}, bounds={b}",
             lambda X, rs, acc: tools.mean(X, epsilon=eps, bounds=b, random_state=rs, accountant=acc), rep),
        tool("var", f", epsilon={eps}, bounds={b}",
             lambda X, rs, acc: tools.var(X, epsilon=eps, bounds=b, random_state=rs, accountant=acc), rep),
        tool("std", f", epsilon={eps}, bounds={b}",
             lambda X, rs, acc: tools.std(X, epsilon=eps, bounds=b, random_state=rs, accountant=acc), rep),
        tool("sum", f", epsilon={eps}, bounds={b}",
             lambda X, rs, acc: tools.sum(X, epsilon=eps, bounds=b, random_state=rs, accountant=acc), rep,
             tags=("float-sum",)),
        tool("nansum", f", epsilon={eps}, bounds={b}",
             lambda X, rs, acc: tools.nansum(X, epsilon=eps, bounds=b, random_state=rs, accountant=acc), rep,
             tags=("float-sum",)),
        tool("quantile", f", 0.25, epsilon={eps}, bounds={b}",
             lambda X, rs, acc: tools.quantile(X, 0.25, epsilon=eps, bounds=b, random_state=rs, accountant=acc),
             rep_small),
        tool("median", f", epsilon={eps}, bounds={b}",
             lambda X, rs, acc: tools.median(X, epsilon=eps, bounds=b, random_state=rs, accountant=acc), rep_small),
        tool("count_nonzero", f", epsilon={eps}",
             lambda X, rs, acc: tools.count_nonzero(X, epsilon=eps, random_state=rs, accountant=acc), rep),
        _entry(f"tools.histogram(bins=4, range={b}, epsilon={eps})",
               lambda X, rs, acc: tools.histogram(X, epsilon=eps, bins=4, range=b, random_state=rs,
                                                  accountant=acc)[0],
               f"return tools.histogram(X, epsilon={eps}, bins=4, range={b}, random_state=s)[0]", add, "add_remove"),
        # cross-adjacency: what the calibration does not cover
        _entry(f"tools.histogram(bins=4, range={b}, epsilon={eps}) [replace-one]",
               lambda X, rs, acc: tools.histogram(X, epsilon=eps, bins=4, range=b, random_state=rs,
                                                  accountant=acc)[0],
               f"return tools.histogram(X, epsilon={eps}, bins=4, range={b}, random_state=s)[0]",
               record_pairs(0.0, 1.0, adjacency=REPLACE_ONE, families=("bounds", "size1")), REPLACE_ONE,
               expected=_CROSS + " (replace-one moves a record between two bins: sensitivity 2)", tags=("cross",)),
        _entry(f"tools.sum(epsilon={eps}, bounds={b}) [add/remove]",
               lambda X, rs, acc: tools.sum(X, epsilon=eps, bounds=b, random_state=rs, accountant=acc),
               f"return tools.sum(X, epsilon={eps}, bounds={b}, random_state=s)",
               record_pairs(0.0, 1.0, adjacency="add_remove", families=("bounds", "size1", "empty")), "add_remove",
               expected=_CROSS + " (the output is truncated to [n L, n U], which depends on n)", tags=("cross",)),
        _entry(f"tools.count_nonzero(epsilon={eps}) [add/remove]",
               lambda X, rs, acc: tools.count_nonzero(X, epsilon=eps, random_state=rs, accountant=acc),
               f"return tools.count_nonzero(X, epsilon={eps}, random_state=s)",
               record_pairs(0.0, 1.0, adjacency="add_remove", families=("bounds", "size1", "empty")), "add_remove",
               expected=_CROSS + " (the count is truncated to [0, n], which depends on n)", tags=("cross",)),
        # no bounds: the documented leak
        tool("mean", f", epsilon={eps}",
             lambda X, rs, acc: tools.mean(X, epsilon=eps, random_state=rs, accountant=acc),
             record_pairs(0.0, 1.0, adjacency=REPLACE_ONE, families=("outlier", "bounds")),
             expected=_NO_BOUNDS, tags=("no-bounds",)),
        tool("var", f", epsilon={eps}",
             lambda X, rs, acc: tools.var(X, epsilon=eps, random_state=rs, accountant=acc),
             record_pairs(0.0, 1.0, adjacency=REPLACE_ONE, families=("outlier", "bounds")),
             expected=_NO_BOUNDS, tags=("no-bounds",)),
        tool("sum", f", epsilon={eps}",
             lambda X, rs, acc: tools.sum(X, epsilon=eps, random_state=rs, accountant=acc),
             record_pairs(0.0, 1.0, adjacency=REPLACE_ONE, families=("outlier", "bounds")),
             expected=_NO_BOUNDS, tags=("no-bounds",)),
    ]
    return out


@contextmanager
def sklearn_compat() -> Iterator[str]:
    """diffprivlib 0.6.6's ``models.LogisticRegression`` passes ``multi_class`` to scikit-learn's constructor,
    which scikit-learn 1.8 removed (``TypeError: ... unexpected keyword argument 'multi_class'``); it works with
    scikit-learn < 1.8 (checked with 1.7.2). On 1.8 and later this shim lets scikit-learn's constructor accept the
    argument and store it as an attribute, as 1.7 did, for the duration of the block; diffprivlib's own code (its
    fit, its mechanisms) is untouched. Yields a note saying whether the shim is active ("" when not needed)."""
    import sklearn
    import sklearn.linear_model as sl

    init = sl.LogisticRegression.__init__
    if "multi_class" in inspect.signature(init).parameters:
        yield ""
        return

    def compat_init(self, *args, multi_class="ovr", **kwargs):
        init(self, *args, **kwargs)
        self.multi_class = multi_class

    sl.LogisticRegression.__init__ = compat_init  # type: ignore[method-assign]
    try:
        yield (f"scikit-learn {sklearn.__version__} removed LogisticRegression(multi_class=...); audited through "
               "dpverify's constructor shim (dpverify.libraries.diffprivlib.sklearn_compat): diffprivlib's fit is "
               "unchanged; without it the call needs scikit-learn < 1.8")
    finally:
        sl.LogisticRegression.__init__ = init  # type: ignore[method-assign]


def _model_entry(name: str, make: Callable, code: str, stat: Callable, labelled: bool, features: int,
                 stat_code: str, *, options: dict | None = None, expected: str = "", tags: tuple = (),
                 cost: float = 4.0, compat: bool = False, families: tuple[str, ...] = ()) -> LibraryFunction:
    """A model of diffprivlib as a catalogue entry: ``make(random_state, accountant)`` built, fitted on the data
    (features and integer labels when ``labelled``; inside :func:`sklearn_compat` when ``compat``), released through
    ``stat``; ``code``/``stat_code`` are the same in words for the reproduction snippet; the pairs are the model pairs
    of ``features`` (only the ``families`` named, when given)."""
    def release(X, rs, acc):
        with sklearn_compat() if compat else contextlib.nullcontext():
            m = make(rs, acc)
            m.fit(X[:, :-1], X[:, -1].astype(int)) if labelled else m.fit(X)
        return stat(m)

    fit = "m.fit(X[:, :-1], X[:, -1].astype(int))" if labelled else "m.fit(X)"
    pairs = [p for p in _model_pairs(features, labelled=labelled) if not families or p.label.split(":")[0] in families]
    return _entry(name, release, f"m = {code}\n{fit}\nreturn {stat_code}", pairs, REPLACE_ONE, cost=cost,
                  tags=("model",) + tags, options=options, expected=expected)


def _models_entries() -> list[LibraryFunction]:
    _, models, _, _ = _import()
    eps = EPSILON
    model = _model_entry

    b1 = ([0.0], [1.0])
    bs = ([-1.0], [1.0])
    b2 = ([0.0, 0.0], [1.0, 1.0])
    lin_stat, lin_code = (lambda m: np.r_[np.ravel(m.coef_), m.intercept_]), "np.r_[np.ravel(m.coef_), m.intercept_]"
    log_stat = lin_stat
    log_code = "np.r_[m.coef_.ravel(), m.intercept_]"
    return [
        model(f"models.GaussianNB(epsilon={eps}, bounds={b1}).theta_",
              lambda rs, acc: models.GaussianNB(epsilon=eps, bounds=b1, random_state=rs, accountant=acc),
              f"models.GaussianNB(epsilon={eps}, bounds={b1}, random_state=s)",
              lambda m: m.theta_.ravel(), True, 1, "m.theta_.ravel()", options={"bounds": "given"}),
        model(f"models.GaussianNB(epsilon={eps}).theta_ [bounds inferred]",
              lambda rs, acc: models.GaussianNB(epsilon=eps, random_state=rs, accountant=acc),
              f"models.GaussianNB(epsilon={eps}, random_state=s)",
              lambda m: m.theta_.ravel(), True, 1, "m.theta_.ravel()", options={"bounds": "inferred"},
              expected=_NO_BOUNDS, tags=("no-bounds", "sweep")),
        model(f"models.LogisticRegression(epsilon={eps}, data_norm=1.0).coef_",
              lambda rs, acc: models.LogisticRegression(epsilon=eps, data_norm=1.0, random_state=rs, accountant=acc),
              f"models.LogisticRegression(epsilon={eps}, data_norm=1.0, random_state=s)",
              log_stat, True, 1, log_code, options={"fit_intercept": True, "data_norm": "given"}, compat=True,
              cost=40.0, families=("bounds", "outlier", "small")),
        model(f"models.LogisticRegression(epsilon={eps}, data_norm=1.0, fit_intercept=False).coef_",
              lambda rs, acc: models.LogisticRegression(epsilon=eps, data_norm=1.0, fit_intercept=False,
                                                        random_state=rs, accountant=acc),
              f"models.LogisticRegression(epsilon={eps}, data_norm=1.0, fit_intercept=False, random_state=s)",
              log_stat, True, 1, log_code, options={"fit_intercept": False, "data_norm": "given"}, compat=True,
              tags=("sweep",), cost=10.0, families=("bounds", "outlier", "small")),
        model(f"models.LinearRegression(epsilon={eps}, bounds_X={b1}, bounds_y=(0, 1)).coef_",
              lambda rs, acc: models.LinearRegression(epsilon=eps, bounds_X=b1, bounds_y=(0.0, 1.0), random_state=rs,
                                                      accountant=acc),
              f"models.LinearRegression(epsilon={eps}, bounds_X={b1}, bounds_y=(0.0, 1.0), random_state=s)",
              lin_stat, True, 1, lin_code, options={"fit_intercept": True, "bounds": "given", "bounds_X": b1}),
        *(model(f"models.LinearRegression(epsilon={eps}, bounds_X={bx}, bounds_y=(0, 1), fit_intercept=False).coef_",
                lambda rs, acc, bx=bx: models.LinearRegression(epsilon=eps, bounds_X=bx, bounds_y=(0.0, 1.0),
                                                               fit_intercept=False, random_state=rs, accountant=acc),
                f"models.LinearRegression(epsilon={eps}, bounds_X={bx}, bounds_y=(0.0, 1.0), fit_intercept=False, "
                "random_state=s)",
                lin_stat, True, 1, lin_code, options={"fit_intercept": False, "bounds": "given", "bounds_X": bx},
                tags=tags)
          for bx, tags in ((b1, ("sweep",)), (bs, ("sweep", "control")))),
        model(f"models.LinearRegression(epsilon={eps}).coef_ [bounds inferred]",
              lambda rs, acc: models.LinearRegression(epsilon=eps, random_state=rs, accountant=acc),
              f"models.LinearRegression(epsilon={eps}, random_state=s)",
              lin_stat, True, 1, lin_code, options={"fit_intercept": True, "bounds": "inferred"},
              expected=_NO_BOUNDS, tags=("no-bounds", "sweep"), families=("outlier",)),
        model(f"models.PCA(1, epsilon={eps}, data_norm=1.5, bounds={b2}).explained_variance_",
              lambda rs, acc: models.PCA(n_components=1, epsilon=eps, data_norm=1.5, bounds=b2, random_state=rs,
                                         accountant=acc),
              f"models.PCA(n_components=1, epsilon={eps}, data_norm=1.5, bounds={b2}, random_state=s)",
              lambda m: np.r_[m.mean_, m.explained_variance_], False, 2, "np.r_[m.mean_, m.explained_variance_]",
              options={"centered": False, "bounds": "given", "data_norm": "given"}),
        model(f"models.PCA(1, epsilon={eps}, data_norm=1.5, centered=True).explained_variance_",
              lambda rs, acc: models.PCA(n_components=1, epsilon=eps, data_norm=1.5, centered=True, random_state=rs,
                                         accountant=acc),
              f"models.PCA(n_components=1, epsilon={eps}, data_norm=1.5, centered=True, random_state=s)",
              lambda m: m.explained_variance_, False, 2, "m.explained_variance_",
              options={"centered": True, "data_norm": "given"}, tags=("sweep",)),
        model(f"models.KMeans(2, epsilon={eps}, bounds={b1}).cluster_centers_",
              lambda rs, acc: models.KMeans(n_clusters=2, epsilon=eps, bounds=b1, random_state=rs, accountant=acc),
              f"models.KMeans(n_clusters=2, epsilon={eps}, bounds={b1}, random_state=s)",
              lambda m: np.sort(m.cluster_centers_.ravel()), False, 1, "np.sort(m.cluster_centers_.ravel())",
              options={"bounds": "given"}, cost=8.0),
        model(f"models.StandardScaler(epsilon={eps}, bounds={b1}).mean_,var_",
              lambda rs, acc: models.StandardScaler(epsilon=eps, bounds=b1, random_state=rs, accountant=acc),
              f"models.StandardScaler(epsilon={eps}, bounds={b1}, random_state=s)",
              lambda m: np.r_[m.mean_, m.var_], False, 1, "np.r_[m.mean_, m.var_]", options={"bounds": "given"}),
    ]


def catalogue() -> list[LibraryFunction]:
    """diffprivlib's audited functions (module docstring): 15 tools calls (9 with bounds, 3 outside their
    adjacency, 3 without bounds) and 12 model rows: the 6 models plus an option sweep of the options that change
    their privacy path (``fit_intercept``, bounds given or inferred, symmetric bounds, ``centered``), each row's
    ``options`` saying which setting it audits (ImportError with an install hint if diffprivlib is missing)."""
    return _tools_entries() + _models_entries()


def float_sum_probe(sizes: tuple[int, ...] = (8, 128, 1_000, 100_000), upper: float = 2.0**53) -> list[dict]:
    """Realized sensitivity of diffprivlib's bounded sums in float64, read through the public API.

    ``tools.sum``/``tools.nansum`` with bounds ``(0, U)`` declare sensitivity ``U`` (``U - L``). In floating point
    the computed sums of two neighbours can differ by more than that (Casacuberta et al. 2022, Sec. 3: rounding
    errors of the additions). Called with ``epsilon=inf`` the library adds no noise and returns its computed sum,
    so the realized difference ``|sum(D) - sum(D')|`` is observed without reimplementing anything.

    The datasets make rounding go one way: ``U = 2^53`` first, then records of 3 at every 8th position (numpy's
    pairwise summation keeps 8 running sums, so they meet ``U`` in one of them), zeros elsewhere. Near ``2^53`` the
    float64 spacing is 2, and ``x + 3`` rounds to ``x + 4`` (ties to even), so every 3 added after ``U`` adds 4: the
    sum of ``D`` is overestimated. The neighbour replaces ``U`` by 0, and its sum of small integers is exact. Hence
    ``|sum(D) - sum(D')| > U`` by the accumulated rounding. Returns one dict per (function, n): ``realized``,
    ``declared``, ``ratio = realized / declared`` (> 1: the sensitivity is underestimated, and a Laplace release
    spends ``ratio`` times the claimed epsilon on this pair)."""
    tools, _, BudgetAccountant, _ = _import()
    out = []
    for fname in ("sum", "nansum"):
        fn = getattr(tools, fname)

        def value(x: np.ndarray) -> float:
            return float(fn(x, epsilon=float("inf"), bounds=(0.0, upper), random_state=0,
                            accountant=BudgetAccountant()))

        for n in sizes:
            d = np.zeros(n)
            d[::8] = 3.0
            d[0] = upper
            nb = d.copy()
            nb[0] = 0.0
            realized = abs(value(d) - value(nb))
            out.append({"function": f"tools.{fname}(bounds=(0, 2**53))", "n": int(n), "realized": realized,
                        "declared": upper, "ratio": realized / upper, "excess": realized - upper})
    return out
