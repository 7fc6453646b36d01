#!/usr/bin/env bash
# Builds (scripts/build.sh) and runs every test with ctest, printing the output of failures.
# Installs the tools the tests drive (GNU Go for the GTP cross-check, numpy for the npz interop
# test, an ssh server and client for the cluster test, chromium to render the HTML report)
# when missing.
#
#   scripts/test.sh [--fast] [ctest arguments...]     e.g. scripts/test.sh -R gtp
#
# --fast runs only the tests labelled "unit" (ctest -L unit: rules, search, data, formats,
# options, the programs' quick checks), which take well under a minute after a build; without
# it, every test runs, the "slow" ones (training, whole loops, faults, clusters) included, as CI
# does.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"

selection=()
if [[ ${1:-} == --fast ]]; then
  selection=(-L unit)
  shift
fi

ensure_packages gnugo python3-numpy openssh-server openssh-client chromium
"$root/scripts/build.sh"
build_dir=${BUILD_DIR:-$root/build/release}
cd "$build_dir"
ctest --output-on-failure -j "${JOBS:-$(nproc)}" "${selection[@]}" "$@"
