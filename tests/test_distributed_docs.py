"""docs/distributed.md is in the site's navigation (tests/test_docs.py builds the site in strict mode) and gives the
multi-machine recipe, the bit-identity guarantee and a measured table."""
from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_distributed_page_is_in_the_nav_and_has_the_recipe_and_the_measurements():
    assert "distributed.md" in (REPO / "mkdocs.yml").read_text()
    page = (REPO / "docs" / "distributed.md").read_text()
    for needed in ("dask scheduler", "dask worker tcp://", "--scheduler tcp://", "audit(mechanism, dataset, neighbour",
                   "client=client", "SeedSequence.spawn", "pip install 'dpverify[distributed]'", "1e+09"):
        assert needed in page, needed
    assert "MEASURED-TABLE" not in page


def test_distributed_page_has_the_gpu_worker_recipe():
    """Issue 26: the cluster recipe gains the GPU worker (one Dask worker per GPU, a GPU resource the chunk tasks are
    pinned to, the torch backend on device "cuda"), from Python, the command line and the plugin; and docs/gpu.md
    points at it instead of refusing a client."""
    page = (REPO / "docs" / "distributed.md").read_text()
    for needed in ("## GPU workers", "--resources GPU=1", "CUDA_VISIBLE_DEVICES=0 dask worker", "dask cuda worker",
                   "LocalCUDACluster", 'backend="torch", device="cuda", client=client, resources={"GPU": 1}',
                   "--dask-resources GPU=1", "--dp-resources GPU=1", "bit-identical"):
        assert needed in page, needed
    gpu = (REPO / "docs" / "gpu.md").read_text()
    assert "distributed.md#gpu-workers" in gpu and "--preset gpu" in gpu
    assert "`workers` and a\nDask `client` are refused" not in gpu
