#!/usr/bin/env bash
# Starts one tengen program in the background, immune to hangups (nohup), against a base
# directory, with its own output file and pid file: the asynchronous setup of
# docs/OPERATIONS.md ("Running the programs asynchronously"). scripts/stop_all.sh stops them.
#
#   scripts/start.sh [--force] [--check-seconds S] [--foreground [--no-pass-sigint]]
#                    PROGRAM BASE [program options...]
#
#   PROGRAM  selfplay, shuffler, trainer, exporter or gatekeeper
#   BASE     the base directory (created when missing); on several machines, the same path on
#            a shared filesystem
#   program options  come after start.sh's own: --config CONFIGS/PROGRAM.cfg --output-dir BASE
#            (selfplay: also --models-dir BASE/models; trainer: also --training-name, below).
#            Later options win, so --config FILE, --set key=value or --key-name value override
#            the repository's defaults.
# options:
#   --force            start even when a single-instance program seems to run already
#   --check-seconds S  how long to watch the new process before reporting it started
#                      (default 1); a program that dies in that time is an error
#   --foreground       for batch schedulers (scripts/slurm/job.sh): the same start, then wait
#                      until the program ends and exit with its status. A SIGINT to start.sh
#                      is passed on to the program once (lib.sh interrupt); SIGTERM is not
#                      (a scheduler sends it to every process of the job, the program included)
#   --no-pass-sigint   with --foreground: do not pass SIGINT on either (the program gets it
#                      itself, as srun's tasks do)
#
# Any number of selfplay processes may run; the shuffler, exporter and gatekeeper run once per
# base directory, the trainer once per training name: start.sh refuses to start a second one
# while a pid file of this host names a live process of it, or a pid file of another host
# belongs to a process whose heartbeat (BASE/status/) is fresh and not "stopped".
# The trainer's training name is taken from --training-name, --set training_name=..., or a
# --config file; else from $TENGEN_TRAINING_NAME; else it is the model_kind (from the same
# places, else configs/trainer.cfg), as in synchronous_loop.sh.
#
# Environment: TENGEN_BIN  directory of the tengen-* programs (default: scripts/build.sh
#                          builds when needed, then BUILD_DIR/bin or build/release/bin)
#              TENGEN_CONFIGS  directory of the PROGRAM.cfg files (default: configs/)
# Files: BASE/run/ID.pid, ID = PROGRAM-HOST-N (trainer: trainer-TRAINING-HOST-N), N the
# smallest free number; key=value lines: pid, supervisor, host, program, training_name,
# output, started_utc, command, and slurm_job inside a SLURM job (SLURM_JOB_ID; pid files of
# the same job never refuse a start: the trainer's other ranks, or a requeued job's remains),
# rank for a trainer started with RANK set.
# BASE/logs/PROGRAM/nohup-ID.out: the program's stdout and stderr (its own log is
# BASE/logs/PROGRAM/HOST-PID.log), a line when it starts and one with its exit status when it
# ends. The pid file is removed when the program exits.
# Exit status: 0 started; 1 refused, or the program failed at once; 2 usage. With
# --foreground: the program's exit status once it ends (1 refused, 2 usage as above).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/lib.sh"

usage() { sed -n '2,47p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
die() { echo "start.sh: $*" >&2; exit 1; }

force=0
check_seconds=1
foreground=0
pass_sigint=1
original_args=("$@")
while (($#)); do
  case $1 in
    --force) force=1; shift ;;
    --foreground) foreground=1; shift ;;
    --no-pass-sigint) pass_sigint=0; shift ;;
    --check-seconds)
      (($# >= 2)) || usage
      check_seconds=$2; shift 2 ;;
    -h|--help) usage ;;
    --*) echo "start.sh: unknown option $1 (start.sh's options come before PROGRAM)" >&2; usage ;;
    *) break ;;
  esac
done
(($# >= 2)) || usage
# Waiting in the foreground, start.sh passes a SIGINT on: it must be able to trap one.
if ((foreground && pass_sigint)); then
  sigint_at_default "$root/scripts/start.sh" "${original_args[@]}"
fi
program=$1
base=$2
shift 2
args=("$@")
case $program in
  selfplay|shuffler|trainer|exporter|gatekeeper) ;;
  *) echo "start.sh: unknown PROGRAM '$program' (selfplay, shuffler, trainer, exporter, gatekeeper)" >&2; exit 2 ;;
esac
[[ $check_seconds =~ ^[0-9]+([.][0-9]+)?$ ]] ||
  { echo "start.sh: --check-seconds must be a number of seconds, got '$check_seconds'" >&2; exit 2; }
configs=${TENGEN_CONFIGS:-$root/configs}
config=$configs/$program.cfg
[[ -f $config ]] || { echo "start.sh: missing config file $config (TENGEN_CONFIGS)" >&2; exit 2; }

# A key's effective value as the program reads it (its config file, the command line's --config
# files with their [sections], --set and --key-name, the command line winning): the program's
# own --print-config KEY. Empty when the key has no value.
option_value() {
  "$exe" --config "$config" "${args[@]}" --print-config "$1" ||
    die "tengen-$program does not accept these options (above)"
}

has_option() {  # has_option KEY: the command line sets KEY
  local key=$1 dashed=${1//_/-} arg prev=""
  for arg in "${args[@]}"; do
    case $arg in
      "--$dashed"|"--$key"|"--$dashed="*|"--$key="*|--set="$key="*) return 0 ;;
    esac
    [[ $prev == --set && $arg == "$key="* ]] && return 0
    prev=$arg
  done
  return 1
}

if has_option output_dir; then
  echo "start.sh: do not pass --output-dir: start.sh sets it to BASE ($base)" >&2
  exit 2
fi
mkdir -p "$base" || die "cannot create the base directory $base"
base=$(cd "$base" && pwd)
host=$(hostname 2>/dev/null || echo unknown)
host=${host//\//_}

if [[ -z ${TENGEN_BIN:-} ]]; then
  "$root/scripts/build.sh" >&2
  bin=${BUILD_DIR:-$root/build/release}/bin
else
  bin=$TENGEN_BIN
fi
exe=$bin/tengen-$program
[[ -x $exe ]] || die "$exe is missing (TENGEN_BIN=${TENGEN_BIN:-})"

extra=()
key=$program
training_name=""
if [[ $program == selfplay ]]; then
  has_option models_dir || extra+=(--models-dir "$base/models")
elif [[ $program == trainer ]]; then
  training_name=$(option_value training_name) || exit 1
  if [[ -z $training_name ]]; then
    model_kind=$(option_value model_kind) || exit 1
    training_name=${TENGEN_TRAINING_NAME:-$model_kind}
    [[ -n $training_name ]] || die "no training name: pass --training-name NAME"
    extra+=(--training-name "$training_name")
  fi
  [[ $training_name =~ ^[A-Za-z0-9._+-]+$ && $training_name != *.tmp* ]] ||
    die "training name '$training_name' must be a plain name (letters, digits, . _ + -)"
  key=trainer-$training_name
fi

run_dir=$base/run
log_dir=$base/logs/$program
mkdir -p "$run_dir" "$log_dir"

# One start.sh at a time per base directory and host (the lock is not passed to the program).
if command -v flock > /dev/null; then
  exec 9> "$run_dir/.lock-$host"
  flock 9
fi

# Stale pid files of this host go; a live single-instance program refuses the start.
shopt -s nullglob
for file in "$run_dir/$key"-*.pid; do
  file_host=$(field host "$file")
  file_pid=$(field pid "$file")
  # A pid file of this SLURM job: another rank of the same trainer, or what this job left
  # before SLURM requeued it (SLURM ends a job's processes before it starts the job again).
  same_job=0
  [[ -n ${SLURM_JOB_ID:-} && $(field slurm_job "$file") == "$SLURM_JOB_ID" ]] && same_job=1
  if [[ $file_host == "$host" ]]; then
    if alive "$file_pid" "$program"; then
      if [[ $program != selfplay ]] && ((!force && !same_job)); then
        die "tengen-$program${training_name:+ (training $training_name)} runs already on $host as pid $file_pid ($file); stop it with scripts/stop_all.sh $base $program, or pass --force"
      fi
    elif ! alive "$(field supervisor "$file")" "$program" 2> /dev/null; then
      rm -f "$file"
    fi
  elif [[ $program != selfplay ]] && ((!force && !same_job)); then
    beat=$base/status/$program-$file_host-$file_pid.json
    if [[ -f $beat ]] && ! grep -q '"state": "stopped"' "$beat" &&
       (($(date +%s) - $(stat -c %Y "$beat") < 120)); then
      die "tengen-$program${training_name:+ (training $training_name)} runs on $file_host as pid $file_pid ($file, heartbeat $beat is fresh); pass --force to start another"
    fi
  fi
done

n=1
while [[ -e $run_dir/$key-$host-$n.pid ]]; do n=$((n + 1)); done
id=$key-$host-$n
pid_file=$run_dir/$id.pid
out=$log_dir/nohup-$id.out
command=("$exe" --config "$config" --output-dir "$base" "${extra[@]}" "${args[@]}")
body=$run_dir/.tmp.$id.$$
{
  printf 'host=%s\nprogram=%s\ntraining_name=%s\noutput=%s\nstarted_utc=%s\n' "$host" "$program" \
    "$training_name" "$out" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  printf 'command=%s\n' "${command[*]}"
  [[ -z ${SLURM_JOB_ID:-} ]] || printf 'slurm_job=%s\n' "$SLURM_JOB_ID"
  [[ $program != trainer || -z ${RANK:-} ]] || printf 'rank=%s\n' "$RANK"
} > "$body"
printf '=== %s start.sh: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${command[*]}" >> "$out"

# The supervisor: a shell with job control, so that the program gets a process group of its
# own. It was itself started in the background with SIGINT ignored, and the program inherits
# that until it installs its handler (so stop_all.sh waits for the handler: lib.sh interrupt);
# it publishes the pid file, waits for the program, records its exit status and
# removes the pid file. It ignores SIGHUP (nohup) and survives SIGINT/SIGTERM sent to it.
supervisor='
set -m
trap : INT TERM
source "$1/scripts/lib.sh"
body=$2 pid_file=$3 program=$4 out=$5
shift 5
"$@" &
child=$!
# From here on SIGTERM is ignored rather than trapped, so that it never interrupts the wait
# below: a scheduler sends it to every process of the job, and a wait cut short just as the
# program ends can lose the status of the program. The program, forked before this, keeps
# the default action until it installs its handler.
trap "" TERM
exec 2> /dev/null  # no job-control notices in the output; the program keeps its stderr
{ cat "$body"; printf "pid=%s\nsupervisor=%s\n" "$child" "$$"; } > "$body.pid" &&
  mv -f "$body.pid" "$pid_file"
rm -f "$body"
wait_exit "$child"
code=$?
# Opened anew rather than through the inherited stdout: on a network filesystem that
# reconnected since the start (sshfs), the old descriptor fails for good.
printf "=== %s start.sh: tengen-%s pid %s exited with status %s\n" \
  "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$program" "$child" "$code" >> "$out"
grep -qx "pid=$child" "$pid_file" 2> /dev/null && rm -f "$pid_file"
exit 0
'
nohup bash -c "$supervisor" start.sh-supervisor "$root" "$body" "$pid_file" "$program" "$out" "${command[@]}" \
  >> "$out" 2>&1 < /dev/null 9>&- &
supervisor_pid=$!

# The pid file appears as soon as the program is forked.
for ((i = 0; i < 200; i++)); do
  [[ -f $pid_file ]] && break
  kill -0 "$supervisor_pid" 2> /dev/null || break
  sleep 0.05
done
[[ -f $pid_file ]] || { rm -f "$body"; die "tengen-$program did not start; see $out"; }
pid=$(field pid "$pid_file")
exec 9>&-

if ((foreground)); then
  # Waits for the supervisor (it records the exit status, then removes the pid file). A
  # SIGINT is passed on once; SIGTERM reaches the program from the scheduler itself.
  echo "start.sh: tengen-$program pid $pid runs on $host: pid file $pid_file, output $out" >&2
  passed=0
  on_sigint() {
    ((pass_sigint && !passed)) || return 0
    passed=1
    echo "start.sh: SIGINT: passing it on to tengen-$program pid $pid" >&2
    interrupt "$pid"
  }
  trap on_sigint INT
  trap 'echo "start.sh: SIGTERM: tengen-$program pid $pid gets it from the scheduler; waiting" >&2' TERM
  while kill -0 "$supervisor_pid" 2> /dev/null; do
    wait "$supervisor_pid" 2> /dev/null || true
  done
  trap - INT TERM
  status=$(sed -n "s/.*start.sh: tengen-$program pid $pid exited with status \\([0-9]*\\)$/\\1/p" "$out" | tail -1)
  echo "start.sh: tengen-$program pid $pid exited with status ${status:-unknown} (output $out)" >&2
  [[ $status =~ ^[0-9]+$ ]] || exit 1
  exit "$status"
fi

# A program that fails at once (a bad option exits 2) is reported here.
ticks=$(awk -v s="$check_seconds" 'BEGIN { print int(s * 10 + 0.5) }')
for ((i = 0; i < ticks; i++)); do
  kill -0 "$pid" 2> /dev/null || break
  sleep 0.1
done
if ! alive "$pid" "$program"; then
  # Give the supervisor a moment to record the exit status.
  wait "$supervisor_pid" 2> /dev/null || true
  status=$(sed -n "s/.*start.sh: tengen-$program pid $pid exited with status \\([0-9]*\\)$/\\1/p" "$out" | tail -1)
  if [[ $status == 0 ]]; then
    echo "start.sh: tengen-$program pid $pid already finished (status 0); output: $out" >&2
    exit 0
  fi
  tail -n 20 "$out" >&2
  die "tengen-$program pid $pid exited at once with status ${status:-unknown}; output: $out"
fi
echo "started tengen-$program pid $pid on $host: pid file $pid_file, output $out" >&2
