#!/usr/bin/env bash
# Submits tengen programs as SLURM jobs against a base directory (sbatch of
# scripts/slurm/job.sh), and prints one "PROGRAM JOBID" line per job on stdout.
#
#   scripts/slurm/submit.sh [options] BASE [PROGRAM...]
#
#   BASE     the base directory: an absolute path that every node sees (shared filesystem)
#   PROGRAM  selfplay, shuffler, trainer, exporter, gatekeeper (default: all five, the
#            gatekeeper first: it prepares models/ and selfplay/)
# options (sizes, partitions and accounts: here or in sbatch's own environment variables,
# e.g. SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_QOS, SBATCH_TIMELIMIT):
#   --partition P, --account A, --qos Q, --time T   passed to sbatch for every job
#   --selfplay-tasks N     selfplay job array of N tasks (default 1), one per GPU or CPU socket
#   --gpus-per-task G      GPUs of each selfplay task (default 0: CPU): --gres=gpu:G and
#                          --set devices=cuda:0,...,cuda:G-1 unless --set-selfplay sets devices
#   --cpus-per-task C      CPUs of each selfplay task (default 1)
#   --trainer-nodes M      nodes of the trainer job (default 1)
#   --trainer-gpus G       GPUs per trainer node, one rank each (--gres=gpu:G, device cuda;
#                          default 0: CPU ranks)
#   --trainer-ranks N      ranks per node without GPUs (default 1)
#   --trainer-cpus C       CPUs per trainer rank (default 1)
#   --gatekeeper-gpus G    GPUs of the gatekeeper (default 0: CPU; 1 adds --set device=cuda)
#   --service-cpus C       CPUs of the shuffler, exporter and gatekeeper jobs (default 1)
#   --signal-seconds S     SIGINT to the batch shell S seconds before the time limit
#                          (--signal=B:INT@S; default 120): the program stops cleanly
#   --no-requeue           neither --requeue nor requeueing after that SIGINT (by default a
#                          job requeued by SLURM, or stopped by its time limit, runs again)
#   --set-PROGRAM K=V      an extra --set K=V for one program (repeatable)
#   --PROGRAM-arg ARG      an extra argument for one program (repeatable), e.g.
#                          --trainer-arg --training-name --trainer-arg b10c128
#   --sbatch ARG           an extra sbatch argument for every job (repeatable), e.g.
#                          --sbatch --mem=16G
#   --dry-run              print the sbatch commands instead of running them
#
# Every job is named tengen-PROGRAM, writes BASE/logs/slurm/tengen-PROGRAM-JOBID.out (array
# tasks: -ARRAYJOB_TASK.out; appended to when requeued), and gets --export=ALL with TENGEN_REPO
# (this repository; it must be at the same path on the nodes), so TENGEN_BIN and TENGEN_CONFIGS
# reach the jobs when set. scancel stops a job cleanly (SIGTERM to every process; set the
# cluster's KillWait, or GraceTime for preemption, long enough for a checkpoint).
# Exit status: 0 every job submitted; 1 sbatch failed (the jobs submitted before are named);
# 2 usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

usage() { sed -n '2,41p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
bad() { echo "submit.sh: $*" >&2; exit 2; }

common=() extra_sbatch=()
selfplay_tasks=1 gpus_per_task=0 cpus_per_task=1
trainer_nodes=1 trainer_gpus=0 trainer_ranks=1 trainer_cpus=1
gatekeeper_gpus=0 service_cpus=1 signal_seconds=120 requeue=1 dry_run=0
declare -A program_args=([selfplay]="" [shuffler]="" [trainer]="" [exporter]="" [gatekeeper]="")
add_program_arg() {  # add_program_arg PROGRAM ARG: appends ARG, quoted, to PROGRAM's arguments
  program_args[$1]+=" $(printf '%q' "$2")"
}
need() { (($2 >= 2)) || bad "$1 needs a value"; }
while (($#)); do
  case $1 in
    --partition|--account|--qos|--time)
      need "$1" $#; common+=("$1=$2"); shift 2 ;;
    --selfplay-tasks) need "$1" $#; selfplay_tasks=$2; shift 2 ;;
    --gpus-per-task) need "$1" $#; gpus_per_task=$2; shift 2 ;;
    --cpus-per-task) need "$1" $#; cpus_per_task=$2; shift 2 ;;
    --trainer-nodes) need "$1" $#; trainer_nodes=$2; shift 2 ;;
    --trainer-gpus) need "$1" $#; trainer_gpus=$2; shift 2 ;;
    --trainer-ranks) need "$1" $#; trainer_ranks=$2; shift 2 ;;
    --trainer-cpus) need "$1" $#; trainer_cpus=$2; shift 2 ;;
    --gatekeeper-gpus) need "$1" $#; gatekeeper_gpus=$2; shift 2 ;;
    --service-cpus) need "$1" $#; service_cpus=$2; shift 2 ;;
    --signal-seconds) need "$1" $#; signal_seconds=$2; shift 2 ;;
    --no-requeue) requeue=0; shift ;;
    --set-selfplay|--set-shuffler|--set-trainer|--set-exporter|--set-gatekeeper)
      need "$1" $#
      p=${1#--set-}
      add_program_arg "$p" --set; add_program_arg "$p" "$2"; shift 2 ;;
    --selfplay-arg|--shuffler-arg|--trainer-arg|--exporter-arg|--gatekeeper-arg)
      need "$1" $#
      p=${1#--}; p=${p%-arg}
      add_program_arg "$p" "$2"; shift 2 ;;
    --sbatch) need "$1" $#; extra_sbatch+=("$2"); shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage ;;
    --*) echo "submit.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
(($# >= 1)) || usage
base=$1
shift
[[ $base == /* ]] || bad "BASE must be an absolute path (the same on every node), got '$base'"
for v in selfplay_tasks gpus_per_task cpus_per_task trainer_nodes trainer_gpus trainer_ranks \
         trainer_cpus gatekeeper_gpus service_cpus signal_seconds; do
  [[ ${!v} =~ ^[0-9]+$ ]] || bad "--${v//_/-} must be a whole number, got '${!v}'"
done
for v in selfplay_tasks cpus_per_task trainer_nodes trainer_ranks trainer_cpus service_cpus; do
  ((${!v} >= 1)) || bad "--${v//_/-} must be at least 1, got '${!v}'"
done
programs=("$@")
((${#programs[@]})) || programs=(gatekeeper shuffler exporter trainer selfplay)
for p in "${programs[@]}"; do
  case $p in
    selfplay|shuffler|trainer|exporter|gatekeeper) ;;
    *) bad "unknown PROGRAM '$p' (selfplay, shuffler, trainer, exporter, gatekeeper)" ;;
  esac
done
command -v sbatch > /dev/null || ((dry_run)) || {
  echo "submit.sh: sbatch is not on the PATH (run this on a SLURM login node)" >&2; exit 1; }

# sets KEY ARGS: the program arguments (a quoted string) set KEY with --set KEY=...
sets() { [[ $2 == *"--set $1="* ]]; }

if ((!dry_run)); then
  mkdir -p "$base/logs/slurm" "$base/models" "$base/selfplay" ||
    { echo "submit.sh: cannot create $base/logs/slurm, models/ and selfplay/" >&2; exit 1; }
fi
common+=(--export="ALL,TENGEN_REPO=$root,TENGEN_SLURM_REQUEUE=$requeue"
  --signal="B:INT@$signal_seconds" --open-mode=append)
((requeue)) && common+=(--requeue) || common+=(--no-requeue)

submitted=()
for p in "${programs[@]}"; do
  args=()
  eval "args=(${program_args[$p]})"
  sbatch_args=(--job-name="tengen-$p")
  case $p in
    selfplay)
      sbatch_args+=(--array="0-$((selfplay_tasks - 1))" --ntasks=1 --cpus-per-task="$cpus_per_task"
        --output="$base/logs/slurm/tengen-selfplay-%A_%a.out")
      if ((gpus_per_task > 0)); then
        sbatch_args+=(--gres="gpu:$gpus_per_task")
        if ! sets devices "${program_args[$p]}"; then
          devices=$(seq -s, -f 'cuda:%g' 0 $((gpus_per_task - 1)))
          args+=(--set "devices=$devices")
        fi
      fi ;;
    trainer)
      ranks=$trainer_ranks
      ((trainer_gpus > 0)) && ranks=$trainer_gpus
      sbatch_args+=(--nodes="$trainer_nodes" --ntasks-per-node="$ranks"
        --cpus-per-task="$trainer_cpus" --output="$base/logs/slurm/tengen-trainer-%j.out")
      if ((trainer_gpus > 0)); then
        sbatch_args+=(--gres="gpu:$trainer_gpus")
        sets device "${program_args[$p]}" || args+=(--set device=cuda)
      fi ;;
    *)
      sbatch_args+=(--ntasks=1 --cpus-per-task="$service_cpus"
        --output="$base/logs/slurm/tengen-$p-%j.out")
      if [[ $p == gatekeeper ]] && ((gatekeeper_gpus > 0)); then
        sbatch_args+=(--gres="gpu:$gatekeeper_gpus")
        sets device "${program_args[$p]}" || args+=(--set device=cuda)
      fi ;;
  esac
  command=(sbatch --parsable "${common[@]}" "${sbatch_args[@]}" "${extra_sbatch[@]}"
    "$root/scripts/slurm/job.sh" "$p" "$base" "${args[@]}")
  if ((dry_run)); then
    printf '%q ' "${command[@]}"
    echo
    continue
  fi
  if ! out=$("${command[@]}" 2>&1); then
    echo "$out" >&2
    echo "submit.sh: sbatch failed for $p${submitted[*]:+ (submitted before it: ${submitted[*]})}" >&2
    exit 1
  fi
  job=${out##*$'\n'}
  job=${job%%;*}
  [[ $job =~ ^[0-9]+$ ]] || { echo "submit.sh: sbatch for $p printed no job id: $out" >&2; exit 1; }
  submitted+=("$p=$job")
  echo "$p $job"
done
