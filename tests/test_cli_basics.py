"""`dpverify --version`, `--help` and the theorems subcommand's error handling."""
import subprocess
import sys

import pytest

from dpverify import __version__
from dpverify.interfaces.cli import main


def test_version_and_help_from_the_console_script():
    out = subprocess.run([sys.executable, "-m", "dpverify", "--version"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == f"dpverify {__version__}"
    out = subprocess.run([sys.executable, "-m", "dpverify", "--help"], capture_output=True, text=True, check=True)
    assert "theorems" in out.stdout and "usage: dpverify" in out.stdout


def test_no_command_prints_help(capsys):
    assert main([]) == 0
    assert "usage: dpverify" in capsys.readouterr().out


def test_unknown_theorem_is_a_clear_error(capsys):
    assert main(["theorems", "show", "nope.nothing"]) == 2
    assert "no theorem with ID 'nope.nothing'" in capsys.readouterr().err


def test_eval_rejects_malformed_values(capsys):
    assert main(["theorems", "eval"]) == 2  # argparse's usage error, returned rather than raised
