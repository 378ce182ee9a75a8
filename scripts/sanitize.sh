#!/usr/bin/env bash
# Builds pyjit with AddressSanitizer and UndefinedBehaviorSanitizer (-DPYJIT_SANITIZE=ON) and runs
# the test suite against that build, then the C unit tests, sanitized too. The sanitized module
# goes into a staged copy of the package (build/asan/stage/pyjit), so the normal in-place build
# in pyjit/ stays as it is. Needs scripts/setup.sh to have run. Extra arguments go to pytest.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYJIT_PYTHON:-$root/.venv/bin/python}
build_dir=${PYJIT_ASAN_BUILD_DIR:-build/asan}
stage=$root/$build_dir/stage
command -v "$python" >/dev/null || { echo "sanitize: no .venv: run 'bash scripts/setup.sh' first" >&2; exit 1; }

# The package's Python files, without the in-place module; then the sanitized module beside them.
rm -rf "$stage"
"$python" -c 'import shutil, sys
shutil.copytree("pyjit", sys.argv[1], ignore=shutil.ignore_patterns("*.so", "__pycache__"))' \
    "$stage/pyjit"
# shellcheck disable=SC2086  # PYJIT_CMAKE_ARGS: the caller's options, split on spaces on purpose
cmake -S . -B "$build_dir" -DPython_EXECUTABLE="$python" -DPYJIT_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPYJIT_OUTPUT_DIR="$stage/pyjit" ${PYJIT_CMAKE_ARGS:-} >/dev/null
cmake --build "$build_dir" -j"$(nproc)"

# Python itself is not built with ASan, so the runtime is preloaded. Leak checking is off:
# CPython keeps much of its memory to the end on purpose. PYTHONMALLOC=malloc lets ASan see
# every Python allocation. PYTHONSAFEPATH keeps the current folder (the checkout, whose pyjit/
# holds the unsanitized module or none) off sys.path, in this interpreter and in every child
# interpreter the tests start, so each of them imports the staged, sanitized copy.
# Reports go to files in $reports, which the end of this script prints: a report from a child
# interpreter a test starts (its stderr captured, cut short or not looked at) is seen there too.
reports=$root/$build_dir/reports
rm -rf "$reports" && mkdir -p "$reports"
export LD_PRELOAD=$(gcc -print-file-name=libasan.so)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=0:halt_on_error=1}:log_path=$reports/asan
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}:log_path=$reports/ubsan
export PYTHONMALLOC=malloc
export PYTHONPATH=$stage
export PYTHONSAFEPATH=1
"$python" -c 'import pyjit, sys; sys.exit(0 if pyjit.__file__.startswith(sys.argv[1]) else
                 "sanitize: imported pyjit from %s, not the staged copy" % pyjit.__file__)' "$stage"
targets=(tests)     # unless the arguments name what to run
for arg in "$@"; do [[ $arg == -* || ! -e ${arg%%::*} ]] || targets=(); done
status=0
"$python" -m pytest -q -p no:cacheprovider "${targets[@]}" "$@" || status=$?
[ "$status" -ne 5 ] || echo "sanitize: pytest collected no tests: that is a failure" >&2

# The C unit tests are sanitized executables of their own, with no Python in them: no preload,
# and leaks are reported there.
if [ -f "$build_dir/CTestTestfile.cmake" ]; then
    env -u LD_PRELOAD -u PYTHONMALLOC ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:log_path="$reports/asan" \
        ctest --test-dir "$build_dir" --output-on-failure -j"$(nproc)" --no-tests=ignore \
        || { echo "sanitize: C unit tests failed" >&2; [ "$status" -ne 0 ] || status=1; }
fi

if compgen -G "$reports/*" >/dev/null; then
    echo "sanitize: sanitizer reports (kept in $reports):" >&2
    cat "$reports"/* >&2
    [ "$status" -ne 0 ] || status=1
fi
exit "$status"
