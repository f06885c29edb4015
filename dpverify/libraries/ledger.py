"""A budget ledger: every privacy-consuming call a library makes inside one call of its public API.

During one public call (a ``tools.mean``, a model's ``fit``) the ledger records each noise addition the library
makes internally -- the mechanism, its epsilon and delta, its declared sensitivity, its noise scale -- and the
place in the library's own source it was called from (``file:line``, read from the stack, relative to the
installed package). It records as well what the library's accountant wrote down, and what the caller asked for.
Three numbers then compare without any sampling:

- ``spent``: the calls' guarantees composed by dpverify's own calculus
  (:func:`dpverify.calculus.composition.basic_composition`; calls in a loop a catalogue declares to act on
  disjoint parts of the data compose in parallel, see :class:`Partition`);
- ``recorded``: what the accountant the caller passed records after the call (spends on accountants the library
  makes inside the call, which the caller never sees, are listed apart);
- ``asked``: the budget the caller asked for.

``spent > recorded`` (or ``> asked``) is a finding on its own: the library spends more than it says. Run on both
sides of an adjacent pair with the same seed, :func:`diff` shows where the calls differ: a declared sensitivity of
0, a noise scale that depends on the data, a call made on one side only.

Capture is per library (:func:`diffprivlib_ledger`): the library's mechanisms' ``randomise`` and its accountant's
``spend`` are wrapped for the duration of a ``with`` block and restored after it; the library itself is not
modified on disk.
"""
from __future__ import annotations

import itertools
import math
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from types import FrameType
from typing import Any

from dpverify.calculus.composition import basic_composition
from dpverify.calculus.guarantees import ApproxDP
from dpverify.vocabulary import NeighbouringRelation

__all__ = ["Ledger", "LedgerEntry", "Partition", "PARTITION_KINDS", "compose", "diff", "diffprivlib_entry",
           "diffprivlib_ledger", "diffprivlib_mechanism_classes", "handed_in", "library_site", "patch_diffprivlib"]

_TOL = 1e-9

#: The kinds of partitioned loop a ledger composes (:class:`Partition`): "disjoint" parts of the data (parallel
#: composition: the maximum over parts, the two largest under replace-one) and the coordinates of one "vector" whose
#: clipping bounds the whole vector (the maximum).
PARTITION_KINDS = ("disjoint", "vector")


@dataclass(frozen=True)
class LedgerEntry:
    """One privacy-consuming call inside the library: ``mechanism`` (class name), ``epsilon``, ``delta``,
    ``sensitivity`` (as the library declared it to the mechanism), ``scale`` (the noise scale it implies),
    ``site`` (``path:line`` in the library's source of the innermost library frame outside the mechanisms module,
    the path relative to the installed package's parent directory), ``function`` (that frame's function) and
    ``stack`` (every library frame, outermost first, as ``path:line function``), ``partition`` (the part of a declared
    :class:`Partition` loop the call is in) and ``value`` (the statistic handed to the mechanism, if a number)."""

    mechanism: str
    epsilon: float
    delta: float
    sensitivity: float | None
    scale: float | None
    site: str
    function: str
    stack: tuple[str, ...] = ()
    partition: tuple | None = None  # (kind, scope, part): see Partition
    value: float | None = None  # the statistic handed to the mechanism, when it is one number

    def to_dict(self) -> dict:
        d = asdict(self)
        d["stack"] = list(self.stack)
        d["partition"] = None if self.partition is None else {"kind": self.partition[0], "scope": self.partition[1],
                                                                "part": self.partition[2]}
        return d


@dataclass(frozen=True)
class Partition:
    """A loop in the library's source whose iterations act on disjoint parts of the data (``kind="disjoint"``:
    histogram bins, a model's classes or clusters) or release one vector whose declared sensitivity bounds the
    whole vector's norm (``kind="vector"``). The loop is found on the stack: the frame of ``function`` in a file
    whose path ends with ``path``, whose local ``variable`` names the part. Calls in one invocation of that frame
    compose sequentially within a part, then across parts: the maximum (``vector``, and ``disjoint`` under
    add/remove: a record is in one part), or the sum of the two largest (``disjoint`` under replace-one: a
    replaced record may leave one part and join another)."""

    path: str
    function: str
    variable: str
    kind: str = "disjoint"

    def __post_init__(self) -> None:
        if self.kind not in PARTITION_KINDS:
            raise ValueError(f"kind must be one of {PARTITION_KINDS}; got {self.kind!r}")


@dataclass
class Ledger:
    """The calls of one public call (:class:`LedgerEntry` each, in order), the spends the accountants recorded, and
    the budget asked for. ``partitions``: the loops over disjoint parts (:class:`Partition`) the catalogue declares;
    ``adjacency``: the neighbouring relation ``spent`` is composed under (a
    :class:`~dpverify.vocabulary.NeighbouringRelation`: "add_remove" or "replace_one")."""

    library: str
    entries: list[LedgerEntry] = field(default_factory=list)
    spends: list[tuple[float, float, bool, str]] = field(default_factory=list)
    # (eps, delta, on the caller's accountant, the library site that handed that accountant in)
    recorded: ApproxDP | None = None
    asked: ApproxDP | None = None
    partitions: tuple[Partition, ...] = ()
    adjacency: str = NeighbouringRelation.REPLACE_ONE
    package_dir: str = ""  # the installed library package (its source locates causes)
    accounted: ApproxDP | None = None  # dpverify's accountant of calls without a per-call epsilon (Gaussian steps)

    @property
    def spent(self) -> ApproxDP | None:
        """The calls composed under the ledger's adjacency (or :attr:`accounted`, when set: calls such as DP-SGD's
        Gaussian steps have no per-call epsilon and are accounted together)."""
        if self.accounted is not None:
            return self.accounted
        return compose(self.entries, self.adjacency)

    @property
    def spent_least(self) -> ApproxDP | None:
        """The calls composed under the neighbouring relation that makes them cheapest: the library states none,
        so a spend above the record under *every* relation is a mismatch (:attr:`mismatch`)."""
        if self.accounted is not None:
            return self.accounted
        options = [c for c in (compose(self.entries, a) for a in NeighbouringRelation) if c is not None]
        return min(options, key=lambda g: (g.epsilon, g.delta)) if options else None

    @property
    def unrecorded_spends(self) -> list[tuple[float, float]]:
        """Spends the library wrote to accountants the caller never sees (e.g. a ``BudgetAccountant()`` made
        inside the call)."""
        return [(e, d) for e, d, mine, _ in self.spends if not mine]

    @property
    def unrecorded_sites(self) -> list[str]:
        """Where the unrecorded spends' accountants were handed in: the library frame (``path:line``) that called
        into the code holding the accountant, e.g. a ``tools.mean(..., accountant=BudgetAccountant())`` line."""
        return [site for _, _, mine, site in self.spends if not mine]

    @property
    def mismatch(self) -> dict:
        """``{"spent_over_recorded": ..., "spent_over_asked": ...}``: the epsilon (and delta) excess of the calls'
        composition (under the cheapest neighbouring relation, :attr:`spent_least`) over the accountant's record
        and over the request (absent keys: no excess)."""
        out: dict[str, Any] = {}
        spent = self.spent_least
        if spent is None:
            return out
        for key, ref in (("spent_over_recorded", self.recorded), ("spent_over_asked", self.asked)):
            if ref is None:
                continue
            de, dd = spent.epsilon - ref.epsilon, spent.delta - ref.delta
            tol = 0.02 * ref.epsilon if self.accounted is not None else _TOL * max(1.0, ref.epsilon)
            if de > tol or dd > _TOL:
                out[key] = {"epsilon": de, "delta": dd, "ratio": spent.epsilon / ref.epsilon
                            if ref.epsilon > 0 else math.inf}
        return out

    def to_dict(self) -> dict:
        def g(x: ApproxDP | None) -> dict | None:
            return None if x is None else {"epsilon": x.epsilon, "delta": x.delta}

        return {"library": self.library, "calls": [e.to_dict() for e in self.entries],
                "adjacency": self.adjacency, "spent": g(self.spent), "spent_least": g(self.spent_least),
                "recorded": g(self.recorded), "asked": g(self.asked),
                "unrecorded_spends": [list(s) for s in self.unrecorded_spends],
                "unrecorded_sites": self.unrecorded_sites,
                "partitions": [asdict(p) for p in self.partitions], "mismatch": self.mismatch}


def compose(entries: Sequence[LedgerEntry], adjacency: str = NeighbouringRelation.REPLACE_ONE) -> ApproxDP | None:
    """dpverify's composition of the calls (``None`` when there are none): basic composition
    (:func:`~dpverify.calculus.composition.basic_composition`) of the unpartitioned calls and of one guarantee per
    partitioned loop invocation (:class:`Partition`: sequential within a part; across parts the maximum, or under
    replace-one the sum of the two largest for disjoint parts)."""
    relation = NeighbouringRelation.parse(adjacency, "adjacency")
    if not entries:
        return None
    parts: list[ApproxDP] = []
    scopes: dict[Any, dict[Any, list[LedgerEntry]]] = {}
    kinds: dict[Any, str] = {}
    for e in entries:
        if e.partition is None:
            parts.append(ApproxDP(e.epsilon, e.delta))
            continue
        kind, scope, part = e.partition
        if kind not in PARTITION_KINDS:
            raise ValueError(f"ledger entry at {e.site}: partition kind must be one of {PARTITION_KINDS}; got {kind!r} "
                             "(an unknown kind would otherwise be composed as a maximum over its parts, which only "
                             "disjoint parts allow)")
        if kinds.setdefault(scope, kind) != kind:
            raise ValueError(f"ledger entry at {e.site}: partition scope {scope!r} has kinds {kinds[scope]!r} and "
                             f"{kind!r}; one loop has one kind")
        scopes.setdefault(scope, {}).setdefault(part, []).append(e)
    for scope, by_part in scopes.items():
        each = sorted((basic_composition([ApproxDP(e.epsilon, e.delta) for e in es]) for es in by_part.values()),
                      key=lambda g: (g.epsilon, g.delta), reverse=True)
        take = 2 if kinds[scope] == "disjoint" and relation is NeighbouringRelation.REPLACE_ONE else 1
        parts.append(basic_composition(each[:take]))
    return basic_composition(parts)


def library_site(package_dir: str, skip: Sequence[str] = (), depth: int = 2,
                 partitions: Sequence[Partition] = (), scopes: list | None = None
                 ) -> tuple[str, str, tuple[str, ...], tuple | None]:
    """The caller's library frames: ``(site, function, stack, partition)``: ``site`` and ``function`` of the
    innermost frame inside ``package_dir`` but outside its sub-directories ``skip`` (the mechanisms themselves),
    paths relative to ``package_dir``'s parent; ``stack`` those frames outermost first; ``partition`` the
    ``(kind, scope, part)`` of the innermost frame matching one of ``partitions`` (``scopes`` keeps the matched
    frames alive for the ledger's lifetime, so a scope's index names one frame invocation)."""
    root = os.path.dirname(package_dir)
    skips = tuple(os.path.join(package_dir, s) for s in skip)
    frame: FrameType | None = sys._getframe(depth)
    frames = []
    partition = None
    while frame is not None:
        fn = frame.f_code.co_filename
        if fn.startswith(package_dir):
            frames.append((os.path.relpath(fn, root), frame.f_lineno, frame.f_code.co_name,
                           fn.startswith(skips)))
            if partition is None:
                for p in partitions:
                    if (fn.endswith(p.path) and frame.f_code.co_name == p.function
                            and p.variable in frame.f_locals):
                        if scopes is None:
                            scopes = []
                        index = next((i for i, f in enumerate(scopes) if f is frame), None)
                        if index is None:
                            scopes.append(frame)
                            index = len(scopes) - 1
                        value = frame.f_locals[p.variable]
                        partition = (p.kind, index, repr(value.item() if hasattr(value, "item") else value))
                        break
        frame = frame.f_back
    site, func = "?", "?"
    for path, line, name, skipped in frames:  # innermost first
        if not skipped:
            site, func = f"{path}:{line}", name
            break
    stack = tuple(f"{p}:{ln} {n}" for p, ln, n, s in reversed(frames) if not s)
    return site, func, stack, partition


_local = threading.local()


def _number(x: Any) -> float | None:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v


def diffprivlib_mechanism_classes() -> set[type]:
    """Every subclass of diffprivlib's ``DPMechanism`` (those of ``diffprivlib.mechanisms`` and any defined
    elsewhere): the classes whose ``randomise`` :func:`patch_diffprivlib` wraps."""
    from diffprivlib import mechanisms
    from diffprivlib.mechanisms.base import DPMechanism

    classes = {c for c in vars(mechanisms).values() if isinstance(c, type) and issubclass(c, DPMechanism)}
    todo = list(classes)
    while todo:  # subclasses defined outside the package's namespace too
        sub: type
        for sub in todo.pop().__subclasses__():
            if sub not in classes:
                classes.add(sub)
                todo.append(sub)
    return classes


def diffprivlib_entry(mech: Any, args: tuple, package_dir: str, partitions: Sequence[Partition] = (),
                      scopes: list | None = None, counts: dict | None = None) -> LedgerEntry:
    """The :class:`LedgerEntry` of one call ``mech.randomise(*args)`` of a diffprivlib mechanism: its class, epsilon,
    delta, declared sensitivity, noise scale (``sensitivity / epsilon`` for Laplace and geometric mechanisms, the
    bounded-domain Laplace's own ``_find_scale()``, else the mechanism's ``_scale``), the library site that called it
    (:func:`library_site`, skipping the mechanisms module), its partition and the statistic (a number)."""
    site, func, stack, part = library_site(package_dir, skip=("mechanisms",), partitions=partitions, scopes=scopes)
    sens = _number(getattr(mech, "sensitivity", None))
    eps = float(getattr(mech, "epsilon", math.nan))
    scale = _number(getattr(mech, "_scale", None))
    if scale is None or "Geometric" in type(mech).__name__ or "Laplace" in type(mech).__name__:
        scale = (sens / eps if sens is not None and eps > 0 else None)
        if hasattr(mech, "_find_scale") and "BoundedDomain" in type(mech).__name__:
            scale = _number(mech._find_scale())
    if part is not None and part[0] == "vector" and counts is not None:  # each coordinate is its own part
        counts[part[1]] = counts.get(part[1], 0) + 1
        part = (part[0], part[1], f"#{counts[part[1]]}")
    value = _number(args[0]) if args and getattr(args[0], "ndim", 0) == 0 else None
    return LedgerEntry(type(mech).__name__, eps, float(getattr(mech, "delta", 0.0)), sens, scale, site, func, stack,
                       part, value)


@contextmanager
def patch_diffprivlib(on_randomise: Callable[[Any, tuple, dict, Callable], Any],
                      on_spend: Callable[[Any, float, float, Callable], Any]) -> Iterator[str]:
    """Wrap every diffprivlib mechanism's ``randomise`` and ``BudgetAccountant.spend`` for the block (restored
    after it; the library is not modified on disk); yields the package directory. ``on_randomise(mech, args, kwargs,
    original)`` replaces an outermost ``randomise`` call (one a mechanism makes inside another's goes straight to
    the original) and returns its result (``original(mech, *args, **kwargs)`` to run it);
    ``on_spend(accountant, epsilon, delta, original)`` replaces ``spend`` likewise. Shared by the budget ledger
    (:func:`diffprivlib_ledger`) and the record/replay layer (:mod:`dpverify.libraries.replay`)."""
    import diffprivlib
    from diffprivlib import BudgetAccountant

    pkg = os.path.dirname(diffprivlib.__file__)
    saved: list[tuple[type, str, Callable]] = []

    def wrap(original: Callable) -> Callable:
        def randomise(self, *args, **kwargs):
            depth = getattr(_local, "depth", 0)
            _local.depth = depth + 1
            try:
                if depth == 0:
                    return on_randomise(self, args, kwargs, original)
                return original(self, *args, **kwargs)
            finally:
                _local.depth = depth

        return randomise

    for cls in diffprivlib_mechanism_classes():
        if "randomise" in vars(cls):
            original = vars(cls)["randomise"]
            saved.append((cls, "randomise", original))
            setattr(cls, "randomise", wrap(original))  # noqa: B010 - any DPMechanism subclass
    original_spend = BudgetAccountant.spend

    def spend(self, epsilon, delta):
        return on_spend(self, epsilon, delta, original_spend)

    BudgetAccountant.spend = spend  # type: ignore[method-assign]
    try:
        yield pkg
    finally:
        BudgetAccountant.spend = original_spend  # type: ignore[method-assign]
        for cls, name, original in saved:
            setattr(cls, name, original)


@contextmanager
def diffprivlib_ledger(accountant: Any = None, *, asked: ApproxDP | None = None,
                       partitions: Sequence[Partition] = (),
                       adjacency: str = NeighbouringRelation.REPLACE_ONE) -> Iterator[Ledger]:
    """Record diffprivlib's mechanism calls and accountant spends inside the block; ``accountant`` is the one the
    caller passed (its spends are the ``recorded`` budget; its total after the block is ``ledger.recorded``)."""
    import diffprivlib

    pkg = os.path.dirname(diffprivlib.__file__)
    ledger = Ledger("diffprivlib", asked=asked, partitions=tuple(partitions), adjacency=adjacency, package_dir=pkg)
    scopes: list = []
    counts: dict = {}

    def on_randomise(mech: Any, args: tuple, kwargs: dict, original: Callable) -> Any:
        ledger.entries.append(diffprivlib_entry(mech, args, pkg, ledger.partitions, scopes, counts))
        return original(mech, *args, **kwargs)

    def on_spend(acc: Any, epsilon: Any, delta: Any, original: Callable) -> Any:
        ledger.spends.append((float(epsilon), float(delta), acc is accountant,
                              "" if acc is accountant else _handed_in(acc, pkg)))
        return original(acc, epsilon, delta)

    try:
        with patch_diffprivlib(on_randomise, on_spend):
            yield ledger
    finally:
        scopes.clear()
        if accountant is not None:
            total = accountant.total()
            ledger.recorded = ApproxDP(float(total[0]), float(total[1]))


def _handed_in(obj: Any, package_dir: str) -> str:
    """The library frame (``path:line``) just outside the outermost frame that holds ``obj`` as a local: where an
    accountant made inside the call was handed to the code that spends on it."""
    root = os.path.dirname(package_dir)
    frames = []
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith(package_dir):
            frames.append(frame)
        frame = frame.f_back
    frames.reverse()  # outermost first
    for outer, inner in itertools.pairwise(frames):
        if any(v is obj for v in inner.f_locals.values()) and not any(v is obj for v in outer.f_locals.values()):
            return f"{os.path.relpath(outer.f_code.co_filename, root)}:{outer.f_lineno}"
    return "?"


#: The public name of :func:`_handed_in` (the record/replay layer reuses it).
handed_in = _handed_in


#: The fields of two calls :func:`diff` compares, in the order it reports them.
_DIFF_FIELDS = ("mechanism", "epsilon", "delta", "sensitivity", "scale", "site")


def _same(u: Any, v: Any) -> bool:
    """Whether two field values agree: floats up to a relative 1e-12 (NaN agrees with NaN), anything else by ``==``."""
    if isinstance(u, float) and isinstance(v, float):
        return (u == v) or (math.isnan(u) and math.isnan(v)) or abs(u - v) <= 1e-12 * max(abs(u), abs(v))
    return u == v


def _differing_fields(x: LedgerEntry, y: LedgerEntry) -> dict[str, list]:
    """The fields of :data:`_DIFF_FIELDS` on which the calls ``x`` (on D) and ``y`` (on D') differ, each as
    ``[value on D, value on D']``."""
    fields = {}
    for f in _DIFF_FIELDS:
        u, v = getattr(x, f), getattr(y, f)
        if not _same(u, v):
            fields[f] = [u, v]
    return fields


def _one_side_only(index: int, x: LedgerEntry | None, y: LedgerEntry | None) -> dict:
    """The diff record of call ``index`` made on one side only (``x`` on D or ``y`` on D', the other None)."""
    only = x or y
    assert only is not None
    return {"index": index, "site": only.site, "only_on": "D" if y is None else "D'", "mechanism": only.mechanism}


def _exceeds_declared(x: LedgerEntry, y: LedgerEntry) -> dict | None:
    """``{"realized": |value(D) - value(D')|, "declared": sensitivity}`` when both calls hand a number to the
    mechanism, both declare a sensitivity, and the statistic changes by more than the one declared on D; else None."""
    if x.value is None or y.value is None or x.sensitivity is None or y.sensitivity is None:
        return None
    realized = abs(x.value - y.value)
    if realized > x.sensitivity * (1 + 1e-9) + 1e-12:
        return {"realized": realized, "declared": x.sensitivity}
    return None


def _compare_calls(index: int, x: LedgerEntry, y: LedgerEntry, clean: bool) -> tuple[dict | None, bool]:
    """The diff record of call ``index`` made on both sides (None when nothing is flagged) and whether the call
    differs between D and D' (a field or its statistic); ``clean``: every earlier call was identical on both
    sides (only then can the statistic's change exceed the declared sensitivity, see :func:`diff`)."""
    fields = _differing_fields(x, y)
    values_differ = x.value is None or y.value is None or x.value != y.value
    zero = [side for side, e in (("D", x), ("D'", y)) if e.sensitivity == 0.0] if values_differ else []
    exceeds = _exceeds_declared(x, y) if clean and not fields else None
    changed = bool(fields) or values_differ
    if not (fields or zero or exceeds):
        return None, changed
    d: dict[str, Any] = {"index": index, "site": x.site, "mechanism": x.mechanism, "differs": fields}
    if zero:
        d["zero_sensitivity_on"] = zero
    if exceeds:
        d["exceeds_declared"] = exceeds
    return d, changed


def diff(a: Ledger, b: Ledger) -> list[dict]:
    """Where the calls of two ledgers (the same public call on D and on D', same seed) differ: per call position,
    the fields that differ (mechanism, epsilon, delta, sensitivity, scale, site), and calls made on one side only.
    Flags ``zero_sensitivity_on``: a declared sensitivity of 0 (no noise at all) on a side, while the statistic
    differs between D and D'; and ``exceeds_declared``: at the first call whose statistic differs, while every
    earlier call had equal statistics and parameters on both sides (so nothing released earlier explains the
    difference), ``|value(D) - value(D')|`` above the declared sensitivity (the realized sensitivity exceeds it)."""
    out = []
    clean = True  # every earlier call identical on both sides
    for i in range(max(len(a.entries), len(b.entries))):
        x = a.entries[i] if i < len(a.entries) else None
        y = b.entries[i] if i < len(b.entries) else None
        if x is None or y is None:
            out.append(_one_side_only(i, x, y))
            continue
        record, changed = _compare_calls(i, x, y, clean)
        if changed:
            clean = False
        if record is not None:
            out.append(record)
    return out
