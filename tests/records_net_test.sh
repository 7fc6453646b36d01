#!/usr/bin/env bash
# experiments/gnugo_records.py and experiments/records_net.sh: GNU Go's games from random setups
# (all different, each with a result and its setup stones), converted, trained on and exported;
# run again, the script converts nothing twice and trains no further. Skipped (exit 77) without
# GNU Go.
set -euo pipefail
src=$1 bin=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -x /usr/games/gnugo ]] || { echo "SKIPPED: needs GNU Go (/usr/games/gnugo)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 "$src/experiments/gnugo_records.py" --games 6 --games-per-file 3 --jobs 1 \
  --output-dir "$work/sgf" > "$work/gen.log"
files=$(find "$work/sgf" -name '*.sgfs' | wc -l)
((files == 2)) || fail "expected 2 collections, got $files: $(cat "$work/gen.log")"
games=$(cat "$work"/sgf/*.sgfs | grep -c '^(;FF')
((games == 6)) || fail "expected 6 games, got $games"
distinct=$(cat "$work"/sgf/*.sgfs | sort -u | grep -c '^(;FF')
((distinct == 6)) || fail "only $distinct of 6 games differ"
results=$(cat "$work"/sgf/*.sgfs | grep -cE 'RE\[[BW]\+([0-9.]+|R)\]|RE\[0\]')
((results == 6)) || fail "$results of 6 games have a result"
setups=$(cat "$work"/sgf/*.sgfs | grep -c 'AB\[..\].*AW\[..\].*PL\[B\]')
((setups == 6)) || fail "$setups of 6 games start from a setup"

TENGEN_BIN=$bin "$src/experiments/records_net.sh" "$work/base" "$work/sgf" --samples 2000 \
  --model b1c16 > "$work/first.log" 2>&1 || fail "records_net.sh failed: $(tail -20 "$work/first.log")"
grep -q "games: 6 converted" "$work/base/sgf2npz.txt" || fail "not every game converted: $(cat "$work/base/sgf2npz.txt")"
models=$(ls "$work/base/models")
[[ $models == records-b1c16-s*-d* ]] || fail "no exported model: '$models'"

TENGEN_BIN=$bin "$src/experiments/records_net.sh" "$work/base" "$work/sgf" --samples 2000 \
  --model b1c16 > "$work/second.log" 2>&1 || fail "the second run failed: $(tail -20 "$work/second.log")"
grep -q "games: .* converted" "$work/second.log" && fail "the second run converted the records again"
[[ $(ls "$work/base/models") == "$models" ]] || fail "the second run trained further: $(ls "$work/base/models")"
echo "records_net: 6 distinct games, converted, trained and exported; the second run changed nothing: OK"
