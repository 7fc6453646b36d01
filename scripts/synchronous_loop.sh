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
#                 on a small box gating costs more play than it saves; docs/TRAINING.md)
# options:
#   --cycles N            stop after N cycles (default 0: until Ctrl-C)
#   --games-per-cycle N   selfplay games per cycle (default 100)
#   --configs DIR         directory with selfplay.cfg shuffler.cfg trainer.cfg exporter.cfg
#                         gatekeeper.cfg (default: the repository's configs/)
#   --set-PROGRAM K=V     an extra --set for one program (selfplay, shuffler, trainer, exporter,
#                         gatekeeper); repeatable; wins over the loop's own settings below
#   --ladder-games N      after each cycle, play the newest accepted model N games against the
#                         previous accepted one and N against GNU Go level 1 (/usr/games/gnugo)
#                         on the selfplay board size, and rate it on the run's Elo ladder,
#                         BASE/ladder/ladder.json (anchor gnugo-l1 = 0); default 0: off
#   --ladder-visits V     the model's visits per move in those games (default 100)
# The configs' defaults are sized for this 2-core class of box (docs/TRAINING.md); the loop adds
# only what makes each program stop once its part of the cycle is done (--set-PROGRAM
# overrides anything).
#
# The phase (gating, selfplay, shuffle, train, export) and cycle are kept in
# BASEDIR/status/synchronous_loop-<host>.json; each program logs under BASEDIR/logs/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
sigint_at_default "$root/scripts/synchronous_loop.sh" "$@"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }

positional=()
cycles=0
games=100
ladder_games=0
ladder_visits=100
configs=$root/configs
# Extra --set arguments per program, one array each (values may hold spaces).
sets_selfplay=() sets_shuffler=() sets_trainer=() sets_exporter=() sets_gatekeeper=() sets_match=()
while (($#)); do
  case $1 in
    --cycles) cycles=$2; shift 2 ;;
    --games-per-cycle) games=$2; shift 2 ;;
    --configs) configs=$2; shift 2 ;;
    --ladder-games) ladder_games=$2; shift 2 ;;
    --ladder-visits) ladder_visits=$2; shift 2 ;;
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
[[ $cycles =~ ^[0-9]+$ ]] || { echo "synchronous_loop.sh: --cycles must be a number, got '$cycles'" >&2; exit 2; }
[[ $games =~ ^[1-9][0-9]*$ ]] || { echo "synchronous_loop.sh: --games-per-cycle must be a positive number, got '$games'" >&2; exit 2; }
[[ $ladder_games =~ ^[0-9]+$ ]] || { echo "synchronous_loop.sh: --ladder-games must be a number, got '$ladder_games'" >&2; exit 2; }
[[ $ladder_visits =~ ^[1-9][0-9]*$ ]] || { echo "synchronous_loop.sh: --ladder-visits must be a positive number, got '$ladder_visits'" >&2; exit 2; }
((ladder_games == 0)) || [[ -x /usr/games/gnugo ]] || { echo "synchronous_loop.sh: --ladder-games needs GNU Go (apt-get install gnugo)" >&2; exit 2; }
[[ $gating == 0 || $gating == 1 ]] || { echo "synchronous_loop.sh: USEGATING must be 0 or 1, got '$gating'" >&2; exit 2; }
[[ $model_kind =~ ^b[0-9]+c[0-9]+$ ]] || { echo "synchronous_loop.sh: MODELKIND must look like b6c96, got '$model_kind'" >&2; exit 2; }
for program in selfplay shuffler trainer exporter gatekeeper; do
  [[ -f $configs/$program.cfg ]] || { echo "synchronous_loop.sh: missing $configs/$program.cfg" >&2; exit 2; }
done

if [[ -z ${TENGEN_BIN:-} ]]; then
  "$root/scripts/build.sh"
  bin=${BUILD_DIR:-$root/build/release}/bin
else
  bin=$TENGEN_BIN
fi
for program in selfplay shuffler trainer exporter gatekeeper; do
  [[ -x $bin/tengen-$program ]] || { echo "synchronous_loop.sh: $bin/tengen-$program is missing" >&2; exit 1; }
done

mkdir -p "$base/status" "$base/models"
base=$(cd "$base" && pwd)
host=$(hostname 2>/dev/null || echo unknown)
status_file=$base/status/synchronous_loop-$host.json
started=$(date +%s)

# The phase for people and the status tool, in the heartbeat format (published atomically).
record_phase() {
  local phase=$1 cycle=$2 tmp
  tmp=$base/status/.tmp.synchronous_loop-$host-$$
  printf '{"program": "synchronous_loop", "host": "%s", "pid": %d, "time_utc": "%s", "state": "%s", "texts": {"run": "%s", "training_name": "%s", "model_kind": "%s", "gating": "%s"}, "counters": {"cycle": %d, "seconds": %d}}\n' \
    "$host" $$ "$(date -u +%Y-%m-%dT%H:%M:%S.000Z)" "$phase" "$run_name" "$training_name" \
    "$model_kind" "$gating" "$cycle" $(($(date +%s) - started)) > "$tmp"
  mv -f "$tmp" "$status_file"
}

interrupted=0
stage_pid=""
# Each stage runs in a session of its own, so a Ctrl-C (SIGINT to the terminal's process group)
# or a SIGTERM to this script reaches the stage exactly once, from here: a second SIGINT would
# end it at once instead of cleanly.
trap 'interrupted=1; [[ -n $stage_pid ]] && interrupt "$stage_pid"' INT TERM

# run_stage PHASE CYCLE PROGRAM ARGS...: one program to its end; the loop ends after it when
# Ctrl-C arrived (the program itself has stopped cleanly and published what was complete).
run_stage() {
  local phase=$1 cycle=$2 program=$3
  shift 3
  record_phase "$phase" "$cycle"
  echo "=== cycle $cycle: $phase ($(date -u +%H:%M:%S)) ===" >&2
  local code=0
  local command=("$bin/tengen-$program")
  [[ -f $configs/$program.cfg ]] && command+=(--config "$configs/$program.cfg" --output-dir "$base")
  local -n extra=sets_$program
  setsid "${command[@]}" "$@" "${extra[@]}" &
  stage_pid=$!
  while true; do
    set +e
    wait "$stage_pid"
    code=$?
    set -e
    # A trapped signal interrupts wait (status > 128) while the stage still runs: wait again.
    kill -0 "$stage_pid" 2> /dev/null || break
  done
  stage_pid=""
  if ((interrupted)); then
    record_phase stopped "$cycle"
    echo "synchronous_loop.sh: stopped during $phase; run again to resume" >&2
    exit 0
  fi
  if ((code != 0)); then
    record_phase "failed:$phase" "$cycle"
    echo "synchronous_loop.sh: tengen-$program exited with $code (log: $base/logs/$program/)" >&2
    exit "$code"
  fi
}

# rate_newest CYCLE: the newest accepted model (largest s<samples>) on the run's Elo ladder, once
# per model: against GNU Go level 1 (the fixed anchor) and against the previous accepted model.
# Games and match.json go to BASE/ladder/<model>-vs-<opponent>/.
rate_newest() {
  local models model previous size
  mapfile -t models < <(find "$base/models" -mindepth 1 -maxdepth 1 -type d ! -name '*.tmp*' \
    -printf '%f\n' | sed 's/.*-s\([0-9]*\)-d[0-9]*$/\1 &/' | sort -n | cut -d' ' -f2)
  ((${#models[@]})) || return 0
  model=${models[-1]}
  [[ ! -e $base/ladder/$model-vs-gnugo-l1 ]] || return 0
  size=$(sed -n 's/^ *board_sizes *= *\([0-9]*\).*/\1/p' "$configs/selfplay.cfg" | head -1)
  for setting in "${sets_selfplay[@]}"; do
    [[ $setting == board_sizes=* ]] && size=${setting#board_sizes=} && size=${size%%:*}
  done
  mkdir -p "$base/ladder"
  local gtp="$bin/tengen-gtp --visits $ladder_visits --model"
  local common=(--board-size "${size:-9}" --games "$ladder_games" --ladder "$base/ladder/ladder.json"
    --ladder-anchors gnugo-l1=0)
  if ((${#models[@]} > 1)); then
    previous=${models[-2]}
    run_stage ladder "$1" match --engine1 "$gtp $base/models/$model" --name1 "$model" \
      --engine2 "$gtp $base/models/$previous" --name2 "$previous" \
      --output-dir "$base/ladder/$model-vs-$previous" "${common[@]}"
  fi
  run_stage ladder "$1" match --engine1 "$gtp $base/models/$model" --name1 "$model" \
    --engine2 "/usr/games/gnugo --mode gtp --level 1 --chinese-rules --positional-superko" \
    --name2 gnugo-l1 --output-dir "$base/ladder/$model-vs-gnugo-l1" "${common[@]}"
}

echo "synchronous_loop.sh: base $base, run $run_name, training $training_name, net $model_kind, gating $gating, $games games per cycle" >&2
cycle=0
while ((cycles == 0 || cycle < cycles)); do
  cycle=$((cycle + 1))
  if ((gating)); then
    run_stage gating "$cycle" gatekeeper --quit-if-no-nets-to-test true
  fi
  run_stage selfplay "$cycle" selfplay --models-dir "$base/models" --max-games-total "$games"
  run_stage shuffle "$cycle" shuffler --once true
  run_stage train "$cycle" trainer --training-name "$training_name" --run-name "$run_name" \
    --model-kind "$model_kind" --stop-when-train-bucket-limited true --quit-if-no-data true \
    --set export_mode=main
  run_stage export "$cycle" exporter --once true --gating "$([[ $gating == 1 ]] && echo true || echo false)"
  accepted=$(find "$base/models" -mindepth 1 -maxdepth 1 -type d ! -name '*.tmp*' | wc -l)
  echo "=== cycle $cycle done: $accepted accepted models in $base/models ===" >&2
  ((ladder_games == 0)) || rate_newest "$cycle"
done
if ((gating)); then
  run_stage gating "$cycle" gatekeeper --quit-if-no-nets-to-test true
  ((ladder_games == 0)) || rate_newest "$cycle"
fi
record_phase done "$cycle"
