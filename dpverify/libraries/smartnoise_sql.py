"""smartnoise-sql (``snsql``, OpenDP's differentially private SQL) audited through its public API.

Each entry (:data:`ENTRIES`) is one SQL query run the way SmartNoise's README runs it: ``reader =
snsql.from_df(df, privacy=Privacy(epsilon=1.0, delta=1e-5), metadata=META)`` on a pandas table ``T`` of the
dataset's records, then ``reader.execute(query)``; the release is the query's noisy value(s). Queries: ``COUNT(*)``,
``SUM(x)``, ``AVG(x)`` and ``VAR(x)`` over a float column declared in ``[0, 1]``; ``SELECT g, COUNT(*) ... GROUP BY
g`` over a string column ``g`` (categories "a" and "b") with the default ``censor_dims: true`` (rare groups are
dropped); and two documented unsafe settings, each an ``expected`` entry: the same histogram with
``censor_dims: false`` and ``SUM(x)`` with ``clamp_columns: false``. Line numbers below are those of the installed
snsql 1.0.10 (``site-packages/snsql/...``).

Privacy unit. The metadata (:func:`metadata`) declares ``row_privacy: true`` and ``max_ids: 1``: each row is one
individual (``snsql/metadata.py:423-424``; no ``private_id`` column, no reservoir sampling:
``snsql/sql/private_rewriter.py:216-231``), and the noise of every column is calibrated to one row added or
removed (``d_in = max_ids`` under OpenDP's ``symmetric_distance``, ``snsql/sql/_mechanisms/laplace.py:41-51``).
Pairs are therefore add/remove of one row: :func:`dpverify.libraries.search.record_pairs` on ``x`` between the
declared bounds (a record outside them, the empty table, 1000 rows, a 1e300 value; for the ``clamp_columns: false``
entry the outlier, 1e300 and bounds pairs, in that order: its documented leak is about values outside the bounds,
and a screening that ties at 0 keeps the first pair), and for the grouped queries
tables of group labels (:func:`group_pairs`: a group that appears, one row more in a present group, a group near
the censoring threshold, the empty table).

Claim: what the library says one ``execute`` spends, read from the reader it was given:
``reader.get_privacy_cost(query)`` (``snsql/sql/private_reader.py:202-243``), the same numbers its odometer
records after the call (``private_reader.py:730-733``). How the ``Privacy`` object is split: it is not split. The
rewriter turns the query into exact aggregates of a subquery (AVG = SUM/COUNT and VAR = SUM(x*x)/COUNT -
(SUM/COUNT)^2, with one COUNT shared: ``snsql/sql/private_rewriter.py:58-89``; with ``censor_dims`` a key count
COUNT(*) is added, ``private_rewriter.py:167-174``), and every numeric aggregate column of that subquery gets its
own mechanism with the *whole* ``Privacy.epsilon`` (``snsql/_ast/ast.py:114-131``, line 128:
``mech_class(epsilon, delta=delta, sensitivity=sensitivity, max_contrib=self.max_ids)``; the ``Privacy``
docstring, ``snsql/sql/privacy.py:64``, says "the epsilon value for each statistic"). The Laplace mechanism keeps
delta 0 (``laplace.py:12-24``) except the key count, which gets ``Privacy.delta`` (``ast.py:129-130``). One
execute with ``k`` noisy columns ``(epsilon, delta_i)`` is claimed to be ``(epsilon_q, delta_q)``-DP with the
odometer's composition (``snsql/sql/odometer.py:37-85``, Kairouz et al. 2015, Thm 3.5): ``tol = Privacy.delta / 2``
(1e-15 when delta is 0), ``delta_q = 1 - (1 - tol) prod_i (1 - delta_i)`` and ``epsilon_q = min(k epsilon,
advanced bounds)``, which is ``k epsilon`` for the small ``k`` here: COUNT(*) and SUM 1, AVG 2, VAR 3 (with
``censor_dims`` the key count is the COUNT(*) itself: 1). Groups are disjoint parts of the table (a row is in one
group), so each group's columns are the ``k`` mechanisms and the groups compose in parallel.

Noise: each noisy value is ``make_laplace(atom_domain(T=float), absolute_distance(T=float), scale)(v)``
(``laplace.py:65-71``) with the scale OpenDP's ``binary_search_param`` finds for ``clamp(0, s) >> sum`` at
``d_in = max_ids`` and ``d_out = epsilon`` (``laplace.py:25-54``), ``s`` the declared sensitivity
``max(|lower|, |upper|)`` of the column (``snsql/_ast/ast.py:585-592``; 1 for a count, ``s^2`` for ``x*x``); counts
are then truncated to ``int`` (``private_reader.py:599-607``). A censored group is one whose noisy key count is
at most ``tau = 1 - log(2 delta) / epsilon`` (``laplace.py:55-64``, ``private_reader.py:556-568``; 11.82 here).

Output encoding: a scalar query's value as a float; a grouped query's vector ``(n_a, n_b)`` over the declared
categories :data:`CATEGORIES`, a group absent from the result (censored, or not in the data) as :data:`ABSENT`.

Randomness: OpenDP samples the Laplace noise in Rust from the operating system's generator; it cannot be seeded
from the auditor's ``rng``, so the entries are ``reproducible=False`` (as :mod:`dpverify.libraries.opendp`): a
verdict is reproduced by re-running on fresh samples.

Speed: building each mechanism runs OpenDP's binary search for the scale (about 60 ms, three per AVG, four per
VAR: ``laplace.py:47-51``), which would dominate every execute. The search is a deterministic function of
(epsilon, lower, upper, max_contrib) (and delta, bit depth for the Gaussian), so while the catalogue runs the
library's ``_compute_noise_scale`` is memoised on exactly those inputs (:func:`library_context`; restored on exit):
the first call per key runs the library's own search and stores its result, every later one gets that same
float. An execute then takes 5-12 ms of CPU (ANTLR parsing the query and its rewrites dominates), so every entry
has ``cost`` 5: the quick budget screens 40 samples per side per pair and audits the chosen pair on 200 per side
(the catalogue's quick run takes about 100 s of CPU on two shared cores). That is enough to find the two documented
leaks (an outlier or a new group separates the outputs completely); a clean query's certified bound at this budget
is often 0 ("inconclusive"), and ``--budget standard`` is the run that measures how close to its claim it comes.

Ledger (:func:`release_ledger`): every noisy value goes through the Python method ``Laplace.release`` (or
``Gaussian.release``, for a ``Privacy`` with Gaussian mechanisms) of ``snsql/sql/_mechanisms``; during one execute
these are wrapped (restored after) so that each call is a :class:`~dpverify.libraries.ledger.LedgerEntry`
(epsilon, delta, declared sensitivity, scale, the exact aggregate handed in, and the site
``snsql/sql/private_reader.py:539`` that asked for it). The calls of one result row (one group) are one part of a
``disjoint`` partition (the row's grouping values), so groups compose in parallel. ``recorded``: the reader's
odometer after the call; ``asked``: none (``Privacy.epsilon`` is per statistic, not a total for the query).
"""
from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import version as dist_version
from typing import Any, Iterator

import numpy as np

from dpverify.libraries.base import Claimed, LabelledPair, LibraryFunction
from dpverify.libraries.ledger import Ledger, LedgerEntry, library_site
from dpverify.libraries.search import array_code, record_pairs
from dpverify.vocabulary import NeighbouringRelation

__all__ = ["ABSENT", "CATEGORIES", "DELTA", "ENTRIES", "EPSILON", "LIBRARY", "Entry", "catalogue", "claim_of",
           "execute", "group_pairs", "library_context", "metadata", "reader", "recording", "release",
           "release_ledger", "version"]

LIBRARY = "smartnoise-sql"
#: The ``Privacy`` every entry's reader is given (delta > 0: ``censor_dims`` needs it, ``laplace.py:59-60``).
EPSILON = 1.0
DELTA = 1e-5
#: The declared bounds of the float column ``x``.
LOWER, UPPER = 0.0, 1.0
#: The declared categories of the string column ``g`` (a grouped record is the index of its category).
CATEGORIES = ("a", "b")
#: A group absent from a grouped result (censored, or not in the data). No released count comes near it: a count
#: is a true count of at most 1001 plus Laplace noise of scale 1, -1000 is more than 1000 scales below any.
ABSENT = -1000.0
TABLE = "T"


@dataclass(frozen=True)
class Entry:
    """One audited query: ``name`` (as a user writes it), ``query`` (SQL over table ``T``), ``kind`` ("scalar": one
    value; "grouped": one count per category), ``options`` (table-level metadata overriding :func:`metadata`'s
    defaults), ``column`` (overrides of column ``x``'s metadata), ``expected`` (why a violation is documented) and
    ``cost`` (the runner's sample divisor)."""

    name: str
    query: str
    kind: str = "scalar"
    options: dict = field(default_factory=dict)
    column: dict = field(default_factory=dict)
    expected: str = ""
    cost: float = 5.0


_NO_CENSOR = {"censor_dims": False}
_CENSOR_OFF = ("snsql documents censor_dims: false as safe only 'if you know that small dimensions cannot expose "
               "privacy' (snsql/sql/private_reader.py:771); without it the result lists exactly the groups present "
               "in the data (private_reader.py:556-568 is skipped), so a group's appearance reveals one row")
_CLAMP_OFF = ("snsql documents clamp_columns: false as allowing 'values that exceed lower and higher limit "
              "specified in metadata. May impact privacy' (snsql/sql/private_reader.py:774): the rewriter then "
              "leaves values unclamped (snsql/sql/private_rewriter.py:286-288) while the noise is still calibrated "
              "to the declared bounds")

#: The audited queries.
ENTRIES: tuple[Entry, ...] = (
    Entry("execute(SELECT COUNT(*) FROM T)", f"SELECT COUNT(*) AS n FROM {TABLE}", options=_NO_CENSOR),
    Entry("execute(SELECT SUM(x) FROM T, x in [0, 1])", f"SELECT SUM(x) AS s FROM {TABLE}", options=_NO_CENSOR),
    Entry("execute(SELECT AVG(x) FROM T, x in [0, 1])", f"SELECT AVG(x) AS m FROM {TABLE}", options=_NO_CENSOR),
    Entry("execute(SELECT VAR(x) FROM T, x in [0, 1])", f"SELECT VAR(x) AS v FROM {TABLE}", options=_NO_CENSOR),
    Entry("execute(SELECT g, COUNT(*) FROM T GROUP BY g) [censor_dims]",
          f"SELECT g, COUNT(*) AS n FROM {TABLE} GROUP BY g", kind="grouped"),
    Entry("execute(SELECT g, COUNT(*) FROM T GROUP BY g) [censor_dims: false]",
          f"SELECT g, COUNT(*) AS n FROM {TABLE} GROUP BY g", kind="grouped", options=_NO_CENSOR,
          expected=_CENSOR_OFF),
    Entry("execute(SELECT SUM(x) FROM T, x in [0, 1]) [clamp_columns: false]", f"SELECT SUM(x) AS s FROM {TABLE}",
          options={**_NO_CENSOR, "clamp_columns": False}, expected=_CLAMP_OFF),
)


def _snsql() -> Any:
    try:
        import snsql
    except ImportError as exc:  # pragma: no cover - exercised only without the library
        raise ImportError("smartnoise-sql is not installed: pip install 'smartnoise-sql==1.0.10' (or pip install -e "
                          "'.[smartnoise-sql]') in an environment of its own (it pins opendp 0.14, older than "
                          "dpverify's)") from exc
    return snsql


def version() -> str:
    """The installed smartnoise-sql version (ImportError with an install hint if it is missing)."""
    _snsql()
    return dist_version("smartnoise-sql")


def metadata(options: dict | None = None, column: dict | None = None) -> dict:
    """The metadata dictionary of table ``T`` (``snsql`` reads it with ``Metadata.from_dict``): row privacy, one row
    per individual (``max_ids: 1``), a float column ``x`` in ``[LOWER, UPPER]`` and a string column ``g``;
    ``options`` override the table's settings (``censor_dims``, ``clamp_columns``, ...), ``column`` the column
    ``x``'s (e.g. a declared ``sensitivity``)."""
    table: dict[str, Any] = {"row_privacy": True, "max_ids": 1}
    table.update(options or {})
    table["x"] = {"type": "float", "lower": LOWER, "upper": UPPER, **(column or {})}
    table["g"] = {"type": "string"}
    return {"": {"": {TABLE: table}}}


def _frame(dataset: Any, kind: str) -> Any:
    """The pandas table of ``dataset``: scalar records are values of ``x`` (``g`` = "a"); grouped records are
    indices into :data:`CATEGORIES` (``x`` = the mid-point of its bounds)."""
    import pandas as pd

    arr = np.asarray(dataset, dtype=float).reshape(-1)
    if kind == "grouped":
        codes = arr.astype(int)
        if arr.size and (np.any(codes != arr) or codes.min() < 0 or codes.max() >= len(CATEGORIES)):
            raise ValueError(f"grouped records must be category indices in 0..{len(CATEGORIES) - 1}; got {arr}")
        return pd.DataFrame({"x": np.full(arr.size, (LOWER + UPPER) / 2),
                             "g": np.array([CATEGORIES[c] for c in codes], dtype=object)})
    return pd.DataFrame({"x": arr, "g": np.array([CATEGORIES[0]] * arr.size, dtype=object)})


def reader(dataset: Any, entry: Entry, *, epsilon: float = EPSILON, delta: float = DELTA) -> Any:
    """``snsql.from_df`` over the table of ``dataset`` with ``Privacy(epsilon, delta)`` and the entry's metadata."""
    snsql = _snsql()
    return snsql.from_df(_frame(dataset, entry.kind), privacy=snsql.Privacy(epsilon=epsilon, delta=delta),
                         metadata=metadata(entry.options, entry.column))


def _value(result: list, kind: str) -> np.ndarray:
    """A result of ``execute`` (header row, then rows) as the audited output (module docstring)."""
    rows = result[1:]
    if kind == "grouped":
        counts = {str(r[0]): r[1] for r in rows}
        return np.array([ABSENT if counts.get(c) is None else float(counts[c]) for c in CATEGORIES])
    if len(rows) != 1:
        raise RuntimeError(f"smartnoise-sql returned {len(rows)} rows for an ungrouped query (censor_dims is off)")
    v = rows[0][0]
    return np.array([ABSENT if v is None else float(v)])


#: The memoised noise scales (:func:`library_context`), by (search function, its inputs).
_SCALES: dict[tuple, float] = {}


@contextmanager
def library_context(noise_factor: float = 1.0) -> Iterator[None]:
    """While the block runs: the library's noise-scale search memoised on its inputs (module docstring, "Speed"),
    and, when ``noise_factor`` is not 1, every noisy value pulled towards its exact value by that factor (a broken
    library for the mutation tests). Both are restored on exit."""
    _snsql()
    from snsql.sql._mechanisms.gaussian import Gaussian
    from snsql.sql._mechanisms.laplace import Laplace

    saved = [(cls, name, cls.__dict__[name]) for cls in (Laplace, Gaussian)
             for name in ("_compute_noise_scale", "release")]

    def memoised(original: Any) -> Any:
        def compute(self: Any) -> None:
            if self.scale is not None:
                return
            key = (original, float(self.epsilon), float(self.delta), float(self.lower), float(self.upper),
                   self.max_contrib, self.bit_depth)  # per search function: a patched library gets its own
            if key not in _SCALES:
                original(self)
                _SCALES[key] = float(getattr(self, "scale"))
            self.scale = _SCALES[key]
        return compute

    def scaled(original: Any) -> Any:
        def release(self: Any, vals: Any) -> list:
            vals = list(vals)
            return [v + noise_factor * (o - v) for v, o in zip(vals, original(self, vals))]
        return release

    try:
        for cls, name, original in saved:
            if name == "_compute_noise_scale":
                setattr(cls, name, memoised(original))
            elif noise_factor != 1.0:
                setattr(cls, name, scaled(original))
        yield
    finally:
        for cls, name, original in saved:
            setattr(cls, name, original)


def execute(rd: Any, entry: Entry) -> np.ndarray:
    """One ``rd.execute(entry.query)`` as the audited output (module docstring)."""
    return _value(rd.execute(entry.query), entry.kind)


def release(dataset: Any, entry: Entry, n: int = 1, *, noise_factor: float = 1.0) -> np.ndarray:
    """``n`` executes of the entry's query on one reader over ``dataset``: an ``(n, d)`` array (``d`` = 1 for a
    scalar query, ``len(CATEGORIES)`` for a grouped one)."""
    with library_context(noise_factor):
        rd = reader(dataset, entry)
        return np.stack([execute(rd, entry) for _ in range(n)]) if n else np.empty((0, 1))


def claim_of(rd: Any, entry: Entry, source: str = "") -> Claimed:
    """The library's claim for one execute: ``rd.get_privacy_cost(query)`` (module docstring)."""
    eps, delta = rd.get_privacy_cost(entry.query)
    return Claimed(float(eps), float(delta), source or "snsql PrivateReader.get_privacy_cost (odometer composition "
                                                       "of the query's noisy columns)")


def group_pairs(adjacency: str = NeighbouringRelation.ADD_REMOVE) -> list[LabelledPair]:
    """Add/remove pairs of grouped tables (records: category indices, 0 = "a", 1 = "b"): the worst cases of a
    histogram whose groups are read from the data."""
    if NeighbouringRelation.parse(adjacency, "adjacency") is not NeighbouringRelation.ADD_REMOVE:
        raise ValueError("the grouped queries are audited under add/remove of one row only (row_privacy, max_ids 1)")

    def p(base: list[int], new: int, label: str, note: str) -> LabelledPair:
        return LabelledPair(np.asarray(base, dtype=float), np.asarray(base + [new], dtype=float), label, note)

    return [p([0] * 20, 1, "new_group:add", "20 rows in group a; one row of a group b not in the data"),
            p([0] * 20 + [1] * 20, 1, "present_group:add", "20 rows in each group, one more in b"),
            p([0] * 20 + [1] * 11, 1, "threshold:add", "11 rows in b (the censoring threshold is 11.8), one more"),
            p([1], 1, "size1:add", "one row, one more in the same group"),
            p([], 1, "empty:add", "the empty table and one row")]


def _pairs(entry: Entry) -> list:
    if entry.kind == "grouped":
        return group_pairs()
    if entry.expected:  # the unclamped sum: the documented leak is about values outside the bounds
        return record_pairs(LOWER, UPPER, adjacency="add_remove", families=("outlier", "float_max", "bounds"))
    return record_pairs(LOWER, UPPER, adjacency="add_remove")


def _group_of_caller() -> tuple:
    """The grouping values of the result row whose noise is being drawn: the values without a mechanism in the
    ``row`` of the library's ``randomize_row_values`` (``snsql/sql/private_reader.py:531-541``) up the stack; a
    RuntimeError when the call comes from anywhere else (the ledger would not know how the calls compose)."""
    frame: Any = sys._getframe(2)
    for _ in range(4):
        if frame is None:
            break
        if frame.f_code.co_name == "randomize_row_values" and {"mechs", "row"} <= frame.f_locals.keys():
            local = frame.f_locals
            return tuple(v for m, v in zip(local["mechs"], local["row"]) if m is None)
        frame = frame.f_back
    raise RuntimeError("smartnoise-sql drew noise outside PrivateReader's randomize_row_values "
                       "(snsql/sql/private_reader.py:531-541); the ledger cannot tell the call's group")


@contextmanager
def recording(ledger: Ledger) -> Iterator[Ledger]:
    """Record every noisy value the library draws inside the block into ``ledger`` (module docstring); the library's
    ``release`` methods are restored on exit."""
    snsql = _snsql()
    from snsql.sql._mechanisms.gaussian import Gaussian
    from snsql.sql._mechanisms.laplace import Laplace

    ledger.package_dir = os.path.dirname(os.path.abspath(snsql.__file__))
    saved = [(cls, cls.__dict__["release"]) for cls in (Laplace, Gaussian)]

    def wrap(original: Any) -> Any:
        def release(self: Any, vals: Any) -> list:
            vals = list(vals)
            group = _group_of_caller()
            site, func, stack, _ = library_site(ledger.package_dir, skip=(os.path.join("sql", "_mechanisms"),),
                                                depth=1)
            for v in vals:
                ledger.entries.append(LedgerEntry(
                    type(self).__name__, float(self.epsilon), float(self.delta),
                    float(self.sensitivity if self.sensitivity is not None else self.upper - self.lower),
                    None if self.scale is None else float(self.scale), site, func, stack,
                    ("disjoint", 0, repr(group)), float(v)))
            return original(self, vals)
        return release

    try:
        for cls, original in saved:
            setattr(cls, "release", wrap(original))
        yield ledger
    finally:
        for cls, original in saved:
            setattr(cls, "release", original)


def release_ledger(dataset: Any, entry: Entry) -> Ledger:
    """The ledger of one execute of ``entry`` on ``dataset``: the noise calls (module docstring) and the odometer's
    record after the call (``recorded``), composed under add/remove of a row."""
    led = Ledger(LIBRARY, adjacency=NeighbouringRelation.ADD_REMOVE)
    with library_context():
        rd = reader(dataset, entry)
        with recording(led):
            rd.execute(entry.query)
        eps, delta = rd.odometer.spent
    led.recorded = Claimed(float(eps), float(delta), "snsql PrivateReader.odometer.spent")
    return led


def _snippet(entry: Entry) -> Any:
    def table(d: Any) -> str:
        if entry.kind == "grouped":
            return f"pd.DataFrame({{'x': 0.5, 'g': [{CATEGORIES!r}[int(c)] for c in {array_code(d)}]}})"
        return f"pd.DataFrame({{'x': {array_code(d)}, 'g': 'a'}})"

    def snippet(dataset: Any, neighbour: Any) -> str:
        return ("import numpy as np\nimport pandas as pd\nimport snsql\n\n"
                f"META = {metadata(entry.options, entry.column)!r}\n"
                f"Q = {entry.query!r}\n"
                f"D = {table(dataset)}\nD2 = {table(neighbour)}\n"
                f"r = snsql.from_df(D, privacy=snsql.Privacy(epsilon={EPSILON!r}, delta={DELTA!r}), metadata=META)\n"
                f"r2 = snsql.from_df(D2, privacy=snsql.Privacy(epsilon={EPSILON!r}, delta={DELTA!r}), "
                "metadata=META)\n"
                "print(r.get_privacy_cost(Q))\n"
                "a = [r.execute(Q)[1:] for _ in range(2000)]\nb = [r2.execute(Q)[1:] for _ in range(2000)]")
    return snippet


def _entry(entry: Entry, ver: str, claim_factor: float, noise_factor: float) -> LibraryFunction:
    def claim(dataset: Any) -> Claimed:
        with library_context():
            c = claim_of(reader(dataset, entry), entry)
        if claim_factor == 1.0:
            return c
        return Claimed(c.epsilon / claim_factor, c.delta, c.source + f" / {claim_factor:g} (mutation)")

    def mechanism(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        out = release(dataset, entry, n, noise_factor=noise_factor)
        return out[:, 0] if entry.kind == "scalar" else out

    def ledger(dataset: Any, seed: int = 0) -> Ledger:  # ``seed`` unused: the noise is OpenDP's (module docstring)
        return release_ledger(dataset, entry)

    options: dict = dict(entry.options)
    if entry.column:
        options["column"] = dict(entry.column)
    if claim_factor != 1.0 or noise_factor != 1.0:
        options.update(claim_factor=claim_factor, noise_factor=noise_factor)
    name = entry.name + (f" [noise x{noise_factor:g}]" if noise_factor != 1.0 else "")
    return LibraryFunction(LIBRARY, ver, name, mechanism, claim, _pairs(entry),
                           adjacency=NeighbouringRelation.ADD_REMOVE, expected=entry.expected,
                           snippet=_snippet(entry), tags=(entry.kind,), cost=entry.cost, reproducible=False,
                           ledger=ledger, options=options)


def catalogue(*, claim_factor: float = 1.0, noise_factor: float = 1.0,
              entries: tuple[Entry, ...] = ENTRIES) -> list[LibraryFunction]:
    """smartnoise-sql's audited queries (:data:`ENTRIES`, or ``entries``; ImportError with an install hint if the
    library is missing). ``claim_factor`` divides the claimed epsilon and ``noise_factor`` multiplies every noisy
    value's distance from its exact value: broken wrappers for the mutation tests (1.0: the library as it is)."""
    if not claim_factor > 0 or not noise_factor > 0:
        raise ValueError(f"claim_factor and noise_factor must be > 0; got {claim_factor!r}, {noise_factor!r}")
    ver = version()
    return [_entry(e, ver, claim_factor, noise_factor) for e in entries]
