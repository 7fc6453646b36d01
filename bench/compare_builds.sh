#!/usr/bin/env bash
# Two builds of tengen (say Debian's libtorch 1.13 and upstream libtorch 2.x) on the CPU, in
# one run so that both see the same machine: the raw forward (tengen-bench-nn), training
# (tengen-bench-train) and selfplay with the default config, each measurement alternating
# between the builds. Prints a table per measurement; nothing is pass/fail.
#
#   bench/compare_builds.sh BIN_A BIN_B MODEL_DIR [--selfplay-seconds S] [--rounds N]
#
#   BIN_A, BIN_B   the bin/ directories of the two builds (A is the baseline of the ratios)
#   MODEL_DIR      a model directory for selfplay (the net of a default loop: b4c64, 9x9)
#   --selfplay-seconds S   length of each selfplay run (default 300: long enough for games
#                          of a trained net to finish, so that games/hour means something)
#   --rounds N     runs per build of each measurement (default 3; selfplay 1 unless set)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
(($# >= 3)) || usage
bin_a=$1 bin_b=$2 model=$3
shift 3
selfplay_seconds=300
rounds=3
selfplay_rounds=1
while (($#)); do
  case $1 in
    --selfplay-seconds) selfplay_seconds=$2; shift 2 ;;
    --rounds) rounds=$2; selfplay_rounds=$2; shift 2 ;;
    *) usage ;;
  esac
done
for bin in "$bin_a" "$bin_b"; do
  [[ -x $bin/tengen-bench-nn && -x $bin/tengen-bench-train && -x $bin/tengen-selfplay ]] ||
    { echo "compare_builds.sh: $bin lacks tengen-bench-nn, tengen-bench-train or tengen-selfplay" >&2; exit 2; }
done
[[ -f $model/model.json || -d $model ]] || { echo "compare_builds.sh: no model at $model" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
echo "A: $bin_a"
echo "B: $bin_b"

# Raw forward: b4c64 on 9x9, one intra-op thread, per precision and batch size.
for ((r = 1; r <= rounds; r++)); do
  for side in a b; do
    declare -n bin=bin_$side
    "$bin/tengen-bench-nn" --arch b4c64 --pos-len 9 --batch-sizes 1,8,32,128 \
      --precisions fp32,bf16 --runs 1 --seconds 1 --channels-last false 2> /dev/null |
      awk -v s=$side '$1 ~ /^(fp32|bf16)$/ { print s, $1, $2, $3 }' >> "$work/nn"
    unset -n bin
  done
done
echo
echo "Forward evals/s (b4c64, 9x9, 1 thread, NCHW), median of $rounds"
echo "| precision | batch | A | B | B/A |"
echo "| --- | ---: | ---: | ---: | ---: |"
awk '{ v[$1" "$2" "$3] = v[$1" "$2" "$3] " " $4; k[$2" "$3] = 1 }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END { for (key in k) { split(key, p, " "); ma = median(v["a " key]); mb = median(v["b " key])
    printf "| %s | %d | %.0f | %.0f | %.2f |\n", p[1], p[2], ma, mb, mb / ma } }' "$work/nn" |
  sort -t'|' -k2,2 -k3n

# Training: b4c64, batch 128, torch's default threads, fp32 and bf16.
for ((r = 1; r <= rounds; r++)); do
  for side in a b; do
    declare -n bin=bin_$side
    "$bin/tengen-bench-train" --arch b4c64 --pos-len 9 --precisions fp32,bf16 --runs 1 --threads 2 \
      --seconds 5 2> /dev/null | awk -v s=$side '$1 ~ /^(fp32|bf16)$/ { print s, $1, $2 }' >> "$work/train"
    unset -n bin
  done
done
echo
echo "Training samples/s (b4c64, 9x9, batch 128, 2 threads), median of $rounds"
echo "| precision | A | B | B/A |"
echo "| --- | ---: | ---: | ---: |"
awk '{ v[$1" "$2] = v[$1" "$2] " " $3; k[$2] = 1 }
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END { for (p in k) { ma = median(v["a " p]); mb = median(v["b " p])
    printf "| %s | %.0f | %.0f | %.2f |\n", p, ma, mb, mb / ma } }' "$work/train" | sort

# Selfplay with the repository's default config, the model given.
echo
echo "Selfplay, configs/selfplay.cfg, $(basename "$model"), $selfplay_seconds s per run"
echo "| build | run | NN evals/s | games | games/hour |"
echo "| --- | ---: | ---: | ---: | ---: |"
models=$work/models
mkdir -p "$models"
ln -s "$(cd "$model" && pwd)" "$models/$(basename "$model")"
for ((r = 1; r <= selfplay_rounds; r++)); do
  for side in a b; do
    declare -n bin=bin_$side
    out=$work/selfplay-$side-$r
    mkdir -p "$out"
    timeout --foreground -s INT "$selfplay_seconds" "$bin/tengen-selfplay" \
      --config "$root/configs/selfplay.cfg" --output-dir "$out" --models-dir "$models" \
      --set log_seconds=600 > /dev/null 2>&1 || true
    awk -v s="$side" -v r="$r" '/ stopped: / {
        for (i = 1; i <= NF; i++) {
          if ($i == "games" && $(i + 1) ~ /^[0-9]+$/ && !g) g = $(i + 1)
          if ($i == "evals/s,") e = $(i - 2)
          if ($i == "games/hour,") h = $(i - 1)
        }
        printf "| %s | %d | %s | %s | %s |\n", toupper(s), r, e, g, h }' \
      "$out"/logs/selfplay/*.log
    unset -n bin
  done
done
