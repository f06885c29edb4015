"""A battery of user inputs against the command line (an independent review): each one answered at once, on one line,
with the right exit status -- never a hang, never a traceback, never a misleading message.

One test per class:

- hangs: ``--scheduler`` at a port where a server that is not a Dask scheduler listens (silent, or answering
  garbage) -> exit 2 naming --scheduler within seconds; ``audit dp_sgld_li --param T=1000000`` -> a progress line
  naming what is slow within seconds, and the description of a long run without one object per step;
- usage errors: ``one-run --guesses 0 0``, ``--scheduler 'not a url'``, ``verify --only ''`` -> exit 2, the option
  named on the last line, no internal error; ``--workers 1000`` -> reduced to ``os.cpu_count()`` with a warning;
- help under ``LC_ALL=C`` on an ASCII stdout (no UTF-8 mode): every command's ``--help`` prints, exit 0;
- a dangling ``--report`` symlink -> says so and where it points;
- stdout on a full disk (``/dev/full``) -> "cannot write to stdout: No space left on device", exit 1;
- progress on a stderr that is not a terminal (a CI log) -> a few lines, not one per item;
- figures under an unwritable ``HOME`` -> no matplotlib warning.
"""
from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from dpverify.interfaces.cli import main

REPO = Path(__file__).resolve().parents[1]


def run_cli(*argv: str, env: dict | None = None, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """``python -m dpverify ARGV`` in a fresh process (the way a user runs it), killed after ``timeout`` seconds."""
    return subprocess.run([sys.executable, "-m", "dpverify", *argv], capture_output=True, text=True, cwd=REPO,
                          env={**os.environ, **(env or {})}, timeout=timeout, **kwargs)


def last_error_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else ""


# -- hangs --------------------------------------------------------------------------------------------------------

class NotAScheduler:
    """A TCP server on a free local port that accepts every connection and then says nothing (``garbage=False``) or
    sends an HTTP answer (``garbage=True``), as a web server or a database would on a mistyped port."""

    def __init__(self, garbage: bool) -> None:
        self.garbage = garbage
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.conns: list[socket.socket] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except (socket.timeout, OSError):
                continue
            self.conns.append(conn)
            if self.garbage:
                try:
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\n\r\nbad request" * 4)
                except OSError:
                    pass

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        for c in self.conns:
            c.close()
        self.sock.close()


@pytest.mark.parametrize("command, garbage", [("audit", False), ("verify", True)],
                         ids=["audit-silent-server", "verify-garbage-server"])
def test_a_scheduler_address_that_is_not_a_scheduler_is_an_error_in_seconds_not_a_hang(command, garbage):
    server = NotAScheduler(garbage)
    argv = ["audit", "laplace_mechanism"] if command == "audit" else ["verify", "--only", "laplace_mechanism"]
    try:
        start = time.perf_counter()
        try:
            proc = run_cli(*argv, "--scheduler", f"127.0.0.1:{server.port}", timeout=40,
                           env={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"})
        except subprocess.TimeoutExpired:
            pytest.fail(f"dpverify {command} --scheduler <not a scheduler> hung")
        seconds = time.perf_counter() - start
    finally:
        server.close()
    line = last_error_line(proc.stderr)
    assert proc.returncode == 2, proc.stderr
    assert line.startswith("dpverify: error: --scheduler") and "not a Dask scheduler" in line, proc.stderr
    assert "Traceback" not in proc.stderr
    assert seconds < 30  # the 2 s handshake limit and the start of Python, not Dask's 30 s or for ever


def test_a_long_run_says_at_once_what_it_is_computing():
    """``audit dp_sgld_li --param T=1000000``: the claim (the exact accountant of the final iterate of 10^6 steps)
    takes minutes; a line on stderr within seconds says what runs and where, instead of silence."""
    proc = subprocess.Popen([sys.executable, "-m", "dpverify", "audit", "dp_sgld_li", "--param", "T=1000000"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=REPO)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True)
    reader.start()
    try:
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline and not any("running for" in line for line in lines):
            time.sleep(0.1)
    finally:
        proc.kill()
        proc.wait(timeout=10)
        reader.join(timeout=5)
    said = "".join(lines)
    assert "the claim of case dp_sgld_li with --param T=1000000" in said, said
    assert "privacy accountant" in said and "now in dpverify." in said, said


def test_describing_a_long_run_builds_no_object_per_step(monkeypatch):
    """The description of a run of 2 x 10^5 equal steps is run-length encoded from the arrays: a handful of
    GaussianStep objects, not one per step (10^6 steps took seconds per description before)."""
    from dpverify.calculus import mechanism_description as md
    from dpverify.interfaces.cli.audit import declared_parameters, parse_params
    from dpverify.interfaces.suite import get_case

    made = []
    original = md.GaussianStep.__post_init__
    monkeypatch.setattr(md.GaussianStep, "__post_init__", lambda self: (made.append(1), original(self))[1])
    case = get_case("dp_sgld_li")
    sampler = case.build(**parse_params(["T=200000"], declared_parameters(case.sampler)))
    mech = sampler.mechanism()
    assert mech.n_releases == 200000 and len(made) < 10
    assert mech.dynamics is not None and len(mech.dynamics.blocks) < 10


# -- usage errors ---------------------------------------------------------------------------------------------------

USAGE_ERRORS = [
    (["one-run", "gaussian_canaries", "--guesses", "0", "0"], "--guesses"),
    (["one-run", "gaussian_canaries", "--canaries", "10", "--guesses", "6", "5"], "--guesses"),
    (["audit", "laplace_mechanism", "--scheduler", "not a url"], "--scheduler"),
    (["audit", "laplace_mechanism", "--scheduler", "tcp://127.0.0.1"], "--scheduler"),
    (["verify", "--only", "laplace_mechanism", "--scheduler", "http://127.0.0.1:8786"], "--scheduler"),
    (["verify", "--only", ""], "--only"),
    (["verify", "--only", "   "], "--only"),
    (["verify", "--only", ",,"], "--only"),
]


USAGE_IDS = ["guesses-0-0", "guesses-above-canaries", "scheduler-not-a-url", "scheduler-no-port",
             "scheduler-unknown-scheme", "only-empty", "only-blank", "only-commas"]


@pytest.mark.parametrize("argv, option", USAGE_ERRORS, ids=USAGE_IDS)
def test_bad_input_is_a_usage_error_naming_the_option(capsys, monkeypatch, argv, option):
    import dpverify.interfaces.cli.verify as verify_cli

    def no_work(*args, **kwargs):  # bad input must be refused before any theorem or audit is selected
        raise AssertionError("the run started")

    monkeypatch.setattr(verify_cli, "select", no_work)
    status = main(argv)
    err = capsys.readouterr().err
    line = last_error_line(err)
    assert status == 2, err
    assert option in line and "error" in line, err
    assert "internal error" not in err and "Traceback" not in err


@pytest.mark.parametrize("argv", [["audit", "laplace_mechanism", "--scheduler", "local"],
                                  ["verify", "--only", "laplace_mechanism", "--scheduler", "local"],
                                  ["verify", "--only", "laplace_mechanism", "--no-theorems"]],
                         ids=["audit-local-cluster", "verify-local-cluster", "verify-processes"])
def test_more_workers_than_cpus_are_reduced_to_the_cpus_with_a_warning(capsys, monkeypatch, argv):
    import dpverify.audit.distributed as distributed
    import dpverify.interfaces.cli.verify as verify_cli
    from dpverify.validation import UsageError

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    started = []

    def record(n_workers=2, *args, **kwargs):  # instead of starting the processes
        started.append(n_workers)
        raise UsageError("stopped by the test")

    monkeypatch.setattr(distributed, "local_cluster", record)
    monkeypatch.setattr(verify_cli, "_run_audits", lambda cases, budget, seed, workers, *a, **k: record(workers))
    assert main([*argv, "--workers", "1000"]) == 2
    err = capsys.readouterr().err
    assert started == [2], err
    assert "--workers 1000 is more than the 2 CPUs" in err and "os.cpu_count()" in err


# -- help on an ASCII terminal --------------------------------------------------------------------------------------

HELP_COMMANDS = [[], ["verify"], ["theorems"], ["theorems", "list"], ["theorems", "show"], ["theorems", "check"],
                 ["theorems", "eval"], ["prove"], ["samplers"], ["samplers", "list"], ["samplers", "show"], ["audit"],
                 ["account"], ["account", "sgm"], ["audit-library"], ["one-run"]]

HELP_SCRIPT = """
import sys
from dpverify.interfaces.cli import main
failed = []
for argv in COMMANDS:
    status = main([*argv, "--help"])
    if status != 0:
        failed.append((argv, status))
print("FAILED", failed, file=sys.stderr)
"""


def test_every_help_prints_on_an_ascii_stdout():
    """``env LC_ALL=C LANG=C PYTHONIOENCODING= dpverify CMD --help`` with Python's UTF-8 mode and locale coercion off
    (an ASCII stdout, as on systems without a C.UTF-8 locale): every help prints, exit 0 (one process for all)."""
    env = {"LC_ALL": "C", "LANG": "C", "PYTHONIOENCODING": "", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    proc = subprocess.run([sys.executable, "-c", HELP_SCRIPT.replace("COMMANDS", repr(HELP_COMMANDS))],
                          capture_output=True, cwd=REPO, env={**os.environ, **env}, timeout=60)
    err = proc.stderr.decode("ascii", "replace")
    assert proc.returncode == 0 and "FAILED []" in err, err
    assert proc.stdout.count(b"usage: dpverify") == len(HELP_COMMANDS)
    proc.stdout.decode("ascii")  # what could not be encoded is escaped, never a UnicodeEncodeError


# -- files ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("below", [False, True], ids=["the-link", "below-the-link"])
def test_a_dangling_report_link_is_named_as_one(tmp_path, capsys, below):
    link = tmp_path / "report"
    link.symlink_to(tmp_path / "gone" / "reports")
    target = link / "sub" if below else link
    assert main(["verify", "--only", "laplace_mechanism", "--no-theorems", "--report", str(target)]) == 2
    line = last_error_line(capsys.readouterr().err)
    assert line.startswith("dpverify: error: --report") and "dangling symbolic link" in line, line
    assert str(tmp_path / "gone" / "reports") in line and "not a directory" not in line


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["theorems", "list"], ["--help"]], ids=["theorems-list", "help"])
def test_a_full_disk_on_stdout_is_named(argv):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "dpverify", *argv], stdout=full, stderr=subprocess.PIPE, text=True,
                              cwd=REPO, timeout=60)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip() == "dpverify: error: cannot write to stdout: No space left on device", proc.stderr


# -- progress in a log ------------------------------------------------------------------------------------------------

class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("tty", [False, True], ids=["log", "terminal"])
def test_progress_in_a_log_is_a_few_lines(tty):
    from dpverify.interfaces.cli.progress import Progress

    stream = Terminal() if tty else io.StringIO()
    with Progress(135, "audits", stream=stream) as progress:
        for i in range(135):
            progress.advance(f"case_{i}", "consistent")
    text = stream.getvalue()
    if tty:  # the bar is redrawn for every item, as before
        assert text.count("\r") == 135 and text.endswith("\n")
    else:
        lines = text.splitlines()
        assert 2 <= len(lines) <= 12, text
        assert lines[0].startswith("audits 1/135 case_0") and lines[-1].startswith("audits 135/135 case_134")
        assert progress.every >= 30  # the heartbeat too: at most one line every 30 s


# -- figures ----------------------------------------------------------------------------------------------------------

def test_figures_under_an_unwritable_home_print_no_matplotlib_warning(tmp_path):
    home = tmp_path / "home"
    home.write_text("a file, so that nothing can be created below it (also for root)")
    env = {k: v for k, v in os.environ.items() if k not in ("MPLCONFIGDIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    env["HOME"] = str(home)
    script = ("from dpverify.interfaces.report_figures import tradeoff_figure, png\n"
              "import matplotlib\n"
              "print(matplotlib.get_cachedir())\n")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, env=env, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Matplotlib" not in proc.stderr and "mkdir -p failed" not in proc.stderr, proc.stderr
    assert not os.path.exists(proc.stdout.strip())  # the temporary directory is removed at exit
