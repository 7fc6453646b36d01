#!/usr/bin/env bash
# Runs the self-play training loop on this machine, one program after another:
# selfplay -> shuffler -> trainer -> exporter -> gatekeeper, repeated, against one base
# directory (default ./run). SIGINT stops it; running it again resumes.
#
#   scripts/synchronous_loop.sh [BASE_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh"
bin=${BUILD_DIR:-$root/build/release}/bin
missing=()
for program in selfplay shuffler trainer exporter gatekeeper; do
  [[ -x $bin/tengen-$program ]] || missing+=("tengen-$program")
done
if ((${#missing[@]})); then
  echo "synchronous_loop.sh: the training loop is not built yet: ${missing[*]} do not exist." >&2
  echo "What works today: the rules engine, SGF and the GTP engine ($bin/tengen-gtp)." >&2
  exit 1
fi
