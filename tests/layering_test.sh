#!/usr/bin/env bash
# Enforces the module layering of docs/ARCHITECTURE.md by reading #include lines:
# - only lib/nn/torch/ (and programs that run a net) may include libtorch headers;
# - go/ and search/ never include nn/; util/ includes no other module; go/ includes only util/;
# - what needs libtorch sits in a torch/ folder (nn/torch, play/torch, pipeline/torch), and
#   nothing else in lib/ includes from one; play, pipeline, match and status include only the
#   modules below them.
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 1
fail=0
report() { echo "layering violation: $*"; fail=1; }

torch_pattern='#\s*include\s*[<"](torch|ATen|c10|caffe2)/'
while IFS= read -r hit; do
  case "$hit" in
    lib/nn/torch/*) ;;
    *) report "libtorch outside lib/nn/torch: $hit" ;;
  esac
done < <(grep -rnE "$torch_pattern" lib --include='*.h' --include='*.cpp' || true)
# Headers anywhere outside nn/torch must not pull libtorch in for their includers.
while IFS= read -r hit; do report "libtorch in a header: $hit"; done \
  < <(grep -rnE "$torch_pattern" --include='*.h' . 2>/dev/null | grep -v '^./lib/nn/torch/' | grep -v '^./build/' || true)

check_module() {  # module, allowed include prefixes (regex alternation); skips a torch/ subfolder
  local module=$1 allowed=$2
  [[ -d lib/$module ]] || return 0
  while IFS= read -r hit; do
    local inc
    inc=$(sed -E 's/.*#\s*include\s*"([^"]+)".*/\1/' <<<"$hit")
    [[ $inc =~ ^($allowed)/ ]] || report "lib/$module may not include \"$inc\": $hit"
  done < <(grep -rnE '#\s*include\s*"' "lib/$module" --include='*.h' --include='*.cpp' \
    --exclude-dir=torch || true)
}
# The torch boundary in the folder tree: code that needs libtorch lives in a torch/ folder
# (lib/nn/torch, lib/play/torch, lib/pipeline/torch); no other file of lib/ includes a header
# from one.
while IFS= read -r hit; do report "a torch/ header outside the torch folders: $hit"; done \
  < <(grep -rnE '#\s*include\s*"[a-z_]+/torch/' lib --include='*.h' --include='*.cpp' |
    grep -vE '^lib/[a-z_]+/torch/' || true)
check_module util 'util'
check_module go 'util|go'
check_module data 'util|go|data'
check_module search 'util|go|search'
check_module gtp 'util|go|search|gtp'
check_module nn 'util|go|nn'
check_module play 'util|go|data|search|nn|play'
check_module pipeline 'util|go|data|search|nn|play|pipeline'
check_module analysis 'util|go|search|gtp|analysis'
check_module match 'util|go|gtp|play|pipeline|match'
check_module status 'util|go|data|play|pipeline|match|status'

if ((fail)); then exit 1; fi
echo "layering ok: $(find lib -name '*.h' -o -name '*.cpp' | wc -l) files checked"
