#!/usr/bin/env bash
# scripts/cluster.sh against an sshd on localhost that this test starts itself (own host key,
# own user key, own port): start a selfplay and a shuffler from a hosts file, list them, see
# selfplay publish a shard, stop them all, and check that they ended and left no pid file.
# Needs openssh-server and openssh-client (scripts/test.sh installs them) and root (sshd's
# privilege separation).
#
#   cluster_ssh_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
src=$1
bin=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -x /usr/sbin/sshd ]] || fail "/usr/sbin/sshd is missing: install openssh-server (scripts/test.sh does)"
command -v ssh-keygen > /dev/null || fail "ssh-keygen is missing: install openssh-client"
((EUID == 0)) || fail "sshd needs root for privilege separation"

work=$(mktemp -d)
sshd_pid=""
cleanup() {
  [[ -n $sshd_pid ]] && kill "$sshd_pid" 2>/dev/null || true
  [[ -d $work/base ]] && TENGEN_BIN=$bin bash "$src/scripts/stop_all.sh" --timeout 20 --kill "$work/base" > /dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$work/user_key"
cp "$work/user_key.pub" "$work/authorized_keys"
chmod 600 "$work/authorized_keys"
mkdir -p /run/sshd
port=$((20000 + RANDOM % 20000))
cat > "$work/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $work/host_key
AuthorizedKeysFile $work/authorized_keys
PidFile $work/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
EOF
/usr/sbin/sshd -D -e -f "$work/sshd_config" 2> "$work/sshd.log" &
sshd_pid=$!
export TENGEN_SSH="ssh -p $port -i $work/user_key -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
for _ in $(seq 50); do
  $TENGEN_SSH localhost true 2> /dev/null && break
  sleep 0.2
done
$TENGEN_SSH localhost true || { cat "$work/sshd.log"; fail "cannot ssh to the test sshd on port $port"; }

base=$work/base
cat > "$work/hosts" <<EOF
# host     program   options
localhost  selfplay  --set board_sizes=7:1 --set pos_len=7 --set full_visits=8 --set cheap_visits=4 --set num_game_threads=4 --set devices=cpu --set max_shard_age_seconds=1 --set max_rows_per_file=20
localhost  shuffler  --set min_rows=1000000 --set interval_seconds=1
EOF
export TENGEN_BIN=$bin
bash "$src/scripts/cluster.sh" start "$work/hosts" "$base" || fail "cluster.sh start failed"
listing=$(bash "$src/scripts/cluster.sh" list "$work/hosts" "$base")
echo "$listing"
if ! grep -q "localhost selfplay pid [0-9]* running" <<< "$listing"; then
  tail -n 20 "$base"/logs/selfplay/nohup-selfplay-*.out >&2
  fail "list does not show selfplay running (its output above)"
fi
grep -q "localhost shuffler pid [0-9]* running" <<< "$listing" || fail "list does not show the shuffler running"
# Starting the shuffler again is refused (one per base directory), and said so.
echo "localhost shuffler" > "$work/hosts2"
if bash "$src/scripts/cluster.sh" start "$work/hosts2" "$base" 2> "$work/refused.log"; then
  fail "a second shuffler was started"
fi
for _ in $(seq 150); do
  compgen -G "$base/selfplay/random/tdata/*.npz" > /dev/null && break
  sleep 0.2
done
compgen -G "$base/selfplay/random/tdata/*.npz" > /dev/null || fail "selfplay published no shard"
bash "$src/scripts/cluster.sh" stop "$work/hosts" "$base" || fail "cluster.sh stop failed"
listing=$(bash "$src/scripts/cluster.sh" list "$work/hosts" "$base")
[[ -z $listing ]] || fail "programs still listed after stop: $listing"
compgen -G "$base/run/*.pid" > /dev/null && fail "pid files left after stop: $(ls "$base/run")"
# A bad hosts file is a usage error naming the line.
echo "localhost painter" > "$work/bad_hosts"
if bash "$src/scripts/cluster.sh" start "$work/bad_hosts" "$base" 2> "$work/bad.log"; then
  fail "an unknown program was accepted"
fi
grep -q "bad_hosts:1: unknown program 'painter'" "$work/bad.log" || fail "unclear error: $(cat "$work/bad.log")"
echo "cluster over ssh: OK"
