#!/usr/bin/env bash
# The asynchronous loop across three "hosts" on this machine that share the base directory over
# the network (tests/netfs_lib.sh: network namespaces, veth links, sshfs): selfplay on netfs-w1
# and netfs-w2 writes its shards through their sshfs mounts; the shuffler, trainer, exporter and
# gatekeeper run on the file server netfs-fs. All of it is started, listed and stopped with
# scripts/cluster.sh and one hosts file. Checks: both workers publish shards under their own
# host names, at least two models are accepted, tengen-status (on a worker, through its mount)
# shows every host's processes and the selfplay rates per host, cluster.sh list shows each
# program on its host, every program stops with status 0, no pid file or temporary is left,
# and every published file reads back (check_base_dir).
# With DELAY_MS, the same across a slow network: each worker reaches the file server DELAY_MS
# late each way (a round trip of 2 x DELAY_MS, tests/delay_proxy.py; this kernel has no tc
# netem). Skipped (exit 77) where network namespaces, FUSE or sshfs are missing.
#
#   netfs_cluster_test.sh SOURCE_DIR BIN_DIR CHECK_BASE_DIR [DELAY_MS]
set -euo pipefail
src=$1
bin=$2
checker=$3
export NETFS_DELAY_MS=${4:-}
work=$(mktemp -d)
source "$src/tests/netfs_lib.sh"
netfs_require
netfs_up 2
source "$src/tests/loop_lib.sh"

if [[ -n $NETFS_DELAY_MS ]]; then
  # The delay is in effect: creating, syncing, closing and removing a file on a worker's mount
  # takes at least two round trips.
  took=$(on netfs-w1 "python3 -c 'import os, time; t = time.time(); f = open(\"$base/.probe\", \"w\"); f.write(\"x\"); f.flush(); os.fsync(f.fileno()); f.close(); os.remove(\"$base/.probe\"); print(int((time.time() - t) * 1000))'")
  ((took >= 4 * NETFS_DELAY_MS)) || fail "a file round trip on netfs-w1 took $took ms, less than 2 round trips of $((2 * NETFS_DELAY_MS)) ms"
  echo "a file created, synced and removed on netfs-w1 in $took ms (round trip $((2 * NETFS_DELAY_MS)) ms)"
fi

options() { local -n tiny=tiny_$1; printf ' %q' "${tiny[@]}"; }
cat > "$work/hosts" << EOF
# host    program     options
netfs-w1  selfplay   $(options selfplay) --set seed=21
netfs-w2  selfplay   $(options selfplay) --set seed=22
netfs-fs  shuffler   $(options shuffler)
netfs-fs  trainer    $(options trainer)
netfs-fs  exporter   $(options exporter)
netfs-fs  gatekeeper $(options gatekeeper)
EOF
started=$(now)
bash "$src/scripts/cluster.sh" start "$work/hosts" "$base" || fail "cluster.sh start failed"
listing=$(bash "$src/scripts/cluster.sh" list "$work/hosts" "$base")
echo "$listing"
for entry in "netfs-w1 selfplay" "netfs-w2 selfplay" "netfs-fs shuffler" "netfs-fs trainer" \
  "netfs-fs exporter" "netfs-fs gatekeeper"; do
  grep -q "^$entry pid [0-9]* running" <<< "$listing" || fail "cluster.sh list does not show $entry running"
done

shards_of() { compgen -G "$base/selfplay/*/tdata/*-$1-[0-9]*-*.npz" > /dev/null; }
models_at_least() { (($(newest_models | wc -l) >= $1)); }
newest_models() { ls "$base/models" 2> /dev/null | grep -v '\.tmp' | grep -- '-s[0-9]*-d[0-9]*$' || true; }
wait_for 90 "a shard from netfs-w1" shards_of netfs-w1
wait_for 60 "a shard from netfs-w2" shards_of netfs-w2
wait_for 240 "two accepted models" models_at_least 2
echo "$(($(now) - started)) s: shards from both workers, models: $(newest_models | tr '\n' ' ')"

# tengen-status on a worker, reading the base directory through its mount: every host's
# programs alive, and the selfplay rates of both workers.
status_start=$(now)
status=$(on netfs-w1 "$bin/tengen-status $base") || fail "tengen-status on netfs-w1 failed: $status"
echo "$status"
echo "tengen-status on netfs-w1 took $(($(now) - status_start)) s ($(newest_models | wc -l) models)"
for entry in "selfplay on netfs-w1" "selfplay on netfs-w2" "shuffler on netfs-fs" \
  "trainer on netfs-fs" "exporter on netfs-fs" "gatekeeper on netfs-fs"; do
  grep -q "^  $entry pid [0-9]*: alive" <<< "$status" || fail "tengen-status does not show $entry alive"
done
for worker in netfs-w1 netfs-w2; do
  grep -q "$worker.*games/h" <<< "$status" || fail "tengen-status shows no selfplay rates for $worker"
done

out=$(bash "$src/scripts/cluster.sh" stop "$work/hosts" "$base" 2>&1) || { echo "$out"; fail "cluster.sh stop failed"; }
echo "$out"
for program in selfplay shuffler trainer exporter gatekeeper; do
  grep -q "tengen-$program pid [0-9]* exited with status 0" <<< "$out" ||
    fail "cluster.sh stop did not report tengen-$program exiting with status 0"
done
listing=$(bash "$src/scripts/cluster.sh" list "$work/hosts" "$base")
[[ -z $listing ]] || fail "programs still listed after cluster.sh stop: $listing"
compgen -G "$base/run/*.pid" > /dev/null && fail "pid files left after stop: $(ls "$base/run")"
leftovers=$(find "$base" -name '*.tmp*' || true)
[[ -z $leftovers ]] || fail "temporaries left behind: $leftovers"
"$checker" "$base" > /dev/null || fail "check_base_dir found partial or corrupt files"
echo "cluster on sshfs: OK ($(newest_models | wc -l) models accepted in $(($(now) - started)) s)"
