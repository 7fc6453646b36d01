#!/usr/bin/env bash
# scripts/synchronous_loop.sh --init-from MODEL: one cycle on a 7x7 board that starts from a
# b1c16 model instead of the random net. The model is published into models/ as <name>-init,
# selfplay plays it, the trainer starts from its weights, and the cycle's trained model comes
# after it in models/. A directory that is not a model, and a setting a program does not take,
# are refused before anything starts.
#
#   loop_init_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
src=$1
bin=$2
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
base=$work/base
source "$src/tests/loop_lib.sh"

"$bin/tengen-new-model" --models-dir "$work/start" --arch b1c16 --name start-b1c16 --pos-len 7 \
  --seed 3 > /dev/null
tiny_loop_sets selfplay shuffler trainer

if TENGEN_BIN=$bin bash "$src/scripts/synchronous_loop.sh" "$base" init tiny b1c16 0 \
  --init-from "$work/nothing" --cycles 1 > "$work/refused.log" 2>&1; then
  fail "a missing --init-from model was accepted"
fi
grep -q "not a model directory" "$work/refused.log" || { cat "$work/refused.log"; fail "no reason given"; }
# A bad trainer setting is refused before the first game, not when training first starts.
if TENGEN_BIN=$bin bash "$src/scripts/synchronous_loop.sh" "$base" init tiny b1c16 0 --cycles 1 \
  "${loop_sets[@]}" --set-trainer no_such_key=1 > "$work/refused.log" 2>&1; then
  fail "an unknown trainer key was accepted"
fi
grep -q "tengen-trainer refuses its settings (.*trainer.cfg, --set-trainer): --set: unknown key 'no_such_key'" \
  "$work/refused.log" || { cat "$work/refused.log"; fail "the unknown trainer key was not named"; }
[[ ! -e $base ]] || fail "the refused loop created its base directory"

TENGEN_BIN=$bin bash "$src/scripts/synchronous_loop.sh" "$base" init tiny b1c16 0 \
  --init-from "$work/start/start-b1c16" --cycles 1 --games-per-cycle 6 --ladder-games 0 \
  "${loop_sets[@]}" > "$work/loop.log" 2>&1 || { code=$?; cat "$work/loop.log"; fail "loop exited $code"; }

[[ -f $base/models/start-b1c16-init/weights.pt ]] || fail "the starting model is not in models/"
[[ -n $(find "$base/selfplay/start-b1c16-init/tdata" -name '*.npz') ]] ||
  fail "selfplay did not play the starting model"
[[ ! -d $base/selfplay/random ]] || fail "selfplay played the random net"
grep -rq "starting from the weights of model $work/start/start-b1c16" "$base/logs/trainer" ||
  fail "the trainer did not start from the model's weights"
newest=$(ls "$base/models" | grep -v '\.tmp' | grep '^e2e-tiny-s' || true)
[[ -n $newest ]] || fail "no trained model after the cycle: $(ls "$base/models")"
# The loop that ran recorded its checked settings; other settings on the same base are checked
# again (and this bad one refused), not taken for the recorded ones.
[[ -s $base/status/settings_checked ]] || fail "no record of the checked settings"
if TENGEN_BIN=$bin bash "$src/scripts/synchronous_loop.sh" "$base" init tiny b1c16 0 --cycles 1 \
  "${loop_sets[@]}" --set-trainer no_such_key=1 > "$work/refused.log" 2>&1; then
  fail "an unknown trainer key was accepted on a base directory checked before"
fi
grep -q "unknown key 'no_such_key'" "$work/refused.log" || { cat "$work/refused.log"; fail "not named on resuming"; }
# strength_run.sh --init-from: the model is in models/ before any game (selfplay is made too slow
# to finish one before the 18 s budget, time a loaded machine needs to reach the model's
# publication, and drops its games in flight when stopped); the run records it with 0 games and
# ends at its budget.
strength=$work/strength
TENGEN_BIN=$bin bash "$src/scripts/strength_run.sh" "$strength" --hours 0.005 --train-only -- \
  init tiny b1c16 0 --init-from "$work/start/start-b1c16" --ladder-games 0 "${loop_sets[@]}" \
  --set-selfplay full_visits=5000 --set-selfplay cheap_visits=5000 \
  --set-selfplay finish_games_seconds=0 > "$work/strength.log" 2>&1 ||
  { code=$?; cat "$work/strength.log"; fail "strength_run.sh --init-from exited $code"; }
grep -q $'^start-b1c16-init\t[0-9]*\t0\t' "$strength/strength/models.tsv" ||
  fail "the starting model is not recorded with 0 games: $(cat "$strength/strength/models.tsv")"
echo "ok: started from start-b1c16, trained $newest; strength_run.sh recorded the model before any game"
