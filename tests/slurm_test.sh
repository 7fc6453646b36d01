#!/usr/bin/env bash
# scripts/slurm/ against a real SLURM (Debian's slurm-wlm and munge, which scripts/test.sh
# installs): the test writes a one-node slurm.conf (8 CPUs on this machine, cons_tres,
# proctrack/linuxproc, its own ports, state and spool under a temporary directory), starts
# munged, slurmctld and slurmd itself, and submits the five programs with
# scripts/slurm/submit.sh (selfplay as a job array of 2 tasks, the trainer as 2 CPU ranks
# through srun, rank, world size and master from SLURM) with the tiny settings of
# tests/loop_lib.sh. Checks:
#  - sbatch options for GPUs and several nodes (submit.sh --dry-run; not run here);
#  - the loop accepts a model; the trainer's job is then requeued mid-epoch
#    (scontrol requeue: SIGTERM to every process of the job): its trainer exits 0 after a
#    checkpoint, the job runs again (SLURM_RESTART_COUNT 1), the new trainer resumes from the
#    newest checkpoint and goes on; no row is credited twice (check_all, tests/loop_lib.sh);
#  - SIGINT to the trainer job's batch shell (scancel --batch --signal=INT, what
#    --signal=B:INT@120 sends before the time limit): passed on through srun, the trainer
#    checkpoints and exits 0, job.sh requeues the job itself, and the trainer resumes again;
#  - the loop accepts another model after the requeues (at least two in all);
#  - the heartbeats name the SLURM jobs (array tasks as ARRAYJOB_TASK), and so does
#    tengen-status;
#  - scancel of every job: each program exits 0 and each batch shell reports it, no pid file
#    is left, everything published reads back (check_base_dir).
# Everything it started (jobs, daemons, the temporary directory) is stopped and removed on
# exit, also on failure or interrupt (KEEP=1 keeps the directory). Without root, slurm-wlm or
# munge, or when a daemon cannot start here, it prints "SKIPPED: ..." naming what is missing
# and exits 77 (ctest: skipped).
#
#   slurm_test.sh SOURCE_DIR BIN_DIR CHECK_BASE_DIR
set -euo pipefail
src=$1
bin=$2
checker=$3
skip() { echo "SKIPPED: $*"; exit 77; }

# --- submit.sh's sbatch options where this machine cannot go (GPUs, several nodes) ----------
plan=$(bash "$src/scripts/slurm/submit.sh" --dry-run --partition gpu --account proj \
  --selfplay-tasks 4 --gpus-per-task 2 --trainer-nodes 2 --trainer-gpus 4 --gatekeeper-gpus 1 \
  --set-trainer training_name=b10 /shared/run)
echo "$plan"
expect_plan() {  # expect_plan PROGRAM TEXT...: the sbatch line of PROGRAM has every TEXT
  local program=$1 line text
  line=$(grep -- "--job-name=tengen-$program " <<< "$plan") || { echo "FAIL: no sbatch line for $program" >&2; exit 1; }
  for text in "${@:2}"; do
    [[ $line == *"$text"* ]] || { echo "FAIL: the sbatch line of $program lacks '$text': $line" >&2; exit 1; }
  done
}
for program in selfplay shuffler trainer exporter gatekeeper; do
  expect_plan "$program" --partition=gpu --account=proj --requeue "--signal=B:INT@120" \
    --open-mode=append "scripts/slurm/job.sh $program /shared/run"
done
expect_plan selfplay --array=0-3 --gres=gpu:2 'devices=cuda:0\,cuda:1' "tengen-selfplay-%A_%a.out"
expect_plan trainer --nodes=2 --ntasks-per-node=4 --gres=gpu:4 "training_name=b10 --set device=cuda"
expect_plan gatekeeper --gres=gpu:1 "device=cuda"
if grep -q -- "--gres" <<< "$(grep -- "--job-name=tengen-shuffler " <<< "$plan")"; then
  echo "FAIL: the shuffler asks for GPUs" >&2; exit 1
fi
if out=$(bash "$src/scripts/slurm/submit.sh" --dry-run --selfplay-tasks 0 /shared/run 2>&1); then
  echo "FAIL: --selfplay-tasks 0 was accepted" >&2; exit 1
fi
grep -q -- "--selfplay-tasks must be at least 1, got '0'" <<< "$out" || { echo "FAIL: unclear error: $out" >&2; exit 1; }

# --- what the daemons need ------------------------------------------------------------------
((EUID == 0)) || skip "needs root (slurmd starts the jobs' processes as their user)"
missing=()
for tool in munged munge slurmctld slurmd sbatch srun scontrol squeue scancel sinfo; do
  command -v "$tool" > /dev/null || missing+=("$tool")
done
((${#missing[@]} == 0)) ||
  skip "needs ${missing[*]} (Debian packages slurm-wlm and munge; scripts/test.sh installs them)"
plugins=$(dirname "$(dpkg -L slurm-wlm-basic-plugins 2> /dev/null | grep '/select_cons_tres.so$' | head -n 1)")
[[ -f $plugins/proctrack_linuxproc.so && -f $plugins/auth_munge.so ]] ||
  skip "needs the SLURM plugins select/cons_tres, proctrack/linuxproc and auth/munge (slurm-wlm-basic-plugins)"

work=$(mktemp -d)
chmod 755 "$work"
base=$work/base
source "$src/scripts/lib.sh"  # field
source "$src/tests/loop_lib.sh"
export SLURM_CONF=$work/slurm.conf
daemons=()  # pids of munged, slurmctld, slurmd
cleanup() {
  local code=$? pid
  if [[ -f $SLURM_CONF ]] && ((${#daemons[@]})); then
    scancel --full --quiet --user=root 2> /dev/null || true
    for _ in $(seq 60); do
      [[ -z $(squeue -h -o %i 2> /dev/null) ]] && break
      sleep 1
    done
  fi
  stop_leftovers
  for pid in "${daemons[@]}"; do kill "$pid" 2> /dev/null || true; done
  for pid in "${daemons[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2> /dev/null || true
  done
  # Whatever is left of this test's SLURM (slurmstepd, job scripts, srun, programs): every
  # process with this test's SLURM_CONF in its environment (they inherit it from slurmd).
  local leftovers=() dir
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    ((pid != $$)) || continue
    grep -qzx "SLURM_CONF=$SLURM_CONF" "$dir/environ" 2> /dev/null && leftovers+=("$pid")
  done
  if ((${#leftovers[@]})); then
    echo "cleanup: killing what is left of the test's SLURM: ${leftovers[*]}" >&2
    kill -KILL "${leftovers[@]}" 2> /dev/null || true
  fi
  if ((code != 0 && code != 77)); then
    for log in "$work"/log/*.log "$base"/logs/slurm/*.out; do
      [[ -f $log ]] || continue
      echo "=== tail of $log" >&2
      tail -n 15 "$log" >&2
    done
  fi
  [[ -n ${KEEP:-} ]] || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# munged with its own key, socket and files.
mkdir -m 700 "$work/munge"
mkdir -p "$work/log" "$work/state" "$work/spool"
head -c 1024 /dev/urandom > "$work/munge/munge.key"
chmod 600 "$work/munge/munge.key"
socket=$work/munge/munge.sock
munged --foreground --force --socket="$socket" --key-file="$work/munge/munge.key" \
  --log-file="$work/log/munged.log" --pid-file="$work/munge/munged.pid" \
  --seed-file="$work/munge/munged.seed" --num-threads=2 > /dev/null 2>&1 &
daemons+=($!)
for _ in $(seq 50); do [[ -S $socket ]] && break; kill -0 "${daemons[0]}" 2> /dev/null || break; sleep 0.1; done
[[ -S $socket ]] || skip "munged does not start here: $(tail -n 3 "$work/log/munged.log" 2> /dev/null | tr '\n' ' ')"
munge -S "$socket" -n | unmunge -S "$socket" > /dev/null ||
  skip "munge credentials do not round-trip through munged here ($work/log/munged.log)"

# Two free ports (a connection refused: nothing listens there).
free_port() {
  local port
  for _ in $(seq 50); do
    port=$((20000 + RANDOM % 30000))
    (echo > "/dev/tcp/127.0.0.1/$port") 2> /dev/null && continue
    (echo > "/dev/tcp/127.0.0.1/$((port + 1))") 2> /dev/null && continue
    echo "$port"
    return 0
  done
  fail "no free pair of TCP ports found"
}
port=$(free_port)
node=$(hostname -s)
cat > "$SLURM_CONF" <<EOF
ClusterName=tengentest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=60
MinJobAge=300
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 RealMemory=8000 State=UNKNOWN
PartitionName=tengen Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
# Niced, as the programs are (they inherit it through slurmd).
nice -n 10 slurmctld -D -f "$SLURM_CONF" > "$work/log/slurmctld.out" 2>&1 &
daemons+=($!)
nice -n 10 slurmd -D -f "$SLURM_CONF" > "$work/log/slurmd.out" 2>&1 &
daemons+=($!)
node_idle() { [[ $(sinfo -h -n "$node" -o %t 2> /dev/null) == idle ]]; }
for _ in $(seq 60); do
  node_idle && break
  kill -0 "${daemons[1]}" 2> /dev/null ||
    skip "slurmctld does not start here: $(tail -n 3 "$work/log/slurmctld.log" "$work/log/slurmctld.out" 2> /dev/null | tr '\n' ' ')"
  kill -0 "${daemons[2]}" 2> /dev/null ||
    skip "slurmd does not start here: $(tail -n 3 "$work/log/slurmd.log" "$work/log/slurmd.out" 2> /dev/null | tr '\n' ' ')"
  sleep 0.5
done
node_idle || skip "the node does not come up idle in 30 s: $(sinfo -N -h -o '%t %E' 2>&1) (logs $work/log)"
echo "SLURM up: slurmctld on port $port, node $node with 8 CPUs"

# --- the five programs as jobs ------------------------------------------------------------------
# A train bucket without a cap, so that the credit invariant is linear (check_all); epochs of
# 400 steps (6-12 s here), so that the requeue lands inside one: SLURM took up to a second to
# deliver the requeue's SIGTERM on a loaded 2-core machine, and epochs of 40 steps (under a
# second at 1,000 samples/s) were over by then in 1 run of 4. Each new row credits 40 samples,
# so that an epoch needs as many new rows as the loop's tiny settings ask (160).
tiny_trainer+=(--set max_train_bucket_size=1e15 --set samples_per_epoch=6400
  --set max_train_bucket_per_new_data=40)
per_row=40
samples_per_epoch=6400
submit_args=(--partition tengen --selfplay-tasks 2 --trainer-ranks 2)
for program in selfplay shuffler trainer exporter gatekeeper; do
  declare -n tiny=tiny_$program
  for arg in "${tiny[@]}"; do submit_args+=("--$program-arg" "$arg"); done
  unset -n tiny
done
started=$(now)
jobs_out=$(bash "$src/scripts/slurm/submit.sh" "${submit_args[@]}" "$base") || fail "submit.sh failed: $jobs_out"
echo "$jobs_out"
declare -A job_of=()
while read -r program job; do job_of[$program]=$job; done <<< "$jobs_out"
for program in selfplay shuffler trainer exporter gatekeeper; do
  [[ ${job_of[$program]:-} =~ ^[0-9]+$ ]] || fail "submit.sh printed no job id for $program: $jobs_out"
done
trainer_job=${job_of[trainer]}
job_state() { squeue -h -j "$1" -o %T 2> /dev/null | head -n 1; }
running() { [[ $(job_state "$1") == RUNNING ]]; }
all_running() {
  local program
  for program in shuffler trainer exporter gatekeeper; do running "${job_of[$program]}" || return 1; done
  (($(squeue -h -j "${job_of[selfplay]}" -t RUNNING -o %i | wc -l) == 2))
}
wait_for 60 "every job (and both selfplay array tasks) to run" all_running
squeue

have_model() { [[ -n $(newest_model) ]]; }
wait_for 240 "a first accepted model" have_model
echo "$(($(now) - started)) s: first accepted model $(newest_model)"
check_all "the first model"

# --- the trainer's job requeued mid-epoch -------------------------------------------------------
# The pid file of the trainer's rank 0 (the one that writes checkpoints and logs resuming).
trainer_pid_file() { grep -l '^rank=0$' "$base"/run/trainer-tiny-*.pid 2> /dev/null | head -n 1; }
has_trainer_pid_file() { [[ -n $(trainer_pid_file) ]]; }
wait_for 30 "the trainer's pid file" has_trainer_pid_file
pid_file=$(trainer_pid_file)
old_pid=$(field pid "$pid_file")
[[ $(field slurm_job "$pid_file") == "$trainer_job" ]] ||
  fail "the trainer's pid file $pid_file does not name job $trainer_job: $(cat "$pid_file")"
old_log=$base/logs/trainer/$host-$old_pid.log
# The two ranks met through MASTER_ADDR/MASTER_PORT (a process group of 2).
grep -q "joining rank 0 of 2" "$old_log" && grep -q "process group up" "$old_log" ||
  fail "the trainer's rank 0 did not join a process group of 2 (log $old_log)"
# Mid-epoch: at a seeded random moment shortly after the trainer logs the start of an epoch
# ("epoch N: S steps of ..."); the checkpoint it writes on the way out says in_epoch 1.
epochs_started() { grep -c "epoch [0-9]*: [0-9]* steps of" "$old_log" 2> /dev/null || true; }
before=$(epochs_started)
epoch_started() { (($(epochs_started) > before)); }
RANDOM=${TENGEN_SLURM_SEED:-15}
delay=$(awk -v ms=$((RANDOM % 150)) 'BEGIN { printf "%.3f", ms / 1000 }')
deadline=$(($(now) + 120))
until epoch_started; do
  (($(now) < deadline)) || fail "timed out after 120 s waiting for the trainer to start an epoch"
  sleep 0.05
done
sleep "$delay"
echo "$(($(now) - started)) s: scontrol requeue $trainer_job (trainer pid $old_pid, $delay s into its epoch)"
scontrol requeue "$trainer_job" || fail "scontrol requeue $trainer_job failed"
gone() { ! kill -0 "$1" 2> /dev/null; }
wait_for 70 "trainer pid $old_pid to exit after the requeue's SIGTERM" gone "$old_pid"
status_recorded_of() { [[ -n $(exit_status_of trainer "$1") ]]; }
wait_for 10 "the exit status of trainer pid $old_pid" status_recorded_of "$old_pid"
status=$(exit_status_of trainer "$old_pid")
[[ $status == 0 ]] || fail "trainer pid $old_pid exited with status $status after the requeue's SIGTERM (log $old_log)"
grep -q "(stopped by a signal)" "$old_log" || fail "trainer pid $old_pid did not log its stop by the signal (log $old_log)"
grep -q "samples, epoch in progress at step" "$old_log" ||
  fail "trainer pid $old_pid did not checkpoint inside its epoch (log $old_log; its end: $(tail -n 12 "$old_log"))"
check_all "the requeue"
ckpt=$(newest_checkpoint)
[[ -n $ckpt ]] || fail "no trainer checkpoint after the requeue"
# state PATH samples epochs in_epoch ...: the checkpoint of the stop is inside an epoch.
state=$("$checker" "$base" 2> /dev/null | grep "^state .*/$ckpt ") || fail "check_base_dir does not list checkpoint $ckpt"
[[ $(awk '{ print $5 }' <<< "$state") == 1 ]] ||
  fail "the requeue did not stop the trainer inside an epoch (checkpoint $ckpt: $state)"
pending() { [[ $(job_state "$trainer_job") == PENDING ]]; }
# start_requeued: once the requeued trainer job is pending, starts it now instead of at the
# begin time SLURM holds it back to. slurmd revokes the old run's credential with a time in
# whole seconds, and a run started in that same second is killed as "Job credential revoked"
# (seen once in CI): it starts a second later.
start_requeued() {
  wait_for 90 "job $trainer_job to be pending again" pending
  sleep 2
  scontrol update jobid="$trainer_job" StartTime=now || fail "scontrol update jobid=$trainer_job StartTime=now failed"
  wait_for 60 "the requeued job $trainer_job to run" running "$trainer_job"
}
start_requeued
new_pid_file() { [[ -n $(trainer_pid_file) && $(field pid "$(trainer_pid_file)") != "$old_pid" ]]; }
wait_for 60 "the requeued trainer's pid file" new_pid_file
new_pid=$(field pid "$(trainer_pid_file)")
expect_resume "$ckpt" "$base/logs/trainer/$host-$new_pid.log"
# It finishes the interrupted epoch from the step it had reached, not from a new epoch.
grep -q "resuming from $base/train/tiny/checkpoints/$ckpt: .*, finishing an epoch at step [1-9][0-9]*/40" \
  "$base/logs/trainer/$host-$new_pid.log" || fail "the requeued trainer does not finish the interrupted epoch"
check_all "the requeued trainer's first checkpoint"
[[ $(scontrol show job "$trainer_job") == *"Restarts=1"* ]] || fail "job $trainer_job was not restarted once: $(scontrol show job "$trainer_job")"
grep -q "job $trainer_job, restart 1, " "$base/logs/slurm/tengen-trainer-$trainer_job.out" ||
  fail "the job output does not show the restart (SLURM_RESTART_COUNT)"
for rank in 0 1; do
  grep -q "trainer rank $rank of 2 (local $rank of 2) on .*, master $node:" "$base/logs/slurm/tengen-trainer-$trainer_job.out" ||
    fail "the trainer's rank $rank did not get its place from SLURM's environment"
done
(($(ls "$base"/run/trainer-tiny-*.pid | wc -l) == 2)) || fail "not one pid file per trainer rank: $(ls "$base/run")"
echo "$(($(now) - started)) s: the requeued trainer resumed from $ckpt and went on"

# --- the time limit's SIGINT to the batch shell (--signal=B:INT), sent by hand -------------------
# scancel --batch --signal=INT signals the batch shell alone, as SLURM does before the time
# limit: job.sh passes it to srun, srun to the rank; the trainer checkpoints and exits 0, and
# job.sh requeues its job, which resumes once more.
ckpt_before_int=$(newest_checkpoint)
int_pid=$new_pid
scancel --batch --signal=INT "$trainer_job" || fail "scancel --batch --signal=INT $trainer_job failed"
wait_for 70 "trainer pid $int_pid to exit after the SIGINT" gone "$int_pid"
wait_for 10 "the exit status of trainer pid $int_pid" status_recorded_of "$int_pid"
status=$(exit_status_of trainer "$int_pid")
[[ $status == 0 ]] || fail "trainer pid $int_pid exited with status $status after the SIGINT"
out_file=$base/logs/slurm/tengen-trainer-$trainer_job.out
requeued_itself() { grep -q "slurm/job.sh: requeueing job $trainer_job to go on after its time limit" "$out_file"; }
wait_for 30 "job.sh to requeue job $trainer_job after the SIGINT ($out_file)" requeued_itself
check_all "the SIGINT to the trainer's batch shell"
ckpt=$(newest_checkpoint)
[[ $ckpt != "$ckpt_before_int" ]] || fail "the trainer wrote no checkpoint on the SIGINT"
start_requeued
third_pid_file() { [[ -n $(trainer_pid_file) && $(field pid "$(trainer_pid_file)") != "$int_pid" ]]; }
wait_for 60 "the trainer's pid file after the second requeue" third_pid_file
new_pid=$(field pid "$(trainer_pid_file)")
expect_resume "$ckpt" "$base/logs/trainer/$host-$new_pid.log"
check_all "the trainer's second resume"
[[ $(scontrol show job "$trainer_job") == *"Restarts=2"* ]] || fail "job $trainer_job was not restarted twice"
echo "$(($(now) - started)) s: after the SIGINT the job requeued itself and the trainer resumed from $ckpt"

first=$(newest_model)
first_samples=$(sed 's/.*-s\([0-9]*\)-d[0-9]*$/\1/' <<< "$first")
newer_model() {
  local model
  model=$(newest_model)
  (($(sed 's/.*-s\([0-9]*\)-d[0-9]*$/\1/' <<< "$model") > first_samples))
}
wait_for 240 "a model newer than $first after the requeue" newer_model
models=$(count "$base/models" -mindepth 1 -maxdepth 1 -type d)
((models >= 2)) || fail "only $models accepted models"
echo "$(($(now) - started)) s: accepted after the requeue: $(newest_model) ($models models)"
check_all "the second model"

# --- heartbeats and tengen-status name the jobs ---------------------------------------------
array=${job_of[selfplay]}
for task in 0 1; do
  grep -l "\"array_job_id\": \"$array\", \"array_task_id\": \"$task\"" "$base"/status/selfplay-*.json > /dev/null ||
    fail "no selfplay heartbeat names array task ${array}_$task"
done
grep -q "\"slurm\": {\"job_id\": \"$trainer_job\"}" "$base/status/trainer-$host-$new_pid.json" ||
  fail "the trainer's heartbeat does not name job $trainer_job: $(cat "$base/status/trainer-$host-$new_pid.json")"
status_text=$("$bin/tengen-status" "$base" --min-free-gb 0 --min-free-percent 0) || fail "tengen-status failed"
grep -q "selfplay on $host pid [0-9]* (SLURM job ${array}_1): alive" <<< "$status_text" ||
  fail "tengen-status does not name array task ${array}_1: $status_text"
grep -q "trainer on $host pid $new_pid (SLURM job $trainer_job): alive" <<< "$status_text" ||
  fail "tengen-status does not name the trainer's job: $status_text"

# --- scancel: every program stops cleanly ---------------------------------------------------------
scancel "${job_of[@]}" || fail "scancel failed"
no_jobs() { [[ -z $(squeue -h -o %i) ]]; }
wait_for 90 "every job to end after scancel" no_jobs
for out in "$base"/logs/*/nohup-*.out; do
  while read -r program pid code; do
    [[ $code == 0 ]] || fail "tengen-$program pid $pid exited with status $code ($out)"
  done < <(sed -n 's/.*start.sh: tengen-\([a-z]*\) pid \([0-9]*\) exited with status \([0-9]*\)$/\1 \2 \3/p' "$out")
done
started_count=$(cat "$base"/logs/*/nohup-*.out | grep -c "start.sh: /" || true)
ended_count=$(cat "$base"/logs/*/nohup-*.out | grep -c "exited with status 0$" || true)
((started_count == ended_count)) || fail "$started_count programs started but $ended_count exited with status 0"
((started_count == 11)) || fail "expected 11 program starts (2 selfplay, 2 trainer ranks 3 times, 3 services), got $started_count"
# Each batch shell reports the program's own status: it ignores the SIGTERM that reaches it too.
for out in "$base"/logs/slurm/*.out; do
  last=$(sed -n 's/^slurm\/job.sh: tengen-[a-z]* ended with status \([0-9]*\)$/\1/p' "$out" | tail -n 1)
  [[ $last == 0 ]] || fail "the batch shell of $out reported status ${last:-none} after scancel"
done
compgen -G "$base/run/*.pid" > /dev/null && fail "pid files left after scancel: $(ls "$base/run")"
check_all "scancel"
echo "SLURM: $models models, trainer requeued and resumed from $ckpt, all stopped cleanly in $(($(now) - started)) s: OK"
