"""OpenDP audited through its public API: measurements chained the way its documentation builds them.

Each entry is the source of one measurement, built with the ``then_*`` chaining API on the input space
``vector_domain(atom_domain(T=...)) x symmetric_distance()`` (OpenDP docs, "Getting Started" and
"Transformations" / "Measurements" user guides): clamp, then sum / resize + mean / resize + variance / count /
count by categories, then Laplace, Gaussian or geometric noise; private quantiles; randomized response; noisy max;
and the zCDP -> approximate-DP conversion (``dp.c.make_zCDP_to_approxDP`` and ``dp.c.make_fix_delta``). The source
string is both what is built (``eval``) and what the reproduction snippet prints, so the two cannot drift apart.

Claim: the measurement's own privacy map at ``d_in = 1`` (one record added or removed: the symmetric distance of
add/remove adjacency; ``DiscreteDistance`` 1 for randomized response, one record changed; for noisy max on a
score vector under the L-infinity distance, the dataset is one record, the score vector, and its neighbour is any
vector within distance 1): ``meas.map(1)`` is an
epsilon for ``MaxDivergence``, ``(epsilon, delta)`` for an approximate-DP measurement, and for a zCDP measurement
the profile of ``make_zCDP_to_approxDP`` read at :data:`DELTA`.

Randomness: OpenDP samples its noise from the operating system's generator, not from the ``rng`` the auditor
passes, so an audit cannot be replayed sample by sample: the entries are marked ``reproducible=False``, the runner
silences the auditor's ``NonReproducibleMechanismWarning`` for them on purpose, and a verdict is reproduced by
re-running on fresh samples (which is what the runner's confirmation does anyway). The certificate stays valid:
the outputs are independent draws whatever their source.
"""
from __future__ import annotations

from importlib.metadata import version as dist_version
from typing import Any

import numpy as np

from dpverify.libraries.base import Claimed, LabelledPair, LibraryFunction
from dpverify.libraries.opendp_ledger import opendp_ledger, read_claim
from dpverify.libraries.search import array_code, record_pairs
from dpverify.vocabulary import NeighbouringRelation

__all__ = ["DELTA", "SOURCES", "catalogue", "read_claim", "release_ledger", "version"]

LIBRARY = "opendp"
#: The delta at which zCDP measurements are converted to approximate DP.
DELTA = 1e-6

_F = "(dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.symmetric_distance())"
_I = "(dp.vector_domain(dp.atom_domain(T=int)), dp.symmetric_distance())"

#: (name, measurement source, record type, tags). Scales are chosen so that the claims are near 1.
SOURCES: tuple[tuple[str, str, str, tuple], ...] = (
    ("clamp+sum+laplace", f"{_F} >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sum() >> dp.m.then_laplace(scale=1.0)",
     "float", ("float-sum",)),
    ("clamp+sum+gaussian->approxDP",
     f"dp.c.make_zCDP_to_approxDP({_F} >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sum() >> "
     "dp.m.then_gaussian(scale=4.0))", "float", ("float-sum", "zcdp")),
    ("clamp+sum+gaussian->fix_delta",
     f"dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP({_F} >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_sum() >> "
     f"dp.m.then_gaussian(scale=4.0)), {DELTA})", "float", ("float-sum", "zcdp")),
    ("clamp+resize+mean+laplace",
     f"{_F} >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_resize(size=8, constant=0.5) >> dp.t.then_mean() >> "
     "dp.m.then_laplace(scale=0.125)", "float", ()),
    ("clamp+resize+variance+laplace",
     f"{_F} >> dp.t.then_clamp((0.0, 1.0)) >> dp.t.then_resize(size=8, constant=0.5) >> dp.t.then_variance() >> "
     "dp.m.then_laplace(scale=0.125)", "float", ()),
    ("count+laplace", f"{_I} >> dp.t.then_count() >> dp.m.then_laplace(scale=1.0)", "int", ()),
    ("count+gaussian->approxDP",
     f"dp.c.make_zCDP_to_approxDP({_I} >> dp.t.then_count() >> dp.m.then_gaussian(scale=3.0))", "int", ("zcdp",)),
    ("int clamp+sum+laplace", f"{_I} >> dp.t.then_clamp((0, 1)) >> dp.t.then_sum() >> dp.m.then_laplace(scale=1.0)",
     "int", ()),
    ("int clamp+sum+geometric",
     f"{_I} >> dp.t.then_clamp((0, 1)) >> dp.t.then_sum() >> dp.m.then_geometric(scale=1.0, bounds=(-60, 260))",
     "int", ()),
    ("count_by_categories+laplace",
     f"{_I} >> dp.t.then_count_by_categories(categories=[0, 1], null_category=True) >> dp.m.then_laplace(scale=1.0)",
     "int", ("vector",)),
    ("noisy_max(linf scores)",
     "dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T=int)), dp.linf_distance(T=int), dp.max_divergence(), "
     "scale=1.0)", "scores", ()),
    ("private_quantile(median)",
     f"{_F} >> dp.m.then_private_quantile(dp.max_divergence(), candidates=[0.0, 0.25, 0.5, 0.75, 1.0], alpha=0.5, "
     "scale=1.0)", "float", ()),
    ("randomized_response_bool", "dp.m.make_randomized_response_bool(prob=0.75)", "bool", ()),
)


def _dp():
    try:
        import opendp.prelude as dp
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("opendp is not installed: pip install 'opendp>=0.16' (or pip install -e '.[peers]')") from exc
    dp.enable_features("contrib")
    return dp


def version() -> str:
    """The installed OpenDP version (ImportError with an install hint if it is missing)."""
    _dp()

    return dist_version("opendp")


def _convert(dataset: Any, kind: str) -> Any:
    arr = np.asarray(dataset, dtype=float)
    if kind == "float":
        return [float(v) for v in arr.ravel()]
    if kind == "int":
        return [int(v) for v in arr.ravel()]
    if kind == "scores":  # one record: the whole score vector
        return [int(v) for v in arr[0]]
    return bool(arr.ravel()[0])  # one record for randomized response


def _pairs(kind: str) -> list:
    if kind == "bool":
        return [LabelledPair(np.array([1.0]), np.array([0.0]), "flip:replace", "the one record flipped"),
                LabelledPair(np.array([0.0]), np.array([1.0]), "flip_back:replace", "the one record flipped back")]
    if kind == "scores":  # linf distance 1 between score vectors: one "record" (the vector) changes
        return [LabelledPair(np.array([[1.0, 0.0]]), np.array([[0.0, 1.0]]), "swap:linf",
                             "scores (1, 0) -> (0, 1): both move by 1, in opposite directions"),
                LabelledPair(np.array([[0.0, 0.0]]), np.array([[1.0, 0.0]]), "one:linf", "one score moves by 1")]
    if kind == "int":  # 1e300 is no int; 200 records keep the geometric's bounded support small
        return record_pairs(0, 1, adjacency="add_remove", many=200,
                            families=("bounds", "outlier", "duplicates", "size1", "empty", "many"), mid=0)
    return record_pairs(0.0, 1.0, adjacency="add_remove")


def _entry(name: str, source: str, kind: str, tags: tuple, ver: str) -> LibraryFunction:
    dp = _dp()
    try:
        meas = eval(source, {"dp": dp})  # noqa: S307 - our own constant source strings (SOURCES)
        claimed: Claimed | Exception = read_claim(meas, 1)
    except Exception as exc:  # this OpenDP cannot build it: the runner reports the entry as unavailable
        meas, claimed = None, exc

    def claim(dataset: Any) -> Claimed:
        if isinstance(claimed, Exception):
            raise claimed
        return claimed

    def mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        data = _convert(dataset, kind)
        out = np.asarray([meas(data) for _ in range(n)], dtype=float)
        return out

    def snippet(dataset: Any, neighbour: Any) -> str:
        conv = {"float": "[float(v) for v in {}]", "int": "[int(v) for v in {}]", "bool": "bool({}[0])",
                "scores": "[int(v) for v in {}[0]]"}[kind]
        return (f"import numpy as np\nimport opendp.prelude as dp\ndp.enable_features('contrib')\n\n"
                f"meas = {source}\nprint(meas.map(1))\n"
                f"D = {conv.format(array_code(dataset))}\nD2 = {conv.format(array_code(neighbour))}\n"
                "a = np.array([meas(D) for _ in range(2000)], dtype=float)\n"
                "b = np.array([meas(D2) for _ in range(2000)], dtype=float)")

    adjacency = NeighbouringRelation.REPLACE_ONE if kind in ("bool", "scores") else NeighbouringRelation.ADD_REMOVE

    def ledger(dataset: Any, seed: int = 0) -> Any:
        # ``seed`` is unused: OpenDP draws its noise from the operating system (module docstring)
        return release_ledger(source, _convert(dataset, kind), adjacency=adjacency)

    return LibraryFunction(LIBRARY, ver, name, mechanism, claim, _pairs(kind),
                           adjacency=adjacency, snippet=snippet, tags=tags, reproducible=False,
                           ledger=None if meas is None else ledger)


def release_ledger(source: str, data: Any, *, d_in: Any = 1, delta: float = DELTA, releases: int = 1,
                   adjacency: str = "add_remove") -> Any:
    """The budget ledger (:mod:`dpverify.libraries.opendp_ledger`) of building the measurement ``source`` (OpenDP
    code over ``dp``, as in :data:`SOURCES`) and releasing it ``releases`` times on ``data``: ``recorded`` is the
    measurement's privacy map at ``d_in`` (once: the map of one release), ``spent`` dpverify's composition of every
    noise measurement invoked."""
    if isinstance(releases, bool) or not isinstance(releases, int) or releases < 1:
        raise ValueError(f"releases must be an integer >= 1; got {releases!r}")
    dp = _dp()
    with opendp_ledger(d_in, delta) as led:
        led.adjacency = adjacency
        meas = eval(source, {"dp": dp})  # source strings the caller wrote (SOURCES, tests)
        led.release = meas
        for _ in range(releases):
            meas(data)
    return led


def catalogue() -> list[LibraryFunction]:
    """OpenDP's audited measurements (:data:`SOURCES`; ImportError with an install hint if OpenDP is missing)."""
    ver = version()
    return [_entry(name, source, kind, tags, ver) for name, source, kind, tags in SOURCES]
