#!/usr/bin/env bash
# configs/selfplay.cfg and configs/gatekeeper.cfg play the same game: every key that both files
# set (section.key) has the same effective value in both programs, except the keys below that
# differ for a reason. A change to the utility, the pass rules, the rules or the search in one
# file and not the other fails here.
#   tests/play_configs_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
src=$1
bin=$2
fail() { echo "play_configs: $*" >&2; exit 1; }
# Sized per program: selfplay keeps more games in flight than the gatekeeper. The gatekeeper's
# temperatures are its own: it measures strength, selfplay explores.
different=" nn_max_batch_size num_game_threads temperature_early temperature_late "
keys() {
  awk '/^\[/ { gsub(/[][ ]/, ""); section = $0 "."; next }
       /^[a-z_]+ *=/ { sub(/ *=.*/, ""); print section $0 }' "$1" | sort -u
}
shared=()
while read -r key; do
  [[ $different == *" ${key##*.} "* ]] || shared+=("$key")
done < <(comm -12 <(keys "$src/configs/selfplay.cfg") <(keys "$src/configs/gatekeeper.cfg"))
((${#shared[@]} >= 20)) || fail "only ${#shared[@]} shared keys: is the parsing of the configs broken?"
# One run of each program prints every shared key's effective value, one a line.
args=()
for key in "${shared[@]}"; do args+=(--print-config "$key"); done
mapfile -t selfplay < <("$bin/tengen-selfplay" --config "$src/configs/selfplay.cfg" "${args[@]}")
mapfile -t gatekeeper < <("$bin/tengen-gatekeeper" --config "$src/configs/gatekeeper.cfg" "${args[@]}")
((${#selfplay[@]} == ${#shared[@]} && ${#gatekeeper[@]} == ${#shared[@]})) ||
  fail "expected ${#shared[@]} values, got ${#selfplay[@]} and ${#gatekeeper[@]}"
for i in "${!shared[@]}"; do
  [[ ${selfplay[i]} == "${gatekeeper[i]}" ]] || fail "${shared[i]} is '${selfplay[i]}' in \
configs/selfplay.cfg and '${gatekeeper[i]}' in configs/gatekeeper.cfg"
done
echo "play_configs: ${#shared[@]} shared keys agree"
