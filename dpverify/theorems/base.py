"""The theorem object: a stated bound as inspectable, checkable, evaluable data.

A :class:`Theorem` holds

- ``id`` -- the catalogue ID of ``shared/papers/INDEX.md`` (e.g. ``wang2015.thm1_ops_pure_dp``);
- ``source`` -- paper, item number and location (:class:`Source`);
- ``symbols`` -- named sympy symbols carrying their assumptions (positive, integer, ...);
- ``hypotheses`` -- named sympy relationals (:class:`Hypothesis`), e.g.
  ``T >= eps**2*N/(32*tau*log(2/delta))``;
- ``conclusion`` -- named sympy expressions (``{"epsilon": 4*B, "delta": 0}``, a step-size bound
  ``{"eta_max": ...}``, an ARE ``{"are": 1 + 4*B/eps}``, an RDP curve in the order, ...);
- ``checks`` -- named :class:`Check` objects: derivation steps re-done with sympy (``symbolic``),
  published numbers reproduced (``numeric``); each can fail;
- ``errata`` -- discrepancies between the paper as printed and what its proof supports;
- ``empirical`` -- the sampler and audit that check the item empirically (:class:`EmpiricalLink`).

The verbs are the same on every theorem: :meth:`Theorem.evaluate`, :meth:`Theorem.explain`,
:meth:`Theorem.run_checks`, :meth:`Theorem.to_dict`, and ``_repr_latex_`` for Jupyter.
"""
from __future__ import annotations

import math
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

import sympy as sp

__all__ = [
    "PAPERS",
    "KINDS",
    "Source",
    "Hypothesis",
    "Check",
    "CheckResult",
    "Erratum",
    "EmpiricalLink",
    "Evaluation",
    "Theorem",
    "HypothesisError",
]

#: Paper keys used in catalogue IDs, with the full citation.
PAPERS: dict[str, str] = {
    "wang2015": (
        "Y.-X. Wang, S. E. Fienberg, A. Smola. Privacy for Free: Posterior Sampling and Stochastic "
        "Gradient Monte Carlo. ICML 2015 (with supplementary material)."
    ),
    "li2019": (
        "B. Li, C. Chen, H. Liu, L. Carin. On Connecting Stochastic Gradient MCMC and Differential "
        "Privacy. AISTATS 2019."
    ),
    "bertazzi2025": (
        "A. Bertazzi, T. Johnston, G. O. Roberts, A. Durmus. Differential privacy guarantees of Markov "
        "chain Monte Carlo algorithms. ICML 2025 (arXiv:2502.17150)."
    ),
    "foulds2016": (
        "J. Foulds, J. Geumlek, M. Welling, K. Chaudhuri. On the Theory and Practice of "
        "Privacy-Preserving Bayesian Data Analysis. UAI 2016."
    ),
}

#: What a theorem's conclusion is about.
KINDS: tuple[str, ...] = (
    "definition",  # a definition (its check: an identity or a special case)
    "privacy",  # an (epsilon, delta)-DP or pure-DP guarantee
    "rdp",  # a Rényi-DP / moments-accountant statement
    "composition",  # composition or subsampling of guarantees
    "sensitivity",  # a sensitivity bound
    "step_size",  # a step-size / noise condition for a sampler to be private
    "efficiency",  # asymptotic relative efficiency, MSE, consistency
    "convergence",  # TV / weak convergence, bias
    "algorithm",  # an algorithm's update rule (its checks: what the update implies)
    "published_number",  # a number, table or figure the paper reports
)


class HypothesisError(ValueError):
    """Raised by :meth:`Theorem.evaluate` when a hypothesis fails for the given values."""

    def __init__(self, theorem_id: str, failed: list[str], details: list[str]):
        self.theorem_id = theorem_id
        self.failed = failed
        msg = (
            f"{theorem_id}: hypothesis {', '.join(failed)} does not hold for these values "
            f"({'; '.join(details)}). Pass allow_unguaranteed=True to evaluate anyway; "
            "the result is then marked guaranteed=False."
        )
        super().__init__(msg)


@dataclass(frozen=True)
class Source:
    """Where a statement comes from.

    ``reconstructed`` marks items restored from ``shared/papers/bertazzi2025.md``
    (the seed copy lacks its formulas); ``confidence`` repeats that file's tag.
    """

    paper: str
    item: str
    location: str = ""
    reconstructed: bool = False
    confidence: str | None = None

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"paper must be one of {sorted(PAPERS)}; got {self.paper!r}")

    @property
    def citation(self) -> str:
        return PAPERS[self.paper]

    def __str__(self) -> str:
        loc = f", {self.location}" if self.location else ""
        rec = " [reconstructed" + (f", confidence {self.confidence}" if self.confidence else "") + "]" if self.reconstructed else ""
        return f"{self.paper}, {self.item}{loc}{rec}"


@dataclass(frozen=True)
class Hypothesis:
    """A named condition of a theorem, as a sympy relational or boolean."""

    name: str
    condition: Any
    description: str = ""

    def __post_init__(self) -> None:
        cond = sp.sympify(self.condition)
        if not isinstance(cond, (sp.logic.boolalg.Boolean, sp.core.relational.Relational)):
            raise TypeError(f"hypothesis {self.name!r}: condition must be a sympy relational; got {cond!r}")
        object.__setattr__(self, "condition", cond)

    def holds(self, subs: Mapping[sp.Symbol, Any]) -> bool:
        """True/False for numeric ``subs`` (symbol -> value); raises if it stays symbolic."""
        value = self.condition.subs(subs)
        if value in (sp.true, True):
            return True
        if value in (sp.false, False):
            return False
        # Relationals between large floats can stay unevaluated: compare the difference numerically.
        if isinstance(value, sp.core.relational.Relational):
            diff = sp.N(value.lhs - value.rhs, 50)
            if diff.is_number:
                return bool(type(value)(diff, 0))
        free = sorted(str(s) for s in value.free_symbols)
        raise ValueError(f"hypothesis {self.name!r} cannot be decided: missing values for {free}")


@dataclass
class CheckResult:
    """The outcome of one check. ``expected`` / ``actual`` carry the paper's and our numbers."""

    name: str
    kind: str
    passed: bool
    detail: str = ""
    expected: Any = None
    actual: Any = None
    seconds: float = 0.0

    def to_dict(self) -> dict:
        def plain(x):
            if x is None or isinstance(x, (bool, int, str)):
                return x
            if isinstance(x, float):
                return x if math.isfinite(x) else str(x)
            try:
                f = float(x)
                return f if math.isfinite(f) else str(f)
            except (TypeError, ValueError):
                return str(x)

        return {
            "name": self.name,
            "kind": self.kind,
            "passed": bool(self.passed),
            "detail": self.detail,
            "expected": plain(self.expected),
            "actual": plain(self.actual),
            "seconds": round(self.seconds, 4),
        }


@dataclass(frozen=True)
class Check:
    """A named, runnable check.

    ``func()`` returns a :class:`CheckResult`, a bool, or a tuple ``(passed, detail)`` /
    ``(passed, detail, expected, actual)``. An exception inside ``func`` is a failed check
    (with the traceback in ``detail``), never a crash of the catalogue.
    ``kind`` is ``"symbolic"`` (a derivation step re-done with sympy) or ``"numeric"``
    (a published number or closed form evaluated).
    """

    name: str
    kind: str
    func: Callable[[], Any]
    description: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("symbolic", "numeric"):
            raise ValueError(f"check kind must be 'symbolic' or 'numeric'; got {self.kind!r}")

    def run(self) -> CheckResult:
        start = time.perf_counter()
        try:
            out = self.func()
        except Exception as exc:  # a failing check must be reported, not crash the run
            return CheckResult(
                self.name,
                self.kind,
                False,
                f"raised {type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)}",
                seconds=time.perf_counter() - start,
            )
        elapsed = time.perf_counter() - start
        if isinstance(out, CheckResult):
            out.seconds = elapsed
            return out
        if isinstance(out, tuple):
            passed, detail, *rest = out + (None,) * (4 - len(out))
            return CheckResult(self.name, self.kind, bool(passed), detail or "", rest[0], rest[1], elapsed)
        return CheckResult(self.name, self.kind, bool(out), self.description, seconds=elapsed)


@dataclass(frozen=True)
class Erratum:
    """A discrepancy between the paper as printed and what its proof supports.

    ``check`` names the check of the same theorem that shows it numerically or symbolically.
    """

    description: str
    printed: str
    corrected: str
    check: str = ""


@dataclass(frozen=True)
class EmpiricalLink:
    """The reference sampler (``dpverify samplers list``) and audit that check an item empirically."""

    sampler: str
    audit: str
    description: str = ""


@dataclass
class Evaluation:
    """A theorem evaluated at numbers.

    ``hypotheses`` maps each hypothesis name to whether it holds; ``conclusion`` maps each
    conclusion name to a float (``inf`` where the expression is infinite); ``guaranteed`` is
    True only if every hypothesis holds.
    """

    theorem_id: str
    values: dict[str, float]
    hypotheses: dict[str, bool]
    conclusion: dict[str, float]
    guaranteed: bool

    def __getitem__(self, name: str) -> float:
        return self.conclusion[name]

    def __getattr__(self, name: str) -> float:
        conclusion = self.__dict__.get("conclusion", {})
        if name in conclusion:
            return conclusion[name]
        raise AttributeError(name)

    @property
    def failed(self) -> list[str]:
        return [k for k, v in self.hypotheses.items() if not v]

    def to_dict(self) -> dict:
        def plain(x: float):
            return x if math.isfinite(x) else str(x)

        out = {
            "id": self.theorem_id,
            "values": {k: plain(v) for k, v in self.values.items()},
            "hypotheses": [{"name": k, "holds": v} for k, v in self.hypotheses.items()],
            "guaranteed": self.guaranteed,
        }
        out.update({k: plain(v) for k, v in self.conclusion.items()})
        out["conclusion"] = {k: plain(v) for k, v in self.conclusion.items()}
        return out


def _to_float(expr: Any) -> float:
    value = sp.N(sp.sympify(expr), 30)
    if value in (sp.oo, sp.zoo) or value == sp.oo:
        return math.inf
    if value == -sp.oo:
        return -math.inf
    if not value.is_real:
        if value.is_number and abs(sp.im(value)) < 1e-25 * max(1, abs(sp.re(value))):
            value = sp.re(value)
        else:
            raise ValueError(f"expression did not evaluate to a real number: {value}")
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


class Theorem:
    """A stated bound: symbols, hypotheses, conclusion, checks and source.

    Parameters
    ----------
    id, title, source, kind:
        Catalogue ID, one-line title, :class:`Source`, one of :data:`KINDS`.
    symbols:
        Name -> sympy Symbol (the name is what :meth:`evaluate` takes as a keyword).
    hypotheses:
        :class:`Hypothesis` list.
    conclusion:
        Name -> sympy expression (or number).
    statement:
        The statement in words (one paragraph), used by :meth:`explain`.
    checks, errata, empirical:
        See the module docstring.
    defaults:
        Symbol name -> default value for :meth:`evaluate`.
    notes:
        Free text: ambiguities, what the proof supports, reconstruction remarks.
    """

    def __init__(
        self,
        id: str,
        title: str,
        source: Source,
        kind: str,
        *,
        symbols: Mapping[str, sp.Symbol] | None = None,
        hypotheses: Iterable[Hypothesis] = (),
        conclusion: Mapping[str, Any] | None = None,
        statement: str = "",
        checks: Iterable[Check] = (),
        errata: Iterable[Erratum] = (),
        empirical: Iterable[EmpiricalLink] = (),
        defaults: Mapping[str, Any] | None = None,
        notes: str = "",
    ) -> None:
        if "." not in id or not id.startswith(source.paper + "."):
            raise ValueError(f"id must look like '{source.paper}.<item>'; got {id!r}")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
        self.id = id
        self.title = title
        self.source = source
        self.kind = kind
        self.symbols: dict[str, sp.Symbol] = dict(symbols or {})
        self.hypotheses: list[Hypothesis] = list(hypotheses)
        self.conclusion: dict[str, Any] = {k: sp.sympify(v) for k, v in (conclusion or {}).items()}
        self.statement = statement
        self.checks: list[Check] = list(checks)
        self.errata: list[Erratum] = list(errata)
        self.empirical: list[EmpiricalLink] = list(empirical)
        self.defaults: dict[str, Any] = dict(defaults or {})
        self.notes = notes
        names = [h.name for h in self.hypotheses]
        if len(set(names)) != len(names):
            raise ValueError(f"{id}: duplicate hypothesis names {names}")
        cnames = [c.name for c in self.checks]
        if len(set(cnames)) != len(cnames):
            raise ValueError(f"{id}: duplicate check names {cnames}")
        unknown = self._free_symbols() - set(self.symbols.values())
        if unknown:
            raise ValueError(f"{id}: expressions use symbols not declared in `symbols`: {sorted(map(str, unknown))}")

    def validate(self) -> None:
        """Consistency of a finished theorem: errata name existing checks. Run by the catalogue tests."""
        cnames = {c.name for c in self.checks}
        for e in self.errata:
            if e.check and e.check not in cnames:
                raise ValueError(f"{self.id}: erratum refers to unknown check {e.check!r}")

    # -- construction helpers -------------------------------------------------
    def add_check(self, name: str, kind: str, description: str = "") -> Callable:
        """Decorator registering a check function on this theorem::

            @thm.add_check("two_factors", "symbolic", "each factor of the ratio <= e^{2B}")
            def _():
                ...
                return passed, detail
        """

        def deco(func: Callable[[], Any]) -> Callable[[], Any]:
            if any(c.name == name for c in self.checks):
                raise ValueError(f"{self.id}: duplicate check name {name!r}")
            self.checks.append(Check(name, kind, func, description or (func.__doc__ or "").strip()))
            return func

        return deco

    # -- introspection --------------------------------------------------------
    def _free_symbols(self) -> set:
        free: set = set()
        for h in self.hypotheses:
            free |= h.condition.free_symbols
        for v in self.conclusion.values():
            free |= getattr(v, "free_symbols", set())
        return free

    @property
    def parameters(self) -> list[str]:
        """Names of the symbols that :meth:`evaluate` needs."""
        used = self._free_symbols()
        return [n for n, s in self.symbols.items() if s in used]

    @property
    def paper(self) -> str:
        return self.source.paper

    @property
    def reconstructed(self) -> bool:
        return self.source.reconstructed

    # -- evaluation -----------------------------------------------------------
    def _substitutions(self, values: Mapping[str, Any]) -> tuple[dict, dict]:
        unknown = set(values) - set(self.symbols)
        if unknown:
            raise ValueError(
                f"{self.id}: unknown parameter(s) {sorted(unknown)}; this theorem takes {self.parameters}"
            )
        merged = {**self.defaults, **values}
        missing = [n for n in self.parameters if n not in merged]
        if missing:
            raise ValueError(f"{self.id}: missing value(s) for {missing}; this theorem takes {self.parameters}")
        subs: dict = {}
        plain: dict[str, float] = {}
        for name, raw in merged.items():
            sym = self.symbols[name]
            try:
                num = sp.nsimplify(raw, rational=False) if isinstance(raw, str) else sp.sympify(raw)
            except (sp.SympifyError, TypeError):
                raise ValueError(f"{self.id}: {name} must be a number; got {raw!r}") from None
            if not num.is_number or num.has(sp.nan) or (num.is_real is False):
                raise ValueError(f"{self.id}: {name} must be a real number; got {raw!r}")
            fnum = _to_float(num)
            if math.isnan(fnum):
                raise ValueError(f"{self.id}: {name} must be a real number; got NaN")
            if sym.is_positive and not fnum > 0:
                raise ValueError(f"{self.id}: {name} must be > 0; got {raw!r}")
            if sym.is_nonnegative and not fnum >= 0:
                raise ValueError(f"{self.id}: {name} must be >= 0; got {raw!r}")
            if sym.is_integer and fnum != int(fnum):
                raise ValueError(f"{self.id}: {name} must be an integer; got {raw!r}")
            subs[sym] = sp.Integer(int(fnum)) if sym.is_integer else num
            plain[name] = fnum
        return subs, plain

    def check_hypotheses(self, **values: Any) -> dict[str, bool]:
        """Which hypotheses hold at these values (name -> bool)."""
        subs, _ = self._substitutions(values)
        return {h.name: h.holds(subs) for h in self.hypotheses}

    def evaluate(self, *, allow_unguaranteed: bool = False, **values: Any) -> Evaluation:
        """Evaluate the conclusion at numbers.

        Raises :class:`HypothesisError` naming the failed hypotheses, unless
        ``allow_unguaranteed=True`` (then ``guaranteed=False`` in the result).
        """
        subs, plain = self._substitutions(values)
        holds = {h.name: h.holds(subs) for h in self.hypotheses}
        failed = [n for n, ok in holds.items() if not ok]
        if failed and not allow_unguaranteed:
            details = [f"{n}: {self._hyp(n).condition}" for n in failed]
            raise HypothesisError(self.id, failed, details)
        conclusion = {k: _to_float(v.subs(subs)) for k, v in self.conclusion.items()}
        return Evaluation(self.id, plain, holds, conclusion, guaranteed=not failed)

    def _hyp(self, name: str) -> Hypothesis:
        return next(h for h in self.hypotheses if h.name == name)

    # -- checks ---------------------------------------------------------------
    def run_checks(self, kinds: Iterable[str] | None = None) -> list[CheckResult]:
        wanted = set(kinds) if kinds else None
        return [c.run() for c in self.checks if wanted is None or c.kind in wanted]

    # -- display --------------------------------------------------------------
    def explain(self) -> str:
        """The statement in words, with hypotheses, conclusion, source and errata."""
        lines = [f"{self.id}: {self.title}", f"Source: {self.source} -- {self.source.citation}"]
        if self.statement:
            lines += ["", self.statement]
        if self.symbols:
            lines += ["", "Symbols:"]
            for name, sym in self.symbols.items():
                assumptions = [a for a in ("positive", "nonnegative", "integer", "real") if getattr(sym, f"is_{a}")]
                lines.append(f"  {name}" + (f" ({', '.join(assumptions)})" if assumptions else ""))
        if self.hypotheses:
            lines += ["", "Hypotheses:"]
            for h in self.hypotheses:
                lines.append(f"  {h.name}: {h.condition}" + (f"  -- {h.description}" if h.description else ""))
        if self.conclusion:
            lines += ["", "Conclusion:"]
            for k, v in self.conclusion.items():
                lines.append(f"  {k} = {v}")
        if self.checks:
            lines += ["", "Checks:"]
            for c in self.checks:
                lines.append(f"  [{c.kind}] {c.name}" + (f": {c.description}" if c.description else ""))
        if self.errata:
            lines += ["", "Errata:"]
            for e in self.errata:
                lines.append(f"  {e.description}\n    printed:   {e.printed}\n    corrected: {e.corrected}")
        if self.empirical:
            lines += ["", "Empirical checks:"]
            for e in self.empirical:
                lines.append(f"  sampler {e.sampler}, audit {e.audit}" + (f": {e.description}" if e.description else ""))
        if self.notes:
            lines += ["", "Notes: " + self.notes]
        return "\n".join(lines)

    def _repr_latex_(self) -> str:
        parts = [rf"\textbf{{{self.id}}}\ \text{{({self.source.item})}}"]
        if self.hypotheses:
            hyp = r",\ ".join(sp.latex(h.condition) for h in self.hypotheses)
            parts.append(r"\text{if } " + hyp)
        if self.conclusion:
            con = r",\ ".join(rf"{sp.latex(sp.Symbol(k))} = {sp.latex(v)}" for k, v in self.conclusion.items())
            parts.append(r"\text{then } " + con)
        return "$" + r" \\ ".join(parts) + "$" if len(parts) == 1 else r"$\begin{array}{l}" + r" \\ ".join(parts) + r"\end{array}$"

    def __repr__(self) -> str:
        return f"<Theorem {self.id}: {self.title}>"

    def to_dict(self) -> dict:
        """JSON-ready description (no check results; see :meth:`run_checks`)."""
        return {
            "id": self.id,
            "paper": self.source.paper,
            "item": self.source.item,
            "location": self.source.location,
            "title": self.title,
            "kind": self.kind,
            "reconstructed": self.source.reconstructed,
            "confidence": self.source.confidence,
            "statement": self.statement,
            "symbols": {n: str(s) for n, s in self.symbols.items()},
            "parameters": self.parameters,
            "hypotheses": [
                {"name": h.name, "condition": str(h.condition), "latex": sp.latex(h.condition), "description": h.description}
                for h in self.hypotheses
            ],
            "conclusion": {k: str(v) for k, v in self.conclusion.items()},
            "checks": [{"name": c.name, "kind": c.kind, "description": c.description} for c in self.checks],
            "errata": [e.__dict__ for e in self.errata],
            "empirical": [e.__dict__ for e in self.empirical],
            "notes": self.notes,
        }
