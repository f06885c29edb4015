#!/usr/bin/env bash
# The measurements issues 22 and 26 still need, prepared for a machine with one GPU and 16 cores (the workplace's device
# machines): each stage runs well under 10 minutes there. From the repository root, with numpy, scipy, sympy, mpmath,
# statsmodels, scikit-learn and dask importable (PYTHONPATH=. is enough for dpverify itself) and torch's CUDA build:
#
#   bash benchmarks/device_checks.sh gpu     # issue 26: the one-number suite's torch tests on cuda, then its 11 cases
#                                            # at 10^9 outputs per side (target: each audit under 60 s)
#   bash benchmarks/device_checks.sh cores   # issue 22: scaling of pool and Dask audits on every core, Laplace at 10^9
#                                            # (target: efficiency >= 0.8) and dp_sgld_path at 10^6 (13 estimation
#                                            # chunks for 16 workers: expected well below 0.8; benchmarks/README.md)
#
# Each stage prints its tables; write them, with the machine's name, into docs/gpu.md and benchmarks/README.md.
#
# The workplace's device image has torch (CUDA), numpy, scipy, sympy, mpmath, statsmodels, scikit-learn, threadpoolctl
# and cloudpickle, but not Dask. The `cores` stage's Dask row needs its wheels in .whl/ (ignored by git; carried with
# the run), fetched here once for the device's Python 3.12:
#
#   echo /.whl/ >> .git/info/exclude
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#     --platform manylinux_2_28_x86_64 --platform manylinux2014_x86_64 --platform manylinux1_x86_64 --platform any \
#     -d .whl dask==2026.8.0 distributed==2026.8.0 partd==1.4.2 locket==1.0.0 tornado==6.6.1 zict==3.0.0 tblib==3.2.2
#
# (3 MB; the image holds the rest of their requirements). Without .whl/ the Dask row is left out.
set -euo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="${PYTHONPATH:-.}"
dask_mode=""
if [ -d .whl ] && ls .whl/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH="$PYTHONPATH:/tmp/site"
fi
if python3 -c "import dask.distributed" 2> /dev/null; then dask_mode="dask"; fi
stage="${1:?usage: bash benchmarks/device_checks.sh gpu|cores}"
cores="$(nproc)"
case "$stage" in
  gpu)
    nvidia-smi --query-gpu=name,memory.total --format=csv
    DPVERIFY_TORCH_TEST_DEVICE=cuda python3 -m pytest -q -p no:cacheprovider -m torch tests/test_standard_suite_torch.py
    python3 benchmarks/suite.py --preset gpu1d --markdown
    ;;
  cores)
    echo "$cores cores"
    python3 benchmarks/parallel_cost.py --cases laplace_1 --samples 1e9 --workers "$cores" --modes one pool $dask_mode indep
    python3 benchmarks/parallel_cost.py --cases dp_sgld_path --samples 1e6 --workers "$cores" --modes one pool indep
    ;;
  *)
    echo "unknown stage $stage: gpu or cores" >&2
    exit 2
    ;;
esac
