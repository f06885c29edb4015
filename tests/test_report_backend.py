"""Every audit row records the array backend and device its numbers were drawn on (issue 26): the ``AuditResult``,
the suite's ``CaseResult`` (error rows too), ``report.json`` and ``report.html`` of ``dpverify verify``, the JSON of
``dpverify audit --json`` and the pytest plugin's ``--dp-report``; the run settings record the ``--backend``/
``--device`` asked for. A run is reproducible per backend and device only (docs/gpu.md), so a torch audit reported as
numpy would send a reader to reproduce the wrong numbers: the torch tests below fail then.

The torch tests (marker ``torch``) run a small DP-SGLD path audit (the suite's ``dp_sgld_path`` case, 2000 samples
per side) on torch-CPU; the others need no torch.
"""
from __future__ import annotations

import json
import re

import pytest

from dpverify.interfaces.report import render_report
from dpverify.interfaces.suite import CaseResult, run_case
from dpverify.libraries.runner import LibraryResult

#: A small budget: the numbers are not the point, where they were drawn is.
SAMPLES = 2000


def _rendered(rows: list, settings: dict | None = None) -> tuple[dict, str]:
    files = render_report([], rows, settings, run_id="run-backend", paper_figures=False)
    return json.loads(files["report.json"]), files["report.html"].decode()


def test_numpy_audit_rows_say_numpy_on_cpu():
    """The default backend is recorded, not left implicit: the result, the case row, its audit entry, report.json
    and the HTML details all say numpy on cpu."""
    res = run_case("laplace_mechanism", budget=SAMPLES, seed=0)
    assert res.error is None
    assert (res.audit.backend, res.audit.device) == ("numpy", "cpu")
    row = res.to_dict()
    assert (row["backend"], row["device"]) == ("numpy", "cpu")
    assert (row["audit"]["backend"], row["audit"]["device"]) == ("numpy", "cpu")
    data, html = _rendered([res], {"backend": "numpy", "device": "cpu"})
    (entry,) = data["audits"]
    assert (entry["backend"], entry["device"], entry["audit"]["backend"]) == ("numpy", "cpu", "numpy")
    assert "<dt>backend</dt><dd>numpy on cpu</dd>" in html
    assert "<dt>backend</dt><dd>numpy</dd>" in html and "<dt>device</dt><dd>cpu</dd>" in html  # the run settings


def test_error_rows_keep_the_backend_they_were_asked_to_run_on_and_library_rows_are_numpy():
    """An error row has no audit entry; the backend it ran on is still in the row and the HTML. A row that records
    no backend at all (a library audit of ``dpverify audit-library``, numpy only) is given numpy on cpu."""
    failed = CaseResult("dp_sgld_path", "dp_sgld_li", {}, "a pair", {}, None, 0.1, error="RuntimeError: boom",
                        backend="torch", device="cuda:1")
    library = LibraryResult("lib.f", "lib", "1.0", "f", "replace_one", verdict="consistent")
    data, html = _rendered([failed, library])
    assert [(r["backend"], r["device"]) for r in data["audits"]] == [("torch", "cuda:1"), ("numpy", "cpu")]
    assert "<dt>backend</dt><dd>torch on cuda:1</dd>" in html


def test_a_case_without_a_device_path_is_reported_on_numpy_even_when_torch_was_asked():
    """``run_case(backend="torch")`` runs a mechanism that is not a gradient sampler on numpy (it has no device
    path): its row must say numpy, not the torch (on a CUDA device) that was asked for. No torch needed: the
    fallback happens before any torch backend is built."""
    res = run_case("laplace_mechanism", budget=SAMPLES, seed=0, backend="torch", device="cuda")
    assert res.error is None
    assert (res.audit.backend, res.audit.device) == ("numpy", "cpu")
    assert (res.to_dict()["backend"], res.to_dict()["device"]) == ("numpy", "cpu")


def test_verify_records_the_backend_asked_for_in_its_settings_and_passes_it_to_each_case(monkeypatch, tmp_path):
    """``dpverify verify --backend torch --device cpu --report DIR``: the settings of report.json (and the HTML's
    run details) record torch/cpu, and every case is run with them (a stub case here: the real torch audit is the
    torch test below)."""
    import dpverify.interfaces.suite as suite
    from dpverify.interfaces.cli import main

    seen = []

    def stub(case, options, execution):  # run_case's option objects: the backend travels in the Execution
        seen.append((case, execution.backend, execution.device))
        return CaseResult(case, case, {}, "", {}, None, 0.0, error="stub", backend=execution.backend,
                          device=execution.device or "cpu")

    monkeypatch.setattr(suite, "run_case", stub)
    monkeypatch.setattr("dpverify.interfaces.cli.arguments.check_backend_arguments", lambda args: None)  # no torch
    out = tmp_path / "run"
    assert main(["verify", "--only", "dp_sgld_path", "--no-theorems", "--backend", "torch", "--device", "cpu",
                 "--report", str(out)]) == 1  # the stub is an error row
    assert seen == [("dp_sgld_path", "torch", "cpu")]
    data = json.loads((out / "report.json").read_text())
    assert (data["settings"]["backend"], data["settings"]["device"]) == ("torch", "cpu")
    assert [(r["backend"], r["device"]) for r in data["audits"]] == [("torch", "cpu")]
    html = (out / "report.html").read_text()
    assert "<dt>backend</dt><dd>torch</dd>" in html and "<dt>backend</dt><dd>torch on cpu</dd>" in html


# -- torch ------------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def one_torch_thread():
    import torch

    torch.set_num_threads(1)  # 2 threads on a loaded 2-core machine spin: 10x slower (tests/test_backends_torch.py)


@pytest.mark.torch
def test_a_torch_audit_is_reported_as_torch_everywhere(one_torch_thread):
    """The DP-SGLD path audit on torch-CPU: the result, the case row and its audit entry, report.json and the HTML
    details all say torch on cpu, and nothing in the row says numpy."""
    res = run_case("dp_sgld_path", budget=SAMPLES, seed=0, backend="torch", device="cpu")
    assert res.error is None, res.error
    assert (res.audit.backend, res.audit.device) == ("torch", "cpu")
    data, html = _rendered([res], {"backend": "torch", "device": "cpu"})
    (row,) = data["audits"]
    assert (row["backend"], row["device"]) == ("torch", "cpu")
    assert (row["audit"]["backend"], row["audit"]["device"]) == ("torch", "cpu")
    assert "<dt>backend</dt><dd>torch on cpu</dd>" in html and "numpy on cpu" not in html


@pytest.mark.torch
def test_cli_audit_json_and_text_say_torch(one_torch_thread, capsys):
    """``dpverify audit dp_sgld_path --backend torch --device cpu``: the JSON result and the text summary say where
    the samples were drawn."""
    from dpverify.interfaces.cli import main

    argv = ["audit", "dp_sgld_path", "--backend", "torch", "--device", "cpu", "--samples", str(SAMPLES)]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["backend"], out["device"]) == ("torch", "cpu")
    assert main(argv) == 0
    assert "backend torch on cpu" in capsys.readouterr().out


@pytest.mark.torch
def test_plugin_report_records_settings_and_each_rows_backend(pytester):
    """``pytest --dp-backend torch --dp-device cpu --dp-report PATH``: the report's settings say torch/cpu; the
    gradient sampler's row says torch, the Laplace mechanism's (no device path, kept on numpy) says numpy."""
    pytester.makepyfile("""
import numpy as np
import pytest
import torch

from dpverify.interfaces.suite import get_case

torch.set_num_threads(1)


@pytest.mark.dp_audit(epsilon=10.0, delta=1e-3)
def test_sgld(dp_auditor):
    case = get_case("dp_sgld_path")
    dp_auditor(case.build(), case.dataset(), case.neighbour(), test="likelihood_ratio")


@pytest.mark.dp_audit(epsilon=10.0, delta=0.0)
def test_laplace(dp_auditor):
    def laplace(data, n, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 1.0, size=n)
    dp_auditor(laplace, np.array([0.0, 1.0]), np.array([0.0, 0.0]))
""")
    report = pytester.path / "dp.json"
    result = pytester.runpytest_subprocess("--dp-backend", "torch", "--dp-device", "cpu", "--dp-samples",
                                           str(SAMPLES), "--dp-report", str(report))
    result.assert_outcomes(passed=2)
    data = json.loads(report.read_text())
    assert (data["settings"]["backend"], data["settings"]["device"]) == ("torch", "cpu")
    where = {r["name"].rsplit("::", 1)[-1]: (r["backend"], r["device"]) for r in data["audits"]}
    assert where == {"test_sgld": ("torch", "cpu"), "test_laplace": ("numpy", "cpu")}


def test_an_accountant_row_shows_dpverifys_bracket_where_an_audit_shows_its_pair():
    """An accountant query (dpverify.libraries.accountants) is not sampled: it has no worst pair, and its row's
    ``pair`` is dpverify's rigorous bracket; the HTML table shows it (it showed "-")."""
    row = LibraryResult("dp-accounting.rdp", "dp-accounting", "0.6.0", "rdp", "replace_one", verdict="consistent",
                        label="loose", certified=4.3, pair="dpverify [4.37, 4.38]",
                        options={"reference": "closed form (rtol 1e-13)"})
    _, html = _rendered([row])
    cell = re.search(r"<td data-label='worst pair'>(.*?)</td>", html).group(1)
    assert "dpverify [4.37, 4.38]" in cell and "closed form (rtol 1e-13)" in cell
