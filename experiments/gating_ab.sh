#!/usr/bin/env bash
# Gating against no gating on this machine, side by side: which makes the stronger net in the
# same running time?
#
#   experiments/gating_ab.sh DIR [--hours H] [--slice H] [--games N] [--rate-games N]
#                      [--gnugo-levels L] [--visits V] [--board-size N] [--model KIND]
#                      [-- loop options]
#
# experiments/loop_ab.sh with two arms: DIR/gating (USEGATING 1: candidates go through the
# gatekeeper) and DIR/nogating (USEGATING 0, the default). The options are loop_ab.sh's: both
# trained in turns to H hours of running time, their last nets play N games against each other
# (DIR/final-match/match.json), then each is rated on its own ladder. Ctrl-C stops it; the same
# command again resumes.
root=$(cd "$(dirname "$0")/.." && pwd)
exec bash "$root/experiments/loop_ab.sh" --arm gating="--gating 1" --arm nogating="--gating 0" "$@"
