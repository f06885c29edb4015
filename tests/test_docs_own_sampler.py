"""docs/own-sampler.md ("Audit your own DP-SGLD") runs as written: its python blocks are executed in order in one
namespace, so every assertion in them (a correct user DP-SGLD is not a violation; the same code with a broadcast-noise
bug is missed by the declared statistic alone and flagged by the default audit) holds on the current code."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.docs  # the docs extra's slow part (pyproject.toml's markers)

PAGE = Path(__file__).resolve().parents[1] / "docs" / "own-sampler.md"


def test_the_page_runs_as_written(capsys):
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)
    assert len(blocks) == 5
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(PAGE), "exec"), namespace)  # noqa: S102 - the documentation's own code
    out = capsys.readouterr().out
    assert "path of 20 x Gaussian(mu=0.6663, Poisson rate 0.1) [add_remove]" in out
    assert namespace["result"].verdict != "violation"
    assert namespace["found"].verdict == "violation" and namespace["alone"].verdict != "violation"
