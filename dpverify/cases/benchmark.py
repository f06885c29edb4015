"""Running a case of the standard suite (:mod:`dpverify.audit.standard_suite`: the DP-Sniper / StatDP mechanisms,
each on its witness pair with the pair's exact epsilon), reached through :func:`dpverify.cases.run_case`.

The case's claim is tested at the case's delta, with the pair's exact epsilon stated (at that delta only) (so a certificate above it is a
violation, :mod:`dpverify.audit.verdicts`); the result keeps the ratio certified / exact that the benchmarks report
(DP-Sniper's measure, Bichsel et al. 2021, Sec. 7).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from dpverify.cases.catalogue import BUDGETS
from dpverify.cases.options import CaseOptions
from dpverify.vocabulary import CaseKind

if TYPE_CHECKING:  # the auditor is imported when a case runs: importing the suite stays cheap
    from dpverify.audit.options import Execution
    from dpverify.audit.result import AuditResult
    from dpverify.audit.standard.case import BenchmarkCase

__all__ = ["BenchmarkResult", "run_benchmark_case"]


@dataclass(frozen=True)
class BenchmarkResult:
    """An audit of a standard-suite case: the case's name, whether its mechanism is private for every pair of its
    adjacency (``private``), the pair's exact epsilon and the audit (:class:`~dpverify.audit.AuditResult`).
    ``passed``: a private mechanism is not flagged; a non-private one (a known-bad row) is."""

    kind: ClassVar[CaseKind] = CaseKind.BENCHMARK

    case: str
    private: bool
    epsilon_exact: float
    audit: AuditResult
    seconds: float

    @property
    def verdict(self) -> str:
        return str(self.audit.verdict)

    @property
    def passed(self) -> bool:
        return (self.verdict == "violation") != self.private

    @property
    def ratio(self) -> float:
        """Certified / exact epsilon of the pair (0 where the exact epsilon is 0)."""
        return self.audit.epsilon_lower / self.epsilon_exact if self.epsilon_exact > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"case": self.case, "kind": str(self.kind), "private": self.private,
                "epsilon_exact": self.epsilon_exact, "verdict": self.verdict, "passed": self.passed,
                "ratio": self.ratio, "seconds": self.seconds, "audit": self.audit.to_dict()}


def run_benchmark_case(case: BenchmarkCase | str, options: CaseOptions | None = None,
                       execution: Execution | None = None) -> BenchmarkResult:
    """Audit a standard-suite case at its claim and delta, stating the pair's exact epsilon, with
    ``options.budget`` samples per side (a sample count; a named budget is :data:`dpverify.cases.BUDGETS`'s),
    ``options.seed``, ``options.confidence``, ``options.mode`` and ``options.sequential`` (``options.epsilon``
    replaces the claim; ``params`` do not apply: a standard case has no parameters)."""
    from dpverify.audit import AuditQuestion, Execution, run_audit
    from dpverify.audit.standard_suite import get

    case = get(case) if isinstance(case, str) else case
    options, execution = options or CaseOptions(), execution or Execution()
    if options.params:
        raise TypeError(f"params do not apply to the standard-suite case {case.name} (it has none); got "
                        f"{sorted(options.params)}")
    samples = BUDGETS[options.budget] if isinstance(options.budget, str) and options.budget in BUDGETS else \
        options.budget
    if not isinstance(samples, int) or isinstance(samples, bool):
        raise ValueError(f"budget must be one of {sorted(BUDGETS)} or a sample count; got {options.budget!r}")
    start = time.perf_counter()
    delta = case.delta if options.delta is None else options.delta
    question = AuditQuestion(epsilon=case.epsilon_claimed if options.epsilon is None else options.epsilon,
                             delta=delta, samples=samples, confidence=options.confidence, seed=options.seed,
                             mode=options.mode, sequential=options.sequential,
                             exact_epsilon=case.epsilon_exact if delta == case.delta else None)
    result = run_audit(case.mechanism, case.dataset, case.neighbour, question, execution)
    return BenchmarkResult(case.name, case.private, case.epsilon_exact, result, time.perf_counter() - start)
