"""The dpverify pytest plugin (registered through the ``pytest11`` entry point).

- marker ``@pytest.mark.dp_audit(epsilon=..., delta=0.0)``: the claim a test audits;
- fixture ``dp_auditor``: ``dp_auditor(mechanism, dataset, neighbour, **overrides)`` runs
  :func:`dpverify.testing.assert_dp` with the marker's claim and the session's settings;
- options ``--dp-samples N``, ``--dp-confidence C``, ``--dp-seed S``, ``--dp-report PATH``;
- a terminal summary table of every audit of the session (claimed, exact, certified lower bound,
  certified/claimed ratio, verdict, samples, time), and with ``--dp-report`` the same as JSON
  (written atomically: temporary file, then rename).

Importing this module is cheap (no numpy/sympy/statsmodels): pytest loads it in every session of
an environment where dpverify is installed.
"""
from __future__ import annotations

import math
import time
from typing import Any

import pytest

DEFAULT_SAMPLES = 100_000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0

_RECORDS_KEY = pytest.StashKey[list]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpverify", "differential-privacy audits (dpverify)")
    group.addoption("--dp-samples", type=int, default=None, metavar="N",
                    help=f"samples per side for every audit (default: the audit's own, else {DEFAULT_SAMPLES})")
    group.addoption("--dp-confidence", type=float, default=None, metavar="C",
                    help=f"confidence of the certified lower bounds, in (0, 1) (default {DEFAULT_CONFIDENCE})")
    group.addoption("--dp-seed", type=int, default=None, metavar="S", help=f"root seed of every audit (default {DEFAULT_SEED})")
    group.addoption("--dp-report", default=None, metavar="PATH", help="write every audit of the session to PATH as JSON")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "dp_audit(epsilon, delta=0.0): the (epsilon, delta)-DP claim that the dp_auditor fixture checks"
    )
    conf = config.getoption("--dp-confidence", default=None)
    if conf is not None and not 0.0 < conf < 1.0:
        raise pytest.UsageError(f"--dp-confidence must be in (0, 1); got {conf}")
    samples = config.getoption("--dp-samples", default=None)
    if samples is not None and samples < 4:
        raise pytest.UsageError(f"--dp-samples must be an integer >= 4; got {samples}")
    config.stash[_RECORDS_KEY] = []
    from dpverify import testing

    def record(result: Any, context: dict) -> None:
        config.stash[_RECORDS_KEY].append((result, context))

    config._dpverify_recorder = record  # type: ignore[attr-defined]
    testing.add_recorder(record)


def pytest_unconfigure(config: pytest.Config) -> None:
    from dpverify import testing

    recorder = getattr(config, "_dpverify_recorder", None)
    if recorder is not None:
        testing.remove_recorder(recorder)


class DpAuditor:
    """The ``dp_auditor`` fixture's value: call it like ``assert_dp`` without repeating the claim."""

    def __init__(self, config: pytest.Config, node: pytest.Item) -> None:
        self.config = config
        self.node = node
        marker = node.get_closest_marker("dp_audit")
        self.claim = dict(marker.kwargs) if marker else {}
        if marker and marker.args:
            self.claim.setdefault("epsilon", marker.args[0])
            if len(marker.args) > 1:
                self.claim.setdefault("delta", marker.args[1])

    def settings(self, **overrides: Any) -> dict:
        """Claim and budget for one audit: explicit overrides > command-line options > marker > defaults.

        Command-line options override the marker's budget (that is what ``--dp-samples`` is for),
        never its claim.
        """
        opt = self.config.getoption
        out = {"delta": 0.0, "samples": DEFAULT_SAMPLES, "confidence": DEFAULT_CONFIDENCE, "seed": DEFAULT_SEED}
        out.update(self.claim)
        for key, flag in (("samples", "--dp-samples"), ("confidence", "--dp-confidence"), ("seed", "--dp-seed")):
            if opt(flag) is not None:
                out[key] = opt(flag)
        out.update(overrides)
        if "epsilon" not in out:
            raise pytest.UsageError(
                f"{self.node.nodeid}: dp_auditor needs a claim: @pytest.mark.dp_audit(epsilon=..., delta=...) "
                "or dp_auditor(..., epsilon=...)"
            )
        return out

    def __call__(self, mechanism, dataset, neighbour, **overrides: Any):
        from dpverify.testing import assert_dp

        kwargs = self.settings(**overrides)
        kwargs.setdefault("name", self.node.nodeid)
        return assert_dp(mechanism, dataset, neighbour, **kwargs)


@pytest.fixture
def dp_auditor(request: pytest.FixtureRequest) -> DpAuditor:
    """Audit a mechanism against the test's ``dp_audit`` claim with the session's budget and seed."""
    return DpAuditor(request.config, request.node)


def _row(result: Any, context: dict) -> dict:
    d = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    d["name"] = context.get("name", "")
    d["ratio"] = d["epsilon_lower"] / d["epsilon_claimed"] if d.get("epsilon_claimed") else None
    return d


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return "inf" if math.isinf(x) else f"{x:.4g}"
    return str(x)


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    records = config.stash.get(_RECORDS_KEY, [])
    if not records:
        return
    rows = [_row(r, c) for r, c in records]
    headers = ["audit", "claimed", "exact", "certified", "ratio", "verdict", "samples", "time [s]"]
    table = [
        [r["name"], _fmt(r["epsilon_claimed"]), _fmt(r["epsilon_exact"]), _fmt(r["epsilon_lower"]),
         _fmt(r["ratio"]), r["verdict"], str(r["samples"]), f"{r.get('wall_time', 0.0):.2f}"]
        for r in rows
    ]
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(headers)]
    terminalreporter.section("dpverify audits")
    terminalreporter.write_line("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    for t in table:
        terminalreporter.write_line("  ".join(v.ljust(w) for v, w in zip(t, widths)))
    path = config.getoption("--dp-report")
    if path:
        from dpverify._io import write_json_atomic

        write_json_atomic(path, {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "audits": rows})
        terminalreporter.write_line(f"dpverify report written to {path}")
