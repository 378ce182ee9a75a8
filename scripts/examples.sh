#!/usr/bin/env bash
# Runs every script in examples/ against the in-place build, one process each, and fails if any
# fails. An example that uses the GPU (it says `# pyjit: gpu` in a comment, or uses @gpu.jit,
# @cuda.jit or target='cuda') runs in the simulator (PYJIT_SIMULATOR=1) when no GPU is usable.
# Arguments, if given, name the examples to run instead of all of them. With PYJIT_INSTALLED=1
# they import the pyjit installed in PYJIT_PYTHON's environment (a wheel) rather than the checkout.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYJIT_PYTHON:-$root/.venv/bin/python}    # PYJIT_PYTHON: an interpreter that has the packages
command -v "$python" >/dev/null || { echo "examples: no .venv: run 'bash scripts/setup.sh' first" >&2; exit 1; }
[ -n "${PYJIT_INSTALLED:-}" ] || export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"
limit=${PYJIT_EXAMPLE_TIMEOUT:-600}

# Asked once: an import failure counts as "no GPU", and the example itself then reports the error.
# -P keeps the current folder (the checkout) off sys.path, for PYJIT_INSTALLED.
if "$python" -P -c 'import sys, pyjit; sys.exit(0 if pyjit.gpu.is_available() else 1)' 2>/dev/null; then
    have_gpu=1
else
    have_gpu=0
fi

uses_gpu() {
    grep -q -E '#[[:space:]]*pyjit:[[:space:]]*gpu|@(gpu|cuda)\.jit|target[[:space:]]*=[[:space:]]*.cuda.' "$1"
}

if [ $# -gt 0 ]; then files=("$@"); else files=(examples/*.py); fi
[ -e "${files[0]}" ] || { echo "examples: no examples/*.py found" >&2; exit 1; }
failed=()
for f in "${files[@]}"; do
    sim=
    if uses_gpu "$f" && [ "$have_gpu" = 0 ]; then sim=1; fi
    echo "=== $f${sim:+ (simulator: no GPU)}"
    start=$(date +%s%N)
    if [ -n "$sim" ]; then
        PYJIT_SIMULATOR=1 timeout "$limit" "$python" "$f"
    else
        timeout "$limit" "$python" "$f"
    fi
    rc=$?
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    took=$((ms / 1000)).$(printf '%03d' $((ms % 1000)))
    if [ "$rc" -eq 0 ]; then
        echo "--- ok ($took s)"
    else
        echo "--- FAILED: exit code $rc" >&2
        failed+=("$f")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "examples: ${#failed[@]} of ${#files[@]} failed: ${failed[*]}" >&2
    exit 1
fi
echo "examples: all ${#files[@]} passed"
