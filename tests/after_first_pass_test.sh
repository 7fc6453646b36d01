#!/usr/bin/env bash
# experiments/after_first_pass.py on two made-up 5x5 games with the same first 11 moves (a black wall
# on column C, a white one on D, Black passes) and a white throw-in at A5 (Black's area):
# in the first, Black captures it (no gain); in the second, both pass and the stone stays,
# turning Black's 10-point area into dame (White gains 11: from B+5 to W+6). A third game, of
# another model: White invades Black's corner, passes first with its stone in atari, and Black
# captures it. A fourth, of a third model: after Black's pass White fills its own area twice,
# Black passing back, before the game ends. A fifth, of a fourth model: after Black's pass White
# fills its own area, then Black fills its own after White's stone (no pass just before it).
# The first pass cost its player points in the second game (Black: B+5 at its pass, W+6 at the
# end, 11 points) and in the third (White: B+2 at its pass, B+5 once its stone is taken, 3; only
# this game has a result, RE[B+5]).
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
mkdir -p "$work/selfplay/m2/sgfs"
echo "(;FF[4]GM[1]SZ[5]KM[0]RE[B+5]${walls%;B[]};B[bb];W[aa];B[ab];W[];B[ba];W[];B[])" \
  > "$work/selfplay/m2/sgfs/games.sgfs"
mkdir -p "$work/selfplay/m3/sgfs"
echo "(;FF[4]GM[1]SZ[5]KM[0]${walls};W[ea];B[];W[eb];B[];W[])" > "$work/selfplay/m3/sgfs/games.sgfs"
mkdir -p "$work/selfplay/m4/sgfs"
echo "(;FF[4]GM[1]SZ[5]KM[0]${walls};W[ea];B[aa];W[];B[])" > "$work/selfplay/m4/sgfs/games.sgfs"
out=$(python3 "$src/experiments/after_first_pass.py" "$work")
line=$(grep $'^m\t' <<< "$out" || true)
[[ -n $line ]] || fail "no line for the model: $out"
IFS=$'\t' read -r model games median with_stones median_stones capturing moved change \
  throw_ins gain gaining passer_captured fills ended_at_fill all_fills fills_after_pass \
  costly cost costly_lost <<< "$line"
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
expect "first passer's stones captured (Black passed first; White's stone was taken)" \
  "$passer_captured" 0
expect "fills after a pass (Black's capture of the throw-in is no fill)" "$fills" 0
expect "median after, had they ended at a fill (no fill)" "$ended_at_fill" 4.5
expect "fills after the first pass (none)" "$all_fills" 0
expect "of them right after a pass (none)" "$fills_after_pass" 0
expect "games in which the first pass cost its player points (the second)" "$costly" 1
expect "median points lost (11)" "$cost" 11
expect "of them lost by the first passer (no RE[]: not known)" "$costly_lost" 0
line=$(grep $'^m2\t' <<< "$out" || true)
passer_captured=$(cut -f12 <<< "$line")
expect "first passer's stones captured (White passed first, its stone taken)" "$passer_captured" 1
expect "the second model's games" "$(cut -f2 <<< "$line")" 1
expect "White's pass cost it 3 points, and it lost (RE[B+5])" "$(cut -f17-19 <<< "$line")" \
  $'1\t3\t1'
line=$(grep $'^m3\t' <<< "$out" || true)
expect "moves after the first pass with the fills" "$(cut -f3 <<< "$line")" 5
expect "games with a fill after a pass" "$(cut -f13 <<< "$line")" 1
expect "moves after the first pass, had it ended at the first fill" "$(cut -f14 <<< "$line")" 1
expect "the fills after the first pass, both right after one" "$(cut -f15,16 <<< "$line")" \
  $'2\t2'
line=$(grep $'^m4\t' <<< "$out" || true)
expect "fills after the first pass: White's after the pass, Black's after White's stone" \
  "$(cut -f15,16 <<< "$line")" $'2\t1'
expect "fills change no score: no pass cost points" "$(cut -f17,18 <<< "$line")" $'0\t0'
echo "after_first_pass: ok"
