# Shared shell helpers for scripts/*.sh (sourced, not run).

# ensure_packages PKG...: installs the Debian packages that are not installed yet.
# apt-get update runs only when something is missing, so a ready machine needs no network.
ensure_packages() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  ((${#missing[@]})) || return 0
  echo "installing Debian packages: ${missing[*]}" >&2
  local sudo=()
  ((EUID == 0)) || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
}

# torch_build_dir LIBTORCH: the build directory (relative to the repository) of a build against
# the libtorch in LIBTORCH (scripts/build.sh --torch).
torch_build_dir() { echo "build/torch-$(basename "$(cd "$1" && pwd)")"; }

# field KEY FILE: the value of FILE's first KEY=... line (pid files).
field() { sed -n "s/^$1=//p" "$2" 2> /dev/null | head -1; }

# alive PID PROGRAM: PID is a running tengen-PROGRAM on this host, or the shell supervising one
# (not a zombie, not a reused pid).
alive() {
  local cmdline
  [[ $1 =~ ^[0-9]+$ ]] && kill -0 "$1" 2> /dev/null || return 1
  [[ -r /proc/$1/cmdline ]] || return 0
  cmdline=$(tr '\0' ' ' 2> /dev/null < "/proc/$1/cmdline") || return 1
  [[ $cmdline == *tengen-$2* ]]
}

# sigint_at_default SCRIPT ARGS...: when this shell started with SIGINT ignored, runs SCRIPT
# again with SIGINT at its default disposition (exec, same pid). A job that a non-interactive
# shell puts in the background (`nohup script &` from another script, cron, ssh) starts with
# SIGINT ignored, and bash can neither trap nor reset a signal ignored on entry: the script's
# Ctrl-C handling would never run and only SIGTERM would stop it. Call it before any trap.
sigint_at_default() {
  local ignored
  ignored=$(sed -n 's/^SigIgn:[[:space:]]*//p' "/proc/$$/status" 2> /dev/null) || ignored=0
  if [[ $ignored =~ ^[0-9a-fA-F]+$ ]] && ((16#${ignored: -8} & 2)); then
    if [[ -z ${TENGEN_SIGINT_RESET:-} ]]; then
      TENGEN_SIGINT_RESET=1 exec env --default-signal=INT bash "$@"
    fi
    echo "$(basename "$1"): SIGINT is ignored and could not be reset; stop it with SIGTERM" >&2
  fi
  unset TENGEN_SIGINT_RESET
}

# catches_sigint PID: true once PID has a SIGINT handler of its own (Linux: /proc/PID/status).
catches_sigint() {
  local mask
  mask=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2> /dev/null) || return 1
  [[ $mask =~ ^[0-9a-fA-F]+$ ]] && ((16#${mask: -8} & 2))
}

# interrupt PID [SECONDS]: sends PID one SIGINT, its cooperative stop. A tengen program still
# loading (libraries, options) has SIGINT ignored (it was started in the background) or at its
# default, so a SIGINT then would be lost or would kill it: this waits up to SECONDS (default
# 30) for the program's handler, and sends the signal anyway after that. Never sends a second
# SIGINT, which would end the program at once.
interrupt() {
  local pid=$1 seconds=${2:-30} i
  for ((i = 0; i < seconds * 20; i++)); do
    catches_sigint "$pid" && break
    kill -0 "$pid" 2> /dev/null || return 0
    sleep 0.05
  done
  kill -INT "$pid" 2> /dev/null || true
}

# wait_exit PID: waits until PID, a child of this shell, has ended and returns its exit status.
# A signal this shell traps (slurm/job.sh's SIGINT, passed on to the child) interrupts wait
# with 128+signal while the child is still stopping: it waits again until the child is gone,
# then once more for the child's own status, which bash keeps for a child it has reaped (bash
# 5.2 sometimes answers -1 there for a child that a signal ended: then the interrupted wait's
# 128+signal is the child's status too). A signal that arrives just as the child ends can lose
# that status: shells that need it ignore SIGTERM, which every process of a job gets at once.
wait_exit() {
  local pid=$1 code again
  while :; do
    wait "$pid"
    code=$?
    kill -0 "$pid" 2> /dev/null && continue
    wait "$pid"
    again=$?
    ((again < 0 || again == 127)) || code=$again
    return "$code"
  done
}
