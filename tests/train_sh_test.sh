#!/usr/bin/env bash
# scripts/train.sh when a rank fails: the others get one SIGINT, and a rank that still runs after
# --kill-after seconds (blocked in a collective with the dead rank, here a fake that ignores the
# SIGINT) is killed; train.sh exits with the failed rank's status. Fake ranks (a script named
# tengen-trainer in TENGEN_BIN), so no libtorch is needed.
#
#   train_sh_test.sh SOURCE_DIR
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cat > "$work/tengen-trainer" <<'FAKE'
#!/bin/bash
# Rank 0 fails once every rank runs; the others catch SIGINT and go on regardless. (Started in
# the background, bash has SIGINT ignored and could not trap it: restart with it at default.)
[ -n "${FAKE_RESET:-}" ] || FAKE_RESET=1 exec env --default-signal=INT "$0" "$@"
echo "rank $RANK of $WORLD_SIZE up" >&2
if [ "${FAKE_MODE:-}" = stop ]; then
  trap 'echo "rank $RANK: SIGINT, checkpoint" >&2; exit 0' INT
  while :; do sleep 0.1; done
fi
if [ "$RANK" = 0 ]; then sleep 1; exit 3; fi
trap 'echo "rank $RANK: SIGINT, going on" >&2' INT
while :; do sleep 0.1; done
FAKE
chmod +x "$work/tengen-trainer"

set +e
out=$(TENGEN_BIN=$work bash "$src/scripts/train.sh" --cpu-ranks 3 --kill-after 2 -- --fake 2>&1)
code=$?
set -e
echo "$out"
((code == 3)) || fail "train.sh exited with $code, not the failed rank's 3"
grep -q "exited with 3; stopping the others" <<< "$out" || fail "no line for the failed rank"
(($(grep -c "SIGINT, going on" <<< "$out") == 2)) || fail "the 2 other ranks did not get one SIGINT each"
(($(grep -c "still runs 2 s after the SIGINT: SIGKILL" <<< "$out") == 2)) ||
  fail "the 2 stuck ranks were not killed after --kill-after"
! pgrep -f "$work/tengen-trainer" > /dev/null || fail "a fake rank still runs"

# Started as a new user would from a script (`setsid nohup ... &` in a non-interactive shell, so
# with SIGINT ignored on entry), train.sh still passes a SIGINT on to its ranks and exits 0.
FAKE_MODE=stop TENGEN_BIN=$work setsid nohup bash "$src/scripts/train.sh" --cpu-ranks 2 -- --fake \
  > "$work/background.log" 2>&1 &
pid=$!
for _ in $(seq 200); do (($(grep -c " up$" "$work/background.log") == 2)) && break; sleep 0.1; done
(($(grep -c " up$" "$work/background.log") == 2)) || fail "the 2 ranks of the background train.sh did not start"
kill -INT "$pid"
for _ in $(seq 200); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2> /dev/null; then
  kill -TERM "$pid"
  fail "a train.sh started in the background went on running 20 s after SIGINT"
fi
set +e
wait "$pid"
code=$?
set -e
cat "$work/background.log"
((code == 0)) || fail "the background train.sh exited with $code after SIGINT"
(($(grep -c "SIGINT, checkpoint" "$work/background.log") == 2)) ||
  fail "the SIGINT to a background train.sh did not reach both ranks"

# A bad --kill-after is refused.
if out=$(TENGEN_BIN=$work bash "$src/scripts/train.sh" --kill-after soon -- 2>&1); then
  fail "--kill-after soon was accepted"
fi
grep -q -- "--kill-after must be a number" <<< "$out" || fail "unexpected message: $out"
echo "train.sh: a failed rank stops the others, stuck ones are killed: OK"
