"""The dpverify pytest plugin (registered through the ``pytest11`` entry point).

- marker ``@pytest.mark.dp_audit(epsilon=..., delta=0.0)``: the claim a test audits;
- fixture ``dp_auditor``: ``dp_auditor(mechanism, dataset, neighbour, **overrides)`` runs
  :func:`dpverify.interfaces.testing.assert_dp` with the marker's claim and the session's settings;
- fixture ``dp_one_run``: ``dp_one_run(experiment, m, **overrides)`` runs
  :func:`dpverify.interfaces.testing.assert_dp_one_run` (one training run with m canaries) with the marker's epsilon,
  if any, as the claim (else the run's accountant) and the session's ``--dp-seed``;
- options ``--dp-samples N``, ``--dp-confidence C``, ``--dp-seed S``, ``--dp-report PATH``, ``--dp-mode
  mathematical|implementation`` and ``--dp-workers W`` (passed to :func:`dpverify.audit.audit`);
- option ``--dp-scheduler ADDRESS|local``: every audit's samples are drawn and counted on a Dask cluster (the
  ``distributed`` extra; :mod:`dpverify.audit.distributed`): a running one at ADDRESS (``tcp://host:8786``) or, with
  ``local``, a LocalCluster of ``--dp-workers`` processes (default 2) started at the first audit of the session and
  closed at its end. The numbers equal those of a run without it;
- a terminal summary table of every audit of the session (claimed, accountant, exact, budget ceiling,
  certified lower bound, certified/claimed, verdict, samples, time; the columns of :mod:`dpverify.interfaces.report`) with the
  reason of every verdict that is not "consistent" and the claims far above the exact or accountant epsilon, and
  with ``--dp-report`` the same as JSON (written atomically: temporary file, then rename). The report path is
  checked when the session starts (a directory or an unwritable path is a usage error then, not a lost report at
  the end).

Importing this module is cheap (no numpy/sympy/statsmodels): pytest loads it in every session of
an environment where dpverify is installed.
"""
from __future__ import annotations

import time
from typing import Any

import pytest

DEFAULT_SAMPLES = 100_000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0

_RECORDS_KEY = pytest.StashKey[list]()
_CLUSTER_KEY = pytest.StashKey[Any]()
_CLIENT_KEY = pytest.StashKey[Any]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpverify", "differential-privacy audits (dpverify)")
    group.addoption("--dp-samples", type=int, default=None, metavar="N",
                    help=f"samples per side for every audit (default: the audit's own, else {DEFAULT_SAMPLES})")
    group.addoption("--dp-confidence", type=float, default=None, metavar="C",
                    help=f"confidence of the certified lower bounds, in (0, 1) (default {DEFAULT_CONFIDENCE})")
    group.addoption("--dp-seed", type=int, default=None, metavar="S", help=f"root seed of every audit (default {DEFAULT_SEED})")
    group.addoption("--dp-report", default=None, metavar="PATH", help="write every audit of the session to PATH as JSON")
    group.addoption("--dp-mode", default=None, choices=("mathematical", "implementation"),
                    help="audit mode of every audit: mathematical (the idealised mechanism, default) or implementation "
                         "(also floating-point artefacts of the outputs, Mironov 2012)")
    group.addoption("--dp-workers", type=int, default=None, metavar="W",
                    help="processes that draw and count each audit's samples (integer >= 1; same numbers for any W); "
                         "with --dp-scheduler local, the local Dask workers (default 2)")
    group.addoption("--dp-scheduler", default=None, metavar="ADDRESS|local",
                    help="draw and count every audit's samples on a Dask cluster: a scheduler address "
                         "(tcp://host:8786) or 'local' (a LocalCluster for the session); needs dpverify[distributed]")


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
    seed = config.getoption("--dp-seed", default=None)
    if seed is not None and seed < 0:
        raise pytest.UsageError(f"--dp-seed must be an integer >= 0; got {seed}")
    workers = config.getoption("--dp-workers", default=None)
    if workers is not None and workers < 1:
        raise pytest.UsageError(f"--dp-workers must be an integer >= 1; got {workers}")
    scheduler = config.getoption("--dp-scheduler", default=None)
    if scheduler is not None:
        import importlib.util

        if not scheduler.strip():
            raise pytest.UsageError("--dp-scheduler must be 'local' or a scheduler address such as tcp://host:8786")
        if importlib.util.find_spec("distributed") is None:
            raise pytest.UsageError("--dp-scheduler needs dask.distributed, which is not installed: "
                                    "pip install 'dpverify[distributed]' (the 'distributed' extra)")
        if scheduler != "local" and workers is not None:
            raise pytest.UsageError(f"--dp-workers is the cluster's own with --dp-scheduler {scheduler}; give "
                                    "--dp-workers only with --dp-scheduler local")
    report = config.getoption("--dp-report", default=None)
    if report:
        from dpverify.interfaces.files import check_writable_file

        try:
            check_writable_file(report, "--dp-report")
        except ValueError as exc:
            raise pytest.UsageError(str(exc)) from None
    config.stash[_RECORDS_KEY] = []
    from dpverify.interfaces import testing

    def record(result: Any, context: dict) -> None:
        config.stash[_RECORDS_KEY].append((result, context))

    config._dpverify_recorder = record  # type: ignore[attr-defined]
    testing.add_recorder(record)


def pytest_unconfigure(config: pytest.Config) -> None:
    from dpverify.interfaces import testing

    recorder = getattr(config, "_dpverify_recorder", None)
    if recorder is not None:
        testing.remove_recorder(recorder)
    cluster = config.stash.get(_CLUSTER_KEY, None)
    if cluster is not None:  # the session's Dask client (and local cluster), opened by the first audit
        del config.stash[_CLUSTER_KEY]
        cluster.__exit__(None, None, None)


def session_client(config: pytest.Config) -> Any:
    """The session's ``dask.distributed.Client`` for ``--dp-scheduler`` (connected, or the local cluster started, on
    first use; closed when the session ends), or None without the option."""
    scheduler = config.getoption("--dp-scheduler", default=None)
    if scheduler is None:
        return None
    if _CLUSTER_KEY not in config.stash:
        from dpverify.audit.distributed import connect

        cluster = connect(scheduler, config.getoption("--dp-workers", default=None) if scheduler == "local" else None)
        client = cluster.__enter__()
        config.stash[_CLUSTER_KEY] = cluster
        config.stash[_CLIENT_KEY] = client
    return config.stash[_CLIENT_KEY]


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
        __tracebackhide__ = True
        opt = self.config.getoption
        out = {"delta": 0.0, "samples": DEFAULT_SAMPLES, "confidence": DEFAULT_CONFIDENCE, "seed": DEFAULT_SEED}
        out.update(self.claim)
        scheduled = opt("--dp-scheduler") is not None
        for key, flag in (("samples", "--dp-samples"), ("confidence", "--dp-confidence"), ("seed", "--dp-seed"),
                          ("mode", "--dp-mode"), ("workers", "--dp-workers")):
            if opt(flag) is not None and not (scheduled and key == "workers"):  # then the Dask workers
                out[key] = opt(flag)
        if scheduled and "workers" not in overrides:
            out["client"] = session_client(self.config)
        out.update(overrides)
        if "epsilon" not in out:
            raise pytest.UsageError(
                f"{self.node.nodeid}: dp_auditor needs a claim: @pytest.mark.dp_audit(epsilon=..., delta=...) "
                "or dp_auditor(..., epsilon=...)"
            )
        return out

    def __call__(self, mechanism, dataset, neighbour, **overrides: Any):
        __tracebackhide__ = True  # a failure points at the test's call, not at the plugin
        from dpverify.interfaces.testing import assert_dp

        kwargs = self.settings(**overrides)
        kwargs.setdefault("name", self.node.nodeid)
        return assert_dp(mechanism, dataset, neighbour, **kwargs)


@pytest.fixture
def dp_auditor(request: pytest.FixtureRequest) -> DpAuditor:
    """Audit a mechanism against the test's ``dp_audit`` claim with the session's budget and seed."""
    return DpAuditor(request.config, request.node)


@pytest.fixture
def dp_one_run(request: pytest.FixtureRequest):
    """``dp_one_run(experiment, m, **overrides)``: a one-run audit against the test's ``dp_audit`` claim (if marked)
    with the session's seed."""
    marker = request.node.get_closest_marker("dp_audit")
    claim = {}
    if marker is not None:
        claim = {"epsilon": marker.kwargs.get("epsilon", marker.args[0] if marker.args else None)}
        if "delta" in marker.kwargs or len(marker.args) > 1:
            claim["delta"] = marker.kwargs.get("delta", marker.args[1] if len(marker.args) > 1 else None)

    def run(experiment, m: int, **overrides: Any):
        __tracebackhide__ = True
        from dpverify.interfaces.testing import assert_dp_one_run

        seed = request.config.getoption("--dp-seed", default=None)
        kwargs = {"seed": DEFAULT_SEED if seed is None else seed, "name": request.node.nodeid,
                  **{k: v for k, v in claim.items() if v is not None}, **overrides}
        return assert_dp_one_run(experiment, m, **kwargs)

    return run


def _row(result: Any, context: dict) -> dict:
    d = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    d["name"] = context.get("name", "")
    d["ratio"] = d["epsilon_lower"] / d["epsilon_claimed"] if d.get("epsilon_claimed") else None
    return d


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    records = config.stash.get(_RECORDS_KEY, [])
    if not records:
        return
    from dpverify.interfaces.report import AUDIT_HEADERS, LEGEND, accountant_marks, audit_cells, loose_claim_notes, summary_counts

    rows = [_row(r, c) for r, c in records]
    marks = accountant_marks(rows)
    headers = ["audit", *AUDIT_HEADERS, "samples", "time [s]"]
    table = [[r["name"], *audit_cells(r, marks), str(r["samples"]), f"{r.get('wall_time', 0.0):.2f}"] for r in rows]
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(headers)]
    terminalreporter.section("dpverify audits")
    terminalreporter.write_line("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    for t in table:
        terminalreporter.write_line("  ".join(v.ljust(w) for v, w in zip(t, widths)))
    counts = summary_counts(r["verdict"] for r in rows)
    terminalreporter.write_line(f"{len(rows)} audits: {counts['consistent']} consistent, {counts['inconclusive']} "
                                f"inconclusive at their budget, {counts['violation']} violations")
    for r in rows:
        if r["verdict"] != "consistent":
            terminalreporter.write_line(f"  {r['name']} ({r['verdict']}): {r.get('verdict_reason') or '-'}")
    for r in rows:
        for note in loose_claim_notes(r["name"], r):
            terminalreporter.write_line(f"  loose claim: {note}")
    if marks:
        terminalreporter.write_line("  accountant methods: " + "; ".join(f"[{n}] {m}" for m, n in marks.items()))
    for line in LEGEND:
        terminalreporter.write_line(f"  {line}")
    path = config.getoption("--dp-report")
    if path:
        from dpverify.interfaces.files import write_json_atomic

        try:
            write_json_atomic(path, {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "summary": counts,
                                     "audits": rows})
        except OSError as exc:  # checked at start-up; this is e.g. a full disk or a path removed meanwhile
            terminalreporter.write_line(f"dpverify: could not write the report to {path}: {exc}", red=True)
        else:
            terminalreporter.write_line(f"dpverify report written to {path}")
