#!/usr/bin/env bash
# Enforces the module layering of docs/ARCHITECTURE.md by reading #include lines:
# - only lib/nn/torch/ (and programs that run a net) may include libtorch headers;
# - go/ and search/ never include nn/; util/ includes no other module; go/ includes only util/.
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

check_module() {  # module, allowed include prefixes (regex alternation)
  local module=$1 allowed=$2
  [[ -d lib/$module ]] || return 0
  while IFS= read -r hit; do
    local inc
    inc=$(sed -E 's/.*#\s*include\s*"([^"]+)".*/\1/' <<<"$hit")
    [[ $inc =~ ^($allowed)/ ]] || report "lib/$module may not include \"$inc\": $hit"
  done < <(grep -rnE '#\s*include\s*"' "lib/$module" --include='*.h' --include='*.cpp' || true)
}
check_module util 'util'
check_module go 'util|go'
check_module data 'util|go|data'
check_module search 'util|go|search'
check_module gtp 'util|go|search|gtp'

if ((fail)); then exit 1; fi
echo "layering ok: $(find lib -name '*.h' -o -name '*.cpp' | wc -l) files checked"
