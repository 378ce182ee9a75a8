#!/usr/bin/env bash
# Runs the shared kernel corpus (tests/gpu_kernels.py, through tests/test_gpu_kernels_hw.py) on
# the GPU under compute-sanitizer's memcheck and racecheck: each tool fails on the first error
# it reports in any kernel pyjit generated. Needs a GPU and the CUDA toolkit's compute-sanitizer.
#
#     bash scripts/gpu_sanitize.sh              # both tools
#     bash scripts/gpu_sanitize.sh racecheck    # one
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYJIT_PYTHON:-python3}
sanitizer=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)}
[ -x "$sanitizer" ] || { echo "gpu_sanitize: no compute-sanitizer (set COMPUTE_SANITIZER)" >&2; exit 1; }

status=0
for tool in "${@:-memcheck racecheck}"; do
    for t in $tool; do
        echo "== compute-sanitizer --tool $t"
        PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" "$sanitizer" --tool "$t" --error-exitcode 99 \
            --target-processes all "$python" -m pytest -q -p no:cacheprovider \
            tests/test_gpu_kernels_hw.py || { echo "gpu_sanitize: $t failed" >&2; status=1; }
    done
done
exit "$status"
