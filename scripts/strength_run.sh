#!/usr/bin/env bash
# A strength run: the default training loop (scripts/synchronous_loop.sh) for a given running
# time, then the nets it made rated against each other and against GNU Go on the run's Elo
# ladder. Stop it with Ctrl-C at any time and run the same command again: the loop resumes, the
# running time goes on from where it stopped, finished matches are not played again, and a
# stopped one goes on after its last finished game.
#
#   scripts/strength_run.sh BASEDIR [options] [-- synchronous_loop.sh options]
#
#   --hours H          running time of the training loop, in hours (default 3); time spent
#                      stopped between parts does not count
#   --every H          rate the newest net after every H hours of running time (default 1)
#   --games N          games of each match between consecutive hourly nets and of the last
#                      net against GNU Go level 1 (default 40); the other GNU Go matches play
#                      N/2
#   --gnugo-levels L   GNU Go levels to rate against, comma-separated (default 1,5,10)
#   --visits V         the nets' visits per move in rating games (default 100)
#   --board-size N     board size of the rating games (default 9, the loop's)
#   --handicap-games N games of the last net giving GNU Go level 10 two stones at komi 0.5
#                      (off the ladder, which rates even games; default 40; 0: none)
#   --rate-only        skip training (whatever running time is left) and rate what exists
#   --train-only       train up to the running time, rate nothing (experiments/gating_ab.sh trains
#                      two runs in turns this way, then rates both)
#
# Files, under BASEDIR/strength/:
#   running_seconds    training time so far (updated every 30 s while the loop runs)
#   models.tsv         each model when it first appeared in models/: name, running seconds,
#                      selfplay games finished by then, UTC time
#   summary.md         the rated nets: hour, name, games, Elo with its 95% interval, and the
#                      match results (written after the rating phase)
# Ratings go to BASEDIR/ladder/ladder.json (anchor gnugo-l1 = 0), games to
# BASEDIR/ladder/<a>-vs-<b>/. The rated nets are the first model of the run, for each k the
# newest model that had appeared by running time k * EVERY hours, and the run's last model.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
sigint_at_default "$root/scripts/strength_run.sh" "$@"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }

hours=3
every=1
games=40
levels=1,5,10
visits=100
board_size=9
handicap_games=40
rate_only=0
train_only=0
positional=()
# The loop's own hourly ratings off: this script rates the run's nets on the same ladder itself.
loop_options=(--ladder-games 0)
while (($#)); do
  case $1 in
    --hours|--every|--games|--gnugo-levels|--visits|--board-size|--handicap-games)
      (($# >= 2)) || { echo "strength_run.sh: $1 needs a value" >&2; exit 2; } ;;&
    --hours) hours=$2; shift 2 ;;
    --every) every=$2; shift 2 ;;
    --games) games=$2; shift 2 ;;
    --gnugo-levels) levels=$2; shift 2 ;;
    --visits) visits=$2; shift 2 ;;
    --board-size) board_size=$2; shift 2 ;;
    --handicap-games) handicap_games=$2; shift 2 ;;
    --rate-only) rate_only=1; shift ;;
    --train-only) train_only=1; shift ;;
    --) shift; loop_options+=("$@"); break ;;
    -h|--help) usage ;;
    --*) echo "strength_run.sh: unknown option $1" >&2; usage ;;
    *) positional+=("$1"); shift ;;
  esac
done
((${#positional[@]} == 1)) || { echo "strength_run.sh: expected one BASEDIR" >&2; usage; }
[[ $hours =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "strength_run.sh: --hours must be a number, got '$hours'" >&2; exit 2; }
[[ $every =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "strength_run.sh: --every must be a number, got '$every'" >&2; exit 2; }
[[ $games =~ ^[1-9][0-9]*$ ]] || { echo "strength_run.sh: --games must be a positive number, got '$games'" >&2; exit 2; }
[[ $board_size =~ ^[1-9][0-9]*$ ]] && ((board_size >= 2 && board_size <= 19)) || { echo "strength_run.sh: --board-size must be 2 to 19, got '$board_size'" >&2; exit 2; }
[[ $handicap_games =~ ^(0|[1-9][0-9]*)$ ]] || { echo "strength_run.sh: --handicap-games must be a number, got '$handicap_games'" >&2; exit 2; }
[[ $visits =~ ^[1-9][0-9]*$ ]] || { echo "strength_run.sh: --visits must be a positive number, got '$visits'" >&2; exit 2; }
[[ $levels =~ ^[0-9]+(,[0-9]+)*$ ]] || { echo "strength_run.sh: --gnugo-levels must look like 1,5,10, got '$levels'" >&2; exit 2; }
ensure_packages gnugo
gnugo=/usr/games/gnugo
[[ -x $gnugo ]] || { echo "strength_run.sh: GNU Go is missing at $gnugo" >&2; exit 1; }

base=${positional[0]}
mkdir -p "$base/strength" "$base/models" "$base/ladder"
base=$(cd "$base" && pwd)
if [[ -z ${TENGEN_BIN:-} ]]; then
  "$root/scripts/build.sh"
  bin=${BUILD_DIR:-$root/build/release}/bin
else
  bin=$TENGEN_BIN
fi
export TENGEN_BIN=$bin
state=$base/strength
budget=$(awk -v h="$hours" 'BEGIN { printf "%d", h * 3600 }')
interval=$(awk -v h="$every" 'BEGIN { printf "%d", h * 3600 }')
((budget > 0 && interval > 0)) || { echo "strength_run.sh: --hours and --every must be at least a second" >&2; exit 2; }
running_seconds() { cat "$state/running_seconds" 2> /dev/null || echo 0; }
# (none yet is 0: a model can come before any game, as the copy of --init-from does)
selfplay_games() { { cat "$base"/selfplay/*/sgfs/*.sgfs 2> /dev/null || true; } | wc -l; }

# note_new_models SECONDS: appends models/ entries not yet in models.tsv.
note_new_models() {
  local name games=""
  touch "$state/models.tsv"
  while read -r name; do
    grep -q "^$name	" "$state/models.tsv" && continue
    [[ -n $games ]] || games=$(selfplay_games)
    printf '%s\t%d\t%d\t%s\n' "$name" "$1" "$games" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >> "$state/models.tsv"
  done < <(find "$base/models" -mindepth 1 -maxdepth 1 -type d ! -name '*.tmp*' -printf '%T@ %f\n' |
    sort -n | cut -d' ' -f2)
}

train() {
  local spent start now loop_pid status=0 interrupted=0
  spent=$(running_seconds)
  ((spent < budget)) || return 0
  echo "strength_run.sh: training for $(((budget - spent) / 60)) more minutes of running time" >&2
  start=$(date +%s)
  # SIGINT at its default: a background job of a script starts with it ignored, and the loop
  # could not trap it (interrupt below).
  setsid env --default-signal=INT bash "$root/scripts/synchronous_loop.sh" "$base" "${loop_options[@]}" &
  loop_pid=$!
  stopping=0
  trap 'stopping=1' INT TERM
  # Should this script end early (an error of its own), the loop stops too instead of running on
  # without its budget (the pid is expanded here: the function's locals are gone by then).
  trap "kill -INT $loop_pid 2> /dev/null || true" EXIT
  while kill -0 "$loop_pid" 2> /dev/null; do
    now=$(date +%s)
    echo $((spent + now - start)) > "$state/running_seconds.tmp"
    mv -f "$state/running_seconds.tmp" "$state/running_seconds"
    note_new_models "$(running_seconds)"
    if ((stopping || $(running_seconds) >= budget)); then
      interrupt "$loop_pid"
      wait "$loop_pid" || true
      interrupted=1
      break
    fi
    # Every 30 s, or at the end of the budget if that comes first.
    sleep $((budget - $(running_seconds) < 30 ? budget - $(running_seconds) + 1 : 30)) &
    wait $! || true
  done
  # The loop's own end: 0 when it ran its --cycles, 130 when stopped from elsewhere, anything
  # else a failure (a bad option, a program that failed) that must not pass for a trained run.
  ((interrupted)) || wait "$loop_pid" 2> /dev/null || status=$?
  trap - INT TERM EXIT
  now=$(date +%s)
  echo $((spent + now - start)) > "$state/running_seconds"
  note_new_models "$(running_seconds)"
  if ((status != 0 && status != 130)); then
    echo "strength_run.sh: the loop failed (status $status) after $(($(running_seconds) / 60)) minutes of running time; its output: $base/logs/synchronous_loop-*.log" >&2
    exit "$status"
  fi
  if ((stopping || status == 130)); then
    echo "strength_run.sh: stopped after $(($(running_seconds) / 60)) minutes of running time; run again to resume" >&2
    exit 0
  fi
}

# rated_nets: "hours name" lines: 0 is the run's first model, k * EVERY the newest model that
# had appeared by k * EVERY hours of running time (a net rated at two marks is listed once).
rated_nets() {
  local k name last=""
  name=$(head -1 "$state/models.tsv" 2> /dev/null | cut -f1)
  [[ -n $name ]] && echo "0 $name" && last=$name
  for ((k = 1; k * interval <= budget; k++)); do
    name=$(awk -F'\t' -v t=$((k * interval)) '$2 <= t { n = $1 } END { print n }' "$state/models.tsv")
    [[ -n $name && $name != "$last" ]] || continue
    echo "$(awk -v s=$((k * interval)) 'BEGIN { print s / 3600 }') $name"
    last=$name
  done
  # The run's last net, when the running time is not a multiple of EVERY.
  name=$(tail -1 "$state/models.tsv" 2> /dev/null | cut -f1)
  [[ -n $name && $name != "$last" ]] || return 0
  echo "$(awk -F'\t' -v n="$name" '$1 == n { printf "%.2f", $2 / 3600 }' "$state/models.tsv") $name"
}

# gnugo_engine LEVEL: GNU Go's command line, playing by the referee's rules.
gnugo_engine() { echo "$gnugo --mode gtp --level $1 --chinese-rules --positional-superko"; }

# match NAME1 ENGINE1 NAME2 ENGINE2 GAMES: one match on the ladder. A match played already is run
# again too: tengen-match plays nothing then, and puts it on the ladder if the ladder lacks it
# (one that could not be written when the match ended).
match() {
  local out=$base/ladder/$1-vs-$3
  [[ $1 != "$3" ]] || return 0
  grep -qs '"complete": true' "$out/match.json" || echo "strength_run.sh: $1 against $3, $5 games" >&2
  "$bin/tengen-match" --engine1 "$2" --name1 "$1" --engine2 "$4" --name2 "$3" --games "$5" \
    --board-size "$board_size" --ladder "$base/ladder/ladder.json" --ladder-anchors gnugo-l1=0 \
    --output-dir "$out" --log-level warning
}

rate() {
  local nets=() entry hour name engine previous="" level last n
  local gtp="$bin/tengen-gtp --visits $visits --verbose false --model"
  mapfile -t nets < <(rated_nets)
  ((${#nets[@]})) || { echo "strength_run.sh: no models to rate in $base/models" >&2; exit 1; }
  last=${nets[-1]#* }
  for entry in "${nets[@]}"; do
    hour=${entry%% *}
    name=${entry#* }
    engine="$gtp $base/models/$name"
    if [[ -n $previous ]]; then
      match "$name" "$engine" "$previous" "$gtp $base/models/$previous" "$games"
    fi
    for level in ${levels//,/ }; do
      n=$((games / 2))
      [[ $name == "$last" && $level == 1 ]] && n=$games
      # Earlier nets meet the higher levels only when they are the last one.
      [[ $name == "$last" || $level == 1 ]] || continue
      match "$name" "$engine" "gnugo-l$level" \
        "$(gnugo_engine "$level")" "$n"
    done
    previous=$name
  done
  handicap_match "$last" "$gtp $base/models/$last"
  summarize "${nets[@]}"
}

# handicap_match NAME ENGINE: the net gives GNU Go level 10 two stones at komi 0.5, off the
# ladder, unless it was played already.
handicap_match() {
  local out=$base/ladder/$1-vs-gnugo-l10-2-stones
  ((handicap_games > 0)) || return 0
  grep -qs '"complete": true' "$out/match.json" && return 0
  echo "strength_run.sh: $1 giving gnugo-l10 two stones, $handicap_games games" >&2
  "$bin/tengen-match" --engine1 "$2" --name1 "$1" --name2 gnugo-l10 \
    --engine2 "$(gnugo_engine 10)" \
    --games "$handicap_games" --board-size "$board_size" --rules.komi 0.5 --handicap 2 \
    --output-dir "$out" --log-level warning
}

# summarize "HOUR NAME"...: summary.md from the ladder and the match records.
summarize() {
  local out=$state/summary.md.tmp
  {
    echo "# Strength run: $base"
    echo
    echo "Running time $(($(running_seconds) / 60)) minutes; $(wc -l < "$state/models.tsv") models; $(selfplay_games) selfplay games."
    echo
    echo "| hour | net | running minutes | selfplay games |"
    echo "| --- | --- | --- | --- |"
    local entry
    for entry in "$@"; do
      awk -F'\t' -v n="${entry#* }" -v h="${entry%% *}" \
        '$1 == n { printf "| %s | %s | %d | %d |\n", h, n, $2 / 60, $3 }' "$state/models.tsv"
    done
    echo
    echo '```'
    "$bin/tengen-match" --ladder "$base/ladder/ladder.json" --ladder-anchors gnugo-l1=0 \
      --ladder-show true
    echo '```'
    echo
    echo "| match | games | score of the first | Elo difference (95%) | at a move cap |"
    echo "| --- | --- | --- | --- | --- |"
    local record
    for record in "$base"/ladder/*-vs-*/match.json; do
      [[ -f $record ]] || continue
      python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
e = m["elo"]
f = lambda x: "unbounded" if x is None else "%+.0f" % x
stones = m.get("handicap", 0)
extra = " (%d stones to engine %d, komi %g)" % (stones, m["handicap_engine"], m["komi"]) if stones else ""
capped = sum(g["end"] == "move cap" or "cleanup move cap" in g["detail"] for g in m["game_list"])
print("| %s vs %s%s | %d | %.1f%% | %s (%s, %s) | %d |" % (m["engines"][0]["name"],
      m["engines"][1]["name"], extra, m["games"], 100 * m["win_rate"], f(e["elo"]), f(e["low"]),
      f(e["high"]), capped))' "$record"
    done
  } > "$out"
  mv -f "$out" "$state/summary.md"
  cat "$state/summary.md"
}

((rate_only && train_only)) && { echo "strength_run.sh: --rate-only and --train-only exclude each other" >&2; exit 2; }
((rate_only)) || train
((train_only)) && exit 0
rate
