"""pipeline-dp (OpenMined's PipelineDP) audited through its public API: ``DPEngine.aggregate`` on the local backend.

Each entry (:data:`ENTRIES`) is one aggregation -- COUNT, PRIVACY_ID_COUNT, SUM, MEAN, VARIANCE with Laplace noise,
and SUM with Gaussian noise -- run as a mechanism over a tiny dataset: a fresh ``NaiveBudgetAccountant`` and
``DPEngine(accountant, LocalBackend())`` per release, ``AggregateParams(noise_kind, metrics=[metric],
max_partitions_contributed=1, max_contributions_per_partition=1, min_value=0, max_value=1)``, one public partition
(``public_partitions=[0]``: no partition selection), ``accountant.compute_budgets()``, then the one partition's
value.

Dataset: records are privacy units. Each record is a vector of :data:`CONTRIBUTIONS` values, the contributions of
one privacy id to the partition (the privacy id is the record's row); pipeline-dp's contribution bounding must keep
one of them (``max_contributions_per_partition=1``). Neighbouring relation: one privacy id added or removed (the
unit of pipeline-dp's guarantee); pairs: :func:`dpverify.libraries.search.record_pairs` between the all-0 and the
all-1 vectors (no ``many`` family: a release costs about 3 ms, so the datasets stay small; no ``float_max``: values
are clamped to [0, 1] by the library, which the ``outlier`` family already exercises).

Claim: what the budget accountant allocated, read after ``compute_budgets()``: the sum over its
``mechanism_specs`` of ``eps`` and of ``delta`` (basic composition of the mechanisms the aggregation registered;
MEAN and VARIANCE register several), source "pipeline_dp NaiveBudgetAccountant.mechanism_specs". It is checked to
not exceed the ``total_epsilon``/``total_delta`` the accountant was given.

Randomness: the noise comes from PyDP's C++ mechanisms (``pydp.algorithms.numerical_mechanisms``), not from the
auditor's ``rng``: ``reproducible=False``. Cost: 2 (a release takes about 1-3 ms: half the
samples per function; the quick run of the catalogue stays under half a minute of CPU). 
Ledger (:func:`release_ledger`): every noise primitive pipeline-dp draws goes through the PyDP module its
``dp_computations`` imports as ``dp_mechanisms`` (``LaplaceMechanism(...)``, ``GaussianMechanism(...)``,
``GaussianMechanism.create_from_standard_deviation(...)``, then ``.add_noise(value)``); for one release that module
attribute is replaced by a recording proxy (restored after), so each ``add_noise`` becomes a
:class:`~dpverify.libraries.ledger.LedgerEntry` (mechanism, epsilon, delta, declared sensitivity, scale, the value
handed in, and the pipeline-dp ``file:line`` outside ``dp_computations.py`` that asked for it). ``recorded``: the
accountant's allocation (the claim); ``asked``: ``(total_epsilon, total_delta)``. A spend above the record is a
finding without sampling (:mod:`dpverify.libraries.runner`).
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from importlib.metadata import version as dist_version
from typing import Any, Iterator

import numpy as np

from dpverify.calculus.guarantees import ApproxDP
from dpverify.libraries.base import Claimed, LibraryFunction
from dpverify.libraries.ledger import Ledger, LedgerEntry, library_site
from dpverify.libraries.search import array_code, record_pairs
from dpverify.vocabulary import NeighbouringRelation

__all__ = ["CONTRIBUTIONS", "ENTRIES", "catalogue", "version", "release", "release_ledger", "recording", "LIBRARY"]

LIBRARY = "pipeline-dp"
#: Contributions of each privacy id (the length of a record).
CONTRIBUTIONS = 3

#: (name, metric, noise kind, total_epsilon, total_delta).
ENTRIES: tuple[tuple[str, str, str, float, float], ...] = (
    ("aggregate(COUNT, laplace)", "COUNT", "LAPLACE", 1.0, 0.0),
    ("aggregate(PRIVACY_ID_COUNT, laplace)", "PRIVACY_ID_COUNT", "LAPLACE", 1.0, 0.0),
    ("aggregate(SUM, laplace, [0, 1])", "SUM", "LAPLACE", 1.0, 0.0),
    ("aggregate(MEAN, laplace, [0, 1])", "MEAN", "LAPLACE", 1.0, 0.0),
    ("aggregate(VARIANCE, laplace, [0, 1])", "VARIANCE", "LAPLACE", 1.0, 0.0),
    ("aggregate(SUM, gaussian, [0, 1])", "SUM", "GAUSSIAN", 1.0, 1e-6),
)


def _pdp() -> Any:
    try:
        import pipeline_dp
    except ImportError as exc:  # pragma: no cover - exercised only without the extra
        raise ImportError("pipeline-dp is not installed: pip install 'pipeline-dp==0.3.1' "
                          "(or pip install -e '.[pipeline-dp]')") from exc
    return pipeline_dp


def version() -> str:
    """The installed pipeline-dp version (ImportError with an install hint if it is missing)."""
    _pdp()
    return dist_version("pipeline-dp")


def release(dataset: Any, metric: str, noise: str, epsilon: float, delta: float) -> tuple[float, Any]:
    """One aggregation of ``dataset`` (records: privacy ids, each a vector of contributions) on the local backend;
    returns (the partition's value, the finalized budget accountant)."""
    pdp = _pdp()
    metrics = ("COUNT", "PRIVACY_ID_COUNT", "SUM", "MEAN", "VARIANCE")
    if metric not in metrics:
        raise ValueError(f"metric must be one of {', '.join(metrics)}; got {metric!r}")
    if noise not in ("LAPLACE", "GAUSSIAN"):
        raise ValueError(f"noise must be LAPLACE or GAUSSIAN; got {noise!r}")
    data = np.asarray(dataset, dtype=float)
    if data.size % CONTRIBUTIONS or (data.ndim == 2 and data.shape[1] != CONTRIBUTIONS) or data.ndim > 2:
        raise ValueError(f"dataset must hold records of {CONTRIBUTIONS} contributions (shape (n, {CONTRIBUTIONS})); "
                         f"got shape {data.shape}")
    data = data.reshape(-1, CONTRIBUTIONS)
    accountant = pdp.NaiveBudgetAccountant(total_epsilon=epsilon, total_delta=delta)
    engine = pdp.DPEngine(accountant, pdp.LocalBackend())
    params = pdp.AggregateParams(noise_kind=getattr(pdp.NoiseKind, noise), metrics=[getattr(pdp.Metrics, metric)],
                                 max_partitions_contributed=1, max_contributions_per_partition=1,
                                 min_value=0.0, max_value=1.0)
    extractors = pdp.DataExtractors(partition_extractor=lambda r: 0, privacy_id_extractor=lambda r: r[0],
                                    value_extractor=lambda r: r[1])
    rows = [(i, float(v)) for i, rec in enumerate(data) for v in rec]
    result = engine.aggregate(rows, params, extractors, public_partitions=[0])
    accountant.compute_budgets()
    out = list(result)
    if len(out) != 1:
        raise RuntimeError(f"pipeline-dp returned {len(out)} partitions for one public partition")
    return float(getattr(out[0][1], metric.lower())), accountant


class _Recorded:
    """A PyDP numerical mechanism whose ``add_noise`` is written to a ledger (every other attribute is the
    mechanism's own)."""

    def __init__(self, inner: Any, ledger: Ledger) -> None:
        self._inner, self._ledger = inner, ledger

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def add_noise(self, value: Any, *args: Any) -> Any:
        inner = self._inner
        gaussian = hasattr(inner, "l2_sensitivity")
        site, func, stack, _ = library_site(self._ledger.package_dir, skip=("dp_computations.py",), depth=1)
        try:
            number: float | None = float(value)
        except (TypeError, ValueError):
            number = None
        self._ledger.entries.append(LedgerEntry(
            type(inner).__name__, float(inner.epsilon), float(inner.delta) if gaussian else 0.0,
            float(inner.l2_sensitivity if gaussian else inner.sensitivity),
            float(inner.std if gaussian else inner.diversity), site, func, stack, None, number))
        return inner.add_noise(value, *args)


class _RecordingModule:
    """Stands in for ``pipeline_dp.dp_computations.dp_mechanisms`` (PyDP's numerical mechanisms) during a
    recording: the mechanisms it builds are :class:`_Recorded`."""

    def __init__(self, real: Any, ledger: Ledger) -> None:
        self._real, self._ledger = real, ledger
        recorded = self

        class GaussianMechanism:
            def __new__(cls, *args: Any, **kwargs: Any) -> Any:  # type: ignore[misc]
                return _Recorded(real.GaussianMechanism(*args, **kwargs), recorded._ledger)

            @staticmethod
            def create_from_standard_deviation(*args: Any, **kwargs: Any) -> Any:
                return _Recorded(real.GaussianMechanism.create_from_standard_deviation(*args, **kwargs),
                                 recorded._ledger)

        self.GaussianMechanism = GaussianMechanism

    def LaplaceMechanism(self, *args: Any, **kwargs: Any) -> Any:  # noqa: N802 - PyDP's name
        return _Recorded(self._real.LaplaceMechanism(*args, **kwargs), self._ledger)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


@contextmanager
def recording(ledger: Ledger) -> Iterator[Ledger]:
    """Record every noise primitive pipeline-dp draws inside the block into ``ledger`` (module docstring); the
    library's module attribute is restored on exit."""
    pdp = _pdp()
    from pipeline_dp import dp_computations

    ledger.package_dir = os.path.dirname(os.path.abspath(pdp.__file__))
    real = dp_computations.dp_mechanisms
    dp_computations.dp_mechanisms = _RecordingModule(real, ledger)
    try:
        yield ledger
    finally:
        dp_computations.dp_mechanisms = real


def release_ledger(dataset: Any, metric: str, noise: str, epsilon: float, delta: float) -> Ledger:
    """The ledger of one :func:`release` of ``dataset``: the noise calls, the accountant's allocation
    (``recorded``) and the total asked for (``asked``), composed under add/remove of a privacy id."""
    led = Ledger(LIBRARY, adjacency=NeighbouringRelation.ADD_REMOVE, asked=ApproxDP(epsilon, delta))
    with recording(led):
        _, accountant = release(dataset, metric, noise, epsilon, delta)
    led.recorded = _claim_of(accountant)
    return led


def _claim_of(accountant: Any) -> Claimed:
    specs = list(accountant.mechanism_specs)
    eps = float(sum(s.eps for s in specs))
    delta = float(sum(s.delta or 0.0 for s in specs))
    if eps > accountant.total_epsilon * (1 + 1e-12) or delta > accountant.total_delta * (1 + 1e-12) + 1e-300:
        raise ValueError(f"pipeline-dp allocated ({eps}, {delta}) above its total "
                         f"({accountant.total_epsilon}, {accountant.total_delta})")
    return Claimed(eps, delta, "pipeline_dp NaiveBudgetAccountant.mechanism_specs")


def _entry(name: str, metric: str, noise: str, epsilon: float, delta: float, ver: str) -> LibraryFunction:
    pairs = record_pairs(np.zeros(CONTRIBUTIONS), np.ones(CONTRIBUTIONS), adjacency="add_remove",
                         families=("bounds", "outlier", "duplicates", "size1", "empty"))

    def claim(dataset: Any) -> Claimed:
        return _claim_of(release(dataset, metric, noise, epsilon, delta)[1])

    def mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.fromiter((release(dataset, metric, noise, epsilon, delta)[0] for _ in range(n)), dtype=float,
                           count=n)

    def snippet(dataset: Any, neighbour: Any) -> str:
        return ("import numpy as np\nfrom dpverify.libraries.pipeline_dp import release\n\n"
                f"D = {array_code(dataset)}\nD2 = {array_code(neighbour)}\n"
                f"a = np.array([release(D, {metric!r}, {noise!r}, {epsilon!r}, {delta!r})[0] for _ in range(2000)])\n"
                f"b = np.array([release(D2, {metric!r}, {noise!r}, {epsilon!r}, {delta!r})[0] for _ in range(2000)])")

    def ledger(dataset: Any, seed: int = 0) -> Ledger:  # ``seed`` unused: the noise is PyDP's (module docstring)
        return release_ledger(dataset, metric, noise, epsilon, delta)

    return LibraryFunction(LIBRARY, ver, name, mechanism, claim, pairs, adjacency=NeighbouringRelation.ADD_REMOVE,
                           snippet=snippet, tags=(metric.lower(), noise.lower()), cost=2.0, reproducible=False,
                           ledger=ledger)


def catalogue() -> list[LibraryFunction]:
    """pipeline-dp's audited aggregations (:data:`ENTRIES`; ImportError with an install hint if it is missing)."""
    ver = version()
    return [_entry(name, metric, noise, eps, delta, ver) for name, metric, noise, eps, delta in ENTRIES]
