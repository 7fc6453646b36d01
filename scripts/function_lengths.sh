#!/usr/bin/env bash
# Lists the functions in lib/ longer than a limit (80 lines by default), and fails when one of
# them has no reason to be that long. Issue 13: small named functions; a long one must say why.
#
#   scripts/function_lengths.sh [--all] [--limit N] [SOURCE_DIR]
#
# A function's length is counted from the line of its opening brace to the line of its closing
# brace, both included. Functions are found by brace matching over clang-formatted code (.h and
# .cpp under lib/): a brace opened at namespace or class level whose statement holds a '(' and
# is not an initializer ('= {') starts a function: free functions, out-of-line methods and
# methods defined inside a class body alike. Lambdas and local classes count as part of the
# function around them. Strings (raw ones too), character literals and comments are skipped.
#
# The marker: a function may be long when the comment just above its signature contains
# "long:" followed by the reason, e.g.
#     // long: one table of every key, read top to bottom; split, it would hide the order.
# Such functions are listed with "(long: reason given)" and do not fail the check.
#
# Output: one line per long function, "FILE:LINE: FUNCTION is N lines (limit 80)", then a
# summary. Exit status 1 when a long function has no "long:" reason, 0 otherwise. --all lists
# the reasoned ones too (they are always counted in the summary).
set -u
limit=80
all=0
while (($#)); do
  case $1 in
    --all) all=1; shift ;;
    --limit) limit=$2; shift 2 ;;
    -h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) break ;;
  esac
done
root=${1:-$(dirname "$0")/..}
cd "$root" || exit 2
[[ -d lib ]] || { echo "function_lengths: no lib/ in $(pwd)" >&2; exit 2; }

mapfile -t files < <(find lib -name '*.cpp' -o -name '*.h' | sort)
awk -v limit="$limit" -v all="$all" '
function flush_comment() { comment = "" }
# Returns the function name in a statement "... Name(args) const {", or "" if none.
function function_name(stmt,    head, n) {
  head = stmt
  sub(/\(.*/, "", head)
  if (head ~ /(^|[^A-Za-z0-9_])operator/) { sub(/.*operator/, "operator", head); return head }
  n = split(head, words, /[^A-Za-z0-9_:~]+/)
  while (n > 0 && words[n] == "") n--
  return n > 0 ? words[n] : ""
}
FNR == 1 {
  depth = 0; stmt = ""; in_block_comment = 0; comment = ""; inside_function = 0; in_pp = 0; raw_end = ""
  delete kind
}
{
  line = $0
  trimmed = line
  sub(/^[ \t]+/, "", trimmed)
  # Preprocessor lines, with their backslash continuations (macro bodies), are not code here.
  if (in_pp || (trimmed ~ /^#/ && inside_function == 0)) { in_pp = (line ~ /\\$/); next }
  if (inside_function == 0 && trimmed ~ /^(public|private|protected):$/) { stmt = ""; flush_comment(); next }
  # Comment lines just above a statement belong to it.
  if (trimmed ~ /^\/\// && stmt == "") { comment = comment " " trimmed; next }
  if (trimmed == "" && stmt == "") { flush_comment(); next }
  n = length(line)
  i = 1
  if (raw_end != "") {  # inside a raw string literal R"d(...)d" that began on an earlier line
    j = index(line, raw_end)
    if (j == 0) next
    i = j + length(raw_end)
    raw_end = ""
  }
  for (; i <= n; i++) {
    c = substr(line, i, 1)
    if (in_block_comment) {
      if (c == "*" && substr(line, i + 1, 1) == "/") { in_block_comment = 0; i++ }
      continue
    }
    if (c == "/" && substr(line, i + 1, 1) == "/") break
    if (c == "/" && substr(line, i + 1, 1) == "*") { in_block_comment = 1; i++; continue }
    if (c == "\"" && substr(line, i - 1, 1) == "R") {
      # A raw string: skip to )delimiter", on this line or a later one.
      open_paren = index(substr(line, i + 1), "(")
      raw_end = ")" substr(line, i + 1, open_paren - 1) "\""
      j = index(substr(line, i + 1), raw_end)
      if (inside_function == 0) stmt = stmt "\"\""
      if (j == 0) break
      i = i + j + length(raw_end) - 1
      raw_end = ""
      continue
    }
    if (c == "\"" || c == "'\''") {
      # Skip the literal.
      q = c
      for (i++; i <= n; i++) {
        d = substr(line, i, 1)
        if (d == "\\") { i++; continue }
        if (d == q) break
      }
      if (inside_function == 0) stmt = stmt "\"\""
      continue
    }
    if (c == "{") {
      if (inside_function > 0) { inside_function++; continue }
      if (stmt ~ /^[ \t]*(namespace|extern)([ \t]|$)/) { kind[++depth] = "ns"; stmt = ""; flush_comment(); continue }
      if (stmt ~ /(^|[ \t])(class|struct|union)[ \t]/ && stmt !~ /\(/) { kind[++depth] = "class"; stmt = ""; flush_comment(); continue }
      if (stmt ~ /\(/ && stmt !~ /=[ \t]*$/ && stmt !~ /(^|[ \t])enum[ \t]/) {
        inside_function = 1
        fname = function_name(stmt)
        fstart = FNR
        fcomment = comment
        stmt = ""
        continue
      }
      # An initializer or an enum: a block of its own, skipped as a whole.
      kind[++depth] = "block"; stmt = stmt "{"
      continue
    }
    if (c == "}") {
      if (inside_function > 0) {
        inside_function--
        if (inside_function == 0) {
          len = FNR - fstart + 1
          if (len > limit) {
            reasoned = (fcomment ~ /long:[ \t]*[^ \t]/)
            if (reasoned) nreasoned++; else nfailed++
            if (!reasoned || all)
              printf "%s:%d: %s is %d lines (limit %d)%s\n", FILENAME, fstart, fname, len, limit, reasoned ? " (long: reason given)" : ""
          }
          stmt = ""; flush_comment()
        }
        continue
      }
      if (depth > 0) {
        was = kind[depth--]
        if (was == "block") { stmt = stmt "}"; continue }
      }
      stmt = ""; flush_comment()
      continue
    }
    if (inside_function > 0) continue
    if (c == ";") {
      if (depth > 0 && kind[depth] == "block") continue
      stmt = ""; flush_comment(); continue
    }
    if (stmt == "" && (c == " " || c == "\t")) continue
    stmt = stmt c
  }
  if (inside_function == 0 && stmt != "") stmt = stmt " "
}
END {
  printf "function_lengths: %d function(s) over %d lines without a \"long:\" reason, %d with one\n", nfailed, limit, nreasoned
  exit nfailed > 0 ? 1 : 0
}
' "${files[@]}"
