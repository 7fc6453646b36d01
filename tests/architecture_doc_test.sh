#!/usr/bin/env bash
# docs/ARCHITECTURE.md's "The life of a row" names functions as `Name` (lib/path): each must be
# defined in that file, so that the walkthrough a newcomer follows stays true as code moves.
#   tests/architecture_doc_test.sh [SOURCE_DIR]
set -u
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 1
doc=docs/ARCHITECTURE.md
section=$(awk '/^## The life of a row/ { on = 1; next } /^## / { on = 0 } on' "$doc")
[[ -n $section ]] || { echo "architecture_doc: no 'The life of a row' section in $doc"; exit 1; }
# Join the section's lines so that a name and its file may sit on two lines.
pairs=$(tr '\n' ' ' <<< "$section" | grep -oE '`[A-Za-z_:]+`,? +\(?(lib/[a-z_/]+\.(cpp|h))' |
  sed -E 's/`([A-Za-z_:]+)`,? +\(?(.*)/\1 \2/')
count=0
fail=0
while read -r name file; do
  [[ -n $name ]] || continue
  count=$((count + 1))
  if [[ ! -f $file ]]; then
    echo "architecture_doc: $name: $file does not exist"
    fail=1
    continue
  fi
  method=${name##*::}
  owner=${name%::*}
  if [[ $name == *::* ]]; then
    # Class::Method( defined out of line, or the method defined inside `class Class`.
    grep -qE "(^|[^A-Za-z_])$name\(" "$file" && continue
    grep -qE "^(class|struct) ${owner##*::}( |$)" "$file" && grep -qE "[ *&]$method\(" "$file" && continue
  else
    grep -qE "^[A-Za-z].*[ *&]$name\(" "$file" && continue
  fi
  echo "architecture_doc: $name is not defined in $file"
  fail=1
done <<< "$pairs"
((count >= 10)) || { echo "architecture_doc: only $count functions found in the section"; exit 1; }
((fail == 0)) && echo "architecture_doc: ok, $count functions where the doc says"
exit $fail
