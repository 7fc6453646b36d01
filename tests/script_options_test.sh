#!/usr/bin/env bash
# The scripts' own option checks, before anything runs or is built. scripts/build.sh's choice of
# libtorch: Torch_DIR without a TorchConfig.cmake is an error naming it, and a build directory
# configured with one libtorch refuses another one (CMake would silently keep the first) with an
# error naming both. synchronous_loop.sh and strength_run.sh: an option without its value, a
# number with a leading zero (bash arithmetic would read it as octal, or fail), a board size the
# referee does not take. Each is an error naming what is wrong (status 2).
#
#   script_options_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_error TEXT COMMAND...: COMMAND exits 2 and its output holds TEXT.
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

loop=("bash" "$src/scripts/synchronous_loop.sh" "$work/base")
strength=("bash" "$src/scripts/strength_run.sh" "$work/base")
expect_error "--cycles needs a value" "${loop[@]}" --cycles
expect_error "--set-trainer needs a value" "${loop[@]}" --set-trainer
expect_error "--cycles must be a number, got '08'" "${loop[@]}" --cycles 08
expect_error "--ladder-games must be a number, got '010'" "${loop[@]}" --ladder-games 010
expect_error "--rate-every must be a number of minutes, got '09'" "${loop[@]}" --rate-every 09
expect_error "--games needs a value" "${strength[@]}" --games
expect_error "--board-size must be 2 to 19, got '25'" "${strength[@]}" --board-size 25
expect_error "--board-size must be 2 to 19, got '1'" "${strength[@]}" --board-size 1
expect_error "--handicap-games must be a number, got '08'" "${strength[@]}" --handicap-games 08
[[ ! -e $work/base ]] || fail "a rejected command line created the base directory"
echo "script_options: ok"
