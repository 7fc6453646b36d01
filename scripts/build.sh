#!/usr/bin/env bash
# Installs the Debian packages the build needs (when missing), then configures and builds
# tengen in Release mode into build/release. Idempotent: a second run with nothing changed
# only checks packages (dpkg, no network) and lets make find nothing to do.
#
#   scripts/build.sh [--debug | --asan] [extra cmake arguments...]
#
# Environment: BUILD_DIR (default build/release, build/debug, build/asan), JOBS (default nproc).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"

build_type=Release
sanitize=OFF
default_dir=build/release
case "${1:-}" in
  --debug) build_type=Debug; default_dir=build/debug; shift ;;
  --asan) build_type=RelWithDebInfo; sanitize=ON; default_dir=build/asan; shift ;;
esac
build_dir=${BUILD_DIR:-$root/$default_dir}

ensure_packages g++ cmake make libboost-filesystem-dev libboost-program-options-dev \
  zlib1g-dev doctest-dev libtorch-dev libgloo-dev nlohmann-json3-dev

if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" \
    -DTENGEN_SANITIZE="$sanitize" "$@"
elif (($#)); then
  cmake "$build_dir" "$@"
fi
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}"
