#!/usr/bin/env bash
# Two or more ways of running the default loop on this machine, side by side: which makes the
# stronger net in the same running time?
#
#   experiments/loop_ab.sh DIR --arm NAME=OPTIONS --arm NAME=OPTIONS [--arm ...] [--hours H] [--slice H]
#                    [--games N] [--rate-games N] [--gnugo-levels L] [--visits V]
#                    [--board-size N] [--model KIND] [-- loop options]
#
# An arm is a name (letters, digits, - and _) and the options its loop gets on top of the
# defaults: scripts/synchronous_loop.sh options (--set-trainer warmup_samples=2000000, ...;
# split at spaces, so values cannot hold one) and --gating 0|1 (the loop's USEGATING, default
# 0). Each arm is a strength run (scripts/strength_run.sh) in DIR/NAME; the arms are trained in
# turns, SLICE hours of running time each (default 0.25), until each has H hours (default 1),
# so that all meet the same machine and the same load. Then the last net of the first arm plays
# N games (default 100) against the last net of each other arm (DIR/final-match/match.json
# with two arms; with more, DIR/final-match-NAME for each arm after the first), and each arm is rated
# on its own ladder (strength_run.sh --rate-only: hourly nets against each other and GNU Go at
# levels L, default 1,5,10, RATE-GAMES games, default 40, and its last net giving GNU Go level
# 10 two stones, as many games; 0: no ladders). Rating games use V
# visits a move (default 100) on an N x N board (default 9). Stop it with Ctrl-C and run the
# same command again: it resumes, and nothing trained or played is done twice. All loops
# train KIND nets (default b4c64, the loop's default); the options after -- go to every loop.
#
# Example: what the score utility buys (docs/RESULTS.md):
#   experiments/loop_ab.sh /work/ab-score --hours 0.5 --rate-games 0 --arm default= \
#     --arm noscore="--set-selfplay dynamic_score_utility=0 --set-selfplay root_ending_bonus_points=0"
set -euo pipefail
# strength_run.sh stops cleanly on Ctrl-C and exits 0; this script must stop too, not go on
# to the other arm (bash runs the trap once the part in the foreground has stopped).
trap 'echo "loop_ab.sh: stopped; run the same command again to resume" >&2; exit 130' INT TERM
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
die() { echo "loop_ab.sh: $*" >&2; exit 2; }

dir="" hours=1 slice=0.25 games=100 rate_games=40 levels=1,5,10 visits=100 board_size=9
model=b4c64
arms=() arm_specs=()
loop_options=()
while (($#)); do
  case $1 in
    --arm) arm_specs+=("$2"); shift 2 ;;
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
    -*) echo "loop_ab.sh: unknown option $1" >&2; usage ;;
    *) [[ -z $dir ]] || usage; dir=$1; shift ;;
  esac
done
[[ -n $dir ]] || usage
for value in "$hours" "$slice"; do
  [[ $value =~ ^[0-9]*\.?[0-9]+$ ]] || die "--hours and --slice must be numbers, got '$value'"
done
[[ $games =~ ^[1-9][0-9]*$ ]] || die "--games must be a positive number, got '$games'"
[[ $rate_games =~ ^(0|[1-9][0-9]*)$ ]] || die "--rate-games must be a number, got '$rate_games'"
((${#arm_specs[@]} >= 2)) || die "give at least two --arm NAME=OPTIONS, got ${#arm_specs[@]}"

# Each arm's USEGATING and loop options, by index.
declare -a arm_gating arm_options
for spec in "${arm_specs[@]}"; do
  [[ $spec == *=* ]] || die "--arm '$spec': expected NAME=OPTIONS"
  name=${spec%%=*}
  [[ $name =~ ^[A-Za-z0-9_-]+$ ]] || die "--arm '$spec': the name '$name' must be letters, digits, - or _"
  for other in "${arms[@]}"; do [[ $other != "$name" ]] || die "--arm $name given twice"; done
  read -ra words <<< "${spec#*=}"
  gating=0 options=""
  for ((i = 0; i < ${#words[@]}; i++)); do
    if [[ ${words[i]} == --gating ]]; then
      gating=${words[i + 1]:-}
      [[ $gating == 0 || $gating == 1 ]] || die "--arm $name: --gating must be 0 or 1, got '$gating'"
      i=$((i + 1))
    else
      options+="${options:+ }${words[i]}"
    fi
  done
  arms+=("$name")
  arm_gating+=("$gating")
  arm_options+=("$options")
done

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [[ -z ${TENGEN_BIN:-} ]]; then
  "$root/scripts/build.sh"
  export TENGEN_BIN=${BUILD_DIR:-$root/build/release}/bin
fi
# What each arm is, for whoever reads DIR later.
for a in "${!arms[@]}"; do
  printf '%s\tUSEGATING=%s\t%s\n' "${arms[a]}" "${arm_gating[a]}" "${arm_options[a]}"
done > "$dir/arms.tsv"

# strength ARM OPTIONS...: strength_run.sh on DIR/<name of arm ARM> with that arm's loop.
strength() {
  local a=$1 own=()
  shift
  read -ra own <<< "${arm_options[a]}"
  bash "$root/scripts/strength_run.sh" "$dir/${arms[a]}" "$@" -- run "$model" "$model" \
    "${arm_gating[a]}" "${loop_options[@]}" "${own[@]}" || exit $?
}

slices=$(awk -v h="$hours" -v s="$slice" 'BEGIN { n = int(h / s); if (n * s < h) n++; print n }')
for ((i = 1; i <= slices; i++)); do
  until_hours=$(awk -v h="$hours" -v s="$slice" -v i="$i" 'BEGIN { t = i * s; print (t < h ? t : h) }')
  echo "loop_ab.sh: slice $i of $slices, every arm to $until_hours hours of running time" >&2
  for a in "${!arms[@]}"; do strength "$a" --hours "$until_hours" --train-only; done
done
newest() { tail -1 "$dir/$1/strength/models.tsv" 2> /dev/null | cut -f1; }
no_model="made no model in $hours hours of running time: nothing to match; give more --hours"
for arm in "${arms[@]}"; do
  [[ -n $(newest "$arm") ]] || die "arm $arm $no_model"
done

# final_match ARM: the first arm's last net against ARM's, N games (once).
final_match() {
  local first=${arms[0]} a b gtp out=$dir/final-match
  a=$(newest "$first")
  b=$(newest "$1")
  ((${#arms[@]} == 2)) || out=$dir/final-match-$1
  if ! grep -qs '"complete": true' "$out/match.json"; then
    gtp="$TENGEN_BIN/tengen-gtp --visits $visits --verbose false --model"
    "$TENGEN_BIN/tengen-match" --engine1 "$gtp $dir/$first/models/$a" --name1 "$first:$a" \
      --engine2 "$gtp $dir/$1/models/$b" --name2 "$1:$b" --games "$games" \
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
}
for arm in "${arms[@]:1}"; do final_match "$arm"; done

# The head-to-head first, the ladders after: the match answers the question; the ladders say
# how far each arm got.
((rate_games > 0)) || exit 0
rating=(--rate-only --games "$rate_games" --gnugo-levels "$levels" --visits "$visits"
  --board-size "$board_size" --handicap-games "$rate_games")
for a in "${!arms[@]}"; do strength "$a" --hours "$hours" "${rating[@]}"; done
