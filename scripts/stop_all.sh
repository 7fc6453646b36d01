#!/usr/bin/env bash
# Stops the tengen programs that scripts/start.sh started on this host against a base
# directory: SIGINT to each (it publishes what is complete and exits 0), then waits for them
# and reports how each ended. Pid files of processes that are gone are removed.
#
#   scripts/stop_all.sh [--timeout SECONDS] [--kill] BASE [PROGRAM...]
#
#   BASE       the base directory given to start.sh
#   PROGRAM    only these: selfplay, shuffler, trainer, exporter, gatekeeper (default: all)
# options:
#   --timeout SECONDS  how long to wait for them (default 120: the trainer finishes its step
#                      and writes a checkpoint, selfplay finishes the searches in flight)
#   --kill             after the timeout, end what still runs with SIGKILL (it loses its work
#                      in progress, never anything published)
#
# Only this host's processes are signalled (pid files name their host); run it on every
# machine. Exit status: 0 when every program stopped and exited 0; 1 when one is still running
# after the timeout or ended with another status (each is named); 2 usage.
set -euo pipefail

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

timeout=120
kill_after=0
while (($#)); do
  case $1 in
    --timeout)
      (($# >= 2)) || usage
      timeout=$2; shift 2 ;;
    --kill) kill_after=1; shift ;;
    -h|--help) usage ;;
    --*) echo "stop_all.sh: unknown option $1" >&2; usage ;;
    *) break ;;
  esac
done
(($# >= 1)) || usage
base=$1
shift
[[ $timeout =~ ^(0|[1-9][0-9]*)$ ]] || { echo "stop_all.sh: --timeout must be whole seconds, got '$timeout'" >&2; exit 2; }
programs=("$@")
for program in "${programs[@]}"; do
  case $program in
    selfplay|shuffler|trainer|exporter|gatekeeper) ;;
    *) echo "stop_all.sh: unknown PROGRAM '$program' (selfplay, shuffler, trainer, exporter, gatekeeper)" >&2; exit 2 ;;
  esac
done
[[ -d $base ]] || { echo "stop_all.sh: base directory $base does not exist" >&2; exit 2; }
source "$(cd "$(dirname "$0")" && pwd)/lib.sh"
run_dir=$base/run
host=$(hostname 2>/dev/null || echo unknown)
host=${host//\//_}

wanted() {
  ((${#programs[@]} == 0)) && return 0
  local p
  for p in "${programs[@]}"; do [[ $p == "$1" ]] && return 0; done
  return 1
}
# The exit status the supervisor recorded for PID in OUTPUT, or "unknown".
exit_status() {
  local status
  status=$(sed -n "s/.*start.sh: tengen-$1 pid $2 exited with status \\([0-9]*\\)$/\\1/p" "$3" 2>/dev/null | tail -1)
  echo "${status:-unknown}"
}

files=() pids=() names=() supervisors=() outputs=()
shopt -s nullglob
for file in "$run_dir"/*.pid; do
  [[ $(field host "$file") == "$host" ]] || continue
  program=$(field program "$file")
  wanted "$program" || continue
  pid=$(field pid "$file")
  files+=("$file") pids+=("$pid") names+=("$program") outputs+=("$(field output "$file")")
  supervisors+=("$(field supervisor "$file")")
  if alive "$pid" "$program"; then
    interrupt "$pid"
    echo "stop_all.sh: SIGINT to tengen-$program pid $pid ($(basename "$file" .pid))" >&2
  fi
done
if ((${#files[@]} == 0)); then
  echo "stop_all.sh: nothing started by start.sh runs on $host in $base" >&2
  exit 0
fi

# Waits until every process is gone or the time is up.
deadline=$(($(date +%s) + timeout))
while :; do
  running=0
  for i in "${!files[@]}"; do
    alive "${pids[i]}" "${names[i]}" && running=$((running + 1))
  done
  ((running == 0)) && break
  if (($(date +%s) >= deadline)); then
    ((kill_after)) || break
    for i in "${!files[@]}"; do
      if alive "${pids[i]}" "${names[i]}"; then
        echo "stop_all.sh: tengen-${names[i]} pid ${pids[i]} still runs after ${timeout} s: SIGKILL" >&2
        kill -KILL "${pids[i]}" 2>/dev/null || true
      fi
    done
    kill_after=0
    deadline=$(($(date +%s) + 10))
  fi
  sleep 0.2
done

code=0
for i in "${!files[@]}"; do
  name="tengen-${names[i]} pid ${pids[i]}"
  if alive "${pids[i]}" "${names[i]}"; then
    echo "stop_all.sh: $name is still running after ${timeout} s (pid file ${files[i]}); run stop_all.sh again, or with --kill" >&2
    code=1
    continue
  fi
  # The supervisor records the exit status, then removes the pid file.
  for ((t = 0; t < 50; t++)); do
    alive "${supervisors[i]}" "${names[i]}" || break
    sleep 0.1
  done
  status=$(exit_status "${names[i]}" "${pids[i]}" "${outputs[i]}")
  if [[ -f ${files[i]} ]]; then
    rm -f "${files[i]}"
    echo "stop_all.sh: removed stale pid file ${files[i]}" >&2
  fi
  echo "stop_all.sh: $name exited with status $status (output ${outputs[i]})" >&2
  [[ $status == 0 ]] || code=1
done
exit "$code"
