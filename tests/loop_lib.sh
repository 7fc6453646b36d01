# shellcheck shell=bash disable=SC2154
# Shared by loop_async_test.sh, loop_faults_test.sh, loop_interrupt_test.sh, slurm_test.sh,
# strength_run_test.sh, gating_ab_test.sh and the network-filesystem tests (sourced): the tiny
# settings of loop_e2e_test.sh (7x7 board, b1c16 net, a few visits, small epochs, a gatekeeper
# that plays 2 games and accepts any candidate) for the five programs running at once, helpers,
# and the fault tests' checks (check_all).
# Expects: src (source dir), bin (program dir), work (scratch dir), base (base dir); for
# check_all also checker (check_base_dir), per_row and samples_per_epoch (the trainer's).

export TENGEN_BIN=$bin
host=$(hostname 2>/dev/null || echo unknown)
host=${host//\//_}

fail() { echo "FAIL: $*" >&2; exit 1; }
count() { find "$@" 2>/dev/null | grep -v '\.tmp' | wc -l; }
now() { date +%s; }

# The tiny settings, per program (program options for start.sh).
tiny_selfplay=(--set board_sizes=7:1 --set pos_len=7 --set full_visits=12 --set cheap_visits=6
  --set full_probability=0.5 --set num_game_threads=3 --set nn_max_batch_size=3
  --set devices=cpu --set max_rows_per_file=40 --set max_shard_age_seconds=2
  --set model_check_seconds=1 --set log_seconds=5 --set precision=fp32)
tiny_shuffler=(--set min_rows=40 --set interval_seconds=1 --set taper_window_scale=2000
  --set threads=1 --set keep_shuffles=3 --set cleanup_grace_seconds=30)
tiny_trainer=(--training-name tiny --set run_name=e2e --set model_kind=b1c16 --set pos_len=7
  --set batch_size=16 --set samples_per_epoch=64 --set max_train_bucket_per_new_data=4
  --set precision=fp32 --set poll_seconds=1 --set progress_seconds=5 --set threads=1)
tiny_exporter=(--set poll_seconds=1)
tiny_gatekeeper=(--set games=2 --set visits=4 --set board_sizes=7:1 --set pos_len=7
  --set num_game_threads=2 --set required_candidate_win_prop=0 --set poll_seconds=1
  --set precision=fp32)

# tiny_loop_sets PROGRAM...: the tiny settings of the PROGRAMs in synchronous_loop.sh's
# --set-PROGRAM form, into the array loop_sets (options other than --set are left out).
tiny_loop_sets() {
  local program i
  loop_sets=()
  for program in "$@"; do
    local -n tiny=tiny_$program
    for ((i = 0; i < ${#tiny[@]}; i++)); do
      [[ ${tiny[i]} == --set ]] && loop_sets+=(--set-$program "${tiny[i + 1]}")
    done
    unset -n tiny
  done
}

# start PROGRAM [options...]: scripts/start.sh with the tiny settings; prints the pid.
start() {
  local program=$1 out
  shift
  local -n tiny=tiny_$program
  out=$(bash "$src/scripts/start.sh" --check-seconds 0 "$program" "$base" "${tiny[@]}" "$@" 2>&1) ||
    fail "start.sh $program failed: $out"
  echo "$out" >> "$work/start.log"
  sed -n 's/^started tengen-[a-z]* pid \([0-9]*\) .*/\1/p' <<< "$out"
}

# wait_for SECONDS DESCRIPTION COMMAND...: polls COMMAND every half second until it succeeds;
# fails the test when SECONDS pass first.
wait_for() {
  local seconds=$1 what=$2 deadline
  shift 2
  deadline=$(($(now) + seconds))
  until "$@"; do
    (($(now) < deadline)) || fail "timed out after ${seconds} s waiting for: $what"
    sleep 0.5
  done
}

# Newest accepted model (by samples in the name), or empty.
newest_model() {
  { ls "$base/models" 2>/dev/null | grep -v '\.tmp' | grep -v planted | grep -- '-s[0-9]*-d[0-9]*$' |
    sed 's/.*-s\([0-9]*\)-d[0-9]*$/\1 &/' | sort -n | tail -n 1 | cut -d' ' -f2; } || true
}

# The exit status start.sh's supervisor recorded for PROGRAM's PID (empty while it runs).
exit_status_of() {
  sed -n "s/.*start.sh: tengen-$1 pid $2 exited with status \\([0-9]*\\)$/\\1/p" \
    "$base"/logs/"$1"/nohup-*.out 2>/dev/null | tail -1
}

# Stops whatever still runs (test cleanup), quietly.
stop_leftovers() {
  [[ -d $base/run ]] || return 0
  bash "$src/scripts/stop_all.sh" --timeout 20 --kill "$base" > /dev/null 2>&1 || true
}

# --- the fault tests' checks ---------------------------------------------------------------
# check_all WHAT: after a fault (WHAT names it in failures), every published file reads back
# with the project's readers (check_base_dir: nothing partial or corrupt under a final name);
# models/ only grows; every trainer checkpoint ever seen satisfies
#   bucket_level + samples_per_epoch x (epochs + in_epoch) - per_row x bucket_at_row = const
# (rows credited once: a double credit raises it; needs max_train_bucket_size=1e15, which
# keeps the credit linear).
invariant=""
models_before=""
check_all() {
  local what=$1 states value line models
  states=$("$checker" "$base" --seen "$work/seen" --ignore planted 2> "$work/check.err") ||
    { cat "$work/check.err" >&2; fail "partial or corrupt published files after $what"; }
  while read -r line; do
    [[ -n $line ]] || continue
    # state PATH samples epochs in_epoch bucket_level bucket_at_row total_rows
    value=$(awk -v spe="$samples_per_epoch" -v per="$per_row" \
      '{ printf "%.3f", $6 + spe * ($4 + $5) - per * $7 }' <<< "$line")
    if [[ -z $invariant ]]; then
      invariant=$value
    elif [[ $value != "$invariant" ]]; then
      fail "after $what: checkpoint credits differ ($line gives $value, earlier $invariant): rows credited twice?"
    fi
  done <<< "$states"
  models=$(ls "$base/models" | { grep -v '\.tmp' || true; } | sort)
  if [[ -n $models_before ]]; then
    local missing
    missing=$(comm -23 <(echo "$models_before") <(echo "$models"))
    [[ -z $missing ]] || fail "after $what: accepted models lost from models/: $missing"
  fi
  models_before=$models
}

newest_checkpoint() {
  { ls "$base/train/tiny/checkpoints" 2>/dev/null | grep '^ckpt-' | grep -v '\.tmp' | sort | tail -n 1; } || true
}

# expect_resume CKPT LOG: the trainer whose log is LOG resumes from checkpoint CKPT (a name in
# train/tiny/checkpoints) and writes a checkpoint beyond CKPT's samples.
expect_resume() {
  local ckpt=$1 log=$2 samples
  resumed() { grep -q "resuming from $base/train/tiny/checkpoints/$ckpt" "$log" 2>/dev/null; }
  wait_for 60 "the trainer to resume from $ckpt (log $log)" resumed
  samples=$((10#$(sed 's/^ckpt-\([0-9]*\)-.*/\1/' <<< "$ckpt")))
  went_on() {
    local newest
    newest=$(newest_checkpoint)
    [[ -n $newest && $newest != "$ckpt" ]] && ((10#$(sed 's/^ckpt-\([0-9]*\)-.*/\1/' <<< "$newest") > samples))
  }
  wait_for 60 "a checkpoint beyond $samples samples after the restart" went_on
}

samples_of() { sed 's/.*-s\([0-9]*\)-d[0-9]*$/\1/' <<< "$1"; }  # samples_of MODEL_NAME

# wait_newer_model SECONDS WHAT: the loop goes on: a model with more samples than the newest
# one now is accepted within SECONDS (WHAT names the fault in the failure).
wait_newer_model() {
  local seconds=$1 what=$2 last
  last=$(newest_model)
  newer_than_last() {
    local model
    model=$(newest_model)
    [[ -n $model ]] && (($(samples_of "$model") > ${last_samples:-0}))
  }
  last_samples=$(samples_of "$last")
  [[ -n $last ]] || last_samples=-1
  wait_for "$seconds" "a model newer than ${last:-none} after $what" newer_than_last
}
