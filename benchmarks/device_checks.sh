#!/usr/bin/env bash
# The measurements issues 22 and 26 still need, prepared for a machine with one GPU and 16 cores (the workplace's device
# machines). Both stages fit one session's 15 minutes of device time with one machine start (about 1-2 minutes), as
# two calls of the device tool: `gpu` about 4-5 minutes (estimate: the 35 torch tests, then 11 audits of 10^9 outputs
# per side, each expected well under 60 s), `cores` about 4 minutes (one process did 10^8 Laplace outputs per side in
# 13.7 s on those cores, so about 140 s at 10^9; dp_sgld_path at 4 x 10^5 took 43 s on this project's 2-core machine).
# Every line is also written to $OUT/device_<stage>.txt when $OUT is set (the device tool's folder that comes back),
# so a stage stopped at its limit still returns what it printed. From the repository root, with numpy, scipy, sympy,
# mpmath, statsmodels, scikit-learn and dask importable (PYTHONPATH=. is enough for dpverify itself) and torch's CUDA
# build:
#
#   bash benchmarks/device_checks.sh gpu     # issue 26: the one-number suite's torch tests on cuda, then its 11 cases
#                                            # at 10^9 outputs per side (target: each audit under 60 s)
#   bash benchmarks/device_checks.sh cores   # issue 22: scaling of pool and Dask audits on every core, Laplace at 10^9
#                                            # (target: efficiency >= 0.8) and dp_sgld_path at 4 x 10^5 (5
#                                            # estimation chunks: expected well below 0.8; benchmarks/README.md)
#   bash benchmarks/device_checks.sh suite   # third, if device time is left: the vector, sparse-vector, RAPPOR and
#                                            # boosting torch tests on cuda, then every case of the suite at 10^8 per side
#                                            # (28 audits; estimate 3-6 minutes, not measured), then peak device memory
#                                            # against the chunk budget at chunks 2^22-2^24 (chunk_budget.py)
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
stage="${1:?usage: bash benchmarks/device_checks.sh gpu|cores|suite}"
cores="$(nproc)"
export PYTHONUNBUFFERED=1
if [ -n "${OUT:-}" ]; then exec > >(tee "$OUT/device_$stage.txt") 2>&1; fi
case "$stage" in
  gpu)
    nvidia-smi --query-gpu=name,memory.total --format=csv
    DPVERIFY_TORCH_TEST_DEVICE=cuda python3 -m pytest -q -p no:cacheprovider -m torch tests/test_standard_suite_torch.py \
      || echo "device_checks: the torch tests on cuda FAILED (the benchmark below still runs)"
    python3 benchmarks/suite.py --preset gpu1d --markdown
    ;;
  cores)
    echo "$cores cores"
    python3 benchmarks/parallel_cost.py --cases laplace_1 --samples 1e9 --workers "$cores" --modes one pool $dask_mode indep
    python3 benchmarks/parallel_cost.py --cases dp_sgld_path --samples 4e5 --workers "$cores" --modes one pool indep
    ;;
  suite)
    nvidia-smi --query-gpu=name,memory.total --format=csv
    DPVERIFY_TORCH_TEST_DEVICE=cuda python3 -m pytest -q -p no:cacheprovider -m torch \
      tests/test_standard_suite_torch_vectors.py tests/test_boosting_torch.py \
      || echo "device_checks: the torch tests on cuda FAILED (the benchmark below still runs)"
    python3 benchmarks/suite.py --preset gpusuite --markdown
    # peak device memory against the chunk's budget at the device's chunk sizes (about 1.5 minutes: 9 fresh processes)
    python3 benchmarks/chunk_budget.py --device cuda --cases laplace_1 report_noisy_max3 exponential \
      --chunks 22 23 24 --samples 6.4e7
    ;;
  *)
    echo "unknown stage $stage: gpu, cores or suite" >&2
    exit 2
    ;;
esac
