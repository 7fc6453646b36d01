#!/usr/bin/env bash
# experiments/sprt_sim.py: a far stronger candidate is always accepted and a far weaker one never;
# with the floor at the game limit every match plays all its games.
set -euo pipefail
src=$1
fail() { echo "FAIL: $*" >&2; exit 1; }
sim() { python3 "$src/experiments/sprt_sim.py" --matches 200 --games 30 "$@"; }

out=$(sim --min-games 0 --true-elo=-800,800)
expected=$'min_games\ttrue Elo\taccepted\tmedian games\n0\t-800\t0.000\t'
[[ $out == "$expected"* ]] || fail "a candidate 800 Elo weaker was accepted: $out"
grep -q $'^0\t+800\t1.000\t' <<< "$out" || fail "a candidate 800 Elo stronger was not always accepted: $out"
# 800 Elo apart the SPRT decides within a few games: far fewer than 30.
awk -F'\t' 'NR > 1 && $4 >= 30 { exit 1 }' <<< "$out" || fail "no early decisions: $out"

out=$(sim --min-games 30 --true-elo=-800,800)
awk -F'\t' 'NR > 1 && $4 != 30 { exit 1 }' <<< "$out" || fail "decided before min_games: $out"
echo "sprt_sim: ok"
