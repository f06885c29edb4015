"""docs/libraries.md, "Record and replay in your library's CI", runs as written: its small DP library (the first
python block) and its tests (the second) are written to files and imported as the modules ``mylib`` and
``test_mylib``; ``test_mean`` passes, ``test_histogram`` fails with the flags the page quotes (same kinds, sites and
replayed differences), and the page's fix (the third block) makes it pass."""
from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

from dpverify.interfaces.testing import assert_replay_invariant

PAGE = Path(__file__).resolve().parents[1] / "docs" / "libraries.md"
HEADING = "## Record and replay in your library's CI"


def section() -> str:
    text = PAGE.read_text()
    assert text.count(HEADING) == 1
    return text.split(HEADING, 1)[1].split("\n## ", 1)[0]


@pytest.fixture
def modules(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", section(), flags=re.S)
    assert len(blocks) == 3
    (tmp_path / "mylib.py").write_text(blocks[0])
    (tmp_path / "test_mylib.py").write_text(blocks[1])
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("mylib", "test_mylib"):
        sys.modules.pop(name, None)
    yield importlib.import_module("mylib"), importlib.import_module("test_mylib"), blocks[2]
    for name in ("mylib", "test_mylib"):
        sys.modules.pop(name, None)


def test_the_section_runs_as_written(modules):
    mylib, tests, fix = modules
    tests.test_mean(dp_replay=lambda *a, **k: assert_replay_invariant(*a, **k))
    with pytest.raises(AssertionError) as caught:
        tests.test_histogram()
    message = str(caught.value)
    quoted = re.search(r"```text\n(.*?)```", section(), flags=re.S).group(1).strip().splitlines()
    assert quoted[0] == f"AssertionError: {message.splitlines()[0]}"
    got = message.splitlines()[1:]
    assert len(got) == len(quoted) - 1
    for page_line, line in zip(quoted[1:], got):
        assert line.startswith(page_line.removesuffix("...")), (page_line, line)
    exec(compile(fix, str(PAGE), "exec"), mylib.__dict__)  # noqa: S102 - the page's own fix, into the library
    assert tests.test_histogram() is None
