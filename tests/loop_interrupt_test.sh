#!/usr/bin/env bash
# scripts/synchronous_loop.sh and Ctrl-C: a SIGINT to the loop's whole process group (what a
# terminal sends) while selfplay runs reaches the stage once, through the loop; selfplay
# publishes its finished rows and exits 0, the loop exits 0 saying where it stopped, and its
# phase record says "stopped". Run again, the loop finishes a cycle (7x7 board, b1c16 net,
# gating off) and its record says "done". Every published file reads back (check_base_dir).
#
#   loop_interrupt_test.sh SOURCE_DIR BIN_DIR CHECK_BASE_DIR
set -euo pipefail
src=$1
bin=$2
checker=$3
work=$(mktemp -d)
base=$work/base
loop_pid=""
source "$src/tests/loop_lib.sh"  # fail, count, now, wait_for
trap 'code=$?; ((code == 0)) || tail -20 "$work/loop1.log" >&2 2> /dev/null || true
  [[ -z $loop_pid ]] || kill -KILL -- "-$loop_pid" 2> /dev/null || true
  [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT

tiny=(--set-selfplay board_sizes=7:1 --set-selfplay pos_len=7 --set-selfplay full_visits=12
  --set-selfplay cheap_visits=6 --set-selfplay full_probability=0.5
  --set-selfplay num_game_threads=4 --set-selfplay max_rows_per_file=20
  --set-shuffler min_rows=40 --set-shuffler log_level=warning
  --set-trainer pos_len=7 --set-trainer batch_size=16 --set-trainer samples_per_epoch=64
  --set-trainer precision=fp32 --set-trainer log_level=warning
  --set-exporter log_level=warning)

# Started as a new user would from a script: `setsid nohup ... &` in a non-interactive shell
# starts the loop with SIGINT ignored (the loop runs itself again with SIGINT at its default,
# or bash could not trap it), in a process group of its own, which gets the Ctrl-C below.
setsid nohup bash "$src/scripts/synchronous_loop.sh" \
  "$base" ctrlc tiny b1c16 0 --games-per-cycle 100000 "${tiny[@]}" > "$work/loop1.log" 2>&1 &
loop_pid=$!
in_selfplay() { grep -q '"state": "selfplay"' "$base"/status/synchronous_loop-*.json 2> /dev/null; }
has_shards() { (($(count "$base/selfplay/random/tdata" -name '*.npz') >= 1)); }
wait_for 60 "the selfplay phase" in_selfplay
wait_for 60 "selfplay shards" has_shards
kill -INT -- "-$loop_pid"
exited() { ! kill -0 "$loop_pid" 2> /dev/null; }
wait_for 60 "the loop to stop after Ctrl-C" exited
set +e
wait "$loop_pid"
code=$?
set -e
loop_pid=""
cat "$work/loop1.log"
((code == 0)) || fail "the loop exited with $code after Ctrl-C"
grep -q "stopped during selfplay; run again to resume" "$work/loop1.log" || fail "no 'stopped during selfplay' line"
grep -q '"state": "stopped"' "$base"/status/synchronous_loop-*.json || fail "phase record not 'stopped'"
grep -q "stop requested" "$base"/logs/selfplay/*.log || fail "selfplay did not see the SIGINT"
grep -q "tengen-selfplay done" "$base"/logs/selfplay/*.log || fail "selfplay did not end cleanly"
leftovers=$(find "$base" -name '*.tmp*' || true)
[[ -z $leftovers ]] || fail "temporaries left behind: $leftovers"
"$checker" "$base" > /dev/null || fail "check_base_dir found partial or corrupt files after Ctrl-C"

# Run again: one whole cycle.
bash "$src/scripts/synchronous_loop.sh" "$base" ctrlc tiny b1c16 0 --cycles 1 \
  --games-per-cycle 6 "${tiny[@]}" > "$work/loop2.log" 2>&1 ||
  { code=$?; cat "$work/loop2.log"; fail "the resumed loop exited with $code"; }
grep -q '"state": "done"' "$base"/status/synchronous_loop-*.json || fail "phase record not 'done'"
grep -q "resuming after 0 finished cycles (the last run ended in cycle 1, state 'stopped')" \
  "$work/loop2.log" || fail "the rerun does not say what it resumes"
grep -q "=== cycle 1 done" "$work/loop2.log" || fail "the rerun does not redo the unfinished cycle 1"
grep -q "^max_games_total = " "$base"/logs/synchronous_loop-*.log || fail "selfplay's options are not in the console log"
! grep -q "^max_games_total = " "$work/loop1.log" || fail "selfplay's options reached the terminal"
(($(count "$base/models" -mindepth 1 -maxdepth 1 -type d) == 1)) || fail "the resumed cycle exported no model"
"$checker" "$base" > /dev/null || fail "check_base_dir found partial or corrupt files after the resumed cycle"
echo "synchronous loop: Ctrl-C during selfplay stopped it cleanly, and a resumed cycle finished: OK"
