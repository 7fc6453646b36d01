#!/usr/bin/env bash
# End to end: scripts/synchronous_loop.sh runs 2 cycles with gating on a 7x7 board and a b1c16
# net, and real files flow through every stage: selfplay shards, a shuffle, a checkpoint, a
# snapshot, an exported model, a gatekeeper decision with SGFs, the second cycle's selfplay
# plays the model the gatekeeper accepted, and the Elo ladder rates accepted models against
# GNU Go level 1. The gatekeeper is told to accept any candidate (required_candidate_win_prop
# 0) so that the flow does not depend on how a net trained for seconds plays; its match is
# still played and recorded.
#
#   loop_e2e_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
src=$1
bin=$2
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
base=$work/base

fail() { echo "FAIL: $*" >&2; exit 1; }
count() { find "$@" 2>/dev/null | grep -v '\.tmp' | wc -l; }

tiny=(--set-selfplay board_sizes=7:1 --set-selfplay pos_len=7 --set-selfplay full_visits=12
  --set-selfplay cheap_visits=6 --set-selfplay full_probability=0.5
  --set-selfplay num_game_threads=6 --set-selfplay devices=cpu --set-selfplay log_level=warning
  --set-shuffler min_rows=40 --set-shuffler log_level=warning
  --set-trainer pos_len=7 --set-trainer batch_size=16 --set-trainer samples_per_epoch=64
  --set-trainer max_train_bucket_per_new_data=4 --set-trainer precision=fp32
  --set-trainer log_level=warning
  --set-exporter log_level=warning)
TENGEN_BIN=$bin bash "$src/scripts/synchronous_loop.sh" "$base" e2e tiny b1c16 1 \
  --cycles 2 --games-per-cycle 6 --ladder-games 2 --ladder-visits 4 --rate-every 0 "${tiny[@]}" \
  --set-gatekeeper games=2 --set-gatekeeper visits=4 --set-gatekeeper board_sizes=7:1 \
  --set-gatekeeper pos_len=7 --set-gatekeeper num_game_threads=2 \
  --set-gatekeeper required_candidate_win_prop=0 --set-gatekeeper log_level=warning \
  > "$work/loop.log" 2>&1 || { code=$?; cat "$work/loop.log"; fail "synchronous_loop.sh exited with $code"; }

cat "$work/loop.log"
# Selfplay of cycle 1 with the random net.
(($(count "$base/selfplay/random/tdata" -name '*.npz') >= 1)) || fail "no random-net shards"
(($(count "$base/selfplay/random/sgfs" -name '*.sgfs') >= 1)) || fail "no random-net SGFs"
# A shuffle with its summary.
(($(count "$base/shuffleddata" -name summary.json) >= 1)) || fail "no shuffle"
# Trainer checkpoint and metrics.
(($(count "$base/train/tiny/checkpoints" -name state.json) >= 1)) || fail "no checkpoint"
[[ -s $base/train/tiny/metrics.jsonl ]] || fail "no trainer metrics"
# The exporter consumed every snapshot it was given.
(($(count "$base/torchmodels_toexport" -mindepth 1 -maxdepth 1) == 0)) || fail "snapshots left unexported"
# The gatekeeper accepted a model, with its games and match record.
models=$(ls "$base/models" | grep -v '\.tmp' | sort -V || true)
[[ -n $models ]] || fail "no accepted model in models/"
first=$(echo "$models" | head -1)
[[ $first == e2e-tiny-s* ]] || fail "unexpected model name $first"
[[ -f $base/models/$first/model.json && -f $base/models/$first/weights.pt ]] || fail "incomplete model $first"
(($(count "$base/gatekeepersgf/$first" -name '*.sgfs') >= 1)) || fail "no gatekeeper SGFs for $first"
(($(count "$base/gatekeepersgf/$first" -name '*.json') >= 1)) || fail "no match record for $first"
grep -q accept "$base/gatekeepersgf/$first"/*.json || fail "match record without the decision"
# Cycle 2's selfplay played the accepted model.
(($(count "$base/selfplay/$first/tdata" -name '*.npz') >= 1)) || fail "cycle 2 did not play $first"
# The phase record says the loop finished.
grep -q '"state": "done"' "$base"/status/synchronous_loop-*.json || fail "phase record not done"
(($(stat -c %s "$base"/status/synchronous_loop-*.json) == 4096)) || fail "phase record not padded to 4 KiB"
# Two cycles trained twice: at least two snapshots went through (accepted or rejected).
exported=$(( $(ls "$base/models" | grep -vc '\.tmp' || true) + $(ls "$base/rejectedmodels" 2>/dev/null | grep -vc '\.tmp' || true) ))
((exported >= 2)) || fail "expected 2 exported models over 2 cycles, found $exported"
# The Elo ladder rated an accepted model against GNU Go level 1.
[[ -s $base/ladder/ladder.json ]] || fail "no Elo ladder"
grep -q "$first\|e2e-tiny-s" "$base/ladder/ladder.json" || fail "the ladder does not name a model"
grep -q gnugo-l1 "$base/ladder/ladder.json" || fail "the ladder misses its anchor"
# Later models also play the previous accepted one.
compgen -G "$base/ladder/e2e-tiny-s*-vs-e2e-tiny-s*" > /dev/null || fail "no match against the previous model"
# The terminal: a banner, a line per stage, one summary per cycle (games, rows, samples, losses,
# models, gating, ladder), and none of the programs' option dumps, which go to the console log.
console=$(ls "$base"/logs/synchronous_loop-*.log)
grep -q '^=== cycle 2: ladder' "$console" || fail "the console log misses the stages' headers"
grep -q '^ladder = ' "$console" || fail "the console log misses the programs' options"
! grep -qE '^[a-z_.]+ = ' "$work/loop.log" || fail "the terminal shows the programs' option dumps"
grep -qE '^=== after cycle 2: gating: [1-9][0-9]* accepted, 0 rejected; [0-9]+ models ===' "$work/loop.log" ||
  fail "no summary of the last gating"
grep -q -- '--- cycle 2: export' "$work/loop.log" || fail "no stage line for cycle 2's export"
grep -qE '=== cycle 1 done in [0-9]+m[0-9]{2}s: 6 games, [0-9]+ rows; [0-9]+ samples trained, policy loss [0-9.]+, value loss [0-9.]+; [0-9]+ models; gating: no candidate ===' \
  "$work/loop.log" || fail "no summary line for cycle 1"
grep -qE '=== cycle 2 done in .*; 1 models; gating: 1 accepted, 0 rejected ===' "$work/loop.log" ||
  fail "cycle 2's summary misses the gating result"
grep -qE '^  .* vs gnugo-l1: .*Elo' "$work/loop.log" || fail "no ladder result under a cycle's summary"
(($(wc -l < "$work/loop.log") < 80)) || fail "the terminal got $(wc -l < "$work/loop.log") lines for 2 cycles"
rated=$(wc -l < "$base/ladder/rated.txt")
((rated >= 2)) || fail "rated.txt names $rated models, expected one per accepted model"
# A rerun resumes the count: cycle 3 follows the two cycles done. With the default --rate-every
# 60 and 50 minutes since the last rating (as if run before, on the clock of its own that older
# loops kept), the cycle's time does not make the hour and nothing is rated.
rm "$base/ladder/rated_at_seconds"
echo 3000 > "$base/ladder/seconds_since_rating"
TENGEN_BIN=$bin bash "$src/scripts/synchronous_loop.sh" "$base" e2e tiny b1c16 0 --cycles 1 \
  --games-per-cycle 2 --ladder-games 2 --ladder-visits 4 "${tiny[@]}" > "$work/loop2.log" 2>&1 ||
  { code=$?; cat "$work/loop2.log"; fail "the resumed loop exited with $code"; }
cat "$work/loop2.log"
grep -q "resuming after 2 finished cycles" "$work/loop2.log" || fail "the rerun does not say it resumes"
grep -q "=== cycle 3 done" "$work/loop2.log" || fail "the rerun does not count on from cycle 3"
(($(wc -l < "$base/ladder/rated.txt") == rated)) || fail "a model was rated before its hour was up"
[[ ! -e $base/ladder/seconds_since_rating ]] || fail "the old rating clock was not moved over"
since=$(($(cat "$base/status/loop_running_seconds") - $(cat "$base/ladder/rated_at_seconds")))
((since > 3000 && since < 3600)) || fail "$since s since the last rating, expected 3000 plus the cycle"
# tengen-status reads the run: the accepted models, and no program left stale or dead.
"$bin/tengen-status" "$base" --min-free-gb 0 --min-free-percent 0 > "$work/status.txt" ||
  fail "tengen-status failed"
cat "$work/status.txt"
grep -q "accepted [1-9]" "$work/status.txt" || fail "status misses the accepted models"
! grep -qE "STALE|DEAD" "$work/status.txt" || fail "status reports a stale or dead program"
echo "end-to-end loop: OK ($exported models through the gatekeeper)"
