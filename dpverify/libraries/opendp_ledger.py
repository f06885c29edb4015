"""The budget ledger of OpenDP (:mod:`dpverify.libraries.ledger`): every noise measurement invoked during one release.

OpenDP builds a release from constructors (``make_laplace``, ``then_gaussian``, ``make_randomized_response_bool``
...), chains them to transformations (``make_chain_mt``), composes them (``make_composition``) and converts their
measures (``make_zCDP_to_approxDP``, ``make_fix_delta``); a chained measurement then runs in the Rust core, where no
Python code sees its inner steps. The ledger therefore records at the two points the Python API does see:

- **construction**: inside :func:`opendp_ledger`, every ``opendp.measurements.make_*`` call (the noise
  measurement: constructor, scale, the ``opendp`` source line that built it), every ``opendp.transformations.
  make_*`` call and every ``opendp.combinators.make_*`` call (which child measurements and transformations a
  chain, composition or conversion holds) are registered, keyed by the Rust object's address;
- **invocation**: every ``Measurement.__call__`` / ``invoke`` (both go through ``opendp.core.measurement_invoke``)
  of a registered measurement records one :class:`~dpverify.libraries.ledger.LedgerEntry` per noise measurement
  in its construction tree. The sensitivity declared to a noise measurement is the ``d_in`` the tree hands it: the
  ledger's ``d_in`` passed through each chained transformation's stability map (``t.map(d_in)``). A user
  measurement (``make_user_measurement``) runs Python, so measurements it invokes are recorded as they happen,
  at the user measurement's ``d_in`` (its own map is recorded only when it invokes none).

``spent``: dpverify's own calculus of each recorded noise measurement at its declared sensitivity and scale
(:func:`leaf_guarantee`: Laplace / geometric ``d_in / scale``; Gaussian ``rho = d_in^2 / (2 scale^2)``, the rhos
summed and converted to (epsilon, delta) by :func:`dpverify.calculus.conversions.rdp_to_dp`; noisy max
``2 d_in / scale``, ``d_in / scale`` under a monotonic metric; randomized response ``ln(p / (1 - p))``), composed
basically across calls. ``recorded``: the privacy map of the measurement the caller releases with
(:attr:`OpenDPLedger.release`), at ``d_in`` (:func:`read_claim`: a zCDP map converted at
``delta``). OpenDP is given noise scales, not a budget: ``asked`` stays empty. A noise measurement dpverify has
no formula for (``make_private_quantile``, a user measurement) enters ``spent`` with its own map, marked
``(own map)`` in the mechanism's name: it cannot disagree with itself.

A privacy map that under-reports, or a release that invokes its measurement more often than the map accounts for,
shows as ``spent > recorded``; a transformation whose stability map under-declares the sensitivity shows in
:func:`~dpverify.libraries.ledger.diff` on D and D' (the statistic handed to the noise measurement, computed with
the chain's own transformation, changes by more than the declared sensitivity). Statistics are recorded only
when every transformation before the noise is deterministic (not ``make_resize``, which samples).
"""
from __future__ import annotations

import ctypes
import math
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dpverify.calculus.composition import basic_composition
from dpverify.calculus.conversions import rdp_to_dp
from dpverify.calculus.guarantees import ApproxDP
from dpverify.libraries.base import Claimed
from dpverify.libraries.ledger import Ledger, LedgerEntry, library_site

__all__ = ["OpenDPLedger", "leaf_guarantee", "opendp_ledger", "patch_opendp", "read_claim", "zcdp_to_approx"]

#: Transformations whose output is random (their statistic is not recorded: recomputing it would not be the
#: value the release used).
RANDOM_TRANSFORMATIONS = ("make_resize",)
#: Combinators that hold measurements without spending anything of their own (measure conversions, chains).
_PASS_THROUGH = ("make_zCDP_to_approxDP", "make_fix_delta", "make_approximate", "make_pureDP_to_zCDP",
                 "make_fixed_approxDP_to_approxDP")
_COMPOSE = ("make_composition", "make_basic_composition")
_ORDERS = np.concatenate([np.linspace(1.001, 10.0, 600), np.geomspace(10.0, 1e5, 600)[1:]])

_local = threading.local()


def zcdp_to_approx(rho: float, delta: float) -> ApproxDP:
    """(epsilon, delta) of a rho-zCDP guarantee: the Renyi curve ``rho * alpha`` converted at ``delta`` by dpverify's
    :func:`~dpverify.calculus.conversions.rdp_to_dp` (Balle et al. 2020), minimised over a dense grid of orders."""
    if not rho >= 0 or not 0 < delta < 1:
        raise ValueError(f"need rho >= 0 and 0 < delta < 1; got rho={rho!r}, delta={delta!r}")
    if rho == 0:
        return ApproxDP(0.0, delta)
    c = rdp_to_dp(_ORDERS, rho * _ORDERS, delta)
    return ApproxDP(float(c.epsilon), float(delta))


def _addr(obj: Any) -> int | None:
    """The address of the Rust object behind an OpenDP pointer (None for anything else)."""
    if not isinstance(obj, ctypes._Pointer):
        return None
    return ctypes.cast(obj, ctypes.c_void_p).value


@dataclass
class _Node:
    """A registered OpenDP object: ``constructor`` (its ``make_*`` name), ``kwargs`` (the numbers among its
    arguments), ``children`` (registered measurements and transformations it holds), ``site``/``stack`` (where in
    OpenDP's source it was built) and ``obj`` (kept alive, so the address names one object)."""

    constructor: str
    kind: str  # "measurement", "transformation" or "combinator"
    kwargs: dict
    children: tuple
    site: str
    function: str
    stack: tuple[str, ...]
    obj: Any
    user_map: Callable | None = None


def leaf_guarantee(constructor: str, kwargs: dict, d_in: float, metric: str, measure: str,
                   delta: float) -> tuple[ApproxDP, float | None] | None:
    """dpverify's guarantee of one noise measurement at sensitivity ``d_in``: ``(ApproxDP, rho)`` (rho for a
    zCDP measurement, else None), or None when dpverify has no formula for it. Laplace (discrete or continuous) and
    geometric: ``epsilon = d_in / scale`` (Dwork et al. 2006; Ghosh et al. 2009); Gaussian under zCDP:
    ``rho = d_in^2 / (2 scale^2)`` (Bun and Steinke 2016, Prop. 1.6); report noisy max: ``2 d_in / scale``
    (``d_in / scale`` when the metric is monotonic; McKenna and Sheldon 2020), ``rho = eps^2 / 8`` under zCDP;
    randomized response on a bit: ``ln(p / (1 - p))``."""
    scale = kwargs.get("scale")
    zcdp = measure.startswith("ZeroConcentrated")
    if constructor in ("make_laplace", "make_geometric") and scale and not zcdp:
        return ApproxDP(d_in / scale, 0.0), None
    if constructor == "make_gaussian" and scale and zcdp:
        rho = d_in ** 2 / (2 * scale ** 2)
        return zcdp_to_approx(rho, delta), rho
    if constructor in ("make_noisy_max", "make_report_noisy_max_gumbel") and scale:
        eps = (1.0 if "monotonic" in metric else 2.0) * d_in / scale
        if zcdp:
            return zcdp_to_approx(eps ** 2 / 8, delta), eps ** 2 / 8
        return ApproxDP(eps, 0.0), None
    if constructor == "make_randomized_response_bool" and "prob" in kwargs and not zcdp:
        p = float(kwargs["prob"])
        return ApproxDP(0.0 if d_in == 0 else math.log(p / (1 - p)), 0.0), None
    return None


def read_claim(meas: Any, d_in: Any = 1, delta: float = 1e-6) -> Claimed:
    """The (epsilon, delta) the measurement's privacy map gives at ``d_in``: pure DP as is, approximate DP as the
    pair it returns, a zCDP measurement through ``make_zCDP_to_approxDP`` at ``delta`` (privacy profile)."""
    import opendp.prelude as dp

    measure = str(meas.output_measure)
    if measure.startswith("ZeroConcentratedDivergence"):
        meas = dp.c.make_zCDP_to_approxDP(meas)
        measure = str(meas.output_measure)
    value = meas.map(d_in)
    if hasattr(value, "epsilon"):  # a privacy profile (SmoothedMaxDivergence)
        return Claimed(float(value.epsilon(delta)), float(delta),
                       f"opendp privacy map m.map({d_in}).epsilon({delta:g}) ({measure})")
    if isinstance(value, tuple):
        return Claimed(float(value[0]), float(value[1]), f"opendp privacy map m.map({d_in}) ({measure})")
    return Claimed(float(value), 0.0, f"opendp privacy map m.map({d_in}) ({measure})")


def _own_map(meas: Any, d_in: float, delta: float) -> tuple[ApproxDP, float | None]:
    measure = str(meas.output_measure)
    if measure.startswith("ZeroConcentrated"):
        rho = float(meas.map(d_in))
        return zcdp_to_approx(rho, delta), rho
    c = read_claim(meas, d_in, delta)
    return ApproxDP(c.epsilon, c.delta), None


@dataclass
class OpenDPLedger(Ledger):
    """A :class:`~dpverify.libraries.ledger.Ledger` of OpenDP invocations: ``release`` (set it to the measurement
    the caller releases with; its privacy map at ``d_in`` becomes ``recorded`` when the block ends), ``d_in``,
    ``delta`` (where zCDP is converted) and ``rhos`` (the zCDP calls' rho, composed by summing)."""

    release: Any = None
    d_in: Any = 1
    delta: float = 1e-6
    rhos: list = field(default_factory=list)

    def _close(self) -> None:
        if self.release is not None:
            c = read_claim(self.release, self.d_in, self.delta)
            self.recorded = ApproxDP(c.epsilon, c.delta)
        if any(r is not None for r in self.rhos):
            # converted at the delta the record is stated at (a make_fix_delta release fixes its own)
            at = self.recorded.delta if self.recorded is not None and 0 < self.recorded.delta < 1 else self.delta
            pure = [ApproxDP(e.epsilon, e.delta) for e, r in zip(self.entries, self.rhos) if r is None]
            zc = zcdp_to_approx(sum(r for r in self.rhos if r is not None), at)
            self.accounted = basic_composition(pure + [zc])


@contextmanager
def patch_opendp(on_invoke: Callable[[Any, Any, dict, Callable], Any]) -> Iterator[dict]:
    """Register OpenDP's constructions and intercept its invocations for the block; yields the registry
    (``_Node`` per Rust object address). Every ``opendp.measurements``, ``opendp.transformations`` and
    ``opendp.combinators`` ``make_*`` call made inside the block is registered (module docstring);
    ``on_invoke(meas, arg, registry, original)`` replaces ``opendp.core.measurement_invoke`` (``original(meas,
    arg)`` makes the release). OpenDP's modules are restored after the block. Shared by the budget ledger
    (:func:`opendp_ledger`) and the record/replay layer (:mod:`dpverify.libraries.replay`)."""
    import opendp
    import opendp.combinators as oc
    import opendp.core as ocore
    import opendp.measurements as om
    import opendp.transformations as ot

    pkg = os.path.dirname(opendp.__file__)
    registry: dict[int, _Node] = {}
    saved: list[tuple[Any, str, Any]] = []

    def register(name: str, kind: str, original: Callable) -> Callable:
        def constructor(*args, **kwargs):
            obj = original(*args, **kwargs)
            site, func, stack, _ = library_site(pkg, depth=2)
            if site == "?":  # called from outside OpenDP: name the constructor's own definition
                code = original.__code__
                site, func = f"{os.path.relpath(code.co_filename, os.path.dirname(pkg))}:{code.co_firstlineno}", name
            values = list(args) + list(kwargs.values())
            children = tuple(a for v in values for a in (v if isinstance(v, (list, tuple)) else (v,))
                             if _addr(a) in registry) if kind == "combinator" else ()
            numbers = {k: v for k, v in kwargs.items() if isinstance(v, (int, float, bool))}
            user_map = kwargs.get("privacy_map") if name == "make_user_measurement" else None
            if name == "make_user_measurement" and user_map is None and len(args) > 4:
                user_map = args[4]
            key = _addr(obj)
            if key is not None:
                registry[key] = _Node(name, kind, numbers, children, site, func, stack, obj, user_map)
            return obj

        return constructor

    for module, kind in ((om, "measurement"), (ot, "transformation"), (oc, "combinator")):
        for name in [n for n in vars(module) if n.startswith("make_")]:
            original = getattr(module, name)
            saved.append((module, name, original))
            setattr(module, name, register(name, kind, original))
    original_invoke = ocore.measurement_invoke

    def invoke(meas, arg):
        return on_invoke(meas, arg, registry, original_invoke)

    ocore.measurement_invoke = invoke
    try:
        yield registry
    finally:
        ocore.measurement_invoke = original_invoke
        for module, name, original in saved:
            setattr(module, name, original)


@contextmanager
def opendp_ledger(d_in: Any = 1, delta: float = 1e-6) -> Iterator[OpenDPLedger]:
    """Record OpenDP's constructions and invocations inside the block (module docstring). Build the measurement
    inside the block, set ``ledger.release`` to it, invoke it; ``ledger.recorded`` is filled when the block
    ends. OpenDP's modules are patched for the block's duration only and restored after it (process-wide: another
    thread releasing OpenDP measurements meanwhile would be recorded too)."""
    import opendp

    if not 0 < delta < 1:
        raise ValueError(f"delta must be in (0, 1); got {delta!r}")
    pkg = os.path.dirname(opendp.__file__)
    led = OpenDPLedger("opendp", adjacency="add_remove", package_dir=pkg, d_in=d_in, delta=delta)

    def invoke(meas, arg, registry, original_invoke):
        # OpenDP's Rust core never calls back into this function for its own inner steps: every call seen here is
        # a release made from Python (the caller's, or a user measurement's function)
        node = registry.get(_addr(meas))  # type: ignore[arg-type]
        outer = getattr(_local, "in_user", None)
        if outer is not None:
            outer[0] += 1
        if node is not None and node.constructor == "make_user_measurement":
            _local.in_user = [0]
            try:
                return original_invoke(meas, arg)
            finally:
                nested = _local.in_user[0]
                _local.in_user = outer
                if not nested:  # a user measurement that invokes nothing: its own map
                    _record_leaf(led, node, meas, led.d_in, None, own=True)
        _record(led, registry, meas, led.d_in, arg)
        return original_invoke(meas, arg)

    with patch_opendp(invoke) as registry:
        yield led
    led._close()
    registry.clear()


def _record(led: OpenDPLedger, registry: dict, meas: Any, d_in: Any, arg: Any) -> None:
    """One entry per noise measurement in ``meas``'s construction tree, at the sensitivity the tree hands it."""
    node = registry.get(_addr(meas))  # type: ignore[arg-type]
    if node is None:  # built outside the ledger: its own map, no finer detail
        node = _Node("Measurement (built outside the ledger)", "measurement", {}, (), "?", "?", (), meas)
        _record_leaf(led, node, meas, d_in, None, own=True)
        return

    def walk(m: Any, d: Any, value: Any, known: bool) -> None:
        n = registry.get(_addr(m))  # type: ignore[arg-type]
        if n is None:
            _record_leaf(led, _Node("Measurement (built outside the ledger)", "measurement", {}, (), "?", "?", (), m),
                         m, d, None, own=True)
            return
        if n.constructor == "make_user_measurement":
            return  # recorded when it runs (its Python function is visible)
        if n.constructor == "make_chain_mt":
            m1, t0 = n.children if len(n.children) == 2 else (None, None)
            if m1 is None or t0 is None:
                _record_leaf(led, n, m, d, None, own=True)
                return
            deterministic = known and not _random(registry, t0)
            try:
                v = t0.invoke(value) if deterministic else None
            except Exception:  # noqa: BLE001 - the release itself will raise the library's own error
                v, deterministic = None, False
            walk(m1, t0.map(d), v, deterministic)
            return
        if n.constructor == "make_chain_pm":
            inner = [c for c in n.children if _is_measurement(c)]
            for c in inner:
                walk(c, d, value, known)
            return
        if n.constructor in _PASS_THROUGH or n.constructor in _COMPOSE:
            for c in n.children:
                walk(c, d, value, known)
            return
        _record_leaf(led, n, m, d, value if known else None, own=False)

    walk(meas, d_in, arg, True)


def _is_measurement(obj: Any) -> bool:
    from opendp.mod import Measurement

    return isinstance(obj, Measurement)


def _random(registry: dict, t: Any) -> bool:
    n = registry.get(_addr(t))
    if n is None:
        return False
    return n.constructor in RANDOM_TRANSFORMATIONS or any(_random(registry, c) for c in n.children)


def _scalar(value: Any) -> float | None:
    if isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value)
    return None


def _record_leaf(led: OpenDPLedger, node: _Node, meas: Any, d_in: Any, value: Any, own: bool) -> None:
    metric, measure = str(meas.input_metric), str(meas.output_measure)
    d = float(d_in) if _scalar(d_in) is not None else math.nan
    got = None if own else leaf_guarantee(node.constructor, node.kwargs, d, metric, measure, led.delta)
    name = node.constructor
    if got is None:
        got, name = _own_map(meas, d_in, led.delta), f"{name} (own map)"
    if "prob" in node.kwargs:
        name += f"(prob={node.kwargs['prob']:g})"
    guarantee, rho = got
    scale = node.kwargs.get("scale")
    led.entries.append(LedgerEntry(name, float(guarantee.epsilon), float(guarantee.delta),
                                   None if math.isnan(d) else d, None if scale is None else float(scale),
                                   node.site, node.function, node.stack, None, _scalar(value)))
    led.rhos.append(rho)
