#!/usr/bin/env bash
# Runs the self-play training loop on this machine, one program after another, against one
# base directory:
#   gatekeeper (with gating) -> selfplay -> shuffler -> trainer -> exporter, repeated.
# Ctrl-C (SIGINT) stops the stage in progress cleanly and ends the loop; running it again with
# the same arguments resumes where it stopped.
#
#   scripts/synchronous_loop.sh [BASEDIR [RUNNAME [TRAININGNAME [MODELKIND [USEGATING]]]]] [options]
#
#   BASEDIR       base directory (default ./run)
#   RUNNAME       prefix of model names (default run)
#   TRAININGNAME  the trainer's name, train/<name>/ (default MODELKIND)
#   MODELKIND     net b{blocks}c{channels} (default b4c64: a net this 2-core box trains in
#                 minutes per cycle)
#   USEGATING     1: candidates go through the gatekeeper; 0: straight into models/ (default 0:
#                 on a 2-core box the ungated loop's 45-minute net beat the gated loop's 77 of
#                 100 games; docs/TRAINING.md)
# options:
#   --cycles N            stop after N cycles (default 0: until Ctrl-C)
#   --games-per-cycle N   selfplay games per cycle (default 100)
#   --configs DIR         directory with selfplay.cfg shuffler.cfg trainer.cfg exporter.cfg
#                         gatekeeper.cfg (default: the repository's configs/)
#   --gpu                 one NVIDIA GPU (a CUDA build, TENGEN_BIN): each program also reads
#                         configs/gpu/PROGRAM.cfg where there is one, after its own config
#                         (docs/GPU.md)
#   --set-PROGRAM K=V     an extra --set for one program (selfplay, shuffler, trainer, exporter,
#                         gatekeeper); repeatable; wins over the loop's own settings below
#   --rate-every M        every M minutes of the loop's running time, rate the newest accepted
#                         model on the run's Elo ladder, BASE/ladder/ladder.json (anchor
#                         gnugo-l1 = 0): --ladder-games games against the model rated before
#                         it and as many against GNU Go level 1 (/usr/games/gnugo, installed
#                         when missing), on the selfplay board size (default 60; 0: after
#                         every cycle)
#   --ladder-games N      games per rating match (default 10; 0: no ratings)
#   --ladder-visits V     the model's visits per move in those games (default 100)
#   --init-from MODEL     start from this model directory instead of the random net: a new base
#                         directory gets a copy of it in models/ as MODELNAME-init (so that
#                         selfplay plays it and any trained model outranks it), and the trainer
#                         starts from its weights (init_from; docs/TRAINING.md)
#   --grow-to ARCH        once the loop's finished cycles have run --grow-after minutes, grow
#                         the newest trained model to the net ARCH (b{blocks}c{channels}, at
#                         least MODELKIND's of each; tengen-grow-model: the same outputs at
#                         first) into models/ as RUNNAME-ARCH-s<samples>-d<rows> of the model
#                         it grew from, and go on training ARCH nets from it in train/ARCH/;
#                         BASEDIR/status/grown records it, so a resumed loop goes on at ARCH
#                         (docs/TRAINING.md, "Growing a net")
#   --grow-after M        minutes of running time before --grow-to (default 60)
# The configs' defaults are sized for this 2-core class of box (docs/TRAINING.md); the loop adds
# only what makes each program stop once its part of the cycle is done (--set-PROGRAM
# overrides anything).
#
# The terminal shows one banner, each stage's live progress (its newest progress line) and a
# one-line summary per cycle; each program logs under BASEDIR/logs/<program>/, and everything the
# stages print (options included) goes to BASEDIR/logs/synchronous_loop-<host>.log. The phase
# (grow, gating, selfplay, shuffle, train, export, ladder) and the cycles done are kept in
# BASEDIR/status/synchronous_loop-<host>.json, so that a rerun goes on counting cycles.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
sigint_at_default "$root/scripts/synchronous_loop.sh" "$@"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }

positional=()
cycles=0
games=100
ladder_games=10
ladder_visits=100
rate_every=60
configs=$root/configs
init_from=""
grow_to=""
grow_after=60
gpu_configs=""
# The five programs the loop runs.
programs=(selfplay shuffler trainer exporter gatekeeper)
# Extra --set arguments per program, one array each (values may hold spaces).
sets_selfplay=() sets_shuffler=() sets_trainer=() sets_exporter=() sets_gatekeeper=() sets_match=()
while (($#)); do
  case $1 in
    --cycles|--games-per-cycle|--configs|--ladder-games|--rate-every|--ladder-visits|--init-from|--grow-to|--grow-after|--set-*)
      (($# >= 2)) || { echo "synchronous_loop.sh: $1 needs a value" >&2; exit 2; } ;;&
    --cycles) cycles=$2; shift 2 ;;
    --games-per-cycle) games=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --gpu) gpu_configs=$root/configs/gpu; shift ;;
    --ladder-games) ladder_games=$2; shift 2 ;;
    --rate-every) rate_every=$2; shift 2 ;;
    --ladder-visits) ladder_visits=$2; shift 2 ;;
    --init-from) init_from=$2; shift 2 ;;
    --grow-to) grow_to=$2; shift 2 ;;
    --grow-after) grow_after=$2; shift 2 ;;
    --set-selfplay|--set-shuffler|--set-trainer|--set-exporter|--set-gatekeeper)
      program=${1#--set-}
      declare -n program_sets=sets_$program
      program_sets+=(--set "$2")
      unset -n program_sets
      shift 2 ;;
    -h|--help) usage ;;
    --*) echo "synchronous_loop.sh: unknown option $1" >&2; usage ;;
    *) positional+=("$1"); shift ;;
  esac
done
((${#positional[@]} <= 5)) || { echo "synchronous_loop.sh: too many arguments" >&2; usage; }
base=${positional[0]:-./run}
run_name=${positional[1]:-run}
model_kind=${positional[3]:-b4c64}
training_name=${positional[2]:-$model_kind}
gating=${positional[4]:-0}
[[ $cycles =~ ^(0|[1-9][0-9]*)$ ]] || { echo "synchronous_loop.sh: --cycles must be a number, got '$cycles'" >&2; exit 2; }
[[ $games =~ ^[1-9][0-9]*$ ]] || { echo "synchronous_loop.sh: --games-per-cycle must be a positive number, got '$games'" >&2; exit 2; }
[[ $ladder_games =~ ^(0|[1-9][0-9]*)$ ]] || { echo "synchronous_loop.sh: --ladder-games must be a number, got '$ladder_games'" >&2; exit 2; }
[[ $ladder_visits =~ ^[1-9][0-9]*$ ]] || { echo "synchronous_loop.sh: --ladder-visits must be a positive number, got '$ladder_visits'" >&2; exit 2; }
[[ $rate_every =~ ^(0|[1-9][0-9]*)$ ]] || { echo "synchronous_loop.sh: --rate-every must be a number of minutes, got '$rate_every'" >&2; exit 2; }
((ladder_games == 0)) || [[ -x /usr/games/gnugo ]] || ensure_packages gnugo
((ladder_games == 0)) || [[ -x /usr/games/gnugo ]] || { echo "synchronous_loop.sh: ratings need GNU Go, and it could not be installed (apt-get install gnugo; or --ladder-games 0)" >&2; exit 2; }
[[ $gating == 0 || $gating == 1 ]] || { echo "synchronous_loop.sh: USEGATING must be 0 or 1, got '$gating'" >&2; exit 2; }
[[ $model_kind =~ ^b[0-9]+c[0-9]+$ ]] || { echo "synchronous_loop.sh: MODELKIND must look like b6c96, got '$model_kind'" >&2; exit 2; }
for program in "${programs[@]}"; do
  [[ -f $configs/$program.cfg ]] || { echo "synchronous_loop.sh: missing $configs/$program.cfg" >&2; exit 2; }
done
if [[ -n $init_from ]]; then
  [[ -f $init_from/model.json && -f $init_from/weights.pt ]] || { echo "synchronous_loop.sh: --init-from: '$init_from' is not a model directory (model.json, weights.pt)" >&2; exit 2; }
  init_from=$(cd "$init_from" && pwd)
fi
# refuse_trainer_growth_sets: the trainer settings the loop must choose itself once it grows
# (the user's --set-trainer would win over them) are an error.
refuse_trainer_growth_sets() {
  local i key
  for ((i = 1; i < ${#sets_trainer[@]}; i += 2)); do
    key=${sets_trainer[i]%%=*}
    case ${key//-/_} in
      model_kind | training_name | init_from)
        echo "synchronous_loop.sh: --set-trainer $key: a loop that grows its net chooses the trainer's model_kind, training_name and init_from itself (MODELKIND, TRAININGNAME, --init-from)" >&2
        exit 2 ;;
    esac
  done
}
[[ $grow_after =~ ^(0|[1-9][0-9]*)$ ]] || { echo "synchronous_loop.sh: --grow-after must be a number of minutes, got '$grow_after'" >&2; exit 2; }
if [[ -n $grow_to ]]; then
  [[ $grow_to =~ ^b([0-9]+)c([0-9]+)$ ]] || { echo "synchronous_loop.sh: --grow-to must look like b6c96, got '$grow_to'" >&2; exit 2; }
  grow_blocks=${BASH_REMATCH[1]} grow_channels=${BASH_REMATCH[2]}
  [[ $model_kind =~ ^b([0-9]+)c([0-9]+)$ ]]
  ((grow_blocks >= BASH_REMATCH[1] && grow_channels >= BASH_REMATCH[2])) && [[ $grow_to != "$model_kind" ]] ||
    { echo "synchronous_loop.sh: --grow-to $grow_to must have at least the blocks and channels of MODELKIND $model_kind, and more of one" >&2; exit 2; }
  [[ $grow_to != "$training_name" ]] ||
    { echo "synchronous_loop.sh: --grow-to $grow_to is the name of the training the loop runs now (TRAININGNAME); the grown net trains as train/$grow_to/" >&2; exit 2; }
  refuse_trainer_growth_sets
fi

if [[ -z ${TENGEN_BIN:-} ]]; then
  "$root/scripts/build.sh"
  bin=${BUILD_DIR:-$root/build/release}/bin
else
  bin=$TENGEN_BIN
fi
for program in "${programs[@]}" ${grow_to:+grow-model}; do
  [[ -x $bin/tengen-$program ]] || { echo "synchronous_loop.sh: $bin/tengen-$program is missing" >&2; exit 1; }
done

# config_args PROGRAM: the --config arguments of PROGRAM's config files, in `config_args_out`,
# and the files, in `config_files_out`.
config_args() {
  config_files_out=("$configs/$1.cfg")
  [[ -n $gpu_configs && -f $gpu_configs/$1.cfg ]] && config_files_out+=("$gpu_configs/$1.cfg")
  config_args_out=()
  local file
  for file in "${config_files_out[@]}"; do config_args_out+=(--config "$file"); done
}

# write_file FILE TEXT: FILE holds the line TEXT, replaced in one rename; the loop ends when it
# cannot be written.
write_file() {
  { echo "$2" > "$1.tmp" && mv -f "$1.tmp" "$1"; } ||
    { echo "synchronous_loop.sh: cannot write $1" >&2; exit 1; }
}

# settings_key: what the programs' settings depend on (binaries, config files, --set-PROGRAM
# arguments), as one checksum.
settings_key() {
  local program
  for program in "${programs[@]}"; do
    config_args "$program"
    local -n extra=sets_$program
    stat -L -c '%n %s %Y' "$bin/tengen-$program"
    cat "${config_files_out[@]}"
    printf '%s\n' "${extra[@]}"
    unset -n extra
  done | md5sum | cut -d' ' -f1
}

# check_settings: every program reads its config files and --set-PROGRAM settings now, as its
# stage will (--print-config checks every key and value), so that a bad one is an error before
# the first game rather than when its stage first starts (the trainer's: a cycle in). The five
# checks run side by side, and a base directory whose last run passed them with the same
# settings (BASE/status/settings_checked) skips them.
check_settings() {
  local program failed=0
  settings=$(settings_key)
  [[ $(cat "$base/status/settings_checked" 2> /dev/null) != "$settings" ]] || return 0
  local errors
  errors=$(mktemp -d)
  for program in "${programs[@]}"; do
    config_args "$program"
    local -n extra=sets_$program
    "$bin/tengen-$program" "${config_args_out[@]}" "${extra[@]}" --print-config output_dir \
      > /dev/null 2> "$errors/$program" || echo "$?" > "$errors/$program.status" &
    unset -n extra
  done
  wait
  for program in "${programs[@]}"; do
    [[ -f $errors/$program.status ]] || continue
    config_args "$program"
    echo "synchronous_loop.sh: tengen-$program refuses its settings (${config_files_out[*]}, --set-$program):" \
      "$(grep -v '^Try ' "$errors/$program" | sed 's/^[^:]*: usage error: //')" >&2
    failed=1
  done
  rm -rf "$errors"
  ((failed == 0)) || exit 2
}
check_settings

mkdir -p "$base/status" "$base/models" "$base/logs"
base=$(cd "$base" && pwd)
echo "$settings" > "$base/status/settings_checked"
# The starting model, published into a models/ that has none yet: its name does not end in
# -s<samples>-d<rows>, so it counts as s0 and the first trained model outranks it.
if [[ -n $init_from ]] && [[ -z $(ls "$base/models" | grep -v '\.tmp') ]]; then
  init_copy=$base/models/$(basename "$init_from")-init
  cp -r "$init_from" "$init_copy.tmp-$$"
  mv "$init_copy.tmp-$$" "$init_copy"
fi
# What the trainer starts from when its training has no checkpoint yet (its init_from; a user's
# --set-trainer init_from wins, except in a loop that grows): the --init-from model, or the
# grown model once the run has grown.
trainer_init=$init_from
# A run that grew (BASE/status/grown: "ARCH MODEL") trains ARCH nets from then on, whatever
# --grow-to says now; another ARCH is refused.
grown=""
if [[ -f $base/status/grown ]]; then
  read -r grown_arch grown < "$base/status/grown" || true
  [[ $grown_arch =~ ^b[0-9]+c[0-9]+$ && -n $grown ]] ||
    { echo "synchronous_loop.sh: $base/status/grown should hold 'ARCH MODEL', holds '$(head -c 200 "$base/status/grown")'" >&2; exit 2; }
  [[ -z $grow_to || $grow_to == "$grown_arch" ]] ||
    { echo "synchronous_loop.sh: this run grew to $grown_arch already ($base/status/grown); --grow-to $grow_to" >&2; exit 2; }
  refuse_trainer_growth_sets
  model_kind=$grown_arch training_name=$grown_arch trainer_init=$base/models/$grown
fi
host=$(hostname 2>/dev/null || echo unknown)
status_file=$base/status/synchronous_loop-$host.json
console_log=$base/logs/synchronous_loop-$host.log
started=$(date +%s)
# Cycles finished by earlier runs of the loop on this base directory (0 for a new one).
cycles_done=$(sed -n 's/.*"cycles_done": \([0-9]*\).*/\1/p' "$status_file" 2> /dev/null || true)
cycles_done=${cycles_done:-0}
# The phase the last run on this base directory ended in ("done", "stopped", "failed:train"...).
previous_state=$(sed -n 's/.*"state": "\([^"]*\)".*/\1/p' "$status_file" 2> /dev/null || true)
previous_cycle=$(sed -n 's/.*"cycle": \([0-9]*\).*/\1/p' "$status_file" 2> /dev/null || true)
tty=0
[[ -t 2 ]] && tty=1

# The phase for people and the status tool, in the heartbeat format (published atomically).
record_phase() {
  local phase=$1 cycle=$2 tmp json
  tmp=$base/status/.tmp.synchronous_loop-$host-$$
  printf -v json '{"program": "synchronous_loop", "host": "%s", "pid": %d, "time_utc": "%s", "state": "%s", "texts": {"run": "%s", "training_name": "%s", "model_kind": "%s", "gating": "%s"}, "counters": {"cycle": %d, "cycles_done": %d, "seconds": %d}}' \
    "$host" $$ "$(date -u +%Y-%m-%dT%H:%M:%S.000Z)" "$phase" "$run_name" "$training_name" \
    "$model_kind" "$gating" "$cycle" "$cycles_done" $(($(date +%s) - started))
  # Padded to 4 KiB like the programs' heartbeats: every version has the same size, so a reader
  # on a network filesystem with a cached size of the old one still reads the new one whole.
  printf '%-4095s\n' "$json" > "$tmp"
  mv -f "$tmp" "$status_file"
}

interrupted=0
stage_pid=""
# Each stage runs in a session of its own, so a Ctrl-C (SIGINT to the terminal's process group)
# or a SIGTERM to this script reaches the stage exactly once, from here: a second SIGINT would
# end it at once instead of cleanly.
trap 'interrupted=1; [[ -n $stage_pid ]] && interrupt "$stage_pid"' INT TERM

# A stage's progress lines: the programs' periodic lines (selfplay "playing:", trainer "step",
# match "game"), their warnings and errors, and the lines that say what a stage produced.
progress_pattern=' (WARNING|ERROR) |INFO (playing:|step [0-9]+/|game [0-9]+/|exported |shuffle |.* (accepted|rejected))'

# show_progress FROM: the stage's progress lines after byte FROM of the console log, on the
# terminal: the newest one, rewritten in place (a terminal), or each one (a file or pipe).
# Prints the new byte offset.
show_progress() {
  local size lines
  size=$(stat -c %s "$console_log" 2> /dev/null || echo "$1")
  if ((size > $1)); then
    lines=$(tail -c +"$(($1 + 1))" "$console_log" | head -c $((size - $1)) |
      grep -E "$progress_pattern" | sed 's/^[^ ]* //' | cut -c1-150 || true)
    if [[ -n $lines ]]; then
      if ((tty)); then
        printf '\r\033[K  %s' "$(tail -1 <<< "$lines")" >&2
      else
        sed 's/^/  /' <<< "$lines" >&2
      fi
    fi
  fi
  echo "$size"
}

# advance_progress: show_progress from `offset` on, moving `offset`. A Ctrl-C goes to the whole
# process group, so it can kill show_progress's subshell: its status (130) must not end the
# loop through `set -e` before the trap has stopped the stage; the lines are shown next time.
advance_progress() {
  local next
  if next=$(show_progress "$offset") && [[ $next =~ ^[0-9]+$ ]]; then offset=$next; fi
}

# stop_if_interrupted CYCLE [WHEN]: ends the loop (exit 0, phase "stopped") once Ctrl-C or
# SIGTERM has arrived: after a stage, or between stages when it came in between.
stop_if_interrupted() {
  ((interrupted)) || return 0
  record_phase stopped "$1"
  echo "synchronous_loop.sh: stopped ${2:-between stages}; run again to resume" >&2
  exit 0
}

# run_stage PHASE CYCLE PROGRAM ARGS...: one program to its end, its output appended to the
# console log and its progress shown; the loop ends after it when Ctrl-C arrived (the program
# itself has stopped cleanly and published what was complete).
run_stage() {
  local phase=$1 cycle=$2 program=$3
  shift 3
  stop_if_interrupted "$cycle"
  record_phase "$phase" "$cycle"
  echo "--- cycle $cycle: $phase ($(date -u +%H:%M:%S))" >&2
  echo "=== cycle $cycle: $phase ($(date -u +%H:%M:%S)) ===" >> "$console_log"
  local code=0 offset
  offset=$(stat -c %s "$console_log")
  stage_start=$offset
  local command=("$bin/tengen-$program")
  if [[ -f $configs/$program.cfg ]]; then
    config_args "$program"
    command+=("${config_args_out[@]}" --output-dir "$base")
  fi
  local -n extra=sets_$program
  setsid "${command[@]}" "$@" "${extra[@]}" >> "$console_log" 2>&1 &
  stage_pid=$!
  while kill -0 "$stage_pid" 2> /dev/null; do
    # A trapped signal ends this wait early; the loop goes on until the stage has ended.
    sleep 1 &
    wait $! || true
    advance_progress
  done
  set +e
  wait "$stage_pid"
  code=$?
  set -e
  advance_progress
  ((tty)) && printf '\r\033[K' >&2
  last_stage_pid=$stage_pid
  stage_pid=""
  stop_if_interrupted "$cycle" "during $phase"
  if ((code != 0)); then
    record_phase "failed:$phase" "$cycle"
    tail -c +"$((stage_start + 1))" "$console_log" | tail -15 >&2
    echo "synchronous_loop.sh: tengen-$program exited with $code (its output: $console_log;" \
      "its log: $base/logs/$program/)" >&2
    exit "$code"
  fi
}

# stage_output: what the stage that ran last printed.
stage_output() { tail -c +"$((stage_start + 1))" "$console_log"; }

# cycle_summary CYCLE SECONDS: one line on what the cycle made, from the stages' output and the
# trainer's metrics.
cycle_summary() {
  local metrics=$base/train/$training_name/metrics.jsonl line="" last accepted
  last=$(tail -1 "$metrics" 2> /dev/null || true)
  if [[ -n $last ]]; then
    line=$(awk -v s="$last" 'BEGIN {
      n = split("samples loss_policy loss_value", keys, " ")
      for (i = 1; i <= n; i++) {
        v[keys[i]] = "?"
        if (match(s, "\"" keys[i] "\":[-0-9.e+]+")) v[keys[i]] = substr(s, RSTART + length(keys[i]) + 3, RLENGTH - length(keys[i]) - 3)
      }
      printf "; %d samples trained, policy loss %.3f, value loss %.3f", v["samples"], v["loss_policy"], v["loss_value"]
    }')
  fi
  accepted=$(model_dirs "$base/models")
  echo "=== cycle $1 done in $(($2 / 60))m$(printf %02d $(($2 % 60)))s: $cycle_games$line; $accepted models$cycle_gating ===$cycle_ladder" >&2
}

# selfplay_result: "G games, R rows" from the final heartbeat of the selfplay stage that ran last
# (its pid names the file), whatever its log level.
selfplay_result() {
  local heartbeat
  heartbeat=$(ls "$base"/status/selfplay-*-"$last_stage_pid".json 2> /dev/null | head -1)
  [[ -n $heartbeat ]] || { echo "no selfplay heartbeat"; return; }
  sed -n 's/.*"games": \([0-9]*\),.*"rows": \([0-9]*\),.*/\1 games, \2 rows/p' "$heartbeat"
}

# model_dirs DIR: how many models DIR holds (published ones only).
model_dirs() { { find "$1" -mindepth 1 -maxdepth 1 -type d ! -name '*.tmp*' 2> /dev/null || true; } | wc -l; }

# gating_result ACCEPTED_BEFORE REJECTED_BEFORE: what the gating stage that ran last decided,
# from models/ and rejectedmodels/ (whatever the gatekeeper's log level).
gating_result() {
  local accepted=$(($(model_dirs "$base/models") - $1)) rejected=$(($(model_dirs "$base/rejectedmodels") - $2))
  if ((accepted + rejected == 0)); then
    echo "no candidate"
  else
    echo "$accepted accepted, $rejected rejected"
  fi
}

if [[ -n $previous_state ]]; then
  echo "synchronous_loop.sh: resuming after $cycles_done finished cycles (the last run ended in" \
    "cycle ${previous_cycle:-?}, state '$previous_state'); cycles go on from $((cycles_done + 1))" >&2
fi
# newest_model: the newest model in models/ as selfplay picks it (play/model_registry.h): the
# largest s<samples> (0 for a name without -s<samples>-d<rows>), then the newer directory in
# whole seconds, then the larger name.
newest_model() {
  { find "$base/models" -mindepth 1 -maxdepth 1 -type d ! -name '*.tmp*' -printf '%T@ %f\n' 2> /dev/null || true; } |
    awk '{ s = 0; if (match($2, /-s[0-9]+-d[0-9]+$/)) { split(substr($2, RSTART + 2), p, "-d"); s = p[1] }
           print s, int($1), $2 }' | LC_ALL=C sort -k1,1n -k2,2n -k3,3 | tail -1 | cut -d' ' -f3
}

# rate_newest CYCLE: the newest accepted model (newest_model) on the run's Elo ladder, once
# per model: against the model rated before it (BASE/ladder/rated.txt, one name a line) and
# against GNU Go level 1 (the fixed anchor). Games and match.json go to
# BASE/ladder/<model>-vs-<opponent>/.
rate_newest() {
  local model previous size
  model=$(newest_model)
  [[ -n $model ]] || return 0
  ! grep -qx "$model" "$base/ladder/rated.txt" 2> /dev/null || return 0
  previous=$(tail -1 "$base/ladder/rated.txt" 2> /dev/null || true)
  # The first of selfplay's board sizes ("9:1,13:1" gives 9), as selfplay reads it.
  size=$("$bin/tengen-selfplay" --config "$configs/selfplay.cfg" "${sets_selfplay[@]}" \
    --print-config board_sizes)
  size=${size%%[:,]*}
  mkdir -p "$base/ladder"
  local gtp="$bin/tengen-gtp --visits $ladder_visits --model"
  local common=(--board-size "${size:-9}" --games "$ladder_games" --ladder "$base/ladder/ladder.json"
    --ladder-anchors gnugo-l1=0)
  if [[ -n $previous && -d $base/models/$previous ]]; then
    run_stage ladder "$1" match --engine1 "$gtp $base/models/$model" --name1 "$model" \
      --engine2 "$gtp $base/models/$previous" --name2 "$previous" \
      --output-dir "$base/ladder/$model-vs-$previous" "${common[@]}"
    ladder_result
  fi
  run_stage ladder "$1" match --engine1 "$gtp $base/models/$model" --name1 "$model" \
    --engine2 "/usr/games/gnugo --mode gtp --level 1 --chinese-rules --positional-superko" \
    --name2 gnugo-l1 --output-dir "$base/ladder/$model-vs-gnugo-l1" "${common[@]}"
  ladder_result
  echo "$model" >> "$base/ladder/rated.txt"
}

# The running time of the loop's finished cycles, all runs on this base directory together.
running_clock=$base/status/loop_running_seconds
running_seconds() { cat "$running_clock" 2> /dev/null || echo 0; }
add_running_time() { write_file "$running_clock" $(($(running_seconds) + $1)); }

# rate_when_due CYCLE SECONDS: rates the newest model once --rate-every minutes of running time
# (the unfinished cycle's SECONDS counted) have passed since the last rating, whose running time
# BASE/ladder/rated_at_seconds keeps. A base directory that counted the time since its last
# rating on a clock of its own (seconds_since_rating) has it moved over.
rate_when_due() {
  ((ladder_games > 0)) || return 0
  local clock=$base/ladder/rated_at_seconds old=$base/ladder/seconds_since_rating
  local now=$(($(running_seconds) + $2)) last
  mkdir -p "$base/ladder"
  if [[ -f $old ]]; then
    [[ -f $clock ]] || write_file "$clock" $((now - $2 - $(cat "$old")))
    rm -f "$old"
  fi
  last=$(cat "$clock" 2> /dev/null || echo 0)
  if [[ ! $last =~ ^-?[0-9]+$ ]]; then
    echo "synchronous_loop.sh: $clock holds '$last', not a number of seconds" >&2
    exit 1
  fi
  # A clock ahead of the running time (a loop stopped after a rating, before its cycle counted)
  # rates at once.
  ((now - last >= rate_every * 60 || last > now)) || return 0
  rate_newest "$1"
  write_file "$clock" "$now"
}

# grow_when_due CYCLE: once the finished cycles have run --grow-after minutes, grows the newest
# accepted model to --grow-to into models/ under the samples and rows of the model it grew from,
# a second newer than it (so that selfplay, which breaks ties of samples by the newer directory,
# plays it from this cycle on), records the growth in BASE/status/grown and trains ARCH nets
# from its weights from now on. Runs after the cycle's gating stage, so no small candidate is
# left to outrank it. A loop stopped between the two finds the grown model and only records it.
grow_when_due() {
  [[ -n $grow_to && -z $grown ]] || return 0
  (($(running_seconds) >= grow_after * 60)) || return 0
  local source name
  source=$(newest_model)
  if [[ ! $source =~ -s([1-9][0-9]*)-d([0-9]+)$ ]]; then
    echo "synchronous_loop.sh: no trained model to grow to $grow_to yet; trying again next cycle" >&2
    return 0
  fi
  name=$run_name-$grow_to-s${BASH_REMATCH[1]}-d${BASH_REMATCH[2]}
  if [[ ! -d $base/models/$name ]]; then
    record_phase grow "$1"
    echo "--- cycle $1: grow $source to $grow_to ($(date -u +%H:%M:%S))" >&2
    echo "=== cycle $1: grow ($(date -u +%H:%M:%S)) ===" >> "$console_log"
    "$bin/tengen-grow-model" --from "$base/models/$source" --arch "$grow_to" \
      --models-dir "$base/models" --name "$name" >> "$console_log" 2>&1 || {
      stop_if_interrupted "$1"
      record_phase failed:grow "$1"
      tail -5 "$console_log" >&2
      echo "synchronous_loop.sh: tengen-grow-model could not grow $source to $grow_to (its output: $console_log)" >&2
      exit 1
    }
  fi
  local older
  older=$(stat -c %Y "$base/models/$source")
  (($(stat -c %Y "$base/models/$name") > older)) || touch -m -d "@$((older + 1))" "$base/models/$name"
  write_file "$base/status/grown" "$grow_to $name"
  grown=$name model_kind=$grow_to training_name=$grow_to trainer_init=$base/models/$name
  echo "synchronous_loop.sh: grew $source to $name; training $training_name from it" >&2
  stop_if_interrupted "$1"
}

# ladder_result: the match that ran last, as tengen-match summed it up, for the cycle's summary.
ladder_result() {
  local result
  result=$(stage_output | grep -E ' vs .* wins, .* losses.*Elo' | tail -1 || true)
  [[ -z $result ]] || cycle_ladder+=$'\n'"  $result"
}

echo "synchronous_loop.sh: base $base, run $run_name, training $training_name, net $model_kind, gating $gating, $games games per cycle" >&2
echo "synchronous_loop.sh: every program's options and output: $console_log; their logs: $base/logs/" >&2
cycles_this_run=0
cycle=$cycles_done
while ((cycles == 0 || cycles_this_run < cycles)); do
  cycle=$((cycle + 1))
  cycle_start=$(date +%s)
  cycle_gating=""
  cycle_ladder=""
  if ((gating)); then
    before=("$(model_dirs "$base/models")" "$(model_dirs "$base/rejectedmodels")")
    run_stage gating "$cycle" gatekeeper --quit-if-no-nets-to-test true
    cycle_gating="; gating: $(gating_result "${before[@]}")"
  fi
  grow_when_due "$cycle"
  run_stage selfplay "$cycle" selfplay --models-dir "$base/models" --max-games-total "$games"
  cycle_games=$(selfplay_result)
  run_stage shuffle "$cycle" shuffler --once true
  run_stage train "$cycle" trainer --training-name "$training_name" --run-name "$run_name" \
    --model-kind "$model_kind" --stop-when-train-bucket-limited true --quit-if-no-data true \
    --set export_mode=main ${trainer_init:+--set "init_from=$trainer_init"}
  run_stage export "$cycle" exporter --once true --gating "$([[ $gating == 1 ]] && echo true || echo false)"
  rate_when_due "$cycle" $(($(date +%s) - cycle_start))
  add_running_time $(($(date +%s) - cycle_start))
  cycles_done=$cycle
  cycles_this_run=$((cycles_this_run + 1))
  record_phase "cycle done" "$cycle"
  cycle_summary "$cycle" $(($(date +%s) - cycle_start))
done
if ((gating)); then
  # The last cycle's candidate is tested before the loop ends.
  before=("$(model_dirs "$base/models")" "$(model_dirs "$base/rejectedmodels")")
  cycle_ladder=""
  run_stage gating "$cycle" gatekeeper --quit-if-no-nets-to-test true
  gated=$(gating_result "${before[@]}")
  rate_when_due "$cycle" 0
  echo "=== after cycle $cycle: gating: $gated; $(model_dirs "$base/models") models ===$cycle_ladder" >&2
fi
record_phase done "$cycle"
