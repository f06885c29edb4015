"""What a run of an audit case asks (:class:`CaseOptions`), beside how it runs (the auditor's
:class:`~dpverify.audit.options.Execution`).

:func:`dpverify.cases.run_case` takes the two as frozen objects, so the command line, ``dpverify verify`` (its
workers and its Dask cluster: both objects pickle), the pytest plugin and the suite's conftest pass them through
instead of forwarding a dozen keywords. The keyword form stays for users: ``run_case("laplace_mechanism",
budget=2_000, seed=3, workers=2)`` is ``run_case("laplace_mechanism", CaseOptions(budget=2_000, seed=3),
Execution(workers=2))`` (:func:`split_case_options`).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the auditor is imported when a case runs: importing the suite stays cheap
    from dpverify.audit.options import Execution

__all__ = ["CaseOptions", "CASE_FIELDS", "split_case_options"]


@dataclass(frozen=True)
class CaseOptions:
    """What an audit of a case asks: the ``budget`` (a named budget, :data:`dpverify.cases.BUDGETS`, scaled by the
    case's ``budget_scale``, or a sample count per side), the ``seed`` and ``confidence``, the sampler's ``params``
    overriding the case's, an explicit claim ``epsilon`` (tested at ``delta``; default: the case's reference, read at
    ``delta``, default the claim's), the audit ``mode`` and whether the budget is spent in rounds that stop when
    decided (``sequential``)."""

    budget: str | int = "quick"
    seed: int = 0
    confidence: float = 0.95
    params: dict | None = None
    epsilon: float | None = None
    delta: float | None = None
    mode: str = "mathematical"
    sequential: bool = False

    def but(self, **changes: Any) -> CaseOptions:
        """A copy with ``changes`` (a ``TypeError`` naming an unknown field)."""
        return replace(self, **changes)


#: The keyword names of :class:`CaseOptions`.
CASE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(CaseOptions))


def split_case_options(options: CaseOptions | None = None, execution: Execution | None = None,
                       **keywords: Any) -> tuple[CaseOptions, Execution]:
    """The two option objects of a case run from the objects given and the keyword form: each keyword goes to the
    object that has it. A keyword of neither, an object of the wrong type, or a field given both as a keyword and
    (set) in its object is a ``TypeError`` naming it."""
    from dpverify.audit.options import Execution, split_keywords

    asked, how = split_keywords("run_case", (("options", options, CaseOptions), ("execution", execution, Execution)),
                                keywords)
    return asked, how
