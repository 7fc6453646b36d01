#!/usr/bin/env bash
# The asynchronous loop: the five programs run at once against one base directory, started by
# scripts/start.sh (two selfplay processes), on a 7x7 board with a b1c16 net, until real files
# have flowed through every stage; then scripts/stop_all.sh stops them. Checks: both selfplay
# processes published shards, a shuffle, a checkpoint, an exported model accepted into
# models/, selfplay data from that model (selfplay switched to it), every process exited 0,
# every published file reads back (check_base_dir), no temporary left behind, no pid file left;
# stop_all.sh right after start.sh still stops a program cleanly.
#
#   loop_async_test.sh SOURCE_DIR BIN_DIR CHECK_BASE_DIR
set -euo pipefail
src=$1
bin=$2
checker=$3
work=$(mktemp -d)
base=$work/base
source "$src/tests/loop_lib.sh"
trap 'stop_leftovers; [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT

selfplay1=$(start selfplay --set seed=11)
selfplay2=$(start selfplay --set seed=12)
start shuffler > /dev/null
start trainer > /dev/null
start exporter > /dev/null
start gatekeeper > /dev/null
[[ -n $selfplay1 && -n $selfplay2 && $selfplay1 != "$selfplay2" ]] || fail "no selfplay pids"
cat "$work/start.log"
# A second shuffler is refused while the first runs; a program that fails at once is reported.
if out=$(bash "$src/scripts/start.sh" shuffler "$base" 2>&1); then fail "a second shuffler was started: $out"; fi
grep -q "runs already" <<< "$out" || fail "unexpected refusal message: $out"
if out=$(bash "$src/scripts/start.sh" --check-seconds 30 selfplay "$base" --set no_such_key=1 2>&1); then
  fail "start.sh reported a selfplay with a bad option as started: $out"
fi
grep -q "exited at once with status 2" <<< "$out" || fail "unexpected message for a bad option: $out"

shards_of() { compgen -G "$base/selfplay/*/tdata/*-$host-$1-*.npz" > /dev/null; }
have_shuffle() { (($(count "$base/shuffleddata" -mindepth 2 -name summary.json) >= 1)); }
have_checkpoint() { (($(count "$base/train/tiny/checkpoints" -name state.json) >= 1)); }
have_model() { [[ -n $(newest_model) ]]; }
# Selfplay switched to an accepted model: shards under selfplay/<a model in models/>/tdata.
played_model() {
  local model
  for model in $(ls "$base/models" 2>/dev/null | grep -v '\.tmp'); do
    (($(count "$base/selfplay/$model/tdata" -name '*.npz') >= 1)) && return 0
  done
  return 1
}
started=$(now)
wait_for 60 "shards of selfplay pid $selfplay1" shards_of "$selfplay1"
wait_for 30 "shards of selfplay pid $selfplay2" shards_of "$selfplay2"
wait_for 60 "a shuffle" have_shuffle
wait_for 60 "a trainer checkpoint" have_checkpoint
wait_for 60 "an accepted model in models/" have_model
wait_for 60 "selfplay data from an accepted model" played_model
echo "every stage produced files after $(($(now) - started)) s"

out=$(bash "$src/scripts/stop_all.sh" --timeout 60 "$base" 2>&1) || { echo "$out"; fail "stop_all.sh failed"; }
echo "$out"
for program in selfplay shuffler trainer exporter gatekeeper; do
  pids=$(sed -n "s/^started tengen-$program pid \\([0-9]*\\) .*/\\1/p" "$work/start.log")
  [[ -n $pids ]] || fail "no $program was started"
  for pid in $pids; do
    status=$(exit_status_of "$program" "$pid")
    [[ $status == 0 ]] || fail "tengen-$program pid $pid exited with status '${status:-still running}'"
    grep -q "tengen-$program pid $pid exited with status 0" <<< "$out" ||
      fail "stop_all.sh did not report tengen-$program pid $pid"
  done
done
(($(ls "$base/run" | grep -c '\.pid$' || true) == 0)) || fail "pid files left in $base/run: $(ls "$base/run")"

# stop_all.sh right after start.sh: the program is still loading, with SIGINT ignored until its
# handler is up, and the one SIGINT must still stop it cleanly.
for round in 1 2 3; do
  pid=$(start exporter)
  out=$(bash "$src/scripts/stop_all.sh" --timeout 30 "$base" exporter 2>&1) ||
    { echo "$out"; fail "stop_all.sh right after start.sh failed (round $round)"; }
  grep -q "tengen-exporter pid $pid exited with status 0" <<< "$out" ||
    fail "stop_all.sh did not stop tengen-exporter pid $pid cleanly: $out"
done
echo "stop_all.sh right after start.sh: 3 of 3 stopped with status 0"

# Every heartbeat says stopped; nothing half-written anywhere; everything published reads back.
for beat in "$base"/status/*.json; do
  grep -q '"state": "stopped"' "$beat" || fail "heartbeat $beat does not say stopped: $(cat "$beat")"
done
leftovers=$(find "$base" -name '*.tmp*' || true)
[[ -z $leftovers ]] || fail "temporaries left behind: $leftovers"
"$checker" "$base" > /dev/null || fail "check_base_dir found partial or corrupt files"
model=$(newest_model)
echo "asynchronous loop: OK ($(ls "$base/models" | wc -l) models accepted, newest $model)"
