#!/usr/bin/env bash
# A smoke run of the loop on 19x19: one cycle of scripts/synchronous_loop.sh with a b1c16 net
# at pos_len 19 and a handful of visits, and every stage leaves its file: selfplay games and a
# shard of 19x19 rows, a shuffle, a trained step (a checkpoint), an exported model made for
# pos_len 19 in models/.
#
#   loop_19x19_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
src=$1
bin=$2
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
base=$work/base
source "$src/tests/loop_lib.sh"

TENGEN_BIN=$bin bash "$src/scripts/synchronous_loop.sh" "$base" big b1c16 b1c16 0 \
  --cycles 1 --games-per-cycle 2 --ladder-games 0 \
  --set-selfplay board_sizes=19:1 --set-selfplay pos_len=19 --set-selfplay full_visits=4 \
  --set-selfplay cheap_visits=2 --set-selfplay num_game_threads=2 --set-selfplay devices=cpu \
  --set-selfplay log_level=warning \
  --set-shuffler min_rows=50 --set-shuffler log_level=warning \
  --set-trainer pos_len=19 --set-trainer batch_size=16 --set-trainer samples_per_epoch=32 \
  --set-trainer precision=fp32 --set-exporter log_level=warning \
  > "$work/loop.log" 2>&1 || { code=$?; cat "$work/loop.log"; fail "loop exited $code"; }

[[ -n $(find "$base/selfplay/random/sgfs" -name '*.sgfs') ]] || fail "no 19x19 games"
grep -q 'SZ\[19\]' "$base"/selfplay/random/sgfs/*.sgfs || fail "the games are not 19x19"
[[ -n $(find "$base/selfplay/random/tdata" -name '*.npz') ]] || fail "no selfplay shard"
[[ -n $(find "$base/shuffleddata" -name summary.json) ]] || fail "no shuffle"
[[ -n $(find "$base/train/b1c16/checkpoints" -name state.json) ]] || fail "no trained step"
model=$(ls "$base/models" | grep '^big-b1c16-s' | head -1 || true)
[[ -n $model ]] || fail "no exported model in models/"
grep -q '"pos_len": 19' "$base/models/$model/model.json" || fail "$model is not made for 19x19"
echo "ok: 19x19 games, a shard, a shuffle, a checkpoint and $model"
