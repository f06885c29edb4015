"""Assertions for other libraries' test suites: ``assert_dp``.

``assert_dp(mechanism, dataset, neighbour, epsilon=..., delta=..., samples=..., confidence=...)`` runs
:func:`dpverify.audit.audit` and raises ``AssertionError`` when the certified lower bound exceeds the
claimed epsilon. The message carries everything needed to reproduce and judge the failure: claimed
epsilon, certified lower bound, exact pair epsilon if known, the event and counts, and the seed.

Under pytest with dpverify installed, every audit made here (or through the ``dp_auditor`` fixture)
is also recorded for the session summary table and the ``--dp-report`` JSON
(:mod:`dpverify.pytest_plugin`).
"""
from __future__ import annotations

from typing import Any, Callable

__all__ = ["assert_dp", "format_failure", "add_recorder", "remove_recorder"]

_RECORDERS: list[Callable[[Any, dict], None]] = []


def add_recorder(recorder: Callable[[Any, dict], None]) -> None:
    """Register ``recorder(result, context)``, called after every audit made through this module."""
    _RECORDERS.append(recorder)


def remove_recorder(recorder: Callable[[Any, dict], None]) -> None:
    if recorder in _RECORDERS:
        _RECORDERS.remove(recorder)


def format_failure(result: Any, name: str = "mechanism") -> str:
    """The AssertionError message for a violating audit."""
    exact = "unknown" if result.epsilon_exact is None else f"{result.epsilon_exact:.6g}"
    c = result.counts
    return (
        f"{name} is not ({result.epsilon_claimed:g}, {result.delta:g})-DP on this pair: "
        f"certified epsilon lower bound {result.epsilon_lower:.6g} > claimed epsilon {result.epsilon_claimed:g} "
        f"(exact pair epsilon: {exact}) at confidence {result.confidence:g}.\n"
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
    epsilon: float,
    delta: float = 0.0,
    samples: int = 100_000,
    confidence: float = 0.95,
    seed: int = 0,
    name: str | None = None,
    **audit_options: Any,
):
    """Audit ``mechanism`` on (dataset, neighbour) and fail if it certifiably violates (epsilon, delta)-DP.

    Returns the :class:`dpverify.audit.AuditResult` when the audit is consistent with the claim.
    ``audit_options`` go to :func:`dpverify.audit.audit` (e.g. ``test="classifier"``, ``exact_epsilon=``).
    """
    from dpverify.audit import audit

    result = audit(
        mechanism, dataset, neighbour, epsilon=epsilon, delta=delta, samples=samples,
        confidence=confidence, seed=seed, **audit_options,
    )
    label = name or getattr(mechanism, "id", None) or getattr(mechanism, "__name__", None) or type(mechanism).__name__
    for record in list(_RECORDERS):
        record(result, {"name": label})
    if result.verdict == "violation":
        raise AssertionError(format_failure(result, label))
    return result
