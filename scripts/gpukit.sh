#!/usr/bin/env bash
# Gathers, into .gpukit/include, the headers needed to build pyjit on a machine that has the
# LLVM 16 shared library (libLLVM-16.so.1) but not its headers, such as a GPU machine with no
# network. Run it on a Debian 12 machine (it downloads llvm-16-dev with apt-get, without
# installing it), then copy .gpukit/ along with the checkout.
# The LLVM C API headers must come from the same major version as the library (16).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kit=$root/.gpukit
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cd "$tmp"
apt-get download llvm-16-dev >/dev/null 2>&1 \
    || { apt-get update -qq >/dev/null && apt-get download llvm-16-dev >/dev/null; }
for deb in ./*.deb; do dpkg -x "$deb" unpacked; done

rm -rf "$kit"
mkdir -p "$kit/include/llvm"
cp -r unpacked/usr/include/llvm-c-16/llvm-c "$kit/include/"
cp -r unpacked/usr/include/llvm-16/llvm/Config "$kit/include/llvm/"   # llvm-c includes these
echo "gpukit: headers in .gpukit/include ($(du -sh "$kit" | cut -f1))"
