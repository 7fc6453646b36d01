# shellcheck shell=bash disable=SC2154
# A small cluster on this machine for the network-filesystem tests (sourced): Linux network
# namespaces joined by veth links, one "host" per namespace, each with its own host name (a UTS
# namespace: gethostname() and `hostname` say it), its own sshd (own keys and port, as
# cluster_ssh_test.sh does on localhost) and, on the workers, the base directory mounted with
# sshfs from the file server at the same absolute path. Every process started on a host
# through ssh (scripts/cluster.sh) runs in that host's namespaces and sees its mount.
#
#   file server  netfs-fs   10.213.K.1 on link K (one veth link per worker), 127.0.0.1
#   worker K     netfs-wK   10.213.K.2, mounts root@10.213.K.1:BASE on BASE (sshfs)
#
# The base directory is a size-limited tmpfs (NETFS_BASE_MB, default 256 MB) mounted in this
# shell's namespace, which the file server shares: the test reads it as the server sees it,
# and can fill it up. The test itself (the "driver") stays in the machine's namespaces and
# reaches the hosts with $TENGEN_SSH (ssh from inside the file server's network namespace),
# so scripts/cluster.sh works with host names netfs-fs, netfs-w1, ...
#
# Expects: work (scratch dir, absolute path). Sets: base, TENGEN_SSH, netfs_hosts.
# Functions:
#   netfs_require              skips the test (exit 77, naming what is missing) unless this
#                              machine can build the cluster: root, iproute2, util-linux
#                              unshare, sshd, ssh, sshfs, /dev/fuse, network namespaces
#   netfs_up N [SSHFS_OPTIONS] file server plus N workers; SSHFS_OPTIONS (comma-separated)
#                              are added to every worker's mount options; with NETFS_DELAY_MS
#                              set, each worker's link to the file server is that much slower
#                              each way (tests/delay_proxy.py)
#   netfs_down                 tears everything down (installed as the EXIT/INT/TERM trap by
#                              netfs_up; idempotent)
#   on HOST COMMAND            runs COMMAND (a string, run by bash) on HOST over ssh
#   netfs_partition HOST / netfs_heal HOST   take HOST's link down / up again
#   netfs_kill_host HOST       kill -9 of every process on HOST (programs, supervisors,
#                              sshfs, sshd): a crashed machine; netfs_boot HOST brings it back
#   netfs_mount_reader NAME OPTIONS   another sshfs mount of BASE on the file server
#                              (its own cache options), at $work/reader-NAME; prints the path
# Needs: iproute2, openssh-server, openssh-client, sshfs (scripts/test.sh installs them).

netfs_skip() {
  echo "SKIPPED: the network-filesystem tests need $*" >&2
  ((netfs_torn_down)) || [[ -z ${work:-} || -n ${KEEP:-} ]] || rm -rf "$work"
  exit 77
}
netfs_fail() { echo "FAIL: $*" >&2; exit 1; }

netfs_require() {
  ((EUID == 0)) || netfs_skip "root (network namespaces, mounts, sshd)"
  local tool
  for tool in ip unshare ssh ssh-keygen sshfs; do
    command -v "$tool" > /dev/null || netfs_skip "the command '$tool' (install iproute2, util-linux, openssh-client, sshfs)"
  done
  [[ -x /usr/sbin/sshd ]] || netfs_skip "/usr/sbin/sshd (install openssh-server)"
  command -v fusermount3 > /dev/null || command -v fusermount > /dev/null ||
    netfs_skip "fusermount3 (install fuse3, which sshfs depends on)"
  [[ -c /dev/fuse ]] || netfs_skip "/dev/fuse (a kernel with FUSE; in a container: --device /dev/fuse)"
  local probe=tengen-netfs-probe-$$
  ip netns add "$probe" 2> "$work/netns-probe.err" ||
    netfs_skip "network namespaces (ip netns add failed: $(cat "$work/netns-probe.err"))"
  if ! ip netns exec "$probe" unshare --uts true 2> "$work/netns-probe.err"; then
    ip netns del "$probe" 2> /dev/null || true
    netfs_skip "UTS namespaces (unshare --uts failed: $(cat "$work/netns-probe.err"))"
  fi
  ip netns del "$probe"
}

netfs_port=2222
netfs_id=$$
netfs_hosts=()
netfs_workers=0
netfs_torn_down=0
netfs_sshfs_options=""

netfs_ns() { echo "tengen-netfs-$netfs_id-${1#netfs-}"; }  # namespace of HOST

# Namespaces left by an earlier run of this harness that was killed with -9 (its pid is gone).
netfs_remove_stale() {
  local ns owner
  for ns in $(ip netns list | awk '{print $1}' | grep '^tengen-netfs-[0-9]*-' || true); do
    owner=$(sed 's/^tengen-netfs-\([0-9]*\)-.*/\1/' <<< "$ns")
    kill -0 "$owner" 2> /dev/null && continue
    echo "netfs: removing namespace $ns of an earlier run (pid $owner is gone)" >&2
    netfs_kill_ns "$ns"
    ip netns del "$ns" 2> /dev/null || true
  done
}

netfs_kill_ns() {  # kill -9 of every process in network namespace NS
  local pids
  pids=$(ip netns pids "$1" 2> /dev/null || true)
  [[ -n $pids ]] || return 0
  # shellcheck disable=SC2086
  kill -9 $pids 2> /dev/null || true
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -z $(ip netns pids "$1" 2> /dev/null) ]] && return 0
    sleep 0.1
  done
}

netfs_down() {
  ((netfs_torn_down)) && return 0
  netfs_torn_down=1
  local host
  for host in "${netfs_hosts[@]}"; do netfs_kill_ns "$(netfs_ns "$host")"; done
  for host in "${netfs_hosts[@]}"; do ip netns del "$(netfs_ns "$host")" 2> /dev/null || true; done
  local mount
  for mount in "$work"/reader-*; do
    [[ -d $mount ]] && { fusermount3 -u -z "$mount" 2> /dev/null || umount -l "$mount" 2> /dev/null || true; }
  done
  if [[ -n ${base:-} ]] && mountpoint -q "$base"; then
    # KEEP=1 keeps the scratch directory, and a copy of the base directory in it.
    [[ -n ${KEEP:-} ]] && cp -a "$base" "$work/base-kept" 2> /dev/null
    umount -l "$base" 2> /dev/null || true
  fi
  [[ -n ${KEEP:-} ]] || rm -rf "$work"
}

# The ssh client config: every host by name, from inside the file server's namespace.
netfs_ssh_config() {
  local k
  {
    printf 'Host netfs-fs\n  HostName 127.0.0.1\n'
    for ((k = 1; k <= netfs_workers; k++)); do printf 'Host netfs-w%d\n  HostName 10.213.%d.2\n' "$k" "$k"; done
    printf 'Host *\n  Port %s\n  User root\n  IdentityFile %s\n  BatchMode yes\n' "$netfs_port" "$work/netfs/user_key"
    printf '  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n  ConnectTimeout 5\n'
    printf '  ServerAliveInterval 2\n  ServerAliveCountMax 3\n'
  } > "$work/netfs/ssh_config"
}

# The mount options every worker uses: reconnect after a lost connection, notice a dead link
# within ~6 s (ServerAlive), give up a reconnection attempt after 5 s, plus the test's own; with
# NETFS_DELAY_MS, the connection goes through tests/delay_proxy.py, which delays every byte by
# that much each way (network latency, where the kernel has no tc netem).
netfs_worker_mount_options() {
  local k=$1 delay=""
  [[ -n ${NETFS_DELAY_MS:-} ]] && delay=",ProxyCommand=python3 $src/tests/delay_proxy.py %h %p $NETFS_DELAY_MS"
  echo "IdentityFile=$work/netfs/user_key,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,port=$netfs_port,reconnect,ServerAliveInterval=2,ServerAliveCountMax=3,ConnectTimeout=5,BatchMode=yes${netfs_sshfs_options:+,$netfs_sshfs_options}$delay"
}

# netfs_boot HOST: starts HOST's long-lived shell in its namespaces: host name, loopback,
# (worker) the sshfs mount, then sshd in the foreground. Waits until ssh to it works.
netfs_boot() {
  local host=$1 ns k script
  ns=$(netfs_ns "$host")
  script="hostname $host && ip link set lo up"
  if [[ $host == netfs-w* ]]; then
    k=${host#netfs-w}
    script+=" && mkdir -p $(printf '%q' "$base") && sshfs -o $(printf '%q' "$(netfs_worker_mount_options "$k")") root@10.213.$k.1:$(printf '%q' "$base") $(printf '%q' "$base")"
  fi
  script+=" && exec /usr/sbin/sshd -D -e -f $(printf '%q' "$work/netfs/sshd_config")"
  ip netns exec "$ns" unshare --uts --mount --propagation slave bash -c "$script" \
    >> "$work/netfs/$host.log" 2>&1 < /dev/null &
  disown  # netfs_down kills it with -9: no "Killed" notice from this shell
  local i
  for ((i = 0; i < 100; i++)); do
    on "$host" true 2> /dev/null && break
    sleep 0.2
  done
  on "$host" true || { cat "$work/netfs/$host.log" >&2; netfs_fail "cannot ssh to $host (log $work/netfs/$host.log)"; }
  [[ $(on "$host" hostname) == "$host" ]] || netfs_fail "$host calls itself '$(on "$host" hostname)'"
  if [[ $host == netfs-w* ]]; then
    on "$host" "mountpoint -q $(printf '%q' "$base")" ||
      netfs_fail "$host did not mount $base (log $work/netfs/$host.log)"
  fi
}

netfs_up() {
  netfs_workers=$1
  netfs_sshfs_options=${2:-}
  netfs_remove_stale
  trap netfs_down EXIT
  trap 'netfs_down; exit 130' INT
  trap 'netfs_down; exit 143' TERM
  mkdir -p "$work/netfs" /run/sshd
  base=$work/base
  mkdir -p "$base"
  mount -t tmpfs -o "size=${NETFS_BASE_MB:-256}m,mode=0755" tengen-netfs-base "$base" ||
    netfs_skip "a tmpfs for the base directory (mount -t tmpfs failed)"
  ssh-keygen -q -t ed25519 -N '' -f "$work/netfs/host_key"
  ssh-keygen -q -t ed25519 -N '' -f "$work/netfs/user_key"
  cp "$work/netfs/user_key.pub" "$work/netfs/authorized_keys"
  chmod 600 "$work/netfs/authorized_keys"
  cat > "$work/netfs/sshd_config" << EOF
Port $netfs_port
HostKey $work/netfs/host_key
AuthorizedKeysFile $work/netfs/authorized_keys
PidFile none
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
ClientAliveInterval 2
ClientAliveCountMax 3
EOF
  netfs_hosts=(netfs-fs)
  local k
  for ((k = 1; k <= netfs_workers; k++)); do netfs_hosts+=("netfs-w$k"); done
  local host
  for host in "${netfs_hosts[@]}"; do
    ip netns add "$(netfs_ns "$host")" || netfs_fail "ip netns add $(netfs_ns "$host") failed"
  done
  local fs_ns
  fs_ns=$(netfs_ns netfs-fs)
  for ((k = 1; k <= netfs_workers; k++)); do
    local w_ns
    w_ns=$(netfs_ns "netfs-w$k")
    ip link add name "to-w$k" netns "$fs_ns" type veth peer name to-fs netns "$w_ns" ||
      netfs_fail "cannot create the veth link between netfs-fs and netfs-w$k"
    ip -n "$fs_ns" addr add "10.213.$k.1/24" dev "to-w$k"
    ip -n "$w_ns" addr add "10.213.$k.2/24" dev to-fs
    ip -n "$fs_ns" link set "to-w$k" up
    ip -n "$w_ns" link set to-fs up
  done
  netfs_ssh_config
  export TENGEN_SSH="ip netns exec $fs_ns ssh -F $work/netfs/ssh_config"
  for host in "${netfs_hosts[@]}"; do netfs_boot "$host"; done
  echo "netfs: file server netfs-fs and ${netfs_workers} workers up; base $base (tmpfs ${NETFS_BASE_MB:-256} MB)" >&2
}

on() {  # on HOST COMMAND
  local host=$1
  shift
  local -a ssh_cmd
  read -r -a ssh_cmd <<< "$TENGEN_SSH"
  "${ssh_cmd[@]}" "$host" "bash -c $(printf '%q' "$*")" < /dev/null
}

netfs_partition() {
  ip -n "$(netfs_ns "$1")" link set to-fs down || netfs_fail "cannot take $1's link down"
}
netfs_heal() {
  ip -n "$(netfs_ns "$1")" link set to-fs up || netfs_fail "cannot bring $1's link up"
}

netfs_kill_host() { netfs_kill_ns "$(netfs_ns "$1")"; }

# netfs_mount_reader NAME OPTIONS: an sshfs mount of BASE at $work/reader-NAME, made from the
# file server's namespace over its loopback (another client with its own caches), visible to
# this shell. Prints the mount point.
netfs_mount_reader() {
  local mount=$work/reader-$1
  mkdir -p "$mount"
  # Mounted from this shell's mount namespace, over the file server's network: ssh as the
  # transport, run inside the file server's namespace.
  sshfs -o "ssh_command=ip netns exec $(netfs_ns netfs-fs) ssh -F $work/netfs/ssh_config,$2" \
    "netfs-fs:$base" "$mount" || netfs_fail "cannot mount a reader of $base at $mount with -o $2"
  echo "$mount"
}
