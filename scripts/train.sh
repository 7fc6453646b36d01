#!/usr/bin/env bash
# Starts tengen-trainer as one or more data-parallel ranks on this machine and waits for them
# (torchrun is not needed; `torchrun --no-python tengen-trainer ...` works as well).
#
#   scripts/train.sh [--gpus N | --cpu-ranks N] [--nodes M --node-rank R --master-addr HOST]
#                    [--master-port PORT] [--batch-size B] [--precision P] -- TRAINER OPTIONS
#
#   --gpus N        N ranks on this node, each on its own GPU (device cuda:LOCAL_RANK)
#   --cpu-ranks N   N ranks on the CPU (a test of the distributed path; one rank with more
#                   threads is as fast on a small box)
#   --nodes M       machines in the job (default 1); start this script on each of them with
#   --node-rank R   its own rank 0..M-1 and the same
#   --master-addr   host of node 0 (default 127.0.0.1) and --master-port (default 29500)
#   --batch-size B  the global batch over all ranks; --precision fp32|bf16|fp16|auto
#   --kill-after S  when a rank fails, the others get SIGINT, and SIGKILL after S seconds
#                   (default 120) if they still run (blocked in a collective with the dead rank)
# Everything after -- goes to every rank (e.g. --config configs/trainer.cfg --output-dir BASE
# --training-name NAME). Only rank 0 writes checkpoints and snapshots. SIGINT/SIGTERM are
# passed to every rank (they checkpoint and exit 0); if one rank fails, the others are stopped.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"
sigint_at_default "$root/scripts/train.sh" "$@"
bin=${TENGEN_BIN:-${BUILD_DIR:-$root/build/release}/bin}

usage() { sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
ranks=1 device=cpu nodes=1 node_rank=0 master_addr=127.0.0.1 master_port=29500 kill_after=120
extra=()
while (($#)); do
  case $1 in
    --gpus) ranks=$2 device=cuda; shift 2 ;;
    --cpu-ranks) ranks=$2 device=cpu; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --node-rank) node_rank=$2; shift 2 ;;
    --master-addr) master_addr=$2; shift 2 ;;
    --master-port) master_port=$2; shift 2 ;;
    --batch-size) extra+=(--batch-size "$2"); shift 2 ;;
    --precision) extra+=(--precision "$2"); shift 2 ;;
    --kill-after) kill_after=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) echo "train.sh: unknown option $1 (options for the trainer go after --)" >&2; usage ;;
  esac
done
for v in ranks nodes node_rank master_port kill_after; do
  [[ ${!v} =~ ^(0|[1-9][0-9]*)$ ]] || { echo "train.sh: --${v//_/-} must be a number, got '${!v}'" >&2; exit 2; }
done
((ranks >= 1 && nodes >= 1 && node_rank < nodes)) || { echo "train.sh: bad ranks/nodes/node-rank" >&2; exit 2; }
[[ -x $bin/tengen-trainer ]] || "$root/scripts/build.sh"

world=$((ranks * nodes))
pids=()
stop_all() { for pid in "${pids[@]}"; do interrupt "$pid"; done; }
# After a rank failed: SIGKILL, once kill_after seconds have passed, to the ranks still running
# (disowned, so that `wait -n` below never takes it for a rank).
watchdog=""
kill_stragglers() {
  local pid running deadline=$((SECONDS + kill_after))
  while ((SECONDS < deadline)); do
    running=0
    for pid in "${pids[@]}"; do alive "$pid" trainer && running=1; done
    ((running)) || return 0
    sleep 0.2
  done
  for pid in "${pids[@]}"; do
    if alive "$pid" trainer; then
      echo "train.sh: rank pid $pid still runs $kill_after s after the SIGINT: SIGKILL" >&2
      kill -KILL "$pid" 2> /dev/null || true
    fi
  done
}
trap 'stop_all' INT TERM
for ((local = 0; local < ranks; local++)); do
  rank=$((node_rank * ranks + local))
  # Each rank in a session of its own: a Ctrl-C (SIGINT to the terminal's process group)
  # reaches only this script, which passes it on exactly once. A second SIGINT would end a rank
  # at once, without its checkpoint.
  RANK=$rank WORLD_SIZE=$world LOCAL_RANK=$local LOCAL_WORLD_SIZE=$ranks MASTER_ADDR=$master_addr \
    MASTER_PORT=$master_port OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE} \
    setsid "$bin/tengen-trainer" --device "$device" "${extra[@]}" "$@" &
  pids+=($!)
done
status=0
remaining=${#pids[@]}
while ((remaining > 0)); do
  done_pid=""
  set +e
  wait -n -p done_pid
  code=$?
  set -e
  if [[ -z ${done_pid:-} ]]; then
    # No rank ended: a signal interrupted the wait (the trap has run), or none is left.
    ((code == 127)) && break
    continue
  fi
  remaining=$((remaining - 1))
  if ((code != 0 && status == 0)); then
    status=$code
    echo "train.sh: rank pid $done_pid exited with $code; stopping the others" >&2
    stop_all
    kill_stragglers &
    watchdog=$!
    disown "$watchdog"
  fi
done
[[ -z $watchdog ]] || kill "$watchdog" 2> /dev/null || true
exit "$status"
