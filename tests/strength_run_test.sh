#!/usr/bin/env bash
# scripts/strength_run.sh with the loop's tiny settings: trains for its running-time budget
# (not much more), records each model with its running time and selfplay games, rates the
# first, the interval and the last nets against each other and GNU Go level 1 on the ladder,
# has the last net give GNU Go level 10 two stones (off the ladder), writes the summary; run again, it neither trains nor plays a finished match twice. A loop that
# fails (a bad option) fails the run with its status.
set -euo pipefail
src=$1
bin=$2
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
base=$work/base
source "$src/tests/loop_lib.sh"

tiny_loop_sets selfplay shuffler trainer
# Run 1's running-time budget in seconds, and how far past it the loop may stop (it stops at a
# poll). The budget leaves room for a second model on a busy machine (ctest runs two tests at
# once on two cores), with one restart between: a cycle of the tiny loop has taken up to 42 s
# there, and a budget of 43 s once made a single model.
budget=108 slack=40
hours() { awk -v s="$1" 'BEGIN { print s / 3600 }'; }
run() {
  bash "$src/scripts/strength_run.sh" "$base" --hours "$(hours $budget)" \
    --every "$(hours $((budget / 2)))" --games 2 \
    --gnugo-levels 1 --visits 4 --board-size 7 --handicap-games 2 -- strength tiny b1c16 0 --games-per-cycle 6 \
    "${loop_sets[@]}" > "$work/run$1.log" 2>&1 ||
    { cat "$work/run$1.log"; fail "strength_run.sh exited with $?"; }
}

# A loop that fails (here selfplay, on a key it does not know) fails the run, at once.
status=0
bash "$src/scripts/strength_run.sh" "$work/failing" --hours 0.01 --train-only -- strength tiny \
  b1c16 0 --games-per-cycle 6 "${loop_sets[@]}" --set-selfplay no_such_key=1 \
  > "$work/failing.log" 2>&1 || status=$?
((status == 2)) || { cat "$work/failing.log"; fail "a failing loop: status $status, not 2"; }
grep -q "strength_run.sh: the loop failed (status 2)" "$work/failing.log" ||
  fail "no failure message: $(tail -5 "$work/failing.log")"

started=$(now)
# --train-only: 10 s of the budget, nothing rated; run 1 then trains the rest and rates.
bash "$src/scripts/strength_run.sh" "$base" --hours 0.003 --train-only -- strength tiny b1c16 0 \
  --games-per-cycle 6 "${loop_sets[@]}" > "$work/run0.log" 2>&1 ||
  { cat "$work/run0.log"; fail "strength_run.sh --train-only exited with $?"; }
half=$(cat "$base/strength/running_seconds")
((half >= 10 && half <= 10 + slack)) || fail "--train-only: running time $half s, budget 10 s"
[[ ! -e $base/strength/summary.md ]] && ! compgen -G "$base/ladder/*-vs-*" > /dev/null ||
  fail "--train-only rated nets"
run 1
spent=$(cat "$base/strength/running_seconds")
((spent >= budget && spent <= budget + slack)) || fail "running time $spent s, budget $budget s"
(($(now) - started < 420)) || fail "took $(($(now) - started)) s"
# Each model once, with running seconds within the budget and a selfplay game count.
(($(wc -l < "$base/strength/models.tsv") >= 2)) || fail "fewer than 2 models: $(cat "$base/strength/models.tsv")"
awk -F'\t' -v max=$((budget + slack)) 'NF != 4 || $2 !~ /^[0-9]+$/ || $2 > max || $3 !~ /^[0-9]+$/ { exit 1 }' \
  "$base/strength/models.tsv" || fail "bad models.tsv: $(cat "$base/strength/models.tsv")"
(($(cut -f1 "$base/strength/models.tsv" | sort | uniq -d | wc -l) == 0)) || fail "a model listed twice"
first=$(head -1 "$base/strength/models.tsv" | cut -f1)
[[ -f $base/ladder/$first-vs-gnugo-l1/match.json ]] || fail "the first net was not rated against GNU Go"
grep -q '"complete": true' "$base/ladder/$first-vs-gnugo-l1/match.json" || fail "match incomplete"
grep -q "$first" "$base/ladder/ladder.json" || fail "the first net is not on the ladder"
grep -q "| 0 | $first |" "$base/strength/summary.md" || fail "summary lacks the first net: $(cat "$base/strength/summary.md")"
grep -q "vs gnugo-l1 | 2 |" "$base/strength/summary.md" || fail "summary lacks the GNU Go match"
# The run's last net is rated too, whether or not it appeared at an interval's mark.
last=$(tail -1 "$base/strength/models.tsv" | cut -f1)
grep -q "| $last |" "$base/strength/summary.md" || fail "summary lacks the last net $last"
[[ -f $base/ladder/$last-vs-gnugo-l1/match.json ]] || fail "the last net was not rated against GNU Go"
# The last net gave GNU Go level 10 two stones, off the ladder, and the summary says so.
handicap=$base/ladder/$last-vs-gnugo-l10-2-stones/match.json
grep -q '"complete": true' "$handicap" || fail "no complete handicap match"
grep -q '"handicap": 2' "$handicap" || fail "the handicap match has no stones: $(head -30 "$handicap")"
! grep -q gnugo-l10 "$base/ladder/ladder.json" || fail "the handicap match went on the ladder"
grep -q "vs gnugo-l10 (2 stones to engine 2, komi 0.5) | 2 |" "$base/strength/summary.md" ||
  fail "summary lacks the handicap match: $(cat "$base/strength/summary.md")"
matches=$(ls -d "$base"/ladder/*-vs-* | wc -l)
# The rating games' engines are quiet: the run's output has its results, not a line per move.
! grep -q "genmove" "$work/run1.log" || fail "the engines' move lines are in the output"

# Again: nothing left to train or to play.
stamp=$(stat -c %Y "$base/ladder/$first-vs-gnugo-l1/match.json")
run 2
[[ $(cat "$base/strength/running_seconds") == "$spent" ]] || fail "trained again"
(($(ls -d "$base"/ladder/*-vs-* | wc -l) == matches)) || fail "new matches on the second run"
[[ $(stat -c %Y "$base/ladder/$first-vs-gnugo-l1/match.json") == "$stamp" ]] || fail "a match was played again"
echo "strength_run: ok ($matches matches)"
