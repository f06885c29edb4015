"""PyDP (``python-dp``, OpenMined's Python binding of Google's C++ differential-privacy library) audited through its
public API.

Entries (:data:`ENTRIES`): the algorithms of ``pydp.algorithms.laplacian`` -- ``BoundedSum``, ``BoundedMean``,
``BoundedVariance``, ``BoundedStandardDeviation``, ``Count``, ``Max``, ``Min``, ``Median``, ``Percentile`` --
built with explicit bounds ``[0, 1]`` (float records; ``BoundedSum`` also on int records in ``[0, 10]``) and
released with ``quick_result(data)`` (which resets the budget and spends all of it on one release); and the
numerical mechanisms ``LaplaceMechanism(epsilon, sensitivity).add_noise(x)`` and
``GaussianMechanism(epsilon, delta, l2_sensitivity).add_noise(x)`` on a one-record "dataset" whose record is the
value ``x``.

Neighbouring relation: the algorithms' privacy unit is one record added or removed (each privacy unit contributes
one record to one partition: ``l0_sensitivity = linf_sensitivity = 1``, the defaults); pairs are
:func:`dpverify.libraries.search.record_pairs` under add/remove between the bounds (``float_max`` left out for the
int entry). The mechanisms are audited on values ``x`` and ``x'`` at distance ``sensitivity`` (replace-one: the
value is the whole dataset).

Claim: the algorithm's (mechanism's) own ``epsilon`` and ``delta`` properties, read from the built object.

Randomness: PyDP draws its noise in C++ from its own generator (not seedable from Python), not from the
``rng`` the auditor passes: the entries are ``reproducible=False`` (as OpenDP's) and a verdict is reproduced by
re-running on fresh samples.

Ledger: none. PyDP's algorithms call their noise primitives inside the C++ library; no Python-level call can be
recorded (the ledger of :mod:`dpverify.libraries.ledger` needs Python call sites).
"""
from __future__ import annotations

from importlib.metadata import version as dist_version
from typing import Any, Callable

import numpy as np

from dpverify.libraries.base import Claimed, LabelledPair, LibraryFunction
from dpverify.libraries.search import array_code, record_pairs
from dpverify.vocabulary import NeighbouringRelation

__all__ = ["ENTRIES", "catalogue", "version", "LIBRARY"]

LIBRARY = "python-dp"

#: (name, constructor source over the modules ``L`` = pydp.algorithms.laplacian and ``M`` =
#: pydp.algorithms.numerical_mechanisms, kind). kind "float"/"int": an algorithm released with quick_result on the
#: records; "value": a numerical mechanism released with add_noise on the one record.
ENTRIES: tuple[tuple[str, str, str], ...] = (
    ("BoundedSum(float, [0, 1])", "L.BoundedSum(epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype='float')",
     "float"),
    ("BoundedSum(int, [0, 10])", "L.BoundedSum(epsilon=1.0, lower_bound=0, upper_bound=10, dtype='int')", "int"),
    ("BoundedMean(float, [0, 1])", "L.BoundedMean(epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype='float')",
     "float"),
    ("BoundedVariance(float, [0, 1])",
     "L.BoundedVariance(epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype='float')", "float"),
    ("BoundedStandardDeviation(float, [0, 1])",
     "L.BoundedStandardDeviation(epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype='float')", "float"),
    ("Count(float)", "L.Count(epsilon=1.0, dtype='float')", "float"),
    ("Max(float, [0, 1])", "L.Max(epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype='float')", "float"),
    ("Min(float, [0, 1])", "L.Min(epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype='float')", "float"),
    ("Median(float, [0, 1])", "L.Median(epsilon=1.0, lower_bound=0.0, upper_bound=1.0, dtype='float')", "float"),
    ("Percentile(0.9, float, [0, 1])",
     "L.Percentile(epsilon=1.0, percentile=0.9, lower_bound=0.0, upper_bound=1.0, dtype='float')", "float"),
    ("LaplaceMechanism(epsilon=1, sensitivity=1).add_noise", "M.LaplaceMechanism(1.0, 1.0)", "value"),
    ("GaussianMechanism(epsilon=1, delta=1e-5, l2_sensitivity=1).add_noise", "M.GaussianMechanism(1.0, 1e-5, 1.0)",
     "value"),
)


def _modules() -> dict[str, Any]:
    try:
        import pydp.algorithms.laplacian as laplacian
        import pydp.algorithms.numerical_mechanisms as mechanisms
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("python-dp is not installed: pip install 'python-dp==1.1.5' "
                          "(or pip install -e '.[pydp]')") from exc
    return {"L": laplacian, "M": mechanisms}


def version() -> str:
    """The installed python-dp version (ImportError with an install hint if it is missing)."""
    _modules()
    return dist_version("python-dp")


def _pairs(kind: str) -> list:
    if kind == "value":  # the value is the dataset; its neighbour is at distance sensitivity 1
        return [LabelledPair(np.array([0.0]), np.array([1.0]), "value:replace", "x = 0 vs x' = 1 (the sensitivity)"),
                LabelledPair(np.array([1.0]), np.array([0.0]), "value:replace:down", "x = 1 vs x' = 0")]
    if kind == "int":
        return record_pairs(0, 10, adjacency="add_remove", many=200,
                            families=("bounds", "outlier", "duplicates", "size1", "empty", "many"), mid=5)
    return record_pairs(0.0, 1.0, adjacency="add_remove")


def _records(dataset: Any, kind: str) -> list:
    arr = np.asarray(dataset, dtype=float).ravel()
    if kind == "int":
        return [int(v) for v in arr]
    return [float(v) for v in arr]


def _entry(name: str, source: str, kind: str, ver: str, claim_factor: float,
           noise_factor: float) -> LibraryFunction:
    mods = _modules()

    def build() -> Any:
        return eval(source, dict(mods))  # noqa: S307 - our own constant sources (ENTRIES)

    obj = build()

    def claim(dataset: Any) -> Claimed:
        delta = float(getattr(obj, "delta", 0.0) or 0.0)
        return Claimed(float(obj.epsilon) / claim_factor, delta, f"pydp {type(obj).__name__}.epsilon/.delta")

    release: Callable[[list], float]
    if kind == "value":
        def release(records: list) -> float:
            x = records[0]
            return x + noise_factor * (float(obj.add_noise(x)) - x)
    else:
        def release(records: list) -> float:
            return float(obj.quick_result(records))

    def mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        records = _records(dataset, kind)  # converted once: quick_result takes a list
        return np.fromiter((release(records) for _ in range(n)), dtype=float, count=n)

    def snippet(dataset: Any, neighbour: Any) -> str:
        conv = "[int(v) for v in {}]" if kind == "int" else "[float(v) for v in {}]"
        call = "obj.add_noise(D[0])" if kind == "value" else "obj.quick_result(D)"
        call2 = call.replace("D", "D2")
        return ("import numpy as np\nimport pydp.algorithms.laplacian as L\n"
                "import pydp.algorithms.numerical_mechanisms as M\n\n"
                f"obj = {source}\nprint(obj.epsilon)\n"
                f"D = {conv.format(array_code(dataset))}\nD2 = {conv.format(array_code(neighbour))}\n"
                f"a = np.array([{call} for _ in range(2000)])\nb = np.array([{call2} for _ in range(2000)])")

    adjacency = NeighbouringRelation.REPLACE_ONE if kind == "value" else NeighbouringRelation.ADD_REMOVE
    options = {} if claim_factor == 1.0 and noise_factor == 1.0 else {"claim_factor": claim_factor,
                                                                        "noise_factor": noise_factor}
    return LibraryFunction(LIBRARY, ver, name, mechanism, claim, _pairs(kind), adjacency=adjacency,
                           snippet=snippet, tags=(kind,), reproducible=False, options=options)


def catalogue(*, claim_factor: float = 1.0, noise_factor: float = 1.0) -> list[LibraryFunction]:
    """python-dp's audited algorithms and mechanisms (:data:`ENTRIES`; ImportError with an install hint if the
    library is missing). ``claim_factor`` divides the claimed epsilon and ``noise_factor`` multiplies the noise of
    the numerical mechanisms: broken wrappers for the mutation tests (1.0: the library as it is)."""
    if not claim_factor > 0 or not noise_factor > 0:
        raise ValueError(f"claim_factor and noise_factor must be > 0; got {claim_factor!r}, {noise_factor!r}")
    ver = version()
    return [_entry(name, source, kind, ver, claim_factor, noise_factor) for name, source, kind in ENTRIES]
