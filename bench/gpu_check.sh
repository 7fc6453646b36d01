#!/usr/bin/env bash
# One command for the first minutes on a machine with an NVIDIA GPU and a CUDA build of tengen:
# the GPU tests, the net's forward and training speed (with PyTorch from Python beside them
# when a python3 with a CUDA torch is there), selfplay with the shipped net for a while at two
# batch sizes, and two cycles of the synchronous loop with --gpu; then one table of it all.
# Each step writes its result to OUT as it finishes, so a run cut short keeps what it had.
# 332 s on one H200 with 16 cores (2026-11-28; docs/GPU.md has what it found).
#
#   bench/gpu_check.sh [--bin DIR] [--out DIR] [--device cuda:0] [--selfplay-seconds S]
#
#   --bin DIR    the CUDA build's bin/ (default build/cuda-torch*/bin, newest); test_torch is
#                looked for there and in DIR/../tests
#   --out DIR    where results go (default ./gpu-check-<UTC time>)
#   --selfplay-seconds S   measured window of each selfplay run (default 30)
# docs/GPU.md, "Checking a GPU", says how to carry a build to a GPU machine without a compiler.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=""
out=""
device=cuda:0
selfplay_seconds=30
while (($#)); do
  case $1 in
    --bin) bin=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --device) device=$2; shift 2 ;;
    --selfplay-seconds) selfplay_seconds=$2; shift 2 ;;
    *) echo "gpu_check.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [[ -z $bin ]]; then
  bin=$(ls -d "$root"/build/cuda-torch*/bin 2> /dev/null | tail -1)
fi
[[ -x $bin/tengen-selfplay ]] || { echo "gpu_check.sh: no CUDA build in '$bin' (--bin DIR)" >&2; exit 2; }
out=${out:-$PWD/gpu-check-$(date -u +%Y%m%dT%H%M%S)}
mkdir -p "$out"
table=$out/summary.md
: > "$table"
net_dir=$(ls -d "$root"/nets/run-* | tail -1)
start=$(date +%s)

say() { echo "gpu_check: $*" | tee -a "$out/log.txt" >&2; }
row() { echo "| $1 | $2 |" >> "$table"; }
# step NAME TIMEOUT COMMAND...: runs one step, its output to OUT/NAME.txt.
step() {
  local name=$1 limit=$2
  shift 2
  say "$name ($(($(date +%s) - start)) s in)"
  timeout "$limit" "$@" > "$out/$name.txt" 2>&1
  local code=$?
  ((code == 0)) || say "$name exited $code (see $out/$name.txt)"
  return $code
}

{
  echo "# gpu_check $(date -u +%FT%TZ)"
  echo
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2> /dev/null |
    sed 's/^/GPU: /'
  echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores"
  echo "build: $bin"
  echo
  echo "| check | result |"
  echo "| --- | --- |"
} >> "$table"

# 1. The GPU tests (they skip themselves without a GPU: a skip here is a failure).
tests=$bin/test_torch
[[ -x $tests ]] || tests=$bin/../tests/test_torch
if [[ -x $tests ]]; then
  step gpu_tests 120 "$tests" --test-case="gpu*"
  # (doctest counts the tests the filter left out as skipped; a GPU test that skips itself
  # prints why, e.g. the 2-GPU NCCL test on a 1-GPU machine.)
  row "GPU tests" "$(grep -E 'test cases:' "$out/gpu_tests.txt" | tail -1 | tr -s ' ')$(grep -h '^SKIPPED' "$out/gpu_tests.txt" | sort -u | sed 's/^/; /' | tr -d '\n')"
else
  row "GPU tests" "test_torch not found next to $bin"
fi

# 2. Forward evaluations/s, tengen and PyTorch from Python.
step forward 120 "$bin/tengen-bench-nn" --device "$device" --arch b6c96 --batch-sizes 256,1024 \
  --precisions fp32,fp16,bf16 --runs 3 --seconds 0.5
row "forward b6c96, evals/s (batch 256, 1024)" "$(grep -E '^(fp32|fp16|bf16) ' "$out/forward.txt" | tr -s ' ' | tr '\n' ';')"
step forward_b4 60 "$bin/tengen-bench-nn" --device "$device" --arch b4c64 --batch-sizes 256,1024 \
  --precisions fp16 --runs 3 --seconds 0.5
row "forward b4c64 fp16, evals/s (batch 256, 1024)" "$(grep -E '^fp16 ' "$out/forward_b4.txt" | tr -s ' ' | tr '\n' ';')"
step forward_b4_blocking 60 "$bin/tengen-bench-nn" --device "$device" --arch b4c64 \
  --batch-sizes 256,1024 --precisions fp16 --runs 3 --seconds 0.5 --cuda-async-copies false
row "forward b4c64 fp16, blocking copies (cuda_async_copies false)" "$(grep -E '^fp16 ' "$out/forward_b4_blocking.txt" | tr -s ' ' | tr '\n' ';')"
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then
  for p in fp32 fp16; do
    step "pytorch_forward_$p" 60 python3 "$root/bench/train_bench_pytorch.py" --device "$device" \
      --precision "$p" --forward --batch-size 1024 --runs 3 --seconds 1
    row "PyTorch eager forward b6c96 $p batch 1024" "$(tail -1 "$out/pytorch_forward_$p.txt")"
  done
  # What CUDA graphs would save at the selfplay net's size (tengen does not use them yet).
  for graph in "" --cuda-graph; do
    step "pytorch_forward_b4_256${graph}" 60 python3 "$root/bench/train_bench_pytorch.py" \
      --device "$device" --blocks 4 --channels 64 --precision fp16 --forward --batch-size 256 \
      --runs 3 --seconds 1 $graph
    row "PyTorch forward b4c64 fp16 batch 256${graph:+, one CUDA graph}" "$(tail -1 "$out/pytorch_forward_b4_256${graph}.txt")"
  done
else
  row "PyTorch eager baseline" "no python3 with a CUDA torch here"
fi

# 3. Training samples/s.
for arch in b6c96 b10c128; do
  for batch in 256 1024; do
    step "train_${arch}_$batch" 120 "$bin/tengen-bench-train" --device "$device" --arch "$arch" \
      --batch-size "$batch" --precisions fp32,fp16,bf16 --runs 2 --seconds 1
    row "train $arch batch $batch, samples/s" "$(grep -E '^(fp32|fp16|bf16) ' "$out/train_${arch}_$batch.txt" | tr -s ' ' | tr '\n' ';')"
  done
done
if python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2> /dev/null; then
  step pytorch_train 60 python3 "$root/bench/train_bench_pytorch.py" --device "$device" \
    --precision bf16 --batch-size 1024 --runs 3 --seconds 2
  row "PyTorch eager train b6c96 bf16 batch 1024" "$(tail -1 "$out/pytorch_train.txt")"
fi

# 4. Selfplay with the shipped net and the GPU preset (KataGo's 600/100 visits, fp16) at two batch
# sizes, with the GPU's utilization sampled every 500 ms while it runs.
gpu_busy() { # FILE: mean and max of the samples
  awk '{ s += $1; if ($1 > m) m = $1; n++ } END { if (n) printf "GPU busy mean %.0f%%, max %d%% (%d samples)", s / n, m, n }' "$1"
}
for batch in 256 1024; do
  nvidia-smi --query-gpu=utilization.gpu --format=csv,noheader,nounits -lms 500 \
    > "$out/gpu_busy_$batch.txt" 2> /dev/null &
  sampler=$!
  sp=$out/selfplay_base_$batch
  mkdir -p "$sp/models" && cp -r "$net_dir" "$sp/models/"
  step "selfplay_$batch" $((selfplay_seconds + 90)) python3 "$root/bench/selfplay_bench.py" \
    --bin "$bin" --config "$root/configs/selfplay.cfg" --config "$root/configs/gpu/selfplay.cfg" \
    --seconds "$selfplay_seconds" --warmup 15 --runs 1 --set "models_dir=$sp/models" \
    --set "devices=$device,$device" --set "num_game_threads=$((4 * batch))" \
    --set "nn_max_batch_size=$batch"
  kill "$sampler" 2> /dev/null
  row "selfplay $(basename "$net_dir"), batch $batch, $((4 * batch)) games" "$(tail -1 "$out/selfplay_$batch.txt"); $(gpu_busy "$out/gpu_busy_$batch.txt")"
done

# 5. Two cycles of the synchronous loop on the GPU: that it works, not how fast (512 games of
# 200/50 visits a cycle, where --gpu alone plays 600/100).
loop=$out/loop
step loop 240 env TENGEN_BIN="$bin" bash "$root/scripts/synchronous_loop.sh" "$loop" --gpu \
  --cycles 2 --games-per-cycle 512 --set-selfplay full_visits=200 --set-selfplay cheap_visits=50
loop_code=$?
row "synchronous loop, 2 cycles of 512 games (--gpu)" "exit $loop_code, $(find "$loop/models" -mindepth 1 -maxdepth 1 -type d 2> /dev/null | wc -l) models; last line: $(tail -1 "$out/loop.txt")"

echo >> "$table"
echo "$(($(date +%s) - start)) s in all; every step's output is in $out" >> "$table"
cat "$table"
