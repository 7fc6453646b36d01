#!/usr/bin/env bash
# bench/after_first_pass.py on two made-up 5x5 games with the same first 11 moves (a black wall
# on column C, a white one on D, Black passes) and a white throw-in at A5 (Black's area):
# in the first, Black captures it (no gain); in the second, both pass and the stone stays,
# turning Black's 10-point area into dame (White gains 11: from B+5 to W+6).
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

mkdir -p "$work/selfplay/m/sgfs"
walls=";B[ca];W[da];B[cb];W[db];B[cc];W[dc];B[cd];W[dd];B[ce];W[de];B[]"
{
  echo "(;FF[4]GM[1]SZ[5]KM[0]${walls};W[aa];B[ba];W[];B[ab];W[];B[])"
  echo "(;FF[4]GM[1]SZ[5]KM[0]${walls};W[aa];B[];W[])"
} > "$work/selfplay/m/sgfs/games.sgfs"
out=$(python3 "$src/bench/after_first_pass.py" "$work")
line=$(sed -n 2p <<< "$out")
[[ -n $line ]] || fail "no line for the model: $out"
IFS=$'\t' read -r model games median with_stones median_stones capturing moved change \
  throw_ins gain gaining <<< "$line"
expect() { [[ $2 == "$3" ]] || fail "$1: got '$2', expected '$3' in: $line"; }
expect model "$model" m
expect games "$games" 2
expect "median moves after the first pass (6 and 3)" "$median" 4.5
expect "games with stones after the first pass" "$with_stones" 2
expect "median stones after the first pass (3 and 1)" "$median_stones" 2
expect "capturing share (1 of the 4 stones)" "$capturing" 0.25
expect "games whose score moved" "$moved" 1
expect "median |change|" "$change" 11
expect "throw-ins after a pass" "$throw_ins" 2
expect "their mean gain" "$gain" 5.5
expect "gaining / losing" "$gaining" "1 / 0"
echo "after_first_pass: ok"
