"""Checking a final-state theorem against the exact privacy of the run it speaks about: rows, summaries, a table.

For every grid point of a statement (:mod:`dpverify.theorems.final_state.statements`) the claim is read from the
catalogue (the theorem's *registered* conclusion and hypotheses, :class:`CompiledTheorem`) and the exact privacy of
the same run's final iterate on its canary pair is computed (:mod:`dpverify.theorems.final_state.exact`), in the
theorem's own currency:

- an RDP claim ``rdp`` at order alpha against the exact ``D_alpha`` (closed form for full batches, a certified
  lower bound for subsampled runs);
- an (epsilon, delta) claim against the lower end of the exact epsilon(delta) bracket; an RDP-only claim is first
  converted to (epsilon, delta) by the RDP conversion (Balle et al. 2020 over a grid of orders), a valid consequence
  of the claim, so comparing it is a necessary condition.

``claimed >= exact`` must hold at every point: the exact side is a lower bound on the truth (the canary pair is an
admissible pair; the value is the certified lower end), so ``claimed < exact`` is a certain counterexample -- an
erratum of the paper or an encoding bug, never a tolerance to widen. ``looseness = claimed / exact``; where the
exact side is itself a lower bound the looseness is an upper estimate of the true one.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Protocol

import mpmath as mp
import numpy as np
import sympy as sp

from dpverify.calculus.conversions import rdp_to_dp
from dpverify.calculus.mechanism_description import MechanismDescription
from dpverify.theorems import registry
from dpverify.theorems.base import Evaluation
from dpverify.theorems.final_state.exact import ExactFinal, exact_final

__all__ = [
    "CheckedStatement",
    "CompiledTheorem",
    "GridRow",
    "StatementSummary",
    "compiled",
    "converted_epsilon",
    "format_rows",
    "format_summaries",
    "rows_for",
    "summarise",
]

#: Orders of the RDP -> (epsilon, delta) conversion of an RDP-only claim.
CONVERSION_ORDERS = np.concatenate([1 + np.logspace(-3, 0, 40), np.linspace(2.05, 64, 200), np.logspace(1.81, 4, 60)])


@lru_cache(maxsize=64)
def _riemann_zeta(s: float):
    return mp.zeta(s)


def _zeta(s, a=None):
    """mpmath's zeta, with the Hurwitz zeta at an integer ``a >= 1`` as ``zeta(s) - sum_{t < a} t^{-s}`` (an identity;
    Li et al.'s ``H_T = zeta(1/3) - zeta(1/3, T + 1)`` is then the finite sum it stands for, ~100 times faster)."""
    if a is None or a != int(a) or a < 1 or a > 10**6:
        return mp.zeta(s) if a is None else mp.zeta(s, a)
    t = np.arange(1, int(a), dtype=float)
    return _riemann_zeta(float(s)) - mp.mpf(float(np.sum(t ** -float(s))))


class CompiledTheorem:
    """A catalogue theorem's registered conclusion and hypotheses as plain functions (``sympy.lambdify`` with mpmath,
    the same expressions :meth:`~dpverify.theorems.base.Theorem.evaluate` substitutes into, ~1000 times faster).
    :meth:`evaluate` returns the catalogue's :class:`~dpverify.theorems.base.Evaluation`; ``tests/
    test_final_state_check.py`` compares it with ``Theorem.evaluate`` on every statement's grid."""

    def __init__(self, theorem_id: str):
        self.theorem = registry.get(theorem_id)
        self._names = list(self.theorem.symbols)
        symbols = [self.theorem.symbols[n] for n in self._names]
        modules = [{"zeta": _zeta}, "mpmath"]
        self._conclusion = {k: sp.lambdify(symbols, v, modules) for k, v in self.theorem.conclusion.items()}
        self._hypotheses = {h.name: sp.lambdify(symbols, h.condition, modules) for h in self.theorem.hypotheses}

    @property
    def id(self) -> str:
        return self.theorem.id

    def evaluate(self, **values) -> Evaluation:
        """The conclusion and the hypotheses at ``values`` (numbers; the theorem's defaults fill the rest). Results
        are cached (a grid evaluates each point when it is built and again when its rows are)."""
        return self._evaluate(tuple(sorted((k, float(v)) for k, v in values.items())))

    @lru_cache(maxsize=4096)  # noqa: B019 - one instance per theorem (compiled() caches them), kept for the session
    def _evaluate(self, items: tuple) -> Evaluation:
        values = dict(items)
        unknown = set(values) - set(self._names)
        if unknown:
            raise ValueError(f"{self.id}: unknown parameter(s) {sorted(unknown)}; it takes {self._names}")
        merged = {**self.theorem.defaults, **values}
        missing = [n for n in self._names if n not in merged]
        if missing:
            raise ValueError(f"{self.id}: missing value(s) for {missing}")
        with mp.workdps(20):
            args = [mp.mpf(float(merged[n])) for n in self._names]
            holds = {name: bool(f(*args)) for name, f in self._hypotheses.items()}
            conclusion = {k: float(f(*args)) for k, f in self._conclusion.items()}
        return Evaluation(self.id, {n: float(merged[n]) for n in self._names}, holds, conclusion,
                          guaranteed=all(holds.values()))


@lru_cache(maxsize=16)
def compiled(theorem_id: str) -> CompiledTheorem:
    """The :class:`CompiledTheorem` of ``theorem_id`` (built once)."""
    return CompiledTheorem(theorem_id)


def converted_epsilon(rdp_per_order: float, delta: float) -> float:
    """The (epsilon, delta) an RDP claim ``alpha -> c alpha`` implies (``c = rdp_per_order``): the Balle et al. 2020
    conversion minimised over :data:`CONVERSION_ORDERS` (:func:`~dpverify.calculus.conversions.rdp_to_dp`)."""
    return rdp_to_dp(CONVERSION_ORDERS, rdp_per_order * CONVERSION_ORDERS, delta).epsilon


@dataclass(frozen=True)
class GridRow:
    """One comparison: a grid point of a statement, the currency (``rdp(alpha=..)`` or ``epsilon(delta=..)``), the
    claimed value, the exact value (a certified lower bound on the truth) and how it was computed, and whether the
    catalogue's hypotheses hold there (False: the paper's printed hypotheses hold, the corrected ones do not)."""

    theorem_id: str
    point: tuple
    currency: str
    claimed: float
    exact: float
    method: str
    guaranteed: bool = True

    @property
    def looseness(self) -> float:
        """claimed / exact (inf when the exact value is 0)."""
        return self.claimed / self.exact if self.exact > 0 else math.inf

    @property
    def breach(self) -> bool:
        """True when the claim is below the exact value: a counterexample to the statement."""
        return self.claimed < self.exact

    @property
    def parameters(self) -> dict:
        return dict(self.point)


class CheckedStatement(Protocol):
    """What :func:`rows_for` reads from a statement (:class:`~dpverify.theorems.final_state.statements.
    FinalStateStatement` is one): the catalogue ID, the currencies it claims in (``"rdp"``, ``"epsilon"``), the
    theorem's inputs at a grid point, the run the point describes, and the claimed values."""

    @property
    def theorem_id(self) -> str: ...

    @property
    def currencies(self) -> tuple: ...

    @property
    def inputs(self) -> Callable[[dict], dict]: ...

    @property
    def run(self) -> Callable[[dict], MechanismDescription]: ...

    @property
    def claimed_epsilon(self) -> Callable[[Evaluation, dict], float]: ...

    @property
    def claimed_rdp(self) -> Callable[[Evaluation, dict], float] | None: ...


def rows_for(statement: CheckedStatement, points: Iterable[dict]) -> list[GridRow]:
    """Every row of ``statement`` at ``points``: one per currency the statement claims in."""
    theorem = compiled(statement.theorem_id)
    out: list[GridRow] = []
    for point in points:
        evaluation = theorem.evaluate(**statement.inputs(point))
        exact = _exact(statement.run(point))
        key = tuple(sorted(point.items()))
        for currency in statement.currencies:
            if currency == "rdp":
                alpha = point["alpha"]
                if statement.claimed_rdp is None:
                    raise ValueError(f"{statement.theorem_id} claims in rdp but gives no claimed_rdp")
                claimed = statement.claimed_rdp(evaluation, point)
                value, method = exact.rdp(alpha)
                out.append(GridRow(statement.theorem_id, key, f"rdp(alpha={alpha:g})", claimed, value, method,
                                   evaluation.guaranteed))
            else:
                delta = point["delta"]
                claimed = statement.claimed_epsilon(evaluation, point)
                value, method = exact.epsilon_lower(delta)
                out.append(GridRow(statement.theorem_id, key, f"epsilon(delta={delta:g})", claimed, value, method,
                                   evaluation.guaranteed))
    return out


@lru_cache(maxsize=512)
def _exact(description) -> ExactFinal:
    return exact_final(description)


@dataclass(frozen=True)
class StatementSummary:
    """Min / median / max looseness of a statement's rows in one currency, the number of rows and of breaches."""

    theorem_id: str
    currency: str
    rows: int
    breaches: int
    looseness_min: float
    looseness_median: float
    looseness_max: float
    unguaranteed: int = 0
    worst: dict = field(default_factory=dict)


def summarise(rows: Sequence[GridRow]) -> list[StatementSummary]:
    """One :class:`StatementSummary` per (statement, currency kind) of ``rows`` (``rdp`` / ``epsilon``)."""
    groups: dict[tuple[str, str], list[GridRow]] = {}
    for r in rows:
        groups.setdefault((r.theorem_id, r.currency.split("(")[0]), []).append(r)
    out = []
    for (tid, kind), group in groups.items():
        loose = np.array([r.looseness for r in group])
        worst = min(group, key=lambda r: r.looseness)
        out.append(StatementSummary(tid, kind, len(group), sum(r.breach for r in group), float(loose.min()),
                                    float(np.median(loose)), float(loose.max()),
                                    sum(not r.guaranteed for r in group),
                                    {**worst.parameters, "currency": worst.currency}))
    return out


def _fmt(x: float) -> str:
    return f"{x:.4g}" if math.isfinite(x) else str(x)


def format_rows(rows: Sequence[GridRow], limit: int | None = None) -> str:
    """A plain-text table of ``rows``: parameters, currency, claimed, exact, looseness, breach."""
    lines = [f"{'parameters':<70} {'currency':<22} {'claimed':>10} {'exact':>10} {'loose':>9} breach"]
    for r in list(rows)[:limit]:
        params = ", ".join(f"{k}={_fmt(v) if isinstance(v, float) else v}" for k, v in r.point
                           if k not in ("alpha", "delta"))
        flag = "BREACH" if r.breach else "no"
        if not r.guaranteed:
            flag += " (printed hypotheses only)"
        lines.append(f"{params[:70]:<70} {r.currency:<22} {_fmt(r.claimed):>10} {_fmt(r.exact):>10} "
                     f"{_fmt(r.looseness):>9} {flag}")
    return "\n".join(lines)


def format_summaries(summaries: Sequence[StatementSummary]) -> str:
    """A plain-text table of :class:`StatementSummary` values."""
    lines = [f"{'statement':<44} {'currency':<8} {'rows':>5} {'breaches':>8} {'min':>9} {'median':>9} {'max':>10}"]
    for s in summaries:
        lines.append(f"{s.theorem_id:<44} {s.currency:<8} {s.rows:>5} {s.breaches:>8} {_fmt(s.looseness_min):>9} "
                     f"{_fmt(s.looseness_median):>9} {_fmt(s.looseness_max):>10}")
    return "\n".join(lines)
