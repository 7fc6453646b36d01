#!/usr/bin/env bash
# Gating against no gating on this machine, side by side: which makes the stronger net in the
# same running time?
#
#   bench/gating_ab.sh DIR [--hours H] [--slice H] [--games N] [--rate-games N]
#                      [--gnugo-levels L] [--visits V] [--board-size N] [--model KIND]
#                      [-- loop options]
#
# Two strength runs of the default loop (scripts/strength_run.sh), DIR/gating (USEGATING 1) and
# DIR/nogating (0), trained in turns, SLICE hours of running time each (default 0.25), until
# each has H hours (default 1), so that both meet the same machine and the same load. Then the
# last nets of the two play N games (default 100) against each other
# (DIR/final-match/match.json), and each run is rated on its own ladder (strength_run.sh
# --rate-only: hourly nets against each other and GNU Go at levels L, default 1,5,10,
# RATE-GAMES games, default 40). Rating games use V visits a move (default 100) on an N x N
# board (default 9). Stop it with Ctrl-C and run the same command again: it resumes, and
# nothing trained or played is done twice. Both loops train KIND nets (default b4c64, the
# loop's default); the options after -- go to both loops.
set -euo pipefail
# strength_run.sh stops cleanly on Ctrl-C and exits 0; this script must stop too, not go on
# to the other run (bash runs the trap once the part in the foreground has stopped).
trap 'echo "gating_ab.sh: stopped; run the same command again to resume" >&2; exit 130' INT TERM
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }

dir="" hours=1 slice=0.25 games=100 rate_games=40 levels=1,5,10 visits=100 board_size=9
model=b4c64
loop_options=()
while (($#)); do
  case $1 in
    --hours) hours=$2; shift 2 ;;
    --slice) slice=$2; shift 2 ;;
    --games) games=$2; shift 2 ;;
    --rate-games) rate_games=$2; shift 2 ;;
    --gnugo-levels) levels=$2; shift 2 ;;
    --visits) visits=$2; shift 2 ;;
    --board-size) board_size=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --) shift; loop_options=("$@"); break ;;
    -h|--help) usage ;;
    -*) echo "gating_ab.sh: unknown option $1" >&2; usage ;;
    *) [[ -z $dir ]] || usage; dir=$1; shift ;;
  esac
done
[[ -n $dir ]] || usage
for value in "$hours" "$slice"; do
  [[ $value =~ ^[0-9]*\.?[0-9]+$ ]] || { echo "gating_ab.sh: --hours and --slice must be numbers, got '$value'" >&2; exit 2; }
done
[[ $games =~ ^[1-9][0-9]*$ ]] || { echo "gating_ab.sh: --games must be a positive number, got '$games'" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [[ -z ${TENGEN_BIN:-} ]]; then
  "$root/scripts/build.sh"
  export TENGEN_BIN=${BUILD_DIR:-$root/build/release}/bin
fi

# strength RUN GATING OPTIONS...: strength_run.sh on DIR/RUN with the loop's USEGATING.
strength() {
  local run=$1 gating=$2
  shift 2
  bash "$root/scripts/strength_run.sh" "$dir/$run" "$@" -- run "$model" "$model" "$gating" \
    "${loop_options[@]}" || exit $?
}

slices=$(awk -v h="$hours" -v s="$slice" 'BEGIN { n = int(h / s); if (n * s < h) n++; print n }')
for ((i = 1; i <= slices; i++)); do
  until_hours=$(awk -v h="$hours" -v s="$slice" -v i="$i" 'BEGIN { t = i * s; print (t < h ? t : h) }')
  echo "gating_ab.sh: slice $i of $slices, both runs to $until_hours hours of running time" >&2
  strength gating 1 --hours "$until_hours" --train-only
  strength nogating 0 --hours "$until_hours" --train-only
done
newest() { tail -1 "$dir/$1/strength/models.tsv" | cut -f1; }
a=$(newest gating)
b=$(newest nogating)
out=$dir/final-match
if ! grep -qs '"complete": true' "$out/match.json"; then
  gtp="$TENGEN_BIN/tengen-gtp --visits $visits --model"
  "$TENGEN_BIN/tengen-match" --engine1 "$gtp $dir/gating/models/$a" --name1 "gating:$a" \
    --engine2 "$gtp $dir/nogating/models/$b" --name2 "nogating:$b" --games "$games" \
    --board-size "$board_size" --output-dir "$out" --log-level warning
fi
python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
e = m["elo"]
f = lambda x: "unbounded" if x is None else "%+.0f" % x
print("%s vs %s: %d games, %.1f%% for the first, Elo %s (95%%: %s, %s)" % (m["engines"][0]["name"],
      m["engines"][1]["name"], m["games"], 100 * m["win_rate"], f(e["elo"]), f(e["low"]), f(e["high"])))' \
  "$out/match.json"

# The head-to-head first, the ladders after: the match answers the question; the ladders say
# how far each run got.
rating=(--rate-only --games "$rate_games" --gnugo-levels "$levels" --visits "$visits"
  --board-size "$board_size")
strength gating 1 --hours "$hours" "${rating[@]}"
strength nogating 0 --hours "$hours" "${rating[@]}"
