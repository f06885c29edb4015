"""Assertions for other libraries' test suites: ``assert_dp``, ``assert_dp_one_run`` and ``assert_replay_invariant``.

``assert_dp(mechanism, dataset, neighbour, epsilon=..., delta=..., samples=..., confidence=...)`` runs
:func:`dpverify.audit.audit` and raises ``AssertionError`` when the certified lower bound exceeds the
claimed epsilon. The message carries everything needed to reproduce and judge the failure: claimed
epsilon, certified lower bound, exact pair epsilon and the accountant's epsilon if known, the budget ceiling,
the verdict's reason, the event and counts, and the seed.

An *inconclusive* audit (no violation, but the budget could not have detected one; :mod:`dpverify.audit.verdicts`)
is not a pass in disguise: by default it emits an :class:`InconclusiveAuditWarning` saying why, and with
``on_inconclusive="fail"`` it fails the test like a violation.

``assert_dp_one_run(experiment, m, epsilon=...)`` audits one training run with m canaries
(:func:`dpverify.audit.one_run.audit_one_run`) and fails the same way when the one-run certificate exceeds the claim
(by default the run's accountant epsilon).

``assert_replay_invariant(function, dataset, neighbour, primitives=..., relation=...)`` records the function's noise
primitive calls on the dataset and replays it on the neighbour with the same random draws
(:mod:`dpverify.libraries.replay`): no sampling, milliseconds per call; it fails listing every flag (control flow that
depends on the data, a value moving by more than its declared sensitivity, a bound or domain read from the data, NaN
or inf reaching a primitive, budget spent twice or not recorded) with its ``file:line``.

Under pytest with dpverify installed, every audit made here (or through the ``dp_auditor`` fixture)
is also recorded for the session summary table and the ``--dp-report`` JSON
(:mod:`dpverify.interfaces.pytest_plugin`).
"""
from __future__ import annotations

import inspect
import warnings
from typing import Any, Callable

__all__ = ["assert_dp", "assert_dp_one_run", "assert_replay_invariant", "format_failure", "format_one_run_failure",
           "add_recorder", "remove_recorder", "InconclusiveAuditWarning"]

#: What ``assert_dp`` does with an inconclusive audit.
ON_INCONCLUSIVE = ("warn", "fail", "ignore")


class InconclusiveAuditWarning(UserWarning):
    """An audit found no violation but could not have found one at its budget (its reason says why)."""

_RECORDERS: list[Callable[[Any, dict], None]] = []


def add_recorder(recorder: Callable[[Any, dict], None]) -> None:
    """Register ``recorder(result, context)``, called after every audit made through this module."""
    _RECORDERS.append(recorder)


def remove_recorder(recorder: Callable[[Any, dict], None]) -> None:
    if recorder in _RECORDERS:
        _RECORDERS.remove(recorder)


def _eps(x: Any) -> str:
    return "unknown" if x is None else f"{x:.6g}"


def format_failure(result: Any, name: str = "mechanism") -> str:
    """The AssertionError message for a violating (or, with ``on_inconclusive="fail"``, inconclusive) audit."""
    c = result.counts
    accountant = _eps(getattr(result, "epsilon_accountant", None))
    method = getattr(result, "accountant_method", "")
    if method and accountant != "unknown":
        accountant += f" ({method})"
    ceiling = _eps(getattr(result, "budget_ceiling", None))
    ratio = result.epsilon_lower / result.epsilon_claimed if result.epsilon_claimed else float("nan")
    curve = getattr(result, "curve", None)
    if result.verdict == "violation" and result.epsilon_lower <= result.epsilon_claimed and curve is not None:
        head = (f"{name} is not private as claimed on this pair: the certified error rates of a threshold test "
                f"(FPR <= {curve.fpr_upper:.4g}, FNR <= {curve.fnr_upper:.4g}) lie below the claimed trade-off curve "
                f"({curve.claim_description}) at confidence {result.confidence:g}.")
    elif result.verdict == "violation":
        head = (f"{name} is not ({result.epsilon_claimed:g}, {result.delta:g})-DP on this pair: "
                f"certified epsilon lower bound {result.epsilon_lower:.6g} > claimed epsilon {result.epsilon_claimed:g} "
                f"(exact pair epsilon: {_eps(result.epsilon_exact)}) at confidence {result.confidence:g}.")
    else:
        head = (f"the audit of {name} is {result.verdict}: it could not have detected a violation of "
                f"({result.epsilon_claimed:g}, {result.delta:g})-DP at this budget "
                f"(certified {result.epsilon_lower:.6g}; exact pair epsilon: {_eps(result.epsilon_exact)}).")
    return (
        f"{head}\n"
        f"  verdict: {result.verdict}: {getattr(result, 'verdict_reason', '') or '-'}\n"
        f"  claimed {result.epsilon_claimed:g}; accountant {accountant}; exact {_eps(result.epsilon_exact)}; "
        f"budget ceiling {ceiling}; certified {result.epsilon_lower:.6g} (certified/claimed {ratio:.3g})\n"
        f"  test: {result.test}; event: {result.event}\n"
        f"  counts: {c.get('dataset_in_event')} of {c.get('n_estimation')} outputs on the dataset and "
        f"{c.get('neighbour_in_event')} of {c.get('n_estimation')} on the neighbour fall in the event "
        f"(selection used {c.get('n_selection')} more per side)\n"
        f"  samples per side: {result.samples}; seed: {result.seed} (rerun with the same seed to reproduce)"
    )


def assert_dp(
    mechanism: Callable,
    dataset: Any,
    neighbour: Any,
    *,
    name: str | None = None,
    on_inconclusive: str = "warn",
    **audit_options: Any,
):
    """Audit ``mechanism`` on (dataset, neighbour) and fail if it certifiably violates (epsilon, delta)-DP.

    Every keyword argument of :func:`dpverify.audit.audit` is accepted and forwarded unchanged, with
    ``audit()``'s own defaults (``epsilon`` is required; ``delta``, ``samples``, ``confidence``, ``seed``, ``test``,
    ``mode``, ``workers``... as there): this function declares none of them again, so the two cannot drift apart.
    (Importing this module does not import the auditor: the pytest plugin loads it in every session.) An argument
    ``audit()`` does not take is a ``TypeError`` listing the ones it does.

    Returns the :class:`dpverify.audit.AuditResult` when the audit finds no violation.
    ``name``: the label in the failure message and the session table (default: the mechanism's ``id`` or name).
    ``on_inconclusive``: "warn" (default: an :class:`InconclusiveAuditWarning` with the verdict's reason), "fail"
    (an ``AssertionError``: the test demands an audit with power) or "ignore".
    """
    __tracebackhide__ = True  # pytest: the failure points at the caller's line, not at this helper
    from dpverify.audit import audit

    if on_inconclusive not in ON_INCONCLUSIVE:
        raise ValueError(f"on_inconclusive must be one of {ON_INCONCLUSIVE}; got {on_inconclusive!r}")
    unknown = sorted(set(audit_options) - set(_audit_keywords()))
    if unknown:
        raise TypeError(f"assert_dp got unknown argument(s) {', '.join(unknown)}; it takes name, on_inconclusive and "
                        f"the keyword arguments of dpverify.audit.audit: {', '.join(_audit_keywords())}")
    result = audit(mechanism, dataset, neighbour, **audit_options)
    label = name or getattr(mechanism, "id", None) or getattr(mechanism, "__name__", None) or type(mechanism).__name__
    for record in list(_RECORDERS):
        record(result, {"name": label})
    if result.verdict == "violation":
        raise AssertionError(format_failure(result, label))
    if result.verdict == "inconclusive":
        if on_inconclusive == "fail":
            raise AssertionError(format_failure(result, label))
        if on_inconclusive == "warn":
            warnings.warn(f"audit of {label} is inconclusive: {result.verdict_reason}", InconclusiveAuditWarning,
                          stacklevel=2)
    return result


def _audit_keywords() -> tuple[str, ...]:
    """The keywords :func:`dpverify.audit.audit` takes (what ``assert_dp`` forwards): its two option objects and
    every field of them (:mod:`dpverify.audit.options`)."""
    from dpverify.audit.options import EXECUTION_FIELDS, QUESTION_FIELDS

    return ("question", "execution", *QUESTION_FIELDS, *EXECUTION_FIELDS)



def format_one_run_failure(result: Any, name: str = "run") -> str:
    """The AssertionError message of a one-run audit that failed (violation, or inconclusive with "fail")."""
    head = (f"{name} is not ({result.epsilon_claimed:g}, {result.delta:g})-DP in its canaries: one run certified "
            f"{result.epsilon_lower:.6g} > claimed {result.epsilon_claimed:g}" if result.verdict == "violation" else
            f"the one-run audit of {name} is {result.verdict}: certified {result.epsilon_lower:.6g}, claimed "
            f"{result.epsilon_claimed:g}")
    return (f"{head} (alpha {result.alpha:g}).\n"
            f"  verdict: {result.verdict}: {result.verdict_reason}\n"
            f"  accountant {_eps(result.epsilon_accountant)} ({result.accountant_method or '-'}); exact release "
            f"{_eps(result.epsilon_release)}; method {result.method} {result.curve}\n"
            f"  canaries {result.m} ({result.included} included); guesses k+ = {result.k_plus}, k- = {result.k_minus}: "
            f"{result.v} of {result.r} right ({result.guess_rule}); score separation {result.score_separation:.3g}\n"
            f"  seed: {result.seed} (rerun with the same seed to reproduce)")


def assert_dp_one_run(experiment: Any, m: int, *, epsilon: float | None = None, name: str | None = None,
                      on_inconclusive: str = "warn", **options: Any):
    """Audit one run of ``experiment`` with ``m`` canaries (:func:`dpverify.audit.one_run.audit_one_run`; every
    keyword argument of it is accepted, ``epsilon`` is its ``epsilon_claimed``: default the run's accountant) and
    raise ``AssertionError`` when one run certifies more than the claim. Returns the
    :class:`~dpverify.audit.one_run.OneRunResult` otherwise; ``on_inconclusive`` as for :func:`assert_dp`."""
    __tracebackhide__ = True
    from dpverify.audit.one_run import audit_one_run

    if on_inconclusive not in ON_INCONCLUSIVE:
        raise ValueError(f"on_inconclusive must be one of {ON_INCONCLUSIVE}; got {on_inconclusive!r}")
    known = tuple(p.name for p in inspect.signature(audit_one_run).parameters.values() if p.kind is p.KEYWORD_ONLY)
    unknown = sorted(set(options) - set(known) | ({"epsilon_claimed"} & set(options)))
    if unknown:
        raise TypeError(f"assert_dp_one_run got unknown argument(s) {', '.join(unknown)}; it takes epsilon, name, "
                        f"on_inconclusive and {', '.join(k for k in known if k != 'epsilon_claimed')}")
    result = audit_one_run(experiment, m, epsilon_claimed=epsilon, **options)
    label = name or getattr(experiment, "name", None) or type(experiment).__name__
    if result.verdict == "violation" or (result.verdict == "inconclusive" and on_inconclusive == "fail"):
        raise AssertionError(format_one_run_failure(result, label))
    if result.verdict == "inconclusive" and on_inconclusive == "warn":
        warnings.warn(f"one-run audit of {label} is inconclusive: {result.verdict_reason}", InconclusiveAuditWarning,
                      stacklevel=2)
    return result


def assert_replay_invariant(function: Callable, dataset: Any, neighbour: Any, *, primitives: Any,
                            relation: Any = None, seed: int = 0, accountant: Any = None, budget: Any = None,
                            watch: bool = True, check_output: bool = False, ignore: Any = (),
                            name: str | None = None):
    """Record ``function(dataset)`` and replay it on ``neighbour`` with the same random draws
    (:func:`dpverify.libraries.replay.record_and_replay`; ``primitives``, ``relation``, ``seed``, ``accountant``,
    ``budget``, ``watch`` and ``check_output`` as there) and raise ``AssertionError`` listing every flag with its
    ``file:line`` and the values on both sides. ``ignore``: flag kinds to accept (of :data:`dpverify.libraries.replay.FLAG_KINDS`), e.g.
    ``("output",)``. Returns the :class:`~dpverify.libraries.replay.ReplayResult` when nothing is flagged.

    (The replay layer is imported on the first call: the pytest plugin imports this module in every session.)"""
    __tracebackhide__ = True
    from dpverify.libraries.replay import FLAG_KINDS, record_and_replay

    accepted = (ignore,) if isinstance(ignore, str) else tuple(ignore)
    unknown = [k for k in accepted if k not in FLAG_KINDS]
    if unknown:
        raise ValueError(f"ignore must hold flag kinds of {FLAG_KINDS}; got {unknown!r}")
    result = record_and_replay(function, dataset, neighbour, primitives=primitives, relation=relation, seed=seed,
                               accountant=accountant, budget=budget, watch=watch, check_output=check_output)
    flagged = [f for f in result.flags if f.kind not in accepted]
    if flagged:
        label = name or getattr(function, "__qualname__", None) or type(function).__name__
        lines = [f"{label} is not replay-invariant: {len(flagged)} flag(s) on the pair (record on D, replay on D' "
                 f"with the same draws, seed {seed}; {len(result.recording.calls)} primitive call(s) on D):"]
        lines += [f"  - {f}" for f in flagged]
        raise AssertionError("\n".join(lines))
    return result
