"""Record and replay: a library function run on D, then on a neighbour D' with the same random draws.

The idea is Re:cord-play's (Cebere, Erb, Desfontaines, Bellet and Fitzsimons, PETS 2026; its design as described in
the README of ``ObliviousAI/dp-recorder``, commit 85d189e; no code of it is used here). A DP function interleaves
*noise primitives* (a Laplace or Gaussian addition, a mechanism's ``randomise``, an OpenDP measurement) with code
that should never look at the data except through them. :func:`record` runs ``function(D)`` with every primitive
call intercepted and writes down, per call: the mechanism, the call site in the library (``file:line``), the value
it was given, its declared sensitivity, noise scale, epsilon and delta, any declared bounds or domain, the output
it returned, the random draw it used (output minus value, for an additive primitive) and the state of every random
generator after it. :func:`replay` then runs ``function(D')`` with the primitives *frozen*: call ``i`` returns the
output it returned on D, and the generators are put back in the state they had after call ``i`` on D. Every
released value is then the same on both sides, so a correct function must make the same calls from the same
lines with the same declared parameters, and each value it hands a primitive may differ only by the declared
sensitivity (the definition of sensitivity for an adaptive composition: the query at step ``i`` is evaluated at
the same earlier outputs on both sides). Replay flags (:class:`Flag`, kinds :data:`FLAG_KINDS`):

- ``control_flow``: a different sequence of primitive calls or call sites on D' (a call made on one side only, a
  different mechanism or line, an exception raised on D' only): the control flow depends on the private data;
- ``sensitivity``: a value that moves by more than its declared sensitivity (in the primitive's metric, L1 by
  default) between D and D', the pair checked adjacent under the declared :class:`~dpverify.vocabulary.
  NeighbouringRelation`;
- ``data_bound``: a domain or bound read from the data: a declared parameter (sensitivity, scale, epsilon, delta,
  bounds or domain, the value's shape) that differs between D and D', or a read of the private array by
  ``np.unique``, ``np.min``/``max`` (and ``amin``, ``amax``, ``nanmin``, ``nanmax``, ``ptp``, the array methods)
  or ``np.histogram`` without a ``range`` (the private array is handed to the function as a watched subclass of
  ``ndarray``; a copy made with ``np.asarray`` is no longer watched, so the differential check is the one to rely on);
- ``non_finite``: NaN or inf in a value handed to a primitive (on D or D'), e.g. a NaN that ``np.clip`` let through
  into a sum, or a non-finite declared sensitivity or scale;
- ``budget``: a budget spent twice or not recorded, on D: the calls' epsilons composed by dpverify's calculus (the
  budget ledger's composition, :class:`~dpverify.libraries.ledger.Ledger`) above what the accountant recorded, or
  above the budget asked for;
- ``output`` (with ``check_output=True``): the function's return value differs between D and D' although every
  primitive returned the same output: the data reaches the release by a path around the primitives.

Calls are matched by position; a call must have the same mechanism, site and (for diffprivlib's loops over
disjoint parts, :data:`dpverify.libraries.diffprivlib.PARTITIONS`) loop part on both sides, else replay stops
there with a ``control_flow`` flag.

Every flag carries the site (``file:line``) and the replayed difference (the values on D and D').

Primitives (the ``primitives`` argument: any mix of them):

- :class:`Primitive`: a user's own noise function, ``Primitive(module, "laplace", value_arg="value",
  sensitivity_arg="sensitivity", epsilon_arg="epsilon", scale_arg=lambda a: a["sensitivity"] / a["epsilon"])``
  (each ``*_arg`` a parameter name, a position, or a function of the bound arguments);
- :class:`Spend`: a user's accountant method whose calls record budget;
- :data:`DIFFPRIVLIB`: every diffprivlib mechanism's ``randomise`` and ``BudgetAccountant.spend`` (the budget
  ledger's wrapping, :func:`dpverify.libraries.ledger.patch_diffprivlib`, shared with it);
- :data:`OPENDP`: OpenDP's measurement invocations (the OpenDP ledger's wrapping,
  :func:`dpverify.libraries.opendp_ledger.patch_opendp`): each invocation is one primitive call, its value the
  statistic the chain hands its noise measurement, its sensitivity the ``d_in`` the chain's stability maps give it.

For the pytest helper see :func:`dpverify.interfaces.testing.assert_replay_invariant` and the ``dp_replay`` fixture.
"""
from __future__ import annotations

import contextlib
import copy
import functools
import importlib
import inspect
import math
import os
import random
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from dpverify.calculus.composition import basic_composition
from dpverify.calculus.guarantees import ApproxDP
from dpverify.libraries import opendp_ledger
from dpverify.libraries.diffprivlib import PARTITIONS
from dpverify.libraries.ledger import (Ledger, LedgerEntry, compose, diffprivlib_entry, handed_in,
                                       patch_diffprivlib)
from dpverify.libraries.opendp_ledger import OpenDPLedger, patch_opendp
from dpverify.validation import check_delta, check_epsilon, check_positive_int
from dpverify.vocabulary import NeighbouringRelation

__all__ = ["DIFFPRIVLIB", "FLAG_KINDS", "METRICS", "OPENDP", "Call", "Flag", "Primitive", "Recording",
           "ReplayResult", "Spend", "record", "replay", "record_and_replay"]

#: The kinds of :class:`Flag` (module docstring).
FLAG_KINDS = ("control_flow", "sensitivity", "data_bound", "non_finite", "budget", "output")
#: The distances a :class:`Primitive` measures its value's change in.
METRICS = ("l1", "l2", "linf")
_HERE = os.path.abspath(__file__)
_NUMPY_DIR = os.path.dirname(np.__file__)
_REL = 1e-9

ArgSpec = str | int | Callable[[Mapping[str, Any]], Any] | None


# -- records --------------------------------------------------------------------------------------------------------

@dataclass
class Call:
    """One primitive call: ``index`` (its position in the run), ``mechanism``, ``site`` (``file:line`` of the code
    that called the primitive), ``value`` (what it was given: a float, a float array, or None when not numeric),
    the declared ``sensitivity``, ``scale``, ``epsilon``, ``delta`` and ``bounds`` (None when not declared),
    ``metric``, ``output`` (what it returned), ``draw`` (output minus value, when both are numbers of one shape: the
    additive noise), ``rng_after`` (the states of the generators it used, restored after its frozen replay),
    ``partition`` (a diffprivlib loop over disjoint parts, :class:`~dpverify.libraries.ledger.Partition`) and
    ``function`` (the calling function's name)."""

    index: int
    mechanism: str
    site: str
    value: Any
    sensitivity: float | None = None
    scale: float | None = None
    epsilon: float | None = None
    delta: float | None = None
    bounds: Any = None
    metric: str | None = "l1"
    output: Any = None
    draw: Any = None
    rng_after: list = field(default_factory=list, repr=False)
    partition: tuple | None = None
    function: str = "?"

    def to_dict(self) -> dict:
        return {"index": self.index, "mechanism": self.mechanism, "site": self.site, "value": _plain(self.value),
                "sensitivity": self.sensitivity, "scale": self.scale, "epsilon": self.epsilon, "delta": self.delta,
                "bounds": _plain(self.bounds), "metric": self.metric, "draw": _plain(self.draw)}


@dataclass(frozen=True)
class Flag:
    """One finding of :func:`replay`: ``kind`` (one of :data:`FLAG_KINDS`), ``site`` (``file:line``), ``message``
    (what differs and why it leaks), ``on_d`` and ``on_d_prime`` (the replayed difference: the values on D and D'),
    ``index`` (the primitive call's position, when the flag is about one call)."""

    kind: str
    site: str
    message: str
    on_d: Any = None
    on_d_prime: Any = None
    index: int | None = None

    def __str__(self) -> str:
        diff = "" if self.on_d is None and self.on_d_prime is None else \
            f" [D: {_short_repr(self.on_d)}; D': {_short_repr(self.on_d_prime)}]"
        return f"{self.kind} at {self.site}: {self.message}{diff}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "site": self.site, "message": self.message, "on_d": _plain(self.on_d),
                "on_d_prime": _plain(self.on_d_prime), "index": self.index}


@dataclass(frozen=True)
class _Read:
    """A read of the private array by a domain- or bound-revealing numpy function."""

    function: str
    site: str
    result: Any


@dataclass
class Recording:
    """What :func:`record` saw on D: the primitive ``calls`` in order, the accountant ``spends`` (epsilon, delta,
    whether on the caller's accountant, the site), the numpy ``reads`` of the private array, the function's
    ``output``, and how it was run (``primitives``, ``seed``, ``accountant``, ``budget``, ``watch``, ``dataset``)."""

    calls: list[Call]
    spends: list[tuple[float, float, bool, str]]
    reads: list[_Read]
    output: Any
    primitives: tuple
    seed: int
    dataset: Any
    accountant: Any = None
    budget: ApproxDP | None = None
    watch: bool = True
    observed_spends: bool = False  # an adapter that captures accountant spends was active

    def ledger(self, relation: str = NeighbouringRelation.REPLACE_ONE) -> Ledger | None:
        """The calls and spends as a budget :class:`~dpverify.libraries.ledger.Ledger` (``spent``, ``recorded``,
        ``asked``, ``mismatch``), or None when a call declares no epsilon (nothing to compose)."""
        if not self.calls or any(c.epsilon is None for c in self.calls):
            return None
        entries = [_entry(c) for c in self.calls]
        mine = [ApproxDP(e, d) for e, d, m, _ in self.spends if m]
        led = Ledger("replay", entries=entries, spends=list(self.spends), asked=self.budget, adjacency=relation)
        if self.observed_spends:
            led.recorded = basic_composition(mine) if mine else ApproxDP(0.0, 0.0)
        return led


@dataclass
class ReplayResult:
    """The replay of a :class:`Recording` on D': ``flags`` (:class:`Flag`), the ``recording`` (D), the replayed
    ``calls`` (D'), ``diverged_at`` (the call where replay stopped, or None) and ``relation`` (the neighbouring
    relation the pair was checked under, or None when it could not be)."""

    flags: list[Flag]
    recording: Recording
    calls: list[Call]
    diverged_at: int | None = None
    relation: str | None = None

    @property
    def ok(self) -> bool:
        return not self.flags

    def kinds(self) -> set[str]:
        return {f.kind for f in self.flags}

    def report(self) -> str:
        """The flags, one per line (``kind at file:line: message [D: ...; D': ...]``)."""
        if not self.flags:
            return (f"replay invariant: {len(self.recording.calls)} primitive call(s) replayed on D' with the same "
                    "draws, nothing flagged")
        lines = [f"{len(self.flags)} replay flag(s) ({len(self.recording.calls)} primitive call(s) on D, "
                 f"{len(self.calls)} replayed on D'):"]
        lines += [f"  - {f}" for f in self.flags]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {"flags": [f.to_dict() for f in self.flags], "calls_d": [c.to_dict() for c in self.recording.calls],
                "calls_d_prime": [c.to_dict() for c in self.calls], "diverged_at": self.diverged_at,
                "relation": self.relation}


# -- the run ---------------------------------------------------------------------------------------------------------

class _Diverged(BaseException):
    """Raised inside the replayed function to stop it at the first divergence (a BaseException, so a library's
    ``except Exception`` cannot swallow it)."""


_local = threading.local()


def _active() -> _Session | None:
    return getattr(_local, "session", None)


class _Session:
    """One run (record on D or replay on D') with its primitives installed."""

    def __init__(self, mode: str, recording: Recording | None = None, accountant: Any = None) -> None:
        self.mode = mode
        self.recording = recording
        self.accountant = accountant
        self.calls: list[Call] = []
        self.spends: list[tuple[float, float, bool, str]] = []
        self.reads: list[_Read] = []
        self.flags: list[Flag] = []
        self.observed_spends = False
        self.busy = False  # inside a primitive's real call: primitives it calls are part of it, not calls of their own

    # the primitives call these
    def on_call(self, mechanism: str, site: str, function: str, value: Any, run: Callable[[], Any],
                rngs: Sequence[Any] = (), *, sensitivity: Any = None, scale: Any = None, epsilon: Any = None,
                delta: Any = None, bounds: Any = None, metric: str | None = "l1",
                partition: tuple | None = None) -> Any:
        """Record or replay one primitive call (``run()`` makes the real call)."""
        i = len(self.calls)
        call = Call(i, mechanism, site, _as_value(value), _number(sensitivity), _number(scale), _number(epsilon),
                    _number(delta), _snapshot(bounds), metric, partition=partition, function=function)
        self.calls.append(call)
        if self.mode == "record":
            self.busy = True
            try:
                out = run()
            finally:
                self.busy = False
            call.output = _snapshot(out)
            call.draw = _draw(out, call.value)
            call.rng_after = [_rng_state(r) for r in rngs] + [_global_state()]
            return out
        assert self.recording is not None
        recorded = self.recording.calls
        if i >= len(recorded):
            self.flags.append(Flag("control_flow", site, f"call {i} ({mechanism}) is made on D' only: the number of "
                                   "primitive calls depends on the private data", None, mechanism, i))
            raise _Diverged
        x = recorded[i]
        if (x.mechanism, x.site, x.partition) != (mechanism, site, partition):
            on_d, on_d_prime = _where(x.mechanism, x.site, x.partition), _where(mechanism, site, partition)
            self.flags.append(Flag("control_flow", site, f"call {i} differs: {on_d} on D, {on_d_prime} on D': the "
                                   "sequence of primitive calls depends on the private data", on_d, on_d_prime, i))
            raise _Diverged
        self.flags.extend(_compare(x, call))
        for r, state in zip(rngs, x.rng_after):
            _set_rng_state(r, state)
        if x.rng_after:
            _set_global_state(x.rng_after[-1])
        return _snapshot(x.output)

    def on_spend(self, epsilon: Any, delta: Any, mine: bool, site: str) -> None:
        self.spends.append((float(epsilon), float(delta), mine, site))

    def on_read(self, function: str, result: Any) -> None:
        self.reads.append(_Read(function, caller_site(), _snapshot(result)))


@contextlib.contextmanager
def _installed(session: _Session, primitives: Sequence[Any]) -> Iterator[None]:
    previous = _active()
    with contextlib.ExitStack() as stack:
        for p in primitives:
            stack.enter_context(p.install(session))
        _local.session = session
        try:
            yield
        finally:
            _local.session = previous


def _check_primitives(primitives: Any) -> tuple:
    if isinstance(primitives, (Primitive, Spend, _Adapter)):
        primitives = (primitives,)
    try:
        out = tuple(primitives)
    except TypeError:
        raise ValueError("primitives must be a Primitive, Spend, DIFFPRIVLIB, OPENDP or a sequence of them; got "
                         f"{primitives!r}") from None
    if not out:
        raise ValueError("primitives must name at least one primitive (a Primitive, DIFFPRIVLIB or OPENDP): with "
                         "none, nothing is recorded and nothing can be replayed")
    for p in out:
        if not isinstance(p, (Primitive, Spend, _Adapter)):
            raise ValueError(f"primitives must be Primitive, Spend, DIFFPRIVLIB or OPENDP objects; got {p!r}")
    return out


def _invoke(function: Callable, data: Any, seed: int) -> Any:
    """``function(data)``, or ``function(data, rng)`` with a generator seeded by ``seed`` when it takes two
    positional parameters; the global numpy and ``random`` generators are seeded with ``seed`` for the call and
    restored after it."""
    saved = (np.random.get_state(), random.getstate())
    np.random.seed(seed)
    random.seed(seed)
    try:
        if _takes_rng(function):
            return function(data, np.random.default_rng(seed))
        return function(data)
    finally:
        np.random.set_state(saved[0])
        random.setstate(saved[1])


def _takes_rng(function: Callable) -> bool:
    try:
        params = [p for p in inspect.signature(function).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    except (TypeError, ValueError):
        return False
    return len(params) >= 2


def record(function: Callable, dataset: Any, *, primitives: Any, seed: int = 0, accountant: Any = None,
           budget: float | tuple[float, float] | None = None, watch: bool = True) -> Recording:
    """Run ``function(dataset)`` (or ``function(dataset, rng)``, ``rng = np.random.default_rng(seed)``) with every
    call of ``primitives`` intercepted (module docstring); the global numpy and ``random`` generators are seeded with
    ``seed`` for the run. ``accountant``: the accountant the caller sees (diffprivlib: its spends are the recorded
    budget, spends on any other accountant are unrecorded; default diffprivlib's default accountant);
    ``budget``: the epsilon (or ``(epsilon, delta)``) the function is asked to spend (the ``budget`` flag when the
    calls compose to more); ``watch``: hand a numeric ``ndarray`` dataset to the function as a watched array (reads
    by ``np.unique``, ``np.min``/``max``... are flagged). The function gets a copy: it may modify it in place."""
    prims = _check_primitives(primitives)
    seed = _check_seed(seed)
    asked = _check_budget(budget)
    if not isinstance(watch, bool):
        raise ValueError(f"watch must be True or False; got {watch!r}")
    if not callable(function):
        raise ValueError(f"function must be callable; got {function!r}")
    session = _Session("record", accountant=accountant)
    with _installed(session, prims):
        output = _invoke(function, _private(dataset, watch), seed)
    return Recording(session.calls, session.spends, session.reads, _snapshot(output), prims, seed,
                     _snapshot(dataset), accountant, asked, watch, session.observed_spends)


def replay(recording: Recording, function: Callable, neighbour: Any, *, relation: Any = None,
           check_output: bool = False) -> ReplayResult:
    """Run ``function(neighbour)`` with the recording's primitives frozen (call ``i`` returns its output on D, the
    generators are restored to their states after call ``i`` on D) and return the flags (module docstring).
    ``relation``: the :class:`~dpverify.vocabulary.NeighbouringRelation` the declared sensitivities are stated
    under ("add_remove" or "replace_one"); the pair must be adjacent under it (a ``ValueError`` otherwise). None
    infers it from the sizes (equal: replace-one; one apart: add/remove) where the records can be compared.
    ``check_output``: also flag a return value that differs between D and D' (the ``output`` flag). Off by
    default: it holds only when every random choice goes through a declared primitive that returns the release;
    a mechanism whose primitive returns part of it (an exponential mechanism's index followed by a uniform draw
    between data points, objective perturbation's noise vector followed by an optimisation on the data) changes
    its output on D' legitimately."""
    if not isinstance(check_output, bool):
        raise ValueError(f"check_output must be True or False; got {check_output!r}")
    if not isinstance(recording, Recording):
        raise ValueError(f"recording must be what record() returned; got {type(recording).__name__}")
    rel = _check_pair(recording.dataset, neighbour, relation)
    session = _Session("replay", recording, recording.accountant)
    diverged = None
    output: Any = None
    completed = False
    with _installed(session, recording.primitives):
        try:
            output = _invoke(function, _private(neighbour, recording.watch), recording.seed)
            completed = True
        except _Diverged:
            diverged = len(session.calls) - 1
        except Exception as exc:  # noqa: BLE001 - an error on D' only is data-dependent control flow
            site = _exception_site(exc)
            session.flags.append(Flag("control_flow", site, f"the function raised {type(exc).__name__}: {exc} on D' "
                                      "(it ran on D): its control flow depends on the private data", None,
                                      type(exc).__name__, len(session.calls)))
            diverged = len(session.calls)
    flags = list(session.flags)
    compared = len(session.calls) if diverged is None else diverged
    if completed and len(session.calls) < len(recording.calls):
        x = recording.calls[len(session.calls)]
        flags.append(Flag("control_flow", x.site, f"call {x.index} ({x.mechanism}) is made on D only "
                          f"({len(recording.calls)} primitive calls on D, {len(session.calls)} on D'): the number of "
                          "calls depends on the private data", x.mechanism, None, x.index))
    for x in recording.calls[compared:]:  # never compared: their values on D alone
        if x.value is not None and not _finite(x.value):
            flags.append(Flag("non_finite", x.site, f"{x.mechanism} (call {x.index}) is given a non-finite value on D",
                              x.value, None, x.index))
    flags += _read_flags(recording.reads, session.reads)
    flags += _budget_flags(recording, rel or NeighbouringRelation.REPLACE_ONE, relation is not None)
    if check_output and completed and not diverged and len(session.calls) == len(recording.calls):
        differs = _differs(recording.output, output)
        if differs:
            flags.append(Flag("output", _definition_site(function), "the function's output differs between D and D' "
                              "although every primitive returned the same output: the private data reaches the "
                              "release around the primitives", recording.output, _snapshot(output)))
    return ReplayResult(flags, recording, session.calls, diverged, None if rel is None else rel.value)


def record_and_replay(function: Callable, dataset: Any, neighbour: Any, *, primitives: Any,
                      relation: Any = None, seed: int = 0, accountant: Any = None,
                      budget: float | tuple[float, float] | None = None, watch: bool = True,
                      check_output: bool = False) -> ReplayResult:
    """:func:`record` on ``dataset``, then :func:`replay` on ``neighbour``."""
    rec = record(function, dataset, primitives=primitives, seed=seed, accountant=accountant, budget=budget,
                 watch=watch)
    return replay(rec, function, neighbour, relation=relation, check_output=check_output)


# -- comparisons -----------------------------------------------------------------------------------------------------

def _compare(x: Call, y: Call) -> list[Flag]:
    """The flags of call ``x`` (on D) replayed as ``y`` (on D'), same mechanism and site."""
    out = []
    i, site = x.index, x.site
    for name in ("sensitivity", "scale", "epsilon", "delta", "bounds"):
        u, v = getattr(x, name), getattr(y, name)
        if not _same(u, v):
            out.append(Flag("data_bound", site, f"{x.mechanism} (call {i}): the declared {name} differs between D "
                            "and D': it is computed from the private data", u, v, i))
    for name in ("sensitivity", "scale"):
        for side, c in (("D", x), ("D'", y)):
            s = getattr(c, name)
            if s is not None and not math.isfinite(s):
                out.append(Flag("non_finite", site, f"{x.mechanism} (call {i}): the declared {name} is {s} on {side}",
                                x.sensitivity if name == "sensitivity" else x.scale,
                                y.sensitivity if name == "sensitivity" else y.scale, i))
    if x.value is None or y.value is None:
        return out
    bad = [side for side, c in (("D", x), ("D'", y)) if not _finite(c.value)]
    if bad:
        out.append(Flag("non_finite", site, f"{x.mechanism} (call {i}) is given a value with NaN or inf on "
                        f"{' and '.join(bad)}: a NaN or inf passed the clipping into the primitive", x.value, y.value,
                        i))
        return out
    if np.shape(x.value) != np.shape(y.value):
        out.append(Flag("data_bound", site, f"{x.mechanism} (call {i}): the value's shape differs "
                        f"({np.shape(x.value)} on D, {np.shape(y.value)} on D'): its domain is read from the data",
                        x.value, y.value, i))
        return out
    if x.metric is None:  # no metric declared for this value (a matrix): its sensitivity is not checked
        return out
    moved = _distance(np.asarray(x.value, dtype=float) - np.asarray(y.value, dtype=float), x.metric)
    declared = x.sensitivity
    if declared is not None and math.isfinite(declared) and moved > declared * (1 + _REL) + 1e-12:
        out.append(Flag("sensitivity", site, f"{x.mechanism} (call {i}): the value moves by {moved:.6g} "
                        f"({x.metric}) between D and D', above its declared sensitivity {declared:.6g}",
                        x.value, y.value, i))
    return out


def _where(mechanism: str, site: str, partition: tuple | None) -> str:
    part = "" if partition is None else f" (loop part {partition[2]})"
    return f"{mechanism} at {site}{part}"


def _read_flags(on_d: list[_Read], on_d_prime: list[_Read]) -> list[Flag]:
    """One flag per (function, site) that read the private array, with the results on D and D'."""
    seen: dict[tuple[str, str], list] = {}
    for side, reads in ((0, on_d), (1, on_d_prime)):
        for r in reads:
            slot = seen.setdefault((r.function, r.site), [None, None])
            if slot[side] is None:
                slot[side] = r.result
    return [Flag("data_bound", site, f"{fn} reads a domain or bound from the private data", d, dp)
            for (fn, site), (d, dp) in seen.items()]


def _budget_flags(rec: Recording, relation: NeighbouringRelation, declared: bool) -> list[Flag]:
    """The ``budget`` flags of the recording (D): the calls composed by the ledger's calculus above the record or
    the request. Under the ``declared`` relation when the caller declared one; else under the relation that makes
    the calls cheapest (the ledger's ``spent_least``: a library that states none is given the benefit)."""
    led = rec.ledger(relation.value)
    if led is None:
        return []
    out: list[Flag] = []
    spent = led.spent if declared else led.spent_least
    if spent is None:
        return out
    how = f"dpverify's composition under {relation.value}" if declared else "dpverify's composition"

    def over(ref: ApproxDP | None) -> bool:
        tol = 1e-9 * max(1.0, ref.epsilon) if ref is not None else 0.0
        return ref is not None and (spent.epsilon - ref.epsilon > tol or spent.delta - ref.delta > 1e-9)

    if over(led.recorded):
        assert led.recorded is not None
        sites = led.unrecorded_sites or [_crossing_site(led.entries, led.recorded.epsilon, relation)]
        for site in sites:
            out.append(Flag("budget", site, f"the calls spend epsilon {spent.epsilon:.6g} ({how}) but the accountant "
                            f"records {led.recorded.epsilon:.6g}: budget spent and not recorded", spent.epsilon,
                            led.recorded.epsilon))
    if over(led.asked):
        assert led.asked is not None
        site = _crossing_site(led.entries, led.asked.epsilon, relation)
        out.append(Flag("budget", site, f"the calls spend epsilon {spent.epsilon:.6g} ({how}), above the "
                        f"{led.asked.epsilon:.6g} asked for: a budget spent twice (the call here takes the total "
                        "over it)", spent.epsilon, led.asked.epsilon))
    return out


def _crossing_site(entries: list[LedgerEntry], limit: float, relation: NeighbouringRelation) -> str:
    """The site of the first call whose composition with the calls before it exceeds ``limit``."""
    for k in range(1, min(len(entries), 500) + 1):
        c = compose(entries[:k], relation.value)
        if c is not None and c.epsilon > limit * (1 + _REL) + 1e-12:
            return entries[k - 1].site
    return entries[-1].site if entries else "?"


def _entry(c: Call) -> LedgerEntry:
    return LedgerEntry(c.mechanism, float(c.epsilon if c.epsilon is not None else math.nan),
                       float(c.delta or 0.0), c.sensitivity, c.scale, c.site, c.function, (), c.partition,
                       c.value if isinstance(c.value, float) else None)


# -- the pair --------------------------------------------------------------------------------------------------------

def _record_keys(x: Any) -> list | None:
    try:
        a = np.asarray(x)
    except Exception:  # noqa: BLE001 - not array-like: the records cannot be compared
        return None
    if a.ndim == 0:
        return None
    if a.dtype.kind in "biufc":
        a = np.ascontiguousarray(a, dtype=float)
        return [a[i].tobytes() for i in range(len(a))]
    return [repr(a[i].tolist() if hasattr(a[i], "tolist") else a[i]) for i in range(len(a))]


def _check_pair(dataset: Any, neighbour: Any, relation: Any) -> NeighbouringRelation | None:
    """The relation the pair is adjacent under (the declared one, checked; or inferred); a ``ValueError`` naming
    the relation when the pair is not adjacent under it."""
    rel = None if relation is None else NeighbouringRelation.parse(relation, "relation")
    a, b = _record_keys(dataset), _record_keys(neighbour)
    if a is None or b is None:
        if rel is not None:
            raise ValueError(f"relation={rel.value!r}: the datasets' records cannot be compared (give arrays or "
                             "sequences of records), so the pair cannot be checked adjacent")
        return None
    ca, cb = Counter(a), Counter(b)
    only_a, only_b = sum((ca - cb).values()), sum((cb - ca).values())
    admits = []
    if len(a) == len(b) and only_a <= 1 and only_b <= 1:
        admits.append(NeighbouringRelation.REPLACE_ONE)
    if abs(len(a) - len(b)) == 1 and only_a + only_b == 1:
        admits.append(NeighbouringRelation.ADD_REMOVE)
    if rel is None:
        if not admits:
            raise ValueError(f"dataset and neighbour are not adjacent: sizes {len(a)} and {len(b)}, {only_a} record(s) "
                             f"only in the dataset and {only_b} only in the neighbour (replace_one: same size, one "
                             "record replaced; add_remove: one record added or removed)")
        return admits[0]
    if rel not in admits:
        raise ValueError(f"dataset and neighbour are not adjacent under relation={rel.value!r}: sizes {len(a)} and "
                         f"{len(b)}, {only_a} record(s) only in the dataset and {only_b} only in the neighbour")
    return rel


# -- the watched private array ---------------------------------------------------------------------------------------

_READS = {"unique": "np.unique", "min": "np.min", "max": "np.max", "amin": "np.amin", "amax": "np.amax",
          "nanmin": "np.nanmin", "nanmax": "np.nanmax", "ptp": "np.ptp"}
_HISTOGRAMS = ("histogram", "histogram_bin_edges", "histogramdd", "histogram2d")


class _Watched(np.ndarray):
    """The private array as the function sees it: reads of its domain or bounds are reported to the session."""

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if _in_numpy():
            return super().__array_function__(func, types, args, kwargs)
        _local.in_numpy = True
        try:
            result = super().__array_function__(func, types, args, kwargs)
        finally:
            _local.in_numpy = False
        name = getattr(func, "__name__", "")
        session = _active()
        if session is not None:
            if name in _READS:
                session.on_read(_READS[name], _plain_array(result))
            elif name in _HISTOGRAMS and kwargs.get("range") is None and not _explicit_edges(args, kwargs):
                session.on_read(f"np.{name} without range (its bin edges are the data's min and max)",
                                _plain_array(result[-1] if isinstance(result, tuple) else result))
        return _scalar_if_0d(result)

    def __array_wrap__(self, obj: Any, context: Any = None, return_scalar: bool = False) -> Any:
        # a reduction gives a number, as on a plain array (a 0-d subclass array is not a ``numbers.Real``)
        return _scalar_if_0d(super().__array_wrap__(obj, context, return_scalar))

    def _reduce_method(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if _in_numpy():
            return getattr(super(), name)(*args, **kwargs)
        _local.in_numpy = True
        try:
            result = getattr(super(), name)(*args, **kwargs)
        finally:
            _local.in_numpy = False
        session = _active()
        if session is not None:
            session.on_read(f"ndarray.{name}", _plain_array(result))
        return _plain_array(result)

    def min(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return self._reduce_method("min", *args, **kwargs)

    def max(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return self._reduce_method("max", *args, **kwargs)


def _in_numpy() -> bool:
    return bool(getattr(_local, "in_numpy", False))


def _explicit_edges(args: tuple, kwargs: dict) -> bool:
    bins = kwargs.get("bins", args[1] if len(args) > 1 else 10)
    return np.ndim(bins) > 0


def _scalar_if_0d(x: Any) -> Any:
    if isinstance(x, _Watched) and x.ndim == 0:
        return x.view(np.ndarray)[()]
    return x


def _plain_array(x: Any) -> Any:
    if isinstance(x, _Watched):
        v = x.view(np.ndarray)
        return v[()] if v.ndim == 0 else v
    return x


def _private(dataset: Any, watch: bool) -> Any:
    """A copy of the dataset for the function (a watched array when ``watch`` and it is a numeric ndarray)."""
    if isinstance(dataset, np.ndarray):
        copy_ = np.array(dataset, copy=True)
        return copy_.view(_Watched) if watch and copy_.dtype.kind in "biufc" and copy_.ndim > 0 else copy_
    try:
        return copy.deepcopy(dataset)
    except Exception:  # noqa: BLE001 - an object that cannot be copied is handed over as is
        return dataset


# -- primitives ------------------------------------------------------------------------------------------------------

class _Adapter:
    """A family of primitives installed for one run (:data:`DIFFPRIVLIB`, :data:`OPENDP`)."""

    name = "adapter"

    def install(self, session: _Session) -> contextlib.AbstractContextManager:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name.upper()


def _resolve_owner(owner: Any, what: str) -> Any:
    if isinstance(owner, str):
        try:
            return importlib.import_module(owner)
        except ImportError as exc:
            raise ValueError(f"{what}: module {owner!r} cannot be imported: {exc}") from None
    if isinstance(owner, (ModuleType, type, dict)):
        return owner
    raise ValueError(f"{what}: owner must be a module, a module name, a class or a namespace dict; got {owner!r}")


def _get(owner: Any, name: str) -> Any:
    return owner[name] if isinstance(owner, dict) else vars(owner)[name]


def _set(owner: Any, name: str, value: Any) -> None:
    if isinstance(owner, dict):
        owner[name] = value
    else:
        setattr(owner, name, value)


@contextlib.contextmanager
def _patched(owner: Any, name: str, make: Callable[[Callable], Callable], what: str) -> Iterator[None]:
    """Replace ``owner.name`` (and every loaded module's global bound to the same function) for the block."""
    try:
        original = _get(owner, name)
    except KeyError:
        raise ValueError(f"{what}: {name!r} is not defined in {getattr(owner, '__name__', 'the namespace')}") from None
    if not callable(original):
        raise ValueError(f"{what}: {name!r} is not callable")
    wrapper = make(original)
    targets: list[Any] = [owner]
    if not isinstance(owner, type):  # functions imported by name elsewhere (``from mylib import laplace``)
        for mod in list(sys.modules.values()):
            try:
                d = getattr(mod, "__dict__", None)
                if isinstance(d, dict) and mod is not owner and d.get(name) is original:
                    targets.append(mod)
            except Exception:  # noqa: BLE001,S112 - a lazy module that fails on attribute access holds no binding
                continue
    for t in targets:
        _set(t, name, wrapper)
    try:
        yield
    finally:
        for t in targets:
            _set(t, name, original)


def _arg(spec: ArgSpec, bound: Mapping[str, Any], positional: Sequence[Any], what: str) -> Any:
    if spec is None:
        return None
    if callable(spec):
        return spec(bound)
    if isinstance(spec, int):
        return positional[spec] if spec < len(positional) else None
    return bound.get(spec)


@dataclass(frozen=True)
class Primitive:
    """A user's noise primitive: the callable ``name`` in ``module`` (a module, a module name, a class, or a
    namespace dict such as ``globals()``). Each ``*_arg`` names a parameter of it (or a position, or is a function
    of the bound arguments, e.g. ``scale_arg=lambda a: a["sensitivity"] / a["epsilon"]``): ``value_arg`` the
    statistic it releases, ``sensitivity_arg`` its declared sensitivity (in ``metric``: "l1", "l2" or "linf"),
    ``scale_arg`` its noise scale, ``epsilon_arg`` and ``delta_arg`` its budget, ``bounds_arg`` a declared domain or
    bounds. ``mechanism``: the label in flags (default the name). While a run is recorded or replayed, the name is
    replaced in the module and in every loaded module that imported it by name."""

    module: Any
    name: str
    value_arg: ArgSpec = 0
    scale_arg: ArgSpec = None
    sensitivity_arg: ArgSpec = None
    epsilon_arg: ArgSpec = None
    delta_arg: ArgSpec = None
    bounds_arg: ArgSpec = None
    metric: str = "l1"
    mechanism: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be the primitive's name (a non-empty string); got {self.name!r}")
        if self.metric not in METRICS:
            raise ValueError(f"metric must be one of {METRICS}; got {self.metric!r}")
        for arg in ("value_arg", "scale_arg", "sensitivity_arg", "epsilon_arg", "delta_arg", "bounds_arg"):
            spec = getattr(self, arg)
            if not (spec is None or callable(spec) or isinstance(spec, str)
                    or (isinstance(spec, int) and not isinstance(spec, bool) and spec >= 0)):
                raise ValueError(f"{arg} must be a parameter name, a position >= 0, a function of the arguments or "
                                 f"None; got {spec!r}")
        _resolve_owner(self.module, f"Primitive {self.name!r}")

    def install(self, session: _Session) -> contextlib.AbstractContextManager:
        owner = _resolve_owner(self.module, f"Primitive {self.name!r}")
        label = self.mechanism or self.name

        def make(original: Callable) -> Callable:
            try:
                sig: inspect.Signature | None = inspect.signature(original)
            except (TypeError, ValueError):
                sig = None

            @functools.wraps(original)
            def primitive(*args: Any, **kwargs: Any) -> Any:
                s = _active()
                if s is None or _in_numpy() or s.busy:
                    return original(*args, **kwargs)
                bound: dict[str, Any] = dict(kwargs)
                if sig is not None:
                    try:
                        b = sig.bind(*args, **kwargs)
                        b.apply_defaults()
                        bound = dict(b.arguments)
                    except TypeError:
                        pass
                get = functools.partial(_arg, bound=bound, positional=args, what=label)
                value = get(self.value_arg)
                rngs = [a for a in (*args, *kwargs.values()) if _is_rng(a)]
                site, function = caller_site_and_function()
                return s.on_call(label, site, function, value, lambda: original(*args, **kwargs), rngs,
                                 sensitivity=get(self.sensitivity_arg), scale=get(self.scale_arg),
                                 epsilon=get(self.epsilon_arg), delta=get(self.delta_arg), bounds=get(self.bounds_arg),
                                 metric=self.metric)

            return primitive

        return _patched(owner, self.name, make, f"Primitive {self.name!r}")


@dataclass(frozen=True)
class Spend:
    """A user's accountant method whose calls record spent budget: ``name`` in ``module`` (as for
    :class:`Primitive`), ``epsilon_arg`` and ``delta_arg`` its arguments. With a ``Spend`` installed, the
    recording compares the primitives' composed epsilon with what these calls recorded (the ``budget`` flag)."""

    module: Any
    name: str
    epsilon_arg: ArgSpec = 0
    delta_arg: ArgSpec = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"name must be the spend method's name (a non-empty string); got {self.name!r}")
        _resolve_owner(self.module, f"Spend {self.name!r}")

    def install(self, session: _Session) -> contextlib.AbstractContextManager:
        owner = _resolve_owner(self.module, f"Spend {self.name!r}")
        session.observed_spends = True

        def make(original: Callable) -> Callable:
            sig = inspect.signature(original)

            @functools.wraps(original)
            def spend(*args: Any, **kwargs: Any) -> Any:
                s = _active()
                if s is not None:
                    b = sig.bind(*args, **kwargs)
                    b.apply_defaults()
                    eps = _arg(self.epsilon_arg, b.arguments, args, self.name)
                    delta = _arg(self.delta_arg, b.arguments, args, self.name)
                    s.on_spend(float(eps), float(delta or 0.0), True, caller_site())
                return original(*args, **kwargs)

            return spend

        return _patched(owner, self.name, make, f"Spend {self.name!r}")


class _DiffprivlibAdapter(_Adapter):
    """diffprivlib's mechanisms and accountant, through the budget ledger's wrapping
    (:func:`dpverify.libraries.ledger.patch_diffprivlib`): each outermost ``randomise`` is a primitive call (its
    value the statistic, its declared sensitivity, scale, epsilon, delta and ``(lower, upper)`` bounds the
    mechanism's), its generator ``_rng`` restored after a frozen call; each ``BudgetAccountant.spend`` is a spend,
    recorded when on the caller's accountant (``record(accountant=...)``, else diffprivlib's default one). Calls in
    the loops over disjoint parts :data:`dpverify.libraries.diffprivlib.PARTITIONS` compose in parallel."""

    name = "diffprivlib"

    @contextlib.contextmanager
    def install(self, session: _Session) -> Iterator[None]:
        from diffprivlib import BudgetAccountant

        session.observed_spends = True
        scopes: list = []
        counts: dict = {}
        pkg = ""
        internal: list = []  # accountants diffprivlib makes itself: the caller never sees their records
        original_init = BudgetAccountant.__init__

        def init(acc: Any, *args: Any, **kwargs: Any) -> None:
            original_init(acc, *args, **kwargs)
            if pkg and os.path.abspath(sys._getframe(1).f_code.co_filename).startswith(pkg):
                internal.append(acc)

        def on_randomise(mech: Any, args: tuple, kwargs: dict, original: Callable) -> Any:
            e = diffprivlib_entry(mech, args, pkg, PARTITIONS, scopes, counts)
            lower, upper = getattr(mech, "lower", None), getattr(mech, "upper", None)
            bounds = None if lower is None and upper is None else (_number(lower), _number(upper))
            rng = getattr(mech, "_rng", None)
            value = args[0] if args else kwargs.get("value")
            return session.on_call(e.mechanism, e.site, e.function, value, lambda: original(mech, *args, **kwargs),
                                   [rng] if _is_rng(rng) else [], sensitivity=e.sensitivity, scale=e.scale,
                                   epsilon=e.epsilon, delta=e.delta, bounds=bounds, partition=e.partition,
                                   metric="l1" if value is None or np.ndim(value) == 0 else None)

        def on_spend(acc: Any, epsilon: Any, delta: Any, original: Callable) -> Any:
            if session.accountant is not None:
                mine = acc is session.accountant
            else:  # the default accountant, or one the caller made and handed in
                mine = acc is BudgetAccountant._default or not any(acc is x for x in internal)
            session.on_spend(epsilon, delta, mine, "" if mine else handed_in(acc, pkg))
            return original(acc, epsilon, delta)

        BudgetAccountant.__init__ = init  # type: ignore[method-assign]
        try:
            with patch_diffprivlib(on_randomise, on_spend) as pkg:
                pkg = os.path.abspath(pkg)
                yield
        finally:
            BudgetAccountant.__init__ = original_init  # type: ignore[method-assign]
            scopes.clear()
            internal.clear()


class _OpenDPAdapter(_Adapter):
    """OpenDP's measurement invocations, through the OpenDP ledger's wrapping
    (:func:`dpverify.libraries.opendp_ledger.patch_opendp`): each invocation of a measurement built inside the run
    is one primitive call per noise measurement in its construction tree (the ledger's expansion: the statistic the
    chain hands the noise measurement, the ``d_in = 1`` passed through the stability maps as its declared
    sensitivity, its scale and epsilon); the first of them returns the frozen output of the whole invocation.
    OpenDP draws its noise from the operating system, so only its outputs (not its generator) are frozen."""

    name = "opendp"

    @contextlib.contextmanager
    def install(self, session: _Session) -> Iterator[None]:
        import opendp

        skip = (os.path.dirname(os.path.abspath(opendp.__file__)),
                os.path.abspath(opendp_ledger.__file__ or ""))

        def on_invoke(meas: Any, arg: Any, registry: dict, original: Callable) -> Any:
            if session.busy:  # a measurement a user measurement invokes: part of the outer call
                return original(meas, arg)
            site, function = caller_site_and_function(skip)
            scratch = OpenDPLedger("opendp", adjacency="add_remove")
            opendp_ledger._record(scratch, registry, meas, 1, arg)
            entries = scratch.entries or [LedgerEntry("measurement", math.nan, 0.0, None, None, "?", "?")]
            out: Any = None
            for k, e in enumerate(entries):
                run = (lambda: original(meas, arg)) if k == 0 else (lambda: None)
                got = session.on_call(f"{e.mechanism} (built at {e.site})", site, function, e.value, run, [],
                                      sensitivity=e.sensitivity,
                                      scale=e.scale, epsilon=e.epsilon if math.isfinite(e.epsilon) else None,
                                      delta=e.delta)
                if k == 0:
                    out = got
            return out

        with patch_opendp(on_invoke):
            yield


#: diffprivlib's mechanisms and accountant as replay primitives (:class:`_DiffprivlibAdapter`).
DIFFPRIVLIB = _DiffprivlibAdapter()
#: OpenDP's measurement invocations as replay primitives (:class:`_OpenDPAdapter`).
OPENDP = _OpenDPAdapter()


# -- helpers ---------------------------------------------------------------------------------------------------------

def _short_path(path: str) -> str:
    """``path`` relative to the ``sys.path`` entry holding it (a library's module path), else to the working
    directory, else as it is."""
    p = os.path.abspath(path)
    best = ""
    for entry in sys.path:
        e = os.path.abspath(entry or os.getcwd())
        if p.startswith(e + os.sep) and len(e) > len(best):
            best = e
    if best:
        return os.path.relpath(p, best)
    return path


def caller_site_and_function(skip: Sequence[str] = ()) -> tuple[str, str]:
    """``(file:line, function)`` of the innermost frame outside this module, numpy and ``skip`` (directories)."""
    frame = sys._getframe(1)
    skips = (_HERE, _NUMPY_DIR, *skip)
    while frame is not None:
        fn = os.path.abspath(frame.f_code.co_filename)
        if not fn.startswith(skips) and not frame.f_code.co_filename.startswith("<frozen"):
            return f"{_short_path(frame.f_code.co_filename)}:{frame.f_lineno}", frame.f_code.co_name
        frame = frame.f_back  # type: ignore[assignment]
    return "?", "?"


def caller_site() -> str:
    return caller_site_and_function()[0]


def _exception_site(exc: BaseException) -> str:
    tb = exc.__traceback__
    last = "?"
    while tb is not None:
        fn = os.path.abspath(tb.tb_frame.f_code.co_filename)
        if not fn.startswith((_HERE, _NUMPY_DIR)):
            last = f"{_short_path(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}"
        tb = tb.tb_next
    return last


def _definition_site(function: Callable) -> str:
    code = getattr(function, "__code__", None)
    if code is None:
        return getattr(function, "__qualname__", repr(function))
    return f"{_short_path(code.co_filename)}:{code.co_firstlineno}"


def _number(x: Any) -> float | None:
    if x is None or isinstance(x, (str, bytes)):
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def _as_value(v: Any) -> Any:
    """A primitive's value as a float or a float array (None when it is not numeric)."""
    if v is None or isinstance(v, (str, bytes, dict)):
        return None
    if isinstance(v, (bool, np.bool_)):
        return float(v)
    try:
        a = np.array(v, dtype=float)
    except (TypeError, ValueError):
        return None
    return float(a) if a.ndim == 0 else a


def _finite(v: Any) -> bool:
    return bool(np.all(np.isfinite(v)))


def _distance(d: np.ndarray, metric: str) -> float:
    d = np.abs(np.ravel(d))
    if d.size == 0:
        return 0.0
    if metric == "l2":
        return float(np.sqrt(np.sum(d * d)))
    if metric == "linf":
        return float(np.max(d))
    return float(np.sum(d))


def _draw(out: Any, value: Any) -> Any:
    if value is None:
        return None
    o = _as_value(out)
    if o is None or np.shape(o) != np.shape(value):
        return None
    with np.errstate(all="ignore"):
        d = np.asarray(o, dtype=float) - np.asarray(value, dtype=float)
    return float(d) if np.ndim(d) == 0 else d


def _same(u: Any, v: Any) -> bool:
    if u is None or v is None:
        return u is v
    try:
        a, b = np.asarray(u, dtype=float), np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        return bool(u == v)
    if a.shape != b.shape:
        return False
    return bool(np.all((a == b) | (np.isnan(a) & np.isnan(b)) | (np.abs(a - b) <= 1e-12 * np.maximum(abs(a), abs(b)))))


def _differs(a: Any, b: Any) -> bool:
    """Whether two outputs differ (numbers and arrays exactly, NaN equal to NaN; tuples, lists and dicts entry by
    entry); outputs of other types are not compared (False)."""
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) != len(b) or any(_differs(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() != b.keys() or any(_differs(a[k], b[k]) for k in a)
    x, y = _as_value(a), _as_value(b)
    if x is None or y is None:
        return False
    if np.shape(x) != np.shape(y):
        return True
    xa, ya = np.asarray(x), np.asarray(y)
    return not bool(np.all((xa == ya) | (np.isnan(xa) & np.isnan(ya))))


def _snapshot(obj: Any) -> Any:
    if isinstance(obj, _Watched):
        return np.array(obj.view(np.ndarray), copy=True)
    if isinstance(obj, np.ndarray):
        return obj.copy()
    if obj is None or isinstance(obj, (int, float, complex, str, bytes, bool, np.generic)):
        return obj
    if isinstance(obj, (list, tuple)):
        return type(obj)(_snapshot(x) for x in obj) if type(obj) in (list, tuple) else copy.copy(obj)
    try:
        return copy.deepcopy(obj)
    except Exception:  # noqa: BLE001 - an object that cannot be copied is kept as is
        return obj


def _is_rng(x: Any) -> bool:
    """A generator whose state replay saves and restores. ``random.SystemRandom`` (diffprivlib before 0.6, and 0.6+
    without a ``random_state``) draws from the operating system and has no state: it is left alone (its draws inside
    a primitive are frozen like any other; a draw outside one cannot be replayed)."""
    return (isinstance(x, (np.random.Generator, np.random.RandomState, random.Random))
            and not isinstance(x, random.SystemRandom))


def _rng_state(r: Any) -> Any:
    if isinstance(r, np.random.Generator):
        return copy.deepcopy(r.bit_generator.state)
    if isinstance(r, np.random.RandomState):
        return r.get_state()
    return r.getstate()


def _set_rng_state(r: Any, state: Any) -> None:
    if isinstance(r, np.random.Generator):
        r.bit_generator.state = state
    elif isinstance(r, np.random.RandomState):
        r.set_state(state)
    else:
        r.setstate(state)


def _global_state() -> tuple:
    return np.random.get_state(), random.getstate()


def _set_global_state(state: tuple) -> None:
    np.random.set_state(state[0])
    random.setstate(state[1])


def _check_seed(seed: Any) -> int:
    return check_positive_int(seed, "seed", minimum=0, maximum=2**32 - 1)


def _check_budget(budget: Any) -> ApproxDP | None:
    if budget is None:
        return None
    if isinstance(budget, tuple):
        if len(budget) != 2:
            raise ValueError(f"budget must be an epsilon or an (epsilon, delta) pair; got {budget!r}")
        return ApproxDP(check_epsilon(budget[0], "budget epsilon"), check_delta(budget[1], "budget delta"))
    return ApproxDP(check_epsilon(budget, "budget"), 0.0)


def _plain(x: Any) -> Any:
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, tuple):
        return [_plain(v) for v in x]
    return x


def _short_repr(x: Any, limit: int = 80) -> str:
    if isinstance(x, float):
        text = f"{x:.6g}"
    elif isinstance(x, np.ndarray):
        text = np.array2string(x, precision=6, threshold=8)
    else:
        text = repr(x)
    return text if len(text) <= limit else text[:limit - 3] + "..."
