"""The dpverify pytest plugin (registered through the ``pytest11`` entry point).

- marker ``@pytest.mark.dp_audit(epsilon=..., delta=0.0)`` (or ``dp_audit(epsilon, delta)``): the claim a test audits;
  the other keyword arguments of :func:`dpverify.audit.audit` (``samples``, ``confidence``, ``seed``, ...) may be
  given too. A marked test is checked before it runs: more than two positional arguments, a second ``dp_audit``
  marker (one on the class and one on the function both apply), or a claim that is not a number in range (a
  boolean, NaN, inf, a string, an integer beyond the float range) is an error naming it; and a marked test that
  passes without running any audit fails (the marker promised one);
- fixture ``dp_auditor``: ``dp_auditor(mechanism, dataset, neighbour, **overrides)`` runs
  :func:`dpverify.interfaces.testing.assert_dp` with the marker's claim and the session's settings;
- fixture ``dp_one_run``: ``dp_one_run(experiment, m, **overrides)`` runs
  :func:`dpverify.interfaces.testing.assert_dp_one_run` (one training run with m canaries) with the marker's epsilon,
  if any, as the claim (else the run's accountant) and the session's ``--dp-seed``;
- fixture ``dp_replay``: ``dp_replay(function, dataset, neighbour, primitives=..., **options)`` runs
  :func:`dpverify.interfaces.testing.assert_replay_invariant` (record on the dataset, replay on the neighbour with
  the same random draws, :mod:`dpverify.libraries.replay`) with the session's ``--dp-seed``; no sampling, so it
  needs no ``dp_audit`` marker;
- options ``--dp-samples N``, ``--dp-confidence C``, ``--dp-seed S``, ``--dp-report PATH``, ``--dp-mode
  mathematical|implementation``, ``--dp-workers W`` and ``--dp-backend numpy|torch`` / ``--dp-device cpu|cuda`` (the
  array backend of the gradient samplers' audits, :mod:`dpverify.backends`; other mechanisms stay on numpy) (passed
  to :func:`dpverify.audit.audit`), ``--dp-sequential`` (every audit spends its budget in rounds that stop when the
  verdict is decided, :mod:`dpverify.audit.sequential`), each checked as it is parsed (:mod:`dpverify.interfaces.cli.arguments`: a usage error names the option and its range);
- option ``--dp-scheduler ADDRESS|local``: every audit's samples are drawn and counted on a Dask cluster (the
  ``distributed`` extra; :mod:`dpverify.audit.distributed`): a running one at ADDRESS (``tcp://host:8786``) or, with
  ``local``, a LocalCluster of ``--dp-workers`` processes (default 2) started at the first audit of the session and
  closed at its end. The numbers equal those of a run without it. With ``--dp-backend torch --dp-device cuda`` each
  chunk is drawn on its worker's own GPU; ``--dp-resources GPU=1`` keeps the chunks on workers started with
  ``--resources GPU=1``;
- a terminal summary table of every audit of the session (claimed, accountant, exact, budget ceiling,
  certified lower bound, certified/claimed, verdict, samples, time; the columns of :mod:`dpverify.interfaces.report`) with the
  reason of every verdict that is not "consistent" and the claims far above the exact or accountant epsilon
  (``--dp-explain`` adds what each column means), and with ``--dp-report`` the same as JSON, with the session's
  settings (:func:`report_settings`) and each row's ``backend``/``device`` (written atomically: temporary file, then
  rename). The report path is checked when the session starts: a directory, an unwritable path
  or an existing file that is not a dpverify report (the user's own) is a usage error then, not a lost file at the
  end;
- pytest-xdist (``pytest -n 2``): each worker sends its audits to the controller when it finishes, which prints one
  table and writes one report with every audit of every worker; a worker that dies is named in the summary (its
  audits since its last report are missing), never silently dropped.

Importing this module is cheap (no numpy/sympy/statsmodels): pytest loads it in every session of
an environment where dpverify is installed.
"""
from __future__ import annotations

import importlib.util
import json
import time
from pathlib import Path
from typing import Any

import pytest

from dpverify.interfaces import testing
from dpverify.interfaces.cli import arguments
from dpverify.interfaces.testing import assert_dp, assert_dp_one_run, assert_replay_invariant
from dpverify.vocabulary import Mode

DEFAULT_SAMPLES = 100_000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0

#: The marker's name, and the keywords it takes by position.
MARKER = "dp_audit"
POSITIONAL = ("epsilon", "delta")
#: What a dpverify session report carries (how an existing file is recognised as one before it is replaced).
REPORT_KEYS = ("created", "summary", "audits")
#: The key under which an xdist worker sends its audits to the controller.
WORKER_KEY = "dpverify_audits"

_RECORDS_KEY = pytest.StashKey[list]()
_WORKER_ROWS_KEY = pytest.StashKey[list]()
_LOST_WORKERS_KEY = pytest.StashKey[list]()
_CLUSTER_KEY = pytest.StashKey[Any]()
_CLIENT_KEY = pytest.StashKey[Any]()
_CLIENT_ERROR_KEY = pytest.StashKey[str]()
_AUDITS_BEFORE_KEY = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dpverify", "differential-privacy audits (dpverify)")
    group.addoption("--dp-samples", type=arguments.samples(), default=None, metavar="N",
                    help=f"samples per side for every audit, an integer in [4, {arguments.MAX_SAMPLES:.0e}] (default: "
                         f"the audit's own, else {DEFAULT_SAMPLES})")
    group.addoption("--dp-confidence", type=arguments.confidence(), default=None, metavar="C",
                    help=f"confidence of the certified lower bounds, in (0, 1) (default {DEFAULT_CONFIDENCE})")
    group.addoption("--dp-seed", type=arguments.seed(), default=None, metavar="S",
                    help=f"root seed of every audit, an integer >= 0 (default {DEFAULT_SEED})")
    group.addoption("--dp-report", type=arguments.path("a file path"), default=None, metavar="PATH",
                    help="write every audit of the session to PATH as JSON")
    group.addoption("--dp-mode", default=None, choices=Mode.values(),
                    help="audit mode of every audit: mathematical (the idealised mechanism, default) or implementation "
                         "(also floating-point artefacts of the outputs, Mironov 2012)")
    group.addoption("--dp-workers", type=arguments.workers(), default=None, metavar="W",
                    help="processes that draw and count each audit's samples (integer >= 1; same numbers for any W); "
                         "with --dp-scheduler local, the local Dask workers (default 2)")
    group.addoption("--dp-scheduler", default=None, metavar="ADDRESS|local",
                    help="draw and count every audit's samples on a Dask cluster: a scheduler address "
                         "(tcp://host:8786) or 'local' (a LocalCluster for the session); needs dpverify[distributed]")
    group.addoption("--dp-backend", default=None, choices=("numpy", "torch"),
                    help="array backend of every audit of a gradient sampler: numpy (default, the reference) or torch "
                         "(needs dpverify[torch]; other mechanisms stay on numpy; docs/gpu.md)")
    group.addoption("--dp-device", default=None, metavar="cpu|cuda|cuda:K",
                    help="device of --dp-backend torch (default cpu)")
    group.addoption("--dp-resources", type=arguments.dask_resources(), default=None, metavar="NAME=AMOUNT",
                    help="with --dp-scheduler: draw every audit's chunks only on Dask workers started with these "
                         "resources, e.g. GPU=1 (docs/distributed.md)")
    group.addoption("--dp-sequential", action="store_true", default=False,
                    help="spend each audit's --dp-samples in rounds that stop as soon as the verdict is decided "
                         "(dpverify.audit.sequential; valid whenever it stops); the table's samples column then shows "
                         "used/budget")
    group.addoption("--dp-explain", action="store_true", default=False,
                    help="after the session's audit table, also print what each column means")


def _is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker (the controller merges what the workers send)."""
    return hasattr(config, "workerinput")


def check_report_target(path: str) -> None:
    """``--dp-report PATH`` must be writable, and an existing file there must be a dpverify report (the session
    would replace it): a :class:`pytest.UsageError` otherwise, before any test runs."""
    from dpverify.interfaces.files import check_writable_file

    try:
        check_writable_file(path, "--dp-report")
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    target = Path(path)
    if target.is_file() or target.is_symlink():
        try:
            data = json.loads(target.read_text(encoding="utf-8"))
            ours = isinstance(data, dict) and all(k in data for k in REPORT_KEYS)
        except (OSError, ValueError):
            ours = False
        if not ours:
            raise pytest.UsageError(f"--dp-report {path}: the file exists and is not a dpverify report; the session "
                                    "would replace it. Remove it or choose another path")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{MARKER}(epsilon, delta=0.0): the (epsilon, delta)-DP claim that the dp_auditor fixture checks"
    )
    _check_execution_options(config)
    report = config.getoption("--dp-report", default=None)
    if report is not None and not _is_worker(config):
        check_report_target(report)
    config.stash[_RECORDS_KEY] = []
    config.stash[_WORKER_ROWS_KEY] = []
    config.stash[_LOST_WORKERS_KEY] = []

    def record(result: Any, context: dict) -> None:
        config.stash[_RECORDS_KEY].append((result, context))

    config._dpverify_recorder = record  # type: ignore[attr-defined]
    testing.add_recorder(record)


def _check_execution_options(config: pytest.Config) -> None:
    """The options that say how audits run (--dp-scheduler, --dp-workers, --dp-backend, --dp-device,
    --dp-resources): each valid, and together consistent; ``pytest.UsageError`` naming them otherwise."""
    scheduler = config.getoption("--dp-scheduler", default=None)
    workers = config.getoption("--dp-workers", default=None)
    if scheduler is not None:
        if not scheduler.strip():
            raise pytest.UsageError("--dp-scheduler must be 'local' or a scheduler address such as tcp://host:8786")
        if importlib.util.find_spec("distributed") is None:
            raise pytest.UsageError("--dp-scheduler needs dask.distributed, which is not installed: "
                                    "pip install 'dpverify[distributed]' (the 'distributed' extra)")
        if scheduler != "local" and workers is not None:
            raise pytest.UsageError(f"--dp-workers is the cluster's own with --dp-scheduler {scheduler}; give "
                                    "--dp-workers only with --dp-scheduler local")
    backend, device = config.getoption("--dp-backend", default=None), config.getoption("--dp-device", default=None)
    if backend is not None or device is not None:
        from dpverify.backends import get_backend

        try:
            get_backend(backend or "numpy", device)
        except (TypeError, ValueError) as exc:
            raise pytest.UsageError(f"--dp-backend {backend or 'numpy'}"
                                    + (f" --dp-device {device}" if device else "") + f": {exc}") from None
        if (backend or "numpy") != "numpy" and scheduler is None and (workers or 1) > 1:
            raise pytest.UsageError("--dp-backend torch drives its device from one process: drop --dp-workers, or "
                                    "use --dp-scheduler with one Dask worker per device (docs/distributed.md)")
    if config.getoption("--dp-resources", default=None) is not None and scheduler is None:
        raise pytest.UsageError("--dp-resources pins the chunk tasks to Dask workers that have them: it needs "
                                "--dp-scheduler")


def pytest_unconfigure(config: pytest.Config) -> None:
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
    if _CLIENT_ERROR_KEY in config.stash:  # the first audit could not connect: the rest fail at once, not again
        raise RuntimeError(config.stash[_CLIENT_ERROR_KEY])
    if _CLUSTER_KEY not in config.stash:
        from dpverify.audit.distributed import connect

        cluster = connect(scheduler, config.getoption("--dp-workers", default=None) if scheduler == "local" else None)
        try:
            client = cluster.__enter__()
        except Exception as exc:
            config.stash[_CLIENT_ERROR_KEY] = (f"--dp-scheduler {scheduler}: could not connect ({exc}); every audit "
                                               "of this session needs it, so none is tried again")
            raise RuntimeError(config.stash[_CLIENT_ERROR_KEY]) from exc
        config.stash[_CLUSTER_KEY] = cluster
        config.stash[_CLIENT_KEY] = client
    return config.stash[_CLIENT_KEY]


def marker_claim(node: pytest.Item) -> dict:
    """The keyword arguments of the test's ``dp_audit`` marker (positional ones named by :data:`POSITIONAL`),
    checked: one marker, at most two positional arguments, no keyword given twice, and the numbers of the claim and
    budget in range (:func:`check_marker_values`). A problem fails the test with one line naming it."""
    markers = list(node.iter_markers(MARKER))
    if not markers:
        return {}
    if len(markers) > 1:
        shown = " and ".join(_marker_text(m) for m in markers)
        pytest.fail(f"{node.nodeid}: {len(markers)} {MARKER} markers apply ({shown}; a marker on the class or module "
                    "and one on the function both apply): give the test one claim", pytrace=False)
    (marker,) = markers
    if len(marker.args) > len(POSITIONAL):
        pytest.fail(f"{node.nodeid}: {_marker_text(marker)} takes at most {len(POSITIONAL)} positional arguments "
                    f"({', '.join(POSITIONAL)}); got {len(marker.args)}: pass the others by keyword", pytrace=False)
    claim = dict(marker.kwargs)
    for name, value in zip(POSITIONAL, marker.args):
        if name in claim:
            pytest.fail(f"{node.nodeid}: {_marker_text(marker)} gives {name} both by position and by keyword",
                        pytrace=False)
        claim[name] = value
    try:
        check_marker_values(claim)
    except (TypeError, ValueError) as exc:
        pytest.fail(f"{node.nodeid}: @pytest.mark.{MARKER}: {exc}", pytrace=False)
    return claim


def check_marker_values(claim: dict) -> None:
    """The claim and the budget of a marker, by the shared validators: epsilon a finite number > 0, delta in
    [0, 1), samples an integer in [4, MAX_SAMPLES], confidence in (0, 1), seed an integer >= 0, workers in
    [1, MAX_WORKERS]. Booleans, NaN, inf, strings and integers beyond the float range are errors naming the
    argument; the other keywords are checked by :func:`dpverify.audit.audit` itself."""
    from dpverify.validation import MAX_COUNT, check_delta, check_epsilon, check_positive_int, check_real

    if "epsilon" in claim:
        check_epsilon(claim["epsilon"])
    if "delta" in claim:
        check_delta(claim["delta"])
    if "samples" in claim:
        check_positive_int(claim["samples"], "samples", minimum=4, maximum=arguments.MAX_SAMPLES)
    if "confidence" in claim:
        check_real("confidence", claim["confidence"], low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    if "seed" in claim:
        check_positive_int(claim["seed"], "seed", minimum=0, maximum=MAX_COUNT)
    if "workers" in claim:
        check_positive_int(claim["workers"], "workers", minimum=1, maximum=arguments.MAX_WORKERS)


def _marker_text(marker: pytest.Mark) -> str:
    args = [repr(a) for a in marker.args] + [f"{k}={v!r}" for k, v in marker.kwargs.items()]
    return f"@pytest.mark.{marker.name}({', '.join(args)})"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A marked test with a bad marker fails before it runs (whether or not it asks for the fixture)."""
    if item.get_closest_marker(MARKER) is not None:
        marker_claim(item)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> None:
    """Remember how many audits the session had before the test body runs (see :func:`pytest_runtest_makereport`)."""
    records = item.config.stash.get(_RECORDS_KEY, None)
    item.stash[_AUDITS_BEFORE_KEY] = len(records) if records is not None else 0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A test marked ``dp_audit`` that passes without running an audit (it never called ``dp_auditor`` or
    ``assert_dp``) fails: the marker promised an audit."""
    outcome = yield
    report = outcome.get_result()
    records = item.config.stash.get(_RECORDS_KEY, None)
    if (call.when == "call" and report.passed and records is not None and item.get_closest_marker(MARKER) is not None
            and len(records) == item.stash.get(_AUDITS_BEFORE_KEY, len(records))):
        report.outcome = "failed"
        report.longrepr = (f"{item.nodeid} is marked {MARKER} but ran no audit: call the dp_auditor fixture (or "
                           "dpverify.interfaces.testing.assert_dp) in it, or remove the marker")


class DpAuditor:
    """The ``dp_auditor`` fixture's value: call it like ``assert_dp`` without repeating the claim."""

    def __init__(self, config: pytest.Config, node: pytest.Item) -> None:
        self.config = config
        self.node = node
        self.claim = marker_claim(node)

    def settings(self, **overrides: Any) -> dict:
        """Claim and budget for one audit, as keywords: explicit overrides > command-line options > marker >
        defaults. Command-line options override the marker's budget (that is what ``--dp-samples`` is for),
        never its claim. :meth:`options` is the same as the auditor's two option objects."""
        __tracebackhide__ = True
        opt = self.config.getoption
        out = {"delta": 0.0, "samples": DEFAULT_SAMPLES, "confidence": DEFAULT_CONFIDENCE, "seed": DEFAULT_SEED}
        out.update(self.claim)
        scheduled = opt("--dp-scheduler") is not None
        for key, flag in (("samples", "--dp-samples"), ("confidence", "--dp-confidence"), ("seed", "--dp-seed"),
                          ("mode", "--dp-mode"), ("workers", "--dp-workers"), ("backend", "--dp-backend"),
                          ("device", "--dp-device")):
            if opt(flag) is not None and not (scheduled and key == "workers"):  # then the Dask workers
                out[key] = opt(flag)
        if opt("--dp-sequential", default=False):
            out["sequential"] = True
        if scheduled and "workers" not in overrides:
            out["client"] = session_client(self.config)
            if opt("--dp-resources") is not None:
                out["resources"] = opt("--dp-resources")
        out.update(overrides)
        if "epsilon" not in out and "claim" not in out:
            raise pytest.UsageError(
                f"{self.node.nodeid}: dp_auditor needs a claim: @pytest.mark.dp_audit(epsilon=..., delta=...) "
                "or dp_auditor(..., epsilon=...)"
            )
        return out

    def options(self, mechanism: Any = None, **overrides: Any) -> tuple[Any, Any]:
        """The audit's :class:`~dpverify.audit.options.AuditQuestion` and :class:`~dpverify.audit.options.Execution`
        from :meth:`settings` (an override that names neither is a ``TypeError`` naming it). ``--dp-backend``
        applies to the gradient samplers only: a ``mechanism`` without a device path runs on numpy unless the
        test itself asked for a backend."""
        __tracebackhide__ = True
        from dpverify.audit.options import split_options
        from dpverify.samplers.device import has_device_path

        keywords = self.settings(**overrides)
        question, execution = split_options(**keywords)
        if execution.backend != "numpy" and "backend" not in overrides and not has_device_path(mechanism):
            execution = execution.but(backend="numpy", device=None)
        return question, execution

    def __call__(self, mechanism, dataset, neighbour, **overrides: Any):
        __tracebackhide__ = True  # a failure points at the test's call, not at the plugin

        name = overrides.pop("name", self.node.nodeid)
        on_inconclusive = overrides.pop("on_inconclusive", "warn")
        question, execution = self.options(mechanism, **overrides)
        return assert_dp(mechanism, dataset, neighbour, name=name, on_inconclusive=on_inconclusive,
                         question=question, execution=execution)


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

        seed = request.config.getoption("--dp-seed", default=None)
        kwargs = {"seed": DEFAULT_SEED if seed is None else seed, "name": request.node.nodeid,
                  **{k: v for k, v in claim.items() if v is not None}, **overrides}
        return assert_dp_one_run(experiment, m, **kwargs)

    return run


@pytest.fixture
def dp_replay(request: pytest.FixtureRequest):
    """``dp_replay(function, dataset, neighbour, primitives=..., relation=..., **options)``: record the function on
    the dataset, replay it on the neighbour with the same draws, and fail listing the flags with their ``file:line``
    (:func:`dpverify.interfaces.testing.assert_replay_invariant`; the seed is ``--dp-seed`` unless given)."""

    def run(function: Any, dataset: Any, neighbour: Any, **options: Any):
        __tracebackhide__ = True

        seed = request.config.getoption("--dp-seed", default=None)
        kwargs = {"seed": DEFAULT_SEED if seed is None else seed, "name": request.node.nodeid, **options}
        return assert_replay_invariant(function, dataset, neighbour, **kwargs)

    return run


def _row(result: Any, context: dict) -> dict:
    d = result.to_dict() if hasattr(result, "to_dict") else dict(result)
    d["name"] = context.get("name", "")
    d["ratio"] = d["epsilon_lower"] / d["epsilon_claimed"] if d.get("epsilon_claimed") else None
    return d


def session_rows(config: pytest.Config) -> list[dict]:
    """Every audit of the session: this process's, then those the xdist workers sent (in the order they finished)."""
    records: list = config.stash[_RECORDS_KEY] if _RECORDS_KEY in config.stash else []
    workers: list = config.stash[_WORKER_ROWS_KEY] if _WORKER_ROWS_KEY in config.stash else []
    return [_row(r, c) for r, c in records] + list(workers)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On an xdist worker: hand this worker's audits to the controller (as JSON text: execnet carries plain data)."""
    config = session.config
    if _is_worker(config):
        from dpverify.interfaces.files import plain

        rows = [_row(r, c) for r, c in config.stash.get(_RECORDS_KEY, [])]
        config.workeroutput[WORKER_KEY] = json.dumps(plain(rows), allow_nan=True)  # type: ignore[attr-defined]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the xdist controller: collect a finished worker's audits; a worker that died is remembered (its audits may
    be missing, and the summary says so)."""
    config = node.config
    payload = getattr(node, "workeroutput", {}).get(WORKER_KEY)
    if payload is not None:
        config.stash[_WORKER_ROWS_KEY].extend(json.loads(payload))
    if error or payload is None:
        name = getattr(node, "gateway", None)
        config.stash[_LOST_WORKERS_KEY].append(f"{getattr(name, 'id', 'a worker')}"
                                               + (f" ({error})" if error else ""))


def report_settings(config: pytest.Config) -> dict:
    """The session's options as the ``--dp-report`` records them: samples, confidence, seed, mode, workers, scheduler,
    and the ``--dp-backend``/``--dp-device`` asked for ("numpy"/"cpu" when not given; each audit row also says which
    backend it ran on, since a mechanism without a device path stays on numpy)."""
    opt = config.getoption
    out = {key: opt(flag, default=None) for key, flag in (
        ("samples", "--dp-samples"), ("confidence", "--dp-confidence"), ("seed", "--dp-seed"), ("mode", "--dp-mode"),
        ("workers", "--dp-workers"), ("scheduler", "--dp-scheduler"), ("dask_resources", "--dp-resources"))}
    out["backend"] = opt("--dp-backend", default=None) or "numpy"
    out["device"] = opt("--dp-device", default=None) or "cpu"
    out["sequential"] = bool(opt("--dp-sequential", default=False))
    return out


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    if _is_worker(config):
        return  # the controller prints and writes the session's audits
    rows = session_rows(config)
    lost = config.stash.get(_LOST_WORKERS_KEY, [])
    if lost:
        terminalreporter.write_line(f"dpverify: the audits of {', '.join(lost)} are missing (the worker went down "
                                    "before it could send them); the table and report hold the others", red=True)
    if rows:
        _print_audits(terminalreporter, config, rows)
    path = config.getoption("--dp-report")
    if path:
        _write_session_report(terminalreporter, config, path, rows, lost)


def _print_audits(terminalreporter, config: pytest.Config, rows: list[dict]) -> None:
    """The session's audit table, its verdict counts, the audits that need a look, loose claims and the legend.
    ``rows``: the session's report rows (JSON: this process's and those the xdist workers sent), each read as an
    :class:`~dpverify.interfaces.presentation.AuditView` here."""
    from dpverify.interfaces.presentation import (AUDIT_HEADERS, LEGEND, AuditView, accountant_marks, audit_cells,
                                                  loose_claim_notes, samples_text, summary_counts)

    audits = [(str(r.get("name", "")), AuditView.from_dict(r), float(r.get("wall_time") or 0.0)) for r in rows]
    marks = accountant_marks(a for _, a, _ in audits)
    headers = ["audit", *AUDIT_HEADERS, "samples", "time [s]"]
    table = [[name, *audit_cells(a, marks), samples_text(a), f"{seconds:.2f}"] for name, a, seconds in audits]
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(headers)]
    terminalreporter.section("dpverify audits")
    terminalreporter.write_line("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    for t in table:
        terminalreporter.write_line("  ".join(v.ljust(w) for v, w in zip(t, widths)))
    counts = summary_counts(a.verdict for _, a, _ in audits)
    terminalreporter.write_line(f"{len(rows)} audits: {counts['consistent']} consistent, {counts['inconclusive']} "
                                f"inconclusive at their budget, {counts['violation']} violations")
    for name, a, _ in audits:
        if a.verdict != "consistent":
            terminalreporter.write_line(f"  {name} ({a.verdict}): {a.verdict_reason or '-'}")
    for name, a, _ in audits:
        for note in loose_claim_notes(name, a):
            terminalreporter.write_line(f"  loose claim: {note}")
    if marks:
        terminalreporter.write_line("  accountant methods: " + "; ".join(f"[{n}] {m}" for m, n in marks.items()))
    if config.getoption("--dp-explain", default=False):
        for line in LEGEND:
            terminalreporter.write_line(f"  {line}")
    else:
        terminalreporter.write_line("  (--dp-explain: what each column means)")


def _write_session_report(terminalreporter, config: pytest.Config, path: str, rows: list[dict],
                          lost: list[str]) -> None:
    """``--dp-report PATH``: this session's audits, written atomically, also when the session ran none (issue 36: a
    session without audits left the previous session's report in place, and CI archived its stale results)."""
    from dpverify.interfaces.files import write_json_atomic
    from dpverify.interfaces.presentation import summary_counts

    counts = summary_counts(r["verdict"] for r in rows)
    try:
        write_json_atomic(path, {"created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "generator": "dpverify pytest "
                                 "plugin", "settings": report_settings(config), "summary": counts,
                                 "missing_workers": lost, "audits": rows})
    except OSError as exc:  # checked at start-up; this is e.g. a full disk or a path removed meanwhile
        terminalreporter.write_line(f"dpverify: could not write the report to {path}: "
                                    f"{exc.strerror or exc}", red=True)
    else:
        what = "" if rows else " (no audit ran in this session: it records none)"
        terminalreporter.write_line(f"dpverify report written to {path}{what}")
