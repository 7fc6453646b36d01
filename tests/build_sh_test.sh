#!/usr/bin/env bash
# scripts/build.sh's choice of libtorch, without building anything: Torch_DIR without a
# TorchConfig.cmake is an error naming it, and a build directory configured with one libtorch
# refuses another one (CMake would silently keep the first) with an error naming both.
#
#   build_sh_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_error TEXT COMMAND...: COMMAND exits 2 and its stderr holds TEXT.
expect_error() {
  local text=$1 status=0
  shift
  "$@" > "$work/out" 2>&1 || status=$?
  ((status == 2)) || fail "$* exited $status, expected 2: $(cat "$work/out")"
  grep -qF -- "$text" "$work/out" || fail "$* did not say '$text': $(cat "$work/out")"
}

expect_error "Torch_DIR=$work/nothing: no TorchConfig.cmake there" \
  env Torch_DIR="$work/nothing" "$src/scripts/build.sh"
expect_error "--torch $work/nothing: no such directory" "$src/scripts/build.sh" --torch "$work/nothing"

# Two fake libtorch folders and a build directory "configured" with the first.
for name in one two; do
  mkdir -p "$work/$name/share/cmake/Torch"
  touch "$work/$name/share/cmake/Torch/TorchConfig.cmake"
done
mkdir -p "$work/build"
echo "Torch_DIR:PATH=$work/one/share/cmake/Torch" > "$work/build/CMakeCache.txt"
expect_error "was configured with the libtorch in $work/one/share/cmake/Torch, not $work/two/share/cmake/Torch" \
  env BUILD_DIR="$work/build" Torch_DIR="$work/two/share/cmake/Torch" "$src/scripts/build.sh"
expect_error "was configured with the libtorch in $work/one/share/cmake/Torch" \
  env BUILD_DIR="$work/build" "$src/scripts/build.sh" --torch "$work/two"
echo "build_sh: ok"
