#!/usr/bin/env bash
# A net trained only on game records: what tengen-sgf2npz's rows teach without self-play.
#
#   experiments/records_net.sh BASE SGF_DIR... [--samples N] [--model KIND] [--pos-len N]
#
# Converts the records (tengen-sgf2npz, into BASE/selfplay/records/tdata/), shuffles every row
# once (the whole set is the window), trains a KIND net (default b4c64) on N samples (default
# 400000) with configs/trainer.cfg otherwise, and exports its snapshots into BASE/models/, the
# newest last, as the synchronous loop would. Run it again to resume: the records are not
# converted twice, the trainer goes on from its checkpoint. The nets are then matched like any
# others (tengen-match with tengen-gtp); experiments/README.md says what it was used for.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2; exit 2; }
die() { echo "records_net.sh: $*" >&2; exit 2; }

base="" samples=400000 model=b4c64 pos_len=9
sgf_dirs=()
while (($#)); do
  case $1 in
    --samples) samples=$2; shift 2 ;;
    --model) model=$2; shift 2 ;;
    --pos-len) pos_len=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1'" ;;
    *) if [[ -z $base ]]; then base=$1; else sgf_dirs+=("$1"); fi; shift ;;
  esac
done
[[ -n $base && ${#sgf_dirs[@]} -gt 0 ]] || usage
[[ $samples =~ ^[1-9][0-9]*$ ]] || die "--samples must be a positive integer, got '$samples'"
bin=${TENGEN_BIN:-$root/build/release/bin}
for program in sgf2npz shuffler trainer exporter; do
  [[ -x $bin/tengen-$program ]] || die "no $bin/tengen-$program: build first (scripts/build.sh)"
done

mkdir -p "$base"
tdata=$base/selfplay/records/tdata
if ! compgen -G "$tdata/*.npz" > /dev/null; then
  "$bin/tengen-sgf2npz" "${sgf_dirs[@]}" --output-dir "$tdata" --pos-len "$pos_len" |
    tee "$base/sgf2npz.txt"
fi
rows=$(sed -n 's/.*rows: \([0-9]*\) in .*/\1/p' "$base/sgf2npz.txt")
[[ $rows =~ ^[1-9][0-9]*$ ]] || die "no rows converted (see $base/sgf2npz.txt)"
per_row=$(((samples + rows - 1) / rows))
echo "records_net.sh: $rows rows, $samples samples ($per_row per row at most)" >&2

if ! compgen -G "$base/shuffleddata/*/summary.json" > /dev/null; then
  "$bin/tengen-shuffler" --config "$root/configs/shuffler.cfg" --output-dir "$base" --once true \
    --set min_rows="$rows" --set keep_target_rows="$((rows > 1200000 ? rows : 1200000))"
fi
"$bin/tengen-trainer" --config "$root/configs/trainer.cfg" --output-dir "$base" \
  --training-name "$model" --run-name records --model-kind "$model" --pos-len "$pos_len" \
  --set max_train_bucket_per_new_data="$per_row" --set max_train_bucket_size="$samples" \
  --stop-when-train-bucket-limited true --quit-if-no-data true
"$bin/tengen-exporter" --config "$root/configs/exporter.cfg" --output-dir "$base" --once true \
  --gating false
echo "records_net.sh: newest model: $(ls -t "$base/models" | head -1)" >&2
