#!/usr/bin/env bash
# KaTrain (katrain 1.20.0 from PyPI, headless) drives tengen-analysis with the shipped net:
# tests/katrain_client.py says what is checked. KaTrain is installed into a virtual environment
# kept in ~/.cache/tengen (TENGEN_CACHE) for the next run; without PyPI, or without the Python
# KaTrain needs (3.11 to 3.13), the test is skipped with a line saying why.
#
# usage: katrain_test.sh SOURCE_DIR BIN_DIR
set -euo pipefail
source_dir=$1
bin_dir=$2
version=1.20.0
cache=${TENGEN_CACHE:-$HOME/.cache/tengen}
venv=$cache/katrain-$version

skip() {
  echo "SKIPPED: needs KaTrain from PyPI: $*"
  exit 0
}

if ! python3 -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] < (3, 14))'; then
  skip "KaTrain $version runs on Python 3.11 to 3.13, this is $(python3 --version 2>&1)"
fi
if [[ ! -f $venv/installed ]]; then
  rm -rf "$venv"
  mkdir -p "$cache"
  python3 -m venv "$venv" || skip "python3 -m venv failed (apt-get install python3-venv)"
  echo "installing katrain==$version into $venv"
  if ! "$venv/bin/pip" install --quiet --disable-pip-version-check "katrain==$version" \
    > "$venv/pip.log" 2>&1; then
    tail -5 "$venv/pip.log"
    rm -rf "$venv"
    skip "pip install katrain==$version failed (above)"
  fi
  touch "$venv/installed"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# KaTrain's Kivy keeps its settings in KIVY_HOME; a fresh one per run.
KIVY_HOME=$work/kivy "$venv/bin/python" "$source_dir/tests/katrain_client.py" \
  "$bin_dir/tengen-analysis" "$source_dir/nets/run-b4c64-s1857024-d234352" \
  "$source_dir/results/run-b4c64-s1857024-d234352/fill-rules-off-vs-gnugo-l10/game-012.sgf"
