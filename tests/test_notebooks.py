"""The notebooks of docs/notebooks/ run without errors and are committed without outputs.

Each notebook is executed with nbclient on the ``python3`` kernel of the current environment, with a time limit
per cell and in total (each must run in about a minute on a loaded two-core machine; see docs/notebooks.md).
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.docs  # the docs extra's slow part (pyproject.toml's markers)

nbformat = pytest.importorskip("nbformat", reason="the docs extra (pip install -e '.[docs]') runs the notebooks")
nbclient = pytest.importorskip("nbclient")

NOTEBOOK_DIR = Path(__file__).resolve().parents[1] / "docs" / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
#: Seconds per notebook (the target is ~60 s on a loaded 2-core machine; the limit leaves room for load spikes).
TIME_LIMIT = 150


def test_the_notebooks_exist():
    names = [p.name for p in NOTEBOOKS]
    assert len(names) == 10, names  # 01-06, 07_final_state_privacy, 08_one_run_audits, 09_prove, 10_private_samplers_utility
    for key in ("ops", "sgld", "laplace", "girsanov", "audit", "auditing_dp_sgld", "final_state", "one_run", "prove",
                "private_samplers_utility"):
        assert any(key in n for n in names), (key, names)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{path.name}: clear the outputs before committing"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, tmp_path):
    from jupyter_client.kernelspec import NATIVE_KERNEL_NAME

    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb, timeout=TIME_LIMIT, kernel_name=NATIVE_KERNEL_NAME,  # "python3": ipykernel of this interpreter
        resources={"metadata": {"path": str(tmp_path)}}, allow_errors=False,
    )
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError naming the failing cell
    seconds = time.perf_counter() - start
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert seconds < TIME_LIMIT, f"{path.name} took {seconds:.0f} s"
    sys.stderr.write(f"{path.name}: {seconds:.1f} s\n")
