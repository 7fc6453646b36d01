#!/usr/bin/env bash
# the shipped net's 100-game selfplay with gumbel_after_pass true and false, two runs each, alternating
set -euo pipefail
cd /work/main
for run in 1 2; do
  for v in true false; do
    d=/work/tails55/$v-$run; rm -rf $d; mkdir -p $d/models
    cp -r nets/run-b4c64-s1857024-d234352 $d/models/
    start=$(date +%s)
    build/release/bin/tengen-selfplay --config configs/selfplay.cfg --output-dir $d --models-dir $d/models \
      --max-games-total 100 --set gumbel_after_pass=$v > $d/log.txt 2>&1
    echo "gumbel_after_pass=$v run $run: $(( $(date +%s) - start )) s: $(grep -h 'INFO stopped:' $d/log.txt | sed 's/.*INFO //')"
  done
done
