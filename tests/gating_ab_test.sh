#!/usr/bin/env bash
# experiments/gating_ab.sh (experiments/loop_ab.sh with a gated and an ungated arm) with the loop's tiny
# settings, after loop_ab.sh's errors for bad arms: Ctrl-C while the gated run trains stops the
# whole comparison (status 130, the ungated run not started); run again, both runs train to
# their running-time budget, their last nets play each other and each run is rated; a third
# time, nothing is trained or played again; then three arms made of those runs play two matches.
set -euo pipefail
src=$1
bin=$2
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
dir=$work/ab
source "$src/tests/loop_lib.sh"

# loop_ab.sh names what is wrong with its arms before it builds or trains anything.
expect_error() {
  local want=$1 out status=0
  shift
  out=$(TENGEN_BIN=/nonexistent bash "$src/experiments/loop_ab.sh" "$work/bad" "$@" 2>&1) || status=$?
  ((status == 2)) || fail "loop_ab.sh $*: status $status, not 2"
  [[ $out == *"$want"* ]] || fail "loop_ab.sh $*: '$want' not in: $out"
  [[ ! -e $work/bad ]] || fail "loop_ab.sh $*: made its directory despite the error"
}
expect_error "at least two --arm NAME=OPTIONS, got 1" --arm a=
expect_error "--arm 'a': expected NAME=OPTIONS" --arm a --arm b=
expect_error "the name 'a b' must be" --arm "a b=" --arm b=
expect_error "--arm a given twice" --arm a= --arm a=
expect_error "--arm a: --gating must be 0 or 1, got '2'" --arm a="--gating 2" --arm b=

tiny_loop_sets selfplay shuffler trainer gatekeeper
# 0.01 hours (36 s) of running time for each run, in one slice each: time for the gated run to
# accept its first candidate even on a busy machine (21 s was not always enough in CI).
args=("$dir" --hours 0.01 --slice 0.01 --games 2 --rate-games 2 --gnugo-levels 1 --visits 4
  --board-size 7 --model b1c16 -- --games-per-cycle 6 "${loop_sets[@]}")
seconds() { cat "$dir/$1/strength/running_seconds" 2> /dev/null || echo 0; }
run() {
  bash "$src/experiments/gating_ab.sh" "${args[@]}" > "$work/run$1.log" 2>&1 ||
    { cat "$work/run$1.log"; fail "gating_ab.sh exited with $?"; }
}

# Ctrl-C, as a terminal sends it to the foreground process group, a few seconds into the gated
# run (the script's own group: setsid; SIGINT at its default: a background job of a script
# starts with it ignored).
setsid env --default-signal=INT bash "$src/experiments/gating_ab.sh" "${args[@]}" > "$work/run0.log" 2>&1 &
pid=$!
deadline=$(($(now) + 120))
until grep -q -- "--- cycle 1: selfplay" "$work/run0.log"; do
  (($(now) < deadline)) || { cat "$work/run0.log"; fail "the gated run's loop did not start"; }
  sleep 1
done
sleep 2
kill -INT -- "-$pid"
status=0
wait "$pid" || status=$?
((status == 130)) || { cat "$work/run0.log"; fail "stopped with status $status, not 130"; }
grep -q "loop_ab.sh: stopped" "$work/run0.log" || fail "no stop message: $(cat "$work/run0.log")"
[[ ! -e $dir/nogating/strength/running_seconds ]] || fail "the ungated run started after Ctrl-C"
(($(seconds gating) < 36)) || fail "the gated run trained its whole budget despite Ctrl-C"

run 1
for arm in gating nogating; do
  spent=$(seconds $arm)
  ((spent >= 36 && spent <= 36 + 40)) || fail "$arm: running time $spent s, budget 36 s"
  [[ -s $dir/$arm/strength/summary.md ]] || fail "$arm was not rated"
done
match=$dir/final-match/match.json
grep -q '"complete": true' "$match" || fail "the final match is incomplete"
grep -q "^gating:.* vs nogating:.*: 2 games, " "$work/run1.log" ||
  fail "no result line: $(tail -5 "$work/run1.log")"

# Again: nothing left to train or to play.
stamp=$(stat -c %Y "$match")
before="$(seconds gating) $(seconds nogating)"
run 2
[[ "$(seconds gating) $(seconds nogating)" == "$before" ]] || fail "trained again"
[[ $(stat -c %Y "$match") == "$stamp" ]] || fail "the final match was played again"

# Three arms (two of them the runs above, a third the gated run again): nothing to train, the
# first arm's last net plays each other arm's in its own folder.
three=$work/three
mkdir -p "$three"
ln -s "$dir/gating" "$three/a"
ln -s "$dir/nogating" "$three/b"
ln -s "$dir/gating" "$three/c"
bash "$src/experiments/loop_ab.sh" "$three" --arm a= --arm b= --arm c= --hours 0.01 --games 2 \
  --rate-games 0 --visits 4 --board-size 7 --model b1c16 > "$work/three.log" 2>&1 ||
  { cat "$work/three.log"; fail "loop_ab.sh with three arms failed"; }
[[ "$(seconds gating) $(seconds nogating)" == "$before" ]] || fail "three arms: trained again"
for arm in b c; do
  grep -q '"complete": true' "$three/final-match-$arm/match.json" || fail "no match a against $arm"
  grep -q "^a:.* vs $arm:.*: 2 games, " "$work/three.log" ||
    fail "no result line for $arm: $(cat "$work/three.log")"
done
[[ ! -e $three/final-match ]] || fail "three arms wrote DIR/final-match"
echo "gating_ab: ok"
