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
count=0
while read -r key; do
  [[ $different == *" ${key##*.} "* ]] && continue
  selfplay=$("$bin/tengen-selfplay" --config "$src/configs/selfplay.cfg" --print-config "$key")
  gatekeeper=$("$bin/tengen-gatekeeper" --config "$src/configs/gatekeeper.cfg" --print-config "$key")
  [[ $selfplay == "$gatekeeper" ]] ||
    fail "$key is '$selfplay' in configs/selfplay.cfg and '$gatekeeper' in configs/gatekeeper.cfg"
  count=$((count + 1))
done < <(comm -12 <(keys "$src/configs/selfplay.cfg") <(keys "$src/configs/gatekeeper.cfg"))
((count >= 20)) || fail "only $count shared keys compared: is the parsing of the configs broken?"
echo "play_configs: $count shared keys agree"
