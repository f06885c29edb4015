"""docs/prove.md ("Proofs over whole domains", with "Prove your own bound") runs as written: its python blocks are
executed in order in one namespace, so every assertion in them (the subsampling bound proved and its certificate
accepted by the independent checker, the widened variant refuted at a witness that a float computation confirms,
the catalogue's Lemma 4 proved) holds on the current code."""
from __future__ import annotations

import re
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "prove.md"


def test_the_page_runs_as_written(capsys):
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(blocks) == 3
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(PAGE), "exec"), namespace)  # noqa: S102 - the documentation's own code
    out = capsys.readouterr().out
    assert "proved on epsilon in [0, 1], q in [0, 1]" in out
    assert "certificate valid" in out and "refuted at [" in out
    assert "epsilon_below_one (epsilon < 1) dropped" in out and "needed" in out
    assert namespace["result"].outcome == "proved" and namespace["wrong"].outcome == "refuted"
