#!/usr/bin/env bash
# The batch script of every tengen program under SLURM: runs one program against a base
# directory through scripts/start.sh --foreground (pid file, single-instance check, output in
# BASE/logs/PROGRAM/) and ends when it ends. scripts/slurm/submit.sh submits it with the right
# sbatch options; by hand:
#
#   sbatch [sbatch options] scripts/slurm/job.sh PROGRAM BASE [program options...]
#
#   PROGRAM  selfplay, shuffler, exporter, gatekeeper: one process in the batch step (selfplay
#            as a job array: one per array task)
#            trainer: srun starts one rank per task of the job (one task per GPU, on one or
#            several nodes); each rank takes its place from SLURM the way torchrun would set
#            it: RANK=SLURM_PROCID, WORLD_SIZE=SLURM_NTASKS, LOCAL_RANK=SLURM_LOCALID,
#            LOCAL_WORLD_SIZE=the tasks on its node (SLURM_STEP_TASKS_PER_NODE),
#            MASTER_ADDR=the first host of SLURM_JOB_NODELIST (scontrol show hostnames),
#            MASTER_PORT=TENGEN_MASTER_PORT, else 20000 + SLURM_JOB_ID % 20000. Only rank 0
#            writes checkpoints and snapshots.
#   BASE     the base directory, the same path on every node
#   program options  go to start.sh after BASE (e.g. --set key=value, --training-name NAME)
#
# Stopping and resuming:
#   - SIGINT to the batch shell (sbatch --signal=B:INT@120: shortly before the time limit) is
#     passed on once; the program publishes what is complete (the trainer checkpoints) and
#     exits 0. Then, when TENGEN_SLURM_REQUEUE=1 (submit.sh sets it unless --no-requeue), the
#     job requeues itself (scontrol requeue), so that it goes on after its time limit.
#   - scancel, scontrol requeue and preemption: SLURM sends SIGTERM to every process of the
#     job, the programs included, which stop as on SIGINT within KillWait (or GraceTime). No
#     signal is passed on (a second SIGINT would end a program at once, without its
#     checkpoint; more SIGTERMs change nothing), and this script ignores SIGTERM once the
#     program is started, so that it always reports the program's own status.
#   - A requeued job (sbatch --requeue) runs this script again against the same BASE: the
#     programs resume from what is published (the trainer from its newest checkpoint).
#
# Environment: TENGEN_REPO  the repository (sbatch runs a copy of this script, so submit.sh
#                           passes it; default: the repository around this script)
#              TENGEN_BIN, TENGEN_CONFIGS  as for scripts/start.sh
#              TENGEN_MASTER_PORT  the trainer's rendezvous port
#              TENGEN_SLURM_REQUEUE  1: requeue after a SIGINT that stopped the program
# Exit status: the program's (the trainer's: srun's); 1 when start.sh refused it; 2 usage.
set -euo pipefail

usage() { sed -n '2,39p' "${TENGEN_REPO:-$(dirname "$0")/../..}/scripts/slurm/job.sh" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "slurm/job.sh: $*" >&2; exit 1; }

if [[ -n ${TENGEN_REPO:-} ]]; then
  root=$TENGEN_REPO
else
  root=$(cd "$(dirname "$0")/../.." && pwd)
fi
[[ -f $root/scripts/start.sh && -f $root/scripts/lib.sh ]] ||
  die "no tengen repository at $root (TENGEN_REPO=${TENGEN_REPO:-unset}); sbatch runs a copy of this script: set TENGEN_REPO or use scripts/slurm/submit.sh"
source "$root/scripts/lib.sh"

rank_mode=0
if [[ ${1:-} == --rank ]]; then
  rank_mode=1
  shift
fi
[[ ${1:-} == -h || ${1:-} == --help ]] && usage
(($# >= 2)) || usage
program=$1
base=$2
shift 2
case $program in
  selfplay|shuffler|trainer|exporter|gatekeeper) ;;
  *) echo "slurm/job.sh: unknown PROGRAM '$program' (selfplay, shuffler, trainer, exporter, gatekeeper)" >&2; exit 2 ;;
esac
[[ -n ${SLURM_JOB_ID:-} ]] || die "SLURM_JOB_ID is not set: run this with sbatch (scripts/slurm/submit.sh)"

# tasks_on_node LIST NODE: the number of tasks on node NODE (0-based) of a SLURM task list
# such as "2(x3),1" (SLURM_STEP_TASKS_PER_NODE, SLURM_TASKS_PER_NODE).
tasks_on_node() {
  local list=$1 node=$2 item count times
  local -a items
  IFS=, read -r -a items <<< "$list"
  for item in "${items[@]}"; do
    if [[ $item =~ ^([0-9]+)\(x([0-9]+)\)$ ]]; then
      count=${BASH_REMATCH[1]} times=${BASH_REMATCH[2]}
    elif [[ $item =~ ^[0-9]+$ ]]; then
      count=$item times=1
    else
      die "cannot read the task list '$list' (SLURM_STEP_TASKS_PER_NODE)"
    fi
    if ((node < times)); then
      echo "$count"
      return 0
    fi
    node=$((node - times))
  done
  die "the task list '$list' (SLURM_STEP_TASKS_PER_NODE) has no node $2"
}

# One trainer rank, started by srun (below): its place from SLURM, then start.sh in the
# foreground. srun passes signals to every process of the task, the program included, so
# start.sh passes none on.
if ((rank_mode)); then
  for v in SLURM_PROCID SLURM_NTASKS SLURM_LOCALID SLURM_NODEID SLURM_JOB_NODELIST; do
    [[ -n ${!v:-} ]] || die "$v is not set: --rank is for the tasks that srun starts"
  done
  master=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
  [[ -n $master ]] || die "scontrol show hostnames '$SLURM_JOB_NODELIST' names no host"
  port=${TENGEN_MASTER_PORT:-$((20000 + SLURM_JOB_ID % 20000))}
  [[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) ||
    die "TENGEN_MASTER_PORT must be a port number, got '$port'"
  local_world=$(tasks_on_node "${SLURM_STEP_TASKS_PER_NODE:-${SLURM_TASKS_PER_NODE:-1}}" "$SLURM_NODEID")
  export RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS LOCAL_RANK=$SLURM_LOCALID
  export LOCAL_WORLD_SIZE=$local_world MASTER_ADDR=$master MASTER_PORT=$port
  export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
  echo "slurm/job.sh: trainer rank $RANK of $WORLD_SIZE (local $LOCAL_RANK of $LOCAL_WORLD_SIZE) on $(hostname), master $MASTER_ADDR:$MASTER_PORT" >&2
  exec bash "$root/scripts/start.sh" --foreground --no-pass-sigint trainer "$base" "$@"
fi

echo "slurm/job.sh: tengen-$program, job $SLURM_JOB_ID${SLURM_ARRAY_TASK_ID:+ (array task ${SLURM_ARRAY_JOB_ID}_$SLURM_ARRAY_TASK_ID)}, restart ${SLURM_RESTART_COUNT:-0}, on $(hostname), base $base" >&2
if [[ $program == trainer ]]; then
  # One rank per task; --disable-status: srun passes a single SIGINT straight on to the tasks.
  srun_args=(--ntasks="${SLURM_NTASKS:-1}" --disable-status --kill-on-bad-exit=1)
  [[ -z ${SLURM_CPUS_PER_TASK:-} ]] || srun_args+=(--cpus-per-task="$SLURM_CPUS_PER_TASK")
  # (A background job of a script starts with SIGINT ignored: env gives it back its default,
  # or the SIGINT passed on below would be lost.)
  env --default-signal=INT srun "${srun_args[@]}" bash "$root/scripts/slurm/job.sh" --rank trainer "$base" "$@" &
else
  env --default-signal=INT bash "$root/scripts/start.sh" --foreground "$program" "$base" "$@" &
fi
child=$!

got_sigint=0
on_sigint() {
  ((got_sigint)) && return 0
  got_sigint=1
  echo "slurm/job.sh: SIGINT: stopping tengen-$program (job $SLURM_JOB_ID)" >&2
  kill -INT "$child" 2> /dev/null || true
}
trap on_sigint INT
# SIGTERM is ignored from here on rather than trapped: SLURM sends it to every process of the
# job (start.sh logs it), and a wait cut short just as start.sh ends can lose its status.
trap "" TERM
status=0
wait_exit "$child" || status=$?
trap - INT
echo "slurm/job.sh: tengen-$program ended with status $status" >&2
if ((got_sigint && status == 0)) && [[ ${TENGEN_SLURM_REQUEUE:-0} == 1 ]]; then
  echo "slurm/job.sh: requeueing job $SLURM_JOB_ID to go on after its time limit" >&2
  scontrol requeue "$SLURM_JOB_ID" || die "scontrol requeue $SLURM_JOB_ID failed"
fi
exit "$status"
