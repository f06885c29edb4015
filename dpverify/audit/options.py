"""The two halves of an audit's options: what is tested (:class:`AuditQuestion`) and how the audit runs
(:class:`Execution`).

:func:`dpverify.audit.audit` takes them as two frozen objects, so every layer above it (``dpverify.cases.run_case``,
the library audits' search, the pytest plugin, the command line) passes them through as they are instead of
forwarding two dozen keywords. The keyword form stays for users: ``audit(m, D, D2, epsilon=1.0, samples=20_000,
workers=2)`` is ``audit(m, D, D2, question=AuditQuestion(epsilon=1.0, samples=20_000),
execution=Execution(workers=2))`` (:func:`split_options`). Every field is described in :mod:`dpverify.audit.core`; the values are validated once, when
the audit plans its run (:func:`dpverify.audit.plan.make_plan`).

A result depends on the question, and on two execution options that change the sample streams: the array backend
(another generator) and the chunk size (each chunk has its own seed); it never depends on the rest of the execution
(workers, a Dask client and its resources, progress callbacks, the rng probe).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any, Callable, Sequence

from dpverify.audit.split import DEFAULT_SELECTION_FRACTION, FIT_CAP, THRESHOLD_SAMPLE
from dpverify.audit.verdicts import POWER_FACTOR

__all__ = ["AuditQuestion", "Execution", "split_options", "split_keywords", "QUESTION_FIELDS", "EXECUTION_FIELDS"]


@dataclass(frozen=True)
class AuditQuestion:
    """What an audit tests: the claim (``claim``, or the shorthand ``epsilon``/``delta``) at ``delta``, with
    ``samples`` outputs per side and ``confidence``, from ``seed``, with which ``test`` in which ``mode``, what is
    known about the pair (``exact_epsilon``, ``accountant``, ``privacy_loss``, ``adjacency``), the statistical
    knobs (``selection_fraction``, ``candidates``, ``power_factor``, ``fit_cap``, ``threshold_sample``) and whether
    the budget is spent in rounds that stop when the verdict is decided (``sequential``)."""

    claim: Any = None
    epsilon: float | None = None
    delta: float | None = None
    samples: int = 100_000
    confidence: float = 0.95
    seed: int = 0
    test: str | Callable = "auto"
    mode: str = "mathematical"
    exact_epsilon: float | None = None
    accountant: Any = None
    privacy_loss: Any = None
    adjacency: str | None = None
    selection_fraction: float = DEFAULT_SELECTION_FRACTION
    candidates: int = 1
    power_factor: float = POWER_FACTOR
    fit_cap: int = FIT_CAP
    threshold_sample: int = THRESHOLD_SAMPLE
    #: spend the budget in rounds that stop when the verdict is decided (:mod:`dpverify.audit.sequential`)
    sequential: bool = False

    def but(self, **changes: Any) -> AuditQuestion:
        """A copy with ``changes`` (a ``TypeError`` naming an unknown field)."""
        return replace(self, **changes)


@dataclass(frozen=True)
class Execution:
    """How an audit runs: ``workers`` local processes or a Dask ``client`` (with the ``resources`` its chunk tasks
    need), the array ``backend`` and ``device``, the ``chunk_size``, a ``progress(done, total)`` callback, and
    whether to probe the mechanism's use of its generator first (``check_rng``). The numbers depend on none of them
    but the backend and the chunk size (module docstring)."""

    workers: int = 1
    client: Any = None
    backend: str = "numpy"
    device: str | None = None
    chunk_size: int | None = None
    resources: dict | None = None
    progress: Callable[[int, int], None] | None = None
    check_rng: bool = True

    def but(self, **changes: Any) -> Execution:
        """A copy with ``changes`` (a ``TypeError`` naming an unknown field)."""
        return replace(self, **changes)


#: The keyword names of each half (the keyword form of :func:`dpverify.audit.audit` takes their union).
QUESTION_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(AuditQuestion))
EXECUTION_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Execution))


def split_options(question: AuditQuestion | None = None, execution: Execution | None = None,
                  **keywords: Any) -> tuple[AuditQuestion, Execution]:
    """The two option objects of an audit from the objects given and the keyword form: each keyword goes to the
    half that has it. A keyword that names neither half is a ``TypeError`` naming it; a keyword given beside an
    object of its half that also sets it is a ``TypeError`` too (one value per option)."""
    asked, how = split_keywords("audit", (("question", question, AuditQuestion), ("execution", execution, Execution)),
                                keywords)
    return asked, how


def split_keywords(caller: str, halves: Sequence[tuple[str, Any, type]], keywords: dict[str, Any]) -> tuple[Any, ...]:
    """The option objects of ``caller`` from the objects given and its keyword form (:func:`split_options`; the case
    runner's :func:`dpverify.cases.split_case_options` too). ``halves``: ``(name, given object or None, its frozen
    dataclass)`` each; every keyword goes to the dataclass that has the field. A keyword of none of them, an object
    of the wrong type, or a field given both as a keyword and (set) in its object is a ``TypeError`` naming it."""
    names = [(name, given, cls, tuple(f.name for f in fields(cls))) for name, given, cls in halves]
    unknown = sorted(set(keywords).difference(*(fields_of for *_, fields_of in names)))
    if unknown:
        listing = " and ".join(f"the {name}'s {list(fields_of)}" for name, _, _, fields_of in names)
        raise TypeError(f"{caller}() got unexpected keyword argument(s) {unknown}; {listing}")
    for name, given, cls, _ in names:
        if given is not None and not isinstance(given, cls):
            raise TypeError(f"{name} must be a{'n' if cls.__name__[0] in 'AEIOU' else ''} {cls.__name__}; got "
                            f"{type(given).__name__}")
    out = []
    for name, given, cls, fields_of in names:
        chosen = {k: v for k, v in keywords.items() if k in fields_of}
        default = cls()
        twice = [] if given is None else sorted(k for k in chosen if getattr(given, k) != getattr(default, k))
        if twice:
            raise TypeError(f"{twice} given both as keyword(s) and in {name}=; give each option once")
        out.append(replace(given or default, **chosen))
    return tuple(out)
