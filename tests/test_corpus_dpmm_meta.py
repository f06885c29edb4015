"""The dpmm corpus cases' metadata (no dpmm needed: the default run).

The checks run on the installed dpmm in ``tests/test_corpus_dpmm.py`` (marker ``dpmm``); here: each case cites its
tracker, its versions are consistent (every dpmm on PyPI, 0.1.1 to 0.1.9, is affected: the fix of #18, PR #19, was
merged after 0.1.9 and never released; #24 is open), and the module imports without dpmm.
"""
from __future__ import annotations

import subprocess
import sys

import pytest

from dpverify.libraries.corpus import CASES, find
from dpverify.libraries.corpus.dpmm_bugs import CASES as DPMM

IDS = ("dpmm#18", "dpmm#24")
#: every dpmm release on PyPI when the cases were written
PYPI = ("0.1.1", "0.1.2", "0.1.3", "0.1.4", "0.1.5", "0.1.6", "0.1.7", "0.1.8", "0.1.9")


def test_the_cases_are_in_the_corpus() -> None:
    assert tuple(c.id for c in DPMM) == IDS
    assert all(find(i) in CASES for i in IDS)


@pytest.mark.parametrize("case_id", IDS)
def test_versions_are_consistent(case_id: str) -> None:
    case = find(case_id)
    assert case.kind == "library" and case.method == "replay" and case.isolation == "venv"
    assert case.refs[0] == "https://github.com/sassoftware/dpmm/issues/" + case_id.split("#")[1]
    assert all(r.startswith("https://github.com/sassoftware/dpmm/") for r in case.refs)
    assert case.fixed_in is None
    assert all(case.expected(v) == "bad" for v in PYPI)
    assert set(case.releases) <= set(PYPI) and 1 <= len(case.releases) <= 3
    assert case.datasets.startswith("replace-one")


def test_issue_18_cites_the_fix() -> None:
    assert "https://github.com/sassoftware/dpmm/pull/19" in find("dpmm#18").refs
    assert "unreleased" in find("dpmm#18").upstream_status


def test_the_module_imports_without_dpmm() -> None:
    """The corpus is imported where dpmm is missing: the checks import it inside themselves. (pandas is not in the
    list: scikit-learn, a dependency of dpverify, imports it where it is installed.)"""
    code = ("import sys; import dpverify.libraries.corpus.dpmm_bugs; "
            "print(any(m.split('.')[0] in ('dpmm', 'opendp') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
