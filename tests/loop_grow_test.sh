#!/usr/bin/env bash
# scripts/synchronous_loop.sh --grow-to: a 7x7 loop of b1c16 nets grows its newest trained
# model to b1c24 at the start of cycle 2 (--grow-after 0). The grown model is published into
# models/ under its source's samples and rows and a newer time, selfplay plays it, the trainer
# goes on as train/b1c24/ from its weights with names counting on from its samples, and cycle 3
# plays the trained b1c24 net. A resumed loop goes on at b1c24 without --grow-to; growing to
# another size then, sizes smaller than the run's, and trainer settings the growth chooses are
# refused. With gating, the small net's last candidate is gated before the growth and does not
# take selfplay back from the grown model. A grown model published by a loop that stopped before
# recording it is recorded and played on resuming.
#
#   loop_grow_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
src=$1
bin=$2
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
base=$work/base
source "$src/tests/loop_lib.sh"

tiny_loop_sets selfplay shuffler gatekeeper
# The tiny trainer without its model_kind and run_name, which would win over the loop's.
loop_sets+=(--set-trainer pos_len=7 --set-trainer batch_size=16 --set-trainer samples_per_epoch=64
  --set-trainer max_train_bucket_per_new_data=4 --set-trainer precision=fp32 --set-trainer threads=1)
gating=0
loop() { TENGEN_BIN=$bin bash "$src/scripts/synchronous_loop.sh" "$base" grow tiny b1c16 "$gating" \
  --games-per-cycle 6 --ladder-games 0 "${loop_sets[@]}" "$@"; }

refused() {  # refused MESSAGE OPTIONS...: the loop exits 2 naming MESSAGE, before anything starts
  local message=$1 code=0
  shift
  loop --cycles 1 "$@" > "$work/refused.log" 2>&1 || code=$?
  ((code == 2)) || { cat "$work/refused.log"; fail "$* was not refused (exit $code)"; }
  grep -q -- "$message" "$work/refused.log" || { cat "$work/refused.log"; fail "$*: no '$message'"; }
}
refused "must have at least the blocks and channels of MODELKIND b1c16" --grow-to b1c8
refused "must have at least the blocks and channels of MODELKIND b1c16" --grow-to b1c16
refused "must look like b6c96" --grow-to big
refused "grow-after must be a number of minutes" --grow-to b1c24 --grow-after soon
refused "a loop that grows its net chooses the trainer's model_kind" --grow-to b1c24 \
  --set-trainer model-kind=b1c16
[[ ! -e $base ]] || fail "a refused loop created its base directory"

loop --cycles 3 --grow-to b1c24 --grow-after 0 > "$work/loop.log" 2>&1 ||
  { code=$?; cat "$work/loop.log"; fail "loop exited $code"; }
grep -q "no trained model to grow to b1c24 yet" "$work/loop.log" ||
  { cat "$work/loop.log"; fail "cycle 1 (the random net) did not wait for a trained model"; }
read -r arch grown < "$base/status/grown" || fail "no BASE/status/grown"
[[ $arch == b1c24 && $grown =~ ^grow-b1c24-s([0-9]+)-d([0-9]+)$ ]] ||
  fail "status/grown says '$arch $grown'"
samples=${BASH_REMATCH[1]}
source_model=grow-tiny-s$samples-d${BASH_REMATCH[2]}
[[ -d $base/models/$source_model ]] || fail "the grown model's source $source_model is not in models/"
grep -q '"architecture": "b1c24"' "$base/models/$grown/model.json" || fail "$grown is not b1c24"
[[ -n $(find "$base/selfplay/$grown/tdata" -name '*.npz' 2> /dev/null) ]] ||
  fail "selfplay did not play the grown model"
grep -rq "starting from the weights of model $base/models/$grown ($samples samples)" "$base/logs/trainer" ||
  fail "the b1c24 training did not start from the grown model"
(($(stat -c %Y "$base/models/$grown") > $(stat -c %Y "$base/models/$source_model"))) ||
  fail "$grown is not newer than $source_model in whole seconds (selfplay breaks ties by them)"
# The b1c24 training's models count on from the grown model's samples, and the last cycle
# played one of them.
trained=$(ls "$base/models" | grep -v '\.tmp' | grep '^grow-b1c24-s' | grep -vx "$grown" |
  sed 's/.*-s\([0-9]*\)-d[0-9]*$/\1 &/' | sort -n | cut -d' ' -f2 || true)
[[ -n $trained ]] || fail "no trained b1c24 model: $(ls "$base/models")"
for model in $trained; do
  (($(samples_of "$model") > samples)) || fail "$model does not count on from $samples samples"
done
played=$(ls "$base/selfplay" | grep -x -F "$trained" || true)
[[ -n $played ]] || fail "cycle 3 did not play a trained b1c24 model: $(ls "$base/selfplay")"

# Resumed without --grow-to, the run goes on at b1c24 (its checkpoints, not the grown model).
loop --cycles 1 > "$work/resumed.log" 2>&1 || { code=$?; cat "$work/resumed.log"; fail "resumed loop exited $code"; }
grep -q "training b1c24, net b1c24" "$work/resumed.log" ||
  { cat "$work/resumed.log"; fail "the resumed loop did not go on at b1c24"; }
grep -rq "resuming from $base/train/b1c24/checkpoints/" "$base/logs/trainer" ||
  fail "the resumed b1c24 training did not resume from its checkpoint"
[[ $(cat "$base/status/grown") == "b1c24 $grown" ]] || fail "status/grown changed on resuming"
[[ ! -d $base/train/b1c32 ]] || fail "unexpected training"
refused "this run grew to b1c24 already" --grow-to b1c32
refused "a loop that grows its net chooses the trainer's model_kind" --set-trainer init_from=/x
echo "ok: grew $source_model to $grown; trained $(wc -w <<< "$trained") b1c24 models on from $samples samples"

# With gating: cycle 2 gates cycle 1's candidate, then grows the model it accepted; cycle 3
# gates the b1c24 candidates against the grown model and plays the one it accepts.
gating=1 base=$work/gated
loop --cycles 3 --grow-to b1c24 --grow-after 0 > "$work/gated.log" 2>&1 ||
  { code=$?; cat "$work/gated.log"; fail "gated loop exited $code"; }
read -r arch grown < "$base/status/grown" || fail "gated: no BASE/status/grown"
[[ -n $(find "$base/selfplay/$grown/tdata" -name '*.npz' 2> /dev/null) ]] ||
  { cat "$work/gated.log"; fail "gated: selfplay did not play the grown model $grown"; }
played=$(ls "$base/selfplay" | grep '^grow-b1c24-s' | grep -vx "$grown" || true)
[[ -n $played ]] || { cat "$work/gated.log"; fail "gated: cycle 3 did not play a trained b1c24 model: $(ls "$base/selfplay")"; }
[[ -z $(ls "$base/selfplay" | grep '^grow-tiny-s' | grep -vx "${grown/b1c24/tiny}") ]] ||
  fail "gated: selfplay went back to a small net after the growth: $(ls "$base/selfplay")"
echo "ok: gated, grew to $grown and played $played"

# A loop stopped after publishing the grown model and before recording it: the resumed loop
# records the model it finds and makes it newer than its source, so selfplay plays it.
gating=0 base=$work/crashed
loop --cycles 1 > "$work/crashed.log" 2>&1 || { code=$?; cat "$work/crashed.log"; fail "crashed: loop exited $code"; }
source_model=$(ls "$base/models" | grep '^grow-tiny-s[1-9]' | sort -V | tail -1 || true)
[[ $source_model =~ -s([0-9]+)-d([0-9]+)$ ]] || fail "crashed: no trained model: $(ls "$base/models")"
grown=grow-b1c24-s${BASH_REMATCH[1]}-d${BASH_REMATCH[2]}
"$bin/tengen-grow-model" --from "$base/models/$source_model" --arch b1c24 --models-dir "$base/models" \
  --name "$grown" > "$work/grow.log" 2>&1 || { cat "$work/grow.log"; fail "tengen-grow-model failed"; }
touch -m -r "$base/models/$source_model" "$base/models/$grown"
loop --cycles 1 --grow-to b1c24 --grow-after 0 > "$work/crashed.log" 2>&1 ||
  { code=$?; cat "$work/crashed.log"; fail "crashed: the resumed loop exited $code"; }
[[ $(cat "$base/status/grown") == "b1c24 $grown" ]] || fail "crashed: status/grown says $(cat "$base/status/grown")"
(($(stat -c %Y "$base/models/$grown") > $(stat -c %Y "$base/models/$source_model"))) ||
  fail "crashed: $grown is not newer than $source_model"
[[ -n $(find "$base/selfplay/$grown/tdata" -name '*.npz' 2> /dev/null) ]] ||
  { cat "$work/crashed.log"; fail "crashed: selfplay did not play the grown model $grown"; }
echo "ok: a grown model published before a stop is recorded and played"
