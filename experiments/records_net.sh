#!/usr/bin/env bash
# A net trained only on game records: what tengen-sgf2npz's rows teach without self-play.
#
#   experiments/records_net.sh BASE SGF_DIR... [--samples N] [--model KIND] [--pos-len N]
#
# Converts the records (tengen-sgf2npz, into BASE/selfplay/records/tdata/), shuffles every row
# once (the whole set is the window), trains a KIND net (default b4c64) for the epochs that
# make N samples (default 400000; whole epochs of configs/trainer.cfg, which is used otherwise),
# and exports its snapshots into BASE/models/, the newest last, as the synchronous loop would. Run it again to resume: the records are not
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
# The train bucket credits the first shuffle a fresh run sees with one epoch only (it is meant
# for self-play's stream of rows), so the bucket is off here and the epochs are counted instead.
read -r epoch_samples batch < <("$bin/tengen-trainer" --config "$root/configs/trainer.cfg" \
  --print-config samples_per_epoch --print-config batch_size | paste -sd ' ')
epoch_samples=$((epoch_samples / batch * batch))  # an epoch is whole batches
trained=0
if [[ -d $base/train/$model/checkpoints ]]; then
  newest=$(ls "$base/train/$model/checkpoints" | sed -n 's/^ckpt-0*\([0-9][0-9]*\)-.*/\1/p' | sort -n | tail -1)
  [[ -n $newest ]] && trained=$newest
fi
epochs=$(((samples - trained + epoch_samples - 1) / epoch_samples))
echo "records_net.sh: $rows rows; $samples samples, $trained trained, $epochs epochs of $epoch_samples to go" >&2

if ! compgen -G "$base/shuffleddata/*/summary.json" > /dev/null; then
  "$bin/tengen-shuffler" --config "$root/configs/shuffler.cfg" --output-dir "$base" --once true \
    --set min_rows="$rows" --set keep_target_rows="$((rows > 1200000 ? rows : 1200000))"
fi
if ((epochs > 0)); then
  "$bin/tengen-trainer" --config "$root/configs/trainer.cfg" --output-dir "$base" \
    --training-name "$model" --run-name records --model-kind "$model" --pos-len "$pos_len" \
    --set max_train_bucket_per_new_data=0 --max-epochs-this-instance "$epochs" --quit-if-no-data true
fi
"$bin/tengen-exporter" --config "$root/configs/exporter.cfg" --output-dir "$base" --once true \
  --gating false
echo "records_net.sh: newest model: $(ls -t "$base/models" | head -1)" >&2
