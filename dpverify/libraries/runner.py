"""Run a library's catalogue: worst-pair search, final audit and confirmation per function; one result row each.

Per function (:class:`~dpverify.libraries.base.LibraryFunction`), with the budget's sample counts divided by the
function's ``cost``:

1. **search** -- :func:`dpverify.libraries.search.certify`: the candidate pairs share ``search`` samples per side
   in total (screening), and the best pair is audited on fresh samples (``final`` per side) at the confidence
   asked for (default 0.95). Only the final audit's samples enter the certificate: the screening chose the pair
   and is never counted again, so the number of pairs screened costs no confidence (see
   :func:`dpverify.audit.search.search_then_certify`).
2. **confirmation** -- if the final audit certifies above the claim, the same pair is audited once more with a new
   seed on fresh samples (:func:`dpverify.libraries.search.confirm`). A violation is a *finding* only if it
   reproduces there; each certificate holds at the stated confidence on its own, and under a correct claim both
   exceed it with probability at most ``alpha^2`` (independent samples).

The row (:class:`LibraryResult`, typed until the report writer calls :meth:`LibraryResult.to_dict`) has a ``label``:
``finding`` (a confirmed violation nobody documented), ``expected`` (a confirmed violation of a
documented leak, ``LibraryFunction.expected``), ``expected, not found`` (the documented leak was not certified at
this budget: the audit lacked power), ``not reproduced`` (the final audit's violation did not recur: not a finding),
``unavailable`` (the library call itself fails in this environment, e.g. an incompatible dependency), ``error``
(the audit failed), or ``""``.

3. **ledger** -- when the function has a budget ledger (:mod:`dpverify.libraries.ledger`), one call on each side
   of the worst pair (same seed) is recorded: ``row.ledger`` holds both ledgers, their diff and the mismatch
   between the budget the calls spend (dpverify's composition), the budget the library's accountant records and
   the budget asked for. A spend above the record is a finding on its own, without sampling
   (``row.finding_from`` says ``"ledger"``, ``"sampling"`` or both). The ledgers of every candidate pair
   (:data:`LEDGER_SEEDS` seeds each) locate the causes in the library's source (``row.causes``,
   :func:`dpverify.libraries.causes.locate`).
"""
from __future__ import annotations

import fnmatch
import importlib
import multiprocessing
import time
import warnings
from dataclasses import dataclass, field, fields
from typing import Any, Callable, ClassVar, Iterable

import numpy as np
from threadpoolctl import threadpool_limits

from dpverify.audit.kinds import Mode, Verdict
from dpverify.audit.result import AuditResult
from dpverify.audit.sequential import Look
from dpverify.audit.split import NonReproducibleMechanismWarning
from dpverify.audit.verdicts import fmt_epsilon
from dpverify.calculus.guarantees import ApproxDP
from dpverify.libraries.base import Claimed, LibraryFunction
from dpverify.libraries.causes import locate
from dpverify.libraries.ledger import diff
from dpverify.libraries.search import array_code, certify, confirm
from dpverify.vocabulary import RowKind

__all__ = ["LIBRARIES", "BUDGETS", "Budget", "load", "run_function", "run_catalogue", "select", "failed",
           "markdown_table", "ledger_report", "LEDGER_SEEDS", "ledger_cell", "ledger_text", "RowKind",
           "LibraryResult", "WorstPair", "SpentBudget", "audit_result_from_dict", "FAILING_LABELS"]

#: Seeds per candidate pair of the ledgers that locate causes (a call of a few milliseconds each), and the time
#: after which no further seed is started (an Opacus ledger is a real training run: one seed only).
LEDGER_SEEDS = 4
LEDGER_SECONDS = 2.0

#: Native threads (BLAS, OpenMP) per audited function (:func:`run_function`).
LIBRARY_THREADS = 1

#: Library modules the runner knows, by command-line name (``dpverify.libraries.<name>``, or the module of
#: :data:`LIBRARY_MODULES`).
LIBRARIES = ("diffprivlib", "opendp", "opacus", "python-dp", "pipeline-dp", "dp-accounting", "prv-accountant",
             "smartnoise-sql")

#: Command-line names whose catalogue lives in a module of another name: ``(module, attribute)``; the attribute,
#: if not None, is the catalogue object of that module (the two accountants share
#: :mod:`dpverify.libraries.accountants`).
LIBRARY_MODULES: dict[str, tuple[str, str | None]] = {
    "python-dp": ("pydp", None),
    "pipeline-dp": ("pipeline_dp", None),
    "dp-accounting": ("accountants", "DP_ACCOUNTING"),
    "prv-accountant": ("accountants", "PRV_ACCOUNTANT"),
    "smartnoise-sql": ("smartnoise_sql", None),
}


#: Library-audit labels that fail a run (exit status 1; :func:`failed`).
FAILING_LABELS = ("finding", "error", "expected, not found")


def _claim_from(description: dict | None) -> Any:
    """The point claim an audit entry describes (:func:`dpverify.calculus.claimed.describe_claim`): a
    :class:`~dpverify.libraries.base.Claimed` (with where it was read) or an
    :class:`~dpverify.calculus.guarantees.ApproxDP`; None for none. A ``ValueError`` for a curve or a profile,
    which a description cannot rebuild."""
    if description is None:
        return None
    kind = description.get("type")
    if kind == "Claimed":
        return Claimed(description["epsilon"], description["delta"], description.get("source", ""))
    if kind == "ApproxDP":
        return ApproxDP(description["epsilon"], description["delta"])
    raise ValueError(f"an audit entry's claim of type {kind!r} cannot be rebuilt from its description")


def audit_result_from_dict(d: dict) -> AuditResult:
    """The :class:`~dpverify.audit.AuditResult` of an audit entry (its ``to_dict()``, read back): every recorded field,
    the verdict and mode as their vocabulary members, the sequential rounds as :class:`~dpverify.audit.sequential.Look`
    and the claim rebuilt from its description (a point claim: what a library audit tests). A curve-level test
    (``curve``) has no typed form to rebuild: a ``ValueError``. The derived entries (``detectable_factor``, ``claim``'s
    description) are computed again by ``to_dict``."""
    if d.get("curve") is not None:
        raise ValueError("an audit entry with a curve-level test cannot be rebuilt from its description")
    names = {f.name for f in fields(AuditResult)} - {"claim", "curve", "curve_ceiling"}
    values = {k: v for k, v in d.items() if k in names}
    values.update(verdict=Verdict(d["verdict"]), mode=Mode(d.get("mode", Mode.MATHEMATICAL)),
                  candidates=tuple(d.get("candidates", ())), looks=tuple(Look(**x) for x in d.get("looks", ())),
                  claim=_claim_from(d.get("claim")))
    return AuditResult(**values)


@dataclass(frozen=True)
class WorstPair:
    """The candidate pair the search certified: its ``family`` (the catalogue pair's label) and ``note``, Python
    source that rebuilds each side (``dataset``, ``neighbour``: :func:`~dpverify.libraries.search.array_code`) and
    the number of records on each side (``sizes``)."""

    family: str
    note: str
    dataset: str
    neighbour: str
    sizes: tuple[int, int]

    @classmethod
    def of(cls, pair: tuple, family: str, note: str) -> WorstPair:
        d, n = np.asarray(pair[0], dtype=float), np.asarray(pair[1], dtype=float)
        return cls(family, note, array_code(d), array_code(n), (int(d.shape[0]), int(n.shape[0])))

    def to_dict(self) -> dict:
        return {"family": self.family, "note": self.note, "dataset": self.dataset, "neighbour": self.neighbour,
                "sizes": list(self.sizes)}

    @classmethod
    def from_dict(cls, d: dict) -> WorstPair:
        return cls(d["family"], d["note"], d["dataset"], d["neighbour"], (int(d["sizes"][0]), int(d["sizes"][1])))


@dataclass(frozen=True)
class SpentBudget:
    """The samples one function's audit used: the budget's ``name``, samples per side of the screening in total
    (``search_per_side``) and per screened pair (``screen_per_pair``), of the final audit and again of the
    confirmation (``final_per_side``), the ``confidence``, the root ``seed`` and whether the audits were
    ``sequential``."""

    name: str
    search_per_side: int
    final_per_side: int
    screen_per_pair: int
    confidence: float
    seed: int
    sequential: bool

    def to_dict(self) -> dict:
        return {"name": self.name, "search_per_side": self.search_per_side, "final_per_side": self.final_per_side,
                "screen_per_pair": self.screen_per_pair, "confidence": self.confidence, "seed": self.seed,
                "sequential": self.sequential}

    @classmethod
    def from_dict(cls, d: dict) -> SpentBudget:
        return cls(**{f.name: d[f.name] for f in fields(cls)})


@dataclass
class LibraryResult:
    """One library function's audit (:func:`run_function`), a row of ``dpverify audit-library``'s report.

    What was audited: ``case`` (the function's qualified name), ``library``, ``version``, ``function`` (the call as
    a user writes it), ``adjacency``, ``expected`` (why a violation is documented; "" if none), ``tags``,
    ``reproducible`` and ``options``. The claim read from the library (``claimed``; None when the call itself fails
    here). The outcome: ``verdict`` (of the final audit; "unavailable" or "error" when there was none, with
    ``error`` saying why) and ``label`` (module docstring). For an audited function (``audit`` set): the certified
    bound of the final audit and of the confirmation (``certified``, ``confirm_certified``: None without a
    confirmation), the ``worst_pair`` and its label (``pair``), both audits (:class:`~dpverify.audit.AuditResult`),
    the ``screening`` (one record per candidate pair), the ``budget`` spent and a reproduction ``snippet`` for a
    violation. ``known_bad``: a documented leak, which ``passed`` when its violation was confirmed (the report's
    known-bad convention). The ledger section (``ledger``: both ledgers as data, their diff and the mismatch; None
    without a ledger), the ``causes`` it located and what a finding comes from (``finding_from``). ``seconds``: the
    whole audit's time.

    :meth:`to_dict` is its JSON form (the keys the report has always had: absent where the row has no such part);
    :meth:`from_dict` reads it back."""

    kind: ClassVar[RowKind] = RowKind.LIBRARY

    case: str
    library: str
    version: str
    function: str
    adjacency: str
    expected: str = ""
    tags: tuple[str, ...] = ()
    reproducible: bool = True
    options: dict = field(default_factory=dict)
    claimed: Claimed | None = None
    verdict: str = ""
    label: str = ""
    error: str | None = None
    certified: float | None = None
    confirm_certified: float | None = None
    worst_pair: WorstPair | None = None
    pair: str | None = None
    audit: AuditResult | None = None
    confirm: AuditResult | None = None
    screening: tuple[dict, ...] = ()
    budget: SpentBudget | None = None
    snippet: str = ""
    seconds: float = 0.0
    known_bad: bool = False
    passed: bool = False
    ledger: dict | None = None
    causes: list[dict] | None = None
    finding_from: list[str] | None = None

    @property
    def backend(self) -> str:
        """The array backend the final audit drew its samples on ("numpy": ``dpverify audit-library`` runs on numpy)."""
        return "numpy" if self.audit is None else self.audit.backend

    @property
    def device(self) -> str:
        return "cpu" if self.audit is None else self.audit.device

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"case": self.case, "library": self.library, "version": self.version,
                               "function": self.function, "adjacency": self.adjacency, "expected": self.expected,
                               "tags": list(self.tags), "reproducible": self.reproducible,
                               "options": dict(self.options)}
        if self.claimed is not None:
            out["claimed"] = {"epsilon": self.claimed.epsilon, "delta": self.claimed.delta,
                              "source": self.claimed.source}
        out["verdict"], out["label"] = self.verdict, self.label
        if self.error is not None:
            out["error"] = self.error
        if self.audit is not None:
            out.update(certified=self.certified, confirm_certified=self.confirm_certified,
                       worst_pair=None if self.worst_pair is None else self.worst_pair.to_dict(), pair=self.pair,
                       audit=self.audit.to_dict(), confirm=None if self.confirm is None else self.confirm.to_dict(),
                       screening=list(self.screening), budget=None if self.budget is None else self.budget.to_dict(),
                       snippet=self.snippet)
        out["seconds"] = self.seconds
        if self.known_bad:
            out["known_bad"], out["passed"] = True, self.passed
        for key in ("ledger", "causes", "finding_from"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_dict(cls, d: dict) -> LibraryResult:
        """The row of ``d`` (:meth:`to_dict`, read back)."""
        c, pair, budget = d.get("claimed"), d.get("worst_pair"), d.get("budget")
        confirm = d.get("confirm")
        return cls(
            case=d["case"], library=d["library"], version=d["version"], function=d["function"],
            adjacency=d["adjacency"], expected=d.get("expected", ""), tags=tuple(d.get("tags", ())),
            reproducible=d.get("reproducible", True), options=dict(d.get("options", {})),
            claimed=None if c is None else Claimed(c["epsilon"], c["delta"], c.get("source", "")),
            verdict=d.get("verdict", ""), label=d.get("label", ""), error=d.get("error"),
            certified=d.get("certified"), confirm_certified=d.get("confirm_certified"),
            worst_pair=None if pair is None else WorstPair.from_dict(pair), pair=d.get("pair"),
            audit=None if d.get("audit") is None else audit_result_from_dict(d["audit"]),
            confirm=None if confirm is None else audit_result_from_dict(confirm),
            screening=tuple(d.get("screening", ())), budget=None if budget is None else SpentBudget.from_dict(budget),
            snippet=d.get("snippet", ""), seconds=d.get("seconds", 0.0), known_bad=bool(d.get("known_bad", False)),
            passed=bool(d.get("passed", False)), ledger=d.get("ledger"), causes=d.get("causes"),
            finding_from=d.get("finding_from"))


@dataclass(frozen=True)
class Budget:
    """Samples per side: ``search`` shared by all candidate pairs of a function, ``final`` for the re-audit of the
    chosen pair and again for its confirmation; both divided by the function's ``cost`` (floors ``min_search``,
    ``min_final``)."""

    name: str
    search: int
    final: int
    min_search: int = 200
    min_final: int = 200

    def for_cost(self, cost: float) -> tuple[int, int]:
        return (max(self.min_search, int(self.search / cost)), max(self.min_final, int(self.final / cost)))

    def scaled(self, factor: float) -> "Budget":
        """Every sample count (and floor) times ``factor`` (``dpverify audit-library --scale``): more power for a
        follow-up of one function, e.g. a model whose screening hinted at a violation the final audit missed."""
        if not factor > 0:
            raise ValueError(f"scale must be > 0; got {factor!r}")
        return Budget(f"{self.name}x{factor:g}", int(self.search * factor), int(self.final * factor),
                      max(4, int(self.min_search * factor)), max(4, int(self.min_final * factor)))


#: quick: seconds per function (the default test run); standard: about a minute per function; full: the table of
#: docs/libraries.md.
BUDGETS = {
    "quick": Budget("quick", search=1_600, final=1_000),
    "standard": Budget("standard", search=12_000, final=10_000),
    "full": Budget("full", search=40_000, final=40_000, min_search=2_000, min_final=4_000),
}


def load(library: str):
    """The module ``dpverify.libraries.<library>``; ``ValueError`` for an unknown name, ``ImportError`` (with its
    install hint) when the module or the library behind it is missing."""
    if library not in LIBRARIES:
        raise ValueError(f"library must be one of {', '.join(LIBRARIES)}; got {library!r}")
    module, attribute = LIBRARY_MODULES.get(library, (library, None))
    name = f"dpverify.libraries.{module}"
    try:
        loaded = importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name == name:
            raise ImportError(f"{library}: no catalogue is available yet (module {name} is missing)") from None
        raise
    return loaded if attribute is None else getattr(loaded, attribute)


def library_version(module) -> str:
    v = getattr(module, "VERSION", None)
    if v is None and callable(getattr(module, "version", None)):
        v = module.version()
    return str(v)


def select(functions: Iterable[LibraryFunction], only: str | None) -> list[LibraryFunction]:
    """Functions whose name (or qualified name) matches the glob ``only`` or contains it (all if None)."""
    fns = list(functions)
    if not only:
        return fns
    return [f for f in fns if any(fnmatch.fnmatch(s, only) or only in s for s in (f.name, f.qualified_name))]


def _reproduction(fn: LibraryFunction, d: Any, n: Any, final: AuditResult) -> str:
    if fn.snippet is None:
        return ""
    counts = final.counts
    return (fn.snippet(d, n) + f"\n# The audit's event: {final.event}. Under ({final.epsilon_claimed:.4g}, "
            f"{final.delta:.3g})-DP its frequency in a is at most e^eps times that in b, plus delta (and vice "
            f"versa);\n# the audit counted {counts['dataset_in_event']} vs "
            f"{counts['neighbour_in_event']} of {counts['n_estimation']}.")


def ledger_report(fn: LibraryFunction, index: int = 0, *, seed: int = 0, seeds: int = LEDGER_SEEDS) -> dict:
    """The ledger section of a row (module docstring): ``dataset`` and ``neighbour`` (the ledgers of one call on
    each side of ``fn.pairs[index]`` with ``seed``), ``diff``, ``mismatch`` (of the dataset side; empty: none),
    ``causes`` (from the ledgers of every pair, ``seeds`` seeds each, fewer once :data:`LEDGER_SECONDS` have
    passed) and ``seconds``. Empty without a ledger."""
    if fn.ledger is None:
        return {}

    start = time.perf_counter()
    pair = fn.pairs[index]
    a, b = fn.ledger(pair[0], seed), fn.ledger(pair[1], seed)
    ledgers = [(getattr(pair, "label", f"pair {index}"), a, b)]
    rejected: set[int] = set()
    for s in range(seeds):  # seed by seed over every pair; further seeds only while the ledgers are cheap
        if s and time.perf_counter() - start > LEDGER_SECONDS:
            break
        for i, p in enumerate(fn.pairs):
            if i in rejected or (i == index and s == 0):
                continue
            try:
                ledgers.append((getattr(p, "label", f"pair {i}"), fn.ledger(p[0], seed + s), fn.ledger(p[1], seed + s)))
            except Exception:  # noqa: BLE001 - a pair the call rejects (fewer records than clusters): nothing to record
                rejected.add(i)
    causes = locate(fn.library, fn.version, a.package_dir, ledgers) if a.package_dir else []
    mismatch = dict(a.mismatch)
    for _, x, y in ledgers:  # a mismatch on any pair (the accounting may depend on the data)
        for m in (x.mismatch, y.mismatch):
            for k, v in m.items():
                if k not in mismatch or v["epsilon"] > mismatch[k]["epsilon"]:
                    mismatch[k] = v
    return {"pair": getattr(pair, "label", f"pair {index}"), "seed": seed, "dataset": a.to_dict(),
            "neighbour": b.to_dict(), "diff": diff(a, b), "mismatch": mismatch, "causes": causes,
            "seconds": time.perf_counter() - start}


def _add_ledger(row: LibraryResult, fn: LibraryFunction, index: int, seed: int) -> None:
    """The ledger section of ``fn`` on its pair ``index`` into ``row``, with the causes it located; a spend above
    the library's record makes the row a finding (``finding_from`` says what found it)."""
    try:
        led = ledger_report(fn, index, seed=seed)
    except Exception as exc:  # the ledger must never hide the audit's verdict
        row.ledger = {"error": f"{type(exc).__name__}: {exc}"}
        return
    if not led:
        return
    row.ledger = {k: v for k, v in led.items() if k != "causes"}
    row.causes = led["causes"]
    sources = ["sampling"] if row.label in ("finding", "expected") else []
    if "spent_over_recorded" in led["mismatch"]:
        sources.append("ledger")
        if row.label in ("", "not reproduced"):
            row.label = "finding"
    if sources:
        row.finding_from = sources


def run_function(fn: LibraryFunction, budget: Budget, *, seed: int = 0, confidence: float = 0.95,
                 progress: Callable[[str], None] | None = None, sequential: bool = False) -> LibraryResult:
    """Search, final audit and confirmation of one function (module docstring); the report row.

    The native thread pools (BLAS, OpenMP: :data:`LIBRARY_THREADS`, through ``threadpoolctl``) are limited for the
    call: a library call audits a few records at a time, where a pool only hands tiny vector operations between
    threads. Measured on 2 shared cores: one ``LogisticRegression`` fit (8 records) took 103 ms of CPU with
    OpenBLAS' 2 threads and 6.7 ms with one; the catalogue runs its functions in parallel with ``jobs``.
    ``sequential``: the final audit and its confirmation stop when their verdicts are decided
    (:mod:`dpverify.audit.sequential`; the row's ``audit`` then says how many samples each used).
    A function with an ``evaluate()`` method (an accountant query, :class:`dpverify.libraries.accountants.AccountantQuery`)
    is not sampled: its row is what ``evaluate()`` returns (the library's answer against dpverify's bracket)."""
    evaluate = getattr(fn, "evaluate", None)
    if callable(evaluate):  # an accountant query (dpverify.libraries.accountants): checked, never sampled
        return evaluate()
    with threadpool_limits(limits=LIBRARY_THREADS):
        return _run_function(fn, budget, seed=seed, confidence=confidence, progress=progress, sequential=sequential)


def _run_function(fn: LibraryFunction, budget: Budget, *, seed: int, confidence: float,
                  progress: Callable[[str], None] | None, sequential: bool = False) -> LibraryResult:
    start = time.perf_counter()
    row = LibraryResult(case=fn.qualified_name, library=fn.library, version=fn.version, function=fn.name,
                        adjacency=fn.adjacency, expected=fn.expected, tags=tuple(fn.tags),
                        reproducible=fn.reproducible, options=dict(fn.options))
    try:
        claim = fn.claim(fn.pairs[0][0])
    except Exception as exc:  # the library call itself fails here: not a privacy verdict
        row.verdict = row.label = "unavailable"
        row.error, row.seconds = f"{type(exc).__name__}: {exc}", time.perf_counter() - start
        return row
    search, final_n = budget.for_cost(fn.cost)
    row.claimed = claim
    try:
        with warnings.catch_warnings():
            if not fn.reproducible:  # deliberate: the noise comes from the OS (see the LibraryFunction docstring)
                warnings.simplefilter("ignore", NonReproducibleMechanismWarning)
            if progress:
                progress(f"{fn.qualified_name}: screening {len(fn.pairs)} pairs")
            found = certify(fn, search_budget=search, final_samples=final_n, confidence=confidence, seed=seed,
                            sequential=sequential)
            final = found.final
            conf = None
            if final.is_violation:
                if progress:
                    progress(f"{fn.qualified_name}: confirming on fresh samples")
                conf = confirm(fn, found.dataset, found.neighbour, samples=final_n, seed=seed,
                               confidence=confidence, probe=False, sequential=sequential)
    except Exception as exc:
        row.verdict = row.label = "error"
        row.error, row.seconds = f"{type(exc).__name__}: {exc}", time.perf_counter() - start
        _add_ledger(row, fn, 0, seed)
        return row
    pair = fn.pairs[found.index]
    label_name, note = getattr(pair, "label", f"pair {found.index}"), getattr(pair, "note", "")
    violation = final.is_violation
    confirmed = violation and conf is not None and conf.is_violation
    if confirmed:
        label = "expected" if fn.expected else "finding"
    elif violation:
        label = "not reproduced"
    else:
        label = "expected, not found" if fn.expected else ""
    row.verdict, row.label = str(final.verdict), label
    row.certified, row.confirm_certified = final.epsilon_lower, None if conf is None else conf.epsilon_lower
    row.worst_pair, row.pair = WorstPair.of(pair, label_name, note), label_name
    row.audit, row.confirm, row.screening = final, conf, tuple(found.screening)
    row.budget = SpentBudget(budget.name, search, final_n, found.search_samples, confidence, seed, sequential)
    row.snippet = _reproduction(fn, found.dataset, found.neighbour, final) if violation else ""
    # the report's known-bad convention: an expected violation "passes" when it is found
    row.known_bad, row.passed = bool(fn.expected), bool(fn.expected) and confirmed
    _add_ledger(row, fn, found.index, seed)
    row.seconds = time.perf_counter() - start
    return row


_FORKED: tuple = ()  # (functions, budget, seed, confidence, progress, sequential) for run_catalogue's forked workers


def _run_forked(index: int) -> LibraryResult:
    fns, budget, seed, confidence, progress, sequential = _FORKED
    return run_function(fns[index], budget, seed=seed, confidence=confidence, progress=progress, sequential=sequential)


def run_catalogue(functions: Iterable[LibraryFunction], budget: str | Budget = "quick", *, seed: int = 0,
                  confidence: float = 0.95, progress: Callable[[str], None] | None = None,
                  on_row: Callable[[LibraryResult], None] | None = None, jobs: int = 1,
                  sequential: bool = False) -> list[LibraryResult]:
    """:func:`run_function` on each function in order; ``budget`` a name of :data:`BUDGETS` or a :class:`Budget`.

    ``jobs`` > 1 runs the functions in that many forked worker processes (POSIX ``fork``: the catalogue's closures
    need not pickle; each function's audit is seeded on its own, so the rows are the same as with ``jobs=1``, in the
    same order). Libraries that start threads of their own before the fork (torch) are safest with ``jobs=1``."""
    if isinstance(budget, str):
        if budget not in BUDGETS:
            raise ValueError(f"budget must be one of {', '.join(BUDGETS)}; got {budget!r}")
        budget = BUDGETS[budget]
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be an integer >= 1; got {jobs!r}")
    fns = list(functions)
    rows = []
    if jobs > 1 and len(fns) > 1:
        global _FORKED
        _FORKED = (fns, budget, seed, confidence, progress, sequential)
        try:
            with multiprocessing.get_context("fork").Pool(min(jobs, len(fns))) as pool:
                for row in pool.imap(_run_forked, range(len(fns))):
                    rows.append(row)
                    if on_row:
                        on_row(row)
        finally:
            _FORKED = ()
        return rows
    for fn in fns:
        row = run_function(fn, budget, seed=seed, confidence=confidence, progress=progress, sequential=sequential)
        rows.append(row)
        if on_row:
            on_row(row)
    return rows


def ledger_cell(row: LibraryResult) -> str:
    """The ledger's verdict in a few characters: "ok" (spent = recorded), "spent 1.5 > rec 1", "error" or "-"."""
    led = row.ledger or {}
    if not led:
        return "-"
    if "error" in led:
        return "error"
    mm = (led.get("mismatch") or {}).get("spent_over_recorded")
    if not mm:
        return "ok"
    rec = (led.get("dataset") or {}).get("recorded") or {}
    spent = rec.get("epsilon", 0.0) + mm["epsilon"]
    return f"spent {spent:.4g} > rec {rec.get('epsilon', float('nan')):.4g}"


#: What a library's ``recorded`` budget is, as the ledger text names it (default: the library's accountant).
_RECORDS = {"opendp": "the measurement's privacy map at d_in = 1"}


def _budget_cell(x: dict | None) -> str:
    """A guarantee of the ledger's dict form as text: its epsilon, and its delta in brackets when positive ("-" for
    none)."""
    if not x:
        return "-"
    return f"{x['epsilon']:.6g}" + (f" (delta {x['delta']:.3g})" if x.get("delta") else "")


def _budget_line(led: dict) -> str:
    """The first line of :func:`ledger_text`: the pair and seed, and the budget spent (on the dataset side) vs
    recorded vs asked, with the unrecorded excess when the spend exceeds the record."""
    d = led["dataset"]
    mm = (led.get("mismatch") or {}).get("spent_over_recorded")
    record = _RECORDS.get(d.get("library"), "the library's accountant")
    return (f"budget on pair {led['pair']} (seed {led['seed']}): spent {_budget_cell(d.get('spent_least'))} "
            f"(dpverify's composition of {len(d['calls'])} calls) vs recorded {_budget_cell(d.get('recorded'))} "
            f"({record}) vs asked {_budget_cell(d.get('asked'))}"
            + (f": MISMATCH, +{mm['epsilon']:.6g} unrecorded" if mm else ""))


def _unrecorded_lines(d: dict) -> list[str]:
    """The line listing the spends on accountants made inside the call, with their sites (none without such
    spends); ``d``: the dataset side's ledger dict."""
    if not d.get("unrecorded_spends"):
        return []
    return ["  spends on accountants made inside the call: "
            + ", ".join(f"{e:.6g} at {site}" for (e, _), site in zip(d["unrecorded_spends"],
                                                                      d.get("unrecorded_sites", [])))]


def _call_lines(calls: list[dict], max_calls: int) -> list[str]:
    """The calls on D, one line each (mechanism, epsilon, delta, sensitivity, scale, site), at most ``max_calls``
    of them, then how many more there are."""
    lines = ["  calls on D:"]
    for c in calls[:max_calls]:
        sens = "-" if c["sensitivity"] is None else f"{c['sensitivity']:.4g}"
        scale = "-" if c["scale"] is None else f"{c['scale']:.4g}"
        lines.append(f"    {c['mechanism']} eps={c['epsilon']:.4g} delta={c['delta']:.3g} sensitivity={sens} "
                     f"scale={scale} at {c['site']}")
    if len(calls) > max_calls:
        lines.append(f"    ... {len(calls) - max_calls} more")
    return lines


def _diff_line(x: dict) -> str:
    """One record of the ledgers' diff (:func:`dpverify.libraries.ledger.diff`) as a "D vs D'" line: a call made on
    one side only, or the fields that differ, a sensitivity of 0 and a statistic changing by more than declared."""
    if "only_on" in x:
        return f"  D vs D': call {x['index']} ({x['mechanism']} at {x['site']}) only on {x['only_on']}"
    what = [f"{k} {v[0]:.4g} vs {v[1]:.4g}" if isinstance(v[0], float) else f"{k} {v[0]} vs {v[1]}"
            for k, v in x.get("differs", {}).items()]
    if x.get("zero_sensitivity_on"):
        what.append("sensitivity 0 on " + " and ".join(x["zero_sensitivity_on"]))
    if x.get("exceeds_declared"):
        e = x["exceeds_declared"]
        what.append(f"statistic changes by {e['realized']:.4g} > declared sensitivity {e['declared']:.4g}")
    return f"  D vs D': call {x['index']} ({x['mechanism']} at {x['site']}): " + "; ".join(what)


def _cause_lines(c: dict) -> list[str]:
    """One cause (:func:`dpverify.libraries.causes.locate`) as text: its kind, site and source line, the condition
    it runs under, up to two pieces of evidence, and its upstream references (or that none were found)."""
    lines = [f"cause [{c['kind']}] {c['site']} ({c['library']} {c['version']}): {c['source']}"]
    if c.get("guard"):
        lines.append(f"  runs only under {c['guard']}")
    for e in c["evidence"][:2]:
        lines.append(f"  evidence: {e}")
    refs = [ref for u in c.get("upstream", []) for ref in u["refs"]]
    status = "; ".join(u["status"] for u in c.get("upstream", []))
    lines.append("  upstream: " + (", ".join(refs) + f" ({status})" if refs else "none found on the tracker"))
    return lines


def ledger_text(row: LibraryResult, max_calls: int = 12) -> list[str]:
    """The ledger and the causes of a row as text lines (the CLI's and the HTML report's detail): budget spent vs
    recorded vs asked, the calls on D, where D and D' differ, and each cause with its file:line, evidence and
    upstream references. Empty when the row has nothing to show (no mismatch, no difference, no cause)."""
    led = row.ledger or {}
    causes = row.causes or []
    if not led or "error" in led:
        return [f"ledger error: {led['error']}"] if led.get("error") else []
    if not (led.get("mismatch") or led.get("diff") or causes):
        return []
    d = led["dataset"]
    lines = [_budget_line(led), *_unrecorded_lines(d), *_call_lines(d["calls"], max_calls)]
    lines += [_diff_line(x) for x in led.get("diff") or []]
    for c in causes:
        lines += _cause_lines(c)
    return lines


def failed(rows: Iterable[LibraryResult]) -> bool:
    """True when a row is a finding, an error, or an expected violation that was not found (exit status 1)."""
    return any(r.label in FAILING_LABELS for r in rows)


def claim_and_certificate(row: LibraryResult, delta_symbol: str = "δ") -> tuple[str, str]:
    """The "claimed" cell (epsilon, and delta when positive) and the "certified" cell (final audit / confirmation)
    of a result row, as the CLI table and the docs table print them."""
    c = row.claimed
    claimed = "-" if c is None else fmt_epsilon(c.epsilon) + (f" ({delta_symbol}={c.delta:.0e})" if c.delta else "")
    cert = fmt_epsilon(row.certified)
    if row.confirm_certified is not None:
        cert += f" / {fmt_epsilon(row.confirm_certified)}"
    return claimed, cert


def markdown_table(rows: Iterable[LibraryResult]) -> str:
    """The rows as the Markdown table of docs/libraries.md: library, version, function, claimed (epsilon, delta),
    certified (final audit / confirmation), worst pair, verdict, label."""
    lines = ["| library | version | function | claimed | certified | worst pair | verdict | label | ledger |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        claimed, cert = claim_and_certificate(r)
        func = str(r.function).replace("|", "\\|")
        lines.append(f"| {r.library} | {r.version} | `{func}` | {claimed} | {cert} | {r.pair or '-'} | "
                     f"{r.verdict} | {r.label or ''} | {ledger_cell(r)} |")
    return "\n".join(lines)
