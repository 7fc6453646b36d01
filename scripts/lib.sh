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
