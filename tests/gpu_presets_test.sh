#!/usr/bin/env bash
# configs/gpu/PROGRAM.cfg, read after configs/PROGRAM.cfg as synchronous_loop.sh --gpu reads it:
# every key is one the program knows, and the preset's values win over the CPU config's.
#   tests/gpu_presets_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
src=$1
bin=$2
fail() { echo "gpu_presets: $*" >&2; exit 1; }
count=0
for preset in "$src"/configs/gpu/*.cfg; do
  program=$(basename "$preset" .cfg)
  [[ -x $bin/tengen-$program ]] || fail "$preset: no program tengen-$program"
  # Each key = value line of the preset, as the program reads it after both files.
  while IFS='=' read -r key value; do
    key=$(echo "$key" | tr -d ' ')
    value=$(echo "$value" | sed 's/#.*//; s/^ *//; s/ *$//')
    got=$("$bin/tengen-$program" --config "$src/configs/$program.cfg" --config "$preset" \
      --print-config "$key" 2>&1) || fail "$preset: tengen-$program rejects it: $got"
    [[ $got == "$value" ]] || fail "$preset: $key is '$got' after both files, expected '$value'"
    count=$((count + 1))
  done < <(grep -E '^[a-z_.]+ *=' "$preset")
done
((count > 0)) || fail "no keys checked"
echo "gpu_presets: ok, $count keys in $(ls "$src"/configs/gpu/*.cfg | wc -l) presets"
