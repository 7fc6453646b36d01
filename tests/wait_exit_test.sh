#!/usr/bin/env bash
# scripts/lib.sh wait_exit: a child's own exit status, also when a signal that the waiting shell
# traps interrupts its wait just as the child ends (a scheduler's SIGTERM reaches both; the
# start.sh supervisor once recorded 143 for a program that stopped cleanly).
set -euo pipefail
src=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

# waited TRAP CHILD [SIGNAL_AFTER]: the status wait_exit returns for `bash -c CHILD` in a shell
# whose SIGTERM trap runs TRAP; with SIGNAL_AFTER, both get SIGTERM that many seconds in.
waited() {
  bash -c '
    source "$1/scripts/lib.sh"
    trap "$2" TERM
    bash -c "$3" &
    child=$!
    if [[ -n $4 ]]; then (sleep "$4"; kill -TERM $$ "$child") & fi
    wait_exit "$child"
    echo $?' waited "$src" "$1" "$2" "${3:-}"
}

loop='while :; do sleep 0.05; done'
[[ $(waited : 'exit 5') == 5 ]] || fail "a plain exit 5 was not reported as 5"
# The trap outlasts the child, which ends on the same SIGTERM with status 3: wait was
# interrupted (143) and the child is gone by the time the shell looks.
status=$(waited 'sleep 0.5' "trap 'exit 3' TERM; $loop" 0.3)
[[ $status == 3 ]] || fail "a child that ended with 3 during the trap was reported as $status"
# The child is still stopping when the trap returns: wait_exit waits on.
status=$(waited : "trap 'sleep 0.5; exit 4' TERM; $loop" 0.3)
[[ $status == 4 ]] || fail "a child that ended with 4 after the trap was reported as $status"
# A child that a signal really ends reports that signal.
status=$(waited : "$loop" 0.3)
[[ $status == 143 ]] || fail "a child ended by SIGTERM was reported as $status"
echo "wait_exit: ok"
