#!/usr/bin/env bash
# Installs the Debian packages the build needs (when missing), then configures and builds
# tengen in Release mode into build/release. Idempotent: a second run with nothing changed
# only checks packages (dpkg, no network) and lets make find nothing to do.
#
#   scripts/build.sh [--debug | --asan] [--torch DIR] [extra cmake arguments...]
#
# --torch DIR builds against the libtorch in DIR (an unpacked libtorch, or a torch wheel's
# torch/ folder: the directory holding share/cmake/Torch) instead of Debian's libtorch-dev,
# into its own build directory, build/torch-<name of DIR> (build/release stays Debian's).
# Without --torch, CMake users' ways work too: Torch_DIR (the folder of TorchConfig.cmake) or
# CMAKE_PREFIX_PATH in the environment pick the libtorch, and the build directory is then
# build/torch-<name of the libtorch folder> too (build/release when CMAKE_PREFIX_PATH holds no
# libtorch), unless BUILD_DIR says otherwise. A build directory configured with one libtorch
# refuses another (an error naming both), since CMake would keep the first. scripts/build_cuda.sh fetches upstream
# libtorch 2.x with CUDA and builds with this (docs/GPU.md).
#
# Environment: BUILD_DIR (default build/release, build/debug, build/asan, build/torch-NAME),
# JOBS (default nproc), Torch_DIR, CMAKE_PREFIX_PATH.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"

build_type=Release
sanitize=OFF
default_dir=build/release
torch=""
while (($#)); do
  case $1 in
    --debug) build_type=Debug; default_dir=build/debug; shift ;;
    --asan) build_type=RelWithDebInfo; sanitize=ON; default_dir=build/asan; shift ;;
    --torch)
      [[ -n ${2:-} ]] || { echo "build.sh: --torch needs a directory" >&2; exit 2; }
      torch=$2; shift 2 ;;
    *) break ;;
  esac
done

cmake_args=()
packages=(g++ cmake make libboost-filesystem-dev libboost-program-options-dev zlib1g-dev
  doctest-dev nlohmann-json3-dev)
if [[ -n $torch ]]; then
  [[ -d $torch ]] || { echo "build.sh: --torch $torch: no such directory" >&2; exit 2; }
  torch=$(cd "$torch" && pwd)
  [[ -f $torch/share/cmake/Torch/TorchConfig.cmake ]] ||
    { echo "build.sh: --torch $torch: no share/cmake/Torch/TorchConfig.cmake there (expected an unpacked libtorch)" >&2; exit 2; }
  cmake_args+=(-DCMAKE_PREFIX_PATH="$torch" -DTorch_DIR="$torch/share/cmake/Torch")
  default_dir=$(torch_build_dir "$torch")
elif [[ -n ${Torch_DIR:-} ]]; then
  [[ -f $Torch_DIR/TorchConfig.cmake ]] ||
    { echo "build.sh: Torch_DIR=$Torch_DIR: no TorchConfig.cmake there (expected LIBTORCH/share/cmake/Torch)" >&2; exit 2; }
  cmake_args+=(-DTorch_DIR="$Torch_DIR")
  default_dir=$(torch_build_dir "$Torch_DIR/../../..")
elif [[ -n ${CMAKE_PREFIX_PATH:-} ]]; then
  # The first entry that holds a libtorch names the build directory.
  IFS=: read -r -a prefixes <<< "$CMAKE_PREFIX_PATH"
  for prefix in "${prefixes[@]}"; do
    if [[ -f $prefix/share/cmake/Torch/TorchConfig.cmake ]]; then
      default_dir=$(torch_build_dir "$prefix")
      break
    fi
  done
else
  # Debian's libtorch, with the gloo headers its c10d headers need.
  packages+=(libtorch-dev libgloo-dev)
fi
build_dir=${BUILD_DIR:-$root/$default_dir}

ensure_packages "${packages[@]}"

# A build directory stays with the libtorch it was configured with: CMake would keep its cached
# Torch_DIR and silently ignore another one.
if [[ -f $build_dir/CMakeCache.txt && -n $torch${Torch_DIR:-} ]]; then
  cached=$(sed -n 's/^Torch_DIR:[A-Z]*=//p' "$build_dir/CMakeCache.txt")
  wanted=${Torch_DIR:-$torch/share/cmake/Torch}
  if [[ -n $cached && $(cd "$cached" 2> /dev/null && pwd) != $(cd "$wanted" && pwd) ]]; then
    echo "build.sh: $build_dir was configured with the libtorch in $cached, not $wanted: use another BUILD_DIR or delete $build_dir" >&2
    exit 2
  fi
fi
if [[ ! -f $build_dir/CMakeCache.txt ]]; then
  cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE="$build_type" \
    -DTENGEN_SANITIZE="$sanitize" "${cmake_args[@]}" "$@"
elif (($#)); then
  cmake "$build_dir" "$@"
fi
cmake --build "$build_dir" -j "${JOBS:-$(nproc)}"
