#!/usr/bin/env bash
# Builds (scripts/build.sh) and runs every test with ctest, printing the output of failures.
# Installs the tools the tests drive (GNU Go for the GTP cross-check, numpy for the npz interop
# test, an ssh server and client for the cluster test, sshfs and iproute2 for the
# network-filesystem tests, SLURM and munge for the SLURM test, chromium to render the HTML
# report) when missing.
#
#   scripts/test.sh [--fast] [--torch DIR] [ctest arguments...]     e.g. scripts/test.sh -R gtp
#
# --torch DIR builds and tests against the libtorch in DIR (scripts/build.sh --torch), in its
# own build directory; scripts/build_cuda.sh --test does that with upstream libtorch and CUDA.
# --fast runs only the tests labelled "unit" (ctest -L unit: rules, search, data, formats,
# options, the programs' quick checks), which take well under a minute after a build; without
# it, every test runs, the "slow" ones (training, whole loops, faults, clusters) included, as CI
# does.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"

selection=()
build_args=()
build_dir=${BUILD_DIR:-$root/build/release}
while (($#)); do
  case $1 in
    --fast) selection=(-L unit); shift ;;
    --torch)
      [[ -d ${2:-} ]] || { echo "test.sh: --torch needs a libtorch directory" >&2; exit 2; }
      build_args=(--torch "$2")
      build_dir=${BUILD_DIR:-$root/$(torch_build_dir "$2")}
      shift 2 ;;
    *) break ;;
  esac
done

ensure_packages gnugo python3-numpy openssh-server openssh-client sshfs iproute2 slurm-wlm \
  munge chromium
"$root/scripts/build.sh" "${build_args[@]}"
cd "$build_dir"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "${selection[@]}" "$@"
