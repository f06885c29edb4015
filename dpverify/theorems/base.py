"""The theorem object: a stated bound as inspectable, checkable, evaluable data.

A :class:`Theorem` holds

- ``id`` -- the catalogue ID, one of :data:`dpverify.theorems.catalogue.CATALOGUE` (e.g. ``wang2015.thm1_ops_pure_dp``);
- ``source`` -- paper, item number and location (:class:`Source`);
- ``symbols`` -- named sympy symbols carrying their assumptions (positive, integer, ...);
- ``hypotheses`` -- named sympy relationals (:class:`Hypothesis`), e.g.
  ``T >= eps**2*N/(32*tau*log(2/delta))``;
- ``conclusion`` -- named sympy expressions (``{"epsilon": 4*B, "delta": 0}``, a step-size bound
  ``{"eta_max": ...}``, an ARE ``{"are": 1 + 4*B/eps}``, an RDP curve in the order, ...);
- ``checks`` -- named :class:`Check` objects: derivation steps re-done with sympy (``symbolic``),
  published numbers reproduced or the conclusion evaluated against an independent computation
  (``numeric``); each can fail. :meth:`Theorem.add_pin` registers the numeric check that pins the
  registered conclusion at points (see :mod:`dpverify.theorems.mutation` for how that is tested);
- ``errata`` -- discrepancies between the paper as printed and what its proof supports;
- ``empirical`` -- the sampler and audit that check the item empirically (:class:`EmpiricalLink`).

The verbs are the same on every theorem: :meth:`Theorem.evaluate`, :meth:`Theorem.explain`,
:meth:`Theorem.run_checks`, :meth:`Theorem.to_dict`, and ``_repr_latex_`` for Jupyter.
"""
from __future__ import annotations

import math
import time
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import sympy as sp

from dpverify.calculus.guarantees import ApproxDP, PureDP

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
    "Statement",
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
    "balle2018": (  # a supporting item: the Gaussian mechanism's exact profile, which the catalogue relies on
        "B. Balle, Y.-X. Wang. Improving the Gaussian Mechanism for Differential Privacy: Analytical Calibration "
        "and Optimal Denoising. ICML 2018."
    ),
    "chourasia2021": (
        "R. Chourasia, J. Ye, R. Shokri. Differential Privacy Dynamics of Langevin Diffusion and Noisy "
        "Gradient Descent. NeurIPS 2021 (arXiv:2102.05855)."
    ),
    "geumlek2017": (
        "J. Geumlek, S. Song, K. Chaudhuri. Rényi Differential Privacy Mechanisms for Posterior Sampling. "
        "NeurIPS 2017 (arXiv:1710.00892)."
    ),
    "ponnoprat2022": (
        "D. Ponnoprat. Differential Privacy of Dirichlet Posterior Sampling. arXiv:2110.01984 v2 (2022)."
    ),
    "yildirim2019": (
        'S. Yildirim, B. Ermis. Exact MCMC with differentially private moves: revisiting the penalty algorithm in a data privacy framework. Statistics and Computing 29 (2019).'
    ),
    "raisa2021": (
        'O. Räisä, A. Koskela, A. Honkela. Differentially Private Hamiltonian Monte Carlo. arXiv:2106.09376 (2021).'
    ),
    "heikkila2019": (
        'M. Heikkilä, J. Jälkö, O. Dikmen, A. Honkela. Differentially Private Markov Chain Monte Carlo. NeurIPS 2019.'
    ),
    "minami2016": (
        'K. Minami, H. Arai, I. Sato, H. Nakagawa. Differential Privacy without Sensitivity. NeurIPS 2016.'
    ),
    "gopi2022": (
        'S. Gopi, Y. T. Lee, D. Liu. Private Convex Optimization via Exponential Mechanism. COLT 2022.'
    ),
    "bok2024": (
        'J. Bok, W. Su, J. M. Altschuler. Shifted Interpolation for Differential Privacy. ICML 2024.'
    ),
    "heller2023": (
        'G. Heller, E. Fetaya. Can Stochastic Gradient Langevin Dynamics Provide Differential Privacy for Deep Learning? SaTML 2023.'
    ),
    "annamalai2024": (
        "M. S. M. S. Annamalai. It's Our Loss: No Privacy Amplification for Hidden State DP-SGD With Non-Convex Loss. AISec 2024."
    ),
    "cebere2025": (
        'T. Cebere, A. Bellet, N. Papernot. Tighter Privacy Auditing of DP-SGD in the Hidden State Threat Model. ICLR 2025.'
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



#: Inputs with an upper bound every theorem shares: (bound, whether it is allowed, what the input is).
PROBABILITY_BOUNDS: dict[str, tuple[float, bool, str]] = {
    "delta": (1.0, False, "a probability"),
    "delta_prime": (1.0, False, "a probability"),
    "delta_total": (1.0, False, "a probability"),
    "q": (1.0, True, "a sampling rate"),
    "gamma": (1.0, True, "a sampling rate"),
}

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

    ``reconstructed`` marks items whose formulas had to be restored from the paper's proofs because
    the text copy worked from lost its displayed formulas (Bertazzi et al. 2025; see
    :mod:`dpverify.theorems.bertazzi2025`); ``confidence`` grades that restoration (``R-high``,
    ``R-med``, ``UNCERTAIN``).
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
    ``kind`` is ``"symbolic"`` (a derivation step re-done with sympy, no sampled points) or
    ``"numeric"`` (a published number, a closed form at points, a quadrature or a simulation).
    ``pins`` names the conclusions the check evaluates at points and compares with values computed
    another way (set by :meth:`Theorem.add_pin`; informational, the mutation runner tries these first).
    """

    name: str
    kind: str
    func: Callable[[], Any]
    description: str = ""
    pins: tuple[str, ...] = ()

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

    ``hypotheses`` maps each checked hypothesis name to whether it holds; ``conclusion`` maps each
    evaluated conclusion name to a float (``inf`` where the expression is infinite); ``guaranteed``
    is True only if every hypothesis was checked and holds.

    A theorem may declare inputs *optional* (:class:`Theorem`, ``optional=``): an input that only a
    hypothesis or only some conclusions need. Left out, those hypotheses are listed in ``unchecked``
    (and ``guaranteed`` is False) and those conclusions in ``omitted`` (name -> the missing inputs).
    """

    theorem_id: str
    values: dict[str, float]
    hypotheses: dict[str, bool]
    conclusion: dict[str, float]
    guaranteed: bool
    unchecked: list[str] = field(default_factory=list)
    omitted: dict[str, list[str]] = field(default_factory=dict)
    #: conclusions whose value is finite but beyond float64 (stored as +-inf): name -> the value in words, to 6
    #: significant digits (e.g. ``"1.38879e+434"``); also announced by a :class:`ConclusionOverflow` warning
    overflowed: dict[str, str] = field(default_factory=dict)

    def _missing(self, name: str) -> str:
        omitted = self.__dict__.get("omitted", {})
        if name in omitted:
            return (f"{self.theorem_id}: conclusion {name!r} was not evaluated: it needs "
                    f"{', '.join(omitted[name])}, which were not given")
        return f"{self.theorem_id}: no conclusion {name!r}; it has {sorted(self.__dict__.get('conclusion', {}))}"

    def __getitem__(self, name: str) -> float:
        try:
            return self.conclusion[name]
        except KeyError:
            raise KeyError(self._missing(name)) from None

    def __getattr__(self, name: str) -> float:
        conclusion = self.__dict__.get("conclusion", {})
        if name in conclusion:
            return conclusion[name]
        if name.startswith("_"):
            raise AttributeError(name)
        raise AttributeError(self._missing(name))

    @property
    def guarantee(self):
        """The privacy this evaluation concludes, in the calculus' vocabulary: :class:`~dpverify.calculus.guarantees.PureDP`
        when the theorem gives epsilon and no positive delta, else :class:`~dpverify.calculus.guarantees.ApproxDP`.

        epsilon and delta are read from the conclusion, else from the inputs (a condition-type theorem such as
        "DP-SGLD is (epsilon, delta)-DP when the noise is large enough" takes them as inputs). Raises
        ``ValueError`` naming the theorem for an item that concludes no epsilon (a step-size bound, an ARE), and
        when its hypotheses do not all hold (then nothing is guaranteed; :attr:`failed` says which).
        """
        def number(name):
            if name in self.conclusion:
                return float(self.conclusion[name])
            return float(self.values[name]) if name in self.values else None

        epsilon, delta = number("epsilon"), number("delta")
        if epsilon is None:
            raise ValueError(f"{self.theorem_id} concludes no epsilon (its conclusions are {sorted(self.conclusion)}); "
                             "it is not a privacy guarantee")
        if not self.guaranteed:
            raise ValueError(f"{self.theorem_id} guarantees nothing at these values: hypotheses "
                             f"{self.failed or self.unchecked} fail or were not checked")
        return PureDP(epsilon) if not delta else ApproxDP(epsilon, delta)

    @property
    def failed(self) -> list[str]:
        """Hypotheses that were checked and do not hold."""
        return [k for k, v in self.hypotheses.items() if not v]

    def to_dict(self) -> dict:
        def plain(x: float):
            return x if math.isfinite(x) else str(x)

        out = {
            "id": self.theorem_id,
            "values": {k: plain(v) for k, v in self.values.items()},
            "hypotheses": [{"name": k, "holds": v} for k, v in self.hypotheses.items()],
            "guaranteed": self.guaranteed,
            "unchecked_hypotheses": list(self.unchecked),
            "omitted_conclusions": {k: list(v) for k, v in self.omitted.items()},
            "overflowed_conclusions": dict(self.overflowed),
        }
        out.update({k: plain(v) for k, v in self.conclusion.items()})
        out["conclusion"] = {k: plain(v) for k, v in self.conclusion.items()}
        return out


class ConclusionOverflow(RuntimeWarning):
    """A conclusion evaluated to a finite number beyond float64: it is returned as +-inf, and its value is in
    :attr:`Evaluation.overflowed`."""


def _to_float(expr: Any) -> float:
    return _evaluate(expr)[0]


def _evaluate(expr: Any) -> tuple[float, str | None]:
    """``expr`` as a float, and, when it is a finite number beyond float64 (returned as +-inf), its value to 6
    significant digits (else None)."""
    value = sp.N(sp.sympify(expr), 30)
    if value in (sp.oo, sp.zoo) or value == sp.oo:
        return math.inf, None
    if value == -sp.oo:
        return -math.inf, None
    if not value.is_real:
        if value.is_number and abs(sp.im(value)) < 1e-25 * max(1, abs(sp.re(value))):
            value = sp.re(value)
        else:
            raise ValueError(f"expression did not evaluate to a real number: {value}")
    try:
        result = float(value)
    except OverflowError:
        result = math.inf if value > 0 else -math.inf
    if math.isinf(result):
        return result, str(sp.N(value, 6))
    return result, None


class Statement:
    """The mathematical content of a catalogue item: symbols, hypotheses, conclusion, the statement in words,
    defaults and optional inputs -- what :meth:`Theorem.evaluate` reads.

    Every :class:`Theorem` has one (``theorem.core``). Usually it is the theorem's own, built from the keyword
    arguments of :class:`Theorem`; a statement that two papers make (Wang et al. 2015, Thm 1 and Foulds et
    al. 2016, Thm 3: "one posterior sample is 4B-DP") is *one* :class:`Statement`, made once
    (:mod:`dpverify.theorems.shared`) and passed as ``Theorem(..., shared=...)`` by each paper. Then there is one
    encoding: both catalogue IDs evaluate the same expressions, a change to one is a change to both, and
    :meth:`Theorem.explain` says "the same statement as <other ID>". What stays per paper is what differs between
    papers: the ID, title, :class:`Source`, kind, errata, notes, empirical links and the checks (each paper's
    proof, run once, under its own ID).

    ``key`` names a shared statement (``"ops_pure_dp"``); :attr:`theorems` lists the catalogue items stating it.
    """

    def __init__(
        self,
        key: str = "",
        *,
        symbols: Mapping[str, sp.Symbol] | None = None,
        hypotheses: Iterable[Hypothesis] = (),
        conclusion: Mapping[str, Any] | None = None,
        statement: str = "",
        defaults: Mapping[str, Any] | None = None,
        optional: Mapping[str, str] | None = None,
    ) -> None:
        self.key = key
        self.symbols: dict[str, sp.Symbol] = dict(symbols or {})
        self.hypotheses: list[Hypothesis] = list(hypotheses)
        self.conclusion: dict[str, Any] = {k: sp.sympify(v) for k, v in (conclusion or {}).items()}
        self.statement = statement
        self.defaults: dict[str, Any] = dict(defaults or {})
        self.optional: dict[str, str] = dict(optional or {})
        #: The catalogue items that state this (filled in by :class:`Theorem`).
        self.theorems: list[Theorem] = []
        label = key or "statement"
        names = [h.name for h in self.hypotheses]
        if len(set(names)) != len(names):
            raise ValueError(f"{label}: duplicate hypothesis names {names}")
        unknown = self.free_symbols() - set(self.symbols.values())
        if unknown:
            raise ValueError(f"{label}: expressions use symbols not declared in `symbols`: {sorted(map(str, unknown))}")
        bad_optional = sorted(set(self.optional) - set(self.symbols))
        if bad_optional:
            raise ValueError(f"{label}: optional names {bad_optional} are not symbols of this statement")

    def free_symbols(self) -> set:
        """The symbols the hypotheses and the conclusion use."""
        free: set = set()
        for h in self.hypotheses:
            free |= h.condition.free_symbols
        for v in self.conclusion.values():
            free |= getattr(v, "free_symbols", set())
        return free

    @property
    def shared(self) -> bool:
        """True when more than one catalogue item states this."""
        return len(self.theorems) > 1

    def __repr__(self) -> str:
        return f"<Statement {self.key or '(own)'} of {[t.id for t in self.theorems]}>"


#: The assumptions of a symbol that bound its input, in the order checked: (sympy assumption, whether a float
#: satisfies it, what the error message says the input must be).
_SYMBOL_DOMAINS: tuple[tuple[str, Callable[[float], bool], str], ...] = (
    ("is_positive", lambda x: x > 0, "> 0"),
    ("is_nonnegative", lambda x: x >= 0, ">= 0"),
    ("is_integer", lambda x: x == int(x), "an integer"),
)


def _symbol_line(item: tuple[str, Any]) -> str:
    """A ``(name, symbol)`` pair as a line of :meth:`Theorem.explain`: the name and the symbol's assumptions."""
    name, sym = item
    assumptions = [a for a in ("positive", "nonnegative", "integer", "real") if getattr(sym, f"is_{a}")]
    return f"  {name}" + (f" ({', '.join(assumptions)})" if assumptions else "")


def _delegate(name: str, doc: str) -> property:
    def get(self):
        return getattr(self.core, name)

    def put(self, value):
        setattr(self.core, name, value)

    return property(get, put, doc=doc)


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
    optional:
        Symbol name -> why it may be left out of :meth:`evaluate`: an input that only a hypothesis or
        only some conclusions use (e.g. the part (ii) of a two-part proposition). Left out, those
        conclusions are omitted and those hypotheses reported unchecked (see :class:`Evaluation`).
    notes:
        Free text: ambiguities, what the proof supports, reconstruction remarks.
    shared:
        A :class:`Statement` this item shares with another paper's item (instead of ``symbols``,
        ``hypotheses``, ``conclusion``, ``statement``, ``defaults``, ``optional``); see :class:`Statement`.
    """

    symbols = _delegate("symbols", "Name -> sympy Symbol (of :attr:`core`).")
    hypotheses = _delegate("hypotheses", "The :class:`Hypothesis` list (of :attr:`core`).")
    conclusion = _delegate("conclusion", "Name -> sympy expression (of :attr:`core`).")
    statement = _delegate("statement", "The statement in words (of :attr:`core`).")
    defaults = _delegate("defaults", "Symbol name -> default value (of :attr:`core`).")
    optional = _delegate("optional", "Symbol name -> why it may be left out (of :attr:`core`).")

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
        optional: Mapping[str, str] | None = None,
        notes: str = "",
        shared: Statement | None = None,
    ) -> None:
        if "." not in id or not id.startswith(source.paper + "."):
            raise ValueError(f"id must look like '{source.paper}.<item>'; got {id!r}")
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {kind!r}")
        self.id = id
        self.title = title
        self.source = source
        self.kind = kind
        if shared is not None:
            if not isinstance(shared, Statement):
                raise TypeError(f"{id}: shared must be a Statement; got {type(shared).__name__}")
            own = [n for n, v in (("symbols", symbols), ("hypotheses", hypotheses), ("conclusion", conclusion),
                                  ("statement", statement), ("defaults", defaults), ("optional", optional)) if v]
            if own:
                raise ValueError(f"{id}: a theorem with shared= takes its {', '.join(own)} from the shared statement")
            self.core = shared
        else:
            try:
                self.core = Statement(symbols=symbols, hypotheses=hypotheses, conclusion=conclusion,
                                      statement=statement, defaults=defaults, optional=optional)
            except ValueError as exc:
                raise ValueError(f"{id}: {exc}".replace(": statement: ", ": ")) from None
        self.core.theorems.append(self)
        self.checks: list[Check] = list(checks)
        self.errata: list[Erratum] = list(errata)
        self.empirical: list[EmpiricalLink] = list(empirical)
        self.notes = notes
        cnames = [c.name for c in self.checks]
        if len(set(cnames)) != len(cnames):
            raise ValueError(f"{id}: duplicate check names {cnames}")

    @property
    def same_as(self) -> list[str]:
        """IDs of the other catalogue items that state the same :class:`Statement` (empty for most)."""
        return [t.id for t in self.core.theorems if t is not self]

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

    def add_pin(
        self,
        name: str,
        description: str,
        cases: Callable[[], Iterable[tuple[Mapping[str, Any], Mapping[str, float]]]],
        *,
        rel: float,
        abs_tol: float = 0.0,
        allow_unguaranteed: bool = False,
    ) -> Check:
        """Register a numeric check that pins the *registered* conclusion at points.

        ``cases()`` returns ``(values, expected)`` pairs: ``values`` are passed to :meth:`evaluate`
        (which reads ``self.conclusion`` as it is at run time) and ``expected`` maps conclusion names to
        numbers computed independently of the encoded expression -- a published number, a quadrature,
        a simulation, the proof's steps done numerically, or the printed formula typed again by hand.
        The check passes when every ``|evaluated - expected| <= abs_tol + rel |expected|``; write the
        reason for ``rel`` / ``abs_tol`` in ``description``. Returns the :class:`Check`.
        """
        if not (math.isfinite(rel) and rel >= 0) or not (math.isfinite(abs_tol) and abs_tol >= 0):
            raise ValueError(f"{self.id}: pin {name!r}: rel and abs_tol must be finite numbers >= 0")

        def run() -> CheckResult:
            worst: tuple[float, float | None, float | None] = (-math.inf, None, None)
            lines: list[str] = []
            pinned: list[str] = []
            ok = True
            for values, expected in cases():
                ev = self.evaluate(allow_unguaranteed=allow_unguaranteed, **values)
                for key, want in expected.items():
                    got = ev[key]
                    err = abs(got - want)
                    tol = abs_tol + rel * abs(want)
                    good = err <= tol or (got == want)
                    ok &= good
                    pinned.append(key)
                    score = err / tol if tol > 0 else (0.0 if good else math.inf)
                    if score > worst[0]:
                        worst = (score, want, got)
                    if not good:
                        lines.append(f"{key} at {dict(values)}: evaluated {got!r}, expected {want!r}")
            if not pinned:
                return CheckResult(name, "numeric", False, "no case pinned any conclusion")
            detail = (f"{len(pinned)} values of {sorted(set(pinned))} within rel {rel:g} / abs {abs_tol:g} of the "
                      f"independent computation; worst error/tolerance {worst[0]:.3g}")
            if lines:
                detail = "; ".join(lines[:4]) + (f" (and {len(lines) - 4} more)" if len(lines) > 4 else "")
            return CheckResult(name, "numeric", ok, detail, worst[1], worst[2])

        check = Check(name, "numeric", run, description, pins=tuple(sorted(self.conclusion)))
        if any(c.name == name for c in self.checks):
            raise ValueError(f"{self.id}: duplicate check name {name!r}")
        self.checks.append(check)
        return check

    # -- introspection --------------------------------------------------------
    def _free_symbols(self) -> set:
        return self.core.free_symbols()

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
    def _merged_values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` over the theorem's defaults; ``ValueError`` naming unknown parameters, or the required ones
        (not optional) that neither gives."""
        unknown = set(values) - set(self.symbols)
        if unknown:
            raise ValueError(
                f"{self.id}: unknown parameter(s) {sorted(unknown)}; this theorem takes {self.parameters}"
            )
        merged = {**self.defaults, **values}
        missing = [n for n in self.parameters if n not in merged and n not in self.optional]
        if missing:
            opt = f" (optional: {sorted(self.optional)})" if self.optional else ""
            raise ValueError(f"{self.id}: missing value(s) for {missing}; this theorem takes {self.parameters}{opt}")
        return merged

    def _real_number(self, name: str, raw: Any) -> tuple[Any, float]:
        """The input ``name`` = ``raw`` (a number, or a string sympy reads) as a sympy number and as a float;
        ``ValueError`` when it is not a real number (None, text, complex, NaN)."""
        if raw is None:
            raise ValueError(f"{self.id}: {name} must be a number; got None")
        try:
            num = sp.nsimplify(raw, rational=False) if isinstance(raw, str) else sp.sympify(raw)
        except (sp.SympifyError, TypeError):
            raise ValueError(f"{self.id}: {name} must be a number; got {raw!r}") from None
        if not num.is_number or num.has(sp.nan) or (num.is_real is False):
            raise ValueError(f"{self.id}: {name} must be a real number; got {raw!r}")
        fnum = _to_float(num)
        if math.isnan(fnum):
            raise ValueError(f"{self.id}: {name} must be a real number; got NaN")
        return num, fnum

    def _check_domain(self, name: str, sym: Any, raw: Any, fnum: float) -> None:
        """``ValueError`` when ``fnum`` (the input ``name`` = ``raw``) breaks an assumption of its symbol ``sym``
        (:data:`_SYMBOL_DOMAINS`, in order) or the shared upper bound of :data:`PROBABILITY_BOUNDS`."""
        for assumption, holds, what in _SYMBOL_DOMAINS:
            if getattr(sym, assumption) and not holds(fnum):
                raise ValueError(f"{self.id}: {name} must be {what}; got {raw!r}")
        if name in PROBABILITY_BOUNDS:
            bound, inclusive, what = PROBABILITY_BOUNDS[name]
            if fnum > bound or (fnum == bound and not inclusive):
                raise ValueError(f"{self.id}: {name} is {what}: it must be {'<=' if inclusive else '<'} "
                                 f"{bound:g}; got {raw!r}")

    def _substitutions(self, values: Mapping[str, Any]) -> tuple[dict, dict]:
        """The checked inputs (``values`` over the defaults): ``(symbol -> sympy number, name -> float)``;
        ``ValueError`` for an unknown or missing parameter, or a value outside its symbol's domain."""
        subs: dict = {}
        plain: dict[str, float] = {}
        for name, raw in self._merged_values(values).items():
            sym = self.symbols[name]
            num, fnum = self._real_number(name, raw)
            self._check_domain(name, sym, raw, fnum)
            subs[sym] = sp.Integer(int(fnum)) if sym.is_integer else num
            plain[name] = fnum
        return subs, plain

    def _missing_for(self, expr: Any, subs: Mapping) -> list[str]:
        """Names of the (optional) inputs ``expr`` needs that ``subs`` does not give."""
        return sorted(str(s) for s in getattr(expr, "free_symbols", set()) if s not in subs)

    def check_hypotheses(self, **values: Any) -> dict[str, bool]:
        """Which hypotheses hold at these values (name -> bool; hypotheses needing an optional input that
        was left out are not in the result)."""
        subs, _ = self._substitutions(values)
        return {h.name: h.holds(subs) for h in self.hypotheses if not self._missing_for(h.condition, subs)}

    def evaluate(self, *, allow_unguaranteed: bool = False, **values: Any) -> Evaluation:
        """Evaluate the conclusion at numbers.

        Raises :class:`HypothesisError` naming the failed hypotheses, unless
        ``allow_unguaranteed=True`` (then ``guaranteed=False`` in the result). Optional inputs
        (``optional=``) may be left out: see :class:`Evaluation` (``unchecked``, ``omitted``).
        """
        subs, plain = self._substitutions(values)
        unchecked = [h.name for h in self.hypotheses if self._missing_for(h.condition, subs)]
        holds = self._hypotheses_at(subs, plain, unchecked)
        failed = [n for n, ok in holds.items() if not ok]
        if failed and not allow_unguaranteed:
            details = [f"{n}: {self._hyp(n).condition}" for n in failed]
            raise HypothesisError(self.id, failed, details)
        omitted, conclusion, overflowed = self._conclusion_at(subs)
        if overflowed:
            warnings.warn(f"{self.id}: {', '.join(f'{k} = {t}' for k, t in overflowed.items())} exceeds float64 and "
                          "is returned as inf (the value: Evaluation.overflowed)", ConclusionOverflow, stacklevel=2)
        return Evaluation(self.id, plain, holds, conclusion, guaranteed=not failed and not unchecked,
                          unchecked=unchecked, omitted=omitted, overflowed=overflowed)

    def _hypotheses_at(self, subs: Mapping, plain: Mapping[str, float], unchecked: list[str]) -> dict[str, bool]:
        """Whether each hypothesis not in ``unchecked`` holds at ``subs`` (name -> bool); ``ValueError`` when one
        cannot be decided there (the inputs ``plain`` leave the theorem's domain)."""
        try:
            return {h.name: h.holds(subs) for h in self.hypotheses if h.name not in unchecked}
        except TypeError as exc:  # sympy comparing a non-real value: the inputs leave the theorem's domain
            raise ValueError(f"{self.id}: a hypothesis cannot be evaluated at {plain} (outside the theorem's "
                             f"domain: {exc})") from None

    def _conclusion_at(self, subs: Mapping) -> tuple[dict[str, list[str]], dict[str, float], dict[str, str]]:
        """The conclusion at ``subs``: ``(omitted, values, overflowed)``: the conclusions left out with the optional
        inputs each needs, the others' values as floats, and the text of those beyond float64 (returned as inf)."""
        omitted = {k: self._missing_for(v, subs) for k, v in self.conclusion.items() if self._missing_for(v, subs)}
        evaluated = {k: _evaluate(v.subs(subs)) for k, v in self.conclusion.items() if k not in omitted}
        conclusion = {k: value for k, (value, _) in evaluated.items()}
        overflowed = {k: text for k, (_, text) in evaluated.items() if text is not None}
        return omitted, conclusion, overflowed

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
        for other in self.core.theorems:
            if other is not self:
                lines.append(f"Shared: the same statement as {other.id} ({other.source}); one encoding for both papers")
        if self.statement:
            lines += ["", self.statement]
        for title, items, line in self._explain_sections():
            if items:
                lines += ["", title] + [line(item) for item in items]
        if self.notes:
            lines += ["", "Notes: " + self.notes]
        return "\n".join(lines)

    def _explain_sections(self) -> list[tuple[str, list, Callable[[Any], str]]]:
        """The listed sections of :meth:`explain`, in order: ``(title, items, the line of one item)``."""
        return [
            ("Symbols:", list(self.symbols.items()), _symbol_line),
            ("Hypotheses:", list(self.hypotheses),
             lambda h: f"  {h.name}: {h.condition}" + (f"  -- {h.description}" if h.description else "")),
            ("Conclusion:", list(self.conclusion.items()), lambda kv: f"  {kv[0]} = {kv[1]}"),
            ("Checks:", list(self.checks),
             lambda c: f"  [{c.kind}] {c.name}" + (f": {c.description}" if c.description else "")),
            ("Errata:", list(self.errata),
             lambda e: f"  {e.description}\n    printed:   {e.printed}\n    corrected: {e.corrected}"),
            ("Empirical checks:", list(self.empirical),
             lambda e: f"  sampler {e.sampler}, audit {e.audit}" + (f": {e.description}" if e.description else "")),
        ]

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
            "optional": dict(self.optional),
            "notes": self.notes,
            "same_as": self.same_as,
        }
