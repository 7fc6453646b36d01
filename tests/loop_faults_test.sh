#!/usr/bin/env bash
# Fault tests of the asynchronous loop (7x7, b1c16, the five programs started by
# scripts/start.sh against one base directory):
#  1. Kills: each program is sent SIGINT and, separately, kill -9, at seeded random moments
#     while it works (twice each, in a random order), then restarted. After each: a SIGINT'd
#     program exited 0; every published file reads back with the project's readers
#     (check_base_dir: shards, shuffles, checkpoints, every model directory, JSON, SGFs);
#     models/ only grows; every trainer checkpoint satisfies
#       bucket_level + samples_per_epoch x (epochs + in_epoch) - per_row x bucket_at_row = const
#     (rows credited once: a double credit raises it); the restarted trainer resumes from the
#     newest checkpoint and goes on from its samples. Afterwards the loop accepts a new model.
#  2. Planted files: a corrupt, a truncated and a garbage shard in selfplay/<m>/tdata; a
#     shuffle with a corrupt and a truncated data file, one with a garbage summary, and a
#     garbage file in shuffleddata/; a truncated model and a garbage file in
#     torchmodels_toexport/, modelstobetested/ and models/. Each reader logs and skips (or
#     moves aside) each of them and exits 0 on SIGINT.
# At the end, every program stopped with status 0 and the only temporaries left are those of
# processes killed with -9.
#
#   loop_faults_test.sh SOURCE_DIR BIN_DIR CHECK_BASE_DIR [SEED]
set -euo pipefail
src=$1
bin=$2
checker=$3
seed=${4:-${TENGEN_FAULT_SEED:-20261121}}
work=$(mktemp -d)
base=$work/base
source "$src/tests/loop_lib.sh"
trap 'stop_leftovers; [[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
RANDOM=$seed
echo "fault test seed $seed (set TENGEN_FAULT_SEED to repeat another)"

# Busier than the async test: the shuffler shuffles back to back through temporary buckets,
# the trainer's bucket has no cap (the credit check below is linear).
tiny_shuffler+=(--set interval_seconds=0 --set memory_budget_rows=300 --set rows_per_output_file=200
  --set cleanup_grace_seconds=10)
tiny_trainer+=(--set max_train_bucket_size=1e15)
per_row=4
samples_per_epoch=64

declare -A pid_of=()   # program (selfplay1, selfplay2, shuffler, ...) -> running pid
killed=()              # pids killed with -9: their temporaries may stay
launch() {  # launch SLOT: starts the program of SLOT (selfplay1 -> selfplay) and records its pid
  local slot=$1 program=${1%[12]} extra=()
  [[ $program == selfplay ]] && extra=(--set seed=$((RANDOM + 1)))
  pid_of[$slot]=$(start "$program" "${extra[@]}")
  [[ -n ${pid_of[$slot]} ]] || fail "no pid for $slot"
}
slots=(selfplay1 selfplay2 shuffler trainer exporter gatekeeper)
for slot in "${slots[@]}"; do launch "$slot"; done

log_of() { echo "$base/logs/$1/$host-$2.log"; }
has_log() { [[ -f $(log_of "$1" "$2") ]]; }
has_snapshot() { (($(count "$base/torchmodels_toexport" -mindepth 1 -maxdepth 1) > 0)); }
has_candidate() { (($(count "$base/modelstobetested" -mindepth 1 -maxdepth 1) > 0)); }
gone() { ! kill -0 "$1" 2>/dev/null; }
status_recorded() { [[ -n $(exit_status_of "$1" "$2") ]]; }

have_model() { [[ -n $(newest_model) ]]; }
wait_for 120 "a first accepted model" have_model
check_all "start-up"

# --- 1. kills at random moments -------------------------------------------------------------
# ROUNDS x (a SIGINT and a kill -9 for each program), in a seeded random order.
rounds=${TENGEN_FAULT_ROUNDS:-2}
selected=()
for ((r = 0; r < rounds; r++)); do
  for program in selfplay shuffler trainer exporter gatekeeper; do
    for signal in INT KILL; do selected+=("$program:$signal"); done
  done
done
for ((i = ${#selected[@]} - 1; i > 0; i--)); do
  j=$((RANDOM % (i + 1)))
  tmp=${selected[i]} selected[i]=${selected[j]} selected[j]=$tmp
done
phase_start=$(now)
for event in "${selected[@]}"; do
  program=${event%%:*}
  signal=${event#*:}
  slot=$program
  [[ $program == selfplay ]] && slot=selfplay$((RANDOM % 2 + 1))
  pid=${pid_of[$slot]}
  # While it works: its handlers are up once its log exists; the exporter and gatekeeper
  # work while something is queued for them.
  wait_for 60 "tengen-$program pid $pid to start" has_log "$program" "$pid"
  case $program in
    exporter) wait_for 60 "a snapshot to export" has_snapshot; delay=$((RANDOM % 200)) ;;
    gatekeeper) wait_for 60 "a candidate to test" has_candidate; delay=$((RANDOM % 1500)) ;;
    *) delay=$((RANDOM % 2500)) ;;
  esac
  sleep "$(awk -v ms=$delay 'BEGIN { printf "%.3f", ms / 1000 }')"
  kill -"$signal" "$pid" 2>/dev/null || fail "tengen-$program pid $pid died before the $signal"
  wait_for 60 "tengen-$program pid $pid to exit after SIG$signal" gone "$pid"
  wait_for 10 "the exit status of tengen-$program pid $pid" status_recorded "$program" "$pid"
  status=$(exit_status_of "$program" "$pid")
  if [[ $signal == INT ]]; then
    [[ $status == 0 ]] || fail "tengen-$program pid $pid exited with status $status after SIGINT (log $(log_of "$program" "$pid"))"
  else
    [[ $status == 137 ]] || fail "tengen-$program pid $pid ended with status $status after kill -9"
    killed+=("$pid")
  fi
  echo "$(($(now) - phase_start)) s: SIG$signal to tengen-$program pid $pid after ${delay} ms: status $status"
  check_all "SIG$signal to tengen-$program"
  ckpt=$(newest_checkpoint)
  launch "$slot"
  if [[ $program == trainer && -n $ckpt ]]; then
    # It resumes from the newest checkpoint and trains on from there.
    expect_resume "$ckpt" "$(log_of trainer "${pid_of[$slot]}")"
    check_all "the trainer's restart"
  fi
done

# The loop still produces the next model.
wait_newer_model 90 "the kills"
echo "$(($(now) - phase_start)) s: after the kills the loop accepted $(newest_model)"

stop_out=$(bash "$src/scripts/stop_all.sh" --timeout 60 "$base" 2>&1) ||
  { echo "$stop_out"; fail "stop_all.sh: a program did not stop with status 0"; }
check_all "stop_all.sh"

# --- 2. planted corrupt, truncated and garbage files ------------------------------------------
shard=$(find "$base/selfplay" -path '*/tdata/*.npz' ! -name '*.tmp*' -print -quit)
model_dir=$base/models/$(newest_model)
tdata=$base/selfplay/$(newest_model)/tdata
mkdir -p "$tdata"
size=$(stat -c %s "$shard")
# corrupt FROM TO PART: a copy with one third (PART 0, 1 or 2) overwritten by text; the zip
# directory is at the end, so PART 1 leaves it intact (only reading the arrays fails) and
# PART 2 breaks it (even counting rows fails). Truncated: the first half.
corrupt() {
  local from=$1 to=$2 part=$3 n third
  n=$(stat -c %s "$from")
  third=$((n / 3))
  { head -c $((part * third)) "$from"
    head -c "$third" /dev/zero | tr '\000' x
    tail -c +$(((part + 1) * third + 1)) "$from"; } > "$to"
}
corrupt "$shard" "$tdata/planted-corrupt.npz" 1
head -c $((size / 2)) "$shard" > "$tdata/planted-truncated.npz"
head -c 5000 /dev/urandom > "$tdata/planted-garbage.npz"

shuffle=$(find "$base/shuffleddata" -mindepth 2 -maxdepth 2 -name summary.json ! -path '*.tmp*' |
  sort | tail -n 1 | xargs dirname | xargs basename)
stamp=$(date -u -d '+1 hour' +%Y%m%d-%H%M%S)
fake=$base/shuffleddata/$stamp-planted-corrupt
mkdir -p "$fake.tmp" "$base/shuffleddata/$stamp-planted-summary"
data="data-0000.npz"
corrupt "$base/shuffleddata/$shuffle/$data" "$fake.tmp/data-0000.npz" 2
head -c $(($(stat -c %s "$base/shuffleddata/$shuffle/$data") / 2)) \
  "$base/shuffleddata/$shuffle/$data" > "$fake.tmp/data-0001.npz"
cp "$base/shuffleddata/$shuffle/$data" "$fake.tmp/data-0002.npz"
cp "$base/shuffleddata/$shuffle/summary.json" "$fake.tmp/summary.json"
mv "$fake.tmp" "$fake"
echo '{"total_rows_all_files": ' > "$base/shuffleddata/$stamp-planted-summary/summary.json"
head -c 3000 /dev/urandom > "$base/shuffleddata/$stamp-planted-garbage"

plant_model() {  # plant_model DIR: a copy of model_dir with weights.pt cut in half
  mkdir -p "$1.tmp"
  cp "$model_dir"/* "$1.tmp/"
  truncate -s $(($(stat -c %s "$1.tmp/weights.pt") / 2)) "$1.tmp/weights.pt"
  mv "$1.tmp" "$1"
}
mkdir -p "$base/torchmodels_toexport" "$base/modelstobetested"
plant_model "$base/torchmodels_toexport/planted-tiny-s990000-d1"
# The candidate comes right after the best model, so that it is the first the gatekeeper tests.
best_samples=$(sed 's/.*-s\([0-9]*\)-d[0-9]*$/\1/' <<< "$(newest_model)")
candidate=planted-tiny-s$((best_samples + 1))-d1
plant_model "$base/modelstobetested/$candidate"
plant_model "$base/models/planted-tiny-s990002-d1"
for dir in torchmodels_toexport modelstobetested models; do
  head -c 3000 /dev/urandom > "$base/$dir/planted-garbage"
done

# mentions PROGRAM PID TEXT...: the program's log names every TEXT.
mentions() {
  local program=$1 pid=$2 text
  shift 2
  for text in "$@"; do grep -qF -- "$text" "$(log_of "$program" "$pid")" 2>/dev/null || return 1; done
}
expect_mentions() {  # expect_mentions PROGRAM PID TEXT...
  if ! wait_for_quietly 60 mentions "$@"; then
    local program=$1 pid=$2
    local text
    for text in "${@:3}"; do
      grep -qF -- "$text" "$(log_of "$program" "$pid")" || echo "not in the log: $text" >&2
    done
    fail "tengen-$program pid $pid does not log every planted file (log $(log_of "$program" "$pid"))"
  fi
}
wait_for_quietly() {
  local seconds=$1 deadline
  shift
  deadline=$(($(now) + seconds))
  until "$@"; do (($(now) < deadline)) || return 1; sleep 0.5; done
}

# One program at a time (each stopped with SIGINT, status 0, before the next starts), so that
# each sees the planted files before another moves them or buries them under new work.
stop_one() {  # stop_one PROGRAM
  local out
  out=$(bash "$src/scripts/stop_all.sh" --timeout 60 "$base" "$1" 2>&1) ||
    { echo "$out"; fail "tengen-$1 did not stop with status 0 after the planted files"; }
}
launch shuffler
expect_mentions shuffler "${pid_of[shuffler]}" planted-corrupt.npz planted-truncated.npz planted-garbage.npz
stop_one shuffler
launch trainer
expect_mentions trainer "${pid_of[trainer]}" "$stamp-planted-corrupt/data-0000.npz" \
  "$stamp-planted-corrupt/data-0001.npz" "$stamp-planted-summary"
stop_one trainer
launch exporter
expect_mentions exporter "${pid_of[exporter]}" planted-tiny-s990000-d1 "torchmodels_toexport/planted-garbage"
stop_one exporter
launch gatekeeper
expect_mentions gatekeeper "${pid_of[gatekeeper]}" "rejecting $candidate without games" \
  "cannot use model planted-tiny-s990002-d1" "rejecting planted-garbage without games"
stop_one gatekeeper
launch selfplay1
expect_mentions selfplay "${pid_of[selfplay1]}" planted-tiny-s990002-d1
stop_one selfplay
[[ -d $base/torchmodels_toexport_broken/planted-tiny-s990000-d1 ]] ||
  fail "the exporter did not move the truncated snapshot aside"
[[ -d $base/rejectedmodels/$candidate ]] ||
  fail "the gatekeeper did not reject the truncated candidate"
[[ -f $base/rejectedmodels/planted-garbage ]] ||
  fail "the gatekeeper did not move the garbage file out of modelstobetested/"
check_all "the planted files"

# --- 3. temporaries: only those of processes killed with -9 ---------------------------------
while read -r path; do
  [[ -n $path ]] || continue
  owner=$(sed -n "s/.*\\.tmp\\.$host-\\([0-9]*\\)-.*/\\1/p" <<< "$(basename "$path")")
  [[ " ${killed[*]} " == *" $owner "* ]] || fail "temporary $path was left by a process that was not killed with -9"
done < <(find "$base" -name '*.tmp*' ! -path '*planted*')
echo "fault tests: OK (${#selected[@]} kills, ${#killed[@]} with -9; $(ls "$base/models" | wc -l) models)"
