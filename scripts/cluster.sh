#!/usr/bin/env bash
# Starts, stops or lists the tengen programs of a whole cluster over ssh, for people without a
# scheduler. A hosts file says which programs run on which machine; each machine must see the
# base directory and this repository (built, or buildable) at the same paths.
#
#   scripts/cluster.sh start HOSTS_FILE BASE     start every line's program on its host
#   scripts/cluster.sh stop  HOSTS_FILE BASE     SIGINT every program of BASE on every host
#   scripts/cluster.sh list  HOSTS_FILE BASE     what runs where (from the pid files, checked
#                                                on each host)
#
# HOSTS_FILE: one program per line, "HOST PROGRAM [options for the program...]"; '#' starts a
# comment. Options go to scripts/start.sh after its defaults (--config configs/PROGRAM.cfg
# --output-dir BASE), so devices, names and overrides are set per line:
#
#   # host      program     options
#   gpu1        trainer     --training-name b10c128 --set device=cuda
#   gpu1        shuffler
#   gpu1        exporter
#   gpu1        gatekeeper  --set device=cuda
#   cpu1        selfplay    --set devices=cpu,cpu
#   cpu2        selfplay    --set devices=cpu,cpu
#
# Environment: TENGEN_SSH   the ssh command (default "ssh -o BatchMode=yes"); e.g. add -p PORT
#                           or -i KEY
#              TENGEN_REPO  the repository's path on the hosts (default: this one's)
#              TENGEN_BIN   passed on to start.sh on the hosts when set
# Exit status: 0 when every host did what was asked; 1 when one failed (each is named); 2 usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

usage() { sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

(($# == 3)) || usage
action=$1
hosts_file=$2
base=$3
case $action in start|stop|list) ;; *) echo "cluster.sh: unknown action '$action'" >&2; usage ;; esac
[[ -f $hosts_file ]] || { echo "cluster.sh: no hosts file $hosts_file" >&2; exit 2; }
[[ $base == /* ]] || { echo "cluster.sh: BASE must be an absolute path (the same on every host), got '$base'" >&2; exit 2; }
read -r -a ssh_cmd <<< "${TENGEN_SSH:-ssh -o BatchMode=yes}"
repo=${TENGEN_REPO:-$root}

# Parses the hosts file into parallel arrays; errors name the file and line.
line_hosts=() line_programs=() line_options=()
line_number=0
while IFS= read -r line || [[ -n $line ]]; do
  line_number=$((line_number + 1))
  line=${line%%#*}
  read -r -a words <<< "$line"
  ((${#words[@]})) || continue
  if ((${#words[@]} < 2)); then
    echo "cluster.sh: $hosts_file:$line_number: expected 'HOST PROGRAM [options]', got '$line'" >&2
    exit 2
  fi
  case ${words[1]} in
    selfplay|shuffler|trainer|exporter|gatekeeper) ;;
    *) echo "cluster.sh: $hosts_file:$line_number: unknown program '${words[1]}'" >&2; exit 2 ;;
  esac
  line_hosts+=("${words[0]}")
  line_programs+=("${words[1]}")
  quoted=""
  for word in "${words[@]:2}"; do quoted+=" $(printf '%q' "$word")"; done
  line_options+=("$quoted")
done < "$hosts_file"
((${#line_hosts[@]})) || { echo "cluster.sh: $hosts_file names no program" >&2; exit 2; }
mapfile -t hosts < <(printf '%s\n' "${line_hosts[@]}" | awk '!seen[$0]++')

env_prefix="cd $(printf '%q' "$repo") &&"
[[ -n ${TENGEN_BIN:-} ]] && env_prefix+=" TENGEN_BIN=$(printf '%q' "$TENGEN_BIN")"
qbase=$(printf '%q' "$base")

remote() {  # remote HOST COMMAND: runs COMMAND (already quoted) on HOST
  "${ssh_cmd[@]}" "$1" "bash -c $(printf '%q' "$2")" < /dev/null
}

failed=()
case $action in
  start)
    for i in "${!line_hosts[@]}"; do
      host=${line_hosts[$i]} program=${line_programs[$i]}
      echo "cluster.sh: starting $program on $host" >&2
      if ! remote "$host" "$env_prefix bash scripts/start.sh $program $qbase${line_options[$i]}"; then
        failed+=("$program on $host")
      fi
    done ;;
  stop)
    for host in "${hosts[@]}"; do
      echo "cluster.sh: stopping the programs on $host" >&2
      remote "$host" "$env_prefix bash scripts/stop_all.sh $qbase" || failed+=("$host")
    done ;;
  list)
    # Pid files are BASE/run/*.pid with key=value lines (scripts/start.sh); each host checks
    # its own.
    for host in "${hosts[@]}"; do
      remote "$host" "shopt -s nullglob; me=\$(hostname); for f in $qbase/run/*.pid; do
          h=\$(sed -n 's/^host=//p' \"\$f\"); [[ \$h == \"\$me\" ]] || continue
          p=\$(sed -n 's/^pid=//p' \"\$f\"); prog=\$(sed -n 's/^program=//p' \"\$f\")
          if kill -0 \"\$p\" 2>/dev/null; then s=running; else s=gone; fi
          echo \"$host \$prog pid \$p \$s (\$(basename \"\$f\" .pid))\"; done" || failed+=("$host")
    done ;;
esac
if ((${#failed[@]})); then
  printf 'cluster.sh: %s failed: %s\n' "$action" "$(IFS=,; echo "${failed[*]}")" >&2
  exit 1
fi
