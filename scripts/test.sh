#!/usr/bin/env bash
# Runs pyjit's whole test suite against the in-place build made by scripts/setup.sh:
# pytest over tests/, then the C unit tests through CTest when the build defines any.
# Fails on any failure, and also when pytest collects no tests at all (its exit code 5), so an
# empty or unimportable suite never passes. Extra arguments go to pytest (e.g. -k, -x, -m 'not slow').
# With PYJIT_INSTALLED=1 the tests import the pyjit installed in PYJIT_PYTHON's environment (a
# wheel) rather than the checkout: no PYTHONPATH, and PYTHONSAFEPATH keeps the current folder off
# sys.path, in the child interpreters that tests start too.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=${PYJIT_BUILD_DIR:-build}
python=${PYJIT_PYTHON:-$root/.venv/bin/python}    # PYJIT_PYTHON: an interpreter that has the packages
command -v "$python" >/dev/null || { echo "test: no .venv: run 'bash scripts/setup.sh' first" >&2; exit 1; }
[ -d tests ] || { echo "test: no tests/ folder: nothing to run" >&2; exit 1; }

# tests/ unless the arguments name what to run (a path, or a node id such as tests/x.py::t).
targets=(tests)
for arg in "$@"; do [[ $arg == -* || ! -e ${arg%%::*} ]] || targets=(); done

# The whole suite runs on every core through pytest-xdist (each worker a process of its own);
# PYJIT_TEST_WORKERS=1 runs it in this process.
workers=${PYJIT_TEST_WORKERS:-$(nproc)}
parallel=()
if [ "$workers" -gt 1 ] && "$python" -c 'import xdist' 2>/dev/null; then
    parallel=(-n "$workers")
fi

status=0
# Tests import pyjit from the checkout (pyjit/_core*.so is built there), or the installed one.
if [ -n "${PYJIT_INSTALLED:-}" ]; then
    PYTHONSAFEPATH=1 "$python" -m pytest -q "${parallel[@]}" "${targets[@]}" "$@" || status=$?
else
    PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}" "$python" -m pytest -q "${parallel[@]}" "${targets[@]}" "$@" || status=$?
fi
case $status in
    0) ;;
    5) echo "test: pytest collected no tests: that is a failure" >&2 ;;
    *) echo "test: pytest failed (exit code $status)" >&2 ;;
esac

# CTest runs only when the build registered tests (enable_testing() writes CTestTestfile.cmake).
if [ -f "$build_dir/CTestTestfile.cmake" ]; then
    ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" --no-tests=ignore \
        || { echo "test: C unit tests failed" >&2; [ "$status" -ne 0 ] || status=1; }
fi
exit "$status"
