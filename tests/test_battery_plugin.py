"""The pytest plugin's defects from issue 36's battery, each a test that failed before its fix.

- A session that runs no audit left the previous session's ``--dp-report`` file in place: a CI job archived the
  stale "consistent" results as this run's. Now every session writes its report (an empty one says so).
- ``--dp-scheduler`` at an address that refuses connections cost Dask's 30 s connect timeout in *every* audit of the
  session: the first failure is remembered and the other audits fail at once, naming it.
"""
from __future__ import annotations

import json
import socket
import time

from test_pytest_plugin import MECHANISMS

AUDIT = MECHANISMS + """
@pytest.mark.dp_audit(epsilon=0.5, delta=0.0)
def test_correct(dp_auditor):
    dp_auditor(laplace(2.0), D, D2)
"""


def test_a_session_without_audits_replaces_the_previous_report(pytester):
    report = pytester.path / "dp.json"
    pytester.makepyfile(test_audit=AUDIT)
    pytester.runpytest_subprocess("--dp-samples", "2000", "--dp-report", str(report)).assert_outcomes(passed=1)
    first = json.loads(report.read_text())
    assert len(first["audits"]) == 1
    (pytester.path / "test_audit.py").unlink()
    pytester.makepyfile(test_plain="def test_plain():\n    assert True\n")
    result = pytester.runpytest_subprocess("--dp-report", str(report))
    result.assert_outcomes(passed=1)
    second = json.loads(report.read_text())
    assert second["audits"] == [] and second["summary"]["consistent"] == 0
    assert any("no audit ran in this session" in line for line in result.outlines)


def _refused_address() -> str:
    """A local TCP port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"tcp://127.0.0.1:{port}"


def test_an_unreachable_scheduler_is_tried_once_per_session(pytester):
    pytester.makepyfile(MECHANISMS + "".join(f"""
@pytest.mark.dp_audit(epsilon=0.5, delta=0.0)
def test_audit_{i}(dp_auditor):
    dp_auditor(laplace(2.0), D, D2)
""" for i in range(3)))
    start = time.perf_counter()
    result = pytester.runpytest_subprocess("--dp-samples", "2000", "--dp-scheduler", _refused_address())
    seconds = time.perf_counter() - start
    result.assert_outcomes(failed=3)
    assert sum("none is tried again" in line for line in result.outlines) >= 3
    # a refused port is answered at once (dpverify.audit.distributed probes it before Dask's 30 s retry loop), and
    # the other audits do not try again: the whole session takes seconds, not 3 x 30 s
    assert seconds < 25, seconds
