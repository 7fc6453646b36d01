#!/usr/bin/env bash
# Times every program's look at a shared base directory, on a base directory of any size
# (experiments/scale_sim.py inflates a real one to 1,000,000 shards from 1,000 hosts):
#
#   bench/scale_bench.sh BASE [--runs N] [--cold] [--training-name NAME --run-name NAME
#                        --model-kind KIND --pos-len N]
#
# Each of these runs N times (default 3) and the median wall time is printed, with the time
# per 1,000 shard files:
#   shuffler    tengen-shuffler --dry-run true --once true: lists the shards, chooses the window
#   trainer     tengen-trainer --quit-if-no-data true --stop-when-train-bucket-limited true:
#               loads its state, finds the newest shuffle, has nothing to train on
#   exporter    tengen-exporter --once true with nothing queued
#   gatekeeper  tengen-gatekeeper --quit-if-no-nets-to-test true with nothing to test
#   status      tengen-status BASE
# and then a shuffler that keeps running (--dry-run true, interval 1 s) for 4 passes: the
# median of its 2nd to 4th scans (from its log) is what a long-running shuffler pays per pass.
# --cold drops the page cache before every run (root only): what a restarted program sees on a
# filesystem whose metadata is not cached. None of the commands adds data to BASE (they write
# logs and heartbeats). Programs come from TENGEN_BIN (default build/release/bin); the training
# options must name BASE's trainer (the defaults suit experiments/scale_sim.py's seed, tiny loop).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TENGEN_BIN:-$root/build/release/bin}
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }

base="" runs=3 cold=0 training_name=tiny run_name=e2e model_kind=b1c16 pos_len=7
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --cold) cold=1; shift ;;
    --training-name) training_name=$2; shift 2 ;;
    --run-name) run_name=$2; shift 2 ;;
    --model-kind) model_kind=$2; shift 2 ;;
    --pos-len) pos_len=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "scale_bench.sh: unknown option $1" >&2; usage ;;
    *) [[ -z $base ]] || usage; base=$1; shift ;;
  esac
done
[[ -n $base ]] || usage
[[ -d $base/selfplay ]] || { echo "scale_bench.sh: $base/selfplay does not exist" >&2; exit 1; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "scale_bench.sh: --runs must be a positive number, got '$runs'" >&2; exit 2; }
if ((cold)) && ! [[ -w /proc/sys/vm/drop_caches ]]; then
  echo "scale_bench.sh: --cold needs root (it writes /proc/sys/vm/drop_caches)" >&2
  exit 1
fi

# The synthetic selfplay hosts' heartbeats (status/selfplay-host*.json, from scale_sim.py) are
# made to look alive now, as on a running cluster (same length: they stay 4 KiB).
stamp=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
find "$base/status" -name 'selfplay-host*.json' -print0 |
  xargs -0 -r sed -i "s/\"time_utc\": \"[^\"]*\"/\"time_utc\": \"$stamp\"/"

shards=$(find "$base/selfplay" -path '*/tdata/*.npz' ! -name '*.tmp*' | wc -l)
echo "base $base: $shards shard files, $(find "$base" -type f | wc -l) files in all;" \
  "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) cores; cold=$cold"

cfg() { echo --config "$root/configs/$1.cfg" --output-dir "$base" --log-level warning; }
declare -A commands=(
  [shuffler]="$bin/tengen-shuffler $(cfg shuffler) --dry-run true --once true"
  [trainer]="$bin/tengen-trainer $(cfg trainer) --training-name $training_name --run-name $run_name
    --model-kind $model_kind --pos-len $pos_len --precision fp32 --quit-if-no-data true --stop-when-train-bucket-limited true"
  [exporter]="$bin/tengen-exporter $(cfg exporter) --once true"
  [gatekeeper]="$bin/tengen-gatekeeper $(cfg gatekeeper) --quit-if-no-nets-to-test true"
  [status]="$bin/tengen-status $base"
)

# seconds COMMAND...: the wall time of one run (its output goes to a log under /tmp).
seconds() {
  ((cold)) && { sync; echo 3 > /proc/sys/vm/drop_caches; }
  local start end
  start=$(date +%s%N)
  "$@" > /tmp/scale_bench.out 2>&1 || { cat /tmp/scale_bench.out >&2; echo "scale_bench.sh: failed: $*" >&2; exit 1; }
  end=$(date +%s%N)
  awk -v ns=$((end - start)) 'BEGIN { printf "%.3f\n", ns / 1e9 }'
}

printf '%-11s %9s %16s   %s\n' program median_s ms_per_1000_files runs_s
for program in shuffler trainer exporter gatekeeper status; do
  # shellcheck disable=SC2206
  command=(${commands[$program]})
  times=()
  for ((i = 0; i < runs; i++)); do times+=("$(seconds "${command[@]}")"); done
  median=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  # Only the shuffler and status look at shards; the others' time does not grow with them.
  per=-
  [[ $program == shuffler || $program == status ]] &&
    per=$(awk -v m="$median" -v n="$shards" 'BEGIN { printf "%.3f", m * 1e6 / (n + 1) }')
  printf '%-11s %9.2f %16s   %s\n' "$program" "$median" "$per" \
    "$(printf '%.2f ' "${times[@]}")"
done

# A running shuffler's later scans: 4 passes, 1 s apart, then SIGINT.
log=/tmp/scale_bench.shuffler.log
"$bin/tengen-shuffler" --config "$root/configs/shuffler.cfg" --output-dir "$base" --dry-run true \
  --interval-seconds 1 > "$log" 2>&1 &
pid=$!
until (($(grep -c ' scanned ' "$log") >= 4)) || ! kill -0 "$pid" 2> /dev/null; do sleep 0.5; done
kill -INT "$pid" 2> /dev/null || true
wait "$pid" || true
sed -n 's/.* scanned .* in \([0-9.]*\) s: .*/\1/p' "$log" | sed -n 2,4p | sort -g |
  awk '{ v[NR] = $1 } END { if (NR) printf "%-11s %9.2f %16.3f   (scans 2-4 of one running shuffler: %s)\n", "shuffler+", v[int((NR + 1) / 2)], v[int((NR + 1) / 2)] * 1000000 / '"$((shards + 1))"', v[1] " .. " v[NR] }'
